// SPDX-License-Identifier: GPL-2.0
/*
 * Entries of BPF_MAP_TYPE_IP_COOKIE maps whose ip lies in a module's text
 * are removed when the module unloads, in every map; keys of the kernel,
 * of other modules and of user space stay.
 */
#include <test_progs.h>
#include "testing_helpers.h"

#define MOD_X		"bpf_test_modorder_x"
#define MAX_KEYS	512
#define NR_KERNEL	16
/* Small values, as uprobe offsets are: never in a module. */
#define NR_USER		4

struct mod_keys {
	__u64 ips[MAX_KEYS];
	int cnt;
};

/* Text symbols of @mod ("" for the kernel itself, up to @max of them)
 * from /proc/kallsyms, distinct addresses only.
 */
static int read_text_syms(const char *mod, struct mod_keys *out, int max)
{
	char line[512], name[256], tail[256], type;
	unsigned long long addr;
	FILE *f;
	int i, n;

	out->cnt = 0;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -errno;
	while (out->cnt < max && fgets(line, sizeof(line), f)) {
		tail[0] = 0;
		n = sscanf(line, "%llx %c %255s %255s", &addr, &type, name, tail);
		if (n < 3 || (type != 't' && type != 'T') || !addr)
			continue;
		if (*mod) {
			if (n < 4 || tail[0] != '[' || strncmp(tail + 1, mod, strlen(mod)) ||
			    tail[1 + strlen(mod)] != ']')
				continue;
		} else if (n == 4) {
			continue;
		}
		for (i = 0; i < out->cnt; i++)
			if (out->ips[i] == addr)
				break;
		if (i == out->cnt)
			out->ips[out->cnt++] = addr;
	}
	fclose(f);
	return 0;
}

/* Value of a key: derived from it, so a lookup can check it. */
static __u64 val_of(__u64 ip)
{
	return ip ^ 0x5a5a5a5a5a5a5a5aULL;
}

static int fill(int fd8, int fd16, const struct mod_keys *k)
{
	struct bpf_ip_cookie_key k16 = { .link_id = 7 };
	__u64 v;
	int i, err;

	for (i = 0; i < k->cnt; i++) {
		v = val_of(k->ips[i]);
		err = bpf_map_update_elem(fd8, &k->ips[i], &v, BPF_NOEXIST);
		if (err)
			return err;
		k16.ip = k->ips[i];
		err = bpf_map_update_elem(fd16, &k16, &v, BPF_NOEXIST);
		if (err)
			return err;
	}
	return 0;
}

/* How many keys of @k both maps hold with their values; -1 if a value is
 * wrong.
 */
static int count_present(int fd8, int fd16, const struct mod_keys *k)
{
	struct bpf_ip_cookie_key k16 = { .link_id = 7 };
	int i, n = 0, in8, in16;
	__u64 v;

	for (i = 0; i < k->cnt; i++) {
		in8 = !bpf_map_lookup_elem(fd8, &k->ips[i], &v);
		if (in8 && v != val_of(k->ips[i]))
			return -1;
		k16.ip = k->ips[i];
		in16 = !bpf_map_lookup_elem(fd16, &k16, &v);
		if (in16 && v != val_of(k->ips[i]))
			return -1;
		if (in8 != in16)
			return -1;
		n += in8;
	}
	return n;
}

static int count_walk(int fd)
{
	struct bpf_ip_cookie_key cur, next;
	void *prev = NULL;
	int n = 0;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		cur = next;
		prev = &cur;
		if (++n > 4 * MAX_KEYS)
			break;
	}
	return n;
}

static long long map_memlock(int fd)
{
	char path[64], line[128];
	long long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock:\t%lld", &val) == 1)
			break;
	fclose(f);
	return val;
}

static struct mod_keys testmod, modx, kern, user;

void serial_test_ip_cookie_module(void)
{
	long long mem8_full, mem16_full, mem8, mem16;
	int fd8 = -1, fd16 = -1, total, err;
	bool testmod_gone = false;
	int i;

	if (read_text_syms("bpf_testmod", &testmod, MAX_KEYS) || !testmod.cnt) {
		test__skip();
		return;
	}
	if (!ASSERT_OK(load_module(MOD_X ".ko", env.verbosity > VERBOSE_NONE),
		       "load " MOD_X))
		return;
	if (!ASSERT_OK(read_text_syms(MOD_X, &modx, MAX_KEYS), "syms_x") ||
	    !ASSERT_GT(modx.cnt, 0, "modx_syms"))
		goto out_x;
	if (!ASSERT_OK(read_text_syms("", &kern, NR_KERNEL), "syms_kernel") ||
	    !ASSERT_EQ(kern.cnt, NR_KERNEL, "kernel_syms"))
		goto out_x;
	user.cnt = NR_USER;
	for (i = 0; i < NR_USER; i++)
		user.ips[i] = 0x1000 + 0x40 * i;

	fd8 = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_mod8", 8, 8,
			     4 * MAX_KEYS, NULL);
	fd16 = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_mod16", 16, 8,
			      4 * MAX_KEYS, NULL);
	if (!ASSERT_OK_FD(fd8, "create8") || !ASSERT_OK_FD(fd16, "create16"))
		goto out;
	if (!ASSERT_OK(fill(fd8, fd16, &testmod), "fill_testmod") ||
	    !ASSERT_OK(fill(fd8, fd16, &modx), "fill_modx") ||
	    !ASSERT_OK(fill(fd8, fd16, &kern), "fill_kernel") ||
	    !ASSERT_OK(fill(fd8, fd16, &user), "fill_user"))
		goto out;
	total = testmod.cnt + modx.cnt + kern.cnt + user.cnt;
	ASSERT_EQ(count_walk(fd8), total, "walk8_full");
	ASSERT_EQ(count_walk(fd16), total, "walk16_full");
	mem8_full = map_memlock(fd8);
	mem16_full = map_memlock(fd16);

	/* bpf_testmod goes: its entries go, from both maps. */
	err = unload_bpf_testmod(env.verbosity > VERBOSE_NONE);
	if (!ASSERT_OK(err, "unload bpf_testmod"))
		goto out;
	testmod_gone = true;
	ASSERT_EQ(count_present(fd8, fd16, &testmod), 0, "testmod_removed");
	ASSERT_EQ(count_present(fd8, fd16, &modx), modx.cnt, "modx_kept");
	ASSERT_EQ(count_present(fd8, fd16, &kern), kern.cnt, "kernel_kept");
	ASSERT_EQ(count_present(fd8, fd16, &user), user.cnt, "user_kept");
	total -= testmod.cnt;
	ASSERT_EQ(count_walk(fd8), total, "walk8_after");
	ASSERT_EQ(count_walk(fd16), total, "walk16_after");
	mem8 = map_memlock(fd8);
	mem16 = map_memlock(fd16);
	ASSERT_LT(mem8, mem8_full, "memlock8_shrinks");
	ASSERT_LT(mem16, mem16_full, "memlock16_shrinks");
	if (env.verbosity > VERBOSE_NONE)
		printf("%s: %d bpf_testmod keys removed; memlock %lld -> %lld (8 B keys), %lld -> %lld (16 B keys)\n",
		       __func__, testmod.cnt, mem8_full, mem8, mem16_full, mem16);

	/* The module is back, maybe at the same address: no old entry may
	 * alias its functions.
	 */
	if (ASSERT_OK(load_bpf_testmod(env.verbosity > VERBOSE_NONE),
		      "reload bpf_testmod")) {
		testmod_gone = false;
		ASSERT_OK(read_text_syms("bpf_testmod", &testmod, MAX_KEYS),
			  "syms_reloaded");
		ASSERT_EQ(count_present(fd8, fd16, &testmod), 0,
			  "reloaded_no_alias");
	}

	/* Then the other module. */
	if (ASSERT_OK(unload_module(MOD_X, env.verbosity > VERBOSE_NONE),
		      "unload " MOD_X)) {
		ASSERT_EQ(count_present(fd8, fd16, &modx), 0, "modx_removed");
		ASSERT_EQ(count_present(fd8, fd16, &kern), kern.cnt,
			  "kernel_kept_x");
		ASSERT_EQ(count_walk(fd8), kern.cnt + user.cnt, "walk8_end");
		modx.cnt = 0;
	}
out:
	if (fd8 >= 0)
		close(fd8);
	if (fd16 >= 0)
		close(fd16);
out_x:
	if (modx.cnt)
		unload_module(MOD_X, false);
	if (testmod_gone)
		load_bpf_testmod(false);
}
