// SPDX-License-Identifier: GPL-2.0
/* The seq_file print of 128-bit bitfields, as a pinned map's bpffs file
 * shows them.  btf_bitfield_show() asks btf_int128_shift() to shift by 0
 * when a bitfield ends on bit 128 of the bytes it copies (b and c below)
 * and, on big-endian, when it starts on a byte boundary (a and c).  A
 * shift by 0 moved the other half by 64 bits: UBSAN reports it, and
 * x86-64, which masks the shift count, printed b and c with the two
 * halves ORed together.
 */
#include <test_progs.h>
#include <bpf/btf.h>

#if !defined(__SIZEOF_INT128__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "no __int128: the values are laid out for little-endian"
#endif

#define PIN_PATH	"/sys/fs/bpf/btf_int128_show"
#define VALUE_SIZE	32

/* a = 0xf, b = 0x30000000000000005, c = 0x10000000000000002, as the
 * value type below lays them out: a in the first 4 bits of the first 16
 * bytes and b in the other 124, c in the next 16 bytes.  b and c have
 * bits in both halves of their 128 bits.
 */
static void fill(void *buf)
{
#ifdef __SIZEOF_INT128__
	__u128 v[2], a = 0xf, b = ((__u128)3 << 64) | 5;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v[0] = b << 4 | a;
#else
	v[0] = a << 124 | b;
#endif
	v[1] = ((__u128)1 << 64) | 2;
	memcpy(buf, v, sizeof(v));
#else
	/* a 32-bit little-endian target: the same bits, word by word */
	__u64 w[4] = { 5 << 4 | 0xf, 3 << 4, 2, 1 };

	memcpy(buf, w, sizeof(w));
#endif
}

static int load_btf(int *key_id, int *value_id)
{
	struct btf *btf = btf__new_empty();
	int u128, fd;

	if (!btf)
		return -ENOMEM;
	*key_id = btf__add_int(btf, "unsigned int", 4, 0);
	u128 = btf__add_int(btf, "unsigned __int128", 16, 0);
	*value_id = btf__add_struct(btf, "bits128", VALUE_SIZE);
	btf__add_field(btf, "a", u128, 0, 4);
	btf__add_field(btf, "b", u128, 4, 124);
	btf__add_field(btf, "c", u128, 128, 128);
	if (*value_id < 0 || btf__load_into_kernel(btf)) {
		btf__free(btf);
		return -EINVAL;
	}
	fd = dup(btf__fd(btf));
	btf__free(btf);
	return fd;
}

void test_btf_int128_show(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int key_id, value_id, btf_fd, fd = -1;
	char value[VALUE_SIZE], line[256];
	FILE *f = NULL;
	__u32 key = 0;
	char *got;

	btf_fd = load_btf(&key_id, &value_id);
	if (!ASSERT_OK_FD(btf_fd, "load_btf"))
		return;
	opts.btf_fd = btf_fd;
	opts.btf_key_type_id = key_id;
	opts.btf_value_type_id = value_id;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "int128_show", sizeof(key),
			    VALUE_SIZE, 1, &opts);
	if (!ASSERT_OK_FD(fd, "map_create"))
		goto out;
	fill(value);
	if (!ASSERT_OK(bpf_map_update_elem(fd, &key, value, 0), "update"))
		goto out;
	unlink(PIN_PATH);
	if (!ASSERT_OK(bpf_obj_pin(fd, PIN_PATH), "pin"))
		goto out;
	f = fopen(PIN_PATH, "r");
	if (!ASSERT_OK_PTR(f, "fopen"))
		goto unpin;
	/* a comment line, then "0: {<a>,<b>,<c>}" */
	do {
		got = fgets(line, sizeof(line), f);
	} while (got && line[0] == '#');
	if (!ASSERT_OK_PTR(got, "read"))
		goto unpin;
	if (!ASSERT_OK_PTR(strstr(line, "{0xf,"), "a") ||
	    !ASSERT_OK_PTR(strstr(line, ",0x30000000000000005,"), "b") ||
	    !ASSERT_OK_PTR(strstr(line, ",0x10000000000000002"), "c"))
		printf("%s: printed: %s", __func__, line);
unpin:
	if (f)
		fclose(f);
	unlink(PIN_PATH);
out:
	if (fd >= 0)
		close(fd);
	close(btf_fd);
}
