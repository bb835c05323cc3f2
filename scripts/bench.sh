#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: build the base kernel, tools and bench, then measure three
# ways and write docs/results/:
#   1. instructions: one boot under QEMU -icount (VM_ACCEL=icount), the
#      throughput families, 3 rounds: "ns" there are guest instructions,
#      the same on any host (results-icount-MODE.*); then a boot of the
#      variant kernel with an O(1) kprobe.multi cookie
#      (patches/variants/kmulti-cookie-o1.patch on top of the series,
#      build/variant-kcookie) for its kprobe.multi cookie variants, which
#      the report names "..._o1"
#   2. time: BOOTS boots on the default accelerator (KVM where usable,
#      else TCG), every family; spread across boots next to every median
#      (results-MODE.*)
#   3. native: scripts/bench-native.sh, the data structures alone on the
#      host CPU (native.md)
#   QUICK=1        fewer sizes and shorter samples (about half an hour)
#   BOOTS=n        boots of the time measurement (default 3)
#   ROUNDS=n       rounds per boot (default 1 in full mode, 2 quick)
#   ONLY="icount time native"  a subset of the three
#   NO_BUILD=1     use what is already built
#   KCOOKIE=0      skip the O(1)-cookie variant kernel
#   RESULTS=dir    where to write (default docs/results)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
QUICK=${QUICK:-0}
BOOTS=${BOOTS:-3}
ONLY=${ONLY:-icount time native}
RESULTS=${RESULTS:-$ROOT/docs/results}
RUNNER=$ROOT/tools/testing/selftests/bpf/benchs/run_bench_ip_cookie.sh
KCOOKIE=${KCOOKIE:-1}
case " $ONLY " in *" icount "*) ;; *) KCOOKIE=0 ;; esac
VARIANT=$BUILD/variant-kcookie
MINI=$BUILD/linux/tools/testing/selftests/bpf-mini

if [ "${NO_BUILD:-0}" != 1 ]; then
	make -C "$ROOT" kernel tools
	# bench runs on the base kernel: take the BPF types from its BTF
	# (this also spares the debug kernel build of make selftests).
	VMLINUX_BTF=$BUILD/kbuild-base/vmlinux "$ROOT/scripts/build-selftests.sh" bench
	if [ "$KCOOKIE" = 1 ]; then
		# Expanded before BUILD=$VARIANT below, which would change them.
		src=$BUILD/src
		cache=${CCACHE_DIR:-$BUILD/ccache}
		BUILD=$VARIANT KDIR=$src \
			EXTRA_PATCHES=$ROOT/patches/variants/kmulti-cookie-o1.patch \
			"$ROOT/scripts/prepare-tree.sh"
		BUILD=$VARIANT CCACHE_DIR=$cache "$ROOT/scripts/build-kernel.sh" base
	fi
fi
[ -x "$MINI/bench" ] || { echo "bench: no $MINI/bench (make selftests)" >&2; exit 1; }

mode=full
[ "$QUICK" = 1 ] && mode=quick
rounds=${ROUNDS:-$([ "$QUICK" = 1 ] && echo 2 || echo 1)}
timeout=$([ "$QUICK" = 1 ] && echo 3600 || echo 14400)
mkdir -p "$RESULTS"

# What the numbers ran on.
env_file() {	# env_file ACCEL FILE
	local cfg=$BUILD/kbuild-base/.config
	{
		echo "mode=$mode"
		echo "accel=$1"
		echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
		echo "host_nproc=$(nproc)"
		echo "kernel_config=configs/base.config on tinyconfig ($(grep -cE '^CONFIG_.*=y' "$cfg") symbols =y)"
		echo "config_mitigations=$(grep -E '^(# )?CONFIG_(CPU_MITIGATIONS|MITIGATION_RETPOLINE|MITIGATION_PAGE_TABLE_ISOLATION)[ =]' "$cfg" | tr '\n' ' ')"
		echo "git=$(git -C "$ROOT" rev-parse --short HEAD)"
		echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
	} > "$2"
}

# One boot of the runner; its ipc-* lines appended to RAW after a marker.
boot() {	# boot ACCEL RAW N ENV...
	local accel=$1 raw=$2 n=$3 log rc=0
	shift 3
	log=$BUILD/vm/bench-$accel-$n.log
	VM_ACCEL=$accel VM_EXTRA_FILES=$RUNNER VM_TIMEOUT=${VM_TIMEOUT:-$timeout} \
		"$ROOT/scripts/vm-run.sh" --kernel base ${IMAGE:+--image "$IMAGE"} --log "$log" -- \
		"$* QUICK=$QUICK ROUNDS=$rounds sh /bpf/run_bench_ip_cookie.sh" || rc=$?
	echo "ipc-boot: boot=$n accel=$accel" >> "$raw"
	sed -n '/^HARNESS-CMD-BEGIN$/,/^HARNESS-CMD-END$/p' "$log.txt" |
		grep -E '^(ipc-|Summary)' >> "$raw" || true
	tail -1 "$raw" | grep -q '^ipc-done' ||
		{ echo "bench: boot $n ($accel) did not finish (rc $rc), see $log.txt" >&2; exit 1; }
}

rc=0
case " $ONLY " in *" icount "*)
	raw=$RESULTS/raw-icount-$mode.txt
	: > "$raw"
	rounds=${ROUNDS:-3}
	boot icount "$raw" 1 SET=hot
	if [ "$KCOOKIE" = 1 ]; then
		# Its rounds and variants renamed ("kcookie-R", "cookie_o1"),
		# so the report keeps them apart from the series kernel's.
		vraw=$BUILD/vm/raw-icount-kcookie.txt
		: > "$vraw"
		IMAGE=$VARIANT/kbuild-base/vmlinux boot icount "$vraw" kcookie SET=kmulti_cookie
		grep -v -e '^ipc-boot:' -e '^ipc-done' -e '^ipc-env:' -e '^ipc-vuln:' "$vraw" |
			sed -e 's/^ipc-run: round=/ipc-run: round=kcookie-/' \
			    -e 's/ bench=ipc-kmulti-\([a-z_]*\) / bench=ipc-kmulti-\1_o1 /' >> "$raw"
	fi
	env_file icount "$RESULTS/env-icount-$mode.txt"
	python3 "$ROOT/scripts/bench-report.py" "$raw" "$RESULTS/env-icount-$mode.txt" \
		"$RESULTS" "icount-$mode" || rc=1
	rounds=${ROUNDS:-$([ "$QUICK" = 1 ] && echo 2 || echo 1)}
esac
case " $ONLY " in *" time "*)
	accel=$("$ROOT/scripts/vm-accel.sh")
	raw=$RESULTS/raw-$mode.txt
	: > "$raw"
	for b in $(seq 1 "$BOOTS"); do
		# The one-shot timings (memory, populate, attach): first boot.
		boot "$accel" "$raw" "$b" "ONESHOT=$([ "$b" = 1 ] && echo 1 || echo 0)"
	done
	env_file "$accel" "$RESULTS/env-$mode.txt"
	python3 "$ROOT/scripts/bench-report.py" "$raw" "$RESULTS/env-$mode.txt" \
		"$RESULTS" "$mode" || rc=1
esac
case " $ONLY " in *" native "*)
	if [ -x "$ROOT/scripts/bench-native.sh" ]; then
		"$ROOT/scripts/bench-native.sh" || rc=1
	fi
esac
echo "bench: results in $RESULTS ($mode)"
exit $rc
