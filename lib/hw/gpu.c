// SPDX-License-Identifier: GPL-2.0-or-later
/* gpu.c: NVIDIA GPU enumeration from /sys/bus/pci/devices.
 *
 * One class filter for every user: base class 0x03 (display controller) takes in the
 * VGA (0x0300) function of GeForce and workstation boards, the 3D controller (0x0302) of
 * data-centre boards (A100, H100) and "other display controller" (0x0380) where a board
 * reports that, and leaves out the other functions NVIDIA boards carry: HD audio (0x0403),
 * USB (0x0c03), the USB-C controller (0x0c80) and NVSwitch bridges (0x0680).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/hw/gpu.h"
#include "lib/hw/pci.h"
#include "lib/hw/sysfs.h"
#include "lib/util.h"

static int is_nvidia_gpu(const char *name)
{
	char v[16];

	if (hw_sysfs_readf(v, sizeof(v), "/sys/bus/pci/devices/%s/vendor", name) < 0 ||
	    strcmp(v, "0x10de"))
		return 0;
	return hw_sysfs_readf(v, sizeof(v), "/sys/bus/pci/devices/%s/class", name) == 0 &&
	       !strncmp(v, "0x03", 4);
}

/* Bound to the NVIDIA driver: not vfio-pci (passed to a VM), nouveau, or no driver. */
static bool nvidia_bound(const char *name)
{
	char path[96], link[256];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%.*s/driver", HW_BDF_LEN, name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	base = strrchr(link, '/');
	return !strcmp(base ? base + 1 : link, "nvidia");
}

int hw_gpu_list(char (*bdf)[HW_BDF_LEN], int max)
{
	struct dirent **list;
	int i, cnt, n = 0;

	cnt = scandir("/sys/bus/pci/devices", &list, NULL, alphasort);
	if (cnt < 0)
		return -errno;
	for (i = 0; i < cnt; i++) {
		const char *name = list[i]->d_name;

		if (name[0] != '.' && strlen(name) < HW_BDF_LEN && is_nvidia_gpu(name)) {
			if (n < max)
				strcpy(bdf[n], name);
			n++;
		}
		free(list[i]);
	}
	free(list);
	return n;
}

/* sel as --gpu takes it: 1 an index (*idx), 0 a PCI address (want, long form), or
 * -EINVAL with why. */
static int gpu_sel(const char *sel, uint32_t *idx, char *want, size_t wantlen, char *why,
		   size_t whylen)
{
	if (!parse_u32(sel, 0, HW_GPU_INDEX_MAX, idx))
		return 1;
	if (!hw_pci_addr_canon(sel, want, wantlen))
		return 0;
	snprintf(why, whylen, "expected a GPU index 0..%d (see nvidia-smi -L) or a PCI address "
		 "such as 0000:17:00.0", HW_GPU_INDEX_MAX);
	return -EINVAL;
}

int hw_gpu_find(const char *sel, char *bdf, size_t len, char *why, size_t whylen)
{
	char gpus[HW_GPU_INDEX_MAX + 1][HW_BDF_LEN], want[HW_BDF_LEN] = "";
	bool unheld = false;	/* want is a GPU the driver does not hold */
	uint32_t idx = 0;
	int n, i, k, by_index = gpu_sel(sel, &idx, want, sizeof(want), why, whylen);

	if (by_index < 0)
		return by_index;
	n = hw_gpu_list(gpus, HW_GPU_INDEX_MAX + 1);
	if (n < 0) {
		snprintf(why, whylen, "cannot read /sys/bus/pci/devices: %s", strerror(-n));
		return n;
	}
	if (n > HW_GPU_INDEX_MAX + 1)
		n = HW_GPU_INDEX_MAX + 1;
	/* nvidia-smi numbers only the GPUs the NVIDIA driver holds: where it holds any, so
	 * do we (one given to a VM through vfio-pci takes no number). The held ones move to
	 * the front in order; where none is held the list is left as it was. */
	for (i = 0, k = 0; i < n; i++) {
		if (nvidia_bound(gpus[i])) {
			if (k != i)
				memcpy(gpus[k], gpus[i], HW_BDF_LEN);
			k++;
		} else {
			unheld |= !strcmp(gpus[i], want);
		}
	}
	if (k)
		n = k;
	else
		unheld = false;
	for (i = 0; i < n; i++)
		if (by_index ? i == (int)idx : !strcmp(gpus[i], want))
			break;
	if (i == n) {
		if (!n)
			snprintf(why, whylen, "there is no NVIDIA GPU on this host's PCI bus "
				 "(lspci -d 10de: lists NVIDIA's devices, nvidia-smi -L the GPUs)");
		else if (by_index)
			snprintf(why, whylen, "this host has %d NVIDIA GPU%s (0..%d, numbered as "
				 "nvidia-smi -L does)", n, n == 1 ? "" : "s", n - 1);
		else if (unheld)
			snprintf(why, whylen, "%s is an NVIDIA GPU the nvidia driver does not hold "
				 "(see lspci -k -s %s); nvidia-smi -L lists the ones it does", want,
				 want);
		else
			snprintf(why, whylen, "%s is not an NVIDIA GPU here (see nvidia-smi -L, or "
				 "lspci -d 10de:)", want);
		return -ENODEV;
	}
	if (snprintf(bdf, len, "%s", gpus[i]) >= (int)len)
		return -ENOSPC;
	return i;
}

int hw_gpu_opt(void *dst, const char *v, char *why, size_t whylen)
{
	char want[HW_BDF_LEN];
	uint32_t u;

	if (gpu_sel(v, &u, want, sizeof(want), why, whylen) < 0)
		return -1;
	*(const char **)dst = v;
	return 0;
}

int hw_gpu_index(const char *sel, char *why, size_t whylen)
{
	char bdf[HW_BDF_LEN];
	uint32_t u;
	int i = hw_gpu_find(sel, bdf, sizeof(bdf), why, whylen);

	/* an index where the PCI bus cannot be listed (no sysfs): taken as given, NVML
	 * numbers the GPUs itself */
	if (i < 0 && i != -ENODEV && i != -EINVAL && !parse_u32(sel, 0, HW_GPU_INDEX_MAX, &u))
		return (int)u;
	return i;
}
