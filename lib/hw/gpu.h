/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gpu.h: the NVIDIA GPUs on the PCI bus, found in sysfs without any NVIDIA library. */
#ifndef PFCLAB_LIB_HW_GPU_H
#define PFCLAB_LIB_HW_GPU_H

#include <stddef.h>

#define HW_GPU_MAX 16
#define HW_BDF_LEN 16	/* "0000:17:00.0" and its NUL */
#define HW_GPU_INDEX_MAX 63	/* the largest GPU index options take */

/* Everything here reads the PCI bus under hw_sysfs_root() (lib/hw/sysfs.h).
 *
 * PCI addresses of the NVIDIA GPUs (vendor 0x10de, base class 0x03 "display
 * controller"), sorted by address: the order nvidia-smi and NVML number them by
 * default, so bdf[N] is GPU N. Returns how many there are (only the first max are
 * stored) or -errno when /sys/bus/pci/devices is not readable.
 */
int hw_gpu_list(char (*bdf)[HW_BDF_LEN], int max);

/* GPU sel, an index as nvidia-smi -L numbers them ("1") or a PCI address ("0000:17:00.0"
 * or lspci's "17:00.0"), on this host: its index, with its full PCI address in bdf. The
 * index counts the GPUs of hw_gpu_list bound to the nvidia driver, as nvidia-smi does,
 * or all of them where the driver holds none.
 * -EINVAL when sel is neither, -ENODEV when there is no such NVIDIA GPU, -errno when the
 * PCI bus cannot be read; why says which, and what to do (without sel).
 */
int hw_gpu_find(const char *sel, char *bdf, size_t len, char *why, size_t whylen);
/* An option parser (lib/opt's OPT_FN) for --gpu G into a const char *: an index 0..63 or
 * a PCI address, as given; whether this host has that GPU is hw_gpu_index's to say (a
 * GPU named for another host is not looked for here). */
int hw_gpu_opt(void *dst, const char *v, char *why, size_t whylen);
/* G as hw_gpu_opt took it, on this host: its index, checked against the GPUs there
 * (hw_gpu_find, with its errors: -ENODEV for a GPU this host does not have, an index
 * past the last or an address that is no NVIDIA GPU). Where the PCI bus cannot be read
 * an index is taken as given (NVML numbers the GPUs itself); an address fails then. */
int hw_gpu_index(const char *sel, char *why, size_t whylen);

/* --gpu for a set of GPUs: "all", or a comma list of what hw_gpu_opt takes ("0,1",
 * "0000:17:00.0,65:00.0"), at most HW_GPU_MAX items. An option parser (OPT_FN) into a
 * const char *, checking the form only, as hw_gpu_opt does: one GPU alone is a set of one.
 */
#define HW_GPU_ALL "all"
int hw_gpu_set_opt(void *dst, const char *v, char *why, size_t whylen);
/* SET as hw_gpu_set_opt took it, on this host: the GPUs' indices (nvidia-smi's numbers)
 * into idx[0..max), in the order given, "all" in index order (beyond max left out).
 * Returns how many; -ENODEV for a GPU this host lacks (or none at all for "all"), -EINVAL
 * for one named twice (by index and by address, say) or an item hw_gpu_index refuses,
 * -errno where the PCI bus cannot be read for "all" or an address; why says which.
 */
int hw_gpu_set_index(const char *set, int *idx, int max, char *why, size_t whylen);

#endif
