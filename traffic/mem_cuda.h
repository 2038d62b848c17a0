/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mem_cuda.h: GPU buffer helpers shared by the cuda, cuda-dmabuf and auto backends. */
#ifndef PFCLAB_TRAFFIC_MEM_CUDA_H
#define PFCLAB_TRAFFIC_MEM_CUDA_H

#include "lib/hw/cuda.h"
#include "traffic/mem.h"

struct mem_cuda_buf {
	struct cuda_gpu gpu;
	cu_deviceptr ptr;
	cu_mem_handle vmm;	/* the physical allocation when made with the VMM API, else 0 */
	bool mapped;		/* vmm is mapped at ptr */
	char dmabuf_why[256];	/* auto: why the dma-buf path was not usable */
};

/* cuMemAlloc on the selected GPU, rounded up to 2 MiB (GPU page and dma-buf friendly). */
int mem_cuda_buf_alloc(struct mem_buf *b, const struct mem_req *req);
/* The same through the VMM API: cuMemCreate with gpuDirectRDMACapable (the flag GPUDirect
 * RDMA on VMM memory needs), cuMemAddressReserve, cuMemMap, cuMemSetAccess; rounded up to
 * the allocation granularity. -EOPNOTSUPP when the driver or GPU lacks it.
 */
int mem_cuda_buf_alloc_vmm(struct mem_buf *b, const struct mem_req *req);
int mem_cuda_buf_write(struct mem_buf *b, size_t off, const void *src, size_t n);
int mem_cuda_buf_read(struct mem_buf *b, size_t off, void *dst, size_t n);
void mem_cuda_buf_free(struct mem_buf *b);
/* Export a dma-buf fd for the whole buffer; fills b->why on failure. */
int mem_cuda_buf_export_dmabuf(struct mem_buf *b);
/* ibv_reg_mr on the GPU VA (nvidia-peermem) / ibv_reg_dmabuf_mr on the exported fd. */
struct ibv_mr *mem_cuda_buf_reg_peermem(struct mem_buf *b, struct ibv_pd *pd, int access);
struct ibv_mr *mem_cuda_buf_reg_dmabuf(struct mem_buf *b, struct ibv_pd *pd, int access);

#endif
