/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers of the ip_cookie prog_tests (after test_progs.h). */
#ifndef __IP_COOKIE_HELPERS_H
#define __IP_COOKIE_HELPERS_H

#include "testing_helpers.h"
#include "trace_helpers.h"

/* Where the kfunc calls of @prog go, as the verifier fixed them up: the
 * imm of a kfunc call is its target's address relative to
 * __bpf_call_base.  @addrs gets up to @max of them; returns their number,
 * -1 on error, -2 when the calls are not by address on this architecture.
 */
static inline int kfunc_call_targets(struct bpf_program *prog, __u64 *addrs, int max)
{
	struct bpf_insn *insns = NULL;
	__u32 i, cnt = 0;
	struct ksym *ks;
	__u64 base;
	int n = 0;

	base = ksym_get_addr("__bpf_call_base");
	if (!ASSERT_NEQ(base, 0, "__bpf_call_base") ||
	    !ASSERT_OK(get_xlated_program(bpf_program__fd(prog), &insns, &cnt),
		       "xlated"))
		return -1;
	for (i = 0; i < cnt && n < max; i++)
		if (insns[i].code == (BPF_JMP | BPF_CALL) &&
		    insns[i].src_reg == BPF_PSEUDO_KFUNC_CALL)
			addrs[n++] = base + insns[i].imm;
	free(insns);
	for (i = 0; i < n; i++) {
		ks = ksym_search(addrs[i]);
		if (!ks || ks->addr != addrs[i])
			return -2;
	}
	return n;
}

#endif /* __IP_COOKIE_HELPERS_H */
