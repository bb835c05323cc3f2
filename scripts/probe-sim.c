// SPDX-License-Identifier: GPL-2.0
/*
 * Probes of BPF_MAP_TYPE_IP_COOKIE's index, placing keys as
 * kernel/bpf/ip_cookie.c does (home = top bits of ip * mul, linear probing,
 * no wrap-around).
 *
 *   cc -O2 -o probe-sim scripts/probe-sim.c
 *   ./probe-sim [trials]     longest displacement from the home slot of
 *                            random keys, per table size and load, with
 *                            random multipliers (default 5 per row)
 *   ./probe-sim --spread [FILE]
 *                            mean displacement (what a lookup pays beyond
 *                            its home slot) of the lookup benchmark's key
 *                            sets: the text addresses of FILE (default
 *                            /proc/kallsyms, as root), shuffled, the first
 *                            28,491 of them (as many as the bench kernel
 *                            has), then addresses 16 bytes apart above the
 *                            highest; GOLDEN_RATIO_64 against 20 random
 *                            multipliers, the map's sizing of a batch fill
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_RATIO_64 0x61C8864680B583EBull

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)	/* xorshift64 */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Largest displacement of @n random function-like keys in 2^@bits buckets. */
static uint64_t longest(int bits, uint64_t n)
{
	uint64_t buckets = 1ull << bits, len = buckets + 4096, seed = next();
	uint64_t *slot = calloc(len, sizeof(*slot)), i, k, home, max = 0;

	if (!slot)
		exit(1);
	for (k = 0; k < n; k++) {
		/* 16-byte aligned addresses in a 256 MiB text range */
		uint64_t ip = 0xffffffff80000000ull + (next() & 0xffffff0ull);

		home = (ip * (seed | 1)) >> (64 - bits);
		for (i = home; slot[i] && slot[i] != ip; i++)
			;
		if (slot[i] == ip) {	/* duplicate: draw again */
			k--;
			continue;
		}
		slot[i] = ip;
		if (i - home > max)
			max = i - home;
	}
	free(slot);
	return max;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Mean displacement of @keys in a batch-filled table (at most 80% load). */
static double mean_disp(const uint64_t *keys, size_t n, uint64_t mul)
{
	uint64_t buckets = 16, home, i, sum = 0;
	uint64_t *slot;
	int bits;
	size_t k;

	while (buckets * 4 / 5 < n)
		buckets <<= 1;
	bits = __builtin_ctzll(buckets);
	slot = calloc(buckets + 4096, sizeof(*slot));
	if (!slot)
		exit(1);
	for (k = 0; k < n; k++) {
		home = (keys[k] * mul) >> (64 - bits);
		for (i = home; slot[i]; i++)
			;
		slot[i] = keys[k];
		sum += i - home;
	}
	free(slot);
	return (double)sum / n;
}

static int spread(const char *file)
{
	static const size_t sizes[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	size_t nr = 0, cap = 1 << 18, real, i, j, s;
	uint64_t *addrs = malloc(cap * sizeof(*addrs)), *keys, top, a;
	char line[512], type;
	double r[20];
	FILE *f = fopen(file, "r");

	if (!f || !addrs) {
		perror(file);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c", &a, &type) != 2 || !a ||
		    (type != 't' && type != 'T'))
			continue;
		if (nr == cap && !(addrs = realloc(addrs, (cap *= 2) * sizeof(*addrs))))
			return 1;
		addrs[nr++] = a;
	}
	fclose(f);
	qsort(addrs, nr, sizeof(*addrs), cmp_u64);
	for (i = j = 0; i < nr; i++)
		if (!j || addrs[i] != addrs[j - 1])
			addrs[j++] = addrs[i];
	nr = j;
	if (!nr) {
		fprintf(stderr, "%s: no text addresses (not root?)\n", file);
		return 1;
	}
	top = addrs[nr - 1];
	for (i = nr - 1; i > 0; i--) {	/* shuffle */
		j = next() % (i + 1);
		a = addrs[i];
		addrs[i] = addrs[j];
		addrs[j] = a;
	}
	real = nr < 28491 ? nr : 28491;
	keys = malloc(1000000 * sizeof(*keys));
	if (!keys)
		return 1;
	for (i = 0; i < 1000000; i++)
		keys[i] = i < real ? addrs[i] : top + 16 * (i - real + 1);
	printf("%zu text addresses in %s, %zu used, then 16 bytes apart\n", nr, file, real);
	printf("%-8s %-10s %s\n", "keys", "golden", "random multipliers: min median max");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (i = 0; i < 20; i++)
			r[i] = mean_disp(keys, sizes[s], next() | 1);
		qsort(r, 20, sizeof(r[0]), cmp_dbl);
		printf("%-8zu %-10.3f %.3f %.3f %.3f\n", sizes[s],
		       mean_disp(keys, sizes[s], GOLDEN_RATIO_64), r[0], r[10], r[19]);
	}
	free(keys);
	free(addrs);
	return 0;
}

int main(int argc, char **argv)
{
	static const double loads[] = { 0.4, 0.5, 0.763, 0.8 };
	int trials, bits, l, t;

	if (argc > 1 && !strcmp(argv[1], "--spread"))
		return spread(argc > 2 ? argv[2] : "/proc/kallsyms");
	trials = argc > 1 ? atoi(argv[1]) : 5;

	printf("%-8s %-6s %s\n", "buckets", "load", "longest displacement per seed");
	for (bits = 10; bits <= 22; bits += 2) {
		for (l = 0; l < 4; l++) {
			printf("2^%-6d %-6.3f", bits, loads[l]);
			for (t = 0; t < trials; t++)
				printf(" %4llu", (unsigned long long)
				       longest(bits, (uint64_t)(loads[l] * (1ull << bits))));
			printf("\n");
		}
	}
	return 0;
}
