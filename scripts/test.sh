#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test: build the debug kernel, libbpf/bpftool and the fast test_progs,
# and run every test in the debug VM (one kernel to build). Prints
# "N passed, N failed" last; non-zero on any test failure, kernel splat or
# timeout.
#   TESTS="a b"   run only these test_progs tests (names as test_progs knows them)
#   BASE=1        also run the ip_cookie_scale* tests on the base kernel
#                 (built for it), where they run at hardware-like speed
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
MINI=$BUILD/linux/tools/testing/selftests/bpf-mini
S=$ROOT/scripts

set -e
"$S/prepare-tree.sh"
"$S/build-kernel.sh" debug
"$S/build-tools.sh"
"$S/build-samples.sh"
"$S/build-selftests.sh" test_progs
set +e

passed=0 failed=0 skipped=0 rc=0 fails=
# Add up the results of a console log (scripts/test-report.py, the reader
# make test-full uses too). A VM that failed (splat, timeout) without a
# failed test counts as one failure more.
count() {	# count LOG VM_STATUS
	local out x p f s
	out=$(python3 "$S/test-report.py" summary "$1" "$2")
	grep -v -e '^counts ' -e '^test: failed: ' <<< "$out"
	# The failed tests and subtests, printed again last: CI keeps the tail.
	x=$(grep '^test: failed: ' <<< "$out")
	[ -z "$x" ] || fails="$fails$x
"
	read -r p f s < <(sed -n 's/^counts //p' <<< "$out")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-1}))
	skipped=$((skipped + ${s:-0}))
	[ "$2" = 0 ] || rc=1
}

# Host side: bpftool's lists of types match the kernel's and its docs.
if python3 "$BUILD/linux/tools/testing/selftests/bpf/test_bpftool_synctypes.py"; then
	echo "#host    test_bpftool_synctypes:OK"; passed=$((passed + 1))
else
	echo "#host    test_bpftool_synctypes:FAIL"; failed=$((failed + 1)); rc=1
	fails="${fails}test: failed: test_bpftool_synctypes
"
fi

if [ -n "${TESTS:-}" ]; then
	names=$(echo "$TESTS" | tr ' ' '\n' | grep -v '^$')
else
	names=$(cat "$MINI/.test-names")
fi
all=$(echo "$names" | paste -sd, -)
scale=$(echo "$names" | grep '^ip_cookie_scale' | paste -sd, -)

# Upstream subtests not run here, each for a reason outside the series,
# printed with the results. bpf_cookie/perf_event must catch a 100 us
# cpu-clock sample on CPU 0 within a fixed 1M-iteration loop; in this
# emulated VM the sample often never comes (both results 0: in 1 of 5 full
# runs, and in 1 of 1 runs of the subtest alone in a fresh VM). libbpf's
# CI denylists it for the same reason (libbpf/libbpf#755). The series'
# own perf-event change, patches/03-perffix.patch, is tested by ip_cookie_link/perf_attach.
DENY="bpf_cookie/perf_event"

if [ -n "$all" ]; then
	cmd="./test_progs -t $all -d $(echo "$DENY" | tr ' ' ',')"
	# The sample tool counts 100 reads of /dev/zero started once it
	# prints that it is tracing: one line, one result.
	smoke="./ipcookie_funccount -d 2 -n 5 read_zero | { read -r l; dd if=/dev/zero of=/dev/null bs=1 count=100 2>/dev/null; cat; } > /tmp/fc.out 2>&1; cat /tmp/fc.out;"
	smoke="$smoke if grep -qE '^ +100 read_zero\$' /tmp/fc.out;"
	smoke="$smoke then echo '#0       sample_ipcookie_funccount:OK';"
	smoke="$smoke else echo '#0       sample_ipcookie_funccount:FAIL'; fi"
	cmd="$cmd; rc=\$?; $smoke; exit \$rc"
	echo "test: debug kernel: $cmd"
	"$S/vm-run.sh" --kernel debug --log "$BUILD/vm/test-debug.log" -- "$cmd"
	count "$BUILD/vm/test-debug.log.txt" $?
	for d in $DENY; do
		echo "test: not run (see DENY in scripts/test.sh): $d"
	done
fi

if [ -n "$scale" ] && [ "${BASE:-0}" = 1 ]; then
	"$S/build-kernel.sh" base || exit 1
	cmd="./test_progs -t '$scale'"
	echo "test: base kernel: $cmd"
	"$S/vm-run.sh" --kernel base --log "$BUILD/vm/test-base.log" -- "$cmd"
	count "$BUILD/vm/test-base.log.txt" $?
else
	echo "test: base-kernel step not run (BASE=1 runs ip_cookie_scale* there too)"
fi

[ "$failed" -gt 0 ] && rc=1
echo "($skipped skipped; details above; console logs in $BUILD/vm/)"
printf '%s' "$fails"
echo "$passed passed, $failed failed"
exit $rc
