// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Kernel symbols read from /proc/kallsyms, sorted by address */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "main.h"

#define KALLSYMS_PATH	"/proc/kallsyms"

/* Text symbols: what bpf_get_func_ip() can return the address of */
static bool kallsym_is_func(const struct kallsym *sym)
{
	return sym->type == 't' || sym->type == 'T' || sym->type == 'W';
}

/* The whole file as one string; its size is known only once it is read */
static char *read_kallsyms(size_t *len)
{
	size_t cap = 1 << 20, n = 0, got;
	char *buf, *tmp;
	int err = 0;
	FILE *f;

	f = fopen(KALLSYMS_PATH, "r");
	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		got = fread(buf + n, 1, cap - n - 1, f);
		if (!got)
			break;
		n += got;
		if (cap - n > 1)
			continue;
		cap *= 2;
		tmp = realloc(buf, cap);
		if (!tmp)
			free(buf);
		buf = tmp;
	}
	if (!buf)
		err = ENOMEM;
	else if (ferror(f))
		err = EIO;
	fclose(f);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * Parse "<addr> <type> <name>[\t[<module>]]" in place: the name and the
 * module are terminated where they end. Returns false for other lines.
 */
static bool parse_kallsym(char *line, struct kallsym *sym)
{
	char *p, *name, *end, *module = NULL;

	sym->addr = strtoull(line, &p, 16);
	if (p == line || p[0] != ' ' || !p[1] || p[2] != ' ')
		return false;
	sym->type = p[1];
	name = p + 3;
	end = name + strcspn(name, " \t");
	if (end == name)
		return false;
	if (end[0] == '\t' && end[1] == '[') {
		module = end + 2;
		p = strchr(module, ']');
		if (!p)
			return false;
		*p = '\0';
	}
	*end = '\0';
	sym->name = name;
	sym->module = module;
	return true;
}

/* By address; symbols at one address in the order of the file */
static int kallsym_cmp(const void *a, const void *b)
{
	const struct kallsym *sa = a, *sb = b;

	if (sa->addr != sb->addr)
		return sa->addr < sb->addr ? -1 : 1;
	if (sa->name != sb->name)
		return sa->name < sb->name ? -1 : 1;
	return 0;
}

/*
 * Load /proc/kallsyms into @ks. Returns 0, -EPERM if it shows every
 * address as 0 (no CAP_SYSLOG, or kernel.kptr_restrict=2), or another
 * negative errno if it cannot be read.
 */
int kallsyms_load(struct kallsyms *ks)
{
	size_t len, lines = 0, nr = 0;
	char *line, *next;

	memset(ks, 0, sizeof(*ks));
	ks->text = read_kallsyms(&len);
	if (!ks->text)
		return -errno;

	for (line = ks->text; (line = strchr(line, '\n')); line++)
		lines++;
	ks->syms = calloc(lines + 1, sizeof(*ks->syms));
	if (!ks->syms) {
		kallsyms_free(ks);
		return -ENOMEM;
	}

	for (line = ks->text; line < ks->text + len; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = ks->text + len;
		/*
		 * Symbols at 0 bound nothing, and say nothing when hidden.
		 * Assembler-local labels name no function: a module's table
		 * can list them (s390 with KASAN: .LASANPC<n> at the start of
		 * each function).
		 */
		if (parse_kallsym(line, &ks->syms[nr]) && ks->syms[nr].addr &&
		    strncmp(ks->syms[nr].name, ".L", 2))
			nr++;
	}
	ks->cnt = nr;
	if (!nr) {
		kallsyms_free(ks);
		return -EPERM;
	}
	qsort(ks->syms, nr, sizeof(*ks->syms), kallsym_cmp);
	return 0;
}

void kallsyms_free(struct kallsyms *ks)
{
	free(ks->syms);
	free(ks->text);
	memset(ks, 0, sizeof(*ks));
}

/*
 * The text symbol that @addr is in, and in *@off how far into it, or NULL.
 * A function ends where the next symbol of any type starts; nothing bounds
 * the last symbol, so no address past it is in a function. Of several text
 * symbols at one address, the first in the file is returned.
 */
const struct kallsym *kallsyms_find_addr(const struct kallsyms *ks, __u64 addr,
					 __u64 *off)
{
	size_t lo = 0, hi = ks->cnt, i;
	__u64 start;

	/* lo: the first symbol above @addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	start = ks->syms[lo - 1].addr;
	if (lo == ks->cnt && addr != start)
		return NULL;
	for (i = lo; i > 0 && ks->syms[i - 1].addr == start; i--)
		;
	for (; i < lo; i++) {
		if (kallsym_is_func(&ks->syms[i])) {
			*off = addr - start;
			return &ks->syms[i];
		}
	}
	return NULL;
}

static bool kallsym_in_module(const struct kallsym *sym, const char *module)
{
	if (!module)
		return true;
	if (!strcmp(module, "vmlinux"))
		return !sym->module;
	return sym->module && !strcmp(sym->module, module);
}

/*
 * The symbols called @name, of @module if it is not NULL ("vmlinux": of
 * the kernel itself): text symbols only if @funcs, one per address. Stores
 * up to @max of them in @res, in address order, and returns how many there
 * are.
 */
int kallsyms_find_name(const struct kallsyms *ks, const char *module,
		       const char *name, bool funcs,
		       const struct kallsym **res, int max)
{
	const struct kallsym *sym, *last = NULL;
	int n = 0;
	size_t i;

	for (i = 0; i < ks->cnt; i++) {
		sym = &ks->syms[i];
		if (strcmp(sym->name, name) || (funcs && !kallsym_is_func(sym)))
			continue;
		if (!kallsym_in_module(sym, module))
			continue;
		/* One name listed twice at one address is one symbol */
		if (last && last->addr == sym->addr)
			continue;
		if (n < max)
			res[n] = sym;
		last = sym;
		n++;
	}
	return n;
}
