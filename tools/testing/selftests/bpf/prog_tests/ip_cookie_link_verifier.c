// SPDX-License-Identifier: GPL-2.0
/* Programs calling bpf_get_attach_link_id() that the verifier must refuse,
 * and the attach types it must take them on (progs/ip_cookie_link_fail.c).
 */
#include <test_progs.h>
#include "ip_cookie_link_fail.skel.h"

void test_ip_cookie_link_verifier(void)
{
	RUN_TESTS(ip_cookie_link_fail);
}
