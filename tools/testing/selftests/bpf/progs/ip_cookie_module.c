// SPDX-License-Identifier: GPL-2.0
/* Updates of an IP_COOKIE map from a syscall program: it runs under
 * rcu_read_lock_trace() and takes the map's lock, so a module unload that
 * waited for an RCU Tasks Trace grace period with that lock held would
 * wait for it forever.  The updates replace only existing keys
 * (BPF_EXIST) and @key is not in the map: each takes the lock and frees
 * nothing, so the map's deferred free list stays as the test left it.
 */
#include "vmlinux.h"
#include <errno.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf_misc.h"

char _license[] SEC("license") = "GPL";

int map_fd;
__u64 key;
__u64 rounds;
__u64 misses;
__u64 errors;

static union bpf_attr attr;
static __u64 val;

static long update_one(__u64 i, void *ctx)
{
	val = i;
	attr.map_fd = map_fd;
	attr.key = (long)&key;
	attr.value = (long)&val;
	attr.flags = BPF_EXIST;
	if (bpf_sys_bpf(BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr)) == -ENOENT)
		misses++;
	else
		errors++;
	return 0;
}

SEC("syscall")
int update_loop(void *ctx)
{
	bpf_loop(rounds, update_one, NULL, 0);
	return 0;
}

/* Which maps a module load or unload scans: the module notifier takes a
 * reference on each map it purges, and only on those.  Maps whose IDs
 * are in watch_ids count the references taken in scans.
 */
#define NR_WATCH 4

__u32 watch_ids[NR_WATCH];
__u32 scans[NR_WATCH];

SEC("fentry/bpf_map_inc_not_zero")
int BPF_PROG(purge_scan, struct bpf_map *map)
{
	__u32 id = map->id;
	int i;

	for (i = 0; i < NR_WATCH; i++)
		if (id && watch_ids[i] == id)
			scans[i]++;
	return 0;
}

/* A sleepable program of this process's getpgid() calls, blocked in a
 * page fault on block_uaddr (userfaultfd), inside rcu_read_lock_trace().
 */
int block_pid;
__u64 block_uaddr;
__u32 block_runs;

SEC("fentry.s/" SYS_PREFIX "sys_getpgid")
int BPF_PROG(block_sleepable)
{
	char buf[8];

	if (bpf_get_current_pid_tgid() >> 32 != block_pid)
		return 0;
	bpf_copy_from_user(buf, sizeof(buf), (void *)block_uaddr);
	block_runs++;
	return 0;
}
