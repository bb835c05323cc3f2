# SPDX-License-Identifier: GPL-2.0
# Guest part of make test-retsnoop: retsnoop with contrib/retsnoop on
# simfail's failures, in -F, -K and -M, each with the ip_cookie map and
# with --no-ip-cookie-map. Runs after scripts/guest-tool-lib.sh (nap,
# wait_line, has_line) with CASES (simfail's cases), GLOBS (retsnoop's -e
# and -a options) and EXPECT_MAP (yes: the kernel has the map; no: it has
# not, and every run must say so) set. Exits 0 when every check passed.
#
# Checked:
#  - retsnoop -Vv reports the map supported (EXPECT_MAP=yes) or not;
#  - each run says whether it uses the map: used in -F and -M without
#    --no-ip-cookie-map when the kernel has it, not used otherwise;
#  - each run prints call stacks, and their traced frames (function names
#    and errors; addresses, offsets, times, durations and PIDs stripped)
#    are the same in all six runs;
#  - the trace buffer holds no UNRECOGNIZED line (a function IP that the
#    BPF side did not find in ip_to_id) after any run.
cd /bpf || exit 1
set -u
set -f	# GLOBS holds globs for retsnoop, not for the shell
W=/tmp/rs
mkdir -p $W
fail=0
say() { echo "retsnoop-guest: $*"; }
bad() { echo "retsnoop-guest: FAIL: $*"; fail=1; }
TRACE=/sys/kernel/tracing/trace

./retsnoop -Vv > $W/version.txt 2>&1
cat $W/version.txt
if [ "$EXPECT_MAP" = yes ]; then
	has_line $W/version.txt "BPF ip_cookie map supported: yes" ||
		bad "retsnoop -Vv does not report the ip_cookie map supported"
else
	has_line $W/version.txt "BPF ip_cookie map supported: no" ||
		bad "retsnoop -Vv does not report the ip_cookie map unsupported"
fi

# The call stacks of FILE, one per block: the frames of the functions
# retsnoop traced (those with a duration), their names and errors, without
# the header's times and IDs, offsets and durations. The other frames
# come from the kernel's stack trace, not from retsnoop's function IDs, and
# -F's have the trampolines its programs run from, symbolized as whatever
# kernel symbol precedes them ("ftrace_trampoline" in one boot,
# "_sub_D_65535_0" in another), which -K's and -M's have not.
stacks() {	# FILE
	awk '
		/ -> .* TID\/PID / { sub(/^.* TID\/PID [0-9]+\/[0-9]+ /, "stack "); print; inst = 1; blanks = 0; next }
		inst && /^$/ { if (++blanks > 1) inst = 0; next }
		inst {
			if ($0 !~ /[0-9.]+(ns|us|ms|s) /) next
			gsub(/\+0x[0-9a-f]+/, "")
			gsub(/[0-9.]+(ns|us|ms|s) /, "")
			gsub(/  +/, " "); sub(/^ /, ""); sub(/ $/, "")
			print
		}' "$1"
}

for mode in F K M; do
	for map in map nomap; do
		id=$mode-$map
		opt=""
		[ $map = nomap ] && opt=--no-ip-cookie-map
		echo > $TRACE
		: > $W/$id.out
		say "$id: retsnoop -$mode $opt -v -sn -n simfail $GLOBS"
		# shellcheck disable=SC2086	# GLOBS: options, split on purpose
		./retsnoop -$mode $opt -v -sn -n simfail $GLOBS > $W/$id.out 2>&1 &
		pid=$!
		if ! wait_line $W/$id.out "Receiving data..." $pid; then
			bad "$id: retsnoop did not attach"
			tail -20 $W/$id.out
			kill -INT $pid 2>/dev/null
			wait $pid
			continue
		fi
		grep -E 'Total .* functions attached|ip_cookie map' $W/$id.out
		for c in $CASES; do
			./simfail "$c" > $W/$id.simfail 2>&1
		done
		# retsnoop emits a stack once the session's entry function
		# returns; give the ring buffer's reader a moment.
		nap 2
		kill -INT $pid
		wait $pid
		rc=$?
		[ $rc = 0 ] || bad "$id: retsnoop exited $rc"
		if grep UNRECOGNIZED $TRACE > $W/$id.unrec; then
			bad "$id: $(wc -l < $W/$id.unrec) UNRECOGNIZED lines in the trace buffer, first: $(head -1 $W/$id.unrec)"
		fi
		want="not used"
		[ "$EXPECT_MAP" = yes ] && [ $map = map ] && [ $mode != K ] && want=used
		if [ "$EXPECT_MAP" = yes ]; then
			has_line $W/$id.out "BPF ip_cookie map supported, $want for func IP lookups." ||
				bad "$id: retsnoop does not say 'supported, $want'"
		else
			has_line $W/$id.out "BPF ip_cookie map not supported, not used for func IP lookups." ||
				bad "$id: retsnoop does not say 'not supported, not used'"
		fi
		stacks $W/$id.out > $W/$id.stacks
		n=$(grep -c '^stack ' $W/$id.stacks)
		say "$id: $n call stacks"
		[ "$n" -gt 0 ] || { bad "$id: no call stack"; tail -20 $W/$id.out; }
	done
done

echo
say "call stacks of F-map (stripped):"
cat $W/F-map.stacks
for id in F-nomap K-map K-nomap M-map M-nomap; do
	if ! cmp -s $W/F-map.stacks $W/$id.stacks; then
		bad "$id: call stacks differ from F-map's"
		diff $W/F-map.stacks $W/$id.stacks | head -20
	fi
done
if [ $fail = 0 ]; then say "all checks passed"; else say "some checks FAILED"; fi
exit $fail
