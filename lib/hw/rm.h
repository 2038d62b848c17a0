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

#endif
