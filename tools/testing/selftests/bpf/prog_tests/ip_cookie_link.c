// SPDX-License-Identifier: GPL-2.0
/* Link-scoped BPF_MAP_TYPE_IP_COOKIE entries: one program attached through
 * several links to the same functions finds, on every hit, the value of the
 * link it runs under, keyed by {bpf_get_func_ip(), bpf_get_attach_link_id()}.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <pthread.h>
#include <linux/perf_event.h>
#include <bpf/btf.h>
#include "ip_cookie_helpers.h"
#include "ip_cookie_uffd.h"
#include "ip_cookie_link.skel.h"

#define RUNS		5

/* Entry {ip, link} -> value; the program counts hits[value]. */
static void add_entry(int fd, __u64 ip, __u32 link, __u64 value)
{
	struct bpf_ip_cookie_key key = { .ip = ip, .link_id = link };

	ASSERT_OK(bpf_map_update_elem(fd, &key, &value, BPF_NOEXIST), "add");
}

/* bpf_fentry_test1..8, @n times */
static void trigger(struct ip_cookie_link *skel, int n)
{
	prog_run_ns(bpf_program__fd(skel->progs.link_trigger), n);
}

/* hits[] must be exactly @want[] */
static void check_hits(struct ip_cookie_link *skel, const __u64 *want,
		       const char *name)
{
	int i;

	ASSERT_EQ(skel->bss->missed, 0, "missed");
	for (i = 0; i < ARRAY_SIZE(skel->bss->hits); i++)
		if (!ASSERT_EQ(skel->bss->hits[i], want[i], name))
			printf("%s: value %d\n", name, i);
}

/* The skeleton, opened; where trampolines have no link ID, without its
 * trampoline programs, which the verifier would refuse, but for
 * link_trigger: it calls no kfunc, and its test runs fire the kprobe.multi
 * links.
 */
static struct ip_cookie_link *link_skel_open(void)
{
	struct ip_cookie_link *skel = ip_cookie_link__open();
	struct bpf_program *p;

	if (!ASSERT_OK_PTR(skel, "skel_open"))
		return NULL;
	if (!TRAMP_LINK_ID)
		bpf_object__for_each_program(p, skel->obj)
			if (bpf_program__type(p) == BPF_PROG_TYPE_TRACING &&
			    p != skel->progs.link_trigger)
				bpf_program__set_autoload(p, false);
	return skel;
}

static struct ip_cookie_link *link_skel_load(void)
{
	struct ip_cookie_link *skel = link_skel_open();

	if (skel && !ASSERT_OK(ip_cookie_link__load(skel), "skel_load")) {
		ip_cookie_link__destroy(skel);
		skel = NULL;
	}
	return skel;
}

/* Where trampolines have no link ID, checks that link_fentry_a is refused. */
static bool tramp_link_id(void)
{
	size_t size;
	const void *elf = ip_cookie_link__elf_bytes(&size);

	return have_tramp_link_id(elf, size, "link_fentry_a");
}

/* The skeleton, loaded, counting hits of this process; @ips gets the
 * addresses of fentry_funcs[].
 */
static struct ip_cookie_link *open_skel(__u64 *ips)
{
	struct ip_cookie_link *skel;
	int i;

	if (!ASSERT_OK(load_kallsyms(), "load_kallsyms"))
		return NULL;
	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return NULL;
	skel->bss->test_pid = getpid();
	for (i = 0; i < NR_FUNCS; i++)
		ips[i] = ksym_get_addr(fentry_funcs[i]);
	return skel;
}

/* Link A on functions 1..6, link B on 3..8: 3..6 are hooked twice. */
static void test_kprobe_multi(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct bpf_link *a = NULL, *b = NULL;
	struct bpf_ip_cookie_key keys[6];
	__u64 want[64] = {}, ips[NR_FUNCS];
	struct ip_cookie_link *skel;
	__u32 ida, idb, n;
	int fd, i;

	skel = open_skel(ips);
	if (!skel)
		return;
	fd = bpf_map__fd(skel->maps.link_map);

	opts.syms = (const char **)fentry_funcs;
	opts.cnt = 6;
	a = bpf_program__attach_kprobe_multi_opts(skel->progs.link_kmulti,
						  NULL, &opts);
	opts.syms = (const char **)fentry_funcs + 2;
	b = bpf_program__attach_kprobe_multi_opts(skel->progs.link_kmulti,
						  NULL, &opts);
	if (!ASSERT_OK_PTR(a, "attach_a") || !ASSERT_OK_PTR(b, "attach_b"))
		goto out;
	ida = link_id(a);
	idb = link_id(b);
	ASSERT_NEQ(ida, idb, "distinct_links");

	for (i = 0; i < 6; i++) {
		add_entry(fd, ips[i], ida, i + 1);
		add_entry(fd, ips[i + 2], idb, 16 + i + 3);
		want[i + 1] = RUNS;
		want[16 + i + 3] = RUNS;
	}
	trigger(skel, RUNS);
	check_hits(skel, want, "both_links");
	ASSERT_EQ(skel->bss->seen_link_id[0], ida, "seen_link_a");
	ASSERT_EQ(skel->bss->seen_link_id[1], idb, "seen_link_b");

	/* Detach A and drop its entries in one call: B is not affected. */
	bpf_link__destroy(a);
	a = NULL;
	for (i = 0; i < 6; i++)
		keys[i] = (struct bpf_ip_cookie_key){ .ip = ips[i], .link_id = ida };
	n = 6;
	ASSERT_OK(bpf_map_delete_batch(fd, keys, &n, NULL), "delete_batch");
	ASSERT_EQ(n, 6, "deleted");
	trigger(skel, RUNS);
	for (i = 3; i <= 8; i++)
		want[16 + i] = 2 * RUNS;
	check_hits(skel, want, "link_b_only");
out:
	bpf_link__destroy(a);
	bpf_link__destroy(b);
	ip_cookie_link__destroy(skel);
}

/* Return probes see the link ID too: a kretprobe.multi link on functions
 * 1..4 and a kprobe.session link, whose program also runs at return, on
 * functions 3..6.
 */
static void test_kretprobe_multi(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct bpf_link *a = NULL, *b = NULL;
	__u64 want[64] = {}, ips[NR_FUNCS];
	struct ip_cookie_link *skel;
	__u32 ida, idb;
	int fd, i;

	skel = open_skel(ips);
	if (!skel)
		return;
	fd = bpf_map__fd(skel->maps.link_map);

	opts.syms = (const char **)fentry_funcs;
	opts.cnt = 4;
	opts.retprobe = true;
	a = bpf_program__attach_kprobe_multi_opts(skel->progs.link_kretmulti,
						  NULL, &opts);
	opts.syms = (const char **)fentry_funcs + 2;
	opts.retprobe = false;
	opts.session = true;
	b = bpf_program__attach_kprobe_multi_opts(skel->progs.link_session,
						  NULL, &opts);
	if (!ASSERT_OK_PTR(a, "attach_kretmulti") ||
	    !ASSERT_OK_PTR(b, "attach_session"))
		goto out;
	ida = link_id(a);
	idb = link_id(b);
	for (i = 0; i < 4; i++) {
		add_entry(fd, ips[i], ida, i + 1);
		add_entry(fd, ips[i + 2], idb, 16 + i + 3);
		want[i + 1] = RUNS;
		want[16 + i + 3] = 2 * RUNS;	/* entry and return */
	}
	trigger(skel, RUNS);
	check_hits(skel, want, "return_links");
	ASSERT_EQ(skel->bss->seen_link_id[0], ida, "seen_kretmulti");
	ASSERT_EQ(skel->bss->seen_link_id[1], idb, "seen_session");
out:
	bpf_link__destroy(a);
	bpf_link__destroy(b);
	ip_cookie_link__destroy(skel);
}

/* Two programs on one function, plus fexit and fmod_ret: four links. */
static void test_trampoline(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct bpf_link *l[4] = {};
	struct ip_cookie_link *skel;
	__u64 want[64] = {};
	__u64 ip1, ip2, ipm;
	__u32 id[4];
	int fd, i;

	if (!ASSERT_OK(load_kallsyms(), "load_kallsyms"))
		return;
	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->test_pid = getpid();
	fd = bpf_map__fd(skel->maps.link_map);
	ip1 = ksym_get_addr("bpf_fentry_test1");
	ip2 = ksym_get_addr("bpf_fentry_test2");
	ipm = ksym_get_addr("bpf_modify_return_test");

	l[0] = bpf_program__attach(skel->progs.link_fentry_a);
	l[1] = bpf_program__attach(skel->progs.link_fentry_b);
	l[2] = bpf_program__attach(skel->progs.link_fexit);
	l[3] = bpf_program__attach(skel->progs.link_fmod_ret);
	for (i = 0; i < 4; i++)
		if (!ASSERT_OK_PTR(l[i], "attach"))
			goto out;
	for (i = 0; i < 4; i++)
		id[i] = link_id(l[i]);
	add_entry(fd, ip1, id[0], 1);
	add_entry(fd, ip1, id[1], 16 + 1);
	add_entry(fd, ip2, id[2], 32 + 2);
	add_entry(fd, ipm, id[3], 48 + 9);
	want[1] = RUNS;
	want[16 + 1] = RUNS;
	want[32 + 2] = RUNS;
	want[48 + 9] = RUNS;

	trigger(skel, RUNS);
	for (i = 0; i < RUNS; i++)
		ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.link_fmod_ret),
						 &topts), "test_run_fmod_ret");
	check_hits(skel, want, "trampoline");
	for (i = 0; i < 4; i++)
		ASSERT_EQ(skel->bss->seen_link_id[i], id[i], "seen_link_id");
out:
	for (i = 0; i < 4; i++)
		bpf_link__destroy(l[i]);
	ip_cookie_link__destroy(skel);
}

/* fsession: the entry and the exit node of one link both store its ID. */
static void test_fsession(void)
{
	struct bpf_link *l = NULL;
	struct ip_cookie_link *skel;
	__u64 want[64] = {};
	__u32 id;
	int fd;

	if (!ASSERT_OK(load_kallsyms(), "load_kallsyms"))
		return;
	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->test_pid = getpid();
	fd = bpf_map__fd(skel->maps.link_map);
	l = bpf_program__attach(skel->progs.link_fsession);
	if (!ASSERT_OK_PTR(l, "attach"))
		goto out;
	id = link_id(l);
	add_entry(fd, ksym_get_addr("bpf_fentry_test3"), id, 3);
	want[3] = 2 * RUNS;	/* entry and exit */
	trigger(skel, RUNS);
	check_hits(skel, want, "fsession");
	ASSERT_EQ(skel->bss->seen_link_id[0], id, "seen_link_id");
out:
	bpf_link__destroy(l);
	ip_cookie_link__destroy(skel);
}

/* The BTF IDs of fentry_funcs[first..first + cnt - 1] */
static int func_btf_ids(int first, int cnt, __u32 *ids)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int i, id;

	if (!ASSERT_OK_PTR(btf, "vmlinux_btf"))
		return -1;
	for (i = 0; i < cnt; i++) {
		id = btf__find_by_name_kind(btf, fentry_funcs[first + i],
					    BTF_KIND_FUNC);
		if (!ASSERT_GT(id, 0, fentry_funcs[first + i]))
			break;
		ids[i] = id;
	}
	btf__free(btf);
	return i == cnt ? 0 : -1;
}

/* tracing_multi links: fentry.multi link A on functions 1..6 and B on
 * 3..8 (two programs: one is linked to a trampoline once); then an
 * fexit.multi and an fsession.multi link on 1..4, whose programs run at
 * exit (and entry).  Each hit finds the value of its own link: every
 * node of a link stores the link's ID.
 */
static void test_tracing_multi(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct bpf_link *l[4] = {};
	__u64 want[64] = {}, ips[NR_FUNCS];
	struct ip_cookie_link *skel;
	__u32 ids[NR_FUNCS], id[4];
	int fd, i;

	skel = open_skel(ips);
	if (!skel)
		return;
	fd = bpf_map__fd(skel->maps.link_map);
	if (func_btf_ids(0, NR_FUNCS, ids))
		goto out;

	opts.ids = ids;
	opts.cnt = 6;
	l[0] = bpf_program__attach_tracing_multi(skel->progs.link_fentry_multi,
						 NULL, &opts);
	opts.ids = ids + 2;
	l[1] = bpf_program__attach_tracing_multi(skel->progs.link_fentry_multi_b,
						 NULL, &opts);
	opts.ids = ids;
	opts.cnt = 4;
	l[2] = bpf_program__attach_tracing_multi(skel->progs.link_fexit_multi,
						 NULL, &opts);
	l[3] = bpf_program__attach_tracing_multi(skel->progs.link_fsession_multi,
						 NULL, &opts);
	for (i = 0; i < 4; i++)
		if (!ASSERT_OK_PTR(l[i], "attach"))
			goto out;
	for (i = 0; i < 4; i++)
		id[i] = link_id(l[i]);
	for (i = 0; i < 6; i++) {
		add_entry(fd, ips[i], id[0], i + 1);
		add_entry(fd, ips[i + 2], id[1], 16 + i + 3);
		want[i + 1] = RUNS;
		want[16 + i + 3] = RUNS;
	}
	for (i = 0; i < 4; i++) {
		add_entry(fd, ips[i], id[2], 32 + i + 1);
		add_entry(fd, ips[i], id[3], 48 + i + 1);
		want[32 + i + 1] = RUNS;
		want[48 + i + 1] = 2 * RUNS;	/* entry and exit */
	}
	trigger(skel, RUNS);
	check_hits(skel, want, "tracing_multi");
	for (i = 0; i < 4; i++)
		ASSERT_EQ(skel->bss->seen_link_id[i], id[i], "seen_link_id");
out:
	for (i = 0; i < 4; i++)
		bpf_link__destroy(l[i]);
	ip_cookie_link__destroy(skel);
}

noinline int ipc_link_utarget1(int x)
{
	asm volatile ("" : "+r"(x));
	return x + 1;
}

noinline int ipc_link_utarget2(int x)
{
	asm volatile ("" : "+r"(x));
	return x + 2;
}

noinline int ipc_link_utarget3(int x)
{
	asm volatile ("" : "+r"(x));
	return x + 3;
}

/* Link A on targets 1-2, link B on 2-3, one program. */
static void test_uprobe_multi(void)
{
	const char *syms[3] = { "ipc_link_utarget1", "ipc_link_utarget2",
				"ipc_link_utarget3" };
	LIBBPF_OPTS(bpf_uprobe_multi_opts, opts);
	struct bpf_link *a = NULL, *b = NULL;
	struct ip_cookie_link *skel;
	__u64 want[64] = {}, ips[3];
	__u32 ida, idb;
	int fd, i;

	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->test_pid = getpid();
	fd = bpf_map__fd(skel->maps.link_map);
	ips[0] = (__u64)(unsigned long)&ipc_link_utarget1;
	ips[1] = (__u64)(unsigned long)&ipc_link_utarget2;
	ips[2] = (__u64)(unsigned long)&ipc_link_utarget3;

	opts.syms = syms;
	opts.cnt = 2;
	a = bpf_program__attach_uprobe_multi(skel->progs.link_umulti, -1,
					     "/proc/self/exe", NULL, &opts);
	opts.syms = syms + 1;
	b = bpf_program__attach_uprobe_multi(skel->progs.link_umulti, -1,
					     "/proc/self/exe", NULL, &opts);
	if (!ASSERT_OK_PTR(a, "attach_a") || !ASSERT_OK_PTR(b, "attach_b"))
		goto out;
	ida = link_id(a);
	idb = link_id(b);
	add_entry(fd, ips[0], ida, 1);
	add_entry(fd, ips[1], ida, 2);
	add_entry(fd, ips[1], idb, 16 + 2);
	add_entry(fd, ips[2], idb, 16 + 3);
	want[1] = RUNS;
	want[2] = RUNS;
	want[16 + 2] = RUNS;
	want[16 + 3] = RUNS;
	for (i = 0; i < RUNS; i++) {
		ipc_link_utarget1(i);
		ipc_link_utarget2(i);
		ipc_link_utarget3(i);
	}
	check_hits(skel, want, "uprobe_multi");
	ASSERT_EQ(skel->bss->seen_link_id[0], ida, "seen_link_a");
	ASSERT_EQ(skel->bss->seen_link_id[1], idb, "seen_link_b");
out:
	bpf_link__destroy(a);
	bpf_link__destroy(b);
	ip_cookie_link__destroy(skel);
}

/* uprobe.session: entry and return of targets 1-2 under one link. */
static void test_uprobe_session(void)
{
	LIBBPF_OPTS(bpf_uprobe_multi_opts, opts);
	const char *syms[2] = { "ipc_link_utarget1", "ipc_link_utarget2" };
	struct ip_cookie_link *skel;
	struct bpf_link *l = NULL;
	__u64 want[64] = {};
	__u32 id;
	int fd, i;

	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->test_pid = getpid();
	fd = bpf_map__fd(skel->maps.link_map);
	opts.syms = syms;
	opts.cnt = 2;
	opts.session = true;
	l = bpf_program__attach_uprobe_multi(skel->progs.link_usession, -1,
					     "/proc/self/exe", NULL, &opts);
	if (!ASSERT_OK_PTR(l, "attach"))
		goto out;
	id = link_id(l);
	add_entry(fd, (__u64)(unsigned long)&ipc_link_utarget1, id, 1);
	add_entry(fd, (__u64)(unsigned long)&ipc_link_utarget2, id, 2);
	want[1] = 2 * RUNS;	/* entry and return */
	want[2] = 2 * RUNS;
	for (i = 0; i < RUNS; i++) {
		ipc_link_utarget1(i);
		ipc_link_utarget2(i);
	}
	check_hits(skel, want, "uprobe_session");
	ASSERT_EQ(skel->bss->seen_link_id[0], id, "seen_link_id");
out:
	bpf_link__destroy(l);
	ip_cookie_link__destroy(skel);
}

static void *getpgid_thread(void *arg)
{
	syscall(__NR_getpgid, 0);
	return NULL;
}

/* A sleepable fentry program blocks in a page fault while its link is
 * destroyed, then reads the link through bpf_get_attach_link_id(): the
 * link must still be there (KASAN watches), with its ID.
 */
static void test_uaf_sleepable(void)
{
	struct ip_cookie_link *skel;
	struct bpf_link *link;
	struct ipc_uffd u;
	pthread_t th;
	__u32 id;
	int err;

	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	err = ipc_uffd_open(&u);
	if (!ASSERT_OK(err, "userfaultfd"))
		goto out_skel;
	skel->bss->uaf_pid = getpid();
	skel->bss->uaf_uaddr = (__u64)(unsigned long)u.page;
	link = bpf_program__attach(skel->progs.uaf_sleepable);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out_uffd;
	id = link_id(link);
	if (!ASSERT_OK(pthread_create(&th, NULL, getpgid_thread, NULL),
		       "thread")) {
		bpf_link__destroy(link);
		goto out_uffd;
	}
	err = ipc_uffd_wait(&u, 10000);
	ASSERT_OK(err, "program_blocked");
	/* Destroy the link under the blocked program, let the freeing
	 * machinery run, then let the program go on.
	 */
	bpf_link__destroy(link);
	usleep(200000);
	ASSERT_OK(ipc_uffd_release(&u), "release");
	pthread_join(th, NULL);
	ASSERT_EQ(skel->bss->uaf_runs, 1, "runs");
	ASSERT_EQ(skel->bss->uaf_link_id, id, "link_id_after_destroy");
out_uffd:
	ipc_uffd_close(&u);
out_skel:
	ip_cookie_link__destroy(skel);
}

/* Wait up to 10 s for *@p to reach @val. */
static bool wait_for(__u32 *p, __u32 val)
{
	int i;

	for (i = 0; i < 10000; i++) {
		if (__atomic_load_n(p, __ATOMIC_ACQUIRE) >= val)
			return true;
		usleep(1000);
	}
	return false;
}

/* Destroy the link while its (non-sleepable) program runs on the other
 * CPU, five times: the program reads its link after a long loop, when the
 * link's release has long returned.  Another program keeps the trampoline
 * registered: removing the last one would wait for the running program
 * (synchronize_rcu_tasks()).  Calls to the traced function start only
 * between two destructions, so they never race with the patching of its
 * call site.
 */
static void test_uaf_loop(void)
{
	struct bpf_link *link, *keeper;
	struct ip_cookie_link *skel;
	pthread_t th;
	__u32 id;
	int i;

	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->uaf_pid = getpid();
	skel->bss->uaf_spin = 1 << 22;
	keeper = bpf_program__attach(skel->progs.uaf_keeper);
	if (!ASSERT_OK_PTR(keeper, "attach_keeper"))
		goto out;
	for (i = 0; i < 5; i++) {
		link = bpf_program__attach(skel->progs.uaf_loop);
		if (!ASSERT_OK_PTR(link, "attach"))
			break;
		id = link_id(link);
		if (!ASSERT_OK(pthread_create(&th, NULL, getpgid_thread, NULL),
			       "thread")) {
			bpf_link__destroy(link);
			break;
		}
		ASSERT_TRUE(wait_for(&skel->bss->uaf_started, i + 1), "started");
		bpf_link__destroy(link);
		pthread_join(th, NULL);
		ASSERT_EQ(skel->bss->uaf_runs, i + 1, "runs");
		ASSERT_EQ(skel->bss->uaf_link_id, id, "link_id_after_destroy");
	}
	bpf_link__destroy(keeper);
out:
	ip_cookie_link__destroy(skel);
}

/* A trampoline image runs its programs one after the other.  Here a
 * sleepable fentry program blocks in a page fault ahead of a
 * non-sleepable fentry or fmod_ret one on the same function while the
 * second one's link is destroyed: the grace period of the second program
 * does not wait for the blocked task.  7.3 patches the call of a detached
 * program in the old image into a jump over it, so the task skips the
 * second program when it goes on, and nothing freed is touched (KASAN
 * watches).  The first program keeps the trampoline registered, so the
 * destruction does not wait for the task.
 */
static void uaf_behind_sleepable(bool fmod_ret)
{
	struct bpf_link *link = NULL, *blocker = NULL;
	struct ip_cookie_link *skel;
	struct ipc_uffd u;
	pthread_t th;
	__u32 id;
	int err;

	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	err = ipc_uffd_open(&u);
	if (!ASSERT_OK(err, "userfaultfd"))
		goto out_skel;
	skel->bss->uaf_pid = getpid();
	skel->bss->uaf_uaddr = (__u64)(unsigned long)u.page;
	/* Of two fentry programs, that of the newest link runs first. */
	link = bpf_program__attach(fmod_ret ? skel->progs.uaf_behind_fmod_ret :
					      skel->progs.uaf_behind);
	if (!ASSERT_OK_PTR(link, "attach_behind"))
		goto out_uffd;
	blocker = bpf_program__attach(skel->progs.uaf_blocker);
	if (!ASSERT_OK_PTR(blocker, "attach_blocker"))
		goto out_link;
	id = link_id(link);
	if (!ASSERT_OK(pthread_create(&th, NULL, getpgid_thread, NULL),
		       "thread"))
		goto out_link;
	err = ipc_uffd_wait(&u, 10000);
	ASSERT_OK(err, "program_blocked");
	/* Destroy the link, let its grace periods pass and its memory go,
	 * then let the blocked task go on to its program.
	 */
	bpf_link__destroy(link);
	link = NULL;
	ASSERT_OK(kern_sync_rcu(), "sync_rcu");
	usleep(500000);
	ASSERT_OK(ipc_uffd_release(&u), "release");
	pthread_join(th, NULL);
	ASSERT_EQ(skel->bss->uaf_runs, 0, "skipped_in_old_image");
	ASSERT_NEQ(id, 0, "link_id");
out_link:
	bpf_link__destroy(link);
	bpf_link__destroy(blocker);
out_uffd:
	ipc_uffd_close(&u);
out_skel:
	ip_cookie_link__destroy(skel);
}

static void test_uaf_behind_sleepable(void)
{
	uaf_behind_sleepable(false);
	uaf_behind_sleepable(true);
}

/* A kprobe PMU event on @func, for PERF_EVENT_IOC_SET_BPF. */
static int kprobe_pmu_event(const char *func)
{
	struct perf_event_attr attr = {};
	char buf[16] = {};
	int fd, type;

	fd = open("/sys/bus/event_source/devices/kprobe/type", O_RDONLY);
	if (fd < 0)
		return -errno;
	if (read(fd, buf, sizeof(buf) - 1) <= 0) {
		close(fd);
		return -EIO;
	}
	close(fd);
	type = atoi(buf);
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (__u64)(unsigned long)func;
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Programs of the multi-link types read their link's run context: they
 * cannot be attached to a plain perf kprobe (PERF_EVENT_IOC_SET_BPF or a
 * perf link), which runs them with another one.
 */
static void test_perf_attach(void)
{
	struct bpf_program *progs[3];
	struct ip_cookie_link *skel;
	int pfd, i, err;

	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	progs[0] = skel->progs.link_kmulti;
	progs[1] = skel->progs.link_umulti;
	progs[2] = skel->progs.link_session;
	/* An event of its own for each program: an event takes one. */
	for (i = 0; i < ARRAY_SIZE(progs); i++) {
		pfd = kprobe_pmu_event("bpf_fentry_test1");
		if (!ASSERT_GE(pfd, 0, "perf_event_open"))
			break;
		err = ioctl(pfd, PERF_EVENT_IOC_SET_BPF,
			    bpf_program__fd(progs[i]));
		ASSERT_EQ(err ? -errno : 0, -EINVAL, "ioctl_set_bpf");
		err = bpf_link_create(bpf_program__fd(progs[i]), pfd,
				      BPF_PERF_EVENT, NULL);
		ASSERT_EQ(err < 0 ? err : 0, -EINVAL, "perf_link");
		if (err >= 0)
			close(err);
		close(pfd);
	}
	ip_cookie_link__destroy(skel);
}

/* A tail-called program runs in its caller's run context: programs that
 * read their link cannot be tail called.
 */
static void test_tail_call(void)
{
	struct ip_cookie_link *skel;
	__u32 key = 0;
	int fd, prog;

	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	fd = bpf_map__fd(skel->maps.jmp_table);
	prog = bpf_program__fd(skel->progs.plain_kmulti);
	ASSERT_OK(bpf_map_update_elem(fd, &key, &prog, 0), "plain_prog");
	key = 1;
	prog = bpf_program__fd(skel->progs.link_kmulti);
	ASSERT_EQ(bpf_map_update_elem(fd, &key, &prog, 0), -EINVAL,
		  "link_id_prog");
	ip_cookie_link__destroy(skel);
}

/* Link IDs are not reused until the ID space wraps: a new link on the
 * same function does not see a destroyed link's entry, which the user
 * deletes (Documentation/bpf/map_ip_cookie.rst).
 */
static void test_link_id_reuse(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct bpf_ip_cookie_key key = {};
	struct bpf_link *a, *b = NULL;
	struct ip_cookie_link *skel;
	__u64 want[64] = {};
	__u32 ida, idb;
	int fd;

	if (!ASSERT_OK(load_kallsyms(), "load_kallsyms"))
		return;
	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->test_pid = getpid();
	fd = bpf_map__fd(skel->maps.link_map);
	opts.syms = (const char **)fentry_funcs;
	opts.cnt = 1;
	a = bpf_program__attach_kprobe_multi_opts(skel->progs.link_kmulti,
						  NULL, &opts);
	if (!ASSERT_OK_PTR(a, "attach_a"))
		goto out;
	ida = link_id(a);
	add_entry(fd, ksym_get_addr(fentry_funcs[0]), ida, 1);
	trigger(skel, 1);
	want[1] = 1;
	check_hits(skel, want, "link_a");

	bpf_link__destroy(a);
	b = bpf_program__attach_kprobe_multi_opts(skel->progs.link_kmulti,
						  NULL, &opts);
	if (!ASSERT_OK_PTR(b, "attach_b"))
		goto out;
	idb = link_id(b);
	ASSERT_NEQ(idb, ida, "new_id");
	trigger(skel, 1);
	ASSERT_EQ(skel->bss->missed, 1, "stale_entry_not_matched");
	ASSERT_EQ(skel->bss->hits[1], 1, "stale_entry_not_counted");

	/* The documented clean-up: delete the destroyed link's entries. */
	key.ip = ksym_get_addr(fentry_funcs[0]);
	key.link_id = ida;
	ASSERT_OK(bpf_map_delete_elem(fd, &key), "delete_stale");
	ASSERT_EQ(bpf_map_get_next_key(fd, NULL, &key), -ENOENT, "map_empty");
out:
	bpf_link__destroy(b);
	ip_cookie_link__destroy(skel);
}

static bool in_module_area(const struct ksym *ks, void *ctx)
{
	return !!ks->module;	/* modules and BPF ("[bpf]") */
}

/* Address of the trampoline of kernel function @func (its kallsyms name
 * is bpf_trampoline_<key>, the low 31 bits of the key its BTF ID), or 0;
 * *@len: bytes to the next symbol.
 */
static __u64 trampoline_addr(const char *func, __u64 *len)
{
	unsigned long long key;
	struct ksyms *t = NULL;
	__u64 found = 0;
	struct btf *btf;
	size_t i, j;
	int id;

	btf = btf__load_vmlinux_btf();
	if (!ASSERT_OK_PTR(btf, "vmlinux_btf"))
		return 0;
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	btf__free(btf);
	t = load_kallsyms_filtered_local(in_module_area, NULL);
	if (!ASSERT_OK_PTR(t, "kallsyms") || !ASSERT_GT(id, 0, "btf_id"))
		goto out;
	for (i = 0; i < t->sym_cnt; i++) {
		if (sscanf(t->syms[i].name, "bpf_trampoline_%llu", &key) != 1 ||
		    (key & 0x7fffffff) != id)
			continue;
		found = t->syms[i].addr;
		for (j = i + 1; j < t->sym_cnt && t->syms[j].addr == found; j++)
			;
		*len = j < t->sym_cnt ? t->syms[j].addr - found : ~0ULL;
	}
out:
	free_kallsyms_local(t);
	return found;
}

/* "movabs rdi, <kernel address>" in the trampoline of bpf_fentry_test5:
 * the trampoline loads each program that way.  *@id_loads gets the number
 * of "mov edi, @id": the trampoline loads the link ID of a program that
 * reads it that way, to store it in the run context.
 */
static int trampoline_loads(struct ip_cookie_link *skel, __u32 id,
			    int *id_loads)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	__u8 *t = skel->bss->text;
	__u64 len = 0;
	int i, n = 0;

	*id_loads = 0;

	skel->bss->text_addr = trampoline_addr("bpf_fentry_test5", &len);
	if (len > sizeof(skel->bss->text))
		len = sizeof(skel->bss->text);
	if (!ASSERT_NEQ(skel->bss->text_addr, 0, "trampoline_addr") ||
	    !ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.read_text),
					      &topts), "read_text") ||
	    !ASSERT_OK(topts.retval, "probe_read"))
		return -1;
	/* The top byte of a kernel address is 0xff with 4- and 5-level
	 * paging alike (vmalloc starts at 0xffa0... with 5 levels).
	 */
	for (i = 0; i + 10 <= len; i++)
		if (t[i] == 0x48 && t[i + 1] == 0xbf && t[i + 9] == 0xff)
			n++;
	/* No REX prefix: a 32-bit immediate into edi */
	for (i = 1; i + 5 <= len; i++)
		if (t[i] == 0xbf && (t[i - 1] & 0xf0) != 0x40 &&
		    !memcmp(&t[i + 1], &id, sizeof(id)))
			(*id_loads)++;
	return n;
}

/* The trampoline stores the link ID in the run context only for programs
 * that call bpf_get_attach_link_id(): each program adds two pointer loads
 * (itself, for the enter and exit calls), and one that calls the kfunc
 * adds a load of its link ID, as an immediate; it does not load its link.
 */
static void test_store_only_when_used(void)
{
	struct bpf_link *a = NULL, *b = NULL, *c = NULL;
	struct ip_cookie_link *skel;
	int one, two, three, ids;

	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	a = bpf_program__attach(skel->progs.plain_fentry_a);
	if (!ASSERT_OK_PTR(a, "attach_a"))
		goto out;
	one = trampoline_loads(skel, 0, &ids);
	b = bpf_program__attach(skel->progs.plain_fentry_b);
	if (!ASSERT_OK_PTR(b, "attach_b"))
		goto out;
	two = trampoline_loads(skel, link_id(b), &ids);
	ASSERT_EQ(ids, 0, "no_link_id_without_kfunc");
	c = bpf_program__attach(skel->progs.link_fentry_c);
	if (!ASSERT_OK_PTR(c, "attach_c"))
		goto out;
	three = trampoline_loads(skel, link_id(c), &ids);
	printf("%s: pointer loads: %d, %d, %d; link ID loads: %d\n",
	       __func__, one, two, three, ids);
	ASSERT_EQ(two - one, 2, "program_without_kfunc");
	ASSERT_EQ(three - two, 2, "program_with_kfunc");
	ASSERT_EQ(ids, 1, "link_id_with_kfunc");
out:
	bpf_link__destroy(c);
	bpf_link__destroy(b);
	bpf_link__destroy(a);
	ip_cookie_link__destroy(skel);
}

/* An extension program of a uprobe.multi program's subprogram runs in
 * the uprobe.multi run context but has no expected attach type: neither
 * kfunc can tell which implementation it needs.  Both are refused.
 */
static void test_ext_refused(void)
{
	struct bpf_program *exts[2], *p;
	struct ip_cookie_link *tgt, *skel = NULL;
	char log[16384];
	int i, err, tgt_fd;

	tgt = link_skel_load();
	if (!ASSERT_OK_PTR(tgt, "target_load"))
		return;
	for (i = 0; i < ARRAY_SIZE(exts); i++) {
		skel = link_skel_open();
		if (!skel)
			break;
		exts[0] = skel->progs.ext_uprobe_offset;
		exts[1] = skel->progs.ext_link_id;
		bpf_object__for_each_program(p, skel->obj)
			bpf_program__set_autoload(p, p == exts[i]);
		log[0] = 0;
		bpf_program__set_log_buf(exts[i], log, sizeof(log));
		tgt_fd = bpf_program__fd(tgt->progs.umulti_ext_target);
		err = bpf_program__set_attach_target(exts[i], tgt_fd,
						     "umulti_sub");
		if (!ASSERT_OK(err, "set_attach_target"))
			break;
		err = ip_cookie_link__load(skel);
		ASSERT_EQ(err, -EACCES, bpf_program__name(exts[i]));
		ASSERT_OK_PTR(strstr(log, "calling kernel function bpf_get_"),
			      "verifier_msg");
		ASSERT_OK_PTR(strstr(log, "is not allowed"), "not_allowed");
		ip_cookie_link__destroy(skel);
		skel = NULL;
	}
	ip_cookie_link__destroy(skel);
	ip_cookie_link__destroy(tgt);
}

/* The verifier resolves bpf_get_attach_link_id() per attach type: each
 * program's call goes to the implementation that reads its run context.
 */
static void test_link_id_per_attach_type(void)
{
	struct {
		struct bpf_program *prog;
		const char *want;
	} cases[10];
	struct ip_cookie_link *skel;
	struct ksym *ks;
	__u64 addr;
	int i, n;

	if (!ASSERT_OK(load_kallsyms(), "load_kallsyms"))
		return;
	skel = link_skel_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	cases[0].prog = skel->progs.link_kmulti;
	cases[0].want = "bpf_kprobe_multi_link_id";
	cases[1].prog = skel->progs.link_kretmulti;
	cases[1].want = "bpf_kprobe_multi_link_id";
	cases[2].prog = skel->progs.link_session;
	cases[2].want = "bpf_kprobe_multi_link_id";
	cases[3].prog = skel->progs.link_umulti;
	cases[3].want = "bpf_uprobe_multi_link_id";
	cases[4].prog = skel->progs.link_fentry_a;
	cases[4].want = "bpf_get_attach_link_id";
	cases[5].prog = skel->progs.link_fmod_ret;
	cases[5].want = "bpf_get_attach_link_id";
	cases[6].prog = skel->progs.link_usession;
	cases[6].want = "bpf_uprobe_multi_link_id";
	cases[7].prog = skel->progs.link_fsession;
	cases[7].want = "bpf_get_attach_link_id";
	cases[8].prog = skel->progs.link_fentry_multi;
	cases[8].want = "bpf_get_attach_link_id";
	cases[9].prog = skel->progs.link_fsession_multi;
	cases[9].want = "bpf_get_attach_link_id";
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		n = kfunc_call_targets(cases[i].prog, &addr, 1);
		if (n == -2) {
			test__skip();
			break;
		}
		if (!ASSERT_EQ(n, 1, "kfunc_calls"))
			continue;
		if (ASSERT_EQ(addr, ksym_get_addr(cases[i].want),
			      bpf_program__name(cases[i].prog)))
			continue;
		ks = ksym_search(addr);
		printf("%s: calls %s, not %s\n", bpf_program__name(cases[i].prog),
		       ks->name, cases[i].want);
	}
	ip_cookie_link__destroy(skel);
}

void test_ip_cookie_link(void)
{
	if (test__start_subtest("kprobe_multi") && have_kprobe_multi())
		test_kprobe_multi();
	if (test__start_subtest("kretprobe_multi") && have_kprobe_multi())
		test_kretprobe_multi();
	if (test__start_subtest("trampoline") && tramp_link_id())
		test_trampoline();
	if (test__start_subtest("uprobe_multi"))
		test_uprobe_multi();
	if (test__start_subtest("uprobe_session"))
		test_uprobe_session();
	if (test__start_subtest("fsession") && tramp_link_id())
		test_fsession();
	if (test__start_subtest("tracing_multi") && tramp_link_id())
		test_tracing_multi();
	if (test__start_subtest("uaf_sleepable") && tramp_link_id())
		test_uaf_sleepable();
	if (test__start_subtest("uaf_loop") && tramp_link_id())
		test_uaf_loop();
	if (test__start_subtest("uaf_behind_sleepable") && tramp_link_id())
		test_uaf_behind_sleepable();
	if (test__start_subtest("perf_attach") && have_kprobe_multi())
		test_perf_attach();
	if (test__start_subtest("tail_call") && have_kprobe_multi())
		test_tail_call();
	if (test__start_subtest("link_id_reuse") && have_kprobe_multi())
		test_link_id_reuse();
	if (test__start_subtest("store_only_when_used") && tramp_link_id())
		test_store_only_when_used();
	if (test__start_subtest("link_id_per_attach_type") &&
	    have_kprobe_multi() && tramp_link_id())
		test_link_id_per_attach_type();
	if (test__start_subtest("ext_refused"))
		test_ext_refused();
}
