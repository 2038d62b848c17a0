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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/hw/gpu.h"
#include "lib/hw/pci.h"
#include "lib/hw/sysfs.h"
#include "lib/util.h"

static int is_nvidia_gpu(const char *root, const char *name)
{
	char v[16];

	if (hw_sysfs_readf(v, sizeof(v), "%s/sys/bus/pci/devices/%s/vendor", root, name) < 0 ||
	    strcmp(v, "0x10de"))
		return 0;
	return hw_sysfs_readf(v, sizeof(v), "%s/sys/bus/pci/devices/%s/class", root, name) == 0 &&
	       !strncmp(v, "0x03", 4);
}

/* Bound to the NVIDIA driver: not vfio-pci (passed to a VM), nouveau, or no driver. */
static bool nvidia_bound(const char *name)
{
	char path[PATH_MAX], link[256];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%.*s/driver", hw_sysfs_root(),
		 HW_BDF_LEN, name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	base = strrchr(link, '/');
	return !strcmp(base ? base + 1 : link, "nvidia");
}

int hw_gpu_list(char (*bdf)[HW_BDF_LEN], int max)
{
	const char *root = hw_sysfs_root();
	char dir[PATH_MAX];
	struct dirent **list;
	int i, cnt, n = 0;

	snprintf(dir, sizeof(dir), "%s/sys/bus/pci/devices", root);
	cnt = scandir(dir, &list, NULL, alphasort);
	if (cnt < 0)
		return -errno;
	for (i = 0; i < cnt; i++) {
		const char *name = list[i]->d_name;

		if (name[0] != '.' && strlen(name) < HW_BDF_LEN && is_nvidia_gpu(root, name)) {
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

/* The GPUs as nvidia-smi numbers them into gpus (GPU N is gpus[N]): only those the NVIDIA
 * driver holds, where it holds any (one given to a VM through vfio-pci takes no number),
 * in PCI order; all of them where it holds none. Returns the count, or -errno when the
 * PCI bus cannot be read; *unheld_want says whether want (may be "") is a GPU left out.
 */
static int gpu_numbered(char (*gpus)[HW_BDF_LEN], const char *want, bool *unheld_want)
{
	int n = hw_gpu_list(gpus, HW_GPU_INDEX_MAX + 1), i, k;
	bool unheld = false;

	if (n < 0)
		return n;
	if (n > HW_GPU_INDEX_MAX + 1)
		n = HW_GPU_INDEX_MAX + 1;
	for (i = 0, k = 0; i < n; i++) {
		if (nvidia_bound(gpus[i])) {
			if (k != i)
				memcpy(gpus[k], gpus[i], HW_BDF_LEN);
			k++;
		} else {
			unheld |= !strcmp(gpus[i], want);
		}
	}
	*unheld_want = k && unheld;
	return k ? k : n;
}

int hw_gpu_find(const char *sel, char *bdf, size_t len, char *why, size_t whylen)
{
	char gpus[HW_GPU_INDEX_MAX + 1][HW_BDF_LEN], want[HW_BDF_LEN] = "";
	bool unheld = false;	/* want is a GPU the driver does not hold */
	uint32_t idx = 0;
	int n, i, by_index = gpu_sel(sel, &idx, want, sizeof(want), why, whylen);

	if (by_index < 0)
		return by_index;
	n = gpu_numbered(gpus, want, &unheld);
	if (n < 0) {
		snprintf(why, whylen, "cannot read %s/sys/bus/pci/devices: %s", hw_sysfs_root(),
			 strerror(-n));
		return n;
	}
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

/* Calls fn on each item of a comma list; the first non-zero return stops it. An empty
 * item (",0", "0,", "0,,1") is refused with why: a GPU left out or a typing slip. */
static int set_each(const char *set, int (*fn)(const char *item, void *arg), void *arg,
		    char *why, size_t whylen)
{
	const char *p = set, *e;
	char item[64];
	size_t l;
	int rc;

	for (;; p = e + 1) {
		e = strchr(p, ',');
		l = e ? (size_t)(e - p) : strlen(p);
		if (!l || l >= sizeof(item)) {
			snprintf(why, whylen, l ? "'%.20s...' is too long for a GPU" :
				 "an empty item in the list; give GPUs separated by single commas "
				 "(0,1 or 0000:17:00.0,0000:65:00.0), or all", p);
			return -EINVAL;
		}
		memcpy(item, p, l);
		item[l] = '\0';
		rc = fn(item, arg);
		if (rc)
			return rc;
		if (!e)
			return 0;
	}
}

struct set_check {
	char *why;
	size_t whylen;
	int n;
};

static int check_item(const char *item, void *arg)
{
	struct set_check *c = arg;
	char w[200];
	const char *dummy;

	if (++c->n > HW_GPU_MAX) {
		snprintf(c->why, c->whylen, "more than %d GPUs", HW_GPU_MAX);
		return -EINVAL;
	}
	if (hw_gpu_opt(&dummy, item, w, sizeof(w))) {
		snprintf(c->why, c->whylen, "'%s': %s", item, w);
		return -EINVAL;
	}
	return 0;
}

int hw_gpu_set_opt(void *dst, const char *v, char *why, size_t whylen)
{
	struct set_check c = { why, whylen, 0 };
	size_t l;

	if (!strchr(v, ',') && strcmp(v, HW_GPU_ALL) && hw_gpu_opt(dst, v, why, whylen)) {
		l = strlen(why);	/* one GPU: its own reason, as --gpu G always said */
		snprintf(why + l, whylen - l, "; or a comma list of them, or all");
		return -1;
	}
	if (strcmp(v, HW_GPU_ALL) && set_each(v, check_item, &c, why, whylen))
		return -1;
	*(const char **)dst = v;
	return 0;
}

struct set_resolve {
	int *idx;
	int max, n;
	bool one;	/* the set is one GPU: its reason alone, as --gpu G always said */
	char *why;
	size_t whylen;
};

static int resolve_item(const char *item, void *arg)
{
	struct set_resolve *r = arg;
	char w[200];
	int i = hw_gpu_index(item, w, sizeof(w)), k;

	if (i < 0) {
		if (r->one)
			snprintf(r->why, r->whylen, "%s", w);
		else
			snprintf(r->why, r->whylen, "'%s': %s", item, w);
		return i;
	}
	for (k = 0; k < r->n; k++)
		if (r->idx[k] == i) {
			snprintf(r->why, r->whylen, "'%s' is GPU %d, named twice", item, i);
			return -EINVAL;
		}
	if (r->n >= r->max) {
		snprintf(r->why, r->whylen, "more than %d GPUs", r->max);
		return -EINVAL;
	}
	r->idx[r->n++] = i;
	return 0;
}

int hw_gpu_set_index(const char *set, int *idx, int max, char *why, size_t whylen)
{
	struct set_resolve r = { idx, max, 0, !strchr(set, ','), why, whylen };
	char gpus[HW_GPU_INDEX_MAX + 1][HW_BDF_LEN];
	bool unheld;
	int n, i, rc;

	if (strcmp(set, HW_GPU_ALL)) {
		rc = set_each(set, resolve_item, &r, why, whylen);
		return rc ? rc : r.n;
	}
	n = gpu_numbered(gpus, "", &unheld);
	if (n < 0) {
		snprintf(why, whylen, "all: cannot list the GPUs (%s/sys/bus/pci/devices: %s); "
			 "give them by index (0,1,...)", hw_sysfs_root(), strerror(-n));
		return n;
	}
	if (!n) {
		snprintf(why, whylen, "all: there is no NVIDIA GPU on this host's PCI bus "
			 "(lspci -d 10de: lists NVIDIA's devices, nvidia-smi -L the GPUs)");
		return -ENODEV;
	}
	for (i = 0; i < n && i < max; i++)
		idx[i] = i;
	return i;
}
