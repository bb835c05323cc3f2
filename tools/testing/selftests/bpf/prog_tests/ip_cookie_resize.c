// SPDX-License-Identifier: GPL-2.0
/* How BPF_MAP_TYPE_IP_COOKIE rebuilds its index: growth and shrink by
 * single updates and batches, the first index sized by map_extra, walks
 * that stay complete across rebuilds, one rebuild per doubling or
 * halving, GOLDEN_RATIO_64 hashing while the keys fit and re-seeding
 * after keys aimed at one bucket (the probe bound), in-place writes of
 * programs that survive rebuilds under them, and the cache-line layout of
 * the map's struct.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <pthread.h>
#include <bpf/btf.h>
#include "ip_cookie_helpers.h"
#include "ip_cookie.skel.h"
#include "ip_cookie_probe.skel.h"

/* Single updates and deletes, each possibly resizing, interleaved with
 * walks that must stay complete.
 */
static void test_single_resize(void)
{
	__u64 key, val;
	__u32 i, n = 3000;
	int fd;

	fd = create_map(8, 8, n, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		return;
	for (i = 0; i < n; i++) {
		key = fake_ip(i);
		val = i;
		if (!ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST),
			       "insert"))
			goto out;
	}
	ASSERT_EQ(walk_count(fd), n, "walk_full");
	for (i = 0; i < n; i += 2) {
		key = fake_ip(i);
		if (!ASSERT_OK(bpf_map_delete_elem(fd, &key), "delete"))
			goto out;
	}
	ASSERT_EQ(walk_count(fd), n / 2, "walk_half");
	for (i = 1; i < n; i += 2) {
		key = fake_ip(i);
		if (!ASSERT_OK(bpf_map_lookup_elem(fd, &key, &val), "lookup") ||
		    !ASSERT_EQ(val, i, "value"))
			goto out;
	}
	for (i = 1; i < n; i += 2) {
		key = fake_ip(i);
		if (!ASSERT_OK(bpf_map_delete_elem(fd, &key), "delete_rest"))
			goto out;
	}
	ASSERT_EQ(walk_count(fd), 0, "walk_empty");
out:
	close(fd);
}

/* A walk that resizes the map after every step from a key that stays in
 * the map still visits every such key exactly once.  Adding 1,200 keys
 * to 300 grows the index past 80% load, deleting them shrinks it below
 * 20%: each of those steps rebuilds it, which the reported memory shows.
 * The walk also passes through the added keys; from one of them it does
 * not resize, since a walk from a deleted key starts over, as for every
 * map.
 */
static void test_walk_during_resize(void)
{
	__u32 n = 300, seen = 0, steps = 0, rebuilt = 0, walked = 0;
	__u64 key, next, val;
	long long mem;
	bool extra = false;
	char *hit;
	int fd, err;

	fd = create_map(8, 8, 100000, 0);
	hit = calloc(n, 1);
	if (!ASSERT_GE(fd, 0, "create") || !ASSERT_OK_PTR(hit, "calloc"))
		goto out;
	if (!ASSERT_OK(fill_batch(fd, 0, n, BPF_ANY), "fill"))
		goto out;
	err = bpf_map_get_next_key(fd, NULL, &next);
	while (!err && walked++ < n + 1200) {
		key = next;
		val = (next - fake_ip(0)) / 16;
		if (val < n) {
			ASSERT_EQ(hit[val], 0, "visited_once");
			hit[val] = 1;
			seen++;
			mem = map_memlock(fd);
			if (extra)
				err = drain_batch(fd, n + 1000, n + 2200);
			else
				err = fill_batch(fd, n + 1000, n + 2200, BPF_ANY);
			if (!ASSERT_OK(err, "resize"))
				goto out;
			steps++;
			rebuilt += map_memlock(fd) != mem;
			extra = !extra;
		}
		err = bpf_map_get_next_key(fd, &key, &next);
	}
	ASSERT_EQ(err, -ENOENT, "walk_end");
	ASSERT_EQ(seen, n, "walk_complete");
	ASSERT_EQ(rebuilt, steps, "every_step_rebuilt");
out:
	free(hit);
	if (fd >= 0)
		close(fd);
}

/* Changes that sit at a grow or shrink threshold rebuild the index once
 * per doubling or halving, and a batch grows it once.
 */
static void test_rebuild_thresholds(void)
{
	__u32 grow_at[16], nr_grow = 0, i, j, lo, hi, n = 1000;
	struct ip_cookie_probe *skel;
	struct bpf_link *link;
	__u64 key, val, t;
	int fd = -1;

	skel = ip_cookie_probe__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->test_pid = getpid();
	link = bpf_program__attach(skel->progs.count_tables);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;

	/* A batch of 25 keys into an empty map grows it once. */
	fd = create_map(8, 8, n, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		goto out;
	t = skel->bss->tables_allocated;
	ASSERT_OK(fill_batch(fd, 0, 25, 0), "batch25");
	ASSERT_EQ(skel->bss->tables_allocated - t, 1, "batch25_rebuilds");
	close(fd);

	/* Single inserts up to n: one rebuild per doubling, 16 -> 4096. */
	fd = create_map(8, 8, n, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		goto out;
	for (i = 0; i < n; i++) {
		key = fake_ip(i);
		val = i;
		t = skel->bss->tables_allocated;
		if (!ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST),
			       "insert"))
			goto out;
		if (skel->bss->tables_allocated != t && nr_grow < ARRAY_SIZE(grow_at))
			grow_at[nr_grow++] = i;
	}
	ASSERT_LE(nr_grow, 8, "fill_rebuilds");
	close(fd);
	fd = -1;

	/* Fill to just below each grow point, then alternate deleting an
	 * old key and inserting a new one, as many times as half the entries
	 * (at most 20): one rebuild at most.
	 */
	for (j = 0; j < nr_grow; j++) {
		fd = create_map(8, 8, n + 100, 0);
		if (!ASSERT_GE(fd, 0, "create"))
			goto out;
		for (i = 0; i < grow_at[j]; i++) {
			key = fake_ip(i);
			val = i;
			ASSERT_OK(bpf_map_update_elem(fd, &key, &val, 0), "fill");
		}
		t = skel->bss->tables_allocated;
		for (i = 0; i < 20 && i < grow_at[j] / 2; i++) {
			key = i ? fake_ip(n + i - 1) : fake_ip(0);
			ASSERT_OK(bpf_map_delete_elem(fd, &key), "churn_delete");
			key = fake_ip(n + i);
			ASSERT_OK(bpf_map_update_elem(fd, &key, &val, 0),
				  "churn_insert");
		}
		if (!ASSERT_LE(skel->bss->tables_allocated - t, 1, "churn_rebuilds"))
			printf("grow point %u\n", grow_at[j]);
		close(fd);
		fd = -1;
	}

	/* Drain one key at a time; after each shrink, one delete and two
	 * inserts, ten times: the shrunk table has room for them.  Keys
	 * fake_ip(lo..hi-1) are in the map.
	 */
	fd = create_map(8, 8, 2 * n, 0);
	if (!ASSERT_GE(fd, 0, "create") ||
	    !ASSERT_OK(fill_batch(fd, 0, n, 0), "fill"))
		goto out;
	lo = 0;
	hi = n;
	while (hi - lo > 16) {
		t = skel->bss->tables_allocated;
		key = fake_ip(lo++);
		if (!ASSERT_OK(bpf_map_delete_elem(fd, &key), "drain"))
			goto out;
		if (skel->bss->tables_allocated == t)
			continue;
		t = skel->bss->tables_allocated;
		for (j = 0; j < 10; j++) {
			key = fake_ip(lo++);
			ASSERT_OK(bpf_map_delete_elem(fd, &key), "shrunk_delete");
			key = fake_ip(hi++);
			ASSERT_OK(bpf_map_update_elem(fd, &key, &val, 0), "shrunk_ins1");
			key = fake_ip(hi++);
			ASSERT_OK(bpf_map_update_elem(fd, &key, &val, 0), "shrunk_ins2");
		}
		if (!ASSERT_LE(skel->bss->tables_allocated - t, 1, "shrunk_churn_rebuilds"))
			printf("shrunk at %u entries\n", hi - lo - 10);
	}
out:
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	ip_cookie_probe__destroy(skel);
}

static int create_hinted(__u32 max_entries, __u64 hint)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_extra = hint);

	return bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_hint", 8, 8,
			      max_entries, &opts);
}

/* map_extra sizes the first index: loading that many entries, by batch or
 * one at a time, allocates no table and ends with the index growing would
 * have reached; one entry more grows it.  1638 is 80% of 2048 buckets.
 * A hint above max_entries, upper bits included, is refused.
 */
static void test_size_hint(void)
{
	struct ip_cookie_probe *skel;
	struct bpf_link *link = NULL;
	__u32 i, j, hint = 1638;
	int fd = -1, grown = -1;
	__u64 key, val = 0, t;

	skel = ip_cookie_probe__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->test_pid = getpid();
	link = bpf_program__attach(skel->progs.count_tables);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;

	ASSERT_EQ(create_hinted(hint, hint + 1), -EINVAL, "hint_above_max");
	ASSERT_EQ(create_hinted(hint, (1ULL << 32) | 1), -EINVAL,
		  "hint_upper_bits");
	grown = create_map(8, 8, 2 * hint, 0);
	if (!ASSERT_GE(grown, 0, "create") ||
	    !ASSERT_OK(fill_batch(grown, 0, hint, 0), "fill_grown"))
		goto out;
	for (i = 0; i < 2; i++) {
		fd = create_hinted(2 * hint, hint);
		if (!ASSERT_GE(fd, 0, "create_hinted"))
			goto out;
		t = skel->bss->tables_allocated;
		if (i == 0) {
			ASSERT_OK(fill_batch(fd, 0, hint, 0), "fill_batch");
		} else {
			for (j = 0; j < hint; j++) {
				key = fake_ip(j);
				val = j;
				if (!ASSERT_OK(bpf_map_update_elem(fd, &key, &val, 0),
					       "fill_single"))
					break;
			}
		}
		ASSERT_EQ(skel->bss->tables_allocated - t, 0, "hint_rebuilds");
		ASSERT_EQ(map_memlock(fd), map_memlock(grown), "hint_memlock");
		key = fake_ip(hint);
		ASSERT_OK(bpf_map_update_elem(fd, &key, &val, 0), "past_hint");
		ASSERT_EQ(skel->bss->tables_allocated - t, 1, "past_hint_grows");
		close(fd);
		fd = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	if (grown >= 0)
		close(grown);
	bpf_link__destroy(link);
	ip_cookie_probe__destroy(skel);
}

/* A batch grows the index only for keys it adds: not for duplicates,
 * invalid keys or element flags, and a batch that stops early has grown
 * only for the keys before the one it stopped at.
 */
static void test_batch_overgrowth(void)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 i, n = 20000, cnt;
	__u64 *keys, *vals;
	int fd;

	keys = calloc(n, sizeof(*keys));
	vals = calloc(n, sizeof(*vals));
	fd = create_map(8, 8, 2 * n, 0);
	if (!ASSERT_OK_PTR(keys, "calloc") || !ASSERT_OK_PTR(vals, "calloc") ||
	    !ASSERT_GE(fd, 0, "create"))
		goto out;
	ASSERT_OK(fill_batch(fd, 0, 10, 0), "fill10");

	/* n copies of one new key: one entry more */
	for (i = 0; i < n; i++) {
		keys[i] = fake_ip(50);
		vals[i] = 50;
	}
	cnt = n;
	ASSERT_OK(bpf_map_update_batch(fd, keys, vals, &cnt, &opts), "dups");
	ASSERT_EQ(walk_count(fd), 11, "dups_walk");
	/* 16 KiB: a table of 64 buckets and its tail; n keys would be 512 */
	ASSERT_LT(map_memlock(fd), 16384, "dups_memlock");

	/* An element flag: refused before anything is added, and before the
	 * kernel writes the count, which stays what was passed in
	 */
	for (i = 0; i < n; i++) {
		keys[i] = fake_ip(100 + i);
		vals[i] = 100 + i;
	}
	cnt = n;
	opts.elem_flags = BPF_EXIST;
	ASSERT_EQ(bpf_map_update_batch(fd, keys, vals, &cnt, &opts), -EINVAL,
		  "exist_flag");
	ASSERT_EQ(cnt, n, "exist_count");
	ASSERT_LT(map_memlock(fd), 16384, "exist_memlock");

	/* Ten valid keys, an invalid one (ip 0), then many valid ones: the
	 * batch stops at the invalid key, the index sized for what went in.
	 */
	keys[10] = 0;
	cnt = n;
	opts.elem_flags = 0;
	ASSERT_EQ(bpf_map_update_batch(fd, keys, vals, &cnt, &opts), -EINVAL,
		  "invalid_key");
	ASSERT_EQ(cnt, 10, "invalid_count");
	ASSERT_EQ(walk_count(fd), 21, "invalid_walk");
	ASSERT_LT(map_memlock(fd), 16384, "invalid_memlock");
out:
	if (fd >= 0)
		close(fd);
	free(keys);
	free(vals);
}

/* The hash is hash_64() of the ip whenever the keys fit: maps filled with
 * the same keys, one at a time or by batch, walk them in order of
 * ip * GOLDEN_RATIO_64 at every table size they pass through, so the cost
 * of a lookup depends on the keys, not on a seed.
 */
static void test_golden_hash(void)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	const __u32 sizes[] = { 10, 100, 1000, 5000 };
	int fd_one = -1, fd_batch = -1, n;
	__u64 key, val, *keys = NULL;
	__u32 i, s, from = 0, cnt;
	bool golden;

	keys = calloc(5000, sizeof(*keys));
	fd_one = create_map(8, 8, 5000, 0);
	fd_batch = create_map(8, 8, 5000, 0);
	if (!ASSERT_OK_PTR(keys, "calloc") || !ASSERT_GE(fd_one, 0, "create") ||
	    !ASSERT_GE(fd_batch, 0, "create_batch"))
		goto out;
	for (i = 0; i < 5000; i++)
		keys[i] = fake_ip(i * 7);	/* values: the same as keys */
	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		for (i = from; i < sizes[s]; i++) {
			key = keys[i];
			val = key;
			if (!ASSERT_OK(bpf_map_update_elem(fd_one, &key, &val,
							   BPF_NOEXIST), "insert"))
				goto out;
		}
		cnt = sizes[s] - from;
		if (!ASSERT_OK(bpf_map_update_batch(fd_batch, keys + from,
						    keys + from, &cnt, &opts),
			       "update_batch"))
			goto out;
		from = sizes[s];
		n = walk_hash_order(fd_one, &golden);
		ASSERT_EQ(n, sizes[s], "walk_one");
		ASSERT_TRUE(golden, "golden_order_one");
		n = walk_hash_order(fd_batch, &golden);
		ASSERT_EQ(n, sizes[s], "walk_batch");
		ASSERT_TRUE(golden, "golden_order_batch");
	}
out:
	if (fd_one >= 0)
		close(fd_one);
	if (fd_batch >= 0)
		close(fd_batch);
	free(keys);
}

/* With BPF_F_ZERO_SEED the multiplier never changes: of keys aimed at one
 * home, the 256 the probe bound allows go in, the next one gets -ENOSPC
 * and changes nothing; other keys still go in.
 */
static void test_zero_seed_fixed(void)
{
	__u64 key, val;
	int fd, err = 0;
	bool golden;
	__u32 i;

	fd = create_map(8, 8, 4096, BPF_F_ZERO_SEED);
	if (!ASSERT_GE(fd, 0, "create"))
		return;
	for (i = 0; i < 1000; i++) {
		key = colliding_ip(i);
		val = i;
		err = bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST);
		if (err)
			break;
	}
	ASSERT_EQ(err, -ENOSPC, "aimed_enospc");
	ASSERT_EQ(i, 256, "aimed_fit");
	ASSERT_EQ(walk_hash_order(fd, &golden), 256, "walk_after");
	ASSERT_TRUE(golden, "still_golden");
	key = colliding_ip(i);
	ASSERT_EQ(bpf_map_lookup_elem(fd, &key, &val), -ENOENT, "refused_absent");
	key = colliding_ip(0);
	ASSERT_OK(bpf_map_lookup_elem(fd, &key, &val), "first_kept");
	ASSERT_EQ(val, 0, "first_value");
	key = fake_ip(1);
	val = 1;
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST), "other_key");
	close(fd);
}

/* Hash flooding: 1,200 keys aimed at one bucket of a table hashed with
 * GOLDEN_RATIO_64, which user space knows.  The map re-seeds (its walk
 * order is no longer that of GOLDEN_RATIO_64), every key is still found
 * with its value, and looking up the last 64 of them costs about what
 * looking up 64 of 1,200 ordinary keys costs: no probe walks a cluster of
 * them.
 */
static void test_probe_bound(void)
{
	struct ip_cookie_probe *adv = NULL, *ctl = NULL;
	const __u32 n = 1200, k = IPC_PROBE_KEYS;
	__u64 key, val, t, t_adv, t_ctl;
	int fd_adv, fd_ctl, prog_adv, prog_ctl;
	bool golden;
	__u32 i;

	adv = ip_cookie_probe__open_and_load();
	ctl = ip_cookie_probe__open_and_load();
	if (!ASSERT_OK_PTR(adv, "skel_load") ||
	    !ASSERT_OK_PTR(ctl, "skel_load_control"))
		goto out;
	fd_adv = bpf_map__fd(adv->maps.probe_map);
	fd_ctl = bpf_map__fd(ctl->maps.probe_map);
	for (i = 0; i < n; i++) {
		key = colliding_ip(i);
		val = i;
		if (!ASSERT_OK(bpf_map_update_elem(fd_adv, &key, &val, BPF_NOEXIST),
			       "insert_aimed"))
			goto out;
		key = fake_ip(i);
		if (!ASSERT_OK(bpf_map_update_elem(fd_ctl, &key, &val, BPF_NOEXIST),
			       "insert_control"))
			goto out;
	}
	for (i = 0; i < n; i++) {
		key = colliding_ip(i);
		if (!ASSERT_OK(bpf_map_lookup_elem(fd_adv, &key, &val), "lookup") ||
		    !ASSERT_EQ(val, i, "value"))
			goto out;
	}
	ASSERT_EQ(walk_hash_order(fd_adv, &golden), n, "walk_aimed");
	ASSERT_FALSE(golden, "aimed_reseeded");
	ASSERT_EQ(walk_hash_order(fd_ctl, &golden), n, "walk_control");
	ASSERT_TRUE(golden, "control_golden");

	adv->bss->rounds = 20;
	ctl->bss->rounds = 20;
	for (i = 0; i < k; i++) {
		adv->bss->keys[i] = colliding_ip(n - k + i);
		ctl->bss->keys[i] = fake_ip(n - k + i);
	}
	/* Fastest of three alternating runs each, after a warm-up run. */
	prog_adv = bpf_program__fd(adv->progs.lookup_keys);
	prog_ctl = bpf_program__fd(ctl->progs.lookup_keys);
	prog_run_ns(prog_adv, 1);
	prog_run_ns(prog_ctl, 1);
	t_adv = ~0ULL;
	t_ctl = ~0ULL;
	for (i = 0; i < 3; i++) {
		t = prog_run_ns(prog_adv, 10);
		t_adv = t < t_adv ? t : t_adv;
		t = prog_run_ns(prog_ctl, 10);
		t_ctl = t < t_ctl ? t : t_ctl;
	}
	for (i = 0; i < k; i++) {
		ASSERT_EQ(adv->bss->vals[i], n - k + i, "prog_value_aimed");
		ASSERT_EQ(ctl->bss->vals[i], n - k + i, "prog_value_control");
	}
	printf("%s: %u aimed keys: %llu ns, ordinary keys: %llu ns\n", __func__,
	       k, (unsigned long long)t_adv, (unsigned long long)t_ctl);
	/* An unbounded probe costs ~n slots per lookup here: ~100x more. */
	ASSERT_LT(t_adv, 5 * t_ctl, "aimed_keys_cost");
out:
	ip_cookie_probe__destroy(ctl);
	ip_cookie_probe__destroy(adv);
}

/* Programs increment values in place while the index is rebuilt under
 * them: not one increment may be lost.
 */
static void test_writes_survive_resize(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct resize_ctx ctx = {};
	struct bpf_link *link = NULL;
	struct ip_cookie *skel;
	__u64 ips[NR_FUNCS], val;
	pthread_t thread;
	bool started = false;
	int i, runs = 200;

	skel = ip_cookie__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->test_pid = getpid();
	ctx.fd = bpf_map__fd(skel->maps.count_map);
	for (i = 0; i < NR_FUNCS; i++) {
		ips[i] = ksym(fentry_funcs[i]);
		val = 0;
		ASSERT_OK(bpf_map_update_elem(ctx.fd, &ips[i], &val, BPF_NOEXIST),
			  "fill");
	}
	opts.syms = (const char **)fentry_funcs;
	opts.cnt = NR_FUNCS;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.ipc_count,
						     NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;

	/* Resize between runs, from this thread... */
	for (i = 0; i < runs / 2; i++) {
		prog_run_ns(bpf_program__fd(skel->progs.ipc_trigger), 1);
		if (i % 2)
			ASSERT_OK(fill_batch(ctx.fd, 100, 1100, BPF_ANY), "grow");
		else if (i)
			ASSERT_OK(drain_batch(ctx.fd, 100, 1100), "shrink");
	}
	/* ...and during runs, from another one. */
	if (!ASSERT_OK(pthread_create(&thread, NULL, resizer, &ctx), "thread"))
		goto out;
	started = true;
	for (; i < runs; i++)
		prog_run_ns(bpf_program__fd(skel->progs.ipc_trigger), 1);
out:
	if (started) {
		__atomic_store_n(&ctx.stop, true, __ATOMIC_RELAXED);
		pthread_join(thread, NULL);
		ASSERT_OK(ctx.err, "resizer");
	}
	bpf_link__destroy(link);
	if (started) {
		ASSERT_EQ(skel->bss->count_missed, 0, "missed");
		for (i = 0; i < NR_FUNCS; i++) {
			ASSERT_OK(bpf_map_lookup_elem(ctx.fd, &ips[i], &val),
				  "lookup");
			ASSERT_EQ(val, runs, fentry_funcs[i]);
		}
	}
	ip_cookie__destroy(skel);
}

/* What user space reads in BTF of the map's own struct: the fields every
 * lookup reads are on another cache line than those every update writes.
 */
static void test_cache_lines(void)
{
	static const char * const written[] = { "count", "used", "lock" };
	const struct btf_member *m;
	const struct btf_type *t;
	long tbl_off = -1, off;
	struct btf *btf;
	int id, i, j;

	btf = btf__load_vmlinux_btf();
	if (!ASSERT_OK_PTR(btf, "vmlinux_btf"))
		return;
	id = btf__find_by_name_kind(btf, "bpf_ip_cookie", BTF_KIND_STRUCT);
	if (!ASSERT_GT(id, 0, "struct_bpf_ip_cookie"))
		goto out;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), "tbl"))
			tbl_off = btf_member_bit_offset(t, i) / 8;
	if (!ASSERT_GE(tbl_off, 0, "tbl"))
		goto out;
	for (i = 0; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, m[i].name_off);

		off = btf_member_bit_offset(t, i) / 8;
		for (j = 0; j < ARRAY_SIZE(written); j++)
			if (!strcmp(name, written[j]) &&
			    !ASSERT_NEQ(off / 64, tbl_off / 64, name))
				printf("tbl at %ld, %s at %ld\n", tbl_off, name, off);
	}
out:
	btf__free(btf);
}

void test_ip_cookie_resize(void)
{
	if (test__start_subtest("single_resize"))
		test_single_resize();
	if (test__start_subtest("walk_during_resize"))
		test_walk_during_resize();
	if (test__start_subtest("rebuild_thresholds"))
		test_rebuild_thresholds();
	if (test__start_subtest("size_hint"))
		test_size_hint();
	if (test__start_subtest("batch_overgrowth"))
		test_batch_overgrowth();
	if (test__start_subtest("golden_hash"))
		test_golden_hash();
	if (test__start_subtest("zero_seed_fixed"))
		test_zero_seed_fixed();
	if (test__start_subtest("probe_bound"))
		test_probe_bound();
	if (test__start_subtest("writes_survive_resize") && have_kprobe_multi())
		test_writes_survive_resize();
	if (test__start_subtest("cache_lines"))
		test_cache_lines();
}
