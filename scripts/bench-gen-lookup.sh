#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-gen-lookup: what inlining the lookup buys.  Builds the base
# kernel a second time without ip_cookie_map_gen_lookup() (the variant
# patch patches/variants/no-gen-lookup.patch: the map ops lose
# .map_gen_lookup, so the verifier emits a direct call to
# ip_cookie_map_lookup_elem() instead), in a tree of its own
# (build/variant-no-gen-lookup, EXTRA_PATCHES of prepare-tree.sh), then
# boots the two kernels in turn, running the same subset of the benchmarks
# in each (the plan gen_lookup of scripts/bench.sh), and writes docs/results/gen-lookup.md.
# make bench-funcip (WITHOUT=funcip): the same for the inlined
# bpf_get_func_ip() of kprobe.multi, patches/variants/funcip.patch (patch
# 8 of the series until this measurement took it out): here the variant
# is the one with the inline (build/variant-funcip) and the series' base
# kernel the one without; the plan funcip, the result
# docs/results/funcip.md.
#   BOOTS=n        boots of each kernel, alternating (default 2)
#   ROUNDS=n       rounds per boot (default 2)
#   NO_BUILD=1     use the bench and the two vmlinux already built
#   RESULTS=dir    where to write (default docs/results)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
RESULTS=${RESULTS:-$ROOT/docs/results}
BOOTS=${BOOTS:-2}
ROUNDS=${ROUNDS:-2}
GUEST=$ROOT/scripts/bench-guest.sh
WITHOUT=${WITHOUT:-gen-lookup}
# The variant kernel lacks the feature (gen-lookup) or has it (funcip).
case $WITHOUT in
gen-lookup) VPATCH=no-gen-lookup VARIANT_HAS=0 ;;
funcip)	VPATCH=funcip VARIANT_HAS=1 ;;
*)	echo "bench-gen-lookup: WITHOUT=$WITHOUT: gen-lookup or funcip" >&2; exit 2 ;;
esac
SET=${WITHOUT//-/_}
VARIANT=$BUILD/variant-$VPATCH
IMG_GEN=$BUILD/vm/vmlinux-$WITHOUT
IMG_CALL=$BUILD/vm/vmlinux-no-$WITHOUT

if [ "${NO_BUILD:-0}" != 1 ]; then
	make -C "$ROOT" kernel tools
	VMLINUX_BTF=$BUILD/kbuild-base/vmlinux "$ROOT/scripts/build-selftests.sh" bench
	mkdir -p "$BUILD/vm"
	EXTRA_PATCHES="$ROOT/patches/variants/$VPATCH.patch" \
		build_variant "$VARIANT" base
	if [ $VARIANT_HAS = 1 ]; then
		cp "$VARIANT/kbuild-base/vmlinux" "$IMG_GEN"
		cp "$BUILD/kbuild-base/vmlinux" "$IMG_CALL"
	else
		cp "$BUILD/kbuild-base/vmlinux" "$IMG_GEN"
		cp "$VARIANT/kbuild-base/vmlinux" "$IMG_CALL"
	fi
fi
for f in "$IMG_GEN" "$IMG_CALL"; do
	[ -f "$f" ] || { echo "bench-gen-lookup: no $f (run without NO_BUILD)" >&2; exit 1; }
done

mkdir -p "$RESULTS" "$BUILD/vm"
# The runs of one boot (scripts/bench.sh decides them; bench-guest.sh runs them).
plan=$BUILD/vm/bench-plan-$WITHOUT.txt
QUICK=1 ROUNDS=$ROUNDS "$ROOT/scripts/bench.sh" plan "$SET" > "$plan"
raw=$RESULTS/raw-$WITHOUT.txt
: > "$raw"
for b in $(seq 1 "$BOOTS"); do
	for k in inline call; do
		img=$IMG_GEN
		[ $k = call ] && img=$IMG_CALL
		log=$BUILD/vm/bench-$WITHOUT-$k.log
		VM_EXTRA_FILES="$GUEST $plan" VM_TIMEOUT=${VM_TIMEOUT:-3600} \
			"$ROOT/scripts/vm-run.sh" --kernel base --image "$img" \
			--log "$log" -- \
			"IPC_ENV='quick=1 rounds=$ROUNDS set=$SET' sh /bpf/bench-guest.sh /bpf/$(basename "$plan")" || true
		echo "ipc-boot: kernel=$k boot=$b" >> "$raw"
		sed -n '/^HARNESS-CMD-BEGIN$/,/^HARNESS-CMD-END$/p' "$log.txt" |
			grep -E '^ipc-' >> "$raw" || true
		if ! tail -1 "$raw" | grep -q '^ipc-done'; then
			echo "bench-gen-lookup: boot $b of the $k kernel did not finish, see $log.txt" >&2
			exit 1
		fi
	done
done

accel=$(vm_accel)
cfg=$BUILD/kbuild-base/.config
kernel="configs/base.config on tinyconfig ($(grep -cE '^CONFIG_.*=y' "$cfg") symbols =y); $(grep -E '^(# )?CONFIG_(CPU_MITIGATIONS|MITIGATION_RETPOLINE)[ =]' "$cfg" | tr '\n' ' ')"
python3 "$ROOT/scripts/gen-lookup-report.py" "$raw" "$accel" \
	"$(git -C "$ROOT" rev-parse --short HEAD)" "$kernel" "$WITHOUT" > "$RESULTS/$WITHOUT.md"
cat "$RESULTS/$WITHOUT.md"
