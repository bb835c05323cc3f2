// SPDX-License-Identifier: GPL-2.0
/* BPF_MAP_TYPE_IP_COOKIE: syscall semantics, growth and shrink, lookups
 * from every tracing program type checked against bpf_get_attach_cookie(),
 * in-place writes across resizes, verifier rejections and bpftool dump.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <ctype.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <bpf/btf.h>
#include "cap_helpers.h"
#include "cgroup_helpers.h"
#include "trace_helpers.h"
#include "ip_cookie_common.h"
#include "ip_cookie_helpers.h"
#include "ip_cookie_uffd.h"
#include "ip_cookie.skel.h"
#include "ip_cookie_fail.skel.h"
#include "ip_cookie_probe.skel.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

#define NR_FUNCS	8

static const char * const fentry_funcs[NR_FUNCS] = {
	"bpf_fentry_test1", "bpf_fentry_test2", "bpf_fentry_test3",
	"bpf_fentry_test4", "bpf_fentry_test5", "bpf_fentry_test6",
	"bpf_fentry_test7", "bpf_fentry_test8",
};

/* map_mem_usage() as the kernel reports it in fdinfo ("memlock"). */
static long long map_memlock(int fd)
{
	char path[64], line[128];
	long long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock:\t%lld", &val) == 1)
			break;
	fclose(f);
	return val;
}

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

	key = 0xffffffff81000000ULL;
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
		key = 0xffffffff81000000ULL + i * 16;
		val = i;
		ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill");
	}
	key = 0xffffffff82000000ULL;
	ASSERT_EQ(bpf_map_update_elem(fd, &key, &val, BPF_ANY), -E2BIG, "full");
	ASSERT_EQ(bpf_map_lookup_elem(fd, &key, &val), -ENOENT, "full_unchanged");
	key = 0xffffffff81000010ULL;
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
	key = 0xffffffff81000000ULL;
	ASSERT_OK(bpf_map_delete_elem(fd, &key), "delete");
	ASSERT_EQ(bpf_map_lookup_elem(fd, &key, &val), -ENOENT, "deleted");
	ASSERT_EQ(bpf_map_delete_elem(fd, &key), -ENOENT, "delete_twice");
	key = 0xffffffff82000000ULL;
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

static void test_link_keys(void)
{
	struct bpf_ip_cookie_key k = { .ip = 0xffffffff81234560ULL };
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

static int fill_batch(int fd, __u32 from, __u32 to, __u64 flags)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = flags);
	__u32 n = to - from, i;
	__u64 *keys, *vals;
	int err;

	keys = calloc(n, sizeof(*keys));
	vals = calloc(n, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		keys[i] = fake_ip(from + i);
		vals[i] = from + i;
	}
	err = bpf_map_update_batch(fd, keys, vals, &n, &opts);
	if (!err && n != to - from)
		err = -EIO;
	free(keys);
	free(vals);
	return err;
}

static int drain_batch(int fd, __u32 from, __u32 to)
{
	__u32 n = to - from, i;
	__u64 *keys;
	int err;

	keys = calloc(n, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		keys[i] = fake_ip(from + i);
	err = bpf_map_delete_batch(fd, keys, &n, NULL);
	if (!err && n != to - from)
		err = -EIO;
	free(keys);
	return err;
}

/* Count the keys of a full walk and check each one's value. */
static int walk_count(int fd)
{
	__u64 key, next, val;
	int err, n = 0;

	err = bpf_map_get_next_key(fd, NULL, &next);
	while (!err) {
		if (bpf_map_lookup_elem(fd, &next, &val) ||
		    fake_ip(val) != next)
			return -1;
		n++;
		key = next;
		err = bpf_map_get_next_key(fd, &key, &next);
	}
	return err == -ENOENT ? n : -1;
}

/* The map holds exactly fake_ip(i) -> i for i in [0, @end) but not in
 * [@gap, @gap_end), as one pass of lookup batches sees it.
 */
static bool map_holds(int fd, __u32 end, __u32 gap, __u32 gap_end)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 cap = end + 64, total = 0, cnt, i;
	__u64 *keys, *vals, batch;
	bool ok = false;
	char *seen;
	int err;

	keys = calloc(cap, sizeof(*keys));
	vals = calloc(cap, sizeof(*vals));
	seen = calloc(end, 1);
	if (!keys || !vals || !seen)
		goto out;
	do {
		cnt = cap - total;
		if (!cnt)
			goto out;	/* more entries than the model */
		err = bpf_map_lookup_batch(fd, total ? &batch : NULL, &batch,
					   keys + total, vals + total, &cnt,
					   &opts);
		total += cnt;
	} while (!err);
	if (err != -ENOENT)
		goto out;
	for (i = 0; i < total; i++) {
		if (vals[i] >= end || keys[i] != fake_ip(vals[i]) ||
		    seen[vals[i]] || (vals[i] >= gap && vals[i] < gap_end))
			goto out;
		seen[vals[i]] = 1;
	}
	ok = total == end - (gap_end - gap);
out:
	free(keys);
	free(vals);
	free(seen);
	return ok;
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

/* memory.current of the cgroup open at @cgfd, once it has held still for
 * half a second, and at least a second from now: tables and elements are
 * freed after RCU grace periods, vmalloc'd ones later still.
 */
static long long memcg_settled(int cgfd)
{
	long long v = -1, prev;
	char buf[32];
	int i, fd, n, still = 0;

	for (i = 0; i < 200 && (i < 20 || still < 10); i++) {
		prev = v;
		fd = openat(cgfd, "memory.current", O_RDONLY);
		if (fd < 0)
			return -1;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return -1;
		buf[n] = 0;
		v = atoll(buf);
		still = v == prev ? still + 1 : 0;
		usleep(50000);
	}
	return v;
}

/* What the memory cgroup charges for a kmalloc-8 object beyond its 8 bytes:
 * the slab's metadata (KASAN, red zones: large on the debug kernel, as
 * /sys/kernel/slab says) and the object's obj_cgroup pointer.
 */
static long long slab8_extra(void)
{
	long long size = 8;
	char buf[32];
	int fd, n;

	fd = open("/sys/kernel/slab/kmalloc-cg-8/slab_size", O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			size = atoll(buf);
		}
	}
	return size - 8 + sizeof(void *);
}

/* Grow from empty to @max entries in batches, then shrink back to empty,
 * checking contents and that the reported memory follows the entries,
 * as map_mem_usage() says and as the memory cgroup is charged.
 */
static void grow_shrink(__u32 max, __u32 step)
{
	/* memcg charges ahead in per-CPU batches of 64 pages */
	long long slack = 64LL * getpagesize() * libbpf_num_possible_cpus();
	long long empty, full, back, cg_before, cg_full, cg_after, extra;
	__u32 i;
	int fd = -1, cgfd;

	/* The test's own buffers are charged to the cgroup too: have malloc
	 * map and unmap every large one, rather than keep it in a heap
	 * that grows with the largest buffer freed so far.
	 */
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	/* Elements of an 8-byte value are kmalloc-8 objects. */
	extra = slab8_extra();

	/* Charges go to the cgroup of the map's creator. */
	cgfd = cgroup_setup_and_join("/ip_cookie_memcg");
	if (!ASSERT_GE(cgfd, 0, "memcg_join"))
		return;
	cg_before = memcg_settled(cgfd);
	ASSERT_GE(cg_before, 0, "memory.current");
	fd = create_map(8, 8, max, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		goto out;
	empty = map_memlock(fd);
	ASSERT_GT(empty, 0, "memlock_empty");
	for (i = 0; i < max; i += step)
		if (!ASSERT_OK(fill_batch(fd, i, i + step, 0), "grow"))
			goto out;
	ASSERT_EQ(fill_batch(fd, max, max + 1, BPF_ANY), -E2BIG, "cap");
	/* Lookup batches see every key once with its value; a key-by-key
	 * walk checks the same for the smaller size (two syscalls a key
	 * are minutes on the debug kernel at 1M).
	 */
	ASSERT_TRUE(map_holds(fd, max, 0, 0), "batch_full");
	if (max <= 100000)
		ASSERT_EQ(walk_count(fd), max, "walk_full");
	full = map_memlock(fd);
	/* At least 16 bytes of index and 8 of value per entry... */
	ASSERT_GE(full, empty + (long long)max * 24, "memlock_grew");
	/* ...and the index stays at or above 40% load. */
	ASSERT_LE(full, empty + (long long)max * (40 + 16), "memlock_bounded");
	/* The cgroup pays for what the map reports, give or take the
	 * allocator's rounding and the per-CPU charge batches.
	 */
	cg_full = memcg_settled(cgfd);
	if (!ASSERT_GE(cg_full - cg_before, full - slack, "memcg_charged") ||
	    !ASSERT_LE(cg_full - cg_before,
		       full + max * extra + full / 10 + slack,
		       "memcg_bounded") || env.verbosity > VERBOSE_NONE)
		printf("%s: memory.current +%lld, memlock %lld, slab extra %lld, slack %lld\n",
		       __func__, cg_full - cg_before, full, extra, slack);

	for (i = 0; i < max; i += step)
		if (!ASSERT_OK(drain_batch(fd, i, i + step), "shrink"))
			goto out;
	ASSERT_TRUE(map_holds(fd, 0, 0, 0), "batch_empty");
	ASSERT_EQ(walk_count(fd), 0, "walk_empty");
	back = map_memlock(fd);
	ASSERT_EQ(back, empty, "memlock_back");
	close(fd);
	fd = -1;
	/* Freeing the map, from a work item after RCU grace periods,
	 * returns every charge.  The drained elements go in RCU callbacks,
	 * which an emulated CPU on a loaded host runs late (1M of them
	 * outlasted 20 rounds once): wait up to 100 rounds (a leak stays
	 * charged whatever the wait).
	 */
	for (i = 0; i < 100; i++) {
		kern_sync_rcu();
		cg_after = memcg_settled(cgfd);
		if (cg_after - cg_before <= slack)
			break;
	}
	if (!ASSERT_LE(cg_after - cg_before, slack, "memcg_uncharged"))
		printf("%s: memory.current %lld before, %lld after\n",
		       __func__, cg_before, cg_after);
out:
	if (fd >= 0)
		close(fd);
	close(cgfd);
	cleanup_cgroup_environment();
}

#define MEMCG_VSIZE	256
/* Batches of memcg_limit, touched before the limit is set */
static __u64 memcg_keys[1000];
static __u8 memcg_vals[1000 * MEMCG_VSIZE];

/* Add batches of 1000 keys from fake_ip(@from), valued i in the first 8 of
 * @vsize bytes, until one fails.  Returns the error, or 1 if @to was
 * reached; *@end is the first key not added.
 */
static int memcg_fill(int fd, __u32 vsize, __u32 from, __u32 to, __u32 *end)
{
	__u32 n, i;
	int err = 1;

	while (from < to) {
		n = to - from < 1000 ? to - from : 1000;
		for (i = 0; i < n; i++) {
			memcg_keys[i] = fake_ip(from + i);
			*(__u64 *)(memcg_vals + i * vsize) = from + i;
		}
		err = bpf_map_update_batch(fd, memcg_keys, memcg_vals, &n, NULL);
		from += n;
		if (err)
			break;
		err = 1;
	}
	*end = from;
	return err;
}

/* The map of MEMCG_VSIZE values holds exactly fake_ip(0..@end - 1) */
static bool memcg_holds(int fd, __u32 end)
{
	__u8 buf[MEMCG_VSIZE];
	__u64 key, next;
	__u32 i, n = 0;
	int err;

	for (i = 0; i < end; i++) {
		key = fake_ip(i);
		if (bpf_map_lookup_elem(fd, &key, buf) || *(__u64 *)buf != i)
			return false;
	}
	err = bpf_map_get_next_key(fd, NULL, &next);
	while (!err) {
		n++;
		key = next;
		err = bpf_map_get_next_key(fd, &key, &next);
	}
	return err == -ENOENT && n == end;
}

/* Counter @name of memory.events in the cgroup open at @cgfd; -1 if none */
static long long memcg_event(int cgfd, const char *name)
{
	long long v = -1, n;
	char key[32];
	FILE *f;
	int fd;

	fd = openat(cgfd, "memory.events", O_RDONLY);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -1;
	}
	while (fscanf(f, "%31s %lld", key, &n) == 2)
		if (!strcmp(key, name))
			v = n;
	fclose(f);
	return v;
}

/* Write @max to memory.max, open at @fd beforehand: at the limit, opening
 * a file is an allocation the cgroup pays for.
 */
static int memcg_set_max(int fd, long long max)
{
	char buf[32];
	int len;

	len = max == LLONG_MAX ? snprintf(buf, sizeof(buf), "max") :
				 snprintf(buf, sizeof(buf), "%lld", max);
	return pwrite(fd, buf, len, 0) == len ? 0 : -EIO;
}

/* Move the calling process ("0": the writer) into the cgroup open at
 * @cgfd; its memory.max, opened for writing, or -1.  Opened beforehand:
 * at the limit, opening a file is an allocation the cgroup pays for.
 */
static int memcg_child_join(int cgfd)
{
	int fd = openat(cgfd, "cgroup.procs", O_WRONLY);

	if (fd < 0 || write(fd, "0", 1) != 1) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return openat(cgfd, "memory.max", O_WRONLY);
}

/* In a child in the cgroup open at @cgfd: reach its memory.max through
 * new elements in an index that has room for them, then through the
 * growth of the index.  Exit 0 if both stopped with -ENOMEM and the map
 * held exactly what the batch counts said, else a code for what failed.
 */
static int memcg_limit_child(int cgfd)
{
	long long cur;
	int fd, mfd, err;
	__u32 end;

	mfd = memcg_child_join(cgfd);
	if (mfd < 0)
		return 10;

	/* 14,500 entries take 32,768 buckets, with room for 11,700 more
	 * elements of 256 bytes: 3 MB, more than the per-CPU charge batches
	 * and the frees of the smaller tables can hide.
	 */
	fd = create_map(8, MEMCG_VSIZE, 1 << 20, 0);
	if (fd < 0)
		return 11;
	if (memcg_fill(fd, MEMCG_VSIZE, 0, 14500, &end) != 1)
		return 12;
	kern_sync_rcu();
	cur = memcg_settled(cgfd);
	if (cur < 0 || memcg_set_max(mfd, cur + 65536))
		return 13;
	err = memcg_fill(fd, MEMCG_VSIZE, 14500, 26000, &end);
	/* Checking allocates user memory: not under the limit */
	if (memcg_set_max(mfd, LLONG_MAX))
		return 13;
	if (err != -ENOMEM)
		return err == 1 ? 14 : 15;
	if (!memcg_holds(fd, end))
		return 16;
	close(fd);

	/* A new map grows until its next index does not fit. */
	kern_sync_rcu();
	cur = memcg_settled(cgfd);
	if (cur < 0 || memcg_set_max(mfd, cur + (2 << 20)))
		return 17;
	fd = create_map(8, 8, 1 << 20, 0);
	if (fd < 0)
		return 18;
	err = memcg_fill(fd, sizeof(__u64), 0, 1 << 20, &end);
	if (memcg_set_max(mfd, LLONG_MAX))
		return 17;
	if (err != -ENOMEM)
		return err == 1 ? 19 : 20;
	return map_holds(fd, end, 0, 0) ? 0 : 21;
}

/* Growth that reaches the memory cgroup's limit fails with -ENOMEM: the
 * allocations must not invoke the cgroup's OOM killer.
 */
static void test_memcg_limit(void)
{
	int status, err, cgfd = -1;
	pid_t pid;

	err = setup_cgroup_environment();
	if (!ASSERT_OK(err, "cgroup_setup"))
		return;
	cgfd = create_and_get_cgroup("/ip_cookie_limit");
	if (!ASSERT_GE(cgfd, 0, "cgroup_create"))
		goto out;
	pid = fork();
	if (!ASSERT_GE(pid, 0, "fork"))
		goto out;
	if (pid == 0)
		_exit(memcg_limit_child(cgfd));
	if (!ASSERT_EQ(waitpid(pid, &status, 0), pid, "waitpid"))
		goto out;
	/* (6.12's ASSERT_FAIL() passes: not used) */
	if (!ASSERT_FALSE(WIFSIGNALED(status), "child_not_killed"))
		printf("%s: child killed by signal %d\n", __func__,
		       WTERMSIG(status));
	else
		ASSERT_EQ(WEXITSTATUS(status), 0, "child_enomem_consistent");
	/* The cgroup's OOM handling was never entered, killing or not */
	ASSERT_EQ(memcg_event(cgfd, "oom"), 0, "memory.events_oom");
	ASSERT_EQ(memcg_event(cgfd, "oom_kill"), 0, "memory.events_oom_kill");
out:
	if (cgfd >= 0)
		close(cgfd);
	cleanup_cgroup_environment();
}

#define REPLACE_VSIZE	4000

/* In a child in the cgroup open at @cgfd: @n replaces of one key, with
 * values of 4000 bytes and room for about 256 of them under memory.max.
 * Every replaced element waits for a grace period on the map's deferred
 * free list, charged to the map's cgroup like the list itself: each
 * update succeeds or fails with -ENOMEM, and the key holds the value of
 * the last update that succeeded.  Exit 0 if so, else a code for what
 * failed.
 */
static int replace_memcg_child(int cgfd, __u32 n, __u32 *nomem)
{
	static __u64 val[REPLACE_VSIZE / 8], got[REPLACE_VSIZE / 8];
	__u64 key = fake_ip(1), last = 0;
	long long cur;
	int fd, mfd, err;
	__u32 i;

	mfd = memcg_child_join(cgfd);
	if (mfd < 0)
		return 10;
	fd = create_map(8, REPLACE_VSIZE, 16, 0);
	if (fd < 0 || bpf_map_update_elem(fd, &key, val, 0))
		return 11;
	kern_sync_rcu();
	cur = memcg_settled(cgfd);
	if (cur < 0 || memcg_set_max(mfd, cur + (1 << 20)))
		return 12;
	for (i = 1; i <= n; i++) {
		val[0] = i;
		val[REPLACE_VSIZE / 8 - 1] = ~(__u64)i;
		err = bpf_map_update_elem(fd, &key, val, 0);
		if (!err)
			last = i;
		else if (err == -ENOMEM)
			(*nomem)++;
		else
			break;
	}
	if (memcg_set_max(mfd, LLONG_MAX))
		return 12;
	if (i <= n)
		return 13;
	err = bpf_map_lookup_elem(fd, &key, got);
	if (err || got[0] != last ||
	    got[REPLACE_VSIZE / 8 - 1] != (last ? ~last : 0)) {
		/* test_progs captures stdio in the parent only */
		dprintf(STDERR_FILENO,
			"replace_memcg: lookup %d: %llu, %llx after %u, last %llu\n",
			err, (unsigned long long)got[0],
			(unsigned long long)got[REPLACE_VSIZE / 8 - 1], n,
			(unsigned long long)last);
		return 14;
	}
	return last ? 0 : 15;
}

#define REPLACES	2000

/* Replaces of 4000-byte values (8 MB in all) in a memory cgroup with
 * room for about 256 of them: no OOM kill, only successes and -ENOMEM.
 * A child that has not finished in 300 s is killed (SIGALRM): a failure,
 * not a hung suite.
 */
static void test_replace_memcg(void)
{
	int status, err, cgfd = -1, pfd[2] = { -1, -1 };
	__u32 nomem = 0;
	pid_t pid;

	err = setup_cgroup_environment();
	if (!ASSERT_OK(err, "cgroup_setup"))
		return;
	cgfd = create_and_get_cgroup("/ip_cookie_replace");
	if (!ASSERT_GE(cgfd, 0, "cgroup_create") ||
	    !ASSERT_OK(pipe(pfd), "pipe"))
		goto out;
	pid = fork();
	if (!ASSERT_GE(pid, 0, "fork"))
		goto out;
	if (pid == 0) {
		alarm(300);
		status = replace_memcg_child(cgfd, REPLACES, &nomem);
		if (write(pfd[1], &nomem, sizeof(nomem)) != sizeof(nomem))
			status = 16;
		_exit(status);
	}
	close(pfd[1]);
	pfd[1] = -1;
	if (!ASSERT_EQ(waitpid(pid, &status, 0), pid, "waitpid"))
		goto out;
	if (!ASSERT_FALSE(WIFSIGNALED(status), "child_not_killed"))
		printf("%s: child killed by signal %d\n", __func__,
		       WTERMSIG(status));
	else
		ASSERT_EQ(WEXITSTATUS(status), 0, "child_consistent");
	if (read(pfd[0], &nomem, sizeof(nomem)) == sizeof(nomem) &&
	    env.verbosity > VERBOSE_NONE)
		printf("%s: %u of %u replaces failed with -ENOMEM\n",
		       __func__, nomem, REPLACES);
	ASSERT_EQ(memcg_event(cgfd, "oom"), 0, "memory.events_oom");
	ASSERT_EQ(memcg_event(cgfd, "oom_kill"), 0, "memory.events_oom_kill");
out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (cgfd >= 0)
		close(cgfd);
	cleanup_cgroup_environment();
}

static void test_grow_shrink(void)
{
	grow_shrink(20000, 1000);
}

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

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == strlen(val) ? 0 : -EIO;
}

#define FAILSLAB "/sys/kernel/debug/failslab/"
#define FAIL_PAGE "/sys/kernel/debug/fail_page_alloc/"

static int write_attr(const char *dir, const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "%s%s", dir, name);
	return write_file(path, val);
}

/* Fail this task's allocations of the kind of @dir (FAILSLAB: bytes from
 * slab; FAIL_PAGE: pages of any order) once @space bytes or pages have
 * been allocated; @space < 0 stops failing.  @fd is
 * /proc/self/make-it-fail, opened beforehand: opening it would allocate.
 */
static int inject(int fd, const char *dir, long space)
{
	bool page = !strcmp(dir, FAIL_PAGE);
	const char *other = page ? FAILSLAB : FAIL_PAGE;
	char buf[32];

	if (space < 0)
		return pwrite(fd, "0", 1, 0) == 1 ? 0 : -errno;
	snprintf(buf, sizeof(buf), "%ld", space);
	if (page &&
	    (write_attr(dir, "min-order", "0") ||
	     write_attr(dir, "ignore-gfp-highmem", "N")))
		return -EIO;
	if ((!access(other, F_OK) && write_attr(other, "probability", "0")) ||
	    write_attr(dir, "ignore-gfp-wait", "N") ||
	    write_attr(dir, "task-filter", "Y") ||
	    write_attr(dir, "verbose", "0") ||
	    write_attr(dir, "probability", "100") ||
	    write_attr(dir, "interval", "1") ||
	    write_attr(dir, "times", "-1") ||
	    write_attr(dir, "space", buf))
		return -EIO;
	return pwrite(fd, "1", 1, 0) == 1 ? 0 : -errno;
}

static int failslab(int fd, long space)
{
	return inject(fd, FAILSLAB, space);
}

/* CONFIG_@opt=y in /proc/config.gz (IKCONFIG_PROC, in both configs) */
static bool kernel_config_has(const char *opt)
{
	char line[256], want[128];
	bool found = false;
	FILE *f;

	snprintf(want, sizeof(want), "CONFIG_%s=y\n", opt);
	f = popen("zcat /proc/config.gz 2>/dev/null", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strcmp(line, want))
			found = true;
	pclose(f);
	return found;
}

/* The map holds exactly keys fake_ip(0..n-1), with values 0..n-1. */
static bool map_is(int fd, __u32 n, long long memlock)
{
	__u64 key, val;
	__u32 i;

	for (i = 0; i < n; i++) {
		key = fake_ip(i);
		if (bpf_map_lookup_elem(fd, &key, &val) || val != i)
			return false;
	}
	return walk_count(fd) == n && map_memlock(fd) == memlock;
}

/* Next fault budget after @space: every 8 bytes of the first KiB, then of
 * the KiB after a deferred-free chunk (a page, taken only when the map's
 * current chunk is full or reclaimed, so whether an operation needs one
 * depends on when the map's reclaim ran).  What lies between fails at the
 * chunk like its first budget, or never comes: the rest of an update
 * takes less than a KiB.
 */
static long next_space(long space)
{
	space += 8;
	return space == 1024 ? 4096 : space;
}

#define ENOMEM_SPACE_END (4096 + 1024)

/* Every allocation of an update that grows the index, and of a delete,
 * fails in turn: each failure is -ENOMEM and leaves the map as it was.
 */
static void test_enomem_unchanged(void)
{
	__u32 n = 12;	/* the next insert grows 16 buckets */
	int fd, ffd, err = -1, fails = 0;
	long long memlock;
	__u64 key, val;
	long space;

	if (access(FAILSLAB "space", W_OK)) {
		/* A kernel built with failslab must run this test. */
		if (!ASSERT_FALSE(kernel_config_has("FAILSLAB"), "failslab_missing"))
			return;
		test__skip();	/* not a debug kernel: no failslab */
		return;
	}
	ffd = open("/proc/self/make-it-fail", O_WRONLY);
	if (!ASSERT_GE(ffd, 0, "make-it-fail"))
		return;
	fd = create_map(8, 8, 64, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		goto out_ffd;
	if (!ASSERT_OK(fill_batch(fd, 0, n, 0), "fill"))
		goto out;
	memlock = map_memlock(fd);

	for (space = 0; space < ENOMEM_SPACE_END; space = next_space(space)) {
		key = fake_ip(n);
		val = n;
		if (!ASSERT_OK(failslab(ffd, space), "failslab"))
			goto out;
		err = bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST);
		failslab(ffd, -1);
		if (!err)
			break;
		fails++;
		if (!ASSERT_EQ(err, -ENOMEM, "update_enomem") ||
		    !ASSERT_TRUE(map_is(fd, n, memlock), "update_unchanged"))
			goto out;
	}
	/* Key and value copies, the element, a free-list chunk (if the
	 * map has none with room) and the grown table.
	 */
	ASSERT_GE(fails, 5, "update_failed_each");
	ASSERT_OK(err, "update_in_the_end");
	ASSERT_GT(map_memlock(fd), memlock, "memlock_grew");
	memlock = map_memlock(fd);
	ASSERT_TRUE(map_is(fd, n + 1, memlock), "grown");

	fails = 0;
	for (space = 0; space < ENOMEM_SPACE_END; space = next_space(space)) {
		key = fake_ip(n);
		if (!ASSERT_OK(failslab(ffd, space), "failslab"))
			goto out;
		err = bpf_map_delete_elem(fd, &key);
		failslab(ffd, -1);
		if (!err)
			break;
		fails++;
		if (!ASSERT_EQ(err, -ENOMEM, "delete_enomem") ||
		    !ASSERT_TRUE(map_is(fd, n + 1, memlock), "delete_unchanged"))
			goto out;
	}
	/* Key copy, and a free-list chunk or a budget past it. */
	ASSERT_GE(fails, 2, "delete_failed_each");
	ASSERT_OK(err, "delete_in_the_end");
	ASSERT_TRUE(map_is(fd, n, map_memlock(fd)), "deleted");
out:
	failslab(ffd, -1);
	close(fd);
out_ffd:
	close(ffd);
}

/* Batch updates and deletes of @m keys next to @n others fail, under
 * growing fault budgets of @step, until they succeed: each failure is
 * -ENOMEM and leaves exactly the first @count entries of the batch done.
 * Returns the failures seen in the update batches, in @pre those that
 * failed before any entry went in (the index grown ahead of the batch).
 */
static int batch_faults(int ffd, const char *dir, __u32 n, __u32 m,
			long step, int *pre)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 *keys, *vals;
	int fd, err = -1, fails = 0, i;
	__u32 cnt;
	long space;

	*pre = 0;
	fd = create_map(8, 8, n + m, 0);
	keys = calloc(m, sizeof(*keys));
	vals = calloc(m, sizeof(*vals));
	if (!ASSERT_GE(fd, 0, "create") || !ASSERT_OK_PTR(keys, "calloc") ||
	    !ASSERT_OK_PTR(vals, "calloc") ||
	    !ASSERT_OK(fill_batch(fd, 0, n, 0), "fill"))
		goto out;
	for (i = 0; i < m; i++) {
		keys[i] = fake_ip(n + i);
		vals[i] = n + i;
	}

	for (space = 0; err; space += step) {
		cnt = m;
		if (!ASSERT_OK(inject(ffd, dir, space), "inject"))
			goto out;
		err = bpf_map_update_batch(fd, keys, vals, &cnt, &opts);
		inject(ffd, dir, -1);
		if (!err)
			break;
		fails++;
		*pre += !cnt;
		if (!ASSERT_EQ(err, -ENOMEM, "update_batch_enomem") ||
		    !ASSERT_TRUE(map_holds(fd, n + cnt, 0, 0), "update_batch_count") ||
		    !ASSERT_OK(drain_batch(fd, n, n + cnt), "undo"))
			goto out;
	}
	ASSERT_TRUE(map_holds(fd, n + m, 0, 0), "update_batch_done");

	for (err = -1, space = 0; err; space += step) {
		cnt = m;
		if (!ASSERT_OK(inject(ffd, dir, space), "inject"))
			goto out;
		err = bpf_map_delete_batch(fd, keys, &cnt, NULL);
		inject(ffd, dir, -1);
		if (!err)
			break;
		if (!ASSERT_EQ(err, -ENOMEM, "delete_batch_enomem") ||
		    !ASSERT_TRUE(map_holds(fd, n + m, n, n + cnt),
				 "delete_batch_count") ||
		    !ASSERT_OK(fill_batch(fd, n, n + cnt, 0), "undo"))
			goto out;
	}
	ASSERT_TRUE(map_holds(fd, n, 0, 0), "delete_batch_done");
out:
	inject(ffd, dir, -1);
	free(keys);
	free(vals);
	if (fd >= 0)
		close(fd);
	return fails;
}

/* Map creation under faults: -ENOMEM until it succeeds (kmemleak, run by
 * the VM at the end, reports what a failed creation leaked).
 */
static int create_faults(int ffd, const char *dir, __u32 max, long step)
{
	int fd = -1, fails = 0;
	long space;

	for (space = 0; fd < 0; space += step) {
		if (!ASSERT_OK(inject(ffd, dir, space), "inject"))
			return -1;
		fd = create_map(8, 8, max, 0);
		inject(ffd, dir, -1);
		if (fd >= 0)
			break;
		fails++;
		if (!ASSERT_EQ(fd, -ENOMEM, "create_enomem"))
			return -1;
	}
	ASSERT_TRUE(map_holds(fd, 0, 0, 0), "created_empty");
	ASSERT_OK(fill_batch(fd, 0, 100, 0), "created_fill");
	close(fd);
	return fails;
}

/* Failed slab and page allocations in batches (the index grown ahead of
 * a batch, entries in the middle of it, deletes that shrink) and in map
 * creation.  Tables past the kmalloc costly order come from vmalloc, which
 * only page faults reach.
 */
static void test_faults(void)
{
	int ffd, fails, pre;

	if (access(FAILSLAB "space", W_OK) || access(FAIL_PAGE "space", W_OK)) {
		/* A kernel built with fault injection must run this test. */
		if (!ASSERT_FALSE(kernel_config_has("FAILSLAB") ||
				  kernel_config_has("FAIL_PAGE_ALLOC"),
				  "fault_injection_missing"))
			return;
		test__skip();
		return;
	}
	ffd = open("/proc/self/make-it-fail", O_WRONLY);
	if (!ASSERT_GE(ffd, 0, "make-it-fail"))
		return;

	/* 12 + 100 entries: 16 buckets grow to 256, the elements one by one */
	fails = batch_faults(ffd, FAILSLAB, 12, 100, 32, &pre);
	ASSERT_GE(pre, 1, "slab_failed_before_batch");
	ASSERT_GT(fails, pre, "slab_failed_mid_batch");
	/* 1000 + 4000: 2048 buckets (kmalloc) grow to 8192 (vmalloc, 128 KiB)
	 * and shrink back after the delete.
	 */
	fails = batch_faults(ffd, FAIL_PAGE, 1000, 4000, 1, &pre);
	ASSERT_GE(pre, 1, "page_failed_before_batch");

	ASSERT_GE(create_faults(ffd, FAILSLAB, 1 << 20, 8), 1, "create_slab");
	ASSERT_GE(create_faults(ffd, FAIL_PAGE, 1 << 20, 1), 0, "create_page");
	close(ffd);
}

static void trigger_fentry_tests(struct ip_cookie *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.ipc_trigger),
				     &topts);
	ASSERT_OK(err, "test_run");
}

/* Every hit of a cookie-N attach point found map value N for its IP. */
static void check_res(struct res *r, int nr, const __u64 *ips,
		      const char *name)
{
	int i;

	ASSERT_EQ(r->bad_cookie, 0, name);
	for (i = 0; i < nr; i++) {
		if (!ASSERT_GE(r->hits[i], 1, name) ||
		    !ASSERT_EQ(r->missed[i], 0, name) ||
		    !ASSERT_EQ(r->differ[i], 0, name) ||
		    !ASSERT_EQ(r->value[i], i + 1, name))
			printf("%s: attach point %d\n", name, i + 1);
		if (ips)
			ASSERT_EQ(r->ip[i], ips[i], name);
	}
}

static void fill_ips(int fd, const __u64 *ips, int nr)
{
	__u64 val;
	int i;

	for (i = 0; i < nr; i++) {
		val = i + 1;
		ASSERT_OK(bpf_map_update_elem(fd, &ips[i], &val, BPF_ANY),
			  "fill_ips");
	}
}

static void subtest_kprobe_multi(struct ip_cookie *skel, const __u64 *ips)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct bpf_link *l1 = NULL, *l2 = NULL, *l3 = NULL;
	__u64 cookies[NR_FUNCS];
	int i;

	/* Cookie i+1 for bpf_fentry_test(i+1): the map holds the same. */
	for (i = 0; i < NR_FUNCS; i++)
		cookies[i] = i + 1;
	opts.syms = (const char **)fentry_funcs;
	opts.cookies = cookies;
	opts.cnt = NR_FUNCS;
	l1 = bpf_program__attach_kprobe_multi_opts(skel->progs.ipc_kmulti,
						   NULL, &opts);
	opts.retprobe = true;
	l2 = bpf_program__attach_kprobe_multi_opts(skel->progs.ipc_kretmulti,
						   NULL, &opts);
	opts.retprobe = false;
	opts.session = true;
	l3 = bpf_program__attach_kprobe_multi_opts(skel->progs.ipc_session,
						   NULL, &opts);
	if (!ASSERT_OK_PTR(l1, "attach_kmulti") ||
	    !ASSERT_OK_PTR(l2, "attach_kretmulti") ||
	    !ASSERT_OK_PTR(l3, "attach_session"))
		goto out;
	trigger_fentry_tests(skel);
	check_res(&skel->bss->res_kmulti, NR_FUNCS, ips, "kprobe_multi");
	check_res(&skel->bss->res_kretmulti, NR_FUNCS, ips, "kretprobe_multi");
	check_res(&skel->bss->res_sess_entry, NR_FUNCS, ips, "session_entry");
	check_res(&skel->bss->res_sess_return, NR_FUNCS, ips, "session_return");
out:
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bpf_link__destroy(l3);
}

static void subtest_kprobe(struct ip_cookie *skel, const __u64 *ips)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = 1);
	struct bpf_link *l1, *l2, *l3;
	struct res *r = &skel->bss->res_koff;

	l1 = bpf_program__attach_kprobe_opts(skel->progs.ipc_kprobe,
					     "bpf_fentry_test1", &opts);
	opts.retprobe = true;
	l2 = bpf_program__attach_kprobe_opts(skel->progs.ipc_kretprobe,
					     "bpf_fentry_test1", &opts);
	/* Past the 5-byte __fentry__ call (and the 4-byte endbr64 of IBT). */
	opts.retprobe = false;
	opts.offset = kernel_config_has("X86_KERNEL_IBT") ? 9 : 5;
	l3 = bpf_program__attach_kprobe_opts(skel->progs.ipc_kprobe_offset,
					     "bpf_fentry_test1", &opts);
	if (ASSERT_OK_PTR(l1, "attach_kprobe") &&
	    ASSERT_OK_PTR(l2, "attach_kretprobe") &&
	    ASSERT_OK_PTR(l3, "attach_kprobe_offset")) {
		trigger_fentry_tests(skel);
		check_res(&skel->bss->res_kprobe, 1, ips, "kprobe");
		check_res(&skel->bss->res_kretprobe, 1, ips, "kretprobe");
		/* bpf_get_func_ip() is 0 there, and 0 is never found. */
		ASSERT_GE(r->hits[0], 1, "offset_hits");
		ASSERT_EQ(r->missed[0], r->hits[0], "offset_missed");
		ASSERT_EQ(r->ip[0], 0, "offset_ip");
		ASSERT_EQ(r->bad_cookie, 0, "offset_cookie");
	}
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bpf_link__destroy(l3);
}

static void subtest_fentry(struct ip_cookie *skel, const __u64 *ips)
{
	LIBBPF_OPTS(bpf_trace_opts, opts, .cookie = 1);
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct bpf_link *l1, *l2, *l3, *l4;
	__u64 mod_ret_ip[1];
	int fd = bpf_map__fd(skel->maps.ip_map);
	__u64 val = 1;

	mod_ret_ip[0] = ksym("bpf_modify_return_test");
	ASSERT_OK(bpf_map_update_elem(fd, mod_ret_ip, &val, BPF_ANY), "fill");

	l1 = bpf_program__attach_trace_opts(skel->progs.ipc_fentry, &opts);
	l2 = bpf_program__attach_trace_opts(skel->progs.ipc_fexit, &opts);
	l3 = bpf_program__attach_trace_opts(skel->progs.ipc_fmod_ret, &opts);
	l4 = bpf_program__attach_trace_opts(skel->progs.ipc_fentry_s, &opts);
	if (ASSERT_OK_PTR(l1, "attach_fentry") &&
	    ASSERT_OK_PTR(l2, "attach_fexit") &&
	    ASSERT_OK_PTR(l3, "attach_fmod_ret") &&
	    ASSERT_OK_PTR(l4, "attach_fentry_s")) {
		trigger_fentry_tests(skel);
		/* Test-running fmod_ret calls bpf_modify_return_test(). */
		ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.ipc_fmod_ret),
						 &topts), "test_run_fmod_ret");
		check_res(&skel->bss->res_fentry, 1, ips, "fentry");
		check_res(&skel->bss->res_fexit, 1, ips, "fexit");
		check_res(&skel->bss->res_fmod_ret, 1, mod_ret_ip, "fmod_ret");
		check_res(&skel->bss->res_fentry_s, 1, ips, "fentry_s");
	}
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bpf_link__destroy(l3);
	bpf_link__destroy(l4);
}

noinline int ip_cookie_utarget1(int x)
{
	asm volatile ("" : "+r"(x));
	return x + 1;
}

noinline int ip_cookie_utarget2(int x)
{
	asm volatile ("" : "+r"(x));
	return x + 2;
}

static void subtest_uprobe(struct ip_cookie *skel)
{
	LIBBPF_OPTS(bpf_uprobe_multi_opts, mopts);
	LIBBPF_OPTS(bpf_uprobe_opts, opts);
	struct bpf_link *l1, *l2, *l3, *l4, *l5;
	const char *syms[2] = { "ip_cookie_utarget1", "ip_cookie_utarget2" };
	__u64 cookies[2] = { 1, 2 };
	__u64 ips[2];
	int fd = bpf_map__fd(skel->maps.ip_map);

	/* The user virtual address is what bpf_get_func_ip() returns. */
	ips[0] = (__u64)(unsigned long)&ip_cookie_utarget1;
	ips[1] = (__u64)(unsigned long)&ip_cookie_utarget2;
	fill_ips(fd, ips, 2);

	opts.func_name = "ip_cookie_utarget1";
	opts.bpf_cookie = 1;
	l1 = bpf_program__attach_uprobe_opts(skel->progs.ipc_uprobe, 0,
					     "/proc/self/exe", 0, &opts);
	l2 = bpf_program__attach_uprobe_opts(skel->progs.ipc_uprobe_sleep, 0,
					     "/proc/self/exe", 0, &opts);
	mopts.syms = syms;
	mopts.cookies = cookies;
	mopts.cnt = 2;
	l3 = bpf_program__attach_uprobe_multi(skel->progs.ipc_uprobe_multi, -1,
					      "/proc/self/exe", NULL, &mopts);
	/* Return probes: the function's address, not the return address */
	opts.retprobe = true;
	l4 = bpf_program__attach_uprobe_opts(skel->progs.ipc_uretprobe, 0,
					     "/proc/self/exe", 0, &opts);
	mopts.retprobe = true;
	l5 = bpf_program__attach_uprobe_multi(skel->progs.ipc_uretprobe_multi,
					      -1, "/proc/self/exe", NULL, &mopts);
	if (ASSERT_OK_PTR(l1, "attach_uprobe") &&
	    ASSERT_OK_PTR(l2, "attach_uprobe_sleep") &&
	    ASSERT_OK_PTR(l3, "attach_uprobe_multi") &&
	    ASSERT_OK_PTR(l4, "attach_uretprobe") &&
	    ASSERT_OK_PTR(l5, "attach_uretprobe_multi")) {
		ip_cookie_utarget1(1);
		ip_cookie_utarget2(2);
		check_res(&skel->bss->res_uprobe, 1, ips, "uprobe");
		check_res(&skel->bss->res_uprobe_sleep, 1, ips, "uprobe_sleepable");
		check_res(&skel->bss->res_uprobe_multi, 2, ips, "uprobe_multi");
		check_res(&skel->bss->res_uretprobe, 1, ips, "uretprobe");
		check_res(&skel->bss->res_uretprobe_multi, 2, ips,
			  "uretprobe_multi");
	}
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bpf_link__destroy(l3);
	bpf_link__destroy(l4);
	bpf_link__destroy(l5);
}

static void subtest_tracepoints(struct ip_cookie *skel)
{
	LIBBPF_OPTS(bpf_raw_tracepoint_opts, ropts, .cookie = 1);
	LIBBPF_OPTS(bpf_tracepoint_opts, opts, .bpf_cookie = 1);
	LIBBPF_OPTS(bpf_trace_opts, topts, .cookie = 1);
	int fd = bpf_map__fd(skel->maps.ip_map);
	struct bpf_link *l1, *l2, *l3;
	__u64 key, val = 1;
	pid_t child;

	/* No function address here: the tool picks the key. */
	key = IPC_TAG_TP;
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill_tp");
	key = IPC_TAG_RAW_TP;
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill_raw_tp");
	key = IPC_TAG_TP_BTF;
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill_tp_btf");

	l1 = bpf_program__attach_tracepoint_opts(skel->progs.ipc_tp, "task",
						 "task_newtask", &opts);
	l2 = bpf_program__attach_raw_tracepoint_opts(skel->progs.ipc_raw_tp,
						     "task_newtask", &ropts);
	l3 = bpf_program__attach_trace_opts(skel->progs.ipc_tp_btf, &topts);
	if (ASSERT_OK_PTR(l1, "attach_tp") && ASSERT_OK_PTR(l2, "attach_raw_tp") &&
	    ASSERT_OK_PTR(l3, "attach_tp_btf")) {
		child = fork();
		if (child == 0)
			_exit(0);
		if (ASSERT_GT(child, 0, "fork"))
			waitpid(child, NULL, 0);
		check_res(&skel->bss->res_tp, 1, NULL, "tracepoint");
		check_res(&skel->bss->res_raw_tp, 1, NULL, "raw_tp");
		check_res(&skel->bss->res_tp_btf, 1, NULL, "tp_btf");
	}
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bpf_link__destroy(l3);
}

/* A perf_event program looks up from the event's overflow handler: NMI
 * context for a hardware event, hrtimer interrupt for a software one.
 */
/* A perf_event program on a cpu-clock (hrtimer) event, or with @nmi on a
 * hardware cycles event, which fires in NMI context.  Returns false if
 * there is no such event (no PMU: pure emulation).
 */
static bool subtest_perf_event(struct ip_cookie *skel, bool nmi)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = 1);
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = nmi ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		.config = nmi ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 100000,
		/* Enabled once attached: perf stores the program before its
		 * cookie, so an overflow in between would run it with none.
		 */
		.disabled = 1,
	};
	int fd = bpf_map__fd(skel->maps.ip_map), pfd;
	struct bpf_link *link;
	__u64 key = IPC_TAG_PERF, val = 1;
	int i;

	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill_perf");
	pfd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (nmi && pfd < 0 && (errno == ENOENT || errno == EOPNOTSUPP))
		return false;
	if (!ASSERT_GE(pfd, 0, "perf_event_open"))
		return true;
	memset(&skel->bss->res_perf, 0, sizeof(skel->bss->res_perf));
	link = bpf_program__attach_perf_event_opts(skel->progs.ipc_perf, pfd,
						   &opts);
	if (ASSERT_OK_PTR(link, "attach_perf") &&
	    ASSERT_OK(ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0), "enable")) {
		/* Burn CPU time in this task until the event fires. */
		for (i = 0; i < 10000000 && !skel->bss->res_perf.hits[0]; i++)
			(void)getppid();
		check_res(&skel->bss->res_perf, 1, NULL, "perf_event");
	}
	bpf_link__destroy(link);
	close(pfd);
	return true;
}

/* perf_event programs in NMI context: only where a hardware PMU exists. */
static void test_perf_event_nmi(void)
{
	struct ip_cookie *skel;

	skel = ip_cookie__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->pid = getpid();
	if (!subtest_perf_event(skel, true)) {
		printf("%s: no hardware PMU: NMI context not tested\n", __func__);
		test__skip();
	}
	ip_cookie__destroy(skel);
}

static void test_prog_types(void)
{
	struct ip_cookie *skel;
	__u64 ips[NR_FUNCS];
	int i;

	skel = ip_cookie__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->pid = getpid();
	for (i = 0; i < NR_FUNCS; i++)
		ips[i] = ksym(fentry_funcs[i]);
	fill_ips(bpf_map__fd(skel->maps.ip_map), ips, NR_FUNCS);

	subtest_kprobe_multi(skel, ips);
	subtest_kprobe(skel, ips);
	subtest_fentry(skel, ips);
	subtest_uprobe(skel);
	subtest_tracepoints(skel);
	subtest_perf_event(skel, false);
	ip_cookie__destroy(skel);
}

struct resize_ctx {
	int fd;
	bool stop;	/* accessed with __atomic builtins */
	int err;
};

/* Grow the map by thousands of entries and shrink it again, forever. */
static void *resizer(void *arg)
{
	struct resize_ctx *ctx = arg;

	while (!__atomic_load_n(&ctx->stop, __ATOMIC_RELAXED)) {
		ctx->err = fill_batch(ctx->fd, 100, 3100, BPF_ANY);
		if (ctx->err)
			break;
		ctx->err = drain_batch(ctx->fd, 100, 3100);
		if (ctx->err)
			break;
	}
	return NULL;
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
	skel->bss->pid = getpid();
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
		trigger_fentry_tests(skel);
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
		trigger_fentry_tests(skel);
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

/* Keys whose hashes under GOLDEN_RATIO_64, the multiplier of a table the
 * keys fit in, share their top bits, hence one home bucket at every table
 * size: ip = h * GOLDEN_RATIO_64^-1.
 */
static __u64 colliding_ip(__u32 i)
{
	const __u64 gr = 0x61C8864680B583EBULL;
	__u64 inv = gr;
	int k;

	for (k = 0; k < 6; k++)	/* Newton: inv = 1/gr mod 2^64 */
		inv *= 2 - gr * inv;
	return (0x5a5a5a5a00000000ULL + i) * inv;
}

/* Keys walked by get_next_key from @fd (8-byte keys), or -1 on error;
 * *@golden tells whether they came in order of ip * GOLDEN_RATIO_64, the
 * hash order of a table with that multiplier.
 */
static int walk_hash_order(int fd, bool *golden)
{
	const __u64 gr = 0x61C8864680B583EBULL;
	__u64 key = 0, next;
	int err, n = 0;

	*golden = true;
	err = bpf_map_get_next_key(fd, NULL, &next);
	while (!err) {
		if (n && next * gr <= key * gr)
			*golden = false;
		n++;
		key = next;
		err = bpf_map_get_next_key(fd, &key, &next);
	}
	return err == -ENOENT ? n : -1;
}

/* IP_COOKIE maps as inner maps: the inlined lookup must use the
 * multiplier and index of the map found at run time.  The second inner
 * map also holds keys aimed at one home under GOLDEN_RATIO_64, so it has
 * re-seeded: the two multipliers differ.
 */
static void test_inner_map(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	int inner[IPC_NR_INNER], outer, prog, i, j, err;
	__u64 ip, val, base, *sum, *missed;
	struct bpf_link *link = NULL;
	struct ip_cookie *skel;
	bool golden;

	for (i = 0; i < IPC_NR_INNER; i++)
		inner[i] = -1;
	skel = ip_cookie__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->pid = getpid();
	outer = bpf_map__fd(skel->maps.outer_map);
	for (i = 0; i < IPC_NR_INNER; i++) {
		inner[i] = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_inner",
					  sizeof(__u64), sizeof(__u64), 1024,
					  NULL);
		if (!ASSERT_GE(inner[i], 0, "inner_create"))
			goto out;
		for (j = 0; i && j < 300; j++) {
			ip = colliding_ip(j);
			err = bpf_map_update_elem(inner[i], &ip, &ip, BPF_NOEXIST);
			if (!ASSERT_OK(err, "inner_aimed"))
				goto out;
		}
		for (j = 0; j < NR_FUNCS; j++) {
			ip = ksym(fentry_funcs[j]);
			val = (i + 1) * 1000 + j;
			err = bpf_map_update_elem(inner[i], &ip, &val,
						  BPF_NOEXIST);
			if (!ASSERT_OK(err, "inner_fill"))
				goto out;
		}
		err = bpf_map_update_elem(outer, &i, &inner[i], BPF_ANY);
		if (!ASSERT_OK(err, "outer_update"))
			goto out;
		ASSERT_EQ(walk_hash_order(inner[i], &golden), NR_FUNCS + (i ? 300 : 0),
			  "inner_walk");
		ASSERT_EQ(golden, !i, "inner_golden");
	}
	opts.syms = (const char **)fentry_funcs;
	opts.cnt = NR_FUNCS;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.ipc_inner,
						     NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	trigger_fentry_tests(skel);

	/* The inner lookups are inlined: no call to the map's lookup
	 * function (a call's immediate is its offset from __bpf_call_base)
	 * nor to the generic helper.
	 */
	prog = bpf_program__fd(skel->progs.ipc_inner);
	base = ksym("__bpf_call_base");
	for (i = 0; i < 2; i++) {
		ip = ksym(i ? "bpf_map_lookup_elem" : "ip_cookie_map_lookup_elem");
		ASSERT_EQ(count_insns(prog, BPF_JMP | BPF_CALL, (__s32)(ip - base)),
			  0, i ? "inlined_no_helper" : "inlined_no_call");
	}
	/* The same count sees a call the program does make. */
	ip = ksym("bpf_get_current_pid_tgid");
	ASSERT_EQ(count_insns(prog, BPF_JMP | BPF_CALL, (__s32)(ip - base)), 1,
		  "control_call_seen");
	/* The template inner lookups are inlined from carries no creator's
	 * rights to bypass Spectre v1 mitigations (bpf_map_meta_alloc()
	 * copies them for arrays only), and the map found at run time may
	 * come from anyone: every inner lookup is clamped, whoever created
	 * the maps and whatever the mitigations.
	 */
	ASSERT_EQ(count_insns(prog, BPF_ALU64 | BPF_ARSH | BPF_K, 63),
		  IPC_NR_INNER, "inner_clamped_arsh");

	sum = skel->bss->inner_sum;
	missed = skel->bss->inner_missed;
	for (i = 0; i < IPC_NR_INNER; i++) {
		/* sum over j of (i + 1) * 1000 + j */
		val = (i + 1) * 1000 * NR_FUNCS + NR_FUNCS * (NR_FUNCS - 1) / 2;
		ASSERT_EQ(missed[i], 0, "inner_missed");
		ASSERT_EQ(sum[i], val, "inner_sum");
	}
out:
	bpf_link__destroy(link);
	for (i = 0; i < IPC_NR_INNER; i++)
		if (inner[i] >= 0)
			close(inner[i]);
	ip_cookie__destroy(skel);
}

static char *run_cmd(const char *cmd)
{
	size_t cap = 1 << 16, len = 0, n;
	char *out = calloc(1, cap);
	FILE *f;

	if (!out)
		return NULL;
	f = popen(cmd, "r");
	if (!f) {
		free(out);
		return NULL;
	}
	while (len < cap - 1 && (n = fread(out + len, 1, cap - 1 - len, f)) > 0)
		len += n;
	if (pclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/* Output of bpftool @args for the map of id @id; NULL on failure */
static char *bpftool_map(const char *bpftool, const char *args, __u32 id)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "%s %s id %u 2>&1", bpftool, args, id);
	return run_cmd(cmd);
}

/* {ip, link_id} keys, with BTF (plain and JSON) and as hex without */
static void bpftool_dump_key16(struct ip_cookie *skel, const char *bpftool)
{
	struct bpf_ip_cookie_key key = { .ip = 0xffffffff81000040ULL,
					 .link_id = 7 };
	const char *key_hex = "40 00 00 81 ff ff ff ff  07 00 00 00 00 00 00 00";
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char want[128], *out;
	__u64 val = 4242;
	int fd;

	fd = bpf_map__fd(skel->maps.link_keyed_map);
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill16");
	if (!ASSERT_OK(bpf_map_get_info_by_fd(fd, &info, &len), "info16"))
		return;
	out = bpftool_map(bpftool, "map dump", info.id);
	if (ASSERT_OK_PTR(out, "bpftool_plain16")) {
		if (env.verbosity > VERBOSE_NONE)
			printf("%s", out);
		snprintf(want, sizeof(want), "\"ip\": %llu", key.ip);
		ASSERT_OK_PTR(strstr(out, want), "plain16_ip");
		ASSERT_OK_PTR(strstr(out, "\"link_id\": 7,"), "plain16_link");
		ASSERT_OK_PTR(strstr(out, "\"reserved\": 0"), "plain16_reserved");
		ASSERT_OK_PTR(strstr(out, "\"value\": 4242"), "plain16_value");
		free(out);
	}
	out = bpftool_map(bpftool, "-j map dump", info.id);
	if (ASSERT_OK_PTR(out, "bpftool_json16")) {
		if (env.verbosity > VERBOSE_NONE)
			printf("%s\n", out);
		snprintf(want, sizeof(want),
			 "\"key\":{\"ip\":%llu,\"link_id\":7,\"reserved\":0}",
			 key.ip);
		ASSERT_OK_PTR(strstr(out, want), "json16_key");
		ASSERT_OK_PTR(strstr(out, "\"value\":4242"), "json16_value");
		free(out);
	}

	/* Without BTF: the key's bytes, in two groups of eight */
	fd = create_map(16, 8, 4, 0);
	if (!ASSERT_GE(fd, 0, "create16"))
		return;
	val = 42;
	len = sizeof(info);
	memset(&info, 0, sizeof(info));
	if (ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill16_hex") &&
	    ASSERT_OK(bpf_map_get_info_by_fd(fd, &info, &len), "info16_hex")) {
		out = bpftool_map(bpftool, "map dump", info.id);
		if (ASSERT_OK_PTR(out, "bpftool_hex16")) {
			if (env.verbosity > VERBOSE_NONE)
				printf("%s", out);
			snprintf(want, sizeof(want),
				 "key: %s  value: 2a 00 00 00 00 00 00 00", key_hex);
			ASSERT_OK_PTR(strstr(out, want), "hex16_dump");
			free(out);
		}
	}
	close(fd);
}

/* bpftool pretty-prints the map with its BTF, plain and as JSON. */
static void test_bpftool_dump(void)
{
	struct ip_cookie *skel;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	const char *key_hex = "40 00 00 81 ff ff ff ff";
	const char *val_hex = "2a 00 00 00 00 00 00 00";
	const char *pin = "/sys/fs/bpf/ipc_cli";
	char cmd[512], want[128], *out;
	const char *bpftool;
	__u64 key = 0xffffffff81000040ULL, val = 4242;
	int fd;

	skel = ip_cookie__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	fd = bpf_map__fd(skel->maps.ip_map);
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill");
	if (!ASSERT_OK(bpf_map_get_info_by_fd(fd, &info, &len), "info"))
		goto out;
	/* The one built with the kernel, next to test_progs, else $PATH's. */
	bpftool = access("./bpftool", X_OK) ? "bpftool" : "./bpftool";

	snprintf(cmd, sizeof(cmd), "%s map dump id %u 2>&1", bpftool, info.id);
	out = run_cmd(cmd);
	if (ASSERT_OK_PTR(out, "bpftool_plain")) {
		if (env.verbosity > VERBOSE_NONE)
			printf("%s", out);
		snprintf(want, sizeof(want), "\"key\": %llu", key);
		ASSERT_OK_PTR(strstr(out, want), "plain_key");
		ASSERT_OK_PTR(strstr(out, "\"value\": 4242"), "plain_value");
		free(out);
	}
	snprintf(cmd, sizeof(cmd), "%s -j map dump id %u 2>&1", bpftool,
		 info.id);
	out = run_cmd(cmd);
	if (ASSERT_OK_PTR(out, "bpftool_json")) {
		snprintf(want, sizeof(want), "\"key\":%llu", key);
		ASSERT_OK_PTR(strstr(out, want), "json_key");
		ASSERT_OK_PTR(strstr(out, "\"value\":4242"), "json_value");
		free(out);
	}

	/* Create, fill and dump a map from the command line. */
	snprintf(cmd, sizeof(cmd), "%s map create %s type ip_cookie %s 2>&1",
		 bpftool, pin, "key 8 value 8 entries 4 name ipc_cli");
	out = run_cmd(cmd);
	if (!ASSERT_OK_PTR(out, "bpftool_create"))
		goto out;
	free(out);
	snprintf(cmd, sizeof(cmd), "%s map update pinned %s key hex %s value hex %s 2>&1",
		 bpftool, pin, key_hex, val_hex);
	out = run_cmd(cmd);
	if (ASSERT_OK_PTR(out, "bpftool_update"))
		free(out);
	snprintf(cmd, sizeof(cmd), "%s map dump pinned %s 2>&1", bpftool, pin);
	out = run_cmd(cmd);
	if (ASSERT_OK_PTR(out, "bpftool_dump_cli")) {
		snprintf(want, sizeof(want), "key: %s  value: %s", key_hex, val_hex);
		ASSERT_OK_PTR(strstr(out, want), "cli_dump");
		free(out);
	}
	unlink(pin);
	bpftool_dump_key16(skel, bpftool);
out:
	ip_cookie__destroy(skel);
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
	skel->bss->pid = getpid();
	link = bpf_program__attach(skel->progs.count_tables);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;

	/* A batch of 25 keys into an empty map grows it once. */
	fd = create_map(8, 8, n, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		goto out;
	t = skel->bss->tables;
	ASSERT_OK(fill_batch(fd, 0, 25, 0), "batch25");
	ASSERT_EQ(skel->bss->tables - t, 1, "batch25_rebuilds");
	close(fd);

	/* Single inserts up to n: one rebuild per doubling, 16 -> 4096. */
	fd = create_map(8, 8, n, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		goto out;
	for (i = 0; i < n; i++) {
		key = fake_ip(i);
		val = i;
		t = skel->bss->tables;
		if (!ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST),
			       "insert"))
			goto out;
		if (skel->bss->tables != t && nr_grow < ARRAY_SIZE(grow_at))
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
		t = skel->bss->tables;
		for (i = 0; i < 20 && i < grow_at[j] / 2; i++) {
			key = i ? fake_ip(n + i - 1) : fake_ip(0);
			ASSERT_OK(bpf_map_delete_elem(fd, &key), "churn_delete");
			key = fake_ip(n + i);
			ASSERT_OK(bpf_map_update_elem(fd, &key, &val, 0),
				  "churn_insert");
		}
		if (!ASSERT_LE(skel->bss->tables - t, 1, "churn_rebuilds"))
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
		t = skel->bss->tables;
		key = fake_ip(lo++);
		if (!ASSERT_OK(bpf_map_delete_elem(fd, &key), "drain"))
			goto out;
		if (skel->bss->tables == t)
			continue;
		t = skel->bss->tables;
		for (j = 0; j < 10; j++) {
			key = fake_ip(lo++);
			ASSERT_OK(bpf_map_delete_elem(fd, &key), "shrunk_delete");
			key = fake_ip(hi++);
			ASSERT_OK(bpf_map_update_elem(fd, &key, &val, 0), "shrunk_ins1");
			key = fake_ip(hi++);
			ASSERT_OK(bpf_map_update_elem(fd, &key, &val, 0), "shrunk_ins2");
		}
		if (!ASSERT_LE(skel->bss->tables - t, 1, "shrunk_churn_rebuilds"))
			printf("shrunk at %u entries\n", hi - lo - 10);
	}
out:
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	ip_cookie_probe__destroy(skel);
}

/* A batch grows the index only for keys it adds: not for duplicates,
 * invalid keys or BPF_EXIST misses, and a failed batch shrinks back.
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
	 * batch stops at the invalid key and the index shrinks back.
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

/* Nanoseconds of @runs test runs of lookup_keys over keys[]. */
static __u64 time_lookups(struct ip_cookie_probe *skel, int runs)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	int fd = bpf_program__fd(skel->progs.lookup_keys);
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	while (runs--)
		if (!ASSERT_OK(bpf_prog_test_run_opts(fd, &topts), "test_run"))
			return 0;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a.tv_sec) * 1000000000ULL + b.tv_nsec - a.tv_nsec;
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
	int fd_adv, fd_ctl;
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
	time_lookups(adv, 1);
	time_lookups(ctl, 1);
	t_adv = ~0ULL;
	t_ctl = ~0ULL;
	for (i = 0; i < 3; i++) {
		t = time_lookups(adv, 10);
		t_adv = t < t_adv ? t : t_adv;
		t = time_lookups(ctl, 10);
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

/* Load lookup_one and lookup_keys on map @fd; NULL on failure. */
static struct ip_cookie_probe *probe_on_map(int fd)
{
	struct ip_cookie_probe *skel = ip_cookie_probe__open();

	if (!ASSERT_OK_PTR(skel, "skel_open"))
		return NULL;
	if (!ASSERT_OK(bpf_map__reuse_fd(skel->maps.probe_map, fd), "reuse") ||
	    !ASSERT_OK(ip_cookie_probe__load(skel), "skel_load")) {
		ip_cookie_probe__destroy(skel);
		return NULL;
	}
	return skel;
}

/* The inlined lookup clamps its slot index when the map's creator may
 * not bypass Spectre v1 mitigations (no CAP_PERFMON), as array maps do,
 * and still finds every key.
 */
static void test_spectre_v1(void)
{
	const __u8 arsh = BPF_ALU64 | BPF_ARSH | BPF_K;
	const __u8 call = BPF_JMP | BPF_CALL;
	struct ip_cookie_probe *skel;
	int fd, prog, i, err;
	__u64 caps, key;

	/* Created by a task with CAP_PERFMON: no clamp. */
	fd = create_map(8, 8, IPC_PROBE_MAX, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		return;
	skel = probe_on_map(fd);
	close(fd);
	if (!skel)
		return;
	prog = bpf_program__fd(skel->progs.lookup_one);
	ASSERT_EQ(count_insns(prog, call, 0) + count_insns(prog, arsh, 63), 0,
		  "privileged_no_call_no_clamp");
	ip_cookie_probe__destroy(skel);

	/* Created without CAP_PERFMON (and CAP_SYS_ADMIN, which implies it). */
	err = cap_disable_effective(1ULL << CAP_PERFMON | 1ULL << CAP_SYS_ADMIN,
				    &caps);
	if (!ASSERT_OK(err, "drop_perfmon"))
		return;
	fd = create_map(8, 8, IPC_PROBE_MAX, 0);
	cap_enable_effective(caps, NULL);
	if (!ASSERT_GE(fd, 0, "create_unprivileged"))
		return;
	if (!ASSERT_OK(fill_batch(fd, 0, 5000, 0), "fill"))
		goto out_fd;
	skel = probe_on_map(fd);
	if (!skel)
		goto out_fd;
	prog = bpf_program__fd(skel->progs.lookup_one);
	/* The verifier clamps unless cpu_mitigations_off(), which also
	 * turns off the kernel's own Spectre v1 mitigation: a kernel
	 * without CONFIG_CPU_MITIGATIONS or booted with mitigations=off.
	 */
	if (spectre_v1_mitigated()) {
		ASSERT_EQ(count_insns(prog, arsh, 63), 1, "clamp_arsh");
	} else {
		printf("%s:SKIP: mitigations off: no clamp to look for\n",
		       __func__);
		test__skip();
	}
	ASSERT_EQ(count_insns(prog, call, 0), 0, "inlined");

	/* Half present, half absent keys, through the clamped lookup. */
	skel->bss->rounds = 1;
	for (i = 0; i < IPC_PROBE_KEYS; i++)
		skel->bss->keys[i] = fake_ip(i % 2 ? 4900 + i : 6000 + i);
	time_lookups(skel, 1);
	for (i = 0; i < IPC_PROBE_KEYS; i++) {
		key = i % 2 ? 4900 + i : IPC_PROBE_MISS;
		ASSERT_EQ(skel->bss->vals[i], key, "clamped_lookup");
	}
	ip_cookie_probe__destroy(skel);
out_fd:
	close(fd);
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
	struct ipc_uffd u;
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

static void *hold_thread(void *p)
{
	struct ip_cookie_probe *skel = p;

	return (void *)(long)bpf_prog_test_run_opts(bpf_program__fd(skel->progs.hold_elem),
						    NULL);
}

/* A sleepable program (hold_elem) that has looked up fake_ip(7) in a map
 * of its own and blocks in a page fault (userfaultfd) until released:
 * no RCU Tasks Trace grace period ends meanwhile.
 */
struct gp_hold {
	int fd;				/* the program's map */
	struct ip_cookie_probe *skel;
	struct ipc_uffd u;
	pthread_t thread;
	bool uffd, running;
};

/* 0 once the program is blocked; either way gp_hold_end() and then
 * gp_hold_free() undo it.
 */
static int gp_hold_begin(struct gp_hold *h)
{
	memset(h, 0, sizeof(*h));
	h->fd = create_map(8, 8, IPC_PROBE_MAX, 0);
	if (!ASSERT_GE(h->fd, 0, "create_hold") ||
	    !ASSERT_OK(fill_batch(h->fd, 0, IPC_PROBE_KEYS, 0), "fill_hold"))
		return -1;
	h->skel = probe_on_map(h->fd);
	if (!h->skel)
		return -1;
	if (!ASSERT_OK(ipc_uffd_open(&h->u), "userfaultfd"))
		return -1;
	h->uffd = true;
	h->skel->bss->hold_key = fake_ip(7);
	h->skel->bss->hold_uaddr = (__u64)(unsigned long)h->u.page;
	if (!ASSERT_OK(pthread_create(&h->thread, NULL, hold_thread, h->skel),
		       "thread"))
		return -1;
	h->running = true;
	return ASSERT_OK(ipc_uffd_wait(&h->u, 10000), "program_blocked") ? 0 : -1;
}

/* Release the program and wait for it to finish. */
static void gp_hold_end(struct gp_hold *h)
{
	void *ret = NULL;

	if (h->uffd)
		ASSERT_OK(ipc_uffd_release(&h->u), "release");
	if (h->running) {
		pthread_join(h->thread, &ret);
		ASSERT_OK((long)ret, "test_run");
	}
	if (h->uffd)
		ipc_uffd_close(&h->u);
	h->uffd = false;
}

/* The program's skeleton (its .bss holds what it saw) and map go. */
static void gp_hold_free(struct gp_hold *h)
{
	ip_cookie_probe__destroy(h->skel);
	if (h->fd >= 0)
		close(h->fd);
}

/* An element deleted, and an index replaced, while a program holds them
 * are freed only after the program is done.  The program blocks in a page
 * fault (userfaultfd) in between.  The debug VM boots with init_on_free=1:
 * memory freed early reads back as zeroes (KASAN does not check the loads
 * of JITed code).
 */
static void test_grace_period(void)
{
	struct gp_hold h;

	if (!gp_hold_begin(&h)) {
		/* Delete the key, grow the index, shrink it: what they
		 * replace would be freed early, then reused.
		 */
		ASSERT_OK(bpf_map_delete_elem(h.fd, &h.skel->bss->hold_key),
			  "delete");
		ASSERT_OK(fill_batch(h.fd, 1000, 1100, 0), "grow");
		ASSERT_OK(drain_batch(h.fd, 1000, 1100), "shrink");
		kern_sync_rcu();
		usleep(200000);
	}
	gp_hold_end(&h);
	if (!h.running)
		goto out;
	ASSERT_EQ(h.skel->bss->hold_first, 7, "value_before");
	ASSERT_EQ(h.skel->bss->hold_last, 7, "value_after_delete");
	ASSERT_EQ(h.skel->bss->hold_tbl_replaced, 1, "index_replaced");
	ASSERT_NEQ(h.skel->bss->hold_slot_first, 0, "slot_before");
	ASSERT_EQ(h.skel->bss->hold_slot_last, h.skel->bss->hold_slot_first,
		  "slot_after_replace");
out:
	gp_hold_free(&h);
}

#define SLAB_CACHES	64

/* The kmalloc caches of /proc/slabinfo: those no memory cgroup pays for
 * ("kmalloc-<size>", "kmalloc-rnd-<n>-<size>") by bytes in use, the
 * charged ones ("kmalloc-cg-<size>") by slabs.
 */
struct slab_snap {
	long long uncharged;
	int cnt;
	struct {
		char name[64];
		long long bytes, slabs, objs_per_slab, obj_size;
		bool cg;
	} c[SLAB_CACHES];
};

static int slab_sample(struct slab_snap *snap)
{
	long long active, num, size, per, pages, aslabs, slabs;
	char line[512], name[64];
	bool cg;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -errno;
	memset(snap, 0, sizeof(*snap));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lld %lld %lld %lld %lld : tunables %*d %*d %*d : slabdata %lld %lld",
			   name, &active, &num, &size, &per, &pages, &aslabs,
			   &slabs) != 8 || strncmp(name, "kmalloc-", 8))
			continue;
		cg = !strncmp(name + 8, "cg-", 3);
		if (!cg && !isdigit(name[8]) && strncmp(name + 8, "rnd-", 4))
			continue;
		if (!cg)
			snap->uncharged += active * size;
		if (snap->cnt == SLAB_CACHES)
			continue;
		snprintf(snap->c[snap->cnt].name, sizeof(snap->c[0].name), "%s",
			 name);
		snap->c[snap->cnt].bytes = active * size;
		snap->c[snap->cnt].slabs = slabs;
		snap->c[snap->cnt].objs_per_slab = per;
		snap->c[snap->cnt].obj_size = size;
		snap->c[snap->cnt++].cg = cg;
	}
	fclose(f);
	return 0;
}

/* What an uncharged kmalloc of @n bytes takes in @snap's caches (its
 * size class with the debug kernel's red zones: the cache's object size);
 * 0 above the largest class, which the page allocator serves.
 */
static long long kmalloc_footprint(const struct slab_snap *snap, long long n)
{
	static const long long sizes[] = {
		8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
	};
	char name[32];
	int i, j;

	for (i = 0; i < ARRAY_SIZE(sizes) && n > sizes[i]; i++)
		;
	if (i == ARRAY_SIZE(sizes))
		return 0;
	if (sizes[i] < 1024)
		snprintf(name, sizeof(name), "kmalloc-%lld", sizes[i]);
	else
		snprintf(name, sizeof(name), "kmalloc-%lldk", sizes[i] / 1024);
	for (j = 0; j < snap->cnt; j++)
		if (!strcmp(snap->c[j].name, name))
			return snap->c[j].obj_size;
	return sizes[i];
}

/* How much the uncharged kmalloc caches grew from @a to @b beyond what the
 * memory cgroup code itself needs for the charged slabs added meanwhile:
 * each such slab has an uncharged vector of one obj_cgroup pointer per
 * object (struct slabobj_ext, without CONFIG_MEM_ALLOC_PROFILING).
 */
static long long uncharged_growth(const struct slab_snap *a,
				  const struct slab_snap *b)
{
	long long d = b->uncharged - a->uncharged;
	int i, j;

	for (i = 0; i < b->cnt; i++) {
		if (!b->c[i].cg)
			continue;
		for (j = 0; j < a->cnt; j++)
			if (!strcmp(a->c[j].name, b->c[i].name) &&
			    b->c[i].slabs > a->c[j].slabs)
				d -= (b->c[i].slabs - a->c[j].slabs) *
				     kmalloc_footprint(b, b->c[i].objs_per_slab *
						       sizeof(void *));
	}
	return d;
}

/* Print the caches that grew from @a to @b. */
static void slab_growth(const struct slab_snap *a, const struct slab_snap *b)
{
	int i, j;

	for (i = 0; i < b->cnt; i++)
		for (j = 0; j < a->cnt; j++)
			if (!strcmp(a->c[j].name, b->c[i].name) &&
			    b->c[i].bytes != a->c[j].bytes)
				printf("  %s: %+lld bytes, %+lld slabs\n",
				       b->c[i].name,
				       b->c[i].bytes - a->c[j].bytes,
				       b->c[i].slabs - a->c[j].slabs);
}

#define MILLION_KEYS	10000
#define MILLION_ROUNDS	100
/* Room under memory.max for the replaced elements that wait. */
#define MILLION_ROOM	(24 << 20)
/* What kmalloc outside any cgroup may grow by meanwhile: other activity
 * (the debug kernel's KASAN keeps freed objects in quarantine, so every
 * syscall's temporary allocations count: about 1 KiB a batch).
 */
#define MILLION_SLACK	(2 << 20)

struct million_res {
	__u32 nomem;		/* batches that failed with -ENOMEM */
	__u32 done;		/* replaces that succeeded */
};

/* In a child in the cgroup open at @cgfd, while no grace period can end:
 * a million replaces, 100 batches over the same 10,000 keys, with room for
 * 24 MB more under memory.max.  Each replaced element waits on the deferred
 * free list, so the cgroup fills: each batch succeeds or stops with
 * -ENOMEM, and every key holds the value of the last batch that reached
 * it.  Writes a byte to @wfd once the limit is set.  Exit 0 if so, else a
 * code for what failed.
 */
static int replace_million_child(int cgfd, int wfd, struct million_res *res)
{
	static __u64 keys[MILLION_KEYS], vals[MILLION_KEYS];
	static __u32 last[MILLION_KEYS];
	__u32 i, r, n;
	int fd, mfd, err;
	long long cur;
	__u64 v;

	mfd = memcg_child_join(cgfd);
	if (mfd < 0)
		return 10;
	fd = create_map(8, 8, MILLION_KEYS, 0);
	for (i = 0; i < MILLION_KEYS; i++)
		keys[i] = fake_ip(i);
	n = MILLION_KEYS;
	if (fd < 0 || bpf_map_update_batch(fd, keys, vals, &n, NULL))
		return 11;
	/* Touch what the loop uses first: at the limit a page fault of the
	 * test itself would invoke the cgroup's OOM killer.  Nothing after
	 * this opens a file.
	 */
	memset(last, 0, sizeof(last));
	cur = memcg_settled(cgfd);
	if (cur < 0 || memcg_set_max(mfd, cur + MILLION_ROOM))
		return 12;
	if (write(wfd, "", 1) != 1)
		return 12;
	for (r = 1; r <= MILLION_ROUNDS; r++) {
		for (i = 0; i < MILLION_KEYS; i++)
			vals[i] = (__u64)r << 32 | i;
		n = MILLION_KEYS;
		err = bpf_map_update_batch(fd, keys, vals, &n, NULL);
		if (err && err != -ENOMEM)
			return 13;
		if (err)
			res->nomem++;
		for (i = 0; i < n && i < MILLION_KEYS; i++)
			last[i] = r;
		res->done += n;
	}
	if (memcg_set_max(mfd, LLONG_MAX))
		return 12;
	for (i = 0; i < MILLION_KEYS; i++) {
		if (bpf_map_lookup_elem(fd, &keys[i], &v) ||
		    v != (last[i] ? (__u64)last[i] << 32 | i : 0)) {
			dprintf(STDERR_FILENO,
				"replace_million: key %u: %llx, last batch %u\n",
				i, (unsigned long long)v, last[i]);
			return 14;
		}
	}
	close(fd);
	return 0;
}

/* A million replaces in a memory cgroup while a sleepable program holds
 * off the grace periods (it blocks in a page fault): every replaced
 * element and the deferred free list that holds it are charged to the
 * map's cgroup, so the replaces fail with -ENOMEM once it is full, with
 * no OOM kill, and kmalloc memory that no cgroup pays for (sampled here,
 * outside the cgroup) does not grow with them.
 */
static void test_replace_million(void)
{
	int status = 0, err, cgfd = -1, pfd[2] = { -1, -1 };
	static struct slab_snap snap_base, snap_now, snap_peak;
	__u64 start = get_time_ns(), took;
	struct million_res res = {};
	long long outside = 0;
	struct gp_hold h;
	int base = -1;
	pid_t pid;
	char c;

	err = setup_cgroup_environment();
	if (!ASSERT_OK(err, "cgroup_setup"))
		return;
	cgfd = create_and_get_cgroup("/ip_cookie_million");
	if (!ASSERT_GE(cgfd, 0, "cgroup_create") ||
	    !ASSERT_OK(pipe(pfd), "pipe"))
		goto out;
	if (gp_hold_begin(&h))
		goto out_hold;

	pid = fork();
	if (!ASSERT_GE(pid, 0, "fork"))
		goto out_hold;
	if (pid == 0) {
		close(pfd[0]);
		alarm(300);
		status = replace_million_child(cgfd, pfd[1], &res);
		if (write(pfd[1], &res, sizeof(res)) != sizeof(res))
			status = 16;
		_exit(status);
	}
	/* A child killed before it writes leaves the pipe empty: EOF. */
	close(pfd[1]);
	pfd[1] = -1;
	if (read(pfd[0], &c, 1) == 1) {
		base = slab_sample(&snap_base);
		start = get_time_ns();
		while (waitpid(pid, &status, WNOHANG) == 0) {
			if (!base && !slab_sample(&snap_now) &&
			    uncharged_growth(&snap_base, &snap_now) > outside) {
				outside = uncharged_growth(&snap_base, &snap_now);
				snap_peak = snap_now;
			}
			/* Each sample's buffers stay in KASAN's quarantine */
			usleep(200000);
		}
	} else {
		waitpid(pid, &status, 0);
	}
	took = get_time_ns() - start;
	if (!ASSERT_FALSE(WIFSIGNALED(status), "child_not_killed"))
		printf("%s: child killed by signal %d\n", __func__,
		       WTERMSIG(status));
	else
		ASSERT_EQ(WEXITSTATUS(status), 0, "child_consistent");
	if (ASSERT_EQ(read(pfd[0], &res, sizeof(res)), sizeof(res), "result")) {
		ASSERT_GT(res.nomem, 0, "cgroup_filled");
		ASSERT_GT(res.done, 0, "replaces_done");
		ASSERT_OK(base, "slabinfo");
		if (!ASSERT_LT(outside, MILLION_SLACK, "uncharged_growth"))
			slab_growth(&snap_base, &snap_peak);
		if (env.verbosity > VERBOSE_NONE)
			printf("%s: %u replaces done, %u batches -ENOMEM, uncharged kmalloc +%lld bytes at most, %.1f s\n",
			       __func__, res.done, res.nomem, outside,
			       took / 1e9);
	}
	ASSERT_EQ(memcg_event(cgfd, "oom"), 0, "memory.events_oom");
	ASSERT_EQ(memcg_event(cgfd, "oom_kill"), 0, "memory.events_oom_kill");
out_hold:
	gp_hold_end(&h);
	gp_hold_free(&h);
out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (cgfd >= 0)
		close(cgfd);
	cleanup_cgroup_environment();
}

/* Wait until the map of id @id is gone: its last reference was dropped */
static bool map_gone(__u32 id)
{
	int i, fd;

	for (i = 0; i < 100; i++) {
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			return fd == -ENOENT;
		close(fd);
		kern_sync_rcu();
		usleep(10000);
	}
	return false;
}

static __u32 map_id(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_map_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* Looks keys fake_ip(0..63) up through @skel: all found with their index */
static bool probe_finds_all(struct ip_cookie_probe *skel)
{
	int i;

	skel->bss->rounds = 1;
	for (i = 0; i < IPC_PROBE_KEYS; i++)
		skel->bss->keys[i] = fake_ip(i);
	if (!time_lookups(skel, 1))
		return false;
	for (i = 0; i < IPC_PROBE_KEYS; i++)
		if (skel->bss->vals[i] != i)
			return false;
	return true;
}

struct swap_ctx {
	int outer;
	bool stop;	/* accessed with __atomic builtins */
	int swaps;	/* accessed with __atomic builtins */
	int err;
};

/* Replace inner map 0 by a new one, valued 1000 + j or 2000 + j as
 * @swaps is even or odd: the map replaced is freed while programs may
 * look into it.
 */
static int swap_inner(int outer, int swaps)
{
	__u32 zero = 0;
	__u64 ip, val;
	int fd, j, err = 0;

	fd = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_inner", sizeof(__u64),
			    sizeof(__u64), 64, NULL);
	if (fd < 0)
		return fd;
	for (j = 0; j < NR_FUNCS && !err; j++) {
		ip = ksym_get_addr(fentry_funcs[j]);
		val = (swaps % 2 + 1) * 1000 + j;
		err = bpf_map_update_elem(fd, &ip, &val, BPF_NOEXIST);
	}
	if (!err)
		err = bpf_map_update_elem(outer, &zero, &fd, BPF_ANY);
	close(fd);
	return err;
}

static void *inner_swapper(void *arg)
{
	struct swap_ctx *c = arg;

	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED) && !c->err) {
		c->err = swap_inner(c->outer, c->swaps);
		__atomic_add_fetch(&c->swaps, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Inner maps replaced, and freed, while a program looks into them: every
 * lookup finds one of the two sets of values, none misses.
 */
static void lifetime_inner_swap(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct swap_ctx c = {};
	struct bpf_link *link = NULL;
	struct ip_cookie *skel;
	__u64 runs = 0, rest;
	pthread_t thread;
	bool started = false;
	int i;

	skel = ip_cookie__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->pid = getpid();
	c.outer = bpf_map__fd(skel->maps.outer_map);
	if (!ASSERT_OK(load_kallsyms(), "load_kallsyms"))
		goto out;
	/* Slot 0 filled before the program runs; slot 1 stays empty. */
	if (!ASSERT_OK(swap_inner(c.outer, 0), "first_inner"))
		goto out;
	opts.syms = (const char **)fentry_funcs;
	opts.cnt = NR_FUNCS;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.ipc_inner,
						     NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach") ||
	    !ASSERT_OK(pthread_create(&thread, NULL, inner_swapper, &c), "thread"))
		goto out;
	started = true;
	/* Each replacement waits for an RCU grace period: slow when emulated */
	for (i = 0; i < 100 ||
	     (__atomic_load_n(&c.swaps, __ATOMIC_RELAXED) < 3 && i < 5000);
	     i++, runs++)
		trigger_fentry_tests(skel);
out:
	if (started) {
		__atomic_store_n(&c.stop, true, __ATOMIC_RELAXED);
		pthread_join(thread, NULL);
		ASSERT_OK(c.err, "swapper");
		ASSERT_GE(c.swaps, 2, "swaps");
		/* Each hit adds 1000 + j or 2000 + j: what is left over the
		 * 1000s must be the sum of j.
		 */
		ASSERT_EQ(skel->bss->inner_missed[0], 0, "inner_missed");
		rest = skel->bss->inner_sum[0] - runs * NR_FUNCS * (NR_FUNCS - 1) / 2;
		ASSERT_EQ(rest % 1000, 0, "values_of_one_map");
		ASSERT_GE(rest / 1000, runs * NR_FUNCS, "values_low");
		ASSERT_LE(rest / 1000, 2 * runs * NR_FUNCS, "values_high");
	}
	bpf_link__destroy(link);
	ip_cookie__destroy(skel);
}

/* Who keeps a map: programs, after every fd is closed; a pin, after the
 * fds; and a map resizing while programs that use it load and unload, and
 * while inner maps are replaced under a program, loses nothing.  KASAN and
 * kmemleak watch the frees.
 */
static void test_lifetimes(void)
{
	const char *pin = "/sys/fs/bpf/ipc_lifetime";
	struct resize_ctx ctx = { .fd = -1 };
	struct ip_cookie_probe *skel;
	bool started = false;
	pthread_t thread;
	int fd, nfd, i;
	__u32 id;

	/* Held by the program only */
	fd = create_map(8, 8, IPC_PROBE_MAX, 0);
	if (!ASSERT_GE(fd, 0, "create") ||
	    !ASSERT_OK(fill_batch(fd, 0, IPC_PROBE_KEYS, 0), "fill"))
		return;
	id = map_id(fd);
	skel = probe_on_map(fd);
	close(fd);
	if (!skel)
		return;
	/* Swap the skeleton's own map fd for /dev/null: libbpf closes that */
	nfd = open("/dev/null", O_RDONLY);
	if (ASSERT_GE(nfd, 0, "devnull")) {
		dup2(nfd, bpf_map__fd(skel->maps.probe_map));
		close(nfd);
	}
	kern_sync_rcu();
	ASSERT_TRUE(probe_finds_all(skel), "no_fd_lookups");
	ip_cookie_probe__destroy(skel);
	ASSERT_TRUE(map_gone(id), "freed_with_program");

	/* Held by a pin only */
	fd = create_map(8, 8, IPC_PROBE_MAX, 0);
	if (!ASSERT_GE(fd, 0, "create") ||
	    !ASSERT_OK(fill_batch(fd, 0, 1000, 0), "fill"))
		return;
	id = map_id(fd);
	unlink(pin);
	ASSERT_OK(bpf_obj_pin(fd, pin), "pin");
	close(fd);
	fd = bpf_obj_get(pin);
	if (ASSERT_GE(fd, 0, "obj_get")) {
		ASSERT_EQ(walk_count(fd), 1000, "pinned_contents");
		close(fd);
	}
	ASSERT_OK(unlink(pin), "unpin");
	ASSERT_TRUE(map_gone(id), "freed_with_pin");

	/* Programs loaded and unloaded while the index is rebuilt */
	ctx.fd = create_map(8, 8, IPC_PROBE_MAX, 0);
	if (!ASSERT_GE(ctx.fd, 0, "create") ||
	    !ASSERT_OK(fill_batch(ctx.fd, 0, IPC_PROBE_KEYS, 0), "fill") ||
	    !ASSERT_OK(pthread_create(&thread, NULL, resizer, &ctx), "thread"))
		goto out;
	started = true;
	for (i = 0; i < 10; i++) {
		skel = probe_on_map(ctx.fd);
		if (!skel)
			break;
		ASSERT_TRUE(probe_finds_all(skel), "lookups_while_resizing");
		ip_cookie_probe__destroy(skel);
	}
out:
	if (started) {
		__atomic_store_n(&ctx.stop, true, __ATOMIC_RELAXED);
		pthread_join(thread, NULL);
		ASSERT_OK(ctx.err, "resizer");
	}
	if (ctx.fd >= 0)
		close(ctx.fd);
	lifetime_inner_swap();
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

#define SYM_MAX_ADDRS	16

/* The oracle: distinct addresses of the text symbols called @name in
 * /proc/kallsyms, of module @mod unless NULL, up to @max of them in @addrs.
 * Returns how many there are.
 */
static int kallsyms_addrs(const char *mod, const char *name, __u64 *addrs,
			  int max)
{
	char line[640], sym[512], col[80];
	unsigned long long addr;
	int n = 0, i, k;
	char type;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		col[0] = '\0';
		k = sscanf(line, "%llx %c %511s %79s", &addr, &type, sym, col);
		if (k < 3 || !strchr("tTW", type) || strcmp(sym, name))
			continue;
		/* col is "[mod]" */
		if (mod && (strlen(col) != strlen(mod) + 2 ||
			    strncmp(col + 1, mod, strlen(mod))))
			continue;
		for (i = 0; i < n && i < max; i++)
			if (addrs[i] == addr)
				break;
		if (i < n && i < max)
			continue;
		if (n < max)
			addrs[n] = addr;
		n++;
	}
	fclose(f);
	return n;
}

struct text_sym {
	char *name;
	__u64 addr;
};

static int text_sym_cmp(const void *a, const void *b)
{
	const struct text_sym *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A text symbol name that several functions share: probes_open (trace_kprobe.c
 * and trace_uprobe.c), or else the first such name in /proc/kallsyms.
 */
static int find_dup_name(char *name, size_t size)
{
	struct text_sym *syms = NULL, *tmp;
	char line[640], sym[512];
	unsigned long long addr;
	size_t n = 0, cap = 0, i;
	int err = -ENOENT;
	__u64 addrs[2];
	char type;
	FILE *f;

	if (kallsyms_addrs(NULL, "probes_open", addrs, 2) >= 2) {
		snprintf(name, size, "probes_open");
		return 0;
	}
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %511s", &addr, &type, sym) != 3 ||
		    !strchr("tTW", type))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			tmp = realloc(syms, cap * sizeof(*syms));
			if (!tmp)
				break;
			syms = tmp;
		}
		syms[n].name = strdup(sym);
		syms[n].addr = addr;
		if (syms[n].name)
			n++;
	}
	fclose(f);
	qsort(syms, n, sizeof(*syms), text_sym_cmp);
	for (i = 1; i < n && err; i++) {
		if (!strcmp(syms[i].name, syms[i - 1].name) &&
		    syms[i].addr != syms[i - 1].addr) {
			snprintf(name, size, "%s", syms[i].name);
			err = 0;
		}
	}
	for (i = 0; i < n; i++)
		free(syms[i].name);
	free(syms);
	return err;
}

static char sh_out[1 << 16];

/* Run a shell command; its output (stdout and stderr) is left in sh_out.
 * Returns its exit status, -1 if it did not exit.
 */
static int __printf(1, 2) run_sh(const char *fmt, ...)
{
	size_t len = 0, n;
	char cmd[1024];
	va_list ap;
	FILE *f;
	int st;

	sh_out[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
	va_end(ap);
	strcat(cmd, " 2>&1");
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (len < sizeof(sh_out) - 1 &&
	       (n = fread(sh_out + len, 1, sizeof(sh_out) - 1 - len, f)) > 0)
		len += n;
	sh_out[len] = '\0';
	st = pclose(f);
	if (env.verbosity > VERBOSE_NONE)
		printf("$ %s\n%s", cmd, sh_out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The map holds exactly @key, of @size bytes */
static void expect_only_key(int fd, const void *key, __u32 size,
			    const char *name)
{
	char got[16], next[16];

	if (!ASSERT_OK(bpf_map_get_next_key(fd, NULL, got), name))
		return;
	ASSERT_OK(memcmp(got, key, size), name);
	ASSERT_ERR(bpf_map_get_next_key(fd, got, next), name);
}

/* "key sym @sym" fails with @msg and adds nothing to the empty map @fd */
static void expect_sym_error(const char *bpftool, int fd, const char *sym,
			     const char *msg, const char *name)
{
	__u64 key;

	ASSERT_NEQ(run_sh("%s map update id %u key sym %s value hex 2a 00 00 00 00 00 00 00",
			  bpftool, map_id(fd), sym), 0, name);
	ASSERT_HAS_SUBSTR(sh_out, msg, name);
	ASSERT_ERR(bpf_map_get_next_key(fd, NULL, &key), name);
}

static int set_kptr_restrict(const char *val)
{
	int fd, n;

	fd = open("/proc/sys/kernel/kptr_restrict", O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (int)strlen(val) ? 0 : -EIO;
}

/* Addresses hidden by kptr_restrict: "key sym" fails and says why, dumps
 * of the map @btf8 holding @ip go on without the name.
 */
static void bpftool_sym_hidden(const char *bpftool, int fd8, int btf8,
			       __u64 ip)
{
	char want[64], saved[16];
	bool got;
	FILE *f;
	int err;

	f = fopen("/proc/sys/kernel/kptr_restrict", "r");
	if (!ASSERT_OK_PTR(f, "kptr_restrict"))
		return;
	got = !!fgets(saved, sizeof(saved), f);
	fclose(f);
	if (!ASSERT_TRUE(got, "kptr_restrict_read") ||
	    !ASSERT_OK(set_kptr_restrict("2"), "kptr_restrict_2"))
		return;
	expect_sym_error(bpftool, fd8, "vfs_read",
			 "/proc/kallsyms shows no addresses", "hidden");
	err = run_sh("%s map dump id %u", bpftool, map_id(btf8));
	ASSERT_OK(set_kptr_restrict(saved), "kptr_restrict_restore");
	ASSERT_EQ(err, 0, "hidden_dump");
	snprintf(want, sizeof(want), "\"ip\": \"0x%llx\"", ip);
	ASSERT_HAS_SUBSTR(sh_out, want, "hidden_dump_ip");
	ASSERT_HAS_SUBSTR(sh_out, "shown without symbols", "hidden_dump_msg");
}

/* bpftool's "key sym [MODULE:]NAME [link LINK]" takes the address of the
 * function in /proc/kallsyms, and dumps show the function of each key.
 */
static void test_bpftool_sym(void)
{
	const char *val = "value hex 2a 00 00 00 00 00 00 00";
	struct bpf_ip_cookie_key k16 = { .link_id = 7 };
	__u64 ip, key, addrs[SYM_MAX_ADDRS], v = 0;
	int fd8, fd16, btf8, btf16, n, i;
	char want[640], dup[512];
	struct ip_cookie *skel;
	const char *bpftool;

	bpftool = access("./bpftool", X_OK) ? "bpftool" : "./bpftool";
	if (!ASSERT_EQ(kallsyms_addrs(NULL, "vfs_read", &ip, 1), 1, "vfs_read") ||
	    !ASSERT_NEQ(ip, 0, "vfs_read_ip"))
		return;
	skel = ip_cookie__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	btf8 = bpf_map__fd(skel->maps.ip_map);
	btf16 = bpf_map__fd(skel->maps.link_keyed_map);
	fd8 = create_map(8, 8, 4, 0);
	fd16 = create_map(16, 8, 4, 0);
	if (!ASSERT_GE(fd8, 0, "create8") || !ASSERT_GE(fd16, 0, "create16"))
		goto out;

	/* 8-byte keys, with BTF: the key is the kallsyms address */
	ASSERT_EQ(run_sh("%s map update id %u key sym vfs_read %s", bpftool,
			 map_id(btf8), val), 0, "update8_btf");
	expect_only_key(btf8, &ip, 8, "key8_btf");
	ASSERT_OK(bpf_map_lookup_elem(btf8, &ip, &v), "lookup8_btf");
	ASSERT_EQ(v, 42, "value8_btf");
	snprintf(want, sizeof(want), "\"ip\": \"0x%llx <vfs_read>\"", ip);
	ASSERT_EQ(run_sh("%s map dump id %u", bpftool, map_id(btf8)), 0,
		  "dump8_btf");
	ASSERT_HAS_SUBSTR(sh_out, want, "dump8_btf_ip");
	ASSERT_EQ(run_sh("%s map lookup id %u key sym vfs_read", bpftool,
			 map_id(btf8)), 0, "lookup8_btf_sym");
	ASSERT_HAS_SUBSTR(sh_out, want, "lookup8_btf_ip");
	ASSERT_HAS_SUBSTR(sh_out, "\"value\": 42", "lookup8_btf_value");
	ASSERT_EQ(run_sh("%s -j map dump id %u", bpftool, map_id(btf8)), 0,
		  "json8_btf");
	ASSERT_HAS_SUBSTR(sh_out, "\"sym\":\"vfs_read\"", "json8_btf_sym");

	/* Without BTF, then deleted by name */
	ASSERT_EQ(run_sh("%s map update id %u key sym vfs_read %s", bpftool,
			 map_id(fd8), val), 0, "update8");
	expect_only_key(fd8, &ip, 8, "key8");
	snprintf(want, sizeof(want), "\nip: 0x%llx <vfs_read>\n", ip);
	ASSERT_EQ(run_sh("%s map dump id %u", bpftool, map_id(fd8)), 0, "dump8");
	ASSERT_HAS_SUBSTR(sh_out, want, "dump8_ip");
	ASSERT_EQ(run_sh("%s -j map dump id %u", bpftool, map_id(fd8)), 0,
		  "json8");
	ASSERT_HAS_SUBSTR(sh_out, "\"sym\":\"vfs_read\"", "json8_sym");
	ASSERT_EQ(run_sh("%s map delete id %u key sym vfs_read", bpftool,
			 map_id(fd8)), 0, "delete8");
	ASSERT_ERR(bpf_map_get_next_key(fd8, NULL, &key), "deleted8");

	/* 16-byte keys take the link ID too */
	k16.ip = ip;
	ASSERT_EQ(run_sh("%s map update id %u key sym vfs_read link id 7 %s",
			 bpftool, map_id(btf16), val), 0, "update16_btf");
	expect_only_key(btf16, &k16, 16, "key16_btf");
	snprintf(want, sizeof(want), "\"ip\": \"0x%llx <vfs_read>\"", ip);
	ASSERT_EQ(run_sh("%s map dump id %u", bpftool, map_id(btf16)), 0,
		  "dump16_btf");
	ASSERT_HAS_SUBSTR(sh_out, want, "dump16_btf_ip");
	ASSERT_HAS_SUBSTR(sh_out, "\"link_id\": 7,", "dump16_btf_link");
	ASSERT_EQ(run_sh("%s map update id %u key sym vfs_read link id 7 %s",
			 bpftool, map_id(fd16), val), 0, "update16");
	expect_only_key(fd16, &k16, 16, "key16");
	snprintf(want, sizeof(want), "\nip: 0x%llx <vfs_read>  link_id: 7\n", ip);
	ASSERT_EQ(run_sh("%s map dump id %u", bpftool, map_id(fd16)), 0,
		  "dump16");
	ASSERT_HAS_SUBSTR(sh_out, want, "dump16_ip");
	ASSERT_EQ(run_sh("%s -j map dump id %u", bpftool, map_id(fd16)), 0,
		  "json16");
	ASSERT_HAS_SUBSTR(sh_out, "\"sym\":\"vfs_read\"", "json16_sym");
	ASSERT_NEQ(run_sh("%s map update id %u key sym vfs_write %s", bpftool,
			  map_id(fd16), val), 0, "update16_nolink");
	ASSERT_HAS_SUBSTR(sh_out, "need a link", "update16_nolink_msg");

	/* Names of no function, or of several */
	expect_sym_error(bpftool, fd8, "ipc_no_such_function", "not found",
			 "unknown_name");
	expect_sym_error(bpftool, fd8, "ipc_no_such_module:vfs_read",
			 "no symbols of module ipc_no_such_module",
			 "unknown_module");
	if (ASSERT_OK(find_dup_name(dup, sizeof(dup)), "dup_name")) {
		n = kallsyms_addrs(NULL, dup, addrs, SYM_MAX_ADDRS);
		snprintf(want, sizeof(want), "%s has %d instances", dup, n);
		expect_sym_error(bpftool, fd8, dup, want, "dup");
		ASSERT_HAS_SUBSTR(sh_out, "key hex", "dup_hint");
		/* with the addresses, the first eight of them */
		for (i = 0; i < n && i < 8 && i < SYM_MAX_ADDRS; i++) {
			snprintf(want, sizeof(want), "0x%llx", addrs[i]);
			ASSERT_HAS_SUBSTR(sh_out, want, "dup_addr");
		}
	}

	bpftool_sym_hidden(bpftool, fd8, btf8, ip);

	/* MODULE:NAME, last: without bpf_testmod only this part is skipped */
	if (kallsyms_addrs("bpf_testmod", "bpf_testmod_test_read", addrs, 1) != 1) {
		printf("%s:SKIP: no bpf_testmod_test_read in /proc/kallsyms\n",
		       __func__);
		test__skip();
		goto out;
	}
	expect_sym_error(bpftool, fd8, "vmlinux:bpf_testmod_test_read",
			 "not found", "module_not_vmlinux");
	ASSERT_EQ(run_sh("%s map update id %u key sym bpf_testmod:bpf_testmod_test_read %s",
			 bpftool, map_id(fd8), val), 0, "update_mod");
	expect_only_key(fd8, &addrs[0], 8, "key_mod");
	snprintf(want, sizeof(want),
		 "\nip: 0x%llx <bpf_testmod_test_read [bpf_testmod]>\n",
		 addrs[0]);
	ASSERT_EQ(run_sh("%s map dump id %u", bpftool, map_id(fd8)), 0,
		  "dump_mod");
	ASSERT_HAS_SUBSTR(sh_out, want, "dump_mod_ip");
	ASSERT_EQ(run_sh("%s -j map dump id %u", bpftool, map_id(fd8)), 0,
		  "json_mod");
	ASSERT_HAS_SUBSTR(sh_out,
			  "\"sym\":\"bpf_testmod_test_read\",\"module\":\"bpf_testmod\"",
			  "json_mod_sym");
out:
	if (fd8 >= 0)
		close(fd8);
	if (fd16 >= 0)
		close(fd16);
	ip_cookie__destroy(skel);
}

void test_ip_cookie(void)
{
	if (test__start_subtest("bad_attrs"))
		test_bad_attrs();
	if (test__start_subtest("syscall_ops"))
		test_syscall_ops();
	if (test__start_subtest("fd_access"))
		test_fd_access();
	if (test__start_subtest("link_keys"))
		test_link_keys();
	if (test__start_subtest("batch"))
		test_batch();
	if (test__start_subtest("grow_shrink"))
		test_grow_shrink();
	if (test__start_subtest("replace_memcg"))
		test_replace_memcg();
	if (test__start_subtest("replace_million"))
		test_replace_million();
	if (test__start_subtest("memcg_limit"))
		test_memcg_limit();
	if (test__start_subtest("single_resize"))
		test_single_resize();
	if (test__start_subtest("walk_during_resize"))
		test_walk_during_resize();
	if (test__start_subtest("enomem_unchanged"))
		test_enomem_unchanged();
	if (test__start_subtest("faults"))
		test_faults();
	if (test__start_subtest("prog_types"))
		test_prog_types();
	if (test__start_subtest("writes_survive_resize"))
		test_writes_survive_resize();
	if (test__start_subtest("inner_map"))
		test_inner_map();
	if (test__start_subtest("bpftool_dump"))
		test_bpftool_dump();
	if (test__start_subtest("bpftool_sym"))
		test_bpftool_sym();
	if (test__start_subtest("rebuild_thresholds"))
		test_rebuild_thresholds();
	if (test__start_subtest("batch_overgrowth"))
		test_batch_overgrowth();
	if (test__start_subtest("probe_bound"))
		test_probe_bound();
	if (test__start_subtest("zero_seed_perm"))
		test_zero_seed_perm();
	if (test__start_subtest("zero_seed_fixed"))
		test_zero_seed_fixed();
	if (test__start_subtest("golden_hash"))
		test_golden_hash();
	if (test__start_subtest("spectre_v1"))
		test_spectre_v1();
	if (test__start_subtest("batch_fault"))
		test_batch_fault();
	if (test__start_subtest("cache_lines"))
		test_cache_lines();
	if (test__start_subtest("grace_period"))
		test_grace_period();
	if (test__start_subtest("lifetimes"))
		test_lifetimes();
	if (test__start_subtest("perf_event_nmi"))
		test_perf_event_nmi();
}

void test_ip_cookie_verifier(void)
{
	RUN_TESTS(ip_cookie_fail);
}

/* Kernel log lines from the open /dev/kmsg @fd (non-blocking) that
 * report a soft lockup; the rest is skipped.
 */
static int soft_lockups(int fd)
{
	char rec[1024];
	int n = 0;
	ssize_t len;

	while ((len = read(fd, rec, sizeof(rec) - 1)) > 0 || errno == EPIPE) {
		if (len <= 0)
			continue;	/* records overwritten meanwhile */
		rec[len] = 0;
		if (strstr(rec, "soft lockup")) {
			printf("%s", rec);
			n++;
		}
	}
	return n;
}

/* Rebuilds of an index of up to 2^21 slots, then the free of a map with
 * 1M entries, on a kernel without preemption (the debug kernel is
 * PREEMPT_NONE) and with the soft-lockup watchdog at its shortest (it
 * reports a CPU that has not scheduled for 2 s): both reschedule.
 */
static void free_full(__u32 max, __u32 step)
{
	long long slack = 64LL * getpagesize() * libbpf_num_possible_cpus();
	long long cg_before, cg_after = -1;
	int fd, cgfd, kfd = -1;
	char thresh[16] = "";
	__u32 i, id;
	FILE *f;

	/* The free runs in a work item: it is over when the cgroup of the
	 * map's creator has its charges back.
	 */
	cgfd = cgroup_setup_and_join("/ip_cookie_free");
	if (!ASSERT_GE(cgfd, 0, "memcg_join"))
		return;
	f = fopen("/proc/sys/kernel/watchdog_thresh", "r");
	if (!ASSERT_OK_PTR(f, "watchdog_thresh"))
		goto out;
	if (!fgets(thresh, sizeof(thresh), f))
		thresh[0] = 0;
	fclose(f);
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (!ASSERT_OK_FD(kfd, "kmsg") || !ASSERT_NEQ(thresh[0], 0, "thresh") ||
	    lseek(kfd, 0, SEEK_END) < 0 ||
	    write_sysctl("/proc/sys/kernel/watchdog_thresh", "1"))
		goto out;
	cg_before = memcg_settled(cgfd);
	fd = create_map(8, 8, max, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		goto out;
	for (i = 0; i < max; i += step)
		if (!ASSERT_OK(fill_batch(fd, i, i + step, 0), "grow"))
			break;
	id = map_id(fd);
	close(fd);
	ASSERT_TRUE(map_gone(id), "map_released");
	/* A million kfree()s take about a minute on the debug kernel under
	 * emulation, with memory.current still between stretches.
	 */
	for (i = 0; i < 150; i++) {
		kern_sync_rcu();
		cg_after = memcg_settled(cgfd);
		if (cg_after - cg_before <= slack)
			break;
	}
	ASSERT_LE(cg_after - cg_before, slack, "map_freed");
	ASSERT_EQ(soft_lockups(kfd), 0, "soft_lockups");
out:
	if (thresh[0])
		write_sysctl("/proc/sys/kernel/watchdog_thresh", thresh);
	if (kfd >= 0)
		close(kfd);
	close(cgfd);
	cleanup_cgroup_environment();
}

/* The large-scale check: batch operations only, so that it takes minutes,
 * not hours, on a kernel with KASAN and kmemleak.  Serial: free_full_1m
 * shortens the soft-lockup threshold for its duration.
 */
void serial_test_ip_cookie_scale(void)
{
	if (test__start_subtest("grow_shrink_100k"))
		grow_shrink(100000, 5000);
	if (test__start_subtest("grow_shrink_1m"))
		grow_shrink(1000000, 50000);
	if (test__start_subtest("free_full_1m"))
		free_full(1000000, 50000);
}
