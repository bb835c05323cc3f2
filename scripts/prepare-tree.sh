#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make tree: build/linux = pristine 7.3 (build/src, or KDIR=) + patches/ in
# series/manifest order + mirror files + EXTRA_PATCHES. How it syncs:
# docs/harness.md (step 1); PATCHES=, MIRROR=, EXTRA_PATCHES=, KDIR=: make help.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
PATCHES=${PATCHES:-all}
MIRROR=${MIRROR:-all}

LINUX=$BUILD/linux
STATE=$BUILD/sync-state.list
PDIR=$ROOT/patches


mkdir -p "$BUILD"
# One sync at a time (several users may share build/).
take_lock "$BUILD/.lock-tree" "another sync"

# 1. The pristine source.
if [ -n "${KDIR:-}" ]; then
	SRC=$(cd "$KDIR" && pwd)
	if [ ! -f "$SRC/Makefile" ] || [ ! -d "$SRC/kernel/bpf" ]; then
		die "KDIR=$KDIR does not look like a kernel tree"
	fi
else
	SRC=$BUILD/src
	[ -f "$TARBALL" ] || "$ROOT/scripts/fetch-base.sh"
	if ! src_extracted "$SRC"; then
		[ -f "$TARBALL" ] || die "missing $TARBALL (run scripts/fetch-base.sh)"
		echo "prepare-tree: extracting $TARBALL into $SRC"
		rm -rf "$SRC"
		mkdir -p "$SRC"
		tar -xJf "$TARBALL" -C "$SRC" --strip-components=1
		src_stamp > "$SRC/.extracted"
	fi
fi

# 2. The full working copy; redone when the pristine source changes.
if [ ! -f "$LINUX/.harness-src" ] || [ "$(cat "$LINUX/.harness-src")" != "$SRC" ]; then
	echo "prepare-tree: copying $SRC to $LINUX"
	rm -rf "$LINUX" "$STATE"
	mkdir -p "$LINUX"
	rsync -a --exclude=/.git --exclude=/.extracted "$SRC/" "$LINUX/"
	echo "$SRC" > "$LINUX/.harness-src"
fi

# 3. What this sync touches: files named by the patches, and mirror files.
patch_list=()
if [ "$PATCHES" != none ]; then
	# "<id> patches/<name>.patch" lines of the manifest, in its order.
	manifest=$(sed 's/#.*//' "$ROOT/series/manifest" |
		awk 'NF == 2 && $2 ~ /^patches\/[^\/]*\.patch$/ { print $1, $2 }')
	for p in "$PDIR"/*.patch; do
		[ -f "$p" ] || continue
		grep -q " patches/${p##*/}\$" <<< "$manifest" ||
			die "${p#"$ROOT"/} is not in series/manifest (which gives the order)"
	done
	want=" $PATCHES "
	excl=0
	case $want in *" -"*) excl=1 ;; esac
	for w in $PATCHES; do
		[ "$w" = all ] && continue
		[ $excl = 1 ] && [ "${w#-}" = "$w" ] &&
			die "PATCHES: either ids to apply or -ids to leave out, not both"
		grep -q "^${w#-} " <<< "$manifest" ||
			die "PATCHES: no patch file of id '${w#-}' in series/manifest (ids: $(cut -d' ' -f1 <<< "$manifest" | uniq | paste -sd' '))"
	done
	while read -r id p; do
		f=$PDIR/${p#patches/}
		[ -f "$f" ] || die "series/manifest names $p, which does not exist"
		case $PATCHES in
		all) ;;
		*)	if [ $excl = 1 ]; then
				case $want in *" -$id "*) continue ;; esac
			else
				case $want in *" $id "*) ;; *) continue ;; esac
			fi ;;
		esac
		patch_list+=("$f")
	done <<< "$manifest"
fi

extra_list=()
for p in ${EXTRA_PATCHES:-}; do
	[ -f "$p" ] || die "EXTRA_PATCHES: no file $p"
	extra_list+=("$(cd "$(dirname "$p")" && pwd)/$(basename "$p")")
done

tmp=$(mktemp -d "$BUILD/sync.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

: > "$tmp/touched"
for p in "${patch_list[@]}" "${extra_list[@]}"; do
	# "diff --git a/X b/Y": both sides count (renames, new and deleted files).
	sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' "$p" >> "$tmp/touched"
	sed -n 's|^+++ b/\([^\t]*\).*$|\1|p; s|^--- a/\([^\t]*\).*$|\1|p' "$p" >> "$tmp/touched"
done
# Mirror files: mirror_files (base-lib.sh) says which they are.
if [ "$MIRROR" != none ]; then
	mirror_files > "$tmp/mirror"
fi
touch "$tmp/mirror"
cat "$tmp/mirror" >> "$tmp/touched"
sort -u "$tmp/touched" -o "$tmp/touched"
touch "$STATE"
sort -u "$tmp/touched" "$STATE" > "$tmp/all"

# 4. Final content in a scratch tree: pristine files + patches + mirror
# files + extra patches.
mkdir -p "$tmp/tree"
while read -r f; do
	if [ -f "$SRC/$f" ]; then
		mkdir -p "$tmp/tree/$(dirname "$f")"
		cp -p "$SRC/$f" "$tmp/tree/$f"
	fi
done < "$tmp/touched"

# A patch's sections of mirror files are in their final form already: the
# series' patches apply without them (base-lib.sh, patch_sections).
mirror_files > "$tmp/mirror-all"
apply() {	# apply PATCH [SECTIONS]
	local out
	if ! out=$(cd "$tmp/tree" && patch -p1 -N --batch --fuzz=0 \
			--no-backup-if-mismatch -r - < "${2:-$1}" 2>&1); then
		echo "prepare-tree: patch $(basename "$1") does not apply:" >&2
		# patch prints "patching file F" followed by "Hunk #N FAILED at L".
		echo "$out" | grep -E 'patching file|FAILED|malformed|Reversed|can.t find|No file' >&2 || echo "$out" >&2
		exit 1
	fi
	echo "prepare-tree: applied $(basename "$1")"
}
for p in "${patch_list[@]}"; do
	patch_sections out "$tmp/mirror-all" "$p" > "$tmp/sections"
	# A patch of mirror files alone (purge) has nothing left to apply.
	if grep -q '^diff --git ' "$tmp/sections"; then
		apply "$p" "$tmp/sections"
	else
		echo "prepare-tree: $(basename "$p"): mirror files only, held in their final form"
	fi
done

while read -r f; do
	mkdir -p "$tmp/tree/$(dirname "$f")"
	cp "$ROOT/$f" "$tmp/tree/$f"
done < "$tmp/mirror"
# The sections left out must still undo cleanly from the final files, as
# make patches undoes them.
if [ -s "$tmp/mirror" ]; then
	mkdir -p "$tmp/rev"
	(cd "$ROOT" && xargs -a "$tmp/mirror" cp --parents -t "$tmp/rev")
	mirror_prestate "$tmp/rev" "$tmp/mirror" "${patch_list[@]}" ||
		die "a patch's sections of mirror files do not match them (above)"
fi
# The variant kernels of make bench apply on top of the whole series.
if [ "$PATCHES" = all ] && [ "$MIRROR" != none ]; then
	for p in "$PDIR"/variants/*.patch; do
		[ -f "$p" ] || continue
		sed -n 's|^+++ b/\([^\t]*\).*$|\1|p' "$p" | while read -r f; do
			if [ ! -f "$tmp/tree/$f" ] && [ -f "$SRC/$f" ]; then
				mkdir -p "$tmp/tree/$(dirname "$f")"
				cp -p "$SRC/$f" "$tmp/tree/$f"
			fi
		done
		(cd "$tmp/tree" && patch -p1 --dry-run --batch --fuzz=0 -s < "$p" > /dev/null 2>&1) ||
			die "patches/variants/$(basename "$p") no longer applies at --fuzz=0 on top of the series: regenerate it"
	done
fi
for p in "${extra_list[@]}"; do
	apply "$p"
done

# 5. Copy into build/linux only what differs.
changed=0
while read -r f; do
	if [ -f "$tmp/tree/$f" ]; then
		want=$tmp/tree/$f
	elif [ -f "$SRC/$f" ]; then
		want=$SRC/$f
	else
		want=""
	fi
	if [ -z "$want" ]; then
		if [ -e "$LINUX/$f" ]; then
			rm -f "$LINUX/$f"
			echo "prepare-tree: removed $f"
			changed=$((changed + 1))
		fi
	elif ! cmp -s "$want" "$LINUX/$f"; then
		mkdir -p "$LINUX/$(dirname "$f")"
		rm -f "$LINUX/$f"
		cp "$want" "$LINUX/$f"	# fresh mtime: make must see the change
		[ -x "$want" ] && chmod +x "$LINUX/$f"
		echo "prepare-tree: updated $f"
		changed=$((changed + 1))
	fi
done < "$tmp/all"

cp "$tmp/touched" "$STATE"
echo "prepare-tree: $LINUX ready (${#patch_list[@]} patches, $(wc -l < "$tmp/mirror") mirror files, ${#extra_list[@]} extra patches, $changed files changed)"
