// SPDX-License-Identifier: GPL-2.0-or-later
/* mem_host.c: host memory backend: page-aligned anonymous memory, optionally huge pages,
 * optionally bound to the NIC's NUMA node.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mempolicy.h>
#include <infiniband/verbs.h>

#include "traffic/mem.h"

#define HUGE_2M (2u << 20)


static int host_alloc(struct mem_buf *b, const struct mem_req *req)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (req->len + page - 1) / page * page;
	void *p = MAP_FAILED;
	bool huge = false;

	if (!req->len)
		return mem_buf_fail(b, -EINVAL, "host memory: zero-length buffer requested");
	if (req->hugepages) {
		size_t hlen = (req->len + HUGE_2M - 1) / HUGE_2M * HUGE_2M;

		p = mmap(NULL, hlen, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p != MAP_FAILED) {
			len = hlen;
			huge = true;
		}
	}
	if (p == MAP_FAILED)
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return mem_buf_fail(b, -errno, "host memory: mmap of %zu bytes failed: %s", len,
				    strerror(errno));
	if (req->numa_node >= 0 && req->numa_node < 64) {
		unsigned long mask = 1UL << req->numa_node;

		/* Best effort: a kernel without NUMA says ENOSYS/EINVAL; memory stays usable. */
		if (syscall(SYS_mbind, p, len, MPOL_BIND, &mask, 64UL, 0UL) == 0)
			snprintf(b->desc, sizeof(b->desc), "host, NUMA node %d%s", req->numa_node,
				 huge ? ", 2 MiB pages" : "");
	}
	if (!b->desc[0])
		snprintf(b->desc, sizeof(b->desc), "host%s", huge ? ", 2 MiB pages" : "");
	/* Touch every page now so first-touch cost stays out of the measured run. */
	memset(p, 0, len);
	b->addr = p;
	b->len = len;
	b->device = false;
	return 0;
}

static struct ibv_mr *host_reg(struct mem_buf *b, struct ibv_pd *pd, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, b->addr, b->len, access);

	if (!mr) {
		int err = errno;

		mem_buf_fail(b, -err, "ibv_reg_mr of %zu bytes of host memory failed: %s%s", b->len,
			     strerror(err),
			     err == ENOMEM ? " (check 'ulimit -l': locked-memory limit)" : "");
		errno = err;
		return NULL;
	}
	b->path = "host";
	return mr;
}

static int host_write(struct mem_buf *b, size_t off, const void *src, size_t n)
{
	if (off > b->len || n > b->len - off)
		return mem_buf_fail(b, -ERANGE, "write past the end of the buffer");
	memcpy((char *)b->addr + off, src, n);
	return 0;
}

static int host_read(struct mem_buf *b, size_t off, void *dst, size_t n)
{
	if (off > b->len || n > b->len - off)
		return mem_buf_fail(b, -ERANGE, "read past the end of the buffer");
	memcpy(dst, (char *)b->addr + off, n);
	return 0;
}

static void host_free(struct mem_buf *b)
{
	if (b->addr)
		munmap(b->addr, b->len);
	b->addr = NULL;
}

const struct mem_ops mem_host_ops = {
	.name = "host",
	.summary = "page-aligned host memory (--hugepages, NUMA node of the NIC)",
	.alloc = host_alloc,
	.reg = host_reg,
	.write = host_write,
	.read = host_read,
	.free = host_free,
};
