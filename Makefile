# SPDX-License-Identifier: GPL-2.0
# Front door of the BPF_MAP_TYPE_IP_COOKIE harness: one target per action.
# Variables (make VAR=value target):
#   PATCHES=none   build without patches/*.patch and without mirror files
#                  ("map libbpf": only the patches of these series/manifest
#                  ids; "-kfunc": all but that one)
#   MIRROR=none    build without the repo's kernel mirror files
#   KDIR=/path     use your own 6.12 tree as the pristine source
#   TESTS="a b"    test_progs tests to run (default: ours + scripts/tests.list)
#   VM_ACCEL=kvm|tcg|icount, VM_TIMEOUT=seconds   see scripts/vm-run.sh
#   BASE=1         make test: also run ip_cookie_scale on the base kernel
#   SOAK_SECS=s    make soak: writer seconds per kernel (default 600)

SHELL := /bin/bash
DEPS := scripts/install-deps.sh

.PHONY: help deps tree kernel kernel-debug tools selftests samples test test-full test-kcsan \
	soak bench bench-gen-lookup bench-native bench-kfunc-cost vm checkpatch patches check clean demo

help:
	@echo "make test         build debug kernel + selftests, run them in a VM"
	@echo "make test-kcsan   the map's concurrency tests on a KCSAN kernel; fails on a data race in the series' code (scripts/test-kcsan.sh)"
	@echo "make soak         ip_cookie_stress for minutes on the base and debug kernels (SOAK_SECS=600)"
	@echo "make bench        instructions (QEMU -icount, with an O(1) kprobe.multi cookie variant kernel; KCOOKIE=0: without), time (3 boots) and native figures (scripts/bench.sh; QUICK=1: shorter)"
	@echo "make bench-gen-lookup  inlined lookup vs direct call, two kernels (scripts/bench-gen-lookup.sh)"
	@echo "make bench-kfunc-cost  instructions of programs that do not call bpf_get_attach_link_id(), with and without patch 5 (QEMU -icount)"
	@echo "make bench-native lookup data structures (kprobe.multi bsearch, IP_COOKIE, HASH) timed natively on the host CPU: a model, not the kernel path (scripts/bench-native.sh; NATIVE_ROUNDS=5 NATIVE_MAX_N=1048576)"
	@echo "make demo         ipc_funccount/ipc_funclatency next to Debian's bpftrace 0.17, one base-kernel VM (scripts/demo.sh; docs/results/demo.txt)"
	@echo "make vm           interactive shell in the debug-kernel VM"
	@echo "make kernel       build the base kernel (build/kbuild-base)"
	@echo "make kernel-debug build the debug kernel (build/kbuild-debug)"
	@echo "make tools        build libbpf and bpftool (build/tools)"
	@echo "make selftests    build test_progs + bench (build/linux/.../bpf-mini)"
	@echo "make samples      build samples/bpf/ipc_* tools (build/samples)"
	@echo "make test-full    build the complete upstream test_progs and run it"
	@echo "make checkpatch   checkpatch.pl --strict on patches and new files"
	@echo "make patches      the bpf-next series, as mails, in build/series/ (scripts/series.sh)"
	@echo "make check        make patches, then checkpatch, git am, docs, every prefix built, i386/arm64 (scripts/series-check.sh)"
	@echo "make clean        remove build/"
	@echo "Variables: PATCHES=none|\"map libbpf\"|\"-kfunc\" MIRROR=none KDIR=/path TESTS=... BASE=1 VM_ACCEL=kvm|tcg|icount VM_TIMEOUT=s"
	@echo "make check: CHECKS=\"checkpatch am ...\" (a subset: scripts/series-check.sh lists them) PREFIXES=\"1 2\" CROSS=\"i386 arm64\""

deps:
	@$(DEPS)

tree: deps
	@scripts/prepare-tree.sh

kernel: tree
	@scripts/build-kernel.sh base

kernel-debug: tree
	@scripts/build-kernel.sh debug

tools: tree
	@scripts/build-tools.sh

selftests: kernel-debug tools
	@scripts/build-selftests.sh

samples: tools
	@scripts/build-samples.sh

test: deps
	@scripts/test.sh

test-full: deps
	@scripts/test-full.sh

test-kcsan: deps
	@scripts/test-kcsan.sh

soak: deps
	@scripts/soak.sh

bench: deps
	@if [ -x scripts/bench.sh ]; then scripts/bench.sh; else echo "bench: not yet (no scripts/bench.sh)"; fi

bench-gen-lookup: deps
	@scripts/bench-gen-lookup.sh

bench-native: deps
	@scripts/bench-native.sh

demo: deps
	@scripts/demo.sh

bench-kfunc-cost: deps
	@scripts/bench-kfunc-cost.sh

vm: selftests
	@scripts/vm-run.sh --kernel debug --interactive

checkpatch: tree
	@scripts/checkpatch.sh

patches: deps
	@scripts/series.sh

check: deps
	@scripts/series-check.sh

clean:
	rm -rf build
