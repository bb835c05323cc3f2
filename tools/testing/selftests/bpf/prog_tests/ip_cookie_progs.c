// SPDX-License-Identifier: GPL-2.0
/* Lookups of BPF_MAP_TYPE_IP_COOKIE from programs: for each attach type,
 * every hit finds the value the map holds for bpf_get_func_ip() (or a tag
 * key where there is no function address), checked against the attach
 * cookie of the same hit; perf_event programs in NMI context; inlined
 * lookups into inner maps and the Spectre v1 clamp; and the verifier's
 * rejections (test_ip_cookie_verifier).
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include "cap_helpers.h"
#include "ip_cookie_helpers.h"
#include "ip_cookie.skel.h"
#include "ip_cookie_fail.skel.h"
#include "ip_cookie_kconfig.skel.h"
#include "ip_cookie_probe.skel.h"

/* Every hit of a cookie-N attach point found map value N for its IP. */
static void check_result(struct ipc_prog_result *r, int nr,
			 const __u64 *ips, const char *name)
{
	int i;

	ASSERT_EQ(r->bad_cookie, 0, name);
	for (i = 0; i < nr; i++) {
		if (!ASSERT_GE(r->hits[i], 1, name) ||
		    !ASSERT_EQ(r->missed[i], 0, name) ||
		    !ASSERT_EQ(r->differ[i], 0, name) ||
		    !ASSERT_EQ(r->value[i], i + 1, name))
			printf("%s: attach point %d\n", name, i + 1);
		if (ips)
			ASSERT_EQ(r->ip[i], ips[i], name);
	}
}

static void fill_ips(int fd, const __u64 *ips, int nr)
{
	__u64 val;
	int i;

	for (i = 0; i < nr; i++) {
		val = i + 1;
		ASSERT_OK(bpf_map_update_elem(fd, &ips[i], &val, BPF_ANY),
			  "fill_ips");
	}
}

static void subtest_kprobe_multi(struct ip_cookie *skel, const __u64 *ips)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct bpf_link *l1 = NULL, *l2 = NULL, *l3 = NULL;
	__u64 cookies[NR_FUNCS];
	int i;

	/* Cookie i+1 for bpf_fentry_test(i+1): the map holds the same. */
	for (i = 0; i < NR_FUNCS; i++)
		cookies[i] = i + 1;
	opts.syms = (const char **)fentry_funcs;
	opts.cookies = cookies;
	opts.cnt = NR_FUNCS;
	l1 = bpf_program__attach_kprobe_multi_opts(skel->progs.ipc_kmulti,
						   NULL, &opts);
	opts.retprobe = true;
	l2 = bpf_program__attach_kprobe_multi_opts(skel->progs.ipc_kretmulti,
						   NULL, &opts);
	opts.retprobe = false;
	opts.session = true;
	l3 = bpf_program__attach_kprobe_multi_opts(skel->progs.ipc_session,
						   NULL, &opts);
	if (!ASSERT_OK_PTR(l1, "attach_kmulti") ||
	    !ASSERT_OK_PTR(l2, "attach_kretmulti") ||
	    !ASSERT_OK_PTR(l3, "attach_session"))
		goto out;
	prog_run_ns(bpf_program__fd(skel->progs.ipc_trigger), 1);
	check_result(&skel->bss->result_kmulti, NR_FUNCS, ips, "kprobe_multi");
	check_result(&skel->bss->result_kretmulti, NR_FUNCS, ips, "kretprobe_multi");
	check_result(&skel->bss->result_sess_entry, NR_FUNCS, ips, "session_entry");
	check_result(&skel->bss->result_sess_return, NR_FUNCS, ips, "session_return");
out:
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bpf_link__destroy(l3);
}

static void subtest_kprobe(struct ip_cookie *skel, const __u64 *ips)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = 1);
	struct bpf_link *l1, *l2, *l3;
	struct ipc_prog_result *r = &skel->bss->result_koff;

	l1 = bpf_program__attach_kprobe_opts(skel->progs.ipc_kprobe,
					     "bpf_fentry_test1", &opts);
	opts.retprobe = true;
	l2 = bpf_program__attach_kprobe_opts(skel->progs.ipc_kretprobe,
					     "bpf_fentry_test1", &opts);
	/* Past the ftrace call site: the 5-byte __fentry__ call (and the
	 * 4-byte endbr64 of IBT) on x86-64, the two patchable NOPs on arm64,
	 * the 6-byte brcl on s390x.
	 */
	opts.retprobe = false;
#if defined(__aarch64__)
	opts.offset = 8;
#elif defined(__s390x__)
	opts.offset = 6;
#else
	opts.offset = kernel_config().CONFIG_X86_KERNEL_IBT == 'y' ? 9 : 5;
#endif
	l3 = bpf_program__attach_kprobe_opts(skel->progs.ipc_kprobe_offset,
					     "bpf_fentry_test1", &opts);
	if (ASSERT_OK_PTR(l1, "attach_kprobe") &&
	    ASSERT_OK_PTR(l2, "attach_kretprobe") &&
	    ASSERT_OK_PTR(l3, "attach_kprobe_offset")) {
		prog_run_ns(bpf_program__fd(skel->progs.ipc_trigger), 1);
		check_result(&skel->bss->result_kprobe, 1, ips, "kprobe");
		check_result(&skel->bss->result_kretprobe, 1, ips, "kretprobe");
		/* bpf_get_func_ip() is 0 there, and 0 is never found. */
		ASSERT_GE(r->hits[0], 1, "offset_hits");
		ASSERT_EQ(r->missed[0], r->hits[0], "offset_missed");
		ASSERT_EQ(r->ip[0], 0, "offset_ip");
		ASSERT_EQ(r->bad_cookie, 0, "offset_cookie");
	}
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bpf_link__destroy(l3);
}

static void subtest_fentry(struct ip_cookie *skel, const __u64 *ips)
{
	LIBBPF_OPTS(bpf_trace_opts, opts, .cookie = 1);
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct bpf_link *l1, *l2, *l3, *l4;
	__u64 mod_ret_ip[1];
	int fd = bpf_map__fd(skel->maps.ip_map);
	__u64 val = 1;

	mod_ret_ip[0] = ksym("bpf_modify_return_test");
	ASSERT_OK(bpf_map_update_elem(fd, mod_ret_ip, &val, BPF_ANY), "fill");

	l1 = bpf_program__attach_trace_opts(skel->progs.ipc_fentry, &opts);
	/* The x86-32 JIT of 7.3 builds no BPF trampolines: a 32-bit
	 * kernel refuses fentry, fexit and fmod_ret links with ENOTSUPP.
	 */
	if (!l1 && kernel_ptr_size() == 4) {
		if (ASSERT_EQ(errno, ENOTSUPP, "fentry_refused")) {
			printf("%s: 32-bit kernel: no BPF trampolines: skipped\n",
			       __func__);
			test__skip();
		}
		return;
	}
	l2 = bpf_program__attach_trace_opts(skel->progs.ipc_fexit, &opts);
	l3 = bpf_program__attach_trace_opts(skel->progs.ipc_fmod_ret, &opts);
	l4 = bpf_program__attach_trace_opts(skel->progs.ipc_fentry_s, &opts);
	if (ASSERT_OK_PTR(l1, "attach_fentry") &&
	    ASSERT_OK_PTR(l2, "attach_fexit") &&
	    ASSERT_OK_PTR(l3, "attach_fmod_ret") &&
	    ASSERT_OK_PTR(l4, "attach_fentry_s")) {
		prog_run_ns(bpf_program__fd(skel->progs.ipc_trigger), 1);
		/* Test-running fmod_ret calls bpf_modify_return_test(). */
		ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.ipc_fmod_ret),
						 &topts), "test_run_fmod_ret");
		check_result(&skel->bss->result_fentry, 1, ips, "fentry");
		check_result(&skel->bss->result_fexit, 1, ips, "fexit");
		check_result(&skel->bss->result_fmod_ret, 1, mod_ret_ip, "fmod_ret");
		check_result(&skel->bss->result_fentry_s, 1, ips, "fentry_s");
	}
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bpf_link__destroy(l3);
	bpf_link__destroy(l4);
}

noinline int ip_cookie_utarget1(int x)
{
	asm volatile ("" : "+r"(x));
	return x + 1;
}

noinline int ip_cookie_utarget2(int x)
{
	asm volatile ("" : "+r"(x));
	return x + 2;
}

static void subtest_uprobe(struct ip_cookie *skel, const __u64 *fentry_ips)
{
	LIBBPF_OPTS(bpf_uprobe_multi_opts, mopts);
	LIBBPF_OPTS(bpf_uprobe_opts, opts);
	struct bpf_link *l1, *l2, *l3, *l4, *l5;
	const char *syms[2] = { "ip_cookie_utarget1", "ip_cookie_utarget2" };
	__u64 cookies[2] = { 1, 2 };
	__u64 ips[2];
	int fd = bpf_map__fd(skel->maps.ip_map);
	/* 7.3 has no uprobe.multi links on 32-bit kernels (bpf_trace.c:
	 * "no support for 32bit archs yet"): they must be refused there.
	 */
	bool multi = kernel_ptr_size() == 8;
	int err3, err5;

	/* The user virtual address is what bpf_get_func_ip() returns. */
	ips[0] = (__u64)(unsigned long)&ip_cookie_utarget1;
	ips[1] = (__u64)(unsigned long)&ip_cookie_utarget2;
	fill_ips(fd, ips, 2);

	opts.func_name = "ip_cookie_utarget1";
	opts.bpf_cookie = 1;
	l1 = bpf_program__attach_uprobe_opts(skel->progs.ipc_uprobe, 0,
					     "/proc/self/exe", 0, &opts);
	l2 = bpf_program__attach_uprobe_opts(skel->progs.ipc_uprobe_sleep, 0,
					     "/proc/self/exe", 0, &opts);
	mopts.syms = syms;
	mopts.cookies = cookies;
	mopts.cnt = 2;
	l3 = bpf_program__attach_uprobe_multi(skel->progs.ipc_uprobe_multi, -1,
					      "/proc/self/exe", NULL, &mopts);
	err3 = l3 ? 0 : -errno;
	/* Return probes: the function's address, not the return address */
	opts.retprobe = true;
	l4 = bpf_program__attach_uprobe_opts(skel->progs.ipc_uretprobe, 0,
					     "/proc/self/exe", 0, &opts);
	mopts.retprobe = true;
	l5 = bpf_program__attach_uprobe_multi(skel->progs.ipc_uretprobe_multi,
					      -1, "/proc/self/exe", NULL, &mopts);
	err5 = l5 ? 0 : -errno;
	if (!multi) {
		ASSERT_EQ(err3, -EOPNOTSUPP, "uprobe_multi_refused");
		ASSERT_EQ(err5, -EOPNOTSUPP, "uretprobe_multi_refused");
	}
	if (ASSERT_OK_PTR(l1, "attach_uprobe") &&
	    ASSERT_OK_PTR(l2, "attach_uprobe_sleep") &&
	    (!multi || ASSERT_OK_PTR(l3, "attach_uprobe_multi")) &&
	    ASSERT_OK_PTR(l4, "attach_uretprobe") &&
	    (!multi || ASSERT_OK_PTR(l5, "attach_uretprobe_multi"))) {
		ip_cookie_utarget1(1);
		ip_cookie_utarget2(2);
		check_result(&skel->bss->result_uprobe, 1, ips, "uprobe");
		check_result(&skel->bss->result_uprobe_sleep, 1, ips, "uprobe_sleepable");
		check_result(&skel->bss->result_uretprobe, 1, ips, "uretprobe");
		if (multi) {
			check_result(&skel->bss->result_uprobe_multi, 2, ips,
				     "uprobe_multi");
			check_result(&skel->bss->result_uretprobe_multi, 2, ips,
				     "uretprobe_multi");
		}
	}
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bpf_link__destroy(l3);
	bpf_link__destroy(l4);
	bpf_link__destroy(l5);
}

static void subtest_tracepoints(struct ip_cookie *skel, const __u64 *ips)
{
	LIBBPF_OPTS(bpf_raw_tracepoint_opts, ropts, .cookie = 1);
	LIBBPF_OPTS(bpf_tracepoint_opts, opts, .bpf_cookie = 1);
	LIBBPF_OPTS(bpf_trace_opts, topts, .cookie = 1);
	int fd = bpf_map__fd(skel->maps.ip_map);
	struct bpf_link *l1, *l2, *l3;
	__u64 key, val = 1;
	pid_t child;

	/* No function address here: the tool picks the key. */
	key = IPC_TAG_TP;
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill_tp");
	key = IPC_TAG_RAW_TP;
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill_raw_tp");
	key = IPC_TAG_TP_BTF;
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill_tp_btf");

	l1 = bpf_program__attach_tracepoint_opts(skel->progs.ipc_tp, "task",
						 "task_newtask", &opts);
	l2 = bpf_program__attach_raw_tracepoint_opts(skel->progs.ipc_raw_tp,
						     "task_newtask", &ropts);
	l3 = bpf_program__attach_trace_opts(skel->progs.ipc_tp_btf, &topts);
	if (ASSERT_OK_PTR(l1, "attach_tp") && ASSERT_OK_PTR(l2, "attach_raw_tp") &&
	    ASSERT_OK_PTR(l3, "attach_tp_btf")) {
		child = fork();
		if (child == 0)
			_exit(0);
		if (ASSERT_GT(child, 0, "fork"))
			waitpid(child, NULL, 0);
		check_result(&skel->bss->result_tp, 1, NULL, "tracepoint");
		check_result(&skel->bss->result_raw_tp, 1, NULL, "raw_tp");
		check_result(&skel->bss->result_tp_btf, 1, NULL, "tp_btf");
	}
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bpf_link__destroy(l3);
}

/* A perf_event program looks up from the event's overflow handler: on a
 * cpu-clock event in hrtimer interrupt context, or with @nmi on a hardware
 * cycles event, in NMI context.  Returns false if there is no such event
 * (no PMU: pure emulation).
 */
static bool perf_event_lookups(struct ip_cookie *skel, bool nmi)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = 1);
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = nmi ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		.config = nmi ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 100000,
		/* Enabled once attached: perf stores the program before its
		 * cookie, so an overflow in between would run it with none.
		 */
		.disabled = 1,
	};
	int fd = bpf_map__fd(skel->maps.ip_map), pfd;
	struct bpf_link *link;
	__u64 key = IPC_TAG_PERF, val = 1;
	int i;

	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill_perf");
	pfd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (nmi && pfd < 0 && (errno == ENOENT || errno == EOPNOTSUPP))
		return false;
	if (!ASSERT_GE(pfd, 0, "perf_event_open"))
		return true;
	memset(&skel->bss->result_perf, 0, sizeof(skel->bss->result_perf));
	link = bpf_program__attach_perf_event_opts(skel->progs.ipc_perf, pfd,
						   &opts);
	if (ASSERT_OK_PTR(link, "attach_perf") &&
	    ASSERT_OK(ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0), "enable")) {
		/* Burn CPU time in this task until the event fires. */
		for (i = 0; i < 10000000 && !skel->bss->result_perf.hits[0]; i++)
			(void)getppid();
		check_result(&skel->bss->result_perf, 1, NULL, "perf_event");
	}
	bpf_link__destroy(link);
	close(pfd);
	return true;
}

static void subtest_perf_event(struct ip_cookie *skel, const __u64 *ips)
{
	perf_event_lookups(skel, false);
}

/* perf_event programs in NMI context: only where a hardware PMU exists. */
static void subtest_perf_event_nmi(struct ip_cookie *skel, const __u64 *ips)
{
	if (!perf_event_lookups(skel, true)) {
		printf("%s: no hardware PMU: NMI context not tested\n", __func__);
		test__skip();
	}
}

/* Run @subtest with the skeleton loaded, counting hits of this task only,
 * and ip_map holding cookie i + 1 for the i-th of fentry_funcs[], whose
 * addresses it gets in @ips.
 */
static void run_attach_test(void (*subtest)(struct ip_cookie *skel,
					    const __u64 *ips))
{
	struct ip_cookie *skel;
	__u64 ips[NR_FUNCS];
	int i;

	skel = ip_cookie__open();
	if (!ASSERT_OK_PTR(skel, "skel_open"))
		return;
	/* The x86-32 JIT has no BPF atomics, and a kernel that cannot JIT a
	 * program refuses it (BPF_JIT_ALWAYS_ON): leave out the one program
	 * that counts with them.  No subtest here attaches it.
	 */
	if (kernel_ptr_size() == 4)
		bpf_program__set_autoload(skel->progs.ipc_count, false);
	if (!ASSERT_OK(ip_cookie__load(skel), "skel_load"))
		goto out;
	skel->bss->test_pid = getpid();
	for (i = 0; i < NR_FUNCS; i++)
		ips[i] = ksym(fentry_funcs[i]);
	fill_ips(bpf_map__fd(skel->maps.ip_map), ips, NR_FUNCS);
	subtest(skel, ips);
out:
	ip_cookie__destroy(skel);
}

/* IP_COOKIE maps as inner maps: the inlined lookup must use the
 * multiplier and index of the map found at run time.  The second inner
 * map also holds keys aimed at one home under GOLDEN_RATIO_64, so it has
 * re-seeded: the two multipliers differ.
 */
static void test_inner_map(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	int inner[IPC_NR_INNER], outer, prog, i, j, err;
	__u64 ip, val, base, *tags;
	struct bpf_link *link = NULL;
	struct ip_cookie *skel;
	bool golden;

	for (i = 0; i < IPC_NR_INNER; i++)
		inner[i] = -1;
	skel = ip_cookie__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->test_pid = getpid();
	outer = bpf_map__fd(skel->maps.outer_map);
	for (i = 0; i < IPC_NR_INNER; i++) {
		inner[i] = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_inner",
					  sizeof(__u64), sizeof(__u64), 1024,
					  NULL);
		if (!ASSERT_GE(inner[i], 0, "inner_create"))
			goto out;
		for (j = 0; i && j < 300; j++) {
			ip = colliding_ip(j);
			err = bpf_map_update_elem(inner[i], &ip, &ip, BPF_NOEXIST);
			if (!ASSERT_OK(err, "inner_aimed"))
				goto out;
		}
		for (j = 0; j < NR_FUNCS; j++) {
			ip = ksym(fentry_funcs[j]);
			val = ip + i + 1;
			err = bpf_map_update_elem(inner[i], &ip, &val,
						  BPF_NOEXIST);
			if (!ASSERT_OK(err, "inner_fill"))
				goto out;
		}
		err = bpf_map_update_elem(outer, &i, &inner[i], BPF_ANY);
		if (!ASSERT_OK(err, "outer_update"))
			goto out;
		ASSERT_EQ(walk_hash_order(inner[i], &golden), NR_FUNCS + (i ? 300 : 0),
			  "inner_walk");
		ASSERT_EQ(golden, !i, "inner_golden");
	}
	opts.syms = (const char **)fentry_funcs;
	opts.cnt = NR_FUNCS;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.ipc_inner,
						     NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	prog_run_ns(bpf_program__fd(skel->progs.ipc_trigger), 1);

	/* The inner lookups are inlined: no call to the map's lookup
	 * function (a call's immediate is its offset from __bpf_call_base)
	 * nor to the generic helper.
	 */
	prog = bpf_program__fd(skel->progs.ipc_inner);
	base = ksym("__bpf_call_base");
	for (i = 0; i < 2; i++) {
		ip = ksym(i ? "bpf_map_lookup_elem" : "ip_cookie_map_lookup_elem");
		ASSERT_EQ(count_insns(prog, BPF_JMP | BPF_CALL, (__s32)(ip - base)),
			  0, i ? "inlined_no_helper" : "inlined_no_call");
	}
	/* The same count sees a call the program does make. */
	ip = ksym("bpf_get_current_pid_tgid");
	ASSERT_EQ(count_insns(prog, BPF_JMP | BPF_CALL, (__s32)(ip - base)), 1,
		  "control_call_seen");
	/* The template inner lookups are inlined from carries no creator's
	 * rights to bypass Spectre v1 mitigations (bpf_map_meta_alloc()
	 * copies them for arrays only), and the map found at run time may
	 * come from anyone: every inner lookup is clamped, whoever created
	 * the maps and whatever the mitigations.
	 */
	ASSERT_EQ(count_insns(prog, BPF_ALU64 | BPF_ARSH | BPF_K, 63),
		  IPC_NR_INNER, "inner_clamped_arsh");

	/* Inner map i holds ip + i + 1: every hit finds its own tag. */
	for (i = 0; i < IPC_NR_INNER; i++) {
		tags = skel->bss->inner_tags[i];
		ASSERT_EQ(skel->bss->inner_missed[i], 0, "inner_missed");
		ASSERT_EQ(tags[i + 1], NR_FUNCS, "inner_own_tag");
		ASSERT_EQ(tags[0] + tags[2 - i], 0, "inner_other_values");
	}
out:
	bpf_link__destroy(link);
	for (i = 0; i < IPC_NR_INNER; i++)
		if (inner[i] >= 0)
			close(inner[i]);
	ip_cookie__destroy(skel);
}

/* The inlined lookup clamps its slot index when the map's creator may
 * not bypass Spectre v1 mitigations (no CAP_PERFMON), as array maps do,
 * and still finds every key.
 */
static void test_spectre_v1(void)
{
	const __u8 arsh = BPF_ALU64 | BPF_ARSH | BPF_K;
	const __u8 call = BPF_JMP | BPF_CALL;
	struct ip_cookie_probe *skel;
	int fd, prog, i, err;
	__u64 caps, key;

	/* Created by a task with CAP_PERFMON: no clamp. */
	fd = create_map(8, 8, IPC_PROBE_MAX, 0);
	if (!ASSERT_GE(fd, 0, "create"))
		return;
	skel = probe_on_map(fd);
	close(fd);
	if (!skel)
		return;
	prog = bpf_program__fd(skel->progs.lookup_one);
	ASSERT_EQ(count_insns(prog, call, 0) + count_insns(prog, arsh, 63), 0,
		  "privileged_no_call_no_clamp");
	ip_cookie_probe__destroy(skel);

	/* Created without CAP_PERFMON (and CAP_SYS_ADMIN, which implies it). */
	err = cap_disable_effective(1ULL << CAP_PERFMON | 1ULL << CAP_SYS_ADMIN,
				    &caps);
	if (!ASSERT_OK(err, "drop_perfmon"))
		return;
	fd = create_map(8, 8, IPC_PROBE_MAX, 0);
	cap_enable_effective(caps, NULL);
	if (!ASSERT_GE(fd, 0, "create_unprivileged"))
		return;
	if (!ASSERT_OK(fill_batch(fd, 0, 5000, 0), "fill"))
		goto out_fd;
	skel = probe_on_map(fd);
	if (!skel)
		goto out_fd;
	prog = bpf_program__fd(skel->progs.lookup_one);
	/* The verifier clamps unless cpu_mitigations_off(), which also
	 * turns off the kernel's own Spectre v1 mitigation: a kernel
	 * without CONFIG_CPU_MITIGATIONS or booted with mitigations=off.
	 */
	if (spectre_v1_mitigated()) {
		ASSERT_EQ(count_insns(prog, arsh, 63), 1, "clamp_arsh");
	} else {
		printf("%s:SKIP: mitigations off: no clamp to look for\n",
		       __func__);
		test__skip();
	}
	ASSERT_EQ(count_insns(prog, call, 0), 0, "inlined");

	/* Half present, half absent keys, through the clamped lookup. */
	skel->bss->rounds = 1;
	for (i = 0; i < IPC_PROBE_KEYS; i++)
		skel->bss->keys[i] = fake_ip(i % 2 ? 4900 + i : 6000 + i);
	prog_run_ns(bpf_program__fd(skel->progs.lookup_keys), 1);
	for (i = 0; i < IPC_PROBE_KEYS; i++) {
		key = i % 2 ? 4900 + i : IPC_PROBE_MISS;
		ASSERT_EQ(skel->bss->vals[i], key, "clamped_lookup");
	}
	ip_cookie_probe__destroy(skel);
out_fd:
	close(fd);
}

void test_ip_cookie_progs(void)
{
	if (test__start_subtest("kprobe_multi") && have_kprobe_multi())
		run_attach_test(subtest_kprobe_multi);
	if (test__start_subtest("kprobe"))
		run_attach_test(subtest_kprobe);
	if (test__start_subtest("fentry"))
		run_attach_test(subtest_fentry);
	if (test__start_subtest("uprobe"))
		run_attach_test(subtest_uprobe);
	if (test__start_subtest("tracepoints"))
		run_attach_test(subtest_tracepoints);
	if (test__start_subtest("perf_event"))
		run_attach_test(subtest_perf_event);
	if (test__start_subtest("perf_event_nmi"))
		run_attach_test(subtest_perf_event_nmi);
	if (test__start_subtest("inner_map") && have_kprobe_multi())
		test_inner_map();
	if (test__start_subtest("spectre_v1"))
		test_spectre_v1();
}

void test_ip_cookie_verifier(void)
{
	RUN_TESTS(ip_cookie_fail);
}
