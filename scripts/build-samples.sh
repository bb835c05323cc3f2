#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the sample tools of tools-extra/ipcookie (ipcookie_funccount,
# ipcookie_funclatency; not part of the kernel series) into build/samples:
# BPF object with clang-19, skeleton with our bpftool, user part and
# ipcookie_common.c linked statically with our libbpf.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
LINUX=$BUILD/linux
TOOLS=$BUILD/tools
SRC=$ROOT/tools-extra/ipcookie
OUT=$BUILD/samples
INC=$TOOLS/libbpf/usr/include
CFLAGS=(-O2 -g -Wall -Werror -I"$OUT" -I"$SRC" -I"$INC"
	-I"$LINUX/tools/include/uapi")

mkdir -p "$OUT"
gcc "${CFLAGS[@]}" -c "$SRC/ipcookie_common.c" -o "$OUT/ipcookie_common.o"
for bpf in "$SRC"/*.bpf.c; do
	name=$(basename "$bpf" .bpf.c)
	echo "build-samples: $name"
	clang-19 -g -O2 --target=bpf -mcpu=v3 -D__TARGET_ARCH_x86 \
		-I"$INC" -I"$LINUX/tools/include/uapi" \
		-c "$bpf" -o "$OUT/$name.bpf.o"
	"$TOOLS/bpftool/bpftool" gen skeleton "$OUT/$name.bpf.o" \
		name "$name" > "$OUT/$name.skel.h"
	gcc "${CFLAGS[@]}" "$SRC/$name.c" "$OUT/ipcookie_common.o" \
		"$TOOLS/libbpf/libbpf.a" -lelf -lz -lzstd -o "$OUT/$name"
done
