/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm_capture.h: learn the NVIDIA RM handles CUDA allocates (client, device, subdevice, VA
 * space, video memory) by interposing libcuda's ioctl() calls on the NVIDIA device files.
 * The geforce memory backend needs them to create the NV50_THIRD_PARTY_P2P object that
 * GeForce CUDA never creates (see rm_p2p.h).
 */
#ifndef PFCLAB_TRAFFIC_RM_CAPTURE_H
#define PFCLAB_TRAFFIC_RM_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kinds of file descriptor an observed ioctl went to. */
enum rm_fd_kind { RM_FD_OTHER, RM_FD_RM, RM_FD_UVM };

/* What a buffer at a GPU VA needs for REGISTER_VIDMEM, and the objects around it. */
struct rm_handles {
	int fd;			/* RM fd the client was allocated on */
	uint32_t client, device, subdevice, va_space, memory;
	uint64_t mem_offset;	/* offset of the buffer inside the memory object */
	/* The whole mapping of the memory object that holds the buffer (GPU VA, length, offset
	 * into the object): RM keys video-memory registrations by memory object, so it is
	 * registered once, whole, for every buffer inside it.
	 */
	uint64_t map_va, map_len, map_offset;
	uint32_t cuda_p2p;	/* an NV503C object CUDA made itself (datacenter GPUs), or 0 */
	const char *how;	/* how the memory object was matched to the VA */
};

/* Load libcuda (without initialising it) and route its ioctl() calls through the capture.
 * Call before the first CUDA call of the process. 0, or -ENOENT (no libcuda) / -ENOSYS
 * (libcuda imports no ioctl to interpose) with why filled.
 */
int rm_capture_start(char *why, size_t whylen);

/* A point in the stream of observed calls (for "allocated after this point"). */
uint64_t rm_capture_mark(void);

/* Find the handles for [va, va+len): 0, or -ENOENT with why saying what was seen. */
int rm_capture_lookup(uint64_t va, uint64_t len, uint64_t since, struct rm_handles *h,
		      char *why, size_t whylen);

/* "ioctls seen: 312 RM, 41 UVM; objects: 1 client, ..." for reports. */
void rm_capture_summary(char *buf, size_t len);

/* Record one successful ioctl as the interposer does (also the unit tests' entry point).
 * arg points at size bytes of parameters (size 0: unknown, for UVM's plain numbers).
 */
void rm_capture_observe(int fd, enum rm_fd_kind kind, unsigned long req, const void *arg,
			size_t size);
/* Forget everything observed (tests). */
void rm_capture_reset(void);

#endif
