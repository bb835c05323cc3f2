// SPDX-License-Identifier: GPL-2.0
/* Bytes per entry of BPF_MAP_TYPE_IP_COOKIE, against HASH with and
 * without preallocation and RHASH:
 *
 *   ipc-mem-{ipc,hash,hash-nopre,rhash}
 *	setup() joins a fresh cgroup, then creates maps of --ipc-entries
 *	8-byte keys (shuffled kernel text addresses) and 8-byte values and
 *	fills each by one batch update; small maps are created several
 *	times so that memcg's per-CPU charge batches stay below about 1%
 *	of what is measured.  Every second memory.current is sampled, as
 *	bench_htab_mem.c does; the warm-up lets what the maps free after a
 *	grace period (an IP_COOKIE map's replaced indexes) go.
 *
 * The final line gives, per entry: memlock (map_mem_usage, from fdinfo),
 * memcg (the cgroup's last sample over its reading before the maps) and
 * memcg right after filling.
 */
#include <argp.h>
#include <fcntl.h>
#include <stdio.h>
#include <linux/compiler.h>
#include "bench.h"
#include "bench_ip_cookie.h"
#include "cgroup_helpers.h"

#define MAX_COPIES	64

static struct {
	enum ipc_kind kind;
	int cg_fd;		/* -1: no memory cgroup, memcg not measured */
	int fds[MAX_COPIES];
	int copies;
	long memlock;		/* of all copies */
	long before;		/* memory.current before creating the maps */
	long filled;		/* right after the last update */
	bool final;		/* report_final() runs: no more samples */
} ctx = { .cg_fd = -1 };

static long read_memory_current(void)
{
	char buf[32];
	ssize_t got;
	int fd;

	if (ctx.cg_fd < 0 || READ_ONCE(ctx.final))
		return -1;
	fd = openat(ctx.cg_fd, "memory.current", O_RDONLY);
	if (fd < 0)
		return -1;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return -1;
	buf[got] = 0;
	return strtol(buf, NULL, 10);
}

static void mem_setup(enum ipc_kind kind)
{
	__u32 n = ipc_args.nr_entries, i;
	__u64 *keys, *vals;

	setup_libbpf();
	ctx.kind = kind;
	ctx.copies = n >= 1 << 18 ? 1 : (1 << 18) / n;
	if (ctx.copies > MAX_COPIES)
		ctx.copies = MAX_COPIES;
	/* Before joining the cgroup: the keys are not the maps' memory. */
	keys = ipc_make_keys(n, NULL);
	vals = malloc(n * sizeof(*vals));
	if (!vals)
		ipc_die("malloc", -ENOMEM);
	for (i = 0; i < n; i++)
		vals[i] = i;

	ctx.cg_fd = cgroup_setup_and_join("/ipc_mem");
	if (ctx.cg_fd < 0)
		fprintf(stderr, "ip_cookie bench: no memory cgroup, memlock only\n");
	ctx.before = read_memory_current();
	for (i = 0; i < ctx.copies; i++) {
		ctx.fds[i] = ipc_kind_create(kind, n);
		ipc_fill_batch(ctx.fds[i], keys, vals, n);
	}
	ctx.filled = read_memory_current();
	for (i = 0; i < ctx.copies; i++)
		ctx.memlock += map_memlock(ctx.fds[i]);
	free(keys);
	free(vals);
}

static void mem_measure(struct bench_res *res)
{
	/* as bench_htab_mem.c: memory.current in gp_ct */
	res->gp_ct = read_memory_current();
}

static double per_entry(long bytes)
{
	return (double)bytes / ctx.copies / ipc_args.nr_entries;
}

static void mem_report_progress(int iter, struct bench_res *res, long delta_ns)
{
	long cur = res->gp_ct;

	if (READ_ONCE(ctx.final))
		return;
	printf("Iter %3d (%7.3lfus): ", iter, (delta_ns - 1000000000) / 1000.0);
	if (cur < 0 || ctx.before < 0) {
		printf("no memory.current\n");
		return;
	}
	printf("memory usage %7.2lfMiB, %.2lf B per entry\n",
	       cur / 1048576.0, per_entry(cur - ctx.before));
}

static void mem_report_final(struct bench_res res[], int res_cnt)
{
	double mean = -1, sd = -1, x, settled = -1, filled = -1;
	int i;

	/* The timer keeps sampling while the maps and the cgroup go. */
	WRITE_ONCE(ctx.final, true);
	/* memcg figures only when memory.current could be read throughout */
	for (i = 0; i < res_cnt; i++)
		if ((long)res[i].gp_ct < 0)
			ctx.before = -1;
	if (ctx.before >= 0 && ctx.filled >= 0 && res_cnt > 0) {
		mean = 0;
		sd = 0;
		for (i = 0; i < res_cnt; i++)
			mean += per_entry(res[i].gp_ct - ctx.before) / res_cnt;
		for (i = 0; res_cnt > 1 && i < res_cnt; i++) {
			x = per_entry(res[i].gp_ct - ctx.before) - mean;
			sd += x * x / (res_cnt - 1);
		}
		sd = sqrt(sd);
		/* The last sample: the longest after what is freed late. */
		settled = per_entry(res[res_cnt - 1].gp_ct - ctx.before);
		filled = per_entry(ctx.filled - ctx.before);
	}
	printf("Summary: memlock %.2lf B/entry, memcg %.2lf \u00B1 %.2lf B/entry",
	       per_entry(ctx.memlock), mean, sd);
	printf(" (last %.2lf, filled %.2lf)\n", settled, filled);
	printf("ipc-mem: kind=%s entries=%u copies=%d",
	       ipc_kind_name(ctx.kind), ipc_args.nr_entries, ctx.copies);
	printf(" memlock_per_entry=%.2lf memcg_per_entry=%.2lf memcg_filled_per_entry=%.2lf\n",
	       per_entry(ctx.memlock), settled, filled);

	for (i = 0; i < ctx.copies; i++)
		close(ctx.fds[i]);
	if (ctx.cg_fd >= 0) {
		close(ctx.cg_fd);
		cleanup_cgroup_environment();
	}
}

#define MEM(_name, _str, _kind)						\
static void mem_##_name##_setup(void) { mem_setup(_kind); }		\
const struct bench bench_ipc_mem_##_name = {				\
	.name = "ipc-mem-" _str,					\
	.argp = &bench_ip_cookie_argp,					\
	.validate = ipc_validate,					\
	.setup = mem_##_name##_setup,					\
	.producer_thread = ipc_idle_producer,				\
	.measure = mem_measure,						\
	.report_progress = mem_report_progress,				\
	.report_final = mem_report_final,				\
}

MEM(ipc, "ipc", IPC_KIND_IPC);
MEM(hash, "hash", IPC_KIND_HASH);
MEM(hash_nopre, "hash-nopre", IPC_KIND_HASH_NOPRE);
MEM(rhash, "rhash", IPC_KIND_RHASH);
