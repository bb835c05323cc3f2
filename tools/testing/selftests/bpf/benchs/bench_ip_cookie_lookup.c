// SPDX-License-Identifier: GPL-2.0
/* BPF_MAP_TYPE_IP_COOKIE lookups against HASH, RHASH and ARRAY, without
 * a tracing program around them:
 *
 *   ipc-lookup-{none,ipc,hash,rhash,array}
 *	map lookups from bpf_loop() over --ipc-entries shuffled kernel
 *	addresses; --ipc-resize grows and shrinks the IP_COOKIE map from
 *	another CPU meanwhile
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include "bench.h"
#include "bench_ip_cookie.h"
#include "ip_cookie_bench.skel.h"

enum { LOOKUP_NONE, LOOKUP_IPC, LOOKUP_HASH, LOOKUP_ARRAY, LOOKUP_RHASH };

static __u64 *lookup_keys;

static void set_affinity(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* Grow the map to 5x its size by one batch, shrink it back by another. */
static void *resizer(void *input)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	int fd = bpf_map__fd(ipc_ctx.skel->maps.ip_map);
	__u32 n = ipc_args.nr_entries, extra = 4 * n, i;
	__u64 *keys, *vals, top = 0;
	__u32 cnt;

	if (env.nr_cpus > 1)
		set_affinity(1);
	keys = malloc(extra * sizeof(*keys));
	vals = malloc(extra * sizeof(*vals));
	if (!keys || !vals)
		ipc_die("malloc", -ENOMEM);
	for (i = 0; i < n; i++)
		top = lookup_keys[i] > top ? lookup_keys[i] : top;
	for (i = 0; i < extra; i++) {
		keys[i] = top + 16 * (i + 1);
		vals[i] = 1;
	}
	while (true) {
		cnt = extra;
		if (bpf_map_update_batch(fd, keys, vals, &cnt, &o))
			ipc_die("batch update of the resize thread", -errno);
		cnt = extra;
		if (bpf_map_delete_batch(fd, keys, &cnt, &o))
			ipc_die("batch delete of the resize thread", -errno);
		atomic_inc(&ipc_ctx.resizes);
	}
	return NULL;
}

static void lookup_validate(void)
{
	ipc_validate();
	if (ipc_args.resize && strcmp(env.bench_name, "ipc-lookup-ipc")) {
		fprintf(stderr, "--ipc-resize needs ipc-lookup-ipc\n");
		exit(1);
	}
}

static void lookup_setup(int kind)
{
	__u32 n = ipc_args.nr_entries, i;
	__u64 *vals;
	__u32 *idx;

	ipc_open_skel();
	ipc_ctx.skel->rodata->lookup_kind = kind;
	ipc_ctx.skel->rodata->nr_keys = n;
	ipc_ctx.skel->rodata->nr_loops = ipc_args.nr_loops;
	bpf_map__set_max_entries(ipc_ctx.skel->maps.keys, n);
	bpf_map__set_max_entries(ipc_ctx.skel->maps.lk_array, n);
	bpf_map__set_max_entries(ipc_ctx.skel->maps.ip_hash, n);
	bpf_map__set_max_entries(ipc_ctx.skel->maps.ip_rhash, n);
	bpf_map__set_map_extra(ipc_ctx.skel->maps.ip_rhash, ipc_rhash_hint(n));
	bpf_map__set_max_entries(ipc_ctx.skel->maps.ip_map,
				 ipc_args.resize ? 5 * n : n);
	ipc_load_skel(ipc_ctx.skel->progs.lookup_driver, ipc_args.nr_loops);

	lookup_keys = ipc_make_keys(n, &ipc_ctx.nr_real_keys);
	vals = malloc(n * sizeof(*vals));
	idx = malloc(n * sizeof(*idx));
	if (!vals || !idx)
		ipc_die("malloc", -ENOMEM);
	for (i = 0; i < n; i++) {
		vals[i] = i + 1;
		idx[i] = i;
	}
	ipc_fill_batch(bpf_map__fd(ipc_ctx.skel->maps.keys), idx, lookup_keys, n);
	if (kind == LOOKUP_IPC)
		ipc_fill_batch(bpf_map__fd(ipc_ctx.skel->maps.ip_map), lookup_keys,
			       vals, n);
	if (kind == LOOKUP_HASH)
		ipc_fill_batch(bpf_map__fd(ipc_ctx.skel->maps.ip_hash), lookup_keys,
			       vals, n);
	if (kind == LOOKUP_RHASH)
		ipc_fill_batch(bpf_map__fd(ipc_ctx.skel->maps.ip_rhash), lookup_keys,
			       vals, n);
	if (kind == LOOKUP_ARRAY)
		ipc_fill_batch(bpf_map__fd(ipc_ctx.skel->maps.lk_array), idx, vals,
			       n);
	free(vals);
	free(idx);
	if (ipc_args.resize &&
	    pthread_create(&ipc_ctx.resizer, NULL, resizer, NULL))
		ipc_die("pthread_create", -errno);
}

static void lookup_report_final(struct bench_res res[], int res_cnt)
{
	__u32 n = ipc_args.nr_entries;

	printf("ipc-keys: entries=%u real=%u synthetic=%u\n", n,
	       ipc_ctx.nr_real_keys, n - ipc_ctx.nr_real_keys);
	ipc_report_final(res, res_cnt);
}

#define LOOKUP(_name, _kind)						\
static void lookup_##_name##_setup(void) { lookup_setup(_kind); }	\
const struct bench bench_ipc_lookup_##_name = {				\
	.name = "ipc-lookup-" #_name,					\
	.argp = &bench_ip_cookie_argp,					\
	.validate = lookup_validate,					\
	.setup = lookup_##_name##_setup,				\
	.producer_thread = ipc_producer,				\
	.measure = ipc_measure,						\
	.report_progress = hits_drops_report_progress,			\
	.report_final = lookup_report_final,				\
}

LOOKUP(none, LOOKUP_NONE);
LOOKUP(ipc, LOOKUP_IPC);
LOOKUP(hash, LOOKUP_HASH);
LOOKUP(array, LOOKUP_ARRAY);
LOOKUP(rhash, LOOKUP_RHASH);
