/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the ip_cookie tests, benchmarks and their BPF programs. */
#ifndef __IP_COOKIE_COMMON_H
#define __IP_COOKIE_COMMON_H

#define IPC_NR_SLOTS	8
/* Inner IP_COOKIE maps in the outer map of the inner_map subtest. */
#define IPC_NR_INNER	2
/* Keys of the entries for attach points that have no function address. */
#define IPC_TAG_TP	0x7e570001ULL
#define IPC_TAG_RAW_TP	0x7e570002ULL
#define IPC_TAG_PERF	0x7e570003ULL
#define IPC_TAG_TP_BTF	0x7e570004ULL
/* Keys a progs/ip_cookie_probe.c program looks up per round. */
#define IPC_PROBE_KEYS	64
#define IPC_PROBE_MAX	65536
#define IPC_PROBE_MISS	(~0ULL)

/* What the programs of one attach type saw. */
struct ipc_prog_result {
	__u64 hits[IPC_NR_SLOTS];	/* indexed by cookie - 1 */
	__u64 missed[IPC_NR_SLOTS];	/* hits whose lookup found nothing */
	__u64 differ[IPC_NR_SLOTS];	/* hits whose value was not the cookie */
	__u64 value[IPC_NR_SLOTS];	/* map value found on the last hit */
	__u64 ip[IPC_NR_SLOTS];		/* key looked up on the last hit */
	__u64 bad_cookie;
};

#ifdef __bpf__
/* ID of the BPF link the program runs under. */
extern __u32 __ksym __weak bpf_get_attach_link_id(void);
#endif

#ifdef __bpf__
/* File offset of the uprobe the program runs for. */
extern __u64 __ksym __weak bpf_get_uprobe_offset(void);
#endif

/* Lookups of progs/ip_cookie_inline.c: keys per run, map size. */
#define IPC_INL_KEYS	4096
#define IPC_INL_MAX	4096

#ifdef __bpf__
/* bpf_map_lookup_elem() of an 8-byte key passed by value. */
extern void *__ksym __weak bpf_ip_cookie_lookup(void *map, __u64 ip);
#endif

#ifdef __bpf__
/* The running kernel's configuration, filled in by libbpf at load
 * (progs/ip_cookie_kconfig.c): 'y', 'm', or 0 when not set.
 */
extern char CONFIG_FAILSLAB __kconfig __weak;
extern char CONFIG_FAIL_PAGE_ALLOC __kconfig __weak;
extern char CONFIG_X86_KERNEL_IBT __kconfig __weak;
extern char CONFIG_FPROBE __kconfig __weak;
extern char CONFIG_SOFTLOCKUP_DETECTOR __kconfig __weak;
#endif

#ifndef __bpf__
#include <stdio.h>

/* The prefix of the syscall wrappers' names (bpf_misc.h's SYS_PREFIX for
 * the programs).
 */
#if defined(__x86_64__)
#define IPC_SYS		"__x64_sys_"
#elif defined(__aarch64__)
#define IPC_SYS		"__arm64_sys_"
#elif defined(__s390x__)
#define IPC_SYS		"__s390x_sys_"
#else
#define IPC_SYS		"sys_"
#endif

/* map_mem_usage() of the map @fd as the kernel reports it in fdinfo
 * ("memlock"), -1 if unknown.
 */
static inline long long map_memlock(int fd)
{
	char path[64], line[128];
	long long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock:\t%lld", &val) == 1)
			break;
	fclose(f);
	return val;
}
#endif

#endif
