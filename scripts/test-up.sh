#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test-up: the kprobe.multi tests on a uniprocessor kernel
# (configs/up.config over configs/base.config). Per-CPU variables are
# plain variables without CONFIG_SMP, so an inlined per-CPU access built
# for SMP reads a wrong address there: bpf_get_func_ip() of kprobe.multi
# programs, which the series inlines on SMP x86-64 only, is exercised by
# these tests on every hit. Fails on a failed test, a kernel warning or
# splat, or a timeout.
#   TESTS="a b"   other test_progs selectors (default: below)
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC1091	# checked on its own
. "$ROOT/scripts/base-lib.sh"
S=$ROOT/scripts
TESTS=${TESTS:-"ip_cookie_inline/tracing ip_cookie_progs/kprobe_multi ip_cookie_link/kprobe_multi ip_cookie_link/kretprobe_multi"}

set -e
"$S/prepare-tree.sh"
"$S/build-kernel.sh" up
"$S/build-kernel.sh" debug
"$S/build-tools.sh"
# The runner of make test, built on the debug kernel's BTF: upstream's
# progs/test_ksyms_weak.c, which every runner builds, reads a field of
# struct rq that only SMP kernels have. The skeletons' CO-RE relocations
# follow the kernel that runs them; bpf_testmod.ko is not loaded there.
"$S/build-selftests.sh" test_progs
set +e

sel=$(echo "$TESTS" | tr ' ' ',')
log=$BUILD/vm/test-up.log
"$S/vm-run.sh" --kernel up --log "$log" -- "./test_progs -w 0 -a '$sel'"
vrc=$?
txt=$log.txt
[ -f "$txt" ] || { echo "test-up: no console log"; exit 1; }
res=$(python3 "$S/test-report.py" summary "$txt" "$vrc")
grep -v '^counts ' <<< "$res"
read -r passed failed _ < <(sed -n 's/^counts //p' <<< "$res")
echo "${passed:-0} passed, ${failed:-1} failed"
[ "$vrc" = 0 ] && [ "${failed:-1}" = 0 ] && [ "${passed:-0}" -gt 0 ]
