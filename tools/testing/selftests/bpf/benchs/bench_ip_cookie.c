// SPDX-License-Identifier: GPL-2.0
/* BPF_MAP_TYPE_IP_COOKIE against bpf_get_attach_cookie(), ARRAY and HASH.
 *
 * Throughput benchmarks (framework style, "hits" = trigger calls):
 *   ipc-kmulti-{empty,funcip,funcip_link,cookie,cookie_array,hash,ipc,kfunc,ipc_link}
 *	one kprobe.multi program on N functions (--ipc-funcs, 0 = all
 *	attachable) including bpf_get_numa_node_id(), the trigger
 *   ipc-fentry-{empty,funcip,cookie,cookie_array,hash,ipc,kfunc,wide_array,wide_ipc}
 *	one fentry program on the trigger; "kfunc" is "ipc" through
 *	bpf_ip_cookie_lookup(), the ip by value; "funcip" (and "offset",
 *	"..._link") compute the key and look nothing up
 *   ipc-umulti-{empty,offset,offset_link,cookie,cookie_array,ipc,ipc_link}
 *	one uprobe.multi program on ipc_uprobe_target() of this binary,
 *	called by the producer; "ipc" is keyed by bpf_get_uprobe_offset(),
 *	"ipc_link" by {offset, bpf_get_attach_link_id()}
 *   ipc-lookup-{none,ipc,hash,array}
 *	map lookups from bpf_loop() over --ipc-entries shuffled kernel
 *	addresses; --ipc-resize grows and shrinks the IP_COOKIE map from
 *	another CPU meanwhile
 * The producer counts driver runs times iterations, so hits of the other
 * attached functions do not pollute the count; they are reported as
 * "fires per trigger".
 *
 * One-shot measurements, done in setup(), printed as "ipc-*:" lines:
 *   ipc-mem       bytes per entry from fdinfo memlock and memory.current
 *   ipc-populate  single and batch insert, resize latency
 *   ipc-attach    kprobe.multi attach with cookies vs attach + map fill
 */
#define _GNU_SOURCE
#include <argp.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bench.h"
#include "bench_ip_cookie.h"
#include "bpf_util.h"

/* per-CPU result slot, as in progs/ip_cookie_bench.c */
struct slot {
	__u64 fires;
	__u64 sink;
	__u64 misses;
} __aligned(128);

#include "ip_cookie_bench.skel.h"

#define TRIGGER		"bpf_get_numa_node_id"
#define MAX_SIZES	16

static struct {
	__u32 batch_iters;
	__u32 nr_funcs;		/* kmulti: 0 = all attachable */
	__u32 nr_entries;	/* lookup */
	__u32 nr_loops;		/* lookup: lookups per run */
	bool resize;		/* lookup: resize from another CPU */
	__u32 sizes[MAX_SIZES];	/* one-shot benches */
	int nr_sizes;
	int rounds;
} args = {
	.batch_iters = 500,
	.nr_funcs = 1,
	.nr_entries = 1000,
	.nr_loops = 10000,
	.rounds = 3,
};

enum {
	ARG_IPC_BATCH = 9300,
	ARG_IPC_FUNCS,
	ARG_IPC_ENTRIES,
	ARG_IPC_LOOPS,
	ARG_IPC_RESIZE,
	ARG_IPC_SIZES,
	ARG_IPC_ROUNDS,
};

static const struct argp_option opts[] = {
	{ "ipc-batch", ARG_IPC_BATCH, "N", 0,
	  "Trigger calls per driver run (1..1000)" },
	{ "ipc-funcs", ARG_IPC_FUNCS, "N", 0,
	  "Functions to attach kprobe.multi to, 0 = all attachable" },
	{ "ipc-entries", ARG_IPC_ENTRIES, "N", 0, "Map entries (lookup)" },
	{ "ipc-loops", ARG_IPC_LOOPS, "N", 0, "Lookups per driver run" },
	{ "ipc-resize", ARG_IPC_RESIZE, NULL, 0,
	  "Grow and shrink the map from another thread (lookup)" },
	{ "ipc-sizes", ARG_IPC_SIZES, "N,N,...", 0,
	  "Sizes of the one-shot benches (0 = all attachable functions)" },
	{ "ipc-rounds", ARG_IPC_ROUNDS, "N", 0, "Rounds of one-shot benches" },
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
	char *tok, *save = NULL, *copy;

	switch (key) {
	case ARG_IPC_BATCH:
		args.batch_iters = parse_num(arg, 1, 1000, state);
		break;
	case ARG_IPC_FUNCS:
		args.nr_funcs = parse_num(arg, 0, 1 << 20, state);
		break;
	case ARG_IPC_ENTRIES:
		args.nr_entries = parse_num(arg, 1, 1 << 24, state);
		break;
	case ARG_IPC_LOOPS:
		args.nr_loops = parse_num(arg, 1, 1 << 22, state);
		break;
	case ARG_IPC_RESIZE:
		args.resize = true;
		break;
	case ARG_IPC_ROUNDS:
		args.rounds = parse_num(arg, 1, 100, state);
		break;
	case ARG_IPC_SIZES:
		/* bench.c parses the command line twice: leave arg intact. */
		copy = strdup(arg);
		if (!copy)
			argp_failure(state, 1, ENOMEM, "ipc-sizes");
		args.nr_sizes = 0;
		for (tok = strtok_r(copy, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (args.nr_sizes == MAX_SIZES)
				argp_usage(state);
			args.sizes[args.nr_sizes++] =
				parse_num(tok, 0, 1 << 24, state);
		}
		free(copy);
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

static struct ctx {
	struct ip_cookie_bench *skel;
	struct bpf_link *link;
	int driver_fd;
	__u32 per_run;		/* hits counted per driver run */
	long hits;
	pthread_t resizer;
	long resizes;		/* grow + shrink cycles of the resizer */
} ctx;

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "ip_cookie bench: %s: %d (%s)\n", what, err,
		strerror(err < 0 ? -err : err));
	exit(1);
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

/* Kernel text symbols from /proc/kallsyms */

struct ksym_ent {
	char *name;
	__u64 addr;
	int dups;	/* other text symbols with the same name */
};

static struct ksym_ent *ksyms;
static size_t nr_ksyms;

static int cmp_ksym_name(const void *a, const void *b)
{
	return strcmp(((const struct ksym_ent *)a)->name,
		      ((const struct ksym_ent *)b)->name);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static void load_ksyms(void)
{
	char line[512], name[256], type;
	size_t cap = 0, i, j, k;
	unsigned long long addr;
	FILE *f;

	if (ksyms)
		return;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		die("open /proc/kallsyms", -errno);
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '['))	/* module symbol */
			continue;
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (!addr)
			die("/proc/kallsyms shows no addresses (kptr_restrict?)",
			    -EPERM);
		if (nr_ksyms == cap) {
			cap = cap ? cap * 2 : 65536;
			ksyms = realloc(ksyms, cap * sizeof(*ksyms));
			if (!ksyms)
				die("realloc", -ENOMEM);
		}
		ksyms[nr_ksyms].name = strdup(name);
		ksyms[nr_ksyms].addr = addr;
		ksyms[nr_ksyms].dups = 0;
		nr_ksyms++;
	}
	fclose(f);
	qsort(ksyms, nr_ksyms, sizeof(*ksyms), cmp_ksym_name);
	for (i = 0; i < nr_ksyms; i = j) {
		for (j = i + 1; j < nr_ksyms &&
		     !strcmp(ksyms[i].name, ksyms[j].name); j++)
			;
		if (j - i > 1)
			for (k = i; k < j; k++)
				ksyms[k].dups = 1;
	}
}

static struct ksym_ent *find_ksym(const char *name)
{
	struct ksym_ent key = { .name = (char *)name };

	return bsearch(&key, ksyms, nr_ksyms, sizeof(*ksyms), cmp_ksym_name);
}

/* Real kernel text addresses, unique and shuffled; above the number of
 * real ones, synthetic addresses 16 bytes apart above the highest.
 */
static __u64 *make_keys(__u32 n, __u32 *nr_real)
{
	__u64 *all, *keys, top;
	size_t i, m = 0;

	load_ksyms();
	all = malloc(nr_ksyms * sizeof(*all));
	if (!all)
		die("malloc", -ENOMEM);
	for (i = 0; i < nr_ksyms; i++)
		all[i] = ksyms[i].addr;
	qsort(all, nr_ksyms, sizeof(*all), cmp_u64);
	for (i = 0; i < nr_ksyms; i++)
		if (!m || all[i] != all[m - 1])
			all[m++] = all[i];
	top = all[m - 1];
	shuffle(all, m, sizeof(*all));

	keys = malloc((size_t)n * sizeof(*keys));
	if (!keys)
		die("malloc", -ENOMEM);
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
	 * function is probed; see prog_tests/kprobe_multi_test.c.
	 */
	/* Nor the functions the measured programs call themselves
	 * (helpers, kfuncs, map lookups, the cookie bsearch): a probe on
	 * them fires, recursion-blocked, on every call and would measure
	 * the probe instead of the lookup.
	 */
	return !strcmp(name, "arch_cpu_idle") ||
	       !strcmp(name, "default_idle") ||
	       !strncmp(name, "rcu_", 4) ||
	       !strncmp(name, "bpf_", 4) ||
	       !strncmp(name, "__bpf_", 6) ||
	       !strncmp(name, "ip_cookie_", 10) ||
	       !strncmp(name, "htab_", 5) ||
	       !strncmp(name, "__htab_", 7) ||
	       !strncmp(name, "array_map_", 10) ||
	       !strncmp(name, "bsearch", 7) ||
	       !strncmp(name, "addrs_check", 11) ||
	       !strcmp(name, "bpf_dispatcher_xdp_func") ||
	       !strncmp(name, "__ftrace_invalid_address__", 26) ||
	       !strcmp(name, TRIGGER);
}

/* Addresses of attachable functions: in available_filter_functions, not
 * in a module, with one text symbol of that name.  The trigger comes
 * first, the rest is shuffled.
 */
static __u64 *attachable_funcs(size_t *cnt)
{
	char line[512], name[256];
	struct ksym_ent *ks;
	size_t n = 1, cap = 65536, i, m;
	__u64 *addrs;
	FILE *f;

	load_ksyms();
	f = fopen("/sys/kernel/tracing/available_filter_functions", "r");
	if (!f)
		f = fopen("/sys/kernel/debug/tracing/available_filter_functions",
			  "r");
	if (!f)
		die("open available_filter_functions", -errno);
	addrs = malloc(cap * sizeof(*addrs));
	ks = find_ksym(TRIGGER);
	if (!addrs || !ks)
		die("no " TRIGGER " in kallsyms", -ENOENT);
	addrs[0] = ks->addr;
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '['))
			continue;
		if (sscanf(line, "%255s", name) != 1 || skip_func(name))
			continue;
		ks = find_ksym(name);
		if (!ks || ks->dups)
			continue;
		if (n == cap) {
			cap *= 2;
			addrs = realloc(addrs, cap * sizeof(*addrs));
			if (!addrs)
				die("realloc", -ENOMEM);
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

static int create_map(enum bpf_map_type type, __u32 key_size, __u32 n,
		      __u32 flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = flags);
	int fd = bpf_map_create(type, NULL, key_size, sizeof(__u64), n, &o);

	if (fd < 0)
		die("bpf_map_create", fd);
	return fd;
}

static void fill_batch(int fd, const void *keys, const __u64 *vals, __u32 n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	__u32 cnt = n;
	int err;

	err = bpf_map_update_batch(fd, keys, vals, &cnt, &o);
	if (err || cnt != n)
		die("bpf_map_update_batch", err ?: -EIO);
}

/* Throughput benchmarks */

static void ipc_validate(void)
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

static void *ipc_producer(void *input)
{
	while (true) {
		if (bpf_prog_test_run_opts(ctx.driver_fd, NULL))
			die("test run", -errno);
		atomic_add(&ctx.hits, ctx.per_run);
	}
	return NULL;
}

static void slot_totals(__u64 *fires, __u64 *misses)
{
	int i;

	*fires = *misses = 0;
	for (i = 0; i < ARRAY_SIZE(ctx.skel->bss->slots); i++) {
		*fires += ctx.skel->bss->slots[i].fires;
		*misses += ctx.skel->bss->slots[i].misses;
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

static void ipc_measure(struct bench_res *res)
{
	__u64 misses;

	res->hits = atomic_swap(&ctx.hits, 0);
	slot_totals(&win.fires, &misses);
	/* the env.warmup_sec'th call ends the warm-up (bench.c) */
	if (++win.measures == env.warmup_sec)
		win.fires_at_warm = win.fires;
}

static void ipc_report_final(struct bench_res res[], int res_cnt)
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
	       total ? (double)fires / total : 0.0, ctx.resizes);
	printf("ipc-result: bench=%s funcs=%u entries=%u resize=%d mops=%.4lf sd=%.4lf ns=%.3lf misses=%llu fires_per_hit=%.4lf resizes=%ld\n",
	       env.bench_name, args.nr_funcs, args.nr_entries, args.resize,
	       mean, sd, mean ? 1000.0 / mean : 0,
	       (unsigned long long)misses,
	       total ? (double)fires / total : 0.0, ctx.resizes);
	if (misses)
		printf("ipc-fail: %s: %llu lookups missed\n", env.bench_name,
		       (unsigned long long)misses);
}

static void open_skel(void)
{
	setup_libbpf();
	ctx.skel = ip_cookie_bench__open();
	if (!ctx.skel)
		die("open skeleton", -errno);
	ctx.skel->rodata->batch_iters = args.batch_iters;
}

static void load_skel(struct bpf_program *driver, __u32 per_run)
{
	int err;

	bpf_program__set_autoload(driver, true);
	err = ip_cookie_bench__load(ctx.skel);
	if (err)
		die("load skeleton", err);
	ctx.driver_fd = bpf_program__fd(driver);
	ctx.per_run = per_run;
}

static void reset_slots(void)
{
	memset(ctx.skel->bss->slots, 0, sizeof(ctx.skel->bss->slots));
}

enum variant {
	V_EMPTY, V_COOKIE, V_COOKIE_ARRAY, V_HASH, V_IPC, V_IPC_LINK,
	V_WIDE_ARRAY, V_WIDE_IPC, V_KFUNC, V_FUNCIP, V_FUNCIP_LINK,
};

static void kmulti_setup(enum variant v)
{
	struct bpf_program *progs[] = {
		[V_EMPTY] = NULL, [V_COOKIE] = NULL, [V_COOKIE_ARRAY] = NULL,
		[V_HASH] = NULL, [V_IPC] = NULL, [V_IPC_LINK] = NULL,
		[V_WIDE_ARRAY] = NULL, [V_WIDE_IPC] = NULL, [V_KFUNC] = NULL,
		[V_FUNCIP] = NULL, [V_FUNCIP_LINK] = NULL,
	};
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o);
	struct bpf_link_info info = {};
	__u32 info_len = sizeof(info);
	struct bpf_ip_cookie_key *lkeys;
	__u64 *addrs, *cookies, *vals;
	struct bpf_program *prog;
	size_t avail, n, i;
	__u32 *idx;

	open_skel();
	progs[V_EMPTY] = ctx.skel->progs.kmulti_empty;
	progs[V_COOKIE] = ctx.skel->progs.kmulti_cookie;
	progs[V_COOKIE_ARRAY] = ctx.skel->progs.kmulti_cookie_array;
	progs[V_HASH] = ctx.skel->progs.kmulti_hash;
	progs[V_IPC] = ctx.skel->progs.kmulti_ipc;
	progs[V_IPC_LINK] = ctx.skel->progs.kmulti_ipc_link;
	progs[V_KFUNC] = ctx.skel->progs.kmulti_kfunc;
	progs[V_FUNCIP] = ctx.skel->progs.kmulti_funcip;
	progs[V_FUNCIP_LINK] = ctx.skel->progs.kmulti_funcip_link;
	prog = progs[v];

	addrs = attachable_funcs(&avail);
	n = args.nr_funcs && args.nr_funcs < avail ? args.nr_funcs : avail;
	if (args.nr_funcs > avail)
		fprintf(stderr, "ip_cookie bench: only %zu attachable functions\n",
			avail);
	args.nr_funcs = n;

	bpf_map__set_max_entries(ctx.skel->maps.cookie_data, n);
	bpf_map__set_max_entries(ctx.skel->maps.ip_hash, n);
	bpf_map__set_max_entries(ctx.skel->maps.ip_map, n);
	bpf_map__set_max_entries(ctx.skel->maps.ip_link_map, n);
	bpf_program__set_autoload(prog, true);
	load_skel(ctx.skel->progs.trigger_driver, args.batch_iters);

	/* Function i has cookie i + 1; every map maps it to i + 1 too. */
	cookies = malloc(n * sizeof(*cookies));
	vals = malloc(n * sizeof(*vals));
	idx = malloc(n * sizeof(*idx));
	lkeys = calloc(n, sizeof(*lkeys));
	if (!cookies || !vals || !idx || !lkeys)
		die("malloc", -ENOMEM);
	for (i = 0; i < n; i++) {
		cookies[i] = i + 1;
		vals[i] = i + 1;
		idx[i] = i;
	}
	if (v == V_COOKIE_ARRAY)
		fill_batch(bpf_map__fd(ctx.skel->maps.cookie_data), idx, vals, n);
	if (v == V_HASH)
		fill_batch(bpf_map__fd(ctx.skel->maps.ip_hash), addrs, vals, n);
	if (v == V_IPC || v == V_KFUNC)
		fill_batch(bpf_map__fd(ctx.skel->maps.ip_map), addrs, vals, n);

	o.addrs = (const unsigned long *)addrs;
	o.cookies = cookies;
	o.cnt = n;
	ctx.link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
	if (!ctx.link)
		die("attach kprobe.multi", -errno);

	if (v == V_IPC_LINK) {
		if (bpf_link_get_info_by_fd(bpf_link__fd(ctx.link), &info,
					    &info_len))
			die("link info", -errno);
		for (i = 0; i < n; i++) {
			lkeys[i].ip = addrs[i];
			lkeys[i].link_id = info.id;
		}
		/* The program builds the key with bpf_get_attach_link_id(). */
		fill_batch(bpf_map__fd(ctx.skel->maps.ip_link_map), lkeys,
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
	struct ksym_ent *ks;
	__u32 zero = 0;
	int i;

	open_skel();
	switch (v) {
	case V_COOKIE:
		prog = ctx.skel->progs.fentry_cookie;
		break;
	case V_HASH:
		prog = ctx.skel->progs.fentry_hash;
		break;
	case V_IPC:
		prog = ctx.skel->progs.fentry_ipc;
		break;
	case V_KFUNC:
		prog = ctx.skel->progs.fentry_kfunc;
		break;
	case V_FUNCIP:
		prog = ctx.skel->progs.fentry_funcip;
		break;
	case V_COOKIE_ARRAY:
		prog = ctx.skel->progs.fentry_cookie_array;
		break;
	case V_WIDE_ARRAY:
		prog = ctx.skel->progs.fentry_wide_array;
		break;
	case V_WIDE_IPC:
		prog = ctx.skel->progs.fentry_wide_ipc;
		break;
	default:
		prog = ctx.skel->progs.fentry_empty;
		break;
	}
	bpf_program__set_autoload(prog, true);
	load_skel(ctx.skel->progs.trigger_driver, args.batch_iters);

	load_ksyms();
	ks = find_ksym(TRIGGER);
	if (!ks)
		die("no " TRIGGER " in kallsyms", -ENOENT);
	ip = ks->addr;
	for (i = 0; i < 8; i++)
		wide[i] = i + 1;
	/* The cookie is 1: index 0 of the arrays. */
	if (bpf_map_update_elem(bpf_map__fd(ctx.skel->maps.ip_hash), &ip, &one, 0) ||
	    bpf_map_update_elem(bpf_map__fd(ctx.skel->maps.ip_map), &ip, &one, 0) ||
	    bpf_map_update_elem(bpf_map__fd(ctx.skel->maps.cookie_data), &zero,
				&one, 0) ||
	    bpf_map_update_elem(bpf_map__fd(ctx.skel->maps.wide_data), &zero,
				wide, 0) ||
	    bpf_map_update_elem(bpf_map__fd(ctx.skel->maps.wide_map), &ip, wide, 0))
		die("map update", -errno);
	ctx.link = bpf_program__attach_trace_opts(prog, &o);
	if (!ctx.link)
		die("attach fentry", -errno);
	reset_slots();
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
		for (i = 0; i < args.batch_iters; i++)
			ipc_uprobe_target();
		atomic_add(&ctx.hits, args.batch_iters);
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

	open_skel();
	switch (v) {
	case V_COOKIE:
		prog = ctx.skel->progs.umulti_cookie;
		break;
	case V_COOKIE_ARRAY:
		prog = ctx.skel->progs.umulti_cookie_array;
		break;
	case V_KFUNC:
		prog = ctx.skel->progs.umulti_ipc;
		break;
	case V_IPC_LINK:
		prog = ctx.skel->progs.umulti_ipc_link;
		break;
	case V_FUNCIP:
		prog = ctx.skel->progs.umulti_offset;
		break;
	case V_FUNCIP_LINK:
		prog = ctx.skel->progs.umulti_offset_link;
		break;
	default:
		prog = ctx.skel->progs.umulti_empty;
		break;
	}
	bpf_program__set_autoload(prog, true);
	/* The raw_tp driver is loaded but not run: the producer calls. */
	load_skel(ctx.skel->progs.trigger_driver, args.batch_iters);

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		die("readlink /proc/self/exe", -errno);
	exe[len] = 0;
	o.syms = &sym;
	o.cookies = &cookie;
	o.cnt = 1;
	ctx.link = bpf_program__attach_uprobe_multi(prog, -1, exe, NULL, &o);
	if (!ctx.link)
		die("attach uprobe.multi", -errno);
	/* The keys the program computes, from the link. */
	cnt = 1;
	if (bpf_link__ip_cookie_keys(ctx.link, &key, sizeof(key), &cnt) ||
	    bpf_map_update_elem(bpf_map__fd(ctx.skel->maps.ip_map), &key, &one, 0))
		die("offset key", -errno);
	cnt = 1;
	if (bpf_link__ip_cookie_keys(ctx.link, &lkey, sizeof(lkey), &cnt) ||
	    bpf_map_update_elem(bpf_map__fd(ctx.skel->maps.ip_link_map), &lkey,
				&one, 0))
		die("{offset, link} key", -errno);
	if (bpf_map_update_elem(bpf_map__fd(ctx.skel->maps.cookie_data), &zero,
				&one, 0))
		die("map update", -errno);
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
KMULTI(ipc, V_IPC);
KMULTI(ipc_link, V_IPC_LINK);
KMULTI(kfunc, V_KFUNC);
KMULTI(funcip, V_FUNCIP);
KMULTI(funcip_link, V_FUNCIP_LINK);
FENTRY(empty, V_EMPTY);
FENTRY(cookie, V_COOKIE);
FENTRY(hash, V_HASH);
FENTRY(ipc, V_IPC);
FENTRY(cookie_array, V_COOKIE_ARRAY);
FENTRY(wide_array, V_WIDE_ARRAY);
FENTRY(wide_ipc, V_WIDE_IPC);
FENTRY(kfunc, V_KFUNC);
FENTRY(funcip, V_FUNCIP);
UMULTI(empty, V_EMPTY);
UMULTI(cookie, V_COOKIE);
UMULTI(cookie_array, V_COOKIE_ARRAY);
UMULTI(ipc, V_KFUNC);
UMULTI(ipc_link, V_IPC_LINK);
UMULTI(offset, V_FUNCIP);
UMULTI(offset_link, V_FUNCIP_LINK);

/* Lookup micro-benchmark */

enum { LOOKUP_NONE, LOOKUP_IPC, LOOKUP_HASH, LOOKUP_ARRAY };

static __u64 *lookup_keys;

static void set_affinity(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* Grow the map to 5x its size by one batch, shrink it back by another. */
static void *resizer(void *input)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	int fd = bpf_map__fd(ctx.skel->maps.ip_map);
	__u32 n = args.nr_entries, extra = 4 * n, i;
	__u64 *keys, *vals, top = 0;
	__u32 cnt;

	if (env.nr_cpus > 1)
		set_affinity(1);
	keys = malloc(extra * sizeof(*keys));
	vals = malloc(extra * sizeof(*vals));
	if (!keys || !vals)
		die("malloc", -ENOMEM);
	for (i = 0; i < n; i++)
		top = lookup_keys[i] > top ? lookup_keys[i] : top;
	for (i = 0; i < extra; i++) {
		keys[i] = top + 16 * (i + 1);
		vals[i] = 1;
	}
	while (true) {
		cnt = extra;
		if (bpf_map_update_batch(fd, keys, vals, &cnt, &o))
			die("batch update of the resize thread", -errno);
		cnt = extra;
		if (bpf_map_delete_batch(fd, keys, &cnt, &o))
			die("batch delete of the resize thread", -errno);
		atomic_inc(&ctx.resizes);
	}
	return NULL;
}

static void lookup_setup(int kind)
{
	__u32 n = args.nr_entries, i, real;
	__u64 *vals;
	__u32 *idx;

	open_skel();
	ctx.skel->rodata->lookup_kind = kind;
	ctx.skel->rodata->nr_keys = n;
	ctx.skel->rodata->nr_loops = args.nr_loops;
	bpf_map__set_max_entries(ctx.skel->maps.keys, n);
	bpf_map__set_max_entries(ctx.skel->maps.lk_array, n);
	bpf_map__set_max_entries(ctx.skel->maps.ip_hash, n);
	bpf_map__set_max_entries(ctx.skel->maps.ip_map,
				 args.resize ? 5 * n : n);
	load_skel(ctx.skel->progs.lookup_driver, args.nr_loops);

	lookup_keys = make_keys(n, &real);
	vals = malloc(n * sizeof(*vals));
	idx = malloc(n * sizeof(*idx));
	if (!vals || !idx)
		die("malloc", -ENOMEM);
	for (i = 0; i < n; i++) {
		vals[i] = i + 1;
		idx[i] = i;
	}
	fill_batch(bpf_map__fd(ctx.skel->maps.keys), idx, lookup_keys, n);
	if (kind == LOOKUP_IPC)
		fill_batch(bpf_map__fd(ctx.skel->maps.ip_map), lookup_keys,
			   vals, n);
	if (kind == LOOKUP_HASH)
		fill_batch(bpf_map__fd(ctx.skel->maps.ip_hash), lookup_keys,
			   vals, n);
	if (kind == LOOKUP_ARRAY)
		fill_batch(bpf_map__fd(ctx.skel->maps.lk_array), idx, vals, n);
	printf("ipc-keys: entries=%u real=%u synthetic=%u\n", n, real, n - real);
	free(vals);
	free(idx);
	if (args.resize) {
		if (kind != LOOKUP_IPC) {
			fprintf(stderr, "--ipc-resize needs ipc-lookup-ipc\n");
			exit(1);
		}
		if (pthread_create(&ctx.resizer, NULL, resizer, NULL))
			die("pthread_create", -errno);
	}
}

#define LOOKUP(_name, _kind)						\
static void lookup_##_name##_setup(void) { lookup_setup(_kind); }	\
const struct bench bench_ipc_lookup_##_name = {				\
	.name = "ipc-lookup-" #_name,					\
	.argp = &bench_ip_cookie_argp,					\
	.validate = ipc_validate,					\
	.setup = lookup_##_name##_setup,				\
	.producer_thread = ipc_producer,				\
	.measure = ipc_measure,						\
	.report_progress = hits_drops_report_progress,			\
	.report_final = ipc_report_final,				\
}

LOOKUP(none, LOOKUP_NONE);
LOOKUP(ipc, LOOKUP_IPC);
LOOKUP(hash, LOOKUP_HASH);
LOOKUP(array, LOOKUP_ARRAY);

/* One-shot measurements */

static long fdinfo_memlock(int fd)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

#define CG_ROOT "/sys/fs/cgroup"

static long cg_read(const char *cg, const char *file)
{
	char path[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), CG_ROOT "/%s/%s", cg, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int cg_write(const char *cg, const char *file, const char *val)
{
	char path[256];
	int fd, n;

	snprintf(path, sizeof(path), CG_ROOT "/%s/%s", cg, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* Move this process into a fresh child cgroup with the memory controller:
 * what earlier measurements free later is uncharged from their cgroup.
 */
static bool cg_enter(char *cg, size_t len, int seq)
{
	char pid[32], path[256];

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (cg_write("", "cgroup.subtree_control", "+memory"))
		return false;
	snprintf(cg, len, "ipc-bench-%d-%d", getpid(), seq);
	snprintf(path, sizeof(path), CG_ROOT "/%s", cg);
	if (mkdir(path, 0755) && errno != EEXIST)
		return false;
	return !cg_write(cg, "cgroup.procs", pid);
}

static void cg_leave(const char *cg)
{
	char pid[32], path[256];

	snprintf(pid, sizeof(pid), "%d", getpid());
	cg_write("", "cgroup.procs", pid);
	snprintf(path, sizeof(path), CG_ROOT "/%s", cg);
	rmdir(path);	/* fails while charges remain; harmless */
}

enum { K_IPC, K_HASH, K_HASH_NOPRE, NR_KINDS };
static const char * const kind_name[] = { "ipc", "hash", "hash-nopre" };

static int kind_create(int kind, __u32 n)
{
	switch (kind) {
	case K_IPC:
		return create_map(BPF_MAP_TYPE_IP_COOKIE, 8, n, 0);
	case K_HASH:
		return create_map(BPF_MAP_TYPE_HASH, 8, n, 0);
	default:
		return create_map(BPF_MAP_TYPE_HASH, 8, n, BPF_F_NO_PREALLOC);
	}
}

/* What a map frees after a grace period (an IP_COOKIE map's replaced
 * indexes, after RCU Tasks Trace) is still charged right after filling.
 * Wait at least a second, then until memory.current holds still for half
 * a second (at most 20 s).
 */
static long cg_read_settled(const char *cg)
{
	long v = cg_read(cg, "memory.current"), prev = -2;
	int i, still = 0;

	for (i = 0; i < 200 && (i < 10 || still < 5); i++) {
		usleep(100 * 1000);
		prev = v;
		v = cg_read(cg, "memory.current");
		still = v == prev ? still + 1 : 0;
	}
	return v;
}

static void mem_one(int kind, __u32 n, const __u64 *keys, const __u64 *vals,
		    int seq)
{
	/* memcg charges in batches of pages per CPU: use copies of small
	 * maps so the error stays below ~1% of what is measured.
	 */
	int copies = n >= 1 << 18 ? 1 : (1 << 18) / n, fds[256], i;
	long before, after, settled = -1, memlock = 0;
	char cg[64];
	bool memcg;

	if (copies > 64)
		copies = 64;
	memcg = cg_enter(cg, sizeof(cg), seq);
	before = memcg ? cg_read(cg, "memory.current") : -1;
	for (i = 0; i < copies; i++) {
		fds[i] = kind_create(kind, n);
		fill_batch(fds[i], keys, vals, n);
	}
	after = memcg ? cg_read(cg, "memory.current") : -1;
	if (memcg)
		settled = cg_read_settled(cg);
	for (i = 0; i < copies; i++) {
		memlock += fdinfo_memlock(fds[i]);
		close(fds[i]);
	}
	if (memcg)
		cg_leave(cg);
	printf("ipc-mem: kind=%s entries=%u copies=%d memlock_per_entry=%.2lf memcg_per_entry=%.2lf memcg_filled_per_entry=%.2lf\n",
	       kind_name[kind], n, copies, (double)memlock / copies / n,
	       memcg && before >= 0 && settled >= 0 ?
	       (double)(settled - before) / copies / n : -1.0,
	       memcg && before >= 0 && after >= 0 ?
	       (double)(after - before) / copies / n : -1.0);
}

static void mem_setup(void)
{
	static const __u32 def[] = { 1000, 10000, 100000, 1000000 };
	int s, kind, r, seq = 0;
	__u64 *keys, *vals;
	__u32 n, i;

	setup_libbpf();
	for (s = 0; s < (args.nr_sizes ?: 4); s++) {
		n = args.nr_sizes ? args.sizes[s] : def[s];
		keys = make_keys(n, NULL);
		vals = malloc(n * sizeof(*vals));
		if (!vals)
			die("malloc", -ENOMEM);
		for (i = 0; i < n; i++)
			vals[i] = i;
		for (r = 0; r < args.rounds; r++)
			for (kind = 0; kind < NR_KINDS; kind++)
				mem_one(kind, n, keys, vals, seq++);
		printf("ipc-mem: kind=kmulti-cookies entries=%u memlock_per_entry=16.00 memcg_per_entry=0.00\n",
		       n);
		free(keys);
		free(vals);
	}
	exit(0);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static void pct(long long *v, size_t n, const char *what)
{
	if (!n) {
		printf(" %s_n=0", what);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_ll);
	printf(" %s_n=%zu %s_p50_us=%.2lf %s_p99_us=%.2lf %s_max_us=%.2lf",
	       what, n, what, v[n / 2] / 1e3, what, v[n * 99 / 100] / 1e3,
	       what, v[n - 1] / 1e3);
}

static void populate_one(int kind, __u32 n, const __u64 *keys,
			 const __u64 *vals)
{
	long long *grow = malloc(n * sizeof(long long));
	long long *rest = malloc(n * sizeof(long long));
	size_t nr_grow = 0, nr_rest = 0;
	long ml, prev_ml;
	__u64 t0, t1, single, batch;
	__u32 i;
	int fd;

	if (!grow || !rest)
		die("malloc", -ENOMEM);
	/* One update at a time; an IP_COOKIE update that grows the index
	 * shows up as a memlock step bigger than one element.
	 */
	fd = kind_create(kind, n);
	prev_ml = fdinfo_memlock(fd);
	single = 0;
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (bpf_map_update_elem(fd, &keys[i], &vals[i], BPF_NOEXIST))
			die("bpf_map_update_elem", -errno);
		t1 = now_ns();
		single += t1 - t0;
		if (kind != K_IPC) {
			rest[nr_rest++] = t1 - t0;
			continue;
		}
		ml = fdinfo_memlock(fd);
		if (ml - prev_ml > 64)
			grow[nr_grow++] = t1 - t0;
		else
			rest[nr_rest++] = t1 - t0;
		prev_ml = ml;
	}
	close(fd);

	fd = kind_create(kind, n);
	t0 = now_ns();
	fill_batch(fd, keys, vals, n);
	batch = now_ns() - t0;
	close(fd);

	printf("ipc-populate: kind=%s entries=%u single_ns_per_op=%.1lf load_single_ms=%.3lf batch_ns_per_op=%.1lf load_batch_ms=%.3lf",
	       kind_name[kind], n, (double)single / n, single / 1e6,
	       (double)batch / n, batch / 1e6);
	if (kind == K_IPC)
		pct(grow, nr_grow, "grow");
	pct(rest, nr_rest, "other");
	printf("\n");
	free(grow);
	free(rest);
}

static void populate_setup(void)
{
	static const __u32 def[] = { 1000, 10000, 100000 };
	int s, kind, r;
	__u64 *keys, *vals;
	__u32 n, i;

	setup_libbpf();
	for (s = 0; s < (args.nr_sizes ?: 3); s++) {
		n = args.nr_sizes ? args.sizes[s] : def[s];
		keys = make_keys(n, NULL);
		vals = malloc(n * sizeof(*vals));
		if (!vals)
			die("malloc", -ENOMEM);
		for (i = 0; i < n; i++)
			vals[i] = i;
		for (r = 0; r < args.rounds; r++)
			for (kind = 0; kind < NR_KINDS; kind++)
				populate_one(kind, n, keys, vals);
		free(keys);
		free(vals);
	}
	exit(0);
}

/* kprobe.multi with cookies, or without cookies plus an IP_COOKIE map
 * filled by one batch before the attach (the order a tool would use).
 */
static void attach_one(struct bpf_program *prog, const __u64 *addrs,
		       __u32 n, bool map)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o);
	__u64 t0, t_fill = 0, t_attach, t_detach;
	struct bpf_link *link;
	__u64 *cookies;
	__u32 i;
	int fd = -1;

	cookies = malloc(n * sizeof(*cookies));
	if (!cookies)
		die("malloc", -ENOMEM);
	for (i = 0; i < n; i++)
		cookies[i] = i + 1;
	if (map) {
		t0 = now_ns();
		fd = create_map(BPF_MAP_TYPE_IP_COOKIE, 8, n, 0);
		fill_batch(fd, addrs, cookies, n);
		t_fill = now_ns() - t0;
	}
	o.addrs = (const unsigned long *)addrs;
	o.cookies = map ? NULL : cookies;
	o.cnt = n;
	t0 = now_ns();
	link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
	t_attach = now_ns() - t0;
	if (!link)
		die("attach kprobe.multi", -errno);
	t0 = now_ns();
	bpf_link__destroy(link);
	t_detach = now_ns() - t0;
	if (fd >= 0)
		close(fd);
	free(cookies);
	printf("ipc-attach: mode=%s funcs=%u attach_ms=%.3lf fill_ms=%.3lf detach_ms=%.3lf\n",
	       map ? "map" : "cookies", n, t_attach / 1e6, t_fill / 1e6,
	       t_detach / 1e6);
}

static void attach_setup(void)
{
	static const __u32 def[] = { 10000, 0 };
	size_t avail;
	__u64 *addrs;
	int s, r;
	__u32 n;

	open_skel();
	bpf_program__set_autoload(ctx.skel->progs.kmulti_empty, true);
	load_skel(ctx.skel->progs.trigger_driver, 1);
	addrs = attachable_funcs(&avail);
	printf("ipc-attach: attachable=%zu\n", avail);
	for (s = 0; s < (args.nr_sizes ?: 2); s++) {
		n = args.nr_sizes ? args.sizes[s] : def[s];
		if (!n || n > avail)
			n = avail;
		for (r = 0; r < args.rounds; r++) {
			attach_one(ctx.skel->progs.kmulti_empty, addrs, n, false);
			attach_one(ctx.skel->progs.kmulti_empty, addrs, n, true);
		}
	}
	exit(0);
}

#define ONESHOT(_name, _setup)						\
const struct bench bench_ipc_##_name = {				\
	.name = "ipc-" #_name,						\
	.argp = &bench_ip_cookie_argp,					\
	.validate = ipc_validate,					\
	.setup = _setup,						\
	.producer_thread = ipc_producer,				\
	.measure = ipc_measure,						\
	.report_progress = hits_drops_report_progress,			\
	.report_final = ipc_report_final,				\
}

/* These measure once in setup() and exit: they time single operations,
 * which the per-second sampling of the framework cannot.
 */
ONESHOT(mem, mem_setup);
ONESHOT(populate, populate_setup);
ONESHOT(attach, attach_setup);
