// SPDX-License-Identifier: GPL-2.0
/* Programs that find their entries in IP_COOKIE maps filled with the keys
 * bpf_link__ip_cookie_keys() returns for their links.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "../ip_cookie_common.h"

char _license[] SEC("license") = "GPL";

#define NR_LINK_SLOTS 8

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u64);
} ip_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 64);
	__type(key, struct bpf_ip_cookie_key);
	__type(value, __u64);
} link_map SEC(".maps");

/* Only hits of this thread count, once user space has filled the map. */
int tid;
int armed;
/* The value of key ip in ip_map is ip ^ mask. */
__u64 mask;

__u64 hits;
__u64 missed;
__u64 wrong;
__u64 missed_ip;	/* the last key that was not in the map */
__u64 wrong_ip;		/* the last key whose value was not its own */

/* link_map hits, by value */
__u64 link_hits[NR_LINK_SLOTS];

static __always_inline bool counting(void)
{
	return armed && (__u32)bpf_get_current_pid_tgid() == tid;
}

/* fexit.multi hits (check_ip_fexit) */
__u64 exit_hits;

/* Functions of a tracing_multi link that check_ip_fentry saw counting. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u8);
} seen SEC(".maps");

/* Checks that the value found under the function's IP is its own. */
static __always_inline void check_func_ip(__u64 ip, __u64 *hit_cnt)
{
	__u64 *v;

	if (!counting())
		return;
	v = bpf_map_lookup_elem(&ip_map, &ip);
	if (!v) {
		missed_ip = ip;
		__sync_fetch_and_add(&missed, 1);
	} else if (*v != (ip ^ mask)) {
		wrong_ip = ip;
		__sync_fetch_and_add(&wrong, 1);
	} else {
		__sync_fetch_and_add(hit_cnt, 1);
	}
}

SEC("kprobe.multi")
int check_ip(struct pt_regs *ctx)
{
	check_func_ip(bpf_get_func_ip(ctx), &hits);
	return 0;
}

/* The same at entry and at exit of a tracing_multi link's functions
 * (loaded where the kernel has such links: x86-64).
 */
SEC("?fentry.multi")
int check_ip_fentry(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);
	__u8 one = 1;

	check_func_ip(ip, &hits);
	if (counting())
		bpf_map_update_elem(&seen, &ip, &one, BPF_ANY);
	return 0;
}

SEC("?fexit.multi")
int check_ip_fexit(void *ctx)
{
	check_func_ip(bpf_get_func_ip(ctx), &exit_hits);
	return 0;
}

/* Counts the hits of each function in its map value. */
SEC("kprobe.multi")
int count_ip(struct pt_regs *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);
	__u64 *v;

	if (!counting())
		return 0;
	v = bpf_map_lookup_elem(&ip_map, &ip);
	if (!v) {
		missed_ip = ip;
		__sync_fetch_and_add(&missed, 1);
		return 0;
	}
	__sync_fetch_and_add(v, 1);
	return 0;
}

static __always_inline void count_link(void *ctx)
{
	struct bpf_ip_cookie_key key = {
		.ip = bpf_get_func_ip(ctx),
		.link_id = bpf_get_attach_link_id(),
	};
	__u64 *v;

	if (!counting())
		return;
	v = bpf_map_lookup_elem(&link_map, &key);
	if (!v || *v >= NR_LINK_SLOTS) {
		missed_ip = key.ip;
		__sync_fetch_and_add(&missed, 1);
		return;
	}
	__sync_fetch_and_add(&link_hits[*v], 1);
}

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(fentry_link, int a)
{
	count_link(ctx);
	return 0;
}

SEC("fexit/bpf_fentry_test1")
int BPF_PROG(fexit_link, int a, int ret)
{
	count_link(ctx);
	return 0;
}

SEC("kprobe.multi")
int kmulti_link(struct pt_regs *ctx)
{
	count_link(ctx);
	return 0;
}

/* Links bpf_link__ip_cookie_keys() does not serve. */
SEC("raw_tp/sys_enter")
int raw_tp(void *ctx)
{
	return 0;
}

SEC("kprobe")
int kprobe_single(struct pt_regs *ctx)
{
	return 0;
}

/* Calls bpf_fentry_test1..9 when test-run; attached only by
 * ip_cookie_keys_hidden, for a trampoline link that calls no kfunc.
 */
SEC("fentry/bpf_modify_return_test")
int BPF_PROG(trigger)
{
	return 0;
}
