// SPDX-License-Identifier: GPL-2.0-or-later
/* rm_p2p.c: allocate NV50_THIRD_PARTY_P2P under CUDA's subdevice, register CUDA's VA space
 * and each buffer's video memory with it, and undo it all; plus NV_STATUS names.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "lib/util.h"
#include "lib/hw/rm.h"
#include "lib/hw/rm_abi.h"
#include "traffic/geforce/rm_p2p.h"

/* Handles we make: a range CUDA's own (0xcaf0000x, 0x5c00000x, ...) do not use. */
#define P2P_HANDLE_BASE 0xbf503c00u

/* The shared object: one per RM client and subdevice, and the memory objects registered
 * with it. RM keys video-memory registrations by memory handle (a second REGISTER_VIDMEM
 * of one hMemory is refused, UNREGISTER_VIDMEM takes only the handle), so each memory
 * object is registered once, whole, and counted by the buffers that use it.
 */
#define P2P_MAX_MEMS 64
static struct {
	pthread_mutex_t lock;
	uint32_t client, subdevice, va_space, p2p;
	int fd;
	unsigned int nmems;	/* memory objects registered; the object lives while > 0 */
	struct {
		uint32_t memory;
		unsigned int refs;	/* buffers inside it */
		bool ours;		/* we registered it (else CUDA did, with its own object) */
	} mems[P2P_MAX_MEMS];
	uint64_t token;
	bool owned;		/* we allocated it (else it is CUDA's) */
} obj = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

/* Allocate the NV503C object; RM status, handle in *p2p. */
static uint32_t alloc_p2p(const struct rm_handles *h, uint32_t *p2p, int *err)
{
	struct rm_503c_alloc params = { .flags = RM_503C_TYPE_BAR1 };
	uint32_t st = RM_STATUS_NOT_REACHED;
	unsigned int i;

	for (i = 0; i < 16; i++) {
		*p2p = P2P_HANDLE_BASE + i;
		st = hw_rm_alloc(h->fd, h->client, h->subdevice, p2p, RM_CLASS_THIRD_PARTY_P2P,
				 &params, sizeof(params), err);
		if (st != RM_ERR_INSERT_DUPLICATE_NAME)
			break;
	}
	return st;
}

static int mem_find(uint32_t memory)
{
	unsigned int i;

	for (i = 0; i < obj.nmems; i++)
		if (obj.mems[i].memory == memory)
			return (int)i;
	return -1;
}

/* Drop the VA space registration and the object (ours only) once nothing is registered.
 * The memory objects are unregistered by then.
 */
static void obj_release(void)
{
	struct rm_503c_unregister_va_space uvs = { .va_space = obj.va_space };
	int err = 0;

	hw_rm_control(obj.fd, obj.client, obj.p2p, RM_503C_CTRL_UNREGISTER_VA_SPACE, &uvs,
		   sizeof(uvs), &err);
	if (obj.owned)
		hw_rm_free(obj.fd, obj.client, obj.subdevice, obj.p2p);
	obj.p2p = 0;
	obj.fd = -1;
}

int rm_p2p_register(const struct rm_handles *h, uint64_t va, uint64_t size,
		    struct rm_p2p_reg *r)
{
	struct rm_503c_register_va_space vs = { .va_space = h->va_space };
	/* The whole mapping of the memory object, not only this buffer (see obj above). */
	struct rm_503c_register_vidmem vm = {
		.memory = h->memory,
		.address = h->map_len ? h->map_va : va,
		.size = h->map_len ? h->map_len : size,
		.offset = h->map_len ? h->map_offset : h->mem_offset,
	};
	int err = 0, rc = 0, m;

	memset(r, 0, sizeof(*r));
	r->h = *h;
	r->va = va;
	r->size = size;
	r->alloc_status = r->va_space_status = r->vidmem_status = RM_STATUS_NOT_REACHED;
	pthread_mutex_lock(&obj.lock);
	if (obj.nmems && (obj.client != h->client || obj.subdevice != h->subdevice)) {
		/* RM allows one object per client and GPU; a second GPU is not supported here. */
		rc = -EBUSY;
		goto out;
	}
	if (!obj.nmems) {
		r->alloc_status = alloc_p2p(h, &obj.p2p, &err);
		obj.owned = r->alloc_status == RM_OK;
		if (!obj.owned && r->alloc_status != RM_STATUS_NOT_REACHED && h->cuda_p2p) {
			obj.p2p = h->cuda_p2p;
			r->reused = true;
		} else if (!obj.owned) {
			goto fail;
		}
		r->p2p = obj.p2p;
		r->va_space_status = hw_rm_control(h->fd, h->client, obj.p2p,
						RM_503C_CTRL_REGISTER_VA_SPACE, &vs, sizeof(vs), &err);
		if (r->va_space_status != RM_OK) {
			if (obj.owned)
				hw_rm_free(h->fd, h->client, h->subdevice, obj.p2p);
			goto fail;
		}
		obj.client = h->client;
		obj.subdevice = h->subdevice;
		obj.va_space = h->va_space;
		obj.fd = h->fd;
		obj.token = vs.va_space_token;
	} else {
		r->alloc_status = RM_OK;
		r->va_space_status = RM_OK;
	}
	r->p2p = obj.p2p;
	r->va_space_token = obj.token;
	m = mem_find(h->memory);
	if (m >= 0) {
		/* Another buffer of a memory object registered already: count it. */
		obj.mems[m].refs++;
		r->vidmem_status = RM_OK;
		r->shared = true;
		r->held = true;
		goto out;
	}
	if (obj.nmems == P2P_MAX_MEMS) {
		rc = -ENOSPC;
		goto out;
	}
	r->vidmem_status = hw_rm_control(h->fd, h->client, obj.p2p, RM_503C_CTRL_REGISTER_VIDMEM, &vm,
				      sizeof(vm), &err);
	if (r->vidmem_status == RM_ERR_INSERT_DUPLICATE_NAME && !obj.owned) {
		/* Datacenter GPUs: CUDA registered this memory with its own object already, which
		 * is what the NIC path looks up. Count it, and leave its registration alone.
		 */
		r->by_cuda = true;
	} else if (r->vidmem_status != RM_OK) {
		if (!obj.nmems)
			obj_release();
		goto fail;
	}
	obj.mems[obj.nmems].memory = h->memory;
	obj.mems[obj.nmems].refs = 1;
	obj.mems[obj.nmems].ours = !r->by_cuda;
	obj.nmems++;
	r->held = true;
	goto out;
fail:
	r->errno_val = err;
	rc = err ? -err : -EIO;
out:
	pthread_mutex_unlock(&obj.lock);
	return rc;
}

void rm_p2p_unregister(struct rm_p2p_reg *r)
{
	struct rm_503c_unregister_vidmem uvm = { .memory = r->h.memory };
	int err = 0, m;

	if (!r->held)
		return;
	pthread_mutex_lock(&obj.lock);
	m = mem_find(r->h.memory);
	if (m >= 0 && --obj.mems[m].refs == 0) {
		if (obj.mems[m].ours)
			hw_rm_control(obj.fd, obj.client, obj.p2p, RM_503C_CTRL_UNREGISTER_VIDMEM, &uvm,
				   sizeof(uvm), &err);
		obj.mems[m] = obj.mems[--obj.nmems];
		if (!obj.nmems)
			obj_release();
	}
	pthread_mutex_unlock(&obj.lock);
	r->held = false;
}
