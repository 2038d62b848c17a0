// SPDX-License-Identifier: GPL-2.0-or-later
/* mem_geforce.c: GPU memory backend for GeForce GPUDirect RDMA (DOMAIN.md, way 3c).
 *
 * GeForce CUDA never creates the ThirdPartyP2P object that nvidia_p2p_get_pages*() look
 * for, so ibv_reg_mr() on cuMemAlloc memory fails with EFAULT. This backend watches
 * libcuda's RM ioctls while CUDA initialises and allocates (rm_capture.c), then creates
 * the object itself and registers the buffer with it (rm_p2p.c):
 *
 *   alloc:    start the capture, cuMemAlloc (2 MiB multiple), match the VA to its RM
 *             memory object, subdevice and VA space
 *   export:   NV503C alloc, REGISTER_VA_SPACE, REGISTER_VIDMEM (each RM status reported)
 *   register: ibv_reg_mr on the GPU VA: the patched nvidia-peermem's persistent lookup
 *             now finds the object (patches/<driver>/, lab/gpudirect)
 *   free:     UNREGISTER_VIDMEM with the last buffer of its RM memory object (+ VA
 *             space, object with the last one), cuMemFree
 *
 * geforce-vmm allocates with the VMM API instead (cuMemCreate with gpuDirectRDMACapable,
 * cuMemMap), as NVIDIA's GPUDirect RDMA guide asks for VMM memory a NIC registers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/mem_cuda.h"
#include "lib/hw/rm.h"
#include "lib/hw/rm_abi.h"
#include "traffic/geforce/rm_capture.h"
#include "traffic/geforce/rm_p2p.h"

struct geforce_buf {
	void *cuda_priv;	/* mem_cuda_buf, swapped into b->priv around mem_cuda_* calls */
	struct rm_handles h;
	bool have_handles;
	struct rm_p2p_reg reg;
	bool registered;
};

#define WITH_CUDA(b, g, call)                                                             \
	({                                                                                \
		void *saved_ = (b)->priv;                                                 \
		__typeof__(call) r_;                                                      \
		(b)->priv = (g)->cuda_priv;                                               \
		r_ = (call);                                                              \
		(g)->cuda_priv = (b)->priv;                                               \
		(b)->priv = saved_;                                                       \
		r_;                                                                       \
	})

static int alloc_with(struct mem_buf *b, const struct mem_req *req, bool vmm)
{
	char why[256], sum[512];
	struct geforce_buf *g;
	uint64_t mark;
	int rc;

	rc = rm_capture_start(why, sizeof(why));
	if (rc == -ENOENT)
		return mem_buf_fail(b, -ENOENT, "%s", why);
	if (rc)
		return mem_buf_fail(b, rc, "%s", why);
	g = calloc(1, sizeof(*g));
	if (!g)
		return mem_buf_fail(b, -ENOMEM, "out of host memory");
	mark = rm_capture_mark();
	rc = vmm ? mem_cuda_buf_alloc_vmm(b, req) : mem_cuda_buf_alloc(b, req);
	g->cuda_priv = b->priv;
	b->priv = g;
	if (rc)
		return rc;
	rc = rm_capture_lookup((uint64_t)(uintptr_t)b->addr, b->len, mark, &g->h, why, sizeof(why));
	rm_capture_summary(sum, sizeof(sum));
	if (rc)
		return mem_buf_fail(b, -EIO, "%s; %s", why, sum);
	g->have_handles = true;
	return 0;
}

static int geforce_alloc(struct mem_buf *b, const struct mem_req *req)
{
	return alloc_with(b, req, false);
}

static int geforce_vmm_alloc(struct mem_buf *b, const struct mem_req *req)
{
	return alloc_with(b, req, true);
}

static int geforce_export(struct mem_buf *b)
{
	struct geforce_buf *g = b->priv;
	struct rm_p2p_reg *r = &g->reg;
	char sum[512];
	int rc;

	if (!g || !g->have_handles)
		return mem_buf_fail(b, -EINVAL, "no RM handles captured for this buffer");
	rc = rm_p2p_register(&g->h, (uint64_t)(uintptr_t)b->addr, b->len, r);
	rm_capture_summary(sum, sizeof(sum));
	snprintf(b->why, sizeof(b->why),
		 "captured client 0x%x device 0x%x subdevice 0x%x VA space 0x%x memory 0x%x+0x%llx "
		 "(%s; %s); NV503C alloc: %s%s; REGISTER_VA_SPACE on 0x%x: %s (token 0x%llx); "
		 "REGISTER_VIDMEM 0x%llx+0x%llx: %s%s%s%s",
		 g->h.client, g->h.device, g->h.subdevice, g->h.va_space, g->h.memory,
		 (unsigned long long)g->h.mem_offset, g->h.how ? g->h.how : "?", sum,
		 hw_rm_status_name(r->alloc_status),
		 r->reused ? " (CUDA made its own: controls sent to CUDA's object)" : "", r->p2p,
		 hw_rm_status_name(r->va_space_status),
		 (unsigned long long)r->va_space_token, (unsigned long long)r->va,
		 (unsigned long long)r->size, hw_rm_status_name(r->vidmem_status),
		 r->shared ? " (its memory object was registered already: counted, not sent)" :
		 r->by_cuda ? " (CUDA's own object holds this memory already: the NIC path finds it)" :
		 "",
		 r->errno_val ? "; ioctl: " : "", r->errno_val ? strerror(r->errno_val) : "");
	if (rc == -EBUSY)
		return mem_buf_fail(b, rc, "a ThirdPartyP2P object already exists for another GPU "
				    "or RM client; one GPU per process with --mem geforce");
	if (rc)
		return rc;
	g->registered = true;
	return 0;
}

static struct ibv_mr *geforce_reg(struct mem_buf *b, struct ibv_pd *pd, int access)
{
	struct geforce_buf *g = b->priv;
	struct ibv_mr *mr;
	int err;

	if (!g->registered && geforce_export(b) != 0)
		return NULL;
	mr = WITH_CUDA(b, g, mem_cuda_buf_reg_peermem(b, pd, access));
	if (!mr) {
		err = errno;
		if (err == EFAULT)
			snprintf(b->why, sizeof(b->why),
				 "ibv_reg_mr on GPU memory: EFAULT although the ThirdPartyP2P object is "
				 "registered: load the patched nvidia-peermem (lab/gpudirect all; "
				 "'lab/gpudirect verify' checks it)");
		errno = err;
		return NULL;
	}
	b->path = "geforce (peermem, NV503C)";
	return mr;
}

static int geforce_write(struct mem_buf *b, size_t off, const void *src, size_t n)
{
	struct geforce_buf *g = b->priv;

	return WITH_CUDA(b, g, mem_cuda_buf_write(b, off, src, n));
}

static int geforce_read(struct mem_buf *b, size_t off, void *dst, size_t n)
{
	struct geforce_buf *g = b->priv;

	return WITH_CUDA(b, g, mem_cuda_buf_read(b, off, dst, n));
}

static void geforce_free(struct mem_buf *b)
{
	struct geforce_buf *g = b->priv;

	if (!g)
		return;
	if (g->registered)
		rm_p2p_unregister(&g->reg);
	b->priv = g->cuda_priv;
	if (b->priv)
		mem_cuda_buf_free(b);
	b->priv = NULL;
	free(g);
}

const struct mem_ops mem_geforce_ops = {
	.name = "geforce",
	.summary = "GPU memory on GeForce: pfclab creates the ThirdPartyP2P object CUDA does not "
		   "(needs the patched modules, lab/gpudirect)",
	.alloc = geforce_alloc,
	.export = geforce_export,
	.reg = geforce_reg,
	.write = geforce_write,
	.read = geforce_read,
	.free = geforce_free,
};

const struct mem_ops mem_geforce_vmm_ops = {
	.name = "geforce-vmm",
	.summary = "as geforce, allocated with the VMM API (cuMemCreate, gpuDirectRDMACapable)",
	.alloc = geforce_vmm_alloc,
	.export = geforce_export,
	.reg = geforce_reg,
	.write = geforce_write,
	.read = geforce_read,
	.free = geforce_free,
};
