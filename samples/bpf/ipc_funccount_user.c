// SPDX-License-Identifier: GPL-2.0
/* ipc_funccount: count calls of the kernel functions matching a pattern,
 * like bpftrace 'kprobe:PATTERN { @[probe] = count(); }', with one
 * kprobe.multi program and no cookies: per-function counters live in a
 * BPF_MAP_TYPE_IP_COOKIE map keyed by the function address.
 *
 *   ipc_funccount [-d seconds] [-n top] PATTERN
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ipc_funccount.skel.h"

struct func {
	unsigned long long addr;
	char name[128];
	unsigned long long count;
};

static struct func *funcs;
static size_t nr_funcs;

/* Text symbols of the kernel image matching @pattern, from kallsyms:
 * their address is what bpf_get_func_ip() returns.
 */
static int load_funcs(const char *pattern)
{
	char line[256], name[128], type;
	unsigned long long addr;
	size_t cap = 0;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
			continue;
		if ((type != 't' && type != 'T') || strchr(line, '[') ||
		    fnmatch(pattern, name, 0))
			continue;
		if (nr_funcs == cap) {
			struct func *p;

			cap = cap ? 2 * cap : 256;
			p = realloc(funcs, cap * sizeof(*funcs));
			if (!p) {
				fclose(f);
				return -ENOMEM;
			}
			funcs = p;
		}
		funcs[nr_funcs].addr = addr;
		funcs[nr_funcs].count = 0;
		snprintf(funcs[nr_funcs].name, sizeof(funcs[nr_funcs].name),
			 "%s", name);
		nr_funcs++;
	}
	fclose(f);
	return nr_funcs ? 0 : -ENOENT;
}

static int by_count(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	int opt, secs = 5, top = 20, err, fd;
	struct ipc_funccount *skel;
	unsigned long long *keys, *vals;
	struct bpf_link *link;
	__u32 n;
	size_t i;

	while ((opt = getopt(argc, argv, "d:n:")) != -1) {
		if (opt == 'd')
			secs = atoi(optarg);
		else if (opt == 'n')
			top = atoi(optarg);
		else
			goto usage;
	}
	if (optind != argc - 1)
		goto usage;

	err = load_funcs(argv[optind]);
	if (err) {
		fprintf(stderr, "no kernel function matches '%s' (%d)\n",
			argv[optind], err);
		return 1;
	}
	skel = ipc_funccount__open_and_load();
	if (!skel) {
		fprintf(stderr, "load: %d\n", -errno);
		return 1;
	}
	fd = bpf_map__fd(skel->maps.counts);

	/* One batch update: the map grows once, whatever the count. */
	keys = calloc(nr_funcs, sizeof(*keys));
	vals = calloc(nr_funcs, sizeof(*vals));
	if (!keys || !vals)
		return 1;
	for (i = 0; i < nr_funcs; i++)
		keys[i] = funcs[i].addr;
	n = nr_funcs;
	err = bpf_map_update_batch(fd, keys, vals, &n, NULL);
	if (err) {
		fprintf(stderr, "fill: %d after %u entries\n", err, n);
		return 1;
	}

	/* kprobe.multi resolves the same pattern; no cookies needed. */
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.count,
						     argv[optind], &opts);
	if (!link) {
		fprintf(stderr, "attach '%s': %d\n", argv[optind], -errno);
		return 1;
	}
	printf("counting %zu functions for %d s\n", nr_funcs, secs);
	sleep(secs);
	bpf_link__destroy(link);

	for (i = 0; i < nr_funcs; i++)
		if (bpf_map_lookup_elem(fd, &funcs[i].addr, &funcs[i].count))
			funcs[i].count = 0;
	qsort(funcs, nr_funcs, sizeof(*funcs), by_count);
	for (i = 0; i < nr_funcs && (int)i < top && funcs[i].count; i++)
		printf("%12llu %s\n", funcs[i].count, funcs[i].name);
	printf("calls to attached functions without an entry: %llu\n",
	       (unsigned long long)skel->bss->misses);
	ipc_funccount__destroy(skel);
	return 0;
usage:
	fprintf(stderr, "usage: %s [-d seconds] [-n top] PATTERN\n", argv[0]);
	return 2;
}
