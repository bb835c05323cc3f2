#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test-full (on demand, hours under emulation): the complete upstream
# test_progs, test_verifier and test_maps on two kernels built with the
# selftests' own config fragments (build-kernel.sh full), each in its own
# build dir so that it never disturbs build/linux:
#   scripts/test-full.sh patched    build/full-patched: the series applied;
#                                   builds the selftests of that tree
#   scripts/test-full.sh pristine   build/full-pristine: PATCHES=none
#                                   MIRROR=none; the same runners, with
#                                   bpf_testmod*.ko built against this kernel
#   scripts/test-full.sh report     the comparison (test-full-report.py)
# (no argument: all three). One set of runners for both kernels: a test
# that passes on one and fails on the other does so because of the kernel.
# The runners carry the series' libbpf; the ip_cookie* tests are not run
# on the pristine kernel, which has no such map.
# Console logs: build/full-<variant>/vm/run.log.txt.
#   TEST_PROGS_ARGS=...   extra test_progs arguments (e.g. "-t bpf_cookie")
#   VM_TIMEOUT=S          guest time limit (default 4 h)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
S=$ROOT/scripts
MAIN=${BUILD:-$ROOT/build}

variant() {
	local v=$1 B SELF OUT STAGE
	B=$MAIN/full-$v
	case $v in
	patched)  export PATCHES=all MIRROR=all ;;
	pristine) export PATCHES=none MIRROR=none ;;
	esac
	# The pristine source is shared (extracted once, read only); so is ccache.
	if [ ! -f "$MAIN/src/.extracted" ]; then
		BUILD=$MAIN "$S/prepare-tree.sh"
	fi
	export BUILD=$B KDIR=$MAIN/src CCACHE_DIR=$MAIN/ccache
	echo "test-full: $v: tree, kernel and selftests in $B"
	"$S/prepare-tree.sh"
	"$S/build-kernel.sh" full

	SELF=$B/linux/tools/testing/selftests/bpf
	OUT=$B/selftests
	mkdir -p "$OUT"
	local mods="$OUT/bpf_testmod.ko $OUT/bpf_test_no_cfi.ko"
	mods="$mods $OUT/bpf_test_modorder_x.ko $OUT/bpf_test_modorder_y.ko"
	local targets=$mods
	[ "$v" = patched ] &&
		targets="$OUT/test_progs $OUT/test_verifier $OUT/test_maps $mods"
	# The modules' Makefiles run "make -C <tree> M=..."; KBUILD_OUTPUT
	# points that at the out-of-tree kernel build.
	# shellcheck disable=SC2086
	KBUILD_OUTPUT=$B/kbuild-full make -C "$SELF" -j"$(nproc)" OUTPUT="$OUT" \
		CLANG=clang-19 LLC=llc-19 LLVM_STRIP=llvm-strip-19 \
		VMLINUX_BTF="$B/kbuild-full/vmlinux" $targets

	# What the runners read at run time, not the intermediate objects:
	# the patched build's runners and BPF objects, this kernel's modules.
	local R=$MAIN/full-patched/selftests
	[ -x "$R/test_progs" ] || { echo "test-full: run the patched variant first" >&2; exit 1; }
	STAGE=$B/stage
	rm -rf "$STAGE"
	mkdir -p "$STAGE"
	(cd "$R" && find . -maxdepth 1 -type f \( -perm -u+x -o -name '*.bpf.o' \
		-o -name '*.so' -o -name 'btf_dump_test_case_*.c' \) \
		-print0 | xargs -0 cp -t "$STAGE")
	# shellcheck disable=SC2086
	cp $mods "$STAGE/"
	[ -x "$R/tools/sbin/bpftool" ] && cp "$R/tools/sbin/bpftool" "$STAGE/"
	echo "test-full: $v: staged $(find "$STAGE" -type f | wc -l) files ($(du -sh "$STAGE" | cut -f1))"

	local args=${TEST_PROGS_ARGS:-}
	[ "$v" = pristine ] && args="$args -d 'ip_cookie*'"
	# Each runner's summary line is printed even when one of them fails.
	local cmd="./test_progs $args; echo \"HARNESS-RC test_progs \$?\";"
	cmd="$cmd ./test_verifier; echo \"HARNESS-RC test_verifier \$?\";"
	cmd="$cmd ./test_maps; echo \"HARNESS-RC test_maps \$?\""
	mkdir -p "$B/vm"
	local rc=0
	VM_EXTRA_FILES="$STAGE/." "$S/vm-run.sh" --kernel full \
		--timeout "${VM_TIMEOUT:-14400}" --log "$B/vm/run.log" -- "$cmd" || rc=$?
	echo "test-full: $v: VM exit $rc; log $B/vm/run.log.txt"
	unset BUILD KDIR
}

case ${1:-all} in
patched|pristine) variant "$1" ;;
report)	python3 "$S/test-full-report.py" "$MAIN/full-pristine/vm/run.log.txt" \
		"$MAIN/full-patched/vm/run.log.txt" ;;
all)	variant patched
	variant pristine
	python3 "$S/test-full-report.py" "$MAIN/full-pristine/vm/run.log.txt" \
		"$MAIN/full-patched/vm/run.log.txt" ;;
*)	echo "usage: $0 [patched|pristine|report]" >&2; exit 2 ;;
esac
