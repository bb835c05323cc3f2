// SPDX-License-Identifier: GPL-2.0
/* ipc_funccount: count calls of kernel functions, like BCC's funccount or
 * bpftrace's 'kprobe:PATTERN { @[probe] = count(); }', for any number of
 * functions with one kprobe.multi program: the per-function counters live
 * in a BPF_MAP_TYPE_IP_COOKIE map keyed by the function's address, which
 * the program gets from bpf_get_func_ip(). --cookie counts through
 * bpf_get_attach_cookie() and an ARRAY map instead, for comparison.
 */
#include "ipc_tools.h"
#include "ipc_funccount.skel.h"

static const char usage[] =
"usage: ipc_funccount [-v] [--cookie] [-i SECS] [-d SECS] [-n N] PATTERN...\n"
"\n"
"Count calls of the kernel functions matching the patterns, with one\n"
"kprobe.multi program and per-function counters in a BPF_MAP_TYPE_IP_COOKIE\n"
"map keyed by bpf_get_func_ip(). Runs until Ctrl-C or SIGTERM (or -d), then\n"
"prints the counts, most called first.\n"
"\n"
"  PATTERN     a glob on the names of the kernel's functions ('vfs_*');\n"
"              MODULE:PATTERN for the functions of a loaded module (MODULE\n"
"              may be a glob too)\n"
"  -i SECS     print the counts of the last SECS seconds every SECS seconds\n"
"  -d SECS     stop after SECS seconds\n"
"  -n N        print only the N most called functions\n"
"  --cookie    count through bpf_get_attach_cookie() and an ARRAY map\n"
"              instead of the IP_COOKIE map (same output)\n"
"  -v          resolution and attach details on stderr\n"
"  -h          this help\n"
"\n"
"A name defined more than once (static functions) is printed with the\n"
"address of each definition: NAME@ADDRESS; a module's functions as\n"
"MODULE:NAME.\n"
"\n"
"examples:\n"
"  ipc_funccount 'vfs_*' 'ksys_*'         until Ctrl-C\n"
"  ipc_funccount -i 1 -n 10 'tcp_*'       top 10 every second\n"
"  ipc_funccount -d 5 'xfs:xfs_file_*'    functions of a module, 5 s\n";

static struct {
	int interval;
	int duration;
	int top;
	bool cookie;
} env;

static struct ipc_func *funcs;
static size_t nr_funcs;

struct row {
	size_t idx;
	__u64 n;
};

/* The counter of every function, indexed like funcs[], into @cur. */
static int read_counts(struct ipc_funccount *skel, __u64 *keys, __u64 *vals,
		       __u64 *cur)
{
	__u32 *idx = (__u32 *)keys;
	size_t n = 0, i;
	long f;

	memset(cur, 0, nr_funcs * sizeof(*cur));
	if (env.cookie) {
		if (ipc_dump_map(bpf_map__fd(skel->maps.cookie_counts),
				 sizeof(__u32), sizeof(__u64), nr_funcs, idx,
				 vals, &n))
			return -1;
		for (i = 0; i < n; i++)
			if (idx[i] < nr_funcs)
				cur[idx[i]] = vals[i];
		return 0;
	}
	if (ipc_dump_map(bpf_map__fd(skel->maps.counts), sizeof(__u64),
			 sizeof(__u64), nr_funcs, keys, vals, &n))
		return -1;
	for (i = 0; i < n; i++) {
		f = ipc_find(funcs, nr_funcs, keys[i]);
		if (f >= 0)
			cur[f] = vals[i];
	}
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The calls since the last print, most called first. */
static void print_counts(const __u64 *cur, __u64 *prev, struct row *rows)
{
	size_t nr = 0, i;
	char label[800];

	for (i = 0; i < nr_funcs; i++) {
		if (cur[i] == prev[i])
			continue;
		rows[nr].idx = i;
		rows[nr].n = cur[i] - prev[i];
		prev[i] = cur[i];
		nr++;
	}
	qsort(rows, nr, sizeof(*rows), row_cmp);
	if (env.top && nr > (size_t)env.top)
		nr = env.top;
	printf("%12s %s\n", "COUNT", "FUNC");
	for (i = 0; i < nr; i++)
		printf("%12llu %s\n", rows[i].n,
		       ipc_label(&funcs[rows[i].idx], label, sizeof(label)));
	fflush(stdout);
}

static int tool_opt(int opt)
{
	if (opt != 'c')
		return -1;
	env.cookie = true;
	return 0;
}

static int parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cookie", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};

	return ipc_parse_args(argc, argv, "i:d:n:vh", longopts, usage,
			      &env.interval, &env.duration, &env.top, tool_opt);
}

int main(int argc, char **argv)
{
	__u64 *cur, *prev, *keys, *vals, *cookies = NULL;
	struct ipc_funccount *skel = NULL;
	struct bpf_program *prog;
	struct ipc_pattern *pats;
	struct ipc_clock clock;
	struct bpf_link *link;
	int npat, err, rc = 1;
	struct row *rows;
	size_t i;

	ipc_tool = "ipc_funccount";
	ipc_block_signals(&clock);
	err = parse_args(argc, argv);
	if (err)
		return err;
	libbpf_set_print(ipc_libbpf_print);

	pats = ipc_setup(argc, argv, &npat, &funcs, &nr_funcs);
	if (!pats)
		return 1;
	cur = calloc(nr_funcs, sizeof(*cur));
	prev = calloc(nr_funcs, sizeof(*prev));
	keys = calloc(nr_funcs, sizeof(*keys));
	vals = calloc(nr_funcs, sizeof(*vals));
	rows = calloc(nr_funcs, sizeof(*rows));
	if (!cur || !prev || !keys || !vals || !rows) {
		ipc_error("out of memory");
		return 1;
	}

	skel = ipc_funccount__open();
	if (!skel) {
		ipc_error("opening the BPF object: %s", strerror(errno));
		return 1;
	}
	prog = env.cookie ? skel->progs.ipc_fc_cookie : skel->progs.ipc_fc_map;
	bpf_program__set_autoload(env.cookie ? skel->progs.ipc_fc_map :
				  skel->progs.ipc_fc_cookie, false);
	if (env.cookie)
		bpf_map__set_max_entries(skel->maps.cookie_counts, nr_funcs);
	err = ipc_funccount__load(skel);
	if (err) {
		ipc_load_error(err);
		goto out;
	}
	if (env.cookie) {
		/* the cookie of a function is the index of its counter */
		cookies = calloc(nr_funcs, sizeof(*cookies));
		if (!cookies) {
			ipc_error("out of memory");
			goto out;
		}
		for (i = 0; i < nr_funcs; i++)
			cookies[i] = i;
	} else if (ipc_fill_map(bpf_map__fd(skel->maps.counts), funcs,
				nr_funcs, sizeof(__u64))) {
		goto out;
	}
	link = ipc_attach(prog, funcs, nr_funcs, cookies, false);
	if (!link)
		goto out;

	ipc_print_tracing(nr_funcs, pats, npat, env.duration);
	ipc_start_clock(&clock, env.interval, env.duration);
	while (ipc_wait(&clock) == IPC_TICK) {
		if (read_counts(skel, keys, vals, cur))
			goto out;
		ipc_print_time();
		print_counts(cur, prev, rows);
	}
	ipc_detach(link, prog);

	if (read_counts(skel, keys, vals, cur))
		goto out;
	if (env.interval)
		ipc_print_time();
	print_counts(cur, prev, rows);
	if (skel->bss->misses) {
		ipc_error("%llu calls found no counter %s", skel->bss->misses,
			  IPC_BAD_KEY);
		goto out;
	}
	rc = 0;
out:
	ipc_funccount__destroy(skel);
	return rc;
}
