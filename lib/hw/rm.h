/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm.h: NVIDIA Resource Manager (RM) calls on /dev/nvidiactl: one control, one
 * allocation, one free (the ABI in rm_abi.h), NV_STATUS names, and a small RM client of
 * our own that reads a GPU's cumulative PCIe byte counters in one control call
 * (NV2080_CTRL_CMD_BUS_GET_PEX_UTIL_COUNTERS, TX and RX together), the counters NVML
 * reads for its fields 197/198 one call per field.
 *
 * Every call returns the RM status (RM_OK, an NV_STATUS) or RM_STATUS_NOT_REACHED with
 * *err holding errno when the ioctl itself failed.
 */
#ifndef PFCLAB_LIB_HW_RM_H
#define PFCLAB_LIB_HW_RM_H

#include <stddef.h>
#include <stdint.h>

#include "lib/hw/rm_abi.h"

uint32_t hw_rm_control(int fd, uint32_t client, uint32_t object, uint32_t cmd, void *params,
		       uint32_t size, int *err);
/* *object in: the handle asked for (0: RM picks one); out: the handle given. */
uint32_t hw_rm_alloc(int fd, uint32_t client, uint32_t parent, uint32_t *object, uint32_t cls,
		     void *params, uint32_t size, int *err);
uint32_t hw_rm_free(int fd, uint32_t client, uint32_t parent, uint32_t object);
/* "NV_ERR_NOT_SUPPORTED", or "NV_STATUS 0x..." for a code without a name here. */
const char *hw_rm_status_name(uint32_t status);

#define HW_RM_BDF_LEN 16	/* "0000:17:00.0" and its NUL */

/* Our own client, device and subdevice of one GPU. */
struct hw_rm_gpu {
	int ctl, dev_fd;
	uint32_t client, device, subdevice;
};

/* Opens the GPU at PCI address bdf ("0000:17:00.0"): 0, or -errno with why filled
 * (-ENOENT: no /dev/nvidiactl; -ENODEV: RM does not know that address; -EIO: RM refused
 * a step, named in why). g is ready for hw_rm_gpu_close either way.
 */
int hw_rm_gpu_open(struct hw_rm_gpu *g, const char *bdf, char *why, size_t whylen);
/* The cumulative PCIe transmit and receive byte counters (32 bits, they wrap). */
uint32_t hw_rm_gpu_pcie_bytes(struct hw_rm_gpu *g, uint32_t *tx, uint32_t *rx, int *err);
void hw_rm_gpu_close(struct hw_rm_gpu *g);

/* The "Device Minor" line of /proc/driver/nvidia/gpus/BDF/information (text), or -1. */
int hw_rm_parse_minor(const char *text);

/* Parsers of the control replies the client above reads: p and len are the parameter
 * struct as RM left it (outside bytes: read through lib/rd.h, fuzzed by
 * lib/hw/fuzz/fuzz_rm.c). Each returns 0, or -EBADMSG for a reply shorter than its
 * struct or one that says what cannot be (as documented per parser). */
#define HW_RM_MAX_GPUS 32	/* NV_MAX_DEVICES */

/* NV0000_CTRL_CMD_GPU_GET_PROBED_IDS: the GPU ids before the first invalid one (RM keeps
 * the valid ones contiguous), at most HW_RM_MAX_GPUS, into ids; *n how many. len is 384
 * (three tables) or 256 (drivers before gpuFlags[]). */
int hw_rm_parse_probed_ids(const void *p, size_t len, uint32_t *ids, size_t *n);

struct hw_rm_pci_info {
	uint32_t domain;
	uint16_t bus, slot;
};
/* NV0000_CTRL_CMD_GPU_GET_PCI_INFO: the GPU's PCI domain, bus and slot. */
int hw_rm_parse_pci_info(const void *p, size_t len, struct hw_rm_pci_info *pci);
/* NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2: the GPU's device instance, the deviceId a device
 * object of it is allocated with; -EBADMSG when it is not below HW_RM_MAX_GPUS (no device
 * object can have it): *inst holds it either way. */
int hw_rm_parse_id_info(const void *p, size_t len, uint32_t *inst);
/* NV2080_CTRL_CMD_BUS_GET_PEX_UTIL_COUNTERS asked for TX and RX bytes: the counters. */
int hw_rm_parse_pex_bytes(const void *p, size_t len, uint32_t *tx, uint32_t *rx);

#endif
