#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what it measures, and QUICK, BOOTS, OS_ROUNDS, ONLY, FAMILIES,
# KCOOKIE, RHASH_NOFIX, NO_BUILD: make help and docs/harness.md (its row).
# The variant kernels' runs are named "..._o1" (O(1) cookie, build/variant-
# kcookie) and "rhash_nofix" (build/variant-rhash-nofix) in the report.
# With QUICK=1, -icount counts repeat across rounds but for HASH's and
# RHASH's random seeds, which move theirs by a few instructions.
#   ROUNDS=n       rounds per boot (-icount: 3, 1 quick; time: 1, 2 quick)
#   RESULTS=dir    where to write (default docs/results)
#   FAMILIES=...   results named MODE-part (results-icount-quick-part.md,
#                  ...), apart from a complete run's
# Which runs a boot makes (families, sizes, rounds) is decided here, in
# plan(); scripts/bench-guest.sh runs them in the VM as they are given.
#   scripts/bench.sh plan SET [ONESHOT]   print a plan (QUICK, ROUNDS apply)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
QUICK=${QUICK:-0}
# What the user set, for the results' command line.
SET_ROUNDS=${ROUNDS:-}
SET_BOOTS=${BOOTS:-}
BOOTS=${BOOTS:-$([ "$QUICK" = 1 ] && echo 1 || echo 3)}
ONLY=${ONLY:-icount time native}
RESULTS=${RESULTS:-$ROOT/docs/results}
GUEST=$ROOT/scripts/bench-guest.sh
KCOOKIE=${KCOOKIE:-1}
RHASH_NOFIX=${RHASH_NOFIX:-1}
case " $ONLY " in *" icount "*) ;; *) KCOOKIE=0 RHASH_NOFIX=0 ;; esac
VARIANT=$BUILD/variant-kcookie
NOFIX=$BUILD/variant-rhash-nofix
MINI=$BUILD/linux/tools/testing/selftests/bpf-mini

# The ./bench flags every throughput run of a plan gets.
run_flags() {	# run_flags SET
	if [ "$QUICK" = 1 ] || [ "$1" = hot ] || [ "$1" = kmulti_cookie ] ||
	   [ "$1" = rhash_nofix ]; then
		echo "-w 1 -d 2 -a --ipc-batch 1000"
	else
		echo "-w 2 -d 5 -a --ipc-batch 1000"
	fi
}

# The runs of one boot, one line each: "ROUND ARGS" for ./bench.  Every
# round runs every variant of a size back to back, so that slow drifts of
# the machine hit all variants alike.  A lookup that misses prints
# "ipc-fail:"; the report fails the run on it.
#   SET=all     every family, and with ONESHOT=1 the one-shot
#               measurements (memory, populate, attach) after the rounds
#   SET=hot     the throughput families only, short samples: for a guest
#               whose clock counts instructions (QEMU -icount), where every
#               run gives the same figure and one-shot timings mean nothing
#   SET=kmulti_cookie  the kprobe.multi cookie variants only, for kernels
#               whose bpf_kprobe_multi_cookie() differs
#   SET=rhash_nofix  the RHASH variants (kprobe.multi, fentry.multi,
#               lookups) and their baselines, for a kernel whose RHASH
#               hashes differently
#   SET=gen_lookup  what the inlined lookup changes (kprobe.multi and
#               fentry hot paths, lookups), for kernels with and without
#               ip_cookie_map_gen_lookup()
#   SET=funcip  bpf_get_func_ip() of kprobe.multi (and fentry's, inlined
#               upstream, as control), for kernels with and without
#               patches/variants/funcip.patch
plan() {	# plan SET ROUNDS [ONESHOT]
	local set=$1 nr=$2 oneshot=${3:-1} run kmulti_n fmulti_n lookup_n
	local mem_n pop_n attach_n os_rounds r n v
	run=$(run_flags "$set")
	if [ "$QUICK" = 1 ]; then
		kmulti_n="1 100 1000 10000"
		fmulti_n="1 100 1000"
		lookup_n="1 1000 100000 1000000"
		mem_n="1000 10000 100000 1000000"
		pop_n="1000 10000"
		attach_n="10000"
		os_rounds=${OS_ROUNDS:-1}
	else
		kmulti_n="1 100 1000 10000 0"	# 0: every attachable function
		# 0: every function a trampoline takes (BTF, ftrace site)
		fmulti_n="1 100 1000 10000 0"
		lookup_n="1 10 100 1000 10000 100000 1000000"
		mem_n="1000 10000 100000 1000000"
		pop_n="1000 10000 100000"
		attach_n="10000 50000 0"
		os_rounds=${OS_ROUNDS:-2}
	fi
	fentry() { for v in $1; do echo "$r $run ipc-fentry-$v"; done; }
	umulti() { for v in $1; do echo "$r $run ipc-umulti-$v"; done; }
	kmulti() {
		for n in $2; do
			for v in $1; do echo "$r $run ipc-kmulti-$v --ipc-funcs $n"; done
		done
	}
	fmulti() {
		for n in $2; do
			for v in $1; do echo "$r $run ipc-fmulti-$v --ipc-funcs $n"; done
		done
	}
	lookup() {
		for n in $2; do
			for v in $1; do echo "$r $run ipc-lookup-$v --ipc-entries $n"; done
		done
	}
	for r in $(seq 1 "$nr"); do
		case $set in
		kmulti_cookie)
			kmulti "empty cookie cookie_array" "$kmulti_n" ;;
		rhash_nofix)
			kmulti "empty rhash" "$kmulti_n"
			fmulti "empty rhash" "$fmulti_n"
			lookup "none rhash" "$lookup_n" ;;
		funcip)
			fentry "empty funcip"
			kmulti "empty funcip ipc cookie" "1 1000" ;;
		gen_lookup)
			fentry "empty cookie ipc hash"
			kmulti "empty cookie hash ipc ipc_link" "1 1000"
			lookup "none ipc hash" "1 1000 100000" ;;
		hot|all)
			fentry "empty funcip cookie cookie_array ipc kfunc hash rhash wide_array wide_ipc"
			umulti "empty offset offset_link cookie cookie_array ipc ipc_link"
			kmulti "empty funcip funcip_link cookie cookie_array hash rhash ipc kfunc ipc_link" "$kmulti_n"
			fmulti "empty funcip cookie cookie_array hash rhash ipc kfunc wide_array wide_ipc" "$fmulti_n"
			lookup "none ipc hash rhash array" "$lookup_n"
			[ "$set" = hot ] && continue
			# Lookups while another CPU resizes; the quiet figure to
			# compare with is this round's ipc-lookup-ipc run above.
			for n in 1000 100000; do
				echo "$r $run ipc-lookup-ipc --ipc-entries $n --ipc-resize"
			done ;;
		*)	echo "bench: unknown SET '$set'" >&2; return 1 ;;
		esac
	done
	[ "$set" = all ] && [ "$oneshot" = 1 ] || return 0
	# One-shot measurements, round 0.  Memory is sampled each second;
	# the report takes the last sample, 5 s after filling, when what the
	# maps free after a grace period is gone.
	for n in $mem_n; do
		for r in $(seq 1 "$os_rounds"); do
			for v in ipc hash hash-nopre rhash; do
				echo "0 -w 2 -d 2 ipc-mem-$v --ipc-entries $n"
			done
		done
	done
	for n in $pop_n; do
		for r in $(seq 1 "$os_rounds"); do
			for v in ipc hash hash-nopre rhash ipc-hint; do
				echo "0 -w 1 -d 1 ipc-populate-$v --ipc-entries $n"
			done
		done
	done
	for n in $attach_n; do
		for r in $(seq 1 "$os_rounds"); do
			for v in cookies map; do
				echo "0 -w 1 -d 1 ipc-attach-$v --ipc-funcs $n"
			done
		done
	done
}

# plan, less the runs of families FAMILIES does not name
plan_of() {	# plan_of SET ROUNDS [ONESHOT]
	local re
	if [ -z "${FAMILIES:-}" ]; then
		plan "$@"
		return
	fi
	re=" ipc-($(echo "$FAMILIES" | tr -s ' ' '|'))-"
	plan "$@" | grep -E -e "$re" || true
}

if [ "${1:-}" = plan ]; then
	plan_of "${2:-all}" "${ROUNDS:-1}" "${3:-1}"
	exit
fi

if [ "${NO_BUILD:-0}" != 1 ]; then
	make -C "$ROOT" kernel tools
	# bench runs on the base kernel: take the BPF types from its BTF
	# (this also spares the debug kernel build of make selftests).
	VMLINUX_BTF=$BUILD/kbuild-base/vmlinux "$ROOT/scripts/build-selftests.sh" bench
fi
# The variant kernels (the -icount part only) build while the series
# kernel's -icount boot runs: its counts do not depend on what else runs
# on the host.  Their boots wait for the build.
build_variants() {
	if [ "$KCOOKIE" = 1 ]; then
		EXTRA_PATCHES=$ROOT/patches/variants/kmulti-cookie-o1.patch \
			build_variant "$VARIANT" base
	fi
	if [ "$RHASH_NOFIX" = 1 ]; then
		PATCHES="-rhashfix -rhashtest" \
			build_variant "$NOFIX" base
	fi
}
variants=
if [ "${NO_BUILD:-0}" != 1 ] && { [ "$KCOOKIE" = 1 ] || [ "$RHASH_NOFIX" = 1 ]; }; then
	mkdir -p "$BUILD/vm"
	build_variants > "$BUILD/vm/bench-variants.log" 2>&1 &
	variants=$!
fi
wait_variants() {
	[ -n "$variants" ] || return 0
	wait "$variants" ||
		{ echo "bench: variant kernels failed to build, see $BUILD/vm/bench-variants.log" >&2; exit 1; }
	variants=
}
[ -x "$MINI/bench" ] || { echo "bench: no $MINI/bench (make selftests)" >&2; exit 1; }

mode=full
[ "$QUICK" = 1 ] && mode=quick
[ -n "${FAMILIES:-}" ] && mode=$mode-part
rounds=${ROUNDS:-$([ "$QUICK" = 1 ] && echo 2 || echo 1)}
# A boot's wall-clock limit, against hangs: on 7.3 a quick -icount boot
# (321 plan lines) ran past an hour with a test VM and a kernel build
# beside it on the 2 cores.
timeout=$([ "$QUICK" = 1 ] && echo 10800 || echo 14400)
mkdir -p "$RESULTS" "$BUILD/vm"

# What the numbers ran on.
env_file() {	# env_file ACCEL FILE
	local cfg=$BUILD/kbuild-base/.config
	{
		echo "mode=$mode"
		[ -z "${FAMILIES:-}" ] || echo "families=$FAMILIES"
		[ -z "${OS_ROUNDS:-}" ] || echo "os_rounds=$OS_ROUNDS"
		[ -z "$SET_ROUNDS" ] || echo "rounds=$SET_ROUNDS"
		[ -z "$SET_BOOTS" ] || [ "$1" = icount ] || echo "boots=$SET_BOOTS"
		echo "accel=$1"
		echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
		echo "host_nproc=$(nproc)"
		echo "kernel_config=configs/base.config on tinyconfig ($(grep -cE '^CONFIG_.*=y' "$cfg") symbols =y)"
		echo "config_mitigations=$(grep -E '^(# )?CONFIG_(CPU_MITIGATIONS|MITIGATION_RETPOLINE|MITIGATION_PAGE_TABLE_ISOLATION)[ =]' "$cfg" | tr '\n' ' ')"
		echo "git=$(git -C "$ROOT" rev-parse --short HEAD)"
		echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
	} > "$2"
}

# One boot running plan SET ONESHOT; its ipc-* lines appended to RAW
# after a marker.
boot() {	# boot ACCEL RAW N SET [ONESHOT]
	local accel=$1 raw=$2 n=$3 set=$4 oneshot=${5:-1} log plan rc=0
	log=$BUILD/vm/bench-$accel-$n.log
	plan=$BUILD/vm/bench-plan-$accel-$n.txt
	plan_of "$set" "$rounds" "$oneshot" > "$plan"
	VM_ACCEL=$accel VM_EXTRA_FILES="$GUEST $plan" VM_TIMEOUT=${VM_TIMEOUT:-$timeout} \
		"$ROOT/scripts/vm-run.sh" --kernel base ${IMAGE:+--image "$IMAGE"} --log "$log" -- \
		"IPC_ENV=\"quick=$QUICK rounds=$rounds set=$set run='$(run_flags "$set")'\" sh /bpf/bench-guest.sh /bpf/$(basename "$plan")" || rc=$?
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
	rounds=${ROUNDS:-$([ "$QUICK" = 1 ] && echo 1 || echo 3)}
	boot icount "$raw" 1 hot
	wait_variants
	if [ "$KCOOKIE" = 1 ]; then
		# Its rounds and variants renamed ("kcookie-R", "cookie_o1"),
		# so the report keeps them apart from the series kernel's.
		vraw=$BUILD/vm/raw-icount-kcookie.txt
		: > "$vraw"
		IMAGE=$VARIANT/kbuild-base/vmlinux boot icount "$vraw" kcookie kmulti_cookie
		grep -v -e '^ipc-boot:' -e '^ipc-done' -e '^ipc-env:' -e '^ipc-vuln:' "$vraw" |
			sed -e 's/^ipc-run: round=/ipc-run: round=kcookie-/' \
			    -e 's/ bench=ipc-kmulti-\([a-z_]*\) / bench=ipc-kmulti-\1_o1 /' >> "$raw"
	fi
	if [ "$RHASH_NOFIX" = 1 ]; then
		# "nofix-R" rounds; empty and rhash renamed "..._nofix" (the
		# lookup loop without a lookup stays "none", its own round's
		# baseline), refused inserts too.
		vraw=$BUILD/vm/raw-icount-rhash-nofix.txt
		: > "$vraw"
		IMAGE=$NOFIX/kbuild-base/vmlinux boot icount "$vraw" nofix rhash_nofix
		grep -v -e '^ipc-boot:' -e '^ipc-done' -e '^ipc-env:' -e '^ipc-vuln:' "$vraw" |
			sed -e 's/^ipc-run: round=/ipc-run: round=nofix-/' \
			    -e 's/\bipc-\(kmulti\|fmulti\)-\(empty\|rhash\)\b/ipc-\1-\2_nofix/g' \
			    -e 's/\bipc-lookup-rhash\b/ipc-lookup-rhash_nofix/g' >> "$raw"
	fi
	env_file icount "$RESULTS/env-icount-$mode.txt"
	python3 "$ROOT/scripts/bench-report.py" "$raw" "$RESULTS/env-icount-$mode.txt" \
		"$RESULTS" "icount-$mode" || rc=1
	rounds=${ROUNDS:-$([ "$QUICK" = 1 ] && echo 2 || echo 1)}
esac
case " $ONLY " in *" time "*)
	accel=$(vm_accel)
	raw=$RESULTS/raw-$mode.txt
	: > "$raw"
	for b in $(seq 1 "$BOOTS"); do
		# The one-shot timings (memory, populate, attach): first boot.
		boot "$accel" "$raw" "$b" all "$([ "$b" = 1 ] && echo 1 || echo 0)"
	done
	env_file "$accel" "$RESULTS/env-$mode.txt"
	python3 "$ROOT/scripts/bench-report.py" "$raw" "$RESULTS/env-$mode.txt" \
		"$RESULTS" "$mode" || rc=1
esac
case " $ONLY " in *" native "*)
	"$ROOT/scripts/bench-native.sh" || rc=1
esac
echo "bench: results in $RESULTS ($mode)"
exit $rc
