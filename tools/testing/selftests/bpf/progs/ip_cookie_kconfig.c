// SPDX-License-Identifier: GPL-2.0
/* The kernel configuration some ip_cookie tests depend on: libbpf fills
 * the __kconfig externs of ip_cookie_common.h from the running kernel's
 * configuration at load, and the tests read them back through the
 * skeleton's kconfig (kernel_config() in ip_cookie_helpers.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "../ip_cookie_common.h"

char _license[] SEC("license") = "GPL";

/* Never run: it uses the externs, so that the object keeps them. */
SEC("syscall")
int kconfig_used(void *ctx)
{
	return CONFIG_FAILSLAB + CONFIG_FAIL_PAGE_ALLOC + CONFIG_X86_KERNEL_IBT +
	       CONFIG_FPROBE + CONFIG_SOFTLOCKUP_DETECTOR;
}
