// SPDX-License-Identifier: GPL-2.0
/* BPF_MAP_TYPE_IP_COOKIE against bpf_get_attach_cookie(), ARRAY, HASH
 * and RHASH: throughput ("hits" = trigger calls), and the helpers every
 * bench_ip_cookie*.c file shares.
 *
 *   ipc-kmulti-{empty,funcip,funcip_link,cookie,cookie_array,hash,rhash,ipc,kfunc,ipc_link}
 *	one kprobe.multi program on N functions (--ipc-funcs, 0 = all
 *	attachable) including bpf_get_numa_node_id(), the trigger
 *   ipc-fentry-{empty,funcip,cookie,cookie_array,hash,rhash,ipc,kfunc,wide_array,wide_ipc}
 *	one fentry program on the trigger; "kfunc" is "ipc" through
 *	bpf_ip_cookie_lookup(), the ip by value; "funcip" (and "offset",
 *	"..._link") compute the key and look nothing up
 *   ipc-fmulti-{empty,funcip,cookie,cookie_array,hash,rhash,ipc,kfunc,wide_array,wide_ipc}
 *	one fentry.multi program on one tracing multi-link over N functions
 *	(--ipc-funcs, 0 = every function with BTF that can be traced)
 *	including the trigger, function i with cookie i + 1
 *   ipc-umulti-{empty,offset,offset_link,cookie,cookie_array,ipc,ipc_link}
 *	one uprobe.multi program on ipc_uprobe_target() of this binary,
 *	called by the producer; "ipc" is keyed by bpf_get_uprobe_offset(),
 *	"ipc_link" by {offset, bpf_get_attach_link_id()}
 * The producer counts driver runs times iterations, so hits of the other
 * attached functions do not pollute the count; they are reported as
 * "fires per trigger".
 */
#define _GNU_SOURCE
#include <argp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "bench_ip_cookie.h"
#include "bpf_util.h"
#include "trace_helpers.h"
#include "bpf/libbpf_internal.h"

#include "ip_cookie_bench.skel.h"

#define TRIGGER		"bpf_get_numa_node_id"

struct ipc_args ipc_args = {
	.batch_iters = 500,
	.nr_funcs = 1,
	.nr_entries = 1000,
	.nr_loops = 10000,
};

enum {
	ARG_IPC_BATCH = 9300,
	ARG_IPC_FUNCS,
	ARG_IPC_ENTRIES,
	ARG_IPC_LOOPS,
	ARG_IPC_RESIZE,
};

static const struct argp_option opts[] = {
	{ "ipc-batch", ARG_IPC_BATCH, "N", 0,
	  "Trigger calls per driver run (1..1000)" },
	{ "ipc-funcs", ARG_IPC_FUNCS, "N", 0,
	  "Functions to attach kprobe.multi or fentry.multi to, 0 = all attachable" },
	{ "ipc-entries", ARG_IPC_ENTRIES, "N", 0,
	  "Map entries (lookup, mem, populate)" },
	{ "ipc-loops", ARG_IPC_LOOPS, "N", 0, "Lookups per driver run" },
	{ "ipc-resize", ARG_IPC_RESIZE, NULL, 0,
	  "Grow and shrink the map from another thread (lookup)" },
	{},
};

static long parse_num(const char *arg, long lo, long hi, struct argp_state *st)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || v < lo || v > hi) {
		fprintf(stderr, "invalid value '%s' (%ld..%ld)\n", arg, lo, hi);
		argp_usage(st);
	}
	return v;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case ARG_IPC_BATCH:
		ipc_args.batch_iters = parse_num(arg, 1, 1000, state);
		break;
	case ARG_IPC_FUNCS:
		ipc_args.nr_funcs = parse_num(arg, 0, 1 << 20, state);
		break;
	case ARG_IPC_ENTRIES:
		ipc_args.nr_entries = parse_num(arg, 1, 1 << 24, state);
		break;
	case ARG_IPC_LOOPS:
		ipc_args.nr_loops = parse_num(arg, 1, 1 << 22, state);
		break;
	case ARG_IPC_RESIZE:
		ipc_args.resize = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp bench_ip_cookie_argp = {
	.options = opts,
	.parser = parse_arg,
};

/* A failure's line starts with "ipc-fail:", so that a script that runs
 * many benchmarks can find it in their output and fail the run.
 */
void ipc_die(const char *what, int err)
{
	fprintf(stderr, "ipc-fail: %s: %s: %d (%s)\n", env.bench_name, what,
		err, strerror(err < 0 ? -err : err));
	exit(1);
}

void ipc_validate(void)
{
	if (env.consumer_cnt) {
		fprintf(stderr, "benchmark doesn't support consumers\n");
		exit(1);
	}
	if (env.producer_cnt != 1) {
		fprintf(stderr, "benchmark needs exactly one producer\n");
		exit(1);
	}
}

/* The producer of the benchmarks that measure in setup() or sample
 * memory: nothing to run.
 */
void *ipc_idle_producer(void *input)
{
	while (true)
		pause();
	return NULL;
}

/* Deterministic shuffle, so every run and variant sees the same order. */
static __u64 rnd_state = 0x9e3779b97f4a7c15ull;

static __u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void shuffle(void *base, size_t n, size_t size)
{
	char tmp[64];
	size_t i, j;

	for (i = n - 1; i > 0 && n > 1; i--) {
		j = rnd() % (i + 1);
		memcpy(tmp, (char *)base + i * size, size);
		memcpy((char *)base + i * size, (char *)base + j * size, size);
		memcpy((char *)base + j * size, tmp, size);
	}
}

/* Text symbols of vmlinux, sorted by address, and an index by name */
static struct ksyms *ksyms;
static struct ksym **ksyms_by_name;

static bool vmlinux_text(const struct ksym *ks, void *ctx)
{
	return !ks->module && (ks->type == 't' || ks->type == 'T');
}

static int cmp_ksym_name(const void *a, const void *b)
{
	return strcmp((*(struct ksym * const *)a)->name,
		      (*(struct ksym * const *)b)->name);
}

static void load_ksyms(void)
{
	size_t i;

	if (ksyms)
		return;
	ksyms = load_kallsyms_filtered_local(vmlinux_text, NULL);
	if (!ksyms)
		ipc_die("load /proc/kallsyms", -errno);
	if (!ksyms->sym_cnt)
		ipc_die("/proc/kallsyms shows no addresses (kptr_restrict?)",
			-EPERM);
	ksyms_by_name = malloc(ksyms->sym_cnt * sizeof(*ksyms_by_name));
	if (!ksyms_by_name)
		ipc_die("malloc", -ENOMEM);
	for (i = 0; i < ksyms->sym_cnt; i++)
		ksyms_by_name[i] = &ksyms->syms[i];
	qsort(ksyms_by_name, ksyms->sym_cnt, sizeof(*ksyms_by_name),
	      cmp_ksym_name);
}

/* The text symbol @name, NULL when there is none or more than one. */
static struct ksym *find_unique_ksym(const char *name)
{
	struct ksym key = { .name = (char *)name }, *kp = &key, **p;
	size_t i, n = ksyms->sym_cnt;

	p = bsearch(&kp, ksyms_by_name, n, sizeof(*p), cmp_ksym_name);
	if (!p)
		return NULL;
	i = p - ksyms_by_name;
	if ((i > 0 && !strcmp(ksyms_by_name[i - 1]->name, name)) ||
	    (i + 1 < n && !strcmp(ksyms_by_name[i + 1]->name, name)))
		return NULL;
	return *p;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Real kernel text addresses, unique and shuffled; above the number of
 * real ones, synthetic addresses 16 bytes apart above the highest.
 */
__u64 *ipc_make_keys(__u32 n, __u32 *nr_real)
{
	__u64 *all, *keys, top;
	size_t i, m = 0;

	load_ksyms();
	all = malloc(ksyms->sym_cnt * sizeof(*all));
	if (!all)
		ipc_die("malloc", -ENOMEM);
	/* sorted by address: drop the aliases */
	for (i = 0; i < ksyms->sym_cnt; i++)
		if (!m || ksyms->syms[i].addr != all[m - 1])
			all[m++] = ksyms->syms[i].addr;
	top = all[m - 1];
	shuffle(all, m, sizeof(*all));

	keys = malloc((size_t)n * sizeof(*keys));
	if (!keys)
		ipc_die("malloc", -ENOMEM);
	for (i = 0; i < n; i++)
		keys[i] = i < m ? all[i] : top + 16 * (i - m + 1);
	if (nr_real)
		*nr_real = n < m ? n : m;
	shuffle(keys, n, sizeof(*keys));
	free(all);
	return keys;
}

static bool skip_func(const char *name)
{
	/* Functions kprobe.multi refuses or that misbehave when every
	 * function is probed (is_unsafe_function() of trace_helpers).
	 */
	/* Nor the functions the measured programs call themselves
	 * (helpers, kfuncs, map lookups, the cookie bsearch): a probe on
	 * them fires, recursion-blocked, on every call and would measure
	 * the probe instead of the lookup.
	 */
	return is_unsafe_function(name) ||
	       !strncmp(name, "bpf_", 4) ||
	       !strncmp(name, "__bpf_", 6) ||
	       !strncmp(name, "ip_cookie_", 10) ||
	       !strncmp(name, "htab_", 5) ||
	       !strncmp(name, "__htab_", 7) ||
	       !strncmp(name, "rhtab_", 6) ||
	       !strncmp(name, "rhashtable_", 11) ||
	       !strncmp(name, "__rhashtable_", 13) ||
	       !strncmp(name, "rht_", 4) ||
	       !strncmp(name, "array_map_", 10) ||
	       !strncmp(name, "bsearch", 7) ||
	       !strncmp(name, "addrs_check", 11) ||
	       !strcmp(name, TRIGGER);
}

/* Addresses of attachable functions: in available_filter_functions, not
 * in a module, with one text symbol of that name.  The trigger comes
 * first, the rest is shuffled.
 */
__u64 *ipc_attachable_funcs(size_t *cnt)
{
	char line[512], name[256];
	size_t n = 1, cap = 65536, i, m;
	struct ksym *ks;
	__u64 *addrs;
	FILE *f;

	load_ksyms();
	f = fopen("/sys/kernel/tracing/available_filter_functions", "r");
	if (!f)
		f = fopen("/sys/kernel/debug/tracing/available_filter_functions",
			  "r");
	if (!f)
		ipc_die("open available_filter_functions", -errno);
	addrs = malloc(cap * sizeof(*addrs));
	ks = find_unique_ksym(TRIGGER);
	if (!addrs || !ks)
		ipc_die("no " TRIGGER " in kallsyms", -ENOENT);
	addrs[0] = ks->addr;
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '['))
			continue;
		if (sscanf(line, "%255s", name) != 1 || skip_func(name))
			continue;
		ks = find_unique_ksym(name);
		if (!ks)
			continue;
		if (n == cap) {
			cap *= 2;
			addrs = realloc(addrs, cap * sizeof(*addrs));
			if (!addrs)
				ipc_die("realloc", -ENOMEM);
		}
		addrs[n++] = ks->addr;
	}
	fclose(f);
	/* Drop aliases (two names, one address), keep the trigger first. */
	qsort(addrs + 1, n - 1, sizeof(*addrs), cmp_u64);
	for (i = 1, m = 1; i < n; i++)
		if (addrs[i] != addrs[0] && (m == 1 || addrs[i] != addrs[m - 1]))
			addrs[m++] = addrs[i];
	shuffle(addrs + 1, m - 1, sizeof(*addrs));
	*cnt = m;
	return addrs;
}

int ipc_create_map(enum bpf_map_type type, __u32 key_size, __u32 n,
		   __u32 flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = flags);
	int fd = bpf_map_create(type, NULL, key_size, sizeof(__u64), n, &o);

	if (fd < 0)
		ipc_die("bpf_map_create", fd);
	return fd;
}

/* RHASH's size hint (map_extra) for @n entries: what it will hold, as
 * HASH is sized by max_entries, within the hint's limit (U16_MAX).
 * IP_COOKIE's hint has no such limit: it gets @n.
 */
__u32 ipc_rhash_hint(__u32 n)
{
	return n < 65535 ? n : 65535;
}

int ipc_kind_create(enum ipc_kind kind, __u32 n)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC,
		    .map_extra = ipc_rhash_hint(n));
	int fd;

	switch (kind) {
	case IPC_KIND_IPC:
		return ipc_create_map(BPF_MAP_TYPE_IP_COOKIE, 8, n, 0);
	case IPC_KIND_HASH:
		return ipc_create_map(BPF_MAP_TYPE_HASH, 8, n, 0);
	case IPC_KIND_RHASH:
		fd = bpf_map_create(BPF_MAP_TYPE_RHASH, NULL, 8, sizeof(__u64),
				    n, &o);
		if (fd < 0)
			ipc_die("bpf_map_create RHASH", fd);
		return fd;
	case IPC_KIND_IPC_HINT:
		o.map_flags = 0;
		o.map_extra = n;
		fd = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, NULL, 8,
				    sizeof(__u64), n, &o);
		if (fd < 0)
			ipc_die("bpf_map_create IP_COOKIE", fd);
		return fd;
	default:
		return ipc_create_map(BPF_MAP_TYPE_HASH, 8, n,
				      BPF_F_NO_PREALLOC);
	}
}

const char *ipc_kind_name(enum ipc_kind kind)
{
	static const char * const names[] = {
		[IPC_KIND_IPC] = "ipc",
		[IPC_KIND_HASH] = "hash",
		[IPC_KIND_HASH_NOPRE] = "hash-nopre",
		[IPC_KIND_RHASH] = "rhash",
		[IPC_KIND_IPC_HINT] = "ipc-hint",
	};

	return names[kind];
}

/* Insert @n keys and values by batches of the map's key and value sizes.
 * A key refused with -EBUSY (RHASH: a bucket's chain past rhashtable's
 * limit) is skipped and counted, and the refusals are reported on an
 * "ipc-fail:" line, so the run goes on and the report fails it; any other
 * error ends the run.  Returns the number of keys refused.
 */
__u32 ipc_fill_batch(int fd, const void *keys, const void *vals, __u32 n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), done = 0, failed = 0, cnt;
	int err;

	if (bpf_map_get_info_by_fd(fd, &info, &len))
		ipc_die("map info", -errno);
	while (done < n) {
		cnt = n - done;
		err = bpf_map_update_batch(fd,
					   (const char *)keys + (size_t)done * info.key_size,
					   (const char *)vals + (size_t)done * info.value_size,
					   &cnt, &o);
		if (!err && cnt == n - done)
			break;
		if (err != -EBUSY)
			ipc_die("bpf_map_update_batch", err ?: -EIO);
		failed++;
		done += cnt + 1;
	}
	if (failed)
		printf("ipc-fail: %s: %u of %u inserts refused with -EBUSY (map type %u)\n",
		       env.bench_name, failed, n, info.type);
	return failed;
}

/* Throughput benchmarks */

struct ipc_ctx ipc_ctx;

void *ipc_producer(void *input)
{
	while (true) {
		if (bpf_prog_test_run_opts(ipc_ctx.driver_fd, NULL))
			ipc_die("test run", -errno);
		atomic_add(&ipc_ctx.hits, ipc_ctx.per_run);
	}
	return NULL;
}

static void slot_totals(__u64 *fires, __u64 *misses)
{
	int i;

	*fires = *misses = 0;
	for (i = 0; i < ARRAY_SIZE(ipc_ctx.skel->bss->slots); i++) {
		*fires += ipc_ctx.skel->bss->slots[i].fires;
		*misses += ipc_ctx.skel->bss->slots[i].misses;
	}
}

/* Program runs when the warm-up ended, so that "fires per hit" is taken
 * over the same samples as the hits (not over setup and warm-up as well).
 */
static struct {
	__u64 fires_at_warm;
	__u64 fires;		/* at the last measurement */
	int measures;
} win;

void ipc_measure(struct bench_res *res)
{
	__u64 misses;

	res->hits = atomic_swap(&ipc_ctx.hits, 0);
	slot_totals(&win.fires, &misses);
	/* the env.warmup_sec'th call ends the warm-up (bench.c) */
	if (++win.measures == env.warmup_sec)
		win.fires_at_warm = win.fires;
}

void ipc_report_final(struct bench_res res[], int res_cnt)
{
	double mean = 0, sd = 0, x;
	__u64 fires, misses;
	long total = 0;
	int i;

	for (i = 0; i < res_cnt; i++) {
		mean += res[i].hits / 1e6 / res_cnt;
		total += res[i].hits;
	}
	for (i = 0; res_cnt > 1 && i < res_cnt; i++) {
		x = res[i].hits / 1e6 - mean;
		sd += x * x / (res_cnt - 1);
	}
	sd = sqrt(sd);
	/* misses: all of them, warm-up included; fires: the samples' own */
	slot_totals(&fires, &misses);
	fires = win.fires - win.fires_at_warm;
	printf("Summary: hits %8.3lf \u00B1 %5.3lfM/s, %8.3lf ns/hit, ",
	       mean, sd, mean ? 1000.0 / mean : 0);
	printf("misses %llu, fires per hit %.3lf, resizes %ld\n",
	       (unsigned long long)misses,
	       total ? (double)fires / total : 0.0, ipc_ctx.resizes);
	/* one line for scripts to parse */
	printf("ipc-result: bench=%s funcs=%u entries=%u resize=%d",
	       env.bench_name, ipc_args.nr_funcs, ipc_args.nr_entries,
	       ipc_args.resize);
	printf(" mops=%.4lf sd=%.4lf ns=%.3lf", mean, sd,
	       mean ? 1000.0 / mean : 0);
	printf(" misses=%llu fires_per_hit=%.4lf resizes=%ld\n",
	       (unsigned long long)misses,
	       total ? (double)fires / total : 0.0, ipc_ctx.resizes);
	if (misses)
		printf("ipc-fail: %s: %llu lookups missed\n", env.bench_name,
		       (unsigned long long)misses);
	/* Every trigger runs the program: fewer runs than triggers means
	 * the trigger is not (or not only) what the program is attached to.
	 */
	if (total && fires < total - total / 100)
		printf("ipc-fail: %s: %llu program runs for %ld triggers\n",
		       env.bench_name, (unsigned long long)fires, total);
}

void ipc_open_skel(void)
{
	setup_libbpf();
	ipc_ctx.skel = ip_cookie_bench__open();
	if (!ipc_ctx.skel)
		ipc_die("open skeleton", -errno);
	ipc_ctx.skel->rodata->batch_iters = ipc_args.batch_iters;
}

void ipc_load_skel(struct bpf_program *driver, __u32 per_run)
{
	int err;

	bpf_program__set_autoload(driver, true);
	err = ip_cookie_bench__load(ipc_ctx.skel);
	if (err)
		ipc_die("load skeleton", err);
	ipc_ctx.driver_fd = bpf_program__fd(driver);
	ipc_ctx.per_run = per_run;
}

static void reset_slots(void)
{
	memset(ipc_ctx.skel->bss->slots, 0, sizeof(ipc_ctx.skel->bss->slots));
}

enum variant {
	V_EMPTY, V_COOKIE, V_COOKIE_ARRAY, V_HASH, V_IPC, V_IPC_LINK,
	V_WIDE_ARRAY, V_WIDE_IPC, V_KFUNC, V_FUNCIP, V_FUNCIP_LINK, V_RHASH,
	NR_VARIANTS,
};

/* max_entries of the RHASH map for @n keys, and its size hint */
static void set_rhash_size(__u32 n)
{
	bpf_map__set_max_entries(ipc_ctx.skel->maps.ip_rhash, n);
	bpf_map__set_map_extra(ipc_ctx.skel->maps.ip_rhash, ipc_rhash_hint(n));
}

static void kmulti_setup(enum variant v)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o);
	struct bpf_program *progs[NR_VARIANTS] = {};
	struct bpf_link_info info = {};
	__u32 info_len = sizeof(info);
	struct bpf_ip_cookie_key *lkeys;
	__u64 *addrs, *cookies, *vals;
	struct bpf_program *prog;
	size_t avail, n, i;
	__u32 *idx;

	ipc_open_skel();
	progs[V_EMPTY] = ipc_ctx.skel->progs.kmulti_empty;
	progs[V_COOKIE] = ipc_ctx.skel->progs.kmulti_cookie;
	progs[V_COOKIE_ARRAY] = ipc_ctx.skel->progs.kmulti_cookie_array;
	progs[V_HASH] = ipc_ctx.skel->progs.kmulti_hash;
	progs[V_RHASH] = ipc_ctx.skel->progs.kmulti_rhash;
	progs[V_IPC] = ipc_ctx.skel->progs.kmulti_ipc;
	progs[V_IPC_LINK] = ipc_ctx.skel->progs.kmulti_ipc_link;
	progs[V_KFUNC] = ipc_ctx.skel->progs.kmulti_kfunc;
	progs[V_FUNCIP] = ipc_ctx.skel->progs.kmulti_funcip;
	progs[V_FUNCIP_LINK] = ipc_ctx.skel->progs.kmulti_funcip_link;
	prog = progs[v];

	addrs = ipc_attachable_funcs(&avail);
	n = ipc_args.nr_funcs && ipc_args.nr_funcs < avail ? ipc_args.nr_funcs : avail;
	if (ipc_args.nr_funcs > avail)
		fprintf(stderr, "ip_cookie bench: only %zu attachable functions\n",
			avail);
	ipc_args.nr_funcs = n;
	printf("ipc-kmulti: attachable=%zu funcs=%zu\n", avail, n);

	bpf_map__set_max_entries(ipc_ctx.skel->maps.cookie_data, n);
	bpf_map__set_max_entries(ipc_ctx.skel->maps.ip_hash, n);
	set_rhash_size(n);
	bpf_map__set_max_entries(ipc_ctx.skel->maps.ip_map, n);
	bpf_map__set_max_entries(ipc_ctx.skel->maps.ip_link_map, n);
	bpf_program__set_autoload(prog, true);
	ipc_load_skel(ipc_ctx.skel->progs.trigger_driver, ipc_args.batch_iters);

	/* Function i has cookie i + 1; every map maps it to i + 1 too. */
	cookies = malloc(n * sizeof(*cookies));
	vals = malloc(n * sizeof(*vals));
	idx = malloc(n * sizeof(*idx));
	lkeys = calloc(n, sizeof(*lkeys));
	if (!cookies || !vals || !idx || !lkeys)
		ipc_die("malloc", -ENOMEM);
	for (i = 0; i < n; i++) {
		cookies[i] = i + 1;
		vals[i] = i + 1;
		idx[i] = i;
	}
	if (v == V_COOKIE_ARRAY)
		ipc_fill_batch(bpf_map__fd(ipc_ctx.skel->maps.cookie_data), idx, vals, n);
	if (v == V_HASH)
		ipc_fill_batch(bpf_map__fd(ipc_ctx.skel->maps.ip_hash), addrs, vals, n);
	if (v == V_RHASH)
		ipc_fill_batch(bpf_map__fd(ipc_ctx.skel->maps.ip_rhash), addrs, vals, n);
	if (v == V_IPC || v == V_KFUNC)
		ipc_fill_batch(bpf_map__fd(ipc_ctx.skel->maps.ip_map), addrs, vals, n);

	o.addrs = (const unsigned long *)addrs;
	o.cookies = cookies;
	o.cnt = n;
	ipc_ctx.link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
	if (!ipc_ctx.link)
		ipc_die("attach kprobe.multi", -errno);

	if (v == V_IPC_LINK) {
		if (bpf_link_get_info_by_fd(bpf_link__fd(ipc_ctx.link), &info,
					    &info_len))
			ipc_die("link info", -errno);
		for (i = 0; i < n; i++) {
			lkeys[i].ip = addrs[i];
			lkeys[i].link_id = info.id;
		}
		/* The program builds the key with bpf_get_attach_link_id(). */
		ipc_fill_batch(bpf_map__fd(ipc_ctx.skel->maps.ip_link_map), lkeys,
			       vals, n);
	}
	reset_slots();
	free(addrs);
	free(cookies);
	free(vals);
	free(idx);
	free(lkeys);
}

static void fentry_setup(enum variant v)
{
	LIBBPF_OPTS(bpf_trace_opts, o, .cookie = 1);
	__u64 ip, one = 1, wide[8];
	struct bpf_program *prog;
	struct ksym *ks;
	__u32 zero = 0;
	int i;

	ipc_open_skel();
	switch (v) {
	case V_COOKIE:
		prog = ipc_ctx.skel->progs.fentry_cookie;
		break;
	case V_HASH:
		prog = ipc_ctx.skel->progs.fentry_hash;
		break;
	case V_RHASH:
		prog = ipc_ctx.skel->progs.fentry_rhash;
		break;
	case V_IPC:
		prog = ipc_ctx.skel->progs.fentry_ipc;
		break;
	case V_KFUNC:
		prog = ipc_ctx.skel->progs.fentry_kfunc;
		break;
	case V_FUNCIP:
		prog = ipc_ctx.skel->progs.fentry_funcip;
		break;
	case V_COOKIE_ARRAY:
		prog = ipc_ctx.skel->progs.fentry_cookie_array;
		break;
	case V_WIDE_ARRAY:
		prog = ipc_ctx.skel->progs.fentry_wide_array;
		break;
	case V_WIDE_IPC:
		prog = ipc_ctx.skel->progs.fentry_wide_ipc;
		break;
	default:
		prog = ipc_ctx.skel->progs.fentry_empty;
		break;
	}
	bpf_program__set_autoload(prog, true);
	ipc_load_skel(ipc_ctx.skel->progs.trigger_driver, ipc_args.batch_iters);

	load_ksyms();
	ks = find_unique_ksym(TRIGGER);
	if (!ks)
		ipc_die("no " TRIGGER " in kallsyms", -ENOENT);
	ip = ks->addr;
	for (i = 0; i < 8; i++)
		wide[i] = i + 1;
	/* The cookie is 1: index 0 of the arrays. */
	if (bpf_map_update_elem(bpf_map__fd(ipc_ctx.skel->maps.ip_hash), &ip, &one, 0) ||
	    bpf_map_update_elem(bpf_map__fd(ipc_ctx.skel->maps.ip_rhash), &ip, &one, 0) ||
	    bpf_map_update_elem(bpf_map__fd(ipc_ctx.skel->maps.ip_map), &ip, &one, 0) ||
	    bpf_map_update_elem(bpf_map__fd(ipc_ctx.skel->maps.cookie_data), &zero,
				&one, 0) ||
	    bpf_map_update_elem(bpf_map__fd(ipc_ctx.skel->maps.wide_data), &zero,
				wide, 0) ||
	    bpf_map_update_elem(bpf_map__fd(ipc_ctx.skel->maps.wide_map), &ip, wide, 0))
		ipc_die("map update", -errno);
	ipc_ctx.link = bpf_program__attach_trace_opts(prog, &o);
	if (!ipc_ctx.link)
		ipc_die("attach fentry", -errno);
	reset_slots();
}

/* A function fentry.multi can attach to: its address and BTF ID */
struct fm_func {
	__u64 addr;
	__u32 id;
};

static int cmp_fm_addr(const void *a, const void *b)
{
	const struct fm_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct fm_name {
	const char *name;
	__u32 id;
};

static int cmp_fm_name(const void *a, const void *b)
{
	return strcmp(((const struct fm_name *)a)->name,
		      ((const struct fm_name *)b)->name);
}

/* Functions the kernel refuses trampolines for (btf_id_deny of
 * kernel/bpf/verifier.c): one of them in a multi-link fails the attach.
 */
static bool fmulti_denied(const char *name)
{
	static const char * const deny[] = {
		"___migrate_enable", "migrate_disable", "migrate_enable",
		"rcu_read_unlock_strict", "preempt_count_add",
		"preempt_count_sub", "__rcu_read_lock", "__rcu_read_unlock",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(deny); i++)
		if (!strcmp(name, deny[i]))
			return true;
	return false;
}

/* Functions a tracing multi-link can attach to, in the order of
 * ipc_attachable_funcs() (the trigger first, the rest shuffled): of those,
 * the ones with one BTF function of their name whose prototype a
 * trampoline takes (btf_type_is_traceable_func(), libbpf's own check when
 * it attaches by pattern).  The kernel finds each ID's address by name
 * (kallsyms_lookup_name()); ipc_attachable_funcs() keeps names that are
 * unique in kallsyms, so that address is the one in the maps.
 */
static struct fm_func *fmulti_funcs(size_t *cnt)
{
	struct fm_func *by_addr, *out, key, *f;
	struct fm_name *names;
	size_t nr_names = 0, nr = 0, avail, i, m = 0;
	const struct btf_type *t;
	struct btf *btf;
	struct ksym *ks;
	__u32 id, nr_types;
	__u64 *addrs;
	bool dup;

	load_ksyms();
	btf = btf__load_vmlinux_btf();
	if (!btf)
		ipc_die("load vmlinux BTF", -errno);
	nr_types = btf__type_cnt(btf);
	names = calloc(nr_types, sizeof(*names));
	by_addr = calloc(nr_types, sizeof(*by_addr));
	if (!names || !by_addr)
		ipc_die("calloc", -ENOMEM);
	for (id = 1; id < nr_types; id++) {
		t = btf__type_by_id(btf, id);
		if (!btf_is_func(t))
			continue;
		names[nr_names].name = btf__name_by_offset(btf, t->name_off);
		names[nr_names++].id = id;
	}
	qsort(names, nr_names, sizeof(*names), cmp_fm_name);
	for (i = 0; i < nr_names; i++) {
		dup = (i > 0 && !strcmp(names[i - 1].name, names[i].name)) ||
		      (i + 1 < nr_names && !strcmp(names[i + 1].name, names[i].name));
		/* skip_func() leaves the trigger to the caller */
		if (dup || fmulti_denied(names[i].name) ||
		    (skip_func(names[i].name) && strcmp(names[i].name, TRIGGER)))
			continue;
		if (!btf_type_is_traceable_func(btf, btf__type_by_id(btf, names[i].id)))
			continue;
		ks = find_unique_ksym(names[i].name);
		if (!ks)
			continue;
		by_addr[nr].addr = ks->addr;
		by_addr[nr++].id = names[i].id;
	}
	qsort(by_addr, nr, sizeof(*by_addr), cmp_fm_addr);

	addrs = ipc_attachable_funcs(&avail);
	out = calloc(avail, sizeof(*out));
	if (!out)
		ipc_die("calloc", -ENOMEM);
	for (i = 0; i < avail; i++) {
		key.addr = addrs[i];
		f = bsearch(&key, by_addr, nr, sizeof(*by_addr), cmp_fm_addr);
		if (f)
			out[m++] = *f;
	}
	if (!m || out[0].addr != addrs[0])
		ipc_die("no BTF function " TRIGGER " to attach fentry.multi to",
			-ENOENT);
	free(addrs);
	free(names);
	free(by_addr);
	btf__free(btf);
	*cnt = m;
	return out;
}

static void fmulti_setup(enum variant v)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, o);
	struct bpf_program *progs[NR_VARIANTS] = {};
	struct ip_cookie_bench *sk;
	__u64 *addrs, *cookies, *vals;
	struct bpf_program *prog;
	struct fm_func *funcs;
	size_t avail, n, i, j;
	__u64 (*wide)[8];
	__u32 *ids, *idx;

	ipc_open_skel();
	progs[V_EMPTY] = ipc_ctx.skel->progs.fmulti_empty;
	progs[V_FUNCIP] = ipc_ctx.skel->progs.fmulti_funcip;
	progs[V_COOKIE] = ipc_ctx.skel->progs.fmulti_cookie;
	progs[V_COOKIE_ARRAY] = ipc_ctx.skel->progs.fmulti_cookie_array;
	progs[V_HASH] = ipc_ctx.skel->progs.fmulti_hash;
	progs[V_RHASH] = ipc_ctx.skel->progs.fmulti_rhash;
	progs[V_IPC] = ipc_ctx.skel->progs.fmulti_ipc;
	progs[V_KFUNC] = ipc_ctx.skel->progs.fmulti_kfunc;
	progs[V_WIDE_ARRAY] = ipc_ctx.skel->progs.fmulti_wide_array;
	progs[V_WIDE_IPC] = ipc_ctx.skel->progs.fmulti_wide_ipc;
	prog = progs[v];
	if (!prog)
		ipc_die("no fentry.multi program for this variant", -EINVAL);

	funcs = fmulti_funcs(&avail);
	n = ipc_args.nr_funcs && ipc_args.nr_funcs < avail ? ipc_args.nr_funcs : avail;
	if (ipc_args.nr_funcs > avail)
		fprintf(stderr, "ip_cookie bench: only %zu functions for fentry.multi\n",
			avail);
	ipc_args.nr_funcs = n;
	printf("ipc-fmulti: attachable=%zu funcs=%zu\n", avail, n);

	sk = ipc_ctx.skel;
	bpf_map__set_max_entries(sk->maps.cookie_data, n);
	bpf_map__set_max_entries(sk->maps.wide_data, n);
	bpf_map__set_max_entries(sk->maps.ip_hash, n);
	set_rhash_size(n);
	bpf_map__set_max_entries(sk->maps.ip_map, n);
	bpf_map__set_max_entries(sk->maps.wide_map, n);
	bpf_program__set_autoload(prog, true);
	ipc_load_skel(ipc_ctx.skel->progs.trigger_driver, ipc_args.batch_iters);

	/* Function i has cookie i + 1; every map maps it to i + 1 too, the
	 * 64-byte values to i + 1 .. i + 8.
	 */
	addrs = malloc(n * sizeof(*addrs));
	ids = malloc(n * sizeof(*ids));
	cookies = malloc(n * sizeof(*cookies));
	vals = malloc(n * sizeof(*vals));
	idx = malloc(n * sizeof(*idx));
	wide = malloc(n * sizeof(*wide));
	if (!addrs || !ids || !cookies || !vals || !idx || !wide)
		ipc_die("malloc", -ENOMEM);
	for (i = 0; i < n; i++) {
		addrs[i] = funcs[i].addr;
		ids[i] = funcs[i].id;
		cookies[i] = i + 1;
		vals[i] = i + 1;
		idx[i] = i;
		for (j = 0; j < 8; j++)
			wide[i][j] = i + 1 + j;
	}
	switch (v) {
	case V_COOKIE_ARRAY:
		ipc_fill_batch(bpf_map__fd(sk->maps.cookie_data), idx, vals, n);
		break;
	case V_WIDE_ARRAY:
		ipc_fill_batch(bpf_map__fd(sk->maps.wide_data), idx, wide, n);
		break;
	case V_HASH:
		ipc_fill_batch(bpf_map__fd(sk->maps.ip_hash), addrs, vals, n);
		break;
	case V_RHASH:
		ipc_fill_batch(bpf_map__fd(sk->maps.ip_rhash), addrs, vals, n);
		break;
	case V_IPC:
	case V_KFUNC:
		ipc_fill_batch(bpf_map__fd(sk->maps.ip_map), addrs, vals, n);
		break;
	case V_WIDE_IPC:
		ipc_fill_batch(bpf_map__fd(sk->maps.wide_map), addrs, wide, n);
		break;
	default:
		break;
	}

	o.ids = ids;
	o.cookies = cookies;
	o.cnt = n;
	ipc_ctx.link = bpf_program__attach_tracing_multi(prog, NULL, &o);
	if (!ipc_ctx.link)
		ipc_die("attach fentry.multi", -errno);
	reset_slots();
	free(funcs);
	free(addrs);
	free(ids);
	free(cookies);
	free(vals);
	free(idx);
	free(wide);
}

/* The uprobe.multi benchmarks' attach point: called --ipc-batch times
 * per producer iteration.
 */
void ipc_uprobe_target(void);

noinline void ipc_uprobe_target(void)
{
	asm volatile ("" ::: "memory");
}

static void *umulti_producer(void *input)
{
	__u32 i;

	while (true) {
		for (i = 0; i < ipc_args.batch_iters; i++)
			ipc_uprobe_target();
		atomic_add(&ipc_ctx.hits, ipc_args.batch_iters);
	}
	return NULL;
}

static void umulti_setup(enum variant v)
{
	LIBBPF_OPTS(bpf_uprobe_multi_opts, o);
	const char *sym = "ipc_uprobe_target";
	struct bpf_ip_cookie_key lkey;
	__u64 cookie = 1, one = 1, key;
	struct bpf_program *prog;
	char exe[PATH_MAX];
	size_t cnt;
	__u32 zero = 0;
	ssize_t len;

	ipc_open_skel();
	switch (v) {
	case V_COOKIE:
		prog = ipc_ctx.skel->progs.umulti_cookie;
		break;
	case V_COOKIE_ARRAY:
		prog = ipc_ctx.skel->progs.umulti_cookie_array;
		break;
	case V_KFUNC:
		prog = ipc_ctx.skel->progs.umulti_ipc;
		break;
	case V_IPC_LINK:
		prog = ipc_ctx.skel->progs.umulti_ipc_link;
		break;
	case V_FUNCIP:
		prog = ipc_ctx.skel->progs.umulti_offset;
		break;
	case V_FUNCIP_LINK:
		prog = ipc_ctx.skel->progs.umulti_offset_link;
		break;
	default:
		prog = ipc_ctx.skel->progs.umulti_empty;
		break;
	}
	bpf_program__set_autoload(prog, true);
	/* The raw_tp driver is loaded but not run: the producer calls. */
	ipc_load_skel(ipc_ctx.skel->progs.trigger_driver, ipc_args.batch_iters);

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		ipc_die("readlink /proc/self/exe", -errno);
	exe[len] = 0;
	o.syms = &sym;
	o.cookies = &cookie;
	o.cnt = 1;
	ipc_ctx.link = bpf_program__attach_uprobe_multi(prog, -1, exe, NULL, &o);
	if (!ipc_ctx.link)
		ipc_die("attach uprobe.multi", -errno);
	/* The keys the program computes, from the link. */
	cnt = 1;
	if (bpf_link__ip_cookie_keys(ipc_ctx.link, &key, sizeof(key), &cnt) ||
	    bpf_map_update_elem(bpf_map__fd(ipc_ctx.skel->maps.ip_map), &key, &one, 0))
		ipc_die("offset key", -errno);
	cnt = 1;
	if (bpf_link__ip_cookie_keys(ipc_ctx.link, &lkey, sizeof(lkey), &cnt) ||
	    bpf_map_update_elem(bpf_map__fd(ipc_ctx.skel->maps.ip_link_map), &lkey,
				&one, 0))
		ipc_die("{offset, link} key", -errno);
	if (bpf_map_update_elem(bpf_map__fd(ipc_ctx.skel->maps.cookie_data), &zero,
				&one, 0))
		ipc_die("map update", -errno);
	reset_slots();
}

#define UMULTI(_name, _v)						\
static void umulti_##_name##_setup(void) { umulti_setup(_v); }	\
const struct bench bench_ipc_umulti_##_name = {				\
	.name = "ipc-umulti-" #_name,					\
	.argp = &bench_ip_cookie_argp,					\
	.validate = ipc_validate,					\
	.setup = umulti_##_name##_setup,				\
	.producer_thread = umulti_producer,				\
	.measure = ipc_measure,						\
	.report_progress = hits_drops_report_progress,			\
	.report_final = ipc_report_final,				\
}

#define KMULTI(_name, _v)						\
static void kmulti_##_name##_setup(void) { kmulti_setup(_v); }	\
const struct bench bench_ipc_kmulti_##_name = {				\
	.name = "ipc-kmulti-" #_name,					\
	.argp = &bench_ip_cookie_argp,					\
	.validate = ipc_validate,					\
	.setup = kmulti_##_name##_setup,				\
	.producer_thread = ipc_producer,				\
	.measure = ipc_measure,						\
	.report_progress = hits_drops_report_progress,			\
	.report_final = ipc_report_final,				\
}

#define FMULTI(_name, _v)						\
static void fmulti_##_name##_setup(void) { fmulti_setup(_v); }	\
const struct bench bench_ipc_fmulti_##_name = {				\
	.name = "ipc-fmulti-" #_name,					\
	.argp = &bench_ip_cookie_argp,					\
	.validate = ipc_validate,					\
	.setup = fmulti_##_name##_setup,				\
	.producer_thread = ipc_producer,				\
	.measure = ipc_measure,						\
	.report_progress = hits_drops_report_progress,			\
	.report_final = ipc_report_final,				\
}

#define FENTRY(_name, _v)						\
static void fentry_##_name##_setup(void) { fentry_setup(_v); }	\
const struct bench bench_ipc_fentry_##_name = {				\
	.name = "ipc-fentry-" #_name,					\
	.argp = &bench_ip_cookie_argp,					\
	.validate = ipc_validate,					\
	.setup = fentry_##_name##_setup,				\
	.producer_thread = ipc_producer,				\
	.measure = ipc_measure,						\
	.report_progress = hits_drops_report_progress,			\
	.report_final = ipc_report_final,				\
}

KMULTI(empty, V_EMPTY);
KMULTI(cookie, V_COOKIE);
KMULTI(cookie_array, V_COOKIE_ARRAY);
KMULTI(hash, V_HASH);
KMULTI(rhash, V_RHASH);
KMULTI(ipc, V_IPC);
KMULTI(ipc_link, V_IPC_LINK);
KMULTI(kfunc, V_KFUNC);
KMULTI(funcip, V_FUNCIP);
KMULTI(funcip_link, V_FUNCIP_LINK);
FENTRY(empty, V_EMPTY);
FENTRY(cookie, V_COOKIE);
FENTRY(hash, V_HASH);
FENTRY(rhash, V_RHASH);
FENTRY(ipc, V_IPC);
FENTRY(cookie_array, V_COOKIE_ARRAY);
FENTRY(wide_array, V_WIDE_ARRAY);
FENTRY(wide_ipc, V_WIDE_IPC);
FENTRY(kfunc, V_KFUNC);
FENTRY(funcip, V_FUNCIP);
FMULTI(empty, V_EMPTY);
FMULTI(funcip, V_FUNCIP);
FMULTI(cookie, V_COOKIE);
FMULTI(cookie_array, V_COOKIE_ARRAY);
FMULTI(hash, V_HASH);
FMULTI(rhash, V_RHASH);
FMULTI(ipc, V_IPC);
FMULTI(kfunc, V_KFUNC);
FMULTI(wide_array, V_WIDE_ARRAY);
FMULTI(wide_ipc, V_WIDE_IPC);
UMULTI(empty, V_EMPTY);
UMULTI(cookie, V_COOKIE);
UMULTI(cookie_array, V_COOKIE_ARRAY);
UMULTI(ipc, V_KFUNC);
UMULTI(ipc_link, V_IPC_LINK);
UMULTI(offset, V_FUNCIP);
UMULTI(offset_link, V_FUNCIP_LINK);
