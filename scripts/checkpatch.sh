#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict on every patch and on every new (mirror) file.
# Mirror files are checked as their synced copies in build/linux, so that
# checkpatch sees kernel-relative paths (kernel/bpf/... rules).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
LINUX=$BUILD/linux
PDIR=$ROOT/patches
CP=(perl "$LINUX/scripts/checkpatch.pl" --strict --no-summary --quiet --show-types)
# Tolerated where upstream tolerates them; make check uses the same table.
. "$ROOT/scripts/checkpatch-tolerations.sh"

# Print the findings of checkpatch output $1 that are not tolerated in
# their file (see checkpatch-tolerations.sh); false if there are any.
untolerated() {
	local block first type file bad=0
	while IFS= read -r block; do
		[ -n "$block" ] || continue
		first=${block%%$'\x1f'*}
		type=""
		file=""
		[[ $first =~ ^(ERROR|WARNING|CHECK):([A-Z0-9_]+): ]] && type=${BASH_REMATCH[2]}
		[[ $block =~ FILE:\ ([^:]+): ]] && file=${BASH_REMATCH[1]}
		if [ -n "$type" ] && [ -n "$file" ] &&
		   [[ ,$(checkpatch_tolerated "$file"), == *,"$type",* ]]; then
			echo "  tolerated: $type in $file: $(checkpatch_why "$type")"
			continue
		fi
		if [ "$type" = UNKNOWN_COMMIT_ID ] && checkpatch_known_commit "$block"; then
			echo "  tolerated: $type: $(checkpatch_why "$type")"
			continue
		fi
		printf '%s\n\n' "${block//$'\x1f'/$'\n'}"
		bad=1
	done < <(printf '%s\n\n' "$1" | awk -v RS= '{ gsub(/\n/, "\x1f"); print }')
	return $bad
}

rc=0
cd "$LINUX" || exit 1
for p in "$PDIR"/*.patch; do
	[ -f "$p" ] || continue
	echo "checkpatch: $(basename "$p")"
	# No sign-off here: make patches adds the user's own.
	out=$("${CP[@]}" --ignore MISSING_SIGN_OFF "$p" 2>&1)
	untolerated "$out" || rc=1
done
while read -r f; do
	echo "checkpatch: $f"
	ign=()
	t=$(checkpatch_tolerated "$f")
	[ -z "$t" ] || ign=(--ignore "$t")
	"${CP[@]}" "${ign[@]}" -f "$f" || rc=1	# synced copy: kernel-relative path
done < <(mirror_files)
[ $rc = 0 ] && echo "checkpatch: clean" || echo "checkpatch: problems found" >&2
exit $rc
