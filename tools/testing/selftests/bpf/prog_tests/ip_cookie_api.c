// SPDX-License-Identifier: GPL-2.0
/* BPF_MAP_TYPE_IP_COOKIE through the bpf() syscall: map attributes,
 * element operations and their flags, read-only and write-only fds,
 * {ip, link_id} keys, batches, who may ask for a fixed hash seed, and a
 * batch that faults on its user memory without holding up other updates.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <pthread.h>
#include "cap_helpers.h"
#include "ip_cookie_helpers.h"
#include "ip_cookie_uffd.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

static void test_bad_attrs(void)
{
	struct { __u32 key, value, max, flags; int err; } cases[] = {
		{ 4, 8, 16, 0, -EINVAL },		/* key neither 8 nor 16 */
		{ 12, 8, 16, 0, -EINVAL },
		{ 32, 8, 16, 0, -EINVAL },
		{ 8, 0, 16, 0, -EINVAL },		/* no value */
		{ 8, 4097, 16, 0, -E2BIG },		/* value too big */
		{ 16, 4089, 16, 0, -E2BIG },		/* value + link ID > 4096 */
		{ 8, 8, 0, 0, -EINVAL },		/* no entries */
		{ 8, 8, (1U << 26) + 1, 0, -E2BIG },	/* cap too big */
		{ 8, 8, 16, BPF_F_NO_PREALLOC, -EINVAL },
		{ 8, 8, 16, BPF_F_MMAPABLE, -EINVAL },
		{ 8, 8, 16, BPF_F_RDONLY | BPF_F_WRONLY, -EINVAL },
		{ 8, 8, 16, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG, -EINVAL },
	};
	__u32 good_flags[] = { 0, BPF_F_RDONLY_PROG, BPF_F_WRONLY_PROG,
			       BPF_F_RDONLY, BPF_F_WRONLY, BPF_F_ZERO_SEED,
			       BPF_F_NUMA_NODE };
	int i, fd;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fd = create_map(cases[i].key, cases[i].value, cases[i].max,
				cases[i].flags);
		if (!ASSERT_EQ(fd, cases[i].err, "create_bad")) {
			printf("case %d\n", i);
			if (fd >= 0)
				close(fd);
		}
	}
	for (i = 0; i < ARRAY_SIZE(good_flags); i++) {
		fd = create_map(8, 8, 16, good_flags[i]);
		if (ASSERT_GE(fd, 0, "create_good"))
			close(fd);
	}
	fd = create_map(8, 4096, 1U << 26, 0);
	if (ASSERT_GE(fd, 0, "create_limits"))
		close(fd);
	fd = create_map(16, 1, 1, 0);
	if (ASSERT_GE(fd, 0, "create_key16"))
		close(fd);
	fd = create_map(16, 4088, 1, 0);
	if (ASSERT_GE(fd, 0, "create_key16_limit"))
		close(fd);
}

static void test_syscall_ops(void)
{
	__u64 key, next, val, ip0 = 0;
	int fd, err, i, seen = 0;

	fd = create_map(8, 8, 4, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		return;

	key = fake_ip(0);
	val = 1;
	ASSERT_EQ(bpf_map_lookup_elem(fd, &key, &val), -ENOENT, "lookup_empty");
	ASSERT_EQ(bpf_map_get_next_key(fd, NULL, &next), -ENOENT, "next_empty");
	ASSERT_EQ(bpf_map_delete_elem(fd, &key), -ENOENT, "delete_missing");
	ASSERT_EQ(bpf_map_update_elem(fd, &key, &val, BPF_EXIST), -ENOENT,
		  "exist_missing");
	ASSERT_EQ(bpf_map_update_elem(fd, &ip0, &val, BPF_ANY), -EINVAL,
		  "ip_zero");
	ASSERT_EQ(bpf_map_update_elem(fd, &key, &val, BPF_F_LOCK), -EINVAL,
		  "bad_flags");
	ASSERT_EQ(bpf_map_update_elem(fd, &key, &val, 4), -EINVAL, "bad_flags2");
	/* Flags the generic code lets through and the map itself refuses. */
	ASSERT_EQ(bpf_map_update_elem(fd, &key, &val, 3), -EINVAL, "bad_flags3");
	ASSERT_EQ(bpf_map_update_elem(fd, &key, &val, 8), -EINVAL, "bad_flags8");
	/* ip 0 is never a key: every operation says so. */
	ASSERT_EQ(bpf_map_lookup_elem(fd, &ip0, &val), -EINVAL, "lookup_ip_zero");
	ASSERT_EQ(bpf_map_delete_elem(fd, &ip0), -EINVAL, "delete_ip_zero");

	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST), "insert");
	ASSERT_EQ(bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST), -EEXIST,
		  "noexist_present");
	val = 2;
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_EXIST), "replace");
	val = 0;
	ASSERT_OK(bpf_map_lookup_elem(fd, &key, &val), "lookup");
	ASSERT_EQ(val, 2, "replaced_value");
	val = 3;
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "any_present");
	ASSERT_OK(bpf_map_lookup_elem(fd, &key, &val), "lookup2");
	ASSERT_EQ(val, 3, "any_value");

	/* The cap counts entries; replacing at the cap still works. */
	for (i = 1; i < 4; i++) {
		key = fake_ip(i);
		val = i;
		ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill");
	}
	key = fake_ip(0x100000);
	ASSERT_EQ(bpf_map_update_elem(fd, &key, &val, BPF_ANY), -E2BIG, "full");
	ASSERT_EQ(bpf_map_lookup_elem(fd, &key, &val), -ENOENT, "full_unchanged");
	key = fake_ip(1);
	val = 42;
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "replace_full");

	/* Lookup-and-delete is not offered. */
	err = bpf_map_lookup_and_delete_elem(fd, &key, &val);
	ASSERT_EQ(err, -ENOTSUPP, "lookup_and_delete");
	ASSERT_OK(bpf_map_lookup_elem(fd, &key, &val), "still_there");

	/* A walk visits each of the four keys once. */
	err = bpf_map_get_next_key(fd, NULL, &next);
	while (!err) {
		seen++;
		ASSERT_OK(bpf_map_lookup_elem(fd, &next, &val), "walk_lookup");
		key = next;
		err = bpf_map_get_next_key(fd, &key, &next);
	}
	ASSERT_EQ(err, -ENOENT, "walk_end");
	ASSERT_EQ(seen, 4, "walk_count");

	/* Deleting frees room under the cap again. */
	key = fake_ip(0);
	ASSERT_OK(bpf_map_delete_elem(fd, &key), "delete");
	ASSERT_EQ(bpf_map_lookup_elem(fd, &key, &val), -ENOENT, "deleted");
	ASSERT_EQ(bpf_map_delete_elem(fd, &key), -ENOENT, "delete_twice");
	key = fake_ip(0x100000);
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "room_again");
	/* Re-inserting a deleted key works and finds the new value. */
	ASSERT_OK(bpf_map_delete_elem(fd, &key), "delete_again");
	val = 77;
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST), "reinsert");
	val = 0;
	ASSERT_OK(bpf_map_lookup_elem(fd, &key, &val), "lookup_reinsert");
	ASSERT_EQ(val, 77, "reinsert_value");
	close(fd);
}

/* A map fd opened read-only (BPF_F_RDONLY) or write-only (BPF_F_WRONLY)
 * gets -EPERM for what it may not do, and the map is unchanged.
 */
static void test_fd_access(void)
{
	LIBBPF_OPTS(bpf_get_fd_by_id_opts, ro, .open_flags = BPF_F_RDONLY);
	LIBBPF_OPTS(bpf_get_fd_by_id_opts, wo, .open_flags = BPF_F_WRONLY);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), n, out;
	__u64 key = fake_ip(1), next, val = 11, keys[2], vals[2];
	int fd, rfd = -1, wfd = -1, cfd;

	fd = create_map(8, 8, 16, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		return;
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST), "fill");
	if (!ASSERT_OK(bpf_map_get_info_by_fd(fd, &info, &len), "info"))
		goto out;
	rfd = bpf_map_get_fd_by_id_opts(info.id, &ro);
	wfd = bpf_map_get_fd_by_id_opts(info.id, &wo);
	if (!ASSERT_GE(rfd, 0, "open_rdonly") || !ASSERT_GE(wfd, 0, "open_wronly"))
		goto out;

	/* Read-only: lookups and walks work, changes do not. */
	val = 0;
	ASSERT_OK(bpf_map_lookup_elem(rfd, &key, &val), "ro_lookup");
	ASSERT_EQ(val, 11, "ro_value");
	ASSERT_OK(bpf_map_get_next_key(rfd, NULL, &next), "ro_next");
	val = 12;
	ASSERT_EQ(bpf_map_update_elem(rfd, &key, &val, BPF_ANY), -EPERM,
		  "ro_update");
	ASSERT_EQ(bpf_map_delete_elem(rfd, &key), -EPERM, "ro_delete");
	keys[0] = fake_ip(2);
	vals[0] = 2;
	n = 1;
	ASSERT_EQ(bpf_map_update_batch(rfd, keys, vals, &n, NULL), -EPERM,
		  "ro_update_batch");
	n = 1;
	ASSERT_EQ(bpf_map_delete_batch(rfd, &key, &n, NULL), -EPERM,
		  "ro_delete_batch");

	/* Write-only: changes work, reading does not. */
	ASSERT_EQ(bpf_map_lookup_elem(wfd, &key, &val), -EPERM, "wo_lookup");
	ASSERT_EQ(bpf_map_get_next_key(wfd, NULL, &next), -EPERM, "wo_next");
	n = 2;
	ASSERT_EQ(bpf_map_lookup_batch(wfd, NULL, &out, keys, vals, &n, NULL),
		  -EPERM, "wo_lookup_batch");
	val = 13;
	ASSERT_OK(bpf_map_update_elem(wfd, &key, &val, BPF_EXIST), "wo_update");

	/* Nothing the refused calls asked for happened. */
	ASSERT_OK(bpf_map_lookup_elem(fd, &key, &val), "lookup");
	ASSERT_EQ(val, 13, "value");
	ASSERT_EQ(bpf_map_lookup_elem(fd, &keys[0], &val), -ENOENT, "not_added");
	ASSERT_OK(bpf_map_delete_elem(wfd, &key), "wo_delete");
	ASSERT_EQ(bpf_map_lookup_elem(fd, &key, &val), -ENOENT, "deleted");

	/* A map created read-only for the syscall cannot be filled. */
	cfd = create_map(8, 8, 16, BPF_F_RDONLY);
	if (ASSERT_GE(cfd, 0, "create_rdonly")) {
		ASSERT_EQ(bpf_map_update_elem(cfd, &key, &val, BPF_ANY), -EPERM,
			  "created_rdonly_update");
		close(cfd);
	}
	cfd = create_map(8, 8, 16, BPF_F_WRONLY);
	if (ASSERT_GE(cfd, 0, "create_wronly")) {
		ASSERT_OK(bpf_map_update_elem(cfd, &key, &val, BPF_ANY),
			  "created_wronly_update");
		ASSERT_EQ(bpf_map_lookup_elem(cfd, &key, &val), -EPERM,
			  "created_wronly_lookup");
		close(cfd);
	}
out:
	if (rfd >= 0)
		close(rfd);
	if (wfd >= 0)
		close(wfd);
	close(fd);
}

static void test_link_keys(void)
{
	struct bpf_ip_cookie_key k = { .ip = fake_ip(0x23456) };
	struct bpf_ip_cookie_key next;
	__u64 val;
	int fd, err, seen = 0;
	__u32 link;

	fd = create_map(sizeof(k), sizeof(val), 16, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		return;

	/* One function, three links: three independent entries. */
	for (link = 1; link <= 3; link++) {
		k.link_id = link;
		val = 100 + link;
		ASSERT_OK(bpf_map_update_elem(fd, &k, &val, BPF_NOEXIST), "insert");
	}
	for (link = 1; link <= 3; link++) {
		k.link_id = link;
		ASSERT_OK(bpf_map_lookup_elem(fd, &k, &val), "lookup");
		ASSERT_EQ(val, 100 + link, "value");
	}
	k.link_id = 4;
	ASSERT_EQ(bpf_map_lookup_elem(fd, &k, &val), -ENOENT, "other_link");
	k.link_id = 1;
	k.reserved = 1;
	/* Keys with reserved bits or link ID 0 (what a program reads before
	 * its link has an ID) are refused by every operation.
	 */
	ASSERT_EQ(bpf_map_update_elem(fd, &k, &val, BPF_ANY), -EINVAL,
		  "reserved");
	ASSERT_EQ(bpf_map_lookup_elem(fd, &k, &val), -EINVAL, "reserved_lookup");
	ASSERT_EQ(bpf_map_delete_elem(fd, &k), -EINVAL, "reserved_delete");
	k.reserved = 0;
	ASSERT_OK(bpf_map_lookup_elem(fd, &k, &val), "reserved_kept");
	k.link_id = 0;
	ASSERT_EQ(bpf_map_update_elem(fd, &k, &val, BPF_ANY), -EINVAL,
		  "link0_update");
	ASSERT_EQ(bpf_map_lookup_elem(fd, &k, &val), -EINVAL, "link0_lookup");
	ASSERT_EQ(bpf_map_delete_elem(fd, &k), -EINVAL, "link0_delete");
	k.link_id = 1;

	/* Deleting one link's entry leaves the others. */
	k.link_id = 2;
	ASSERT_OK(bpf_map_delete_elem(fd, &k), "delete");
	ASSERT_EQ(bpf_map_lookup_elem(fd, &k, &val), -ENOENT, "deleted");
	k.link_id = 3;
	ASSERT_OK(bpf_map_lookup_elem(fd, &k, &val), "other_kept");
	ASSERT_EQ(val, 103, "other_value");
	/* A new link of the same function reuses the freed place. */
	k.link_id = 5;
	val = 105;
	ASSERT_OK(bpf_map_update_elem(fd, &k, &val, BPF_NOEXIST), "insert5");
	k.link_id = 2;
	ASSERT_EQ(bpf_map_lookup_elem(fd, &k, &val), -ENOENT, "still_deleted");

	err = bpf_map_get_next_key(fd, NULL, &next);
	while (!err) {
		seen++;
		ASSERT_EQ(next.ip, k.ip, "walk_ip");
		ASSERT_EQ(next.reserved, 0, "walk_reserved");
		k = next;
		err = bpf_map_get_next_key(fd, &k, &next);
	}
	ASSERT_EQ(seen, 3, "walk_count");
	close(fd);
}

static void test_batch(void)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 keys[64], vals[64], batch;
	__u32 n, total = 0;
	int fd, err, i;

	fd = create_map(8, 8, 2000, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		return;
	ASSERT_OK(fill_batch(fd, 0, 1000, BPF_ANY), "update_batch");
	/* Batches take no element flags, as for every other map. */
	ASSERT_EQ(fill_batch(fd, 0, 10, BPF_NOEXIST), -EINVAL, "batch_noexist");
	ASSERT_EQ(fill_batch(fd, 1000, 1010, BPF_EXIST), -EINVAL, "batch_exist");
	ASSERT_EQ(fill_batch(fd, 1000, 2001, BPF_ANY), -E2BIG, "batch_cap");
	/* The batch stopped at the cap: 1000 more went in, one did not. */
	ASSERT_EQ(walk_count(fd), 2000, "after_cap");
	ASSERT_OK(drain_batch(fd, 1000, 2000), "delete_batch_cap");

	/* Batch lookup sees every entry exactly once. */
	for (;;) {
		n = ARRAY_SIZE(keys);
		err = bpf_map_lookup_batch(fd, total ? &batch : NULL, &batch,
					   keys, vals, &n, &opts);
		for (i = 0; i < n; i++)
			ASSERT_EQ(fake_ip(vals[i]), keys[i], "batch_value");
		total += n;
		if (err)
			break;
	}
	ASSERT_EQ(err, -ENOENT, "lookup_batch_end");
	ASSERT_EQ(total, 1000, "lookup_batch_total");

	ASSERT_OK(drain_batch(fd, 0, 500), "delete_batch");
	ASSERT_EQ(walk_count(fd), 500, "after_delete");
	n = 1;
	keys[0] = fake_ip(0);
	ASSERT_EQ(bpf_map_delete_batch(fd, keys, &n, NULL), -ENOENT,
		  "delete_batch_missing");
	ASSERT_EQ(n, 0, "delete_batch_missing_count");
	ASSERT_OK(drain_batch(fd, 500, 1000), "delete_batch_rest");
	ASSERT_EQ(walk_count(fd), 0, "empty");
	close(fd);
}

/* A batch walk goes on after its cursor key is deleted: with the last
 * key of every batch deleted before the next call, each of the keys is
 * returned exactly once, and so is every key that stays.
 */
static void test_batch_deleted_cursor(void)
{
	__u64 keys[7], vals[7], batch, key;
	__u32 n, i, total = 0, calls = 0;
	char seen[40] = {};
	int fd, err;

	fd = create_map(8, 8, 100, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		return;
	if (!ASSERT_OK(fill_batch(fd, 0, ARRAY_SIZE(seen), BPF_ANY), "fill"))
		goto out;
	do {
		n = ARRAY_SIZE(keys);
		err = bpf_map_lookup_batch(fd, calls ? &batch : NULL, &batch,
					   keys, vals, &n, NULL);
		calls++;
		for (i = 0; i < n; i++) {
			key = (keys[i] - fake_ip(0)) / 16;
			if (!ASSERT_LT(key, ARRAY_SIZE(seen), "known_key") ||
			    !ASSERT_EQ(seen[key], 0, "seen_once"))
				goto out;
			seen[key] = 1;
		}
		total += n;
		if (n)
			ASSERT_OK(bpf_map_delete_elem(fd, &batch), "delete_cursor");
	} while (!err && calls < 100);
	ASSERT_EQ(err, -ENOENT, "walk_end");
	ASSERT_EQ(total, ARRAY_SIZE(seen), "walk_total");
out:
	close(fd);
}

struct churn {
	int fd;
	int stop;
	long ops;
};

/* Inserts and deletes keys fake_ip(1000 + i), which no walk checks. */
static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	__u64 key, val = 1;
	__u32 i = 0;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		key = fake_ip(1000 + i % 500);
		bpf_map_update_elem(c->fd, &key, &val, BPF_ANY);
		key = fake_ip(1000 + (i + 250) % 500);
		bpf_map_delete_elem(c->fd, &key);
		i++;
		__atomic_store_n(&c->ops, i, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Let the churn thread insert and delete a few keys (at most a second). */
static void churn_some(struct churn *c)
{
	long from = __atomic_load_n(&c->ops, __ATOMIC_ACQUIRE);
	int i;

	for (i = 0; i < 100000; i++) {
		if (__atomic_load_n(&c->ops, __ATOMIC_ACQUIRE) >= from + 4)
			return;
		usleep(10);
	}
}

/* Batch walks beside a thread that inserts and deletes other keys: every
 * key that stays in the map comes back exactly once per walk.
 */
static void test_batch_churn(void)
{
	struct churn c = {};
	__u64 keys[16], vals[16], batch, key;
	__u32 n, i, total, walk, calls;
	char seen[500];
	pthread_t t;
	int err;

	c.fd = create_map(8, 8, 2000, 0);
	if (!ASSERT_GE(c.fd, 0, "create"))
		return;
	if (!ASSERT_OK(fill_batch(c.fd, 0, ARRAY_SIZE(seen), BPF_ANY), "fill") ||
	    !ASSERT_OK(pthread_create(&t, NULL, churn_thread, &c), "thread"))
		goto out;
	for (walk = 0; walk < 50; walk++) {
		memset(seen, 0, sizeof(seen));
		total = 0;
		calls = 0;
		do {
			n = ARRAY_SIZE(keys);
			if (calls)
				churn_some(&c);
			err = bpf_map_lookup_batch(c.fd, calls ? &batch : NULL,
						   &batch, keys, vals, &n, NULL);
			calls++;
			for (i = 0; i < n; i++) {
				key = (keys[i] - fake_ip(0)) / 16;
				if (key >= ARRAY_SIZE(seen))
					continue;
				if (!ASSERT_EQ(seen[key], 0, "seen_once"))
					goto stop;
				seen[key] = 1;
				total++;
			}
		} while (!err && calls < 1000);
		if (!ASSERT_EQ(err, -ENOENT, "walk_end") ||
		    !ASSERT_EQ(total, ARRAY_SIZE(seen), "walk_total"))
			break;
	}
stop:
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
out:
	close(c.fd);
}

/* BPF_F_ZERO_SEED needs CAP_SYS_ADMIN, as for HASH. */
static void test_zero_seed_perm(void)
{
	__u64 caps;
	int fd;

	if (!ASSERT_OK(cap_disable_effective(1ULL << CAP_SYS_ADMIN, &caps),
		       "drop_sys_admin"))
		return;
	fd = create_map(8, 8, 16, BPF_F_ZERO_SEED);
	ASSERT_EQ(fd, -EPERM, "zero_seed_without_sys_admin");
	if (fd >= 0)
		close(fd);
	fd = create_map(8, 8, 16, 0);
	ASSERT_GE(fd, 0, "random_seed_without_sys_admin");
	if (fd >= 0)
		close(fd);
	cap_enable_effective(caps, NULL);
}

struct batch_arg {
	int fd;
	__u64 *keys, *vals;
	int err;
	int done;
};

static void *batch_thread(void *p)
{
	struct batch_arg *a = p;
	__u32 cnt = 2;

	a->err = bpf_map_update_batch(a->fd, a->keys, a->vals, &cnt, NULL);
	return NULL;
}

/* Single updates and a delete of the map the batch is blocked on. */
static void *single_thread(void *p)
{
	struct batch_arg *a = p;
	__u64 key, val = 7;
	int i;

	for (i = 0; i < 10 && !a->err; i++) {
		key = fake_ip(100 + i);
		a->err = bpf_map_update_elem(a->fd, &key, &val, 0);
	}
	if (!a->err)
		a->err = bpf_map_delete_elem(a->fd, &key);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A batch whose values sit on a page that faults (userfaultfd) does not
 * hold the map's lock while it waits: other updates go on.
 */
static void test_batch_fault(void)
{
	struct batch_arg arg = {}, single = {};
	pthread_t th, th2;
	struct ipc_uffd u = {};
	__u64 keys[2], val;
	bool started2 = false;
	int err, i;

	arg.fd = create_map(8, 8, 64, 0);
	if (!ASSERT_GE(arg.fd, 0, "create"))
		return;
	single.fd = arg.fd;
	err = ipc_uffd_open(&u);
	if (!ASSERT_OK(err, "userfaultfd"))
		goto out_fd;
	keys[0] = fake_ip(1);
	keys[1] = fake_ip(2);
	arg.keys = keys;
	arg.vals = u.page;
	if (!ASSERT_OK(pthread_create(&th, NULL, batch_thread, &arg), "thread"))
		goto out_uffd;
	if (ASSERT_OK(ipc_uffd_wait(&u, 10000), "fault") &&
	    ASSERT_OK(pthread_create(&th2, NULL, single_thread, &single),
		      "thread2")) {
		started2 = true;
		/* Give them 5 s while the batch stays blocked. */
		for (i = 0; i < 500; i++) {
			if (__atomic_load_n(&single.done, __ATOMIC_ACQUIRE))
				break;
			usleep(10000);
		}
		ASSERT_LT(i, 500, "updates_while_batch_faults");
	}
	ASSERT_OK(ipc_uffd_release(&u), "release");
	pthread_join(th, NULL);
	if (started2) {
		pthread_join(th2, NULL);
		ASSERT_OK(single.err, "single_updates");
	}
	ASSERT_OK(arg.err, "batch");
	ASSERT_OK(bpf_map_lookup_elem(arg.fd, &keys[1], &val), "batch_key");
	ASSERT_EQ(val, 0, "batch_value_zero_page");
out_uffd:
	ipc_uffd_close(&u);
out_fd:
	close(arg.fd);
}

void test_ip_cookie_api(void)
{
	if (test__start_subtest("bad_attrs"))
		test_bad_attrs();
	if (test__start_subtest("syscall_ops"))
		test_syscall_ops();
	if (test__start_subtest("fd_access"))
		test_fd_access();
	if (test__start_subtest("link_keys"))
		test_link_keys();
	if (test__start_subtest("batch_deleted_cursor"))
		test_batch_deleted_cursor();
	if (test__start_subtest("batch_churn"))
		test_batch_churn();
	if (test__start_subtest("batch"))
		test_batch();
	if (test__start_subtest("zero_seed_perm"))
		test_zero_seed_perm();
	if (test__start_subtest("batch_fault"))
		test_batch_fault();
}
