#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian 12 packages the build needs, from Debian's archive only.
# Idempotent: does nothing when every package is present.
#   scripts/install-deps.sh [extra packages...]   (make check adds its own)
# The kernel source (7.3) and pahole (1.30) are not Debian 12's:
# scripts/fetch-base.sh fetches them.
set -eu

PKGS="clang-22 llvm-22 lld-22 dwarves qemu-system-x86
busybox-static bc bison flex cpio xz-utils ccache make gcc libc6-dev
libelf-dev zlib1g-dev libzstd-dev libcap-dev libssl-dev binutils-dev
pkg-config python3 python3-docutils rsync kmod gnuplot-nox $*"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "install-deps: missing:$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO="sudo -n"
	else
		echo "install-deps: need root (or passwordless sudo) to install:$missing" >&2
		exit 1
	fi
fi

# clang-22 lives in bookworm-security, some of make check's and bpftrace's
# packages in bookworm-backports (-t raises backports, it does not hide the
# others).
if ! grep -rqs 'bookworm-security' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "install-deps: enabling bookworm-security"
	echo 'deb http://security.debian.org/debian-security bookworm-security main' |
		$SUDO tee /etc/apt/sources.list.d/bookworm-security.list >/dev/null
fi
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "install-deps: enabling bookworm-backports"
	echo 'deb http://deb.debian.org/debian bookworm-backports main' |
		$SUDO tee /etc/apt/sources.list.d/bookworm-backports.list >/dev/null
fi
$SUDO apt-get update -q
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
	-t bookworm-backports $missing
