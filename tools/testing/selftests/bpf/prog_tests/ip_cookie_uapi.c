// SPDX-License-Identifier: GPL-2.0
/* BPF_MAP_TYPE_IP_COOKIE where its syscall interface meets the rest of
 * BPF: the key and value BTF a map may carry (and bpffs prints with),
 * batch flags, get_next_key of a key that is not in the map, batch
 * buffers of every value alignment, and key sets whose hashes the old
 * hash could not separate.
 */
#include <test_progs.h>
#include <sys/mount.h>
#include <bpf/btf.h>
#include "ip_cookie_helpers.h"

#define PIN_DIR		"/sys/fs/bpf/ipc_uapi"

static int create(enum bpf_map_type type, __u32 key_size, __u32 value_size,
		  __u32 max_entries, int btf_fd, __u32 key_id, __u32 value_id)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .btf_fd = btf_fd,
		    .btf_key_type_id = key_id, .btf_value_type_id = value_id);

	return bpf_map_create(type, "ipc_uapi", key_size, value_size,
			      max_entries, btf_fd >= 0 ? &opts : NULL);
}

/* Type IDs of the BTF the btf_keys subtest loads. */
struct uapi_btf {
	int u32, u64, s64, i128, ptr;
	int one_u64;		/* struct { __u64 ip; } */
	int two_u32;		/* struct { __u32 a, b; } */
	int key16;		/* struct bpf_ip_cookie_key's layout */
	int key16_swapped;	/* struct { __u32 a, b; __u64 ip; } */
	int key16_bitfield;	/* { __u64 ip; __u32 link_id:32; __u32 r; } */
	int spin_val;		/* struct { struct bpf_spin_lock l; __u32 x; } */
};

static int load_btf(struct uapi_btf *t)
{
	struct btf *btf = btf__new_empty();
	int lock, fd;

	if (!btf)
		return -ENOMEM;
	t->u32 = btf__add_int(btf, "unsigned int", 4, 0);
	t->u64 = btf__add_int(btf, "long long unsigned int", 8, 0);
	t->s64 = btf__add_int(btf, "long long int", 8, BTF_INT_SIGNED);
	t->i128 = btf__add_int(btf, "__int128 unsigned", 16, 0);
	t->ptr = btf__add_ptr(btf, t->u64);

	t->one_u64 = btf__add_struct(btf, "one_u64", 8);
	btf__add_field(btf, "ip", t->u64, 0, 0);

	t->two_u32 = btf__add_struct(btf, "two_u32", 8);
	btf__add_field(btf, "a", t->u32, 0, 0);
	btf__add_field(btf, "b", t->u32, 32, 0);

	t->key16 = btf__add_struct(btf, "bpf_ip_cookie_key", 16);
	btf__add_field(btf, "ip", t->u64, 0, 0);
	btf__add_field(btf, "link_id", t->u32, 64, 0);
	btf__add_field(btf, "reserved", t->u32, 96, 0);

	t->key16_swapped = btf__add_struct(btf, "swapped", 16);
	btf__add_field(btf, "a", t->u32, 0, 0);
	btf__add_field(btf, "b", t->u32, 32, 0);
	btf__add_field(btf, "ip", t->u64, 64, 0);

	t->key16_bitfield = btf__add_struct(btf, "bitfield", 16);
	btf__add_field(btf, "ip", t->u64, 0, 0);
	btf__add_field(btf, "link_id", t->u32, 64, 16);
	btf__add_field(btf, "reserved", t->u32, 96, 0);

	lock = btf__add_struct(btf, "bpf_spin_lock", 4);
	btf__add_field(btf, "val", t->u32, 0, 0);
	t->spin_val = btf__add_struct(btf, "locked", 8);
	btf__add_field(btf, "l", lock, 0, 0);
	btf__add_field(btf, "x", t->u32, 32, 0);

	if (t->spin_val < 0 || btf__load_into_kernel(btf)) {
		btf__free(btf);
		return -EINVAL;
	}
	fd = dup(btf__fd(btf));
	btf__free(btf);
	return fd;
}

/* What a bpffs file of a pinned map prints: its first line in @buf. */
static int read_pinned(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *got;

	if (!f)
		return -errno;
	/* bpffs prints a comment line, then one line per entry */
	got = fgets(buf, len, f);
	while (got && buf[0] == '#')
		got = fgets(buf, len, f);
	fclose(f);
	return got ? 0 : -ENOENT;
}

/* Key and value BTF: IP_COOKIE accepts and refuses what HASH does, with
 * the same errno, and every map it accepts prints in bpffs.  A map with
 * value BTF and no key BTF was once accepted, and reading its bpffs file
 * oopsed: it must be refused as HASH refuses it.  A pointer key is 8
 * bytes only on a 64-bit kernel: on a 32-bit one, both refuse it.
 */
static void test_btf_keys(void)
{
	size_t ptr_size = kernel_ptr_size();
	struct uapi_btf t = {};
	struct {
		const char *name;
		__u32 key_size, value_size;
		int *key_id, *value_id;
		int hash_err, ipc_err;
	} cases[] = {
		{ "void_key", 8, 8, NULL, &t.u64, -EINVAL, -EINVAL },
		{ "u64", 8, 8, &t.u64, &t.u64, 0, 0 },
		{ "s64", 8, 8, &t.s64, &t.u64, 0, 0 },
		{ "one_u64", 8, 8, &t.one_u64, &t.u64, 0, 0 },
		{ "two_u32", 8, 8, &t.two_u32, &t.u64, 0, 0 },
		{ "ptr", 8, 8, &t.ptr, &t.u64, ptr_size == 8 ? 0 : -EINVAL,
		  ptr_size == 8 ? 0 : -EINVAL },
		{ "key_size_mismatch", 8, 8, &t.u32, &t.u64, -EINVAL, -EINVAL },
		{ "key16", 16, 8, &t.key16, &t.u64, 0, 0 },
		{ "key16_swapped", 16, 8, &t.key16_swapped, &t.u64, 0, 0 },
		{ "key16_bitfield", 16, 8, &t.key16_bitfield, &t.u64, 0, 0 },
		{ "key16_int128", 16, 8, &t.i128, &t.u64, 0, 0 },
		{ "value_mismatch", 8, 8, &t.u64, &t.u32, -EINVAL, -EINVAL },
		/* Special fields: this map has none of them. */
		{ "spin_lock", 8, 8, &t.u64, &t.spin_val, 0, -EOPNOTSUPP },
	};
	struct bpf_ip_cookie_key key16 = { .ip = fake_ip(1), .link_id = 3 };
	char path[64], line[256];
	int btf_fd, i, fd, hfd;
	__u64 key, val;

	if (!ASSERT_TRUE(ptr_size == 4 || ptr_size == 8, "kernel_ptr_size"))
		return;
	btf_fd = load_btf(&t);
	if (!ASSERT_OK_FD(btf_fd, "load_btf"))
		return;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		__u32 kid = 0, vid = *cases[i].value_id;
		int herr, err;

		if (cases[i].key_id)
			kid = *cases[i].key_id;
		hfd = create(BPF_MAP_TYPE_HASH, cases[i].key_size,
			     cases[i].value_size, 4, btf_fd, kid, vid);
		fd = create(BPF_MAP_TYPE_IP_COOKIE, cases[i].key_size,
			    cases[i].value_size, 4, btf_fd, kid, vid);
		herr = hfd < 0 ? hfd : 0;
		err = fd < 0 ? fd : 0;
		if (!ASSERT_EQ(herr, cases[i].hash_err, "hash") ||
		    !ASSERT_EQ(err, cases[i].ipc_err, "ip_cookie"))
			printf("%s: case %s: hash %d, ip_cookie %d\n", __func__,
			       cases[i].name, hfd, fd);
		if (hfd >= 0)
			close(hfd);
		if (fd < 0)
			continue;

		/* Every map with BTF that is accepted prints in bpffs. */
		snprintf(path, sizeof(path), PIN_DIR "_%d", i);
		unlink(path);
		key = fake_ip(1);
		val = 42;
		if (ASSERT_OK(bpf_obj_pin(fd, path), "pin")) {
			if (cases[i].key_size == 8)
				ASSERT_OK(bpf_map_update_elem(fd, &key, &val, 0),
					  "update8");
			else
				ASSERT_OK(bpf_map_update_elem(fd, &key16, &val, 0),
					  "update16");
			if (ASSERT_OK(read_pinned(path, line, sizeof(line)),
				      "read_pinned"))
				ASSERT_OK_PTR(strstr(line, ": 42"), "printed");
			unlink(path);
		}
		close(fd);
	}
	close(btf_fd);
}

/* Batch updates take no element flags, as generic_map_update_batch()
 * refuses everything but BPF_F_LOCK for every map (and BPF_F_LOCK needs
 * a spin lock): nothing changes, and the count, refused before the kernel
 * writes it, is what the caller passed.
 */
static void test_batch_flags(void)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 flags[] = { BPF_NOEXIST, BPF_EXIST, BPF_F_LOCK, 1ULL << 32 };
	__u64 keys[4], vals[4], key, next;
	__u32 cnt;
	int fd, i;

	fd = create(BPF_MAP_TYPE_IP_COOKIE, 8, 8, 16, -1, 0, 0);
	if (!ASSERT_OK_FD(fd, "create"))
		return;
	for (i = 0; i < 4; i++) {
		keys[i] = fake_ip(i + 1);
		vals[i] = i;
	}
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		opts.elem_flags = flags[i];
		cnt = 4;
		ASSERT_EQ(bpf_map_update_batch(fd, keys, vals, &cnt, &opts),
			  -EINVAL, "update_batch_flags");
		ASSERT_EQ(cnt, 4, "count");
		ASSERT_EQ(bpf_map_get_next_key(fd, NULL, &key), -ENOENT,
			  "unchanged");
	}
	opts.elem_flags = 0;
	cnt = 4;
	ASSERT_OK(bpf_map_update_batch(fd, keys, vals, &cnt, &opts), "any");
	ASSERT_EQ(cnt, 4, "count_any");
	/* A repeated batch replaces, as BPF_ANY does. */
	vals[0] = 100;
	cnt = 4;
	ASSERT_OK(bpf_map_update_batch(fd, keys, vals, &cnt, &opts), "again");
	ASSERT_OK(bpf_map_lookup_elem(fd, &keys[0], &next), "lookup");
	ASSERT_EQ(next, 100, "replaced");
	close(fd);
}

/* get_next_key of a key that is not in the map returns the first key,
 * as for HASH: tools that start a walk with a dummy key (or with the key
 * they just deleted) see the whole map.
 */
static void test_next_key_missing(void)
{
	struct bpf_ip_cookie_key k16, first16, next16, dummy16 = {};
	__u64 first, next, dummy, keys[64], val = 1;
	int fd, fd16, i, j, n;

	fd = create(BPF_MAP_TYPE_IP_COOKIE, 8, 8, 64, -1, 0, 0);
	fd16 = create(BPF_MAP_TYPE_IP_COOKIE, 16, 8, 64, -1, 0, 0);
	if (!ASSERT_OK_FD(fd, "create") || !ASSERT_OK_FD(fd16, "create16"))
		goto out;
	for (i = 0; i < 64; i++) {
		keys[i] = fake_ip(i + 1);
		k16.ip = keys[i];
		k16.link_id = 9;
		k16.reserved = 0;
		if (!ASSERT_OK(bpf_map_update_elem(fd, &keys[i], &val, 0), "add") ||
		    !ASSERT_OK(bpf_map_update_elem(fd16, &k16, &val, 0), "add16"))
			goto out;
	}
	if (!ASSERT_OK(bpf_map_get_next_key(fd, NULL, &first), "first") ||
	    !ASSERT_OK(bpf_map_get_next_key(fd16, NULL, &first16), "first16"))
		goto out;

	/* Dummy keys that no map holds: 0, an absent address, the largest
	 * key the kernel takes (~0 of its word size).
	 */
	for (i = 0; i < 3; i++) {
		dummy = i == 0 ? 0 : i == 1 ? fake_ip(0x100000) : (unsigned long)~0UL;
		ASSERT_OK(bpf_map_get_next_key(fd, &dummy, &next), "dummy");
		ASSERT_EQ(next, first, "dummy_first");
		dummy16.ip = dummy;
		dummy16.link_id = i;
		ASSERT_OK(bpf_map_get_next_key(fd16, &dummy16, &next16),
			  "dummy16");
		ASSERT_OK(memcmp(&next16, &first16, sizeof(next16)),
			  "dummy16_first");
	}

	/* A key deleted mid-walk starts it over; a walk from there still
	 * sees every remaining key.
	 */
	next = first;
	for (i = 0; i < 10; i++)
		if (!ASSERT_OK(bpf_map_get_next_key(fd, &next, &next), "walk"))
			goto out;
	if (!ASSERT_OK(bpf_map_delete_elem(fd, &next), "delete"))
		goto out;
	ASSERT_OK(bpf_map_get_next_key(fd, &next, &dummy), "deleted");
	ASSERT_EQ(dummy, first, "deleted_first");
	n = 1;
	while (!bpf_map_get_next_key(fd, &dummy, &dummy) && n < 100)
		n++;
	ASSERT_EQ(n, 63, "walk_after_delete");
	for (j = 0; j < 64; j++)
		if (keys[j] == next)
			break;
	ASSERT_LT(j, 64, "deleted_was_ours");
out:
	if (fd >= 0)
		close(fd);
	if (fd16 >= 0)
		close(fd16);
}

/* Batches with values whose size is not a multiple of 8 put each key at
 * an unaligned offset of a packed buffer; the kernel reads keys in place
 * (a UBSAN_ALIGNMENT kernel reports a misaligned load).  Values of 1, 4,
 * 12 and 13 bytes round-trip through batch update, lookup and delete.
 */
static void test_batch_align(void)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u8 vals[300 * 13], out[300 * 13], got[16];
	__u64 keys[300], okeys[300], batch;
	__u32 sizes[] = { 1, 4, 12, 13 };
	__u32 n = 300, cnt, i, s, vs;
	int fd, err;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		vs = sizes[s];
		fd = create(BPF_MAP_TYPE_IP_COOKIE, 8, vs, n, -1, 0, 0);
		if (!ASSERT_OK_FD(fd, "create"))
			return;
		for (i = 0; i < n; i++) {
			keys[i] = fake_ip(i + 1);
			memset(vals + i * vs, (i * 7 + vs) & 0xff, vs);
		}
		cnt = n;
		if (!ASSERT_OK(bpf_map_update_batch(fd, keys, vals, &cnt, &opts),
			       "update_batch") || !ASSERT_EQ(cnt, n, "updated"))
			goto next;
		for (i = 0; i < n; i++) {
			memset(got, 0xee, sizeof(got));
			if (!ASSERT_OK(bpf_map_lookup_elem(fd, &keys[i], got),
				       "lookup") ||
			    !ASSERT_OK(memcmp(got, vals + i * vs, vs), "value"))
				goto next;
		}
		cnt = n;
		err = bpf_map_lookup_batch(fd, NULL, &batch, okeys, out, &cnt,
					   &opts);
		ASSERT_TRUE(!err || err == -ENOENT, "lookup_batch");
		ASSERT_EQ(cnt, n, "looked_up");
		cnt = n;
		ASSERT_OK(bpf_map_delete_batch(fd, keys, &cnt, &opts),
			  "delete_batch");
		ASSERT_EQ(cnt, n, "deleted");
		ASSERT_EQ(bpf_map_get_next_key(fd, NULL, &batch), -ENOENT,
			  "empty");
next:
		close(fd);
	}
}

/* Keys whose differences no seed of the old hash could change: they all
 * fell in one probe sequence, and inserts failed with -ENOSPC long before
 * max_entries.  Every insert up to max_entries must succeed and every key
 * be found.
 */
static void test_hash_clusters(void)
{
	/* A 32-bit kernel refuses keys of 2^32 and above (key_width): the
	 * sets that need them are left out there, the others use addresses
	 * below 2^32.
	 */
	bool wide = kernel_ptr_size() == 8;
	__u64 ip16 = wide ? 0xffffffff81000010ULL : 0x81000010ULL;
	const __u32 n = 1000;
	struct bpf_ip_cookie_key k;
	int fd, set, err;
	__u64 key, val;
	__u32 i;

	/* {ip, link_id} with one ip, link IDs 9227465 (a Fibonacci
	 * number) apart; then with ips 2^32 and 2^40 apart.
	 */
	for (set = 0; set < 3; set++) {
		if (set && !wide)
			continue;
		fd = create(BPF_MAP_TYPE_IP_COOKIE, 16, 8, n, -1, 0, 0);
		if (!ASSERT_OK_FD(fd, "create16"))
			return;
		for (i = 0; i < n; i++) {
			k.ip = ip16;
			k.link_id = 1 + i * 9227465;
			k.reserved = 0;
			if (set == 1)
				k.ip += (__u64)i << 32;
			else if (set == 2)
				k.ip = 0x10 + ((__u64)i << 40);
			val = i;
			err = bpf_map_update_elem(fd, &k, &val, BPF_NOEXIST);
			if (!ASSERT_OK(err, "insert16")) {
				printf("%s: set %d: key %u of %u: %d\n",
				       __func__, set, i, n, err);
				break;
			}
		}
		for (i = 0; i < n && !err; i++) {
			k.ip = ip16;
			k.link_id = 1 + i * 9227465;
			if (set == 1)
				k.ip += (__u64)i << 32;
			else if (set == 2)
				k.ip = 0x10 + ((__u64)i << 40);
			if (!ASSERT_OK(bpf_map_lookup_elem(fd, &k, &val),
				       "lookup16") ||
			    !ASSERT_EQ(val, i, "value16"))
				break;
		}
		close(fd);
	}

	/* 8-byte keys: high-bit-only differences, and a Fibonacci-spaced
	 * arithmetic progression (the worst case of a fixed golden-ratio
	 * multiplier).
	 */
	for (set = 0; set < 3; set++) {
		if (set < 2 && !wide)
			continue;
		fd = create(BPF_MAP_TYPE_IP_COOKIE, 8, 8, n, -1, 0, 0);
		if (!ASSERT_OK_FD(fd, "create8"))
			return;
		for (i = 0; i < n; i++) {
			if (set == 0)
				key = 0x10 + ((__u64)(i + 1) << 48);
			else if (set == 1)
				key = 0xffff000000000000ULL + ((__u64)(i + 1) << 32);
			else if (wide)
				key = 0xffffffff81000000ULL + (i + 1) * 9227465ULL * 16;
			else	/* distinct and nonzero for n = 1000 */
				key = (__u32)(0x81000000U + (i + 1) * 9227465U * 16);
			val = i;
			err = bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST);
			if (!ASSERT_OK(err, "insert8")) {
				printf("%s: set %d: key %u of %u: %d\n",
				       __func__, set, i, n, err);
				break;
			}
		}
		close(fd);
	}
}

/* Keys of 2^32 and above: a 32-bit kernel refuses them with EINVAL from
 * every syscall and the map stays empty.  Its readers load a slot's 64-bit
 * ip in two 32-bit halves; with every key's upper half 0, a reader racing
 * with an insert cannot match half of the new key.  A 64-bit kernel takes
 * them like any key.
 */
static void test_key_width(void)
{
	bool wide = kernel_ptr_size() == 8;
	__u64 ips[] = { 0x100001000ULL, 0xffffffff81000010ULL };
	struct bpf_ip_cookie_key k16 = { .link_id = 1 };
	__u64 next, val = 7, out;
	int fd8, fd16, want;
	__u32 i;

	if (!ASSERT_TRUE(kernel_ptr_size() == 4 || wide, "kernel_ptr_size"))
		return;
	want = wide ? 0 : -EINVAL;
	fd8 = create(BPF_MAP_TYPE_IP_COOKIE, 8, 8, 4, -1, 0, 0);
	fd16 = create(BPF_MAP_TYPE_IP_COOKIE, 16, 8, 4, -1, 0, 0);
	if (!ASSERT_OK_FD(fd8, "create8") || !ASSERT_OK_FD(fd16, "create16"))
		goto out;
	for (i = 0; i < ARRAY_SIZE(ips); i++) {
		k16.ip = ips[i];
		ASSERT_EQ(bpf_map_update_elem(fd8, &ips[i], &val, BPF_ANY), want,
			  "update8");
		ASSERT_EQ(bpf_map_update_elem(fd16, &k16, &val, BPF_ANY), want,
			  "update16");
		ASSERT_EQ(bpf_map_lookup_elem(fd8, &ips[i], &out), want,
			  "lookup8");
		ASSERT_EQ(bpf_map_lookup_elem(fd16, &k16, &out), want,
			  "lookup16");
		ASSERT_EQ(bpf_map_delete_elem(fd8, &ips[i]), want, "delete8");
		ASSERT_EQ(bpf_map_delete_elem(fd16, &k16), want, "delete16");
	}
	/* The same key below 2^32 is taken on both. */
	next = 0x1000;
	ASSERT_OK(bpf_map_update_elem(fd8, &next, &val, BPF_ANY), "update8_low");
	ASSERT_OK(bpf_map_delete_elem(fd8, &next), "delete8_low");
	ASSERT_EQ(bpf_map_get_next_key(fd8, NULL, &next), -ENOENT, "empty8");
	ASSERT_EQ(bpf_map_get_next_key(fd16, NULL, &k16), -ENOENT, "empty16");
out:
	if (fd8 >= 0)
		close(fd8);
	if (fd16 >= 0)
		close(fd16);
}

void test_ip_cookie_uapi(void)
{
	if (test__start_subtest("btf_keys"))
		test_btf_keys();
	if (test__start_subtest("batch_flags"))
		test_batch_flags();
	if (test__start_subtest("next_key_missing"))
		test_next_key_missing();
	if (test__start_subtest("batch_align"))
		test_batch_align();
	if (test__start_subtest("hash_clusters"))
		test_hash_clusters();
	if (test__start_subtest("key_width"))
		test_key_width();
}
