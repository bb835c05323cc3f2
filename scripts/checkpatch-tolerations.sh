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
	tools/testing/selftests/bpf/prog_tests/*|tools/testing/selftests/bpf/ip_cookie_helpers.h)
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
	UNKNOWN_COMMIT_ID) echo "an upstream commit the history-less base (a source tarball) does not have, listed with its subject in series/upstream-commits" ;;
	*) echo "(no reason recorded)" ;;
	esac
}

# checkpatch_known_commit BLOCK: true if BLOCK, an UNKNOWN_COMMIT_ID
# finding ("Unknown commit id 'ID'" and the line naming it, lines joined
# by \x1f or newlines), names a commit of series/upstream-commits with
# that commit's subject (its start, where the line wraps).
checkpatch_known_commit() {
	local id subject quoted
	[[ $1 =~ "Unknown commit id '"([0-9a-f]{12})"'" ]] || return 1
	id=${BASH_REMATCH[1]}
	subject=$(sed -n "s/^$id //p" "$(dirname "${BASH_SOURCE[0]}")/../series/upstream-commits")
	[ -n "$subject" ] || return 1
	quoted=${1#*"$id (\""}
	[ "$quoted" != "$1" ] || return 1
	quoted=${quoted%%$'\x1f'*}
	quoted=${quoted%%$'\n'*}
	quoted=${quoted%%\"*}
	quoted=${quoted%"${quoted##*[![:space:]]}"}
	[ ${#quoted} -ge 10 ] && [[ $subject == "$quoted"* ]]
}
