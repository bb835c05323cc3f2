// SPDX-License-Identifier: GPL-2.0
/* Link-scoped entries: a program builds the {ip, link_id} key itself with
 * bpf_get_attach_link_id() and finds the value of the link it runs under.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf_misc.h"
#include "../ip_cookie_common.h"

char _license[] SEC("license") = "GPL";

#define NR_SLOTS 64

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 256);
	__type(key, struct bpf_ip_cookie_key);
	__type(value, __u64);
} link_map SEC(".maps");

int test_pid;
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

	if (bpf_get_current_pid_tgid() >> 32 != test_pid)
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

SEC("kretprobe.multi")
int link_kretmulti(struct pt_regs *ctx)
{
	count(ctx, bpf_get_func_ip(ctx));
	return 0;
}

/* Runs at entry and at return, under the same link each time. */
SEC("kprobe.session")
int link_session(struct pt_regs *ctx)
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

/* One link, two trampoline nodes: entry and exit. */
SEC("fsession/bpf_fentry_test3")
int BPF_PROG(link_fsession, char a, int b, __u64 c)
{
	count(ctx, bpf_get_func_ip(ctx));
	return 0;
}

/* tracing_multi links: one node per function, each with the link's ID.
 * A program is linked to a function's trampoline once: two links on the
 * same functions need two programs, as for fentry.
 */
SEC("fentry.multi")
int link_fentry_multi(void *ctx)
{
	count(ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("fentry.multi")
int link_fentry_multi_b(void *ctx)
{
	count(ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("fexit.multi")
int link_fexit_multi(void *ctx)
{
	count(ctx, bpf_get_func_ip(ctx));
	return 0;
}

SEC("fsession.multi")
int link_fsession_multi(void *ctx)
{
	count(ctx, bpf_get_func_ip(ctx));
	return 0;
}

/* Runs at entry and at return, as kprobe.session. */
SEC("uprobe.session")
int link_usession(struct pt_regs *ctx)
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

/* Link lifetime: programs that still run after their link is destroyed. */
int uaf_pid;
__u64 uaf_uaddr;
__u32 uaf_link_id;
__u32 uaf_runs;
__u32 uaf_started;
__u32 uaf_spin;

/* Sleepable: blocks in a page fault on uaf_uaddr, then reads its link. */
SEC("fentry.s/" SYS_PREFIX "sys_getpgid")
int BPF_PROG(uaf_sleepable)
{
	char buf[8];

	if (bpf_get_current_pid_tgid() >> 32 != uaf_pid)
		return 0;
	if (uaf_uaddr)
		bpf_copy_from_user(buf, sizeof(buf), (void *)uaf_uaddr);
	uaf_link_id = bpf_get_attach_link_id();
	uaf_runs++;
	return 0;
}

/* Keeps the trampoline of the getpgid syscall in place. */
SEC("fentry/" SYS_PREFIX "sys_getpgid")
int BPF_PROG(uaf_keeper)
{
	return 0;
}

static int spin(__u32 i, void *ctx)
{
	return 0;
}

/* Not sleepable: runs a while before it reads its link. */
SEC("fentry/" SYS_PREFIX "sys_getpgid")
int BPF_PROG(uaf_loop)
{
	if (bpf_get_current_pid_tgid() >> 32 != uaf_pid)
		return 0;
	__sync_fetch_and_add(&uaf_started, 1);
	bpf_loop(uaf_spin, spin, NULL, 0);
	uaf_link_id = bpf_get_attach_link_id();
	uaf_runs++;
	return 0;
}

/* Sleepable: blocks in a page fault on uaf_uaddr, ahead of uaf_behind
 * (attached after it, so it runs first), without reading its link.
 */
SEC("fentry.s/" SYS_PREFIX "sys_getpgid")
int BPF_PROG(uaf_blocker)
{
	char buf[8];

	if (bpf_get_current_pid_tgid() >> 32 != uaf_pid)
		return 0;
	if (uaf_uaddr)
		bpf_copy_from_user(buf, sizeof(buf), (void *)uaf_uaddr);
	return 0;
}

/* Not sleepable: reads its link after uaf_blocker returns. */
SEC("fentry/" SYS_PREFIX "sys_getpgid")
int BPF_PROG(uaf_behind)
{
	if (bpf_get_current_pid_tgid() >> 32 != uaf_pid)
		return 0;
	uaf_link_id = bpf_get_attach_link_id();
	uaf_runs++;
	return 0;
}

/* The same as fmod_ret, which runs after the fentry programs. */
SEC("fmod_ret/" SYS_PREFIX "sys_getpgid")
int BPF_PROG(uaf_behind_fmod_ret, struct pt_regs *regs)
{
	if (bpf_get_current_pid_tgid() >> 32 != uaf_pid)
		return 0;
	uaf_link_id = bpf_get_attach_link_id();
	uaf_runs++;
	return 0;
}

/* A kprobe.multi program that does not read its link. */
SEC("kprobe.multi")
int plain_kmulti(struct pt_regs *ctx)
{
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} jmp_table SEC(".maps");

/* Kernel text, read for the test: the trampoline of bpf_fentry_test5. */
__u64 text_addr;
__u8 text[1024];

SEC("syscall")
int read_text(void *ctx)
{
	return bpf_probe_read_kernel(text, sizeof(text), (void *)text_addr);
}

SEC("fentry/bpf_fentry_test5")
int BPF_PROG(plain_fentry_a)
{
	return 0;
}

SEC("fentry/bpf_fentry_test5")
int BPF_PROG(plain_fentry_b)
{
	return 0;
}

SEC("fentry/bpf_fentry_test5")
int BPF_PROG(link_fentry_c)
{
	uaf_link_id = bpf_get_attach_link_id();
	return 0;
}

/* Extension programs run in their target's run context but have no
 * expected attach type of their own: they cannot call the kfuncs, whose
 * implementation the verifier picks by attach type.
 */
int ext_sink;

__noinline int umulti_sub(int x)
{
	return x + 1;
}

SEC("uprobe.multi")
int umulti_ext_target(struct pt_regs *ctx)
{
	ext_sink = umulti_sub(ext_sink);
	return 0;
}

SEC("?freplace/umulti_sub")
int ext_uprobe_offset(int x)
{
	return bpf_get_uprobe_offset() != 0;
}

SEC("?freplace/umulti_sub")
int ext_link_id(int x)
{
	return bpf_get_attach_link_id() != 0;
}
