// SPDX-License-Identifier: GPL-2.0
/* The memory of BPF_MAP_TYPE_IP_COOKIE: what map_mem_usage() reports and
 * the memory cgroup is charged as the map grows and shrinks, -ENOMEM and
 * no OOM kill at the cgroup's limit (also for replaced values waiting on
 * the deferred free list while grace periods are held off), elements and
 * indexes freed only after the programs that hold them are done, and who
 * keeps a map alive.  serial_test_ip_cookie_scale does the same at 1M
 * entries and shortens the soft-lockup threshold meanwhile.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <ctype.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/wait.h>
#include "cgroup_helpers.h"
#include "ip_cookie_helpers.h"
#include "ip_cookie_uffd.h"
#include "ip_cookie.skel.h"
#include "ip_cookie_probe.skel.h"

/* A number from the file @name of the cgroup open at @cgfd: the whole
 * file, or the line "@key <n>" of a stat file; -1 when there is none.
 */
static long long memcg_read(int cgfd, const char *name, const char *key)
{
	char buf[8192], *line, *save = NULL;
	int fd, n;

	fd = openat(cgfd, name, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (!key)
		return atoll(buf);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ' ')
			return atoll(line + strlen(key) + 1);
	return -1;
}

/* memory.current of the cgroup open at @cgfd (with @no_anon, less
 * memory.stat's anon: the test's own malloc'd pages are not the map's,
 * and on arm64 about 10 MB of them stay charged through grow_shrink_1m),
 * once it has held still for half a second, and at least a second from
 * now: tables and elements are freed after RCU grace periods, vmalloc'd
 * ones later still.
 */
static long long memcg_settled(int cgfd, bool no_anon)
{
	long long v = -1, prev, cur, anon = 0;
	int i, still = 0;

	for (i = 0; i < 200 && (i < 20 || still < 10); i++) {
		prev = v;
		cur = memcg_read(cgfd, "memory.current", NULL);
		if (no_anon)
			anon = memcg_read(cgfd, "memory.stat", "anon");
		if (cur < 0 || anon < 0)
			return -1;
		v = cur - anon;
		still = v == prev ? still + 1 : 0;
		usleep(50000);
	}
	return v;
}

/* On a failed memcg check: which kinds of memory hold the charge. */
static void memcg_breakdown(int cgfd, const char *when)
{
	static const char * const kinds[] = {
		"anon", "kernel", "vmalloc", "slab_unreclaimable", "percpu",
		"pagetables", "kernel_stack",
	};
	size_t k;

	for (k = 0; k < ARRAY_SIZE(kinds); k++)
		printf("%s: memory.stat %s %lld\n", when, kinds[k],
		       memcg_read(cgfd, "memory.stat", kinds[k]));
}

/* The charge less anon once it is at most @target, or once it stopped
 * falling.
 * A round is an RCU grace period and a settled read.  What a map frees
 * after its grace periods comes late on an emulated CPU (a million
 * kfree()s are minutes on the debug kernel, longer on arm64 under TCG):
 * wait as long as the charge keeps coming down.  A leak does not: a
 * charge that has not fallen by 16 pages in 20 rounds is final.
 */
static long long memcg_wait_down(int cgfd, long long target)
{
	long long cur = -1, low = LLONG_MAX;
	int i, idle = 0;

	for (i = 0; i < 600 && idle < 20; i++) {
		kern_sync_rcu();
		cur = memcg_settled(cgfd, true);
		if (cur < 0 || cur <= target)
			break;
		if (cur < low - 16LL * getpagesize()) {
			low = cur;
			idle = 0;
		} else {
			idle++;
		}
	}
	return cur;
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
	long long bound;
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
	cg_before = memcg_settled(cgfd, true);
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
	bound = full + max * extra + full / 10 + slack;
	cg_full = memcg_settled(cgfd, true);
	/* Tables replaced while growing are freed by a work item after RCU
	 * and RCU Tasks Trace grace periods, slow under emulation: bound
	 * the charge once they are gone.
	 */
	if (cg_full - cg_before > bound)
		cg_full = memcg_wait_down(cgfd, cg_before + bound);
	if (!ASSERT_GE(cg_full - cg_before, full - slack, "memcg_charged") ||
	    !ASSERT_LE(cg_full - cg_before, bound, "memcg_bounded") ||
	    env.verbosity > VERBOSE_NONE) {
		printf("%s: charge +%lld, memlock %lld, slab extra %lld, slack %lld\n",
		       __func__, cg_full - cg_before, full, extra, slack);
		memcg_breakdown(cgfd, "full");
	}

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
	 * returns every charge, as do the drained elements' deferred frees.
	 */
	cg_after = memcg_wait_down(cgfd, cg_before + slack);
	if (!ASSERT_LE(cg_after - cg_before, slack, "memcg_uncharged")) {
		printf("%s: charge %lld before, %lld after\n",
		       __func__, cg_before, cg_after);
		memcg_breakdown(cgfd, "freed");
	}
out:
	if (fd >= 0)
		close(fd);
	close(cgfd);
	cleanup_cgroup_environment();
}

static void test_grow_shrink(void)
{
	grow_shrink(20000, 1000);
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
	cur = memcg_settled(cgfd, false);
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
	cur = memcg_settled(cgfd, false);
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

/* The replacing children's guard against a hang, not a speed target: a
 * million replaces took more than 300 s on s390x under TCG beside other
 * VMs.
 */
#define REPLACE_HANG_SECS	1800

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
	cur = memcg_settled(cgfd, false);
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
		alarm(REPLACE_HANG_SECS);
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
/* Batches run once the cgroup is full: each must fail with -ENOMEM and
 * change nothing.  More would only prolong the hold on the grace
 * periods (under emulation past RCU Tasks' 10-minute stall warning).
 */
#define MILLION_FULL	3
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
	__u32 rounds;		/* batches run */
};

/* In a child in the cgroup open at @cgfd, while no grace period can end:
 * up to a million replaces, batches of 10,000 over the same keys, with
 * room for 24 MB more under memory.max, until MILLION_FULL batches have
 * failed.  Each replaced element waits on the deferred free list, so the
 * cgroup fills: each batch succeeds or stops with -ENOMEM, and every key
 * holds the value of the last batch that reached it.  Writes a byte to
 * @wfd once the limit is set.  Exit 0 if so, else a code for what failed.
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
	cur = memcg_settled(cgfd, false);
	if (cur < 0 || memcg_set_max(mfd, cur + MILLION_ROOM))
		return 12;
	if (write(wfd, "", 1) != 1)
		return 12;
	for (r = 1; r <= MILLION_ROUNDS && res->nomem < MILLION_FULL; r++) {
		res->rounds = r;
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

/* Up to a million replaces in a memory cgroup while a sleepable program holds
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
		alarm(REPLACE_HANG_SECS);
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
			printf("%s: %u replaces done in %u batches, %u -ENOMEM, uncharged kmalloc +%lld bytes at most, %.1f s\n",
			       __func__, res.done, res.rounds, res.nomem,
			       outside, took / 1e9);
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

/* Looks keys fake_ip(0..63) up through @skel: all found with their index */
static bool probe_finds_all(struct ip_cookie_probe *skel)
{
	int i;

	skel->bss->rounds = 1;
	for (i = 0; i < IPC_PROBE_KEYS; i++)
		skel->bss->keys[i] = fake_ip(i);
	if (!prog_run_ns(bpf_program__fd(skel->progs.lookup_keys), 1))
		return false;
	for (i = 0; i < IPC_PROBE_KEYS; i++)
		if (skel->bss->vals[i] != i) {
			printf("%s: key %d found %#llx\n", __func__, i,
			       (unsigned long long)skel->bss->vals[i]);
			return false;
		}
	return true;
}

struct swap_ctx {
	int outer;
	bool stop;	/* accessed with __atomic builtins */
	int swaps;	/* accessed with __atomic builtins */
	int err;
};

/* Replace inner map 0 by a new one, valued ip + 1 or ip + 2 as @swaps
 * is even or odd: the map replaced is freed while programs may look into
 * it.
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
		val = ip + swaps % 2 + 1;
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

/* Runs of @prog that did not happen: skipped by kprobe.multi's recursion
 * check (a task preempted inside bpf_disable_instrumentation() on the CPU
 * it hits on, as the swapper's map-in-map update may be) or by fprobe.
 */
static __u64 kmulti_misses(struct bpf_program *prog, struct bpf_link *link)
{
	struct bpf_prog_info pinfo = {};
	struct bpf_link_info linfo = {};
	__u32 len = sizeof(pinfo);

	if (!ASSERT_OK(bpf_prog_get_info_by_fd(bpf_program__fd(prog), &pinfo,
					       &len), "prog_info"))
		return 0;
	len = sizeof(linfo);
	if (!ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &linfo,
					       &len), "link_info"))
		return 0;
	return pinfo.recursion_misses + linfo.kprobe_multi.missed;
}

/* Inner maps replaced, and freed, while a program looks into them: every
 * hit finds the value of one of the two maps, none misses.
 */
static void lifetime_inner_swap(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct swap_ctx c = {};
	struct bpf_link *link = NULL;
	struct ip_cookie *skel;
	__u64 runs = 0, misses, *tags;
	pthread_t thread;
	bool started = false;
	int i;

	skel = ip_cookie__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->test_pid = getpid();
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
		prog_run_ns(bpf_program__fd(skel->progs.ipc_trigger), 1);
out:
	if (started) {
		__atomic_store_n(&c.stop, true, __ATOMIC_RELAXED);
		pthread_join(thread, NULL);
		ASSERT_OK(c.err, "swapper");
		ASSERT_GE(c.swaps, 2, "swaps");
		tags = skel->bss->inner_tags[0];
		ASSERT_EQ(skel->bss->inner_missed[0], 0, "inner_missed");
		ASSERT_EQ(tags[0], 0, "values_of_other_keys");
		/* Every hit either ran, and found ip + 1 or ip + 2, or was
		 * counted as missed.
		 */
		misses = kmulti_misses(skel->progs.ipc_inner, link);
		printf("%s: %llu runs missed of %llu\n", __func__,
		       (unsigned long long)misses,
		       (unsigned long long)runs * NR_FUNCS);
		ASSERT_EQ(tags[1] + tags[2] + misses, runs * NR_FUNCS, "hits");
		ASSERT_GT(tags[1] + tags[2], 0, "hits_ran");
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
	/* The rest above needs no kprobe.multi; where it is refused, the
	 * subtest is reported skipped after it.
	 */
	if (have_kprobe_multi())
		lifetime_inner_swap();
}

void test_ip_cookie_memory(void)
{
	if (test__start_subtest("grow_shrink"))
		test_grow_shrink();
	if (test__start_subtest("memcg_limit"))
		test_memcg_limit();
	if (test__start_subtest("replace_memcg"))
		test_replace_memcg();
	if (test__start_subtest("replace_million"))
		test_replace_million();
	if (test__start_subtest("grace_period"))
		test_grace_period();
	if (test__start_subtest("lifetimes"))
		test_lifetimes();
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

#define WATCHDOG_THRESH	"/proc/sys/kernel/watchdog_thresh"

/* Rebuilds of an index of up to 2^21 slots, then the free of a map with
 * 1M entries, with the soft-lockup watchdog at a tenth of its boot
 * threshold (1 s for the default 10, so it reports a CPU that has not
 * scheduled for 2 s): both reschedule.  On a PREEMPT_NONE kernel a loop
 * without cond_resched() is reported; the debug kernel of 7.3 is
 * PREEMPT_LAZY, which preempts such a loop at the next tick, so there this
 * checks that the map is freed and uncharged.  A guest under emulation is
 * best booted with a longer threshold, as its host can stop a vCPU for
 * seconds (30 gives 3 here); the free without its cond_resched() holds a
 * CPU for about a minute there.
 */
static void free_full(__u32 max, __u32 step)
{
	long long slack = 64LL * getpagesize() * libbpf_num_possible_cpus();
	long long cg_before, cg_after = -1;
	int fd, cgfd, err, kfd = -1;
	char thresh[16] = "", shorter[16];
	bool watchdog;
	__u32 i, id;

	/* The free runs in a work item: it is over when the cgroup of the
	 * map's creator has its charges back.
	 */
	cgfd = cgroup_setup_and_join("/ip_cookie_free");
	if (!ASSERT_GE(cgfd, 0, "memcg_join"))
		return;
	/* s390 has no soft-lockup detector (lib/Kconfig.debug): there the
	 * frees are only checked to finish.
	 */
	watchdog = kernel_config().CONFIG_SOFTLOCKUP_DETECTOR == 'y';
	err = read_sysctl(WATCHDOG_THRESH, thresh, sizeof(thresh));
	if (!watchdog) {
		if (!ASSERT_EQ(err, -ENOENT, "no_watchdog_thresh"))
			goto out;
		printf("%s: no soft-lockup detector: not checked\n", __func__);
	} else if (!ASSERT_OK(err, "watchdog_thresh")) {
		goto out;
	}
	i = atoi(thresh) / 10;
	snprintf(shorter, sizeof(shorter), "%u", i ? i : 1);
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (!ASSERT_OK_FD(kfd, "kmsg") || lseek(kfd, 0, SEEK_END) < 0 ||
	    (watchdog && write_sysctl(WATCHDOG_THRESH, shorter)))
		goto out;
	cg_before = memcg_settled(cgfd, true);
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
	cg_after = memcg_wait_down(cgfd, cg_before + slack);
	if (!ASSERT_LE(cg_after - cg_before, slack, "map_freed"))
		memcg_breakdown(cgfd, "freed");
	ASSERT_EQ(soft_lockups(kfd), 0, "soft_lockups");
out:
	if (thresh[0])
		write_sysctl(WATCHDOG_THRESH, thresh);
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
