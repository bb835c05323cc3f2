// SPDX-License-Identifier: GPL-2.0
/*
 * bench-native: time, on the host CPU, the data-structure part of the
 * ways to find per-function data from a function's address (kprobe.multi
 * cookie, BPF_MAP_TYPE_IP_COOKIE, BPF_MAP_TYPE_HASH, and
 * BPF_MAP_TYPE_RHASH with this tree's hash and with pristine 7.3's), with
 * the kernel's own layouts and lookup code (see models.c).  With -m
 * System.map: how RHASH's two hashes spread the kernel's text addresses
 * over its buckets (chains_report()).
 *
 * It models data structures, not the kernel path: there is no BPF
 * program, no helper dispatch, no fprobe or trampoline, no mitigations.
 *
 * For each N it builds the structures with the same N keys (an RHASH map
 * that refuses keys is reported and left out at that N), checks
 * that every path finds every key's value and no absent key, then times
 * two access patterns: "hot", one key over and over, and "cold", every
 * key in a shuffled order (a new shuffle per pass over the keys), each in
 * two modes: "chained", where a lookup's key depends on the previous
 * lookup's value (latency), and "indep", where lookups are independent
 * and the CPU may overlap them (throughput).  Each measurement is
 * repeated; medians and min-max go to stdout, one "result" line each.
 * Any wrong lookup stops it with exit status 1.
 *
 * This file is also the user-space side of kshim.h: the allocator, the
 * random numbers and the warning handler the kernel code calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "bench-native.h"

/*
 * Keys look like kernel text addresses: functions from 0xffffffff81000000
 * on, 256 bytes apart on average (the base kernel this repo builds has a
 * text symbol every ~290 bytes: System.map), each 16-byte aligned, at a
 * random 16-byte step of 0..15 within its 256 bytes.  So keys are sorted,
 * distinct and never 8 bytes off a 16-byte boundary, which is where the
 * absent keys are.
 */
#define KEY_BASE	0xffffffff81000000ULL
#define KEY_SPACING	256
#define KEY_ALIGN	16

/* Timed lookups per measurement, at least (-l). */
#define DEF_LOOKUPS	(1U << 20)
/* A cold sequence is at least this long, whole passes over the keys. */
#define COLD_MIN	(1U << 16)
#define HOT_LEN		4096
#define MAX_ROUNDS	101

static uint32_t sizes[64] = {
	1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576,
};
static int nr_sizes = 11;

/* ---- kshim.h runtime ---- */

void shim_warn(const char *file, int line)
{
	fprintf(stderr, "bench-native: kernel warning at %s:%d\n", file, line);
	exit(1);
}

/* splitmix64: get_random_u64() of the kernel code, and the bench's own. */
static uint64_t rng_kernel, rng_bench;

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t get_random_u64(void)
{
	return splitmix64(&rng_kernel);
}

uint32_t get_random_u32(void)
{
	return (uint32_t)splitmix64(&rng_kernel);
}

static uint64_t rand_below(uint64_t n)
{
	return splitmix64(&rng_bench) % n;
}

/*
 * Memory, as far as caches and TLBs care.  kmalloc() memory (slab
 * objects such as IP_COOKIE elements, small tables, kvmalloc() up to
 * KMALLOC_MAX_SIZE) lives in the kernel's direct map, mapped with huge
 * pages: here a bump arena of 2 MiB chunks with MADV_HUGEPAGE, objects of
 * kmalloc_size_roundup() bytes back to back, aligned as the kmalloc
 * caches align them.  vmalloc() memory (bpf_map_area_alloc() above 32 KiB,
 * kvmalloc() above KMALLOC_MAX_SIZE) is mapped with 4 KiB pages: here
 * MADV_NOHUGEPAGE.  Slab freelist randomisation is not modelled.
 */
#define PAGE_SZ		4096UL
#define HUGE_SZ		(2UL << 20)
#define KMALLOC_MAX_CACHE_SIZE	(2 * PAGE_SZ)		/* SLUB, x86-64 */
#define KMALLOC_MAX_SIZE	(PAGE_SZ << 10)		/* MAX_PAGE_ORDER 10 */
#define AREA_KMALLOC_MAX	(PAGE_SZ << 3)		/* COSTLY_ORDER 3 */

struct mapping {
	char *p;
	size_t len;
	bool arena;
	struct mapping *next;
};

static struct mapping *mappings;
static char *arena_cur, *arena_end;

/* mm/slab_common.c: kmalloc_size_roundup() with the x86-64 kmalloc
 * caches (8 to 8192 bytes, with 96 and 192), then whole page orders.
 */
size_t kmalloc_size_roundup(size_t size)
{
	size_t sz;

	if (!size || size > KMALLOC_MAX_SIZE)
		return size;
	if (size <= 8)
		return 8;
	if (size > 64 && size <= 96)
		return 96;
	if (size > 128 && size <= 192)
		return 192;
	for (sz = 16; sz < size; sz <<= 1)
		;
	if (size <= KMALLOC_MAX_CACHE_SIZE)
		return sz;
	return sz < PAGE_SZ ? PAGE_SZ : sz;
}

static void *map_mem(size_t len, bool huge, bool arena)
{
	struct mapping *m = malloc(sizeof(*m));
	size_t align = huge ? HUGE_SZ : PAGE_SZ;
	char *p;

	len = (len + align - 1) & ~(align - 1);
	p = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!m || p == MAP_FAILED) {
		perror("bench-native: mmap");
		exit(1);
	}
	/* Trim to an aligned start, so huge pages can back it. */
	if ((uintptr_t)p & (align - 1)) {
		size_t head = align - ((uintptr_t)p & (align - 1));

		munmap(p, head);
		p += head;
		munmap(p + len, align - head);
	} else {
		munmap(p + len, align);
	}
	madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	m->p = p;
	m->len = len;
	m->arena = arena;
	m->next = mappings;
	mappings = m;
	return p;
}

/* A kmalloc() object: direct map, zeroed (fresh anonymous memory). */
static void *kmalloc_obj(size_t size)
{
	size_t sz = kmalloc_size_roundup(size);
	size_t align = sz & -sz;
	char *p;

	if (align > PAGE_SZ)
		align = PAGE_SZ;
	if (sz > HUGE_SZ)
		return map_mem(sz, true, true);
	p = (char *)(((uintptr_t)arena_cur + align - 1) & ~(align - 1));
	if (!arena_cur || p + sz > arena_end) {
		arena_cur = map_mem(HUGE_SZ, true, true);
		arena_end = arena_cur + HUGE_SZ;
		p = arena_cur;
	}
	arena_cur = p + sz;
	return p;
}

void *shim_kmalloc(size_t size)
{
	return kmalloc_obj(size);
}

/* kernel/bpf/syscall.c: __bpf_map_area_alloc() */
void *shim_area_alloc(size_t size)
{
	if (size <= AREA_KMALLOC_MAX)
		return kmalloc_obj(size);
	return map_mem(size, false, false);
}

/* mm/util.c: kvmalloc_node(), assuming its kmalloc() attempt succeeds */
void *shim_kvmalloc(size_t size)
{
	if (size <= KMALLOC_MAX_SIZE)
		return kmalloc_obj(size);
	return map_mem(size, false, false);
}

/* Objects of the arena are freed with the arena, by mem_reset(). */
void kvfree(const void *ptr)
{
	struct mapping **pm, *m;

	if (!ptr)
		return;
	for (pm = &mappings; (m = *pm); pm = &m->next) {
		if ((const char *)ptr < m->p || (const char *)ptr >= m->p + m->len)
			continue;
		if (m->arena)
			return;
		if (ptr != m->p)
			break;
		munmap(m->p, m->len);
		*pm = m->next;
		free(m);
		return;
	}
	fprintf(stderr, "bench-native: kvfree(%p) of unknown memory\n", ptr);
	exit(1);
}

static void mem_reset(void)
{
	struct mapping *m;

	while ((m = mappings)) {
		mappings = m->next;
		munmap(m->p, m->len);
		free(m);
	}
	arena_cur = arena_end = NULL;
}

/* ---- time ---- */

static int perf_fd = -1;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline uint64_t tsc_start(void)
{
	uint64_t t;

	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
}

static inline uint64_t tsc_stop(void)
{
	unsigned int aux;
	uint64_t t = __rdtscp(&aux);

	_mm_lfence();
	return t;
}

/* Core cycles in user mode from the PMU, if this machine lets us. */
static void open_cycles(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	perf_fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static uint64_t read_cycles(void)
{
	uint64_t c = 0;

	if (read(perf_fd, &c, sizeof(c)) != sizeof(c))
		return 0;
	return c;
}

static double tsc_mhz(void)
{
	uint64_t t0 = now_ns(), c0 = tsc_start(), t1, c1;

	do
		t1 = now_ns();
	while (t1 - t0 < 200000000ULL);
	c1 = tsc_stop();
	return (double)(c1 - c0) * 1000.0 / (t1 - t0);
}

/* ---- measurement ---- */

struct sample {
	double ns, cyc;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static struct sample measure(const struct bn_path *path, bool chained,
			     const struct bn_probe *seq, uint32_t len,
			     uint32_t reps)
{
	uint64_t t0, t1, c0, c1, p0 = 0, p1 = 0, bad;
	double nr = (double)len * reps;
	struct sample s;

	if (perf_fd >= 0)
		p0 = read_cycles();
	t0 = now_ns();
	c0 = tsc_start();
	bad = (chained ? path->run_chained : path->run)(seq, len, reps);
	c1 = tsc_stop();
	t1 = now_ns();
	if (perf_fd >= 0)
		p1 = read_cycles();
	if (bad) {
		fprintf(stderr, "bench-native: %s: %llu wrong lookups\n",
			path->name, (unsigned long long)bad);
		exit(1);
	}
	s.ns = (t1 - t0) / nr;
	s.cyc = (perf_fd >= 0 ? p1 - p0 : c1 - c0) / nr;
	return s;
}

/* A path is timed unless it is an RHASH map that refused keys. */
static bool path_built(int p, const struct bn_shape *shape)
{
	return bn_paths[p].rh < 0 || !shape->rh_refused[bn_paths[p].rh];
}

static void run_pattern(const char *pattern, bool chained, uint32_t n,
			const struct bn_probe *seq, uint32_t len,
			uint32_t reps, int rounds, const struct bn_shape *shape)
{
	static double ns[16][MAX_ROUNDS], cyc[16][MAX_ROUNDS];
	int p, r;

	/* One untimed pass each: faults, caches, branch history. */
	for (p = 0; p < bn_nr_paths; p++)
		if (path_built(p, shape))
			measure(&bn_paths[p], chained, seq, len, 1);
	/* Rounds interleave the paths, each round starting one further, so
	 * a burst of other work on the machine spreads over all of them.
	 */
	for (r = 0; r < rounds; r++)
		for (p = 0; p < bn_nr_paths; p++) {
			int q = (p + r) % bn_nr_paths;
			struct sample s;

			if (!path_built(q, shape))
				continue;
			s = measure(&bn_paths[q], chained, seq, len, reps);

			ns[q][r] = s.ns;
			cyc[q][r] = s.cyc;
		}
	for (p = 0; p < bn_nr_paths; p++) {
		double mn, mc;

		if (!path_built(p, shape))
			continue;
		mn = median(ns[p], rounds);
		mc = median(cyc[p], rounds);

		printf("result N=%u pattern=%s mode=%s path=%s ns=%.2f ns_min=%.2f ns_max=%.2f cyc=%.1f cyc_min=%.1f cyc_max=%.1f lookups=%llu rounds=%d\n",
		       n, pattern, chained ? "chained" : "indep",
		       bn_paths[p].name, mn, ns[p][0],
		       ns[p][rounds - 1], mc, cyc[p][0], cyc[p][rounds - 1],
		       (unsigned long long)len * reps, rounds);
	}
	fflush(stdout);
}

static void shuffle(uint32_t *a, uint32_t n)
{
	uint32_t i, j, t;

	for (i = n - 1; i > 0 && n; i--) {
		j = rand_below(i + 1);
		t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

/* How much of this process's memory huge pages back now, in KiB. */
static long anon_huge_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void bench_n(uint32_t n, uint32_t lookups, int rounds, uint32_t ncpus)
{
	uint32_t i, j, cold_len, nr_absent = n < 1024 ? n + 2 : 1026;
	uint32_t hot, hot_disp, hot_pos, hot_rpos[BN_NR_RH], hot_cmp;
	uint64_t *keys, *vals, *absent;
	struct bn_probe *seq;
	struct bn_shape shape;
	uint32_t *order;
	uint64_t bad;
	int err;

	cold_len = n < COLD_MIN ? (COLD_MIN / n) * n : n;
	keys = malloc(n * sizeof(*keys));
	vals = malloc(n * sizeof(*vals));
	order = malloc((n > cold_len ? n : cold_len) * sizeof(*order));
	absent = malloc(nr_absent * sizeof(*absent));
	seq = malloc((cold_len > HOT_LEN ? cold_len : HOT_LEN) * sizeof(*seq));
	if (!keys || !vals || !order || !absent || !seq) {
		fprintf(stderr, "bench-native: out of memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		keys[i] = KEY_BASE + (uint64_t)i * KEY_SPACING +
			  KEY_ALIGN * rand_below(KEY_SPACING / KEY_ALIGN);
		vals[i] = i + 1;
		order[i] = i;
	}
	/* Insert in a random order, as the benchmark does. */
	shuffle(order, n);
	absent[0] = KEY_BASE - KEY_ALIGN;
	absent[1] = keys[n - 1] + KEY_SPACING;
	for (i = 2; i < nr_absent; i++)
		absent[i] = keys[rand_below(n)] + KEY_ALIGN / 2;

	err = bn_build(keys, vals, order, n, ncpus);
	if (err) {
		fprintf(stderr, "bench-native: N=%u: build failed: %d\n", n, err);
		exit(1);
	}
	bad = bn_check(keys, vals, n, absent, nr_absent, &shape);
	if (bad) {
		fprintf(stderr, "bench-native: N=%u: %llu wrong lookups in the check\n",
			n, (unsigned long long)bad);
		exit(1);
	}
	printf("shape N=%u ic_buckets=%u ic_len=%u ic_probe=%u ic_load=%.3f ic_mean_disp=%.3f ic_max_disp=%u ic_gen_insns=%u ht_buckets=%u ht_elem_size=%u ht_mean_pos=%.3f ht_max_chain=%u",
	       n, shape.ic_buckets, shape.ic_len, shape.ic_probe,
	       (double)n / shape.ic_buckets, (double)shape.ic_disp_sum / n,
	       shape.ic_max_disp, shape.ic_gen_insns, shape.ht_buckets,
	       shape.ht_elem_size, (double)shape.ht_pos_sum / n,
	       shape.ht_max_chain);
	for (i = 0; i < BN_NR_RH; i++) {
		const char *pre = i ? "rh73" : "rh";
		uint32_t in = n - shape.rh_refused[i];

		printf(" %s_buckets=%u %s_load=%.3f %s_mean_pos=%.3f %s_max_chain=%u %s_refused=%u",
		       pre, shape.rh_buckets[i], pre,
		       (double)in / shape.rh_buckets[i], pre,
		       in ? (double)shape.rh_pos_sum[i] / in : 0.0, pre,
		       shape.rh_max_chain[i], pre, shape.rh_refused[i]);
	}
	printf(" rh_elem_size=%u bs_mean_cmp=%.2f checked=%u+%u thp_kb=%ld\n",
	       shape.rh_elem_size, (double)shape.bs_cmp_sum / n, n, nr_absent,
	       anon_huge_kb());
	for (i = 0; i < BN_NR_RH; i++)
		if (shape.rh_refused[i])
			printf("refused N=%u path=%s keys=%u: not checked or timed at this N\n",
			       n, i ? "rhash73" : "rhash", shape.rh_refused[i]);

	/* hot: one key, a random one, over and over */
	hot = rand_below(n);
	bn_key_info(keys[hot], &hot_disp, &hot_pos, hot_rpos, &hot_cmp);
	printf("hotkey N=%u index=%u ic_disp=%u ht_pos=%u rh_pos=%u rh73_pos=%u bs_cmp=%u\n",
	       n, hot, hot_disp, hot_pos, hot_rpos[0], hot_rpos[1], hot_cmp);
	for (i = 0; i < HOT_LEN; i++) {
		seq[i].key = keys[hot];
		seq[i].want = vals[hot];
	}
	for (i = 0; i < 2; i++)
		run_pattern("hot", !i, n, seq, HOT_LEN,
			    (lookups + HOT_LEN - 1) / HOT_LEN, rounds, &shape);

	/* cold: all keys, each pass over them in a new random order */
	for (i = 0; i < cold_len; i += n) {
		for (j = 0; j < n; j++)
			order[i + j] = j;
		shuffle(order + i, n);
	}
	for (i = 0; i < cold_len; i++) {
		seq[i].key = keys[order[i]];
		seq[i].want = vals[order[i]];
	}
	for (i = 0; i < 2; i++)
		run_pattern("cold", !i, n, seq, cold_len,
			    lookups > cold_len ?
			    (lookups + cold_len - 1) / cold_len : 1, rounds,
			    &shape);

	bn_destroy();
	mem_reset();
	free(keys);
	free(vals);
	free(order);
	free(absent);
	free(seq);
}

/* ---- chains of RHASH's hashes on kernel text addresses ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The distinct addresses of text symbols (t T w W) in a System.map,
 * sorted.
 */
static uint64_t *read_text_addrs(const char *path, uint32_t *nr)
{
	size_t n = 0, cap = 1 << 16, i, u;
	unsigned long long addr;
	char line[512], type;
	uint64_t *a = malloc(cap * sizeof(*a));
	FILE *f = fopen(path, "r");

	if (!f || !a) {
		fprintf(stderr, "bench-native: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c", &addr, &type) != 2 ||
		    !strchr("tTwW", type))
			continue;
		if (n == cap) {
			cap *= 2;
			a = realloc(a, cap * sizeof(*a));
			if (!a) {
				fprintf(stderr, "bench-native: out of memory\n");
				exit(1);
			}
		}
		a[n++] = addr;
	}
	fclose(f);
	qsort(a, n, sizeof(*a), cmp_u64);
	for (i = u = 0; i < n; i++)
		if (!u || a[i] != a[u - 1])
			a[u++] = a[i];
	*nr = u;
	return a;
}

/*
 * For N = 1,000, 10,000 and all of the text addresses of @map, the first
 * N of a seeded shuffle and the first N in address order: per RHASH hash,
 * the table an RHASH map of N keys has and how its buckets fill (from the
 * bucket index alone), and the inserts lib/rhashtable.c refuses when the
 * N keys go into such a map in that order.  The 7.3 hash is also indexed
 * with a second seed, whose chains must be the same: XOR with the seed
 * only permutes its buckets.
 */
static int chains_report(const char *map)
{
	uint32_t total, sizes_c[3] = { 1000, 10000, 0 }, nr_c = 0, i, k;
	uint64_t *sorted = read_text_addrs(map, &total), *shuf, *keys;
	uint32_t *order;
	int o, h;

	shuf = malloc((size_t)total * sizeof(*shuf));
	order = malloc((size_t)total * sizeof(*order));
	if (!shuf || !order || !total) {
		fprintf(stderr, "bench-native: %s: no text symbols\n", map);
		return 1;
	}
	for (i = 0; i < total; i++)
		order[i] = i;
	shuffle(order, total);
	for (i = 0; i < total; i++)
		shuf[i] = sorted[order[i]];
	for (i = 0; i < 2; i++)
		if (sizes_c[i] < total)
			sizes_c[nr_c++] = sizes_c[i];
	sizes_c[nr_c++] = total;

	printf("# chains: %s: %u distinct text symbol addresses (t T w W)\n",
	       map, total);
	for (o = 0; o < 2; o++) {
		keys = o ? sorted : shuf;
		for (k = 0; k < nr_c; k++) {
			uint32_t n = sizes_c[k];

			for (i = 0; i < n; i++)
				order[i] = i;	/* insert in this order */
			for (h = 0; h < BN_NR_RH; h++) {
				struct bn_chains c, c2;
				uint32_t refused = 0;
				int err;

				if (bn_chains(keys, n, h, get_random_u32(), &c))
					return 1;
				err = bn_rh_refused(keys, order, n, h, &refused);
				mem_reset();
				printf("chains order=%s N=%u hash=%s buckets=%u used_pct=%.1f mean_chain=%.2f max_chain=%u beyond16=%llu refused=%u",
				       o ? "address" : "shuffled", n,
				       h ? "rhash73" : "rhash", c.buckets,
				       100.0 * c.used / c.buckets,
				       (double)n / c.used, c.max_chain,
				       (unsigned long long)c.beyond, refused);
				if (err)
					printf(" insert_error=%d", err);
				if (h) {
					if (bn_chains(keys, n, h, get_random_u32(), &c2))
						return 1;
					printf(" same_with_other_seed=%s",
					       c2.used == c.used &&
					       c2.max_chain == c.max_chain &&
					       c2.beyond == c.beyond ? "yes" : "no");
				}
				printf("\n");
			}
		}
	}
	free(sorted);
	free(shuf);
	free(order);
	return 0;
}

static void print_file_line(const char *label, const char *path,
			    const char *prefix)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!prefix || !strncmp(line, prefix, strlen(prefix))) {
			printf("# %s: %s", label, line);
			break;
		}
	fclose(f);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench-native [-n max_entries] [-N n,n,...] [-r rounds] [-c cpu] [-l lookups] [-s seed]\n"
		"       bench-native -m System.map [-s seed]: chains of RHASH's hashes on its text addresses\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint32_t max_n = 1U << 20, lookups = DEF_LOOKUPS, ncpus;
	unsigned long long seed = 1;
	int rounds = 5, cpu = -1, opt;
	const char *chains_map = NULL;
	char *p, *end;
	cpu_set_t set;
	size_t k;

	while ((opt = getopt(argc, argv, "n:N:r:c:l:s:m:")) != -1) {
		switch (opt) {
		case 'm':
			chains_map = optarg;
			break;
		case 'n':
			max_n = strtoul(optarg, NULL, 0);
			break;
		case 'N':
			nr_sizes = 0;
			for (p = optarg; *p && nr_sizes < 64; p = end) {
				sizes[nr_sizes] = strtoul(p, &end, 0);
				if (end == p || !sizes[nr_sizes++] ||
				    (*end && *end++ != ','))
					usage();
			}
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'l':
			lookups = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (rounds < 1 || rounds > MAX_ROUNDS || !max_n || !lookups ||
	    bn_nr_paths > 16)
		usage();
	rng_bench = seed;
	rng_kernel = seed ^ 0x5eed5eed5eed5eedULL;
	if (chains_map) {
		printf("# bench-native -m: seed %llu\n", seed);
		return chains_report(chains_map);
	}

	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("sched_getaffinity");
		return 1;
	}
	if (cpu < 0)
		for (k = 0; k < CPU_SETSIZE; k++)
			if (CPU_ISSET(k, &set))
				cpu = k;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	ncpus = sysconf(_SC_NPROCESSORS_CONF);

	printf("# bench-native: a native model of the data structures behind the lookup paths;\n");
	printf("# not the kernel path (no BPF program, helper dispatch, fprobe, trampoline or mitigations)\n");
	print_file_line("cpu", "/proc/cpuinfo", "model name");
	printf("# pinned to cpu %d of %u (sched_setaffinity)\n", cpu, ncpus);
	print_file_line("loadavg at start", "/proc/loadavg", NULL);
	print_file_line("transparent_hugepage", "/sys/kernel/mm/transparent_hugepage/enabled", NULL);
	print_file_line("host spectre_v2", "/sys/devices/system/cpu/vulnerabilities/spectre_v2", NULL);
	open_cycles();
	if (perf_fd >= 0)
		printf("# cycles: core cycles in user mode, perf_event_open(PERF_COUNT_HW_CPU_CYCLES)\n");
	else
		printf("# cycles: TSC ticks (rdtsc/rdtscp + lfence), not core cycles: perf_event_open: %s\n",
		       strerror(errno));
	printf("# tsc_mhz: %.1f (measured against CLOCK_MONOTONIC)\n", tsc_mhz());
	printf("# keys: 0x%llx + i*%d + %d*rand(0..%d); values i+1; inserted in random order\n",
	       KEY_BASE, KEY_SPACING, KEY_ALIGN, KEY_SPACING / KEY_ALIGN - 1);
	printf("# per measurement: >= %u lookups; rounds: %d; seed: %llu; hot: %u-entry sequence of one key; cold: shuffled passes over all keys, >= %u long\n",
	       lookups, rounds, seed, HOT_LEN, COLD_MIN);
	for (k = 0; k < (size_t)bn_nr_paths; k++)
		printf("# path %s: %s\n", bn_paths[k].name, bn_paths[k].what);
	fflush(stdout);

	for (k = 0; k < (size_t)nr_sizes; k++)
		if (sizes[k] <= max_n)
			bench_n(sizes[k], lookups, rounds, ncpus);

	print_file_line("loadavg at end", "/proc/loadavg", NULL);
	if (perf_fd >= 0)
		close(perf_fd);
	return 0;
}
