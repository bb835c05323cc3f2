// SPDX-License-Identifier: GPL-2.0
/* The tools built on BPF_MAP_TYPE_IP_COOKIE (ipcookie_funccount and
 * ipcookie_funclatency of this repository's tools-extra/ipcookie, next to
 * test_progs in the VM), run the way a user runs them, on a glob of more
 * than a thousand functions, around a workload of known size: the counts
 * they print must be exact, in both of funccount's modes, under the right
 * names, and their errors must say what is wrong.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include "trace_helpers.h"
#include "ip_cookie_helpers.h"
#include <grp.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define FUNCCOUNT	"./ipcookie_funccount"
#define FUNCLATENCY	"./ipcookie_funclatency"

#define CALLS		1000	/* getpgid() calls */
#define SLEEPS		5	/* nanosleep() calls */
#define SLEEP_US	1000
/* For funclatency: in the row 262144 -> 524287 usecs, as a sleep cannot
 * end early and may end up to 261 ms late (TCG on a loaded host: 30 ms
 * seen).
 */
#define LONG_SLEEP_US	263000
#define LONG_SLEEP_ROW	262144
#define MIN_FUNCS	1000
#define TIMEOUT_MS	60000	/* for one step of a tool */

/* The syscalls and acpi_* (x86-64) or pci_* make it more than MIN_FUNCS
 * functions, few of them called while the test runs.
 */
#if defined(__x86_64__)
#define PATTERNS	IPC_SYS "*", "*getpgid*", "*nanosleep*", "acpi_*"
#else
#define PATTERNS	IPC_SYS "*", "*getpgid*", "*nanosleep*", "pci_*"
#endif

/* Functions the workload calls a known number of times. */
static const struct {
	const char *name;
	int calls;
} known[] = {
	{ IPC_SYS "getpgid", CALLS },
	{ "security_task_getpgid", CALLS },
	{ IPC_SYS "clock_nanosleep", SLEEPS },
	{ "hrtimer_nanosleep", SLEEPS },
	{ "do_nanosleep", SLEEPS },
};

struct tool {
	pid_t pid;
	int out_fd;
	int err_fd;
	char *out;
	char *err;
	size_t out_len;
	size_t err_len;
};

/* Start argv[0] with its stdout and stderr on pipes; as @uid unless 0. */
static int tool_start(struct tool *t, const char *const argv[], uid_t uid)
{
	int out[2], err[2];

	memset(t, 0, sizeof(*t));
	t->out = calloc(1, 1);
	t->err = calloc(1, 1);
	if (!ASSERT_OK_PTR(t->out, "calloc") || !ASSERT_OK_PTR(t->err, "calloc"))
		return -1;
	if (!ASSERT_OK(pipe2(out, O_CLOEXEC), "pipe") ||
	    !ASSERT_OK(pipe2(err, O_CLOEXEC), "pipe"))
		return -1;
	t->pid = fork();
	if (!ASSERT_GE(t->pid, 0, "fork"))
		return -1;
	if (!t->pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (uid && (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	t->out_fd = out[0];
	t->err_fd = err[0];
	return 0;
}

static int append(int fd, char **buf, size_t *len)
{
	char chunk[4096], *p;
	ssize_t n;

	n = read(fd, chunk, sizeof(chunk));
	if (n <= 0)
		return n;
	p = realloc(*buf, *len + n + 1);
	if (!p)
		return -1;
	memcpy(p + *len, chunk, n);
	*len += n;
	p[*len] = 0;
	*buf = p;
	return n;
}

/* Read the tool's output until stdout holds @needle (NULL: until both
 * pipes are closed). Blocks in poll(), not in a sleep, so that waiting
 * adds no calls of the sleep functions the tools count.
 */
static int tool_read(struct tool *t, const char *needle)
{
	struct pollfd fds[2];
	int n, i;

	while (t->out_fd >= 0 || t->err_fd >= 0) {
		if (needle && strstr(t->out, needle))
			return 0;
		fds[0].fd = t->out_fd;
		fds[1].fd = t->err_fd;
		fds[0].events = POLLIN;
		fds[1].events = POLLIN;
		n = poll(fds, 2, TIMEOUT_MS);
		if (n <= 0)
			return -ETIMEDOUT;
		for (i = 0; i < 2; i++) {
			int *fd = i ? &t->err_fd : &t->out_fd;

			if (!fds[i].revents)
				continue;
			if (append(*fd, i ? &t->err : &t->out,
				   i ? &t->err_len : &t->out_len) <= 0) {
				close(*fd);
				*fd = -1;
			}
		}
	}
	return needle && !strstr(t->out, needle) ? -ENOENT : 0;
}

/* Wait until the tool has attached ("Tracing N functions ..."). */
static int tool_ready(struct tool *t)
{
	int err = tool_read(t, "Hit Ctrl-C");

	if (err) {
		fprintf(stderr, "tool not ready (%d); stdout:\n%s\nstderr:\n%s\n",
			err, t->out, t->err);
		kill(t->pid, SIGKILL);
	}
	return err;
}

/* Send @sig (0: none), read everything, reap: the exit status, -1 if it did
 * not exit normally.
 */
static int tool_end(struct tool *t, int sig)
{
	int status;

	if (sig)
		kill(t->pid, sig);
	if (tool_read(t, NULL))
		kill(t->pid, SIGKILL);
	if (waitpid(t->pid, &status, 0) != t->pid)
		return -1;
	if (env.verbosity > VERBOSE_NONE || !WIFEXITED(status))
		fprintf(stderr, "stdout:\n%s\nstderr:\n%s\nstatus 0x%x\n",
			t->out, t->err, status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void tool_free(struct tool *t)
{
	free(t->out);
	free(t->err);
}

/* Run a tool to its end (errors, -d): its exit status. */
static int tool_run(struct tool *t, const char *const argv[], uid_t uid)
{
	if (tool_start(t, argv, uid))
		return -1;
	return tool_end(t, 0);
}

static void workload(long sleep_us)
{
	struct timespec ts = { 0, sleep_us * 1000 };
	int i;

	/* of another task than current: calls security_task_getpgid() */
	for (i = 0; i < CALLS; i++)
		syscall(SYS_getpgid, getppid());
	for (i = 0; i < SLEEPS; i++)
		nanosleep(&ts, NULL);
}

static bool have(const char *path)
{
	/* missing tools fail the test: it exists to run them */
	return ASSERT_OK(access(path, X_OK), path);
}

/* "Tracing N functions for ..." */
static long nr_traced(const char *out)
{
	const char *p = strstr(out, "Tracing ");

	return p ? strtol(p + 8, NULL, 10) : -1;
}

/* funccount's count of @label: the sum over all its rows ("%12llu LABEL"),
 * so over all intervals with -i.
 */
static long long fc_count(const char *out, const char *label)
{
	long long sum = 0, n;
	const char *line;
	char name[512];

	for (line = out; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (sscanf(line, " %lld %511s", &n, name) == 2 &&
		    !strcmp(name, label))
			sum += n;
	}
	return sum;
}

/* Number of interval headers "[HH:MM:SS]" */
static int nr_intervals(const char *out)
{
	const char *p;
	int n = 0;

	for (p = strstr(out, "\n["); p; p = strstr(p + 1, "\n["))
		n++;
	return n;
}

struct fl_hist {
	long long rows;		/* sum of the rows */
	long long count;	/* "count: N" */
	long long in_row;	/* in the row starting at @lo */
};

/* funclatency's histogram of @label, and the count in the row at @lo */
static int fl_hist(const char *out, const char *label, long long lo,
		   struct fl_hist *h)
{
	char head[600];
	long long a, b, n;
	const char *p;

	memset(h, 0, sizeof(*h));
	snprintf(head, sizeof(head), "\nFunction = %s\n", label);
	p = strstr(out, head);
	if (!p)
		return -ENOENT;
	for (p = strchr(p + 1, '\n'); p; p = strchr(p + 1, '\n')) {
		if (sscanf(p, " %lld -> %lld : %lld", &a, &b, &n) == 3) {
			h->rows += n;
			if (a == lo)
				h->in_row = n;
		} else if (sscanf(p, " avg = %*u %*s total: %*u %*s count: %lld",
				  &h->count) == 1) {
			return 0;
		}
	}
	return -EINVAL;
}

static long long map_counts[ARRAY_SIZE(known)];
static long map_funcs;

/* One run of funccount around the workload; its counts into @counts */
static void funccount_exact(bool cookie, long long *counts, long *nr)
{
	const char *const map[] = { FUNCCOUNT, "-v", PATTERNS, NULL };
	const char *const cookies[] = { FUNCCOUNT, "-v", "--cookie", PATTERNS,
					NULL };
	struct tool t;
	int i;

	if (!have(FUNCCOUNT) || tool_start(&t, cookie ? cookies : map, 0))
		return;
	if (tool_ready(&t))
		goto out;
	workload(SLEEP_US);
	ASSERT_EQ(tool_end(&t, SIGINT), 0, "exit status");
	*nr = nr_traced(t.out);
	ASSERT_GE(*nr, MIN_FUNCS, "functions traced");
	for (i = 0; i < ARRAY_SIZE(known); i++) {
		counts[i] = fc_count(t.out, known[i].name);
		if (!ASSERT_EQ(counts[i], known[i].calls, known[i].name))
			fprintf(stderr, "%s", t.out);
	}
	ASSERT_NULL(strstr(t.err, "no counter"), "misses");
	/* -v: the keys came from bpf_link__ip_cookie_keys() */
	ASSERT_OK_PTR(strstr(t.err, " keys from the link in "), "keys from the link");
out:
	tool_free(&t);
}

static void test_funccount_map(void)
{
	funccount_exact(false, map_counts, &map_funcs);
}

/* Same functions, same counts through bpf_get_attach_cookie() */
static void test_funccount_cookie(void)
{
	long long counts[ARRAY_SIZE(known)];
	long nr = -1;
	int i;

	funccount_exact(true, counts, &nr);
	if (!map_funcs)		/* funccount_map did not run (-t) */
		return;
	ASSERT_EQ(nr, map_funcs, "same functions");
	for (i = 0; i < ARRAY_SIZE(known); i++)
		ASSERT_EQ(counts[i], map_counts[i], known[i].name);
}

/* Rows of the first table in @out, -1 if none */
static int table_rows(const char *out)
{
	const char *p = strstr(out, "COUNT FUNC\n"), *eol;
	int rows = 0;

	if (!p)
		return -1;
	for (p += 11; *p == ' ' && (eol = strchr(p, '\n')); p = eol + 1)
		rows++;
	return rows;
}

/* -i: the counts of the intervals add up to the calls; -d ends the tool
 * by itself; -n caps the table (the tool's own syscalls are at least two
 * functions: write and rt_sigtimedwait).
 */
static void test_funccount_interval(void)
{
	const char *const argv[] = { FUNCCOUNT, "-i", "1", PATTERNS, NULL };
	const char *const dur[] = { FUNCCOUNT, "-d", "1", "-n", "1",
				    IPC_SYS "*", NULL };
	struct tool t;

	if (!have(FUNCCOUNT) || tool_start(&t, argv, 0))
		return;
	if (tool_ready(&t))
		goto out;
	workload(SLEEP_US);
	/* the rest after the next interval's table */
	if (!ASSERT_OK(tool_read(&t, "\n["), "first interval"))
		goto out;
	workload(SLEEP_US);
	ASSERT_EQ(tool_end(&t, SIGINT), 0, "exit status");
	ASSERT_GE(nr_intervals(t.out), 2, "intervals");
	ASSERT_EQ(fc_count(t.out, IPC_SYS "getpgid"), 2 * CALLS, "getpgid");
	ASSERT_EQ(fc_count(t.out, "do_nanosleep"), 2 * SLEEPS, "nanosleep");
	tool_free(&t);

	ASSERT_EQ(tool_run(&t, dur, 0), 0, "-d exit status");
	ASSERT_EQ(table_rows(t.out), 1, "-n 1");
out:
	tool_free(&t);
}

/* -u: every call in its histogram, the sleeps in the row of 263 ms */
static void test_funclatency(void)
{
	const char *const argv[] = { FUNCLATENCY, "-u", PATTERNS, NULL };
	struct fl_hist h;
	struct tool t;

	if (!have(FUNCLATENCY) || tool_start(&t, argv, 0))
		return;
	if (tool_ready(&t))
		goto out;
	workload(LONG_SLEEP_US);
	ASSERT_EQ(tool_end(&t, SIGINT), 0, "exit status");
	ASSERT_GE(nr_traced(t.out), MIN_FUNCS, "functions traced");
	ASSERT_OK_PTR(strstr(t.out, "usecs               : count    distribution"),
		      "header");

	if (ASSERT_OK(fl_hist(t.out, IPC_SYS "getpgid", 0, &h), "getpgid")) {
		ASSERT_EQ(h.count, CALLS, "getpgid count");
		ASSERT_EQ(h.rows, CALLS, "getpgid rows");
	}
	if (ASSERT_OK(fl_hist(t.out, "do_nanosleep", LONG_SLEEP_ROW, &h),
		      "nanosleep")) {
		ASSERT_EQ(h.count, SLEEPS, "nanosleep count");
		ASSERT_EQ(h.rows, SLEEPS, "nanosleep rows");
		ASSERT_EQ(h.in_row, SLEEPS, "262144 -> 524287 usecs");
	}
	ASSERT_NULL(strstr(t.err, "no histogram"), "misses");
out:
	tool_free(&t);
}

/* MODULE:PATTERN, with bpf_testmod (test_progs loads it when it is there):
 * each read of its sysfs file calls bpf_testmod_test_read() and
 * bpf_testmod_fentry_test1() once.
 */
static void test_module(void)
{
	const char *const argv[] = { FUNCCOUNT, "bpf_testmod:bpf_testmod_test_read",
			 "bpf_*:bpf_testmod_fentry_test1", NULL };
	char buf[16];
	struct tool t;
	int fd, i;

	if (!have(FUNCCOUNT))
		return;
	if (!env.has_testmod || access("/sys/kernel/bpf_testmod", R_OK)) {
		test__skip();	/* no bpf_testmod.ko for this kernel */
		return;
	}
	if (tool_start(&t, argv, 0))
		return;
	if (tool_ready(&t))
		goto out;
	fd = open("/sys/kernel/bpf_testmod", O_RDONLY);
	if (ASSERT_GE(fd, 0, "open bpf_testmod")) {
		for (i = 0; i < 10; i++)	/* always -EIO */
			ASSERT_EQ(pread(fd, buf, sizeof(buf), 0), -1, "read");
		close(fd);
	}
	ASSERT_EQ(tool_end(&t, SIGINT), 0, "exit status");
	ASSERT_EQ(fc_count(t.out, "bpf_testmod:bpf_testmod_test_read"), 10,
		  "bpf_testmod_test_read");
	ASSERT_EQ(fc_count(t.out, "bpf_testmod:bpf_testmod_fentry_test1"), 10,
		  "bpf_testmod_fentry_test1");
out:
	tool_free(&t);
}

static void read_file(const char *path)
{
	char buf[4096];
	int fd;

	fd = open(path, O_RDONLY);
	if (!ASSERT_GE(fd, 0, path))
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

/* A static name defined more than once: each definition is a function of
 * its own, printed as NAME@ADDRESS, the address being the key of that
 * definition, which must be the kallsyms address of an m_start. m_start()
 * is the seq_file start of /proc/modules (kernel/module/procfs.c) and of
 * /proc/self/mounts (fs/namespace.c), among others.
 */
static void test_duplicates(void)
{
	const char *const argv[] = { FUNCCOUNT, "m_start", NULL };
	struct ksyms *ksyms = NULL;
	struct ksym *ks;
	const char *p;
	struct tool t;
	int labels = 0;
	long addr;

	if (!have(FUNCCOUNT) || tool_start(&t, argv, 0))
		return;
	if (tool_ready(&t))
		goto out;
	read_file("/proc/modules");
	read_file("/proc/self/mounts");
	ASSERT_EQ(tool_end(&t, SIGINT), 0, "exit status");
	ASSERT_GE(nr_traced(t.out), 2, "definitions of m_start");
	ksyms = load_kallsyms_local();
	if (!ASSERT_OK_PTR(ksyms, "load_kallsyms_local"))
		goto out;
	for (p = strstr(t.out, " m_start@"); p; p = strstr(p + 1, " m_start@")) {
		labels++;
		addr = strtoul(p + 9, NULL, 16);
		ks = ksym_search_local(ksyms, addr);
		if (!ASSERT_OK_PTR(ks, "kallsyms symbol") ||
		    !ASSERT_EQ(ks->addr, addr, "symbol address") ||
		    !ASSERT_STREQ(ks->name, "m_start", "symbol name"))
			fprintf(stderr, "row: %.40s\n", p);
	}
	ASSERT_GE(labels, 2, "m_start@ADDRESS rows");
	ASSERT_NULL(strstr(t.out, " m_start\n"), "m_start without address");
out:
	free_kallsyms_local(ksyms);
	tool_free(&t);
}

/* One line on stderr holding @msg, nothing on stdout, exit status 1. */
static void check_error(const char *const argv[], uid_t uid,
			const char *msg)
{
	struct tool t;
	int rc;

	rc = tool_run(&t, argv, uid);
	if (!ASSERT_EQ(rc, 1, msg) ||
	    !ASSERT_OK_PTR(strstr(t.err, msg), msg) ||
	    !ASSERT_EQ(strchr(t.err, '\n') - t.err + 1, (long)t.err_len,
		       "one line") ||
	    !ASSERT_EQ(t.out_len, 0, "stdout"))
		fprintf(stderr, "%s: stderr '%s' stdout '%s'\n", argv[0],
			t.err, t.out);
	tool_free(&t);
}

static void errors_of(const char *tool)
{
	const char *const nomatch[] = { tool, "do_nanosleep",
					"no_such_func*", NULL };
	const char *const nomod[] = { tool, "no_such_mod:*", NULL };
	const char *const nomods[] = { tool, "no_such_mod*:*", NULL };
	const char *const plain[] = { tool, "do_nanosleep", NULL };
	const char *const badopt[] = { tool, "-i", "0", "do_nanosleep", NULL };
	char old[16] = "";
	struct tool t;
	int fd, n;

	if (!have(tool))
		return;
	check_error(nomatch, 0,
		    "no traceable function matches 'no_such_func*'");
	check_error(nomod, 0,
		    "module 'no_such_mod' is not loaded (see /proc/modules)");
	check_error(nomods, 0, "no loaded module matches 'no_such_mod*'");
	check_error(plain, 65534,
		    "bpf(): Operation not permitted: run as root (needs CAP_BPF and CAP_PERFMON)");

	fd = open("/proc/sys/kernel/kptr_restrict", O_RDWR);
	if (ASSERT_GE(fd, 0, "kptr_restrict")) {
		n = read(fd, old, sizeof(old) - 1);
		if (ASSERT_GT(n, 0, "read kptr_restrict") &&
		    ASSERT_EQ(pwrite(fd, "2\n", 2, 0), 2, "kptr_restrict=2")) {
			/* the link's keys are addresses */
			check_error(plain, 0,
				    "bpf_link__ip_cookie_keys(): kernel addresses hidden (kernel.kptr_restrict = 2): run as root with kernel.kptr_restrict 0 or 1");
			ASSERT_EQ(pwrite(fd, old, n, 0), n, "restore");
		}
		close(fd);
	}

	ASSERT_EQ(tool_run(&t, badopt, 0), 2, "usage status");
	ASSERT_OK_PTR(strstr(t.err, "-i wants a positive number, not '0'"),
		      "usage message");
	tool_free(&t);
}

static void test_errors(void)
{
	errors_of(FUNCCOUNT);
	errors_of(FUNCLATENCY);
}

/* Links whose program is @name */
static int links_of(const char *name)
{
	struct bpf_link_info info;
	struct bpf_prog_info prog;
	int n = 0, fd, pfd;
	__u32 id = 0, len;

	while (!bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_link_get_info_by_fd(fd, &info, &len)) {
			pfd = bpf_prog_get_fd_by_id(info.prog_id);
			memset(&prog, 0, sizeof(prog));
			len = sizeof(prog);
			if (pfd >= 0 &&
			    !bpf_prog_get_info_by_fd(pfd, &prog, &len) &&
			    info.type == BPF_LINK_TYPE_KPROBE_MULTI &&
			    !strcmp(prog.name, name))
				n++;
			if (pfd >= 0)
				close(pfd);
		}
		close(fd);
	}
	return n;
}

/* SIGTERM: the tool prints what it has, exits 0 and leaves no link. */
static void sigterm_of(const char *tool, const char *prog, const char *final)
{
	const char *const argv[] = { tool, PATTERNS, NULL };
	struct tool t;

	if (!have(tool) || tool_start(&t, argv, 0))
		return;
	if (tool_ready(&t))
		goto out;
	ASSERT_EQ(links_of(prog), 1, "link while running");
	syscall(SYS_getpgid, getppid());
	ASSERT_EQ(tool_end(&t, SIGTERM), 0, "exit status after SIGTERM");
	ASSERT_OK_PTR(strstr(t.out, final), "final output");
	ASSERT_EQ(links_of(prog), 0, "links after SIGTERM");
out:
	tool_free(&t);
}

static void test_sigterm(void)
{
	sigterm_of(FUNCCOUNT, "count_by_ip", " 1 " IPC_SYS "getpgid\n");
	sigterm_of(FUNCLATENCY, "time_by_ip", "Function = " IPC_SYS "getpgid\n");
}

/* Both tools trace with kprobe.multi or kprobe.session links. */
void test_ip_cookie_tools(void)
{
	if (test__start_subtest("funccount_map") && have_kprobe_multi())
		test_funccount_map();
	if (test__start_subtest("funccount_cookie") && have_kprobe_multi())
		test_funccount_cookie();
	if (test__start_subtest("funccount_interval") && have_kprobe_multi())
		test_funccount_interval();
	if (test__start_subtest("funclatency") && have_kprobe_multi())
		test_funclatency();
	if (test__start_subtest("module") && have_kprobe_multi())
		test_module();
	if (test__start_subtest("duplicates") && have_kprobe_multi())
		test_duplicates();
	if (test__start_subtest("errors") && have_kprobe_multi())
		test_errors();
	if (test__start_subtest("sigterm") && have_kprobe_multi())
		test_sigterm();
}
