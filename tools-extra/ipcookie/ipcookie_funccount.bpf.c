// SPDX-License-Identifier: GPL-2.0
/* Count calls of many kernel functions with one kprobe.multi program.
 * The per-function counter lives in a BPF_MAP_TYPE_IP_COOKIE map keyed by
 * bpf_get_func_ip() and is incremented in place: programs may only look
 * the map up; user space adds the entries, with the keys of the link, once
 * the link exists, and sets "ready" when they are all in.
 *
 * count_by_cookie does the same through bpf_get_attach_cookie(), the index
 * of the function's counter in an ARRAY map, for comparison (--cookie).
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 1 << 20);	/* a cap, not a size */
	__type(key, __u64);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set to the number of functions */
	__type(key, __u32);
	__type(value, __u64);
} cookie_counts SEC(".maps");

/* set by user space once the map holds every key */
bool ready;
/* hits before that: not counted */
__u64 early;
/* hits after that which found no counter: a key is not bpf_get_func_ip() */
__u64 misses;

SEC("kprobe.multi")
int count_by_ip(struct pt_regs *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);
	__u64 *n;

	if (!ready) {
		__sync_fetch_and_add(&early, 1);
		return 0;
	}
	n = bpf_map_lookup_elem(&counts, &ip);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		__sync_fetch_and_add(&misses, 1);
	return 0;
}

SEC("kprobe.multi")
int count_by_cookie(struct pt_regs *ctx)
{
	__u32 idx = bpf_get_attach_cookie(ctx);
	__u64 *n;

	/* the same window as count_by_ip's, for the same counts */
	if (!ready) {
		__sync_fetch_and_add(&early, 1);
		return 0;
	}
	n = bpf_map_lookup_elem(&cookie_counts, &idx);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		__sync_fetch_and_add(&misses, 1);
	return 0;
}
