#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The target libraries and busybox of another architecture, for make test
# ARCH=<arch>: Debian's packages of that architecture, downloaded and
# unpacked into build/sysroot-<arch> (not installed: the host's dpkg
# database keeps one architecture's view, and foreign "Multi-Arch: same"
# packages would have to match the host's versions exactly). The C library
# comes from Debian's cross packages (libc6-dev-<arch>-cross, installed by
# scripts/install-deps.sh) under /usr/<triplet>.
# The compiler driver of build/sysroot-<arch>/toolchain (CROSS_COMPILE=
# that dir/<triplet>-) is Debian's cross gcc with the sysroot's headers
# and libraries added; the other tools of that prefix are Debian's.
# i386's toolchain is Debian's i686-linux-gnu cross gcc, and its Debian
# packages put their libraries under i386-linux-gnu.
#   scripts/cross-sysroot.sh arm64|s390x|i386
# Prints the sysroot's path last.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
ARCH=${1:?usage: cross-sysroot.sh arm64|s390x|i386}
case $ARCH in
arm64|s390x|i386) ;;
*) echo "cross-sysroot: unknown architecture '$ARCH' (arm64|s390x|i386)" >&2; exit 2 ;;
esac
SR=$BUILD/sysroot-$ARCH
case $ARCH in
arm64)	triplet=aarch64-linux-gnu ;;
s390x)	triplet=s390x-linux-gnu ;;
i386)	triplet=i686-linux-gnu ;;
esac
# Where Debian's packages of the architecture keep their libraries.
multiarch=$triplet
[ "$ARCH" = i386 ] && multiarch=i386-linux-gnu
# What test_progs, bpftool and the guest's /init need: libelf (and its
# zlib and zstd), OpenSSL's libcrypto (7.3's bpftool signs programs,
# tools/bpf/bpftool/sign.c), and a static busybox.
PKGS="libelf-dev libelf1 zlib1g-dev zlib1g libzstd-dev libzstd1 libssl-dev libssl3 busybox-static"

if [ -f "$SR/.done" ] && [ "$(cat "$SR/.done")" = "$PKGS" ]; then
	echo "$SR"
	exit 0
fi

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo -n"
if ! dpkg --print-foreign-architectures | grep -qx "$ARCH"; then
	echo "cross-sysroot: adding the $ARCH package lists to apt" >&2
	$SUDO dpkg --add-architecture "$ARCH"
	$SUDO apt-get update -q >&2
fi

rm -rf "$SR" "$SR.debs"
mkdir -p "$SR.debs"
args=()
for p in $PKGS; do args+=("$p:$ARCH"); done
# apt's sandbox user cannot write to build/: fetch in a world-writable
# temporary directory.
tmp=$(mktemp -d)
chmod 777 "$tmp"
(cd "$tmp" && apt-get download -q "${args[@]}" >&2)
mv "$tmp"/*.deb "$SR.debs/"
rmdir "$tmp"
for d in "$SR.debs"/*.deb; do
	dpkg-deb -x "$d" "$SR"
done
# The -dev packages' .so links are absolute (/lib/...): make them relative
# to the sysroot so that the linker finds the sysroot's libraries.
find "$SR" -type l -lname '/*' | while read -r l; do
	ln -sfn "$SR$(readlink "$l")" "$l"
done
# The toolchain: every Debian tool of the prefix, and gcc with the
# sysroot (gcc ignores the linker options when it only compiles).
TC=$SR/toolchain
mkdir -p "$TC"
for t in /usr/bin/"$triplet"-*; do
	ln -sfn "$t" "$TC/$(basename "$t")"
done
rm -f "$TC/$triplet-gcc"
libs="$SR/usr/lib/$multiarch:$SR/lib/$multiarch"
# The multiarch directory holds the architecture's own headers
# (openssl/opensslconf.h): before the host's /usr/include.
inc="-I$SR/usr/include/$multiarch -I$SR/usr/include"
cat > "$TC/$triplet-gcc" <<EOT
#!/bin/sh
exec /usr/bin/$triplet-gcc "\$@" $inc -L$SR/usr/lib/$multiarch -L$SR/lib/$multiarch -Wl,-rpath-link,$libs
EOT
chmod 755 "$TC/$triplet-gcc"
echo "$PKGS" > "$SR/.done"
echo "$SR"
