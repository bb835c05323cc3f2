// SPDX-License-Identifier: GPL-2.0
/* Latency histograms of many kernel functions with one kprobe.session
 * program: the entry stores a timestamp in the session cookie, the return
 * adds the time taken to the log2 histogram of the function, found in a
 * BPF_MAP_TYPE_IP_COOKIE map by bpf_get_func_ip() and updated in place.
 * User space fills the map with the keys of the link once the link exists
 * and sets "ready" when they are all in: calls entered before are not
 * timed.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "ipcookie_funclatency.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 1 << 20);	/* a cap, not a size */
	__type(key, __u64);
	__type(value, struct hist);
} hists SEC(".maps");

__u64 unit_ns = 1;	/* set before loading: 1000 for usecs, 1000000 msecs */

/* set by user space once the map holds every key */
bool ready;
/* calls entered before that: not timed */
__u64 early;
/* returns after that which found no histogram: a key is not
 * bpf_get_func_ip()
 */
__u64 misses;

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	return r + (v >> 1);
}

static __always_inline __u64 *session_cookie(void *ctx)
{
	if (bpf_ksym_exists(bpf_session_cookie___ctx))
		return bpf_session_cookie___ctx(ctx);
	return bpf_session_cookie___void();
}

static __always_inline bool session_is_return(void *ctx)
{
	if (bpf_ksym_exists(bpf_session_is_return___ctx))
		return bpf_session_is_return___ctx(ctx);
	return bpf_session_is_return___void();
}

SEC("kprobe.session")
int time_by_ip(struct pt_regs *ctx)
{
	__u64 *start = session_cookie(ctx);
	__u64 ip, t;
	struct hist *h;
	__u32 slot;

	if (!session_is_return(ctx)) {
		if (!ready) {
			__sync_fetch_and_add(&early, 1);
			return 1;	/* no return probe */
		}
		*start = bpf_ktime_get_ns();
		return 0;	/* run at the return too */
	}
	t = (bpf_ktime_get_ns() - *start) / unit_ns;
	ip = bpf_get_func_ip(ctx);
	h = bpf_map_lookup_elem(&hists, &ip);
	if (!h) {
		__sync_fetch_and_add(&misses, 1);
		return 0;
	}
	slot = log2_u64(t);
	if (slot >= MAX_SLOTS)
		slot = MAX_SLOTS - 1;
	__sync_fetch_and_add(&h->slots[slot], 1);
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum, t);
	return 0;
}
