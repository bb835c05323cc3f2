#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-retsnoop: what retsnoop (make retsnoop, contrib/retsnoop)
# costs a traced call, in guest instructions, with its function IDs found
# through the ip_cookie map and without it (--no-ip-cookie-map):
#   -M (kprobe.multi, retsnoop's default): the ID from the map, looked up
#      by bpf_get_func_ip(), or from bpf_get_attach_cookie(), at
#      N = 1, 100, 1,000 and 10,000 traced functions;
#   -F (fentry/fexit): ip_to_id as the ip_cookie map or as HASH, at
#      N = 1 and 100.
#
# Method: one boot of the base kernel under QEMU -icount (VM_ACCEL=icount,
# scripts/vm-run.sh). retsnoop traces the loop's syscall function (-e)
# and N - 1 functions the workload does not call (-a @FILE; picked by a
# calibration run of ftrace's function tracer before any measurement);
# per rep a baseline without retsnoop, then each row: bt-trigger
# (scripts/bt-trigger.c) for ITERS and 2 x ITERS iterations, so that the
# fixed work cancels, then ITERS more with kernel.bpf_stats_enabled for
# the programs' run counts; attach and detach timed on the guest clock.
# The report (report() below) writes the method out in full at the top
# of docs/results/retsnoop-icount.md. Checks (warnings in the raw output
# and the report, not failures): the trace buffer holds no UNRECOGNIZED
# line, retsnoop exits 0 and says whether it uses the map as the row asks.
#
#   scripts/bench-retsnoop.sh              build what is missing, measure,
#                                          write docs/results/retsnoop-icount.md
#   scripts/bench-retsnoop.sh report [RAW [MD]]  the report again, no VM
# Variables:
#   RS_ITERS=100000   trigger iterations of the first run (the second: 2x)
#   RS_REPS=3         reps
#   RS_M_NS='1 100 1000 10000'  N for -M;  RS_F_NS='1 100'  N for -F
#   RESULTS=dir       where to write (docs/results)
#   NO_BUILD=1        use what is built (base kernel, tools, retsnoop)
#   RS_KERNEL=base    the kernel flavour booted (debug: to try the script
#                     out; its figures are not the base kernel's)
#   RS_IMAGE=file     boot this image of that flavour (vm-run.sh --image)
#   VM_TIMEOUT (default here 7200 s)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
S=$ROOT/scripts
RESULTS=${RESULTS:-$ROOT/docs/results}
ITERS=${RS_ITERS:-100000}
REPS=${RS_REPS:-3}
M_NS=${RS_M_NS:-1 100 1000 10000}
F_NS=${RS_F_NS:-1 100}
RS=$BUILD/retsnoop/src/src
LOG=$BUILD/vm/bench-retsnoop.log
KFLAVOR=${RS_KERNEL:-base}
export VM_TIMEOUT=${VM_TIMEOUT:-7200}
export VM_ACCEL=icount

report() {	# RAW MD
	python3 - "$1" "$2" <<'PYEOF'
import re
import statistics
import sys

raw, out = sys.argv[1:3]
head, rows, base, warns = {}, {}, [], []
for line in open(raw):
    line = line.rstrip('\n')
    m = re.match(r'(date|commit|command|kernel|flavour|VM run|iterations|calibration): (.*)', line)
    if m and m.group(1) not in head:
        head[m.group(1)] = m.group(2)
    if line.startswith('rb-warn '):
        warns.append(line[8:])
    if not line.startswith('rb-row '):
        continue
    d = dict(re.findall(r'(\w+)=(\S+)', line))
    per = (int(d['ns2']) - int(d['ns1'])) / int(d['iters'])
    if d['mode'] == 'base':
        base.append(per)
        continue
    r = rows.setdefault((d['mode'], int(d['n']), d['ids']), {'iter': [], 'att': set(), 'runs': [],
                                                               'attach': [], 'detach': []})
    r['iter'].append(per)
    r['att'].add(int(d['attached']))
    r['runs'].append(int(d['runs']) / int(d['iters']))
    r['attach'].append(float(d['attach_s']))
    r['detach'].append(float(d['detach_s']))
if not base:
    sys.exit('bench-retsnoop: no baseline run')
b = statistics.median(base)


def fmt(v, p=0):
    md, lo, hi = statistics.median(v), min(v), max(v)
    if p == 0:
        return '{:,.0f} ({:,.0f}-{:,.0f})'.format(md, lo, hi)
    return '%.*f (%.*f-%.*f)' % (p, md, p, lo, p, hi)


name = {'map': 'ip_cookie map', 'cookie': 'cookie', 'hash': 'HASH'}
md = ['# retsnoop: instructions per traced call (QEMU -icount)', '',
      'Written by `scripts/bench-retsnoop.sh` (`make bench-retsnoop`) on %s at commit %s. '
      'Raw guest output: `raw-retsnoop-icount.txt`.' % (head.get('date', '?'), head.get('commit', '?')), '',
      '- Method: QEMU `-icount shift=0,sleep=off` (TCG): guest time advances one ns per '
      'instruction, so the per-call figures are guest **instructions**, the same on any host. '
      'One boot of the **%s kernel** (%s).' % (head.get('flavour', '?'), head.get('kernel', '?').split(' ')[0]),
      '- retsnoop a777df0 with `contrib/retsnoop`, `-e` the loop\'s syscall function and `-a` '
      'N - 1 functions the loop does not call (%s). `-M`: kprobe.multi, the function\'s ID from '
      'the ip_cookie map by `bpf_get_func_ip()` or, with `--no-ip-cookie-map`, from '
      '`bpf_get_attach_cookie()` (a binary search of the link\'s cookies). `-F`: fentry/fexit, '
      '`ip_to_id` as the ip_cookie map or, with `--no-ip-cookie-map`, as `BPF_MAP_TYPE_HASH`.'
      % head.get('calibration', '?'),
      '- Trigger: `bt-trigger` (`scripts/bt-trigger.c`), `syscall(SYS_getppid)` in a loop, run '
      'for M then 2M iterations: per iteration = (2M run - M run) / M. Per traced call = that '
      'less the baseline without retsnoop. Each call runs retsnoop\'s entry and exit programs '
      'once; no call stack is emitted (getppid() does not fail).',
      '- Median (min-max) over the reps (%s). N: functions retsnoop reported attached. Program '
      'runs per iteration: `run_cnt` of the programs, over a separate M iterations with '
      '`kernel.bpf_stats_enabled` (2: only the loop\'s call ran them; a few runs more per pass, '
      'the same at any M, are fixed work around the pass, e.g. functions the calibration did not '
      'see while the trigger starts or bpf_stats is switched on, which the timed runs, 2M less '
      'M, cancel). Attach: from retsnoop\'s '
      'start to "Receiving data..."; detach: from SIGINT to its exit; both on the guest\'s '
      'clock, which under -icount counts one ns per instruction and skips idle time to the next '
      'timer: **not** wall time. The VM ran %s (host wall time, beside other work).'
      % (head.get('iterations', '?'), head.get('VM run', '?')),
      '', '```', head.get('command', '?'), '```', '',
      'Baseline, no retsnoop: **%.1f** instructions per loop iteration (%s).' % (
          b, ', '.join('%.1f' % x for x in base)), '',
      '## Per traced call', '',
      '| mode | N | IDs from | instructions per traced call | program runs / iteration | '
      'attach (guest s) | detach (guest s) |',
      '|---|---|---|---|---|---|---|']
order = [(m, n, i) for m in ('M', 'F') for n in sorted({k[1] for k in rows}) for i in ('map', 'cookie', 'hash')]
med = {}
for k in order:
    r = rows.get(k)
    if not r:
        continue
    per = [x - b for x in r['iter']]
    med[k] = statistics.median(per)
    md.append('| -%s | %s | %s | **%s** | %s | %s | %s |' % (
        k[0], ' / '.join('{:,}'.format(a) for a in sorted(r['att'])), name[k[2]], fmt(per),
        fmt(r['runs'], 3), fmt(r['attach'], 2), fmt(r['detach'], 2)))
md += ['', '## Summary: instructions per traced call (medians)', '',
       'N: the functions asked for (the table above has the number attached).', '',
       '| N | -M, cookie | -M, ip_cookie map | -M, cookie - map | -F, HASH | -F, ip_cookie map | -F, HASH - map |',
       '|---|---|---|---|---|---|---|']


def cell(k):
    return '{:,.0f}'.format(med[k]) if k in med else '-'


def diff(a, b):
    return '{:+,.0f}'.format(med[a] - med[b]) if a in med and b in med else '-'


for n in sorted({k[1] for k in med}):
    md.append('| %s | %s | %s | %s | %s | %s | %s |' % (
        '{:,}'.format(n), cell(('M', n, 'cookie')), cell(('M', n, 'map')),
        diff(('M', n, 'cookie'), ('M', n, 'map')), cell(('F', n, 'hash')), cell(('F', n, 'map')),
        diff(('F', n, 'hash'), ('F', n, 'map'))))
md += ['', 'Warnings in the raw output: %d.' % len(warns)] + ['- %s' % w for w in warns]
open(out, 'w').write('\n'.join(md) + '\n')
print('\n'.join(md))
PYEOF
	echo "bench-retsnoop: $2"
}

if [ "${1:-}" = report ]; then
	report "${2:-$RESULTS/raw-retsnoop-icount.txt}" "${3:-$RESULTS/retsnoop-icount.md}"
	exit
fi

for v in "$ITERS" "$REPS"; do
	case $v in ''|*[!0-9]*|0) echo "bench-retsnoop: RS_ITERS and RS_REPS must be positive numbers" >&2; exit 2 ;; esac
done
for v in $M_NS $F_NS; do
	case $v in *[!0-9]*|0) echo "bench-retsnoop: RS_M_NS, RS_F_NS: positive numbers" >&2; exit 2 ;; esac
done
if [ "${NO_BUILD:-0}" != 1 ]; then
	"$S/prepare-tree.sh"
	"$S/build-kernel.sh" "$KFLAVOR"
	"$S/build-tools.sh"
	"$S/build-retsnoop.sh"
fi
IMAGE=()
if [ -n "${RS_IMAGE:-}" ]; then
	IMAGE=(--image "$RS_IMAGE")
else
	[ -f "$BUILD/kbuild-$KFLAVOR/vmlinux" ] || { echo "bench-retsnoop: no $KFLAVOR kernel (make kernel)" >&2; exit 1; }
fi
[ -x "$RS/retsnoop" ] || { echo "bench-retsnoop: no $RS/retsnoop (make retsnoop)" >&2; exit 1; }

mkdir -p "$BUILD/vm" "$RESULTS"
TMP=$(mktemp -d "$BUILD/vm/bench-retsnoop.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
gcc -O2 -static -Wall -Wextra -o "$TMP/bt-trigger" "$S/bt-trigger.c"
cp "$RS/retsnoop" "$TMP/"
{
	echo "# generated by scripts/bench-retsnoop.sh"
	echo "ITERS=$ITERS"
	echo "REPS=$REPS"
	echo "M_NS='$M_NS'"
	echo "F_NS='$F_NS'"
	cat "$S/guest-tool-lib.sh" "$S/retsnoop-bench-guest.sh"
} > "$TMP/rb-guest.sh"

start=$(date +%s)
echo "bench-retsnoop: one $KFLAVOR-kernel boot under -icount ($REPS reps of M=$ITERS; -M at N = $M_NS, -F at N = $F_NS)"
if ! VM_EXTRA_FILES="$TMP/retsnoop $TMP/bt-trigger $TMP/rb-guest.sh" \
	"$S/vm-run.sh" --kernel "$KFLAVOR" "${IMAGE[@]}" --log "$LOG" -- "sh /bpf/rb-guest.sh" > "$TMP/vm.out" 2>&1; then
	cp "$LOG.txt" "$LOG.raw.txt"
	grep -E 'FAIL|splat|timed out' "$LOG.txt" | head -20 || tail -20 "$LOG.txt"
	echo "bench-retsnoop: the VM run failed; raw output in $LOG.raw.txt" >&2
	exit 1
fi
end=$(date +%s)
{
	echo "date: $(date -u +%Y-%m-%d)"
	echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- . ':!docs' || echo ' (with uncommitted changes)')"
	echo "command: make bench-retsnoop RS_ITERS=$ITERS RS_REPS=$REPS RS_M_NS='$M_NS' RS_F_NS='$F_NS'"
	echo "iterations: M = $ITERS, $REPS reps"
	echo "flavour: $KFLAVOR${RS_IMAGE:+ (image $RS_IMAGE)}"
	echo "VM run: $((end - start)) s"
	sed -n '/^HARNESS-CMD-BEGIN$/,/^HARNESS-CMD-END$/p' "$LOG.txt" | sed '1d;$d'
} > "$RESULTS/raw-retsnoop-icount.txt"
report "$RESULTS/raw-retsnoop-icount.txt" "$RESULTS/retsnoop-icount.md"
