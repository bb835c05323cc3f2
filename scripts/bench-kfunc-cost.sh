#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-kfunc-cost: what the link-ID kfunc (bpf_get_attach_link_id(),
# patch "kfunc" of series/manifest) costs the programs that do not call it.
# The base kernel with the whole series and the same kernel without that
# patch boot in turn under QEMU -icount; each runs the empty fentry and the
# empty kprobe.multi program of the IP_COOKIE benchmarks, which never call
# the kfunc, and reports guest instructions per trigger. The kernel without
# it (build/no-kfunc) is the series with PATCHES="-kfunc -uoffset":
# "uoffset" builds on "kfunc" (its kfunc sits next to it and uses its
# declarations) and does not touch the run path of the two empty programs.
# Writes docs/results/raw-kfunc-cost.txt and docs/results/kfunc-cost.md.
#   ROUNDS=n     runs of each benchmark per boot (default 3)
#   NO_BUILD=1   use the kernels and bench already built
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
RESULTS=${RESULTS:-$ROOT/docs/results}
ROUNDS=${ROUNDS:-3}
NO5=$BUILD/no-kfunc
without="-kfunc -uoffset"

if [ "${NO_BUILD:-0}" != 1 ]; then
	make -C "$ROOT" kernel tools
	VMLINUX_BTF=$BUILD/kbuild-base/vmlinux "$ROOT/scripts/build-selftests.sh" bench
	PATCHES="$without" build_variant "$NO5" base
fi

cmd="for r in \$(seq 1 $ROUNDS); do"
cmd="$cmd ./bench -w 1 -d 2 -a ipc-fentry-empty | grep '^ipc-result';"
cmd="$cmd ./bench -w 1 -d 2 -a --ipc-funcs 1 ipc-kmulti-empty | grep '^ipc-result';"
cmd="$cmd done"
raw=$RESULTS/raw-kfunc-cost.txt
mkdir -p "$RESULTS"
: > "$raw"
for k in with without; do
	img=$BUILD/kbuild-base/vmlinux
	[ $k = without ] && img=$NO5/kbuild-base/vmlinux
	log=$BUILD/vm/bench-kfunc-cost-$k.log
	VM_ACCEL=icount "$ROOT/scripts/vm-run.sh" --kernel base --image "$img" \
		--log "$log" -- "$cmd"
	sed -n '/^HARNESS-CMD-BEGIN$/,/^HARNESS-CMD-END$/p' "$log.txt" |
		grep '^ipc-result' | sed "s/^/kernel=$k /" >> "$raw"
done

python3 - "$raw" "$RESULTS/kfunc-cost.md" "$(git -C "$ROOT" rev-parse --short HEAD)" <<'EOF'
import re
import statistics
import sys

raw, out, rev = sys.argv[1:4]
runs = {}
for line in open(raw):
    d = dict(re.findall(r'(\w+)=(\S+)', line))
    runs.setdefault((d['bench'], d['kernel']), []).append(float(d['ns']))
md = ['# What bpf_get_attach_link_id() costs programs that do not call it\n',
      'From `make bench-kfunc-cost` (scripts/bench-kfunc-cost.sh) at %s; raw: '
      '`raw-kfunc-cost.txt`. QEMU -icount: guest instructions per trigger, '
      'the same on any host. "with": the base kernel with the whole series; '
      '"without": the same kernel without patch `kfunc` (and patch '
      '`uoffset`, which needs it; PATCHES="-kfunc -uoffset"). Neither '
      'program calls '
      'the kfunc.\n' % rev,
      '| program | with kfunc | without | difference |', '|---|---|---|---|']
ok = True
for b in sorted(set(k[0] for k in runs)):
    w, wo = runs.get((b, 'with'), []), runs.get((b, 'without'), [])
    if not w or not wo:
        ok = False
        continue
    mw, mwo = statistics.median(w), statistics.median(wo)
    md.append('| %s | %.2f [%.2f, %.2f] | %.2f [%.2f, %.2f] | %+.2f |' % (
        b, mw, min(w), max(w), mwo, min(wo), max(wo), mw - mwo))
md.append('\nMedian [min, max] of the runs of each boot.')
open(out, 'w').write('\n'.join(md) + '\n')
print('\n'.join(md))
sys.exit(0 if ok else 1)
EOF
