// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose init function puts its own address into an IP_COOKIE
 * map, for the test of the module purge: the key lies in the module's
 * init text, which is freed once the module is live, so the map must no
 * longer hold it when the load returns.  A key in the module's text is
 * put in as well; it must stay until the module is unloaded.
 *
 * Load with map_fd=<fd>, an 8-byte-key IP_COOKIE map of the loading
 * process.  init_ip and text_ip tell the test which keys were put in.
 */
#include <linux/bpf.h>
#include <linux/module.h>

/* Exported for light skeletons in modules; declared by skel_internal.h. */
int kern_sys_bpf(int cmd, union bpf_attr *attr, unsigned int size);

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

static int __init ip_cookie_testmod_put(u64 ip)
{
	union bpf_attr attr = {};
	u64 value = ip;

	attr.map_fd = map_fd;
	attr.key = (unsigned long)&ip;
	attr.value = (unsigned long)&value;
	attr.flags = BPF_NOEXIST;
	return kern_sys_bpf(BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr));
}

static int __init ip_cookie_testmod_init(void)
{
	int err;

	if (map_fd < 0)
		return 0;
	init_ip = (unsigned long)ip_cookie_testmod_init;
	text_ip = (unsigned long)ip_cookie_testmod_text;
	err = ip_cookie_testmod_put(init_ip);
	if (!err)
		err = ip_cookie_testmod_put(text_ip);
	return err;
}
module_init(ip_cookie_testmod_init);

static void __exit ip_cookie_testmod_exit(void)
{
}
module_exit(ip_cookie_testmod_exit);

MODULE_IMPORT_NS(BPF_INTERNAL);
MODULE_DESCRIPTION("BPF selftests module: keys in init text for IP_COOKIE");
MODULE_LICENSE("GPL");
