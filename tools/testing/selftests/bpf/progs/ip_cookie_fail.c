// SPDX-License-Identifier: GPL-2.0
/* Programs must not change a BPF_MAP_TYPE_IP_COOKIE map. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_misc.h"
#include "../ip_cookie_common.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 8);
	__type(key, __u64);
	__type(value, __u64);
} ip_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 8);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__type(key, __u64);
	__type(value, __u64);
} ro_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 8);
	__uint(map_flags, BPF_F_WRONLY_PROG);
	__type(key, __u64);
	__type(value, __u64);
} wo_map SEC(".maps");

SEC("kprobe")
__failure __msg("map_update_elem: ip_cookie maps are changed only by the bpf syscall")
int update_from_prog(void *ctx)
{
	__u64 key = bpf_get_func_ip(ctx), val = 1;

	bpf_map_update_elem(&ip_map, &key, &val, BPF_ANY);
	return 0;
}

SEC("kprobe")
__failure __msg("map_delete_elem: ip_cookie maps are changed only by the bpf syscall")
int delete_from_prog(void *ctx)
{
	__u64 key = bpf_get_func_ip(ctx);

	bpf_map_delete_elem(&ip_map, &key);
	return 0;
}

SEC("kprobe")
__failure __msg("write into map forbidden")
int write_rdonly_prog(void *ctx)
{
	__u64 key = bpf_get_func_ip(ctx);
	__u64 *v = bpf_map_lookup_elem(&ro_map, &key);

	if (v)
		*v = 1;
	return 0;
}

SEC("kprobe")
__success
int read_rdonly_prog(void *ctx)
{
	__u64 key = bpf_get_func_ip(ctx);
	__u64 *v = bpf_map_lookup_elem(&ro_map, &key);

	return v ? *v : 0;
}

/* A write-only map's values are written through the lookup's pointer... */
SEC("kprobe")
__success
int write_wronly_prog(void *ctx)
{
	__u64 key = bpf_get_func_ip(ctx);
	__u64 *v = bpf_map_lookup_elem(&wo_map, &key);

	if (v)
		*v = 1;
	return 0;
}

/* ...and never read. */
SEC("kprobe")
__failure __msg("read from map forbidden")
int read_wronly_prog(void *ctx)
{
	__u64 key = bpf_get_func_ip(ctx);
	__u64 *v = bpf_map_lookup_elem(&wo_map, &key);

	return v ? *v : 0;
}

SEC("kprobe")
__success
int write_prog(void *ctx)
{
	__u64 key = bpf_get_func_ip(ctx);
	__u64 *v = bpf_map_lookup_elem(&ip_map, &key);

	if (v)
		*v += 1;
	return 0;
}

SEC("kprobe")
__failure __msg("map_peek_elem: ip_cookie maps support only map_lookup_elem")
int peek_from_prog(void *ctx)
{
	__u64 val;

	return bpf_map_peek_elem(&ip_map, &val);
}

SEC("kprobe")
__failure __msg("map_lookup_percpu_elem: ip_cookie maps support only map_lookup_elem")
int lookup_percpu_from_prog(void *ctx)
{
	__u64 key = bpf_get_func_ip(ctx);

	return !!bpf_map_lookup_percpu_elem(&ip_map, &key, 0);
}

static long count_elem(struct bpf_map *map, __u64 *key, __u64 *val, void *ctx)
{
	return 0;
}

SEC("kprobe")
__failure __msg("callback function not allowed for map")
int iterate_from_prog(void *ctx)
{
	return bpf_for_each_map_elem(&ip_map, count_elem, NULL, 0);
}

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 8);
	__type(value, __u64);
} bloom SEC(".maps");

/* Refused with the message the verifier gives for every other map kind. */
SEC("syscall")
__failure __msg("Sleepable programs can only use array, hash, ringbuf and local storage maps")
int sleepable_bloom(void *ctx)
{
	__u64 value = 1;

	return !!bpf_map_peek_elem(&bloom, &value);
}

SEC("syscall")
__success
int sleepable_ip_cookie(void *ctx)
{
	__u64 key = 1, *v = bpf_map_lookup_elem(&ip_map, &key);

	return v ? *v : 0;
}

/* bpf_ip_cookie_lookup(): only on IP_COOKIE maps of 8-byte keys, typed
 * like bpf_map_lookup_elem()'s result.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8);
	__type(key, __u64);
	__type(value, __u64);
} hash_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_IP_COOKIE);
	__uint(max_entries, 8);
	__type(key, struct bpf_ip_cookie_key);
	__type(value, __u64);
} link_map SEC(".maps");

SEC("kprobe")
__failure __msg("bpf_ip_cookie_lookup needs an ip_cookie map with 8-byte keys")
int kfunc_on_hash(void *ctx)
{
	return !!bpf_ip_cookie_lookup(&hash_map, bpf_get_func_ip(ctx));
}

SEC("kprobe")
__failure __msg("bpf_ip_cookie_lookup needs an ip_cookie map with 8-byte keys")
int kfunc_on_16_byte_keys(void *ctx)
{
	return !!bpf_ip_cookie_lookup(&link_map, bpf_get_func_ip(ctx));
}

SEC("kprobe")
__failure __msg("invalid mem access 'map_value_or_null'")
int kfunc_no_null_check(void *ctx)
{
	__u64 *v = bpf_ip_cookie_lookup(&ip_map, bpf_get_func_ip(ctx));

	return *v;
}

SEC("kprobe")
__failure __msg("invalid access to map value, value_size=8 off=8 size=8")
int kfunc_past_value(void *ctx)
{
	__u64 *v = bpf_ip_cookie_lookup(&ip_map, bpf_get_func_ip(ctx));

	return v ? v[1] : 0;
}

SEC("kprobe")
__failure __msg("write into map forbidden")
int kfunc_write_rdonly(void *ctx)
{
	__u64 *v = bpf_ip_cookie_lookup(&ro_map, bpf_get_func_ip(ctx));

	if (v)
		*v = 1;
	return 0;
}

/* A value is not a map. */
SEC("kprobe")
__failure __msg("pointer in R1 isn't map pointer")
int kfunc_value_as_map(void *ctx)
{
	__u64 key = bpf_get_func_ip(ctx), *v;

	v = bpf_map_lookup_elem(&ip_map, &key);
	if (!v)
		return 0;
	return !!bpf_ip_cookie_lookup(v, key);
}

SEC("kprobe")
__success
int kfunc_write(void *ctx)
{
	__u64 *v = bpf_ip_cookie_lookup(&ip_map, bpf_get_func_ip(ctx));

	if (v)
		*v += 1;
	return 0;
}

SEC("syscall")
__success
int kfunc_sleepable(void *ctx)
{
	__u64 *v = bpf_ip_cookie_lookup(&ip_map, 1);

	return v ? *v : 0;
}
