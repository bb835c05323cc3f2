#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict on every patch and on every new (mirror) file.
# Mirror files are checked as their synced copies in build/linux, so that
# checkpatch sees kernel-relative paths (kernel/bpf/... rules).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LINUX=${BUILD:-$ROOT/build}/linux
CP=(perl "$LINUX/scripts/checkpatch.pl" --strict --no-summary --quiet --show-types)
# Tolerated where upstream tolerates them; make check uses the same table.
# shellcheck disable=SC1091	# checked on its own
. "$ROOT/scripts/checkpatch-tolerations.sh"

rc=0
cd "$LINUX" || exit 1
for p in "$ROOT"/patches/*.patch; do
	[ -f "$p" ] || continue
	echo "checkpatch: $(basename "$p")"
	# No sign-off here: make patches adds the user's own.
	"${CP[@]}" --ignore MISSING_SIGN_OFF "$p" || rc=1
done
while read -r f; do
	echo "checkpatch: $f"
	ign=()
	t=$(checkpatch_tolerated "$f")
	[ -z "$t" ] || ign=(--ignore "$t")
	"${CP[@]}" "${ign[@]}" -f "$f" || rc=1	# synced copy: kernel-relative path
done < <("$ROOT/scripts/mirror-files.sh")
[ $rc = 0 ] && echo "checkpatch: clean" || echo "checkpatch: problems found" >&2
exit $rc
