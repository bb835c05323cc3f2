#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the repository's kernel mirror files (new files kept at their place
# in the kernel tree), one path per line, relative to the repository root,
# sorted. The one definition of "mirror file" for prepare-tree.sh,
# checkpatch.sh and the series generator (series.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# Top-level kernel directories that the repo mirrors (not scripts/: that one
# holds the harness).
MIRROR_DIRS="arch block crypto Documentation drivers fs include init ipc kernel
lib mm net samples security sound tools usr virt"

cd "$ROOT"
for d in $MIRROR_DIRS; do
	[ -d "$d" ] || continue
	# Editor, patch and checkpatch leftovers are not mirror files.
	find "$d" -type f ! -name '*~' ! -name '.*.swp' ! -name '*.orig' ! -name '*.rej' \
		! -name '.checkpatch-camelcase.*'
done | LC_ALL=C sort
