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

	if (!ASSERT_OK(load_kallsyms(), "load_kallsyms"))
		return -1;
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

static inline int create_map(__u32 key_size, __u32 value_size,
			     __u32 max_entries, __u32 flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = flags);

	return bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_test", key_size,
			      value_size, max_entries, &opts);
}

/* Distinct, function-like addresses: 16-byte aligned as x86 lays out
 * functions, in a kernel-text-like range.
 */
static inline __u64 fake_ip(__u32 i)
{
	return 0xffffffff81000000ULL + (__u64)i * 16;
}

/* Translated instructions of @prog_fd with opcode @code and immediate
 * @imm; for a helper call, @imm 0 means any helper.
 */
static inline int count_insns(int prog_fd, __u8 code, __s32 imm)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), i;
	struct bpf_insn *insns;
	int n = 0;

	if (bpf_prog_get_info_by_fd(prog_fd, &info, &len))
		return -1;
	insns = calloc(info.xlated_prog_len, 1);
	if (!insns)
		return -1;
	len = info.xlated_prog_len;
	memset(&info, 0, sizeof(info));
	info.xlated_prog_len = len;
	info.xlated_prog_insns = ptr_to_u64(insns);
	len = sizeof(info);
	if (bpf_prog_get_info_by_fd(prog_fd, &info, &len)) {
		free(insns);
		return -1;
	}
	for (i = 0; i < info.xlated_prog_len / sizeof(*insns); i++)
		if (insns[i].code == code &&
		    (code == (BPF_JMP | BPF_CALL) ?
		     !insns[i].src_reg && (!imm || insns[i].imm == imm) :
		     insns[i].imm == imm))
			n++;
	free(insns);
	return n;
}

/* The kallsyms address: what bpf_get_func_ip() returns for the function. */
static inline __u64 ksym(const char *name)
{
	long addr;

	if (!ASSERT_OK(load_kallsyms(), "load_kallsyms"))
		return 0;
	addr = ksym_get_addr(name);
	ASSERT_NEQ(addr, 0, name);
	return addr;
}

/* The kernel says "Vulnerable" for Spectre v1 when its mitigations are
 * off (cpu_mitigations_off() or nospectre_v1).
 */
static inline bool spectre_v1_mitigated(void)
{
	char buf[64] = {};
	int fd, n;

	fd = open("/sys/devices/system/cpu/vulnerabilities/spectre_v1", O_RDONLY);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n <= 0 || strncmp(buf, "Vulnerable", 10);
}

#endif /* __IP_COOKIE_HELPERS_H */
