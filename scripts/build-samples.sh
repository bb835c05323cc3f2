#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the sample tools of samples/bpf/ipc_*: BPF object with clang-19,
# skeleton with our bpftool, user part linked statically with our libbpf.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
LINUX=$BUILD/linux
TOOLS=$BUILD/tools
OUT=$BUILD/samples
INC=$TOOLS/libbpf/usr/include

mkdir -p "$OUT"
for bpf in "$LINUX"/samples/bpf/ipc_*.bpf.c; do
	name=$(basename "$bpf" .bpf.c)
	echo "build-samples: $name"
	clang-19 -g -O2 --target=bpf -mcpu=v3 -D__TARGET_ARCH_x86 \
		-I"$INC" -I"$LINUX/tools/include/uapi" \
		-c "$bpf" -o "$OUT/$name.bpf.o"
	"$TOOLS/bpftool/bpftool" gen skeleton "$OUT/$name.bpf.o" \
		name "$name" > "$OUT/$name.skel.h"
	gcc -O2 -g -Wall -Werror -I"$OUT" -I"$INC" \
		-I"$LINUX/tools/include/uapi" \
		"$LINUX/samples/bpf/${name}_user.c" \
		"$TOOLS/libbpf/libbpf.a" -lelf -lz -lzstd -o "$OUT/$name"
done
