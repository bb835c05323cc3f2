// SPDX-License-Identifier: GPL-2.0
/*
 * The data-structure side of five lookup paths, compiled from the
 * kernel's own source wherever that works without changing it.
 *
 * kprobe.multi cookie
 *	bpf_kprobe_multi_cookie() and bpf_kprobe_multi_addrs_cmp(),
 *	extracted from kernel/trace/bpf_trace.c by bench-native.sh, call
 *	bsearch() from lib/bsearch.c, built as an object of its own as in
 *	the kernel, so the comparator stays an indirect call.  The link's
 *	arrays are sorted as bpf_kprobe_multi_link_attach() does: lib/sort.c
 *	sort_r() with the link's own cmp and swap.
 *
 * BPF_MAP_TYPE_IP_COOKIE
 *	kernel/bpf/ip_cookie.c, included whole and unchanged.  The map is
 *	made by ip_cookie_map_alloc() and filled by ip_cookie_map_update_elem()
 *	one key at a time, in the order the benchmark's batch (the generic one)
 *	fills the kernel's, so buckets, tail, seed, load
 *	and probe bound are the kernel's.  "ic-call" is a direct call of
 *	ip_cookie_map_lookup_elem(); "ic-inline" is ic_inline() below, the
 *	instructions ip_cookie_map_gen_lookup() emits written in C, and
 *	bn_check() runs those very instructions to compare.
 *
 * BPF_MAP_TYPE_HASH
 *	struct bucket, struct htab_elem, struct bpf_htab, htab_map_hash(),
 *	select_bucket(), lookup_nulls_elem_raw(), __htab_map_lookup_elem()
 *	and htab_map_lookup_elem() extracted from kernel/bpf/hashtab.c, with
 *	the real include/linux/jhash.h and rculist_nulls.h, and memcmp() from
 *	lib/string.c in an object of its own (the kernel calls it out of
 *	line: the key size is only known at run time).  The table is built
 *	by htab_build(), a mirror of the allocation and insert code.
 *
 * BPF_MAP_TYPE_RHASH, twice
 *	For 8-byte keys RHASH passes rhashtable its own hashfn and
 *	obj_cmpfn (rhtab_params_long).  "rhash" is this tree's map, whose
 *	rhtab_hashfn_long() is the series' patch rhashfix (hash_64(k ^ seed,
 *	32)); "rhash73" is pristine 7.3's ((u32)(k ^ (k >> 32)) ^ seed).
 *	struct rhtab_elem, struct bpf_rhtab, rhtab_params{,_long},
 *	rhtab_map_alloc() and rhtab_lookup_elem() are extracted from
 *	kernel/bpf/hashtab.c of each tree (7.3's under rhtab73_* names).
 *	The lookup is a call of rhtab_lookup_elem(), as
 *	rhtab_map_gen_lookup() emits: guard(rcu) and
 *	rhashtable_lookup_likely() of the real include/linux/rhashtable.h
 *	with rhtab_params_long as constants.  The map is made by
 *	rhtab_map_alloc() with the bench's size hint (map_extra), the keys
 *	go in as rhtab_map_update_elem() puts a new key (RH_INSERT(), a
 *	checked mirror) with lib/rhashtable.c compiled whole, and its
 *	resize worker runs between inserts.  A map that refused keys
 *	(-EBUSY) is reported and neither checked nor timed.
 *
 *	fprobe's rhltable (kernel/trace/fprobe.c) hashes with hash_ptr(),
 *	not rhashtable's default jhash2(), so the jhash2 rhashtable of the
 *	6.12 model modelled nothing in 7.3 and is gone.
 *
 * A model of the data structures, not of the kernel path: no BPF program,
 * helper dispatch, fprobe or trampoline, and none of the kernel's
 * mitigations (retpolines, return thunks, IBT) on calls and returns.
 */
#include "kshim.h"
#include "bench-native.h"

/* Kernel names that libc also uses: the objects built from lib/ export
 * them under these names (ip_cookie.c sorts with lib/sort.c's sort()).
 * memcmp() is renamed after ip_cookie.c, which calls none, so that the
 * compiler's handling of it there stays what it is in the kernel.
 */
#define bsearch kernel_bsearch
#define sort_r kernel_sort_r
#define sort kernel_sort

#include <repo/kernel/bpf/ip_cookie.c>

#define memcmp kernel_memcmp
int kernel_memcmp(const void *cs, const void *ct, size_t count);

#include <linux/bsearch.h>
#include <linux/jhash.h>
#include <linux/rculist_nulls.h>
#include <linux/rhashtable.h>
#include <linux/sort.h>
#include <tree/kernel/bpf/bpf_lru_list.h>
#include <tree/kernel/bpf/percpu_freelist.h>

/* minmax.h, for bpf_kprobe_multi_cookie_swap() (lib/sort.c has a member
 * of that name, so not in kshim.h)
 */
#define swap(a, b)							\
	do { __typeof__(a) __tmp = (a); (a) = (b); (b) = __tmp; } while (0)

#include "bn-extracted.h"

#define noipa __attribute__((__noipa__))

struct task_struct shim_task;
struct work_struct *shim_work_list;
struct irq_work *shim_irq_work_list;
/* A tracing program runs with preemption disabled: see kshim.h. */
unsigned int shim_preempt_count = 1;

/* Never called: the count never drops to 0 (kshim.h rcu_read_unlock()). */
void shim_preempt_schedule(void)
{
	shim_warn(__FILE__, __LINE__);
}

/* The self-IPI of kshim.h's irq_work_queue(), then the worker thread of
 * its schedule_work(): run what is queued, the irq_work first.
 */
void shim_run_work(void)
{
	struct work_struct *work;
	struct irq_work *iw;

	for (;;) {
		if ((iw = shim_irq_work_list)) {
			shim_irq_work_list = iw->shim_next;
			iw->shim_pending = false;
			iw->func(iw);
		} else if ((work = shim_work_list)) {
			shim_work_list = work->shim_next;
			work->shim_pending = false;
			work->func(work);
		} else {
			break;
		}
	}
}

static struct bpf_map *ic_map;
static struct bpf_map *ic_dead_map;	/* for check_dead(), then freed */
static struct bpf_htab *htab;
static struct bpf_kprobe_multi_link *kp_link;
static struct bpf_kprobe_multi_run_ctx kp_ctx;

/* ---- kprobe.multi ---- */

/*
 * bpf_kprobe_multi_link_attach(): the link from kzalloc(), addrs and
 * cookies from kvmalloc_array(), sorted together by sort_r() with the
 * link's cmp and its swap, which moves each cookie with its address.
 * bench-native.sh checks the sort_r() call is still there.
 */
static int kp_build(const u64 *keys, const u64 *vals, const u32 *order,
		    u32 n)
{
	u32 i;

	kp_link = shim_kmalloc(sizeof(*kp_link));	/* zeroed */
	if (!kp_link)
		return -ENOMEM;
	kp_link->addrs = kvmalloc(size_mul(n, sizeof(unsigned long)),
				  GFP_KERNEL);
	kp_link->cookies = kvmalloc(size_mul(n, sizeof(u64)), GFP_KERNEL);
	if (!kp_link->addrs || !kp_link->cookies)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		kp_link->addrs[i] = keys[order[i]];
		kp_link->cookies[i] = vals[order[i]];
	}
	kp_link->cnt = n;
	/* kprobe_multi_sort_cookies(): the keys are functions' addresses,
	 * their own entry IPs, so the link searches addrs itself.
	 */
	kp_link->entry_ips = kp_link->addrs;
	sort_r(kp_link->entry_ips, n, sizeof(*kp_link->entry_ips),
	       bpf_kprobe_multi_cookie_cmp, bpf_kprobe_multi_cookie_swap,
	       kp_link);

	/* What kprobe_multi_link_prog_run() sets before the program runs. */
	kp_ctx.link = kp_link;
	current->bpf_ctx = &kp_ctx.session_ctx.run_ctx;
	return 0;
}

/* BPF_CALL_1(bpf_get_attach_cookie_kprobe_multi, struct pt_regs *, regs) */
static noipa u64 kp_helper(void)
{
	return bpf_kprobe_multi_cookie(current->bpf_ctx);
}

/* ---- BPF_MAP_TYPE_IP_COOKIE ---- */

/* The map as the benchmark makes it: 8-byte keys, 8-byte values, created
 * and then filled by one batch update in @order.
 */
static int ic_build(const u64 *keys, const u64 *vals, const u32 *order,
		    u32 n, struct bpf_map **mapp)
{
	union bpf_attr attr = {};
	struct bpf_map *map;
	u64 *bk, *bv;
	u32 i;
	int err;

	attr.map_type = BPF_MAP_TYPE_IP_COOKIE;
	attr.key_size = sizeof(u64);
	attr.value_size = sizeof(u64);
	attr.max_entries = n;
	err = ip_cookie_map_alloc_check(&attr);
	if (err)
		return err;
	map = ip_cookie_map_alloc(&attr);
	if (IS_ERR(map))
		return PTR_ERR(map);
	*mapp = map;

	bk = malloc(size_mul(n, sizeof(u64)));
	bv = malloc(size_mul(n, sizeof(u64)));
	if (!bk || !bv) {
		free(bk);
		free(bv);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		bk[i] = keys[order[i]];
		bv[i] = vals[order[i]];
	}
	for (i = 0, err = 0; i < n && !err; i++)
		err = ip_cookie_map_update_elem(map, &bk[i], &bv[i], BPF_ANY);
	free(bk);
	free(bv);
	return err;
}

/* What the verifier makes of bpf_map_lookup_elem() when it does not inline
 * it: a direct call of map->ops->map_lookup_elem.
 */
static noipa void *ic_call(struct bpf_map *map, void *key)
{
	return ip_cookie_map_lookup_elem(map, key);
}

/*
 * ip_cookie_map_gen_lookup() in C: the instructions it emits for an 8-byte
 * key of a map whose creator may bypass Spectre v1 mitigations (a root
 * tracer, bpf_bypass_spec_v1()), so without the index clamp: the home
 * slot first, then the rest of the probe; the first slot with the ip
 * answers, LIVE or DEAD.  Like the instructions it reloads ic->tbl on
 * every lookup.  bn_check() runs the emitted instructions on every key
 * and compares.
 */
static __always_inline void *ic_inline(struct bpf_map *map, const u64 *key)
{
	const struct ip_cookie_table *tbl = READ_ONCE(to_ip_cookie(map)->tbl);
	u64 ip = *key;
	u64 i = (ip * tbl->mul) >> tbl->shift;
	const struct ip_cookie_slot *slot = &tbl->slots[i];
	u64 end;

	if (slot->ip == ip)
		return ip ? slot->elem : NULL;
	if (!slot->ip)
		return NULL;
	for (end = i + tbl->probe; ++i < end;) {
		slot++;
		if (slot->ip == ip)
			return ip ? slot->elem : NULL;
		if (!slot->ip)
			break;
	}
	return NULL;
}

/*
 * Run BPF instructions from ip_cookie_map_gen_lookup() with r1 = map and
 * r2 = key; only the opcodes it emits.  An opcode it starts to emit that
 * this does not know stops the bench: update ic_inline() and this.
 */
static bool gen_run(const struct bpf_insn *prog, int cnt, struct bpf_map *map,
		    const void *key, u64 *ret)
{
	u64 r[MAX_BPF_REG] = {};
	int pc = 0, steps = 0;

	r[BPF_REG_1] = (uintptr_t)map;
	r[BPF_REG_2] = (uintptr_t)key;
	while (pc < cnt) {
		const struct bpf_insn *in = &prog[pc++];
		u64 *dst = &r[in->dst_reg];
		u64 src = BPF_SRC(in->code) == BPF_X ? r[in->src_reg] :
						       (u64)(s64)in->imm;
		const void *mem = (const char *)(uintptr_t)r[in->src_reg] +
				  in->off;

		if (++steps > 1 << 20)
			return false;
		switch (in->code) {
		case BPF_LD | BPF_IMM | BPF_DW:
			if (pc >= cnt)
				return false;
			*dst = (u32)in->imm | (u64)(u32)prog[pc++].imm << 32;
			continue;
		case BPF_LDX | BPF_MEM | BPF_DW:
			*dst = *(const u64 *)mem;
			continue;
		case BPF_LDX | BPF_MEM | BPF_W:
			*dst = *(const u32 *)mem;
			continue;
		case BPF_LDX | BPF_MEM | BPF_H:
			*dst = *(const u16 *)mem;
			continue;
		case BPF_LDX | BPF_MEM | BPF_B:
			*dst = *(const u8 *)mem;
			continue;
		}
		if (BPF_CLASS(in->code) == BPF_ALU64) {
			switch (BPF_OP(in->code)) {
			case BPF_ADD:
				*dst += src;
				break;
			case BPF_SUB:
				*dst -= src;
				break;
			case BPF_MUL:
				*dst *= src;
				break;
			case BPF_OR:
				*dst |= src;
				break;
			case BPF_AND:
				*dst &= src;
				break;
			case BPF_XOR:
				*dst ^= src;
				break;
			case BPF_LSH:
				*dst <<= src & 63;
				break;
			case BPF_RSH:
				*dst >>= src & 63;
				break;
			case BPF_ARSH:
				*dst = (s64)*dst >> (src & 63);
				break;
			case BPF_NEG:
				*dst = -*dst;
				break;
			case BPF_MOV:
				*dst = src;
				break;
			default:
				return false;
			}
			continue;
		}
		if (BPF_CLASS(in->code) != BPF_JMP)
			return false;
		switch (BPF_OP(in->code)) {
		case BPF_JA:
			pc += in->off;
			break;
		case BPF_JEQ:
			if (*dst == src)
				pc += in->off;
			break;
		case BPF_JGE:
			if (*dst >= src)
				pc += in->off;
			break;
		case BPF_JNE:
			if (*dst != src)
				pc += in->off;
			break;
		case BPF_JLT:
			if (*dst < src)
				pc += in->off;
			break;
		default:
			return false;
		}
		if (pc < 0 || pc > cnt)
			return false;
	}
	*ret = r[BPF_REG_0];
	return true;
}

/* ---- BPF_MAP_TYPE_HASH ---- */

/*
 * Index of the @i-th element taken off a fresh pcpu_freelist by CPU 0:
 * pcpu_freelist_populate() pushes the elements in order, in equal runs,
 * one run per possible CPU, and ___pcpu_freelist_pop() pops this CPU's
 * list, then the next CPU's: each run comes out last element first.
 */
static u32 freelist_pop_index(u32 i, u32 nr_elems, u32 ncpus)
{
	u32 per = nr_elems / ncpus, rem = nr_elems % ncpus;
	u32 cpu, start = 0, len = per + (rem ? 1 : 0);

	for (cpu = 0; i >= len && cpu < ncpus - 1; cpu++) {
		start += len;
		i -= len;
		len = per + (cpu + 1 < rem ? 1 : 0);
	}
	return start + len - 1 - i;
}

/*
 * A BPF_MAP_TYPE_HASH with 8-byte keys and values and no flags, as
 * htab_map_alloc() and prealloc_init() make it (n_buckets, elem_size,
 * hashrnd, one area of max_entries + num_possible_cpus() elements), then
 * for each key what htab_map_update_elem() does for a new key:
 * alloc_htab_elem() takes an element off the freelist and fills key,
 * value and hash, and hlist_nulls_add_head_rcu() puts it first in its
 * bucket.  bench-native.sh checks these lines of hashtab.c did not change.
 */
static int htab_build(const u64 *keys, const u64 *vals, const u32 *order,
		      u32 n, u32 ncpus)
{
	u32 i, num_entries, key_size = sizeof(u64), value_size = sizeof(u64);

	htab = bpf_map_area_alloc(sizeof(*htab), NUMA_NO_NODE);
	if (!htab)
		return -ENOMEM;
	htab->map.map_type = BPF_MAP_TYPE_HASH;
	htab->map.key_size = key_size;
	htab->map.value_size = value_size;
	htab->map.max_entries = n;
	htab->n_buckets = roundup_pow_of_two(htab->map.max_entries);
	htab->elem_size = sizeof(struct htab_elem) +
			  round_up(htab->map.key_size, 8);
	htab->elem_size += round_up(htab->map.value_size, 8);
	htab->buckets = bpf_map_area_alloc(htab->n_buckets *
					   sizeof(struct bucket),
					   htab->map.numa_node);
	if (!htab->buckets)
		return -ENOMEM;
	htab->hashrnd = get_random_u32();
	htab_init_buckets(htab);

	num_entries = htab->map.max_entries + ncpus;
	htab->elems = bpf_map_area_alloc((u64)htab->elem_size * num_entries,
					 htab->map.numa_node);
	if (!htab->elems)
		return -ENOMEM;

	for (i = 0; i < n; i++) {
		const u64 *key = &keys[order[i]];
		struct htab_elem *l_new;
		u32 hash;

		l_new = get_htab_elem(htab,
				      freelist_pop_index(i, num_entries, ncpus));
		hash = htab_map_hash(key, key_size, htab->hashrnd);
		memcpy(l_new->key, key, key_size);
		/* copy_map_value() of a map without a btf_record: a copy of
		 * value_size bytes (bpf_obj_memcpy())
		 */
		memcpy(htab_elem_value(l_new, key_size), &vals[order[i]],
		       value_size);
		l_new->hash = hash;
		hlist_nulls_add_head_rcu(&l_new->hash_node,
					 select_bucket(htab, hash));
	}
	return 0;
}

/* htab_map_gen_lookup(): a call of __htab_map_lookup_elem(), then
 * "if (r0) r0 += offsetof(struct htab_elem, key) + round_up(key_size, 8)".
 */
static noipa struct htab_elem *ht_call(struct bpf_map *map, void *key)
{
	return __htab_map_lookup_elem(map, key);
}

#define HT_VALUE_OFF	(offsetof(struct htab_elem, key) + round_up(sizeof(u64), 8))

/* ---- BPF_MAP_TYPE_RHASH ---- */

/*
 * Two RHASH maps of 8-byte keys and values: [RH_TREE] with this tree's
 * rhtab_hashfn_long() (the series' patch rhashfix: hash_64(k ^ seed, 32)),
 * [RH_73] with pristine 7.3's ((u32)(k ^ (k >> 32)) ^ seed), both
 * extracted by bench-native.sh with the rest of their code: struct
 * rhtab_elem and struct bpf_rhtab, rhtab_params_long (hashfn and
 * obj_cmpfn of their own), rhtab_map_alloc() and rhtab_lookup_elem().
 */
enum { RH_TREE, RH_73, RH_NR };

static struct bpf_map *rh_map[RH_NR];
static u32 rh_refused[RH_NR];
static struct bpf_map *(*const rh_alloc[RH_NR])(union bpf_attr *attr) = {
	rhtab_map_alloc, rhtab73_map_alloc,
};

/* RHASH's size hint (map_extra) for @n keys, as the project's bench sets
 * it (ipc_rhash_hint()): @n, within the hint's limit, U16_MAX.
 */
static u32 rh_hint(u32 n)
{
	return n < 65535 ? n : 65535;
}

/*
 * What rhtab_map_update_elem() does with a new 8-byte key: an element
 * from bpf_mem_cache_alloc(), the key and the value copied in, then
 * rhashtable_lookup_get_insert_fast() with rhtab_params_long; an error
 * from it is the update's.  bench-native.sh checks these lines.
 */
#define RH_INSERT(name, params)						\
static int name(struct bpf_map *map, const u64 *key, const u64 *value)	\
{									\
	struct bpf_rhtab *rhtab = container_of(map, struct bpf_rhtab, map); \
	struct rhtab_elem *elem, *tmp;					\
									\
	if (atomic_read(&rhtab->ht.nelems) >= map->max_entries)	\
		return -E2BIG;						\
	elem = bpf_mem_cache_alloc(&rhtab->ma);				\
	if (!elem)							\
		return -ENOMEM;						\
	memcpy(elem->data, key, map->key_size);				\
	memcpy(rhtab_elem_value(elem, map->key_size), value,		\
	       map->value_size);					\
	tmp = rhashtable_lookup_get_insert_fast(&rhtab->ht, &elem->node, \
						params);		\
	if (tmp)	/* the element is the arena's: nothing to free */ \
		return IS_ERR(tmp) ? PTR_ERR(tmp) : -EEXIST;		\
	return 0;							\
}
RH_INSERT(rh_insert_tree, rhtab_params_long)
RH_INSERT(rh_insert_73, rhtab73_params_long)

static int (*const rh_insert[RH_NR])(struct bpf_map *map, const u64 *key,
				     const u64 *value) = {
	rh_insert_tree, rh_insert_73,
};

/*
 * The table lib/rhashtable.c should end at after @n inserts into a map
 * made with nelem_hint @hint: rounded_hashtable_size(), then its worker
 * doubles it whenever rht_grow_above_75().  bench-native.sh checks the
 * lines this mirrors.
 */
static u32 rht_expected_size(u32 n, u32 hint)
{
	u32 size = hint ? max(roundup_pow_of_two(hint * 4 / 3), 4UL) : 64;

	while (n > size / 4 * 3)
		size *= 2;
	return size;
}

/*
 * rhtab_map_alloc() as BPF_MAP_CREATE calls it (BPF_F_NO_PREALLOC, the
 * bench's size hint), then each key in @order inserted as an update does,
 * and whatever work the insert queued (the resize) run before the next
 * one, as a worker keeping up would.  An insert lib/rhashtable.c refuses
 * (-EBUSY: a chain at RHT_ELASTICITY and no rehash left to try) is
 * counted in *@refused, and the others go on.
 */
static int rh_build_one(int which, const u64 *keys, const u64 *vals,
			const u32 *order, u32 n, struct bpf_map **mapp,
			u32 *refused)
{
	union bpf_attr attr = {};
	const struct bucket_table *tbl;
	struct bpf_rhtab *rhtab;
	struct bpf_map *map;
	u32 i;
	int err;

	attr.map_type = BPF_MAP_TYPE_RHASH;
	attr.key_size = sizeof(u64);
	attr.value_size = sizeof(u64);
	attr.max_entries = n;
	attr.map_flags = BPF_F_NO_PREALLOC;
	attr.map_extra = rh_hint(n);
	map = rh_alloc[which](&attr);
	if (IS_ERR(map))
		return PTR_ERR(map);
	*mapp = map;
	*refused = 0;
	for (i = 0; i < n; i++) {
		err = rh_insert[which](map, &keys[order[i]], &vals[order[i]]);
		shim_run_work();
		if (err == -EBUSY)
			++*refused;
		else if (err)
			return err;
	}
	/* One flat table, no rehash under way, every key not refused in it;
	 * with no key refused, the size growth gives (a refused insert may
	 * have queued a rehash, and the worker shrinks a table below 30%
	 * load when it runs).
	 */
	rhtab = container_of(map, struct bpf_rhtab, map);
	tbl = rhtab->ht.tbl;
	if (tbl->nest || tbl->future_tbl || shim_work_list ||
	    shim_irq_work_list ||
	    atomic_read(&rhtab->ht.nelems) != (int)(n - *refused) ||
	    (!*refused && tbl->size != rht_expected_size(n, rh_hint(n))))
		return -EINVAL;
	return 0;
}

static void rh_free(struct bpf_map *map)
{
	struct bpf_rhtab *rhtab = container_of(map, struct bpf_rhtab, map);

	/* The elements are kmalloc() objects, freed with the arena. */
	rhashtable_destroy(&rhtab->ht);
	kvfree(rhtab);
}

/*
 * rhtab_map_gen_lookup(): a call of rhtab_lookup_elem(), then "if (r0)
 * r0 += offsetof(struct rhtab_elem, data) + round_up(key_size, 8)".
 * rhtab_lookup_elem() inlines rhashtable_lookup_likely() with
 * rhtab_params_long as constants, within guard(rcu).
 */
static noipa struct rhtab_elem *rh_call_tree(struct bpf_map *map, void *key)
{
	return rhtab_lookup_elem(map, key);
}

static noipa struct rhtab_elem *rh_call_73(struct bpf_map *map, void *key)
{
	return rhtab73_lookup_elem(map, key);
}

#define RH_VALUE_OFF	(offsetof(struct rhtab_elem, data) + round_up(sizeof(u64), 8))

/* ---- chains of RHASH's hashes on given keys, from the index alone ---- */

const char *const bn_rh_names[BN_NR_RH] = { "RHASH", "RHASH (7.3 hash)" };

/*
 * The buckets @n keys would fill in the table an RHASH map of @n keys
 * ends at (rht_expected_size(): nelem_hint rh_hint(n), x2 above 75%
 * load), hashed with hash @which's rhtab_hashfn_long() and @hash_rnd as
 * bucket_table_alloc()'s get_random_u32(), indexed by rht_bucket_index().
 * "beyond" counts keys past the RHT_ELASTICITY-th in their bucket: those
 * an insert into a table already laid out so would find at the limit.
 */
int bn_chains(const uint64_t *keys, uint32_t n, int which, uint32_t hash_rnd,
	      struct bn_chains *c)
{
	struct bucket_table tbl = {};
	u32 *count, i;

	tbl.size = rht_expected_size(n, rh_hint(n));
	tbl.hash_rnd = hash_rnd;
	count = calloc(tbl.size, sizeof(*count));
	if (!count)
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	c->buckets = tbl.size;
	for (i = 0; i < n; i++) {
		u32 hash = which == RH_TREE ?
			rhtab_hashfn_long(&keys[i], sizeof(u64), hash_rnd) :
			rhtab73_hashfn_long(&keys[i], sizeof(u64), hash_rnd);

		count[rht_bucket_index(&tbl, hash)]++;
	}
	for (i = 0; i < tbl.size; i++) {
		c->used += !!count[i];
		c->max_chain = max(c->max_chain, count[i]);
		if (count[i] > RHT_ELASTICITY)
			c->beyond += count[i] - RHT_ELASTICITY;
	}
	free(count);
	return 0;
}

/*
 * Insert @n keys in @order into an RHASH map with hash @which as
 * rh_build_one() does (lib/rhashtable.c, its worker keeping up) and count
 * the inserts refused.
 */
int bn_rh_refused(const uint64_t *keys, const uint32_t *order, uint32_t n,
		  int which, uint32_t *refused)
{
	struct bpf_map *map = NULL;
	u64 *vals = calloc(n, sizeof(*vals));
	int err;

	if (!vals)
		return -ENOMEM;
	err = rh_build_one(which, keys, vals, order, n, &map, refused);
	if (map && !IS_ERR(map))
		rh_free(map);
	free(vals);
	return err;
}

/* ---- the timed loops: the same harness around each lookup ---- */

/*
 * Each lookup takes the key from a variable in memory, as a program passes
 * it on its stack, and yields the value or a miss.
 */
static __always_inline bool lk_kprobe(u64 *key, const struct bn_probe *p,
				      u64 *val)
{
	/* Set by the fprobe handler before the program runs. */
	kp_ctx.entry_ip = *key;
	*val = kp_helper();
	return *val;
}

static __always_inline bool lk_ic_call(u64 *key, const struct bn_probe *p,
				       u64 *val)
{
	const u64 *v = ic_call(ic_map, key);

	return v ? (*val = *v, true) : false;
}

static __always_inline bool lk_ic_inline(u64 *key, const struct bn_probe *p,
					 u64 *val)
{
	const u64 *v = ic_inline(ic_map, key);

	return v ? (*val = *v, true) : false;
}

static __always_inline bool lk_hash(u64 *key, const struct bn_probe *p,
				    u64 *val)
{
	struct htab_elem *l = ht_call(&htab->map, key);

	return l ? (*val = *(u64 *)((char *)l + HT_VALUE_OFF), true) : false;
}

static __always_inline bool lk_rhash(u64 *key, const struct bn_probe *p,
				     u64 *val)
{
	struct rhtab_elem *l = rh_call_tree(rh_map[RH_TREE], key);

	return l ? (*val = *(u64 *)((char *)l + RH_VALUE_OFF), true) : false;
}

static __always_inline bool lk_rhash73(u64 *key, const struct bn_probe *p,
				       u64 *val)
{
	struct rhtab_elem *l = rh_call_73(rh_map[RH_73], key);

	return l ? (*val = *(u64 *)((char *)l + RH_VALUE_OFF), true) : false;
}

/* The harness alone: an empty call that "finds" the value it must. */
static noipa const struct bn_probe *identity(const struct bn_probe *p)
{
	return p;
}

static __always_inline bool lk_loop(u64 *key, const struct bn_probe *p,
				    u64 *val)
{
	*val = identity(p)->want;
	return true;
}

/*
 * @reps passes over @seq; returns the wrong answers.  Independent: each
 * lookup's key comes straight from @seq, so the CPU may overlap lookups.
 * Chained: each key is XORed with the previous lookup's error (value ^
 * wanted value, 0 when right), so a lookup starts only when the previous
 * one has its value: the latency of a lookup.
 */
#define BN_LOOP(lookup, chained) ({					\
	u64 bad = 0, carry = 0, key, val;				\
	u32 r, i;							\
									\
	for (r = 0; r < reps; r++)					\
		for (i = 0; i < len; i++) {				\
			key = (chained) ? seq[i].key ^ carry : seq[i].key; \
			if (!lookup(&key, &seq[i], &val))		\
				val = ~seq[i].want;			\
			carry = val ^ seq[i].want;			\
			bad += carry != 0;				\
		}							\
	bad;								\
})

#define BN_RUN(name)							\
static noipa uint64_t run_##name(const struct bn_probe *seq, u32 len,	\
				 u32 reps)				\
{									\
	return BN_LOOP(lk_##name, false);				\
}									\
static noipa uint64_t run_##name##_chained(const struct bn_probe *seq,	\
					   u32 len, u32 reps)		\
{									\
	return BN_LOOP(lk_##name, true);				\
}

BN_RUN(kprobe)
BN_RUN(ic_call)
BN_RUN(ic_inline)
BN_RUN(hash)
BN_RUN(rhash)
BN_RUN(rhash73)
BN_RUN(loop)

const struct bn_path bn_paths[] = {
	{ "kprobe", "kprobe.multi cookie: bpf_kprobe_multi_cookie(), bsearch() of the sorted addrs",
	  run_kprobe, run_kprobe_chained, -1 },
	{ "ic-call", "IP_COOKIE: direct call of ip_cookie_map_lookup_elem()",
	  run_ic_call, run_ic_call_chained, -1 },
	{ "ic-inline", "IP_COOKIE: the ip_cookie_map_gen_lookup() instructions, inlined",
	  run_ic_inline, run_ic_inline_chained, -1 },
	{ "hash", "HASH: __htab_map_lookup_elem() called as htab_map_gen_lookup() emits",
	  run_hash, run_hash_chained, -1 },
	{ "rhash", "RHASH: a call of rhtab_lookup_elem() as rhtab_map_gen_lookup() emits (guard(rcu), rhashtable_lookup_likely() with rhtab_params_long: this tree's rhtab_hashfn_long(), hash_64(k ^ seed, 32), and rhtab_key_cmp_long())",
	  run_rhash, run_rhash_chained, RH_TREE },
	{ "rhash73", "RHASH (7.3 hash): the same with pristine 7.3's rhtab_hashfn_long(), (u32)(k ^ (k >> 32)) ^ seed",
	  run_rhash73, run_rhash73_chained, RH_73 },
	{ "loop", "harness only: the same loop and check around an empty call",
	  run_loop, run_loop_chained, -1 },
};

const int bn_nr_paths = sizeof(bn_paths) / sizeof(bn_paths[0]);

/* ---- build, check, destroy ---- */

int bn_build(const uint64_t *keys, const uint64_t *vals, const uint32_t *order,
	     uint32_t n, uint32_t ncpus)
{
	int err, i;

	err = kp_build(keys, vals, order, n);
	if (!err)
		err = ic_build(keys, vals, order, n, &ic_map);
	if (!err)
		err = htab_build(keys, vals, order, n, ncpus);
	for (i = 0; !err && i < RH_NR; i++)
		err = rh_build_one(i, keys, vals, order, n, &rh_map[i],
				   &rh_refused[i]);
	if (!err)
		err = ic_build(keys, vals, order, n, &ic_dead_map);
	return err;
}

static unsigned long bs_calls;

static int bs_count_cmp(const void *a, const void *b)
{
	bs_calls++;
	return bpf_kprobe_multi_addrs_cmp(a, b);
}

static void shape_of(uint32_t n, struct bn_shape *s)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(ic_map);
	const struct ip_cookie_table *tbl = ic->tbl;
	const struct bucket_table *tbl_r;
	struct bpf_ip_cookie_key k = {};
	u64 disp = 0, pos = 0;
	u32 i, r;

	s->ic_buckets = ip_cookie_buckets(tbl);
	s->ic_len = tbl->len;
	s->ic_probe = tbl->probe;
	s->ic_max_disp = 0;
	for (i = 0; i < tbl->len; i++) {
		u32 home, d;

		if (!tbl->slots[i].elem)
			continue;
		k.ip = tbl->slots[i].ip;
		home = ip_cookie_hash(ic, tbl, &k) >> tbl->shift;
		d = i - home;
		disp += d;
		s->ic_max_disp = max(s->ic_max_disp, d);
	}
	s->ic_disp_sum = disp;

	s->ht_buckets = htab->n_buckets;
	s->ht_elem_size = htab->elem_size;
	s->ht_max_chain = 0;
	for (i = 0; i < htab->n_buckets; i++) {
		struct hlist_nulls_node *node;
		struct htab_elem *l;
		u32 len = 0;

		hlist_nulls_for_each_entry_rcu(l, node, &htab->buckets[i].head,
					       hash_node)
			pos += ++len;
		s->ht_max_chain = max(s->ht_max_chain, len);
	}
	s->ht_pos_sum = pos;

	for (r = 0; r < RH_NR; r++) {
		const struct bpf_rhtab *rhtab =
			container_of(rh_map[r], struct bpf_rhtab, map);

		tbl_r = rhtab->ht.tbl;
		s->rh_buckets[r] = tbl_r->size;
		s->rh_refused[r] = rh_refused[r];
		s->rh_max_chain[r] = 0;
		pos = 0;
		for (i = 0; i < tbl_r->size; i++) {
			struct rhash_head *he;
			u32 len = 0;

			rht_for_each_rcu(he, tbl_r, i)
				pos += ++len;
			s->rh_max_chain[r] = max(s->rh_max_chain[r], len);
		}
		s->rh_pos_sum[r] = pos;
	}
	s->rh_elem_size = kmalloc_size_roundup(sizeof(struct rhtab_elem) +
					       2 * sizeof(u64) + LLIST_NODE_SZ);

	bs_calls = 0;
	for (i = 0; i < n; i++)
		bsearch(&kp_link->addrs[i], kp_link->addrs, n,
			sizeof(*kp_link->addrs), bs_count_cmp);
	s->bs_cmp_sum = bs_calls;
}

void bn_key_info(uint64_t key, uint32_t *ic_disp, uint32_t *ht_pos,
		 uint32_t *rh_pos, uint32_t *bs_cmp)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(ic_map);
	const struct ip_cookie_table *tbl = ic->tbl;
	struct bpf_ip_cookie_key k = { .ip = key };
	struct hlist_nulls_node *node;
	u32 i, r, end, hash, pos = 0;
	struct htab_elem *l;

	*ic_disp = ~0U;
	for (i = ip_cookie_probe(ic, tbl, &k, &end); i < end; i++)
		if (tbl->slots[i].ip == key) {
			*ic_disp = i - (ip_cookie_hash(ic, tbl, &k) >> tbl->shift);
			break;
		}

	*ht_pos = 0;
	hash = htab_map_hash(&key, sizeof(key), htab->hashrnd);
	hlist_nulls_for_each_entry_rcu(l, node, select_bucket(htab, hash),
				       hash_node) {
		pos++;
		if (!memcmp(l->key, &key, sizeof(key))) {
			*ht_pos = pos;
			break;
		}
	}

	for (r = 0; r < RH_NR; r++) {
		const struct bpf_rhtab *rhtab =
			container_of(rh_map[r], struct bpf_rhtab, map);
		struct bucket_table *tbl_r = rhtab->ht.tbl;
		struct rhash_head *he;

		rh_pos[r] = 0;
		pos = 0;
		hash = rht_bucket_index(tbl_r, rhtab->ht.p.hashfn(&key,
				sizeof(key), tbl_r->hash_rnd));
		rht_for_each_rcu(he, tbl_r, hash) {
			pos++;
			if (*(u64 *)container_of(he, struct rhtab_elem,
						 node)->data == key) {
				rh_pos[r] = pos;
				break;
			}
		}
	}

	bs_calls = 0;
	bsearch(&key, kp_link->addrs, kp_link->cnt, sizeof(*kp_link->addrs),
		bs_count_cmp);
	*bs_cmp = bs_calls;
}

/* Every path must find every key's value and nothing for an absent key. */
static u64 check_one(const struct bpf_insn *prog, int cnt, u64 key, u64 want)
{
	const struct bucket_table *tbl_r;
	void *call, *inl;
	struct htab_elem *l;
	u64 bad = 0, gen;
	u32 hash, r;

	kp_ctx.entry_ip = key;
	bad += kp_helper() != want;

	call = ic_call(ic_map, &key);
	inl = ic_inline(ic_map, &key);
	bad += want ? !call || *(u64 *)call != want : !!call;
	bad += inl != call;
	bad += !gen_run(prog, cnt, ic_map, &key, &gen) || gen != (uintptr_t)call;

	l = ht_call(&htab->map, &key);
	bad += (void *)l != __htab_map_lookup_elem(&htab->map, &key);
	bad += want ? !l || *(u64 *)((char *)l + HT_VALUE_OFF) != want : !!l;
	if (l)
		bad += htab_map_lookup_elem(&htab->map, &key) !=
		       (char *)l + HT_VALUE_OFF;

	for (r = 0; r < RH_NR; r++) {
		struct bpf_map *map = rh_map[r];
		const struct bpf_rhtab *rhtab =
			container_of(map, struct bpf_rhtab, map);
		struct rhtab_elem *l;

		if (rh_refused[r])	/* not timed either */
			continue;
		l = r == RH_TREE ? rh_call_tree(map, &key) :
				   rh_call_73(map, &key);
		bad += want ? !l || *(u64 *)l->data != key ||
			      *(u64 *)((char *)l + RH_VALUE_OFF) != want : !!l;
		/* The constant params hash as rhashtable_init() set ht->p up
		 * to (what lib/rhashtable.c's own paths call).
		 */
		tbl_r = rhtab->ht.tbl;
		hash = rhtab->ht.p.hashfn(&key, rhtab->ht.key_len,
					  tbl_r->hash_rnd);
		bad += (r == RH_TREE ?
			rht_key_hashfn((struct rhashtable *)&rhtab->ht, tbl_r,
				       &key, rhtab_params_long) :
			rht_key_hashfn((struct rhashtable *)&rhtab->ht, tbl_r,
				       &key, rhtab73_params_long)) !=
		       rht_bucket_index(tbl_r, hash);
		bad += hash != (r == RH_TREE ?
				rhtab_hashfn_long(&key, 8, tbl_r->hash_rnd) :
				rhtab73_hashfn_long(&key, 8, tbl_r->hash_rnd));
	}
	return bad;
}

/*
 * The timed map never had a key deleted, so it has no DEAD slot.  Check
 * DEAD slots on a second map with the same keys: delete every fourth key
 * (too few to shrink the index), then the call, the C mirror and the
 * emitted instructions must still agree on every key.
 */
static u64 check_dead(const struct bpf_insn *prog, int cnt, const u64 *keys,
		      const u64 *vals, u32 n)
{
	struct bpf_map *map = ic_dead_map;
	u64 bad = 0, gen, key;
	void *call;
	u32 i;

	for (i = 0; i < n; i += 4) {
		/* 8 bytes of it are read: the map has 8-byte keys */
		struct bpf_ip_cookie_key k = { .ip = keys[i] };

		if (ip_cookie_map_delete_elem(map, &k))
			bad++;
	}
	for (i = 0; i < n; i++) {
		key = keys[i];
		call = ic_call(map, &key);
		bad += i % 4 ? !call || *(u64 *)call != vals[i] : !!call;
		bad += ic_inline(map, &key) != call;
		bad += !gen_run(prog, cnt, map, &key, &gen) ||
		       gen != (uintptr_t)call;
	}
	ip_cookie_map_free(map);
	ic_dead_map = NULL;
	return bad;
}

uint64_t bn_check(const uint64_t *keys, const uint64_t *vals, uint32_t n,
		  const uint64_t *absent, uint32_t nr_absent,
		  struct bn_shape *shape)
{
	struct bpf_insn prog[2 * INSN_BUF_SIZE];
	u64 bad = 0;
	int cnt;
	u32 i;

	/* The verifier refuses a gen_lookup of INSN_BUF_SIZE or more. */
	cnt = ip_cookie_map_gen_lookup(ic_map, prog);
	if (cnt <= 0 || cnt >= INSN_BUF_SIZE)
		return ~0ULL;
	shape->ic_gen_insns = cnt;

	for (i = 0; i < n; i++) {
		/* The link's sort kept each cookie with its address. */
		bad += kp_link->addrs[i] != keys[i] ||
		       kp_link->cookies[i] != vals[i];
		bad += check_one(prog, cnt, keys[i], vals[i]);
	}
	for (i = 0; i < nr_absent; i++)
		bad += check_one(prog, cnt, absent[i], 0);
	bad += check_dead(prog, cnt, keys, vals, n);
	shape_of(n, shape);
	return bad;
}

void bn_destroy(void)
{
	int i;

	if (ic_map)
		ip_cookie_map_free(ic_map);
	if (ic_dead_map)
		ip_cookie_map_free(ic_dead_map);
	ic_map = ic_dead_map = NULL;
	if (htab) {
		kvfree(htab->elems);
		kvfree(htab->buckets);
		kvfree(htab);
	}
	htab = NULL;
	for (i = 0; i < RH_NR; i++) {
		if (rh_map[i])
			rh_free(rh_map[i]);
		rh_map[i] = NULL;
	}
	if (kp_link) {
		kvfree(kp_link->addrs);
		kvfree(kp_link->cookies);
		kvfree(kp_link);
	}
	kp_link = NULL;
	current->bpf_ctx = NULL;
}
