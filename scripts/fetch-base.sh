#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch the pristine linux-source-7.3 (build/dl/) and trixie's pahole 1.30
# (build/pahole/root, build/bin/pahole) through a private apt directory;
# how, and BASE_SRC_VERSION=: docs/harness.md ("The base"). Idempotent and
# offline once done.
#   APT_DIR=dir         the private apt directory (default build/apt-trixie)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"

# The version this harness was proven with (docs/harness.md).
PIN_VERSION=7.3.4-1~bpo13+1
PIN_SHA256=703e369ddd4cce971452f5a593ee55df3a5c10c83caf0fa0df039633ed181ee3
VERSION=${BASE_SRC_VERSION:-$PIN_VERSION}
PKG=linux-source-7.3
# pahole and every library it links, as trixie has them (libc6 brings the
# loader): Debian 12's glibc 2.36 cannot run it.
PAHOLE_PKGS="pahole libbpf1 libbz2-1.0 libc6 libdw1t64 libelf1t64 libgcc-s1
liblzma5 libzstd1 zlib1g"
PAHOLE_MIN=126

D=${APT_DIR:-$ROOT/build/apt-trixie}
DL=$BASE_HOME/dl
OUT=$DL/$PKG.tar.xz	# base-lib.sh's default TARBALL
PR=$BASE_HOME/pahole

mkdir -p "$BASE_HOME"
take_lock "$BASE_HOME/.lock-fetch" "another fetch"

# dl/linux-source-7.3.stamp: "VERSION SHA256" of the tarball's package.
src_ok() {
	local v s
	[ -f "$OUT" ] || return 1
	read -r v s < "$DL/$PKG.stamp" 2>/dev/null || return 1
	[ "$v" = "$VERSION" ] && { [ "$v" != "$PIN_VERSION" ] || [ "$s" = "$PIN_SHA256" ]; }
}
pahole_ok() {
	local v
	v=$("$BASE_HOME/bin/pahole" --version 2>/dev/null) || return 1
	v=${v#v}
	[ "${v%%.*}${v#*.}" -ge "$PAHOLE_MIN" ] 2>/dev/null
}
if src_ok && pahole_ok; then
	exit 0
fi

# The private apt directory: its own sources, lists and cache.
mkdir -p "$D/etc" "$D/lists/partial" "$D/cache/archives/partial"
if [ ! -f "$D/etc/sources.list" ]; then
	printf '%s\n' 'deb http://deb.debian.org/debian trixie main' \
		'deb http://deb.debian.org/debian trixie-backports main' > "$D/etc/sources.list"
fi
APT=(-o Dir::Etc::SourceList="$D/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists="$D/lists" -o Dir::Cache="$D/cache"
	-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null)
updated=0
apt_update() {
	[ $updated = 1 ] && return 0
	echo "fetch-base: apt-get update ($D)"
	apt-get "${APT[@]}" -q update >/dev/null || die "apt-get update failed ($D)"
	updated=1
}
ls "$D"/lists/*trixie-backports*Packages* >/dev/null 2>&1 || apt_update
# apt-get download PKG[=VERSION]... into the current directory (a new one:
# as root, handed to apt's download user, whom apt would warn about); once
# more after an update if the index no longer has a version.
apt_download() {
	if [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1; then
		chown _apt . || true
	fi
	apt-get "${APT[@]}" -q download "$@" && return 0
	[ $updated = 1 ] && return 1
	apt_update
	apt-get "${APT[@]}" -q download "$@"
}

# 1. The source.
if ! src_ok; then
	index_sha() { apt-cache "${APT[@]}" show "$PKG=$VERSION" 2>/dev/null | sed -n 's/^SHA256: //p' | head -1; }
	sha=$(index_sha || true)
	if [ -z "$sha" ]; then
		apt_update
		sha=$(index_sha || true)
	fi
	[ -n "$sha" ] || die "$PKG $VERSION is not in trixie-backports' index any more (it has: $(apt-cache "${APT[@]}" madison "$PKG" | awk '{ print $3 }' | paste -sd' ')); set BASE_SRC_VERSION=<one of these> or update the pin in $0"
	if [ "$VERSION" = "$PIN_VERSION" ] && [ "$sha" != "$PIN_SHA256" ]; then
		die "$PKG $VERSION: the index says sha256 $sha, the pin $PIN_SHA256"
	fi
	mkdir -p "$DL"
	tmp=$(mktemp -d "$DL/fetch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	echo "fetch-base: downloading $PKG $VERSION"
	(cd "$tmp" && apt_download "$PKG=$VERSION") || die "apt-get download $PKG=$VERSION failed"
	deb=$(echo "$tmp"/"${PKG}"_*.deb)
	[ -f "$deb" ] || die "no .deb after apt-get download $PKG=$VERSION"
	got=$(sha256sum "$deb" | cut -d' ' -f1)
	[ "$got" = "$sha" ] || die "$(basename "$deb"): sha256 $got, expected $sha"
	echo "fetch-base: $(basename "$deb"): sha256 $got, as expected"
	dpkg-deb -x "$deb" "$tmp/x"
	[ -f "$tmp/x/usr/src/$PKG.tar.xz" ] || die "$(basename "$deb") has no usr/src/$PKG.tar.xz"
	mv "$tmp/x/usr/src/$PKG.tar.xz" "$OUT.new"
	mv "$OUT.new" "$OUT"
	echo "$VERSION $sha" > "$DL/$PKG.stamp"
	rm -rf "$tmp"
	trap - EXIT
	# The tree extracted from an older tarball is stale.
	rm -f "$BASE_HOME/src/.extracted"
	echo "fetch-base: $OUT ready"
fi

# 2. pahole 1.30 under trixie's loader.
if ! pahole_ok; then
	tmp=$(mktemp -d "$BASE_HOME/pahole.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# shellcheck disable=SC2086
	echo "fetch-base: downloading" $PAHOLE_PKGS
	# shellcheck disable=SC2086
	(cd "$tmp" && apt_download $PAHOLE_PKGS) || die "apt-get download of pahole's packages failed"
	mkdir -p "$tmp/root"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root"
		# shellcheck disable=SC2016	# dpkg-query's fields
		dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >> "$tmp/root/.packages"
	done
	rm -rf "$PR"
	mkdir -p "$PR"
	mv "$tmp/root" "$PR/root"
	rm -rf "$tmp"
	trap - EXIT
	mkdir -p "$BASE_HOME/bin"
	L=$PR/root/usr/lib/x86_64-linux-gnu
	# shellcheck disable=SC2016	# "$@" of the wrapper
	printf '#!/bin/sh\n# pahole %s under its own loader and libraries (scripts/fetch-base.sh)\nexec "%s" --library-path "%s" "%s" "$@"\n' \
		"$(sed -n 's/^pahole //p' "$PR/root/.packages")" \
		"$L/ld-linux-x86-64.so.2" "$L" "$PR/root/usr/bin/pahole" > "$BASE_HOME/bin/pahole.new"
	chmod 755 "$BASE_HOME/bin/pahole.new"
	mv "$BASE_HOME/bin/pahole.new" "$BASE_HOME/bin/pahole"
	pahole_ok || die "$BASE_HOME/bin/pahole does not run or is older than 1.${PAHOLE_MIN#1}: $("$BASE_HOME/bin/pahole" --version 2>&1 || true)"
	echo "fetch-base: $BASE_HOME/bin/pahole: $("$BASE_HOME/bin/pahole" --version)"
fi
