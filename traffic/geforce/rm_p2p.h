/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm_p2p.h: the ThirdPartyP2P (NV50_THIRD_PARTY_P2P, class 0x503C) object that lets
 * nvidia_p2p_get_pages_persistent() (patched nvidia-peermem) find a process's GPU memory on
 * GeForce GPUs, made through RM ioctls under the subdevice CUDA allocated:
 *
 *   RM_ALLOC NV503C (TYPE_BAR1) -> REGISTER_VA_SPACE (CUDA's VA space)
 *     -> REGISTER_VIDMEM per RM memory object (memory, GPU VA, size, offset of its whole
 *        mapping) ... UNREGISTER_VIDMEM, UNREGISTER_VA_SPACE, FREE
 *
 * One object per RM client and GPU (RM allows no more), shared by the buffers, freed with
 * the last one. RM keys registrations by memory handle (third_party_p2p.c in
 * NVIDIA/open-gpu-kernel-modules), so a memory object is registered once and counted by
 * the buffers inside it: unregistered when the last of them goes, in any order. Every call records the RM status it got, for --check-mem. Where CUDA made
 * its own object (datacenter GPUs; RM allows one per client and GPU) and ours is refused,
 * the controls go to CUDA's object, which is never freed here.
 */
#ifndef PFCLAB_TRAFFIC_RM_P2P_H
#define PFCLAB_TRAFFIC_RM_P2P_H

#include <stdbool.h>
#include <stdint.h>

#include "traffic/geforce/rm_capture.h"

struct rm_p2p_reg {
	struct rm_handles h;
	uint32_t p2p;		/* the NV503C handle */
	uint64_t va, size;
	uint32_t alloc_status, va_space_status, vidmem_status;	/* RM status of each step */
	uint64_t va_space_token;
	int errno_val;		/* errno of a failed ioctl(), 0 if none */
	bool reused;		/* our alloc was refused; the controls went to CUDA's own object */
	bool shared;		/* its memory object was registered already (by another buffer) */
	bool by_cuda;		/* RM said CUDA's own object holds this memory already */
	bool held;		/* this registration counts in the table (unregister undoes it) */
};

/* Make (or reuse) the object and register the whole mapping of h->memory that holds
 * [va, va+size), once per memory object. 0 on success (also when CUDA's own object holds
 * the memory already: r->by_cuda); -EIO when RM refused a step (its status is in r),
 * -errno for ioctl failures. r is filled either way (step statuses; 0xffffffff = not
 * reached).
 */
int rm_p2p_register(const struct rm_handles *h, uint64_t va, uint64_t size,
		    struct rm_p2p_reg *r);
/* Undo one registration: the memory object is unregistered with its last buffer, the
 * object freed with the last memory object. -ENOSPC: too many memory objects.
 */
void rm_p2p_unregister(struct rm_p2p_reg *r);

#endif
