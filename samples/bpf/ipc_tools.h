/* SPDX-License-Identifier: GPL-2.0 */
/* What the ipc_* tools (ipc_funccount, ipc_funclatency) share: kernel
 * function patterns resolved into the keys of a BPF_MAP_TYPE_IP_COOKIE map,
 * one kprobe.multi link for all of them, errors a user can act on, and the
 * interval/duration/signal loop.
 *
 * The key of a function is what bpf_get_func_ip() returns in a kprobe.multi
 * or kprobe.session program: get_entry_ip() in kernel/trace/bpf_trace.c
 * takes the function's ftrace location and steps back over an ENDBR (or
 * sealed ENDBR) instruction in front of it, which gives the address
 * /proc/kallsyms shows for the function. The traceable functions are the
 * ftrace locations of available_filter_functions_addrs (what libbpf reads
 * for a glob), each tied to the kallsyms symbol holding it: a static name
 * defined several times gives several functions, each with its own key.
 *
 * The link is created with the symbol addresses too, not with the ftrace
 * locations (ftrace maps a symbol's address to its location): the kernel
 * finds a hit's cookie by looking get_entry_ip() up in the link's
 * addresses, so a link made of locations after an ENDBR finds no cookie.
 */
#ifndef __IPC_TOOLS_H
#define __IPC_TOOLS_H

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define IPC_KALLSYMS	"/proc/kallsyms"
#define IPC_MODULES	"/proc/modules"
#define IPC_KPTR	"/proc/sys/kernel/kptr_restrict"
#define IPC_AVAIL_ADDRS	"/sys/kernel/tracing/available_filter_functions_addrs"

/* A function's symbol and its ftrace location are at most this far apart
 * (ENDBR is 4 bytes; room for other entry sequences).
 */
#define IPC_MAX_FENTRY_OFF	16

#define IPC_ROOT_HINT	"run as root (needs CAP_BPF and CAP_PERFMON)"
#define IPC_KPTR_HINT	"run as root with kernel.kptr_restrict 0 or 1"
#define IPC_BAD_KEY	"(a key is not what bpf_get_func_ip() returns)"
#define IPC_MISSED_WHY	"the kernel missed them (recursion, or out of return probes)"

struct ipc_func {
	__u64 addr;		/* kallsyms address: the map key, and the link's */
	char *name;
	char *mod;		/* NULL: the kernel image */
	bool dup;		/* name not unique: the label adds the address */
};

struct ipc_pattern {
	const char *arg;	/* as given */
	char *mod;		/* module glob ('-' read as '_'); NULL: kernel */
	char *func;		/* function glob */
	size_t hits;
};

static const char *ipc_tool = "ipc";
static bool ipc_verbose;

static int ipc_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ipc_tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static int ipc_libbpf_print(enum libbpf_print_level level, const char *fmt,
			    va_list ap)
{
	if (!ipc_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static __u64 ipc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* A positive number (seconds, or a count) from an option; -1 if invalid. */
static int ipc_parse_pos(const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v <= 0 || v > INT_MAX / 1000)
		return -1;
	return v;
}

/* The options both tools share (-i, -d, -n, -v, -h) and at least one
 * pattern; @tool_opt takes the tool's own options and returns 0, or -1 for
 * an unknown one. Returns 0, or the exit status for a bad command line.
 */
static int ipc_parse_args(int argc, char **argv, const char *optstring,
			  const struct option *longopts, const char *usage,
			  int *interval, int *duration, int *top,
			  int (*tool_opt)(int opt))
{
	int opt, *v;

	while ((opt = getopt_long(argc, argv, optstring, longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'i':
		case 'd':
		case 'n':
			v = opt == 'i' ? interval : opt == 'd' ? duration : top;
			*v = ipc_parse_pos(optarg);
			if (*v < 0) {
				ipc_error("-%c wants a positive number, not '%s'",
					  opt, optarg);
				return 2;
			}
			break;
		case 'v':
			ipc_verbose = true;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			if (!tool_opt(opt))
				break;
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind == argc) {
		fputs(usage, stderr);
		return 2;
	}
	return 0;
}

/* Before anything else: can we load a kprobe program at all, and does the
 * kernel have the map? An unprivileged user gets this message rather than
 * one about hidden addresses or an unreadable tracefs.
 */
static int ipc_check_bpf(void)
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
			return ipc_error("bpf(): %s: %s", strerror(err),
					 IPC_ROOT_HINT);
		return ipc_error("cannot load a kprobe program: %s",
				 strerror(err));
	}
	close(fd);
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_IP_COOKIE, NULL) != 1)
		return ipc_error("this kernel has no BPF_MAP_TYPE_IP_COOKIE");
	return 0;
}

static bool ipc_has_glob(const char *s)
{
	return strpbrk(s, "*?[");
}

/* PATTERN or MODULE:PATTERN */
static int ipc_parse_patterns(char **args, int nr, struct ipc_pattern *pats)
{
	char *colon, *p;
	int i;

	for (i = 0; i < nr; i++) {
		pats[i].arg = args[i];
		pats[i].hits = 0;
		colon = strchr(args[i], ':');
		if (!colon) {
			pats[i].mod = NULL;
			pats[i].func = strdup(args[i]);
		} else {
			pats[i].mod = strndup(args[i], colon - args[i]);
			pats[i].func = strdup(colon + 1);
		}
		if (!pats[i].func || (colon && !pats[i].mod))
			return ipc_error("out of memory");
		if (!*pats[i].func || (colon && !*pats[i].mod))
			return ipc_error("bad pattern '%s': want PATTERN or MODULE:PATTERN",
					 args[i]);
		for (p = pats[i].mod; p && *p; p++)
			if (*p == '-')
				*p = '_';
	}
	return 0;
}

/* Every module a pattern names must be loaded. */
static int ipc_check_modules(const struct ipc_pattern *pats, int nr)
{
	char line[512], name[256];
	bool found;
	FILE *f;
	int i;

	for (i = 0; i < nr; i++) {
		if (!pats[i].mod)
			continue;
		f = fopen(IPC_MODULES, "re");
		if (!f)
			return ipc_error("cannot read %s: %s", IPC_MODULES,
					 strerror(errno));
		found = false;
		while (!found && fgets(line, sizeof(line), f))
			found = sscanf(line, "%255s", name) == 1 &&
				!fnmatch(pats[i].mod, name, 0);
		fclose(f);
		if (!found && ipc_has_glob(pats[i].mod))
			return ipc_error("no loaded module matches '%s' (see %s)",
					 pats[i].mod, IPC_MODULES);
		if (!found)
			return ipc_error("module '%s' is not loaded (see %s)",
					 pats[i].mod, IPC_MODULES);
	}
	return 0;
}

static bool ipc_match(const struct ipc_pattern *pat, const char *name,
		      const char *mod)
{
	if (!pat->mod != !mod)
		return false;
	if (mod && fnmatch(pat->mod, mod, 0))
		return false;
	return !fnmatch(pat->func, name, 0);
}

/* Does some pattern match? With @hit, counts a hit for each one that does. */
static bool ipc_match_any(struct ipc_pattern *pats, int nr, const char *name,
			  const char *mod, bool hit)
{
	bool any = false;
	int i;

	for (i = 0; i < nr; i++) {
		if (ipc_match(&pats[i], name, mod)) {
			pats[i].hits += hit;
			any = true;
		}
	}
	return any;
}

struct ipc_ksym {
	__u64 addr;
	char *name;
	char *mod;
};

static int ipc_ksym_cmp(const void *a, const void *b)
{
	const struct ipc_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void *ipc_grow(void *p, size_t *cap, size_t nr, size_t size)
{
	if (nr < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 1024;
	return realloc(p, *cap * size);
}

/* "name [mod]" or "name": the module part, without brackets, or NULL */
static char *ipc_parse_mod(const char *rest)
{
	char mod[256];

	if (sscanf(rest, " [%255[^]]]", mod) != 1)
		return NULL;
	return strdup(mod);
}

static int ipc_kptr_restrict(void)
{
	FILE *f = fopen(IPC_KPTR, "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Function symbols (t, T, w, W) of kallsyms, sorted by address. */
static int ipc_read_kallsyms(struct ipc_ksym **out, size_t *nr_out)
{
	struct ipc_ksym *ks = NULL;
	size_t nr = 0, cap = 0;
	char line[640], name[512];
	bool hidden = true;
	__u64 addr;
	int len;
	char type;
	FILE *f;

	f = fopen(IPC_KALLSYMS, "re");
	if (!f)
		return ipc_error("cannot read %s: %s", IPC_KALLSYMS,
				 strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %511s%n", &addr, &type, name,
			   &len) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (addr)
			hidden = false;
		ks = ipc_grow(ks, &cap, nr, sizeof(*ks));
		if (!ks)
			return ipc_error("out of memory");
		ks[nr].addr = addr;
		ks[nr].name = strdup(name);
		ks[nr].mod = ipc_parse_mod(line + len);
		if (!ks[nr].name)
			return ipc_error("out of memory");
		nr++;
	}
	fclose(f);
	if (hidden)
		return ipc_error("%s hides kernel addresses (kernel.kptr_restrict = %d): %s",
				 IPC_KALLSYMS, ipc_kptr_restrict(),
				 IPC_KPTR_HINT);
	qsort(ks, nr, sizeof(*ks), ipc_ksym_cmp);
	*out = ks;
	*nr_out = nr;
	return 0;
}

static bool ipc_same_mod(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The symbol holding the ftrace location @faddr of function @name. */
static const struct ipc_ksym *ipc_ksym_of(const struct ipc_ksym *ks,
					  size_t nr, __u64 faddr,
					  const char *name, const char *mod)
{
	size_t lo = 0, hi = nr, mid;

	/* first symbol above faddr */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ks[mid].addr <= faddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && ks[lo].addr + IPC_MAX_FENTRY_OFF > faddr)
		if (!strcmp(ks[lo].name, name) && ipc_same_mod(ks[lo].mod, mod))
			return &ks[lo];
	return NULL;
}

static int ipc_add_func(struct ipc_func **funcs, size_t *nr, size_t *cap,
			const struct ipc_ksym *sym)
{
	struct ipc_func *f;

	*funcs = ipc_grow(*funcs, cap, *nr, sizeof(**funcs));
	if (!*funcs)
		return ipc_error("out of memory");
	f = &(*funcs)[(*nr)++];
	f->addr = sym->addr;
	f->name = sym->name;
	f->mod = sym->mod;
	f->dup = false;
	return 0;
}

/* available_filter_functions_addrs: "addr name [mod]" per ftrace location */
static int ipc_resolve_addrs(FILE *f, struct ipc_pattern *pats, int npat,
			     const struct ipc_ksym *ks, size_t nks,
			     struct ipc_func **funcs, size_t *nr, size_t *cap)
{
	char line[640], name[512], *mod;
	const struct ipc_ksym *sym;
	size_t unresolved = 0;
	__u64 faddr;
	int len;

	while (fgets(line, sizeof(line), f)) {
		/* a disabled record has no name */
		if (sscanf(line, "%llx %511s%n", &faddr, name, &len) != 2)
			continue;
		mod = ipc_parse_mod(line + len);
		if (!ipc_match_any(pats, npat, name, mod, false)) {
			free(mod);
			continue;
		}
		sym = ipc_ksym_of(ks, nks, faddr, name, mod);
		if (sym) {
			/* a pattern's hits are functions we can trace */
			ipc_match_any(pats, npat, name, mod, true);
		} else {
			if (ipc_verbose)
				fprintf(stderr, "%s: %s at %llx: no kallsyms symbol, skipped\n",
					ipc_tool, name, faddr);
			unresolved++;
		}
		free(mod);
		if (sym && ipc_add_func(funcs, nr, cap, sym))
			return -1;
	}
	if (unresolved)
		fprintf(stderr, "%s: kallsyms has no symbol for %zu traceable functions: skipped\n",
			ipc_tool, unresolved);
	return 0;
}

static int ipc_func_addr_cmp(const void *a, const void *b)
{
	const struct ipc_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int ipc_func_name_cmp(const void *a, const void *b)
{
	const struct ipc_func *x = *(const struct ipc_func * const *)a;
	const struct ipc_func *y = *(const struct ipc_func * const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return strcmp(x->mod ? x->mod : "", y->mod ? y->mod : "");
}

/* Names defined more than once (in one module, or in the kernel image). */
static int ipc_mark_dups(struct ipc_func *funcs, size_t nr)
{
	struct ipc_func **by_name;
	size_t i;

	by_name = calloc(nr, sizeof(*by_name));
	if (!by_name)
		return ipc_error("out of memory");
	for (i = 0; i < nr; i++)
		by_name[i] = &funcs[i];
	qsort(by_name, nr, sizeof(*by_name), ipc_func_name_cmp);
	for (i = 1; i < nr; i++) {
		if (!ipc_func_name_cmp(&by_name[i - 1], &by_name[i])) {
			by_name[i - 1]->dup = true;
			by_name[i]->dup = true;
		}
	}
	free(by_name);
	return 0;
}

/* The traceable functions matching @pats, sorted by address, each once.
 * Every pattern must match something.
 */
static int ipc_resolve(struct ipc_pattern *pats, int npat,
		       struct ipc_func **funcs_out, size_t *nr_out)
{
	struct ipc_func *funcs = NULL;
	size_t nks = 0, nr = 0, cap = 0, i, j;
	struct ipc_ksym *ks = NULL;
	__u64 t = ipc_now_ms();
	int err, k;
	FILE *f;

	if (ipc_check_modules(pats, npat) || ipc_read_kallsyms(&ks, &nks))
		return -1;
	if (ipc_verbose)
		fprintf(stderr, "%s: %zu kallsyms functions read in %llu ms\n",
			ipc_tool, nks, ipc_now_ms() - t);
	/* Linux 6.5 and later, so every kernel that has the map */
	f = fopen(IPC_AVAIL_ADDRS, "re");
	if (!f)
		return ipc_error("cannot read %s: %s (is tracefs mounted?)",
				 IPC_AVAIL_ADDRS, strerror(errno));
	err = ipc_resolve_addrs(f, pats, npat, ks, nks, &funcs, &nr, &cap);
	fclose(f);
	if (err)
		return err;
	for (k = 0; k < npat; k++)
		if (!pats[k].hits)
			return ipc_error("no traceable function matches '%s'",
					 pats[k].arg);

	/* several patterns may match one function */
	qsort(funcs, nr, sizeof(*funcs), ipc_func_addr_cmp);
	for (i = 0, j = 0; i < nr; i++)
		if (!j || funcs[j - 1].addr != funcs[i].addr)
			funcs[j++] = funcs[i];
	nr = j;
	if (ipc_mark_dups(funcs, nr))
		return -1;
	/* the names stay referenced from funcs */
	free(ks);
	if (ipc_verbose)
		fprintf(stderr, "%s: %zu functions resolved in %llu ms\n",
			ipc_tool, nr, ipc_now_ms() - t);
	*funcs_out = funcs;
	*nr_out = nr;
	return 0;
}

/* How a function is printed: [MODULE:]NAME[@ADDRESS] */
/* The patterns after the options, checked and resolved into @funcs: NULL
 * (with the error printed) when the tool cannot go on.
 */
static struct ipc_pattern *ipc_setup(int argc, char **argv, int *npat,
				     struct ipc_func **funcs, size_t *nr)
{
	struct ipc_pattern *pats;

	*npat = argc - optind;
	pats = calloc(*npat, sizeof(*pats));
	if (!pats) {
		ipc_error("out of memory");
		return NULL;
	}
	if (ipc_parse_patterns(argv + optind, *npat, pats) ||
	    ipc_check_bpf() || ipc_resolve(pats, *npat, funcs, nr)) {
		free(pats);
		return NULL;
	}
	return pats;
}

static const char *ipc_label(const struct ipc_func *f, char *buf, size_t len)
{
	int n = 0;

	if (f->mod)
		n = snprintf(buf, len, "%s:", f->mod);
	n += snprintf(buf + n, len - n, "%s", f->name);
	if (f->dup)
		snprintf(buf + n, len - n, "@%llx", f->addr);
	return buf;
}

/* Index of the function whose key is @addr in @funcs (sorted), or -1. */
static long ipc_find(const struct ipc_func *funcs, size_t nr, __u64 addr)
{
	size_t lo = 0, hi = nr, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (funcs[mid].addr == addr)
			return mid;
		if (funcs[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* One entry per function, with a zeroed value of @value_size bytes, in one
 * batch: the map grows once, however many functions.
 */
static int ipc_fill_map(int fd, const struct ipc_func *funcs, size_t nr,
			size_t value_size)
{
	__u64 *keys;
	void *vals;
	__u32 n = nr;
	size_t i;
	int err;

	keys = calloc(nr, sizeof(*keys));
	vals = calloc(nr, value_size);
	if (!keys || !vals)
		return ipc_error("out of memory");
	for (i = 0; i < nr; i++)
		keys[i] = funcs[i].addr;
	err = bpf_map_update_batch(fd, keys, vals, &n, NULL);
	free(keys);
	free(vals);
	if (err)
		return ipc_error("filling the map: %s after %u of %zu entries",
				 strerror(-err), n, nr);
	return 0;
}

/* Every entry of the map @fd (at most @max): keys and values. */
static int ipc_dump_map(int fd, size_t key_size, size_t value_size,
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
			return ipc_error("reading the map: %s", strerror(-err));
		nr += n;
		in = token;
	} while (!err);
	*nr_out = nr;
	return 0;
}

/* One kprobe.multi (or kprobe.session) link for every function. */
static struct bpf_link *ipc_attach(struct bpf_program *prog,
				   const struct ipc_func *funcs, size_t nr,
				   const __u64 *cookies, bool session)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	unsigned long *addrs;
	struct bpf_link *link;
	__u64 t = ipc_now_ms();
	size_t i;
	int err;

	addrs = calloc(nr, sizeof(*addrs));
	if (!addrs) {
		ipc_error("out of memory");
		return NULL;
	}
	for (i = 0; i < nr; i++)
		addrs[i] = funcs[i].addr;
	opts.addrs = addrs;
	opts.cookies = cookies;
	opts.cnt = nr;
	opts.session = session;
	link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &opts);
	err = errno;
	free(addrs);
	if (!link) {
		if (err == EPERM || err == EACCES)
			ipc_error("attaching to %zu functions: %s: %s", nr,
				  strerror(err), IPC_ROOT_HINT);
		else
			ipc_error("attaching to %zu functions: %s", nr,
				  strerror(err));
		return NULL;
	}
	if (ipc_verbose)
		fprintf(stderr, "%s: attached to %zu functions in %llu ms\n",
			ipc_tool, nr, ipc_now_ms() - t);
	return link;
}

/* Calls of traced functions that did not run the program: the link's
 * fprobe missed them, or the program was already running on that CPU.
 */
static __u64 ipc_missed(struct bpf_link *link, struct bpf_program *prog)
{
	struct bpf_link_info info = {};
	struct bpf_prog_info pinfo = {};
	__u32 len = sizeof(info);
	__u64 missed = 0;

	if (!bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len))
		missed += info.kprobe_multi.missed;
	len = sizeof(pinfo);
	if (!bpf_prog_get_info_by_fd(bpf_program__fd(prog), &pinfo, &len))
		missed += pinfo.recursion_misses;
	return missed;
}

/* Detach, and say whether the counts are complete. */
static void ipc_detach(struct bpf_link *link, struct bpf_program *prog)
{
	__u64 missed = ipc_missed(link, prog), t = ipc_now_ms();

	bpf_link__destroy(link);
	if (ipc_verbose)
		fprintf(stderr, "%s: detached in %llu ms\n", ipc_tool,
			ipc_now_ms() - t);
	if (missed)
		fprintf(stderr, "%s: %llu calls not counted: %s\n", ipc_tool,
			missed, IPC_MISSED_WHY);
}

static int ipc_load_error(int err)
{
	if (err == -EPERM || err == -EACCES)
		return ipc_error("loading the BPF program: %s: %s",
				 strerror(-err), IPC_ROOT_HINT);
	return ipc_error("loading the BPF program: %s (-v for libbpf's log)",
			 strerror(-err));
}

/* SIGINT and SIGTERM are blocked from the start and taken only by
 * ipc_wait(): one arriving while the tool attaches ends it right after,
 * through the same clean exit.
 */
struct ipc_clock {
	sigset_t sigs;
	__u64 end;		/* ms; 0: no duration */
	__u64 next;		/* ms; 0: no interval */
	__u64 interval;		/* ms */
};

static void ipc_block_signals(struct ipc_clock *c)
{
	sigemptyset(&c->sigs);
	sigaddset(&c->sigs, SIGINT);
	sigaddset(&c->sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &c->sigs, NULL);
}

static void ipc_start_clock(struct ipc_clock *c, int interval, int duration)
{
	__u64 now = ipc_now_ms();

	c->interval = interval * 1000ULL;
	c->next = interval ? now + c->interval : 0;
	c->end = duration ? now + duration * 1000ULL : 0;
}

enum { IPC_TICK, IPC_STOP };

/* Wait for the end of the interval (IPC_TICK), or of the duration, or for
 * SIGINT or SIGTERM (IPC_STOP).
 */
static int ipc_wait(struct ipc_clock *c)
{
	struct timespec ts;
	__u64 now, until;
	int sig;

	for (;;) {
		now = ipc_now_ms();
		if (c->end && now >= c->end)
			return IPC_STOP;
		if (c->next && now >= c->next) {
			c->next += c->interval;
			return IPC_TICK;
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
			return IPC_STOP;
	}
}

static void ipc_print_time(void)
{
	char buf[16];
	time_t t = time(NULL);

	strftime(buf, sizeof(buf), "%H:%M:%S", localtime(&t));
	printf("\n[%s]\n", buf);
}

static void ipc_print_tracing(size_t nr, const struct ipc_pattern *pats,
			      int npat, int duration)
{
	int i;

	printf("Tracing %zu functions for", nr);
	for (i = 0; i < npat; i++)
		printf(" '%s'", pats[i].arg);
	if (duration)
		printf(" for %d s... Hit Ctrl-C to end early.\n", duration);
	else
		printf("... Hit Ctrl-C to end.\n");
	fflush(stdout);
}

#endif /* __IPC_TOOLS_H */
