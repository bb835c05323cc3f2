#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: build the base kernel, tools and bench, run the IP_COOKIE
# benchmarks in one boot of the base kernel, write docs/results/.
#   QUICK=1        a few minutes: fewer sizes, rounds and shorter samples
#   NO_BUILD=1     use what is already built
#   RESULTS=dir    where to write (default docs/results)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
QUICK=${QUICK:-0}
RESULTS=${RESULTS:-$ROOT/docs/results}
RUNNER=$ROOT/tools/testing/selftests/bpf/benchs/run_bench_ip_cookie.sh
MINI=$BUILD/linux/tools/testing/selftests/bpf-mini

if [ "${NO_BUILD:-0}" != 1 ]; then
	make -C "$ROOT" kernel tools
	# bench runs on the base kernel: take the BPF types from its BTF
	# (this also spares the debug kernel build of make selftests).
	VMLINUX_BTF=$BUILD/kbuild-base/vmlinux "$ROOT/scripts/build-selftests.sh" bench
fi
[ -x "$MINI/bench" ] || { echo "bench: no $MINI/bench (make selftests)" >&2; exit 1; }

mode=full
[ "$QUICK" = 1 ] && mode=quick
timeout=$([ "$QUICK" = 1 ] && echo 1800 || echo 14400)
mkdir -p "$RESULTS"
raw=$RESULTS/raw-$mode.txt

VM_EXTRA_FILES=$RUNNER VM_TIMEOUT=${VM_TIMEOUT:-$timeout} \
	"$ROOT/scripts/vm-run.sh" --kernel base -- \
	"QUICK=$QUICK sh /bpf/run_bench_ip_cookie.sh" || rc=$?
log=$BUILD/vm/console-base.log.txt
sed -n '/^HARNESS-CMD-BEGIN$/,/^HARNESS-CMD-END$/p' "$log" |
	grep -E '^(ipc-|Summary)' > "$raw" || true
grep -q '^ipc-done' "$raw" || { echo "bench: run did not finish (rc ${rc:-0}), see $log" >&2; exit 1; }

# What the numbers ran on.
accel=$("$ROOT/scripts/vm-accel.sh")
cfg=$BUILD/kbuild-base/.config
{
	echo "mode=$mode"
	echo "accel=$accel"
	echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "host_nproc=$(nproc)"
	echo "kernel_config=configs/base.config on tinyconfig ($(grep -cE '^CONFIG_.*=y' "$cfg") symbols =y)"
	echo "config_mitigations=$(grep -E '^(# )?CONFIG_(CPU_MITIGATIONS|MITIGATION_RETPOLINE|MITIGATION_PAGE_TABLE_ISOLATION)[ =]' "$cfg" | tr '\n' ' ')"
	echo "git=$(git -C "$ROOT" rev-parse --short HEAD)"
	echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
} > "$RESULTS/env-$mode.txt"

python3 "$ROOT/scripts/bench-report.py" "$raw" "$RESULTS/env-$mode.txt" "$RESULTS" "$mode"
echo "bench: results in $RESULTS ($mode)"
