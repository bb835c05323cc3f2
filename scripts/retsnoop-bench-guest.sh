# SPDX-License-Identifier: GPL-2.0
# Guest part of scripts/bench-retsnoop.sh, which says what is measured and
# how. Runs after scripts/guest-tool-lib.sh (nap, stamp, wait_line,
# has_line) with ITERS, REPS, M_NS and F_NS set. Prints "rb-row" lines for
# the report, "rb-warn" for what the report must show, and exits non-zero
# only when a row could not be measured.
cd /bpf || exit 1
set -u
set -f
W=/tmp/rb
TR=/sys/kernel/tracing
mkdir -p $W
fail=0
say() { echo "rb: $*"; }
bad() { echo "rb: FAIL: $*"; fail=1; }
warn() { echo "rb-warn $*"; }

echo "kernel: $(uname -r) $(uname -v)"
AFF=$TR/available_filter_functions
HOT=""
for f in __x64_sys_getppid __do_sys_getppid; do
	if awk -v f=$f '$1 == f && NF == 1 { found = 1 } END { exit !found }' $AFF; then
		HOT=$f
		break
	fi
done
[ -n "$HOT" ] || { bad "neither __x64_sys_getppid nor __do_sys_getppid is traceable"; exit 1; }

# RUNS: the sum of run_cnt over the BPF programs retsnoop (PID) holds
# open, from /proc/PID/fdinfo, read by the shell itself: nothing is
# started, so nothing but the trigger runs in between.
runcnt() {
	local f k v
	RUNS=0
	set +f
	for f in /proc/$PID/fdinfo/*; do
		while read -r k v; do
			[ "$k" = run_cnt: ] && RUNS=$((RUNS + v))
		done < $f
	done
	set -f
}

# ID K N: one trigger run, its ns in NS.
trig() {
	if ! ./bt-trigger $3 > $W/trig.out; then
		bad "$1: bt-trigger $3 failed"
		NS=0
		return 1
	fi
	read -r _ _ NS < $W/trig.out
	NS=${NS#ns=}
}

# Start retsnoop with ARGS into $W/ID.out and wait until it is attached:
# PID and ATTACH (guest seconds) set, 1 if it did not attach.
rs_start() {	# ID ARGS...
	local id=$1
	shift
	stamp
	local t0=$T
	# shellcheck disable=SC2068	# the options, split on purpose
	./retsnoop $@ > $W/$id.out 2>&1 &
	PID=$!
	if ! wait_line $W/$id.out "Receiving data..." $PID; then
		bad "$id: retsnoop did not attach"
		tail -20 $W/$id.out
		kill -INT $PID 2> /dev/null
		wait $PID
		return 1
	fi
	stamp
	ATTACH=$(awk -v a=$t0 -v b=$T 'BEGIN { printf "%.2f", b - a }')
}

rs_stop() {	# ID: DETACH, RC set
	stamp
	local t0=$T
	kill -INT $PID
	wait $PID
	RC=$?
	stamp
	DETACH=$(awk -v a=$t0 -v b=$T 'BEGIN { printf "%.2f", b - a }')
}

# Calibration: the functions the measurement must not trace are those that
# run while it runs. ftrace's function tracer records every function
# called while retsnoop (on the loop's function alone) waits, the trigger
# runs (CAL_ITERS iterations: long enough for timer ticks on a busy CPU,
# which differ from an idle CPU's), the shell reads the run counts and
# the guest idles for a second.
CAL_ITERS=20000
say "calibration: the function tracer over $CAL_ITERS trigger iterations, the run counts and 1 s idle"
rs_start cal -M -v -e $HOT || exit 1
echo 0 > $TR/tracing_on
echo 65536 > $TR/buffer_size_kb
echo function > $TR/current_tracer
# Two passes, the buffer read after each: the long run's events push its
# start (exec, page faults) out of the buffer, the short one keeps them.
: > $W/hit.all
for iters in $CAL_ITERS 100; do
	echo > $TR/trace
	echo 1 > $TR/tracing_on
	./bt-trigger $iters > /dev/null
	runcnt
	nap 1
	echo 0 > $TR/tracing_on
	# (before the tracer changes: that empties the buffer)
	sed -n 's/^.*: \([^ ]*\) <-.*$/\1/p' $TR/trace >> $W/hit.all
done
sort -u $W/hit.all > $W/hit
rm $W/hit.all
set +f
over=$(cat $TR/per_cpu/cpu*/stats | awk '$1 == "overrun:" { s += $2 } END { print s + 0 }')
set -f
echo nop > $TR/current_tracer
rs_stop cal
[ "$over" = 0 ] || warn "calibration: the trace buffer overran ($over events lost): some functions the loop calls may be traced"
echo > $TR/trace
echo 1408 > $TR/buffer_size_kb
echo 1 > $TR/tracing_on
# Names listed once, in available_filter_functions order, not seen.
awk 'NR == FNR { hit[$1] = 1; next }
	NF == 1 { if (!($1 in c)) o[n++] = $1; c[$1]++ }
	END { for (i = 0; i < n; i++) if (c[o[i]] == 1 && !(o[i] in hit)) print o[i] }' \
	$W/hit $AFF | grep -v -e '^__x64_sys_getppid$' -e '^__do_sys_getppid$' > $W/cold
echo "calibration: the loop's function $HOT; $(wc -l < $W/hit) functions seen by the function tracer; $(wc -l < $W/cold) of $(wc -l < $AFF) traceable functions taken as cold"

row() {	# MODE N IDS
	local mode=$1 n=$2 ids=$3 id=$1-$2-$3 args att c0 c1 ns1 ns2 want
	args="-$mode -v -e $HOT"
	[ "$ids" = map ] || args="$args --no-ip-cookie-map"
	if [ "$n" -gt 1 ]; then
		head -n $((n - 1)) $W/cold > $W/allow
		args="$args -a @$W/allow"
	fi
	echo > $TR/trace
	rs_start $id $args || return
	att=$(sed -n 's/^Total \([0-9]*\) kernel functions attached.*/\1/p' $W/$id.out)
	want="not used"
	[ "$ids" = map ] && want=used
	has_line $W/$id.out "BPF ip_cookie map supported, $want for func IP lookups." ||
		warn "$id: retsnoop does not say 'supported, $want'"
	trig $id 1 $ITERS || { rs_stop $id; return; }
	ns1=$NS
	trig $id 2 $((2 * ITERS)) || { rs_stop $id; return; }
	ns2=$NS
	echo 1 > /proc/sys/kernel/bpf_stats_enabled
	runcnt
	c0=$RUNS
	./bt-trigger $ITERS > /dev/null
	runcnt
	c1=$RUNS
	echo 0 > /proc/sys/kernel/bpf_stats_enabled
	rs_stop $id
	[ $RC = 0 ] || warn "$id: retsnoop exited $RC"
	if grep UNRECOGNIZED $TR/trace > $W/$id.unrec; then
		warn "$id: $(wc -l < $W/$id.unrec) UNRECOGNIZED lines in the trace buffer"
	fi
	echo "rb-row rep=$REP mode=$mode n=$n ids=$ids attached=${att:-0} iters=$ITERS ns1=$ns1 ns2=$ns2 runs=$((c1 - c0)) attach_s=$ATTACH detach_s=$DETACH"
}

REP=1
while [ $REP -le $REPS ]; do
	say "rep $REP: baseline"
	trig base 1 $ITERS && ns1=$NS && trig base 2 $((2 * ITERS)) &&
		echo "rb-row rep=$REP mode=base n=0 ids=none attached=0 iters=$ITERS ns1=$ns1 ns2=$NS runs=0 attach_s=0 detach_s=0"
	for n in $M_NS; do
		for ids in map cookie; do
			say "rep $REP: -M N=$n $ids"
			row M $n $ids
		done
	done
	for n in $F_NS; do
		for ids in map hash; do
			say "rep $REP: -F N=$n $ids"
			row F $n $ids
		done
	done
	REP=$((REP + 1))
done
say "done"
exit $fail
