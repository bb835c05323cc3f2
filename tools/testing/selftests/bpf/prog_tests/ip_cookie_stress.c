// SPDX-License-Identifier: GPL-2.0
/* Concurrent stress of BPF_MAP_TYPE_IP_COOKIE: a program on one CPU looks
 * up a set of stable keys without pause while user space on another CPU
 * inserts, replaces and deletes other keys, singly and in batches, so
 * that the index grows, shrinks and is purged of deleted slots many times
 * under the lookups.  No lookup of a stable key may miss or find another
 * key's value, every increment the program made in place must be in the
 * values afterwards, and rebuilds must have been published while lookup
 * runs were under way (counted, so that a pass means the race was run).
 *
 * IPC_STRESS_SECS=n makes the writer run for n seconds (default 20, for
 * the debug kernel under emulation; up to 3n if no lookup run has seen a
 * rebuild by then); make soak runs it for minutes.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <pthread.h>
#include <sched.h>
#include "ip_cookie_stress.skel.h"

#define DEFAULT_SECS	20
#define MAX_SECS	86400
/* Stable key i and churn key j; 16-byte aligned, as functions are. */
#define STABLE_BASE	0xffffffff81000000ULL
#define CHURN_BASE	0xffffffff82000000ULL
/* value.tag = key ^ TAG_XOR: a value found under another key is wrong. */
#define TAG_XOR		0x5eed0000c0c0a000ULL
/* Rounds of lookups per program run: long enough that a run costs more
 * than the syscall around it, short enough to leave CPU 0 to others often.
 */
#define ROUNDS		16

/* As in progs/ip_cookie_stress.c. */
struct ipc_stress_val {
	__u64 tag;
	__u64 hits;
};

/* Churn keys per writer cycle, in turn: a batch update of 3000 keys grows
 * the index several times in the middle of the batch.
 */
static const __u32 cycle_sizes[] = { 100, 1000, 3000 };
/* A cycle of n keys uses churn keys [0, 3n). */
#define CHURN_SPAN	(3 * 3000)

struct stress {
	struct ip_cookie_stress *skel;
	int fd;
	int cpu_reader, cpu_writer;
	__u64 deadline, last_chance;	/* get_time_ns() */
	bool reader_started;	/* accessed with __atomic builtins */
	bool stop;		/* accessed with __atomic builtins */
	int reader_err;
	__u64 reader_runs;
	int writer_err;
	const char *writer_op;	/* the operation that failed */
	__u64 singles, batches, batch_entries, cycles;
	__u64 *keys;
	struct ipc_stress_val *vals;
	bool *present;		/* churn keys in the map */
};

/* Not an error: the writer's time is up. */
#define TIME_UP		1

static unsigned int stress_secs(void)
{
	const char *env = getenv("IPC_STRESS_SECS");
	unsigned long secs;
	char *end;

	if (!env || !*env)
		return DEFAULT_SECS;
	errno = 0;
	secs = strtoul(env, &end, 10);
	if (errno || *end || !secs || secs > MAX_SECS) {
		printf("%s: IPC_STRESS_SECS=%s: not 1..%d, using %d\n",
		       __func__, env, MAX_SECS, DEFAULT_SECS);
		return DEFAULT_SECS;
	}
	return secs;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static __u64 churn_key(__u32 i)
{
	return CHURN_BASE + (__u64)i * 16;
}

/* Record the first failed operation of the writer. */
static int note(struct stress *s, int err, const char *op)
{
	if (err < 0 && !s->writer_op)
		s->writer_op = op;
	return err;
}

/* Checked before each operation: the writer stops within one of them
 * once its time is up, mid-cycle, and then deletes what is left.  A
 * machine so loaded that no lookup run saw a rebuild yet gets up to twice
 * the time again.
 */
static int time_up(struct stress *s)
{
	__u64 *seen = &s->skel->bss->tbl_changes;

	if (get_time_ns() < s->deadline)
		return 0;
	if (!__atomic_load_n(seen, __ATOMIC_RELAXED) && get_time_ns() < s->last_chance)
		return 0;
	return TIME_UP;
}

static int update_one(struct stress *s, __u32 i, __u64 flags, __u64 gen)
{
	__u64 key = churn_key(i);
	struct ipc_stress_val val = { .tag = key ^ TAG_XOR, .hits = gen };
	int err = time_up(s);

	if (err)
		return err;
	s->singles++;
	err = bpf_map_update_elem(s->fd, &key, &val, flags);
	if (!err)
		s->present[i] = true;
	return note(s, err, flags == BPF_EXIST ? "replace" : "insert");
}

static int delete_one(struct stress *s, __u32 i)
{
	__u64 key = churn_key(i);
	int err = time_up(s);

	if (err)
		return err;
	s->singles++;
	err = bpf_map_delete_elem(s->fd, &key);
	if (!err)
		s->present[i] = false;
	return note(s, err, "delete");
}

/* Insert (or, with @replace, replace) the churn keys [from, to) in one
 * batch.  Batches take no element flags, as for every map.
 */
static int update_range(struct stress *s, __u32 from, __u32 to, bool replace,
			__u64 gen)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 n = to - from, i;
	int err = time_up(s);

	if (err)
		return err;
	for (i = 0; i < n; i++) {
		s->keys[i] = churn_key(from + i);
		s->vals[i].tag = s->keys[i] ^ TAG_XOR;
		s->vals[i].hits = gen;
	}
	s->batches++;
	s->batch_entries += n;
	err = bpf_map_update_batch(s->fd, s->keys, s->vals, &n, &opts);
	/* n: how many went in, also when the batch failed. */
	for (i = 0; i < n; i++)
		s->present[from + i] = true;
	if (!err && n != to - from)
		err = -EIO;
	return note(s, err, replace ? "replace_batch" : "update_batch");
}

/* Delete the churn keys [from, to) that are present. */
static int delete_range(struct stress *s, __u32 from, __u32 to)
{
	__u32 n = 0, want, i;
	int err;

	for (i = from; i < to; i++)
		if (s->present[i])
			s->keys[n++] = churn_key(i);
	if (!n)
		return 0;
	want = n;
	s->batches++;
	s->batch_entries += n;
	err = bpf_map_delete_batch(s->fd, s->keys, &n, NULL);
	if (!err && n != want)
		err = -EIO;
	if (!err)
		memset(s->present + from, 0, (to - from) * sizeof(*s->present));
	return note(s, err, "delete_batch");
}

/* One cycle over n churn keys, from a map holding only the stable keys
 * back to one.  The index is rebuilt several times per cycle: grown by a
 * batch (once per doubling), shrunk at the 20% threshold by single
 * deletes, purged of DEAD slots by a sliding window of constant size,
 * grown at the 80% threshold by single inserts and shrunk by a batch
 * delete (once per halving).
 */
static int writer_cycle(struct stress *s, __u32 n, __u64 gen)
{
	__u32 w = n / 8, i;
	int err;

	err = update_range(s, 0, n, false, gen);
	/* Replaced elements wait on the deferred free list while the
	 * reader may hold them.
	 */
	if (!err)
		err = update_range(s, 0, n / 2, true, gen + 1);
	for (i = n / 2; !err && i < n; i += 7)
		err = update_one(s, i, BPF_EXIST, gen + 1);
	/* Down to [0, w). */
	for (i = n; !err && i > w; i--)
		err = delete_one(s, i - 1);
	/* Insert [n, 2n) and delete the oldest key after each insert: the
	 * count stays at w, the new keys take EMPTY slots and the deleted
	 * ones leave DEAD slots until a rebuild purges them.  [2n - w, 2n)
	 * remains.
	 */
	for (i = 0; !err && i < n; i++) {
		err = update_one(s, n + i, BPF_NOEXIST, gen);
		if (!err)
			err = delete_one(s, i < w ? i : n + i - w);
	}
	for (i = 2 * n; !err && i < 3 * n; i++)
		err = update_one(s, i, BPF_NOEXIST, gen);
	if (!err)
		err = time_up(s) ?: delete_range(s, 2 * n - w, 3 * n);
	return err;
}

static void *writer(void *arg)
{
	struct stress *s = arg;
	__u64 gen = 1;
	int err;
	__u32 n;

	err = note(s, pin_to(s->cpu_writer), "pin_writer");
	while (!err) {
		n = cycle_sizes[s->cycles % ARRAY_SIZE(cycle_sizes)];
		err = writer_cycle(s, n, gen);
		if (!err)
			s->cycles++;
		gen += 2;
	}
	/* Leave only the stable keys. */
	if (err == TIME_UP)
		err = delete_range(s, 0, CHURN_SPAN);
	s->writer_err = err;
	return NULL;
}

/* Runs lookup_stable back to back until told to stop. */
static void *reader(void *arg)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct stress *s = arg;
	int fd = bpf_program__fd(s->skel->progs.lookup_stable);

	s->reader_err = pin_to(s->cpu_reader);
	while (!s->reader_err && !__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		s->reader_err = bpf_prog_test_run_opts(fd, &topts);
		if (s->reader_err)
			break;
		s->reader_runs++;
		__atomic_store_n(&s->reader_started, true, __ATOMIC_RELEASE);
	}
	/* Let a waiting main thread see a reader that failed at once. */
	__atomic_store_n(&s->reader_started, true, __ATOMIC_RELEASE);
	return NULL;
}

/* The first two CPUs this task may run on, or -1. */
static int two_cpus(int *a, int *b)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (n++)
			*b = cpu;
		else
			*a = cpu;
	}
	return n == 2 ? 0 : -1;
}

static int fill_stable(int fd, __u32 nr)
{
	struct ipc_stress_val val = {};
	__u64 key;
	__u32 i;
	int err;

	for (i = 0; i < nr; i++) {
		key = STABLE_BASE + (__u64)i * 16;
		val.tag = key ^ TAG_XOR;
		err = bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST);
		if (err)
			return err;
	}
	return 0;
}

/* Stable keys whose value is not the one inserted plus one increment per
 * lookup that found it.
 */
static __u32 check_stable(struct stress *s, __u32 nr, __u64 *increments)
{
	__u64 *found = s->skel->bss->found;
	struct ipc_stress_val val;
	__u32 i, bad = 0;
	__u64 key;
	int err;

	*increments = 0;
	for (i = 0; i < nr; i++) {
		key = STABLE_BASE + (__u64)i * 16;
		err = bpf_map_lookup_elem(s->fd, &key, &val);
		if (!err && val.tag == (key ^ TAG_XOR) && val.hits == found[i]) {
			*increments += val.hits;
			continue;
		}
		if (bad++)
			continue;
		if (err)
			printf("%s: key %u: lookup: %d\n", __func__, i, err);
		else
			printf("%s: key %u: tag %#llx, %llu hits, found %llu times\n",
			       __func__, i, val.tag, val.hits, found[i]);
	}
	return bad;
}

static int count_keys(int fd)
{
	__u64 key, next;
	int err, n = 0;

	err = bpf_map_get_next_key(fd, NULL, &next);
	while (!err) {
		n++;
		key = next;
		err = bpf_map_get_next_key(fd, &key, &next);
	}
	return err == -ENOENT ? n : err;
}

/* The figures, one kind per line, for make soak and test_progs -v. */
#define PFX "ip_cookie_stress: "

static void report(struct stress *s, double took, __u64 increments)
{
	struct ip_cookie_stress__bss *bss = s->skel->bss;

	printf(PFX "%.1f s, lookups on CPU %d, changes on CPU %d\n",
	       took, s->cpu_reader, s->cpu_writer);
	printf(PFX "writer: %llu cycles, %llu single ops, %llu batches (%llu keys)\n",
	       s->cycles, s->singles, s->batches, s->batch_entries);
	printf(PFX "rebuilds: %llu, during lookups: %llu (in %llu runs)\n",
	       bss->rebuilds, bss->tbl_changes, bss->overlapped_runs);
	printf(PFX "reader: %llu runs, %llu lookups, %llu misses, %llu wrong\n",
	       bss->runs, bss->lookups, bss->misses, bss->wrong);
	printf(PFX "increments: %llu; churn keys: %llu hits, %llu wrong\n",
	       increments, bss->churn_found, bss->churn_wrong);
}

void test_ip_cookie_stress(void)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), nr, bad;
	struct ip_cookie_stress *skel;
	struct ip_cookie_stress__bss *bss;
	pthread_t rd_thread, wr_thread;
	bool rd_started = false;
	unsigned int secs = stress_secs();
	struct stress s = {};
	struct bpf_link *link = NULL;
	__u64 start, increments;
	double took;

	if (two_cpus(&s.cpu_reader, &s.cpu_writer)) {
		printf("%s: needs two CPUs\n", __func__);
		test__skip();
		return;
	}

	skel = ip_cookie_stress__open();
	if (!ASSERT_OK_PTR(skel, "skel_open"))
		return;
	s.skel = skel;
	skel->rodata->stable_base = STABLE_BASE;
	skel->rodata->churn_base = CHURN_BASE;
	skel->rodata->tag_xor = TAG_XOR;
	skel->rodata->churn_span = CHURN_SPAN;
	if (!ASSERT_OK(ip_cookie_stress__load(skel), "skel_load"))
		goto out;
	bss = skel->bss;
	bss->rounds = ROUNDS;
	nr = ARRAY_SIZE(bss->found);
	s.fd = bpf_map__fd(skel->maps.stress_map);
	s.keys = calloc(CHURN_SPAN, sizeof(*s.keys));
	s.vals = calloc(CHURN_SPAN, sizeof(*s.vals));
	s.present = calloc(CHURN_SPAN, sizeof(*s.present));
	if (!ASSERT_OK_PTR(s.keys, "keys") || !ASSERT_OK_PTR(s.vals, "vals") ||
	    !ASSERT_OK_PTR(s.present, "present"))
		goto out;
	if (!ASSERT_OK(fill_stable(s.fd, nr), "fill_stable") ||
	    !ASSERT_OK(bpf_map_get_info_by_fd(s.fd, &info, &len), "map_info"))
		goto out;
	bss->test_tgid = getpid();
	/* Attached before the threads start and detached after they end:
	 * the traced function is never patched while it runs.
	 */
	link = bpf_program__attach(skel->progs.count_rebuilds);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;

	/* The writer starts once lookups run, for as long as asked. */
	if (!ASSERT_OK(pthread_create(&rd_thread, NULL, reader, &s), "reader"))
		goto out;
	rd_started = true;
	while (!__atomic_load_n(&s.reader_started, __ATOMIC_ACQUIRE))
		usleep(1000);
	if (!ASSERT_OK(s.reader_err, "reader_start"))
		goto out;
	start = get_time_ns();
	s.deadline = start + secs * 1000000000ULL;
	s.last_chance = start + 3 * secs * 1000000000ULL;
	if (!ASSERT_OK(pthread_create(&wr_thread, NULL, writer, &s), "writer"))
		goto out;
	pthread_join(wr_thread, NULL);
	took = (get_time_ns() - start) / 1e9;
	__atomic_store_n(&s.stop, true, __ATOMIC_RELAXED);
	pthread_join(rd_thread, NULL);
	rd_started = false;
	bpf_link__destroy(link);
	link = NULL;

	bad = check_stable(&s, nr, &increments);
	report(&s, took, increments);

	ASSERT_OK(s.reader_err, "reader");
	if (!ASSERT_OK(s.writer_err, "writer"))
		printf("%s: writer: %s failed in cycle %llu (size %u)\n",
		       __func__, s.writer_op, s.cycles,
		       cycle_sizes[s.cycles % ARRAY_SIZE(cycle_sizes)]);
	ASSERT_EQ(bss->runs, s.reader_runs, "runs");
	ASSERT_EQ(bss->lookups, s.reader_runs * ROUNDS * nr, "lookups");
	ASSERT_EQ(bss->misses, 0, "stable_misses");
	ASSERT_EQ(bss->wrong, 0, "stable_wrong_values");
	ASSERT_EQ(bss->churn_wrong, 0, "churn_wrong_values");
	ASSERT_EQ(bad, 0, "increments_accounted");
	ASSERT_EQ(increments + bss->misses, bss->lookups, "increments_total");
	/* Every cycle crosses each threshold at least twice... */
	ASSERT_GE(bss->rebuilds, 4 * s.cycles, "rebuilds_per_cycle");
	/* ...and each change a run saw is a distinct table, allocated by a
	 * rebuild.
	 */
	ASSERT_GT(bss->tbl_changes, 0, "rebuilds_during_lookups");
	ASSERT_LE(bss->tbl_changes, bss->rebuilds, "changes_le_rebuilds");
	if (!s.writer_err)
		ASSERT_EQ(count_keys(s.fd), nr, "only_stable_left");
out:
	if (rd_started) {
		__atomic_store_n(&s.stop, true, __ATOMIC_RELAXED);
		pthread_join(rd_thread, NULL);
	}
	bpf_link__destroy(link);
	free(s.keys);
	free(s.vals);
	free(s.present);
	ip_cookie_stress__destroy(skel);
}
