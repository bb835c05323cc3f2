#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-variant.sh DIR FLAVOR: a kernel built only for comparison, in a
# tree of its own (DIR/linux, DIR/kbuild-FLAVOR), from build/'s pristine
# source and with build/'s ccache. What differs from the series is what
# prepare-tree.sh reads from the environment: PATCHES (a subset of
# series/manifest) or EXTRA_PATCHES (a patch of patches/variants/).
# make bench (the O(1) kprobe.multi cookie), make bench-gen-lookup and
# make bench-kfunc-cost build their second kernel with it.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
[ $# = 2 ] || { echo "usage: build-variant.sh DIR FLAVOR" >&2; exit 2; }
mkdir -p "$1"
dir=$(cd "$1" && pwd)

src=$BUILD/src
cache=${CCACHE_DIR:-$BUILD/ccache}

# The series' own tree first if the source is not extracted yet: without
# the variant's PATCHES or EXTRA_PATCHES, which are for DIR only.
src_extracted "$src" ||
	env -u PATCHES -u EXTRA_PATCHES "$ROOT/scripts/prepare-tree.sh"
BUILD=$dir KDIR=$src "$ROOT/scripts/prepare-tree.sh"
BUILD=$dir CCACHE_DIR=$cache "$ROOT/scripts/build-kernel.sh" "$2"
