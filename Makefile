# SPDX-License-Identifier: GPL-2.0
# Front door of the BPF_MAP_TYPE_IP_COOKIE harness: one target per action.
# `make help` is the list of targets and variables; keep it complete.

SHELL := /bin/bash
DEPS := scripts/install-deps.sh

# The upstream base is Debian's linux-source-7.3 (scripts/base-lib.sh);
# the last commit on 6.12 is tag last-6.12.

.PHONY: help deps tree kernel kernel-debug tools selftests samples bpftrace test test-full \
	test-kcsan test-bpftrace retsnoop test-retsnoop bench-retsnoop \
	soak bench bench-gen-lookup bench-funcip bench-native bench-kfunc-cost vm checkpatch patches check clean demo \
	docs-figures

define HELP
Targets (each builds what it needs; build/ holds everything generated):
  make test          debug kernel (KASAN, lockdep, kmemleak), libbpf, bpftool and
                     test_progs; the series' tests and scripts/tests.list in the
                     debug VM; "N passed, N failed" last, non-zero on a failure,
                     splat or timeout (TESTS="a b": only these; SCALE_ON_BASE=1:
                     also ip_cookie_scale on the base kernel; ARCH=arm64: the
                     same cross-built for arm64 and run under TCG, refusals
                     counted per scripts/arch-limits.txt; ARCH=s390x: the
                     same, big-endian; ARCH=i386: a 32-bit debug kernel and a
                     static 32-bit test_progs with the syscall-level tests
                     and ip_cookie_progs; docs/results/arches.md)
  make vm            shell in the debug-kernel VM (/bpf: test_progs, bench, bpftool)
  make patches       the bpf-next series as mails in build/series/: one patch per
                     series/manifest id, cover letter from series/cover-letter.txt
  make check         make patches, then checkpatch, identity, commit messages,
                     refs, git am, uapi sync, docs, every prefix built, sparse,
                     i386/arm64 (CHECKS="checkpatch am ...": a subset;
                     PREFIXES="1 2"; CROSS="i386 arm64"); hours for all
  make bench         base kernel + bench: guest instructions under QEMU -icount
                     (with two variant kernels: an O(1) kprobe.multi cookie,
                     KCOOKIE=0 skips it; RHASH without patch rhashfix,
                     RHASH_NOFIX=0 skips it), time over BOOTS=3 boots, and
                     bench-native (RHASH chains on the kernel's text); writes
                     docs/results/ (QUICK=1: fewer sizes, one -icount round,
                     one time boot; ONLY="icount time native";
                     OS_ROUNDS=n runs of each one-shot measurement)
  make bench-gen-lookup  inlined lookup vs direct call: a second base kernel from
                     patches/variants/no-gen-lookup.patch; docs/results/gen-lookup.md
  make bench-funcip  what inlining bpf_get_func_ip() of kprobe.multi buys: the
                     series' kernel and one with patches/variants/funcip.patch
                     in turn (VM_ACCEL=icount: instructions); docs/results/funcip.md
  make bench-kfunc-cost  -icount cost of bpf_get_attach_link_id() to programs that
                     do not call it: kernels with and without the kfunc patch
                     (PATCHES="-kfunc -uoffset"); docs/results/kfunc-cost.md
  make bench-native  the lookup data structures timed natively on the host CPU from
                     the kernel's code: a model, not the kernel path
                     (NATIVE_ROUNDS=5 NATIVE_MAX_N=262144); docs/results/native.md
  make test-full     the complete upstream test_progs, test_verifier and test_maps
                     on a kernel with the series and a pristine one (build/full,
                     hours under TCG); prints the comparison
  make test-kcsan    the map's concurrency tests on a KCSAN kernel; fails on a
                     data race in the series' code (TESTS=... other selectors)
  make soak          ip_cookie_stress for SOAK_SECS=600 per kernel, base then
                     debug (SOAK_KERNELS="base debug")
  make demo          the sample tools next to Debian's bpftrace and bpftrace with
                     contrib/bpftrace in one base-kernel VM; docs/results/demo.txt
                     (DEMO_BPFTRACE_PATCHED=0: without the patched bpftrace)
  make test-bpftrace the bpftrace patch (contrib/bpftrace): bpftrace's unit tests,
                     exact '@[probe]' counts over 2,000+ functions in one program
                     with the map and with cookies, bpftrace's runtime tests
                     (patched and Debian's) in the VM (BPFTRACE_FALLBACK=1: also
                     on a pristine kernel); build/bpftrace/test/
  make test-retsnoop the retsnoop patches (contrib/retsnoop) in the debug VM: the
                     call stacks of simfail's failures, equal in -F, -K and -M,
                     each with the ip_cookie map and with --no-ip-cookie-map; no
                     UNRECOGNIZED IP in the trace buffer; the feature report;
                     build/retsnoop/test/ (RETSNOOP_FALLBACK=1: also on a
                     pristine kernel, built in build/nomap)
  make bench-retsnoop retsnoop's cost per traced call under QEMU -icount, in
                     the base-kernel VM: -M with the map and with cookies
                     (N = 1..10,000 functions), -F with the map and with
                     HASH (N = 1, 100); attach and detach on the guest
                     clock; docs/results/retsnoop-icount.md
Building blocks (the targets above run them):
  make tree          sync build/linux: pristine 7.3 + patches/ in series/manifest
                     order + mirror files; rewrites only files that changed
  make kernel        base kernel (build/kbuild-base)
  make kernel-debug  debug kernel (build/kbuild-debug)
  make tools         libbpf and bpftool (build/tools)
  make selftests     test_progs + bench for the debug kernel (.../selftests/bpf-mini)
  make samples       the sample tools (build/samples)
  make bpftrace      bpftrace 0.17.0 (Debian's source) with contrib/bpftrace/*.patch
                     applied by git am, into build/bpftrace (half an hour cold)
  make retsnoop      retsnoop a777df0 with contrib/retsnoop/*.patch applied by git
                     am, on the tree's libbpf and bpftool, into build/retsnoop
                     (RETSNOOP_SRC=tarball or directory; default
                     ../shared/retsnoop/retsnoop-a777df0.tar.gz)
  make checkpatch    checkpatch.pl --strict on patches/ and every mirror file
  make docs-figures  rewrite the generated tables and figures of README.md, docs/
                     and the cover letter from docs/results/ (after a bench);
                     make check CHECKS=docs checks them
  make deps          install the Debian packages the harness needs
  make clean         remove build/ (the ccache too: hours of builds)
Variables (make VAR=value target):
  PATCHES=none       no patches and no mirror files (pristine upstream);
                     PATCHES="map libbpf": only these series/manifest ids;
                     PATCHES="-kfunc": all but these
  MIRROR=none        no mirror files      KDIR=/path   your own 7.3 tree as source
  EXTRA_PATCHES="f"  apply these after the mirror files (patches/variants/)
  TESTS="a b"        test_progs tests (default: the series' + scripts/tests.list)
  VM_ACCEL=kvm|tcg|icount  VM_TIMEOUT=s (default 3600; 7200 for make test ARCH=s390x or arm64)  JOBS=n (kernel builds)
  NO_BUILD=1         bench, bench-gen-lookup, bench-funcip, bench-kfunc-cost,
                     bench-retsnoop: use what is built
endef
export HELP

help:
	@echo "$$HELP"

deps:
	@$(DEPS)
	@scripts/fetch-base.sh

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

bpftrace: deps
	@scripts/build-bpftrace.sh

test: deps
	@scripts/test.sh

test-full: deps
	@scripts/test-full.sh

test-kcsan: deps
	@scripts/test-kcsan.sh

test-bpftrace: deps
	@scripts/test-bpftrace.sh

retsnoop: deps
	@scripts/build-retsnoop.sh

test-retsnoop: deps
	@scripts/test-retsnoop.sh

bench-retsnoop: deps
	@scripts/bench-retsnoop.sh

soak: deps
	@scripts/soak.sh

bench: deps
	@scripts/bench.sh

bench-gen-lookup: deps
	@scripts/bench-gen-lookup.sh

bench-funcip: deps
	@WITHOUT=funcip scripts/bench-gen-lookup.sh

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

docs-figures:
	@python3 scripts/docs-figures.py write

clean:
	rm -rf build
