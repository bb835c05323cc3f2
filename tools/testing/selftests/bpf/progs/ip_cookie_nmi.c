// SPDX-License-Identifier: GPL-2.0
/* Lookups in NMI context: a kprobe.multi and an fentry program on
 * cpu_in_idle(), which a backtrace of all CPUs (sysrq 'l') calls from the
 * NMI handler of every CPU but the one that asked (nmi_cpu_backtrace()
 * itself is not traceable), look up their function's value while user
 * space resizes the map.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf_experimental.h"
#include "../ip_cookie_common.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 1 << 16);
	__type(key, __u64);
	__type(value, __u64);
} ip_map SEC(".maps");

enum { KMULTI, FENTRY, NR_KINDS };

__u64 want;
/* Per program kind: hits in NMI context, other hits, lookups that found
 * nothing, lookups that found another value.
 */
__u64 nmi_hits[NR_KINDS], other_hits[NR_KINDS];
__u64 misses[NR_KINDS], wrong[NR_KINDS];

static __always_inline void look_up(void *ctx, int kind)
{
	__u64 *v = bpf_ip_cookie_lookup(&ip_map, bpf_get_func_ip(ctx));

	if (bpf_in_nmi())
		__sync_fetch_and_add(&nmi_hits[kind], 1);
	else
		__sync_fetch_and_add(&other_hits[kind], 1);
	if (!v)
		__sync_fetch_and_add(&misses[kind], 1);
	else if (*v != want)
		__sync_fetch_and_add(&wrong[kind], 1);
}

SEC("kprobe.multi/cpu_in_idle")
int BPF_KPROBE(nmi_kmulti)
{
	look_up(ctx, KMULTI);
	return 0;
}

SEC("fentry/cpu_in_idle")
int BPF_PROG(nmi_fentry)
{
	look_up(ctx, FENTRY);
	return 0;
}
