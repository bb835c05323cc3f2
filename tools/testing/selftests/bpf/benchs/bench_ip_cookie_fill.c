// SPDX-License-Identifier: GPL-2.0
/* What it costs to give functions their data: filling an IP_COOKIE map
 * (against HASH and RHASH) and attaching kprobe.multi with cookies.  These
 * time single operations, which the per-second sampling of the framework
 * cannot: setup() measures once, report_final() prints the result.
 *
 *   ipc-populate-{ipc,hash,hash-nopre,rhash,ipc-hint}
 *	--ipc-entries updates one at a time into a fresh map, then one
 *	batch update into another, then deletes: one at a time from the
 *	first map, one batch from the second; an IP_COOKIE update that
 *	grows the index (a memlock step bigger than one element) is timed
 *	apart; inserts a map refuses are counted and reported ("ipc-fail:").
 *	ipc-hint: IP_COOKIE created with map_extra = --ipc-entries, as RHASH
 *	gets its size hint
 *   ipc-attach-{cookies,map}
 *	kprobe.multi on --ipc-funcs functions (0 = all attachable) with a
 *	cookie each, or without cookies after creating an IP_COOKIE map
 *	and filling it by one batch (the order a tool would use); detach
 */
#include <argp.h>
#include <stdio.h>
#include <linux/filter.h>
#include "bench.h"
#include "bench_ip_cookie.h"
#include "bpf_util.h"
#include "testing_helpers.h"

static struct {
	enum ipc_kind kind;
	__u64 single_ns;	/* all single updates */
	__u64 batch_ns;
	__u64 del_single_ns;	/* all single deletes */
	__u64 del_batch_ns;
	__u32 refused;		/* inserts refused, singles and batch */
	long long *grow;	/* ns of the updates that grew the index */
	long long *other;	/* ns of the other updates */
	size_t nr_grow;
	size_t nr_other;
} pop;

static void *xmalloc(size_t size)
{
	void *p = malloc(size);

	if (!p)
		ipc_die("malloc", -ENOMEM);
	return p;
}

/* Batch delete of @n keys, skipping those not in the map (refused by
 * the insert); returns how many were not found.
 */
static __u32 delete_batch(int fd, const __u64 *keys, __u32 n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	__u32 done = 0, absent = 0, cnt;
	int err;

	while (done < n) {
		cnt = n - done;
		err = bpf_map_delete_batch(fd, keys + done, &cnt, &o);
		if (!err && cnt == n - done)
			break;
		if (err != -ENOENT)
			ipc_die("bpf_map_delete_batch", err ?: -EIO);
		absent++;
		done += cnt + 1;
	}
	return absent;
}

static void populate_setup(enum ipc_kind kind)
{
	__u32 n = ipc_args.nr_entries, i, refused = 0, absent;
	__u64 t0, t1, *keys, *vals;
	long ml, prev_ml;
	bool *in;
	int fd, err;

	setup_libbpf();
	pop.kind = kind;
	keys = ipc_make_keys(n, NULL);
	vals = xmalloc(n * sizeof(*vals));
	pop.grow = xmalloc(n * sizeof(*pop.grow));
	pop.other = xmalloc(n * sizeof(*pop.other));
	in = xmalloc(n * sizeof(*in));
	for (i = 0; i < n; i++)
		vals[i] = i;

	fd = ipc_kind_create(kind, n);
	prev_ml = map_memlock(fd);
	for (i = 0; i < n; i++) {
		t0 = get_time_ns();
		err = bpf_map_update_elem(fd, &keys[i], &vals[i], BPF_NOEXIST);
		t1 = get_time_ns();
		/* RHASH: -EBUSY on a bucket's chain past its limit */
		if (err && err != -EBUSY)
			ipc_die("bpf_map_update_elem", err);
		in[i] = !err;
		refused += !!err;
		pop.single_ns += t1 - t0;
		if (kind != IPC_KIND_IPC && kind != IPC_KIND_IPC_HINT) {
			pop.other[pop.nr_other++] = t1 - t0;
			continue;
		}
		ml = map_memlock(fd);
		if (ml - prev_ml > 64)
			pop.grow[pop.nr_grow++] = t1 - t0;
		else
			pop.other[pop.nr_other++] = t1 - t0;
		prev_ml = ml;
	}
	if (refused)
		printf("ipc-fail: %s: %u of %u single inserts refused with -EBUSY\n",
		       env.bench_name, refused, n);
	for (i = 0; i < n; i++) {
		if (!in[i])
			continue;
		t0 = get_time_ns();
		if (bpf_map_delete_elem(fd, &keys[i]))
			ipc_die("bpf_map_delete_elem", -errno);
		pop.del_single_ns += get_time_ns() - t0;
	}
	close(fd);

	fd = ipc_kind_create(kind, n);
	t0 = get_time_ns();
	pop.refused = refused + ipc_fill_batch(fd, keys, vals, n);
	pop.batch_ns = get_time_ns() - t0;
	t0 = get_time_ns();
	absent = delete_batch(fd, keys, n);
	pop.del_batch_ns = get_time_ns() - t0;
	if (absent != pop.refused - refused)
		printf("ipc-fail: %s: batch delete missed %u keys, the batch insert refused %u\n",
		       env.bench_name, absent, pop.refused - refused);
	close(fd);
	free(keys);
	free(vals);
	free(in);
}

static void oneshot_measure(struct bench_res *res)
{
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

static void populate_report_final(struct bench_res res[], int res_cnt)
{
	__u32 n = ipc_args.nr_entries;

	printf("Summary: %s, %u entries: single update %.1lf ns/op, batch %.1lf ns/op\n",
	       ipc_kind_name(pop.kind), n, (double)pop.single_ns / n,
	       (double)pop.batch_ns / n);
	printf("ipc-populate: kind=%s entries=%u", ipc_kind_name(pop.kind), n);
	printf(" single_ns_per_op=%.1lf load_single_ms=%.3lf",
	       (double)pop.single_ns / n, pop.single_ns / 1e6);
	printf(" batch_ns_per_op=%.1lf load_batch_ms=%.3lf",
	       (double)pop.batch_ns / n, pop.batch_ns / 1e6);
	printf(" del_single_ns_per_op=%.1lf del_batch_ns_per_op=%.1lf refused=%u",
	       (double)pop.del_single_ns / n, (double)pop.del_batch_ns / n,
	       pop.refused);
	if (pop.kind == IPC_KIND_IPC || pop.kind == IPC_KIND_IPC_HINT)
		pct(pop.grow, pop.nr_grow, "grow");
	pct(pop.other, pop.nr_other, "other");
	printf("\n");
	free(pop.grow);
	free(pop.other);
}

#define POPULATE(_name, _str, _kind)					\
static void populate_##_name##_setup(void) { populate_setup(_kind); }	\
const struct bench bench_ipc_populate_##_name = {			\
	.name = "ipc-populate-" _str,					\
	.argp = &bench_ip_cookie_argp,					\
	.validate = ipc_validate,					\
	.setup = populate_##_name##_setup,				\
	.producer_thread = ipc_idle_producer,				\
	.measure = oneshot_measure,					\
	.report_final = populate_report_final,				\
}

POPULATE(ipc, "ipc", IPC_KIND_IPC);
POPULATE(hash, "hash", IPC_KIND_HASH);
POPULATE(hash_nopre, "hash-nopre", IPC_KIND_HASH_NOPRE);
POPULATE(rhash, "rhash", IPC_KIND_RHASH);
POPULATE(ipc_hint, "ipc-hint", IPC_KIND_IPC_HINT);

static struct {
	bool map;
	size_t attachable;
	__u32 n;
	__u64 fill_ns;
	__u64 attach_ns;
	__u64 detach_ns;
} att;

/* A kprobe.multi program that returns 0: attach does not look inside. */
static int load_kmulti_prog(void)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "ipc_attach", "GPL", insns,
			   ARRAY_SIZE(insns), &o);
	if (fd < 0)
		ipc_die("load kprobe.multi program", fd);
	return fd;
}

static void attach_setup(bool map)
{
	LIBBPF_OPTS(bpf_link_create_opts, o);
	int prog_fd, link_fd, fd = -1;
	__u64 t0, *addrs, *cookies;
	__u32 i, n;

	setup_libbpf();
	att.map = map;
	prog_fd = load_kmulti_prog();
	addrs = ipc_attachable_funcs(&att.attachable);
	n = ipc_args.nr_funcs;
	if (!n || n > att.attachable)
		n = att.attachable;
	att.n = n;
	cookies = xmalloc(n * sizeof(*cookies));
	for (i = 0; i < n; i++)
		cookies[i] = i + 1;
	if (map) {
		t0 = get_time_ns();
		fd = ipc_create_map(BPF_MAP_TYPE_IP_COOKIE, 8, n, 0);
		ipc_fill_batch(fd, addrs, cookies, n);
		att.fill_ns = get_time_ns() - t0;
	}
	o.kprobe_multi.addrs = (const unsigned long *)addrs;
	o.kprobe_multi.cookies = map ? NULL : cookies;
	o.kprobe_multi.cnt = n;
	t0 = get_time_ns();
	link_fd = bpf_link_create(prog_fd, 0, BPF_TRACE_KPROBE_MULTI, &o);
	att.attach_ns = get_time_ns() - t0;
	if (link_fd < 0)
		ipc_die("attach kprobe.multi", link_fd);
	t0 = get_time_ns();
	close(link_fd);
	att.detach_ns = get_time_ns() - t0;
	if (fd >= 0)
		close(fd);
	close(prog_fd);
	free(addrs);
	free(cookies);
}

static void attach_report_final(struct bench_res res[], int res_cnt)
{
	printf("Summary: %u functions, %s: attach %.3lf ms, fill %.3lf ms, detach %.3lf ms\n",
	       att.n, att.map ? "IP_COOKIE map" : "cookies",
	       att.attach_ns / 1e6, att.fill_ns / 1e6, att.detach_ns / 1e6);
	printf("ipc-attach: attachable=%zu\n", att.attachable);
	printf("ipc-attach: mode=%s funcs=%u attach_ms=%.3lf fill_ms=%.3lf detach_ms=%.3lf\n",
	       att.map ? "map" : "cookies", att.n, att.attach_ns / 1e6,
	       att.fill_ns / 1e6, att.detach_ns / 1e6);
}

#define ATTACH(_name, _map)						\
static void attach_##_name##_setup(void) { attach_setup(_map); }	\
const struct bench bench_ipc_attach_##_name = {				\
	.name = "ipc-attach-" #_name,					\
	.argp = &bench_ip_cookie_argp,					\
	.validate = ipc_validate,					\
	.setup = attach_##_name##_setup,				\
	.producer_thread = ipc_idle_producer,				\
	.measure = oneshot_measure,					\
	.report_final = attach_report_final,				\
}

ATTACH(cookies, false);
ATTACH(map, true);
