// SPDX-License-Identifier: GPL-2.0
/* Probes in a shared library, attached system-wide, find their data in
 * every process that maps the library: the key is the probe's offset in
 * the file (bpf_get_uprobe_offset()), the same wherever the library is
 * mapped, plus the link ID for a USDT's uprobe.multi link.  What each
 * process saw is counted in a hash map keyed by its PID.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>
#include "bpf_misc.h"
#include "../ip_cookie_common.h"

char _license[] SEC("license") = "GPL";

/* What the programs saw in one process (prog_tests/ip_cookie_uprobe.c
 * has the same struct).
 */
struct ipu_proc {
	__u64 hits;		/* program runs */
	__u64 misses;		/* runs whose lookup found nothing */
	__u64 by_class[16];	/* runs that found a value, by value >> 12 */
	__u64 ip;		/* bpf_get_func_ip() of the first run */
	__u64 offset;		/* bpf_get_uprobe_offset() of the first run */
	__u64 link_id;		/* bpf_get_attach_link_id() of the first run */
	__u64 value;		/* value the first run found, 0 if none */
	__u64 changed;		/* runs whose ip, offset or link ID differ */
};

/* {offset, link_id} -> value: USDT links */
struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 64);
	__type(key, struct bpf_ip_cookie_key);
	__type(value, __u64);
} usdt_keys SEC(".maps");

/* offset -> value: single uprobe and uretprobe links */
struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} offset_keys SEC(".maps");

/* PID -> what the entry programs (USDT, uprobe) saw in that process */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct ipu_proc);
} procs SEC(".maps");

/* PID -> what the uretprobe program saw */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct ipu_proc);
} ret_procs SEC(".maps");

/* Count one run in @pmap; @v is the result of the lookup. */
static __always_inline void record(void *pmap, __u64 ip, __u64 offset,
				   __u32 link_id, const __u64 *v)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	__u64 value = v ? *v : 0;
	struct ipu_proc *p;

	p = bpf_map_lookup_elem(pmap, &pid);
	if (!p) {
		/* The first run in this process: urandom_read has one thread,
		 * so no other run of this program races with it.
		 */
		struct ipu_proc first = {
			.ip = ip,
			.offset = offset,
			.link_id = link_id,
			.value = value,
		};

		bpf_map_update_elem(pmap, &pid, &first, BPF_NOEXIST);
		p = bpf_map_lookup_elem(pmap, &pid);
		if (!p)
			return;
	}
	__sync_fetch_and_add(&p->hits, 1);
	if (!v)
		__sync_fetch_and_add(&p->misses, 1);
	else
		__sync_fetch_and_add(&p->by_class[(value >> 12) & 15], 1);
	if (p->ip != ip || p->offset != offset || p->link_id != link_id)
		__sync_fetch_and_add(&p->changed, 1);
}

/* A USDT: libbpf attaches it through an uprobe.multi link, whose ID
 * tells two copies of the library apart.
 */
SEC("usdt")
__success
int usdt_hit(struct pt_regs *ctx)
{
	struct bpf_ip_cookie_key key = {
		.ip = bpf_get_uprobe_offset(),
		.link_id = bpf_get_attach_link_id(),
	};

	record(&procs, bpf_get_func_ip(ctx), key.ip, key.link_id,
	       bpf_map_lookup_elem(&usdt_keys, &key));
	return 0;
}

/* Single uprobes attached through perf events: offset keys. */
SEC("uprobe")
__success
int offset_uprobe(struct pt_regs *ctx)
{
	__u64 off = bpf_get_uprobe_offset();

	record(&procs, bpf_get_func_ip(ctx), off, 0,
	       bpf_map_lookup_elem(&offset_keys, &off));
	return 0;
}

/* Gets the offset of the function it was attached to. */
SEC("uretprobe")
__success
int offset_uretprobe(struct pt_regs *ctx)
{
	__u64 off = bpf_get_uprobe_offset();

	record(&ret_procs, bpf_get_func_ip(ctx), off, 0,
	       bpf_map_lookup_elem(&offset_keys, &off));
	return 0;
}

/* Programs that have no uprobe to ask about: refused at load time.  Not
 * loaded with the skeleton ("?"), only by RUN_TESTS().
 */
SEC("?fentry/bpf_fentry_test1")
__failure __msg("calling kernel function bpf_get_uprobe_offset is not allowed")
int BPF_PROG(offset_fentry)
{
	return bpf_get_uprobe_offset() != 0;
}

SEC("?tp_btf/task_newtask")
__failure __msg("calling kernel function bpf_get_uprobe_offset is not allowed")
int BPF_PROG(offset_tp_btf)
{
	return bpf_get_uprobe_offset() != 0;
}

SEC("?kprobe.multi")
__failure __msg("calling kernel function bpf_get_uprobe_offset is not allowed")
int offset_kprobe_multi(struct pt_regs *ctx)
{
	return bpf_get_uprobe_offset() != 0;
}
