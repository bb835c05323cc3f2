// SPDX-License-Identifier: GPL-2.0
/*
 * Longest probe of BPF_MAP_TYPE_IP_COOKIE's index for random keys: places
 * keys as kernel/bpf/ip_cookie.c does (home = top bits of
 * (ip ^ seed) * GOLDEN_RATIO_64, linear probing, no wrap-around) and prints
 * the largest displacement from the home slot, per table size and load.
 *
 *   cc -O2 -o probe-sim scripts/probe-sim.c
 *   ./probe-sim [trials]     (default 5 seeds per row)
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

		home = ((ip ^ seed) * GOLDEN_RATIO_64) >> (64 - bits);
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

int main(int argc, char **argv)
{
	static const double loads[] = { 0.4, 0.5, 0.763, 0.8 };
	int trials = argc > 1 ? atoi(argv[1]) : 5, bits, l, t;

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
