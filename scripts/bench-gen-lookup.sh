#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-gen-lookup: what inlining the lookup buys.  Builds the base
# kernel a second time without ip_cookie_map_gen_lookup() (the map ops
# lose .map_gen_lookup, so the verifier emits a direct call to
# ip_cookie_map_lookup_elem() instead), then boots the two kernels in turn,
# running the same subset of the benchmarks in each (SET=gen_lookup), and
# writes docs/results/gen-lookup.md.
#   BOOTS=n        boots of each kernel, alternating (default 2)
#   ROUNDS=n       rounds per boot (default 2)
#   NO_BUILD=1     use the bench and the two vmlinux already built
#   RESULTS=dir    where to write (default docs/results)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
RESULTS=${RESULTS:-$ROOT/docs/results}
BOOTS=${BOOTS:-2}
ROUNDS=${ROUNDS:-2}
RUNNER=$ROOT/tools/testing/selftests/bpf/benchs/run_bench_ip_cookie.sh
SRC=$BUILD/linux/kernel/bpf/ip_cookie.c
IMG_GEN=$BUILD/vm/vmlinux-gen-lookup
IMG_CALL=$BUILD/vm/vmlinux-no-gen-lookup

if [ "${NO_BUILD:-0}" != 1 ]; then
	make -C "$ROOT" kernel tools
	VMLINUX_BTF=$BUILD/kbuild-base/vmlinux "$ROOT/scripts/build-selftests.sh" bench
	mkdir -p "$BUILD/vm"
	cp "$BUILD/kbuild-base/vmlinux" "$IMG_GEN"

	# The variant, built in place and undone whatever happens.
	restore() { cp "$ROOT/kernel/bpf/ip_cookie.c" "$SRC"; }
	trap restore EXIT
	sed -e '/\.map_gen_lookup[[:space:]]*= ip_cookie_map_gen_lookup,/d' \
	    -e 's/^static int ip_cookie_map_gen_lookup(/static int __maybe_unused ip_cookie_map_gen_lookup(/' \
	    "$ROOT/kernel/bpf/ip_cookie.c" > "$SRC"
	if grep -q '\.map_gen_lookup' "$SRC"; then
		echo "bench-gen-lookup: could not drop .map_gen_lookup from $SRC" >&2
		exit 1
	fi
	"$ROOT/scripts/build-kernel.sh" base
	cp "$BUILD/kbuild-base/vmlinux" "$IMG_CALL"
	restore
	trap - EXIT
	"$ROOT/scripts/build-kernel.sh" base	# back to the real thing
fi
for f in "$IMG_GEN" "$IMG_CALL"; do
	[ -f "$f" ] || { echo "bench-gen-lookup: no $f (run without NO_BUILD)" >&2; exit 1; }
done

mkdir -p "$RESULTS"
raw=$RESULTS/raw-gen-lookup.txt
: > "$raw"
for b in $(seq 1 "$BOOTS"); do
	for k in inline call; do
		img=$IMG_GEN
		[ $k = call ] && img=$IMG_CALL
		log=$BUILD/vm/bench-gen-lookup-$k.log
		VM_EXTRA_FILES=$RUNNER VM_TIMEOUT=${VM_TIMEOUT:-3600} \
			"$ROOT/scripts/vm-run.sh" --kernel base --image "$img" \
			--log "$log" -- \
			"SET=gen_lookup ROUNDS=$ROUNDS QUICK=1 sh /bpf/run_bench_ip_cookie.sh" || true
		echo "ipc-boot: kernel=$k boot=$b" >> "$raw"
		sed -n '/^HARNESS-CMD-BEGIN$/,/^HARNESS-CMD-END$/p' "$log.txt" |
			grep -E '^ipc-' >> "$raw" || true
		if ! tail -1 "$raw" | grep -q '^ipc-done'; then
			echo "bench-gen-lookup: boot $b of the $k kernel did not finish, see $log.txt" >&2
			exit 1
		fi
	done
done

accel=$("$ROOT/scripts/vm-accel.sh")
cfg=$BUILD/kbuild-base/.config
kernel="configs/base.config on tinyconfig ($(grep -cE '^CONFIG_.*=y' "$cfg") symbols =y); $(grep -E '^(# )?CONFIG_(CPU_MITIGATIONS|MITIGATION_RETPOLINE)[ =]' "$cfg" | tr '\n' ' ')"
python3 "$ROOT/scripts/gen-lookup-report.py" "$raw" "$accel" \
	"$(git -C "$ROOT" rev-parse --short HEAD)" "$kernel" > "$RESULTS/gen-lookup.md"
cat "$RESULTS/gen-lookup.md"
