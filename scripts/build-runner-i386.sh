#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The 32-bit test_progs of make test ARCH=i386, into bpf-mini-i386: the
# series' tests that load no BPF object of their own (the syscall API of
# the map, checked against a model, and where it meets BTF, bpffs and
# the batch code), with upstream's test_progs.c and helpers, linked
# statically against a 32-bit libbpf, libelf, zlib and zstd
# (build/sysroot-i386, Debian's i386 packages; Debian's i686-linux-gnu
# cross gcc).
# The other tests are left out: their BPF objects are built against a
# vmlinux.h, and for __TARGET_ARCH_x86 bpf_tracing.h reads x86-64's
# registers; a 64-bit BPF target also sizes the 32-bit kernel's pointers
# as 8 bytes (docs/results/arches.md).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
LINUX=$BUILD/linux
SELF=$LINUX/tools/testing/selftests/bpf
MINI=$LINUX/tools/testing/selftests/bpf-mini-i386
JOBS=${JOBS:-$(nproc)}

die() { echo "build-runner-i386: $*" >&2; exit 1; }
[ -d "$SELF" ] || die "no $SELF: run scripts/prepare-tree.sh"
SR=$("$ROOT/scripts/cross-sysroot.sh" i386 | tail -1)
CC=$SR/toolchain/i686-linux-gnu-gcc

# The tests: every prog_tests file of the series that includes no
# skeleton (directly or through ip_cookie_helpers.h).
tests=()
for f in "$ROOT"/tools/testing/selftests/bpf/prog_tests/*.c; do
	grep -qE '#include "[a-z0-9_]+\.(skel|lskel)\.h"|ip_cookie_helpers\.h' "$f" ||
		tests+=("$(basename "$f" .c)")
done
[ ${#tests[@]} -gt 0 ] || die "no test without a skeleton"

mkdir -p "$MINI/prog_tests" "$MINI/libbpf" "$MINI/obj"
exec 9> "$MINI.lock"
flock -n 9 || { echo "build-runner-i386: waiting for another build in $MINI"; flock 9; }

make -s -C "$LINUX/tools/lib/bpf" -j"$JOBS" CROSS_COMPILE="$SR/toolchain/i686-linux-gnu-" \
	OUTPUT="$MINI/libbpf/" DESTDIR="$MINI/libbpf" prefix= \
	EXTRA_CFLAGS="-g -O2" "$MINI/libbpf/libbpf.a" install_headers

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
for h in test_progs cgroup_helpers trace_helpers network_helpers testing_helpers json_writer; do
	"$CC" "${CFLAGS[@]}" -c -o "$MINI/obj/$h.o" "$SELF/$h.c" 2> "$MINI/obj/$h.warn" ||
		{ cat "$MINI/obj/$h.warn" >&2; die "$h.c does not build"; }
	objs+=("$MINI/obj/$h.o")
done
"$CC" -static -o "$MINI/test_progs" "${objs[@]}" "$MINI/libbpf/libbpf.a" \
	-lelf -lz -lzstd -lpthread -lrt
echo "build-runner-i386: $MINI/test_progs (${tests[*]})"
