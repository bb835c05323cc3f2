/* SPDX-License-Identifier: GPL-2.0 */
/* What ipcookie_funclatency.bpf.c and ipcookie_funclatency.c share. */
#ifndef __IPCOOKIE_FUNCLATENCY_H
#define __IPCOOKIE_FUNCLATENCY_H

/* Slot i counts the calls that took t units, 2^i <= t < 2^(i+1) (slot 0:
 * t < 2). 62 slots, the count and the sum make a 512-byte value.
 */
#define MAX_SLOTS	62

/* the value of a function's entry in the IP_COOKIE map */
struct hist {
	__u64 slots[MAX_SLOTS];
	__u64 count;
	__u64 sum;
};

#ifdef __bpf__
/* kfuncs of kprobe.session programs: 7.3 passes them the program's
 * context, 6.12 does not.  libbpf resolves the flavour whose prototype
 * the kernel has (bpf_ksym_exists()); the other one is dead code.
 */
bool __ksym __weak bpf_session_is_return___ctx(void *ctx);
__u64 __ksym __weak *bpf_session_cookie___ctx(void *ctx);
bool __ksym __weak bpf_session_is_return___void(void);
__u64 __ksym __weak *bpf_session_cookie___void(void);
#endif

#endif /* __IPCOOKIE_FUNCLATENCY_H */
