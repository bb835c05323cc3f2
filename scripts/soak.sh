#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak: the concurrent stress test ip_cookie_stress for minutes rather
# than make test's 20 s, on the base kernel, then on the debug kernel, one
# VM each. Prints the test's figures (operations, rebuilds, rebuilds during
# lookups, lookups, misses, wrong values) per kernel and "N passed, N failed"
# last; non-zero on a failure, a kernel splat or a timeout.
#   SOAK_SECS=seconds         writer time per kernel (default 600)
#   SOAK_KERNELS="base debug" kernels to run it on, in this order
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
S=$ROOT/scripts
SECS=${SOAK_SECS:-600}
KERNELS=${SOAK_KERNELS:-base debug}

case $SECS in
''|*[!0-9]*|0) echo "soak: SOAK_SECS must be a positive number of seconds" >&2; exit 2 ;;
esac
for k in $KERNELS; do
	case $k in base|debug) ;; *) echo "soak: unknown kernel '$k'" >&2; exit 2 ;; esac
done

set -e
"$S/prepare-tree.sh"
# The selftests take their BTF from the debug kernel, whichever kernel runs them.
"$S/build-kernel.sh" debug
"$S/build-tools.sh"
"$S/build-selftests.sh" test_progs
case " $KERNELS " in *" base "*) "$S/build-kernel.sh" base ;; esac
set +e

passed=0 failed=0
for k in $KERNELS; do
	log=$BUILD/vm/soak-$k.log
	cmd="IPC_STRESS_SECS=$SECS ./test_progs -v -t ip_cookie_stress"
	echo "soak: $k kernel: $cmd"
	# Boot and the kmemleak scan of the debug kernel take minutes under
	# TCG; the test may run up to 3 x SECS (see prog_tests/ip_cookie_stress.c).
	VM_TIMEOUT=${VM_TIMEOUT:-$((3 * SECS + 1800))} \
		"$S/vm-run.sh" --kernel "$k" --log "$log" -- "$cmd"
	rc=$?
	sed -n '/^HARNESS-CMD-BEGIN$/,/^HARNESS-CMD-END$/p' "$log.txt" |
		grep -E '^ip_cookie_stress: |:FAIL|^#[0-9]+ +ip_cookie_stress:' |
		sed "s/^/soak: $k: /"
	# Read as make test reads it: one test, passed (none failed, skipped or
	# refused).
	if [ $rc = 0 ] && [ "$(python3 "$S/test-report.py" summary "$log.txt" 0 |
			sed -n 's/^counts //p')" = "1 0 0 0" ]; then
		passed=$((passed + 1))
	else
		echo "soak: $k: FAIL (exit $rc: test failure, splat, timeout or runner error; log $log.txt)"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
