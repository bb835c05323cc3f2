/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interface between the driver (bench-native.c, libc) and the models
 * (models.c, kernel source compiled against kshim.h).
 */
#ifndef BENCH_NATIVE_H
#define BENCH_NATIVE_H

#include <stdint.h>

/* One lookup of a timed sequence: the key and the value it must find. */
struct bn_probe {
	uint64_t key;
	uint64_t want;
};

/* What a built model looks like, for the report. */
struct bn_shape {
	uint32_t ic_buckets;	/* IP_COOKIE: buckets of the index */
	uint32_t ic_len;	/* buckets + tail slots */
	uint32_t ic_probe;	/* probe bound */
	uint64_t ic_disp_sum;	/* slots past home, summed over keys */
	uint32_t ic_max_disp;
	uint32_t ic_gen_insns;	/* instructions gen_lookup emits */
	uint32_t ht_buckets;	/* HASH: n_buckets */
	uint32_t ht_elem_size;
	uint64_t ht_pos_sum;	/* elements walked to each key, summed */
	uint32_t ht_max_chain;
	uint32_t rht_buckets;	/* rhashtable: size of its bucket_table */
	uint32_t rht_elem_size;
	uint64_t rht_pos_sum;	/* elements walked to each key, summed */
	uint32_t rht_max_chain;
	uint64_t bs_cmp_sum;	/* kprobe.multi: comparator calls, summed */
};

/* Build the four structures for @n keys.  @keys must be sorted; key i
 * maps to @vals[i]; @order is the order the keys are inserted in.
 * @ncpus is num_possible_cpus() of the modelled machine.  Returns 0 or
 * a negative error from the kernel code.
 */
int bn_build(const uint64_t *keys, const uint64_t *vals, const uint32_t *order,
	     uint32_t n, uint32_t ncpus);
/* Look every key and every absent key up on every path, the inlined
 * IP_COOKIE lookup also by running the instructions gen_lookup emits.
 * Fills @shape; returns the number of wrong answers.
 */
uint64_t bn_check(const uint64_t *keys, const uint64_t *vals, uint32_t n,
		  const uint64_t *absent, uint32_t nr_absent,
		  struct bn_shape *shape);
/* Where one key sits: slots past its home in the IP_COOKIE index,
 * position in its HASH and its rhashtable bucket (1 = first), comparator
 * calls bsearch() makes to find it.
 */
void bn_key_info(uint64_t key, uint32_t *ic_disp, uint32_t *ht_pos,
		 uint32_t *rht_pos, uint32_t *bs_cmp);
void bn_destroy(void);

/* A timed path: @reps passes over @seq, returns the wrong answers.
 * run: lookups independent of each other, which the CPU may overlap;
 * run_chained: each key depends on the previous lookup's value.
 */
typedef uint64_t (*bn_run_fn)(const struct bn_probe *seq, uint32_t len,
			      uint32_t reps);

struct bn_path {
	const char *name;
	const char *what;
	bn_run_fn run;
	bn_run_fn run_chained;
};

extern const struct bn_path bn_paths[];
extern const int bn_nr_paths;

#endif /* BENCH_NATIVE_H */
