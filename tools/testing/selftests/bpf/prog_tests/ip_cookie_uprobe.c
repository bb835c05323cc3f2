// SPDX-License-Identifier: GPL-2.0
/* Per-probe data for probes in a shared library, attached system-wide.
 * A library is mapped at a different address in every process, so
 * bpf_get_func_ip() cannot key its data; the probe's offset in the file,
 * bpf_get_uprobe_offset(), is the same in all of them.  Two copies of
 * liburandom_read.so (two files with the same offsets) are probed, and
 * urandom_read processes started before and after the attachment must find
 * their copy's values on every hit:
 *  - usdt_shared_lib: a USDT in each copy, {offset, link ID} keys (libbpf
 *    attaches USDTs through uprobe.multi links);
 *  - uprobe_offset: a single uprobe and a uretprobe (perf event links) on
 *    functions of one copy, 8-byte offset keys.
 *  - offset_per_attach_type: the verifier calls the kfunc's implementation
 *    for the program's attach type.
 * test_ip_cookie_uprobe_verifier: program types without a uprobe cannot
 * call the kfunc.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "ip_cookie_helpers.h"
#include "ip_cookie_uprobe.skel.h"

#define URANDOM_READ	"./urandom_read"
#define LIB_NAME	"liburandom_read.so"
#define NR_ITERS	7	/* urandom_read's loop: one hit per probe each */
#define MAX_KEYS	16
#define MAX_MAPS	8
/* The second process of each subtest runs with another stack rlimit than
 * the first, which moves its mmap base (arch_pick_mmap_layout()): its
 * libraries land elsewhere even with randomize_va_space=0.
 */
#define BIG_STACK	(1024ULL << 20)
#define SMALL_STACK	(8ULL << 20)

/* Values by copy and program: the programs count them by value >> 12. */
#define CLASS_A		0xa	/* USDT in a/'s copy */
#define CLASS_B		0xb	/* USDT in b/'s copy */
#define CLASS_UPROBE	0xc
#define CLASS_URETPROBE	0xd

/* Same as in progs/ip_cookie_uprobe.c */
struct ipu_proc {
	__u64 hits;
	__u64 misses;
	__u64 by_class[16];
	__u64 ip;
	__u64 offset;
	__u64 link_id;
	__u64 value;
	__u64 changed;
};

struct libs {
	char dir[32];			/* the mkdtemp() directory */
	char sub[2][64];		/* <dir>/a, <dir>/b */
	char path[2][96];		/* the copies of the library */
	char exe[PATH_MAX];		/* urandom_read, absolute */
};

struct lib_map {
	__u64 start;
	__u64 end;
	__u64 pgoff;
};

/* An urandom_read process: it prints its PID until we close @fd. */
struct urand {
	pid_t pid;
	bool running;			/* not waited for yet */
	int fd;
	int lib;			/* 0: uses a/'s copy, 1: b/'s */
	struct lib_map maps[MAX_MAPS];	/* its mappings of the library */
	int nr_maps;
};

static int copy_file(const char *from, const char *to)
{
	char buf[4096];
	int in, out, err = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			err = -EIO;
			break;
		}
	if (n < 0)
		err = -errno;
	close(in);
	if (close(out) && !err)
		err = -errno;
	return err;
}

static void free_libs(struct libs *l)
{
	int i;

	for (i = 0; i < 2; i++) {
		unlink(l->path[i]);
		rmdir(l->sub[i]);
	}
	rmdir(l->dir);
}

/* Two copies of the library: different files, identical offsets. */
static bool make_libs(struct libs *l)
{
	struct stat st[2];
	int i;

	memset(l, 0, sizeof(*l));
	if (!ASSERT_OK_PTR(realpath(URANDOM_READ, l->exe), "urandom_read"))
		return false;
	snprintf(l->dir, sizeof(l->dir), "/tmp/ip_cookie_uprobe.XXXXXX");
	if (!ASSERT_OK_PTR(mkdtemp(l->dir), "mkdtemp"))
		return false;
	for (i = 0; i < 2; i++) {
		snprintf(l->sub[i], sizeof(l->sub[i]), "%s/%c", l->dir, 'a' + i);
		snprintf(l->path[i], sizeof(l->path[i]), "%s/" LIB_NAME, l->sub[i]);
		if (!ASSERT_OK(mkdir(l->sub[i], 0755), "mkdir") ||
		    !ASSERT_OK(copy_file("./" LIB_NAME, l->path[i]), "copy_lib") ||
		    !ASSERT_OK(stat(l->path[i], &st[i]), "stat"))
			goto fail;
	}
	if (!ASSERT_NEQ(st[0].st_ino, st[1].st_ino, "two_files"))
		goto fail;
	return true;
fail:
	free_libs(l);
	return false;
}

/* Mappings of the library in @u; every mapping of a liburandom_read.so
 * must be of the copy @u was started with.
 */
static bool read_maps(struct urand *u, const struct libs *l)
{
	char name[64], line[PATH_MAX + 128], *path;
	unsigned long long start, end, pgoff;
	bool ok = true;
	FILE *f;
	int pos;

	snprintf(name, sizeof(name), "/proc/%d/maps", u->pid);
	f = fopen(name, "r");
	if (!ASSERT_OK_PTR(f, "open_maps"))
		return false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		pos = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n",
			   &start, &end, &pgoff, &pos) != 3 || !pos)
			continue;
		path = line + pos;
		if (!strstr(path, LIB_NAME))
			continue;
		if (!ASSERT_STREQ(path, l->path[u->lib], "mapped_copy")) {
			ok = false;
			continue;
		}
		if (!ASSERT_LT(u->nr_maps, MAX_MAPS, "nr_maps")) {
			ok = false;
			break;
		}
		u->maps[u->nr_maps++] = (struct lib_map){ start, end, pgoff };
	}
	fclose(f);
	return ASSERT_GT(u->nr_maps, 0, "library_mapped") && ok;
}

/* Offset in the library of address @ip of process @u, or ~0. */
static __u64 file_offset(const struct urand *u, __u64 ip)
{
	int i;

	for (i = 0; i < u->nr_maps; i++)
		if (ip >= u->maps[i].start && ip < u->maps[i].end)
			return ip - u->maps[i].start + u->maps[i].pgoff;
	return ~0ULL;
}

/* Start urandom_read on copy @lib, its stdout on a pipe, and wait until it
 * runs (prints its PID).  urandom_read's RUNPATH is ".", searched after
 * LD_LIBRARY_PATH (which the VM sets to test_progs' directory, also
 * holding the library): run it in the copy's directory with that
 * directory first in LD_LIBRARY_PATH, and read_maps() checks which file
 * it mapped.  @move_mmap: with another stack rlimit than ours.
 */
static bool spawn(struct urand *u, const struct libs *l, int lib,
		  bool move_mmap)
{
	char iters[16], env[PATH_MAX + 128], pid_line[32], *argv[4], *envp[2];
	const char *old = getenv("LD_LIBRARY_PATH");
	struct rlimit rl;
	int fds[2], n = 0;
	pid_t pid;

	u->lib = lib;
	u->nr_maps = 0;
	snprintf(iters, sizeof(iters), "%d", NR_ITERS);
	snprintf(env, sizeof(env), "LD_LIBRARY_PATH=%s%s%s", l->sub[lib],
		 old ? ":" : "", old ?: "");
	argv[0] = (char *)l->exe;
	argv[1] = iters;
	argv[2] = "report-pid";
	argv[3] = NULL;
	envp[0] = env;
	envp[1] = NULL;
	if (!ASSERT_OK(getrlimit(RLIMIT_STACK, &rl), "getrlimit"))
		return false;
	if (move_mmap) {
		rl.rlim_cur = rl.rlim_cur < BIG_STACK ? BIG_STACK : SMALL_STACK;
		/* root can raise it, others try their luck */
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
	}
	if (!ASSERT_OK(pipe2(fds, O_CLOEXEC), "pipe"))
		return false;
	pid = fork();
	if (pid == 0) {
		if (dup2(fds[1], STDOUT_FILENO) < 0 || chdir(l->sub[lib]))
			_exit(126);
		if (move_mmap)
			setrlimit(RLIMIT_STACK, &rl);
		execve(l->exe, argv, envp);
		_exit(127);
	}
	close(fds[1]);
	if (!ASSERT_GT(pid, 0, "fork")) {
		close(fds[0]);
		return false;
	}
	u->pid = pid;
	u->running = true;
	u->fd = fds[0];
	while (n < sizeof(pid_line) - 1 && read(u->fd, &pid_line[n], 1) == 1 &&
	       pid_line[n] != '\n')
		n++;
	pid_line[n] = 0;
	if (!ASSERT_EQ(atoi(pid_line), pid, "urandom_read_pid"))
		return false;
	return read_maps(u, l);
}

/* Let @u run its loop and exit. */
static void release(struct urand *u)
{
	int status;

	close(u->fd);
	u->fd = -1;
	if (ASSERT_EQ(waitpid(u->pid, &status, 0), u->pid, "waitpid"))
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status),
			    "urandom_read_exit");
	u->running = false;
}

/* Kill what a failed subtest left running. */
static void reap(struct urand *u, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (u[i].fd >= 0)
			close(u[i].fd);
		u[i].fd = -1;
		if (u[i].running) {
			kill(u[i].pid, SIGKILL);
			waitpid(u[i].pid, NULL, 0);
		}
		u[i].running = false;
	}
}

/* What process @u saw, from map @fd; false if it has no entry. */
static bool get_proc(int fd, const struct urand *u, struct ipu_proc *st)
{
	__u32 pid = u->pid;

	memset(st, 0, sizeof(*st));
	return !bpf_map_lookup_elem(fd, &pid, st);
}

/* Every run of a program in @u found a value of @class; its first run
 * came from the address @u has at st->offset in the library.
 */
static void check_proc(const struct urand *u, const struct ipu_proc *st,
		       int class)
{
	ASSERT_EQ(st->hits, NR_ITERS, "hits");
	ASSERT_EQ(st->misses, 0, "misses");
	ASSERT_EQ(st->by_class[class], NR_ITERS, "values_of_this_copy");
	ASSERT_EQ(st->value >> 12, class, "first_value");
	ASSERT_EQ(st->changed, 0, "same_probe_each_run");
	ASSERT_EQ(file_offset(u, st->ip), st->offset, "ip_at_offset");
}

static void print_layout(const char *test)
{
	int aslr = -1;
	FILE *f;

	f = fopen("/proc/sys/kernel/randomize_va_space", "r");
	if (f) {
		if (fscanf(f, "%d", &aslr) != 1)
			aslr = -1;
		fclose(f);
	}
	printf("%s: randomize_va_space %d", test, aslr);
}

/* One program, a USDT link on each copy of the library, system-wide.
 * P1 and P2 (a/) map the library before the links exist, P3 (a/) and P4
 * (b/) after.  Keys are {offset, link ID}, from bpf_link__ip_cookie_keys().
 */
static void test_usdt_shared_lib(void)
{
	struct bpf_ip_cookie_key keys[2][MAX_KEYS], scratch[MAX_KEYS];
	struct urand p[4] = { { .fd = -1 }, { .fd = -1 }, { .fd = -1 },
			      { .fd = -1 } };
	struct bpf_link *links[2] = {};
	struct ip_cookie_uprobe *skel;
	struct ipu_proc st[4];
	__u64 vals[2][MAX_KEYS];
	size_t nr[2], room;
	int fd, i, j, err;
	struct libs l;
	__u32 cnt;

	if (!make_libs(&l))
		return;
	skel = ip_cookie_uprobe__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		goto out_libs;
	/* bpf_get_attach_link_id() needs the uprobe.multi link libbpf uses
	 * for USDTs where the kernel has it.
	 */
	if (!ASSERT_EQ(bpf_program__expected_attach_type(skel->progs.usdt_hit),
		       BPF_TRACE_UPROBE_MULTI, "usdt_on_uprobe_multi"))
		goto out;
	fd = bpf_map__fd(skel->maps.usdt_keys);

	if (!spawn(&p[0], &l, 0, false) || !spawn(&p[1], &l, 0, true))
		goto out;

	for (i = 0; i < 2; i++) {
		links[i] = bpf_program__attach_usdt(skel->progs.usdt_hit, -1,
						    l.path[i], "urandlib",
						    "read_without_sema", NULL);
		if (!ASSERT_OK_PTR(links[i], "attach_usdt"))
			goto out;
		nr[i] = MAX_KEYS;
		err = bpf_link__ip_cookie_keys(links[i], keys[i],
					       sizeof(keys[i][0]), &nr[i]);
		if (!ASSERT_OK(err, "ip_cookie_keys") ||
		    !ASSERT_GT(nr[i], 0, "nr_keys"))
			goto out;
		for (j = 0; j < nr[i]; j++)
			vals[i][j] = ((i ? CLASS_B : CLASS_A) << 12) + j;
		cnt = nr[i];
		err = bpf_map_update_batch(fd, keys[i], vals[i], &cnt, NULL);
		if (!ASSERT_OK(err, "update_batch") ||
		    !ASSERT_EQ(cnt, nr[i], "updated"))
			goto out;
	}
	room = 0;
	ASSERT_EQ(bpf_link__ip_cookie_keys(links[0], scratch,
					   sizeof(scratch[0]), &room),
		  -ENOSPC, "no_room");
	ASSERT_EQ(room, nr[0], "room_needed");

	/* Same offsets in both copies, one link ID per copy. */
	if (!ASSERT_EQ(nr[0], nr[1], "same_nr_keys"))
		goto out;
	for (j = 0; j < nr[0]; j++) {
		ASSERT_EQ(keys[0][j].ip, keys[1][j].ip, "same_offset");
		ASSERT_EQ(keys[0][j].link_id, keys[0][0].link_id, "a_link_id");
		ASSERT_EQ(keys[1][j].link_id, keys[1][0].link_id, "b_link_id");
		ASSERT_EQ(keys[0][j].reserved | keys[1][j].reserved, 0,
			  "reserved");
	}
	ASSERT_NEQ(keys[0][0].link_id, 0, "link_id");
	ASSERT_NEQ(keys[0][0].link_id, keys[1][0].link_id, "two_links");

	release(&p[0]);
	release(&p[1]);
	if (!spawn(&p[2], &l, 0, false) || !spawn(&p[3], &l, 1, false))
		goto out;
	release(&p[2]);
	release(&p[3]);

	for (i = 0; i < 4; i++) {
		int lib = p[i].lib;

		if (!ASSERT_TRUE(get_proc(bpf_map__fd(skel->maps.procs), &p[i],
					  &st[i]), "process_seen"))
			goto out;
		check_proc(&p[i], &st[i], lib ? CLASS_B : CLASS_A);
		ASSERT_EQ(st[i].link_id, keys[lib][0].link_id, "link_of_copy");
		for (j = 0; j < nr[lib]; j++)
			if (keys[lib][j].ip == st[i].offset)
				break;
		if (ASSERT_LT(j, nr[lib], "offset_is_a_key"))
			ASSERT_EQ(st[i].value, vals[lib][j], "value_of_key");
	}
	print_layout(__func__);
	printf(", P1 at 0x%llx, P2 at 0x%llx, offset 0x%llx\n",
	       st[0].ip, st[1].ip, st[0].offset);
	ASSERT_NEQ(st[0].ip, st[1].ip, "different_addresses");
	ASSERT_EQ(st[0].offset, st[1].offset, "same_offset_p1_p2");
	ASSERT_EQ(st[0].offset, st[3].offset, "same_offset_a_b");
out:
	reap(p, ARRAY_SIZE(p));
	for (i = 0; i < 2; i++)
		bpf_link__destroy(links[i]);
	ip_cookie_uprobe__destroy(skel);
out_libs:
	free_libs(&l);
}

/* A uprobe and a uretprobe on two functions of a/'s copy, perf event
 * links, pid -1: 8-byte offset keys.  P1 (a/) is started before the
 * attachment, P2 (a/) and P3 (b/, not probed) after.
 */
static void test_uprobe_offset(void)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts);
	struct urand p[3] = { { .fd = -1 }, { .fd = -1 }, { .fd = -1 } };
	__u64 keys[2], vals[2] = { CLASS_UPROBE << 12, CLASS_URETPROBE << 12 };
	struct bpf_link *up = NULL, *ret = NULL;
	struct bpf_ip_cookie_key wide;
	struct ip_cookie_uprobe *skel;
	struct ipu_proc st[2], rst;
	size_t n;
	__u32 cnt;
	struct libs l;
	int i;

	if (!make_libs(&l))
		return;
	skel = ip_cookie_uprobe__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		goto out_libs;
	if (!spawn(&p[0], &l, 0, false))
		goto out;

	opts.func_name = "urandlib_read_without_sema";
	up = bpf_program__attach_uprobe_opts(skel->progs.offset_uprobe, -1,
					     l.path[0], 0, &opts);
	opts.func_name = "urandlib_read_with_sema";
	opts.retprobe = true;
	ret = bpf_program__attach_uprobe_opts(skel->progs.offset_uretprobe, -1,
					      l.path[0], 0, &opts);
	if (!ASSERT_OK_PTR(up, "attach_uprobe") ||
	    !ASSERT_OK_PTR(ret, "attach_uretprobe"))
		goto out;
	n = 1;
	if (!ASSERT_OK(bpf_link__ip_cookie_keys(up, &keys[0], sizeof(keys[0]), &n),
		       "uprobe_key") || !ASSERT_EQ(n, 1, "one_uprobe_key"))
		goto out;
	n = 1;
	if (!ASSERT_OK(bpf_link__ip_cookie_keys(ret, &keys[1], sizeof(keys[1]), &n),
		       "uretprobe_key") || !ASSERT_EQ(n, 1, "one_uretprobe_key"))
		goto out;
	/* A perf event link has no ID a program can read. */
	n = 1;
	ASSERT_EQ(bpf_link__ip_cookie_keys(up, &wide, sizeof(wide), &n),
		  -EOPNOTSUPP, "no_link_id_keys");
	ASSERT_NEQ(keys[0], keys[1], "two_functions");
	cnt = 2;
	if (!ASSERT_OK(bpf_map_update_batch(bpf_map__fd(skel->maps.offset_keys),
					    keys, vals, &cnt, NULL), "update_batch"))
		goto out;

	release(&p[0]);
	if (!spawn(&p[1], &l, 0, true) || !spawn(&p[2], &l, 1, false))
		goto out;
	release(&p[1]);
	release(&p[2]);

	for (i = 0; i < 2; i++) {
		if (!ASSERT_TRUE(get_proc(bpf_map__fd(skel->maps.procs), &p[i],
					  &st[i]), "uprobe_seen") ||
		    !ASSERT_TRUE(get_proc(bpf_map__fd(skel->maps.ret_procs),
					  &p[i], &rst), "uretprobe_seen"))
			goto out;
		check_proc(&p[i], &st[i], CLASS_UPROBE);
		ASSERT_EQ(st[i].offset, keys[0], "uprobe_offset");
		check_proc(&p[i], &rst, CLASS_URETPROBE);
		ASSERT_EQ(rst.offset, keys[1], "uretprobe_function_offset");
	}
	print_layout(__func__);
	printf(", P1 at 0x%llx, P2 at 0x%llx, offset 0x%llx\n",
	       st[0].ip, st[1].ip, st[0].offset);
	ASSERT_NEQ(st[0].ip, st[1].ip, "different_addresses");
	/* b/'s copy is another file: its process hit nothing. */
	ASSERT_FALSE(get_proc(bpf_map__fd(skel->maps.procs), &p[2], &rst),
		     "other_copy_uprobe");
	ASSERT_FALSE(get_proc(bpf_map__fd(skel->maps.ret_procs), &p[2], &rst),
		     "other_copy_uretprobe");
out:
	reap(p, ARRAY_SIZE(p));
	bpf_link__destroy(ret);
	bpf_link__destroy(up);
	ip_cookie_uprobe__destroy(skel);
out_libs:
	free_libs(&l);
}

/* The verifier resolves bpf_get_uprobe_offset() per attach type, so that
 * no run-time guess picks the run context it reads: the call of a
 * uprobe.multi program (usdt_hit, next to its bpf_get_attach_link_id())
 * goes to the implementation that reads struct bpf_uprobe_multi_run_ctx,
 * those of perf event uprobes to the kfunc itself, which reads struct
 * bpf_trace_run_ctx.
 */
static void test_offset_per_attach_type(void)
{
	const char *umulti[2] = { "bpf_uprobe_multi_offset",
				  "bpf_uprobe_multi_link_id" };
	struct bpf_program *perf[2];
	struct ip_cookie_uprobe *skel;
	__u64 addrs[4];
	int i, j, n;

	if (!ASSERT_OK(load_kallsyms(), "load_kallsyms"))
		return;
	skel = ip_cookie_uprobe__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	n = kfunc_call_targets(skel->progs.usdt_hit, addrs, ARRAY_SIZE(addrs));
	if (n == -2) {
		test__skip();
		goto out;
	}
	if (!ASSERT_EQ(n, 2, "usdt_kfunc_calls"))
		goto out;
	/* In either order: the compiler picks it for the key's fields. */
	for (j = 0; j < 2; j++) {
		for (i = 0; i < n; i++)
			if (addrs[i] == ksym_get_addr(umulti[j]))
				break;
		if (!ASSERT_LT(i, n, umulti[j]))
			printf("%s: usdt_hit calls %s and %s\n", __func__,
			       ksym_search(addrs[0])->name,
			       ksym_search(addrs[1])->name);
	}
	perf[0] = skel->progs.offset_uprobe;
	perf[1] = skel->progs.offset_uretprobe;
	for (i = 0; i < ARRAY_SIZE(perf); i++) {
		n = kfunc_call_targets(perf[i], addrs, ARRAY_SIZE(addrs));
		if (!ASSERT_EQ(n, 1, "perf_kfunc_calls"))
			continue;
		ASSERT_EQ(addrs[0], ksym_get_addr("bpf_get_uprobe_offset"),
			  bpf_program__name(perf[i]));
	}
out:
	ip_cookie_uprobe__destroy(skel);
}

void test_ip_cookie_uprobe(void)
{
	if (test__start_subtest("usdt_shared_lib"))
		test_usdt_shared_lib();
	if (test__start_subtest("uprobe_offset"))
		test_uprobe_offset();
	if (test__start_subtest("offset_per_attach_type"))
		test_offset_per_attach_type();
}

void test_ip_cookie_uprobe_verifier(void)
{
	RUN_TESTS(ip_cookie_uprobe);
}
