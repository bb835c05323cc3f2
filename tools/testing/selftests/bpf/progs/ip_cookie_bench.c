// SPDX-License-Identifier: GPL-2.0
/* Programs of the IP_COOKIE benchmarks (benchs/bench_ip_cookie.c).
 *
 * Hot path: trigger_driver calls bpf_get_numa_node_id() batch_iters times
 * per test run; one kprobe.multi, fentry or fentry.multi program per
 * variant is attached to it (and, for kprobe.multi and fentry.multi, to
 * N - 1 other functions).  Every variant
 * counts the hit and folds the data it found into a per-CPU slot, so the
 * only difference between two variants is how the per-function data is
 * found.  User space counts throughput from the driver's runs, so hits of
 * the other attached functions do not change the result; they are counted
 * in fires to report how often they happen.
 *
 * Lookup micro-benchmark: lookup_driver runs nr_loops lookups with an
 * inlined bpf_loop() over a shuffled array of keys.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "../ip_cookie_common.h"

char _license[] SEC("license") = "GPL";

#define CPU_MASK	255

struct slot {
	__u64 fires;	/* program runs, any attached function */
	__u64 sink;	/* sum of the data found */
	__u64 misses;	/* lookups that found nothing */
} __attribute__((aligned(128)));

struct slot slots[CPU_MASK + 1];

const volatile int batch_iters = 1;

/* cookie - 1 -> data, for the cookie-array variant */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set by user space */
	__type(key, __u32);
	__type(value, __u64);
} cookie_data SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* set by user space */
	__type(key, __u64);
	__type(value, __u64);
} ip_hash SEC(".maps");

/* The resizable hash: rhashtable, never preallocated; max_entries and
 * the size hint (map_extra) are set by user space.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RHASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);		/* set by user space */
	__type(key, __u64);
	__type(value, __u64);
} ip_rhash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 1);		/* set by user space */
	__type(key, __u64);
	__type(value, __u64);
} ip_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 1);		/* set by user space */
	__type(key, struct bpf_ip_cookie_key);
	__type(value, __u64);
} ip_link_map SEC(".maps");

/* Per-function data wider than a cookie: a 64-byte config or name */
struct wide {
	__u64 w[8];
};

/* cookie - 1 -> 64 bytes, the cookie-array way */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wide);
} wide_data SEC(".maps");

/* ip -> 64 bytes */
struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct wide);
} wide_map SEC(".maps");

static __always_inline void fold(__u64 v)
{
	struct slot *s = &slots[bpf_get_smp_processor_id() & CPU_MASK];

	s->fires++;
	s->sink += v;
}

static __always_inline void fold_ptr(__u64 *v)
{
	struct slot *s = &slots[bpf_get_smp_processor_id() & CPU_MASK];

	s->fires++;
	if (v)
		s->sink += *v;
	else
		s->misses++;
}

SEC("?raw_tp")
int trigger_driver(void *ctx)
{
	int i;

	for (i = 0; i < batch_iters; i++)
		(void)bpf_get_numa_node_id(); /* attach point */
	return 0;
}

/* kprobe.multi variants */

SEC("?kprobe.multi")
int kmulti_empty(void *ctx)
{
	fold(1);
	return 0;
}

/* The key alone, no lookup: the first step of the map's path. */
SEC("?kprobe.multi")
int kmulti_funcip(void *ctx)
{
	fold(bpf_get_func_ip(ctx));
	return 0;
}

SEC("?kprobe.multi")
int kmulti_funcip_link(void *ctx)
{
	fold(bpf_get_func_ip(ctx) + bpf_get_attach_link_id());
	return 0;
}

SEC("?kprobe.multi")
int kmulti_cookie(void *ctx)
{
	fold(bpf_get_attach_cookie(ctx));
	return 0;
}

SEC("?kprobe.multi")
int kmulti_cookie_array(void *ctx)
{
	__u32 idx = bpf_get_attach_cookie(ctx) - 1;

	fold_ptr(bpf_map_lookup_elem(&cookie_data, &idx));
	return 0;
}

SEC("?kprobe.multi")
int kmulti_hash(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	fold_ptr(bpf_map_lookup_elem(&ip_hash, &ip));
	return 0;
}

SEC("?kprobe.multi")
int kmulti_rhash(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	fold_ptr(bpf_map_lookup_elem(&ip_rhash, &ip));
	return 0;
}

SEC("?kprobe.multi")
int kmulti_ipc(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	fold_ptr(bpf_map_lookup_elem(&ip_map, &ip));
	return 0;
}

/* The same lookup with the ip by value: nothing goes through the stack. */
SEC("?kprobe.multi")
int kmulti_kfunc(void *ctx)
{
	fold_ptr(bpf_ip_cookie_lookup(&ip_map, bpf_get_func_ip(ctx)));
	return 0;
}

SEC("?kprobe.multi")
int kmulti_ipc_link(void *ctx)
{
	struct bpf_ip_cookie_key key = {
		.ip = bpf_get_func_ip(ctx),
		.link_id = bpf_get_attach_link_id(),
	};

	fold_ptr(bpf_map_lookup_elem(&ip_link_map, &key));
	return 0;
}

/* uprobe.multi variants, attached to the bench's ipc_uprobe_target() */

SEC("?uprobe.multi")
int umulti_empty(void *ctx)
{
	fold(1);
	return 0;
}

SEC("?uprobe.multi")
int umulti_offset(void *ctx)
{
	fold(bpf_get_uprobe_offset());
	return 0;
}

SEC("?uprobe.multi")
int umulti_offset_link(void *ctx)
{
	fold(bpf_get_uprobe_offset() + bpf_get_attach_link_id());
	return 0;
}

SEC("?uprobe.multi")
int umulti_cookie(void *ctx)
{
	fold(bpf_get_attach_cookie(ctx));
	return 0;
}

SEC("?uprobe.multi")
int umulti_cookie_array(void *ctx)
{
	__u32 idx = bpf_get_attach_cookie(ctx) - 1;

	fold_ptr(bpf_map_lookup_elem(&cookie_data, &idx));
	return 0;
}

/* The file offset alone: enough when one file is traced. */
SEC("?uprobe.multi")
int umulti_ipc(void *ctx)
{
	fold_ptr(bpf_ip_cookie_lookup(&ip_map, bpf_get_uprobe_offset()));
	return 0;
}

SEC("?uprobe.multi")
int umulti_ipc_link(void *ctx)
{
	struct bpf_ip_cookie_key key = {
		.ip = bpf_get_uprobe_offset(),
		.link_id = bpf_get_attach_link_id(),
	};

	fold_ptr(bpf_map_lookup_elem(&ip_link_map, &key));
	return 0;
}

/* fentry variants, attached to bpf_get_numa_node_id() only */

SEC("?fentry/bpf_get_numa_node_id")
int fentry_empty(void *ctx)
{
	fold(1);
	return 0;
}

SEC("?fentry/bpf_get_numa_node_id")
int fentry_funcip(void *ctx)
{
	fold(bpf_get_func_ip(ctx));
	return 0;
}

SEC("?fentry/bpf_get_numa_node_id")
int fentry_cookie(void *ctx)
{
	fold(bpf_get_attach_cookie(ctx));
	return 0;
}

SEC("?fentry/bpf_get_numa_node_id")
int fentry_hash(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	fold_ptr(bpf_map_lookup_elem(&ip_hash, &ip));
	return 0;
}

SEC("?fentry/bpf_get_numa_node_id")
int fentry_rhash(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	fold_ptr(bpf_map_lookup_elem(&ip_rhash, &ip));
	return 0;
}

SEC("?fentry/bpf_get_numa_node_id")
int fentry_ipc(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	fold_ptr(bpf_map_lookup_elem(&ip_map, &ip));
	return 0;
}

SEC("?fentry/bpf_get_numa_node_id")
int fentry_kfunc(void *ctx)
{
	fold_ptr(bpf_ip_cookie_lookup(&ip_map, bpf_get_func_ip(ctx)));
	return 0;
}

SEC("?fentry/bpf_get_numa_node_id")
int fentry_cookie_array(void *ctx)
{
	__u32 idx = bpf_get_attach_cookie(ctx) - 1;

	fold_ptr(bpf_map_lookup_elem(&cookie_data, &idx));
	return 0;
}

/* Every word of the 64 bytes is read, as a program using them would. */
static __always_inline void fold_wide(struct wide *v)
{
	struct slot *s = &slots[bpf_get_smp_processor_id() & CPU_MASK];
	int i;

	s->fires++;
	if (!v) {
		s->misses++;
		return;
	}
	for (i = 0; i < 8; i++)
		s->sink += v->w[i];
}

SEC("?fentry/bpf_get_numa_node_id")
int fentry_wide_array(void *ctx)
{
	__u32 idx = bpf_get_attach_cookie(ctx) - 1;

	fold_wide(bpf_map_lookup_elem(&wide_data, &idx));
	return 0;
}

SEC("?fentry/bpf_get_numa_node_id")
int fentry_wide_ipc(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	fold_wide(bpf_map_lookup_elem(&wide_map, &ip));
	return 0;
}

/* fentry.multi variants: one tracing multi-link over N functions, the
 * trigger among them, each function with its own cookie (i + 1).
 */

SEC("?fentry.multi")
int fmulti_empty(void *ctx)
{
	fold(1);
	return 0;
}

SEC("?fentry.multi")
int fmulti_funcip(void *ctx)
{
	fold(bpf_get_func_ip(ctx));
	return 0;
}

SEC("?fentry.multi")
int fmulti_cookie(void *ctx)
{
	fold(bpf_get_attach_cookie(ctx));
	return 0;
}

SEC("?fentry.multi")
int fmulti_cookie_array(void *ctx)
{
	__u32 idx = bpf_get_attach_cookie(ctx) - 1;

	fold_ptr(bpf_map_lookup_elem(&cookie_data, &idx));
	return 0;
}

SEC("?fentry.multi")
int fmulti_hash(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	fold_ptr(bpf_map_lookup_elem(&ip_hash, &ip));
	return 0;
}

SEC("?fentry.multi")
int fmulti_rhash(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	fold_ptr(bpf_map_lookup_elem(&ip_rhash, &ip));
	return 0;
}

SEC("?fentry.multi")
int fmulti_ipc(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	fold_ptr(bpf_map_lookup_elem(&ip_map, &ip));
	return 0;
}

SEC("?fentry.multi")
int fmulti_kfunc(void *ctx)
{
	fold_ptr(bpf_ip_cookie_lookup(&ip_map, bpf_get_func_ip(ctx)));
	return 0;
}

SEC("?fentry.multi")
int fmulti_wide_array(void *ctx)
{
	__u32 idx = bpf_get_attach_cookie(ctx) - 1;

	fold_wide(bpf_map_lookup_elem(&wide_data, &idx));
	return 0;
}

SEC("?fentry.multi")
int fmulti_wide_ipc(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	fold_wide(bpf_map_lookup_elem(&wide_map, &ip));
	return 0;
}

/* Lookup micro-benchmark */

enum {
	LOOKUP_NONE,	/* only fetch the key: the loop's own cost */
	LOOKUP_IPC,
	LOOKUP_HASH,
	LOOKUP_ARRAY,	/* by index: the floor of any lookup */
	LOOKUP_RHASH,
};

const volatile int lookup_kind = LOOKUP_NONE;
const volatile __u32 nr_keys = 1;
const volatile __u32 nr_loops = 1;

/* position in keys[], carried over between runs */
__u32 key_pos;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set by user space */
	__type(key, __u32);
	__type(value, __u64);
} keys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set by user space */
	__type(key, __u32);
	__type(value, __u64);
} lk_array SEC(".maps");

struct loop_ctx {
	__u32 pos;
	__u64 sum;
	__u64 misses;
};

static int lookup_one(__u32 i, struct loop_ctx *lc)
{
	__u32 idx = lc->pos;
	__u64 *key, *v;

	if (++lc->pos >= nr_keys)
		lc->pos = 0;
	key = bpf_map_lookup_elem(&keys, &idx);
	if (!key)
		return 1;
	switch (lookup_kind) {
	case LOOKUP_IPC:
		v = bpf_map_lookup_elem(&ip_map, key);
		break;
	case LOOKUP_HASH:
		v = bpf_map_lookup_elem(&ip_hash, key);
		break;
	case LOOKUP_ARRAY:
		v = bpf_map_lookup_elem(&lk_array, &idx);
		break;
	case LOOKUP_RHASH:
		v = bpf_map_lookup_elem(&ip_rhash, key);
		break;
	default:
		lc->sum += *key;
		return 0;
	}
	if (v)
		lc->sum += *v;
	else
		lc->misses++;
	return 0;
}

SEC("?raw_tp")
int lookup_driver(void *ctx)
{
	struct loop_ctx lc = { .pos = key_pos };
	struct slot *s = &slots[bpf_get_smp_processor_id() & CPU_MASK];

	bpf_loop(nr_loops, lookup_one, &lc, 0);
	key_pos = lc.pos;
	s->fires += nr_loops;
	s->sink += lc.sum;
	s->misses += lc.misses;
	return 0;
}
