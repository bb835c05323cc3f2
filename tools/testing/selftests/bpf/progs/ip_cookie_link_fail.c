// SPDX-License-Identifier: GPL-2.0
/* bpf_get_attach_link_id() is refused where no link ID is known. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf_misc.h"
#include "../ip_cookie_common.h"

char _license[] SEC("license") = "GPL";

SEC("kprobe")
__failure __msg("calling kernel function bpf_get_attach_link_id is not allowed")
int link_id_kprobe(void *ctx)
{
	return bpf_get_attach_link_id();
}

SEC("uprobe")
__failure __msg("calling kernel function bpf_get_attach_link_id is not allowed")
int link_id_uprobe(void *ctx)
{
	return bpf_get_attach_link_id();
}

SEC("tp_btf/task_newtask")
__failure __msg("calling kernel function bpf_get_attach_link_id is not allowed")
int link_id_tp_btf(void *ctx)
{
	return bpf_get_attach_link_id();
}

SEC("kprobe.multi")
__success
int link_id_kprobe_multi(void *ctx)
{
	return bpf_get_attach_link_id();
}

__u32 link_id;

/* Only the x86-64 JIT stores the link ID in its trampolines (elsewhere
 * ip_cookie_link checks the refusal).
 */
SEC("fentry/bpf_fentry_test1")
__arch_x86_64
__success
int link_id_fentry(void *ctx)
{
	link_id = bpf_get_attach_link_id();
	return 0;
}
