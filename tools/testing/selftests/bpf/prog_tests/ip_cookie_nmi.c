// SPDX-License-Identifier: GPL-2.0
/* Lookups in NMI context while the map is resized.  Without a PMU (QEMU)
 * no perf event fires in NMI context, but a backtrace of all CPUs does:
 * writing 'l' to /proc/sysrq-trigger sends an NMI to every other CPU,
 * whose handler, nmi_cpu_backtrace(), asks cpu_in_idle() whether the CPU
 * was idle.  A kprobe.multi and an fentry program on cpu_in_idle() look
 * up their function's value while a thread on the other CPU grows and
 * shrinks the map with batch updates and deletes, so that NMIs land in
 * the middle of rebuilds: every lookup must find the value, and each
 * program must have run in NMI context.
 *
 * The backtraces print call traces: the test writes a line before and
 * after them to /dev/kmsg ("ip_cookie_nmi: sysrq-l begin" and "... end"),
 * so that a runner that fails on call traces in the kernel log can leave
 * out the NMI backtraces between the two.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <pthread.h>
#include <sched.h>
#include "ip_cookie_helpers.h"
#include "ip_cookie_nmi.skel.h"

#define TRIGGERS	20
#define WANT		0x6e6d6920636f6f6bULL

enum { KMULTI, FENTRY, NR_KINDS };

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

struct churn {
	struct resize_ctx rc;
	long cycles;
};

/* On CPU 1, the NMI's target: grow the map by 3,000 entries and shrink
 * it again, until told to stop.
 */
static void *churn(void *arg)
{
	struct churn *c = arg;

	c->rc.err = pin_self(1);
	while (!c->rc.err && !__atomic_load_n(&c->rc.stop, __ATOMIC_RELAXED)) {
		c->rc.err = fill_batch(c->rc.fd, 100, 3100, BPF_ANY) ?:
			    drain_batch(c->rc.fd, 100, 3100);
		c->cycles++;
	}
	return NULL;
}

static void log_line(const char *line)
{
	int fd = open("/dev/kmsg", O_WRONLY);

	if (fd >= 0) {
		ASSERT_EQ(write(fd, line, strlen(line)), (ssize_t)strlen(line), "dev_kmsg");
		close(fd);
	}
}

void serial_test_ip_cookie_nmi(void)
{
	static const char * const kinds[] = { "kprobe.multi", "fentry" };
	struct ip_cookie_nmi *skel = NULL;
	struct churn c = {};
	__u64 ip, want = WANT;
	pthread_t thread;
	int fd = -1, i;
	cpu_set_t old;

#if !defined(__x86_64__)
	/* Elsewhere the backtrace is an IPI (arm64 without pseudo-NMI) or a
	 * work item (s390x): nothing runs in NMI context.
	 */
	printf("%s: no NMI backtraces on this architecture\n", __func__);
	test__skip();
	return;
#endif
	if (libbpf_num_possible_cpus() < 2) {
		printf("%s: one CPU: no NMI from another\n", __func__);
		test__skip();
		return;
	}
	if (!have_kprobe_multi() ||
	    !ASSERT_OK(pthread_getaffinity_np(pthread_self(), sizeof(old), &old),
		       "affinity"))
		return;
	skel = ip_cookie_nmi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "skel_load"))
		return;
	ip = ksym("cpu_in_idle");
	/* The resizer's keys must not hit the function's own. */
	if (!ASSERT_TRUE(ip < fake_ip(100) || ip > fake_ip(3100), "keys_apart"))
		goto out;
	skel->bss->want = want;
	c.rc.fd = bpf_map__fd(skel->maps.ip_map);
	if (!ASSERT_OK(bpf_map_update_elem(c.rc.fd, &ip, &want, BPF_NOEXIST), "fill"))
		goto out;
	if (!ASSERT_OK(ip_cookie_nmi__attach(skel), "attach"))
		goto out;
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (!ASSERT_OK_FD(fd, "sysrq_trigger") || !ASSERT_OK(pin_self(0), "pin"))
		goto out;
	if (!ASSERT_OK(pthread_create(&thread, NULL, churn, &c), "resizer"))
		goto out;

	log_line("ip_cookie_nmi: sysrq-l begin\n");
	for (i = 0; i < TRIGGERS; i++) {
		if (!ASSERT_EQ(write(fd, "l", 1), 1, "sysrq_l"))
			break;
		usleep(20000);
	}
	__atomic_store_n(&c.rc.stop, true, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	log_line("ip_cookie_nmi: sysrq-l end\n");

	ASSERT_OK(c.rc.err, "resizer_err");
	ASSERT_GT(c.cycles, 0, "resize_cycles");
	for (i = 0; i < NR_KINDS; i++) {
		printf("%s: %s: %llu hits in NMI context, %llu others\n", __func__,
		       kinds[i], (unsigned long long)skel->bss->nmi_hits[i],
		       (unsigned long long)skel->bss->other_hits[i]);
		ASSERT_GT(skel->bss->nmi_hits[i], 0, kinds[i]);
		ASSERT_EQ(skel->bss->misses[i], 0, "misses");
		ASSERT_EQ(skel->bss->wrong[i], 0, "wrong");
	}
out:
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	if (fd >= 0)
		close(fd);
	ip_cookie_nmi__destroy(skel);
}
