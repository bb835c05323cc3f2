// SPDX-License-Identifier: GPL-2.0
/*
 * BPF_MAP_TYPE_IP_COOKIE: a growable map from a traced function's address,
 * as returned by bpf_get_func_ip(), to per-function data.  What users see
 * is in Documentation/bpf/map_ip_cookie.rst; this comment holds what the
 * code relies on.
 *
 * Contexts and locks.  Programs only look entries up (the verifier refuses
 * the other map helpers), from any context, NMI included, under
 * rcu_read_lock() or rcu_read_lock_trace(), taking no lock and storing
 * nothing.  Every change holds ic->lock, in sleepable process context: the
 * syscall's update and delete (also from the generic batch ops and from
 * bpf_sys_bpf(), without rcu_read_lock()) and the module purge.  No grace
 * period is waited for under ic->lock or ip_cookie_maps_lock: a syscall
 * program can block on ic->lock inside its rcu_read_lock_trace() section.
 *
 * Index.  ic->tbl is an open-addressed table of 16-byte {ip, elem} slots
 * with linear probing from home(k), the top log2(buckets) bits of a
 * multiply-shift hash (ip_cookie_hash()).  Elements hold the value (and
 * for 16-byte keys the link ID after it) and never move.  Slots are EMPTY
 * (ip 0), LIVE (ip and elem set) or DEAD (ip set, elem NULL, after a
 * delete).  An insert into an EMPTY slot writes the element, then the ip,
 * and a slot's ip never changes afterwards, so a reader that matched an ip
 * gets NULL or an element of that ip, with no ordering between its loads.
 * An 8-byte key is in at most one slot.  Key 0 is refused by the syscall
 * and misses.  A table's header is written before it is published and
 * never after.  The inlined lookups read it and the slots at fixed offsets.
 *
 * Probe bound.  Every key sits within tbl->probe = min(buckets,
 * IP_COOKIE_MAX_PROBE) slots of its home with no EMPTY slot between, and
 * at least tbl->probe tail slots follow the last bucket: a probe never
 * wraps.  A change that would break this rebuilds the index: with
 * GOLDEN_RATIO_64, then random odd multipliers (two keys then share a home
 * with probability about 2 / buckets, whatever user space chose), then
 * twice the buckets; with BPF_F_ZERO_SEED twice, then four times the
 * buckets.  If nothing fits, -ENOSPC and nothing changes.
 *
 * Resize.  Growing, shrinking, dropping DEAD slots and re-seeding are one
 * rebuild under ic->lock into an unpublished table that is then published;
 * readers see either table, both complete, and the elements are shared, so
 * no program's write is lost.  An insert past 80% load (LIVE + DEAD), or a
 * delete or purge below 20% live, rebuilds to at most 50%.  The first
 * index has room for map_extra entries below 80%.
 *
 * Freeing.  Replaced and deleted elements and old tables go on a deferred
 * free list whose room is reserved before anything changes, so -ENOMEM
 * leaves the map as it was.  One list at a time is handed to
 * call_rcu_tasks_trace() (which implies an RCU grace period) and freed by
 * a work item; the last of map_free and that list frees the map
 * (ic->refs).  Tables, elements and list chunks are charged to the map's
 * memcg; map_mem_usage() mirrors them.
 *
 * Walk order.  get_next_key and the lookup batch walk keys in order of
 * (64-bit hash, link_id), a total order that does not depend on the table
 * size, so a walk survives resizes as long as the multiplier stays.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/err.h>
#include <linux/filter.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/rcupdate_trace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/workqueue.h>

#define IP_COOKIE_CREATE_FLAG_MASK \
	(BPF_F_NUMA_NODE | BPF_F_ZERO_SEED | BPF_F_ACCESS_MASK)

#define IP_COOKIE_MAX_VALUE_SIZE	4096
#define IP_COOKIE_MAX_ENTRIES		BIT(26)
#define IP_COOKIE_MIN_BUCKETS		16
/* Most slots a lookup looks at: a few cache lines more than the longest
 * probe random keys reach at 80% load in the biggest tables.
 */
#define IP_COOKIE_MAX_PROBE		256
/* Rebuilds that miss the probe bound: new multipliers, then more buckets */
#define IP_COOKIE_RESEEDS		3
#define IP_COOKIE_REBUILD_TRIES		(2 * IP_COOKIE_RESEEDS)
/* A lookup batch copies keys and values out in chunks of about this size. */
#define IP_COOKIE_BATCH_BYTES		SZ_64K

struct ip_cookie_slot {
	u64 ip;
	union {
		void __rcu *elem;
		u64 pad;	/* 16 bytes on 32-bit too */
	};
};

struct ip_cookie_table {
	u64 mul;	/* odd hash multiplier */
	u32 len;	/* buckets + tail */
	u16 shift;	/* 64 - log2(buckets) */
	u16 probe;	/* every key sits < probe slots past its home */
	struct ip_cookie_slot slots[];
};

struct bpf_ip_cookie {
	struct bpf_map map;
	/* Read by lookups. */
	struct ip_cookie_table __rcu *tbl;
	u32 link_off;		/* offset of link_id in an element */
	u32 elem_size;
	/* Written by every change, under lock. */
	struct mutex lock ____cacheline_aligned;
	u32 count;		/* LIVE slots */
	u32 used;		/* LIVE + DEAD slots of tbl */
	u32 nr_mod;		/* LIVE slots a module unload may purge */
	struct ip_cookie_dfl *dfl;	/* deferred free list */
	bool dfl_busy;		/* a taken list waits for its grace periods */
	bool dying;		/* map_free has begun: start no list */
	refcount_t refs;	/* map_free, and a list in flight: the last frees ic */
#ifdef CONFIG_MODULES
	/* Under ip_cookie_maps_lock. */
	struct list_head list;	/* in ip_cookie_maps */
#endif
};

static struct bpf_ip_cookie *to_ip_cookie(const struct bpf_map *map)
{
	return container_of(map, struct bpf_ip_cookie, map);
}

static bool ip_cookie_has_link(const struct bpf_ip_cookie *ic)
{
	return ic->map.key_size == sizeof(struct bpf_ip_cookie_key);
}

/* Readers hold an RCU or RCU Tasks Trace read lock; writers ic->lock. */
#define ip_cookie_read_held(ic)						\
	(rcu_read_lock_trace_held() || rcu_read_lock_bh_held() ||	\
	 lockdep_is_held(&(ic)->lock))

/* Multiply-shift hashing with the table's odd multiplier.  The link ID
 * of a 16-byte key goes in before a second multiplication, so that one ip
 * under many links spreads out and a new multiplier moves such keys
 * apart too.  For a given link ID the hash is a bijection of ip.
 */
static u64 ip_cookie_hash(const struct bpf_ip_cookie *ic,
			  const struct ip_cookie_table *tbl,
			  const struct bpf_ip_cookie_key *k)
{
	u64 h = k->ip * tbl->mul;

	if (ip_cookie_has_link(ic))
		h = (h + k->link_id) * tbl->mul;
	return h;
}

/* GOLDEN_RATIO_64 first, random after a miss unless BPF_F_ZERO_SEED. */
static u64 ip_cookie_try_mul(const struct bpf_ip_cookie *ic, int try)
{
	if (!try || (ic->map.map_flags & BPF_F_ZERO_SEED))
		return GOLDEN_RATIO_64;
	return get_random_u64() | 1;
}

/* An element is the value, first so that a lookup returns the element,
 * then for 16-byte keys the link ID, 8-byte aligned.
 */
static u32 ip_cookie_link_off(u32 value_size)
{
	return round_up(value_size, 8);
}

static u32 ip_cookie_link(const struct bpf_ip_cookie *ic, const void *elem)
{
	return *(const u32 *)(elem + ic->link_off);
}

static u32 ip_cookie_buckets(const struct ip_cookie_table *tbl)
{
	return 1U << (64 - tbl->shift);
}

/* 80%: tables have at most 2^28 buckets, so this does not overflow. */
static u32 ip_cookie_max_used(u32 buckets)
{
	return buckets * 4 / 5;
}

/* Smallest table that holds @nr entries at or below 50% load. */
static u32 ip_cookie_fit_buckets(u32 nr)
{
	u32 buckets = IP_COOKIE_MIN_BUCKETS;

	while (buckets / 2 < nr)
		buckets <<= 1;
	return buckets;
}

/* Deferred free list: memory a reader may still be using, in page-sized
 * chunks, newest first.  Writers add to it under ic->lock;
 * ip_cookie_defer_kick() takes the whole list, with the callbacks in its
 * first chunk.
 */
struct ip_cookie_dfl {
	struct ip_cookie_dfl *next;
	u32 cnt;
	/* First chunk of a taken list only. */
	struct bpf_ip_cookie *ic;
	struct rcu_head rcu;
	struct work_struct free_work;
	void *ptrs[];
};

#define IP_COOKIE_DFL_CAP \
	((PAGE_SIZE - sizeof(struct ip_cookie_dfl)) / sizeof(void *))

static void ip_cookie_dfl_free(struct ip_cookie_dfl *dfl)
{
	struct ip_cookie_dfl *next;
	u32 i;

	for (; dfl; dfl = next) {
		next = dfl->next;
		for (i = 0; i < dfl->cnt; i++)
			kvfree(dfl->ptrs[i]);
		kfree(dfl);
		cond_resched();
	}
}

static void ip_cookie_destroy(struct bpf_ip_cookie *ic)
{
	mutex_destroy(&ic->lock);
	bpf_map_area_free(ic);
}

static void ip_cookie_defer_kick(struct bpf_ip_cookie *ic);

/* Runs from system_dfl_wq once no program can hold anything of the
 * list.  ic->refs, not ic->lock, decides who frees the map:
 * mutex_unlock() may still touch the mutex after another task took it.
 */
static void ip_cookie_dfl_free_work(struct work_struct *work)
{
	struct ip_cookie_dfl *dfl = container_of(work, struct ip_cookie_dfl,
						 free_work);
	struct bpf_ip_cookie *ic = dfl->ic;

	ip_cookie_dfl_free(dfl);
	mutex_lock(&ic->lock);
	ic->dfl_busy = false;
	ip_cookie_defer_kick(ic);
	mutex_unlock(&ic->lock);
	if (refcount_dec_and_test(&ic->refs))
		ip_cookie_destroy(ic);
}

/* Maybe in softirq: free the list where it can reschedule. */
static void ip_cookie_dfl_rcu(struct rcu_head *rcu)
{
	struct ip_cookie_dfl *dfl = container_of(rcu, struct ip_cookie_dfl,
						 rcu);

	INIT_WORK(&dfl->free_work, ip_cookie_dfl_free_work);
	queue_work(system_dfl_wq, &dfl->free_work);
}

/* Hand what was deferred to the grace periods, unless a list is in
 * flight: its free kicks again.  Called with ic->lock held.
 */
static void ip_cookie_defer_kick(struct bpf_ip_cookie *ic)
{
	struct ip_cookie_dfl *dfl = ic->dfl;

	lockdep_assert_held(&ic->lock);
	if (ic->dfl_busy || ic->dying || !dfl || (!dfl->cnt && !dfl->next))
		return;
	ic->dfl = NULL;
	ic->dfl_busy = true;
	refcount_inc(&ic->refs);
	dfl->ic = ic;
	/* Sleepable programs read under RCU Tasks Trace, others under RCU:
	 * an RCU Tasks Trace grace period implies an RCU one.
	 */
	call_rcu_tasks_trace(&dfl->rcu, ip_cookie_dfl_rcu);
}

/* Make room for one more deferred free, before anything changes.  At the
 * memcg limit, -ENOMEM rather than the OOM killer, unless @nofail (the
 * module purge): that may exceed the limit by a page per
 * IP_COOKIE_DFL_CAP entries.  Called with ic->lock held, in sleepable
 * context.
 */
static int ip_cookie_defer_reserve(struct bpf_ip_cookie *ic, bool nofail)
{
	struct ip_cookie_dfl *dfl = ic->dfl;
	gfp_t gfp = GFP_KERNEL;

	lockdep_assert_held(&ic->lock);
	if (dfl && dfl->cnt < IP_COOKIE_DFL_CAP)
		return 0;
	gfp |= nofail ? __GFP_NOFAIL : __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	dfl = bpf_map_kmalloc_node(&ic->map, PAGE_SIZE, gfp,
				   ic->map.numa_node);
	if (!dfl)
		return -ENOMEM;
	dfl->cnt = 0;
	dfl->next = ic->dfl;
	ic->dfl = dfl;
	return 0;
}

/* Called with ic->lock held and room reserved. */
static void ip_cookie_defer(struct bpf_ip_cookie *ic, void *ptr)
{
	struct ip_cookie_dfl *dfl = ic->dfl;

	lockdep_assert_held(&ic->lock);
	/* Leaking is the only safe way out: freeing could hit a reader,
	 * and waiting here could deadlock (see "Contexts and locks").
	 */
	if (WARN_ON_ONCE(!dfl || dfl->cnt == IP_COOKIE_DFL_CAP))
		return;
	dfl->ptrs[dfl->cnt++] = ptr;
}

/* First and one-past-last slot of the probe sequence of @k in @tbl. */
static u32 ip_cookie_probe(const struct bpf_ip_cookie *ic,
			   const struct ip_cookie_table *tbl,
			   const struct bpf_ip_cookie_key *k, u32 *end)
{
	u32 home = ip_cookie_hash(ic, tbl, k) >> tbl->shift;

	*end = min(home + tbl->probe, tbl->len);
	return home;
}

/* The published table, for a caller holding ic->lock. */
static struct ip_cookie_table *ip_cookie_tbl_locked(struct bpf_ip_cookie *ic)
{
	return rcu_dereference_protected(ic->tbl, lockdep_is_held(&ic->lock));
}

/* Walk the probe sequence of @k in @tbl.  Returns @k's element, or NULL,
 * with its slot in *@live; *@free is the first DEAD slot of @k's ip or the
 * EMPTY slot that ends the walk, if one comes first.  Called under
 * rcu_read_lock() or rcu_read_lock_trace(), from any context, or with
 * ic->lock held.
 */
static void *ip_cookie_walk(const struct bpf_ip_cookie *ic,
			    struct ip_cookie_table *tbl,
			    const struct bpf_ip_cookie_key *k,
			    struct ip_cookie_slot **live,
			    struct ip_cookie_slot **free)
{
	u32 i, end;

	*live = NULL;
	*free = NULL;
	for (i = ip_cookie_probe(ic, tbl, k, &end); i < end; i++) {
		struct ip_cookie_slot *slot;
		void *elem;
		u64 sip;

		slot = &tbl->slots[array_index_nospec(i, end)];
		sip = READ_ONCE(slot->ip);
		if (!sip) {
			*free = *free ?: slot;
			break;
		}
		if (sip != k->ip)
			continue;
		elem = rcu_dereference_check(slot->elem,
					     ip_cookie_read_held(ic));
		if (!elem) {
			*free = *free ?: slot;
			continue;
		}
		if (!ip_cookie_has_link(ic) ||
		    (ip_cookie_link(ic, elem) == k->link_id && !k->reserved)) {
			*live = slot;
			return elem;
		}
	}
	return NULL;
}

static void *ip_cookie_find(const struct bpf_ip_cookie *ic, const void *key)
{
	struct ip_cookie_slot *live, *free;

	return ip_cookie_walk(ic, rcu_dereference_check(ic->tbl,
						ip_cookie_read_held(ic)),
			      key, &live, &free);
}

/* Called from eBPF program.  The verifier checks the size of a key on a
 * program's stack or in a map value, not its alignment.
 */
static void *ip_cookie_map_lookup_elem(struct bpf_map *map, void *key)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	struct bpf_ip_cookie_key k = {};

	if (ip_cookie_has_link(ic))
		memcpy(&k, key, sizeof(k));
	else
		k.ip = get_unaligned((const u64 *)key);
	return ip_cookie_find(ic, &k);
}

/* Emit the probe of an 8-byte key, for the inlined bpf_map_lookup_elem()
 * and bpf_ip_cookie_lookup().  In: r1 = map, r2 = ip.  Out: r0 = value or
 * NULL.  Clobbers r1-r5.  Depends on nothing of the map but what it loads
 * from r1, so inner maps can use it.
 *
 * The home slot (home < buckets <= len) is checked first; the rest of the
 * probe sequence only if it holds another key.  The first slot whose ip
 * matches answers, LIVE or DEAD.  Key 0 would match an EMPTY slot whose
 * element an insert may already have set: it misses explicitly.  With
 * @nospec the index of the load is clamped without a branch: i and end
 * are below 2^32, so the sign of (i - end) masks i.
 */
int bpf_ip_cookie_gen_lookup(struct bpf_insn *insn_buf, bool nospec)
{
	const int tbl = BPF_REG_1, ip = BPF_REG_2, i = BPF_REG_3;
	const int end = BPF_REG_4, slot = BPF_REG_5, ret = BPF_REG_0;
	const int slot_ip = offsetof(struct ip_cookie_table, slots[0].ip);
	const int slot_elem = offsetof(struct ip_cookie_table, slots[0].elem);
	struct bpf_insn *insn = insn_buf, *match, *loop, *to_slow, *to_out;
	struct bpf_insn *to_out0, *to_empty, *to_miss, *to_match, *to_loop;

	BUILD_BUG_ON(sizeof(struct ip_cookie_slot) != 1 << 4);

	/* i = home = (ip * tbl->mul) >> tbl->shift; slot = &slots[i] */
	*insn++ = BPF_LDX_MEM(BPF_DW, tbl, BPF_REG_1,
			      offsetof(struct bpf_ip_cookie, tbl));
	*insn++ = BPF_LDX_MEM(BPF_DW, i, tbl,
			      offsetof(struct ip_cookie_table, mul));
	*insn++ = BPF_ALU64_REG(BPF_MUL, i, ip);
	*insn++ = BPF_LDX_MEM(BPF_H, end, tbl,
			      offsetof(struct ip_cookie_table, shift));
	*insn++ = BPF_ALU64_REG(BPF_RSH, i, end);
	*insn++ = BPF_MOV64_REG(slot, i);
	*insn++ = BPF_ALU64_IMM(BPF_LSH, slot, 4);
	*insn++ = BPF_ALU64_REG(BPF_ADD, slot, tbl);
	*insn++ = BPF_LDX_MEM(BPF_DW, ret, slot, slot_ip);
	to_slow = insn;
	*insn++ = BPF_JMP_REG(BPF_JNE, ret, ip, 0);
	/* match: the element, unless the key is 0 (an EMPTY slot) */
	match = insn;
	to_out0 = insn;
	*insn++ = BPF_JMP_IMM(BPF_JEQ, ret, 0, 0);
	*insn++ = BPF_LDX_MEM(BPF_DW, ret, slot, slot_elem);
	to_out = insn;
	*insn++ = BPF_JMP_A(0);
	/* slow: EMPTY home is a miss (r0 == 0 == NULL), else walk on */
	to_slow->off = insn - to_slow - 1;
	to_empty = insn;	/* to out, r0 == NULL */
	*insn++ = BPF_JMP_IMM(BPF_JEQ, ret, 0, 0);
	*insn++ = BPF_LDX_MEM(BPF_H, end, tbl,
			      offsetof(struct ip_cookie_table, probe));
	*insn++ = BPF_ALU64_REG(BPF_ADD, end, i);
	loop = insn;
	*insn++ = BPF_ALU64_IMM(BPF_ADD, i, 1);
	to_miss = insn;
	*insn++ = BPF_JMP_REG(BPF_JGE, i, end, 0);
	if (nospec) {
		/* slot = &slots[i < end ? i : 0] */
		*insn++ = BPF_MOV64_REG(slot, i);
		*insn++ = BPF_ALU64_REG(BPF_SUB, slot, end);
		*insn++ = BPF_ALU64_IMM(BPF_ARSH, slot, 63);
		*insn++ = BPF_ALU64_REG(BPF_AND, slot, i);
		*insn++ = BPF_ALU64_IMM(BPF_LSH, slot, 4);
		*insn++ = BPF_ALU64_REG(BPF_ADD, slot, tbl);
	} else {
		*insn++ = BPF_ALU64_IMM(BPF_ADD, slot, sizeof(struct ip_cookie_slot));
	}
	*insn++ = BPF_LDX_MEM(BPF_DW, ret, slot, slot_ip);
	to_match = insn;
	*insn++ = BPF_JMP_REG(BPF_JEQ, ret, ip, 0);
	to_match->off = match - to_match - 1;
	to_loop = insn;
	*insn++ = BPF_JMP_IMM(BPF_JNE, ret, 0, 0);
	to_loop->off = loop - to_loop - 1;
	/* miss: (also reached with r0 == 0 from an EMPTY slot) */
	to_miss->off = insn - to_miss - 1;
	*insn++ = BPF_MOV64_IMM(ret, 0);
	/* out: */
	to_out->off = insn - to_out - 1;
	to_out0->off = insn - to_out0 - 1;
	to_empty->off = insn - to_empty - 1;
	return insn - insn_buf;
}

/* Emit the lookup of a 16-byte key.  In: r1 = map, r2 = key.  Out: r0 =
 * value or NULL.  Clobbers r1-r5.  Short of registers, it walks slot
 * pointers, reloads the key's ip from the stack and compares link_id and
 * reserved as one 64-bit word with the element's u32 link ID, which only
 * matches when reserved is 0.  Little-endian only, with no clamp.
 * @link_off depends only on the value size, as inner maps need.
 */
static int ip_cookie_gen_lookup_link(struct bpf_insn *insn_buf, u32 link_off)
{
	const int tbl = BPF_REG_1, key = BPF_REG_2, slot = BPF_REG_3;
	const int end = BPF_REG_4, tmp = BPF_REG_5, ret = BPF_REG_0;
	const int link = BPF_REG_1;	/* once tbl is no longer needed */
	const int slot_ip = offsetof(struct ip_cookie_table, slots[0].ip);
	const int slot_elem = offsetof(struct ip_cookie_table, slots[0].elem);
	const int key_ip = offsetof(struct bpf_ip_cookie_key, ip);
	const int key_link = offsetof(struct bpf_ip_cookie_key, link_id);
	struct bpf_insn *insn = insn_buf, *loop, *next, *to_next1, *to_next2;
	struct bpf_insn *to_out1, *to_out2, *to_loop;

	BUILD_BUG_ON(offsetof(struct bpf_ip_cookie_key, reserved) !=
		     key_link + sizeof(u32));

	/* home = ((ip * mul + link_id) * mul) >> shift */
	*insn++ = BPF_LDX_MEM(BPF_DW, tbl, BPF_REG_1,
			      offsetof(struct bpf_ip_cookie, tbl));
	*insn++ = BPF_LDX_MEM(BPF_DW, ret, key, key_ip);
	*insn++ = BPF_LDX_MEM(BPF_DW, slot, tbl,
			      offsetof(struct ip_cookie_table, mul));
	*insn++ = BPF_ALU64_REG(BPF_MUL, ret, slot);
	*insn++ = BPF_LDX_MEM(BPF_W, tmp, key, key_link);
	*insn++ = BPF_ALU64_REG(BPF_ADD, ret, tmp);
	*insn++ = BPF_ALU64_REG(BPF_MUL, ret, slot);
	*insn++ = BPF_LDX_MEM(BPF_H, tmp, tbl,
			      offsetof(struct ip_cookie_table, shift));
	*insn++ = BPF_ALU64_REG(BPF_RSH, ret, tmp);
	/* end = &slots[home + probe], slot = &slots[home] */
	*insn++ = BPF_LDX_MEM(BPF_H, end, tbl,
			      offsetof(struct ip_cookie_table, probe));
	*insn++ = BPF_ALU64_REG(BPF_ADD, end, ret);
	*insn++ = BPF_ALU64_IMM(BPF_LSH, end, 4);
	*insn++ = BPF_ALU64_REG(BPF_ADD, end, tbl);
	*insn++ = BPF_MOV64_REG(slot, ret);
	*insn++ = BPF_ALU64_IMM(BPF_LSH, slot, 4);
	*insn++ = BPF_ALU64_REG(BPF_ADD, slot, tbl);
	/* link = link_id | reserved << 32 */
	*insn++ = BPF_LDX_MEM(BPF_DW, link, key, key_link);
	loop = insn;
	*insn++ = BPF_LDX_MEM(BPF_DW, ret, slot, slot_ip);
	to_out1 = insn;		/* EMPTY: r0 == NULL */
	*insn++ = BPF_JMP_IMM(BPF_JEQ, ret, 0, 0);
	*insn++ = BPF_LDX_MEM(BPF_DW, tmp, key, key_ip);
	to_next1 = insn;
	*insn++ = BPF_JMP_REG(BPF_JNE, ret, tmp, 0);
	*insn++ = BPF_LDX_MEM(BPF_DW, ret, slot, slot_elem);
	to_next2 = insn;	/* DEAD */
	*insn++ = BPF_JMP_IMM(BPF_JEQ, ret, 0, 0);
	*insn++ = BPF_LDX_MEM(BPF_W, tmp, ret, link_off);
	to_out2 = insn;
	*insn++ = BPF_JMP_REG(BPF_JEQ, tmp, link, 0);
	next = insn;
	to_next1->off = next - to_next1 - 1;
	to_next2->off = next - to_next2 - 1;
	*insn++ = BPF_ALU64_IMM(BPF_ADD, slot, sizeof(struct ip_cookie_slot));
	to_loop = insn;
	*insn++ = BPF_JMP_REG(BPF_JLT, slot, end, 0);
	to_loop->off = loop - to_loop - 1;
	*insn++ = BPF_MOV64_IMM(ret, 0);
	/* out: */
	to_out1->off = insn - to_out1 - 1;
	to_out2->off = insn - to_out2 - 1;
	return insn - insn_buf;
}

/* Inline bpf_map_lookup_elem().  For an inner map, @map is the template
 * (bpf_map_meta_alloc()), which never bypasses Spectre v1 mitigations:
 * 8-byte keys get the clamp, 16-byte keys the call.
 */
static int ip_cookie_map_gen_lookup(struct bpf_map *map,
				    struct bpf_insn *insn_buf)
{
	/* The key may be unaligned. */
	if (!IS_ENABLED(CONFIG_64BIT) ||
	    !IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS))
		return -EOPNOTSUPP;
	if (map->key_size == sizeof(struct bpf_ip_cookie_key)) {
		if (!map->bypass_spec_v1 || IS_ENABLED(CONFIG_CPU_BIG_ENDIAN))
			return -EOPNOTSUPP;
		return ip_cookie_gen_lookup_link(insn_buf,
						 ip_cookie_link_off(map->value_size));
	}
	insn_buf[0] = BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_2, 0);
	return 1 + bpf_ip_cookie_gen_lookup(insn_buf + 1, !map->bypass_spec_v1);
}

/* Place @elem for @k in the first EMPTY slot of its probe sequence in a
 * table nobody else can see yet; with @elem NULL, only check that there
 * is one.  Returns false if there is none.
 */
static bool ip_cookie_place(const struct bpf_ip_cookie *ic,
			    struct ip_cookie_table *tbl,
			    const struct bpf_ip_cookie_key *k, void *elem)
{
	u32 i, end;

	for (i = ip_cookie_probe(ic, tbl, k, &end); i < end; i++) {
		struct ip_cookie_slot *slot = &tbl->slots[i];

		if (slot->ip)
			continue;
		if (elem) {
			slot->ip = k->ip;
			RCU_INIT_POINTER(slot->elem, elem);
		}
		return true;
	}
	return false;
}

/* Bytes of a table of at least @len slots as bpf_map_area_alloc() hands
 * them out (kmalloc() up to the costly order, vmalloc() above, never
 * kvmalloc()'s doubling); the rounding becomes more tail slots.
 */
static size_t ip_cookie_table_bytes(u32 len)
{
	size_t size = struct_size_t(struct ip_cookie_table, slots, len);

	if (size <= (PAGE_SIZE << PAGE_ALLOC_COSTLY_ORDER))
		return kmalloc_size_roundup(size);
	return PAGE_ALIGN(size);
}

/* Also the tail after the last bucket. */
static u32 ip_cookie_probe_len(u32 buckets)
{
	return min_t(u32, buckets, IP_COOKIE_MAX_PROBE);
}

static void ip_cookie_table_init(struct ip_cookie_table *tbl, u32 buckets,
				 u64 mul, size_t bytes)
{
	tbl->mul = mul;
	tbl->shift = 64 - ilog2(buckets);
	tbl->probe = ip_cookie_probe_len(buckets);
	tbl->len = (bytes - offsetof(struct ip_cookie_table, slots)) /
		   sizeof(struct ip_cookie_slot);
}

/* Charged to the map's memcg, whoever the caller is.  Sleepable context. */
static struct ip_cookie_table *ip_cookie_table_alloc(struct bpf_ip_cookie *ic,
						     u32 buckets, u64 mul)
{
	u32 tail = ip_cookie_probe_len(buckets);
	size_t bytes = ip_cookie_table_bytes(buckets + tail);
	struct mem_cgroup *memcg, *old_memcg;
	struct ip_cookie_table *tbl;

	bpf_map_memcg_enter(&ic->map, &old_memcg, &memcg);
	tbl = bpf_map_area_alloc(bytes, ic->map.numa_node);
	bpf_map_memcg_exit(old_memcg, memcg);
	if (tbl)
		ip_cookie_table_init(tbl, buckets, mul, bytes);
	return tbl;
}

/* Copy every LIVE slot of @old into @tbl.  Returns false if a key would
 * sit outside its probe sequence.  Called with ic->lock held.
 */
static bool ip_cookie_fill_nolock(struct bpf_ip_cookie *ic,
				  struct ip_cookie_table *tbl,
				  const struct ip_cookie_table *old)
{
	struct bpf_ip_cookie_key k = {};
	u32 i;

	lockdep_assert_held(&ic->lock);
	for (i = 0; i < old->len; i++) {
		const struct ip_cookie_slot *slot = &old->slots[i];
		void *elem = rcu_dereference_protected(slot->elem,
					lockdep_is_held(&ic->lock));

		if (!(i % SZ_4K))
			cond_resched();
		if (!elem)
			continue;
		k.ip = slot->ip;
		if (ip_cookie_has_link(ic))
			k.link_id = ip_cookie_link(ic, elem);
		if (!ip_cookie_place(ic, tbl, &k, elem))
			return false;
	}
	return true;
}

/* Build an unpublished table of @buckets (or more, see "Probe bound")
 * holding every LIVE slot of @old, with room for @k unless it is NULL.
 * Called with ic->lock held.
 */
static struct ip_cookie_table *
ip_cookie_rebuild_nolock(struct bpf_ip_cookie *ic,
			 const struct ip_cookie_table *old, u32 buckets,
			 const struct bpf_ip_cookie_key *k)
{
	bool fixed = ic->map.map_flags & BPF_F_ZERO_SEED;
	int try, tries = fixed ? IP_COOKIE_RESEEDS : IP_COOKIE_REBUILD_TRIES;
	struct ip_cookie_table *tbl;

	lockdep_assert_held(&ic->lock);
	for (try = 0; try < tries; try++) {
		tbl = ip_cookie_table_alloc(ic, buckets,
					    ip_cookie_try_mul(ic, try));
		if (!tbl)
			return ERR_PTR(-ENOMEM);
		if (ip_cookie_fill_nolock(ic, tbl, old) &&
		    (!k || ip_cookie_place(ic, tbl, k, NULL)))
			return tbl;
		kvfree(tbl);
		/* The same multiplier needs more buckets to fit. */
		if (fixed || try == IP_COOKIE_RESEEDS - 1)
			buckets <<= 1;
		cond_resched();
	}
	return ERR_PTR(-ENOSPC);
}

/* Replace the index with one of at least @buckets, with room for @k
 * unless it is NULL.  Called with ic->lock held and room reserved for
 * one deferred free, the old table.  On error nothing changes.
 */
static int ip_cookie_resize_nolock(struct bpf_ip_cookie *ic, u32 buckets,
				   const struct bpf_ip_cookie_key *k)
{
	struct ip_cookie_table *old, *tbl;

	lockdep_assert_held(&ic->lock);
	old = ip_cookie_tbl_locked(ic);
	tbl = ip_cookie_rebuild_nolock(ic, old, buckets, k);
	if (IS_ERR(tbl))
		return PTR_ERR(tbl);
	rcu_assign_pointer(ic->tbl, tbl);
	ic->used = ic->count;
	ip_cookie_defer(ic, old);
	return 0;
}

/* Lookups, updates and deletes from the syscall check keys the same way;
 * get_next_key takes any key as a position in the walk order.
 */
static int ip_cookie_check_key(const struct bpf_ip_cookie *ic,
			       const struct bpf_ip_cookie_key *k)
{
	/* On 32-bit, a reader loads a slot's ip in two halves: with keys
	 * below 2^32 the upper half is always 0, so a reader racing with
	 * an insert cannot match half of its key.  No address is wider.
	 */
	if (!k->ip || k->ip != (unsigned long)k->ip)
		return -EINVAL;
	/* Link ID 0 is what a program reads before its link has an ID. */
	if (ip_cookie_has_link(ic) && (!k->link_id || k->reserved))
		return -EINVAL;
	return 0;
}

/* Keys a module unload may purge (ic->nr_mod): the test does not depend
 * on what is loaded, so inserts and removals count alike.
 */
static bool ip_cookie_in_module_area(u64 ip)
{
	return is_vmalloc_or_module_addr((const void *)(unsigned long)ip);
}

/* Insert or replace one entry.  Called with ic->lock held, in sleepable
 * context.  On error the map is unchanged.
 */
static int ip_cookie_update_nolock(struct bpf_ip_cookie *ic, const void *key,
				   const void *value, u64 flags)
{
	const struct bpf_ip_cookie_key *k = key;
	struct ip_cookie_slot *live, *free;
	struct ip_cookie_table *tbl;
	void *elem, *old;
	u32 buckets;
	int err;

	lockdep_assert_held(&ic->lock);
	err = ip_cookie_check_key(ic, k);
	if (err)
		return err;

	tbl = ip_cookie_tbl_locked(ic);
	old = ip_cookie_walk(ic, tbl, k, &live, &free);
	if (old && flags == BPF_NOEXIST)
		return -EEXIST;
	if (!old && flags == BPF_EXIST)
		return -ENOENT;
	if (!old && ic->count >= ic->map.max_entries)
		return -E2BIG;
	if (old) {
		err = ip_cookie_defer_reserve(ic, false);
		if (err)
			return err;
	}

	elem = bpf_map_kmalloc_node(&ic->map, ic->elem_size,
				    GFP_KERNEL | __GFP_NOWARN |
				    __GFP_RETRY_MAYFAIL,
				    ic->map.numa_node);
	if (!elem)
		return -ENOMEM;
	memcpy(elem, value, ic->map.value_size);
	if (ip_cookie_has_link(ic))
		*(u32 *)(elem + ic->link_off) = k->link_id;

	if (old) {
		rcu_assign_pointer(live->elem, elem);
		ip_cookie_defer(ic, old);
		return 0;
	}

	/* A DEAD slot of the same ip can be revived in place. */
	if (free && free->ip) {
		rcu_assign_pointer(free->elem, elem);
		goto added;
	}

	buckets = ip_cookie_buckets(tbl);
	if (!free || ic->used + 1 > ip_cookie_max_used(buckets)) {
		/* Grow, or drop DEAD slots, to at most half full. */
		buckets = max(buckets, ip_cookie_fit_buckets(ic->count + 1));
		err = ip_cookie_defer_reserve(ic, false);
		if (!err)
			err = ip_cookie_resize_nolock(ic, buckets, k);
		if (err) {
			kfree(elem);
			return err;
		}
		ip_cookie_walk(ic, ip_cookie_tbl_locked(ic), k, &live, &free);
		/* A fresh table has no DEAD slot and room for the key. */
		if (WARN_ON_ONCE(!free)) {
			kfree(elem);
			return -EFAULT;
		}
	}

	rcu_assign_pointer(free->elem, elem);
	WRITE_ONCE(free->ip, k->ip);
	ic->used++;
added:
	ic->count++;
	if (ip_cookie_in_module_area(k->ip))
		WRITE_ONCE(ic->nr_mod, ic->nr_mod + 1);
	return 0;
}

/* Make a LIVE slot DEAD.  Returns its element, which readers may still
 * hold.  Called with ic->lock held.
 */
static void *ip_cookie_unlink_nolock(struct bpf_ip_cookie *ic,
				     struct ip_cookie_slot *slot)
{
	void *elem;

	lockdep_assert_held(&ic->lock);
	elem = rcu_dereference_protected(slot->elem, lockdep_is_held(&ic->lock));
	RCU_INIT_POINTER(slot->elem, NULL);
	ic->count--;
	if (ip_cookie_in_module_area(slot->ip))
		WRITE_ONCE(ic->nr_mod, ic->nr_mod - 1);
	return elem;
}

/* Remove one entry.  Called with ic->lock held, in sleepable context. */
static int ip_cookie_delete_nolock(struct bpf_ip_cookie *ic, const void *key)
{
	struct ip_cookie_slot *live, *free;
	int err;

	lockdep_assert_held(&ic->lock);
	err = ip_cookie_check_key(ic, key);
	if (err)
		return err;
	if (!ip_cookie_walk(ic, ip_cookie_tbl_locked(ic), key, &live, &free))
		return -ENOENT;
	err = ip_cookie_defer_reserve(ic, false);
	if (err)
		return err;
	ip_cookie_defer(ic, ip_cookie_unlink_nolock(ic, live));
	return 0;
}

/* Shrink the index once live entries fall below 20% of the buckets, to at
 * most 50% load.  A failed rebuild keeps the bigger table: the map stays
 * correct.  Called with ic->lock held, in sleepable context.
 */
static void ip_cookie_maybe_shrink_nolock(struct bpf_ip_cookie *ic)
{
	struct ip_cookie_table *tbl;
	u32 buckets;

	lockdep_assert_held(&ic->lock);
	tbl = ip_cookie_tbl_locked(ic);
	buckets = ip_cookie_buckets(tbl);
	if (buckets > IP_COOKIE_MIN_BUCKETS && ic->count < buckets / 5 &&
	    !ip_cookie_defer_reserve(ic, false))
		ip_cookie_resize_nolock(ic, ip_cookie_fit_buckets(ic->count),
					NULL);
}

#ifdef CONFIG_MODULES
/* Every IP_COOKIE map, for the module notifier.  Lock order:
 * ip_cookie_maps_lock, then ic->lock; the notifier holds only one of
 * them at a time.
 */
static LIST_HEAD(ip_cookie_maps);
static DEFINE_MUTEX(ip_cookie_maps_lock);

/* Does @ip lie in @mod's text (its init text only if @init_only)?  Keys
 * fit an unsigned long (ip_cookie_check_key()).
 */
static bool ip_cookie_in_text(u64 ip, const struct module *mod,
			      bool init_only)
{
	return within_module_mem_type(ip, mod, MOD_INIT_TEXT) ||
	       (!init_only && within_module_mem_type(ip, mod, MOD_TEXT));
}

/* Remove every entry whose ip lies in @mod's text (its init text only if
 * @init_only).  Cannot fail.  Sleepable context, without
 * ip_cookie_maps_lock.
 */
static void ip_cookie_purge_module(struct bpf_ip_cookie *ic,
				   const struct module *mod, bool init_only)
{
	struct ip_cookie_table *tbl;
	u32 i;

	mutex_lock(&ic->lock);
	tbl = ip_cookie_tbl_locked(ic);
	for (i = 0; i < tbl->len && ic->nr_mod; i++) {
		struct ip_cookie_slot *slot = &tbl->slots[i];

		if (!(i % SZ_4K))
			cond_resched();
		if (!rcu_access_pointer(slot->elem) ||
		    !ip_cookie_in_text(slot->ip, mod, init_only))
			continue;
		ip_cookie_defer_reserve(ic, true);
		ip_cookie_defer(ic, ip_cookie_unlink_nolock(ic, slot));
	}
	ip_cookie_maybe_shrink_nolock(ic);
	ip_cookie_defer_kick(ic);
	mutex_unlock(&ic->lock);
}

/* Remove the keys in the text of a module that goes away, and in its init
 * text once that is freed: they could only alias functions of the next
 * module loaded there.  Every map with keys in the module area
 * (ic->nr_mod), frozen ones too, is purged under its ic->lock alone, one
 * at a time.  Runs in sleepable context.
 */
static int ip_cookie_module_notify(struct notifier_block *nb,
				   unsigned long action, void *data)
{
	bool init_only = action == MODULE_STATE_LIVE;
	struct bpf_ip_cookie *ic, *prev = NULL;
	struct list_head *pos;

	if (action != MODULE_STATE_GOING && action != MODULE_STATE_LIVE)
		return NOTIFY_DONE;
	/* The map being purged holds a reference, so it stays on the list
	 * while the lock is dropped.  Not list_for_each_entry(): its end
	 * test forms a struct bpf_ip_cookie pointer at the list head, not
	 * aligned as this cache-line aligned struct must be.
	 */
	mutex_lock(&ip_cookie_maps_lock);
	list_for_each(pos, &ip_cookie_maps) {
		ic = list_entry(pos, struct bpf_ip_cookie, list);
		if (!READ_ONCE(ic->nr_mod) ||
		    IS_ERR(bpf_map_inc_not_zero(&ic->map)))
			continue;
		mutex_unlock(&ip_cookie_maps_lock);
		if (prev)
			bpf_map_put(&prev->map);
		ip_cookie_purge_module(ic, data, init_only);
		cond_resched();
		prev = ic;
		mutex_lock(&ip_cookie_maps_lock);
	}
	mutex_unlock(&ip_cookie_maps_lock);
	if (prev)
		bpf_map_put(&prev->map);
	return NOTIFY_DONE;
}

static struct notifier_block ip_cookie_module_nb = {
	.notifier_call = ip_cookie_module_notify,
};

static int __init ip_cookie_init(void)
{
	return register_module_notifier(&ip_cookie_module_nb);
}
late_initcall(ip_cookie_init);

static void ip_cookie_list_add(struct bpf_ip_cookie *ic)
{
	mutex_lock(&ip_cookie_maps_lock);
	list_add(&ic->list, &ip_cookie_maps);
	mutex_unlock(&ip_cookie_maps_lock);
}

static void ip_cookie_list_del(struct bpf_ip_cookie *ic)
{
	mutex_lock(&ip_cookie_maps_lock);
	list_del(&ic->list);
	mutex_unlock(&ip_cookie_maps_lock);
}
#else
static void ip_cookie_list_add(struct bpf_ip_cookie *ic) {}
static void ip_cookie_list_del(struct bpf_ip_cookie *ic) {}
#endif

/* Called from syscall, in sleepable context (see bpf_map_update_value()) */
static long ip_cookie_map_update_elem(struct bpf_map *map, void *key,
				      void *value, u64 flags)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	int err;

	if (flags > BPF_EXIST)
		return -EINVAL;

	mutex_lock(&ic->lock);
	err = ip_cookie_update_nolock(ic, key, value, flags);
	ip_cookie_defer_kick(ic);
	mutex_unlock(&ic->lock);
	return err;
}

/* Called from syscall, in sleepable context (see map_delete_elem()) */
static long ip_cookie_map_delete_elem(struct bpf_map *map, void *key)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	int err;

	mutex_lock(&ic->lock);
	err = ip_cookie_delete_nolock(ic, key);
	if (!err)
		ip_cookie_maybe_shrink_nolock(ic);
	ip_cookie_defer_kick(ic);
	mutex_unlock(&ic->lock);
	return err;
}

/* Called from syscall under rcu_read_lock() (see bpf_map_copy_value()):
 * unlike a program, user space learns that a key can never exist.
 */
static void *ip_cookie_map_lookup_elem_sys_only(struct bpf_map *map,
						void *key)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	int err = ip_cookie_check_key(ic, key);

	return err ? ERR_PTR(err) : ip_cookie_find(ic, key);
}

/* Find the first LIVE key after @cur in walk order (the first key if @cur
 * is NULL; @cur need not be in the map), store it in @next and return its
 * element, or NULL if there is none.  A key at slot q has its home at or
 * after q - probe + 1, so once a candidate is found at slot j no key past
 * an EMPTY slot or past j + probe comes before it.  Called under
 * rcu_read_lock(), or with ic->lock held and @resched.
 */
static void *ip_cookie_next(const struct bpf_ip_cookie *ic,
			    const struct ip_cookie_table *tbl,
			    const struct bpf_ip_cookie_key *cur,
			    struct bpf_ip_cookie_key *next, bool resched)
{
	u64 cur_h = 0, best_h = 0, h;
	u32 i = 0, end = tbl->len;
	void *elem, *best = NULL;
	u32 cur_link = 0;

	/* An 8-byte key has no link ID to read. */
	if (cur) {
		cur_h = ip_cookie_hash(ic, tbl, cur);
		if (ip_cookie_has_link(ic))
			cur_link = cur->link_id;
		i = cur_h >> tbl->shift;
	}
	for (; i < end; i++) {
		const struct ip_cookie_slot *slot = &tbl->slots[i];
		struct bpf_ip_cookie_key cand = {};

		if (resched && !(i % SZ_4K))
			cond_resched();
		cand.ip = READ_ONCE(slot->ip);
		if (!cand.ip) {
			if (best)
				break;
			continue;
		}
		elem = rcu_dereference_check(slot->elem, ip_cookie_read_held(ic));
		if (!elem)
			continue;
		if (ip_cookie_has_link(ic))
			cand.link_id = ip_cookie_link(ic, elem);
		h = ip_cookie_hash(ic, tbl, &cand);
		/* Only keys after the current one, and of those the first. */
		if (cur && (h < cur_h || (h == cur_h && cand.link_id <= cur_link)))
			continue;
		if (best && (h > best_h ||
			     (h == best_h && cand.link_id >= next->link_id)))
			continue;
		if (!best)
			end = min(end, i + tbl->probe);
		best = elem;
		best_h = h;
		*next = cand;
	}
	return best;
}

/* Called from syscall, in sleepable context.  The batch is a position in
 * the walk order, whether its key is still in the map or not, so the walk
 * goes on after a delete.  Entries are gathered under ic->lock, a chunk at
 * a time, and copied to user space without it.
 */
static int ip_cookie_map_lookup_batch(struct bpf_map *map,
				      const union bpf_attr *attr,
				      union bpf_attr __user *uattr)
{
	void __user *uobatch = u64_to_user_ptr(attr->batch.out_batch);
	void __user *ubatch = u64_to_user_ptr(attr->batch.in_batch);
	void __user *values = u64_to_user_ptr(attr->batch.values);
	void __user *keys = u64_to_user_ptr(attr->batch.keys);
	u32 key_size = map->key_size, value_size = map->value_size;
	u32 stride = key_size + value_size, max = attr->batch.count;
	u32 chunk = min(max, IP_COOKIE_BATCH_BYTES / stride), cp = 0, n, i;
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	struct bpf_ip_cookie_key k = {};
	void *buf, *elem;
	int err = 0;

	if (attr->batch.elem_flags)
		return -EINVAL;
	if (!max)
		return 0;
	if (put_user(0, &uattr->batch.count))
		return -EFAULT;
	buf = kvmalloc_array(chunk, stride, GFP_USER | __GFP_NOWARN);
	if (!buf)
		return -ENOMEM;
	if (ubatch && copy_from_user(&k, ubatch, key_size)) {
		err = -EFAULT;
		goto out;
	}
	while (cp < max) {
		mutex_lock(&ic->lock);
		for (n = 0; n < min(chunk, max - cp); n++) {
			elem = ip_cookie_next(ic, ip_cookie_tbl_locked(ic),
					      ubatch || cp || n ? &k : NULL,
					      &k, true);
			if (!elem)
				break;
			memcpy(buf + n * stride, &k, key_size);
			copy_map_value(map, buf + n * stride + key_size, elem);
		}
		mutex_unlock(&ic->lock);
		for (i = 0; i < n; i++) {
			if (copy_to_user(keys + size_mul(cp + i, key_size),
					 buf + i * stride, key_size) ||
			    copy_to_user(values + size_mul(cp + i, value_size),
					 buf + i * stride + key_size,
					 value_size)) {
				err = -EFAULT;
				goto out;
			}
		}
		cp += n;
		if (n < min(chunk, max - cp + n)) {
			err = -ENOENT;
			break;
		}
		cond_resched();
	}
	if (copy_to_user(&uattr->batch.count, &cp, sizeof(cp)) ||
	    (cp && copy_to_user(uobatch, &k, key_size)))
		err = -EFAULT;
out:
	kvfree(buf);
	return err;
}

/* Called from syscall under rcu_read_lock(): keys come in walk order (see
 * the top comment), and as for every other map a key that is not in the
 * map starts the walk over.
 */
static int ip_cookie_map_get_next_key(struct bpf_map *map, void *key,
				      void *next_key)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	const struct bpf_ip_cookie_key *k = key;
	struct bpf_ip_cookie_key next = {};

	if (k && !ip_cookie_find(ic, k))
		k = NULL;
	if (!ip_cookie_next(ic, rcu_dereference_check(ic->tbl,
						      ip_cookie_read_held(ic)),
			    k, &next, false))
		return -ENOENT;
	memcpy(next_key, &next, map->key_size);
	return 0;
}

static int ip_cookie_map_alloc_check(union bpf_attr *attr)
{
	u32 max_value = IP_COOKIE_MAX_VALUE_SIZE;

	if (attr->map_flags & ~IP_COOKIE_CREATE_FLAG_MASK ||
	    !bpf_map_flags_access_ok(attr->map_flags))
		return -EINVAL;
	/* A multiplier that never changes keeps keys aimed at one home
	 * there: -ENOSPC for keys that would fit with another one.
	 */
	if ((attr->map_flags & BPF_F_ZERO_SEED) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (attr->key_size != sizeof(u64) &&
	    attr->key_size != sizeof(struct bpf_ip_cookie_key))
		return -EINVAL;
	if (!attr->value_size || !attr->max_entries)
		return -EINVAL;
	/* An element holds the value and, for 16-byte keys, the link ID:
	 * at most IP_COOKIE_MAX_VALUE_SIZE bytes.
	 */
	if (attr->key_size == sizeof(struct bpf_ip_cookie_key))
		max_value -= sizeof(u64);
	if (attr->value_size > max_value ||
	    attr->max_entries > IP_COOKIE_MAX_ENTRIES)
		return -E2BIG;
	/* map_extra: how many entries the first index has room for. */
	if (attr->map_extra > attr->max_entries)
		return -EINVAL;
	return 0;
}

static struct bpf_map *ip_cookie_map_alloc(union bpf_attr *attr)
{
	int numa_node = bpf_map_attr_numa_node(attr);
	u32 buckets = IP_COOKIE_MIN_BUCKETS;
	struct ip_cookie_table *tbl;
	struct bpf_ip_cookie *ic;
	size_t bytes;

	ic = bpf_map_area_alloc(sizeof(*ic), numa_node);
	if (!ic)
		return ERR_PTR(-ENOMEM);
	bpf_map_init_from_attr(&ic->map, attr);
	ic->map.bypass_spec_v1 = bpf_bypass_spec_v1(NULL);

	/* Room for map_extra entries below the 80% that grows the index:
	 * at most 2^27 buckets, as map_extra <= max_entries <= 2^26.  The
	 * map's memcg is not set up yet: charge the creator, as
	 * bpf_map_area_alloc() does.
	 */
	while (ip_cookie_max_used(buckets) < attr->map_extra)
		buckets <<= 1;
	bytes = ip_cookie_table_bytes(buckets + ip_cookie_probe_len(buckets));
	tbl = bpf_map_area_alloc(bytes, numa_node);
	if (!tbl) {
		bpf_map_area_free(ic);
		return ERR_PTR(-ENOMEM);
	}
	ip_cookie_table_init(tbl, buckets, GOLDEN_RATIO_64, bytes);
	RCU_INIT_POINTER(ic->tbl, tbl);

	ic->link_off = ip_cookie_link_off(attr->value_size);
	ic->elem_size = ic->link_off;
	if (attr->key_size == sizeof(struct bpf_ip_cookie_key))
		ic->elem_size += sizeof(u64);
	mutex_init(&ic->lock);
	refcount_set(&ic->refs, 1);
	ip_cookie_list_add(ic);
	return &ic->map;
}

/* No program can run against the map any more. */
static void ip_cookie_map_free(struct bpf_map *map)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	struct ip_cookie_table *tbl;
	u32 i;

	ip_cookie_list_del(ic);
	/* No reader can hold what is not in flight any more; a list in
	 * flight waits for its grace periods on its own.
	 */
	mutex_lock(&ic->lock);
	ic->dying = true;
	mutex_unlock(&ic->lock);
	ip_cookie_dfl_free(ic->dfl);
	tbl = rcu_dereference_protected(ic->tbl, true);
	for (i = 0; i < tbl->len; i++) {
		kfree(rcu_dereference_protected(tbl->slots[i].elem, true));
		if (!(i % SZ_1K))
			cond_resched();
	}
	kvfree(tbl);
	if (refcount_dec_and_test(&ic->refs))
		ip_cookie_destroy(ic);
}

static void ip_cookie_map_seq_show_elem(struct bpf_map *map, void *key,
					struct seq_file *m)
{
	void *value;

	rcu_read_lock();
	value = ip_cookie_map_lookup_elem(map, key);
	if (value) {
		btf_type_seq_show(map->btf, map->btf_key_type_id, key, m);
		seq_puts(m, ": ");
		btf_type_seq_show(map->btf, map->btf_value_type_id, value, m);
		seq_putc(m, '\n');
	}
	rcu_read_unlock();
}

static u64 ip_cookie_map_mem_usage(const struct bpf_map *map)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	const struct ip_cookie_table *tbl;
	u64 usage = sizeof(*ic);

	rcu_read_lock();
	tbl = rcu_dereference(ic->tbl);
	usage += struct_size(tbl, slots, tbl->len);
	rcu_read_unlock();
	usage += (u64)READ_ONCE(ic->count) * kmalloc_size_roundup(ic->elem_size);
	return usage;
}

BTF_ID_LIST_SINGLE(ip_cookie_map_btf_ids, struct, bpf_ip_cookie)
const struct bpf_map_ops ip_cookie_map_ops = {
	.map_meta_equal = bpf_map_meta_equal,
	.map_alloc_check = ip_cookie_map_alloc_check,
	.map_alloc = ip_cookie_map_alloc,
	.map_free = ip_cookie_map_free,
	.map_get_next_key = ip_cookie_map_get_next_key,
	.map_lookup_batch = ip_cookie_map_lookup_batch,
	.map_update_batch = generic_map_update_batch,
	.map_delete_batch = generic_map_delete_batch,
	.map_lookup_elem = ip_cookie_map_lookup_elem,
	.map_lookup_elem_sys_only = ip_cookie_map_lookup_elem_sys_only,
	.map_gen_lookup = ip_cookie_map_gen_lookup,
	.map_update_elem = ip_cookie_map_update_elem,
	.map_delete_elem = ip_cookie_map_delete_elem,
	.map_seq_show_elem = ip_cookie_map_seq_show_elem,
	.map_mem_usage = ip_cookie_map_mem_usage,
	.map_btf_id = &ip_cookie_map_btf_ids[0],
};

__bpf_kfunc_start_defs();

/**
 * bpf_ip_cookie_lookup() - Look up a function's entry in an IP_COOKIE map
 * @map__const_map: an IP_COOKIE map with 8-byte keys
 * @ip: the key, by value: usually bpf_get_func_ip()
 *
 * bpf_map_lookup_elem() without the key on the stack.  The verifier
 * checks the map and gives the result the type of the map's values (so
 * it is not a plain kfunc and needs the verifier's support), and inlines
 * the call as bpf_ip_cookie_gen_lookup(); this body serves the
 * interpreter and programs that take the call instead.  Called under
 * rcu_read_lock() or rcu_read_lock_trace(), from any program context.
 *
 * Return: the value of @ip, or NULL.
 */
__bpf_kfunc void *bpf_ip_cookie_lookup(void *map__const_map, u64 ip)
{
	struct bpf_ip_cookie_key k = { .ip = ip };

	return ip_cookie_find(to_ip_cookie(map__const_map), &k);
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(ip_cookie_kfunc_ids)
BTF_ID_FLAGS(func, bpf_ip_cookie_lookup, KF_RET_NULL)
BTF_KFUNCS_END(ip_cookie_kfunc_ids)

static const struct btf_kfunc_id_set ip_cookie_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &ip_cookie_kfunc_ids,
};

/* Every program type that can use a map can use the kfunc. */
static int __init ip_cookie_kfunc_init(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_UNSPEC,
					 &ip_cookie_kfunc_set);
}
late_initcall(ip_cookie_kfunc_init);
