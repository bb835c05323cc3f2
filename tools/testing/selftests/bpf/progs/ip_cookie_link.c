// SPDX-License-Identifier: GPL-2.0
/* Link-scoped entries: a program builds the {ip, link_id} key itself with
 * bpf_get_attach_link_id() and finds the value of the link it runs under.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "../ip_cookie_common.h"

char _license[] SEC("license") = "GPL";

#define NR_SLOTS 64

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 256);
	__type(key, struct bpf_ip_cookie_key);
	__type(value, __u64);
} link_map SEC(".maps");

int pid;
/* hits[value]: the value encodes (link, function), set by user space */
__u64 hits[NR_SLOTS];
__u64 missed;
/* Link IDs seen, by the value's link index (value / 16). */
__u32 seen_link_id[4];

static __always_inline void count(void *ctx, __u64 ip)
{
	struct bpf_ip_cookie_key key = {
		.ip = ip,
		.link_id = bpf_get_attach_link_id(),
	};
	__u64 *v;

	if (bpf_get_current_pid_tgid() >> 32 != pid)
		return;
	v = bpf_map_lookup_elem(&link_map, &key);
	if (!v || *v >= NR_SLOTS) {
		__sync_fetch_and_add(&missed, 1);
		return;
	}
	__sync_fetch_and_add(&hits[*v], 1);
	seen_link_id[(*v / 16) & 3] = key.link_id;
}

SEC("kprobe.multi")
int link_kmulti(struct pt_regs *ctx)
{
	count(ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("uprobe.multi")
int link_umulti(struct pt_regs *ctx)
{
	count(ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(link_fentry_a, int a)
{
	count(ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(link_fentry_b, int a)
{
	count(ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("fexit/bpf_fentry_test2")
int BPF_PROG(link_fexit, int a, __u64 b, int ret)
{
	count(ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("fmod_ret/bpf_modify_return_test")
int BPF_PROG(link_fmod_ret, int a, int *b, int ret)
{
	count(ctx, bpf_get_func_ip(ctx));
	return 0;
}

/* Calls bpf_fentry_test1..8 when test-run; never attached. */
SEC("fentry/bpf_modify_return_test")
int BPF_PROG(link_trigger)
{
	return 0;
}
