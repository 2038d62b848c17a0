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
#include "traffic/geforce/rm_abi.h"
#include "traffic/geforce/rm_p2p.h"

#define RM_IOWR(nr, type) _IOC(_IOC_READ | _IOC_WRITE, RM_IOCTL_MAGIC, (nr), sizeof(type))
/* Handles we make: a range CUDA's own (0xcaf0000x, 0x5c00000x, ...) do not use. */
#define P2P_HANDLE_BASE 0xbf503c00u

/* The shared object: one per RM client and subdevice. */
static struct {
	pthread_mutex_t lock;
	uint32_t client, subdevice, va_space, p2p;
	int fd;
	unsigned int refs;
	uint64_t token;
	bool owned;		/* we allocated it (else it is CUDA's) */
} obj = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

const char *rm_status_name(uint32_t status)
{
	static const struct {
		uint32_t code;
		const char *name;
	} names[] = {
		{ 0x00, "NV_OK" },
		{ 0x19, "NV_ERR_INSERT_DUPLICATE_NAME" },
		{ 0x1a, "NV_ERR_INSUFFICIENT_RESOURCES" },
		{ 0x1b, "NV_ERR_INSUFFICIENT_PERMISSIONS" },
		{ 0x1e, "NV_ERR_INVALID_ADDRESS" },
		{ 0x1f, "NV_ERR_INVALID_ARGUMENT" },
		{ 0x22, "NV_ERR_INVALID_CLASS" },
		{ 0x23, "NV_ERR_INVALID_CLIENT" },
		{ 0x24, "NV_ERR_INVALID_COMMAND" },
		{ 0x2e, "NV_ERR_INVALID_LIMIT" },
		{ 0x33, "NV_ERR_INVALID_OBJECT_HANDLE" },
		{ 0x36, "NV_ERR_INVALID_OBJECT_PARENT" },
		{ 0x37, "NV_ERR_INVALID_OFFSET" },
		{ 0x3a, "NV_ERR_INVALID_PARAM_STRUCT" },
		{ 0x40, "NV_ERR_INVALID_STATE" },
		{ 0x51, "NV_ERR_NO_MEMORY" },
		{ 0x55, "NV_ERR_NOT_READY" },
		{ 0x56, "NV_ERR_NOT_SUPPORTED" },
		{ 0x57, "NV_ERR_OBJECT_NOT_FOUND" },
		{ 0x59, "NV_ERR_OPERATING_SYSTEM" },
		{ 0x63, "NV_ERR_STATE_IN_USE" },
		{ RM_STATUS_NOT_REACHED, "not reached" },
	};
	static __thread char buf[48];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].code == status)
			return names[i].name;
	snprintf(buf, sizeof(buf), "NV_STATUS 0x%x", status);
	return buf;
}

/* One RM control; returns the RM status, or RM_STATUS_NOT_REACHED with *err set. */
static uint32_t rm_control(int fd, uint32_t client, uint32_t object, uint32_t cmd, void *params,
			   uint32_t size, int *err)
{
	struct rm_control c = {
		.client = client, .object = object, .cmd = cmd,
		.params = (uint64_t)(uintptr_t)params, .params_size = size,
	};

	if (ioctl(fd, RM_IOWR(RM_ESC_CONTROL, struct rm_control), &c) < 0) {
		*err = errno;
		return RM_STATUS_NOT_REACHED;
	}
	return c.status;
}

static uint32_t rm_free_obj(int fd, uint32_t client, uint32_t parent, uint32_t object)
{
	struct rm_free f = { .client = client, .parent = parent, .object = object };

	if (ioctl(fd, RM_IOWR(RM_ESC_FREE, struct rm_free), &f) < 0)
		return RM_STATUS_NOT_REACHED;
	return f.status;
}

/* Allocate the NV503C object; RM status, handle in *p2p. */
static uint32_t alloc_p2p(const struct rm_handles *h, uint32_t *p2p, int *err)
{
	struct rm_503c_alloc params = { .flags = RM_503C_TYPE_BAR1 };
	struct rm_alloc a;
	unsigned int i;

	for (i = 0; i < 16; i++) {
		a = (struct rm_alloc){
			.client = h->client, .parent = h->subdevice, .object = P2P_HANDLE_BASE + i,
			.cls = RM_CLASS_THIRD_PARTY_P2P, .params = (uint64_t)(uintptr_t)&params,
			.params_size = sizeof(params),
		};
		if (ioctl(h->fd, RM_IOWR(RM_ESC_ALLOC, struct rm_alloc), &a) < 0) {
			*err = errno;
			return RM_STATUS_NOT_REACHED;
		}
		if (a.status != RM_ERR_INSERT_DUPLICATE_NAME)
			break;
	}
	*p2p = a.object;
	return a.status;
}

int rm_p2p_register(const struct rm_handles *h, uint64_t va, uint64_t size,
		    struct rm_p2p_reg *r)
{
	struct rm_503c_register_va_space vs = { .va_space = h->va_space };
	struct rm_503c_register_vidmem vm = {
		.memory = h->memory, .address = va, .size = size, .offset = h->mem_offset,
	};
	int err = 0, rc = 0;

	memset(r, 0, sizeof(*r));
	r->h = *h;
	r->va = va;
	r->size = size;
	r->alloc_status = r->va_space_status = r->vidmem_status = RM_STATUS_NOT_REACHED;
	pthread_mutex_lock(&obj.lock);
	if (obj.refs && (obj.client != h->client || obj.subdevice != h->subdevice)) {
		/* RM allows one object per client and GPU; a second GPU is not supported here. */
		r->alloc_status = RM_STATUS_NOT_REACHED;
		rc = -EBUSY;
		goto out;
	}
	if (!obj.refs) {
		r->alloc_status = alloc_p2p(h, &obj.p2p, &err);
		obj.owned = r->alloc_status == RM_OK;
		if (!obj.owned && r->alloc_status != RM_STATUS_NOT_REACHED && h->cuda_p2p) {
			obj.p2p = h->cuda_p2p;
			r->reused = true;
		} else if (!obj.owned) {
			goto fail;
		}
		r->p2p = obj.p2p;
		r->va_space_status = rm_control(h->fd, h->client, obj.p2p,
						RM_503C_CTRL_REGISTER_VA_SPACE, &vs, sizeof(vs), &err);
		if (r->va_space_status != RM_OK) {
			if (obj.owned)
				rm_free_obj(h->fd, h->client, h->subdevice, obj.p2p);
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
	r->vidmem_status = rm_control(h->fd, h->client, obj.p2p, RM_503C_CTRL_REGISTER_VIDMEM, &vm,
				      sizeof(vm), &err);
	if (r->vidmem_status != RM_OK) {
		if (!obj.refs) {
			struct rm_503c_unregister_va_space uv = { .va_space = obj.va_space };

			rm_control(h->fd, h->client, obj.p2p, RM_503C_CTRL_UNREGISTER_VA_SPACE, &uv,
				   sizeof(uv), &err);
			if (obj.owned)
				rm_free_obj(h->fd, h->client, h->subdevice, obj.p2p);
		}
		goto fail;
	}
	obj.refs++;
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
	struct rm_503c_unregister_va_space uvs;
	int err = 0;

	if (r->vidmem_status != RM_OK)
		return;
	pthread_mutex_lock(&obj.lock);
	rm_control(obj.fd, obj.client, obj.p2p, RM_503C_CTRL_UNREGISTER_VIDMEM, &uvm, sizeof(uvm),
		   &err);
	if (obj.refs && --obj.refs == 0) {
		uvs.va_space = obj.va_space;
		rm_control(obj.fd, obj.client, obj.p2p, RM_503C_CTRL_UNREGISTER_VA_SPACE, &uvs,
			   sizeof(uvs), &err);
		if (obj.owned)
			rm_free_obj(obj.fd, obj.client, obj.subdevice, obj.p2p);
		obj.p2p = 0;
		obj.fd = -1;
	}
	pthread_mutex_unlock(&obj.lock);
	r->vidmem_status = RM_STATUS_NOT_REACHED;
}
