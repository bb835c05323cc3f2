#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the sample tools of tools-extra/ipcookie (ipcookie_funccount,
# ipcookie_funclatency; not part of the kernel series) into build/samples:
# BPF object with clang-22, skeleton with our bpftool,
# user part and ipcookie_common.c linked statically with our libbpf.
# TEST_ARCH=arm64|s390x: for that architecture, into build/samples-<arch>,
# with the cross compiler of build/sysroot-<arch> and the libbpf that
# scripts/build-selftests.sh built for it (build-selftests first).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
LINUX=$BUILD/linux
TOOLS=$BUILD/tools
SRC=$ROOT/tools-extra/ipcookie
TEST_ARCH=${TEST_ARCH:-}
CC=gcc
TARGET=x86
BPFTARGET=bpf
BPFTOOL=$TOOLS/bpftool/bpftool
OUT=$BUILD/samples
INC=$TOOLS/libbpf/usr/include
LIBBPF=$TOOLS/libbpf/libbpf.a
if [ -n "$TEST_ARCH" ]; then
	case $TEST_ARCH in
	arm64)	triplet=aarch64-linux-gnu; TARGET=arm64 ;;
	s390x)	triplet=s390x-linux-gnu; TARGET=s390 ;;
	*)	echo "build-samples: unknown TEST_ARCH '$TEST_ARCH'" >&2; exit 2 ;;
	esac
	CC=$BUILD/sysroot-$TEST_ARCH/toolchain/$triplet-gcc
	OUT=$BUILD/samples-$TEST_ARCH
	MINI=$LINUX/tools/testing/selftests/bpf-mini-$TEST_ARCH
	INC=$MINI/tools/include
	LIBBPF=$MINI/tools/build/libbpf/libbpf.a
	[ -f "$LIBBPF" ] || { echo "build-samples: no $LIBBPF (scripts/build-selftests.sh with TEST_ARCH=$TEST_ARCH)" >&2; exit 1; }
	# Big-endian objects; the host's bpftool embeds them as they are.
	if [ "$TEST_ARCH" = s390x ]; then BPFTARGET=bpfeb; fi
fi
CFLAGS=(-O2 -g -Wall -Werror -I"$OUT" -I"$SRC" -I"$INC"
	-I"$LINUX/tools/include/uapi")

mkdir -p "$OUT"
$CC "${CFLAGS[@]}" -c "$SRC/ipcookie_common.c" -o "$OUT/ipcookie_common.o"
for bpf in "$SRC"/*.bpf.c; do
	name=$(basename "$bpf" .bpf.c)
	echo "build-samples: $name${TEST_ARCH:+ ($TEST_ARCH)}"
	"clang-$LLVM_VER" -g -O2 --target=$BPFTARGET -mcpu=v3 -D__TARGET_ARCH_$TARGET \
		-I"$INC" -I"$LINUX/tools/include/uapi" \
		-c "$bpf" -o "$OUT/$name.bpf.o"
	"$BPFTOOL" gen skeleton "$OUT/$name.bpf.o" \
		name "$name" > "$OUT/$name.skel.h"
	$CC "${CFLAGS[@]}" "$SRC/$name.c" "$OUT/ipcookie_common.o" \
		"$LIBBPF" -lelf -lz -lzstd -o "$OUT/$name"
done
