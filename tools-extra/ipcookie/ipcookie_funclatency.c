// SPDX-License-Identifier: GPL-2.0
/* ipcookie_funclatency: latency histograms of kernel functions, like BCC's
 * funclatency -F, for any number of functions with one kprobe.session
 * program: each function's log2 histogram is the value of its entry in a
 * BPF_MAP_TYPE_IP_COOKIE map keyed by what bpf_get_func_ip() returns, the
 * keys that bpf_link__ip_cookie_keys() gives for the link.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ipcookie_common.h"
#include "ipcookie_funclatency.h"
#include "ipcookie_funclatency.skel.h"

static const char usage[] =
"usage: ipcookie_funclatency [-v] [-m|-u] [-i SECS] [-d SECS] [-n N] PATTERN...\n"
"\n"
"Time the calls of the kernel functions matching the patterns, with one\n"
"kprobe.session program and a log2 histogram per function in a\n"
"BPF_MAP_TYPE_IP_COOKIE map keyed by bpf_get_func_ip(). Runs until Ctrl-C\n"
"or SIGTERM (or -d), then prints a histogram per function called, most\n"
"called first.\n"
"\n"
"  PATTERN     a glob on the names of the kernel's functions ('vfs_*');\n"
"              MODULE:PATTERN for the functions of a loaded module (MODULE\n"
"              may be a glob too)\n"
"  -m          milliseconds (default: nanoseconds)\n"
"  -u          microseconds\n"
"  -i SECS     print the histograms of the last SECS seconds every SECS\n"
"              seconds\n"
"  -d SECS     stop after SECS seconds\n"
"  -n N        print only the N most called functions\n"
"  -v          matching, attach and fill details on stderr\n"
"  -h          this help\n"
"\n"
"A name defined more than once (static functions) is printed with the\n"
"address of each definition: NAME@ADDRESS; a module's functions as\n"
"MODULE:NAME.\n"
"\n"
"examples:\n"
"  ipcookie_funclatency -u 'vfs_*'                 until Ctrl-C\n"
"  ipcookie_funclatency -m -i 5 'do_nanosleep'     every 5 seconds\n"
"  ipcookie_funclatency -d 10 'ext4:ext4_file_*'   functions of a module, 10 s\n";

static struct {
	int interval;
	int duration;
	int top;
	__u64 unit_ns;
	const char *unit;
} env = { .unit_ns = 1, .unit = "nsecs" };

static struct ipcookie_funcs funcs;

struct row {
	size_t idx;
	__u64 n;
};

static int read_hists(struct ipcookie_funclatency *skel, __u64 *keys,
		      struct hist *vals, struct hist *cur)
{
	size_t n = 0, i;
	long f;

	memset(cur, 0, funcs.nr * sizeof(*cur));
	if (ipcookie_dump_map(bpf_map__fd(skel->maps.hists), sizeof(__u64),
			      sizeof(struct hist), funcs.nr, keys, vals, &n))
		return -1;
	for (i = 0; i < n; i++) {
		f = ipcookie_find(&funcs, keys[i]);
		if (f >= 0)
			cur[f] = vals[i];
	}
	return 0;
}

static void print_stars(__u64 val, __u64 max, int width)
{
	int n = max ? val * width / max : 0, i;

	for (i = 0; i < width; i++)
		putchar(i < n ? '*' : ' ');
}

/* The rows of BCC's and libbpf-tools' print_log2_hist() */
static void print_hist(const struct hist *h)
{
	int i, last = -1, width, stars;
	__u64 max = 0, lo, hi;

	for (i = 0; i < MAX_SLOTS; i++) {
		if (h->slots[i])
			last = i;
		if (h->slots[i] > max)
			max = h->slots[i];
	}
	width = last <= 32 ? 10 : 20;
	stars = last <= 32 ? 40 : 20;
	printf("%*s%-*s : count    distribution\n", width - 5, "",
	       width + 9, env.unit);
	for (i = 0; i <= last; i++) {
		lo = i ? 1ULL << i : 0;
		hi = (1ULL << (i + 1)) - 1;
		printf("%*llu -> %-*llu : %-8llu |", width, lo, width, hi,
		       h->slots[i]);
		print_stars(h->slots[i], max, stars);
		printf("|\n");
	}
	printf("avg = %llu %s, total: %llu %s, count: %llu\n",
	       h->sum / h->count, env.unit, h->sum, env.unit, h->count);
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The histograms of the calls since the last print, most called first. */
static void print_hists(const struct hist *cur, struct hist *prev,
			struct row *rows)
{
	size_t nr = 0, i;
	char label[800];
	struct hist d;
	int s;

	for (i = 0; i < funcs.nr; i++) {
		if (cur[i].count == prev[i].count)
			continue;
		rows[nr].idx = i;
		rows[nr].n = cur[i].count - prev[i].count;
		nr++;
	}
	qsort(rows, nr, sizeof(*rows), row_cmp);
	if (env.top && nr > (size_t)env.top)
		nr = env.top;
	for (i = 0; i < nr; i++) {
		const struct hist *c = &cur[rows[i].idx];
		struct hist *p = &prev[rows[i].idx];

		for (s = 0; s < MAX_SLOTS; s++)
			d.slots[s] = c->slots[s] - p->slots[s];
		d.count = c->count - p->count;
		d.sum = c->sum - p->sum;
		printf("\nFunction = %s\n",
		       ipcookie_label(&funcs, rows[i].idx, label,
				      sizeof(label)));
		print_hist(&d);
	}
	/* also the functions left out by -n */
	memcpy(prev, cur, funcs.nr * sizeof(*cur));
	fflush(stdout);
}

/* What one report reads and prints. */
struct report {
	struct ipcookie_funclatency *skel;
	__u64 *keys;
	struct hist *vals;
	struct hist *cur, *prev;
	struct row *rows;
};

static int report(void *ctx)
{
	struct report *r = ctx;

	if (read_hists(r->skel, r->keys, r->vals, r->cur))
		return -1;
	print_hists(r->cur, r->prev, r->rows);
	return 0;
}

static int tool_opt(int opt)
{
	switch (opt) {
	case 'm':
		env.unit_ns = 1000000;
		env.unit = "msecs";
		return 0;
	case 'u':
		env.unit_ns = 1000;
		env.unit = "usecs";
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const struct ipcookie_cmdline cl = {
		.tool = "ipcookie_funclatency", .optstring = "mui:d:n:vh",
		.longopts = longopts, .usage = usage, .tool_opt = tool_opt,
		.interval = &env.interval, .duration = &env.duration,
		.top = &env.top,
	};
	struct ipcookie_funclatency *skel = NULL;
	struct hist *cur, *prev, *vals;
	struct ipcookie_clock clock;
	struct bpf_link *link = NULL;
	struct bpf_program *prog;
	int err, rc = 1;
	struct report r;
	struct row *rows;
	__u64 *keys;

	err = ipcookie_start(&cl, argc, argv, &clock, &funcs);
	if (err)
		return err;
	cur = ipcookie_calloc(&funcs, sizeof(*cur));
	prev = ipcookie_calloc(&funcs, sizeof(*prev));
	vals = ipcookie_calloc(&funcs, sizeof(*vals));
	keys = ipcookie_calloc(&funcs, sizeof(*keys));
	rows = ipcookie_calloc(&funcs, sizeof(*rows));

	skel = ipcookie_funclatency__open();
	if (!skel) {
		ipcookie_error("opening the BPF object: %s", strerror(errno));
		return 1;
	}
	prog = skel->progs.time_by_ip;
	skel->data->unit_ns = env.unit_ns;
	/* the first index holds them all: filling grows nothing */
	bpf_map__set_map_extra(skel->maps.hists, funcs.nr);
	err = ipcookie_funclatency__load(skel);
	if (err) {
		ipcookie_load_error(err);
		goto out;
	}
	if (bpf_map__value_size(skel->maps.hists) != sizeof(struct hist)) {
		ipcookie_error("value size %u, want %zu",
			       bpf_map__value_size(skel->maps.hists),
			       sizeof(struct hist));
		goto out;
	}
	link = ipcookie_attach(prog, &funcs, false, true);
	if (!link || ipcookie_get_keys(link, &funcs) ||
	    ipcookie_fill_map(bpf_map__fd(skel->maps.hists), &funcs,
			      sizeof(struct hist)))
		goto out;
	/* only now: a return before would find no histogram */
	skel->bss->ready = true;

	r = (struct report){ skel, keys, vals, cur, prev, rows };
	rc = ipcookie_run(&funcs, &clock, env.interval, env.duration, &link,
			  prog, &skel->bss->early, &skel->bss->misses,
			  "returns found no histogram", report, &r);
out:
	bpf_link__destroy(link);
	ipcookie_funclatency__destroy(skel);
	return rc;
}
