#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test-full (best effort): the complete upstream test_progs, with
# bpf_testmod.ko, on a kernel configured with the selftests' own config
# fragments (build/kbuild-full), run in a VM. Slow: a third kernel build and
# every BPF object of the suite. Upstream has known failures on any config.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SELF=$BUILD/linux/tools/testing/selftests/bpf
OUT=$BUILD/selftests-full
S=$ROOT/scripts

"$S/prepare-tree.sh"
"$S/build-kernel.sh" full
mkdir -p "$OUT"
# bpf_testmod's Makefile runs "make -C <tree> M=..."; KBUILD_OUTPUT points
# that at our out-of-tree kernel build.
KBUILD_OUTPUT=$BUILD/kbuild-full make -C "$SELF" -j"$(nproc)" OUTPUT="$OUT" \
	CLANG=clang-19 LLC=llc-19 LLVM_STRIP=llvm-strip-19 \
	VMLINUX_BTF="$BUILD/kbuild-full/vmlinux" "$OUT/test_progs"

# The VM's /bpf gets the whole output directory.
VM_EXTRA_FILES="$OUT/." "$S/vm-run.sh" --kernel full \
	--timeout "${VM_TIMEOUT:-7200}" -- "./test_progs ${TEST_PROGS_ARGS:-}"
