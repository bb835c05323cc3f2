// SPDX-License-Identifier: GPL-2.0
/* bpf_link__ip_cookie_keys(): the keys a link's programs compute, from the
 * link, filled into an IP_COOKIE map in one batch.  Every key must be the
 * address /proc/kallsyms shows for its function (also for functions
 * attached by their ftrace address, after the ENDBR with IBT, and for
 * static functions that share a name; a glob may also take the ftrace site
 * of an overridden __weak function), in attach order, and every hit of
 * the programs must find the value of its own function: kprobe.multi,
 * fentry and fexit, and the tracing_multi links of fentry.multi and
 * fexit.multi over thousands of functions.  The link info of kprobe.multi
 * links keeps what the kernel reported before func_ips.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <sys/syscall.h>
#include <fnmatch.h>
#include "bpf/libbpf_internal.h"
#include "ip_cookie_helpers.h"
#include "ip_cookie_keys.skel.h"

#define RUNS		5
#define MASK		0x5eed0ff1ce5ULL	/* value of key k: k ^ MASK */
#define NR_SYMS		20
#define NR_FENTRY	8

/* A pattern of roughly 1,000 functions on x86-64 6.12 (and hundreds on
 * every architecture), syscalls among them.
 */
#define GLOB		"*sys*"
#define GLOB_MIN	500
/* A static function defined in fs/proc/base.c and fs/proc/generic.c, called
 * when /proc/self/stat and /proc/cmdline are opened, respectively.  (The
 * two probes_open() of kernel/trace/trace_{k,u}probe.c are not traceable:
 * kernel/trace/ is built without the ftrace flags.)
 */
#define DUP_NAME	"proc_single_open"
/* DUP_NAME as a pattern (no other function's name starts with it): libbpf
 * attaches a name without wildcards as one symbol, which the kernel
 * resolves to one function.
 */
#define DUP_GLOB	DUP_NAME "*"
#define PIN_PATH	"/sys/fs/bpf/ip_cookie_keys_link"

/* tracing_multi links (fentry.multi, fexit.multi) need a single ftrace
 * direct ops (HAVE_SINGLE_FTRACE_DIRECT_OPS): x86-64 only in 7.3.
 */
#if defined(__x86_64__)
#define TRACING_MULTI	true
#else
#define TRACING_MULTI	false
#endif

/* Deliberately sorted neither by name nor by address. */
static const char * const syms[NR_SYMS] = {
	"bpf_fentry_test7", IPC_SYS "getuid", "bpf_fentry_test2",
	IPC_SYS "umask", "bpf_fentry_test9", IPC_SYS "getpgid",
	"bpf_fentry_test1", IPC_SYS "sched_yield", IPC_SYS "getppid",
	"bpf_fentry_test5", IPC_SYS "getegid", "bpf_fentry_test3",
	IPC_SYS "gettid", "bpf_fentry_test8", IPC_SYS "getsid",
	IPC_SYS "getpid", "bpf_fentry_test4", IPC_SYS "geteuid",
	"bpf_fentry_test6", IPC_SYS "getgid",
};

/* In reverse order, to see that addrs keep their order too. */
static const char * const reversed_funcs[NR_FENTRY] = {
	"bpf_fentry_test8", "bpf_fentry_test7", "bpf_fentry_test6",
	"bpf_fentry_test5", "bpf_fentry_test4", "bpf_fentry_test3",
	"bpf_fentry_test2", "bpf_fentry_test1",
};

/* Function symbols of /proc/kallsyms sorted by address, the oracle: not
 * the __pfx_/__cfi_ padding symbols in front of the functions, since a key
 * 16 bytes early must not pass.  NULL on failure or if there are none.
 */
static struct ksyms *text_syms(void)
{
	struct ipc_ksym_filter f = { .no_padding = true };
	struct ksyms *t = ipc_load_ksyms(&f);

	if (t && !t->sym_cnt) {
		free_kallsyms_local(t);
		return NULL;
	}
	return t;
}

/* Whether a symbol @name starts at @addr (NULL: any symbol). */
static bool sym_is(const struct ksyms *t, __u64 addr, const char *name)
{
	long i = ksyms_first_at(t, addr);

	for (; i >= 0 && (size_t)i < t->sym_cnt && t->syms[i].addr == addr; i++)
		if (!name || !strcmp(t->syms[i].name, name))
			return true;
	return false;
}

static const char *sym_name(const struct ksyms *t, __u64 addr)
{
	long i = ksyms_first_at(t, addr);

	return i < 0 ? "(no symbol)" : t->syms[i].name;
}

/* available_filter_functions_addrs: "addr name [module]" per ftrace site */
static FILE *open_ftrace_addrs(void)
{
	if (!access("/sys/kernel/tracing/trace", F_OK))
		return fopen("/sys/kernel/tracing/available_filter_functions_addrs", "r");
	return fopen("/sys/kernel/debug/tracing/available_filter_functions_addrs", "r");
}

/* Ftrace addresses of @n functions of unique names: 0 if all found. */
static int ftrace_addrs(const char * const *names, int n, unsigned long *addrs)
{
	unsigned long long addr;
	char line[512], name[256];
	int i, found = 0;
	FILE *f;

	f = open_ftrace_addrs();
	if (!f)
		return -errno;
	memset(addrs, 0, n * sizeof(*addrs));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %255s", &addr, name) != 2)
			continue;
		for (i = 0; i < n; i++) {
			if (!addrs[i] && !strcmp(name, names[i])) {
				addrs[i] = addr;
				found++;
			}
		}
	}
	fclose(f);
	return found == n ? 0 : -ENOENT;
}

#if defined(__x86_64__) || defined(__powerpc__)
#define FTRACE_DROPS_WEAK_SITES	true
#else
#define FTRACE_DROPS_WEAK_SITES	false
#endif

/* Whether @addr is an ftrace site listed under a name matching @glob but
 * not at that name's start: the site of a __weak function that another
 * file overrides.  The linker drops the weak symbol and keeps its code, so
 * kallsyms puts the site inside the function before it.  ftrace drops such
 * sites only where the architecture defines FTRACE_MCOUNT_MAX_OFFSET
 * (x86, powerpc); elsewhere libbpf attaches a glob to them too (on s390x
 * 6.12: kernel/entry/common.c's arch_do_signal_or_restart(), listed as
 * syscall_trace_enter+0x158).  Such code never runs.
 */
static bool overridden_weak_site(const struct ksyms *t, __u64 addr,
				 const char *glob)
{
	unsigned long long site;
	char line[512], name[256];
	bool found = false;
	FILE *f;

	if (FTRACE_DROPS_WEAK_SITES)
		return false;
	f = open_ftrace_addrs();
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%llx %255s", &site, name) == 2 &&
			site == addr && !fnmatch(glob, name, 0) &&
			!sym_is(t, addr, name);
	fclose(f);
	return found;
}

/* How many traceable functions are called @name. */
static int ftrace_count(const char *name)
{
	char line[512], fname[256];
	unsigned long long addr;
	int n = 0;
	FILE *f;

	f = open_ftrace_addrs();
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %255s", &addr, fname) == 2 &&
		    !strcmp(fname, name))
			n++;
	fclose(f);
	return n;
}

/* All keys of @link, 8 bytes each: an array to free, NULL on failure. */
static __u64 *get_keys(struct bpf_link *link, size_t *cnt)
{
	size_t n = 0, want;
	__u64 *keys;
	int err;

	err = bpf_link__ip_cookie_keys(link, NULL, sizeof(*keys), &n);
	if (!ASSERT_EQ(err, -ENOSPC, "size_query") ||
	    !ASSERT_GT(n, 0, "nr_keys"))
		return NULL;
	keys = calloc(n, sizeof(*keys));
	if (!ASSERT_OK_PTR(keys, "calloc"))
		return NULL;
	want = n;
	err = bpf_link__ip_cookie_keys(link, keys, sizeof(*keys), &n);
	if (!ASSERT_OK(err, "ip_cookie_keys") || !ASSERT_EQ(n, want, "cnt")) {
		free(keys);
		return NULL;
	}
	*cnt = n;
	return keys;
}

/* Fill ip_map in one batch: key k -> k ^ MASK. */
static bool fill_ip_map(struct ip_cookie_keys *skel, const __u64 *keys,
			size_t n)
{
	__u32 cnt = n;
	__u64 *vals;
	size_t i;
	int err;

	vals = calloc(n, sizeof(*vals));
	if (!ASSERT_OK_PTR(vals, "calloc"))
		return false;
	for (i = 0; i < n; i++)
		vals[i] = keys[i] ^ MASK;
	err = bpf_map_update_batch(bpf_map__fd(skel->maps.ip_map), keys, vals,
				   &cnt, NULL);
	free(vals);
	return ASSERT_OK(err, "update_batch") && ASSERT_EQ(cnt, n, "updated");
}

static struct ip_cookie_keys *open_skel(void)
{
	struct ip_cookie_keys *skel;

	skel = ip_cookie_keys__open();
	if (!ASSERT_OK_PTR(skel, "skel_open"))
		return NULL;
	/* The verifier refuses them where trampolines have no link ID. */
	bpf_program__set_autoload(skel->progs.fentry_link, TRAMP_LINK_ID);
	bpf_program__set_autoload(skel->progs.fexit_link, TRAMP_LINK_ID);
	bpf_program__set_autoload(skel->progs.check_ip_fentry, TRACING_MULTI);
	bpf_program__set_autoload(skel->progs.check_ip_fexit, TRACING_MULTI);
	if (!ASSERT_OK(ip_cookie_keys__load(skel), "skel_load")) {
		ip_cookie_keys__destroy(skel);
		return NULL;
	}
	skel->bss->tid = syscall(SYS_gettid);
	skel->bss->mask = MASK;
	return skel;
}

/* No misses and no wrong values; @hits (if not -1) exactly. */
static void check_counts(struct ip_cookie_keys *skel, const struct ksyms *t,
			 long long hits)
{
	if (!ASSERT_EQ(skel->bss->missed, 0, "missed"))
		printf("%s: last missed: 0x%llx %s\n", __func__,
		       skel->bss->missed_ip, sym_name(t, skel->bss->missed_ip));
	if (!ASSERT_EQ(skel->bss->wrong, 0, "wrong"))
		printf("%s: last wrong: 0x%llx %s\n", __func__,
		       skel->bss->wrong_ip, sym_name(t, skel->bss->wrong_ip));
	if (hits < 0)
		ASSERT_GT(skel->bss->hits, 0, "hits");
	else
		ASSERT_EQ(skel->bss->hits, hits, "hits");
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static const char * const *by_name_names;

static int by_name_cmp(const void *a, const void *b)
{
	return strcmp(by_name_names[*(const size_t *)a],
		      by_name_names[*(const size_t *)b]);
}

/* idx[k]: the index in @names of the k-th name in strcmp() order */
static void by_name(const char * const *names, size_t n, size_t *idx)
{
	size_t i;

	for (i = 0; i < n; i++)
		idx[i] = i;
	by_name_names = names;
	qsort(idx, n, sizeof(*idx), by_name_cmp);
}

/* A pattern: one key per function, each the start of a function symbol,
 * all distinct, filled in one batch; syscalls then hit only functions
 * whose values they find.
 */
static void test_kprobe_multi_glob(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct ip_cookie_keys *skel;
	struct bpf_link *link = NULL;
	struct ksyms *t = NULL;
	__u64 *keys = NULL, *sorted = NULL;
	size_t n = 0, i, bad = 0;
	int k;

	skel = open_skel();
	if (!skel)
		return;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.check_ip,
						     GLOB, &opts);
	if (!ASSERT_OK_PTR(link, "attach_glob"))
		goto out;
	keys = get_keys(link, &n);
	if (!keys)
		goto out;
	printf("%s: %zu functions match '%s'\n", __func__, n, GLOB);
	ASSERT_GE(n, GLOB_MIN, "nr_functions");

	t = text_syms();
	if (!ASSERT_OK_PTR(t, "kallsyms"))
		goto out;
	for (i = 0; i < n; i++) {
		if (sym_is(t, keys[i], NULL))
			continue;
		if (overridden_weak_site(t, keys[i], GLOB)) {
			printf("%s: key %zu 0x%llx: ftrace site of an overridden __weak function\n",
			       __func__, i, keys[i]);
			continue;
		}
		if (bad++ < 5)
			printf("%s: key %zu 0x%llx is not a symbol (%s)\n",
			       __func__, i, keys[i], sym_name(t, keys[i]));
	}
	ASSERT_EQ(bad, 0, "keys_not_symbols");
	sorted = malloc(n * sizeof(*sorted));
	if (!ASSERT_OK_PTR(sorted, "malloc"))
		goto out;
	memcpy(sorted, keys, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	for (i = 1, bad = 0; i < n; i++)
		bad += sorted[i] == sorted[i - 1];
	ASSERT_EQ(bad, 0, "duplicate_keys");

	if (!fill_ip_map(skel, keys, n))
		goto out;
	skel->bss->armed = 1;
	for (k = 0; k < 20; k++) {
		syscall(SYS_getpgid, 0);
		syscall(SYS_getppid);
		syscall(SYS_getuid);
		syscall(SYS_getgid);
		syscall(SYS_sched_yield);
	}
	skel->bss->armed = 0;
	check_counts(skel, t, -1);
out:
	free(sorted);
	free(keys);
	free_kallsyms_local(t);
	bpf_link__destroy(link);
	ip_cookie_keys__destroy(skel);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char * const *)a, *(const char * const *)b);
}

static bool in_sorted(const char * const *names, size_t n, const char *name)
{
	return bsearch(&name, names, n, sizeof(*names), cmp_str);
}

/* The functions of tracing_multi links: about 2,000 that a trampoline
 * takes on x86-64 7.3's debug kernel, none on a path an idle VM keeps
 * busy: syscalls and the show, store, open, read and write methods of
 * files.
 */
static const char * const tmulti_globs[] = {
	GLOB, "*_show", "*_store", "*_open", "*_read", "*_write",
};

#define TMULTI_MIN	1500

static bool tmulti_match(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tmulti_globs); i++)
		if (!fnmatch(tmulti_globs[i], name, 0))
			return true;
	return false;
}

/* Functions of tmulti_globs that do not return, which fexit refuses
 * (noreturn_deny of kernel/bpf/verifier.c), sorted.
 */
static const char * const noreturn_funcs[] = {
	"__ia32_sys_exit", "__ia32_sys_exit_group",
	"__x64_sys_exit", "__x64_sys_exit_group",
};

/* BTF IDs, in increasing order, of the functions of tmulti_globs that a
 * tracing_multi link takes: traceable (trace_helpers' bpf_get_ksyms()),
 * with one kallsyms symbol of their name (the kernel finds a BTF ID's
 * address by name), a prototype trampolines take, and returning (for
 * fexit).  Their number, or a negative error.
 */
static int tmulti_ids(const struct btf *btf, __u32 **idsp)
{
	size_t i, nr_dups = 0, nr_cand = 0, cnt = 0;
	const char **dups = NULL, **cand = NULL;
	__u32 id, nr = btf__type_cnt(btf);
	const struct btf_type *type;
	struct ksyms *ks = NULL;
	__u32 *ids = NULL;
	const char *name;
	int err;

	err = bpf_get_ksyms(&ks, true);
	if (err)
		return err;
	dups = calloc(ks->sym_cnt, sizeof(*dups));
	cand = calloc(ks->filtered_cnt + 1, sizeof(*cand));
	ids = calloc(ks->filtered_cnt + 1, sizeof(*ids));
	if (!dups || !cand || !ids) {
		err = -ENOMEM;
		goto out;
	}
	/* ks->syms is sorted by name: a name found twice is adjacent. */
	for (i = 1; i < ks->sym_cnt; i++)
		if (!strcmp(ks->syms[i].name, ks->syms[i - 1].name))
			dups[nr_dups++] = ks->syms[i].name;
	qsort(dups, nr_dups, sizeof(*dups), cmp_str);
	for (i = 0; i < ks->filtered_cnt; i++) {
		name = ks->filtered_syms[i];
		if (tmulti_match(name) && !in_sorted(dups, nr_dups, name) &&
		    !in_sorted(noreturn_funcs, ARRAY_SIZE(noreturn_funcs), name))
			cand[nr_cand++] = name;
	}
	qsort(cand, nr_cand, sizeof(*cand), cmp_str);
	for (id = 1; id < nr && cnt < nr_cand; id++) {
		type = btf__type_by_id(btf, id);
		if (!btf_is_func(type))
			continue;
		name = btf__name_by_offset(btf, type->name_off);
		if (name && in_sorted(cand, nr_cand, name) &&
		    btf_type_is_traceable_func(btf, type))
			ids[cnt++] = id;
	}
	*idsp = ids;
	ids = NULL;
	err = cnt;
out:
	free(ids);
	free(cand);
	free(dups);
	free_kallsyms_local(ks);
	return err;
}

/* Open, read and close @path, for the file methods a tracing_multi link
 * is on.
 */
static void read_file(const char *path)
{
	char buf[4096];
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

/* Keys in the map @fd (check_ip_fentry's seen), and in *@other those whose
 * function's name does not match GLOB.
 */
static int count_seen(int fd, const struct ksyms *t, size_t *other)
{
	__u64 key, next;
	int n = 0, err;

	*other = 0;
	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		key = next;
		n++;
		if (fnmatch(GLOB, sym_name(t, key), 0))
			(*other)++;
	}
	return n;
}

/* An fentry.multi and an fexit.multi link on the functions of
 * tmulti_globs (tmulti_ids()): the keys of each are the kallsyms addresses of its
 * functions, in the order of their BTF IDs, and every hit, at entry and
 * at exit, finds its own function's value.
 */
static void test_tracing_multi(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct ip_cookie_keys *skel = NULL;
	struct bpf_link *links[2] = {};
	__u64 *keys[2] = {};
	const struct btf_type *type;
	struct ksyms *t = NULL;
	size_t n[2] = {}, i, bad = 0;
	__u32 *ids = NULL;
	const char *name;
	struct btf *btf;
	int cnt, k;

	btf = btf__load_vmlinux_btf();
	if (!ASSERT_OK_PTR(btf, "vmlinux_btf"))
		return;
	cnt = tmulti_ids(btf, &ids);
	if (!ASSERT_GE(cnt, TMULTI_MIN, "nr_functions"))
		goto out;
	printf("%s: %d functions\n", __func__, cnt);
	skel = open_skel();
	if (!skel)
		goto out;
	opts.ids = ids;
	opts.cnt = cnt;
	links[0] = bpf_program__attach_tracing_multi(skel->progs.check_ip_fentry,
						     NULL, &opts);
	links[1] = bpf_program__attach_tracing_multi(skel->progs.check_ip_fexit,
						     NULL, &opts);
	if (!ASSERT_OK_PTR(links[0], "attach_fentry_multi") ||
	    !ASSERT_OK_PTR(links[1], "attach_fexit_multi"))
		goto out;
	t = text_syms();
	if (!ASSERT_OK_PTR(t, "kallsyms"))
		goto out;
	for (k = 0; k < 2; k++) {
		keys[k] = get_keys(links[k], &n[k]);
		if (!keys[k] || !ASSERT_EQ(n[k], cnt, "nr_keys"))
			goto out;
		for (i = 0; i < n[k]; i++) {
			type = btf__type_by_id(btf, ids[i]);
			name = btf__name_by_offset(btf, type->name_off);
			if (sym_is(t, keys[k][i], name))
				continue;
			if (bad++ < 5)
				printf("%s: key %zu 0x%llx of %s is %s\n", __func__, i,
				       keys[k][i], name, sym_name(t, keys[k][i]));
		}
	}
	ASSERT_EQ(bad, 0, "keys_not_their_functions");

	if (!fill_ip_map(skel, keys[0], n[0]))
		goto out;
	skel->bss->armed = 1;
	for (k = 0; k < 20; k++) {
		syscall(SYS_getpgid, 0);
		syscall(SYS_getppid);
		syscall(SYS_getuid);
		syscall(SYS_getgid);
		syscall(SYS_sched_yield);
		read_file("/proc/meminfo");
		read_file("/proc/self/stat");
	}
	skel->bss->armed = 0;
	check_counts(skel, t, -1);
	ASSERT_GT(skel->bss->exit_hits, 0, "exit_hits");
	/* Hits outside GLOB too: the file methods the reads went through. */
	k = count_seen(bpf_map__fd(skel->maps.seen), t, &i);
	printf("%s: %d functions hit, %zu of them outside '%s'\n", __func__,
	       k, i, GLOB);
	ASSERT_GE(i, 3, "hit_outside_glob");
out:
	free(keys[1]);
	free(keys[0]);
	free_kallsyms_local(t);
	bpf_link__destroy(links[1]);
	bpf_link__destroy(links[0]);
	ip_cookie_keys__destroy(skel);
	free(ids);
	btf__free(btf);
}

/* Attached by names in an order of the test's choosing: keys in that order,
 * 8 bytes or {ip, link_id}; with cookies, by address.
 */
static void test_kprobe_multi_syms_order(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct bpf_ip_cookie_key wide[NR_SYMS];
	__u64 keys[NR_SYMS], want[NR_SYMS], cookies[NR_SYMS];
	struct bpf_link *link = NULL, *clink = NULL, *plink = NULL;
	struct ip_cookie_keys *skel;
	bool name_sorted = true;
	struct ksyms *t = NULL;
	size_t idx[NR_SYMS];
	size_t n, i;
	__u32 id;
	int err;

	t = text_syms();
	if (!ASSERT_OK_PTR(t, "kallsyms"))
		return;
	for (i = 0; i < NR_SYMS; i++) {
		want[i] = ksym_get_addr_local(t, syms[i]);
		if (!ASSERT_NEQ(want[i], 0, syms[i]))
			goto out_syms;
		if (i && strcmp(syms[i - 1], syms[i]) > 0)
			name_sorted = false;
	}
	/* The kernel sorts the names: the test needs an order it must undo. */
	ASSERT_FALSE(name_sorted, "syms_not_sorted");

	skel = open_skel();
	if (!skel)
		goto out_syms;
	opts.syms = (const char **)syms;
	opts.cnt = NR_SYMS;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.kmulti_link,
						     NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach_syms"))
		goto out;

	n = NR_SYMS;
	err = bpf_link__ip_cookie_keys(link, keys, sizeof(keys[0]), &n);
	if (!ASSERT_OK(err, "keys8") || !ASSERT_EQ(n, NR_SYMS, "cnt8"))
		goto out;
	for (i = 0; i < NR_SYMS; i++)
		if (!ASSERT_EQ(keys[i], want[i], "key_in_syms_order"))
			printf("%s: key %zu is %s, want %s\n", __func__, i,
			       sym_name(t, keys[i]), syms[i]);

	id = link_id(link);
	memset(wide, 0xa5, sizeof(wide));
	n = NR_SYMS;
	err = bpf_link__ip_cookie_keys(link, wide, sizeof(wide[0]), &n);
	if (!ASSERT_OK(err, "keys16") || !ASSERT_EQ(n, NR_SYMS, "cnt16"))
		goto out;
	for (i = 0; i < NR_SYMS; i++) {
		ASSERT_EQ(wide[i].ip, want[i], "wide_ip");
		ASSERT_EQ(wide[i].link_id, id, "wide_link_id");
		ASSERT_EQ(wide[i].reserved, 0, "wide_reserved");
	}

	/* A link libbpf did not attach: the kernel's order, by name. */
	unlink(PIN_PATH);
	if (!ASSERT_OK(bpf_link__pin(link, PIN_PATH), "pin"))
		goto out;
	plink = bpf_link__open(PIN_PATH);
	unlink(PIN_PATH);
	if (!ASSERT_OK_PTR(plink, "link_open"))
		goto out;
	n = NR_SYMS;
	err = bpf_link__ip_cookie_keys(plink, keys, sizeof(keys[0]), &n);
	if (!ASSERT_OK(err, "keys_pinned") || !ASSERT_EQ(n, NR_SYMS, "cnt_pinned"))
		goto out;
	by_name(syms, NR_SYMS, idx);
	for (i = 0; i < NR_SYMS; i++)
		if (!ASSERT_EQ(keys[i], want[idx[i]], "pinned_key_by_name"))
			printf("%s: pinned key %zu is %s, want %s\n", __func__, i,
			       sym_name(t, keys[i]), syms[idx[i]]);

	/* With cookies the kernel sorts the functions by address. */
	for (i = 0; i < NR_SYMS; i++)
		cookies[i] = i + 1;
	opts.cookies = cookies;
	clink = bpf_program__attach_kprobe_multi_opts(skel->progs.kmulti_link,
						      NULL, &opts);
	if (!ASSERT_OK_PTR(clink, "attach_cookies"))
		goto out;
	n = NR_SYMS;
	err = bpf_link__ip_cookie_keys(clink, keys, sizeof(keys[0]), &n);
	if (!ASSERT_OK(err, "keys_cookies") || !ASSERT_EQ(n, NR_SYMS, "cnt"))
		goto out;
	qsort(want, NR_SYMS, sizeof(want[0]), cmp_u64);
	for (i = 0; i < NR_SYMS; i++)
		ASSERT_EQ(keys[i], want[i], "key_by_address");
out:
	bpf_link__destroy(plink);
	bpf_link__destroy(clink);
	bpf_link__destroy(link);
	ip_cookie_keys__destroy(skel);
out_syms:
	free_kallsyms_local(t);
}

/* Attached by the addresses of available_filter_functions_addrs, which are
 * past the ENDBR with IBT: the keys are the functions' symbol addresses,
 * what bpf_get_func_ip() returns, and every hit finds its value.
 */
static void test_kprobe_multi_ftrace_addrs(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	unsigned long addrs[NR_FENTRY];
	struct ip_cookie_keys *skel = NULL;
	struct bpf_link *link = NULL;
	__u64 keys[NR_FENTRY], want;
	struct ksyms *t = NULL;
	int i, shifted = 0;
	size_t n;
	int err;

	if (!ASSERT_OK(ftrace_addrs(reversed_funcs, NR_FENTRY, addrs),
		       "ftrace_addrs"))
		return;
	t = text_syms();
	if (!ASSERT_OK_PTR(t, "kallsyms"))
		return;
	skel = open_skel();
	if (!skel)
		goto out;
	opts.addrs = addrs;
	opts.cnt = NR_FENTRY;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.check_ip,
						     NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach_addrs"))
		goto out;
	n = NR_FENTRY;
	err = bpf_link__ip_cookie_keys(link, keys, sizeof(keys[0]), &n);
	if (!ASSERT_OK(err, "ip_cookie_keys") || !ASSERT_EQ(n, NR_FENTRY, "cnt"))
		goto out;
	for (i = 0; i < NR_FENTRY; i++) {
		want = ksym_get_addr_local(t, reversed_funcs[i]);
		shifted += addrs[i] != want;
		if (!ASSERT_EQ(keys[i], want, "key_is_symbol"))
			printf("%s: %s: ftrace 0x%lx key 0x%llx symbol 0x%llx\n",
			       __func__, reversed_funcs[i], addrs[i], keys[i],
			       want);
	}
	printf("%s: %d of %d ftrace addresses are not the symbol's\n",
	       __func__, shifted, NR_FENTRY);

	if (!fill_ip_map(skel, keys, n))
		goto out;
	skel->bss->armed = 1;
	prog_run_ns(bpf_program__fd(skel->progs.trigger), RUNS);
	skel->bss->armed = 0;
	check_counts(skel, t, NR_FENTRY * RUNS);
out:
	bpf_link__destroy(link);
	ip_cookie_keys__destroy(skel);
	free_kallsyms_local(t);
}

#define NR_LI	(NR_SYMS + NR_FENTRY)

/* What link info reports for a kprobe.multi link of @n functions. */
struct kmulti_info {
	__u64 addrs[NR_LI];
	__u64 cookies[NR_LI];
	__u64 ips[NR_LI];
	__u32 count;
};

/* One function of a kprobe.multi link: address, cookie, entry IP. */
struct kmulti_fn {
	__u64 addr;
	__u64 cookie;
	__u64 ip;
};

static int kmulti_fn_cmp(const void *a, const void *b)
{
	const struct kmulti_fn *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* bpf_link_create() of kmulti_link by @syms or @addrs, with @cookies or
 * without (NULL): the link's FD.
 */
static int kmulti_create(struct ip_cookie_keys *skel, const char * const *syms,
			 const unsigned long *addrs, const __u64 *cookies,
			 __u32 n)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);

	opts.kprobe_multi.syms = (const char **)syms;
	opts.kprobe_multi.addrs = addrs;
	opts.kprobe_multi.cookies = cookies;
	opts.kprobe_multi.cnt = n;
	return bpf_link_create(bpf_program__fd(skel->progs.kmulti_link), 0,
			       BPF_TRACE_KPROBE_MULTI, &opts);
}

/* Link info of @fd must be @want, in that order (@n functions). */
static void check_kmulti_info(int fd, const struct kmulti_fn *want, __u32 n,
			      const struct ksyms *t, const char *what)
{
	struct bpf_link_info info;
	struct kmulti_info li;
	__u32 len = sizeof(info);
	__u32 i;

	memset(&info, 0, sizeof(info));
	memset(&li, 0xa5, sizeof(li));
	info.kprobe_multi.addrs = ptr_to_u64(li.addrs);
	info.kprobe_multi.cookies = ptr_to_u64(li.cookies);
	info.kprobe_multi.func_ips = ptr_to_u64(li.ips);
	info.kprobe_multi.count = n;
	if (!ASSERT_OK(bpf_link_get_info_by_fd(fd, &info, &len), what) ||
	    !ASSERT_EQ(info.type, BPF_LINK_TYPE_KPROBE_MULTI, "link_type") ||
	    !ASSERT_EQ(info.kprobe_multi.count, n, "count"))
		return;
	for (i = 0; i < n; i++) {
		if (!ASSERT_EQ(li.addrs[i], want[i].addr, "addr") ||
		    !ASSERT_EQ(li.cookies[i], want[i].cookie, "cookie") ||
		    !ASSERT_EQ(li.ips[i], want[i].ip, "func_ip"))
			printf("%s: %s: %u: addr 0x%llx cookie %llu ip 0x%llx (%s), want 0x%llx %llu 0x%llx\n",
			       __func__, what, i, li.addrs[i], li.cookies[i],
			       li.ips[i], sym_name(t, li.ips[i]), want[i].addr,
			       want[i].cookie, want[i].ip);
	}
	if (n < NR_LI) {
		ASSERT_EQ(li.addrs[n], 0xa5a5a5a5a5a5a5a5ULL, "addrs_room");
		ASSERT_EQ(li.ips[n], 0xa5a5a5a5a5a5a5a5ULL, "ips_room");
	}
}

/* Link info of kprobe.multi links reports the addresses as the kernel did
 * before func_ips, which only comes next to them: attached by symbols, the
 * kallsyms addresses in strcmp() order of the names (the kernel sorts them
 * for its lookup); attached by addresses, those given, in the order given,
 * also ftrace site addresses that are not what programs see; with cookies,
 * either sorted by address, each with its cookie.  func_ips gives the entry
 * IP of each, the kallsyms address.
 */
static void test_kprobe_multi_link_info(void)
{
	struct kmulti_fn want[NR_LI], given[NR_LI];
	unsigned long ftrace[NR_FENTRY], addrs[NR_LI];
	struct bpf_link_info info;
	struct ip_cookie_keys *skel = NULL;
	__u64 cookies[NR_LI], abuf[2], buf[2];
	size_t idx[NR_SYMS];
	__u32 len, i, n;
	struct ksyms *t = NULL;
	int fd, shifted = 0;

	if (!ASSERT_OK(ftrace_addrs(reversed_funcs, NR_FENTRY, ftrace),
		       "ftrace_addrs"))
		return;
	t = text_syms();
	if (!ASSERT_OK_PTR(t, "kallsyms"))
		return;
	skel = open_skel();
	if (!skel)
		goto out;

	/* By symbols, in an order that is not by name. */
	for (i = 0; i < NR_SYMS; i++) {
		given[i].addr = ksym_get_addr_local(t, syms[i]);
		given[i].ip = given[i].addr;
		given[i].cookie = 0;
		cookies[i] = 1000 + i;
		if (!ASSERT_NEQ(given[i].addr, 0, syms[i]))
			goto out;
	}
	by_name(syms, NR_SYMS, idx);
	for (i = 0; i < NR_SYMS; i++)
		want[i] = given[idx[i]];
	fd = kmulti_create(skel, syms, NULL, NULL, NR_SYMS);
	if (ASSERT_GE(fd, 0, "attach_syms")) {
		check_kmulti_info(fd, want, NR_SYMS, t, "syms");

		/* func_ips, like cookies, needs room in count */
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		info.kprobe_multi.func_ips = ptr_to_u64(buf);
		ASSERT_EQ(bpf_link_get_info_by_fd(fd, &info, &len), -EINVAL,
			  "func_ips_without_count");
		/* too little room: -ENOSPC, and what fits is filled */
		memset(&info, 0, sizeof(info));
		memset(buf, 0, sizeof(buf));
		len = sizeof(info);
		info.kprobe_multi.addrs = ptr_to_u64(abuf);
		info.kprobe_multi.func_ips = ptr_to_u64(buf);
		info.kprobe_multi.count = 2;
		ASSERT_EQ(bpf_link_get_info_by_fd(fd, &info, &len), -ENOSPC,
			  "func_ips_enospc");
		ASSERT_EQ(buf[0], want[0].ip, "func_ips_enospc_0");
		ASSERT_EQ(buf[1], want[1].ip, "func_ips_enospc_1");
		close(fd);
	}

	/* By symbols with cookies: sorted by address. */
	for (i = 0; i < NR_SYMS; i++) {
		given[i].cookie = cookies[i];
		want[i] = given[i];
	}
	qsort(want, NR_SYMS, sizeof(want[0]), kmulti_fn_cmp);
	fd = kmulti_create(skel, syms, NULL, cookies, NR_SYMS);
	if (ASSERT_GE(fd, 0, "attach_syms_cookies")) {
		check_kmulti_info(fd, want, NR_SYMS, t, "syms_cookies");
		close(fd);
	}

	/* By ftrace addresses, in reverse order of definition: as given. */
	for (i = 0; i < NR_FENTRY; i++) {
		addrs[i] = ftrace[i];
		given[i].addr = ftrace[i];
		given[i].ip = ksym_get_addr_local(t, reversed_funcs[i]);
		given[i].cookie = 0;
		shifted += given[i].addr != given[i].ip;
	}
	printf("%s: %d of %d ftrace addresses are not the function's\n",
	       __func__, shifted, NR_FENTRY);
	fd = kmulti_create(skel, NULL, addrs, NULL, NR_FENTRY);
	if (ASSERT_GE(fd, 0, "attach_addrs")) {
		check_kmulti_info(fd, given, NR_FENTRY, t, "addrs");
		close(fd);
	}

	/* With cookies, and some functions also by their kallsyms address
	 * (where it differs): sorted by address, each with its cookie.
	 */
	n = NR_FENTRY;
	for (i = 0; i < NR_FENTRY; i += 3) {
		if (given[i].addr == given[i].ip)
			continue;
		addrs[n] = given[i].ip;
		given[n] = given[i];
		given[n].addr = given[i].ip;
		n++;
	}
	for (i = 0; i < n; i++) {
		cookies[i] = 2000 + i;
		given[i].cookie = cookies[i];
		want[i] = given[i];
	}
	qsort(want, n, sizeof(want[0]), kmulti_fn_cmp);
	fd = kmulti_create(skel, NULL, addrs, cookies, n);
	if (ASSERT_GE(fd, 0, "attach_addrs_cookies")) {
		check_kmulti_info(fd, want, n, t, "addrs_cookies");
		close(fd);
	}
out:
	ip_cookie_keys__destroy(skel);
	free_kallsyms_local(t);
}

/* Where trampolines have no link ID, checks that fentry_link is refused. */
static bool tramp_link_id(void)
{
	size_t size;
	const void *elf = ip_cookie_keys__elf_bytes(&size);

	return have_tramp_link_id(elf, size, "fentry_link");
}

/* fentry and fexit on one function: one {ip, link_id} key per link, the
 * function's address and the link's ID, and each program finds its link's
 * value.
 */
static void test_fentry(void)
{
	struct bpf_ip_cookie_key wide[2], room[2];
	struct bpf_link *links[2] = {};
	struct ip_cookie_keys *skel;
	__u64 ip, key, vals[2];
	__u32 cnt = 2;
	size_t n;
	int i, err;

	if (!ASSERT_OK(kallsyms_find("bpf_fentry_test1", &ip), "kallsyms"))
		return;
	skel = open_skel();
	if (!skel)
		return;
	links[0] = bpf_program__attach(skel->progs.fentry_link);
	links[1] = bpf_program__attach(skel->progs.fexit_link);
	if (!ASSERT_OK_PTR(links[0], "attach_fentry") ||
	    !ASSERT_OK_PTR(links[1], "attach_fexit"))
		goto out;

	for (i = 0; i < 2; i++) {
		n = 0;
		err = bpf_link__ip_cookie_keys(links[i], NULL, sizeof(wide[i]), &n);
		ASSERT_EQ(err, -ENOSPC, "size_query");
		ASSERT_EQ(n, 1, "one_key");
		n = 1;
		memset(&wide[i], 0xa5, sizeof(wide[i]));
		err = bpf_link__ip_cookie_keys(links[i], &wide[i], sizeof(wide[i]), &n);
		if (!ASSERT_OK(err, "keys16") || !ASSERT_EQ(n, 1, "cnt16"))
			goto out;
		ASSERT_EQ(wide[i].ip, ip, "ip");
		ASSERT_EQ(wide[i].link_id, link_id(links[i]), "link_id");
		ASSERT_EQ(wide[i].reserved, 0, "reserved");
		n = 1;
		err = bpf_link__ip_cookie_keys(links[i], &key, sizeof(key), &n);
		ASSERT_OK(err, "keys8");
		ASSERT_EQ(key, ip, "key8");
		/* More room than keys: the rest is left alone. */
		n = 2;
		memset(room, 0xa5, sizeof(room));
		err = bpf_link__ip_cookie_keys(links[i], room, sizeof(room[0]), &n);
		ASSERT_OK(err, "keys16_room");
		ASSERT_EQ(n, 1, "cnt16_room");
		ASSERT_EQ(room[0].ip, ip, "ip_room");
		ASSERT_EQ(room[1].reserved, 0xa5a5a5a5, "room_untouched");
		vals[i] = i + 1;
	}
	ASSERT_NEQ(wide[0].link_id, wide[1].link_id, "two_links");

	err = bpf_map_update_batch(bpf_map__fd(skel->maps.link_map), wide, vals,
				   &cnt, NULL);
	if (!ASSERT_OK(err, "update_batch") || !ASSERT_EQ(cnt, 2, "updated"))
		goto out;
	skel->bss->armed = 1;
	prog_run_ns(bpf_program__fd(skel->progs.trigger), RUNS);
	skel->bss->armed = 0;
	ASSERT_EQ(skel->bss->missed, 0, "missed");
	ASSERT_EQ(skel->bss->link_hits[1], RUNS, "fentry_hits");
	ASSERT_EQ(skel->bss->link_hits[2], RUNS, "fexit_hits");
out:
	bpf_link__destroy(links[1]);
	bpf_link__destroy(links[0]);
	ip_cookie_keys__destroy(skel);
}

static void open_close(const char *path, int n)
{
	int fd;

	while (n--) {
		fd = open(path, O_RDONLY);
		if (!ASSERT_GE(fd, 0, path))
			return;
		close(fd);
	}
}

static bool dup_hits(struct ip_cookie_keys *skel, const __u64 *keys,
		     const __u64 *start, __u64 *hits)
{
	int fd = bpf_map__fd(skel->maps.ip_map), i;
	__u64 v;

	for (i = 0; i < 2; i++) {
		if (!ASSERT_OK(bpf_map_lookup_elem(fd, &keys[i], &v), "lookup"))
			return false;
		hits[i] = v - start[i];
	}
	return true;
}

/* Two static functions of one name, attached by a pattern of that name:
 * two keys, and each function counts its own calls under its own key.
 */
static void test_dup_static(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	const char *paths[2] = { "/proc/self/stat", "/proc/cmdline" };
	const int calls[2] = { 3, 5 };
	__u64 *keys = NULL, start[2], hits[2];
	struct ip_cookie_keys *skel = NULL;
	struct bpf_link *link = NULL;
	int nr, first = -1, i;
	struct ksyms *t = NULL;
	__u32 cnt = 2;
	size_t n = 0;

	nr = ftrace_count(DUP_NAME);
	if (!ASSERT_GE(nr, 0, "ftrace_addrs"))
		return;
	if (nr < 2) {
		printf("%s: %d traceable %s functions\n", __func__, nr, DUP_NAME);
		test__skip();
		return;
	}
	ASSERT_EQ(nr, 2, "nr_traceable");
	t = text_syms();
	if (!ASSERT_OK_PTR(t, "kallsyms"))
		return;
	skel = open_skel();
	if (!skel)
		goto out;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.count_ip,
						     DUP_GLOB, &opts);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	keys = get_keys(link, &n);
	if (!keys || !ASSERT_EQ(n, 2, "nr_keys"))
		goto out;
	ASSERT_NEQ(keys[0], keys[1], "distinct_keys");
	for (i = 0; i < 2; i++)
		if (!ASSERT_TRUE(sym_is(t, keys[i], DUP_NAME), "key_is_dup_sym"))
			printf("%s: key 0x%llx is %s\n", __func__, keys[i],
			       sym_name(t, keys[i]));

	start[0] = 1000000;
	start[1] = 2000000;
	if (!ASSERT_OK(bpf_map_update_batch(bpf_map__fd(skel->maps.ip_map),
					    keys, start, &cnt, NULL),
		       "update_batch") || !ASSERT_EQ(cnt, 2, "updated"))
		goto out;

	/* The first file's calls go to one key, whichever it is ... */
	skel->bss->armed = 1;
	open_close(paths[0], calls[0]);
	skel->bss->armed = 0;
	if (!dup_hits(skel, keys, start, hits))
		goto out;
	for (i = 0; i < 2; i++)
		if (hits[i] == calls[0] && hits[!i] == 0)
			first = i;
	if (!ASSERT_GE(first, 0, "one_key_hit"))
		printf("%s: %s: hits %llu and %llu\n", __func__, paths[0],
		       hits[0], hits[1]);

	/* ... the second file's to the other. */
	skel->bss->armed = 1;
	open_close(paths[1], calls[1]);
	skel->bss->armed = 0;
	if (!dup_hits(skel, keys, start, hits))
		goto out;
	if (first >= 0) {
		ASSERT_EQ(hits[first], calls[0], "first_key_unchanged");
		ASSERT_EQ(hits[!first], calls[1], "other_key_hit");
	}
	ASSERT_EQ(skel->bss->missed, 0, "missed");
out:
	free(keys);
	bpf_link__destroy(link);
	ip_cookie_keys__destroy(skel);
	free_kallsyms_local(t);
}

#define KPTR_RESTRICT	"/proc/sys/kernel/kptr_restrict"

/* Arguments, room, errno, and the links the API does not serve. */
static void test_errors(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	const char *names[3] = { "bpf_fentry_test3", "bpf_fentry_test1",
				 "bpf_fentry_test2" };
	struct bpf_link *link = NULL, *fentry = NULL, *other = NULL;
	struct bpf_ip_cookie_key wide[3];
	struct ip_cookie_keys *skel;
	__u64 keys[5], first;
	size_t n;
	int err, i;

	skel = open_skel();
	if (!skel)
		return;
	opts.syms = names;
	opts.cnt = 3;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.check_ip,
						     NULL, &opts);
	fentry = bpf_program__attach(skel->progs.trigger);
	if (!ASSERT_OK_PTR(link, "attach_kmulti") ||
	    !ASSERT_OK_PTR(fentry, "attach_fentry"))
		goto out;

	/* Room: none, too little, exact, more. */
	n = 0;
	errno = 0;
	err = bpf_link__ip_cookie_keys(link, NULL, sizeof(keys[0]), &n);
	ASSERT_EQ(err, -ENOSPC, "size_query");
	ASSERT_EQ(errno, ENOSPC, "size_query_errno");
	ASSERT_EQ(n, 3, "size_query_cnt");
	memset(keys, 0xa5, sizeof(keys));
	n = 2;
	err = bpf_link__ip_cookie_keys(link, keys, sizeof(keys[0]), &n);
	ASSERT_EQ(err, -ENOSPC, "too_little_room");
	ASSERT_EQ(n, 3, "too_little_room_cnt");
	ASSERT_EQ(keys[0], 0xa5a5a5a5a5a5a5a5ULL, "too_little_room_untouched");
	n = 3;
	ASSERT_OK(bpf_link__ip_cookie_keys(link, keys, sizeof(keys[0]), &n),
		  "exact_room");
	first = keys[0];
	n = 5;
	memset(keys, 0xa5, sizeof(keys));
	ASSERT_OK(bpf_link__ip_cookie_keys(link, keys, sizeof(keys[0]), &n),
		  "more_room");
	ASSERT_EQ(n, 3, "more_room_cnt");
	ASSERT_EQ(keys[0], first, "more_room_key");
	ASSERT_EQ(keys[3], 0xa5a5a5a5a5a5a5a5ULL, "more_room_untouched");
	n = 3;
	ASSERT_OK(bpf_link__ip_cookie_keys(link, wide, sizeof(wide[0]), &n),
		  "wide");
	for (i = 0; i < 3; i++)
		ASSERT_EQ(wide[i].ip, keys[i], "wide_ip");

	/* Bad arguments leave the count alone. */
	n = 3;
	errno = 0;
	ASSERT_EQ(bpf_link__ip_cookie_keys(NULL, keys, 8, &n), -EINVAL, "no_link");
	ASSERT_EQ(errno, EINVAL, "no_link_errno");
	ASSERT_EQ(bpf_link__ip_cookie_keys(link, keys, 8, NULL), -EINVAL, "no_cnt");
	ASSERT_EQ(bpf_link__ip_cookie_keys(link, NULL, 8, &n), -EINVAL,
		  "no_keys_with_room");
	ASSERT_EQ(bpf_link__ip_cookie_keys(link, keys, 0, &n), -EINVAL, "size_0");
	ASSERT_EQ(bpf_link__ip_cookie_keys(link, keys, 4, &n), -EINVAL, "size_4");
	ASSERT_EQ(bpf_link__ip_cookie_keys(link, keys, 12, &n), -EINVAL, "size_12");
	ASSERT_EQ(bpf_link__ip_cookie_keys(link, keys, 24, &n), -EINVAL, "size_24");
	ASSERT_EQ(n, 3, "cnt_unchanged");

	/* Links whose programs have no function address to look up. */
	other = bpf_program__attach(skel->progs.raw_tp);
	if (ASSERT_OK_PTR(other, "attach_raw_tp")) {
		errno = 0;
		ASSERT_EQ(bpf_link__ip_cookie_keys(other, keys, 8, &n),
			  -EOPNOTSUPP, "raw_tp");
		ASSERT_EQ(errno, EOPNOTSUPP, "raw_tp_errno");
		ASSERT_EQ(n, 3, "raw_tp_cnt_unchanged");
	}
	bpf_link__destroy(other);
	other = bpf_program__attach_kprobe(skel->progs.kprobe_single, false,
					   "bpf_fentry_test1");
	if (ASSERT_OK_PTR(other, "attach_kprobe"))
		ASSERT_EQ(bpf_link__ip_cookie_keys(other, keys, 8, &n),
			  -EOPNOTSUPP, "perf_kprobe");
	bpf_link__destroy(other);
	other = NULL;

out:
	bpf_link__destroy(fentry);
	bpf_link__destroy(link);
	ip_cookie_keys__destroy(skel);
}

void test_ip_cookie_keys(void)
{
	if (test__start_subtest("kprobe_multi_glob") && have_kprobe_multi())
		test_kprobe_multi_glob();
	if (test__start_subtest("kprobe_multi_syms_order") && have_kprobe_multi())
		test_kprobe_multi_syms_order();
	if (test__start_subtest("kprobe_multi_ftrace_addrs") && have_kprobe_multi())
		test_kprobe_multi_ftrace_addrs();
	if (test__start_subtest("kprobe_multi_link_info") && have_kprobe_multi())
		test_kprobe_multi_link_info();
	if (test__start_subtest("fentry") && tramp_link_id())
		test_fentry();
	if (test__start_subtest("tracing_multi")) {
		if (TRACING_MULTI)
			test_tracing_multi();
		else
			test__skip();
	}
	if (test__start_subtest("dup_static") && have_kprobe_multi())
		test_dup_static();
	if (test__start_subtest("errors") && have_kprobe_multi())
		test_errors();
}

/* Kernel addresses hidden from everyone (kernel.kptr_restrict = 2, a
 * global setting: serial): -EPERM, not zeros.
 */
void serial_test_ip_cookie_keys_hidden(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	const char *names[3] = { "bpf_fentry_test3", "bpf_fentry_test1",
				 "bpf_fentry_test2" };
	struct bpf_link *link = NULL, *fentry = NULL;
	struct ip_cookie_keys *skel;
	char saved[16] = "";
	__u64 keys[3];
	size_t n;
	int err;

	if (!have_kprobe_multi())
		return;
	skel = open_skel();
	if (!skel)
		return;
	opts.syms = names;
	opts.cnt = 3;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.check_ip,
						     NULL, &opts);
	fentry = bpf_program__attach(skel->progs.trigger);
	if (!ASSERT_OK_PTR(link, "attach_kmulti") ||
	    !ASSERT_OK_PTR(fentry, "attach_fentry"))
		goto out;
	if (!ASSERT_OK(read_sysctl(KPTR_RESTRICT, saved, sizeof(saved)),
		       "kptr_restrict_read") ||
	    !ASSERT_OK(write_sysctl(KPTR_RESTRICT, "2"), "kptr_restrict"))
		goto out;
	n = 3;
	errno = 0;
	err = bpf_link__ip_cookie_keys(link, keys, 8, &n);
	ASSERT_EQ(errno, EPERM, "hidden_kmulti_errno");
	ASSERT_EQ(err, -EPERM, "hidden_kmulti");
	n = 1;
	err = bpf_link__ip_cookie_keys(fentry, keys, 8, &n);
	ASSERT_EQ(err, -EPERM, "hidden_fentry");
	ASSERT_OK(write_sysctl(KPTR_RESTRICT, saved), "kptr_restrict_restore");
out:
	bpf_link__destroy(fentry);
	bpf_link__destroy(link);
	ip_cookie_keys__destroy(skel);
}
