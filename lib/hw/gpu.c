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
#include <stdlib.h>
#include <string.h>

#include "lib/hw/gpu.h"
#include "lib/hw/sysfs.h"

static int is_nvidia_gpu(const char *name)
{
	char v[16];

	if (hw_sysfs_readf(v, sizeof(v), "/sys/bus/pci/devices/%s/vendor", name) < 0 ||
	    strcmp(v, "0x10de"))
		return 0;
	return hw_sysfs_readf(v, sizeof(v), "/sys/bus/pci/devices/%s/class", name) == 0 &&
	       !strncmp(v, "0x03", 4);
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
