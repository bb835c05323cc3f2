// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose init function puts its own address into an IP_COOKIE
 * map, for the test of the module purge: the key lies in the module's
 * init text, which is freed once the module is live, so the map must no
 * longer hold it when the load returns.  A key in the module's text is
 * put in as well; it must stay until the module is unloaded.
 *
 * Load with map_fd=<fd>, an IP_COOKIE map of the loading process with
 * 8-byte keys and values; any other map fails the load with -EINVAL.
 * init_ip and text_ip tell the test which keys were put in.
 */
#include <linux/bpf.h>
#include <linux/err.h>
#include <linux/module.h>

static int map_fd = -1;
module_param(map_fd, int, 0);
MODULE_PARM_DESC(map_fd, "IP_COOKIE map (8-byte keys) of the loading process");

static unsigned long init_ip;
module_param(init_ip, ulong, 0444);
static unsigned long text_ip;
module_param(text_ip, ulong, 0444);

static noinline int ip_cookie_testmod_text(int x)
{
	return x + 1;
}

/* What the bpf syscall does for an IP_COOKIE map (bpf_map_update_value()
 * calls it directly, in sleepable context), on a map held by reference.
 */
static int __init ip_cookie_testmod_put(struct bpf_map *map, u64 ip)
{
	u64 value = ip;

	return map->ops->map_update_elem(map, &ip, &value, BPF_NOEXIST);
}

static int __init ip_cookie_testmod_init(void)
{
	struct bpf_map *map;
	int err = -EINVAL;

	if (map_fd < 0)
		return 0;
	map = bpf_map_get(map_fd);
	if (IS_ERR(map))
		return PTR_ERR(map);
	if (map->map_type != BPF_MAP_TYPE_IP_COOKIE ||
	    map->key_size != sizeof(u64) || map->value_size != sizeof(u64))
		goto out;
	init_ip = (unsigned long)ip_cookie_testmod_init;
	text_ip = (unsigned long)ip_cookie_testmod_text;
	err = ip_cookie_testmod_put(map, init_ip);
	if (!err)
		err = ip_cookie_testmod_put(map, text_ip);
out:
	bpf_map_put(map);
	return err;
}
module_init(ip_cookie_testmod_init);

static void __exit ip_cookie_testmod_exit(void)
{
}
module_exit(ip_cookie_testmod_exit);

MODULE_IMPORT_NS("BPF_INTERNAL");
MODULE_DESCRIPTION("BPF selftests module: keys in init text for IP_COOKIE");
MODULE_LICENSE("GPL");
