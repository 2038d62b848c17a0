/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gpu.h: the NVIDIA GPUs on the PCI bus, found in sysfs without any NVIDIA library. */
#ifndef PFCLAB_LIB_HW_GPU_H
#define PFCLAB_LIB_HW_GPU_H

#define HW_GPU_MAX 16
#define HW_BDF_LEN 16	/* "0000:17:00.0" and its NUL */

/* PCI addresses of the NVIDIA GPUs (vendor 0x10de, base class 0x03 "display
 * controller"), sorted by address: the order nvidia-smi and NVML number them by
 * default, so bdf[N] is GPU N. Returns how many there are (only the first max are
 * stored) or -errno when /sys/bus/pci/devices is not readable.
 */
int hw_gpu_list(char (*bdf)[HW_BDF_LEN], int max);

#endif
