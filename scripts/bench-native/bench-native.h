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
	/* RHASH, [0] with this tree's hash, [1] with 7.3's */
	uint32_t rh_buckets[2];	/* size of its bucket_table */
	uint32_t rh_elem_size;	/* kmalloc object of an element */
	uint64_t rh_pos_sum[2];	/* elements walked to each key, summed */
	uint32_t rh_max_chain[2];
	uint32_t rh_refused[2];	/* inserts refused: then not checked or timed */
	uint64_t bs_cmp_sum;	/* kprobe.multi: comparator calls, summed */
};

/* Build the structures for @n keys.  @keys must be sorted; key i
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
 * position in its HASH and its two RHASH buckets (@rh_pos[2]; 1 = first,
 * 0 = not there), comparator calls bsearch() makes to find it.
 */
void bn_key_info(uint64_t key, uint32_t *ic_disp, uint32_t *ht_pos,
		 uint32_t *rh_pos, uint32_t *bs_cmp);
void bn_destroy(void);

/* The RHASH hashes: 0 this tree's, 1 pristine 7.3's. */
#define BN_NR_RH	2
extern const char *const bn_rh_names[BN_NR_RH];

struct bn_chains {
	uint32_t buckets;	/* the table's size */
	uint32_t used;		/* buckets with a key */
	uint32_t max_chain;
	uint64_t beyond;	/* keys past the 16th (RHT_ELASTICITY) of a bucket */
};
/* Chains of @n keys (distinct) in the table an RHASH map of @n keys
 * would have, from hash @which and the table seed @hash_rnd.
 */
int bn_chains(const uint64_t *keys, uint32_t n, int which, uint32_t hash_rnd,
	      struct bn_chains *c);
/* Inserts lib/rhashtable.c refuses when @n keys go into such a map in
 * @order (the model's worker keeping up with each insert).
 */
int bn_rh_refused(const uint64_t *keys, const uint32_t *order, uint32_t n,
		  int which, uint32_t *refused);

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
	int rh;		/* an RHASH path: its hash (0, 1); else -1 */
};

extern const struct bn_path bn_paths[];
extern const int bn_nr_paths;

#endif /* BENCH_NATIVE_H */
