// SPDX-License-Identifier: GPL-2.0
/* Link-scoped BPF_MAP_TYPE_IP_COOKIE entries: one program attached through
 * several links to the same functions finds, on every hit, the value of the
 * link it runs under, keyed by {bpf_get_func_ip(), bpf_get_attach_link_id()}.
 */
#include <test_progs.h>
#include "trace_helpers.h"
#include "ip_cookie_link.skel.h"
#include "ip_cookie_link_fail.skel.h"

#define NR_FUNCS	8
#define RUNS		5

static const char * const funcs[NR_FUNCS] = {
	"bpf_fentry_test1", "bpf_fentry_test2", "bpf_fentry_test3",
	"bpf_fentry_test4", "bpf_fentry_test5", "bpf_fentry_test6",
	"bpf_fentry_test7", "bpf_fentry_test8",
};

static __u32 link_id(struct bpf_link *link)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (!ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len),
		       "link_info"))
		return 0;
	return info.id;
}

/* Entry {ip, link} -> value; the program counts hits[value]. */
static void add_entry(int fd, __u64 ip, __u32 link, __u64 value)
{
	struct bpf_ip_cookie_key key = { .ip = ip, .link_id = link };

	ASSERT_OK(bpf_map_update_elem(fd, &key, &value, BPF_NOEXIST), "add");
}

static void trigger(struct ip_cookie_link *skel, int n)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	int fd = bpf_program__fd(skel->progs.link_trigger);

	while (n--)
		ASSERT_OK(bpf_prog_test_run_opts(fd, &topts), "test_run");
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

	if (!ASSERT_OK(load_kallsyms(), "load_kallsyms"))
		return;
	skel = ip_cookie_link__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->pid = getpid();
	fd = bpf_map__fd(skel->maps.link_map);
	for (i = 0; i < NR_FUNCS; i++)
		ips[i] = ksym_get_addr(funcs[i]);

	opts.syms = (const char **)funcs;
	opts.cnt = 6;
	a = bpf_program__attach_kprobe_multi_opts(skel->progs.link_kmulti,
						  NULL, &opts);
	opts.syms = (const char **)funcs + 2;
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
	skel = ip_cookie_link__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->pid = getpid();
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

	skel = ip_cookie_link__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	skel->bss->pid = getpid();
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

void test_ip_cookie_link(void)
{
	if (test__start_subtest("kprobe_multi"))
		test_kprobe_multi();
	if (test__start_subtest("trampoline"))
		test_trampoline();
	if (test__start_subtest("uprobe_multi"))
		test_uprobe_multi();
}

void test_ip_cookie_link_verifier(void)
{
	RUN_TESTS(ip_cookie_link_fail);
}
