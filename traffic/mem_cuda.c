// SPDX-License-Identifier: GPL-2.0-or-later
/* mem_cuda.c: GPU memory backend registered through nvidia-peermem (cuMemAlloc, then
 * ibv_reg_mr on the GPU virtual address), plus the GPU buffer helpers the dma-buf and auto
 * backends share.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "traffic/mem_cuda.h"

#define GPU_ALIGN (2u << 20)

/* Open the GPU for b (b->priv, b->desc); 0 or -errno with b->why. */
static int buf_open(struct mem_buf *b, const struct mem_req *req, struct mem_cuda_buf **out)
{
	struct mem_cuda_buf *cb;
	const struct cuda_api *a;
	int rc;

	if (!req->len)
		return mem_buf_fail(b, -EINVAL, "GPU memory: zero-length buffer requested");
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		return mem_buf_fail(b, -ENOMEM, "out of host memory");
	rc = cuda_gpu_open(req->gpu, &cb->gpu, b->why, sizeof(b->why));
	if (rc) {
		free(cb);
		return rc;
	}
	a = cb->gpu.api;
	b->priv = cb;
	snprintf(b->desc, sizeof(b->desc), "GPU %d %s (%s), CUDA driver %d.%d", cb->gpu.ordinal,
		 cb->gpu.name, cb->gpu.bus_id, a->driver_version / 1000,
		 a->driver_version % 1000 / 10);
	*out = cb;
	return 0;
}

int mem_cuda_buf_alloc(struct mem_buf *b, const struct mem_req *req)
{
	struct mem_cuda_buf *cb;
	const struct cuda_api *a;
	size_t len;
	char buf[160];
	unsigned int one = 1;
	cu_result r;
	int rc;

	rc = buf_open(b, req, &cb);
	if (rc)
		return rc;
	a = cb->gpu.api;
	len = (req->len + GPU_ALIGN - 1) / GPU_ALIGN * GPU_ALIGN;
	r = a->mem_alloc(&cb->ptr, len);
	if (r != CU_SUCCESS)
		return mem_buf_fail(b, -ENOMEM, "cuMemAlloc of %zu bytes on GPU %s failed: %s", len,
				    cb->gpu.bus_id, cuda_result_str(a, r, buf, sizeof(buf)));
	/* GPUDirect RDMA: make CUDA copies to this range synchronous with respect to the
	 * NIC's accesses (NVIDIA GPUDirect RDMA guide, "Synchronization and memory ordering").
	 */
	a->pointer_set_attribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, cb->ptr);
	b->addr = (void *)(uintptr_t)cb->ptr;
	b->len = len;
	b->device = true;
	return 0;
}

int mem_cuda_buf_alloc_vmm(struct mem_buf *b, const struct mem_req *req)
{
	struct cu_mem_alloc_prop prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE },
		.alloc_flags = { .gpu_direct_rdma_capable = 1 },
	};
	struct cu_mem_access_desc acc = {
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	struct mem_cuda_buf *cb;
	const struct cuda_api *a;
	size_t len, gran = 0;
	char buf[160];
	int rc, sup = 0;
	cu_result r;

	rc = buf_open(b, req, &cb);
	if (rc)
		return rc;
	a = cb->gpu.api;
	if (!a->mem_create || !a->mem_release || !a->mem_address_reserve ||
	    !a->mem_address_free || !a->mem_map || !a->mem_unmap || !a->mem_set_access ||
	    !a->mem_get_granularity)
		return mem_buf_fail(b, -EOPNOTSUPP, "libcuda.so.1 (CUDA driver %d) lacks the VMM API "
				    "(cuMemCreate ...): use a driver of CUDA 11.x or newer",
				    a->driver_version);
	r = a->device_get_attribute(&sup, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED,
				    cb->gpu.dev);
	if (r != CU_SUCCESS || !sup)
		return mem_buf_fail(b, -EOPNOTSUPP, "GPU %s reports GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED="
				    "%d: VMM memory cannot be registered with a NIC there; use --mem "
				    "geforce (cuMemAlloc)", cb->gpu.bus_id, sup);
	prop.location.id = cb->gpu.dev;
	acc.location.id = cb->gpu.dev;
	r = a->mem_get_granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	if (r != CU_SUCCESS || !gran)
		return mem_buf_fail(b, -EIO, "cuMemGetAllocationGranularity failed: %s",
				    cuda_result_str(a, r, buf, sizeof(buf)));
	if (gran < GPU_ALIGN)
		gran = GPU_ALIGN;
	len = (req->len + gran - 1) / gran * gran;
	r = a->mem_create(&cb->vmm, len, &prop, 0);
	if (r != CU_SUCCESS) {
		cb->vmm = 0;
		return mem_buf_fail(b, -ENOMEM, "cuMemCreate of %zu bytes (gpuDirectRDMACapable) on "
				    "GPU %s failed: %s", len, cb->gpu.bus_id,
				    cuda_result_str(a, r, buf, sizeof(buf)));
	}
	r = a->mem_address_reserve(&cb->ptr, len, gran, 0, 0);
	if (r != CU_SUCCESS) {
		cb->ptr = 0;
		return mem_buf_fail(b, -ENOMEM, "cuMemAddressReserve of %zu bytes failed: %s", len,
				    cuda_result_str(a, r, buf, sizeof(buf)));
	}
	b->len = len;	/* what free unreserves from here on */
	r = a->mem_map(cb->ptr, len, 0, cb->vmm, 0);
	if (r != CU_SUCCESS)
		return mem_buf_fail(b, -EIO, "cuMemMap failed: %s",
				    cuda_result_str(a, r, buf, sizeof(buf)));
	cb->mapped = true;
	r = a->mem_set_access(cb->ptr, len, &acc, 1);
	if (r != CU_SUCCESS)
		return mem_buf_fail(b, -EIO, "cuMemSetAccess (read/write from GPU %s) failed: %s",
				    cb->gpu.bus_id, cuda_result_str(a, r, buf, sizeof(buf)));
	b->addr = (void *)(uintptr_t)cb->ptr;
	b->device = true;
	return 0;
}

int mem_cuda_buf_write(struct mem_buf *b, size_t off, const void *src, size_t n)
{
	struct mem_cuda_buf *cb = b->priv;
	char buf[160];
	cu_result r;

	if (off > b->len || n > b->len - off)
		return mem_buf_fail(b, -ERANGE, "write past the end of the buffer");
	r = cb->gpu.api->memcpy_htod(cb->ptr + off, src, n);
	if (r != CU_SUCCESS)
		return mem_buf_fail(b, -EIO, "cuMemcpyHtoD failed: %s",
				    cuda_result_str(cb->gpu.api, r, buf, sizeof(buf)));
	return 0;
}

int mem_cuda_buf_read(struct mem_buf *b, size_t off, void *dst, size_t n)
{
	struct mem_cuda_buf *cb = b->priv;
	char buf[160];
	cu_result r;

	if (off > b->len || n > b->len - off)
		return mem_buf_fail(b, -ERANGE, "read past the end of the buffer");
	r = cb->gpu.api->memcpy_dtoh(dst, cb->ptr + off, n);
	if (r != CU_SUCCESS)
		return mem_buf_fail(b, -EIO, "cuMemcpyDtoH failed: %s",
				    cuda_result_str(cb->gpu.api, r, buf, sizeof(buf)));
	return 0;
}

void mem_cuda_buf_free(struct mem_buf *b)
{
	struct mem_cuda_buf *cb = b->priv;

	if (b->dmabuf_fd >= 0)
		close(b->dmabuf_fd);
	b->dmabuf_fd = -1;
	if (!cb)
		return;
	if (cb->vmm) {
		if (cb->mapped)
			cb->gpu.api->mem_unmap(cb->ptr, b->len);
		if (cb->ptr)
			cb->gpu.api->mem_address_free(cb->ptr, b->len);
		cb->gpu.api->mem_release(cb->vmm);
	} else if (cb->ptr) {
		cb->gpu.api->mem_free(cb->ptr);
	}
	cuda_gpu_close(&cb->gpu);
	free(cb);
	b->priv = NULL;
	b->addr = NULL;
}

int mem_cuda_buf_export_dmabuf(struct mem_buf *b)
{
	struct mem_cuda_buf *cb = b->priv;
	const struct cuda_api *a = cb->gpu.api;
	char buf[160];
	int fd = -1, sup = 0;
	cu_result r;

	if (!a->mem_get_handle_for_address_range)
		return mem_buf_fail(b, -EOPNOTSUPP,
				    "CUDA driver %d has no cuMemGetHandleForAddressRange (needs CUDA 11.7+ driver, R515+)",
				    a->driver_version);
	if (a->device_get_attribute(&sup, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, cb->gpu.dev) ==
	    CU_SUCCESS && !sup)
		return mem_buf_fail(b, -EOPNOTSUPP,
				    "GPU %s reports DMA_BUF_SUPPORTED=0: dma-buf needs the open kernel modules (R515+, 'modinfo nvidia | grep license' shows Dual MIT/GPL), kernel >= 5.12; GeForce boards report 0",
				    cb->gpu.bus_id);
	r = a->mem_get_handle_for_address_range(&fd, cb->ptr, b->len,
						CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (r != CU_SUCCESS || fd < 0)
		return mem_buf_fail(b, -EOPNOTSUPP,
				    "cuMemGetHandleForAddressRange(DMA_BUF_FD) failed: %s (needs open kernel modules and kernel >= 5.12)",
				    cuda_result_str(a, r, buf, sizeof(buf)));
	b->dmabuf_fd = fd;
	b->dmabuf_offset = 0;
	return 0;
}

struct ibv_mr *mem_cuda_buf_reg_peermem(struct mem_buf *b, struct ibv_pd *pd, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, b->addr, b->len, access);
	int err;

	if (mr) {
		b->path = "peermem";
		return mr;
	}
	err = errno;
	if (err == EFAULT)
		mem_buf_fail(b, -err,
			     "ibv_reg_mr on GPU memory failed: EFAULT: the NIC driver cannot pin GPU memory; load nvidia-peermem (modprobe nvidia_peermem; check /sys/kernel/mm/memory_peers/nv_mem/version) or use --mem cuda-dmabuf");
	else
		mem_buf_fail(b, -err, "ibv_reg_mr on GPU memory failed: %s%s", strerror(err),
			     err == ENOMEM ? " (check 'ulimit -l')" : "");
	errno = err;
	return NULL;
}

struct ibv_mr *mem_cuda_buf_reg_dmabuf(struct mem_buf *b, struct ibv_pd *pd, int access)
{
	struct ibv_mr *mr;
	int err;

	if (b->dmabuf_fd < 0) {
		mem_buf_fail(b, -EBADF, "no dma-buf fd: the export step failed or was not run");
		errno = EBADF;
		return NULL;
	}
	mr = ibv_reg_dmabuf_mr(pd, b->dmabuf_offset, b->len, (uint64_t)(uintptr_t)b->addr,
			       b->dmabuf_fd, access);
	if (mr) {
		b->path = "dma-buf";
		return mr;
	}
	err = errno;
	mem_buf_fail(b, -err, "ibv_reg_dmabuf_mr failed: %s%s", strerror(err),
		     err == EOPNOTSUPP || err == ENOSYS ?
		     " (the RDMA driver or rdma-core lacks dma-buf support: needs kernel >= 5.12, rdma-core >= 34, mlx5)" :
		     err == EFAULT ? " (GPU pages could not be mapped for the NIC: check IOMMU/ACS settings)" : "");
	errno = err;
	return NULL;
}

static struct ibv_mr *cuda_reg(struct mem_buf *b, struct ibv_pd *pd, int access)
{
	return mem_cuda_buf_reg_peermem(b, pd, access);
}

const struct mem_ops mem_cuda_ops = {
	.name = "cuda",
	.summary = "GPU memory (cuMemAlloc), registered with ibv_reg_mr through nvidia-peermem",
	.alloc = mem_cuda_buf_alloc,
	.reg = cuda_reg,
	.write = mem_cuda_buf_write,
	.read = mem_cuda_buf_read,
	.free = mem_cuda_buf_free,
};
