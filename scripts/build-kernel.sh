#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build one kernel flavour out of tree:
#   scripts/build-kernel.sh base   -> build/kbuild-base  (vmlinux boots via PVH)
#   scripts/build-kernel.sh debug  -> build/kbuild-debug (boot its bzImage)
#   scripts/build-kernel.sh kcsan  -> build/kbuild-kcsan (base + KCSAN, for
#                                     make test-kcsan; boot its bzImage)
#   scripts/build-kernel.sh full   -> build/kbuild-full  (base + the upstream
#                                     selftests config, for make test-full)
#   scripts/build-kernel.sh i386   -> build/kbuild-i386  (configs/cross*.config,
#   scripts/build-kernel.sh arm64  -> build/kbuild-arm64  for make check)
#   scripts/build-kernel.sh debug-arm64 -> build/kbuild-debug-arm64 (the debug
#   scripts/build-kernel.sh debug-s390x    kernel for another architecture:
#   scripts/build-kernel.sh debug-i386
#                                     base + debug + configs/arch-<arch>.config,
#                                     for make test ARCH=<arch>)
# BUILD=dir puts the source (dir/linux) and the output elsewhere;
# KTARGETS="..." builds these make targets instead of "all".
# The config (tinyconfig + configs/base.config [+ debug.config]), its value
# check and the pahole: docs/harness.md (step 2, "The base").
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
FLAVOR=${1:-base}
LINUX=$BUILD/linux
O=$BUILD/kbuild-$FLAVOR
JOBS=${JOBS:-$(nproc)}
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}

SELFCFG=$LINUX/tools/testing/selftests/bpf
# The requested lines when fragments set a symbol twice: a later
# fragment's line wins, as in merge_config.sh, so each symbol's last line.
# shellcheck disable=SC2016	# awk's $0 and $2
LASTWINS='match($0, /^CONFIG_[A-Za-z0-9_]+=/) { s = substr($0, 1, RLENGTH - 1) }
	/^# CONFIG_[A-Za-z0-9_]+ is not set/ { s = $2 }
	s != "" { if (!(s in v)) o[n++] = s; v[s] = $0; s = "" }
	END { for (i = 0; i < n; i++) print v[o[i]] }'
# FRAGS are merged; the values in CHECK must survive olddefconfig (not
# upstream's fragments: they ask for modules and options we need not have).
case $FLAVOR in
base)	FRAGS="$ROOT/configs/base.config"
	CHECK=$FRAGS ;;
debug)	FRAGS="$ROOT/configs/base.config $ROOT/configs/debug.config"
	CHECK=$FRAGS ;;
kcsan)	FRAGS="$ROOT/configs/base.config $ROOT/configs/kcsan.config"
	CHECK=$FRAGS ;;
full)	FRAGS="$ROOT/configs/base.config $SELFCFG/config $SELFCFG/config.x86_64"
	# The selftests' fragments win where they set a symbol of ours
	# (NR_CPUS, LSM, ...): check only the symbols they leave alone.
	CHECK=$(mktemp)
	trap 'rm -f "$CHECK"' EXIT
	sed -nE 's/^(# )?(CONFIG_[A-Za-z0-9_]+)[= ].*/\2/p' \
		"$SELFCFG/config" "$SELFCFG/config.x86_64" | sort -u > "$CHECK.syms"
	grep -vwFf "$CHECK.syms" "$ROOT/configs/base.config" > "$CHECK" || true
	rm -f "$CHECK.syms" ;;
i386)	FRAGS="$ROOT/configs/cross.config"
	CHECK=$FRAGS ;;
debug-arm64|debug-s390x|debug-i386)
	FRAGS="$ROOT/configs/base.config $ROOT/configs/debug.config"
	FRAGS="$FRAGS $ROOT/configs/arch-${FLAVOR#debug-}.config"
	# A later fragment's line wins, as in merge_config.sh: check each
	# symbol's last line only.
	CHECK=$(mktemp)
	trap 'rm -f "$CHECK"' EXIT
	# shellcheck disable=SC2086
	awk "$LASTWINS" $FRAGS > "$CHECK" ;;
arm64)	FRAGS="$ROOT/configs/cross.config $ROOT/configs/cross-arm64.config"
	CHECK=$FRAGS ;;
*)	echo "build-kernel: unknown flavour '$FLAVOR' (base|debug|kcsan|full|i386|arm64|debug-arm64|debug-s390x|debug-i386)" >&2; exit 1 ;;
esac
KARCH=x86_64
KCC=gcc
CROSS=()
case $FLAVOR in
i386|debug-i386)
	KARCH=i386 ;;
arm64|debug-arm64)
	KARCH=arm64
	KCC=aarch64-linux-gnu-gcc
	CROSS=(CROSS_COMPILE=aarch64-linux-gnu-) ;;
debug-s390x)
	KARCH=s390
	KCC=s390x-linux-gnu-gcc
	CROSS=(CROSS_COMPILE=s390x-linux-gnu-) ;;
esac
read -ra TARGETS <<< "${KTARGETS:-all}"
# Debian 12's pahole (1.24) is too old for 7.3's BTF.
"$ROOT/scripts/fetch-base.sh"
KPAHOLE=(PAHOLE="$BASE_HOME/bin/pahole")

[ -f "$LINUX/Makefile" ] || { echo "build-kernel: run scripts/prepare-tree.sh first" >&2; exit 1; }

# One build per output dir at a time (several users may share build/).
mkdir -p "$BUILD"
take_lock "$BUILD/.lock-kbuild-$FLAVOR" "another $FLAVOR build"

KMAKE=(make -C "$LINUX" O="$O" ARCH="$KARCH" "${CROSS[@]}" -j"$JOBS"
	CC="ccache $KCC" HOSTCC="ccache gcc" "${KPAHOLE[@]}")
# debug: UBSAN's alignment check for the map's file only (configs/debug.config
# says why not CONFIG_UBSAN_ALIGNMENT); kbuild adds CFLAGS_<stem>.o to that
# object, and only ip_cookie.o has this stem. A report is a splat.
if [ "${FLAVOR%%-*}" = debug ]; then
	KMAKE+=("CFLAGS_ip_cookie.o=-fsanitize=alignment")
fi
mkdir -p "$O" "$CCACHE_DIR"

# Regenerate the config only when a fragment (or the pahole, whose version
# the config records) changed, so that an unchanged config
# never causes a rebuild.
# shellcheck disable=SC2086
want=$( (cat $FRAGS; "$BASE_HOME/bin/pahole" --version) |
	sha256sum | cut -d' ' -f1)
if [ ! -f "$O/.config" ] || [ "$(cat "$O/.harness-config" 2>/dev/null)" != "$want" ]; then
	echo "build-kernel: configuring $FLAVOR"
	"${KMAKE[@]}" -s tinyconfig
	# shellcheck disable=SC2086
	(cd "$LINUX" && scripts/kconfig/merge_config.sh -m -O "$O" "$O/.config" $FRAGS) >/dev/null
	"${KMAKE[@]}" -s olddefconfig

	missing=0
	# shellcheck disable=SC2086
	while read -r line; do
		case $line in
		CONFIG_*=*)
			sym=${line%%=*}
			if ! grep -qxF "$line" "$O/.config"; then
				got=$(grep -E "^$sym=|^# $sym is not set" "$O/.config" || echo "absent")
				echo "build-kernel: $FLAVOR config lost $line (got: $got)" >&2
				missing=1
			fi ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			if grep -qE "^$sym=" "$O/.config"; then
				echo "build-kernel: $FLAVOR config has $sym set, wanted off" >&2
				missing=1
			fi ;;
		esac
	done < <(cat $CHECK)
	# full: the selftests' fragments are upstream's choice (a choice
	# group such as the DWARF version can override ours): report only.
	if [ $missing != 0 ] && [ "$FLAVOR" = full ]; then
		echo "build-kernel: full: the values above follow the selftests' config"
		missing=0
	fi
	if [ $missing != 0 ]; then
		rm -f "$O/.harness-config"
		echo "build-kernel: fix configs/*.config (missing dependency?)" >&2
		exit 1
	fi
	echo "$want" > "$O/.harness-config"
fi

echo "build-kernel: building $FLAVOR in $O (-j$JOBS): ${TARGETS[*]}"
"${KMAKE[@]}" "${TARGETS[@]}"
case $FLAVOR in
base|debug|full) echo "build-kernel: $FLAVOR done: $O/vmlinux $O/arch/x86/boot/bzImage" ;;
*) echo "build-kernel: $FLAVOR done: $O (${TARGETS[*]})" ;;
esac
