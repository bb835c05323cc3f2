# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the harness scripts once ROOT is set: the upstream kernel
# they build on, Debian's linux-source-7.3, and what follows from it
# (docs/harness.md, "The base").
# Sets (exporting only PATH: each script derives the rest):
#   BUILD      unless set: build/
#   BASE_HOME  build/ whatever BUILD says (variant kernels and make
#              test-full move BUILD): it keeps the fetched source (dl/),
#              pahole (bin/) and the trixie apt directory
#   TARBALL    unless set: build/dl/linux-source-7.3.tar.xz, fetched by
#              scripts/fetch-base.sh
#   LLVM_VER   the clang, llc and llvm-strip of BPF objects: 22
#   PATH       BASE_HOME/bin first (its pahole is 1.30; 7.3's BTF needs
#              1.26 or later, Debian 12 has 1.24)

# shellcheck disable=SC2034	# LLVM_VER, TARBALL, BASE_HOME: for the sourcing script
BASE_HOME=$ROOT/build
TARBALL=${TARBALL:-$BASE_HOME/dl/linux-source-7.3.tar.xz}
LLVM_VER=22
case :$PATH: in
*":$BASE_HOME/bin:"*) ;;
*) PATH=$BASE_HOME/bin:$PATH ;;
esac
BUILD=${BUILD:-$BASE_HOME}
export PATH

# ME: the prefix of die's and take_lock's messages; the script's name
# unless it sets another after sourcing this file.
ME=$(basename "$0" .sh)
die() { echo "$ME: $*" >&2; exit 1; }
# take_lock FILE WHAT: hold FILE's lock (fd 9) until the script exits,
# saying "ME: waiting for WHAT" first while someone else holds it.
take_lock() {
	exec 9> "$1"
	flock -n 9 || { echo "$ME: waiting for $2"; flock 9; }
}

# src_stamp: what a build/src extracted from TARBALL records in .extracted.
# src_extracted DIR: DIR holds TARBALL, extracted (a tree of another
# tarball is extracted anew).
src_stamp() { echo "$(basename "$TARBALL") $(stat -c '%s %Y' "$TARBALL")"; }
src_extracted() {
	[ -f "$TARBALL" ] && [ "$(cat "$1/.extracted" 2>/dev/null)" = "$(src_stamp)" ]
}

# A patch of the series may change a mirror file that an earlier patch
# adds (patch `inline` adds the inlined lookups to kernel/bpf/ip_cookie.c).
# The repository holds such a file in its final form.
# patch_sections in|out MIRRORLIST PATCH: the "diff --git" sections of
# PATCH that change a file listed in MIRRORLIST (in), or the rest (out,
# with the header above the first section).
patch_sections() {
	awk -v want="$1" 'NR == FNR { m[$0] = 1; next }
		/^diff --git a\// { f = $3; sub(/^a\//, "", f); in_m = (f in m) }
		(want == "in") == (in_m == 1)' "$2" "$3"
}
# mirror_prestate TREE MIRRORLIST PATCH...: TREE holds the final mirror
# files; undo, last patch first, what PATCH... change in them, leaving each
# as the patch that adds it has it. Fails, naming the patch, when a
# section no longer matches the final file.
mirror_prestate() {
	local tree=$1 list=$2 i p out
	shift 2
	for ((i = $#; i > 0; i--)); do
		p=${!i}
		patch_sections in "$list" "$p" > "$tree/.sections"
		[ -s "$tree/.sections" ] || continue
		if ! out=$(cd "$tree" && patch -p1 -R --batch --fuzz=0 \
				--no-backup-if-mismatch -r - < .sections 2>&1); then
			echo "$(basename "$p") no longer matches the mirror files it changes; regenerate its sections of them:" >&2
			echo "$out" | grep -E 'patching file|FAILED|malformed|can.t find|No file' >&2 || echo "$out" >&2
			rm -f "$tree/.sections"
			return 1
		fi
	done
	rm -f "$tree/.sections"
}

# mirror_files: the repository's kernel mirror files (new files kept at
# their place in the kernel tree), one path per line, relative to ROOT,
# sorted; the one definition for prepare-tree.sh, checkpatch.sh and
# series.sh. Top-level kernel directories only (scripts/ is the harness);
# editor, patch and checkpatch leftovers are not mirror files.
mirror_files() (
	cd "$ROOT" || exit
	for d in arch block crypto Documentation drivers fs include init ipc kernel \
		lib mm net samples security sound tools usr virt; do
		[ -d "$d" ] || continue
		find "$d" -type f ! -name '*~' ! -name '.*.swp' ! -name '*.orig' ! -name '*.rej' \
			! -name '.checkpatch-camelcase.*'
	done | LC_ALL=C sort
)

# vm_accel: the accelerator the VM runs on: $VM_ACCEL if set, else kvm when
# /dev/kvm is usable and the CPU has vmx/svm, else tcg (pure emulation).
vm_accel() {
	if [ -n "${VM_ACCEL:-}" ]; then
		echo "$VM_ACCEL"
	elif [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
		echo kvm
	else
		echo tcg
	fi
}

# build_variant DIR FLAVOR: a kernel built only for comparison
# (docs/harness.md, step 2), in DIR/linux and DIR/kbuild-FLAVOR, with
# PATCHES or EXTRA_PATCHES from the environment. The series' own tree comes
# first if the source is not extracted yet, without those.
build_variant() {
	local dir src=$BUILD/src cache=${CCACHE_DIR:-$BUILD/ccache}
	[ $# = 2 ] || { echo "usage: build_variant DIR FLAVOR" >&2; exit 2; }
	mkdir -p "$1"
	dir=$(cd "$1" && pwd)
	src_extracted "$src" ||
		env -u PATCHES -u EXTRA_PATCHES "$ROOT/scripts/prepare-tree.sh"
	BUILD=$dir KDIR=$src "$ROOT/scripts/prepare-tree.sh"
	BUILD=$dir CCACHE_DIR=$cache "$ROOT/scripts/build-kernel.sh" "$2"
}
