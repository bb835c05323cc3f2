#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build bpf-mini's test_progs (and bench): docs/harness.md (step 3, and "The
# base" for pahole). bpf-mini sits at the upstream selftests dir's depth, so
# its relative paths work.
#   scripts/build-selftests.sh [test_progs] [bench]   (default: both)
#   EXCLUDE_TESTS="a b"   leave these prog_tests of this repo out (make check:
#                         the tests series/manifest keeps out of the series)
#   TEST_ARCH=arm64|s390x cross-build for that architecture's debug kernel
#                         (build/kbuild-debug-<arch>) into bpf-mini-<arch>,
#                         with the libraries of build/sysroot-<arch> (and,
#                         as upstream's Makefile does when cross-building,
#                         bpftool for the target: tools/sbin/bpftool; the
#                         host's bpftool makes the skeletons, big-endian
#                         ones for s390x too)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
# shellcheck disable=SC2153	# BUILD is base-lib.sh's
LINUX=$BUILD/linux
SELF=$LINUX/tools/testing/selftests/bpf
TEST_ARCH=${TEST_ARCH:-}
CROSS=()
if [ -n "$TEST_ARCH" ]; then
	MINI=$LINUX/tools/testing/selftests/bpf-mini-$TEST_ARCH
	VMLINUX_BTF=${VMLINUX_BTF:-$BUILD/kbuild-debug-$TEST_ARCH/vmlinux}
	case $TEST_ARCH in
	arm64)	triplet=aarch64-linux-gnu; karch=arm64 ;;
	s390x)	triplet=s390x-linux-gnu; karch=s390 ;;
	*)	echo "build-selftests: unknown TEST_ARCH '$TEST_ARCH'" >&2; exit 2 ;;
	esac
	# Its gcc finds the target's libelf, zlib and zstd; SAN_* tell clang,
	# which links urandom_read and its library.
	SR=$("$ROOT/scripts/cross-sysroot.sh" "$TEST_ARCH" | tail -1)
	libs="$SR/usr/lib/$triplet:$SR/lib/$triplet"
	CROSS=(ARCH="$karch" CROSS_COMPILE="$SR/toolchain/$triplet-"
		SAN_CFLAGS="-I$SR/usr/include"
		SAN_LDFLAGS="-L$SR/usr/lib/$triplet -L$SR/lib/$triplet -Wl,-rpath-link,$libs")
else
	MINI=$LINUX/tools/testing/selftests/bpf-mini
	VMLINUX_BTF=${VMLINUX_BTF:-$BUILD/kbuild-debug/vmlinux}
fi
JOBS=${JOBS:-$(nproc)}
MIRROR=${MIRROR:-all}
[ "${PATCHES:-all}" = none ] && MIRROR=none
TARGETS=${*:-test_progs bench}

[ -d "$SELF" ] || die "no $SELF: run scripts/prepare-tree.sh"
[ -f "$VMLINUX_BTF" ] || die "no $VMLINUX_BTF: run scripts/build-kernel.sh debug"

# 1. Which test files: "tests" are run, "helpers" only linked in.
tests=()
helpers=()
if [ "$MIRROR" != none ]; then
	for f in "$ROOT"/tools/testing/selftests/bpf/prog_tests/*.c; do
		[ -f "$f" ] || continue
		case " ${EXCLUDE_TESTS:-} " in
		*" $(basename "$f" .c) "*) continue ;;
		esac
		tests+=("$(basename "$f" .c)")
	done
fi
# Tests of the tools in tools-extra/ (not mirror files: they stay out of the
# series), copied into bpf-mini next to the others.
EXTRA=$ROOT/tools-extra/ipcookie/prog_tests
extras=()
if [ "$MIRROR" != none ]; then
	for f in "$EXTRA"/*.c; do
		[ -f "$f" ] || continue
		case " ${EXCLUDE_TESTS:-} " in
		*" $(basename "$f" .c) "*) continue ;;
		esac
		extras+=("$(basename "$f" .c)")
	done
fi
while read -r t h; do
	case $t in ""|"#"*) continue ;; esac
	tests+=("$t")
	for x in ${h%%#*}; do helpers+=("$x"); done
done < "$ROOT/scripts/tests.list"
for t in "${tests[@]}" "${helpers[@]}"; do
	[ -f "$SELF/prog_tests/$t.c" ] ||
		die "test $t: no prog_tests/$t.c in $SELF (run scripts/prepare-tree.sh?)"
done

# 2. Which progs: what the chosen sources reference, and what the upstream
# Makefile always builds (light skeletons, linked skeletons, btf_data).
flat=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$SELF/Makefile")
mkvar() { echo "$flat" | sed -n "s/^$1[[:space:]]*[:+]*=[[:space:]]*//p"; }
linked=$(mkvar LINKED_SKELS)
progs=(btf_data)
for w in $(mkvar LSKELS) $(mkvar LSKELS_EXTRA) $(mkvar LSKELS_SIGNED); do
	progs+=("${w%.c}")
done
for s in $linked; do
	for o in $(mkvar "$s-deps"); do progs+=("${o%.bpf.o}"); done
done

# The bench progs are always in: one stable set, whichever runner is built
# (make test and make bench share this directory).
sources=("$SELF/bench.c" "$SELF"/benchs/*.c)
for t in "${tests[@]}" "${helpers[@]}"; do sources+=("$SELF/prog_tests/$t.c"); done
for t in "${extras[@]}"; do sources+=("$EXTRA/$t.c"); done
# and the headers of the selftests directory they include, which may name
# skeletons too (ip_cookie_helpers.h does: a prefix of the series whose
# tests include only the header needs its prog all the same).
while read -r h; do
	[ ! -f "$SELF/$h" ] || sources+=("$SELF/$h")
done < <(sed -n -E 's/^#include "([A-Za-z0-9_]+\.h)".*/\1/p' "${sources[@]}" | sort -u)
refs() {	# names of progs referenced by the given files
	sed -n -E -e 's/.*#include "([A-Za-z0-9_]+)\.(skel|lskel|subskel)\.h".*/\1/p' \
		-e 's/.*"([A-Za-z0-9_]+)\.bpf\.o".*/\1/p' \
		-e 's/.*#include "([A-Za-z0-9_]+)\.c".*/\1/p' "$@" | sort -u
}
todo=$(refs "${sources[@]}")
while [ -n "$todo" ]; do
	next=""
	for p in $todo; do
		case " ${progs[*]} " in *" $p "*) continue ;; esac
		if [ -f "$SELF/progs/$p.c" ]; then
			progs+=("$p")
			next="$next $(refs "$SELF/progs/$p.c")"
		fi
		for o in $(echo " $linked " | grep -q " $p.skel.h " && mkvar "$p.skel.h-deps"); do
			next="$next ${o%.bpf.o}"
		done
	done
	todo=$next
done

# One build in bpf-mini at a time.
mkdir -p "$MINI"
take_lock "$MINI.lock" "another build in $MINI"

# 3. The pruned tree: everything but prog_tests/*.c and progs/*.c, then the
# chosen ones (rsync -a keeps mtimes, so make rebuilds only what changed).
mkdir -p "$MINI/prog_tests" "$MINI/progs"
rsync -a --exclude='/prog_tests/*.c' --exclude='/progs/*.c' "$SELF/" "$MINI/"
printf '%s\n' "${tests[@]}" "${helpers[@]}" "${extras[@]}" | sort -u > "$MINI/.want-tests"
printf '%s\n' "${progs[@]}" | sort -u > "$MINI/.want-progs"
for f in "$MINI"/prog_tests/*.c; do
	[ -f "$f" ] && ! grep -qx "$(basename "$f" .c)" "$MINI/.want-tests" && rm -f "$f"
done
for f in "$MINI"/progs/*.c; do
	[ -f "$f" ] && ! grep -qx "$(basename "$f" .c)" "$MINI/.want-progs" && rm -f "$f"
done
printf '%s.c\n' "${tests[@]}" "${helpers[@]}" | sort -u |
	rsync -a --files-from=- "$SELF/prog_tests/" "$MINI/prog_tests/"
for t in "${extras[@]}"; do rsync -a "$EXTRA/$t.c" "$MINI/prog_tests/"; done
sed 's|$|.c|' "$MINI/.want-progs" | rsync -a --files-from=- "$SELF/progs/" "$MINI/progs/"
# tests.h only depends on prog_tests/*.c mtimes: drop it when the set changed.
if ! cmp -s "$MINI/.want-tests" "$MINI/.built-tests"; then
	rm -f "$MINI/prog_tests/tests.h"
fi

# The BPF objects' rules do not depend on the headers next to prog_tests
# (ip_cookie_common.h, included as "../ip_cookie_common.h"): drop the
# objects and skeletons older than any of this repo's such headers.
for h in "$ROOT"/tools/testing/selftests/bpf/*.h; do
	[ -f "$h" ] || continue
	h=$SELF/$(basename "$h")
	[ -f "$h" ] || continue		# a prefix of the series without it
	find "$MINI" -maxdepth 2 \( -name '*.bpf.o' -o -name '*.skel.h' -o \
		-name '*.lskel.h' -o -name '*.subskel.h' \) ! -newer "$h" -delete
done

# Names (as test_progs knows them) of the tests to run, for test_progs -t.
for t in "${tests[@]}" "${extras[@]}"; do
	sed -n -E 's/^void (serial_)?test_([a-zA-Z0-9_]+)\((void)?\).*/\2/p' \
		"$MINI/prog_tests/$t.c"
done | sort -u > "$MINI/.test-names"

echo "build-selftests: $((${#tests[@]} + ${#extras[@]})) test files (+${#helpers[@]} linked in), $(wc -l < "$MINI/.want-progs") progs, targets: $TARGETS"

# 4. Build with the upstream Makefile. OUTPUT must be explicit (lib.mk only
# defaults it at MAKELEVEL 0). test_progs gets bpf_testmod.ko, built against
# the kernel whose vmlinux gives the BTF (KBUILD_OUTPUT), and the helper
# binaries; the other extra files of the full runner are not needed.
KBUILD=$(dirname "$(realpath "$VMLINUX_BTF")")
export KBUILD_OUTPUT=$KBUILD
extra="$MINI/urandom_read $MINI/liburandom_read.so $MINI/uprobe_multi"
goals=()
for t in $TARGETS; do goals+=("$MINI/$t"); done
if [ -f "$KBUILD/Module.symvers" ] && case " $TARGETS " in *" test_progs "*) true ;; *) false ;; esac; then
	# bpf_test_modorder_x.ko and _y.ko: more modules for
	# ip_cookie_module, and ip_cookie_testmod.ko, whose init text holds a
	# key (once the tree has it: make check builds the series' earlier
	# prefixes too; 7.3 builds it with the other test_kmods/).
	extra="$extra $MINI/bpf_testmod.ko $MINI/bpf_test_modorder_x.ko $MINI/bpf_test_modorder_y.ko"
	[ ! -f "$SELF/test_kmods/ip_cookie_testmod.c" ] ||
		extra="$extra $MINI/ip_cookie_testmod.ko"
	# Built for another kernel: force a rebuild.
	if [ "$(cat "$MINI/bpf_testmod.kdir" 2>/dev/null)" != "$KBUILD" ]; then
		rm -f "$MINI"/*.ko "$MINI"/test_kmods/*.ko \
			"$MINI/bpf_testmod.kdir"
	fi
fi
# vmlinux.h is remade only when it is older than VMLINUX_BTF: after a
# build for another kernel (make test-kcsan), drop it.
if [ "$(cat "$MINI/.vmlinux-btf" 2>/dev/null)" != "$(realpath "$VMLINUX_BTF")" ]; then
	rm -f "$MINI/tools/include/vmlinux.h"
	realpath "$VMLINUX_BTF" > "$MINI/.vmlinux-btf"
fi
mk=(make -C "$MINI" -j"$JOBS" OUTPUT="$MINI" CLANG="clang-$LLVM_VER" LLC="llc-$LLVM_VER"
	LLVM_STRIP="llvm-strip-$LLVM_VER" VMLINUX_BTF="$VMLINUX_BTF"
	TRUNNER_EXTRA_FILES="$extra" "${CROSS[@]}")
"${mk[@]}" "${goals[@]}"
[ -f "$MINI/bpf_testmod.ko" ] && echo "$KBUILD" > "$MINI/bpf_testmod.kdir"
cp "$MINI/.want-tests" "$MINI/.built-tests"
echo "build-selftests: done: ${goals[*]}"
