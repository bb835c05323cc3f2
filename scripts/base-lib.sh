# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the harness scripts once ROOT is set: the upstream kernel
# they build on, and what follows from it.
#   BASE=6.12  (default) Debian's linux-source-6.12, build/, clang-19
#   BASE=7.3   the move to 7.3 under way (docs/harness.md, "BASE=7.3
#              (transition)"): Debian's linux-source-7.3 fetched by
#              scripts/fetch-base.sh, build/7.3/, clang-22, pahole 1.30
# Sets (exporting only BASE and PATH: each script derives the rest):
#   BUILD      unless set: build/ (6.12) or build/7.3/ (7.3)
#   BASE_HOME  the base's own dir whatever BUILD says (variant kernels and
#              make test-full move BUILD): build/ or build/7.3/; 7.3 keeps
#              the fetched source and pahole there
#   TARBALL    unless set: the pristine source tarball
#   LLVM_VER   the clang, llc and llvm-strip of BPF objects: 19 or 22
#   PATH       7.3: BASE_HOME/bin first (its pahole is 1.30; 7.3's BTF
#              needs 1.26 or later, Debian 12 has 1.24)
# BASE=1 is make test's older spelling of SCALE_ON_BASE=1 (ip_cookie_scale
# on the base kernel too) and still means that, on 6.12.

# shellcheck disable=SC2034	# LLVM_VER, TARBALL, BASE_HOME: for the sourcing script
if [ "${BASE:-}" = 1 ]; then
	BASE=6.12
	SCALE_ON_BASE=1
	export SCALE_ON_BASE
fi
BASE=${BASE:-6.12}
case $BASE in
6.12)	BASE_HOME=$ROOT/build
	TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
	LLVM_VER=19 ;;
7.3)	BASE_HOME=$ROOT/build/7.3
	TARBALL=${TARBALL:-$BASE_HOME/dl/linux-source-7.3.tar.xz}
	LLVM_VER=22
	case :$PATH: in
	*":$BASE_HOME/bin:"*) ;;
	*) PATH=$BASE_HOME/bin:$PATH ;;
	esac ;;
*)	echo "$(basename "$0"): BASE=$BASE: not a base (6.12, the default, or 7.3)" >&2
	exit 2 ;;
esac
BUILD=${BUILD:-$BASE_HOME}
export BASE PATH

# base_only_612 WHAT: stop a script whose job is 6.12's alone for now.
base_only_612() {
	[ "$BASE" = 6.12 ] && return 0
	echo "$(basename "$0"): $1 is for BASE=6.12 only until the series is ported to $BASE" >&2
	exit 2
}
