// SPDX-License-Identifier: GPL-2.0-or-later
/* mem_cuda_dmabuf.c: GPU memory backend registered through dma-buf
 * (cuMemGetHandleForAddressRange, then ibv_reg_dmabuf_mr).
 */
#include "traffic/mem_cuda.h"

static struct ibv_mr *dmabuf_reg(struct mem_buf *b, struct ibv_pd *pd, int access)
{
	return mem_cuda_buf_reg_dmabuf(b, pd, access);
}

const struct mem_ops mem_cuda_dmabuf_ops = {
	.name = "cuda-dmabuf",
	.summary = "GPU memory exported as a dma-buf, registered with ibv_reg_dmabuf_mr",
	.alloc = mem_cuda_buf_alloc,
	.export = mem_cuda_buf_export_dmabuf,
	.reg = dmabuf_reg,
	.write = mem_cuda_buf_write,
	.read = mem_cuda_buf_read,
	.free = mem_cuda_buf_free,
};
