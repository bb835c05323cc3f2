// SPDX-License-Identifier: GPL-2.0
/* BPF_MAP_TYPE_IP_COOKIE under failed allocations (failslab and
 * fail_page_alloc, for this task only): every update, delete, batch and
 * map creation that fails says -ENOMEM and leaves the map as it was, or
 * with exactly the part of a batch it reports done.  Serial: the
 * fault-injection attributes are global.
 */
#include <test_progs.h>
#include "ip_cookie_helpers.h"
#include "ip_cookie_kconfig.skel.h"

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
		if (!ASSERT_FALSE(kernel_config().CONFIG_FAILSLAB == 'y',
				  "failslab_missing"))
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
		if (!ASSERT_OK(fault_inject(ffd, FAILSLAB, space), "failslab"))
			goto out;
		err = bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST);
		fault_inject(ffd, FAILSLAB, -1);
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
		if (!ASSERT_OK(fault_inject(ffd, FAILSLAB, space), "failslab"))
			goto out;
		err = bpf_map_delete_elem(fd, &key);
		fault_inject(ffd, FAILSLAB, -1);
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
	fault_inject(ffd, FAILSLAB, -1);
	close(fd);
out_ffd:
	close(ffd);
}

/* Batch updates and deletes of @m keys next to @n others fail, under
 * growing fault budgets of @step, until they succeed: each failure is
 * -ENOMEM and leaves exactly the first @count entries of the batch done.
 * Returns the failures seen in the update batches, in @pre those that
 * failed before any entry went in (the batch's own buffers, or its first
 * element).
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
		if (!ASSERT_OK(fault_inject(ffd, dir, space), "inject"))
			goto out;
		err = bpf_map_update_batch(fd, keys, vals, &cnt, &opts);
		fault_inject(ffd, dir, -1);
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
		if (!ASSERT_OK(fault_inject(ffd, dir, space), "inject"))
			goto out;
		err = bpf_map_delete_batch(fd, keys, &cnt, NULL);
		fault_inject(ffd, dir, -1);
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
	fault_inject(ffd, dir, -1);
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
		if (!ASSERT_OK(fault_inject(ffd, dir, space), "inject"))
			return -1;
		fd = create_map(8, 8, max, 0);
		fault_inject(ffd, dir, -1);
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

/* Failed slab and page allocations in batches (the generic batch ops:
 * their buffers, then entries one at a time, growing the index in the
 * middle of a batch, and deletes that shrink it) and in map creation.
 * Tables past the kmalloc costly order come from vmalloc, which only page
 * faults reach; every page allocation takes at least a page of budget.
 */
static void test_faults(void)
{
	int ffd, fails, pre;

	if (access(FAILSLAB "space", W_OK) || access(FAIL_PAGE_ALLOC "space", W_OK)) {
		/* A kernel built with fault injection must run this test. */
		if (!ASSERT_FALSE(kernel_config().CONFIG_FAILSLAB == 'y' ||
				  kernel_config().CONFIG_FAIL_PAGE_ALLOC == 'y',
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
	fails = batch_faults(ffd, FAIL_PAGE_ALLOC, 1000, 4000, 4096, &pre);
	ASSERT_GT(fails, pre, "page_failed_mid_batch");

	ASSERT_GE(create_faults(ffd, FAILSLAB, 1 << 20, 8), 1, "create_slab");
	ASSERT_GE(create_faults(ffd, FAIL_PAGE_ALLOC, 1 << 20, 1), 0, "create_page");
	close(ffd);
}

void serial_test_ip_cookie_faults(void)
{
	if (test__start_subtest("enomem_unchanged"))
		test_enomem_unchanged();
	if (test__start_subtest("faults"))
		test_faults();
}
