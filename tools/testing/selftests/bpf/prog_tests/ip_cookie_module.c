// SPDX-License-Identifier: GPL-2.0
/*
 * Entries of BPF_MAP_TYPE_IP_COOKIE maps whose ip lies in a module's text
 * are removed when the module unloads, in every map, frozen ones too, and
 * those in its init text once it is live; keys of the kernel, of other
 * modules, of user space and of the module's data (tag keys that happen
 * to lie there) stay.  Maps without keys in the module area are not
 * scanned.
 */
#include <test_progs.h>
#include <pthread.h>
#include "ip_cookie_helpers.h"
#include "ip_cookie_uffd.h"
#include "ip_cookie_module.skel.h"

#define MOD_X		"bpf_test_modorder_x"
#define MOD_Y		"bpf_test_modorder_y"
#define MAX_KEYS	512
#define NR_KERNEL	16
/* Small values, as uprobe offsets are: never in a module. */
#define NR_USER		4

struct mod_keys {
	__u64 ips[MAX_KEYS];
	int cnt;
};

/* Symbols of @mod ("" for the kernel itself, up to @max of them) from
 * /proc/kallsyms whose type is in @types, distinct addresses only.
 */
static int read_syms(const char *mod, const char *types,
		     struct mod_keys *out, int max)
{
	struct ipc_ksym_filter f = { .types = types, .module = mod };
	int n = kallsyms_addrs(&f, out->ips, max);

	out->cnt = n < 0 ? 0 : n < max ? n : max;
	return n < 0 ? n : 0;
}

static int read_text_syms(const char *mod, struct mod_keys *out, int max)
{
	return read_syms(mod, "tT", out, max);
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

static struct mod_keys testmod, modx, kern, user, testmod_data;

/* How many keys of @k the 8-byte map @fd holds with their values. */
static int count_present8(int fd, const struct mod_keys *k)
{
	int i, n = 0;
	__u64 v;

	for (i = 0; i < k->cnt; i++)
		if (!bpf_map_lookup_elem(fd, &k->ips[i], &v) &&
		    v == val_of(k->ips[i]))
			n++;
	return n;
}

static int fill8(int fd, const struct mod_keys *k)
{
	int i, err;
	__u64 v;

	for (i = 0; i < k->cnt; i++) {
		v = val_of(k->ips[i]);
		err = bpf_map_update_elem(fd, &k->ips[i], &v, BPF_NOEXIST);
		if (err)
			return err;
	}
	return 0;
}

void serial_test_ip_cookie_module(void)
{
	long long mem8_full, mem16_full, mem8, mem16;
	int fd8 = -1, fd16 = -1, fdf = -1, total, err;
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

	/* A frozen map with the module's text and data addresses: the
	 * purge removes text keys (stale for every reader) and leaves data
	 * addresses, which are no function's key, like any tag.
	 */
	if (!ASSERT_OK(read_syms("bpf_testmod", "dDbB", &testmod_data,
				 MAX_KEYS), "syms_data") ||
	    !ASSERT_GT(testmod_data.cnt, 0, "testmod_data_syms"))
		goto out;
	fdf = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_frozen", 8, 8,
			     4 * MAX_KEYS, NULL);
	if (!ASSERT_OK_FD(fdf, "create_frozen") ||
	    !ASSERT_OK(fill8(fdf, &testmod), "fill_frozen_text") ||
	    !ASSERT_OK(fill8(fdf, &testmod_data), "fill_frozen_data") ||
	    !ASSERT_OK(bpf_map_freeze(fdf), "freeze"))
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
	ASSERT_EQ(count_present8(fdf, &testmod), 0, "frozen_text_removed");
	ASSERT_EQ(count_present8(fdf, &testmod_data), testmod_data.cnt,
		  "frozen_data_kept");
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
	if (fdf >= 0)
		close(fdf);
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

struct update_loop {
	int prog_fd;
	int stop;
	int err;
	long runs;
};

static void *update_thread(void *p)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct update_loop *u = p;

	while (!__atomic_load_n(&u->stop, __ATOMIC_ACQUIRE)) {
		u->err = bpf_prog_test_run_opts(u->prog_fd, &opts);
		if (u->err)
			break;
		__atomic_add_fetch(&u->runs, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* A module unload whose purge has no memory for the deferred free list,
 * while a syscall program (under rcu_read_lock_trace()) updates the same
 * map in a loop: the purge must not wait for a grace period with the
 * map's lock held, or neither finishes.  The map is filled by inserts
 * that do not rebuild its index after the reclaim of the fill's old
 * tables has begun, and the program's updates free nothing, so the map
 * has no free-list chunk when the unload begins: the purge must allocate
 * one and fails.  The unload finishes, the module's keys are gone and
 * every update of the program got its -ENOENT.
 */
void serial_test_ip_cookie_module_nomem(void)
{
	struct update_loop u = { .prog_fd = -1 };
	struct ip_cookie_module *skel = NULL;
	bool thread = false, gone = false;
	int fd = -1, mfd = -1, err, i;
	__u64 kkey, v = 1;
	pthread_t tid;

	if (access(FAILSLAB, F_OK)) {
		printf("%s:SKIP: no failslab\n", __func__);
		test__skip();
		return;
	}
	if (read_text_syms("bpf_testmod", &testmod, 64) || !testmod.cnt) {
		test__skip();
		return;
	}
	if (!ASSERT_OK(read_text_syms("", &kern, 1), "syms_kernel") ||
	    !ASSERT_EQ(kern.cnt, 1, "kernel_sym"))
		return;
	kkey = kern.ips[0];
	fd = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_nomem", 8, 8,
			    4 * MAX_KEYS, NULL);
	if (!ASSERT_OK_FD(fd, "create") ||
	    !ASSERT_OK(fill8(fd, &testmod), "fill_testmod") ||
	    !ASSERT_OK(bpf_map_update_elem(fd, &kkey, &v, 0), "fill_kernel"))
		goto out;
	/* The map's free list is taken by the change that fills it, or
	 * once the grace periods of the list in flight before it end.
	 */
	kern_sync_rcu();
	usleep(1000000);
	/* The program's key: a kernel text address not in the map */
	kkey += 1;

	skel = ip_cookie_module__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		goto out;
	skel->bss->map_fd = fd;
	skel->bss->key = kkey;
	skel->bss->rounds = 500;
	bpf_program__set_autoload(skel->progs.purge_scan, false);
	if (!ASSERT_OK(ip_cookie_module__load(skel), "load"))
		goto out;
	u.prog_fd = bpf_program__fd(skel->progs.update_loop);
	if (!ASSERT_OK(pthread_create(&tid, NULL, update_thread, &u),
		       "pthread_create"))
		goto out;
	thread = true;
	while (!__atomic_load_n(&u.runs, __ATOMIC_ACQUIRE) && !u.err)
		usleep(1000);

	mfd = open("/proc/self/make-it-fail", O_WRONLY);
	if (!ASSERT_OK_FD(mfd, "make-it-fail") ||
	    !ASSERT_OK(fault_inject(mfd, FAILSLAB, 0), "fail_slab"))
		goto out;
	for (i = 0; i < 1000; i++) {
		err = syscall(__NR_delete_module, "bpf_testmod", 0);
		if (!err || errno != EAGAIN)
			break;
		usleep(1000);
	}
	if (err)
		err = -errno;
	fault_inject(mfd, FAILSLAB, -1);
	if (!ASSERT_OK(err, "unload"))
		goto out;
	gone = true;
	ASSERT_EQ(count_present8(fd, &testmod), 0, "testmod_removed");
	kkey -= 1;
	ASSERT_OK(bpf_map_lookup_elem(fd, &kkey, &v), "kernel_kept");
out:
	if (thread) {
		__atomic_store_n(&u.stop, 1, __ATOMIC_RELEASE);
		pthread_join(tid, NULL);
		ASSERT_OK(u.err, "test_run");
		ASSERT_GT(u.runs, 0, "runs");
		ASSERT_EQ(skel->bss->errors, 0, "update_errors");
		ASSERT_GT(skel->bss->misses, 0, "updates");
	}
	if (mfd >= 0)
		close(mfd);
	ip_cookie_module__destroy(skel);
	if (fd >= 0)
		close(fd);
	if (gone)
		ASSERT_OK(load_bpf_testmod(env.verbosity > VERBOSE_NONE),
			  "reload bpf_testmod");
}

/* Maps without keys in the module area are not scanned when a module
 * loads or unloads, however large: the purge looks only at maps whose
 * count of such keys (ic->nr_mod) is not zero, each with a reference it
 * takes first.  A tracing program on bpf_map_inc_not_zero() counts those
 * references per map.
 */
#define NR_BIG		3
#define BIG_KEYS	20000

void serial_test_ip_cookie_module_skip(void)
{
	struct ip_cookie_module *skel = NULL;
	int big[NR_BIG] = { -1, -1, -1 }, fdm = -1, i, j;
	struct bpf_link *link = NULL;
	struct bpf_map_info info;
	__u32 len, n, ids[NR_BIG + 1];
	__u64 *keys = NULL, *vals = NULL, v;
	bool x_loaded = false;

	if (read_text_syms("bpf_testmod", &testmod, 1) || !testmod.cnt) {
		test__skip();
		return;
	}
	keys = calloc(BIG_KEYS, sizeof(*keys));
	vals = calloc(BIG_KEYS, sizeof(*vals));
	if (!ASSERT_OK_PTR(keys, "keys") || !ASSERT_OK_PTR(vals, "vals"))
		goto out;
	/* Tag keys: small values, never in the module area. */
	for (j = 0; j < BIG_KEYS; j++) {
		keys[j] = 0x1000 + 8 * j;
		vals[j] = val_of(keys[j]);
	}
	for (i = 0; i < NR_BIG; i++) {
		big[i] = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_big", 8, 8,
					BIG_KEYS, NULL);
		n = BIG_KEYS;
		if (!ASSERT_OK_FD(big[i], "create_big") ||
		    !ASSERT_OK(bpf_map_update_batch(big[i], keys, vals, &n,
						    NULL), "fill_big"))
			goto out;
	}
	/* One map with a key in bpf_testmod's text. */
	fdm = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_modkey", 8, 8, 16,
			     NULL);
	v = val_of(testmod.ips[0]);
	if (!ASSERT_OK_FD(fdm, "create_mod") ||
	    !ASSERT_OK(bpf_map_update_elem(fdm, &testmod.ips[0], &v, 0),
		       "fill_mod"))
		goto out;
	for (i = 0; i <= NR_BIG; i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!ASSERT_OK(bpf_map_get_info_by_fd(i < NR_BIG ? big[i] : fdm,
						      &info, &len), "info"))
			goto out;
		ids[i] = info.id;
	}

	skel = ip_cookie_module__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		goto out;
	memcpy(skel->bss->watch_ids, ids, sizeof(ids));
	link = bpf_program__attach(skel->progs.purge_scan);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;

	/* A load (MODULE_STATE_LIVE: its init text) and an unload
	 * (MODULE_STATE_GOING) of a module that none of the maps has keys of.
	 */
	if (!ASSERT_OK(load_module(MOD_X ".ko", env.verbosity > VERBOSE_NONE),
		       "load " MOD_X))
		goto out;
	x_loaded = true;
	if (!ASSERT_OK(unload_module(MOD_X, env.verbosity > VERBOSE_NONE),
		       "unload " MOD_X))
		goto out;
	x_loaded = false;
	for (i = 0; i < NR_BIG; i++)
		ASSERT_EQ(skel->bss->scans[i], 0, "big_map_not_scanned");
	/* Its load and its unload (and any other module's meanwhile) */
	ASSERT_GE(skel->bss->scans[NR_BIG], 2, "mod_key_map_scanned");
	ASSERT_OK(bpf_map_lookup_elem(fdm, &testmod.ips[0], &v),
		  "testmod_key_kept");
	n = 0;
	for (j = 0; j < BIG_KEYS; j++)
		n += !bpf_map_lookup_elem(big[0], &keys[j], &v) &&
		     v == vals[j];
	ASSERT_EQ(n, BIG_KEYS, "big_keys_kept");
out:
	if (x_loaded)
		unload_module(MOD_X, false);
	bpf_link__destroy(link);
	ip_cookie_module__destroy(skel);
	if (fdm >= 0)
		close(fdm);
	for (i = 0; i < NR_BIG; i++)
		if (big[i] >= 0)
			close(big[i]);
	free(keys);
	free(vals);
}

/* A key in a module's init text goes once the module is live (its init
 * text is freed then), a key in its text when it unloads.
 * ip_cookie_testmod's init function puts both into the map it is given
 * and fails the load if it cannot.
 */
#define MOD_INIT	"ip_cookie_testmod"

static int read_mod_param(const char *name, __u64 *val)
{
	char path[128];
	unsigned long long v;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/module/" MOD_INIT "/parameters/%s",
		 name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fscanf(f, "%llu", &v);
	fclose(f);
	if (n != 1)
		return -EINVAL;
	*val = v;
	return 0;
}

/* Load ip_cookie_testmod with map_fd=@map_fd: 0 or -errno. */
static int load_testmod(int map_fd)
{
	char params[32];
	int mfd, err;

	mfd = open(MOD_INIT ".ko", O_RDONLY);
	if (mfd < 0)
		return -errno;
	snprintf(params, sizeof(params), "map_fd=%d", map_fd);
	err = finit_module(mfd, params, 0) ? -errno : 0;
	close(mfd);
	return err;
}

void serial_test_ip_cookie_module_init(void)
{
	__u64 init_ip = 0, text_ip = 0, v;
	bool loaded = false;
	int fd, bad, err;

	/* The module writes 8 bytes of key and value: a map with larger
	 * values is refused, not read past the module's value.
	 */
	bad = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_init_bad", 8, 4096,
			     16, NULL);
	if (!ASSERT_OK_FD(bad, "create_bad"))
		return;
	err = load_testmod(bad);
	if (!err)
		unload_module(MOD_INIT, false);
	ASSERT_EQ(err, -EINVAL, "wide_value_map_refused");
	close(bad);

	fd = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_init", 8, 8, 16, NULL);
	if (!ASSERT_OK_FD(fd, "create"))
		return;
	err = load_testmod(fd);
	if (!ASSERT_OK(err, "load " MOD_INIT))
		goto out;
	loaded = true;
	if (!ASSERT_OK(read_mod_param("init_ip", &init_ip), "init_ip") ||
	    !ASSERT_OK(read_mod_param("text_ip", &text_ip), "text_ip") ||
	    !ASSERT_NEQ(init_ip, 0, "init_ip_set"))
		goto out;
	err = bpf_map_lookup_elem(fd, &init_ip, &v) ? -errno : 0;
	ASSERT_EQ(err, -ENOENT, "init_text_key_removed");
	err = bpf_map_lookup_elem(fd, &text_ip, &v);
	if (ASSERT_OK(err, "text_key_kept"))
		ASSERT_EQ(v, text_ip, "text_key_value");
	ASSERT_EQ(count_walk(fd), 1, "walk_live");

	if (!ASSERT_OK(unload_module(MOD_INIT, env.verbosity > VERBOSE_NONE),
		       "unload " MOD_INIT))
		goto out;
	loaded = false;
	err = bpf_map_lookup_elem(fd, &text_ip, &v) ? -errno : 0;
	ASSERT_EQ(err, -ENOENT, "text_key_removed");
	ASSERT_EQ(count_walk(fd), 0, "walk_gone");
out:
	if (loaded)
		unload_module(MOD_INIT, false);
	close(fd);
}

struct cycler {
	const char *name;
	int cycles;
	int err;
};

/* Load and unload one module @cycles times. */
static void *cycle_thread(void *p)
{
	struct cycler *c = p;
	char path[64];
	int i;

	snprintf(path, sizeof(path), "%s.ko", c->name);
	for (i = 0; i < c->cycles && !c->err; i++) {
		c->err = load_module(path, false);
		if (!c->err)
			c->err = unload_module(c->name, false);
	}
	return NULL;
}

#define CYCLES		20

#define CONCUR_KEYS	100000

/* Notifications of two modules loading and unloading at the same time,
 * while a map holds a key in the module area (of a module that stays):
 * each notification purges the map once, whatever the others do.  The
 * notifiers used to mark a map with the generation of the last one, and
 * two of them could take turns re-marking it forever.  The map's tag
 * keys make each purge long enough for the notifications to overlap.
 */
void serial_test_ip_cookie_module_concurrent(void)
{
	struct cycler cx = { .name = MOD_X, .cycles = CYCLES };
	struct cycler cy = { .name = MOD_Y, .cycles = CYCLES };
	struct ip_cookie_module *skel = NULL;
	struct bpf_link *link = NULL;
	struct bpf_map_info info = {};
	__u64 *keys = NULL, *vals = NULL, v;
	__u32 len = sizeof(info), n, j;
	pthread_t tx, ty;
	int fd = -1;

	if (read_text_syms("bpf_testmod", &testmod, 1) || !testmod.cnt) {
		test__skip();
		return;
	}
	keys = calloc(CONCUR_KEYS, sizeof(*keys));
	vals = calloc(CONCUR_KEYS, sizeof(*vals));
	if (!ASSERT_OK_PTR(keys, "keys") || !ASSERT_OK_PTR(vals, "vals"))
		goto out;
	for (j = 0; j < CONCUR_KEYS; j++) {
		keys[j] = 0x1000 + 8 * j;
		vals[j] = val_of(keys[j]);
	}
	fd = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_concur", 8, 8,
			    CONCUR_KEYS + 1, NULL);
	v = val_of(testmod.ips[0]);
	n = CONCUR_KEYS;
	if (!ASSERT_OK_FD(fd, "create") ||
	    !ASSERT_OK(bpf_map_update_batch(fd, keys, vals, &n, NULL), "fill_tags") ||
	    !ASSERT_OK(bpf_map_update_elem(fd, &testmod.ips[0], &v, 0), "fill") ||
	    !ASSERT_OK(bpf_map_get_info_by_fd(fd, &info, &len), "info"))
		goto out;
	skel = ip_cookie_module__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		goto out;
	bpf_program__set_autoload(skel->progs.block_sleepable, false);
	if (!ASSERT_OK(ip_cookie_module__load(skel), "load"))
		goto out;
	skel->bss->watch_ids[0] = info.id;
	link = bpf_program__attach(skel->progs.purge_scan);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	if (!ASSERT_OK(pthread_create(&tx, NULL, cycle_thread, &cx), "thread_x"))
		goto out;
	if (ASSERT_OK(pthread_create(&ty, NULL, cycle_thread, &cy), "thread_y"))
		pthread_join(ty, NULL);
	pthread_join(tx, NULL);
	ASSERT_OK(cx.err, "cycles_x");
	ASSERT_OK(cy.err, "cycles_y");
	/* MODULE_STATE_LIVE and MODULE_STATE_GOING of each cycle */
	ASSERT_EQ(skel->bss->scans[0], 2 * (CYCLES + CYCLES), "one_purge_each");
	ASSERT_OK(bpf_map_lookup_elem(fd, &testmod.ips[0], &v), "key_kept");
out:
	bpf_link__destroy(link);
	ip_cookie_module__destroy(skel);
	if (fd >= 0)
		close(fd);
	free(keys);
	free(vals);
}

struct unloader {
	int err;
	int done;
};

/* Unload bpf_testmod with this thread's slab allocations failing. */
static void *unload_thread(void *p)
{
	struct unloader *un = p;
	int mfd, i, err = -1;

	mfd = open("/proc/thread-self/make-it-fail", O_WRONLY);
	if (mfd < 0 || fault_inject(mfd, FAILSLAB, 0)) {
		un->err = -EIO;
		goto out;
	}
	for (i = 0; i < 1000; i++) {
		err = syscall(__NR_delete_module, "bpf_testmod", 0);
		if (!err || errno != EAGAIN)
			break;
		usleep(1000);
	}
	un->err = err ? -errno : 0;
	fault_inject(mfd, FAILSLAB, -1);
out:
	if (mfd >= 0)
		close(mfd);
	__atomic_store_n(&un->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *getpgid_thread(void *arg)
{
	getpgid(0);
	return NULL;
}

/* A module unload whose purge gets no memory from the slab allocator,
 * while a sleepable program of the same map's user is blocked in a page
 * fault inside rcu_read_lock_trace(): the unload does not wait for the
 * program.  The purge used to free what it could not defer itself, after
 * an RCU Tasks Trace grace period, which the blocked program holds off.
 * The unload is given a minute, far more than it needs, before the
 * program is let go either way.
 */
void serial_test_ip_cookie_module_nomem_blocked(void)
{
	struct ip_cookie_module *skel = NULL;
	struct unloader un = {};
	bool blocked = false, gone = false, unloading = false;
	struct bpf_link *link = NULL;
	pthread_t tb, tu;
	struct ipc_uffd u;
	int fd = -1, i;

	if (access(FAILSLAB, F_OK)) {
		printf("%s:SKIP: no failslab\n", __func__);
		test__skip();
		return;
	}
	if (read_text_syms("bpf_testmod", &testmod, 64) || !testmod.cnt) {
		test__skip();
		return;
	}
	if (!ASSERT_OK(ipc_uffd_open(&u), "userfaultfd"))
		return;
	fd = bpf_map_create(BPF_MAP_TYPE_IP_COOKIE, "ipc_blocked", 8, 8,
			    4 * MAX_KEYS, NULL);
	if (!ASSERT_OK_FD(fd, "create") ||
	    !ASSERT_OK(fill8(fd, &testmod), "fill_testmod"))
		goto out;
	/* Let the reclaim take the fill's free list: the purge then has no
	 * chunk and must allocate one.
	 */
	kern_sync_rcu();
	usleep(1000000);

	skel = ip_cookie_module__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		goto out;
	bpf_program__set_autoload(skel->progs.purge_scan, false);
	if (!ASSERT_OK(ip_cookie_module__load(skel), "load"))
		goto out;
	skel->bss->block_pid = getpid();
	skel->bss->block_uaddr = (__u64)(unsigned long)u.page;
	link = bpf_program__attach(skel->progs.block_sleepable);
	if (!ASSERT_OK_PTR(link, "attach") ||
	    !ASSERT_OK(pthread_create(&tb, NULL, getpgid_thread, NULL),
		       "blocked_thread"))
		goto out;
	blocked = true;
	if (!ASSERT_OK(ipc_uffd_wait(&u, 10000), "program_blocked"))
		goto out;

	if (!ASSERT_OK(pthread_create(&tu, NULL, unload_thread, &un),
		       "unload_thread"))
		goto out;
	unloading = true;
	for (i = 0; i < 60000; i++) {
		if (__atomic_load_n(&un.done, __ATOMIC_ACQUIRE))
			break;
		usleep(1000);
	}
	ASSERT_TRUE(__atomic_load_n(&un.done, __ATOMIC_ACQUIRE),
		    "unloaded_while_blocked");
out:
	if (blocked) {
		ASSERT_OK(ipc_uffd_release(&u), "release");
		pthread_join(tb, NULL);
		ASSERT_EQ(skel->bss->block_runs, 1, "program_ran");
	}
	if (unloading) {
		pthread_join(tu, NULL);
		if (ASSERT_OK(un.err, "unload"))
			gone = true;
	}
	if (gone)
		ASSERT_EQ(count_present8(fd, &testmod), 0, "testmod_removed");
	bpf_link__destroy(link);
	ip_cookie_module__destroy(skel);
	if (fd >= 0)
		close(fd);
	ipc_uffd_close(&u);
	if (gone)
		ASSERT_OK(load_bpf_testmod(env.verbosity > VERBOSE_NONE),
			  "reload bpf_testmod");
}
