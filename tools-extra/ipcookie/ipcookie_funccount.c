// SPDX-License-Identifier: GPL-2.0
/* ipcookie_funccount: count calls of kernel functions, like BCC's
 * funccount or bpftrace's 'kprobe:PATTERN { @[probe] = count(); }', for
 * any number of functions with one kprobe.multi program: the per-function
 * counters live in a BPF_MAP_TYPE_IP_COOKIE map keyed by what
 * bpf_get_func_ip() returns, the keys that bpf_link__ip_cookie_keys()
 * gives for the link. --cookie counts through bpf_get_attach_cookie() and
 * an ARRAY map instead, for comparison.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ipcookie_common.h"
#include "ipcookie_funccount.skel.h"

static const char usage[] =
"usage: ipcookie_funccount [-v] [--cookie] [-i SECS] [-d SECS] [-n N] PATTERN...\n"
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
"  -v          matching, attach and fill details on stderr\n"
"  -h          this help\n"
"\n"
"A name defined more than once (static functions) is printed with the\n"
"address of each definition: NAME@ADDRESS; a module's functions as\n"
"MODULE:NAME.\n"
"\n"
"examples:\n"
"  ipcookie_funccount 'vfs_*' 'ksys_*'         until Ctrl-C\n"
"  ipcookie_funccount -i 1 -n 10 'tcp_*'       top 10 every second\n"
"  ipcookie_funccount -d 5 'xfs:xfs_file_*'    functions of a module, 5 s\n";

static struct {
	int interval;
	int duration;
	int top;
	bool cookie;
} env;

static struct ipcookie_funcs funcs;

struct row {
	size_t idx;
	__u64 n;
};

/* The counter of every function, indexed like funcs.f[], into @cur. */
static int read_counts(struct ipcookie_funccount *skel, __u64 *keys,
		       __u64 *vals, __u64 *cur)
{
	__u32 *idx = (__u32 *)keys;
	size_t n = 0, i;
	long f;

	memset(cur, 0, funcs.nr * sizeof(*cur));
	if (env.cookie) {
		if (ipcookie_dump_map(bpf_map__fd(skel->maps.cookie_counts),
				      sizeof(__u32), sizeof(__u64), funcs.nr,
				      idx, vals, &n))
			return -1;
		for (i = 0; i < n; i++)
			if (idx[i] < funcs.nr)
				cur[idx[i]] = vals[i];
		return 0;
	}
	if (ipcookie_dump_map(bpf_map__fd(skel->maps.counts), sizeof(__u64),
			      sizeof(__u64), funcs.nr, keys, vals, &n))
		return -1;
	for (i = 0; i < n; i++) {
		f = ipcookie_find(&funcs, keys[i]);
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

	for (i = 0; i < funcs.nr; i++) {
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
		       ipcookie_label(&funcs, rows[i].idx, label,
				      sizeof(label)));
	fflush(stdout);
}

/* What one report reads and prints. */
struct report {
	struct ipcookie_funccount *skel;
	__u64 *keys;
	__u64 *vals;
	__u64 *cur, *prev;
	struct row *rows;
};

static int report(void *ctx)
{
	struct report *r = ctx;

	if (read_counts(r->skel, r->keys, r->vals, r->cur))
		return -1;
	print_counts(r->cur, r->prev, r->rows);
	return 0;
}

static int tool_opt(int opt)
{
	if (opt != 'c')
		return -1;
	env.cookie = true;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cookie", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const struct ipcookie_cmdline cl = {
		.tool = "ipcookie_funccount", .optstring = "i:d:n:vh",
		.longopts = longopts, .usage = usage, .tool_opt = tool_opt,
		.interval = &env.interval, .duration = &env.duration,
		.top = &env.top,
	};
	struct ipcookie_funccount *skel = NULL;
	__u64 *cur, *prev, *keys, *vals;
	struct ipcookie_clock clock;
	struct bpf_link *link = NULL;
	struct bpf_program *prog;
	int err, rc = 1;
	struct report r;
	struct row *rows;

	err = ipcookie_start(&cl, argc, argv, &clock, &funcs);
	if (err)
		return err;
	cur = ipcookie_calloc(&funcs, sizeof(*cur));
	prev = ipcookie_calloc(&funcs, sizeof(*prev));
	keys = ipcookie_calloc(&funcs, sizeof(*keys));
	vals = ipcookie_calloc(&funcs, sizeof(*vals));
	rows = ipcookie_calloc(&funcs, sizeof(*rows));

	skel = ipcookie_funccount__open();
	if (!skel) {
		ipcookie_error("opening the BPF object: %s", strerror(errno));
		return 1;
	}
	prog = env.cookie ? skel->progs.count_by_cookie :
			    skel->progs.count_by_ip;
	bpf_program__set_autoload(env.cookie ? skel->progs.count_by_ip :
				  skel->progs.count_by_cookie, false);
	/* map_extra: the first index holds them all, filling grows nothing */
	if (env.cookie)
		bpf_map__set_max_entries(skel->maps.cookie_counts, funcs.nr);
	else
		bpf_map__set_map_extra(skel->maps.counts, funcs.nr);
	err = ipcookie_funccount__load(skel);
	if (err) {
		ipcookie_load_error(err);
		goto out;
	}
	/* The cookie of a function is the index of its counter. The keys
	 * serve the map, and in both modes the labels of duplicate names.
	 */
	link = ipcookie_attach(prog, &funcs, env.cookie, false);
	if (!link || ipcookie_get_keys(link, &funcs))
		goto out;
	if (!env.cookie &&
	    ipcookie_fill_map(bpf_map__fd(skel->maps.counts), &funcs,
			      sizeof(__u64)))
		goto out;
	/* only now: a hit before would find no counter */
	skel->bss->ready = true;

	r = (struct report){ skel, keys, vals, cur, prev, rows };
	rc = ipcookie_run(&funcs, &clock, env.interval, env.duration, &link,
			  prog, &skel->bss->early, &skel->bss->misses,
			  "calls found no counter", report, &r);
out:
	bpf_link__destroy(link);
	ipcookie_funccount__destroy(skel);
	return rc;
}
