#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: regenerate the series (scripts/series.sh) and prove it is
# ready to send. Exits non-zero on any finding. Checks, in this order:
#   checkpatch  checkpatch.pl --strict on every mail; no ERROR, WARNING or
#               CHECK except the tolerations of checkpatch-tolerations.sh
#               and FILE_PATH_CHANGES for new files that existing
#               MAINTAINERS entries cover
#   identity    From: and Signed-off-by: of every mail are the user's git
#               identity (the From: of contrib/bpftrace's and
#               contrib/retsnoop's patches too); no
#               other e-mail address in the repository's own files
#   message     each test file a patch adds (prog_tests/NAME.c) is named
#               (NAME) in its commit message, which says what it covers
#   scripts     shellcheck on the new shell scripts of the series
#   refs        no added line refers to this repository's harness (make
#               test/bench, scripts/, docs/results, patches/) or to a patch
#               by number, which means nothing in the kernel tree
#   am          git am of the mails onto a fresh branch at the pristine
#               base gives the same tree as the series
#   uapi        tools/include/uapi/linux/bpf.h equals
#               include/uapi/linux/bpf.h after the series
#   docs        every figure of README.md, docs/ and the cover letter
#               against docs/results/ (scripts/docs-figures.py check);
#               htmldocs of Documentation/bpf (Debian's Sphinx) and the
#               bpftool man pages without warnings in the series' files;
#               kernel-doc -Wall on the new kernel sources
#   build       every prefix of the series: the base config
#               (configs/base.config), libbpf + bpftool after the patches
#               that touch tools/ parts they are built from, and test_progs
#               + bench (scripts/build-selftests.sh, against that prefix's
#               vmlinux BTF) after the patches that touch the selftests;
#               compiler warnings in the series' files are findings
#   sparse      W=1 C=2 (sparse) on the new kernel C files at the tip
#   cross       the tip for ARCH=i386 and ARCH=arm64 (configs/cross*.config;
#               arm64 only if Debian's gcc-aarch64-linux-gnu installs)
# Variables:
#   CHECKS="checkpatch am ..."  run only these checks (default: all)
#   PREFIXES="1 3"              build only these prefixes (default: all)
#   CROSS="i386 arm64"          cross builds to do
#   CROSS_TARGETS="vmlinux"     make targets of the cross builds
#   SERIES=keep                 check build/series/ as it is (no make patches)
#   JOBS=n
# Output: build/series-check/ (a git worktree of build/series-git in
# linux/, kernel and tools output, logs/).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
GITDIR=$BUILD/series-git
OUT=$BUILD/series
CB=$BUILD/series-check
W=$CB/linux
LOGS=$CB/logs
CHECKS=${CHECKS:-checkpatch identity message scripts refs am uapi docs build sparse cross}
PREFIXES=${PREFIXES:-all}
CROSS=${CROSS:-i386 arm64}
CROSS_TARGETS=${CROSS_TARGETS:-vmlinux}
export JOBS=${JOBS:-$(nproc)}
# Debian's python3 (ply, git, Sphinx), not a python3 earlier in PATH; but
# build/bin first still, for pahole 1.30 (Debian 12's 1.24 cannot encode
# 7.3's BTF: bpf_testmod.ko's failed with "unrecognized option
# --btf_features" in the selftests of a prefix).
export PATH="$BASE_HOME/bin:/usr/bin:$PATH"
S=$ROOT/scripts
. "$S/checkpatch-tolerations.sh"

# shellcheck disable=SC2034	# base-lib.sh's die and take_lock print it
ME=check
wants() { case " $CHECKS " in *" $1 "*) return 0 ;; esac; return 1; }
# The prog_tests of this repository that series/manifest keeps out of the
# series ("-" lines): a prefix of the series has no source for them.
not_in_series_tests() {
	local f

	sed -n 's|^-[[:space:]]\{1,\}tools/testing/selftests/bpf/prog_tests/\([A-Za-z0-9_]*\)\.c$|\1|p' \
		"$ROOT/series/manifest" | tr '\n' ' '
	# The tests of tools-extra/ (scripts/build-selftests.sh adds them).
	for f in "$ROOT"/tools-extra/*/prog_tests/*.c; do
		[ -f "$f" ] && printf '%s ' "$(basename "$f" .c)"
	done
}
# The prog_tests of this repository that the prefix checked out in $W has
# no source for yet (a later patch adds them).
absent_tests() {
	local f t
	for f in "$ROOT"/tools/testing/selftests/bpf/prog_tests/*.c; do
		t=$(basename "$f" .c)
		[ -f "$W/tools/testing/selftests/bpf/prog_tests/$t.c" ] || printf '%s ' "$t"
	done
}

"$S/install-deps.sh" python3-sphinx python3-ply python3-git sparse shellcheck

if [ "${SERIES:-}" != keep ]; then
	"$S/series.sh"
fi
[ -f "$OUT/0000-cover-letter.patch" ] || die "no series in $OUT (run make patches)"

mkdir -p "$CB" "$LOGS"
take_lock "$BUILD/.lock-series" "another make patches/check"

tmp=$(mktemp -d "$CB/tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/findings"
: > "$tmp/summary"

G=(git -C "$GITDIR")
"${G[@]}" rev-parse -q --verify series >/dev/null || die "no branch series in $GITDIR (run make patches)"
mapfile -t commits < <("${G[@]}" rev-list --reverse base..series)
mapfile -t mails < <(find "$OUT" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-cover-letter.patch' | LC_ALL=C sort)
[ ${#mails[@]} = ${#commits[@]} ] ||
	die "$OUT has ${#mails[@]} patches, branch series ${#commits[@]} commits (rerun make patches)"
# Files the series adds or changes: warnings in them are ours.
"${G[@]}" diff --name-only base series > "$tmp/touched"
"${G[@]}" diff --name-only --diff-filter=A base series > "$tmp/added"

NAME=$(git -C "$ROOT" config user.name || true)
EMAIL=$(git -C "$ROOT" config user.email || true)

check=""
nfind=0
t0=0
begin() {
	check=$1
	nfind=$(wc -l < "$tmp/findings")
	t0=$SECONDS
	echo "check: --- $check"
}
finding() {
	echo "check: FAIL $check: $*"
	echo "$check: $*" >> "$tmp/findings"
}
note() { echo "check: $check: $*"; }
end() {
	local n dt status
	n=$(( $(wc -l < "$tmp/findings") - nfind ))
	dt=$((SECONDS - t0))
	if [ -n "${1:-}" ]; then
		status=$1
	elif [ "$n" = 0 ]; then
		status=pass
	else
		status="FAIL ($n)"
	fi
	printf '  %-11s %-10s %4d s  %s\n' "$check" "$status" "$dt" "${2:-}" >> "$tmp/summary"
	echo "check: $check: $status ($dt s)"
}
errors() {	# log: its first error lines, on one line
	local e
	e=$(grep -E ': error:|undefined reference|SEVERE|[Ee]rror: ' "$1" | head -n3 || true)
	[ -n "$e" ] || e=$(grep -E 'error|Error' "$1" | grep -vE '^ +[A-Z]+ ' | head -n3 || true)
	printf '%s' "$e" | sed "s|$W/||g" | tr '\n' ' '
}
prefix_name() {	# "3/7 libbpf: Support ..."
	echo "$1/${#commits[@]} $("${G[@]}" log -1 --format=%s "${commits[$(($1 - 1))]}")"
}
# Compiler warnings of a build log: "warning:" lines naming a file of the
# series are findings; the others are counted.
warnings() {	# log label
	local log=$1 label=$2 f other=0
	while IFS= read -r line; do
		f=${line%%:*}
		f=${f#"$W"/}
		f=${f#../linux/}
		if grep -qxF "$f" "$tmp/touched"; then
			finding "$label: $line"
		else
			other=$((other + 1))
		fi
	done < <(grep -E '^[^ ]+:[0-9]+(:[0-9]+)?: warning:' "$log" || true)
	[ $other = 0 ] || note "$label: $other warnings in files the series does not touch (see $log)"
}

# The worktree the builds and the docs run in.
worktree() {	# commit
	if ! git -C "$W" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$W"
		"${G[@]}" worktree prune
		echo "check: checking out $W (once)"
		"${G[@]}" worktree add -q --detach "$W" "$1"
	fi
	git -C "$W" checkout -q -f --detach "$1"
}

# --- checkpatch
if wants checkpatch; then
	begin checkpatch
	tolerated=0
	for m in "${mails[@]}"; do
		name=$(basename "$m")
		out=$(cd "$GITDIR" && perl scripts/checkpatch.pl --strict --no-summary \
			--quiet --show-types "$m" 2>&1) || true
		# One finding per block: "TYPE:NAME: text", then "#N: FILE: path:line:".
		printf '%s\n\n' "$out" | awk -v RS= '{ gsub(/\n/, "\x1f"); print }' > "$tmp/blocks"
		while IFS= read -r block; do
			first=${block%%$'\x1f'*}
			if [[ $first =~ ^(ERROR|WARNING|CHECK):([A-Z0-9_]+): ]]; then
				type=${BASH_REMATCH[2]}
			else
				finding "$name: checkpatch said: ${block//$'\x1f'/ | }"
				continue
			fi
			file=""
			if [[ $block =~ FILE:\ ([^:]+): ]]; then
				file=${BASH_REMATCH[1]}
			fi
			ok=""
			if [ "$type" = UNKNOWN_COMMIT_ID ] && checkpatch_known_commit "$block"; then
				ok="$(checkpatch_why "$type")"
			elif [ -n "$file" ] && [[ ,$(checkpatch_tolerated "$file"), == *,"$type",* ]]; then
				ok="$(checkpatch_why "$type")"
			elif [ "$type" = FILE_PATH_CHANGES ] && [ -z "$file" ]; then
				# New files: fine when existing MAINTAINERS entries cover them.
				ok="new files covered by MAINTAINERS:"
				while read -r f; do
					if (cd "$GITDIR" && perl scripts/get_maintainer.pl --no-git \
						--no-git-fallback --no-rolestats -f "$f" 2>/dev/null) |
						grep -q 'bpf@vger.kernel.org'; then
						ok="$ok $f"
					else
						ok=""
						break
					fi
				done < <(sed -n 's/^ create mode [0-7]* //p' "$m")
				[ -n "$ok" ] && ok="existing MAINTAINERS entries (BPF, list bpf@vger.kernel.org) cover the new files, as upstream expects for files in a maintained directory"
			fi
			if [ -n "$ok" ]; then
				tolerated=$((tolerated + 1))
				note "$name: tolerated $type${file:+ in $file}: $ok"
			else
				finding "$name: ${first}${file:+ ($file)}"
			fi
		done < "$tmp/blocks"
	done
	end "" "${#mails[@]} mails, $tolerated findings tolerated"
fi

# --- identity
if wants identity; then
	begin identity
	want="$NAME <$EMAIL>"
	for m in "$OUT/0000-cover-letter.patch" "${mails[@]}"; do
		name=$(basename "$m")
		info=$(git mailinfo "$tmp/msg" "$tmp/patch" < "$m")
		author="$(sed -n 's/^Author: //p' <<< "$info") <$(sed -n 's/^Email: //p' <<< "$info")>"
		[ "$author" = "$want" ] || finding "$name: From: $author, not $want"
		[ "$name" = 0000-cover-letter.patch ] && continue
		mapfile -t sob < <(grep -E '^Signed-off-by:' "$tmp/msg" || true)
		[ ${#sob[@]} = 1 ] || finding "$name: ${#sob[@]} Signed-off-by lines, want 1"
		for s in "${sob[@]}"; do
			[ "$s" = "Signed-off-by: $want" ] || finding "$name: $s"
		done
	done
	# The bpftrace and retsnoop patches are mails too (git am needs their
	# From:): the same identity, and the only other place an address may be.
	for m in "$ROOT"/contrib/bpftrace/*.patch "$ROOT"/contrib/retsnoop/*.patch; do
		[ -f "$m" ] || continue
		info=$(git mailinfo "$tmp/msg" "$tmp/patch" < "$m")
		author="$(sed -n 's/^Author: //p' <<< "$info") <$(sed -n 's/^Email: //p' <<< "$info")>"
		[ "$author" = "$want" ] || finding "${m#"$ROOT"/}: From: $author, not $want"
	done
	# No e-mail address in our own files but the list the series goes to.
	{ git -C "$ROOT" ls-files; git -C "$ROOT" ls-files --others --exclude-standard; } |
		grep -v -e '^docs/results/raw-' -e '^contrib/\(bpftrace\|retsnoop\)/.*\.patch$' |
		sort -u > "$tmp/files"
	while IFS= read -r hit; do
		finding "address in the repository: $hit"
	done < <(cd "$ROOT" && xargs -d '\n' grep -nIoE \
		'[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}' < "$tmp/files" 2>/dev/null |
		grep -v ':bpf@vger\.kernel\.org$')
	end "" "From/Signed-off-by: $want"
fi

# --- message
if wants message; then
	begin message
	i=0
	n=0
	for c in "${commits[@]}"; do
		i=$((i + 1))
		"${G[@]}" log -1 --format=%B "$c" > "$tmp/body"
		while read -r f; do
			case $f in tools/testing/selftests/bpf/prog_tests/*.c) ;; *) continue ;; esac
			t=$(basename "$f" .c)
			n=$((n + 1))
			grep -qw -- "$t" "$tmp/body" ||
				finding "patch $(prefix_name $i): the commit message does not name $t (${f##*/})"
		done < <("${G[@]}" diff --name-only --diff-filter=A "$c^" "$c")
	done
	end "" "$n test files"
fi

# --- scripts
if wants scripts; then
	begin scripts
	n=0
	while read -r f; do
		case $f in *.sh) ;; *) continue ;; esac
		n=$((n + 1))
		"${G[@]}" show "series:$f" > "$tmp/script"
		# SC1091: a sourced file (run_bench_*.sh source
		# ./benchs/run_common.sh, as upstream's do) is not followed
		# from this copy; that is not a finding about the script.
		if ! out=$(shellcheck -e SC1091 "$tmp/script" 2>&1); then
			finding "$f: $(echo "$out" | grep -E 'SC[0-9]+' | head -n5 | tr '\n' ' ')"
		fi
	done < "$tmp/added"
	end "" "$n new scripts"
fi

# --- refs
if wants refs; then
	begin refs
	for m in "${mails[@]}"; do
		while IFS= read -r hit; do
			finding "$(basename "$m"): ${hit:0:160}"
		done < <(grep -nE '^\+.*(make (test|bench|check|patches)|docs/results|patches/[0-9]|scripts/(bench|test|build|series|prepare)|[Pp]atch [0-9]+\b)' "$m" || true)
	done
	end
fi

# --- am
if wants am; then
	begin am
	"${G[@]}" am --abort >/dev/null 2>&1 || true
	"${G[@]}" checkout -q -f -B am-check base
	if "${G[@]}" am -q "${mails[@]}" > "$tmp/am.log" 2>&1; then
		if "${G[@]}" diff --quiet series am-check; then
			note "git am of ${#mails[@]} mails onto base: same tree as the series"
		else
			finding "git am result differs from the series: $("${G[@]}" diff --stat series am-check | tail -n1)"
		fi
	else
		finding "git am failed: $(head -n5 "$tmp/am.log" | tr '\n' ' ')"
		"${G[@]}" am --abort >/dev/null 2>&1 || true
	fi
	"${G[@]}" checkout -q -f series
	end
fi

# --- uapi
if wants uapi; then
	begin uapi
	i=0
	for c in "${commits[@]}"; do
		i=$((i + 1))
		if ! "${G[@]}" diff --quiet "$c:include/uapi/linux/bpf.h" "$c:tools/include/uapi/linux/bpf.h"; then
			if [ $i = ${#commits[@]} ]; then
				finding "after the series: tools/include/uapi/linux/bpf.h differs from include/uapi/linux/bpf.h"
			else
				note "after $(prefix_name $i): the two bpf.h differ (a later patch syncs them)"
			fi
		fi
	done
	end
fi

# --- docs
if wants docs; then
	begin docs
	# Every figure in README.md, docs/ and the cover letter against
	# docs/results/ (scripts/docs-figures.py says what it checks).
	if out=$(python3 "$ROOT/scripts/docs-figures.py" check 2>&1); then
		note "$out"
	else
		while IFS= read -r line; do
			finding "$line"
		done < <(grep -v 'finding(s)$' <<< "$out")
	fi
	worktree series
	log=$LOGS/htmldocs.log
	docs_ok=1
	if make -C "$W" O="$CB/htmldocs" SPHINXDIRS=bpf htmldocs > "$log" 2>&1; then
		note "htmldocs SPHINXDIRS=bpf built (log: ${log#"$ROOT"/})"
	else
		docs_ok=0
		finding "make htmldocs SPHINXDIRS=bpf failed: $(grep -A2 -m2 -E 'SEVERE|ERROR|Exception|error:' "$log" | sed "s|$W/||" | tr '\n' ' ') (log: ${log#"$ROOT"/})"
	fi
	other=0
	while IFS= read -r line; do
		f=${line%%:*}
		f=${f#"$W"/}
		if grep -qxF "$f" "$tmp/touched"; then
			finding "htmldocs: ${line#"$W"/}"
		else
			other=$((other + 1))
		fi
	done < <(grep -E '(WARNING|ERROR|CRITICAL|SEVERE):' "$log" || true)
	[ $other = 0 ] || note "htmldocs: $other warnings in files the series does not touch"
	# Our document must be in the output (maps.rst globs map_*).
	while read -r f; do
		case $f in Documentation/bpf/*.rst) ;; *) continue ;; esac
		html=$CB/htmldocs/Documentation/output/bpf/$(basename "$f" .rst).html
		[ $docs_ok = 0 ] || [ -f "$html" ] || finding "htmldocs: no $(basename "$html") built from $f"
	done < "$tmp/added"
	# bpftool man pages (rst2man), if the series touches them.
	if grep -q '^tools/bpf/bpftool/Documentation/' "$tmp/touched"; then
		log=$LOGS/bpftool-doc.log
		rm -rf "$CB/bpftool-doc"
		mkdir -p "$CB/bpftool-doc"
		if make -C "$W/tools/bpf/bpftool/Documentation" OUTPUT="$CB/bpftool-doc/" man > "$log" 2>&1; then
			while IFS= read -r line; do
				finding "bpftool man pages: $line"
			done < <(grep -iE 'warning|error' "$log" || true)
		else
			finding "bpftool man pages failed: $(tail -n3 "$log" | tr '\n' ' ')"
		fi
	fi
	# kernel-doc comments of the new kernel sources.
	while read -r f; do
		case $f in kernel/*.[ch]|include/*.h|arch/*.[ch]|net/*.[ch]|mm/*.[ch]) ;; *) continue ;; esac
		out=$(cd "$W" && scripts/kernel-doc -none -Wall "$f" 2>&1) || true
		[ -z "$out" ] || finding "kernel-doc $f: $(echo "$out" | head -n5 | tr '\n' ' ')"
	done < "$tmp/added"
	end
fi

# --- build: every prefix
tools_touched() {	# commit: does it change what libbpf or bpftool is built from?
	"${G[@]}" diff --name-only "$1^" "$1" |
		grep -qE '^tools/(lib/bpf|bpf|include|build|scripts)/'
}
if wants build; then
	begin build
	built=0
	i=0
	for c in "${commits[@]}"; do
		i=$((i + 1))
		if [ "$PREFIXES" != all ] && [[ " $PREFIXES " != *" $i "* ]]; then
			continue
		fi
		id=$(printf '%02d' $i)
		worktree "$c"
		echo "check: build $(prefix_name $i)"
		log=$LOGS/$id-kernel.log
		if BUILD=$CB KTARGETS=all "$S/build-kernel.sh" base > "$log" 2>&1; then
			warnings "$log" "prefix $i kernel"
		else
			finding "prefix $(prefix_name $i): kernel (base config) does not build: $(errors "$log")(log: ${log#"$ROOT"/})"
		fi
		if tools_touched "$c"; then
			log=$LOGS/$id-tools.log
			if BUILD=$CB "$S/build-tools.sh" > "$log" 2>&1; then
				warnings "$log" "prefix $i libbpf/bpftool"
			else
				finding "prefix $(prefix_name $i): libbpf/bpftool do not build: $(errors "$log")(log: ${log#"$ROOT"/})"
			fi
		fi
		if "${G[@]}" diff --name-only "$c^" "$c" | grep -q '^tools/testing/selftests/bpf/'; then
			log=$LOGS/$id-selftests.log
			if [ ! -f "$CB/kbuild-base/vmlinux" ]; then
				note "prefix $i: selftests not built (no vmlinux for their BTF)"
			elif BUILD=$CB VMLINUX_BTF=$CB/kbuild-base/vmlinux \
					EXCLUDE_TESTS="$(not_in_series_tests) $(absent_tests)" \
					"$S/build-selftests.sh" test_progs bench > "$log" 2>&1; then
				warnings "$log" "prefix $i selftests"
			else
				finding "prefix $(prefix_name $i): test_progs/bench do not build: $(errors "$log")(log: ${log#"$ROOT"/})"
			fi
		fi
		built=$((built + 1))
	done
	end "" "$built of ${#commits[@]} prefixes built (PREFIXES=$PREFIXES)"
fi

# --- sparse and W=1 on the new kernel C files, at the tip
# sparse's "symbol 'f' was not declared" for f defined as __bpf_kfunc in
# that file (line: "path:line:col: warning: ...", path relative to $W).
kfunc_undeclared() {
	local f sym
	[[ $1 =~ ^([^:]+):[0-9]+:[0-9]+:\ warning:\ symbol\ \'([A-Za-z0-9_]+)\'\ was\ not\ declared ]] ||
		return 1
	f=${BASH_REMATCH[1]} sym=${BASH_REMATCH[2]}
	grep -qE "^__bpf_kfunc [^(]*[ *]$sym\(" "$W/$f"
}
if wants sparse; then
	begin sparse
	objs=()
	while read -r f; do
		case $f in kernel/*.c|arch/*.c|net/*.c|mm/*.c) objs+=("${f%.c}.o") ;; esac
	done < "$tmp/added"
	if [ ${#objs[@]} = 0 ]; then
		end skipped "no new kernel C files"
	elif [ ! -f "$CB/kbuild-base/.config" ]; then
		end skipped "no configured base build (run the build check first)"
	else
		worktree series
		log=$LOGS/sparse.log
		if make -C "$W" O="$CB/kbuild-base" ARCH=x86_64 CC="ccache gcc" W=1 C=2 \
				"${objs[@]}" > "$log" 2>&1; then
			srcs=("${objs[@]%.o}")
			printf '%s.c:\n' "${srcs[@]}" > "$tmp/srcs"
			while IFS= read -r line; do
				if kfunc_undeclared "$line"; then
					note "tolerated: $line: a kfunc, defined between __bpf_kfunc_start_defs() and _end_defs() without a prototype as every kfunc is (sparse ignores the pragma that silences -Wmissing-prototypes; kernel/bpf/cpumask.c gets the same warning per kfunc)"
				else
					finding "$line"
				fi
			done < <(grep -E ': (warning|error):' "$log" | sed "s|^$W/||" |
				grep -F -f "$tmp/srcs")
		else
			finding "W=1 C=2 build failed: $(errors "$log")"
		fi
		end "" "${objs[*]}"
	fi
fi

# --- cross builds of the tip
if wants cross; then
	begin cross
	worktree series
	done_arch=""
	for arch in $CROSS; do
		if [ "$arch" = arm64 ] && ! command -v aarch64-linux-gnu-gcc >/dev/null; then
			if ! "$S/install-deps.sh" gcc-aarch64-linux-gnu > "$LOGS/arm64-deps.log" 2>&1; then
				note "arm64: skipped, Debian's gcc-aarch64-linux-gnu does not install (see $LOGS/arm64-deps.log)"
				continue
			fi
		fi
		log=$LOGS/cross-$arch.log
		echo "check: cross build $arch ($CROSS_TARGETS)"
		if BUILD=$CB KTARGETS="$CROSS_TARGETS" "$S/build-kernel.sh" "$arch" > "$log" 2>&1; then
			warnings "$log" "$arch"
		else
			finding "ARCH=$arch ($CROSS_TARGETS) does not build: $(errors "$log")(log: ${log#"$ROOT"/})"
		fi
		done_arch="$done_arch $arch"
	done
	end "" "built:${done_arch:- none}"
fi

echo "check: summary (series: ${#mails[@]} patches + cover letter in ${OUT#"$ROOT"/}, tip $("${G[@]}" rev-parse --short series))"
cat "$tmp/summary"
n=$(wc -l < "$tmp/findings")
if [ "$n" != 0 ]; then
	echo "check: $n findings:"
	sed 's/^/  /' "$tmp/findings"
	exit 1
fi
echo "check: all passed"
