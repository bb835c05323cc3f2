// SPDX-License-Identifier: GPL-2.0
/* Lookups of chosen keys from a program, to check the inlined lookup and
 * how long its probes are, and a counter of index rebuilds.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "../ip_cookie_common.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, IPC_PROBE_MAX);
	__type(key, __u64);
	__type(value, __u64);
} probe_map SEC(".maps");

__u64 keys[IPC_PROBE_KEYS];
/* Value found for each key, or IPC_PROBE_MISS. */
__u64 vals[IPC_PROBE_KEYS];
__u32 rounds;

int test_pid;
/* Tables the map allocated for the test task: one per rebuild. */
__u64 tables_allocated;

static int lookup_round(__u32 r, void *ctx)
{
	__u64 *v;
	int i;

	for (i = 0; i < IPC_PROBE_KEYS; i++) {
		v = bpf_map_lookup_elem(&probe_map, &keys[i]);
		vals[i] = v ? *v : IPC_PROBE_MISS;
	}
	return 0;
}

/* Looks every key up @rounds times. */
SEC("syscall")
int lookup_keys(void *ctx)
{
	bpf_loop(rounds, lookup_round, NULL, 0);
	return 0;
}

/* One lookup, nothing else: its translated form is checked. */
SEC("syscall")
int lookup_one(void *ctx)
{
	__u64 *v = bpf_map_lookup_elem(&probe_map, &keys[0]);

	vals[0] = v ? *v : IPC_PROBE_MISS;
	return 0;
}

/* grace_period: hold_elem looks hold_key up and reads a used slot of the
 * index, then blocks in a page fault on hold_uaddr while user space
 * deletes the key and replaces the index, then reads both again: neither
 * may have been freed under the program.
 */
__u64 hold_key, hold_uaddr, hold_first, hold_last;
__u64 hold_slot_first, hold_slot_last, hold_tbl_replaced;

SEC("syscall")
int hold_elem(void *ctx)
{
	__u64 *v = bpf_map_lookup_elem(&probe_map, &hold_key);
	struct bpf_ip_cookie *ic = (struct bpf_ip_cookie *)&probe_map;
	struct ip_cookie_table *tbl = ic->tbl;
	__u64 ip = 0;
	char buf[8];
	int i;

	if (!v)
		return 0;
	hold_first = *v;
	for (i = 0; i < 64 && !ip; i++)
		bpf_probe_read_kernel(&ip, sizeof(ip), &tbl->slots[i].ip);
	hold_slot_first = ip;
	bpf_copy_from_user(buf, sizeof(buf), (void *)hold_uaddr);
	hold_last = *v;
	bpf_probe_read_kernel(&ip, sizeof(ip), &tbl->slots[i - 1].ip);
	hold_slot_last = ip;
	hold_tbl_replaced = ic->tbl != tbl;
	return 0;
}

/* The map's tables; its elements and free-list chunks come from
 * bpf_map_kmalloc_node().
 */
SEC("fentry/bpf_map_area_alloc")
int BPF_PROG(count_tables)
{
	if (bpf_get_current_pid_tgid() >> 32 == test_pid)
		tables_allocated++;
	return 0;
}
