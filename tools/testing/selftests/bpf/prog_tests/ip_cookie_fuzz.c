// SPDX-License-Identifier: GPL-2.0
/* Randomized syscalls against BPF_MAP_TYPE_IP_COOKIE, each result checked
 * against a user-space model of the map.
 *
 * A seeded sequence of lookups, updates with every flag (invalid ones
 * too), deletes, get_next_key walks, lookup, update and delete batches
 * with random counts (0 and huge ones), lookup-and-delete (not offered),
 * NULL and unmapped pointers, and keys the map must refuse (ip 0, link
 * ID 0, reserved bits; on a 32-bit kernel, ips of 2^32 and above) runs
 * on a few small maps of 8- and 16-byte keys.
 * Keys come from a pool of twice max_entries, so that hits, replacements,
 * EEXIST, ENOENT, E2BIG and deletes of present keys are frequent, and each
 * map is filled up and drained again and again, so that its index grows
 * and shrinks.  The errno or data and the batch count of every call are
 * compared with what the model derives from kernel/bpf/ip_cookie.c and
 * kernel/bpf/syscall.c, and every CHECK_EVERY operations a full walk and
 * a lookup of every key check a whole map.
 *
 * Walks come in hash order, unknown to user space, so they are checked
 * against what the map promises: a key returned is present, comes once per
 * walk, every key present throughout a walk is returned, and keys keep
 * their relative order (hash, link_id) whatever the size of the index:
 * the last complete walk ranks the keys, and later walks and get_next_key
 * calls must agree with the ranks.
 *
 * The order holds as long as the map keeps its hash seed: it changes the
 * seed only when a key misses the probe bound, which maps this small
 * cannot reach.
 *
 * IPC_FUZZ_SEED=n replays a run: the same operations; maps with a random
 * hash seed (about half) return their keys in another order.
 * IPC_FUZZ_OPS=n sets the number of operations (default 100,000).
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

#define DEFAULT_OPS	100000
#define NR_MAPS		4
#define MAX_POOL	(2 * 512)	/* twice the biggest max_entries */
#define HASH_BITS	12		/* user-space index of a pool */
#define MAX_VALUE	24
#define CHECK_EVERY	5000		/* ops between full checks, map by map */
#define BIG_EVERY	20000		/* ops between long batches */
#define NR_RECREATE	8		/* maps replaced during a run */
/* A long update batch: about this much user memory, a few thousand
 * entries, every value counted as 8-byte aligned.
 */
#define BATCH_BYTES	65536
#define MAX_BATCH	(BATCH_BYTES / 16 + 32)
#define VAL_STRIDE(vs)	(((vs) + 7) & ~7U)
#define HISTORY		8
#define KERNEL_PTR	0xffffffff81000000ULL

/* A key of the model: pool index, and how it is spoilt (bad << 16). */
enum { KEY_OK, KEY_IP0, KEY_LINK0, KEY_RSVD, KEY_WIDE };
#define KID(idx, bad)	((idx) | (bad) << 16)
#define KIDX(kid)	((kid) & 0xffff)
#define KBAD(kid)	((kid) >> 16)

enum { P_OK, P_NULL, P_UNMAPPED, P_PROT_NONE, P_KERNEL, NR_PTRS };
static const char * const ptr_names[NR_PTRS] = {
	"ok", "NULL", "unmapped", "PROT_NONE", "kernel",
};

enum { OP_LOOKUP, OP_UPDATE, OP_DELETE, OP_NEXT, OP_NEXT_ANY,
	OP_LOOKUP_BATCH, OP_UPDATE_BATCH, OP_DELETE_BATCH, OP_LOOKUP_AND_DELETE,
	OP_LOOKUP_AND_DELETE_BATCH, OP_CHECK, NR_OPS };
static const char * const op_names[NR_OPS] = {
	"lookup", "update", "delete", "walk_next", "next_any", "lookup_batch",
	"update_batch", "delete_batch", "lookup_and_delete",
	"lookup_and_delete_batch", "full_check",
};

/* Fill a map, drain it, or a bit of both; weights of each operation. */
enum { MIX, FILL, DRAIN };
static const __u8 op_weights[3][OP_CHECK] = {
	[MIX]	= { 18, 22, 14, 12, 4, 7, 8, 6, 1, 1 },
	[FILL]	= { 12, 34, 4, 10, 3, 6, 14, 2, 1, 1 },
	[DRAIN]	= { 12, 8, 30, 10, 3, 6, 3, 14, 1, 1 },
};

static const int errs[] = { 0, EINVAL, EFAULT, ENOENT, EEXIST, E2BIG, ENOTSUPP };
static const char * const err_names[] = {
	"ok", "EINVAL", "EFAULT", "ENOENT", "EEXIST", "E2BIG", "ENOTSUPP", "other",
};

#define NR_ERRS ARRAY_SIZE(err_names)

struct walk {
	bool active;
	int cursor;		/* pool index of the last key returned, or -1 */
	int last_rank;		/* highest rank returned so far, or -1 */
	int nseen;
	__u8 seen[MAX_POOL];
	__u8 stayed[MAX_POOL];	/* present since the walk began */
	int order[MAX_POOL];	/* the keys in the order returned */
};

struct fmap {
	int fd, id;
	__u32 ks, vs, max, n, count;
	bool zero_seed;
	int mode;
	struct bpf_ip_cookie_key pool[MAX_POOL];
	__u8 present[MAX_POOL];
	__u8 val[MAX_POOL][MAX_VALUE];
	int rank[MAX_POOL];	/* place in the last complete walk, or -1 */
	short slot[1 << HASH_BITS];	/* pool index + 1, by key hash */
	struct walk w;		/* the walk the random operations take */
};

struct oprec {
	int kind, map_id, kid, kptr, vptr;
	bool zero_seed;
	__u32 ks, vs, max, count, nbuf;
	unsigned long op;
	__u64 flags;
	struct bpf_ip_cookie_key key;
};

static struct {
	__u64 seed, x;
	unsigned long op, nrec, syscalls;
	bool failed;
	bool narrow;	/* a 32-bit kernel: keys below 2^32 only */
	int next_id;
	struct fmap maps[NR_MAPS];
	struct walk check;
	struct oprec cur, hist[HISTORY];
	int kids[MAX_BATCH];
	int tmp[MAX_POOL];
	/* Buffer ends; the page after each is unmapped or PROT_NONE. */
	char *key, *val, *next, *keys, *vals;
	char *unmapped, *prot_none, *area;
	size_t area_len;
	unsigned long stats[NR_OPS][NR_ERRS];
	double secs[NR_OPS];
	unsigned long big_batches;
	bool big_due;		/* the next update batch is a big one */
	__u32 fills, drains;
} F;

/* xorshift64* */
static __u64 rnd(void)
{
	F.x ^= F.x >> 12;
	F.x ^= F.x << 25;
	F.x ^= F.x >> 27;
	return F.x * 0x2545F4914F6CDD1DULL;
}

static __u32 rn(__u32 n)
{
	return rnd() % n;
}

static bool chance(__u32 per_mille)
{
	return rn(1000) < per_mille;
}

static const char *err_name(int rc)
{
	static char buf[16];
	int i;

	for (i = 0; i < ARRAY_SIZE(errs); i++)
		if (rc == -errs[i])
			return err_names[i];
	snprintf(buf, sizeof(buf), "%d", rc);
	return buf;
}

static struct bpf_ip_cookie_key key_of(const struct fmap *m, int kid)
{
	struct bpf_ip_cookie_key k = m->pool[KIDX(kid)];

	if (KBAD(kid) == KEY_IP0)
		k.ip = 0;
	else if (KBAD(kid) == KEY_LINK0)
		k.link_id = 0;
	else if (KBAD(kid) == KEY_RSVD)
		k.reserved = 1U << (KIDX(kid) % 32);
	else if (KBAD(kid) == KEY_WIDE)
		k.ip |= 1ULL << (32 + KIDX(kid) % 32);
	return k;
}

static void describe(const struct oprec *r, char *buf, size_t size)
{
	const char *bad = KBAD(r->kid) ? " (refused)" : "";
	int len;

	len = snprintf(buf, size, "op %lu map %d (key %u value %u max %u%s): %s",
		       r->op, r->map_id, r->ks, r->vs, r->max,
		       r->zero_seed ? " zero seed" : "", op_names[r->kind]);
	if (r->kid >= 0 && r->ks == 8)
		len += snprintf(buf + len, size - len, " key #%d ip %#llx%s",
				KIDX(r->kid), (unsigned long long)r->key.ip,
				bad);
	else if (r->kid >= 0)
		len += snprintf(buf + len, size - len,
				" key #%d {ip %#llx link %u reserved %#x}%s",
				KIDX(r->kid), (unsigned long long)r->key.ip,
				r->key.link_id, r->key.reserved,
				bad);
	snprintf(buf + len, size - len,
		 " flags %#llx ptrs %s/%s count %u buffer %u",
		 (unsigned long long)r->flags, ptr_names[r->kptr],
		 ptr_names[r->vptr], r->count, r->nbuf);
}

/* Report a divergence from the model (once) and stop the run. */
static __printf(1, 2) bool diverge(const char *fmt, ...)
{
	char what[256], line[256];
	unsigned long i;
	va_list ap;

	if (F.failed)
		return false;
	F.failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	describe(&F.cur, line, sizeof(line));
	PRINT_FAIL("ip_cookie_fuzz: seed %llu (IPC_FUZZ_SEED=%llu replays): %s: %s\n",
		   (unsigned long long)F.seed, (unsigned long long)F.seed,
		   line, what);
	for (i = HISTORY - 1; i > 0; i--) {
		if (F.nrec < i + 1)
			continue;
		describe(&F.hist[(F.nrec - 1 - i) % HISTORY], line, sizeof(line));
		printf("ip_cookie_fuzz:   before it: %s\n", line);
	}
	return false;
}

/* Did the kernel leave the @n bytes at @buf, filled with @byte, alone? */
static bool untouched(const void *buf, int byte, size_t n)
{
	const unsigned char *p = buf;

	while (n--)
		if (*p++ != byte)
			return false;
	return true;
}

static bool expect(int rc, int exp)
{
	if (rc == exp)
		return true;
	return diverge("returned %s, the model expects %s", err_name(rc),
		       err_name(exp));
}

static bool expect_count(__u32 n, __u32 exp)
{
	if (n == exp)
		return true;
	return diverge("batch count %u, the model expects %u", n, exp);
}

static bool expect_batch(int rc, int exp, __u32 n, __u32 nexp)
{
	return expect(rc, exp) && expect_count(n, nexp);
}

static void record(const struct fmap *m, int kind, int kid, int kptr,
		   int vptr, __u64 flags, __u32 count, __u32 nbuf)
{
	struct oprec *r = &F.cur;

	*r = (struct oprec){ .kind = kind, .map_id = m->id, .kid = kid,
			     .kptr = kptr, .vptr = vptr, .ks = m->ks,
			     .vs = m->vs, .max = m->max, .count = count,
			     .zero_seed = m->zero_seed,
			     .nbuf = nbuf, .op = F.op, .flags = flags };
	if (kid >= 0)
		r->key = key_of(m, kid);
	F.hist[F.nrec++ % HISTORY] = *r;
}

static double now(void)
{
	return get_time_ns() / 1e9;
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	int rc = syscall(__NR_bpf, cmd, attr, sizeof(*attr)) < 0 ? -errno : 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(errs) && rc != -errs[i]; i++)
		;
	F.stats[F.cur.kind][i]++;
	F.syscalls++;
	return rc;
}

static __u64 uptr(int flavour, const void *good)
{
	switch (flavour) {
	case P_NULL:
		return 0;
	case P_UNMAPPED:
		return ptr_to_u64(F.unmapped);
	case P_PROT_NONE:
		return ptr_to_u64(F.prot_none);
	case P_KERNEL:
		return KERNEL_PTR;
	}
	return ptr_to_u64(good);
}

/* A bad pointer with probability @per_mille / 1000. */
static int draw_ptr(__u32 per_mille)
{
	int p = P_NULL + rn(NR_PTRS - 1);

	return chance(per_mille) ? p : P_OK;
}

static __u32 huge_count(void)
{
	static const __u32 h[] = { 0xffffffff, 0x80000000, 1 << 20, 100000 };

	return h[rn(ARRAY_SIZE(h))];
}

static void rand_val(void *buf, __u32 size)
{
	__u64 r;
	__u32 i;

	for (i = 0; i < size; i += sizeof(r)) {
		r = rnd();
		memcpy(buf + i, &r, sizeof(r));
	}
}

static void put_key(const struct fmap *m, int kid, void *buf)
{
	struct bpf_ip_cookie_key k = key_of(m, kid);

	memcpy(buf, &k, m->ks);
}

static __u32 key_hash(__u64 ip, __u32 link)
{
	return ((ip ^ link) * 0x9E3779B97F4A7C15ULL) >> (64 - HASH_BITS);
}

static int pool_find(const struct fmap *m, __u64 ip, __u32 link)
{
	__u32 h = key_hash(ip, link);
	int i;

	for (; (i = m->slot[h]); h = (h + 1) % ARRAY_SIZE(m->slot))
		if (m->pool[i - 1].ip == ip && m->pool[i - 1].link_id == link)
			return i - 1;
	return -1;
}

/* Pool index of the key the kernel wrote at @buf, or -1. */
static int decode(const struct fmap *m, const void *buf)
{
	struct bpf_ip_cookie_key k = {};

	memcpy(&k, buf, m->ks);
	return k.reserved ? -1 : pool_find(m, k.ip, k.link_id);
}

/* Half like function addresses, half anywhere (odd, so never one of the
 * former), and the extremes.  16-byte keys: four links per ip.  On a
 * 32-bit kernel, the low halves of these.
 */
static void pool_init(struct fmap *m)
{
	static const __u32 links[] = { 1, 2, 0x7fffffff, 0xffffffff };
	__u32 i, j, per_ip = m->ks == 8 ? 1 : 4;
	struct bpf_ip_cookie_key *k;
	__u64 ip = 0;

	memset(m->slot, 0, sizeof(m->slot));
	for (i = 0; i < m->n; i++) {
		j = i / per_ip;
		if (i % per_ip == 0)
			ip = j == 1 ? ~0ULL : j == 3 ? 1 : j % 2 ? rnd() | 1 :
			     0xffffffff81000000ULL + j * 8;
		if (F.narrow)
			ip = (__u32)ip;
		k = &m->pool[i];
		k->ip = ip;
		k->link_id = per_ip == 1 ? 0 : links[i % 4];
		k->reserved = 0;
		while (pool_find(m, k->ip, k->link_id) >= 0)
			k->ip = F.narrow ? (__u32)(k->ip + 2) : k->ip + 2;
		for (j = key_hash(k->ip, k->link_id); m->slot[j];
		     j = (j + 1) % ARRAY_SIZE(m->slot))
			;
		m->slot[j] = i + 1;
	}
}

static const __u32 maxes[] = { 64, 100, 128, 200, 256, 512 };

static bool map_create(struct fmap *m)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);

	memset(m, 0, sizeof(*m));
	m->id = F.next_id++;
	m->ks = chance(500) ? 8 : 16;
	m->vs = chance(500) ? 8 : 24;
	m->max = maxes[rn(ARRAY_SIZE(maxes))];
	m->n = 2 * m->max;
	/* A zero seed makes the walk order part of the replay. */
	m->zero_seed = chance(500);
	opts.map_flags = m->zero_seed ? BPF_F_ZERO_SEED : 0;
	m->mode = FILL;
	memset(m->rank, 0xff, sizeof(m->rank));
	pool_init(m);
	m->fd = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_fuzz", m->ks,
			       m->vs, m->max, &opts);
	if (m->fd < 0)
		PRINT_FAIL("map of key %u, value %u, max %u, flags %#x: %d\n",
			   m->ks, m->vs, m->max, opts.map_flags, m->fd);
	return m->fd >= 0;
}

/* A key of the pool, present with probability @present / 1000 if there
 * is one, and 2% of the time one that the map must refuse.
 */
static int pick_key(const struct fmap *m, __u32 present)
{
	bool want = chance(present);
	int idx = rn(m->n), bad = KEY_OK, i;

	for (i = 0; i < 16 && m->present[idx] != want; i++)
		idx = rn(m->n);
	if (chance(20)) {
		bad = m->ks == 8 ? KEY_IP0 : KEY_IP0 + rn(3);
		if (F.narrow && rn(2))
			bad = KEY_WIDE;
	}
	return KID(idx, bad);
}

static __u64 update_flags(void)
{
	static const __u64 bad[] = { 3, BPF_F_LOCK, BPF_F_LOCK | BPF_EXIST, 8,
				     1ULL << 32, 1ULL << 63 };
	__u32 r = rn(100);

	if (r < 40)
		return BPF_ANY;
	if (r < 65)
		return BPF_NOEXIST;
	if (r < 90)
		return BPF_EXIST;
	return r < 95 ? bad[rn(ARRAY_SIZE(bad))] : rnd() | 3;
}

/* The model of ip_cookie_update_nolock(), after the flags check. */
static int model_update(struct fmap *m, int kid, const void *val,
			__u64 flags)
{
	int idx = KIDX(kid);
	bool p = m->present[idx];

	if (flags > BPF_EXIST || KBAD(kid))
		return -EINVAL;
	if (p && flags == BPF_NOEXIST)
		return -EEXIST;
	if (!p && flags == BPF_EXIST)
		return -ENOENT;
	if (!p && m->count >= m->max)
		return -E2BIG;
	memcpy(m->val[idx], val, m->vs);
	if (!p)
		m->count++;
	m->present[idx] = 1;
	return 0;
}

static int model_delete(struct fmap *m, int kid)
{
	int idx = KIDX(kid);

	if (KBAD(kid))
		return -EINVAL;
	if (!m->present[idx])
		return -ENOENT;
	m->present[idx] = 0;
	m->count--;
	m->w.stayed[idx] = 0;
	return 0;
}

static void walk_start(const struct fmap *m, struct walk *w)
{
	w->active = true;
	w->cursor = -1;
	w->last_rank = -1;
	w->nseen = 0;
	memset(w->seen, 0, m->n);
	memcpy(w->stayed, m->present, m->n);
}

/* Check the @n keys (and values, unless @vals is NULL) a walk got next
 * and, if @commit, take them as returned: each must be present, new to
 * this walk and, if ranked, ranked after every key the walk returned.
 */
static bool walk_take(struct fmap *m, struct walk *w, const char *keys,
		      const char *vals, __u32 n, bool commit)
{
	int idx = -1, last_rank = w->last_rank;
	bool ok = true;
	__u32 i, j;

	for (i = 0; i < n && ok; i++) {
		idx = decode(m, keys + i * m->ks);
		if (idx < 0)
			ok = diverge("entry %u: not a key of the pool", i);
		else if (!m->present[idx])
			ok = diverge("entry %u: key #%d, not in the map", i, idx);
		else if (w->seen[idx])
			ok = diverge("entry %u: key #%d again in one walk", i, idx);
		else if (m->rank[idx] >= 0 && m->rank[idx] <= w->last_rank)
			ok = diverge("entry %u: key #%d of rank %d after rank %d",
				     i, idx, m->rank[idx], w->last_rank);
		else if (vals && memcmp(vals + i * m->vs, m->val[idx], m->vs))
			ok = diverge("entry %u: key #%d, another value", i, idx);
		if (!ok)
			break;
		w->seen[idx] = 1;
		w->order[w->nseen + i] = idx;
		if (m->rank[idx] >= 0)
			w->last_rank = m->rank[idx];
	}
	if (!ok || !commit) {
		for (j = 0; j < i; j++)
			w->seen[w->order[w->nseen + j]] = 0;
		w->last_rank = last_rank;
		return ok;
	}
	w->nseen += n;
	if (n)
		w->cursor = idx;
	return true;
}

/* No more keys: the walk must have returned every key present since it
 * began.  Its order ranks the keys.
 */
static bool walk_end(struct fmap *m, struct walk *w)
{
	__u32 i;
	int j;

	w->active = false;
	for (i = 0; i < m->n; i++)
		if (w->stayed[i] && !w->seen[i])
			return diverge("walk ended after %d keys without #%u",
				       w->nseen, i);
	memset(m->rank, 0xff, sizeof(m->rank));
	for (j = 0; j < w->nseen; j++)
		m->rank[w->order[j]] = j;
	/* What the walk in progress returned is before what it returns next. */
	if (w != &m->w && m->w.active) {
		m->w.last_rank = -1;
		for (i = 0; i < m->n; i++)
			if (m->w.seen[i] && m->rank[i] > m->w.last_rank)
				m->w.last_rank = m->rank[i];
	}
	return true;
}

/* Keys after the cursor of @w if the ranks tell, else -1. */
static long walk_left(const struct fmap *m, const struct walk *w)
{
	long left = 0;
	int from;
	__u32 i;

	if (w->cursor < 0)
		return m->count;
	from = m->rank[w->cursor];
	for (i = 0; i < m->n && from >= 0; i++) {
		if (!m->present[i])
			continue;
		if (m->rank[i] < 0)
			return -1;
		left += m->rank[i] > from;
	}
	return from >= 0 ? left : -1;
}

static void op_lookup(struct fmap *m)
{
	static const __u64 bad[] = { BPF_F_LOCK, BPF_NOEXIST, BPF_EXIST, 8,
				     1ULL << 32 };
	char *k = F.key - m->ks, *v = F.val - m->vs;
	int kid = pick_key(m, 600), kp = draw_ptr(20), vp = draw_ptr(20), rc;
	__u64 flags = chance(30) ? bad[rn(ARRAY_SIZE(bad))] : 0;
	union bpf_attr attr = {};
	int idx = KIDX(kid), exp;

	record(m, OP_LOOKUP, kid, kp, vp, flags, 0, 0);
	put_key(m, kid, k);
	memset(v, 0xa5, m->vs);
	attr.map_fd = m->fd;
	attr.key = uptr(kp, k);
	attr.value = uptr(vp, v);
	attr.flags = flags;
	rc = sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
	/* Flags (BPF_F_LOCK too: no spin lock) before the key is copied,
	 * the value is copied out last.
	 */
	if (flags)
		exp = -EINVAL;
	else if (kp)
		exp = -EFAULT;
	else if (KBAD(kid))
		exp = -EINVAL;
	else if (!m->present[idx])
		exp = -ENOENT;
	else
		exp = vp ? -EFAULT : 0;
	if (!expect(rc, exp) || vp)
		return;
	if (!rc && memcmp(v, m->val[idx], m->vs))
		diverge("lookup found another value");
	if (rc && !untouched(v, 0xa5, m->vs))
		diverge("failed lookup wrote the value");
}

/* How often an update picks a present key, by mode. */
static const __u32 update_present[] = { [MIX] = 500, [FILL] = 150,
					[DRAIN] = 800 };

static void op_update(struct fmap *m)
{
	char *k = F.key - m->ks, *v = F.val - m->vs;
	__u64 flags = update_flags();
	int kid = pick_key(m, update_present[m->mode]), kp = draw_ptr(15);
	int vp = draw_ptr(15), rc, exp;
	union bpf_attr attr = {};

	record(m, OP_UPDATE, kid, kp, vp, flags, 0, 0);
	put_key(m, kid, k);
	rand_val(v, m->vs);
	attr.map_fd = m->fd;
	attr.key = uptr(kp, k);
	attr.value = uptr(vp, v);
	attr.flags = flags;
	rc = sys_bpf(BPF_MAP_UPDATE_ELEM, &attr);
	/* syscall.c refuses BPF_F_LOCK, the per-CPU flags and any upper
	 * 32 bits before it copies key and value (bpf_map_check_op_flags()),
	 * the map the other flags after.
	 */
	if ((flags & (BPF_F_LOCK | BPF_F_CPU | BPF_F_ALL_CPUS)) || flags >> 32)
		exp = -EINVAL;
	else if (kp || vp)
		exp = -EFAULT;
	else
		exp = model_update(m, kid, v, flags);
	expect(rc, exp);
}

static void op_delete(struct fmap *m)
{
	char *k = F.key - m->ks;
	int kid = pick_key(m, m->mode == DRAIN ? 900 : 600);
	int kp = draw_ptr(15), rc;
	union bpf_attr attr = {};

	record(m, OP_DELETE, kid, kp, 0, 0, 0, 0);
	put_key(m, kid, k);
	attr.map_fd = m->fd;
	attr.key = uptr(kp, k);
	rc = sys_bpf(BPF_MAP_DELETE_ELEM, &attr);
	expect(rc, kp ? -EFAULT : model_delete(m, kid));
}

/* One step of the walk of the random operations. */
static void op_next(struct fmap *m)
{
	char *k = F.key - m->ks, *nk = F.next - m->ks;
	int kp = draw_ptr(10), np = draw_ptr(20), exp = 1, rc;
	struct walk *w = &m->w;
	union bpf_attr attr = {};
	bool restart = chance(5), stale;
	long left;

	if (!w->active || restart)
		walk_start(m, w);
	if (w->cursor < 0)
		kp = P_OK;		/* NULL: the first key */
	else if (kp == P_NULL)
		kp = P_UNMAPPED;
	record(m, OP_NEXT, w->cursor, kp, np, 0, 0, 0);
	if (w->cursor >= 0)
		put_key(m, w->cursor, k);
	/* A cursor deleted since the last step is not in the map: the
	 * kernel starts the walk over, as for every other map.
	 */
	stale = w->cursor >= 0 && kp == P_OK && !m->present[w->cursor];
	if (stale)
		walk_start(m, w);
	memset(nk, 0x5a, m->ks);
	attr.map_fd = m->fd;
	attr.key = w->cursor < 0 && !stale ? 0 : uptr(kp, k);
	attr.next_key = uptr(np, nk);
	rc = sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr);

	left = walk_left(m, w);
	if (kp)
		exp = -EFAULT;
	else if (!left)
		exp = -ENOENT;
	else if (left > 0)
		exp = np ? -EFAULT : 0;
	if (exp != 1 && !expect(rc, exp))
		return;
	if (kp)
		return;
	if (rc == -ENOENT && !np && !untouched(nk, 0x5a, m->ks))
		diverge("ENOENT but next_key written");
	else if (rc == -ENOENT)
		walk_end(m, w);
	else if (rc == -EFAULT && np)
		;	/* found a key, could not write it: the walk goes on */
	else if (rc || np)
		diverge("returned %s", err_name(rc));
	else
		walk_take(m, w, nk, NULL, 1, true);
}

/* get_next_key from any key, bad ones too, outside of a walk. */
static void op_next_any(struct fmap *m)
{
	char *k = F.key - m->ks, *nk = F.next - m->ks;
	bool from_null = chance(100);
	int kid = pick_key(m, 500), q = KIDX(kid), qr = -1, x, rc;
	union bpf_attr attr = {};
	bool ranked = true;
	__u32 i;

	record(m, OP_NEXT_ANY, from_null ? -1 : kid, from_null ? P_NULL : 0,
	       0, 0, 0, 0);
	put_key(m, kid, k);
	attr.map_fd = m->fd;
	attr.key = from_null ? 0 : ptr_to_u64(k);
	attr.next_key = ptr_to_u64(nk);
	rc = sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr);
	/* A key that is not in the map (absent, or a bad twin of a key)
	 * starts the walk over: the first key comes back.
	 */
	if (!from_null && (KBAD(kid) != KEY_OK || !m->present[q]))
		from_null = true;
	if (!from_null) {
		qr = m->rank[q];
		ranked = qr >= 0;
	}
	if (rc == -ENOENT) {
		if (from_null && m->count)
			diverge("no first key in a map of %u", m->count);
		for (i = 0; i < m->n && ranked; i++)
			if (m->present[i] && m->rank[i] > qr)
				diverge("no next key, but #%u of rank %d is after rank %d",
					i, m->rank[i], qr);
		return;
	}
	if (rc) {
		diverge("returned %s", err_name(rc));
		return;
	}
	x = decode(m, nk);
	if (x < 0 || !m->present[x]) {
		diverge("returned %d, not a key in the map", x);
		return;
	}
	if (!from_null && x == q) {
		diverge("the next key of #%d is itself", q);
		return;
	}
	if (!ranked || m->rank[x] < 0)
		return;
	/* The next key in rank order, or one never ranked. */
	for (i = 0; i < m->n; i++) {
		if (m->present[i] && m->rank[i] > qr &&
		    m->rank[i] < m->rank[x]) {
			diverge("next key #%d of rank %d skips #%u of rank %d",
				x, m->rank[x], i, m->rank[i]);
			return;
		}
	}
	if (m->rank[x] <= qr)
		diverge("next key #%d of rank %d is not after rank %d", x,
			m->rank[x], qr);
}

/* A step of the walk, in a batch. */
static void op_lookup_batch(struct fmap *m)
{
	__u32 ks = m->ks, vs = m->vs, sel = rn(1000), c, nbuf, n, f, xk = 0;
	int kp = P_OK, vp = P_OK, inp = P_OK, outp = P_OK, exp, rc, bad;
	char *in = F.key - ks, *out = F.next - ks, *keys, *vals;
	struct walk *w = &m->w;
	bool restart = chance(5);
	union bpf_attr attr = {};
	__u64 flags = 0;
	long left;

	bad = P_NULL + rn(NR_PTRS - 1);
	c = 1 + (sel < 180 ? rn(8) : chance(700) ? rn(16) : rn(64));
	nbuf = c;
	if (sel < 40) {
		c = 0;
	} else if (sel < 100) {
		/* A short buffer, maybe with half an entry, before a guard. */
		c = huge_count();
		nbuf = rn(9);
		xk = chance(300) ? rn(ks) : 0;
	} else if (sel < 130) {
		flags = chance(500) ? BPF_F_LOCK : rnd() | 1;
	} else if (sel < 180) {
		switch (rn(4)) {
		case 0:
			kp = bad;
			break;
		case 1:
			vp = bad;
			break;
		case 2:
			inp = bad == P_NULL ? P_UNMAPPED : bad; /* NULL: start */
			break;
		default:
			outp = bad;
		}
	}
	if (!w->active || restart)
		walk_start(m, w);
	record(m, OP_LOOKUP_BATCH, w->cursor, kp, vp, flags, c, nbuf);
	if (w->cursor >= 0)
		put_key(m, w->cursor, in);
	/* Unlike get_next_key (see op_next()), a batch goes on after a
	 * deleted cursor: its key is still a position in the walk order.
	 */
	keys = F.keys - nbuf * ks - xk;
	vals = F.vals - nbuf * vs;
	memset(out, 0x5a, ks);
	attr.batch.map_fd = m->fd;
	attr.batch.in_batch = inp || w->cursor >= 0 ? uptr(inp, in) : 0;
	attr.batch.out_batch = uptr(outp, out);
	attr.batch.keys = uptr(kp, keys);
	attr.batch.values = uptr(vp, vals);
	attr.batch.count = c;
	attr.batch.elem_flags = flags;
	rc = sys_bpf(BPF_MAP_LOOKUP_BATCH, &attr);
	n = attr.batch.count;
	f = kp || vp ? 0 : nbuf;	/* entries that fit */

	/* generic_map_lookup_batch(): flags and count 0 return before the
	 * count is zeroed, a fault writing entries before it is set.
	 */
	if (flags) {
		expect_batch(rc, -EINVAL, n, c);
		return;
	}
	if (!c) {
		if (expect(rc, 0) && expect_count(n, 0) &&
		    !untouched(out, 0x5a, ks))
			diverge("out_batch written");
		return;
	}
	if (inp) {
		expect_batch(rc, -EFAULT, n, 0);
		return;
	}
	left = walk_left(m, w);
	if (left >= 0) {
		__u32 want = left < c ? left : c;

		if (want > f) {
			exp = -EFAULT;	/* entry f faults: none counted */
			want = 0;
		} else if (outp && want) {
			exp = -EFAULT;
		} else {
			exp = left < c ? -ENOENT : 0;
		}
		if (!expect(rc, exp) || !expect_count(n, want))
			return;
	}
	if (rc == -EFAULT && !n && f < c) {
		/* Entries [0, f) are written, but not counted. */
		walk_take(m, w, keys, vals, f, false);
		return;
	}
	if (rc == -EFAULT && n && n <= c && n <= f && outp) {
		/* Counted, but out_batch could not be written. */
		walk_take(m, w, keys, vals, n, false);
		return;
	}
	if ((rc && rc != -ENOENT) || n > c || n > f ||
	    (!rc && n != c) || (rc && n == c) || (outp && n)) {
		diverge("returned %s with count %u (asked %u, %u fit)",
			err_name(rc), n, c, f);
		return;
	}
	if (!walk_take(m, w, keys, vals, n, true))
		return;
	if (n && memcmp(out, keys + (n - 1) * ks, ks))
		diverge("out_batch is not the last key");
	else if (!n && !outp && !untouched(out, 0x5a, ks))
		diverge("out_batch written, but nothing found");
	else if (rc == -ENOENT)
		walk_end(m, w);
}

/* generic_map_{update,delete}_batch(): entries are copied in and applied
 * one at a time, in order, up to the first error; entry @f is the first
 * whose copy faults.  Updates if @vals, deletes if not; the count the
 * kernel reports goes to *@done.
 */
static int model_batch(struct fmap *m, __u32 c, __u32 f, const char *vals,
		       __u64 flags, __u32 *done)
{
	int err = 0;
	__u32 i;

	for (i = 0; i < c && !err; i++) {
		if (i >= f)
			err = -EFAULT;
		else if (vals)
			err = model_update(m, F.kids[i], vals + i * m->vs, flags);
		else
			err = model_delete(m, F.kids[i]);
	}
	*done = err ? i - 1 : i;
	return err;
}

/* Count and buffer of a batch update or delete. */
static __u32 batch_shape(struct fmap *m, __u32 *nbuf, int *kp, int *vp,
			 __u32 *xk)
{
	__u32 sel = rn(1000), c = 1 + rn(sel < 120 ? 16 : 32);
	int bad = P_NULL + rn(NR_PTRS - 1);

	*nbuf = c;
	if (sel < 40) {
		c = 0;
	} else if (sel < 90) {
		/* A short buffer, maybe with half an entry, before a guard. */
		c = huge_count();
		*nbuf = rn(9);
		*xk = chance(300) ? rn(m->ks) : 0;
	} else if (sel < 120) {
		if (vp && chance(500))
			*vp = bad;
		else
			*kp = bad;
	}
	return c;
}

static void op_update_batch(struct fmap *m)
{
	__u32 ks = m->ks, vs = m->vs, nlong = BATCH_BYTES / (ks + VAL_STRIDE(vs));
	__u32 pm = update_present[m->mode], c, nbuf, xk = 0, i, done;
	int kp = P_OK, vp = P_OK, exp, rc;
	/* Mostly none: any element flag fails the whole batch. */
	__u64 flags = chance(150) ? update_flags() : BPF_ANY;
	union bpf_attr attr = {};
	char *keys, *vals;

	c = batch_shape(m, &nbuf, &kp, &vp, &xk);
	if (F.big_due) {
		/* A long one, maybe ending in a fault. */
		F.big_due = false;
		nbuf = nlong + 1 + rn(16);
		c = chance(500) ? nbuf : huge_count();
		flags = BPF_ANY;
		pm = 950;
		kp = P_OK;
		vp = P_OK;
		xk = 0;
		F.big_batches++;
	}
	record(m, OP_UPDATE_BATCH, -1, kp, vp, flags, c, nbuf);
	keys = F.keys - nbuf * ks - xk;
	vals = F.vals - nbuf * vs;
	for (i = 0; i < nbuf; i++) {
		F.kids[i] = pick_key(m, pm);
		put_key(m, F.kids[i], keys + i * ks);
		rand_val(vals + i * vs, vs);
	}
	attr.batch.map_fd = m->fd;
	attr.batch.keys = uptr(kp, keys);
	attr.batch.values = uptr(vp, vals);
	attr.batch.count = c;
	attr.batch.elem_flags = flags;
	rc = sys_bpf(BPF_MAP_UPDATE_BATCH, &attr);

	/* Element flags (any, as for every other map) are refused before
	 * the count is zeroed.
	 */
	if (flags) {
		expect_batch(rc, -EINVAL, attr.batch.count, c);
		return;
	}
	exp = model_batch(m, c, kp || vp ? 0 : nbuf, vals, flags, &done);
	expect_batch(rc, exp, attr.batch.count, done);
}

static void op_delete_batch(struct fmap *m)
{
	__u32 c, nbuf, xk = 0, i, j, np = 0, done;
	__u64 flags = chance(30) ? (chance(500) ? BPF_F_LOCK : rnd() | 1) : 0;
	bool distinct = chance(m->mode == DRAIN ? 800 : 400);
	int kp = P_OK, exp, rc;
	union bpf_attr attr = {};
	char *keys;

	c = batch_shape(m, &nbuf, &kp, NULL, &xk);
	record(m, OP_DELETE_BATCH, -1, kp, 0, flags, c, nbuf);
	keys = F.keys - nbuf * m->ks - xk;
	/* Present keys, shuffled, maybe with one that stops the batch. */
	for (i = 0; i < m->n; i++)
		if (m->present[i])
			F.tmp[np++] = i;
	for (i = 0; i < nbuf; i++) {
		if (distinct && i < np) {
			j = i + rn(np - i);
			F.kids[i] = KID(F.tmp[j], KEY_OK);
			F.tmp[j] = F.tmp[i];
		} else {
			F.kids[i] = pick_key(m, 600);
		}
	}
	if (nbuf && chance(300))
		F.kids[rn(nbuf)] = pick_key(m, 0);
	for (i = 0; i < nbuf; i++)
		put_key(m, F.kids[i], keys + i * m->ks);
	attr.batch.map_fd = m->fd;
	attr.batch.keys = uptr(kp, keys);
	attr.batch.count = c;
	attr.batch.elem_flags = flags;
	rc = sys_bpf(BPF_MAP_DELETE_BATCH, &attr);

	if (flags) {
		expect_batch(rc, -EINVAL, attr.batch.count, c);
		return;
	}
	exp = model_batch(m, c, kp ? 0 : nbuf, NULL, 0, &done);
	expect_batch(rc, exp, attr.batch.count, done);
}

/* Not offered: flags and the key are checked first, then -ENOTSUPP. */
static void op_lookup_and_delete(struct fmap *m, bool batch)
{
	__u64 flags = chance(100) ? (chance(500) ? BPF_F_LOCK : rnd() | 1) : 0;
	int kid = pick_key(m, 700), kp = draw_ptr(100), rc;
	__u32 c = rn(4) ? 1 + rn(8) : 0;
	union bpf_attr attr = {};

	record(m, batch ? OP_LOOKUP_AND_DELETE_BATCH : OP_LOOKUP_AND_DELETE,
	       kid, kp, 0, flags, c, c);
	put_key(m, kid, F.key - m->ks);
	if (batch) {
		attr.batch.map_fd = m->fd;
		attr.batch.keys = uptr(kp, F.keys - m->ks);
		attr.batch.values = ptr_to_u64(F.vals - m->vs);
		attr.batch.count = c;
		attr.batch.elem_flags = flags;
		rc = sys_bpf(BPF_MAP_LOOKUP_AND_DELETE_BATCH, &attr);
		expect_batch(rc, -ENOTSUPP, attr.batch.count, c);
		return;
	}
	attr.map_fd = m->fd;
	attr.key = uptr(kp, F.key - m->ks);
	attr.value = ptr_to_u64(F.val - m->vs);
	attr.flags = flags;
	rc = sys_bpf(BPF_MAP_LOOKUP_AND_DELETE_ELEM, &attr);
	expect(rc, flags ? -EINVAL : kp ? -EFAULT : -ENOTSUPP);
}

/* Walk the whole map, then look up every key of the model. */
static void check_map(struct fmap *m)
{
	char *k = F.key - m->ks, *nk = F.next - m->ks, *v = F.val - m->vs;
	struct walk *w = &F.check;
	union bpf_attr attr;
	__u32 i;
	int rc;

	record(m, OP_CHECK, -1, 0, 0, 0, m->count, 0);
	walk_start(m, w);
	do {
		memset(&attr, 0, sizeof(attr));
		if (w->cursor >= 0)
			put_key(m, w->cursor, k);
		attr.map_fd = m->fd;
		attr.key = w->cursor < 0 ? 0 : ptr_to_u64(k);
		attr.next_key = ptr_to_u64(nk);
		rc = sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr);
	} while (!rc && walk_take(m, w, nk, NULL, 1, true));
	if (F.failed || !expect(rc, -ENOENT) || !walk_end(m, w))
		return;
	for (i = 0; i < m->n; i++) {
		if (!m->present[i])
			continue;
		put_key(m, KID(i, KEY_OK), k);
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = m->fd;
		attr.key = ptr_to_u64(k);
		attr.value = ptr_to_u64(v);
		rc = sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
		if (!expect(rc, 0))
			return;
		if (memcmp(v, m->val[i], m->vs)) {
			diverge("key #%u has another value", i);
			return;
		}
	}
}

static void full_check(struct fmap *m)
{
	double t = now();

	check_map(m);
	F.secs[OP_CHECK] += now() - t;
}

static void do_op(struct fmap *m)
{
	const __u8 *wt = op_weights[m->mode];
	__u32 r, k, sum = 0;
	double t = now();

	for (k = 0; k < OP_CHECK; k++)
		sum += wt[k];
	for (r = rn(sum), k = 0; r >= wt[k]; k++)
		r -= wt[k];
	switch (k) {
	case OP_LOOKUP:
		op_lookup(m);
		break;
	case OP_UPDATE:
		op_update(m);
		break;
	case OP_DELETE:
		op_delete(m);
		break;
	case OP_NEXT:
		op_next(m);
		break;
	case OP_NEXT_ANY:
		op_next_any(m);
		break;
	case OP_LOOKUP_BATCH:
		op_lookup_batch(m);
		break;
	case OP_UPDATE_BATCH:
		op_update_batch(m);
		break;
	case OP_DELETE_BATCH:
		op_delete_batch(m);
		break;
	default:
		op_lookup_and_delete(m, k == OP_LOOKUP_AND_DELETE_BATCH);
		break;
	}
	F.secs[k] += now() - t;
}

/* Fill up to the cap and stay there a while (E2BIG), drain to empty
 * (shrinks), or mix.
 */
static void next_mode(struct fmap *m)
{
	if (m->mode == FILL && m->count == m->max && chance(50)) {
		F.fills++;
		m->mode = chance(600) ? DRAIN : MIX;
	} else if (m->mode == DRAIN && !m->count && chance(100)) {
		F.drains++;
		m->mode = chance(600) ? FILL : MIX;
	} else if (m->mode == MIX && chance(2)) {
		m->mode = chance(500) ? FILL : DRAIN;
	}
}

static unsigned long long env_ull(const char *name, unsigned long long def)
{
	const char *s = getenv(name);
	unsigned long long v;
	char *end;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end) {
		printf("ip_cookie_fuzz: %s=%s is not a number, using %llu\n",
		       name, s, def);
		return def;
	}
	return v;
}

/* Buffers that end where an unmapped or a PROT_NONE page begins. */
static int io_init(void)
{
	size_t pg = getpagesize(), big = (MAX_BATCH * 16 + pg - 1) & ~(pg - 1);
	char *a;

	F.area_len = 8 * pg + 2 * big;
	a = mmap(NULL, F.area_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return -errno;
	F.area = a;
	F.key = a + pg;			/* then an unmapped page */
	F.unmapped = F.key;
	F.val = a + 3 * pg;		/* then PROT_NONE pages */
	F.prot_none = F.val;
	F.next = a + 5 * pg;
	F.keys = a + 6 * pg + big;
	F.vals = a + 7 * pg + 2 * big;
	if (munmap(F.unmapped, pg) ||
	    mprotect(F.val, pg, PROT_NONE) || mprotect(F.next, pg, PROT_NONE) ||
	    mprotect(F.keys, pg, PROT_NONE) || mprotect(F.vals, pg, PROT_NONE))
		return -errno;
	return 0;
}

static void print_summary(double secs)
{
	char line[256];
	__u32 i, e;
	int len;

	printf("ip_cookie_fuzz: %lu ops, %lu syscalls in %.1f s, seed %llu\n",
	       F.op, F.syscalls, secs, (unsigned long long)F.seed);
	printf("ip_cookie_fuzz: %d maps, %u fills to max, %u drains, %lu long batches\n",
	       F.next_id, F.fills, F.drains, F.big_batches);
	for (i = 0; i < NR_OPS; i++) {
		len = snprintf(line, sizeof(line), "%s (%.1f s):", op_names[i],
			       F.secs[i]);
		for (e = 0; e < NR_ERRS; e++)
			if (F.stats[i][e])
				len += snprintf(line + len, sizeof(line) - len,
						" %s %lu", err_names[e],
						F.stats[i][e]);
		printf("ip_cookie_fuzz:   %s\n", line);
	}
}

void test_ip_cookie_fuzz(void)
{
	unsigned long nops, every;
	struct timespec ts;
	struct fmap *m;
	double t0;
	int i;

	memset(&F, 0, sizeof(F));
	for (i = 0; i < NR_MAPS; i++)
		F.maps[i].fd = -1;
	clock_gettime(CLOCK_REALTIME, &ts);
	/* As fake_ip() of ip_cookie_helpers.h: a runner built for 32-bit runs
	 * on a 32-bit kernel here.
	 */
	F.narrow = sizeof(long) == 4;
	F.seed = env_ull("IPC_FUZZ_SEED", ts.tv_nsec ^ ts.tv_sec ^
				 (unsigned long long)getpid() << 32);
	nops = env_ull("IPC_FUZZ_OPS", DEFAULT_OPS);
	printf("ip_cookie_fuzz: seed %llu (IPC_FUZZ_SEED=%llu replays), %lu ops\n",
	       (unsigned long long)F.seed, (unsigned long long)F.seed, nops);
	/* splitmix64 of the seed: any seed, 0 too, gives a good state */
	F.x = F.seed + 0x9E3779B97F4A7C15ULL;
	F.x = (F.x ^ F.x >> 30) * 0xBF58476D1CE4E5B9ULL;
	F.x = (F.x ^ F.x >> 27) * 0x94D049BB133111EBULL;
	F.x = F.x ^ F.x >> 31 ?: 1;

	if (!ASSERT_OK(io_init(), "io_init"))
		goto out;
	for (i = 0; i < NR_MAPS; i++)
		if (!map_create(&F.maps[i]))
			goto out;
	every = nops / NR_RECREATE + 1;
	t0 = now();
	for (F.op = 0; F.op < nops && !F.failed; F.op++) {
		if (F.op && F.op % CHECK_EVERY == 0)
			full_check(&F.maps[F.op / CHECK_EVERY % NR_MAPS]);
		if (F.op && F.op % every == 0) {
			/* Free a map with its entries, start a new one. */
			m = &F.maps[F.op / every % NR_MAPS];
			full_check(m);
			close(m->fd);
			if (!map_create(m))
				goto out;
		}
		if (F.op && F.op % 25000 == 0)
			printf("ip_cookie_fuzz: op %lu after %.1f s\n", F.op,
			       now() - t0);
		if (F.op % BIG_EVERY == BIG_EVERY / 2)
			F.big_due = true;
		m = &F.maps[rn(NR_MAPS)];
		if (!F.failed)
			do_op(m);
		next_mode(m);
	}
	for (i = 0; i < NR_MAPS && !F.failed; i++)
		full_check(&F.maps[i]);
	print_summary(now() - t0);
out:
	for (i = 0; i < NR_MAPS; i++)
		if (F.maps[i].fd >= 0)
			close(F.maps[i].fd);
	if (F.area)
		munmap(F.area, F.area_len);
}
