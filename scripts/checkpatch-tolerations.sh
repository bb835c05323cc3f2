# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The checkpatch.pl findings this project tolerates, by file: only where
# upstream tolerates the same thing. Sourced by scripts/checkpatch.sh
# (checkpatch -f on each new file) and scripts/series-check.sh (checkpatch
# on each generated mail, findings filtered by the file they are in).
# The first matching pattern wins.

# checkpatch_tolerated FILE: the tolerated types, comma-separated (or
# nothing), for FILE as a path in the kernel tree.
checkpatch_tolerated() {
	case $1 in
	include/uapi/linux/bpf.h|tools/include/uapi/linux/bpf.h)
		echo SPACING ;;
	tools/testing/selftests/bpf/progs/*)
		echo VOLATILE,PREFER_DEFINED_ATTRIBUTE_MACRO ;;
	tools/testing/selftests/bpf/prog_tests/*)
		echo LONG_LINE_STRING,ENOTSUPP ;;
	tools/*)
		echo LONG_LINE_STRING ;;
	esac
}

# checkpatch_why TYPE: why upstream tolerates it where it is tolerated.
checkpatch_why() {
	case $1 in
	VOLATILE) echo "BPF programs need \"const volatile\" for libbpf's .rodata" ;;
	PREFER_DEFINED_ATTRIBUTE_MACRO) echo "BPF programs have no __aligned()" ;;
	ENOTSUPP) echo "the bpf syscall returns ENOTSUPP (524) where a test asserts the exact errno, as upstream selftests do" ;;
	SPACING) echo "anonymous bit-field padding (\"__u32 :32;\"), as uapi/linux/bpf.h has three times already; checkpatch reads the ':' as an operator" ;;
	LONG_LINE_STRING) echo "machine-parsed output lines are not split (coding-style: never break user-visible strings)" ;;
	*) echo "(no reason recorded)" ;;
	esac
}

# Mainline commits that Fixes: tags of the series name. checkpatch looks a
# commit up in the git tree it runs in, and the trees here (Debian's 6.12
# tarball, committed once in build/series-git) have no history, so it
# reports UNKNOWN_COMMIT_ID for each. A hash listed here was checked
# against public copies of the upstream commit (full hash and subject):
#   c09eb2e578eb1668bbc84dc07e8d8bd6f04b9a02
#     bpf: Adjust kprobe_multi entry_ip for CONFIG_X86_KERNEL_IBT
KNOWN_COMMITS="c09eb2e578eb1668bbc84dc07e8d8bd6f04b9a02"

# checkpatch_known_commit BLOCK: true if the finding BLOCK is
# UNKNOWN_COMMIT_ID for a commit of KNOWN_COMMITS.
checkpatch_known_commit() {
	local hash known
	[[ $1 =~ UNKNOWN_COMMIT_ID:\ Unknown\ commit\ id\ \'([0-9a-f]{12,40})\' ]] || return 1
	hash=${BASH_REMATCH[1]}
	for known in $KNOWN_COMMITS; do
		[[ $known == "$hash"* ]] && return 0
	done
	return 1
}
