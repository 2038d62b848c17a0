// SPDX-License-Identifier: GPL-2.0-or-later
/* mem_auto.c: GPU memory backend that tries dma-buf first, then nvidia-peermem, and when
 * both fail says why each failed and what to check.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "traffic/mem_cuda.h"

/* A failed export is not fatal here: registration falls back to peermem. */
static int auto_export(struct mem_buf *b)
{
	struct mem_cuda_buf *cb = b->priv;

	if (mem_cuda_buf_export_dmabuf(b) == 0) {
		mem_buf_fail(b, 0, "dma-buf fd %d: will register through dma-buf", b->dmabuf_fd);
		return 0;
	}
	snprintf(cb->dmabuf_why, sizeof(cb->dmabuf_why), "%.255s", b->why);
	mem_buf_fail(b, 0, "dma-buf unavailable (%s): will try nvidia-peermem", cb->dmabuf_why);
	return 0;
}

static struct ibv_mr *auto_reg(struct mem_buf *b, struct ibv_pd *pd, int access)
{
	struct mem_cuda_buf *cb = b->priv;
	char peer_why[512];
	struct ibv_mr *mr;
	int err;

	if (b->dmabuf_fd < 0 && !cb->dmabuf_why[0])
		auto_export(b);
	if (b->dmabuf_fd >= 0) {
		mr = mem_cuda_buf_reg_dmabuf(b, pd, access);
		if (mr)
			return mr;
		snprintf(cb->dmabuf_why, sizeof(cb->dmabuf_why), "%.255s", b->why);
	}
	mr = mem_cuda_buf_reg_peermem(b, pd, access);
	if (mr)
		return mr;
	err = errno;
	snprintf(peer_why, sizeof(peer_why), "%.511s", b->why);
	mem_buf_fail(b, -err,
		     "GPU memory could not be registered either way. dma-buf: %s. peermem: %s. Check: 'lsmod | grep nvidia_peermem', open kernel modules (R515+), CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, kernel >= 5.12",
		     cb->dmabuf_why, peer_why);
	errno = err;
	return NULL;
}

const struct mem_ops mem_auto_ops = {
	.name = "auto",
	.summary = "GPU memory: dma-buf if it works, else nvidia-peermem, else say why",
	.alloc = mem_cuda_buf_alloc,
	.export = auto_export,
	.reg = auto_reg,
	.write = mem_cuda_buf_write,
	.read = mem_cuda_buf_read,
	.free = mem_cuda_buf_free,
};
