/* SPDX-License-Identifier: GPL-2.0 */
/* The IP_COOKIE benchmarks (benchs/bench_ip_cookie*.c), registered in
 * bench.c, and what their files share.
 */
#ifndef __BENCH_IP_COOKIE_H
#define __BENCH_IP_COOKIE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include "ip_cookie_common.h"

/* Options of every ipc-* benchmark */
struct ipc_args {
	__u32 batch_iters;	/* trigger calls per driver run */
	__u32 nr_funcs;		/* kprobe.multi, fentry.multi, attach:
				 * 0 = all attachable
				 */
	__u32 nr_entries;	/* lookup, mem, populate */
	__u32 nr_loops;		/* lookup: lookups per run */
	bool resize;		/* lookup: resize from another CPU */
};

extern struct ipc_args ipc_args;
extern const struct argp bench_ip_cookie_argp;

/* Map kinds of the memory and population benchmarks; IPC_KIND_IPC_HINT
 * is IP_COOKIE given the size hint RHASH gets (map_extra).
 */
enum ipc_kind {
	IPC_KIND_IPC, IPC_KIND_HASH, IPC_KIND_HASH_NOPRE, IPC_KIND_RHASH,
	IPC_KIND_IPC_HINT,
};

/* Per-CPU result slot, as in progs/ip_cookie_bench.c (the skeleton's
 * .bss holds an array of them).
 */
struct slot {
	__u64 fires;
	__u64 sink;
	__u64 misses;
} __aligned(128);

struct bench_res;
struct bpf_program;

/* The running throughput or lookup benchmark (bench_ip_cookie.c) */
struct ipc_ctx {
	struct ip_cookie_bench *skel;
	struct bpf_link *link;
	int driver_fd;
	__u32 per_run;		/* hits counted per driver run */
	long hits;
	pthread_t resizer;
	long resizes;		/* grow + shrink cycles of the resizer */
	__u32 nr_real_keys;	/* lookup: real kernel addresses among keys */
};

extern struct ipc_ctx ipc_ctx;

void ipc_open_skel(void);
void ipc_load_skel(struct bpf_program *driver, __u32 per_run);
void *ipc_producer(void *input);
void ipc_measure(struct bench_res *res);
void ipc_report_final(struct bench_res res[], int res_cnt);
void ipc_die(const char *what, int err);
void ipc_validate(void);
void *ipc_idle_producer(void *input);
int ipc_create_map(enum bpf_map_type type, __u32 key_size, __u32 n,
		   __u32 flags);
__u32 ipc_rhash_hint(__u32 n);
int ipc_kind_create(enum ipc_kind kind, __u32 n);
const char *ipc_kind_name(enum ipc_kind kind);
__u32 ipc_fill_batch(int fd, const void *keys, const void *vals, __u32 n);
__u64 *ipc_make_keys(__u32 n, __u32 *nr_real);
__u64 *ipc_attachable_funcs(size_t *cnt);

/* bench_ip_cookie.c: throughput */
extern const struct bench bench_ipc_kmulti_empty;
extern const struct bench bench_ipc_kmulti_cookie;
extern const struct bench bench_ipc_kmulti_cookie_array;
extern const struct bench bench_ipc_kmulti_hash;
extern const struct bench bench_ipc_kmulti_rhash;
extern const struct bench bench_ipc_kmulti_ipc;
extern const struct bench bench_ipc_kmulti_ipc_link;
extern const struct bench bench_ipc_kmulti_kfunc;
extern const struct bench bench_ipc_kmulti_funcip;
extern const struct bench bench_ipc_kmulti_funcip_link;
extern const struct bench bench_ipc_fentry_empty;
extern const struct bench bench_ipc_fentry_cookie;
extern const struct bench bench_ipc_fentry_hash;
extern const struct bench bench_ipc_fentry_rhash;
extern const struct bench bench_ipc_fentry_ipc;
extern const struct bench bench_ipc_fentry_cookie_array;
extern const struct bench bench_ipc_fentry_wide_array;
extern const struct bench bench_ipc_fentry_wide_ipc;
extern const struct bench bench_ipc_fentry_kfunc;
extern const struct bench bench_ipc_fentry_funcip;
extern const struct bench bench_ipc_fmulti_empty;
extern const struct bench bench_ipc_fmulti_funcip;
extern const struct bench bench_ipc_fmulti_cookie;
extern const struct bench bench_ipc_fmulti_cookie_array;
extern const struct bench bench_ipc_fmulti_hash;
extern const struct bench bench_ipc_fmulti_rhash;
extern const struct bench bench_ipc_fmulti_ipc;
extern const struct bench bench_ipc_fmulti_kfunc;
extern const struct bench bench_ipc_fmulti_wide_array;
extern const struct bench bench_ipc_fmulti_wide_ipc;
extern const struct bench bench_ipc_umulti_empty;
extern const struct bench bench_ipc_umulti_cookie;
extern const struct bench bench_ipc_umulti_cookie_array;
extern const struct bench bench_ipc_umulti_ipc;
extern const struct bench bench_ipc_umulti_ipc_link;
extern const struct bench bench_ipc_umulti_offset;
extern const struct bench bench_ipc_umulti_offset_link;
extern const struct bench bench_ipc_lookup_none;
extern const struct bench bench_ipc_lookup_ipc;
extern const struct bench bench_ipc_lookup_hash;
extern const struct bench bench_ipc_lookup_array;
extern const struct bench bench_ipc_lookup_rhash;

/* bench_ip_cookie_mem.c: bytes per entry */
extern const struct bench bench_ipc_mem_ipc;
extern const struct bench bench_ipc_mem_hash;
extern const struct bench bench_ipc_mem_hash_nopre;
extern const struct bench bench_ipc_mem_rhash;

/* bench_ip_cookie_fill.c: filling the map, attaching with cookies */
extern const struct bench bench_ipc_populate_ipc;
extern const struct bench bench_ipc_populate_hash;
extern const struct bench bench_ipc_populate_hash_nopre;
extern const struct bench bench_ipc_populate_rhash;
extern const struct bench bench_ipc_populate_ipc_hint;
extern const struct bench bench_ipc_attach_cookies;
extern const struct bench bench_ipc_attach_map;

#endif /* __BENCH_IP_COOKIE_H */
