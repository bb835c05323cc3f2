/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers of the ip_cookie prog_tests (after test_progs.h): maps filled
 * with made-up keys and checked, kallsyms, fault injection, and the
 * programs of progs/ip_cookie_probe.c on a map of the test's.
 */
#ifndef __IP_COOKIE_HELPERS_H
#define __IP_COOKIE_HELPERS_H

#include <bpf/btf.h>
#include "testing_helpers.h"
#include "trace_helpers.h"
#include "ip_cookie_common.h"
#include "ip_cookie_kconfig.skel.h"
#include "ip_cookie_probe.skel.h"

#define NR_FUNCS	8

/* What a test run of a program attached to bpf_modify_return_test calls. */
static const char * const fentry_funcs[NR_FUNCS] = {
	"bpf_fentry_test1", "bpf_fentry_test2", "bpf_fentry_test3",
	"bpf_fentry_test4", "bpf_fentry_test5", "bpf_fentry_test6",
	"bpf_fentry_test7", "bpf_fentry_test8",
};

static inline int create_map(__u32 key_size, __u32 value_size,
			     __u32 max_entries, __u32 flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = flags);

	return bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_test", key_size,
			      value_size, max_entries, &opts);
}

/* Distinct, function-like addresses: 16-byte aligned as x86 lays out
 * functions, in a kernel-text-like range (below 2^32 on a 32-bit kernel,
 * which refuses wider keys).
 */
static inline __u64 fake_ip(__u32 i)
{
	__u64 base = sizeof(long) == 4 ? 0xc1000000ULL : 0xffffffff81000000ULL;

	return base + (__u64)i * 16;
}

/* Keys whose hashes under GOLDEN_RATIO_64, the multiplier of a table the
 * keys fit in, share their top bits, hence one home bucket at every table
 * size: ip = h * GOLDEN_RATIO_64^-1.
 */
static inline __u64 colliding_ip(__u32 i)
{
	const __u64 gr = 0x61C8864680B583EBULL;
	__u64 inv = gr;
	int k;

	for (k = 0; k < 6; k++)	/* Newton: inv = 1/gr mod 2^64 */
		inv *= 2 - gr * inv;
	return (0x5a5a5a5a00000000ULL + i) * inv;
}

static inline __u32 map_id(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_map_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

static inline __u32 link_id(struct bpf_link *link)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (!ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len),
		       "link_info"))
		return 0;
	return info.id;
}

/* Wait until the map of id @id is gone: its last reference was dropped.
 * A program's reference goes after an RCU Tasks Trace grace period and a
 * work item, which an emulated, loaded machine may take seconds to run:
 * give up after 60 s.
 */
static inline bool map_gone(__u32 id)
{
	__u64 start = get_time_ns();
	int fd;

	do {
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			return fd == -ENOENT;
		close(fd);
		kern_sync_rcu();
		usleep(10000);
	} while (get_time_ns() - start < 60ULL * 1000000000);
	return false;
}

/* Add fake_ip(i) -> i for i in [@from, @to) in one batch. */
static inline int fill_batch(int fd, __u32 from, __u32 to, __u64 flags)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = flags);
	__u32 n = to - from, i;
	__u64 *keys, *vals;
	int err;

	keys = calloc(n, sizeof(*keys));
	vals = calloc(n, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		keys[i] = fake_ip(from + i);
		vals[i] = from + i;
	}
	err = bpf_map_update_batch(fd, keys, vals, &n, &opts);
	if (!err && n != to - from)
		err = -EIO;
	free(keys);
	free(vals);
	return err;
}

/* Delete fake_ip(i) for i in [@from, @to) in one batch. */
static inline int drain_batch(int fd, __u32 from, __u32 to)
{
	__u32 n = to - from, i;
	__u64 *keys;
	int err;

	keys = calloc(n, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		keys[i] = fake_ip(from + i);
	err = bpf_map_delete_batch(fd, keys, &n, NULL);
	if (!err && n != to - from)
		err = -EIO;
	free(keys);
	return err;
}

/* Count the keys of a full walk and check each one's value. */
static inline int walk_count(int fd)
{
	__u64 key, next, val;
	int err, n = 0;

	err = bpf_map_get_next_key(fd, NULL, &next);
	while (!err) {
		if (bpf_map_lookup_elem(fd, &next, &val) ||
		    fake_ip(val) != next)
			return -1;
		n++;
		key = next;
		err = bpf_map_get_next_key(fd, &key, &next);
	}
	return err == -ENOENT ? n : -1;
}

/* Keys walked by get_next_key from @fd (8-byte keys), or -1 on error;
 * *@golden tells whether they came in order of ip * GOLDEN_RATIO_64, the
 * hash order of a table with that multiplier.
 */
static inline int walk_hash_order(int fd, bool *golden)
{
	const __u64 gr = 0x61C8864680B583EBULL;
	__u64 key = 0, next;
	int err, n = 0;

	*golden = true;
	err = bpf_map_get_next_key(fd, NULL, &next);
	while (!err) {
		if (n && next * gr <= key * gr)
			*golden = false;
		n++;
		key = next;
		err = bpf_map_get_next_key(fd, &key, &next);
	}
	return err == -ENOENT ? n : -1;
}

/* The map holds exactly fake_ip(i) -> i for i in [0, @end) but not in
 * [@gap, @gap_end), as one pass of lookup batches sees it.
 */
static inline bool map_holds(int fd, __u32 end, __u32 gap, __u32 gap_end)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 cap = end + 64, total = 0, cnt, i;
	__u64 *keys, *vals, batch;
	bool ok = false;
	char *seen;
	int err;

	keys = calloc(cap, sizeof(*keys));
	vals = calloc(cap, sizeof(*vals));
	seen = calloc(end, 1);
	if (!keys || !vals || !seen)
		goto out;
	do {
		cnt = cap - total;
		if (!cnt)
			goto out;	/* more entries than the model */
		err = bpf_map_lookup_batch(fd, total ? &batch : NULL, &batch,
					   keys + total, vals + total, &cnt,
					   &opts);
		total += cnt;
	} while (!err);
	if (err != -ENOENT)
		goto out;
	for (i = 0; i < total; i++) {
		if (vals[i] >= end || keys[i] != fake_ip(vals[i]) ||
		    seen[vals[i]] || (vals[i] >= gap && vals[i] < gap_end))
			goto out;
		seen[vals[i]] = 1;
	}
	ok = total == end - (gap_end - gap);
out:
	free(keys);
	free(vals);
	free(seen);
	return ok;
}

struct resize_ctx {
	int fd;
	bool stop;	/* accessed with __atomic builtins */
	int err;
};

/* A thread: grow the map by thousands of entries and shrink it again,
 * until told to stop.
 */
static inline void *resizer(void *arg)
{
	struct resize_ctx *ctx = arg;

	while (!__atomic_load_n(&ctx->stop, __ATOMIC_RELAXED)) {
		ctx->err = fill_batch(ctx->fd, 100, 3100, BPF_ANY);
		if (ctx->err)
			break;
		ctx->err = drain_batch(ctx->fd, 100, 3100);
		if (ctx->err)
			break;
	}
	return NULL;
}

/* Test-run @prog_fd @runs times: the nanoseconds they took, 0 if a run
 * failed.
 */
static inline __u64 prog_run_ns(int prog_fd, int runs)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	__u64 start = get_time_ns(), took;

	while (runs--)
		if (!ASSERT_OK(bpf_prog_test_run_opts(prog_fd, &topts), "test_run"))
			return 0;
	took = get_time_ns() - start;
	return took ? took : 1;
}

#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

/* The size of a BTF pointer: the running kernel's (4 on a 32-bit kernel,
 * whatever the bitness of this program), or 0 when it has no BTF.
 */
static inline size_t kernel_ptr_size(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	size_t size;

	if (!vmlinux)
		return 0;
	size = btf__pointer_size(vmlinux);
	btf__free(vmlinux);
	return size;
}

/* progs/ip_cookie_probe.c loaded on the IP_COOKIE map @fd in place of its
 * own; NULL on failure.  Its bpf_loop() callback is a bpf-to-bpf call,
 * which the x86-32 JIT does not have (arch/x86/net/bpf_jit_comp32.c), so
 * a 32-bit kernel refuses the program with ENOTSUPP: that refusal is
 * checked, and the subtest is skipped.
 */
static inline struct ip_cookie_probe *probe_on_map(int fd)
{
	struct ip_cookie_probe *skel = ip_cookie_probe__open();
	int err;

	if (!ASSERT_OK_PTR(skel, "skel_open"))
		return NULL;
	if (!ASSERT_OK(bpf_map__reuse_fd(skel->maps.probe_map, fd), "reuse"))
		goto fail;
	err = ip_cookie_probe__load(skel);
	if (err == -ENOTSUPP && kernel_ptr_size() == 4) {
		printf("%s: 32-bit kernel: ENOTSUPP, its JIT has no bpf-to-bpf calls\n",
		       __func__);
		test__skip();
		goto fail;
	}
	if (!ASSERT_OK(err, "skel_load"))
		goto fail;
	return skel;
fail:
	ip_cookie_probe__destroy(skel);
	return NULL;
}

/* Translated instructions of @prog_fd with opcode @code and immediate
 * @imm; for a helper call, @imm 0 means any helper.
 */
static inline int count_insns(int prog_fd, __u8 code, __s32 imm)
{
	struct bpf_insn *insns = NULL;
	__u32 i, cnt = 0;
	int n = 0;

	if (get_xlated_program(prog_fd, &insns, &cnt))
		return -1;
	for (i = 0; i < cnt; i++)
		if (insns[i].code == code &&
		    (code == (BPF_JMP | BPF_CALL) ?
		     !insns[i].src_reg && (!imm || insns[i].imm == imm) :
		     insns[i].imm == imm))
			n++;
	free(insns);
	return n;
}

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

/* The kallsyms address: what bpf_get_func_ip() returns for the function. */
static inline __u64 ksym(const char *name)
{
	long addr;

	if (!ASSERT_OK(load_kallsyms(), "load_kallsyms"))
		return 0;
	addr = ksym_get_addr(name);
	ASSERT_NEQ(addr, 0, name);
	/* trace_helpers keeps addresses in a long: on a 32-bit kernel a
	 * text address has the sign bit set, and bpf_get_func_ip()
	 * zero-extends it.
	 */
	return (unsigned long)addr;
}

/* Which symbols of /proc/kallsyms ipc_ksym_filter() keeps. */
struct ipc_ksym_filter {
	const char *types;	/* their type letters; NULL: text symbols */
	const char *module;	/* NULL: any; "": vmlinux only */
	const char *name;	/* NULL: any */
	bool no_padding;	/* not the __pfx_ and __cfi_ ones */
};

static inline bool ipc_ksym_filter(const struct ksym *ks, void *ctx)
{
	const struct ipc_ksym_filter *f = ctx;

	if (f->types ? !strchr(f->types, ks->type) : !ksym_is_text(ks))
		return false;
	if (f->module && !*f->module && ks->module)
		return false;
	if (f->module && *f->module &&
	    (!ks->module || strcmp(ks->module, f->module)))
		return false;
	if (f->name && strcmp(ks->name, f->name))
		return false;
	return !f->no_padding || (strncmp(ks->name, "__pfx_", 6) &&
				  strncmp(ks->name, "__cfi_", 6));
}

/* The symbols @f keeps, sorted by address: free_kallsyms_local() them. */
static inline struct ksyms *ipc_load_ksyms(const struct ipc_ksym_filter *f)
{
	return load_kallsyms_filtered_local(ipc_ksym_filter, (void *)f);
}

/* Distinct addresses of the symbols @f keeps, in ascending order: up to
 * @max of them in @addrs.  Returns how many there are, or -errno.
 */
static inline int kallsyms_addrs(const struct ipc_ksym_filter *f, __u64 *addrs,
				 int max)
{
	struct ksyms *t = ipc_load_ksyms(f);
	int n = 0;
	size_t i;

	if (!t)
		return -errno;
	for (i = 0; i < t->sym_cnt; i++) {
		if (i && t->syms[i].addr == t->syms[i - 1].addr)
			continue;
		if (n < max)
			addrs[n] = t->syms[i].addr;
		n++;
	}
	free_kallsyms_local(t);
	return n;
}

/* Index in @t of the first symbol at @addr, or -1. */
static inline long ksyms_first_at(const struct ksyms *t, __u64 addr)
{
	size_t lo = 0, hi = t->sym_cnt, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((__u64)t->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->sym_cnt && (__u64)t->syms[lo].addr == addr ? (long)lo : -1;
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

/* First line of the file at @path (a sysctl), in @buf ("" on failure). */
static inline int read_sysctl(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	int err = 0;

	buf[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, size, f))
		err = -EIO;
	fclose(f);
	return err;
}

/* The running kernel's configuration, as libbpf reads it for the
 * __kconfig externs of progs/ip_cookie_kconfig.c ('y' for an option set
 * to y); all zeroes on failure.
 */
static inline struct ip_cookie_kconfig__kconfig kernel_config(void)
{
	struct ip_cookie_kconfig__kconfig cfg = {};
	struct ip_cookie_kconfig *skel;

	skel = ip_cookie_kconfig__open_and_load();
	if (ASSERT_OK_PTR(skel, "kconfig_load"))
		cfg = *skel->kconfig;
	ip_cookie_kconfig__destroy(skel);
	return cfg;
}

/* kprobe.multi, kretprobe.multi and kprobe.session links run on fprobe,
 * which needs DYNAMIC_FTRACE_WITH_ARGS (not on 32-bit x86); without
 * CONFIG_FPROBE the kernel refuses the link with EOPNOTSUPP, and so does
 * a 32-bit kernel with it (kernel/trace/bpf_trace.c: "no support for
 * 32bit archs yet"). A subtest that needs such a link asks here first: a
 * link of a program of its own on bpf_fentry_test1 must work where the
 * kernel has fprobe and 64-bit pointers, and be refused with EOPNOTSUPP
 * where it has not; then the subtest is skipped.
 */
static inline bool have_kprobe_multi(void)
{
	LIBBPF_OPTS(bpf_prog_load_opts, popts,
		    .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
	LIBBPF_OPTS(bpf_link_create_opts, lopts);
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	const char *sym = "bpf_fentry_test1";
	bool fprobe = kernel_config().CONFIG_FPROBE == 'y' &&
		      kernel_ptr_size() == 8;
	int prog_fd, link_fd;

	prog_fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "ipc_kmulti", "GPL",
				insns, ARRAY_SIZE(insns), &popts);
	if (!ASSERT_OK_FD(prog_fd, "kprobe_multi_prog"))
		return false;
	lopts.kprobe_multi.syms = &sym;
	lopts.kprobe_multi.cnt = 1;
	link_fd = bpf_link_create(prog_fd, 0, BPF_TRACE_KPROBE_MULTI, &lopts);
	close(prog_fd);
	if (link_fd >= 0)
		close(link_fd);
	if (fprobe)
		return ASSERT_OK_FD(link_fd, "kprobe_multi_link");
	if (ASSERT_EQ(link_fd, -EOPNOTSUPP, "kprobe_multi_refused")) {
		printf("%s: kprobe.multi refused (no CONFIG_FPROBE, or a 32-bit kernel): skipped\n",
		       __func__);
		test__skip();
	}
	return false;
}

/* fentry, fexit and fmod_ret programs may call bpf_get_attach_link_id()
 * only where the JIT stores the link ID in the trampoline
 * (bpf_jit_supports_link_id()): x86-64 in this series.
 */
#if defined(__x86_64__)
#define TRAMP_LINK_ID	true
#else
#define TRAMP_LINK_ID	false
#endif

/* A subtest of trampoline programs that call bpf_get_attach_link_id()
 * asks here first, naming one such program @name of a skeleton's object
 * (its ELF bytes, <skeleton>__elf_bytes()): where the JIT does not store
 * the ID, that program alone must be refused at load with EACCES, and
 * then the subtest is skipped.
 */
static inline bool have_tramp_link_id(const void *elf, size_t size,
				      const char *name)
{
	struct bpf_program *p, *prog;
	struct bpf_object *obj;
	int err;

	if (TRAMP_LINK_ID)
		return true;
	obj = bpf_object__open_mem(elf, size, NULL);
	if (!ASSERT_OK_PTR(obj, "obj_open"))
		return false;
	prog = bpf_object__find_program_by_name(obj, name);
	if (!ASSERT_OK_PTR(prog, name))
		goto out;
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, p == prog);
	err = bpf_object__load(obj);
	if (ASSERT_EQ(err, -EACCES, "trampoline_link_id_refused")) {
		printf("%s: %s refused without JIT support: skipped\n",
		       __func__, name);
		test__skip();
	}
out:
	bpf_object__close(obj);
	return false;
}

#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define FAIL_PAGE_ALLOC	"/sys/kernel/debug/fail_page_alloc/"

/* Write @val to the fault-injection attribute @name of @dir. */
static inline int fault_attr(const char *dir, const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "%s%s", dir, name);
	return write_sysctl(path, val);
}

/* Fail this task's allocations of the kind of @dir (FAILSLAB: bytes from
 * slab; FAIL_PAGE_ALLOC: pages of any order) once @space bytes or pages
 * have been allocated; @space < 0 stops failing.  @fd is
 * /proc/self/make-it-fail, opened beforehand: opening it would allocate.
 * The attributes are global: only serial tests call this.
 */
static inline int fault_inject(int fd, const char *dir, long space)
{
	bool page = !strcmp(dir, FAIL_PAGE_ALLOC);
	const char *other = page ? FAILSLAB : FAIL_PAGE_ALLOC;
	char buf[32];

	if (space < 0)
		return pwrite(fd, "0", 1, 0) == 1 ? 0 : -errno;
	snprintf(buf, sizeof(buf), "%ld", space);
	if (page &&
	    (fault_attr(dir, "min-order", "0") ||
	     fault_attr(dir, "ignore-gfp-highmem", "N")))
		return -EIO;
	if ((!access(other, F_OK) && fault_attr(other, "probability", "0")) ||
	    fault_attr(dir, "ignore-gfp-wait", "N") ||
	    fault_attr(dir, "task-filter", "Y") ||
	    fault_attr(dir, "verbose", "0") ||
	    fault_attr(dir, "probability", "100") ||
	    fault_attr(dir, "interval", "1") ||
	    fault_attr(dir, "times", "-1") ||
	    fault_attr(dir, "space", buf))
		return -EIO;
	return pwrite(fd, "1", 1, 0) == 1 ? 0 : -errno;
}

#endif /* __IP_COOKIE_HELPERS_H */
