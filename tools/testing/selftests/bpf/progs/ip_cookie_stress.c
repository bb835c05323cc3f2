// SPDX-License-Identifier: GPL-2.0
/* Lookups of a BPF_MAP_TYPE_IP_COOKIE map that user space resizes from
 * another CPU meanwhile: every stable key must be found with its own value,
 * each hit increments the value in place, and the program notes when the
 * index it looks into was replaced during one of its runs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

/* Keys user space never writes while the programs run. */
#define NR_STABLE	32
/* Keys of the churn range looked up per round, besides the stable ones. */
#define NR_PEEK		8

/* The value of every key; prog_tests/ip_cookie_stress.c has the same. */
struct ipc_stress_val {
	__u64 tag;	/* key ^ tag_xor: tells which key's element this is */
	__u64 hits;	/* incremented in place by lookup_stable */
};

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 1 << 16);
	__type(key, __u64);
	__type(value, struct ipc_stress_val);
} stress_map SEC(".maps");

/* Set before the load.  Stable key i is stable_base + 16 * i, churn key j
 * is churn_base + 16 * j, j < churn_span.
 */
const volatile __u64 stable_base;
const volatile __u64 churn_base;
const volatile __u64 tag_xor;
const volatile __u32 churn_span = 1;

/* Rounds of lookups per run. */
__u32 rounds;

/* Only the reader thread runs lookup_stable, one run at a time: plain
 * increments suffice for these.
 */
__u64 found[NR_STABLE];		/* hits, i.e. increments, per stable key */
__u64 runs;
__u64 lookups;			/* of stable keys */
__u64 misses;			/* stable keys not found */
__u64 wrong;			/* stable keys found with another key's tag */
__u64 churn_found;
__u64 churn_wrong;		/* churn keys found with another key's tag */
__u64 tbl_changes;		/* index replaced between two reads in a run */
__u64 overlapped_runs;		/* runs that saw at least one replacement */
__u32 peek;

/* Set by user space; counted by count_rebuilds. */
int test_tgid;
__u64 rebuilds;

/* The index the map points to now.  The old index of a rebuild is freed
 * only after an RCU Tasks Trace grace period, which cannot end during a
 * run of this sleepable program: two reads in one run that differ saw a
 * rebuild published in between, never a reused address.  Needs
 * CAP_PERFMON (a map_ptr read).
 */
static __always_inline __u64 cur_tbl(void)
{
	struct bpf_ip_cookie *ic = (struct bpf_ip_cookie *)&stress_map;

	return (__u64)ic->tbl;
}

struct run_ctx {
	__u64 tbl;	/* index seen at the start of the round */
};

static int stress_round(__u32 r, struct run_ctx *c)
{
	struct ipc_stress_val *v;
	__u64 key, tbl;
	__u32 i, j;

	tbl = cur_tbl();
	if (tbl != c->tbl)
		tbl_changes++;
	c->tbl = tbl;

	for (i = 0; i < NR_STABLE; i++) {
		key = stable_base + 16 * (__u64)i;
		v = bpf_map_lookup_elem(&stress_map, &key);
		lookups++;
		if (!v) {
			misses++;
			continue;
		}
		if (v->tag != (key ^ tag_xor))
			wrong++;
		__sync_fetch_and_add(&v->hits, 1);
		found[i]++;
	}

	/* Churn keys come and go: any may be missing, but one that is found
	 * has its own value.  Writing to it checks under KASAN that an
	 * element just replaced or deleted is still valid memory.
	 */
	for (i = 0; i < NR_PEEK; i++) {
		j = peek++ % churn_span;
		key = churn_base + 16 * (__u64)j;
		v = bpf_map_lookup_elem(&stress_map, &key);
		if (!v)
			continue;
		churn_found++;
		if (v->tag != (key ^ tag_xor))
			churn_wrong++;
		__sync_fetch_and_add(&v->hits, 1);
	}
	return 0;
}

/* Test-run by the reader thread: rounds x (NR_STABLE + NR_PEEK) lookups. */
SEC("syscall")
int lookup_stable(void *ctx)
{
	__u64 start = cur_tbl(), end;
	struct run_ctx c = { .tbl = start };

	bpf_loop(rounds, stress_round, &c, 0);
	/* A replacement during the last round counts too. */
	end = cur_tbl();
	if (end != c.tbl)
		tbl_changes++;
	if (end != start)
		overlapped_runs++;
	runs++;
	return 0;
}

/* Every index the map builds, published or not (a rebuild that misses
 * the probe bound tries again), is allocated here, by one of the test's
 * threads: the only map they change.
 */
SEC("fentry/bpf_map_area_alloc")
int BPF_PROG(count_rebuilds)
{
	if (bpf_get_current_pid_tgid() >> 32 == test_tgid)
		__sync_fetch_and_add(&rebuilds, 1);
	return 0;
}
