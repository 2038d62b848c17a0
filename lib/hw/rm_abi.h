/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm_abi.h: the few pieces of the NVIDIA Resource Manager (RM) user ABI that pfclab uses
 * (the geforce memory backend's P2P registration, the monitor's PCIe byte counters),
 * declared here from the public SDK headers of
 * NVIDIA/open-gpu-kernel-modules (src/common/sdk/nvidia/inc/nvos.h, class/cl503c.h,
 * ctrl/ctrl503c.h, src/nvidia/arch/nvalloc/unix/include/nv_escape.h,
 * kernel-open/common/inc/nv-ioctl*.h, kernel-open/nvidia-uvm/uvm_ioctl.h). Field order,
 * sizes and 8-byte alignment follow those headers; the static asserts pin the sizes.
 *
 * RM ioctls on /dev/nvidiactl (and /dev/nvidiaN) are _IOWR('F', escape, params): the
 * number is the escape code, the size that of the parameter struct.
 */
#ifndef PFCLAB_LIB_HW_RM_ABI_H
#define PFCLAB_LIB_HW_RM_ABI_H

#include <stddef.h>
#include <stdint.h>

#define RM_IOCTL_MAGIC 'F'
#define RM_ESC_FREE 0x29		/* NVOS00 */
#define RM_ESC_CONTROL 0x2A		/* NVOS54 */
#define RM_ESC_ALLOC 0x2B		/* NVOS21 or NVOS64, told apart by size */
#define RM_ESC_MAP_MEMORY_DMA 0x57	/* NVOS46 */
#define RM_ESC_IOCTL_XFER 0xD3		/* NV_IOCTL_BASE (200) + 11: big params by pointer */

/* Classes (RM object types). */
#define RM_CLASS_ROOT 0x0000		/* NV01_ROOT: the client */
#define RM_CLASS_ROOT_NON_PRIV 0x0001
#define RM_CLASS_ROOT_CLIENT 0x0041
#define RM_CLASS_DEVICE 0x0080		/* NV01_DEVICE_0 */
#define RM_CLASS_SUBDEVICE 0x2080	/* NV20_SUBDEVICE_0 */
#define RM_CLASS_VASPACE 0x90f1		/* FERMI_VASPACE_A */
#define RM_CLASS_MEMORY_LOCAL 0x0040	/* NV01_MEMORY_LOCAL_USER: video memory */
#define RM_CLASS_THIRD_PARTY_P2P 0x503c	/* NV50_THIRD_PARTY_P2P */

/* NV503C_ALLOC_PARAMETERS.flags, field TYPE (1:0). */
#define RM_503C_TYPE_BAR1 0x1

/* NV503C controls. */
#define RM_503C_CTRL_REGISTER_VA_SPACE 0x503c0102u
#define RM_503C_CTRL_UNREGISTER_VA_SPACE 0x503c0103u
#define RM_503C_CTRL_REGISTER_VIDMEM 0x503c0104u
#define RM_503C_CTRL_UNREGISTER_VIDMEM 0x503c0105u

/* A few NV_STATUS codes (nvstatuscodes.h). */
#define RM_OK 0x00
#define RM_ERR_INVALID_PARAM_STRUCT 0x3au	/* NV_ERR_INVALID_PARAM_STRUCT: a size not RM's */
#define RM_ERR_INSERT_DUPLICATE_NAME 0x19

/* NVOS00_PARAMETERS: free one object. */
struct rm_free {
	uint32_t client, parent, object;
	uint32_t status;
};

/* NVOS21_PARAMETERS: allocate an object. */
struct rm_alloc {
	uint32_t client, parent, object;
	uint32_t cls;
	uint64_t params;		/* user pointer */
	uint32_t params_size;
	uint32_t status;
};

/* NVOS64_PARAMETERS: allocate with requested rights. */
struct rm_alloc64 {
	uint32_t client, parent, object;
	uint32_t cls;
	uint64_t params;
	uint64_t rights;
	uint32_t params_size;
	uint32_t flags;
	uint32_t status;
	uint32_t pad;
};

/* NVOS54_PARAMETERS: a control call on an object. */
struct rm_control {
	uint32_t client, object;
	uint32_t cmd;
	uint32_t flags;
	uint64_t params;
	uint32_t params_size;
	uint32_t status;
};

/* NVOS46_PARAMETERS: map memory into a GPU VA space (RM-managed VA). Two layouts, told
 * apart by the escape's size: up to 580.65.06 (nvos.h at tag 570.133.20) flags is followed
 * by padding and dmaOffset sits at byte 40 (56 in all); from 580.65.06 on (nvos.h at tag
 * 580.142) flags2 and kindOverride follow flags and dmaOffset moves to byte 48 (64 in
 * all). hClient, hDevice, hDma, hMemory, offset and length keep their places.
 */
struct rm_map_dma {
	uint32_t client, device, dma, memory;
	uint64_t offset, length;
	uint32_t flags;
	uint32_t pad;
	uint64_t dma_offset;		/* out: the GPU VA */
	uint32_t status;
	uint32_t pad2;
};

/* The same, as drivers from 580.65.06 on define it. */
struct rm_map_dma_580 {
	uint32_t client, device, dma, memory;
	uint64_t offset, length;
	uint32_t flags;
	uint32_t flags2;
	uint32_t kind_override;
	uint32_t pad;
	uint64_t dma_offset;		/* out: the GPU VA */
	uint32_t status;
	uint32_t pad2;
};

/* nv_ioctl_xfer_t */
struct rm_xfer {
	uint32_t cmd, size;
	uint64_t ptr;
};

struct rm_503c_alloc {
	uint32_t flags;
};

struct rm_503c_register_va_space {
	uint32_t va_space;
	uint32_t pad;
	uint64_t va_space_token;	/* out */
};

struct rm_503c_unregister_va_space {
	uint32_t va_space;
};

struct rm_503c_register_vidmem {
	uint32_t memory;
	uint32_t pad;
	uint64_t address;		/* GPU VA, 64 KiB aligned */
	uint64_t size;			/* 64 KiB multiple */
	uint64_t offset;		/* into the memory object, 64 KiB aligned */
};

struct rm_503c_unregister_vidmem {
	uint32_t memory;
};

_Static_assert(sizeof(struct rm_free) == 16, "NVOS00 size");
_Static_assert(sizeof(struct rm_alloc) == 32, "NVOS21 size");
_Static_assert(sizeof(struct rm_alloc64) == 48, "NVOS64 size");
_Static_assert(sizeof(struct rm_control) == 32, "NVOS54 size");
_Static_assert(sizeof(struct rm_map_dma) == 56, "NVOS46 size (570.133.20)");
_Static_assert(offsetof(struct rm_map_dma, dma_offset) == 40, "NVOS46 dmaOffset (570)");
_Static_assert(offsetof(struct rm_map_dma, status) == 48, "NVOS46 status (570)");
_Static_assert(sizeof(struct rm_map_dma_580) == 64, "NVOS46 size (580.65.06 on)");
_Static_assert(offsetof(struct rm_map_dma_580, dma_offset) == 48, "NVOS46 dmaOffset (580)");
_Static_assert(offsetof(struct rm_map_dma_580, status) == 56, "NVOS46 status (580)");
_Static_assert(sizeof(struct rm_xfer) == 16, "nv_ioctl_xfer size");
_Static_assert(sizeof(struct rm_503c_register_va_space) == 16, "NV503C VA space params");
_Static_assert(sizeof(struct rm_503c_register_vidmem) == 32, "NV503C vidmem params");

/* UVM (/dev/nvidia-uvm) ioctls are plain numbers. UVM_MAP_EXTERNAL_ALLOCATION maps an RM
 * memory object into the UVM-managed VA space (how CUDA maps cuMemAlloc memory):
 *   u64 base, length, offset; UvmGpuMappingAttributes[UVM_MAX_GPUS] (36 bytes each);
 *   u64 gpuAttributesCount; s32 rmCtrlFd; u32 hClient; u32 hMemory; u32 rmStatus.
 * UVM_MAX_GPUS differs between releases (32, 256), so the tail is found from the end.
 */
#define RM_UVM_MAP_EXTERNAL_ALLOCATION 33
#define RM_UVM_ATTR_SIZE 36

/* The status of a step that was never reached (or whose ioctl itself failed). */
#define RM_STATUS_NOT_REACHED 0xffffffffu

#define RM_IOWR(nr, type) _IOC(_IOC_READ | _IOC_WRITE, RM_IOCTL_MAGIC, (nr), sizeof(type))

#endif
