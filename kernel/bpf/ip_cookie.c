// SPDX-License-Identifier: GPL-2.0
/*
 * BPF_MAP_TYPE_IP_COOKIE: a growable map from a traced function's address,
 * as returned by bpf_get_func_ip(), to per-function data.
 *
 * Programs only look entries up; all changes come from the bpf syscall,
 * which runs in sleepable process context and serialises writers with
 * ic->lock.  Lookups take no lock and are safe from any context a BPF
 * program runs in, NMI included.
 *
 * Layout
 * ------
 *
 *   ic->tbl --> +----------------------+
 *               | shift, len, used     |      element (kmalloc'd, never moves)
 *               +----------------------+     +------------------------+
 *     home(ip)->| ip     | elem -------+---->| value[value_size]      |
 *               | ip     | elem        |     | (pad to 8)             |
 *               | 0      | NULL        |     | link_id (16-byte keys) |
 *               |  ...   |  ...        |     +------------------------+
 *               | nr_buckets + tail    |
 *               +----------------------+
 *
 * The index is an open-addressed table of {ip, elem} slots with linear
 * probing.  home(ip) is the top bits of (ip ^ seed) * GOLDEN_RATIO_64 and a
 * probe never wraps around: it runs into a tail of spare slots after the
 * last bucket instead.  A slot is EMPTY (ip == 0), LIVE (elem != NULL) or
 * DEAD (ip set, elem == NULL).  A slot never goes back to EMPTY and a DEAD
 * slot is only reused for the same ip, so a reader that matched the ip of
 * a slot can trust the element it then loads: either it is NULL, or it
 * belongs to that ip (16-byte keys also compare the link ID stored in the
 * element).  No ordering between the two loads is needed: a new slot is
 * zeroed, so a reader that sees its ip before its element sees NULL and
 * misses a key that is being inserted, which it may.  That keeps the
 * lookup to plain loads, simple enough to inline (see gen_lookup).
 *
 * Values live in elements that are never moved or copied by a resize, so
 * the pointer a program got from bpf_map_lookup_elem() stays valid for the
 * whole program run and writes through it are never lost.
 *
 * Resize protocol
 * ---------------
 *
 * Growing, shrinking and purging DEAD slots all rebuild the index: a new
 * table is filled with the LIVE slots of the current one while nobody but
 * the writer can see it, then published with rcu_assign_pointer().  A
 * reader sees either the old or the new table, both complete.  The old
 * table and every replaced or deleted element are freed only after both an
 * RCU Tasks Trace and an RCU grace period (sleepable programs run under
 * the former, all others under the latter).
 *
 * Iteration order
 * ---------------
 *
 * get_next_key walks keys in order of (hash, link_id) where hash is the
 * full 64-bit product, a bijection of ip.  That order does not depend on
 * the table size, so a walk from user space visits every key that stays
 * in the map exactly once and terminates even when the map is resized
 * between calls.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/err.h>
#include <linux/filter.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/rcupdate_trace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#define IP_COOKIE_CREATE_FLAG_MASK \
	(BPF_F_NUMA_NODE | BPF_F_ZERO_SEED | BPF_F_ACCESS_MASK)

#define IP_COOKIE_MAX_VALUE_SIZE	4096
#define IP_COOKIE_MAX_ENTRIES		BIT(26)
#define IP_COOKIE_MIN_BUCKETS		16
#define IP_COOKIE_MIN_TAIL		16
/* Batch operations free replaced elements in chunks of this many keys. */
#define IP_COOKIE_BATCH_CHUNK		1024

struct ip_cookie_slot {
	u64 ip;
	void __rcu *elem;
};

struct ip_cookie_table {
	u32 shift;	/* 64 - log2(number of buckets) */
	u32 len;	/* buckets + tail */
	u32 used;	/* LIVE + DEAD slots; changed under ic->lock only */
	u32 pad;
	struct ip_cookie_slot slots[];
};

struct bpf_ip_cookie {
	struct bpf_map map;
	struct ip_cookie_table __rcu *tbl;
	u64 seed;
	u32 count;		/* LIVE entries */
	u32 link_off;		/* offset of link_id in an element */
	u32 elem_size;
	struct mutex lock;	/* serialises all changes */
};

/* Memory whose last reader may still be running: freed after the grace
 * periods of every kind of program that can hold a pointer into it.
 */
struct ip_cookie_grave {
	struct rcu_head rcu;
	u32 cnt;
	u32 cap;
	void *ptrs[];
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

static u64 ip_cookie_hash(const struct bpf_ip_cookie *ic, u64 ip)
{
	return (ip ^ ic->seed) * GOLDEN_RATIO_64;
}

static u32 ip_cookie_link(const struct bpf_ip_cookie *ic, const void *elem)
{
	return *(const u32 *)(elem + ic->link_off);
}

/* Smallest power of two that keeps @nr entries at or below 80% load. */
static u32 ip_cookie_nr_buckets(u32 nr)
{
	u64 want = (u64)nr + nr / 4 + 1;

	return max_t(u32, IP_COOKIE_MIN_BUCKETS, roundup_pow_of_two(want));
}

static u32 ip_cookie_max_used(const struct ip_cookie_table *tbl)
{
	u32 buckets = 1U << (64 - tbl->shift);

	return buckets / 5 * 4;
}

static size_t ip_cookie_table_size(u32 len)
{
	return struct_size_t(struct ip_cookie_table, slots, len);
}

static void ip_cookie_grave_free_rcu(struct rcu_head *rcu)
{
	struct ip_cookie_grave *grave;
	u32 i;

	grave = container_of(rcu, struct ip_cookie_grave, rcu);
	for (i = 0; i < grave->cnt; i++)
		kvfree(grave->ptrs[i]);
	kvfree(grave);
}

static void ip_cookie_grave_free_tt(struct rcu_head *rcu)
{
	if (rcu_trace_implies_rcu_gp())
		ip_cookie_grave_free_rcu(rcu);
	else
		call_rcu(rcu, ip_cookie_grave_free_rcu);
}

/* Called from syscall, in sleepable context. */
static struct ip_cookie_grave *ip_cookie_grave_alloc(u32 cap)
{
	struct ip_cookie_grave *grave;

	grave = kvmalloc(struct_size(grave, ptrs, cap),
			 GFP_KERNEL | __GFP_NOWARN);
	if (grave) {
		grave->cnt = 0;
		grave->cap = cap;
	}
	return grave;
}

static void ip_cookie_grave_add(struct ip_cookie_grave *grave, void *ptr)
{
	/* Callers size the grave for the worst case of their operation. */
	if (WARN_ON_ONCE(grave->cnt == grave->cap)) {
		synchronize_rcu_tasks_trace();
		synchronize_rcu();
		kvfree(ptr);
		return;
	}
	grave->ptrs[grave->cnt++] = ptr;
}

static void ip_cookie_grave_close(struct ip_cookie_grave *grave)
{
	if (grave->cnt)
		call_rcu_tasks_trace(&grave->rcu, ip_cookie_grave_free_tt);
	else
		kvfree(grave);
}

/* Called from syscall or from eBPF program, under rcu_read_lock() or
 * rcu_read_lock_trace().  Returns the LIVE element matching @key or NULL.
 */
static void *ip_cookie_find(const struct bpf_ip_cookie *ic, const void *key)
{
	const struct ip_cookie_table *tbl;
	const struct bpf_ip_cookie_key *k = key;
	u64 ip = k->ip;
	u32 i;

	tbl = rcu_dereference_check(ic->tbl, ip_cookie_read_held(ic));
	for (i = ip_cookie_hash(ic, ip) >> tbl->shift; i < tbl->len; i++) {
		const struct ip_cookie_slot *slot = &tbl->slots[i];
		u64 sip = READ_ONCE(slot->ip);
		void *elem;

		if (!sip)
			break;
		if (sip != ip)
			continue;
		elem = rcu_dereference_check(slot->elem,
					     ip_cookie_read_held(ic));
		if (!elem)
			continue;
		if (!ip_cookie_has_link(ic))
			return elem;
		if (ip_cookie_link(ic, elem) == k->link_id && !k->reserved)
			return elem;
	}
	return NULL;
}

/* Called from syscall or from eBPF program */
static void *ip_cookie_map_lookup_elem(struct bpf_map *map, void *key)
{
	return ip_cookie_find(to_ip_cookie(map), key);
}

/* Inline the lookup of an 8-byte key: ip_cookie_find() in BPF
 * instructions.  In: r1 = map, r2 = key.  Out: r0 = value or NULL.
 * Clobbers r1-r5.
 *
 * For a lookup in an inner map, @map is only the template the verifier
 * holds (bpf_map_meta_alloc()): everything that differs between maps, the
 * seed included, is loaded from r1 at run time.
 */
static int ip_cookie_map_gen_lookup(struct bpf_map *map,
				    struct bpf_insn *insn_buf)
{
	const int tbl = BPF_REG_1, ip = BPF_REG_2, i = BPF_REG_3;
	const int tmp = BPF_REG_4, slot = BPF_REG_5, ret = BPF_REG_0;
	const int slot_ip = offsetof(struct ip_cookie_table, slots[0].ip);
	const int slot_elem = offsetof(struct ip_cookie_table, slots[0].elem);
	struct bpf_insn ld_mul[2] = { BPF_LD_IMM64(tmp, GOLDEN_RATIO_64) };
	struct bpf_insn *insn = insn_buf;

	BUILD_BUG_ON(sizeof(struct ip_cookie_slot) != 1 << 4);
	if (map->key_size != sizeof(u64))
		return -EOPNOTSUPP;

	/* i = ((ip ^ seed) * GOLDEN_RATIO_64) >> tbl->shift */
	*insn++ = BPF_LDX_MEM(BPF_DW, i, BPF_REG_1,
			      offsetof(struct bpf_ip_cookie, seed));
	*insn++ = BPF_LDX_MEM(BPF_DW, tbl, BPF_REG_1,
			      offsetof(struct bpf_ip_cookie, tbl));
	*insn++ = BPF_LDX_MEM(BPF_DW, ip, BPF_REG_2, 0);
	*insn++ = BPF_ALU64_REG(BPF_XOR, i, ip);
	*insn++ = ld_mul[0];
	*insn++ = ld_mul[1];
	*insn++ = BPF_ALU64_REG(BPF_MUL, i, tmp);
	*insn++ = BPF_LDX_MEM(BPF_W, tmp, tbl,
			      offsetof(struct ip_cookie_table, shift));
	*insn++ = BPF_ALU64_REG(BPF_RSH, i, tmp);
	*insn++ = BPF_LDX_MEM(BPF_W, tmp, tbl,
			      offsetof(struct ip_cookie_table, len));
	/* loop: while (i < len) */
	*insn++ = BPF_JMP_REG(BPF_JGE, i, tmp, 11);
	*insn++ = BPF_MOV64_REG(slot, i);
	*insn++ = BPF_ALU64_IMM(BPF_LSH, slot, 4);
	*insn++ = BPF_ALU64_REG(BPF_ADD, slot, tbl);
	*insn++ = BPF_LDX_MEM(BPF_DW, ret, slot, slot_ip);
	/* EMPTY: miss; same ip: load the element; other ip: next */
	*insn++ = BPF_JMP_IMM(BPF_JEQ, ret, 0, 6);
	*insn++ = BPF_JMP_REG(BPF_JEQ, ret, ip, 2);
	*insn++ = BPF_ALU64_IMM(BPF_ADD, i, 1);
	*insn++ = BPF_JMP_A(-9);
	*insn++ = BPF_LDX_MEM(BPF_DW, ret, slot, slot_elem);
	/* DEAD: next */
	*insn++ = BPF_JMP_IMM(BPF_JNE, ret, 0, 2);
	*insn++ = BPF_JMP_A(-5);
	/* miss: */
	*insn++ = BPF_MOV64_IMM(ret, 0);
	return insn - insn_buf;
}

/* Place @elem for @ip in the first EMPTY slot of its probe sequence of a
 * table nobody else can see yet.  Returns false if the probe ran off the
 * end of the table.
 */
static bool ip_cookie_place(const struct bpf_ip_cookie *ic,
			    struct ip_cookie_table *tbl, u64 ip, void *elem)
{
	u32 i;

	for (i = ip_cookie_hash(ic, ip) >> tbl->shift; i < tbl->len; i++) {
		struct ip_cookie_slot *slot = &tbl->slots[i];

		if (slot->ip)
			continue;
		slot->ip = ip;
		RCU_INIT_POINTER(slot->elem, elem);
		tbl->used++;
		return true;
	}
	return false;
}

/* Bytes of a table of at least @len slots, as the allocator hands them
 * out: bpf_map_area_alloc() uses kmalloc() up to the costly order and
 * vmalloc() above it.  What the rounding adds becomes more tail slots.
 * Sizes past the costly order must not go through kvmalloc(): its
 * kmalloc() attempt would round 2^n buckets plus the header and tail up to
 * twice their size.
 */
static size_t ip_cookie_table_bytes(u32 len)
{
	size_t size = ip_cookie_table_size(len);

	if (size <= (PAGE_SIZE << PAGE_ALLOC_COSTLY_ORDER))
		return kmalloc_size_roundup(size);
	return PAGE_ALIGN(size);
}

static void ip_cookie_table_init(struct ip_cookie_table *tbl, u32 buckets,
				 size_t bytes)
{
	tbl->shift = 64 - ilog2(buckets);
	tbl->len = (bytes - offsetof(struct ip_cookie_table, slots)) /
		   sizeof(struct ip_cookie_slot);
}

/* Called from syscall, in sleepable context: charged to the map's memcg,
 * whoever the caller is.
 */
static struct ip_cookie_table *ip_cookie_table_alloc(struct bpf_ip_cookie *ic,
						     u32 buckets, u32 tail)
{
	size_t bytes = ip_cookie_table_bytes(buckets + tail);
	struct ip_cookie_table *tbl;

	tbl = bpf_map_area_alloc_memcg(&ic->map, bytes);
	if (tbl)
		ip_cookie_table_init(tbl, buckets, bytes);
	return tbl;
}

/* Is there an EMPTY slot in the probe sequence of @ip? */
static bool ip_cookie_has_room(const struct bpf_ip_cookie *ic,
			       const struct ip_cookie_table *tbl, u64 ip)
{
	u32 i;

	for (i = ip_cookie_hash(ic, ip) >> tbl->shift; i < tbl->len; i++)
		if (!tbl->slots[i].ip)
			return true;
	return false;
}

/* Build an unpublished table holding every LIVE slot of @old, sized for
 * @nr entries, with room for @ip unless it is 0.  Called with ic->lock
 * held.
 */
static struct ip_cookie_table *
ip_cookie_rebuild_nolock(struct bpf_ip_cookie *ic,
			 const struct ip_cookie_table *old, u32 nr, u64 ip)
{
	u32 buckets = ip_cookie_nr_buckets(nr);
	u32 tail = IP_COOKIE_MIN_TAIL;
	struct ip_cookie_table *tbl;
	u32 i;

retry:
	tbl = ip_cookie_table_alloc(ic, buckets, tail);
	if (!tbl)
		return NULL;
	for (i = 0; i < old->len; i++) {
		const struct ip_cookie_slot *slot = &old->slots[i];
		void *elem = rcu_dereference_protected(slot->elem,
					lockdep_is_held(&ic->lock));

		if (!elem)
			continue;
		if (!ip_cookie_place(ic, tbl, slot->ip, elem))
			goto longer_tail;
	}
	if (!ip || ip_cookie_has_room(ic, tbl, ip))
		return tbl;
longer_tail:
	/* A cluster ran past the last bucket. */
	kvfree(tbl);
	tail *= 2;
	goto retry;
}

/* Replace the index with one sized for @nr entries, with room for @ip
 * unless it is 0.  Called with ic->lock held; the old table goes to
 * @grave.  On -ENOMEM nothing changes.
 */
static int ip_cookie_resize_nolock(struct bpf_ip_cookie *ic, u32 nr, u64 ip,
				   struct ip_cookie_grave *grave)
{
	struct ip_cookie_table *old, *tbl;

	old = rcu_dereference_protected(ic->tbl, lockdep_is_held(&ic->lock));
	tbl = ip_cookie_rebuild_nolock(ic, old, nr, ip);
	if (!tbl)
		return -ENOMEM;
	rcu_assign_pointer(ic->tbl, tbl);
	ip_cookie_grave_add(grave, old);
	return 0;
}

struct ip_cookie_pos {
	struct ip_cookie_slot *live;	/* slot holding the key, or NULL */
	struct ip_cookie_slot *free;	/* DEAD same-ip or EMPTY slot */
};

/* Find where @key is, or where it would go.  Called with ic->lock held. */
static void ip_cookie_locate_nolock(struct bpf_ip_cookie *ic,
				    struct ip_cookie_table *tbl,
				    const struct bpf_ip_cookie_key *k,
				    struct ip_cookie_pos *pos)
{
	u32 i;

	pos->live = NULL;
	pos->free = NULL;
	for (i = ip_cookie_hash(ic, k->ip) >> tbl->shift; i < tbl->len; i++) {
		struct ip_cookie_slot *slot = &tbl->slots[i];
		void *elem;

		if (!slot->ip) {
			if (!pos->free)
				pos->free = slot;
			return;
		}
		if (slot->ip != k->ip)
			continue;
		elem = rcu_dereference_protected(slot->elem,
						 lockdep_is_held(&ic->lock));
		if (!elem) {
			if (!pos->free)
				pos->free = slot;
			continue;
		}
		if (!ip_cookie_has_link(ic) ||
		    ip_cookie_link(ic, elem) == k->link_id) {
			pos->live = slot;
			return;
		}
	}
}

static int ip_cookie_check_key(const struct bpf_ip_cookie *ic,
			       const struct bpf_ip_cookie_key *k)
{
	if (!k->ip)
		return -EINVAL;
	if (ip_cookie_has_link(ic) && k->reserved)
		return -EINVAL;
	return 0;
}

/* Insert or replace one entry.  Called with ic->lock held, in sleepable
 * context; @grave must have room for two pointers.  On error the map is
 * unchanged.
 */
static int ip_cookie_update_nolock(struct bpf_ip_cookie *ic, const void *key,
				   const void *value, u64 flags,
				   struct ip_cookie_grave *grave)
{
	const struct bpf_ip_cookie_key *k = key;
	struct ip_cookie_table *tbl;
	struct ip_cookie_pos pos;
	void *elem, *old;
	int err;

	err = ip_cookie_check_key(ic, k);
	if (err)
		return err;

	tbl = rcu_dereference_protected(ic->tbl, lockdep_is_held(&ic->lock));
	ip_cookie_locate_nolock(ic, tbl, k, &pos);
	if (pos.live && flags == BPF_NOEXIST)
		return -EEXIST;
	if (!pos.live && flags == BPF_EXIST)
		return -ENOENT;
	if (!pos.live && ic->count >= ic->map.max_entries)
		return -E2BIG;

	elem = bpf_map_kmalloc_node(&ic->map, ic->elem_size,
				    GFP_KERNEL | __GFP_NOWARN,
				    ic->map.numa_node);
	if (!elem)
		return -ENOMEM;
	memcpy(elem, value, ic->map.value_size);
	if (ip_cookie_has_link(ic))
		*(u32 *)(elem + ic->link_off) = k->link_id;

	if (pos.live) {
		old = rcu_dereference_protected(pos.live->elem,
						lockdep_is_held(&ic->lock));
		rcu_assign_pointer(pos.live->elem, elem);
		ip_cookie_grave_add(grave, old);
		return 0;
	}

	/* A DEAD slot of the same ip can be revived in place. */
	if (pos.free && pos.free->ip) {
		rcu_assign_pointer(pos.free->elem, elem);
		ic->count++;
		return 0;
	}

	if (!pos.free || tbl->used >= ip_cookie_max_used(tbl)) {
		err = ip_cookie_resize_nolock(ic, ic->count + 1, k->ip, grave);
		if (err) {
			kfree(elem);
			return err;
		}
		tbl = rcu_dereference_protected(ic->tbl,
						lockdep_is_held(&ic->lock));
		ip_cookie_locate_nolock(ic, tbl, k, &pos);
		/* A fresh table has no DEAD slot and room for the key. */
		if (WARN_ON_ONCE(!pos.free)) {
			kfree(elem);
			return -EFAULT;
		}
	}

	rcu_assign_pointer(pos.free->elem, elem);
	WRITE_ONCE(pos.free->ip, k->ip);
	tbl->used++;
	ic->count++;
	return 0;
}

/* Remove one entry.  Called with ic->lock held. */
static int ip_cookie_delete_nolock(struct bpf_ip_cookie *ic, const void *key,
				   struct ip_cookie_grave *grave)
{
	struct ip_cookie_table *tbl;
	struct ip_cookie_pos pos;
	void *elem;

	tbl = rcu_dereference_protected(ic->tbl, lockdep_is_held(&ic->lock));
	ip_cookie_locate_nolock(ic, tbl, key, &pos);
	if (!pos.live)
		return -ENOENT;
	elem = rcu_dereference_protected(pos.live->elem,
					 lockdep_is_held(&ic->lock));
	RCU_INIT_POINTER(pos.live->elem, NULL);
	ip_cookie_grave_add(grave, elem);
	ic->count--;
	return 0;
}

/* Shrink the index once live entries fall below 20% of the buckets.  A
 * failed allocation keeps the bigger table: the map stays correct.
 */
static void ip_cookie_maybe_shrink_nolock(struct bpf_ip_cookie *ic,
					  struct ip_cookie_grave *grave)
{
	struct ip_cookie_table *tbl;
	u32 buckets;

	tbl = rcu_dereference_protected(ic->tbl, lockdep_is_held(&ic->lock));
	buckets = 1U << (64 - tbl->shift);
	if (buckets > IP_COOKIE_MIN_BUCKETS && ic->count < buckets / 5)
		ip_cookie_resize_nolock(ic, ic->count, 0, grave);
}

/* Called from syscall, in sleepable context (see bpf_map_update_value()) */
static long ip_cookie_map_update_elem(struct bpf_map *map, void *key,
				      void *value, u64 flags)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	struct ip_cookie_grave *grave;
	int err;

	if (flags > BPF_EXIST)
		return -EINVAL;

	grave = ip_cookie_grave_alloc(2);
	if (!grave)
		return -ENOMEM;
	mutex_lock(&ic->lock);
	err = ip_cookie_update_nolock(ic, key, value, flags, grave);
	mutex_unlock(&ic->lock);
	ip_cookie_grave_close(grave);
	return err;
}

/* Called from syscall, in sleepable context (see map_delete_elem()) */
static long ip_cookie_map_delete_elem(struct bpf_map *map, void *key)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	struct ip_cookie_grave *grave;
	int err;

	grave = ip_cookie_grave_alloc(2);
	if (!grave)
		return -ENOMEM;
	mutex_lock(&ic->lock);
	err = ip_cookie_delete_nolock(ic, key, grave);
	if (!err)
		ip_cookie_maybe_shrink_nolock(ic, grave);
	mutex_unlock(&ic->lock);
	ip_cookie_grave_close(grave);
	return err;
}

/* Count the keys of a user batch that are not in the map yet, so that a
 * batch grows the index once.  Called with ic->lock held.
 */
static int ip_cookie_count_new_nolock(struct bpf_ip_cookie *ic,
				      const void __user *keys, u32 nr,
				      void *key, u32 *nr_new)
{
	u32 i;

	*nr_new = 0;
	for (i = 0; i < nr; i++) {
		if (copy_from_user(key, keys + i * ic->map.key_size,
				   ic->map.key_size))
			return -EFAULT;
		if (!ip_cookie_find(ic, key))
			(*nr_new)++;
		cond_resched();
	}
	return 0;
}

/* Called from syscall, in sleepable context (see bpf_map_do_batch()) */
static int ip_cookie_map_update_batch(struct bpf_map *map,
				      struct file *map_file,
				      const union bpf_attr *attr,
				      union bpf_attr __user *uattr)
{
	const void __user *values = u64_to_user_ptr(attr->batch.values);
	const void __user *keys = u64_to_user_ptr(attr->batch.keys);
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	u32 key_size = map->key_size, value_size = map->value_size;
	u64 flags = attr->batch.elem_flags;
	struct ip_cookie_grave *grave = NULL;
	struct ip_cookie_table *tbl;
	u32 cp = 0, nr, nr_new;
	void *key, *value;
	int err;

	if (flags > BPF_EXIST)
		return -EINVAL;
	nr = attr->batch.count;
	if (!nr)
		return 0;
	if (put_user(0, &uattr->batch.count))
		return -EFAULT;

	key = kmalloc(key_size + value_size, GFP_KERNEL);
	if (!key)
		return -ENOMEM;
	value = key + key_size;

	mutex_lock(&ic->lock);
	/* Grow once for the whole batch, then insert without resizing. */
	err = ip_cookie_count_new_nolock(ic, keys, nr, key, &nr_new);
	if (err)
		goto unlock;
	tbl = rcu_dereference_protected(ic->tbl, lockdep_is_held(&ic->lock));
	nr_new = min(nr_new, map->max_entries - ic->count);
	if ((u64)tbl->used + nr_new > ip_cookie_max_used(tbl)) {
		grave = ip_cookie_grave_alloc(1);
		err = grave ?
		      ip_cookie_resize_nolock(ic, ic->count + nr_new, 0, grave) :
		      -ENOMEM;
		if (grave)
			ip_cookie_grave_close(grave);
		grave = NULL;
		if (err)
			goto unlock;
	}

	for (cp = 0; cp < nr; cp++) {
		if (!(cp % IP_COOKIE_BATCH_CHUNK)) {
			if (grave)
				ip_cookie_grave_close(grave);
			/* Each key may free an element and an old table. */
			grave = ip_cookie_grave_alloc(2 * IP_COOKIE_BATCH_CHUNK);
			if (!grave) {
				err = -ENOMEM;
				break;
			}
			cond_resched();
		}
		err = -EFAULT;
		if (copy_from_user(key, keys + cp * key_size, key_size) ||
		    copy_from_user(value, values + cp * value_size, value_size))
			break;
		err = ip_cookie_update_nolock(ic, key, value, flags, grave);
		if (err)
			break;
	}
	if (grave)
		ip_cookie_grave_close(grave);
unlock:
	mutex_unlock(&ic->lock);
	kfree(key);
	if (copy_to_user(&uattr->batch.count, &cp, sizeof(cp)))
		err = -EFAULT;
	return err;
}

/* Called from syscall, in sleepable context (see bpf_map_do_batch()) */
static int ip_cookie_map_delete_batch(struct bpf_map *map,
				      const union bpf_attr *attr,
				      union bpf_attr __user *uattr)
{
	const void __user *keys = u64_to_user_ptr(attr->batch.keys);
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	struct ip_cookie_grave *grave = NULL;
	u32 key_size = map->key_size;
	u32 cp = 0, nr;
	void *key;
	int err = 0;

	if (attr->batch.elem_flags)
		return -EINVAL;
	nr = attr->batch.count;
	if (!nr)
		return 0;
	if (put_user(0, &uattr->batch.count))
		return -EFAULT;

	key = kmalloc(key_size, GFP_KERNEL);
	if (!key)
		return -ENOMEM;

	mutex_lock(&ic->lock);
	for (cp = 0; cp < nr; cp++) {
		if (!(cp % IP_COOKIE_BATCH_CHUNK)) {
			if (grave)
				ip_cookie_grave_close(grave);
			/* One slot more for the table a final shrink frees. */
			grave = ip_cookie_grave_alloc(IP_COOKIE_BATCH_CHUNK + 1);
			if (!grave) {
				err = -ENOMEM;
				break;
			}
			cond_resched();
		}
		err = -EFAULT;
		if (copy_from_user(key, keys + cp * key_size, key_size))
			break;
		err = ip_cookie_delete_nolock(ic, key, grave);
		if (err)
			break;
	}
	if (grave) {
		/* Shrink once for the whole batch. */
		ip_cookie_maybe_shrink_nolock(ic, grave);
		ip_cookie_grave_close(grave);
	}
	mutex_unlock(&ic->lock);
	kfree(key);
	if (copy_to_user(&uattr->batch.count, &cp, sizeof(cp)))
		err = -EFAULT;
	return err;
}

/* Called from syscall under rcu_read_lock().  Keys come in (hash, link_id)
 * order, which does not depend on the table size (see the top comment).
 *
 * Once a candidate is found, the scan stops at the next EMPTY slot: a
 * probe never crosses an EMPTY slot and never wraps, so every key behind
 * it has a higher home bucket, hence a higher hash, than the candidate.
 */
static int ip_cookie_map_get_next_key(struct bpf_map *map, void *key,
				      void *next_key)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	const struct bpf_ip_cookie_key *k = key;
	struct bpf_ip_cookie_key best = {};
	const struct ip_cookie_table *tbl;
	u64 cur_h = 0, best_h = 0;
	u32 cur_link = 0;
	bool found = false;
	u32 i = 0;

	tbl = rcu_dereference_check(ic->tbl, ip_cookie_read_held(ic));
	if (k) {
		cur_h = ip_cookie_hash(ic, k->ip);
		if (ip_cookie_has_link(ic))
			cur_link = k->link_id;
		i = cur_h >> tbl->shift;
	}
	for (; i < tbl->len; i++) {
		const struct ip_cookie_slot *slot = &tbl->slots[i];
		u64 sip = READ_ONCE(slot->ip);
		u32 link = 0;
		void *elem;
		u64 h;

		if (!sip) {
			if (found)
				break;
			continue;
		}
		elem = rcu_dereference_check(slot->elem,
					     ip_cookie_read_held(ic));
		if (!elem)
			continue;
		h = ip_cookie_hash(ic, sip);
		if (ip_cookie_has_link(ic))
			link = ip_cookie_link(ic, elem);
		/* Only keys after the current one... */
		if (k && (h < cur_h || (h == cur_h && link <= cur_link)))
			continue;
		/* ...and of those the first. */
		if (found && (h > best_h || (h == best_h && link >= best.link_id)))
			continue;
		found = true;
		best_h = h;
		best.ip = sip;
		best.link_id = link;
	}
	if (!found)
		return -ENOENT;
	memcpy(next_key, &best, map->key_size);
	return 0;
}

static int ip_cookie_map_alloc_check(union bpf_attr *attr)
{
	if (attr->map_flags & ~IP_COOKIE_CREATE_FLAG_MASK ||
	    !bpf_map_flags_access_ok(attr->map_flags))
		return -EINVAL;
	if (attr->key_size != sizeof(u64) &&
	    attr->key_size != sizeof(struct bpf_ip_cookie_key))
		return -EINVAL;
	if (!attr->value_size || !attr->max_entries)
		return -EINVAL;
	if (attr->value_size > IP_COOKIE_MAX_VALUE_SIZE ||
	    attr->max_entries > IP_COOKIE_MAX_ENTRIES)
		return -E2BIG;
	return 0;
}

static struct bpf_map *ip_cookie_map_alloc(union bpf_attr *attr)
{
	int numa_node = bpf_map_attr_numa_node(attr);
	struct ip_cookie_table *tbl;
	struct bpf_ip_cookie *ic;
	size_t bytes;

	ic = bpf_map_area_alloc(sizeof(*ic), numa_node);
	if (!ic)
		return ERR_PTR(-ENOMEM);
	bpf_map_init_from_attr(&ic->map, attr);

	/* The map's memcg is not set up yet: charge the creator, as
	 * bpf_map_area_alloc() does.
	 */
	bytes = ip_cookie_table_bytes(IP_COOKIE_MIN_BUCKETS +
				      IP_COOKIE_MIN_TAIL);
	tbl = bpf_map_area_alloc(bytes, numa_node);
	if (!tbl) {
		bpf_map_area_free(ic);
		return ERR_PTR(-ENOMEM);
	}
	ip_cookie_table_init(tbl, IP_COOKIE_MIN_BUCKETS, bytes);
	RCU_INIT_POINTER(ic->tbl, tbl);

	/* Element: value, padded to 8 bytes, then the link ID if keyed by
	 * link.  The value comes first so a lookup returns the element.
	 */
	ic->link_off = round_up(attr->value_size, 8);
	ic->elem_size = ic->link_off;
	if (attr->key_size == sizeof(struct bpf_ip_cookie_key))
		ic->elem_size += sizeof(u64);
	if (!(attr->map_flags & BPF_F_ZERO_SEED))
		ic->seed = get_random_u64();
	mutex_init(&ic->lock);
	return &ic->map;
}

/* Called when the map's last reference is gone: no program can run
 * against it any more and the grace periods of its users have passed.
 */
static void ip_cookie_map_free(struct bpf_map *map)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	struct ip_cookie_table *tbl;
	u32 i;

	tbl = rcu_dereference_protected(ic->tbl, true);
	for (i = 0; i < tbl->len; i++)
		kfree(rcu_dereference_protected(tbl->slots[i].elem, true));
	kvfree(tbl);
	mutex_destroy(&ic->lock);
	bpf_map_area_free(ic);
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

static int ip_cookie_map_check_btf(const struct bpf_map *map,
				   const struct btf *btf,
				   const struct btf_type *key_type,
				   const struct btf_type *value_type)
{
	/* The key is an IP (an 8-byte integer) or struct bpf_ip_cookie_key. */
	if (btf_type_is_void(key_type))
		return 0;
	if (map->key_size == sizeof(u64))
		return btf_type_is_int(key_type) ? 0 : -EINVAL;
	return btf_type_is_struct(key_type) ? 0 : -EINVAL;
}

static u64 ip_cookie_map_mem_usage(const struct bpf_map *map)
{
	struct bpf_ip_cookie *ic = to_ip_cookie(map);
	const struct ip_cookie_table *tbl;
	u64 usage = sizeof(*ic);

	rcu_read_lock();
	tbl = rcu_dereference(ic->tbl);
	usage += ip_cookie_table_size(READ_ONCE(tbl->len));
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
	.map_lookup_batch = generic_map_lookup_batch,
	.map_update_batch = ip_cookie_map_update_batch,
	.map_delete_batch = ip_cookie_map_delete_batch,
	.map_lookup_elem = ip_cookie_map_lookup_elem,
	.map_gen_lookup = ip_cookie_map_gen_lookup,
	.map_update_elem = ip_cookie_map_update_elem,
	.map_delete_elem = ip_cookie_map_delete_elem,
	.map_seq_show_elem = ip_cookie_map_seq_show_elem,
	.map_check_btf = ip_cookie_map_check_btf,
	.map_mem_usage = ip_cookie_map_mem_usage,
	.map_btf_id = &ip_cookie_map_btf_ids[0],
};
