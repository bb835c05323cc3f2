/* SPDX-License-Identifier: GPL-2.0 */
/* What ipcookie_funccount and ipcookie_funclatency share (ipcookie_common.c):
 * kernel function patterns expanded into one kprobe.multi or kprobe.session
 * link, its keys from bpf_link__ip_cookie_keys() filled into the tool's
 * BPF_MAP_TYPE_IP_COOKIE map, errors a user can act on, and the
 * interval/duration/signal loop.
 */
#ifndef __IPCOOKIE_COMMON_H
#define __IPCOOKIE_COMMON_H

#include <getopt.h>
/* Before <signal.h>: s390's asm/sigcontext.h uses __vector128 from
 * asm/types.h, which the tools' copy of linux/types.h does not include.
 */
#include <asm/types.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_link;
struct bpf_program;

/* A traced function: the i-th of a link, attached at @addr. */
struct ipcookie_func {
	__u64 addr;	/* ftrace site (available_filter_functions_addrs) */
	__u64 key;	/* bpf_get_func_ip() there, from the link */
	char *name;
	char *mod;	/* NULL: the kernel image */
	bool dup;	/* name not unique: the label adds the key */
};

struct ipcookie_funcs {
	struct ipcookie_func *f;	/* sorted by addr */
	size_t nr;
	size_t *by_key;			/* indices of f sorted by key */
	const char *const *args;	/* the patterns as given */
	int nr_args;
};

extern const char *ipcookie_tool;
extern bool ipcookie_verbose;

#define IPCOOKIE_BAD_KEY "(a key is not what bpf_get_func_ip() returns)"

/* A tool's command line: the options both tools take (-i, -d, -n, -v,
 * -h) go to @interval, @duration and @top; @tool_opt takes the tool's
 * own and returns 0, or -1 for an unknown one.
 */
struct ipcookie_cmdline {
	const char *tool;
	const char *optstring;
	const struct option *longopts;
	const char *usage;
	int (*tool_opt)(int opt);
	int *interval, *duration, *top;
};

struct ipcookie_clock;

int ipcookie_error(const char *fmt, ...);
int ipcookie_start(const struct ipcookie_cmdline *cl, int argc, char **argv,
		   struct ipcookie_clock *clock, struct ipcookie_funcs *funcs);
void *ipcookie_calloc(const struct ipcookie_funcs *funcs, size_t size);
int ipcookie_load_error(int err);
struct bpf_link *ipcookie_attach(struct bpf_program *prog,
				 struct ipcookie_funcs *funcs, bool cookies,
				 bool session);
int ipcookie_get_keys(struct bpf_link *link, struct ipcookie_funcs *funcs);
int ipcookie_fill_map(int map_fd, const struct ipcookie_funcs *funcs,
		      size_t value_size);
long ipcookie_find(const struct ipcookie_funcs *funcs, __u64 key);
int ipcookie_dump_map(int fd, size_t key_size, size_t value_size,
		      size_t max, void *keys, void *vals, size_t *nr_out);
const char *ipcookie_label(const struct ipcookie_funcs *funcs, size_t i,
			   char *buf, size_t len);
void ipcookie_detach(struct bpf_link *link, struct bpf_program *prog,
		     __u64 early);

struct ipcookie_clock {
	sigset_t sigs;
	__u64 end;		/* ms; 0: no duration */
	__u64 next;		/* ms; 0: no interval */
	__u64 interval;		/* ms */
};

enum { IPCOOKIE_TICK, IPCOOKIE_STOP };

void ipcookie_start_clock(struct ipcookie_clock *c, int interval,
			  int duration);
int ipcookie_wait(struct ipcookie_clock *c);
void ipcookie_print_time(void);
void ipcookie_print_tracing(const struct ipcookie_funcs *funcs, int duration);
int ipcookie_run(const struct ipcookie_funcs *funcs,
		 struct ipcookie_clock *clock, int interval, int duration,
		 struct bpf_link **link, struct bpf_program *prog,
		 const __u64 *early, const __u64 *misses, const char *what,
		 int (*report)(void *ctx), void *ctx);

#endif /* __IPCOOKIE_COMMON_H */
