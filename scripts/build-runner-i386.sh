#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The 32-bit test_progs of make test ARCH=i386, into bpf-mini-i386: the
# series' syscall-level tests (I386_TESTS: the API, checked against a
# model, where it meets BTF, bpffs and the batch code, memory and memcg,
# the scale test) and its program tests (ip_cookie_progs: each attach
# type a 32-bit kernel has, the refusals of those it lacks, and the
# verifier's rejections), with upstream's test_progs.c and helpers, linked
# statically against a 32-bit libbpf, libelf, zlib and zstd
# (build/sysroot-i386, Debian's i386 packages; Debian's i686-linux-gnu
# cross gcc). Their skeletons' BPF objects are built by clang against the
# i386 kernel's vmlinux.h, and the skeletons by the host's bpftool.
# The other tests are left out: upstream's selftests do not build for a
# 32-bit target (docs/results/arches.md).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
LINUX=$BUILD/linux
SELF=$LINUX/tools/testing/selftests/bpf
MINI=$LINUX/tools/testing/selftests/bpf-mini-i386
JOBS=${JOBS:-$(nproc)}
VMLINUX=$BUILD/kbuild-debug-i386/vmlinux
BPFTOOL=$BUILD/tools/bpftool/bpftool
I386_TESTS=${I386_TESTS:-ip_cookie_fuzz ip_cookie_uapi ip_cookie_api ip_cookie_memory ip_cookie_progs}

[ -d "$SELF" ] || die "no $SELF: run scripts/prepare-tree.sh"
SR=$("$ROOT/scripts/cross-sysroot.sh" i386 | tail -1)
CC=$SR/toolchain/i686-linux-gnu-gcc

[ -f "$VMLINUX" ] || die "no $VMLINUX: run scripts/build-kernel.sh debug-i386"
[ -x "$BPFTOOL" ] || die "no $BPFTOOL: run scripts/build-tools.sh"
read -ra tests <<< "$I386_TESTS"
for t in "${tests[@]}"; do
	[ -f "$SELF/prog_tests/$t.c" ] || die "no prog_tests/$t.c"
done
# The skeletons they include, directly or through ip_cookie_helpers.h.
srcs=("$SELF/ip_cookie_helpers.h")
for t in "${tests[@]}"; do srcs+=("$SELF/prog_tests/$t.c"); done
skels=$(sed -n -E 's/.*#include "([a-z0-9_]+)\.skel\.h".*/\1/p' "${srcs[@]}" | sort -u)

mkdir -p "$MINI/prog_tests" "$MINI/libbpf" "$MINI/obj"
take_lock "$MINI.lock" "another build in $MINI"

make -s -C "$LINUX/tools/lib/bpf" -j"$JOBS" CROSS_COMPILE="$SR/toolchain/i686-linux-gnu-" \
	OUTPUT="$MINI/libbpf/" DESTDIR="$MINI/libbpf" prefix= \
	EXTRA_CFLAGS="-g -O2" "$MINI/libbpf/libbpf.a" install_headers

# vmlinux.h of the 32-bit kernel, the BPF objects (bpfel: the BPF target
# is 64-bit whatever the kernel) and their skeletons.
if [ ! -f "$MINI/vmlinux.h" ] || [ "$VMLINUX" -nt "$MINI/vmlinux.h" ]; then
	"$BPFTOOL" btf dump file "$VMLINUX" format c > "$MINI/vmlinux.h.new"
	mv "$MINI/vmlinux.h.new" "$MINI/vmlinux.h"
fi
for p in $skels; do
	"clang-$LLVM_VER" -g -O2 --target=bpfel -mcpu=v3 -D__TARGET_ARCH_x86 \
		-I"$MINI" -I"$SELF" -I"$SELF/progs" -I"$MINI/libbpf/include" \
		-I"$LINUX/tools/include/uapi" -c "$SELF/progs/$p.c" -o "$MINI/obj/$p.bpf.o"
	"$BPFTOOL" gen object "$MINI/obj/$p.linked.o" "$MINI/obj/$p.bpf.o"
	"$BPFTOOL" gen skeleton "$MINI/obj/$p.linked.o" name "$p" > "$MINI/$p.skel.h"
done

rm -f "$MINI"/prog_tests/*.c
for t in "${tests[@]}"; do
	cp -p "$SELF/prog_tests/$t.c" "$MINI/prog_tests/"
done
{
	echo '/* Generated header, do not edit */'
	sed -n -E 's/^void (serial_)?test_([a-zA-Z0-9_]+)\((void)?\).*/DEFINE_TEST(\2)/p' \
		"$MINI"/prog_tests/*.c | sort
} > "$MINI/prog_tests/tests.h.new"
if cmp -s "$MINI/prog_tests/tests.h.new" "$MINI/prog_tests/tests.h"; then
	rm "$MINI/prog_tests/tests.h.new"
else
	mv "$MINI/prog_tests/tests.h.new" "$MINI/prog_tests/tests.h"
fi
sed -n -E 's/^DEFINE_TEST\((.*)\)$/\1/p' "$MINI/prog_tests/tests.h" > "$MINI/.test-names"

# 7.3's test_progs.c holds the certificate of the keys it loads for
# signed light skeletons: made as the selftests' Makefile makes it.
if [ ! -f "$MINI/verification_cert.h" ]; then
	"$SELF/verify_sig_setup.sh" genkey "$MINI/obj" > /dev/null
	der=$MINI/obj/signing_key.der
	{
		echo "unsigned char test_progs_verification_cert[] = {"
		od -v -t xC -w12 "$der" | sed 's/ \(\S\+\)/ 0x\1,/g;s/^\S\+/ /;$d'
		echo "};"
		echo "unsigned int test_progs_verification_cert_len = $(wc -c < "$der");"
	} > "$MINI/verification_cert.h.new"
	mv "$MINI/verification_cert.h.new" "$MINI/verification_cert.h"
fi

CFLAGS=(-g -O2 -Wall -I"$SELF" -I"$MINI" -I"$MINI/libbpf/include"
	-I"$LINUX/tools/include" -I"$LINUX/tools/include/uapi" -I"$LINUX/tools/lib")
objs=()
# The series' tests build without a warning on 32 bits; upstream's
# helpers cast pointers to __u64 (trace_helpers.c) and are taken as
# they are.
for t in "${tests[@]}"; do
	"$CC" "${CFLAGS[@]}" -Werror -c -o "$MINI/obj/$t.o" "$MINI/prog_tests/$t.c"
	objs+=("$MINI/obj/$t.o")
done
# test_loader and what it needs, for the __failure/__msg verifier tests.
for h in test_progs cgroup_helpers trace_helpers network_helpers testing_helpers \
	 cap_helpers json_writer test_loader unpriv_helpers jit_disasm_helpers \
	 disasm disasm_helpers; do
	"$CC" "${CFLAGS[@]}" -c -o "$MINI/obj/$h.o" "$SELF/$h.c" 2> "$MINI/obj/$h.warn" ||
		{ cat "$MINI/obj/$h.warn" >&2; die "$h.c does not build"; }
	objs+=("$MINI/obj/$h.o")
done
"$CC" -static -o "$MINI/test_progs" "${objs[@]}" "$MINI/libbpf/libbpf.a" \
	-lelf -lz -lzstd -lpthread -lrt
echo "build-runner-i386: $MINI/test_progs (${tests[*]})"
