#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build libbpf and bpftool from the patched tree's tools/ into build/tools.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
LINUX=$BUILD/linux
OUT=$BUILD/tools
JOBS=${JOBS:-$(nproc)}
LLVM=(CLANG="clang-$LLVM_VER" LLC="llc-$LLVM_VER" LLVM_STRIP="llvm-strip-$LLVM_VER")

mkdir -p "$OUT/libbpf" "$OUT/bpftool"
echo "build-tools: libbpf -> $OUT/libbpf"
make -s -C "$LINUX/tools/lib/bpf" -j"$JOBS" OUTPUT="$OUT/libbpf/" \
	DESTDIR="$OUT/libbpf" prefix=/usr all install_headers >/dev/null
echo "build-tools: bpftool -> $OUT/bpftool"
make -s -C "$LINUX/tools/bpf/bpftool" -j"$JOBS" OUTPUT="$OUT/bpftool/" "${LLVM[@]}" >/dev/null
"$OUT/bpftool/bpftool" version
