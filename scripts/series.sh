#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make patches: turn this repository (pristine 7.3 + patches/*.patch +
# mirror files) into a bpf-next patch series in build/series/.
#
#   1. series/manifest says which file goes into which patch, and in which
#      order; every mirror file and every patches/*.patch must be listed
#      (a file nobody placed stops the run, naming it). The patch file of
#      the Nth patch, id ID, is patches/NN-ID.patch, so that its name says
#      where it goes; scripts/prepare-tree.sh applies the patch files in the
#      manifest's order too, so make test builds what is sent.
#   2. build/series-git is a git repository of the pristine tree (the
#      Debian linux-source-7.3 tarball, as build/src), committed once as
#      the tag "base" and reused.
#   3. Branch "series" is rebuilt from "base": one commit per manifest
#      patch, authored and signed off by `git config user.name/user.email`.
#   4. git format-patch --cover-letter into build/series/, and the cover
#      letter filled from series/cover-letter.txt and the committed
#      docs/results/summary-*.json.
# Commit and author dates are the date of this repository's HEAD commit,
# so the same repository state gives the same series byte for byte.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
# The package version of the tarball: scripts/fetch-base.sh's stamp.
pkgver() { cut -d' ' -f1 "$BASE_HOME/dl/linux-source-7.3.stamp" 2>/dev/null || echo unknown; }
SRC=$BUILD/src
GITDIR=$BUILD/series-git
OUT=$BUILD/series
MANIFEST=$ROOT/series/manifest


# 0. Who signs the series: the user, never a made-up identity.
NAME=$(git -C "$ROOT" config user.name || true)
EMAIL=$(git -C "$ROOT" config user.email || true)
if [ -z "$NAME" ] || [ -z "$EMAIL" ]; then
	echo "make patches: no git identity; set it with: git config --global user.name \"Your Name\"; git config --global user.email \"<your address>\"" >&2
	exit 1
fi
DATE=$(git -C "$ROOT" log -1 --format=%cI HEAD)
export GIT_AUTHOR_NAME=$NAME GIT_AUTHOR_EMAIL=$EMAIL
export GIT_COMMITTER_NAME=$NAME GIT_COMMITTER_EMAIL=$EMAIL
export GIT_AUTHOR_DATE=$DATE GIT_COMMITTER_DATE=$DATE

mkdir -p "$BUILD"
tmp=$(mktemp -d "$BUILD/series.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# 1. The manifest. ids[] keeps the series order; entries go to files named
# after the id in $tmp/ids/.
mirror_files > "$tmp/mirror"
(cd "$ROOT" && find patches -maxdepth 1 -name '*.patch' -type f | LC_ALL=C sort) > "$tmp/patches"
(cd "$ROOT" && find series -maxdepth 1 -name '*.msg' -type f | LC_ALL=C sort) > "$tmp/msgs"
[ -f "$MANIFEST" ] || die "no $MANIFEST"
mkdir -p "$tmp/ids"
ids=()
: > "$tmp/listed"
n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	line=${line%%#*}
	# shellcheck disable=SC2086
	set -- $line
	[ $# = 0 ] && continue
	[ $# = 2 ] || die "series/manifest:$n: want \"<patch-id> <path>\", got: $line"
	id=$1 path=$2
	case $id in
	-|[a-z]*) ;;
	*) die "series/manifest:$n: bad patch id '$id' (lower-case name, or - for files kept out)" ;;
	esac
	case $id in *[!a-z0-9_-]*) die "series/manifest:$n: bad patch id '$id'" ;; esac
	[ -f "$ROOT/$path" ] || die "series/manifest:$n: $path does not exist"
	grep -qxF "$path" "$tmp/listed" && die "series/manifest:$n: $path is listed twice"
	if grep -qxF "$path" "$tmp/patches"; then
		kind="patch"
	elif grep -qxF "$path" "$tmp/mirror"; then
		kind="file"
	elif grep -qxF "$path" "$tmp/msgs"; then
		kind="msg"
		[ "$id" = - ] && die "series/manifest:$n: a message ($path) needs a patch id"
		grep -q "^msg " "$tmp/ids/$id" 2>/dev/null &&
			die "series/manifest:$n: patch '$id' has two messages"
	else
		die "series/manifest:$n: $path is neither patches/*.patch, series/*.msg nor a mirror file (mirror_files in scripts/base-lib.sh)"
	fi
	echo "$path" >> "$tmp/listed"
	if [ "$id" != - ] && [ ! -f "$tmp/ids/$id" ]; then
		ids+=("$id")
	fi
	if [ "$kind" = patch ] && [ "$id" != - ]; then
		grep -q "^patch " "$tmp/ids/$id" 2>/dev/null &&
			die "series/manifest:$n: patch '$id' has two patch files: make them one"
		pos=0
		for i in "${!ids[@]}"; do [ "${ids[$i]}" = "$id" ] && pos=$((i + 1)); done
		want=$(printf 'patches/%02d-%s.patch' "$pos" "$id")
		[ "$path" = "$want" ] ||
			die "series/manifest:$n: $path: patch '$id' is number $pos of the series: name its file $want (git mv)"
	fi
	echo "$kind $path" >> "$tmp/ids/$id"
done < "$MANIFEST"
while read -r f; do
	grep -qxF "$f" "$tmp/listed" ||
		die "$f is not in series/manifest: add a line \"<patch-id> $f\" (or \"- $f\" to keep it out, with the reason)"
done < <(cat "$tmp/mirror" "$tmp/patches" "$tmp/msgs")
[ ${#ids[@]} -gt 0 ] || die "series/manifest places no file in a patch"
touch "$tmp/ids/-"

# The commit message of one patch: its series/*.msg, else the header of its
# patches/*.patch (Subject: line, then the text above "---").
message() {
	local id=$1 src out=$2
	src=$(sed -n 's/^msg //p' "$tmp/ids/$id")
	if [ -n "$src" ]; then
		cp "$ROOT/$src" "$out"
	else
		src=$(sed -n 's/^patch //p' "$tmp/ids/$id" | head -n1)
		[ -n "$src" ] || die "patch '$id' has no message: add a line \"$id series/<name>.msg\" to series/manifest"
		awk -v f="$src" '
			/^---$/ { done = 1; exit }
			!subj && /^Subject: / { sub(/^Subject: (\[[^]]*\] *)?/, ""); print; print ""; subj = 1; next }
			subj && !body && /^$/ { body = 1; next }
			subj { print }
			END { if (!subj) { print "series: " f ": no Subject: line" > "/dev/stderr"; exit 1 } }
		' "$ROOT/$src" > "$out" || die "$src: cannot take a commit message from it"
	fi
	grep -qiE '^(Signed-off-by|From|Co-developed-by):' "$out" &&
		die "$src: has a Signed-off-by/From line; drop it, make patches signs off with your git identity"
	[ -n "$(head -n1 "$out")" ] || die "$src: the first line (subject) is empty"
	[ "$(sed -n 2p "$out")" = "" ] || die "$src: the second line must be empty (subject, blank line, body)"
	echo "$src"
}

# One generator at a time (make check reuses what it leaves).
take_lock "$BUILD/.lock-series" "another make patches/check"

# 2. The pristine tree, as prepare-tree.sh extracts it, in git once.
src_extracted "$SRC" || "$ROOT/scripts/prepare-tree.sh" > /dev/null
base_id="$(stat -c '%s %Y' "$TARBALL") $(stat -c '%Y' "$SRC/.extracted")"
G=(git -C "$GITDIR")
if [ "$(cat "$GITDIR/.git/series-base-id" 2>/dev/null)" != "$base_id" ] ||
   ! "${G[@]}" rev-parse -q --verify refs/tags/base >/dev/null; then
	echo "series: committing the pristine tree as the base of $GITDIR (once; a few minutes)"
	rm -rf "$GITDIR"
	mkdir -p "$GITDIR"
	rsync -a --exclude=/.extracted "$SRC/" "$GITDIR/"
	"${G[@]}" init -q
	"${G[@]}" config gc.auto 0
	"${G[@]}" config core.autocrlf false
	"${G[@]}" add -A -f .
	kver=$(make -s -C "$GITDIR" kernelversion)
	pkg=$(pkgver)
	GIT_AUTHOR_DATE="@$(stat -c %Y "$TARBALL")" GIT_COMMITTER_DATE="@$(stat -c %Y "$TARBALL")" \
		"${G[@]}" commit -q -m "Linux $kver" \
		-m "Pristine source of Debian's linux-source-7.3 $pkg ($(basename "$TARBALL")), the base of the series."
	"${G[@]}" tag base
	echo "$kver" > "$GITDIR/.git/series-kernelversion"
	echo "$base_id" > "$GITDIR/.git/series-base-id"
fi
KVER=$(cat "$GITDIR/.git/series-kernelversion")

# 3. The series branch, one commit per patch id. A mirror file goes in as
# the patch that adds it has it: without what later patches change in it
# (base-lib.sh, mirror_prestate).
series_patches=()
for id in "${ids[@]}"; do
	while read -r kind path; do
		[ "$kind" = patch ] && series_patches+=("$ROOT/$path")
	done < "$tmp/ids/$id"
done
mkdir -p "$tmp/pre"
(cd "$ROOT" && xargs -a "$tmp/mirror" cp --parents -t "$tmp/pre")
mirror_prestate "$tmp/pre" "$tmp/mirror" "${series_patches[@]}" ||
	die "a patch's sections of mirror files do not match them (above)"
"${G[@]}" checkout -q -f -B series base
"${G[@]}" clean -q -f -d -x
for id in "${ids[@]}"; do
	while read -r kind path; do
		case $kind in
		patch)
			if ! out=$(cd "$GITDIR" && patch -p1 -N --batch --fuzz=0 \
					--no-backup-if-mismatch -r - < "$ROOT/$path" 2>&1); then
				echo "series: $path (patch '$id') does not apply after the patches before it in series/manifest:" >&2
				echo "$out" | grep -E 'patching file|FAILED|malformed|Reversed|can.t find|No file' >&2 || echo "$out" >&2
				exit 1
			fi ;;
		file)
			mkdir -p "$GITDIR/$(dirname "$path")"
			rm -f "$GITDIR/$path"
			cp "$tmp/pre/$path" "$GITDIR/$path" ;;
		esac
	done < "$tmp/ids/$id"
	"${G[@]}" add -A -f .
	"${G[@]}" diff --cached --quiet && die "patch '$id' changes nothing"
	src=$(message "$id" "$tmp/msg")
	"${G[@]}" commit -q -s --cleanup=whitespace -F "$tmp/msg"
	printf 'series: %-8s %s  (message: %s)\n' "$id" "$("${G[@]}" log -1 --format=%s)" "$src"
done

# Every mirror file of the series ends as the repository has it.
for id in "${ids[@]}"; do
	sed -n 's/^file //p' "$tmp/ids/$id"
done | while read -r path; do
	cmp -s "$ROOT/$path" "$GITDIR/$path" ||
		die "$path: the patches that change it do not add up to the repository's file"
done

# Files kept out ("-") must not be in the series.
: > "$tmp/out-files"
while read -r kind path; do
	case $kind in
	file) echo "$path" >> "$tmp/out-files" ;;
	patch) sed -n 's|^+++ b/\([^\t]*\).*$|\1|p' "$ROOT/$path" >> "$tmp/out-files" ;;
	esac
done < "$tmp/ids/-"
while read -r f; do
	if "${G[@]}" cat-file -e "HEAD:$f" 2>/dev/null && ! "${G[@]}" cat-file -e "base:$f" 2>/dev/null; then
		die "$f is kept out of the series but the series adds it"
	fi
done < "$tmp/out-files"

# 4. The mails.
mkdir -p "$OUT"
rm -f "$OUT"/*.patch
"${G[@]}" format-patch -q --cover-letter -o "$OUT" --subject-prefix='PATCH bpf-next' base..series
cover=$OUT/0000-cover-letter.patch
[ -f "$cover" ] || die "git format-patch wrote no cover letter"

# Results: the committed summaries of make bench (full mode where there is
# one): instruction counts first, memory and attach times from the time run.
rev=$(git -C "$ROOT" rev-parse --short HEAD)
pick() {	# pick PREFIX OUT: the committed summary-PREFIX{full,quick}.json
	local mode
	for mode in full quick; do
		if git -C "$ROOT" show "HEAD:docs/results/summary-$1$mode.json" > "$2" 2>/dev/null; then
			echo "docs/results/summary-$1$mode.json"
			return
		fi
	done
}
time_res=$(pick "" "$tmp/time.json")
[ -n "$time_res" ] || die "no committed docs/results/summary-{full,quick}.json: run make bench and commit docs/results/"
icount_res=$(pick icount- "$tmp/summary.json")
if [ -n "$icount_res" ]; then
	results="$icount_res and $time_res"
else
	cp "$tmp/time.json" "$tmp/summary.json"
	results=$time_res
fi
python3 "$ROOT/scripts/series-results.py" "$tmp/summary.json" \
	"$results of the development repository at $rev" "$tmp/time.json" > "$tmp/results"
pkg=$(pkgver)
cat > "$tmp/base" <<EOF
The series applies to Linux $KVER as shipped in Debian's
linux-source-7.3 package ($pkg), the tree it was developed,
tested and measured on; it has not been rebased onto bpf-next yet.
EOF
# Patch numbers by id, for @N:<id>@ in the texts.
i=0
: > "$tmp/numbers"
for id in "${ids[@]}"; do
	i=$((i + 1))
	echo "$id $i" >> "$tmp/numbers"
done
python3 - "$cover" "$ROOT/series/cover-letter.txt" "$tmp/results" "$tmp/base" "$tmp/numbers" <<'EOF'
import re
import sys

cover, tmpl, results, base, numbers = sys.argv[1:6]
num = dict(line.split() for line in open(numbers))
# The sources of its figures (scripts/docs-figures.py) stay out of the mail.
text = re.sub(r'<!--.*?-->', '', open(tmpl).read(), flags=re.S)
text = text.replace('@RESULTS@', open(results).read().rstrip())
text = text.replace('@BASE@', open(base).read().rstrip())


def patchno(m):
    if m.group(1) not in num:
        sys.exit('series: cover letter: @N:%s@ names no patch of series/manifest' % m.group(1))
    return num[m.group(1)]


text = re.sub(r'@N:([a-z0-9_-]+)@', patchno, text)
left = re.findall(r'@[A-Z:a-z0-9_-]+@', text)
if left:
    sys.exit('series: cover letter: unknown placeholders %s' % ' '.join(left))
subject, _, body = text.partition('\n')
body = body.lstrip('\n').rstrip() + '\n'
mail = open(cover).read()
if '*** SUBJECT HERE ***' not in mail or '*** BLURB HERE ***' not in mail:
    sys.exit('series: %s: no placeholders from git format-patch' % cover)
mail = mail.replace('*** SUBJECT HERE ***', subject.strip(), 1)
mail = mail.replace('*** BLURB HERE ***\n', body, 1)
open(cover, 'w').write(mail)
EOF

# The results are from an earlier state of the code: say so when it moved.
measured=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["env"].get("git",""))' "$tmp/summary.json")
if [ -n "$measured" ] && git -C "$ROOT" rev-parse -q --verify "$measured^{commit}" >/dev/null; then
	moved=$(git -C "$ROOT" rev-list --count "$measured..HEAD" -- kernel include arch patches)
	dirty=$(git -C "$ROOT" status --porcelain -- kernel include arch patches | wc -l)
	if [ "$moved" != 0 ] || [ "$dirty" != 0 ]; then
		echo "series: note: $results was measured at $measured; since then $moved commits (and $dirty uncommitted files) changed the kernel side: rerun make bench before sending"
	fi
fi

mails=("$OUT"/*.patch)
echo "series: ${#mails[@]} mails in ${OUT#"$ROOT"/} (base: Linux $KVER, tip: $("${G[@]}" rev-parse --short series), author: $NAME <$EMAIL>)"
printf '  %s\n' "${mails[@]#"$ROOT"/}"
