#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build OUT_DIR/initramfs.cpio (default build/vm): busybox-static, /init, and in /bpf the
# selftests runners (test_progs, bench), their .bpf.o files, bpftool and the
# shared libraries they need. Device nodes come from gen_init_cpio, so no
# root is needed.
# VM_EXTRA_FILES="f1 f2": more files (or dirs) for /bpf. VM_EXTRA_ROOT=DIR:
# a tree copied onto / of the guest (DIR/usr/sbin/x is /usr/sbin/x); its
# executables and *.so files get their shared libraries too.
# VM_ARCH=arm64|s390x|i386: the guest of make test ARCH=<arch>: busybox and
# the libraries from build/sysroot-<arch> and Debian's cross C library, the
# runners of bpf-mini-<arch>, and the sample tools of build/samples-<arch>
# (i386: a static test_progs only).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
VM_ARCH=${VM_ARCH:-}
MINI=$BUILD/linux/tools/testing/selftests/bpf-mini${VM_ARCH:+-$VM_ARCH}
SAMPLES=$BUILD/samples${VM_ARCH:+-$VM_ARCH}
BPFTOOL=$BUILD/tools/bpftool/bpftool
BUSYBOX=/bin/busybox
case $VM_ARCH in
"")	;;
arm64)	triplet=aarch64-linux-gnu ;;
s390x)	triplet=s390x-linux-gnu ;;
i386)	triplet=i686-linux-gnu ;;
*)	echo "mkinitramfs: unknown VM_ARCH '$VM_ARCH'" >&2; exit 2 ;;
esac
if [ -n "$VM_ARCH" ]; then
	SR=$BUILD/sysroot-$VM_ARCH
	BUSYBOX=$SR/bin/busybox
	BPFTOOL=$MINI/tools/sbin/bpftool
	multiarch=$triplet
	[ "$VM_ARCH" = i386 ] && multiarch=i386-linux-gnu
	LIBDIRS="$SR/lib/$multiarch $SR/usr/lib/$multiarch /usr/$triplet/lib"
fi
VM=${1:-$BUILD/vm}
STAGE=$VM/root
GEN=$BUILD/vm/gen_init_cpio

mkdir -p "$VM" "$BUILD/vm"
if [ ! -x "$GEN" ]; then
	gcc -O2 -o "$GEN.$$" "$BUILD/linux/usr/gen_init_cpio.c"
	mv "$GEN.$$" "$GEN"
fi

rm -rf "$STAGE"
mkdir -p "$STAGE"/{bin,sbin,bpf,proc,sys,dev,tmp,root,etc,run}
cp "$BUSYBOX" "$STAGE/bin/busybox"
# The applets of the host's busybox: the same Debian package, whatever
# the architecture (the guest's cannot run here).
for a in $(/bin/busybox --list); do
	[ "$a" = busybox ] || ln -sf busybox "$STAGE/bin/$a"
done
cp "$ROOT/scripts/guest-init.sh" "$STAGE/init"
chmod 755 "$STAGE/init"

# Not while build-selftests.sh relinks them: it holds this lock.
if [ -d "$MINI" ]; then
	exec 8> "$MINI.lock"
	flock 8
fi
for f in test_progs bench urandom_read liburandom_read.so uprobe_multi; do
	[ -f "$MINI/$f" ] && cp "$MINI/$f" "$STAGE/bpf/"
done
# The .bpf.o files of the progs this runner was built with.
if [ -f "$MINI/.want-progs" ]; then
	while read -r p; do
		[ -f "$MINI/$p.bpf.o" ] && cp "$MINI/$p.bpf.o" "$STAGE/bpf/"
	done < "$MINI/.want-progs"
fi
[ -x "$BPFTOOL" ] && cp "$BPFTOOL" "$STAGE/bpf/"
# The sample tools (scripts/build-samples.sh).
for f in "$SAMPLES"/ipcookie_*; do
	case $f in *.o|*.h) continue ;; esac
	[ -x "$f" ] && cp "$f" "$STAGE/bpf/"
done
# bpf_testmod.ko (and bpf_test_modorder_x.ko, _y.ko, ip_cookie_testmod.ko) only into a VM running the
# kernel it was built against (VM_KBUILD: that kernel's build dir, set by vm-run.sh).
if [ -f "$MINI/bpf_testmod.ko" ] &&
   [ "$(cat "$MINI/bpf_testmod.kdir" 2>/dev/null)" = "$(realpath -m "${VM_KBUILD:-none}")" ]; then
	for m in bpf_testmod bpf_test_modorder_x bpf_test_modorder_y \
		ip_cookie_testmod; do
		[ -f "$MINI/$m.ko" ] && cp "$MINI/$m.ko" "$STAGE/bpf/"
	done
fi
[ -d "$MINI" ] && exec 8>&-
[ -n "${VM_EXTRA_FILES:-}" ] && cp -r $VM_EXTRA_FILES "$STAGE/bpf/"
# Over what is there (--remove-destination: never through a busybox link).
[ -n "${VM_EXTRA_ROOT:-}" ] && cp -a --remove-destination "$VM_EXTRA_ROOT/." "$STAGE/"

# Shared libraries, at their host paths (ld.so included); for another
# architecture, the DT_NEEDED closure found in LIBDIRS, in the guest's /lib,
# and its program interpreter at the path the binaries name.
if [ -n "$VM_ARCH" ]; then
	mkdir -p "$STAGE/lib"
	todo=$(find "$STAGE/bpf" -type f ! -name '*.bpf.o' ! -name '*.ko')
	interp=""
	while [ -n "$todo" ]; do
		next=""
		for f in $todo; do
			readelf -h "$f" >/dev/null 2>&1 || continue
			[ -n "$interp" ] || interp=$(readelf -lW "$f" 2>/dev/null |
				sed -n 's/.*Requesting program interpreter: \([^]]*\)].*/\1/p')
			for n in $(readelf -dW "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
				if [ -e "$STAGE/lib/$n" ] || [ -e "$STAGE/bpf/$n" ]; then
					continue
				fi
				lib=""
				for d in $LIBDIRS; do
					[ -e "$d/$n" ] && { lib=$d/$n; break; }
				done
				[ -n "$lib" ] || { echo "mkinitramfs: $n (for $f) not found in $LIBDIRS" >&2; exit 1; }
				cp -L "$lib" "$STAGE/lib/$n"
				next="$next $STAGE/lib/$n"
			done
		done
		todo=$next
	done
	if [ -n "$interp" ]; then
		mkdir -p "$STAGE$(dirname "$interp")"
		cp -L "/usr/$triplet/lib/$(basename "$interp")" "$STAGE$interp"
	fi
else
	{
	for f in "$STAGE"/bpf/*; do
		case $f in *.bpf.o) continue ;; esac
		LD_LIBRARY_PATH=$STAGE/bpf ldd "$f" 2>/dev/null | grep -oE '/[^ ]+' || true
	done
	if [ -n "${VM_EXTRA_ROOT:-}" ]; then
		(cd "$VM_EXTRA_ROOT" && find . -type f \( -perm -u+x -o -name '*.so' -o -name '*.so.*' \) -printf '%P\n') |
		while read -r f; do
			LD_LIBRARY_PATH=$STAGE/bpf ldd "$STAGE/$f" 2>/dev/null | grep -oE '/[^ ]+' || true
		done
	fi
	} | sort -u | while read -r lib; do
		case $lib in "$STAGE"/*) continue ;; esac
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$lib" "$STAGE$lib"
	done
fi

# gen_init_cpio list: the staging tree plus /dev/console.
{
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	(cd "$STAGE" && find . -mindepth 1 -type d -printf 'dir /%P %m 0 0\n')
	(cd "$STAGE" && find . -type f -printf "file /%P $STAGE/%P %m 0 0\n")
	(cd "$STAGE" && find . -type l -printf 'slink /%P %l 777 0 0\n')
} > "$VM/initramfs.list"
"$GEN" "$VM/initramfs.list" > "$VM/initramfs.cpio"
echo "mkinitramfs: $VM/initramfs.cpio ($(du -h "$VM/initramfs.cpio" | cut -f1))"
