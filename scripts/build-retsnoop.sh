#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make retsnoop: the source, its checks, the build, the addr2line stub,
# RETSNOOP_SRC= and RETSNOOP_PATCHES=none: make help and contrib/retsnoop/
# README.md (Base, Build and test, Out of scope). retsnoop and simfail are
# built in build/retsnoop/src/src; build/tools by scripts/build-tools.sh
# when missing.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
PATCHES=${RETSNOOP_PATCHES:-$ROOT/contrib/retsnoop/*.patch}
OUT=$BUILD/retsnoop
SRC=$OUT/src
COMMIT=a777df07e1b33aba6bae1f2b101f59b584a82f98
TARNAME=retsnoop-${COMMIT:0:7}.tar.gz
SHA256=6ef5432f43a5b4f727915861b6273b5ff56f8e4d8a579698fd6da4858b03c7a2
TOOLS=$BUILD/tools
LINUX=$BUILD/linux

"$ROOT/scripts/install-deps.sh" git

# The tarball: RETSNOOP_SRC, else ../shared/retsnoop/.
src=${RETSNOOP_SRC:-$ROOT/../shared/retsnoop}
[ -d "$src" ] && src=$src/$TARNAME
[ -f "$src" ] || { echo "build-retsnoop: no $src (set RETSNOOP_SRC=)" >&2; exit 1; }
got=$(sha256sum < "$src" | cut -d' ' -f1)
[ "$got" = "$SHA256" ] ||
	{ echo "build-retsnoop: $src has sha256 $got, want $SHA256" >&2; exit 1; }

if [ ! -f "$TOOLS/libbpf/libbpf.a" ] || [ ! -x "$TOOLS/bpftool/bootstrap/bpftool" ]; then
	"$ROOT/scripts/build-tools.sh"
fi

mkdir -p "$OUT"
take_lock "$OUT/.lock" "another build"

# 1. A git tree: the tarball, then the patches with git am. Redone when
# the patches change, so src/ is always exactly a777df0 + contrib/retsnoop.
# shellcheck disable=SC2046,SC2086
want=$(cat /dev/null $([ "$PATCHES" = none ] || echo $PATCHES) | sha256sum | cut -d' ' -f1)
if [ "$(cat "$OUT/.patches" 2>/dev/null)" != "$want" ]; then
	rm -rf "$SRC" "$SRC.new"
	mkdir -p "$SRC.new"
	tar -xzf "$src" -C "$SRC.new" --strip-components=1
	git -C "$SRC.new" init -q
	git -C "$SRC.new" add -A
	git -C "$SRC.new" -c user.name=build-retsnoop -c user.email=build@localhost \
		commit -q -m "retsnoop ${COMMIT:0:7} (tarball of $COMMIT)"
	git -C "$SRC.new" tag "${COMMIT:0:7}"
	if [ "$PATCHES" != none ]; then
		# Absolute paths: git am runs in the tree.
		# shellcheck disable=SC2086
		mapfile -t abs < <(realpath -e $PATCHES)
		git -C "$SRC.new" -c user.name=build-retsnoop -c user.email=build@localhost \
			am -q --committer-date-is-author-date "${abs[@]}"
	fi
	mv "$SRC.new" "$SRC"
	echo "$want" > "$OUT/.patches"
	echo "build-retsnoop: $(git -C "$SRC" rev-list --count "${COMMIT:0:7}..HEAD") patches on ${COMMIT:0:7}"
fi

# 2. The sidecar stub: an ELF executable (retsnoop's Makefile strips it).
mkdir -p "$OUT/stub"
if [ ! -x "$OUT/stub/addr2line" ]; then
	printf '%s\n' '#include <stdio.h>' 'int main(void)' '{' \
		'	fputs("retsnoop: built without the addr2line sidecar (use -sn)\n", stderr);' \
		'	return 1;' '}' > "$OUT/stub/addr2line.c"
	gcc -O2 -o "$OUT/stub/addr2line" "$OUT/stub/addr2line.c"
fi

# 3. The tree's libbpf.a is one object (libbpf-in.o) whose hashmap
# functions clash with retsnoop's copy of them (src/hashmap.c; libbpf's
# GitHub build archives one object per file, from which the linker takes
# no hashmap.o): a copy with libbpf's own made local.
nm -g --defined-only "$TOOLS/libbpf/libbpf.a" 2>/dev/null |
	awk '$3 ~ /^hashmap_/ { print $3 }' | sort -u > "$OUT/libbpf-local.syms"
objcopy --localize-symbols="$OUT/libbpf-local.syms" "$TOOLS/libbpf/libbpf.a" "$OUT/libbpf.a"
# The original's time: retsnoop's Makefile rebuilds bpftool from its
# submodule (absent here) when LIBBPF_OBJ is newer than BPFTOOL, which a
# libbpf rebuild leaves the unchanged bootstrap bpftool.
touch -r "$TOOLS/libbpf/libbpf.a" "$OUT/libbpf.a"
[ "$TOOLS/bpftool/bootstrap/bpftool" -nt "$OUT/libbpf.a" ] ||
	touch "$TOOLS/bpftool/bootstrap/bpftool"

# 4. retsnoop and simfail. INCLUDES: the tree's libbpf headers and UAPI
# instead of the submodules' (retsnoop installs those into .output).
echo "build-retsnoop: building in $SRC/src"
if ! make -C "$SRC/src" -j2 CLANG="clang-$LLVM_VER" LLVM_STRIP="llvm-strip-$LLVM_VER" \
	LIBBPF_OBJ="$OUT/libbpf.a" BPFTOOL="$TOOLS/bpftool/bootstrap/bpftool" \
	SIDECAR="$OUT/stub/addr2line" \
	INCLUDES="-I.output -I$TOOLS/libbpf/usr/include -I$LINUX/tools/include/uapi" \
	retsnoop simfail > "$OUT/build.log" 2>&1; then
	tail -30 "$OUT/build.log" >&2
	echo "build-retsnoop: build failed: $OUT/build.log" >&2
	exit 1
fi
"$SRC/src/retsnoop" -V
