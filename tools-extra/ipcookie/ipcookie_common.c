// SPDX-License-Identifier: GPL-2.0
/* What ipcookie_funccount and ipcookie_funclatency share.
 *
 * A pattern is expanded over the traceable functions that
 * /sys/kernel/tracing/available_filter_functions_addrs lists with their
 * ftrace sites ("addr name [mod]", what libbpf reads for a kprobe.multi
 * glob). The tool attaches one link to those addresses, in address order,
 * so that a static name defined several times gives several functions.
 * The keys are then not computed here: bpf_link__ip_cookie_keys() returns,
 * for the i-th address of the link, what bpf_get_func_ip() returns there
 * (the function's entry, before the ENDBR that an ftrace site follows under
 * IBT), and the i-th function's name is the one the file gave for that
 * address. No kallsyms lookup is involved.
 *
 * The program runs as soon as the link exists, before the map holds the
 * keys: the tools' programs do nothing until their "ready" flag, set after
 * the one batch update that fills the map (see ipcookie_fill_map()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ipcookie_common.h"

#define AVAIL_ADDRS	"/sys/kernel/tracing/available_filter_functions_addrs"
#define MODULES		"/proc/modules"
#define KPTR_RESTRICT	"/proc/sys/kernel/kptr_restrict"
/* what the file names a record that is no function (kernel/trace/ftrace.c) */
#define INVALID_FUNC	"__ftrace_invalid_address__"

#define ROOT_HINT	"run as root (needs CAP_BPF and CAP_PERFMON)"
#define KPTR_HINT	"run as root with kernel.kptr_restrict 0 or 1"
#define MISSED_WHY	"the kernel missed them (recursion, or out of return probes)"
#define KEYS_FN		"bpf_link__ip_cookie_keys()"

const char *ipcookie_tool = "ipcookie";
bool ipcookie_verbose;

/* PATTERN or MODULE:PATTERN */
struct pattern {
	const char *arg;	/* as given */
	char *mod;		/* module glob ('-' read as '_'); NULL: kernel */
	char *func;		/* function glob */
	size_t hits;
};

int ipcookie_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ipcookie_tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (!ipcookie_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static __u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* A positive number (seconds, or a count) from an option; -1 if invalid. */
static int parse_pos(const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v <= 0 || v > INT_MAX / 1000)
		return -1;
	return v;
}

/* The options of @cl and at least one pattern. Returns 0, or the exit
 * status for a bad command line.
 */
static int parse_args(const struct ipcookie_cmdline *cl, int argc,
		      char **argv)
{
	int opt, *v;

	while ((opt = getopt_long(argc, argv, cl->optstring, cl->longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'i':
		case 'd':
		case 'n':
			v = opt == 'i' ? cl->interval :
			    opt == 'd' ? cl->duration : cl->top;
			*v = parse_pos(optarg);
			if (*v < 0) {
				ipcookie_error("-%c wants a positive number, not '%s'",
					       opt, optarg);
				return 2;
			}
			break;
		case 'v':
			ipcookie_verbose = true;
			break;
		case 'h':
			fputs(cl->usage, stdout);
			exit(0);
		default:
			if (!cl->tool_opt(opt))
				break;
			fputs(cl->usage, stderr);
			return 2;
		}
	}
	if (optind == argc) {
		fputs(cl->usage, stderr);
		return 2;
	}
	libbpf_set_print(libbpf_print);
	return 0;
}

/* Before anything else: can we load a kprobe program at all, and does the
 * kernel have the map? An unprivileged user gets this message rather than
 * one about an unreadable tracefs.
 */
static int check_bpf(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd, err;

	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, NULL);
	if (fd < 0) {
		err = -fd;
		if (err == EPERM || err == EACCES)
			return ipcookie_error("bpf(): %s: %s", strerror(err),
					      ROOT_HINT);
		return ipcookie_error("cannot load a kprobe program: %s",
				      strerror(err));
	}
	close(fd);
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_IP_COOKIE, NULL) != 1)
		return ipcookie_error("this kernel has no BPF_MAP_TYPE_IP_COOKIE");
	return 0;
}

static int parse_patterns(char **args, int nr, struct pattern *pats)
{
	char *colon, *p;
	int i;

	for (i = 0; i < nr; i++) {
		pats[i].arg = args[i];
		colon = strchr(args[i], ':');
		if (!colon) {
			pats[i].func = strdup(args[i]);
		} else {
			pats[i].mod = strndup(args[i], colon - args[i]);
			pats[i].func = strdup(colon + 1);
		}
		if (!pats[i].func || (colon && !pats[i].mod))
			return ipcookie_error("out of memory");
		if (!*pats[i].func || (colon && !*pats[i].mod))
			return ipcookie_error("bad pattern '%s': want PATTERN or MODULE:PATTERN",
					      args[i]);
		for (p = pats[i].mod; p && *p; p++)
			if (*p == '-')
				*p = '_';
	}
	return 0;
}

/* Every module a pattern names must be loaded. */
static int check_modules(const struct pattern *pats, int nr)
{
	char line[512], name[256];
	bool found;
	FILE *f;
	int i;

	for (i = 0; i < nr; i++) {
		if (!pats[i].mod)
			continue;
		f = fopen(MODULES, "re");
		if (!f)
			return ipcookie_error("cannot read %s: %s", MODULES,
					      strerror(errno));
		found = false;
		while (!found && fgets(line, sizeof(line), f))
			found = sscanf(line, "%255s", name) == 1 &&
				!fnmatch(pats[i].mod, name, 0);
		fclose(f);
		if (!found && strpbrk(pats[i].mod, "*?["))
			return ipcookie_error("no loaded module matches '%s' (see %s)",
					      pats[i].mod, MODULES);
		if (!found)
			return ipcookie_error("module '%s' is not loaded (see %s)",
					      pats[i].mod, MODULES);
	}
	return 0;
}

/* Does some pattern match? Counts a hit for each one that does. */
static bool match_any(struct pattern *pats, int nr, const char *name,
		      const char *mod)
{
	bool any = false;
	int i;

	for (i = 0; i < nr; i++) {
		if (!pats[i].mod != !mod)
			continue;
		if (mod && fnmatch(pats[i].mod, mod, 0))
			continue;
		if (fnmatch(pats[i].func, name, 0))
			continue;
		pats[i].hits++;
		any = true;
	}
	return any;
}

static int add_func(struct ipcookie_funcs *funcs, size_t *cap, __u64 addr,
		    const char *name, const char *mod)
{
	struct ipcookie_func *f;

	if (funcs->nr == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		f = realloc(funcs->f, *cap * sizeof(*f));
		if (!f)
			return ipcookie_error("out of memory");
		funcs->f = f;
	}
	f = &funcs->f[funcs->nr++];
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->name = strdup(name);
	f->mod = mod ? strdup(mod) : NULL;
	if (!f->name || (mod && !f->mod))
		return ipcookie_error("out of memory");
	return 0;
}

static int func_addr_cmp(const void *a, const void *b)
{
	const struct ipcookie_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int func_name_cmp(const void *a, const void *b, void *arg)
{
	const struct ipcookie_func *f = arg;
	const struct ipcookie_func *x = &f[*(const size_t *)a];
	const struct ipcookie_func *y = &f[*(const size_t *)b];
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return strcmp(x->mod ? x->mod : "", y->mod ? y->mod : "");
}

/* Names defined more than once (in one module, or in the kernel image). */
static int mark_dups(struct ipcookie_funcs *funcs)
{
	size_t *idx, i;

	idx = calloc(funcs->nr, sizeof(*idx));
	if (!idx)
		return ipcookie_error("out of memory");
	for (i = 0; i < funcs->nr; i++)
		idx[i] = i;
	qsort_r(idx, funcs->nr, sizeof(*idx), func_name_cmp, funcs->f);
	for (i = 1; i < funcs->nr; i++) {
		if (!func_name_cmp(&idx[i - 1], &idx[i], funcs->f)) {
			funcs->f[idx[i - 1]].dup = true;
			funcs->f[idx[i]].dup = true;
		}
	}
	free(idx);
	return 0;
}

/* The traceable functions matching @pats, sorted by address, each once.
 * Every pattern must match something.
 */
static int expand(struct pattern *pats, int npat, struct ipcookie_funcs *funcs)
{
	char line[640], name[512], mod[256];
	size_t cap = 0, i, j;
	__u64 addr, t = now_ms();
	int len, k;
	FILE *f;

	/* Linux 6.5 and later, so every kernel that has the map */
	f = fopen(AVAIL_ADDRS, "re");
	if (!f)
		return ipcookie_error("cannot read %s: %s (is tracefs mounted?)",
				      AVAIL_ADDRS, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		/* a disabled record has no name */
		if (sscanf(line, "%llx %511s%n", &addr, name, &len) != 2)
			continue;
		/* a record kallsyms has no function for (a dropped weak one) */
		if (!strncmp(name, INVALID_FUNC, sizeof(INVALID_FUNC) - 1))
			continue;
		if (sscanf(line + len, " [%255[^]]]", mod) != 1)
			*mod = 0;
		if (!match_any(pats, npat, name, *mod ? mod : NULL))
			continue;
		if (add_func(funcs, &cap, addr, name, *mod ? mod : NULL)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	for (k = 0; k < npat; k++)
		if (!pats[k].hits)
			return ipcookie_error("no traceable function matches '%s'",
					      pats[k].arg);

	qsort(funcs->f, funcs->nr, sizeof(*funcs->f), func_addr_cmp);
	for (i = 0, j = 0; i < funcs->nr; i++)
		if (!j || funcs->f[j - 1].addr != funcs->f[i].addr)
			funcs->f[j++] = funcs->f[i];
	funcs->nr = j;
	if (mark_dups(funcs))
		return -1;
	if (ipcookie_verbose)
		fprintf(stderr, "%s: %zu functions matched in %llu ms\n",
			ipcookie_tool, funcs->nr, now_ms() - t);
	return 0;
}

/* The patterns after the options, checked and expanded into @funcs;
 * 0, or -1 with the error printed.
 */
static int expand_patterns(int argc, char **argv,
			   struct ipcookie_funcs *funcs)
{
	int npat = argc - optind, err, i;
	struct pattern *pats;

	memset(funcs, 0, sizeof(*funcs));
	funcs->args = (const char *const *)argv + optind;
	funcs->nr_args = npat;
	pats = calloc(npat, sizeof(*pats));
	if (!pats)
		return ipcookie_error("out of memory");
	err = parse_patterns(argv + optind, npat, pats);
	if (!err)
		err = check_bpf();
	if (!err)
		err = check_modules(pats, npat);
	if (!err)
		err = expand(pats, npat, funcs);
	/* pats[] only served the expansion */
	for (i = 0; i < npat; i++) {
		free(pats[i].mod);
		free(pats[i].func);
	}
	free(pats);
	return err;
}

int ipcookie_load_error(int err)
{
	if (err == -EPERM || err == -EACCES)
		return ipcookie_error("loading the BPF program: %s: %s",
				      strerror(-err), ROOT_HINT);
	return ipcookie_error("loading the BPF program: %s (-v for libbpf's log)",
			      strerror(-err));
}

/* One kprobe.multi (or kprobe.session) link for every function, attached
 * by address in the order of @funcs; with @cookies, the cookie of each
 * function is its index.
 */
struct bpf_link *ipcookie_attach(struct bpf_program *prog,
				 struct ipcookie_funcs *funcs, bool cookies,
				 bool session)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	unsigned long *addrs;
	__u64 *cks = NULL, t = now_ms();
	struct bpf_link *link;
	size_t i, nr = funcs->nr;
	int err;

	addrs = calloc(nr, sizeof(*addrs));
	if (cookies)
		cks = calloc(nr, sizeof(*cks));
	if (!addrs || (cookies && !cks)) {
		ipcookie_error("out of memory");
		return NULL;
	}
	for (i = 0; i < nr; i++) {
		addrs[i] = funcs->f[i].addr;
		if (cks)
			cks[i] = i;
	}
	opts.addrs = addrs;
	opts.cookies = cks;
	opts.cnt = nr;
	opts.session = session;
	link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &opts);
	err = errno;
	free(addrs);
	free(cks);
	if (!link) {
		if (err == EPERM || err == EACCES)
			ipcookie_error("attaching to %zu functions: %s: %s", nr,
				       strerror(err), ROOT_HINT);
		else
			ipcookie_error("attaching to %zu functions: %s", nr,
				       strerror(err));
		return NULL;
	}
	if (ipcookie_verbose)
		fprintf(stderr, "%s: attached to %zu functions in %llu ms\n",
			ipcookie_tool, nr, now_ms() - t);
	return link;
}

static int kptr_restrict(void)
{
	FILE *f = fopen(KPTR_RESTRICT, "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int key_cmp(const void *a, const void *b, void *arg)
{
	const struct ipcookie_func *f = arg;
	__u64 x = f[*(const size_t *)a].key, y = f[*(const size_t *)b].key;

	return x < y ? -1 : x > y;
}

/* The key of every function, from the link: bpf_link__ip_cookie_keys()
 * gives them in attach order, the order of @funcs. (With cookies the
 * kernel sorts a link's functions by address and the keys come in that
 * order: the same, as @funcs is sorted by address.)
 */
int ipcookie_get_keys(struct bpf_link *link, struct ipcookie_funcs *funcs)
{
	size_t nr = funcs->nr, n = nr, i;
	__u64 *keys, t = now_ms();
	int err;

	keys = calloc(nr, sizeof(*keys));
	funcs->by_key = calloc(nr, sizeof(*funcs->by_key));
	if (!keys || !funcs->by_key)
		return ipcookie_error("out of memory");
	err = bpf_link__ip_cookie_keys(link, keys, sizeof(*keys), &n);
	if (err == -EPERM) {
		free(keys);
		return ipcookie_error("%s: kernel addresses hidden (kernel.kptr_restrict = %d): %s",
				      KEYS_FN, kptr_restrict(), KPTR_HINT);
	}
	if (err || n != nr) {
		free(keys);
		if (!err)
			return ipcookie_error("%s: %zu keys for %zu functions",
					      KEYS_FN, n, nr);
		return ipcookie_error("%s: %s", KEYS_FN, strerror(-err));
	}
	for (i = 0; i < nr; i++) {
		funcs->f[i].key = keys[i];
		funcs->by_key[i] = i;
	}
	free(keys);
	qsort_r(funcs->by_key, nr, sizeof(*funcs->by_key), key_cmp, funcs->f);
	/* one map entry per function */
	for (i = 1; i < nr; i++)
		if (!key_cmp(&funcs->by_key[i - 1], &funcs->by_key[i], funcs->f))
			return ipcookie_error("two functions have the key %llx",
					      funcs->f[funcs->by_key[i]].key);
	if (ipcookie_verbose)
		fprintf(stderr, "%s: %zu keys from the link in %llu ms\n",
			ipcookie_tool, nr, now_ms() - t);
	return 0;
}

/* One entry per function, with a zeroed value of @value_size bytes, in one
 * batch: the map grows once, however many functions. The caller tells its
 * program to start counting only after this returns.
 */
int ipcookie_fill_map(int map_fd, const struct ipcookie_funcs *funcs,
		      size_t value_size)
{
	size_t nr = funcs->nr, i;
	__u64 *keys, t = now_ms();
	__u32 n = nr;
	void *vals;
	int err;

	keys = calloc(nr, sizeof(*keys));
	vals = calloc(nr, value_size);
	if (!keys || !vals)
		return ipcookie_error("out of memory");
	for (i = 0; i < nr; i++)
		keys[i] = funcs->f[i].key;
	err = bpf_map_update_batch(map_fd, keys, vals, &n, NULL);
	free(keys);
	free(vals);
	if (err)
		return ipcookie_error("filling the map: %s after %u of %zu entries",
				      strerror(-err), n, nr);
	if (ipcookie_verbose)
		fprintf(stderr, "%s: map filled in %llu ms\n", ipcookie_tool,
			now_ms() - t);
	return 0;
}

/* Index of the function whose key is @key, or -1. */
long ipcookie_find(const struct ipcookie_funcs *funcs, __u64 key)
{
	size_t lo = 0, hi = funcs->nr, mid;
	__u64 k;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		k = funcs->f[funcs->by_key[mid]].key;
		if (k == key)
			return funcs->by_key[mid];
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Every entry of the map @fd (at most @max): keys and values. */
int ipcookie_dump_map(int fd, size_t key_size, size_t value_size,
		      size_t max, void *keys, void *vals, size_t *nr_out)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 token[2];
	size_t nr = 0;
	void *in = NULL;
	__u32 n;
	int err;

	do {
		n = max - nr;
		if (!n)
			break;
		err = bpf_map_lookup_batch(fd, in, token,
					   (char *)keys + nr * key_size,
					   (char *)vals + nr * value_size,
					   &n, &opts);
		if (err && err != -ENOENT)
			return ipcookie_error("reading the map: %s",
					      strerror(-err));
		nr += n;
		in = token;
	} while (!err);
	*nr_out = nr;
	return 0;
}

/* How function @i is printed: [MODULE:]NAME[@KEY] */
const char *ipcookie_label(const struct ipcookie_funcs *funcs, size_t i,
			   char *buf, size_t len)
{
	const struct ipcookie_func *f = &funcs->f[i];
	int n = 0;

	if (f->mod)
		n = snprintf(buf, len, "%s:", f->mod);
	n += snprintf(buf + n, len - n, "%s", f->name);
	if (f->dup)
		snprintf(buf + n, len - n, "@%llx", f->key);
	return buf;
}

/* Calls of traced functions that did not run the program: the link's
 * fprobe missed them, or the program was already running on that CPU.
 */
static __u64 missed(struct bpf_link *link, struct bpf_program *prog)
{
	struct bpf_link_info info = {};
	struct bpf_prog_info pinfo = {};
	__u32 len = sizeof(info);
	__u64 n = 0;

	if (!bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len))
		n += info.kprobe_multi.missed;
	len = sizeof(pinfo);
	if (!bpf_prog_get_info_by_fd(bpf_program__fd(prog), &pinfo, &len))
		n += pinfo.recursion_misses;
	return n;
}

/* Detach, and say whether the counts are complete. @early: hits before the
 * map was filled, which the program ignored.
 */
void ipcookie_detach(struct bpf_link *link, struct bpf_program *prog,
		     __u64 early)
{
	__u64 n = missed(link, prog), t = now_ms();

	bpf_link__destroy(link);
	if (ipcookie_verbose) {
		fprintf(stderr, "%s: detached in %llu ms\n", ipcookie_tool,
			now_ms() - t);
		fprintf(stderr, "%s: %llu hits between the attach and the fill, not counted\n",
			ipcookie_tool, early);
	}
	if (n)
		fprintf(stderr, "%s: %llu calls not counted: %s\n",
			ipcookie_tool, n, MISSED_WHY);
}

/* SIGINT and SIGTERM are blocked from the start and taken only by
 * ipcookie_wait(): one arriving while the tool attaches ends it right
 * after, through the same clean exit.
 */
static void block_signals(struct ipcookie_clock *c)
{
	sigemptyset(&c->sigs);
	sigaddset(&c->sigs, SIGINT);
	sigaddset(&c->sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &c->sigs, NULL);
}

/* One zeroed @size-byte item per function, for a tool's report; on
 * failure the tool exits, before it has loaded or attached anything.
 */
void *ipcookie_calloc(const struct ipcookie_funcs *funcs, size_t size)
{
	void *p = calloc(funcs->nr, size);

	if (!p) {
		ipcookie_error("out of memory");
		exit(1);
	}
	return p;
}

/* The start of a tool: signals blocked, the command line parsed, the
 * patterns expanded into @funcs. Returns 0, or the exit status.
 */
int ipcookie_start(const struct ipcookie_cmdline *cl, int argc, char **argv,
		   struct ipcookie_clock *clock, struct ipcookie_funcs *funcs)
{
	int err;

	ipcookie_tool = cl->tool;
	block_signals(clock);
	err = parse_args(cl, argc, argv);
	if (err)
		return err;
	return expand_patterns(argc, argv, funcs) ? 1 : 0;
}

void ipcookie_start_clock(struct ipcookie_clock *c, int interval,
			  int duration)
{
	__u64 now = now_ms();

	c->interval = interval * 1000ULL;
	c->next = interval ? now + c->interval : 0;
	c->end = duration ? now + duration * 1000ULL : 0;
}

/* Wait for the end of the interval (IPCOOKIE_TICK), or of the duration, or
 * for SIGINT or SIGTERM (IPCOOKIE_STOP).
 */
int ipcookie_wait(struct ipcookie_clock *c)
{
	struct timespec ts;
	__u64 now, until;
	int sig;

	for (;;) {
		now = now_ms();
		if (c->end && now >= c->end)
			return IPCOOKIE_STOP;
		if (c->next && now >= c->next) {
			c->next += c->interval;
			return IPCOOKIE_TICK;
		}
		until = c->next;
		if (c->end && (!until || c->end < until))
			until = c->end;
		if (!until) {
			sig = sigwaitinfo(&c->sigs, NULL);
		} else {
			ts.tv_sec = (until - now) / 1000;
			ts.tv_nsec = (until - now) % 1000 * 1000000;
			sig = sigtimedwait(&c->sigs, NULL, &ts);
		}
		if (sig > 0)
			return IPCOOKIE_STOP;
	}
}

void ipcookie_print_time(void)
{
	char buf[16];
	time_t t = time(NULL);

	strftime(buf, sizeof(buf), "%H:%M:%S", localtime(&t));
	printf("\n[%s]\n", buf);
}

void ipcookie_print_tracing(const struct ipcookie_funcs *funcs, int duration)
{
	int i;

	printf("Tracing %zu functions for", funcs->nr);
	for (i = 0; i < funcs->nr_args; i++)
		printf(" '%s'", funcs->args[i]);
	if (duration)
		printf(" for %d s... Hit Ctrl-C to end early.\n", duration);
	else
		printf("... Hit Ctrl-C to end.\n");
	fflush(stdout);
}

/* Everything after the map is filled: @report every interval and once at
 * the end, detach (*@link becomes NULL), and fail if a hit found no entry
 * (*@misses of them: "N @what").  Returns the tool's exit status.
 */
int ipcookie_run(const struct ipcookie_funcs *funcs,
		 struct ipcookie_clock *clock, int interval, int duration,
		 struct bpf_link **link, struct bpf_program *prog,
		 const __u64 *early, const __u64 *misses, const char *what,
		 int (*report)(void *ctx), void *ctx)
{
	ipcookie_print_tracing(funcs, duration);
	ipcookie_start_clock(clock, interval, duration);
	while (ipcookie_wait(clock) == IPCOOKIE_TICK) {
		ipcookie_print_time();
		if (report(ctx))
			return 1;
	}
	ipcookie_detach(*link, prog, *early);
	*link = NULL;
	if (interval)
		ipcookie_print_time();
	if (report(ctx))
		return 1;
	if (*misses) {
		ipcookie_error("%llu %s %s", (unsigned long long)*misses, what,
			       IPCOOKIE_BAD_KEY);
		return 1;
	}
	return 0;
}
