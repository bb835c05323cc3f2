#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-native: what it times and how is in docs/results/native.md
# ("What this is", written by the report below). Builds into
# build/bench-native/; writes docs/results/native-<cpu>[-max<N>].txt and
# docs/results/native.md.
# Environment:
#   NATIVE_ROUNDS=5        measurements per point (median, min-max)
#   NATIVE_MAX_N=262144    largest N (powers of 4 from 1).  Not 1M: the
#                          model runs rhashtable's resize worker after every
#                          insert, so a table that the 7.3 hash crowds past
#                          RHT_ELASTICITY rehashes again and again instead of
#                          refusing (the kernel's -EBUSY); at 1M regularly
#                          spaced keys that took longer than the rest together.
#   NATIVE_SIZES=a,b,...   other N instead (e.g. 838860: 80% IP_COOKIE load)
#   NATIVE_LOOKUPS=1048576 lookups per measurement, at least
#   NATIVE_CPU=n           CPU to pin to (default: the last allowed one)
#   NATIVE_SEED=1          seed of keys, orders and the maps' seeds
#   NATIVE_SYSTEM_MAP=f   System.map for the chains report (read only;
#                          default build/kbuild-base/System.map if any)
#   NATIVE_BUILD_ONLY=1    build and check the sources, do not run
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
SRC=$ROOT/scripts/bench-native
TREE=$BASE_HOME/linux
OUT=$BASE_HOME/bench-native
RES=$ROOT/docs/results
ROUNDS=${NATIVE_ROUNDS:-5}
MAX_N=${NATIVE_MAX_N:-262144}
LOOKUPS=${NATIVE_LOOKUPS:-1048576}
SEED=${NATIVE_SEED:-1}
CC=${CC:-gcc}
SYSTEM_MAP=${NATIVE_SYSTEM_MAP:-$ROOT/build/kbuild-base/System.map}

[ "$(uname -m)" = x86_64 ] || die "x86-64 only (rdtsc, and the x86 array_index_nospec)"
if [ ! -f "$TREE/kernel/bpf/hashtab.c" ]; then
	"$ROOT/scripts/prepare-tree.sh"
fi
[ -f "$TREE/kernel/bpf/hashtab.c" ] || die "no kernel tree in $TREE"

# ---- drift check: what models.c and kshim.h mirror instead of share ----
# Each line must still be in the tree, word for word; if one is gone, the
# code it mirrors changed: read it again and update the mirror.
check_has() {	# check_has FILE LINE WHAT
	grep -qF -- "$2" "$TREE/$1" ||
		die "drift: $1 no longer has '$2' ($3 mirrors it: update it)"
}
check_has kernel/bpf/hashtab.c 'htab->n_buckets = roundup_pow_of_two(htab->map.max_entries);' "models.c htab_build()"
check_has kernel/bpf/hashtab.c 'htab->elem_size = sizeof(struct htab_elem) +' "models.c htab_build()"
check_has kernel/bpf/hashtab.c 'round_up(htab->map.key_size, 8);' "models.c htab_build()"
check_has kernel/bpf/hashtab.c 'htab->elem_size += round_up(htab->map.value_size, 8);' "models.c htab_build()"
check_has kernel/bpf/hashtab.c 'htab->hashrnd = get_random_u32();' "models.c htab_build()"
check_has kernel/bpf/hashtab.c 'num_entries += num_possible_cpus();' "models.c htab_build()"
check_has kernel/bpf/hashtab.c 'memcpy(l_new->key, key, key_size);' "models.c htab_build()"
check_has kernel/bpf/hashtab.c 'copy_map_value(&htab->map, htab_elem_value(l_new, key_size), value);' "models.c htab_build()"
check_has kernel/bpf/hashtab.c 'l_new->hash = hash;' "models.c htab_build()"
check_has kernel/bpf/hashtab.c 'hlist_nulls_add_head_rcu(&l_new->hash_node, head);' "models.c htab_build()"
check_has kernel/bpf/hashtab.c '*insn++ = BPF_EMIT_CALL(__htab_map_lookup_elem);' "models.c run_hash()"
check_has kernel/bpf/hashtab.c 'offsetof(struct htab_elem, key) +' "models.c HT_VALUE_OFF"
check_has kernel/bpf/percpu_freelist.c 'pcpu_freelist_push_node(head, buf);' "models.c freelist_pop_index()"
check_has kernel/trace/bpf_trace.c 'link->entry_ips = ips;' "models.c kp_build()"
check_has kernel/trace/bpf_trace.c 'sort_r(ips, cnt, sizeof(*ips), bpf_kprobe_multi_cookie_cmp,' "models.c kp_build()"
check_has kernel/trace/bpf_trace.c 'bpf_kprobe_multi_cookie_swap,' "models.c kp_build()"
check_has kernel/trace/bpf_trace.c 'return bpf_kprobe_multi_cookie(current->bpf_ctx);' "models.c kp_helper()"
check_has kernel/bpf/fixups.c 'cnt = ops->map_gen_lookup(map_ptr, insn_buf);' "models.c ic_call()/bn_check()"
check_has kernel/bpf/fixups.c 'if (cnt <= 0 || cnt >= INSN_BUF_SIZE) {' "models.c bn_check()"
check_has kernel/bpf/syscall.c '} else if (size <= (PAGE_SIZE << PAGE_ALLOC_COSTLY_ORDER)) {' "bench-native.c shim_area_alloc()"
# shellcheck disable=SC1003	# the line ends in a backslash
check_has arch/x86/include/asm/barrier.h 'asm volatile ("cmp %1,%2; sbb %0,%0"	\' "kshim.h array_index_mask_nospec()"
check_has include/linux/slab.h '#define KMALLOC_SHIFT_HIGH	(PAGE_SHIFT + 1)' "bench-native.c kmalloc_size_roundup()"
check_has include/linux/mmzone.h '#define MAX_PAGE_ORDER 10' "bench-native.c KMALLOC_MAX_SIZE"
check_has lib/rhashtable.c '#define HASH_DEFAULT_SIZE	64UL' "models.c rht_expected_size()"
check_has lib/rhashtable.c '#define HASH_MIN_SIZE		4U' "models.c rht_expected_size()"
check_has lib/rhashtable.c 'retsize = max(roundup_pow_of_two(params->nelem_hint * 4 / 3),' "models.c rht_expected_size()"
check_has lib/rhashtable.c 'tbl->hash_rnd = get_random_u32();' "models.c bn_chains()"
check_has kernel/bpf/hashtab.c 'params.nelem_hint = (u32)attr->map_extra;' "models.c rh_build_one()"
check_has kernel/bpf/hashtab.c 'if (atomic_read(&rhtab->ht.nelems) >= map->max_entries)' "models.c RH_INSERT()"
check_has kernel/bpf/hashtab.c 'elem = bpf_mem_cache_alloc(&rhtab->ma);' "models.c RH_INSERT()"
check_has kernel/bpf/hashtab.c 'memcpy(elem->data, key, map->key_size);' "models.c RH_INSERT()"
check_has kernel/bpf/hashtab.c 'copy_map_value(map, rhtab_elem_value(elem, map->key_size), value);' "models.c RH_INSERT()"
check_has kernel/bpf/hashtab.c 'tmp = rhashtable_lookup_get_insert_fast(&rhtab->ht, &elem->node, rhtab_params_long);' "models.c RH_INSERT()"
check_has kernel/bpf/hashtab.c '*insn++ = BPF_EMIT_CALL(rhtab_lookup_elem);' "models.c rh_call_tree()"
check_has kernel/bpf/hashtab.c 'offsetof(struct rhtab_elem, data) + round_up(map->key_size, 8));' "models.c RH_VALUE_OFF"
check_has kernel/bpf/memalloc.c 'size += LLIST_NODE_SZ; /* room for llist_node */' "kshim.h bpf_mem_alloc_init()"
check_has kernel/bpf/memalloc.c 'return kmalloc_node(c->unit_size, flags | __GFP_ZERO, node);' "kshim.h bpf_mem_cache_alloc()"
check_has kernel/bpf/memalloc.c 'return !ret ? NULL : ret + LLIST_NODE_SZ;' "kshim.h bpf_mem_cache_alloc()"
check_has include/linux/rcupdate.h 'DEFINE_LOCK_GUARD_0(rcu, rcu_read_lock(), rcu_read_unlock())' "kshim.h guard(rcu)"
check_has tools/testing/selftests/bpf/benchs/bench_ip_cookie.c 'return n < 65535 ? n : 65535;' "models.c rh_hint()"
check_has lib/rhashtable.c 'retsize = max(HASH_DEFAULT_SIZE,' "models.c rht_expected_size()"
check_has lib/rhashtable.c 'err = rhashtable_rehash_alloc(ht, tbl, tbl->size * 2);' "models.c rht_expected_size()"
check_has include/linux/rhashtable.h 'return atomic_read(&ht->nelems) > (tbl->size / 4 * 3) &&' "models.c rht_expected_size()"
check_has include/linux/rhashtable.h 'irq_work_queue(&ht->run_irq_work);' "kshim.h irq_work_queue(), models.c rht_build()"
check_has lib/rhashtable.c 'schedule_work(&ht->run_work);' "kshim.h schedule_work(), models.c rht_build()"
check_has include/linux/lockdep_types.h 'struct lockdep_map { };' "kshim.h struct lockdep_map (struct bucket_table's layout)"
check_has include/linux/bit_spinlock.h 'while (unlikely(test_and_set_bit_lock(bitnum, addr))) {' "kshim.h bit_spin_lock()"
check_has include/linux/bit_spinlock.h 'clear_bit_unlock(bitnum, addr);' "kshim.h bit_spin_unlock()"
check_has arch/x86/include/asm/barrier.h '#define __smp_rmb()	dma_rmb()' "kshim.h smp_rmb()"
check_has arch/x86/include/asm/barrier.h '#define __dma_rmb()	barrier()' "kshim.h smp_rmb()"
check_has arch/x86/include/asm/string_64.h 'int memcmp(const void *cs, const void *ct, size_t count);' "kshim.h memcmp()"

# ---- include directory: stubs, real headers, extracted code ----
INC=$OUT/inc
rm -rf "$INC"
mkdir -p "$INC"
ln -s "$TREE" "$INC/tree"
ln -s "$ROOT" "$INC/repo"

# Kernel headers used as they are; every other <linux/*> or <asm/*> the
# compiled files include becomes a stub that includes kshim.h, except the
# two that must reach the system's UAPI types (__u64 and friends) first:
# <asm/types.h> is only that, as the system's <linux/types.h> includes it.
declare -A REAL=(
	[linux/bsearch.h]=include/linux/bsearch.h
	[linux/hash.h]=include/linux/hash.h
	[linux/jhash.h]=include/linux/jhash.h
	[linux/list_nulls.h]=include/linux/list_nulls.h
	[linux/rculist_nulls.h]=include/linux/rculist_nulls.h
	[linux/rhashtable.h]=include/linux/rhashtable.h
	[linux/rhashtable-types.h]=include/linux/rhashtable-types.h
	[linux/sort.h]=include/linux/sort.h
	[linux/unaligned/packed_struct.h]=include/linux/unaligned/packed_struct.h
	[linux/bpf_common.h]=include/uapi/linux/bpf_common.h
)
SCAN="$SRC/models.c $ROOT/kernel/bpf/ip_cookie.c $TREE/lib/bsearch.c $TREE/lib/sort.c
$TREE/lib/rhashtable.c
$TREE/kernel/bpf/percpu_freelist.h $TREE/kernel/bpf/bpf_lru_list.h
$TREE/include/uapi/linux/bpf.h $TREE/tools/include/linux/filter.h"
for h in "${!REAL[@]}"; do
	SCAN="$SCAN $TREE/${REAL[$h]}"
done
# shellcheck disable=SC2086,SC2013	# words: header names
for h in $(sed -n 's/^#[[:space:]]*include[[:space:]]*<\(\(linux\|asm\)\/[^>]*\)>.*/\1/p' $SCAN | sort -u); do
	mkdir -p "$INC/$(dirname "$h")"
	if [ -n "${REAL[$h]:-}" ]; then
		echo "#include <tree/${REAL[$h]}>" > "$INC/$h"
	elif [ "$h" = linux/types.h ]; then
		printf '#include_next <%s>\n#include <kshim.h>\n' "$h" > "$INC/$h"
	elif [ "$h" = asm/types.h ]; then
		printf '#include_next <%s>\n' "$h" > "$INC/$h"
	else
		echo "#include <kshim.h>" > "$INC/$h"
	fi
done

# tools/include/linux/filter.h (7.3) includes <uapi/linux/filter.h>: the
# tools copy of the UAPI header.
mkdir -p "$INC/uapi/linux"
echo "#include <tree/tools/include/uapi/linux/filter.h>" > "$INC/uapi/linux/filter.h"

# Definitions models.c needs from files too big to compile whole: cut out
# at build time, each with a #line pointing at its source.
extract() {	# extract FILE KIND NAME [TREE]; KIND: struct, func, var or define
	local tree=${4:-$TREE}
	awk -v kind="$2" -v name="$3" -v file="$tree/$1" '
	done { next }
	!on && kind == "define" && $0 ~ ("^#define " name "[ \t]") {
		printf "#line %d \"%s\"\n%s\n", NR, file, $0
		done = 1
		next
	}
	!on && kind == "struct" && $0 ~ ("^struct " name " \\{") {
		on = 1; first = NR; buf = ""; body = 1
	}
	!on && kind == "func" && $0 ~ ("^[A-Za-z_].*[ *]" name "\\(") {
		on = 1; first = NR; buf = ""; body = 0
	}
	!on && kind == "var" && $0 ~ ("^[A-Za-z_].*[ *]" name " = \\{$") {
		on = 1; first = NR; buf = ""; body = 1
	}
	on {
		buf = buf $0 "\n"
		if (!body && $0 ~ /;[ \t]*$/) {	# a declaration
			on = 0
			next
		}
		if ($0 ~ /^\{/)
			body = 1
		if (body && $0 ~ /^\}/ && NR > first) {
			printf "#line %d \"%s\"\n%s", first, file, buf
			done = 1
			on = 0
		}
	}
	END { exit !done }' "$tree/$1" || die "cannot find $2 $3 in $tree/$1"
}
# BPF_MAP_TYPE_RHASH twice: the tree's (with the series' patch rhashfix)
# and pristine 7.3's, whose 8-byte-key hash differs.  The pristine code is
# extracted under rhtab73_* names, on the tree's structures, which must be
# the same in both.
SRC_TREE=$BASE_HOME/src
[ -f "$SRC_TREE/kernel/bpf/hashtab.c" ] ||
	die "no pristine 7.3 tree in $SRC_TREE (scripts/prepare-tree.sh makes it)"
RH_SHARED="struct:rhtab_elem struct:bpf_rhtab func:rhtab_elem_value var:rhtab_params"
RH_OWN="func:rhtab_key_cmp_long func:rhtab_hashfn_long var:rhtab_params_long
func:rhtab_map_alloc func:rhtab_lookup_elem"
for kn in $RH_SHARED; do
	[ "$(extract kernel/bpf/hashtab.c "${kn%%:*}" "${kn#*:}" | sed 1d)" = \
	  "$(extract kernel/bpf/hashtab.c "${kn%%:*}" "${kn#*:}" "$SRC_TREE" | sed 1d)" ] ||
		die "${kn#*:} differs between $TREE and $SRC_TREE: the rhtab73_* model needs its own"
done
{
	echo "/* Generated by scripts/bench-native.sh from $TREE: do not edit. */"
	extract include/linux/bpf_verifier.h define INSN_BUF_SIZE
	extract include/linux/bpf.h struct bpf_run_ctx
	extract kernel/bpf/hashtab.c struct bucket
	extract kernel/bpf/hashtab.c struct bpf_htab
	extract kernel/bpf/hashtab.c struct htab_elem
	extract kernel/bpf/hashtab.c func htab_init_buckets
	extract kernel/bpf/hashtab.c func get_htab_elem
	extract kernel/bpf/hashtab.c func htab_elem_value
	extract kernel/bpf/hashtab.c func htab_map_hash
	extract kernel/bpf/hashtab.c func __select_bucket
	extract kernel/bpf/hashtab.c func select_bucket
	extract kernel/bpf/hashtab.c func lookup_nulls_elem_raw
	extract kernel/bpf/hashtab.c func __htab_map_lookup_elem
	extract kernel/bpf/hashtab.c func htab_map_lookup_elem
	for kn in $RH_SHARED $RH_OWN; do
		extract kernel/bpf/hashtab.c "${kn%%:*}" "${kn#*:}"
	done
	# pristine 7.3's 8-byte-key RHASH, renamed
	for kn in $RH_OWN; do
		echo "#define ${kn#*:} rhtab73_${kn#*_}"
	done
	for kn in $RH_OWN; do
		extract kernel/bpf/hashtab.c "${kn%%:*}" "${kn#*:}" "$SRC_TREE"
	done
	for kn in $RH_OWN; do
		echo "#undef ${kn#*:}"
	done
	extract kernel/trace/bpf_trace.c struct bpf_session_run_ctx
	extract kernel/trace/bpf_trace.c struct bpf_kprobe_multi_link
	extract kernel/trace/bpf_trace.c struct bpf_kprobe_multi_run_ctx
	extract kernel/trace/bpf_trace.c func bpf_kprobe_multi_cookie_swap
	extract kernel/trace/bpf_trace.c func bpf_kprobe_multi_addrs_cmp
	extract kernel/trace/bpf_trace.c func bpf_kprobe_multi_cookie_cmp
	extract kernel/trace/bpf_trace.c func bpf_kprobe_multi_cookie
} > "$INC/bn-extracted.h"
{
	echo "/* Generated by scripts/bench-native.sh: memcmp() of lib/string.c. */"
	echo "#include <kshim.h>"
	extract lib/string.c func memcmp
} > "$INC/bn-memcmp.c"

# ---- build ----
# Model objects get the code-generation flags of the kernel's own build
# (see kernel/bpf/.hashtab.o.cmd) that work in user space: no SSE, no red
# zone, IBT landing pads, no jump tables, generic tuning.
KFLAGS="-D__KERNEL__ -O2 -std=gnu11 -fno-strict-aliasing -fno-common -funsigned-char
-fno-delete-null-pointer-checks -fno-allow-store-data-races -fno-strict-overflow
-fno-stack-protector -mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx -mno-80387
-mno-fp-ret-in-387 -mskip-rax-setup -mno-red-zone -mtune=generic
-fcf-protection=branch -fno-jump-tables -falign-jumps=1 -falign-loops=1
-falign-functions=16 -fno-pie -Wall -Wno-pointer-sign -Wno-unused-function
-Werror=implicit-function-declaration -Werror=incompatible-pointer-types"
# shellcheck disable=SC2086
# Every step must succeed (errexit does not apply left of ||).
{
	$CC $KFLAGS -I"$INC" -I"$SRC" -c "$SRC/models.c" -o "$OUT/models.o" &&
	$CC $KFLAGS -I"$INC" -I"$SRC" -Dbsearch=kernel_bsearch \
		-c "$TREE/lib/bsearch.c" -o "$OUT/bsearch.o" &&
	$CC $KFLAGS -I"$INC" -I"$SRC" -Dsort_r=kernel_sort_r -Dsort=kernel_sort \
		-c "$TREE/lib/sort.c" -o "$OUT/sort.o" &&
	$CC $KFLAGS -I"$INC" -I"$SRC" -Dmemcmp=kernel_memcmp \
		-c "$TREE/lib/rhashtable.c" -o "$OUT/rhashtable.o" &&
	$CC $KFLAGS -ffreestanding -I"$INC" -I"$SRC" -Dmemcmp=kernel_memcmp \
		-c "$INC/bn-memcmp.c" -o "$OUT/memcmp.o" &&
	$CC -O2 -Wall -fno-pie -I"$SRC" -c "$SRC/bench-native.c" -o "$OUT/main.o" &&
	$CC -no-pie -o "$OUT/bench-native" "$OUT/main.o" "$OUT/models.o" \
		"$OUT/bsearch.o" "$OUT/sort.o" "$OUT/rhashtable.o" "$OUT/memcmp.o"
} || die "build failed"

# bsearch() must call its comparator through the pointer, as in the kernel.
if command -v objdump > /dev/null; then
	objdump -d --no-show-raw-insn "$OUT/bsearch.o" |
		awk '/<kernel_bsearch>:/ { on = 1 } on && /^$/ { exit } on' |
		grep -q 'call[[:space:]]*\*%' ||
		die "kernel_bsearch() has no indirect call of its comparator"
	# rhtab_lookup_elem() inlines, for 8-byte keys, rhashtable_lookup_likely()
	# with rhtab_params_long: its hashfn and obj_cmpfn are
	# __always_inline and must not be called out of line (its other
	# branch, for other key sizes, calls memcmp(), as in the kernel).
	for f in rh_call_tree rh_call_73; do
		objdump -dr --no-show-raw-insn "$OUT/models.o" |
			awk -v f="<$f>:" '$2 == f { on = 1 } on && /^$/ { on = 0 } on' > "$OUT/$f.s"
		grep -q 'shim_preempt_count' "$OUT/$f.s" ||
			die "$f() has no guard(rcu): see $OUT/$f.s"
		! grep -q 'R_X86_64_PLT32[[:space:]]*\(rhtab\|hash_64\|__hash_32\)' "$OUT/$f.s" ||
			die "$f() calls its hash or compare out of line: see $OUT/$f.s"
	done
fi
echo "bench-native: built $OUT/bench-native"
[ -z "${NATIVE_BUILD_ONLY:-}" ] || exit 0

# ---- run ----
CPU_MODEL=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -1)
SLUG=$(printf '%s' "${CPU_MODEL:-unknown-cpu}" | tr '[:upper:]' '[:lower:]' |
	sed 's/([^)]*)//g; s/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
LABEL=$SLUG
[ "$MAX_N" = 262144 ] || LABEL=$SLUG-max$MAX_N
[ -z "${NATIVE_SIZES:-}" ] || LABEL=$LABEL-sizes-${NATIVE_SIZES//,/-}
RAW=$RES/native-$LABEL.txt
MD=$RES/native.md
CMD=(build/bench-native/bench-native -n "$MAX_N" -r "$ROUNDS" -l "$LOOKUPS" -s "$SEED")
[ -z "${NATIVE_CPU:-}" ] || CMD+=(-c "$NATIVE_CPU")
[ -z "${NATIVE_SIZES:-}" ] || CMD+=(-N "$NATIVE_SIZES")

ic_state() {
	local head file
	head=$(git -C "$ROOT" rev-parse -q --verify HEAD:kernel/bpf/ip_cookie.c 2>/dev/null || true)
	file=$(git -C "$ROOT" hash-object kernel/bpf/ip_cookie.c)
	if [ "$head" = "$file" ]; then
		echo "as committed"
	else
		echo "differs from HEAD (blob $file)"
	fi
}

mkdir -p "$RES"
{
	echo "# make bench-native (scripts/bench-native.sh)"
	echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# commit: $(git -C "$ROOT" rev-parse HEAD); kernel/bpf/ip_cookie.c $(ic_state)"
	echo "# command: NATIVE_ROUNDS=$ROUNDS NATIVE_MAX_N=$MAX_N NATIVE_LOOKUPS=$LOOKUPS NATIVE_SEED=$SEED${NATIVE_CPU:+ NATIVE_CPU=$NATIVE_CPU}${NATIVE_SIZES:+ NATIVE_SIZES=$NATIVE_SIZES} scripts/bench-native.sh, which runs: ${CMD[*]}"
	echo "# compiler: $($CC --version | head -1); kernel sources: build/linux"
	if [ -f "$ROOT/build/kbuild-base/.config" ]; then
		echo "# kernel config of build/kbuild-base: $(grep -E '^(# )?CONFIG_(CPU_MITIGATIONS|MITIGATION_RETPOLINE|MITIGATION_RETHUNK|X86_KERNEL_IBT)[= ]' \
			"$ROOT/build/kbuild-base/.config" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
	fi
	(cd "$ROOT" && "${CMD[@]}")
	# The path as the reader would type it: relative to the repository.
	if [ -f "$SYSTEM_MAP" ]; then
		(cd "$ROOT" && "$OUT/bench-native" -m "$(realpath --relative-to="$ROOT" "$SYSTEM_MAP")" -s "$SEED")
	else
		echo "# chains: no System.map (${SYSTEM_MAP#"$ROOT"/})"
	fi
} > "$RAW.tmp" || { cat "$RAW.tmp" >&2; die "run failed (output kept in $RAW.tmp)"; }
mv "$RAW.tmp" "$RAW"
echo "bench-native: raw output in ${RAW#"$ROOT"/}"

# ---- report ----
awk -v raw="${RAW#"$ROOT"/}" '
function f(x) { return x >= 100 ? sprintf("%.0f", x) : x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x) }
function cell(k, u,   a) {
	if (!((k, u) in v)) { split(k, a, SUBSEP); return (a[1], a[4]) in refused ? "refused " refused[a[1], a[4]] " keys" : "" }
	return f(v[k, u]) " [" f(v[k, u "_min"]) "–" f(v[k, u "_max"]) "]"
}
function ratio(a, b) { return v[a, "ns"] && v[b, "ns"] ? sprintf("%.2f", v[a, "ns"] / v[b, "ns"]) : "" }
function table(pat, mode, u, name,   i, n, k) {
	printf "\n### %s, %s, %s per lookup: median [min–max] of %s rounds\n\n", pat, mode, name, rounds
	printf "| N | kprobe.multi bsearch | IP_COOKIE inlined | IP_COOKIE call | HASH | RHASH | RHASH (7.3 hash) |%s\n", u == "ns" ? " harness | IP_COOKIE / bsearch | IP_COOKIE / HASH | IP_COOKIE / RHASH |" : ""
	printf "|--:|--:|--:|--:|--:|--:|--:|%s\n", u == "ns" ? "--:|--:|--:|--:|" : ""
	for (i = 1; i <= nn; i++) {
		n = ns_list[i]
		k = n SUBSEP pat SUBSEP mode
		printf "| %s | %s | %s | %s | %s | %s | %s |", n, cell(k SUBSEP "kprobe", u), cell(k SUBSEP "ic-inline", u), cell(k SUBSEP "ic-call", u), cell(k SUBSEP "hash", u), cell(k SUBSEP "rhash", u), cell(k SUBSEP "rhash73", u)
		if (u == "ns")
			printf " %s | %s | %s | %s |", f(v[k SUBSEP "loop", "ns"]), ratio(k SUBSEP "ic-inline", k SUBSEP "kprobe"), ratio(k SUBSEP "ic-inline", k SUBSEP "hash"), ratio(k SUBSEP "ic-inline", k SUBSEP "rhash")
		printf "\n"
	}
}
/^# date: / { date = substr($0, 9) }
/^# commit: / { commit = substr($0, 11) }
/^# command: / { command = substr($0, 12) }
/^# cpu: / { cpu = $0; sub(/^# cpu: model name[ \t]*: */, "", cpu) }
/^# cycles: / { cycles = substr($0, 11) }
/^# tsc_mhz: / { tsc = $3 }
/^# pinned/ { pinned = substr($0, 3) }
/^# loadavg at start: / { la0 = $5 }
/^# loadavg at end: / { la1 = $5 }
/^# transparent_hugepage: / { thp = substr($0, 25) }
/^# kernel config of / { kconfig = $0; sub(/^# kernel config of [^:]*: /, "", kconfig) }
/^# chains: / { chains_hdr = substr($0, 11) }
/^chains / {
	delete kv
	for (i = 2; i <= NF; i++) { split($i, a, "="); kv[a[1]] = a[2] }
	nch++
	ch[nch] = sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", kv["order"], kv["N"], kv["hash"] == "rhash" ? "RHASH" : "RHASH (7.3 hash)", kv["buckets"], kv["used_pct"], kv["mean_chain"], kv["max_chain"], kv["beyond16"], kv["refused"] (kv["insert_error"] != "" ? " (error " kv["insert_error"] ")" : ""), kv["same_with_other_seed"] != "" ? kv["same_with_other_seed"] : "–")
	next
}
/^refused / {
	split($2, a, "="); n = a[2]
	split($3, b, "="); split($4, c, "[=:]")
	refused[n, b[2]] = c[2]
}
/^(shape|hotkey|result) / {
	delete kv
	for (i = 2; i <= NF; i++) { split($i, a, "="); kv[a[1]] = a[2] }
	n = kv["N"]
	if (!(n in seen)) { seen[n] = 1; ns_list[++nn] = n }
	if ($1 == "shape") { for (x in kv) shape[n, x] = kv[x] }
	if ($1 == "hotkey") { for (x in kv) hot[n, x] = kv[x] }
	if ($1 == "result") {
		k = n SUBSEP kv["pattern"] SUBSEP kv["mode"] SUBSEP kv["path"]
		for (x in kv) v[k, x] = kv[x]
		rounds = kv["rounds"]
	}
}
END {
	unit = cycles ~ /^TSC/ ? "TSC cycles" : "cycles"
	print "# Native calibration: lookup data structures on the host CPU"
	print ""
	print "Written by `make bench-native` (scripts/bench-native.sh); raw output: `" raw "`."
	print ""
	print "**What this is.** A user-space program times, natively on the host CPU, the"
	print "*data-structure part* of the ways to find per-function data from a function"
	print "address, compiled from the kernel'"'"'s own code (see"
	print "scripts/bench-native/models.c): the kprobe.multi cookie lookup"
	print "(`bpf_kprobe_multi_cookie()`, `bsearch()` of lib/bsearch.c with its indirect"
	print "comparator call), the BPF_MAP_TYPE_IP_COOKIE index probe (kernel/bpf/ip_cookie.c"
	print "compiled unchanged; the map is filled key by key by its update op, as the generic batch update does; \"inlined\" is"
	print "the instruction sequence of `ip_cookie_map_gen_lookup()`, checked against those"
	print "instructions, \"call\" is `ip_cookie_map_lookup_elem()`), BPF_MAP_TYPE_HASH"
	print "(`__htab_map_lookup_elem()` with jhash and the hlist_nulls bucket walk, taken from"
	print "kernel/bpf/hashtab.c), and BPF_MAP_TYPE_RHASH twice: a call of"
	print "`rhtab_lookup_elem()` as `rhtab_map_gen_lookup()` emits it (guard(rcu), then"
	print "`rhashtable_lookup_likely()` of include/linux/rhashtable.h with RHASH'"'"'s"
	print "8-byte-key params `rhtab_params_long` as constants: its own `rhtab_hashfn_long()`"
	print "and `rhtab_key_cmp_long()`, the bucket_table and the nulls-marker chain walk), on"
	print "a map made by `rhtab_map_alloc()` (size hint min(N, 65535), as `make bench` sets"
	print "it) and filled insert by insert by lib/rhashtable.c, which grows it ×2 past 75%"
	print "load. **RHASH** is this tree'"'"'s code, with the series'"'"' patch rhashfix"
	print "(`hash_64(k ^ seed, 32)`); **RHASH (7.3 hash)** is pristine 7.3'"'"'s"
	print "(`(u32)(k ^ (k >> 32)) ^ seed`), which keeps the key'"'"'s low bits as the bucket"
	print "index. Every lookup is checked against the value it must find."
	print ""
	print "**Next to the kernel runs.** On 7.3 tracing programs can use RHASH, and `make"
	print "bench` measures IP_COOKIE, HASH and RHASH in the kernel (guest instructions"
	print "under QEMU -icount, and time). This native model is the host-CPU calibration"
	print "beside those runs: what the data structures cost on a real CPU, caches and"
	print "TLBs included, without the rest of the kernel path."
	print ""
	print "**What this is not.** It is a model of the data structures, not of the kernel"
	print "path: there is no BPF program, no helper or map-op dispatch, no fprobe,"
	print "trampoline or ftrace. Calls and returns are as in a kernel built with IBT and"
	print "without retpolines or return thunks (the model objects get the kernel'"'"'s"
	print "code-generation flags, -fcf-protection=branch included); a kernel with those"
	print "mitigations pays more per call and return, bsearch()'"'"'s indirect comparator"
	print "call most. Kernel memory is modelled as far as caches and TLBs care (slab"
	print "objects and small tables on huge pages like the direct map, vmalloc areas on"
	print "4 KiB pages)."
	print ""
	print "- CPU: " cpu "; " pinned
	print "- Date: " date "; commit " commit
	print "- Command: `" command "`"
	print "- Cycles: " cycles (tsc ? "; TSC " tsc " MHz" : "")
	print "- Transparent huge pages: " thp
	if (kconfig)
		print "- This repo'"'"'s base kernel (build/kbuild-base): " kconfig
	print "- Load average (1 min) at start " la0 ", at end " la1 "."
	if (la0 + 0 > 0.5 || la1 + 0 > 0.5)
		print "  **Measured with other work on the machine** (load average above 0.5): the"
	if (la0 + 0 > 0.5 || la1 + 0 > 0.5)
		print "  medians are usable, the maxima are noise."
	print "- Keys: kernel-text-like addresses, 0xffffffff81000000 + 256·i + 16·rand(0..15)"
	print "  (16-byte aligned, 256 bytes apart on average), 8-byte keys and values, inserted"
	print "  in random order. **hot**: one key (a random one) looked up over and over;"
	print "  **cold**: all keys in shuffled order (a new shuffle per pass), so caches and"
	print "  TLBs miss as N grows."
	print "- Each figure includes the harness (loop, load of the key, check of the value):"
	print "  the *harness* column is that loop around an empty call."
	print "- Ratios are of medians in ns, IP_COOKIE taken inlined, as a program runs it."
	print "- RHASH: roundup_pow_of_two(hint · 4/3) buckets at first, doubled whenever an"
	print "  insert takes the load over 75%, so at N = 4^k it is at 50% load, like IP_COOKIE"
	print "  (HASH: 100%). Elements of 24 bytes (rhash_head, key, value) from bpf_mem_alloc,"
	print "  8 bytes into kmalloc-32 objects. A map lib/rhashtable.c refused keys for"
	print "  (-EBUSY) is shown as \"refused\" and not timed at that N. The model runs the"
	print "  resize worker after every insert, so a chain at RHT_ELASTICITY (16) gets a"
	print "  same-size rehash and the insert goes on: chains can pass 16 without a refusal;"
	print "  a kernel whose worker lags behind the inserts refuses some instead."
	print "- IP_COOKIE: at these N the batch-filled index is at 50% load, the load a"
	print "  rebuild aims at; between rebuilds it goes up to 80% (e.g."
	print "  `NATIVE_SIZES=3276,838860` gives 80%). \"call\" models 8-byte keys; 16-byte"
	print "  (link-scoped) keys, inlined only for maps created with the right to bypass"
	print "  Spectre v1 mitigations, also hash the link ID and read it"
	print "  from the element (not timed here). \"inlined\" is the sequence a root-created"
	print "  map gets (`bpf_bypass_spec_v1()`): no index clamp."
	print ""
	print "## Chained lookups (latency)"
	print ""
	print "Each key depends on the value the previous lookup found (XOR with its error,"
	print "0 when right), so one lookup starts when the last one is done."
	for (p = 1; p <= 2; p++) {
		pat = p == 1 ? "hot" : "cold"
		table(pat, "chained", "ns", "ns")
		table(pat, "chained", "cyc", unit)
	}
	print ""
	print "## Independent lookups (throughput)"
	print ""
	print "The same sequences without the dependency: the CPU overlaps consecutive"
	print "lookups (their cache misses too), as it may overlap a program with the code"
	print "around it. " unit " per lookup are in the raw output."
	for (p = 1; p <= 2; p++) {
		pat = p == 1 ? "hot" : "cold"
		table(pat, "indep", "ns", "ns")
	}
	print ""
	print "## Shape of the structures"
	print ""
	print "IP_COOKIE: buckets, load (N / buckets), probe bound, mean and max slots a key"
	print "sits past its home. HASH and the two RHASH maps: buckets, mean position of a key"
	print "in its bucket, longest bucket (RHASH: and keys refused). bsearch: mean comparator"
	print "calls to find a key. Hot key: its IP_COOKIE displacement / HASH position / RHASH"
	print "position / RHASH (7.3 hash) position / bsearch comparator calls."
	print ""
	print "| N | IP_COOKIE buckets | load | probe | mean / max disp | HASH buckets | mean pos / max chain | RHASH buckets | mean pos / max chain / refused | RHASH (7.3 hash) buckets | mean pos / max chain / refused | bsearch cmps | hot key |"
	print "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
	for (i = 1; i <= nn; i++) {
		n = ns_list[i]
		printf "| %s | %s | %s | %s | %s / %s | %s | %s / %s | %s | %s / %s / %s | %s | %s / %s / %s | %s | %s / %s / %s / %s / %s |\n", n, shape[n, "ic_buckets"], shape[n, "ic_load"], shape[n, "ic_probe"], shape[n, "ic_mean_disp"], shape[n, "ic_max_disp"], shape[n, "ht_buckets"], shape[n, "ht_mean_pos"], shape[n, "ht_max_chain"], shape[n, "rh_buckets"], shape[n, "rh_mean_pos"], shape[n, "rh_max_chain"], shape[n, "rh_refused"], shape[n, "rh73_buckets"], shape[n, "rh73_mean_pos"], shape[n, "rh73_max_chain"], shape[n, "rh73_refused"], shape[n, "bs_mean_cmp"], hot[n, "ic_disp"], hot[n, "ht_pos"], hot[n, "rh_pos"], hot[n, "rh73_pos"], hot[n, "bs_cmp"]
	}
	print ""
	print "## RHASH chains on kernel text addresses"
	print ""
	if (!nch) {
		print "Not run: " (chains_hdr ? chains_hdr : "no System.map") "."
		exit
	}
	print "`bench-native -m`: " chains_hdr ". For N = 1,000, 10,000 and all of"
	print "them, the first N of a seeded shuffle and the first N in address order: the"
	print "table an RHASH map of N keys has (size hint min(N, 65535), ×2 above 75% load)"
	print "and how each hash spreads the keys over it, from `rhtab_hashfn_long()` of each"
	print "tree and `rht_bucket_index()` (no timing). *Mean chain* is over used buckets;"
	print "*beyond 16* counts keys past the 16th (RHT_ELASTICITY) in their bucket, those a"
	print "table laid out so would find at the limit; *refused* is what lib/rhashtable.c"
	print "refused inserting the keys in that order with its worker keeping up (see above:"
	print "a lagging worker refuses some of the *beyond 16* keys). XOR with the seed only"
	print "permutes the 7.3 hash'"'"'s buckets, so its chains do not depend on the seed"
	print "(*same with another seed* checks it)."
	print ""
	print "| order | N | hash | buckets | % used | mean chain | longest | beyond 16 | refused | same with another seed |"
	print "|---|--:|---|--:|--:|--:|--:|--:|--:|---|"
	for (i = 1; i <= nch; i++)
		print ch[i]
}' "$RAW" > "$MD.tmp"
mv "$MD.tmp" "$MD"
echo "bench-native: table in ${MD#"$ROOT"/}"
