# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the harness scripts once ROOT is set: the upstream kernel
# they build on, Debian's linux-source-7.3, and what follows from it
# (docs/harness.md, "The base"). The last commit on 6.12 is tag last-6.12.
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
if [ -n "${BASE:-}" ] && [ "$BASE" != 7.3 ]; then
	echo "$(basename "$0"): BASE=$BASE: the base is 7.3 (6.12: git checkout last-6.12)" >&2
	exit 2
fi
BASE_HOME=$ROOT/build
TARBALL=${TARBALL:-$BASE_HOME/dl/linux-source-7.3.tar.xz}
LLVM_VER=22
case :$PATH: in
*":$BASE_HOME/bin:"*) ;;
*) PATH=$BASE_HOME/bin:$PATH ;;
esac
BUILD=${BUILD:-$BASE_HOME}
export PATH

# src_stamp: what a build/src extracted from TARBALL records in .extracted.
# src_extracted DIR: DIR holds TARBALL, extracted (a tree of another
# tarball, 6.12's for one, is extracted anew).
src_stamp() { echo "$(basename "$TARBALL") $(stat -c '%s %Y' "$TARBALL")"; }
src_extracted() {
	[ -f "$TARBALL" ] && [ "$(cat "$1/.extracted" 2>/dev/null)" = "$(src_stamp)" ]
}
