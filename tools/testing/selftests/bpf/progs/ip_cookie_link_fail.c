// SPDX-License-Identifier: GPL-2.0
/* bpf_get_attach_link_id() is refused where no link ID is known. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf_misc.h"
#include "bpf_experimental.h"
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

/* Async callbacks run from a timer or a work item, with whatever run
 * context the task they interrupt has, or none: the kfuncs that read the
 * program's run context are refused there, and in global subprograms,
 * which are verified without their callers.
 */
struct async_elem {
	struct bpf_timer t;
	struct bpf_wq w;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct async_elem);
} async_map SEC(".maps");

static int link_id_timer_cb(void *map, int *key, struct bpf_timer *timer)
{
	link_id = bpf_get_attach_link_id();
	return 0;
}

SEC("fentry/bpf_fentry_test1")
__arch_x86_64
__failure __msg("bpf_get_attach_link_id is not allowed in async callbacks or global subprograms")
int link_id_in_timer_cb(void *ctx)
{
	struct async_elem *e;
	int key = 0;

	e = bpf_map_lookup_elem(&async_map, &key);
	if (!e)
		return 0;
	bpf_timer_init(&e->t, &async_map, 0);
	bpf_timer_set_callback(&e->t, link_id_timer_cb);
	bpf_timer_start(&e->t, 0, 0);
	return 0;
}

static int link_id_wq_cb(void *map, int *key, void *value)
{
	link_id = bpf_get_attach_link_id();
	return 0;
}

SEC("fentry/bpf_fentry_test1")
__arch_x86_64
__failure __msg("bpf_get_attach_link_id is not allowed in async callbacks or global subprograms")
int link_id_in_wq_cb(void *ctx)
{
	struct async_elem *e;
	int key = 0;

	e = bpf_map_lookup_elem(&async_map, &key);
	if (!e)
		return 0;
	if (bpf_wq_init(&e->w, &async_map, 0) ||
	    bpf_wq_set_callback(&e->w, link_id_wq_cb, 0))
		return 0;
	bpf_wq_start(&e->w, 0);
	return 0;
}

__noinline int link_id_global(void)
{
	return bpf_get_attach_link_id();
}

SEC("kprobe.multi")
__failure __msg("bpf_get_attach_link_id is not allowed in async callbacks or global subprograms")
int link_id_in_global_subprog(void *ctx)
{
	return link_id_global();
}

static __noinline int link_id_static(void)
{
	return bpf_get_attach_link_id();
}

/* A static subprogram runs in its caller's context: allowed. */
SEC("kprobe.multi")
__success
int link_id_in_static_subprog(void *ctx)
{
	return link_id_static();
}

__noinline __u64 uprobe_offset_global(void)
{
	return bpf_get_uprobe_offset();
}

SEC("uprobe.multi")
__failure __msg("bpf_get_uprobe_offset is not allowed in async callbacks or global subprograms")
int uprobe_offset_in_global_subprog(void *ctx)
{
	return uprobe_offset_global();
}

SEC("uprobe.session")
__success
int uprobe_offset_usession(void *ctx)
{
	return bpf_get_uprobe_offset() ? 0 : 1;
}

SEC("fsession/bpf_fentry_test1")
__arch_x86_64
__success
int link_id_fsession(void *ctx)
{
	link_id = bpf_get_attach_link_id();
	return 0;
}

SEC("fentry.multi")
__arch_x86_64
__success
int link_id_fentry_multi(void *ctx)
{
	link_id = bpf_get_attach_link_id();
	return 0;
}
