// SPDX-License-Identifier: GPL-2.0
/*
 * The trigger of scripts/bench-bpftrace.sh, run in the guest: calls
 * getppid() through syscall(2) ITERS times and prints the CLOCK_MONOTONIC
 * nanoseconds the loop took. Under QEMU -icount (shift=0) guest time
 * advances one ns per instruction executed, so the figure is the number of
 * guest instructions the loop cost (the other vCPU's included: they share
 * one instruction counter). Built static (gcc -O2 -static) so that it
 * needs nothing in the initramfs.
 *
 *   bt-trigger ITERS
 * Output: "bt-trigger iters=ITERS ns=NS"
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts)) {
		perror("clock_gettime");
		exit(1);
	}
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long iters, i;
	long long t0, t1;
	char *end;

	if (argc != 2) {
		fprintf(stderr, "usage: %s ITERS\n", argv[0]);
		return 2;
	}
	errno = 0;
	iters = strtoul(argv[1], &end, 10);
	if (errno || *end || !iters) {
		fprintf(stderr, "bt-trigger: bad ITERS '%s'\n", argv[1]);
		return 2;
	}
	t0 = now_ns();
	for (i = 0; i < iters; i++)
		syscall(SYS_getppid);
	t1 = now_ns();
	printf("bt-trigger iters=%lu ns=%lld\n", iters, t1 - t0);
	return 0;
}
