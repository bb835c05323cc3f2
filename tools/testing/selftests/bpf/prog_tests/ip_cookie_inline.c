// SPDX-License-Identifier: GPL-2.0
/* The inlined lookups of BPF_MAP_TYPE_IP_COOKIE, each checked key by key
 * against what user space put in the maps:
 *
 *   - bpf_map_lookup_elem() of an 8-byte key: home slot first, then the
 *     probe walk, with and without the Spectre v1 clamp;
 *   - bpf_ip_cookie_lookup(map, ip): the same probe with the ip in a
 *     register, clamped unless the program may bypass the mitigations;
 *   - bpf_map_lookup_elem() of a 16-byte key, inlined only where no clamp
 *     is needed, called otherwise.
 *
 * The maps are filled near the 80% load at which the index grows, so
 * that many keys sit past their home slot, then a quarter of the keys
 * are deleted (DEAD slots that walks must pass) and half of those put
 * back (DEAD slots revived).  16-byte keys share each ip between four
 * link IDs.  Lookups also ask for keys never inserted, ip 0, link ID 0
 * and a non-zero reserved field, which must all miss.
 */
#include <test_progs.h>
#include "cap_helpers.h"
#include "ip_cookie_common.h"
#include "ip_cookie_helpers.h"
#include "ip_cookie_inline.skel.h"

/* Keys of the 8-byte map: fake_ip(0 .. NR8 - 1); about 78% of the 4096
 * buckets a map of this many keys has (it grows past 3276).
 */
#define NR8		3200
/* 16-byte keys: NR16_IPS ips, each under link IDs 1 to NR_LINKS. */
#define NR16_IPS	800
#define NR_LINKS	4
#define ABSENT_BASE	100000

static bool deleted8(__u32 i)
{
	return i % 4 == 1 && i % 8 != 1;	/* i % 8 == 1 is put back */
}

static __u64 val8(__u32 i)
{
	return i % 8 == 1 ? 1000000 + i : 7 * i + 1;
}

static bool deleted16(__u32 j, __u32 l)
{
	return (j + l) % 5 == 0;
}

static __u64 val16(__u32 j, __u32 l)
{
	return 10 * j + l;
}

static int fill(int fd8, int fd16)
{
	struct bpf_ip_cookie_key k = {};
	__u32 i, l;
	__u64 v;

	for (i = 0; i < NR8; i++) {
		k.ip = fake_ip(i);
		v = 7 * i + 1;
		if (bpf_map_update_elem(fd8, &k.ip, &v, BPF_NOEXIST))
			return -errno;
	}
	for (i = 0; i < NR8; i++)
		if (i % 4 == 1) {
			k.ip = fake_ip(i);
			if (bpf_map_delete_elem(fd8, &k.ip))
				return -errno;
		}
	for (i = 0; i < NR8; i++)
		if (i % 8 == 1) {
			k.ip = fake_ip(i);
			v = val8(i);
			if (bpf_map_update_elem(fd8, &k.ip, &v, BPF_NOEXIST))
				return -errno;
		}
	for (i = 0; i < NR16_IPS; i++)
		for (l = 1; l <= NR_LINKS; l++) {
			k.ip = fake_ip(i);
			k.link_id = l;
			v = val16(i, l);
			if (bpf_map_update_elem(fd16, &k, &v, BPF_NOEXIST))
				return -errno;
		}
	for (i = 0; i < NR16_IPS; i++)
		for (l = 1; l <= NR_LINKS; l++)
			if (deleted16(i, l)) {
				k.ip = fake_ip(i);
				k.link_id = l;
				if (bpf_map_delete_elem(fd16, &k))
					return -errno;
			}
	return 0;
}

/* keys[i] and what each map must answer for it. */
static void make_keys(struct bpf_ip_cookie_key *keys, __u64 *exp8,
		      __u64 *exp16)
{
	__u32 i, l;

	for (i = 0; i < IPC_INL_KEYS; i++) {
		struct bpf_ip_cookie_key *k = &keys[i];

		l = i % NR_LINKS + 1;
		memset(k, 0, sizeof(*k));
		exp8[i] = IPC_PROBE_MISS;
		exp16[i] = IPC_PROBE_MISS;
		if (i == IPC_INL_KEYS - 1) {
			k->link_id = 1;	/* ip 0 */
			continue;
		}
		if (i >= NR8) {
			k->ip = fake_ip(ABSENT_BASE + i);
			k->link_id = l;
			continue;
		}
		k->ip = fake_ip(i);
		if (!deleted8(i))
			exp8[i] = val8(i);
		k->link_id = l;
		if (i % 16 == 3)
			k->reserved = 1;
		else if (i % 16 == 5)
			k->link_id = 0;
		else if (i < NR16_IPS && !deleted16(i, l))
			exp16[i] = val16(i, l);
	}
}

/* The answers for keys[from .. from + n - 1], in result slots 0 .. n - 1
 * when the program looked at keys[0] only (n == 1).
 */
static bool check_results(const struct ip_cookie_inline *skel,
			  const struct bpf_ip_cookie_key *keys, int from,
			  int n, const __u64 *exp8, const __u64 *exp16)
{
	int i, s;

	for (i = from; i < from + n; i++) {
		s = n == 1 ? 0 : i;
		if (!ASSERT_EQ(skel->bss->by_lookup8[s], exp8[i], "lookup8") ||
		    !ASSERT_EQ(skel->bss->by_kfunc[s], exp8[i], "kfunc") ||
		    !ASSERT_EQ(skel->bss->by_lookup16[s], exp16[i], "lookup16")) {
			printf("%s: key %d: ip %#llx link %u reserved %u\n",
			       __func__, i, keys[i].ip, keys[i].link_id,
			       keys[i].reserved);
			return false;
		}
	}
	return true;
}

static int count_calls_to(int prog_fd, const char *func)
{
	return count_insns(prog_fd, BPF_JMP | BPF_CALL,
			   (__s32)(ksym(func) - ksym("__bpf_call_base")));
}

/* Load the program on maps made by a task with (@priv) or without
 * CAP_PERFMON and CAP_SYS_ADMIN, load it the same way, and check every
 * answer and which paths were inlined.
 */
static void check_lookups(bool priv)
{
	const __u8 arsh = BPF_ALU64 | BPF_ARSH | BPF_K;
	static __u64 exp8[IPC_INL_KEYS], exp16[IPC_INL_KEYS];
	static struct bpf_ip_cookie_key keys[IPC_INL_KEYS];
	struct ip_cookie_inline *skel = NULL;
	int fd8 = -1, fd16 = -1, prog, err, i, off;
	__u64 kaddr[4], caps = 0;
	bool dropped = false;

	if (!priv) {
		err = cap_disable_effective(1ULL << CAP_PERFMON |
					    1ULL << CAP_SYS_ADMIN, &caps);
		if (!ASSERT_OK(err, "drop_perfmon"))
			return;
		dropped = true;
	}
	fd8 = create_map(8, 8, IPC_INL_MAX, 0);
	fd16 = create_map(16, 8, IPC_INL_MAX, 0);
	if (!ASSERT_GE(fd8, 0, "create8") || !ASSERT_GE(fd16, 0, "create16"))
		goto out;
	skel = ip_cookie_inline__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		goto out;
	/* Only the syscall programs: the others need CAP_PERFMON, and
	 * without it, lookup_all's indexing into the arrays is refused.
	 */
	bpf_program__set_autoload(skel->progs.count_fentry, false);
	bpf_program__set_autoload(skel->progs.count_kmulti, false);
	bpf_program__set_autoload(skel->progs.count_session, false);
	bpf_program__set_autoload(skel->progs.lookup_all, priv);
	bpf_program__set_autoload(skel->progs.lookup_unaligned, priv);
	if (!ASSERT_OK(bpf_map__reuse_fd(skel->maps.m8, fd8), "reuse8") ||
	    !ASSERT_OK(bpf_map__reuse_fd(skel->maps.m16, fd16), "reuse16"))
		goto out;
	err = ip_cookie_inline__load(skel);
	if (dropped) {
		cap_enable_effective(caps, NULL);
		dropped = false;
	}
	if (!ASSERT_OK(err, "load"))
		goto out;
	if (!ASSERT_OK(fill(fd8, fd16), "fill"))
		goto out;

	make_keys(keys, exp8, exp16);
	if (priv) {
		/* All keys in one run, each into its own result slot. */
		memcpy(skel->bss->keys, keys, sizeof(keys));
		skel->bss->nr_keys = IPC_INL_KEYS;
		prog = bpf_program__fd(skel->progs.lookup_all);
		if (!ASSERT_OK(bpf_prog_test_run_opts(prog, NULL), "run") ||
		    !check_results(skel, keys, 0, IPC_INL_KEYS, exp8, exp16))
			goto out;
		/* A key found both ways, at every byte offset. */
		for (i = 0; i < IPC_INL_KEYS; i++)
			if (exp8[i] != IPC_PROBE_MISS &&
			    exp16[i] != IPC_PROBE_MISS)
				break;
		if (!ASSERT_LT(i, IPC_INL_KEYS, "found_both"))
			goto out;
		skel->bss->keys[0] = keys[i];
		prog = bpf_program__fd(skel->progs.lookup_unaligned);
		if (!ASSERT_OK(bpf_prog_test_run_opts(prog, NULL), "run_unaligned"))
			goto out;
		for (off = 0; off < 8; off++) {
			ASSERT_EQ(skel->bss->by_unaligned8[off], exp8[i],
				  "unaligned8");
			ASSERT_EQ(skel->bss->by_unaligned16[off], exp16[i],
				  "unaligned16");
		}
	}
	/* Key by key, through keys[0]. */
	prog = bpf_program__fd(skel->progs.lookup_first);
	for (i = 0; i < IPC_INL_KEYS; i++) {
		skel->bss->keys[0] = keys[i];
		if (!ASSERT_OK(bpf_prog_test_run_opts(prog, NULL), "run_first") ||
		    !check_results(skel, keys, i, 1, exp8, exp16))
			goto out;
	}

	/* Nothing calls bpf_ip_cookie_lookup(): it is inlined either way. */
	ASSERT_EQ(kfunc_call_targets(skel->progs.lookup_first, kaddr, 4), 0,
		  "kfunc_inlined");
	ASSERT_EQ(count_calls_to(prog, "bpf_map_lookup_elem"), 0,
		  "no_generic_helper");
	if (priv) {
		/* The inlined 16-byte walk compares link_id and reserved as
		 * one little-endian word: big-endian kernels take the call.
		 */
		ASSERT_EQ(count_calls_to(prog, "ip_cookie_map_lookup_elem"),
			  __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
			  "lookup16_inlined");
		ASSERT_EQ(count_insns(prog, arsh, 63), 0, "no_clamp");
	} else {
		/* The 16-byte walk has no clamp: it takes the call. */
		ASSERT_EQ(count_calls_to(prog, "ip_cookie_map_lookup_elem"), 1,
			  "lookup16_called");
		/* The 8-byte lookup (map made without CAP_PERFMON) and the
		 * kfunc (program loaded without it) are clamped, unless
		 * the kernel runs without Spectre v1 mitigations.
		 */
		if (spectre_v1_mitigated())
			ASSERT_EQ(count_insns(prog, arsh, 63), 2, "clamped");
	}
out:
	if (dropped)
		cap_enable_effective(caps, NULL);
	ip_cookie_inline__destroy(skel);
	if (fd8 >= 0)
		close(fd8);
	if (fd16 >= 0)
		close(fd16);
}

#define RUNS	10

/* bpf_ip_cookie_lookup(&m8, bpf_get_func_ip(ctx)) from fentry (on
 * bpf_fentry_test1), kprobe.multi and kprobe.session (on all eight):
 * every hit counts in its function's own entry, among NR8 other keys, so
 * a wrong ip or a wrong inlined lookup shows.
 */
static void check_tracing(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct bpf_link *kmulti = NULL, *fentry = NULL, *session = NULL;
	struct ip_cookie_inline *skel;
	__u64 ip[NR_FUNCS], v, kaddr[4];
	int fd, i, n;

	skel = ip_cookie_inline__open_and_load();
	if (!ASSERT_OK_PTR(skel, "load"))
		return;
	fd = bpf_map__fd(skel->maps.m8);
	for (i = 0; i < NR8; i++) {
		v = 0;
		if (!ASSERT_OK(bpf_map_update_elem(fd, &(__u64){ fake_ip(i) },
						   &v, BPF_NOEXIST), "filler"))
			goto out;
	}
	for (i = 0; i < NR_FUNCS; i++) {
		ip[i] = ksym(fentry_funcs[i]);
		v = 0;
		if (!ASSERT_NEQ(ip[i], 0, fentry_funcs[i]) ||
		    !ASSERT_OK(bpf_map_update_elem(fd, &ip[i], &v, BPF_NOEXIST),
			       "fill"))
			goto out;
	}
	opts.syms = (const char **)fentry_funcs;
	opts.cnt = NR_FUNCS;
	kmulti = bpf_program__attach_kprobe_multi_opts(skel->progs.count_kmulti,
						       NULL, &opts);
	opts.session = true;
	session = bpf_program__attach_kprobe_multi_opts(skel->progs.count_session,
							NULL, &opts);
	opts.session = false;
	fentry = bpf_program__attach(skel->progs.count_fentry);
	if (!ASSERT_OK_PTR(kmulti, "attach_kmulti") ||
	    !ASSERT_OK_PTR(session, "attach_session") ||
	    !ASSERT_OK_PTR(fentry, "attach_fentry"))
		goto out;
	/* A test run of an fentry program calls bpf_fentry_test1..8. */
	for (i = 0; i < RUNS; i++)
		if (!ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.count_fentry),
						      NULL), "trigger"))
			goto out;
	ASSERT_EQ(skel->bss->missed, 0, "missed");
	for (i = 0; i < NR_FUNCS; i++) {
		ASSERT_OK(bpf_map_lookup_elem(fd, &ip[i], &v), "lookup");
		/* kprobe.multi once, kprobe.session twice, fentry on test1 */
		ASSERT_EQ(v, (i ? 3 : 4) * RUNS, fentry_funcs[i]);
	}
	for (i = 0; i < 3; i++) {
		struct bpf_program *p = i == 0 ? skel->progs.count_fentry :
					i == 1 ? skel->progs.count_kmulti :
						 skel->progs.count_session;

		n = kfunc_call_targets(p, kaddr, 4);
		ASSERT_EQ(n, 0, "kfunc_inlined");
	}
out:
	bpf_link__destroy(fentry);
	bpf_link__destroy(session);
	bpf_link__destroy(kmulti);
	ip_cookie_inline__destroy(skel);
}

void test_ip_cookie_inline(void)
{
	if (test__start_subtest("privileged"))
		check_lookups(true);
	if (test__start_subtest("no_perfmon"))
		check_lookups(false);
	if (test__start_subtest("tracing") && have_kprobe_multi())
		check_tracing();
}
