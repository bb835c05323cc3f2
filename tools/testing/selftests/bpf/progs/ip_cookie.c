// SPDX-License-Identifier: GPL-2.0
/* Programs of every tracing type look their per-function data up in a
 * BPF_MAP_TYPE_IP_COOKIE map and record it next to the attach cookie of
 * the same hit, so the test can prove the two agree.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf_kfuncs.h"
#include "../ip_cookie_common.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} ip_map SEC(".maps");

/* Values the programs increment in place; the test resizes it meanwhile. */
struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 1 << 20);
	__type(key, __u64);
	__type(value, __u64);
} count_map SEC(".maps");

/* {ip, link_id} keys, for bpftool's dump of a 16-byte key with its BTF */
struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 8);
	__type(key, struct bpf_ip_cookie_key);
	__type(value, __u64);
} link_keyed_map SEC(".maps");

/* Inner maps: each has its own seed, which an inlined lookup must take
 * from the map it looks into, not from the template the verifier saw.
 */
struct inner_ipc {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, IPC_NR_INNER);
	__type(key, __u32);
	__array(values, struct inner_ipc);
} outer_map SEC(".maps");

/* Inner maps hold ip + tag for the traced functions, tag 1 or 2: hits
 * per inner map by the tag found (0: any other value), and misses.
 */
__u64 inner_tags[IPC_NR_INNER][3], inner_missed[IPC_NR_INNER];

int test_pid;
/* Results per attach type; named apart from the section names. */
struct ipc_prog_result result_kprobe, result_kretprobe, result_koff;
struct ipc_prog_result result_kmulti, result_kretmulti;
struct ipc_prog_result result_sess_entry, result_sess_return;
struct ipc_prog_result result_fentry, result_fexit, result_fmod_ret;
struct ipc_prog_result result_fentry_s;
struct ipc_prog_result result_uprobe, result_uprobe_multi, result_uprobe_sleep;
struct ipc_prog_result result_uretprobe, result_uretprobe_multi;
struct ipc_prog_result result_tp, result_raw_tp, result_tp_btf, result_perf;
__u64 count_missed;

static __always_inline void record(struct ipc_prog_result *r, void *ctx,
				   __u64 key)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u64 *v, idx;

	if (bpf_get_current_pid_tgid() >> 32 != test_pid)
		return;
	v = bpf_map_lookup_elem(&ip_map, &key);
	idx = cookie - 1;
	if (idx >= IPC_NR_SLOTS) {
		r->bad_cookie++;
		return;
	}
	r->hits[idx]++;
	if (!v)
		r->missed[idx]++;
	else if (*v != cookie)
		r->differ[idx]++;
	r->value[idx] = v ? *v : 0;
	r->ip[idx] = key;
}

SEC("kprobe")
int BPF_KPROBE(ipc_kprobe)
{
	record(&result_kprobe, ctx, bpf_get_func_ip(ctx));
	return 0;
}

/* Attached past the function's entry: bpf_get_func_ip() is 0, which is
 * never a key, so every hit is a miss.
 */
SEC("kprobe")
int ipc_kprobe_offset(struct pt_regs *ctx)
{
	record(&result_koff, ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(ipc_kretprobe)
{
	record(&result_kretprobe, ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("kprobe.multi")
int ipc_kmulti(struct pt_regs *ctx)
{
	record(&result_kmulti, ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("kretprobe.multi")
int ipc_kretmulti(struct pt_regs *ctx)
{
	record(&result_kretmulti, ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("kprobe.session")
int ipc_session(struct pt_regs *ctx)
{
	bool ret = bpf_session_is_return(ctx);

	record(ret ? &result_sess_return : &result_sess_entry, ctx,
	       bpf_get_func_ip(ctx));
	return 0;	/* also run on return */
}

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(ipc_fentry, int a)
{
	record(&result_fentry, ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("fexit/bpf_fentry_test1")
int BPF_PROG(ipc_fexit, int a, int ret)
{
	record(&result_fexit, ctx, bpf_get_func_ip(ctx));
	return 0;
}

/* Sleepable: the lookup runs under rcu_read_lock_trace() */
SEC("fentry.s/bpf_fentry_test1")
int BPF_PROG(ipc_fentry_s, int a)
{
	record(&result_fentry_s, ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("fmod_ret/bpf_modify_return_test")
int BPF_PROG(ipc_fmod_ret, int a, int *b, int ret)
{
	record(&result_fmod_ret, ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("uprobe")
int ipc_uprobe(struct pt_regs *ctx)
{
	record(&result_uprobe, ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("uprobe.multi")
int ipc_uprobe_multi(struct pt_regs *ctx)
{
	record(&result_uprobe_multi, ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("uretprobe")
int ipc_uretprobe(struct pt_regs *ctx)
{
	record(&result_uretprobe, ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("uretprobe.multi")
int ipc_uretprobe_multi(struct pt_regs *ctx)
{
	record(&result_uretprobe_multi, ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("uprobe.s")
int ipc_uprobe_sleep(struct pt_regs *ctx)
{
	record(&result_uprobe_sleep, ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("tp/task/task_newtask")
int ipc_tp(void *ctx)
{
	record(&result_tp, ctx, IPC_TAG_TP);
	return 0;
}

SEC("raw_tp/task_newtask")
int ipc_raw_tp(void *ctx)
{
	record(&result_raw_tp, ctx, IPC_TAG_RAW_TP);
	return 0;
}

/* bpf_get_func_ip() is not offered to tp_btf programs: a tag, as above */
SEC("tp_btf/task_newtask")
int ipc_tp_btf(void *ctx)
{
	record(&result_tp_btf, ctx, IPC_TAG_TP_BTF);
	return 0;
}

SEC("perf_event")
int ipc_perf(void *ctx)
{
	record(&result_perf, ctx, IPC_TAG_PERF);
	return 0;
}

/* In-place writes: count every hit in the value of the function's entry. */
SEC("kprobe.multi")
int ipc_count(struct pt_regs *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);
	__u64 *v;

	if (bpf_get_current_pid_tgid() >> 32 != test_pid)
		return 0;
	v = bpf_map_lookup_elem(&count_map, &ip);
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		__sync_fetch_and_add(&count_missed, 1);
	return 0;
}

/* The counters come as pointers: an index read back from the stack,
 * where the key of the outer lookup lives, would be unbounded.
 */
static __always_inline void inner_lookup(__u32 i, __u64 ip, __u64 *tags,
					 __u64 *missed)
{
	void *inner = bpf_map_lookup_elem(&outer_map, &i);
	__u64 *v, tag;

	if (!inner)
		return;
	v = bpf_map_lookup_elem(inner, &ip);
	if (!v) {
		*missed += 1;
		return;
	}
	tag = *v - ip;
	if (tag == 1)
		tags[1] += 1;
	else if (tag == 2)
		tags[2] += 1;
	else
		tags[0] += 1;
}

#if IPC_NR_INNER != 2
#error "ipc_inner() looks up one inner map per call of inner_lookup()"
#endif

SEC("kprobe.multi")
int ipc_inner(struct pt_regs *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	if (bpf_get_current_pid_tgid() >> 32 != test_pid)
		return 0;
	inner_lookup(0, ip, inner_tags[0], &inner_missed[0]);
	inner_lookup(1, ip, inner_tags[1], &inner_missed[1]);
	return 0;
}

/* Calls bpf_fentry_test1..8 when test-run; never attached. */
SEC("fentry/bpf_modify_return_test")
int BPF_PROG(ipc_trigger)
{
	return 0;
}
