#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict on every patch and on every new (mirror) file.
# Mirror files are checked as their synced copies in build/linux, so that
# checkpatch sees kernel-relative paths (kernel/bpf/... rules).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LINUX=${BUILD:-$ROOT/build}/linux
CP=(perl "$LINUX/scripts/checkpatch.pl" --strict --no-summary --quiet --show-types)
MIRROR_DIRS="arch block crypto Documentation drivers fs include init ipc kernel
lib mm net samples security sound tools usr virt"

rc=0
cd "$LINUX" || exit 1
for p in "$ROOT"/patches/*.patch; do
	[ -f "$p" ] || continue
	echo "checkpatch: $(basename "$p")"
	"${CP[@]}" "$p" || rc=1
done
for d in $MIRROR_DIRS; do
	[ -d "$ROOT/$d" ] || continue
	while read -r f; do
		echo "checkpatch: $f"
		# Tolerated where upstream tolerates them: BPF programs need
		# "const volatile" for libbpf's .rodata and have no __aligned();
		# machine-parsed output lines are not split (coding-style: never
		# break user-visible strings).
		ign=()
		case $f in
		tools/testing/selftests/bpf/progs/*)
			ign=(--ignore VOLATILE,PREFER_DEFINED_ATTRIBUTE_MACRO) ;;
		tools/*)
			ign=(--ignore LONG_LINE_STRING) ;;
		esac
		"${CP[@]}" "${ign[@]}" -f "$f" || rc=1	# synced copy: kernel-relative path
	done < <(cd "$ROOT" && find "$d" -type f | sort)
done
[ $rc = 0 ] && echo "checkpatch: clean" || echo "checkpatch: problems found" >&2
exit $rc
