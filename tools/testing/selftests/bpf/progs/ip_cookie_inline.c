// SPDX-License-Identifier: GPL-2.0
/* Every inlined lookup of an IP_COOKIE map, on keys user space chose so
 * that each answer can be checked: bpf_map_lookup_elem() of 8- and
 * 16-byte keys and bpf_ip_cookie_lookup(), from a syscall program (loaded
 * with and without the right to bypass Spectre v1 mitigations), and
 * bpf_ip_cookie_lookup() of bpf_get_func_ip() from fentry, kprobe.multi
 * and kprobe.session programs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "../ip_cookie_common.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, IPC_INL_MAX);
	__type(key, __u64);
	__type(value, __u64);
} m8 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, IPC_INL_MAX);
	__type(key, struct bpf_ip_cookie_key);
	__type(value, __u64);
} m16 SEC(".maps");

struct bpf_ip_cookie_key keys[IPC_INL_KEYS];
__u32 nr_keys;
/* What each lookup of keys[i] found, or IPC_PROBE_MISS. */
__u64 by_lookup8[IPC_INL_KEYS];
__u64 by_kfunc[IPC_INL_KEYS];
__u64 by_lookup16[IPC_INL_KEYS];

static __always_inline __u64 val(__u64 *v)
{
	return v ? *v : IPC_PROBE_MISS;
}

static int lookup_one(__u32 i, void *ctx)
{
	if (i >= IPC_INL_KEYS)
		return 1;
	by_lookup8[i] = val(bpf_map_lookup_elem(&m8, &keys[i].ip));
	by_kfunc[i] = val(bpf_ip_cookie_lookup(&m8, keys[i].ip));
	by_lookup16[i] = val(bpf_map_lookup_elem(&m16, &keys[i]));
	return 0;
}

SEC("syscall")
int lookup_all(void *ctx)
{
	bpf_loop(nr_keys, lookup_one, NULL, 0);
	return 0;
}

/* keys[0] only: no index into the arrays, which the verifier refuses to
 * programs that may not bypass Spectre v1 mitigations.
 */
SEC("syscall")
int lookup_first(void *ctx)
{
	lookup_one(0, NULL);
	return 0;
}

/* keys[0] at every byte offset of a stack buffer: the verifier checks the
 * size of a key, not its alignment.
 */
__u64 by_unaligned8[8];
__u64 by_unaligned16[8];

static __always_inline void lookup_at(char *buf, int off)
{
	__builtin_memcpy(buf + off, (void *)&keys[0], sizeof(keys[0]));
	by_unaligned8[off] = val(bpf_map_lookup_elem(&m8, buf + off));
	by_unaligned16[off] = val(bpf_map_lookup_elem(&m16, buf + off));
}

SEC("syscall")
int lookup_unaligned(void *ctx)
{
	char buf[32] = {};

	lookup_at(buf, 0);
	lookup_at(buf, 1);
	lookup_at(buf, 2);
	lookup_at(buf, 3);
	lookup_at(buf, 4);
	lookup_at(buf, 5);
	lookup_at(buf, 6);
	lookup_at(buf, 7);
	return 0;
}

/* Hits of the traced functions: each adds one to its own entry. */
__u64 missed;

static __always_inline void count(void *ctx)
{
	__u64 *v = bpf_ip_cookie_lookup(&m8, bpf_get_func_ip(ctx));

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		__sync_fetch_and_add(&missed, 1);
}

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(count_fentry)
{
	count(ctx);
	return 0;
}

SEC("kprobe.multi")
int count_kmulti(struct pt_regs *ctx)
{
	count(ctx);
	return 0;
}

/* Runs at entry and, as it returns 0, at return: two counts a call. */
SEC("kprobe.session")
int count_session(struct pt_regs *ctx)
{
	count(ctx);
	return 0;
}
