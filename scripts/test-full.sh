#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test-full: what it runs and compares is in docs/harness.md (its row)
# and docs/results/test-full.md ("How"). Steps (no argument: all, in order):
#   patched          series applied: kernel, the selftests of that tree
#                    (runners, BPF objects, bpf_testmod*.ko); saved as
#                    build/full/{bzImage,stage}-patched
#   pristine         the same tree with PATCHES=none MIRROR=none: kernel and
#                    bpf_testmod*.ko against it; the runners of the patched
#                    step (build/full/{bzImage,stage}-pristine)
#   stage-pristine   only the staging of the pristine step: new runners of
#                    the patched step with the pristine kernel and modules
#                    already built (the pristine kernel does not change)
#   run-patched | run-pristine   one VM each
#   report           the comparison (test-report.py compare)
# Console logs: build/full/vm/{patched,pristine}.log.txt.
#   TEST_PROGS_ARGS=...   extra test_progs arguments (e.g. "-t bpf_cookie")
#   RUNNERS="..."         which runners (default: test_progs test_verifier
#                         test_maps)
#   LOG_TAG=name          console log build/full/vm/<kernel><name>.log
#   VM_TIMEOUT=S          guest time limit per kernel (default 4 h)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
S=$ROOT/scripts
MAIN=$BUILD
B=$MAIN/full
SELF=$B/linux/tools/testing/selftests/bpf
MODS="bpf_testmod.ko bpf_test_no_cfi.ko bpf_test_modorder_x.ko bpf_test_modorder_y.ko"

# The pristine source is shared (extracted once, read only); so is ccache.
tree() {	# tree PATCHES MIRROR
	src_extracted "$MAIN/src" || BUILD=$MAIN "$S/prepare-tree.sh"
	BUILD=$B KDIR=$MAIN/src PATCHES=$1 MIRROR=$2 CCACHE_DIR=$MAIN/ccache \
		"$S/prepare-tree.sh"
	BUILD=$B CCACHE_DIR=$MAIN/ccache "$S/build-kernel.sh" full
}

selftests() {	# selftests OUTPUT TARGETS...
	local out=$1 m
	shift
	mkdir -p "$out"
	# Both kernels share the modules' object directories in the tree:
	# build the modules from scratch, never from objects of the other
	# kernel's headers.
	for m in $MODS; do
		rm -f "$out/$m" "$SELF/${m%.ko}"/*.o "$SELF/${m%.ko}"/*.ko
	done
	# The modules' Makefiles run "make -C <tree> M=..."; KBUILD_OUTPUT
	# points that at the out-of-tree kernel build.
	KBUILD_OUTPUT=$B/kbuild-full make -C "$SELF" -j"$(nproc)" OUTPUT="$out" \
		CLANG=clang-$LLVM_VER LLC=llc-$LLVM_VER LLVM_STRIP=llvm-strip-$LLVM_VER \
		VMLINUX_BTF="$B/kbuild-full/vmlinux" "$@"
}

# A test module compiled against other headers than the vmlinux it is linked
# for carries its own copies of the kernel types its code uses (pahole
# cannot dedup them against the base BTF), and every kfunc of it that takes
# a kernel struct then fails verification with "expected pointer to STRUCT
# sock but R1 has a pointer to STRUCT sock". Refuse such a module.
check_mod_btf() {	# check_mod_btf DIR
	local bt=$B/selftests/tools/sbin/bpftool m dup
	for m in $MODS; do
		dup=$("$bt" -B "$B/kbuild-full/vmlinux" btf dump file "$1/$m" |
			grep -E "^\[[0-9]+\] (STRUCT 'task_struct'|STRUCT 'sock'|ENUM 'bpf_map_type')" || true)
		if [ -n "$dup" ]; then
			echo "test-full: $m: kernel types in its own BTF, built against other headers:" >&2
			echo "$dup" >&2
			exit 1
		fi
	done
	echo "test-full: $(wc -w <<< "$MODS") test modules match vmlinux BTF"
}

patched() {
	local out=$B/selftests st=$B/stage-patched m targets=()
	tree all all
	for m in $MODS; do targets+=("$out/$m"); done
	selftests "$out" "$out/test_progs" "$out/test_verifier" \
		"$out/test_maps" "${targets[@]}"
	check_mod_btf "$out"
	# What the runners read at run time, not the intermediate objects.
	rm -rf "$st"
	mkdir -p "$st"
	(cd "$out" && find . -maxdepth 1 -type f \( -perm -u+x -o -name '*.bpf.o' \
		-o -name '*.ko' -o -name '*.so' -o -name 'btf_dump_test_case_*.c' \) \
		-print0 | xargs -0 cp -t "$st")
	[ -x "$out/tools/sbin/bpftool" ] && cp "$out/tools/sbin/bpftool" "$st/"
	cp "$B/kbuild-full/arch/x86/boot/bzImage" "$B/bzImage-patched"
	echo "test-full: patched: $(find "$st" -type f | wc -l) files ($(du -sh "$st" | cut -f1))"
}

pristine() {
	local out=$B/mods-pristine st=$B/stage-pristine m targets=()
	[ -d "$B/stage-patched" ] || { echo "test-full: run the patched step first" >&2; exit 1; }
	tree none none
	for m in $MODS; do targets+=("$out/$m"); done
	selftests "$out" "${targets[@]}"
	check_mod_btf "$out"
	cp "$B/kbuild-full/arch/x86/boot/bzImage" "$B/bzImage-pristine"
	stage_pristine
}

stage_pristine() {
	local st=$B/stage-pristine m
	[ -f "$B/bzImage-pristine" ] || { echo "test-full: run the pristine step first" >&2; exit 1; }
	rm -rf "$st"
	cp -a "$B/stage-patched" "$st"
	for m in $MODS; do cp "$B/mods-pristine/$m" "$st/"; done
	echo "test-full: pristine: kernel and modules ready"
}

run() {	# run patched|pristine
	local v=$1 args=${TEST_PROGS_ARGS:-} cmd rc=0
	# The series' own tests run in make test, on the debug kernel; here
	# only the upstream suite, the same on both kernels. Not run either:
	# two stress tests of text patching that end 7.3 under TCG in an
	# "Oops: int3" on both kernels, pristine too (docs/results/test-full.md).
	args="$args -d 'ip_cookie*' -d fentry_attach_stress,tracing_multi_bench_attach"
	# Each runner's exit status is printed even when one of them fails.
	cmd=""
	for r in ${RUNNERS:-test_progs test_verifier test_maps}; do
		[ "$r" = test_progs ] && r="test_progs $args"
		cmd="$cmd ./$r; echo \"HARNESS-RC ${r%% *} \$?\";"
	done
	mkdir -p "$B/vm"
	BUILD=$B VM_EXTRA_FILES="$B/stage-$v/." "$S/vm-run.sh" --kernel full \
		--image "$B/bzImage-$v" --timeout "${VM_TIMEOUT:-14400}" \
		--log "$B/vm/$v${LOG_TAG:-}.log" -- "$cmd" || rc=$?
	echo "test-full: $v: VM exit $rc; log $B/vm/$v${LOG_TAG:-}.log.txt"
}

report() {
	python3 "$S/test-report.py" compare "$B/vm/pristine.log.txt" "$B/vm/patched.log.txt"
}

case ${1:-all} in
patched)	patched ;;
pristine)	pristine ;;
stage-pristine)	stage_pristine ;;
run-patched)	run patched ;;
run-pristine)	run pristine ;;
report)		report ;;
all)		patched; pristine; run patched; run pristine; report ;;
*)	echo "usage: $0 [patched|pristine|stage-pristine|run-patched|run-pristine|report]" >&2; exit 2 ;;
esac
