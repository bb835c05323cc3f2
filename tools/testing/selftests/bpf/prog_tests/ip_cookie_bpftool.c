// SPDX-License-Identifier: GPL-2.0
/* bpftool and BPF_MAP_TYPE_IP_COOKIE: dumps with and without BTF, plain
 * and JSON, maps created and filled from the command line, keys given as
 * "sym [MODULE:]NAME" and dumps naming each key's function.  Serial: it
 * sets kernel.kptr_restrict to 2 for a while.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <sys/wait.h>
#include "ip_cookie_helpers.h"
#include "ip_cookie.skel.h"

static char sh_out[1 << 16];

/* Run a shell command; its output (stdout and stderr) is left in sh_out.
 * Returns its exit status, -1 if it did not exit.
 */
static int __printf(1, 2) run_sh(const char *fmt, ...)
{
	size_t len = 0, n;
	char cmd[1024];
	va_list ap;
	FILE *f;
	int st;

	sh_out[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
	va_end(ap);
	strcat(cmd, " 2>&1");
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (len < sizeof(sh_out) - 1 &&
	       (n = fread(sh_out + len, 1, sizeof(sh_out) - 1 - len, f)) > 0)
		len += n;
	sh_out[len] = '\0';
	st = pclose(f);
	if (env.verbosity > VERBOSE_NONE)
		printf("$ %s\n%s", cmd, sh_out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The @n bytes at @p as bpftool prints and parses them, in memory order
 * (the host's byte order: s390x is big-endian): two hex digits each, one
 * space between, two after every eighth (@buf needs 3 * @n + @n / 8
 * bytes).  Returns @buf.
 */
static char *hex_bytes(const void *p, size_t n, char *buf)
{
	const unsigned char *b = p;
	size_t i, len = 0;

	for (i = 0; i < n; i++)
		len += sprintf(buf + len, "%s%02x", !i ? "" : i % 8 ? " " : "  ",
			       b[i]);
	return buf;
}

/* {ip, link_id} keys, with BTF (plain and JSON) and as hex without */
static void bpftool_dump_key16(struct ip_cookie *skel, const char *bpftool)
{
	struct bpf_ip_cookie_key key = { .ip = 0xffffffff81000040ULL,
					 .link_id = 7 };
	char want[128], key_hex[64], val_hex[32];
	__u64 val = 4242;
	int fd;

	fd = bpf_map__fd(skel->maps.link_keyed_map);
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill16");
	if (!ASSERT_NEQ(map_id(fd), 0, "info16"))
		return;
	if (ASSERT_OK(run_sh("%s map dump id %u", bpftool, map_id(fd)),
		      "bpftool_plain16")) {
		snprintf(want, sizeof(want), "\"ip\": %llu", key.ip);
		ASSERT_HAS_SUBSTR(sh_out, want, "plain16_ip");
		ASSERT_HAS_SUBSTR(sh_out, "\"link_id\": 7,", "plain16_link");
		ASSERT_HAS_SUBSTR(sh_out, "\"reserved\": 0", "plain16_reserved");
		ASSERT_HAS_SUBSTR(sh_out, "\"value\": 4242", "plain16_value");
	}
	if (ASSERT_OK(run_sh("%s -j map dump id %u", bpftool, map_id(fd)),
		      "bpftool_json16")) {
		snprintf(want, sizeof(want),
			 "\"key\":{\"ip\":%llu,\"link_id\":7,\"reserved\":0}",
			 key.ip);
		ASSERT_HAS_SUBSTR(sh_out, want, "json16_key");
		ASSERT_HAS_SUBSTR(sh_out, "\"value\":4242", "json16_value");
	}

	/* Without BTF: the key's bytes, in two groups of eight */
	fd = create_map(16, 8, 4, 0);
	if (!ASSERT_GE(fd, 0, "create16"))
		return;
	val = 42;
	if (ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill16_hex") &&
	    ASSERT_NEQ(map_id(fd), 0, "info16_hex") &&
	    ASSERT_OK(run_sh("%s map dump id %u", bpftool, map_id(fd)),
		      "bpftool_hex16")) {
		snprintf(want, sizeof(want), "key: %s  value: %s",
			 hex_bytes(&key, sizeof(key), key_hex),
			 hex_bytes(&val, sizeof(val), val_hex));
		ASSERT_HAS_SUBSTR(sh_out, want, "hex16_dump");
	}
	close(fd);
}

/* bpftool pretty-prints the map with its BTF, plain and as JSON. */
static void test_bpftool_dump(void)
{
	const char *key_hex = "40 00 00 81 ff ff ff ff";
	const char *val_hex = "2a 00 00 00 00 00 00 00";
	const char *pin = "/sys/fs/bpf/ipc_cli";
	__u64 key = 0xffffffff81000040ULL, val = 4242;
	struct ip_cookie *skel;
	const char *bpftool;
	char want[128];
	__u32 id;
	int fd;

	skel = ip_cookie__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	fd = bpf_map__fd(skel->maps.ip_map);
	ASSERT_OK(bpf_map_update_elem(fd, &key, &val, BPF_ANY), "fill");
	id = map_id(fd);
	if (!ASSERT_NEQ(id, 0, "info"))
		goto out;
	/* The one built with the kernel, next to test_progs, else $PATH's. */
	bpftool = access("./bpftool", X_OK) ? "bpftool" : "./bpftool";

	if (ASSERT_OK(run_sh("%s map dump id %u", bpftool, id), "bpftool_plain")) {
		snprintf(want, sizeof(want), "\"key\": %llu", key);
		ASSERT_HAS_SUBSTR(sh_out, want, "plain_key");
		ASSERT_HAS_SUBSTR(sh_out, "\"value\": 4242", "plain_value");
	}
	if (ASSERT_OK(run_sh("%s -j map dump id %u", bpftool, id), "bpftool_json")) {
		snprintf(want, sizeof(want), "\"key\":%llu", key);
		ASSERT_HAS_SUBSTR(sh_out, want, "json_key");
		ASSERT_HAS_SUBSTR(sh_out, "\"value\":4242", "json_value");
	}

	/* Create, fill and dump a map from the command line. */
	if (!ASSERT_OK(run_sh("%s map create %s type ip_cookie %s", bpftool, pin,
			      "key 8 value 8 entries 4 name ipc_cli"),
		       "bpftool_create"))
		goto out;
	ASSERT_OK(run_sh("%s map update pinned %s key hex %s value hex %s",
			 bpftool, pin, key_hex, val_hex), "bpftool_update");
	if (ASSERT_OK(run_sh("%s map dump pinned %s", bpftool, pin),
		      "bpftool_dump_cli")) {
		snprintf(want, sizeof(want), "key: %s  value: %s", key_hex, val_hex);
		ASSERT_HAS_SUBSTR(sh_out, want, "cli_dump");
	}
	unlink(pin);
	bpftool_dump_key16(skel, bpftool);
out:
	ip_cookie__destroy(skel);
}

#define SYM_MAX_ADDRS	16

/* The oracle: distinct addresses of the text symbols called @name in
 * /proc/kallsyms, of module @mod unless NULL, up to @max of them in @addrs.
 * Returns how many there are.
 */
static int text_addrs(const char *mod, const char *name, __u64 *addrs, int max)
{
	struct ipc_ksym_filter f = { .module = mod, .name = name };

	return kallsyms_addrs(&f, addrs, max);
}

static int ksym_name_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A text symbol name that several functions share: probes_open (trace_kprobe.c
 * and trace_uprobe.c), or else the first such name in /proc/kallsyms.
 */
static int find_dup_name(char *name, size_t size)
{
	struct ipc_ksym_filter f = {};
	struct ksyms *t;
	__u64 addrs[2];
	int err = -ENOENT;
	size_t i;

	if (text_addrs(NULL, "probes_open", addrs, 2) >= 2) {
		snprintf(name, size, "probes_open");
		return 0;
	}
	t = ipc_load_ksyms(&f);
	if (!t)
		return -errno;
	qsort(t->syms, t->sym_cnt, sizeof(*t->syms), ksym_name_cmp);
	for (i = 1; i < t->sym_cnt && err; i++) {
		if (!strcmp(t->syms[i].name, t->syms[i - 1].name) &&
		    t->syms[i].addr != t->syms[i - 1].addr) {
			snprintf(name, size, "%s", t->syms[i].name);
			err = 0;
		}
	}
	free_kallsyms_local(t);
	return err;
}

/* The map holds exactly @key, of @size bytes */
static void expect_only_key(int fd, const void *key, __u32 size,
			    const char *name)
{
	char got[16], next[16];

	if (!ASSERT_OK(bpf_map_get_next_key(fd, NULL, got), name))
		return;
	ASSERT_OK(memcmp(got, key, size), name);
	ASSERT_ERR(bpf_map_get_next_key(fd, got, next), name);
}

/* "key sym @sym" fails with @msg and adds nothing to the empty map @fd */
static void expect_sym_error(const char *bpftool, int fd, const char *sym,
			     const char *msg, const char *name)
{
	__u64 key;

	ASSERT_NEQ(run_sh("%s map update id %u key sym %s value hex 2a 00 00 00 00 00 00 00",
			  bpftool, map_id(fd), sym), 0, name);
	ASSERT_HAS_SUBSTR(sh_out, msg, name);
	ASSERT_ERR(bpf_map_get_next_key(fd, NULL, &key), name);
}

#define KPTR_RESTRICT	"/proc/sys/kernel/kptr_restrict"

/* Addresses hidden by kptr_restrict: "key sym" fails and says why, dumps
 * of the map @btf8 holding @ip go on without the name.
 */
static void bpftool_sym_hidden(const char *bpftool, int fd8, int btf8,
			       __u64 ip)
{
	char want[64], saved[16];
	int err;

	if (!ASSERT_OK(read_sysctl(KPTR_RESTRICT, saved, sizeof(saved)),
		       "kptr_restrict_read") ||
	    !ASSERT_OK(write_sysctl(KPTR_RESTRICT, "2"), "kptr_restrict_2"))
		return;
	expect_sym_error(bpftool, fd8, "vfs_read",
			 "/proc/kallsyms shows no addresses", "hidden");
	err = run_sh("%s map dump id %u", bpftool, map_id(btf8));
	ASSERT_OK(write_sysctl(KPTR_RESTRICT, saved), "kptr_restrict_restore");
	ASSERT_EQ(err, 0, "hidden_dump");
	snprintf(want, sizeof(want), "\"ip\": \"0x%llx\"", ip);
	ASSERT_HAS_SUBSTR(sh_out, want, "hidden_dump_ip");
	ASSERT_HAS_SUBSTR(sh_out, "shown without symbols", "hidden_dump_msg");
}

/* bpftool's "key sym [MODULE:]NAME [link LINK]" takes the address of the
 * function in /proc/kallsyms, and dumps show the function of each key.
 */
static void test_bpftool_sym(void)
{
	struct bpf_ip_cookie_key k16 = { .link_id = 7 };
	__u64 ip, key, addrs[SYM_MAX_ADDRS], v = 42;
	int fd8, fd16, btf8, btf16, n, i, shown;
	char want[640], dup[512], val[48], hex[32];
	struct ip_cookie *skel;
	const char *bpftool;

	/* 42, as a value of 8 bytes */
	snprintf(val, sizeof(val), "value hex %s", hex_bytes(&v, 8, hex));
	v = 0;
	bpftool = access("./bpftool", X_OK) ? "bpftool" : "./bpftool";
	if (!ASSERT_EQ(text_addrs(NULL, "vfs_read", &ip, 1), 1, "vfs_read") ||
	    !ASSERT_NEQ(ip, 0, "vfs_read_ip"))
		return;
	skel = ip_cookie__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	btf8 = bpf_map__fd(skel->maps.ip_map);
	btf16 = bpf_map__fd(skel->maps.link_keyed_map);
	fd8 = create_map(8, 8, 4, 0);
	fd16 = create_map(16, 8, 4, 0);
	if (!ASSERT_GE(fd8, 0, "create8") || !ASSERT_GE(fd16, 0, "create16"))
		goto out;

	/* 8-byte keys, with BTF: the key is the kallsyms address */
	ASSERT_EQ(run_sh("%s map update id %u key sym vfs_read %s", bpftool,
			 map_id(btf8), val), 0, "update8_btf");
	expect_only_key(btf8, &ip, 8, "key8_btf");
	ASSERT_OK(bpf_map_lookup_elem(btf8, &ip, &v), "lookup8_btf");
	ASSERT_EQ(v, 42, "value8_btf");
	snprintf(want, sizeof(want), "\"ip\": \"0x%llx <vfs_read>\"", ip);
	ASSERT_EQ(run_sh("%s map dump id %u", bpftool, map_id(btf8)), 0,
		  "dump8_btf");
	ASSERT_HAS_SUBSTR(sh_out, want, "dump8_btf_ip");
	ASSERT_EQ(run_sh("%s map lookup id %u key sym vfs_read", bpftool,
			 map_id(btf8)), 0, "lookup8_btf_sym");
	ASSERT_HAS_SUBSTR(sh_out, want, "lookup8_btf_ip");
	ASSERT_HAS_SUBSTR(sh_out, "\"value\": 42", "lookup8_btf_value");
	ASSERT_EQ(run_sh("%s -j map dump id %u", bpftool, map_id(btf8)), 0,
		  "json8_btf");
	ASSERT_HAS_SUBSTR(sh_out, "\"sym\":\"vfs_read\"", "json8_btf_sym");

	/* Without BTF, then deleted by name */
	ASSERT_EQ(run_sh("%s map update id %u key sym vfs_read %s", bpftool,
			 map_id(fd8), val), 0, "update8");
	expect_only_key(fd8, &ip, 8, "key8");
	snprintf(want, sizeof(want), "\nip: 0x%llx <vfs_read>\n", ip);
	ASSERT_EQ(run_sh("%s map dump id %u", bpftool, map_id(fd8)), 0, "dump8");
	ASSERT_HAS_SUBSTR(sh_out, want, "dump8_ip");
	ASSERT_EQ(run_sh("%s -j map dump id %u", bpftool, map_id(fd8)), 0,
		  "json8");
	ASSERT_HAS_SUBSTR(sh_out, "\"sym\":\"vfs_read\"", "json8_sym");
	ASSERT_EQ(run_sh("%s map delete id %u key sym vfs_read", bpftool,
			 map_id(fd8)), 0, "delete8");
	ASSERT_ERR(bpf_map_get_next_key(fd8, NULL, &key), "deleted8");

	/* 16-byte keys take the link ID too */
	k16.ip = ip;
	ASSERT_EQ(run_sh("%s map update id %u key sym vfs_read link id 7 %s",
			 bpftool, map_id(btf16), val), 0, "update16_btf");
	expect_only_key(btf16, &k16, 16, "key16_btf");
	snprintf(want, sizeof(want), "\"ip\": \"0x%llx <vfs_read>\"", ip);
	ASSERT_EQ(run_sh("%s map dump id %u", bpftool, map_id(btf16)), 0,
		  "dump16_btf");
	ASSERT_HAS_SUBSTR(sh_out, want, "dump16_btf_ip");
	ASSERT_HAS_SUBSTR(sh_out, "\"link_id\": 7,", "dump16_btf_link");
	ASSERT_EQ(run_sh("%s map update id %u key sym vfs_read link id 7 %s",
			 bpftool, map_id(fd16), val), 0, "update16");
	expect_only_key(fd16, &k16, 16, "key16");
	snprintf(want, sizeof(want), "\nip: 0x%llx <vfs_read>  link_id: 7\n", ip);
	ASSERT_EQ(run_sh("%s map dump id %u", bpftool, map_id(fd16)), 0,
		  "dump16");
	ASSERT_HAS_SUBSTR(sh_out, want, "dump16_ip");
	ASSERT_EQ(run_sh("%s -j map dump id %u", bpftool, map_id(fd16)), 0,
		  "json16");
	ASSERT_HAS_SUBSTR(sh_out, "\"sym\":\"vfs_read\"", "json16_sym");
	ASSERT_NEQ(run_sh("%s map update id %u key sym vfs_write %s", bpftool,
			  map_id(fd16), val), 0, "update16_nolink");
	ASSERT_HAS_SUBSTR(sh_out, "need a link", "update16_nolink_msg");

	/* Names of no function, or of several */
	expect_sym_error(bpftool, fd8, "ipc_no_such_function", "not found",
			 "unknown_name");
	expect_sym_error(bpftool, fd8, "ipc_no_such_module:vfs_read",
			 "no symbols of module ipc_no_such_module",
			 "unknown_module");
	if (ASSERT_OK(find_dup_name(dup, sizeof(dup)), "dup_name")) {
		n = text_addrs(NULL, dup, addrs, SYM_MAX_ADDRS);
		snprintf(want, sizeof(want), "%s has %d instances", dup, n);
		expect_sym_error(bpftool, fd8, dup, want, "dup");
		ASSERT_HAS_SUBSTR(sh_out, "key hex", "dup_hint");
		/* with the addresses, eight of them at most */
		for (i = 0, shown = 0; i < n && i < SYM_MAX_ADDRS; i++) {
			snprintf(want, sizeof(want), "0x%llx", addrs[i]);
			shown += !!strstr(sh_out, want);
		}
		ASSERT_EQ(shown, n < 8 ? n : 8, "dup_addrs");
	}

	bpftool_sym_hidden(bpftool, fd8, btf8, ip);

	/* MODULE:NAME, last: without bpf_testmod only this part is skipped */
	if (text_addrs("bpf_testmod", "bpf_testmod_test_read", addrs, 1) != 1) {
		printf("%s:SKIP: no bpf_testmod_test_read in /proc/kallsyms\n",
		       __func__);
		test__skip();
		goto out;
	}
	expect_sym_error(bpftool, fd8, "vmlinux:bpf_testmod_test_read",
			 "not found", "module_not_vmlinux");
	ASSERT_EQ(run_sh("%s map update id %u key sym bpf_testmod:bpf_testmod_test_read %s",
			 bpftool, map_id(fd8), val), 0, "update_mod");
	expect_only_key(fd8, &addrs[0], 8, "key_mod");
	snprintf(want, sizeof(want),
		 "\nip: 0x%llx <bpf_testmod_test_read [bpf_testmod]>\n",
		 addrs[0]);
	ASSERT_EQ(run_sh("%s map dump id %u", bpftool, map_id(fd8)), 0,
		  "dump_mod");
	ASSERT_HAS_SUBSTR(sh_out, want, "dump_mod_ip");
	ASSERT_EQ(run_sh("%s -j map dump id %u", bpftool, map_id(fd8)), 0,
		  "json_mod");
	ASSERT_HAS_SUBSTR(sh_out,
			  "\"sym\":\"bpf_testmod_test_read\",\"module\":\"bpf_testmod\"",
			  "json_mod_sym");
out:
	if (fd8 >= 0)
		close(fd8);
	if (fd16 >= 0)
		close(fd16);
	ip_cookie__destroy(skel);
}

void serial_test_ip_cookie_bpftool(void)
{
	if (test__start_subtest("dump"))
		test_bpftool_dump();
	if (test__start_subtest("sym"))
		test_bpftool_sym();
}
