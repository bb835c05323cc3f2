/* SPDX-License-Identifier: GPL-2.0 */
/* A user page whose first access blocks in a page fault until the test
 * resolves it (userfaultfd): holds a kernel path that copies from it.
 */
#ifndef __IP_COOKIE_UFFD_H
#define __IP_COOKIE_UFFD_H

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

struct ipc_uffd {
	int fd;
	void *page;
	long size;
};

/* Returns 0, or -errno with nothing left open. */
static inline int ipc_uffd_open(struct ipc_uffd *u)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {};

	u->size = sysconf(_SC_PAGESIZE);
	u->page = mmap(NULL, u->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->page == MAP_FAILED)
		return -errno;
	u->fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (u->fd < 0)
		goto err_unmap;
	reg.range.start = (unsigned long)u->page;
	reg.range.len = u->size;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(u->fd, UFFDIO_API, &api) || ioctl(u->fd, UFFDIO_REGISTER, &reg))
		goto err_close;
	return 0;
err_close:
	close(u->fd);
err_unmap:
	munmap(u->page, u->size);
	return -errno;
}

/* Wait up to @ms for the fault on the page: 0 once something blocks in it. */
static inline int ipc_uffd_wait(struct ipc_uffd *u, int ms)
{
	struct pollfd pfd = { .fd = u->fd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&pfd, 1, ms) != 1)
		return -ETIMEDOUT;
	if (read(u->fd, &msg, sizeof(msg)) != sizeof(msg))
		return -EIO;
	return msg.event == UFFD_EVENT_PAGEFAULT ? 0 : -EIO;
}

/* Map a zero page: whoever blocked in the fault goes on. */
static inline int ipc_uffd_release(struct ipc_uffd *u)
{
	struct uffdio_zeropage zp = {};

	zp.range.start = (unsigned long)u->page;
	zp.range.len = u->size;
	return ioctl(u->fd, UFFDIO_ZEROPAGE, &zp) ? -errno : 0;
}

static inline void ipc_uffd_close(struct ipc_uffd *u)
{
	close(u->fd);
	munmap(u->page, u->size);
}

#endif
