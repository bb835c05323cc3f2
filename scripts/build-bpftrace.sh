#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bpftrace: the source, its checks and the build: make help and
# contrib/bpftrace/README.md (Base). build/bpftrace/src is the source as a
# git tree (the patches applied on top of the tag v0.17.0), build/bpftrace/
# build cmake's build (bpftrace and bpftrace_test in {src,tests}). The build
# dependencies are Debian's Build-Depends of the package, plus the unit
# tests' gtest, gmock and xxd, and the 6.12 UAPI headers (linux-libc-dev from
# bookworm-backports: struct bpf_link_info of kprobe_multi links).
# BPFTRACE_PATCHES=none: the unpatched source (a stock build to compare).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
PATCHES=${BPFTRACE_PATCHES:-$ROOT/contrib/bpftrace/*.patch}
OUT=$BUILD/bpftrace
SRC=$OUT/src
VERSION=0.17.0
ORIG=bpftrace_$VERSION.orig.tar.gz
SHA256=ccc853205b081fd7e4270016065ccc04764286644bf8e0eee9bd7f344cad63e5
POOL=http://deb.debian.org/debian/pool/main/b/bpftrace
JOBS=${JOBS:-$(nproc)}
export CCACHE_DIR=${CCACHE_DIR:-$OUT/ccache}

"$ROOT/scripts/install-deps.sh" bison cmake flex libbpfcc-dev libbpf-dev \
	libcereal-dev libclang-14-dev clang-14 llvm-14-dev libdw-dev \
	libfl-dev libgmock-dev libgtest-dev systemtap-sdt-dev xxd \
	linux-libc-dev dpkg-dev git

# contrib/bpftrace reads a kprobe_multi link's info (struct bpf_link_info's
# kprobe_multi, UAPI 6.6 and later): Debian 12's linux-libc-dev is 6.1,
# bookworm-backports' is newer.
if ! printf '#include <linux/bpf.h>\nint x = sizeof(((struct bpf_link_info *)0)->kprobe_multi);\n' |
	gcc -fsyntax-only -x c - 2>/dev/null; then
	"$ROOT/scripts/install-deps.sh" linux-libc-dev/bookworm-backports
fi

mkdir -p "$OUT"
take_lock "$OUT/.lock" "another build"

# 1. The source, checked.
if [ ! -f "$OUT/$ORIG" ] ||
   [ "$(sha256sum < "$OUT/$ORIG" | cut -d' ' -f1)" != "$SHA256" ]; then
	echo "build-bpftrace: fetching $ORIG from Debian's archive"
	rm -f "$OUT/$ORIG"
	if ! curl -fsSL -o "$OUT/$ORIG.part" "$POOL/$ORIG"; then
		# The pool keeps one version per suite: try apt's deb-src.
		(cd "$OUT" && apt-get source --download-only "bpftrace=$VERSION-1") ||
			{ echo "build-bpftrace: cannot fetch $ORIG" >&2; exit 1; }
		mv "$OUT/$ORIG" "$OUT/$ORIG.part"
	fi
	got=$(sha256sum < "$OUT/$ORIG.part" | cut -d' ' -f1)
	[ "$got" = "$SHA256" ] ||
		{ echo "build-bpftrace: $ORIG has sha256 $got, want $SHA256" >&2; exit 1; }
	mv "$OUT/$ORIG.part" "$OUT/$ORIG"
fi

# 2. A git tree: base, then the patches with git am. Redone when the
# patches change, so src/ is always exactly base + contrib/bpftrace.
# shellcheck disable=SC2046,SC2086
want=$(cat /dev/null $([ "$PATCHES" = none ] || echo $PATCHES) | sha256sum | cut -d' ' -f1)
if [ "$(cat "$OUT/.patches" 2>/dev/null)" != "$want" ]; then
	rm -rf "$SRC" "$SRC.new"
	mkdir -p "$SRC.new"
	tar -xzf "$OUT/$ORIG" -C "$SRC.new" --strip-components=1
	git -C "$SRC.new" init -q
	git -C "$SRC.new" add -A
	git -C "$SRC.new" -c user.name=build-bpftrace -c user.email=build@localhost \
		commit -q -m "bpftrace v$VERSION (Debian source 0.17.0-1, upstream 1326f040a0f8)"
	git -C "$SRC.new" tag "v$VERSION"
	if [ "$PATCHES" != none ]; then
		# shellcheck disable=SC2086
		git -C "$SRC.new" -c user.name=build-bpftrace -c user.email=build@localhost \
			am -q --committer-date-is-author-date $PATCHES
	fi
	mv "$SRC.new" "$SRC"
	echo "$want" > "$OUT/.patches"
	echo "build-bpftrace: $(git -C "$SRC" rev-list --count "v$VERSION..HEAD") patches on v$VERSION"
fi

# 3. Configure as Debian does (system libbpf and bcc, LLVM 14), with the
# unit tests, and build. LLVM and Clang are named: the selftests' clang-22
# installs a ClangConfig that cmake would otherwise pair with LLVM 14.
if [ ! -f "$OUT/build/Makefile" ]; then
	mkdir -p "$OUT/build"
	(cd "$OUT/build" && cmake "$SRC" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DBUILD_TESTING=ON -DUSE_SYSTEM_BPF_BCC=1 \
		-DLLVM_DIR=/usr/lib/llvm-14/lib/cmake/llvm \
		-DClang_DIR=/usr/lib/llvm-14/lib/cmake/clang \
		-DCMAKE_C_COMPILER_LAUNCHER=ccache \
		-DCMAKE_CXX_COMPILER_LAUNCHER=ccache) > "$OUT/cmake.log"
fi
echo "build-bpftrace: building in $OUT/build (-j$JOBS)"
make -C "$OUT/build" -j"$JOBS" --no-print-directory > "$OUT/build.log" 2>&1 ||
	{ tail -30 "$OUT/build.log" >&2; echo "build-bpftrace: build failed: $OUT/build.log" >&2; exit 1; }
"$OUT/build/src/bpftrace" --version
