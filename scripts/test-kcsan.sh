#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test-kcsan: the map's concurrency tests on a KCSAN kernel
# (configs/kcsan.config; KCSAN and KASAN exclude each other, so it is a
# kernel of its own). Fails on a failed test or on a data race reported in
# the series' code; races KCSAN reports elsewhere in the base are listed, not
# counted. A report is the series' if its header or one of its stack
# frames names a function of the series (ip_cookie_*, the kfuncs, the
# kprobe.multi entry-IP code).
#   TESTS="a b"   other test_progs selectors (default: below)
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
S=$ROOT/scripts
TESTS=${TESTS:-"ip_cookie_stress ip_cookie_fuzz ip_cookie_memory/lifetimes ip_cookie_resize/writes_survive_resize ip_cookie_resize/walk_during_resize ip_cookie_memory/grace_period ip_cookie_link/uaf_loop ip_cookie_link/kprobe_multi"}
OURS='ip_cookie|bpf_get_attach_link_id|bpf_get_uprobe_offset|kprobe_multi_entry_ip|kprobe_multi_sort_cookies|bpf_kprobe_multi_cookie'

set -e
"$S/prepare-tree.sh"
"$S/build-kernel.sh" kcsan
"$S/build-tools.sh"
# The runner's vmlinux.h and bpf_testmod.ko from the kernel that runs them
# (a fresh machine has no debug kernel).
VMLINUX_BTF=$BUILD/kbuild-kcsan/vmlinux "$S/build-selftests.sh" test_progs
set +e

sel=$(echo "$TESTS" | tr ' ' ',')
log=$BUILD/vm/test-kcsan.log
"$S/vm-run.sh" --kernel kcsan --log "$log" -- "./test_progs -a '$sel'"
vrc=$?
txt=$log.txt
[ -f "$txt" ] || { echo "test-kcsan: no console log"; exit 1; }
# The test results, read as make test reads them.
res=$(python3 "$S/test-report.py" summary "$txt" 0)
grep -v '^counts ' <<< "$res"
read -r passed failed _ < <(sed -n 's/^counts //p' <<< "$res")
failed=${failed:-1}
echo "test-kcsan: $passed tests passed"
status=$(sed -n 's/^HARNESS-EXIT-STATUS: \([0-9]*\)$/\1/p' "$txt" | tail -1)

# One report per "BUG: KCSAN:" line, up to the next "=====" line.
reports=$(sed -n '/^HARNESS-DMESG-BEGIN$/,/^HARNESS-DMESG-END$/p' "$txt" |
	awk '/BUG: KCSAN:/ { on = 1; r = "" }
	     on { r = r $0 "\x1f" }
	     on && /=====/ && r ~ /BUG: KCSAN/ && !/BUG: KCSAN/ { print r; on = 0 }')
ours=0 other=0
while IFS= read -r r; do
	[ -n "$r" ] || continue
	head=$(echo "${r%%$'\x1f'*}" | sed 's/^\[[ 0-9.]*\] //')
	if echo "$r" | tr '\037' '\n' | grep -qE "$OURS"; then
		ours=$((ours + 1))
		echo "test-kcsan: IN THE SERIES: $head"
		echo "$r" | tr '\037' '\n' | sed 's/^/    /'
	else
		other=$((other + 1))
		echo "test-kcsan: elsewhere in the base: $head"
	fi
done <<< "$reports"

echo "test-kcsan: $ours data-race reports in the series' code, $other elsewhere; $failed failed tests; guest status ${status:-none}, vm-run $vrc"
# vm-run fails on any KCSAN report (a "BUG:" line); only other splats count here.
others=$(sed -n '/^HARNESS-DMESG-BEGIN$/,/^HARNESS-DMESG-END$/p' "$txt" |
	grep -E 'WARNING:|BUG:|possible circular locking|INFO: |RCU stall|Kernel panic' |
	grep -vc 'BUG: KCSAN:' || true)
if [ "$ours" = 0 ] && [ "$failed" = 0 ] && [ "${status:-1}" = 0 ] && [ "$others" = 0 ]; then
	echo "test-kcsan: pass"
	exit 0
fi
echo "test-kcsan: FAIL"
exit 1
