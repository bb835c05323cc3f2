#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What one hit of bpftrace's 'kprobe:PATTERN { @[probe] = count(); }'
# costs, in guest instructions, with the patched bpftrace (contrib/bpftrace,
# make bpftrace) finding 'probe' at run time in its one kprobe_multi
# program: from the ip_cookie map (BPFTRACE_MULTI_PROBE_ID=map) or from
# the link's cookies (=cookie); and stock 0.17's one program and one
# perf-event kprobe per function (=expand) where it fits under 512.
#
# Method: one boot of the base kernel under QEMU -icount (VM_ACCEL=icount,
# scripts/vm-run.sh); per rep a baseline without bpftrace, then each
# pattern and mode: bpftrace started, bt-trigger (scripts/bt-trigger.c)
# run for ITERS and 2 x ITERS iterations with bpftrace's counts
# snapshotted by SIGUSR1 around the runs, so that the fixed work cancels.
# The report (scripts/icount-tool-report.py) writes the method, the per-hit
# formula and the "loop" and "other" hits out in full at the top of
# docs/results/bpftrace-icount.md. Checks (warnings in the raw output and
# the report, not failures): the traced syscall's count rises by exactly
# ITERS and 2 x ITERS; bpftrace exits 0 and reports no hit without a
# probe ID. Every pattern is one wildcard (one kprobe_multi link per map
# and cookie row) that holds the loop's __do_sys_getppid.
#
#   scripts/bench-bpftrace.sh              measure (about 13 min of VM
#                                          with the defaults)
#   scripts/bench-bpftrace.sh report [RAW [MD]]  the report again from a
#                                          raw file, no VM
# Variables:
#   BT_ITERS=200000   trigger iterations of the first run (the second: 2x)
#   BT_REPS=3         reps (each: baseline + every set and mode, one
#                     bpftrace start each)
#   BT_SETS='label|pattern|modes;...'  default
#                     'small|__do_sys_get*|map cookie expand func;mid|__*_s*|map cookie func;all|*|map cookie func'
#                     (func: Debian's bpftrace, 'kprobe:PATTERN { @[func] = count(); }':
#                     one kprobe_multi program keyed by the function's address;
#                     left out when the host has no bpftrace)
#   BT_BPFTRACE=path  the patched bpftrace (build/bpftrace/build/src/bpftrace)
#   BPFTOOL=path      bpftool for the guest (build/tools/bpftool/bpftool;
#                     without it no func_cnt or missed counts)
#   RESULTS=dir       where to write (docs/results): bpftrace-icount.md and
#                     raw-bpftrace-icount.txt; a failed run writes
#                     LOG.raw.txt next to the console log instead
#   BT_LOG=file       console log (build/vm/bench-bpftrace.log)
#   VM_TIMEOUT (default here 7200 s)
# Builds nothing but bt-trigger (gcc -O2 -static): the base kernel and the
# patched bpftrace must be there (make kernel, make bpftrace).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
S=$ROOT/scripts
RESULTS=${RESULTS:-$ROOT/docs/results}
ITERS=${BT_ITERS:-200000}
REPS=${BT_REPS:-3}
SETS=${BT_SETS:-small|__do_sys_get*|map cookie expand func;mid|__*_s*|map cookie func;all|*|map cookie func}
BTP=${BT_BPFTRACE:-$BUILD/bpftrace/build/src/bpftrace}
BPFTOOL=${BPFTOOL:-$BUILD/tools/bpftool/bpftool}
LOG=${BT_LOG:-$BUILD/vm/bench-bpftrace.log}
export VM_TIMEOUT=${VM_TIMEOUT:-7200}
export VM_ACCEL=icount

report() { python3 "$S/icount-tool-report.py" bpftrace "$@"; }	# RAW MD

# scripts/bench-bpftrace.sh report [RAW [MD]]: the report again, no VM.
if [ "${1:-}" = report ]; then
	report "${2:-$RESULTS/raw-bpftrace-icount.txt}" "${3:-$RESULTS/bpftrace-icount.md}"
	exit
fi

case $ITERS in ''|*[!0-9]*|0) echo "bench-bpftrace: BT_ITERS must be a positive number" >&2; exit 2 ;; esac
case $REPS in ''|*[!0-9]*|0) echo "bench-bpftrace: BT_REPS must be a positive number" >&2; exit 2 ;; esac
case $SETS in *"'"*|*'"'*) echo "bench-bpftrace: BT_SETS must not hold quotes" >&2; exit 2 ;; esac
[ -f "$BUILD/kbuild-base/vmlinux" ] ||
	{ echo "bench-bpftrace: no $BUILD/kbuild-base/vmlinux (make kernel)" >&2; exit 1; }
[ -x "$BTP" ] || { echo "bench-bpftrace: no $BTP (make bpftrace)" >&2; exit 1; }
BT_VERSION=$("$BTP" --version) ||
	{ echo "bench-bpftrace: $BTP --version fails on the host" >&2; exit 1; }
if [ ! -x "$BPFTOOL" ]; then
	echo "bench-bpftrace: no bpftool ($BPFTOOL; make tools): no func_cnt or missed counts" >&2
	BPFTOOL=""
fi

mkdir -p "$BUILD/vm" "$RESULTS" "$(dirname "$LOG")"
TMP=$(mktemp -d "$BUILD/vm/bench-bpftrace.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
gcc -O2 -static -Wall -Wextra -o "$TMP/bt-trigger" "$S/bt-trigger.c"
# A copy: the build dir may be rebuilt meanwhile.
cp "$BTP" "$TMP/bpftrace-ipc"
BT_MD5=$(md5sum < "$TMP/bpftrace-ipc" | cut -d' ' -f1)
EXTRA="$TMP/bpftrace-ipc $TMP/bt-trigger $TMP/bench-bpftrace-guest.sh"
# Debian's bpftrace for the func rows, as ./bpftrace (its libraries come
# with it: scripts/mkinitramfs.sh copies the ldd closure).
STOCK=$(command -v bpftrace || :)
if [ -n "$STOCK" ]; then
	EXTRA="$EXTRA $STOCK"
	STOCK_VERSION=$("$STOCK" --version)
else
	echo "bench-bpftrace: no bpftrace on the host (make demo installs Debian's): no func rows" >&2
	SETS=$(echo "$SETS" | sed 's/ func\b//g; s/|func /|/g')
	STOCK_VERSION=none
fi
# mkinitramfs.sh takes build/tools/bpftool itself; another one goes in
# as /bpf/bpftool.
if [ -n "$BPFTOOL" ] && [ "$(realpath "$BPFTOOL")" != "$(realpath -m "$BUILD/tools/bpftool/bpftool")" ]; then
	mkdir -p "$TMP/bt"
	cp "$BPFTOOL" "$TMP/bt/bpftool"
	EXTRA="$EXTRA $TMP/bt/bpftool"
fi

# The guest script: runs in /bpf of the busybox guest.
{
	echo "# generated by scripts/bench-bpftrace.sh"
	echo "ITERS=$ITERS"
	echo "REPS=$REPS"
	echo "SETS='$SETS'"
	cat "$S/guest-tool-lib.sh"
	cat <<'EOF'
set -u
set -f			# the patterns hold '*'
BTP=./bpftrace-ipc
W=/tmp/bb
mkdir -p $W
export __BPFTRACE_NOTIFY_PROBES_ATTACHED=1
fail=0
BPFTOOL=""
[ -x ./bpftool ] && BPFTOOL=./bpftool

say() { echo "bb: $*"; }
bad() { echo "bb: FAIL: $*"; fail=1; }
warn() { echo "bb-warn $*"; }

# The loop: ID K N; prints bb-run.
trig() {
	if ! ./bt-trigger $3 > $W/trig.out; then
		bad "$1: bt-trigger $3 failed"
		return 1
	fi
	local ns
	read -r _ _ ns < $W/trig.out
	echo "bb-run id=$1 k=$2 iters=$3 ${ns}"
}

# Snapshot K of bpftrace PID's counts into $W/ID.sK ("name count").
# SIGUSR1 sets a flag that 0.17 looks at after each epoll_wait() (100 ms
# timeout); done when its stdout grew and it is back in epoll_wait.
# Always 0.5 s of waiting first, so that every interval waits the same.
snap() {	# ID K PID
	local sz0 sz n=0
	sz0=$(wc -c < $W/$1.out)
	kill -USR1 $3
	nap 0.5
	while :; do
		sz=$(wc -c < $W/$1.out)
		[ $sz -gt $sz0 ] && in_poll $3 && break
		if gone $3; then bad "$1: bpftrace exited before snapshot $2"; return 1; fi
		n=$((n + 1))
		[ $n -lt 600 ] || { bad "$1: no snapshot $2 after 60 s"; return 1; }
		nap 0.1
	done
	# @[probe] keys are "kprobe:NAME", @[func] keys "NAME": kept as NAME
	tail -c +$((sz0 + 1)) $W/$1.out |
		sed -n -e 's/^@\[kprobe:\(.*\)\]: \([0-9]*\)$/\1 \2/p' \
			-e 's/^@\[\(.*\)\]: \([0-9]*\)$/\1 \2/p' > $W/$1.s$2
	[ $n = 0 ] || warn "id=$1 snapshot $2 took $n extra waits of 0.1 s"
	rmisses $3
	echo "bb-snap id=$1 k=$2 recursion_misses=$RM"
}

# RM: the recursion_misses of the BPF programs PID holds open (probe
# entries that found a BPF program, or a bpf() map operation, already
# running on that CPU), from /proc/PID/fdinfo, read by the shell itself:
# no process started inside a measured interval.
rmisses() {	# PID
	local f k v
	RM=0
	set +f
	for f in /proc/$1/fdinfo/*; do
		while read -r k v; do
			[ "$k" = recursion_misses: ] && RM=$((RM + v))
		done < $f
	done
	set -f
}

# What the process PID holds, from the kernel: functions ftrace traces
# (enabled_functions: one line a function, whoever traces it) and, with
# bpftool, its programs and kprobe_multi links. Prints bb-inv.
inv() {	# ID TAG PID
	local ef links="-"
	ef=$(wc -l < /sys/kernel/tracing/enabled_functions)
	if [ -n "$BPFTOOL" ] && [ "$3" != 0 ]; then
		$BPFTOOL prog show > $W/prog.txt 2>&1
		$BPFTOOL link show > $W/link.txt 2>&1
		progs=$(awk -v p="($3)" '
			/^[0-9]+: / { t = $2; r = 0
				for (i = 1; i < NF; i++) if ($i == "recursion_misses") r = $(i + 1) }
			/^[ \t]+pids / && index($0, p) { n++; rm += r; c[t]++ }
			END { s = ""; for (t in c) s = s (s ? "," : "") c[t] ":" t
			      printf "%s recursion_misses=%d\n", s == "" ? "none" : s, rm }' $W/prog.txt)
		links=$(awk -v p="($3)" '
			/^[0-9]+: / { t = $2; f = 0; m = 0 }
			/func_cnt/ { for (i = 1; i < NF; i++) {
				if ($i == "func_cnt") f = $(i + 1)
				if ($i == "missed") m = $(i + 1) } }
			/^[ \t]+pids / && index($0, p) { n++; fc += f; ms += m }
			END { printf "links=%d func_cnt=%d link_missed=%d\n", n, fc, ms }' $W/link.txt)
		echo "bb-inv id=$1 tag=$2 enabled_functions=$ef progs=$progs $links"
	else
		echo "bb-inv id=$1 tag=$2 enabled_functions=$ef"
	fi
}

# Per-function increments of the two intervals, from snapshots s0 s1 s2:
# bb-func for each function whose second minus first increment is at least
# 1/1000 hit per iteration either way, bb-hits for the totals.
deltas() {	# ID
	awk -v m=$ITERS -v id=$1 '
		FILENAME == ARGV[1] { s0[$1] = $2; next }
		FILENAME == ARGV[2] { s1[$1] = $2; k[$1] = 1; next }
		{ s2[$1] = $2; k[$1] = 1 }
		END {
			for (f in k) {
				d1 = s1[f] - s0[f]; d2 = s2[f] - s1[f]; x = d2 - d1
				t1 += d1; t2 += d2; nf++
				if (x >= m / 1000 || x <= -m / 1000)
					printf "bb-func id=%s name=%s d1=%.0f d2=%.0f\n", id, f, d1, d2
				else { o1 += d1; o2 += d2; no++ }
			}
			printf "bb-hits id=%s d1=%.0f d2=%.0f rest_d1=%.0f rest_d2=%.0f rest_funcs=%d funcs_hit=%d\n", id, t1, t2, o1, o2, no, nf
			# Nothing but the loop calls getppid(): its count must
			# rise by exactly ITERS, then 2 x ITERS.
			# (@[func] may name it by its alias __x64_sys_getppid)
			f = "__do_sys_getppid"; g = "__x64_sys_getppid"
			d1 = s1[f] + s1[g] - s0[f] - s0[g]; d2 = s2[f] + s2[g] - s1[f] - s1[g]
			printf "bb-check id=%s getppid_d1=%.0f getppid_d2=%.0f exact=%s\n", id, d1, d2, (d1 == m && d2 == 2 * m) ? "yes" : "NO"
		}' $W/$1.s0 $W/$1.s1 $W/$1.s2
}

baseline() {	# REP
	local id=base-r$1
	echo "bb-session id=$id set=base mode=none rep=$1 pattern=-"
	inv $id attached 0
	nap 0.5
	trig $id 1 $ITERS
	nap 0.5
	trig $id 2 $((2 * ITERS))
}

session() {	# SET PATTERN MODE REP
	local id=$1-$3-r$4 pid t0 t1 rc
	echo "bb-session id=$id set=$1 mode=$3 rep=$4 pattern=$2"
	: > $W/$id.out
	: > $W/$id.err
	stamp; t0=$T
	if [ $3 = func ]; then
		./bpftrace -e "kprobe:$2 { @[func] = count(); }" > $W/$id.out 2> $W/$id.err &
	else
		env BPFTRACE_MULTI_PROBE_ID=$3 $BTP -e "kprobe:$2 { @[probe] = count(); }" \
			> $W/$id.out 2> $W/$id.err &
	fi
	pid=$!
	wait_line $W/$id.err __BPFTRACE_NOTIFY_PROBES_ATTACHED $pid
	case $? in
	0) ;;
	1)	wait $pid; rc=$?
		bad "$id: bpftrace exited $rc before attaching"
		echo "--- $id stdout"; head -20 $W/$id.out
		echo "--- $id stderr"; cat $W/$id.err
		return 1 ;;
	*)	bad "$id: not attached after 600 s"; kill -KILL $pid; wait $pid; return 1 ;;
	esac
	stamp; t1=$T
	echo "bb-attach id=$id guest_s=$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }')"
	inv $id attached $pid
	snap $id 0 $pid || return 1
	trig $id 1 $ITERS || return 1
	snap $id 1 $pid || return 1
	trig $id 2 $((2 * ITERS)) || return 1
	snap $id 2 $pid || return 1
	inv $id end $pid
	stamp; t0=$T
	stop $pid; rc=$?
	stamp; t1=$T
	echo "bb-exit id=$id rc=$rc terms=$TERMS detach_guest_s=$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }')"
	[ $rc = 0 ] || warn "id=$id bpftrace exited $rc"
	deltas $id
	head -1 $W/$id.out | sed "s/^/bb-stdout id=$id: /"
	grep -v __BPFTRACE_NOTIFY_PROBES_ATTACHED $W/$id.err | sed "s/^/bb-stderr id=$id: /"
	if grep -q 'found no probe ID' $W/$id.err; then warn "id=$id hits without a probe ID"; fi
	rm -f $W/$id.out $W/$id.s? $W/$id.g?
}

echo "=== bench-bpftrace in the guest"
echo "kernel: $(cat /proc/version)"
echo "traceable functions (available_filter_functions): $(wc -l < /sys/kernel/tracing/available_filter_functions)"
$BTP --version
$BTP --info 2>&1 | grep -E 'kprobe_multi|ip_cookie|get_func_ip|attach_cookie' | sed 's/^ */bpftrace --info: /'
echo "bpftool: ${BPFTOOL:-none}"
echo "iterations: $ITERS and $((2 * ITERS)); reps: $REPS"
r=1
while [ $r -le $REPS ]; do
	baseline $r
	echo "$SETS" | tr ';' '\n' > $W/sets
	while IFS='|' read -r label pat modes; do
		for mode in $modes; do
			session "$label" "$pat" $mode $r || :
		done
	done < $W/sets
	r=$((r + 1))
done
if [ $fail = 0 ]; then say "all runs done"; else say "some runs FAILED"; fi
exit $fail
EOF
} > "$TMP/bench-bpftrace-guest.sh"

echo "bench-bpftrace: booting the base kernel (icount), log $LOG"
start=$(date +%s)
set +e
VM_EXTRA_FILES="$EXTRA" "$S/vm-run.sh" --kernel base --log "$LOG" -- "sh /bpf/bench-bpftrace-guest.sh"
rc=$?
set -e
secs=$(($(date +%s) - start))

commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$ROOT" status --porcelain -- scripts/bench-bpftrace.sh scripts/bt-trigger.c scripts/guest-tool-lib.sh 2>/dev/null)" ] ||
	commit="$commit (with uncommitted scripts/bench-bpftrace.sh, bt-trigger.c or guest-tool-lib.sh)"
RAW=$RESULTS/raw-bpftrace-icount.txt
MD=$RESULTS/bpftrace-icount.md
[ $rc = 0 ] || RAW=$LOG.raw.txt
{
	echo "scripts/bench-bpftrace.sh: raw guest output"
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "commit: $commit"
	echo "command: BT_ITERS=$ITERS BT_REPS=$REPS BT_SETS='$SETS' scripts/bench-bpftrace.sh"
	echo "accelerator: QEMU -icount shift=0,sleep=off (TCG, one host thread), 2 vCPUs, base kernel"
	echo "bpftrace: $BT_VERSION (md5 $BT_MD5, $BTP)"
	echo "stock bpftrace (func rows): $STOCK_VERSION${STOCK:+ ($STOCK)}"
	echo "bpftool: ${BPFTOOL:-none}"
	echo "VM run: ${secs} s, exit status $rc"
	echo
	sed -n '/^HARNESS-CMD-BEGIN$/,/^HARNESS-CMD-END$/p' "$LOG.txt" | sed '1d;$d'
} > "$RAW"
echo "bench-bpftrace: raw guest output in $RAW (${secs} s in the VM)"
if [ $rc != 0 ]; then
	echo "bench-bpftrace: FAILED (exit $rc; console log $LOG.txt)" >&2
	exit "$rc"
fi

report "$RAW" "$MD"
