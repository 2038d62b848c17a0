// SPDX-License-Identifier: GPL-2.0-or-later
/* topo.c: the PCIe path between a GPU and a NIC from their sysfs device paths, classified
 * with the categories of `nvidia-smi topo -m`.
 *
 *   pci0000:16 (host bridge)
 *     0000:16:01.0 root port
 *       0000:17:00.0 switch upstream port
 *         0000:18:00.0 downstream port -- 0000:19:00.0 GPU     GPU and NIC: PIX
 *         0000:18:01.0 downstream port -- 0000:1a:00.0 NIC     (one switch between them)
 *
 * A PCIe switch shows as two bridge levels (upstream port, then downstream ports), so two
 * devices whose paths part below a common bridge, each behind at most one more bridge,
 * share one switch (PIX); deeper, several bridges (PXB); parting at the host bridge
 * itself, PHB; different host bridges, NODE on one NUMA node and SYS across sockets.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hw/pci.h"
#include "lib/hw/sysfs.h"
#include "lib/hw/topo.h"

#define TOPO_MAX_DEPTH 16

/* Split "pci0000:16/0000:16:01.0/0000:17:00.0" into components; returns the count. */
static int split_path(const char *path, char comp[][24], int max)
{
	int n = 0;
	size_t len;
	const char *p = path, *slash;

	while (*p && n < max) {
		slash = strchr(p, '/');
		len = slash ? (size_t)(slash - p) : strlen(p);
		if (len > 0) {
			if (len >= 24)
				len = 23;
			memcpy(comp[n], p, len);
			comp[n][len] = '\0';
			n++;
		}
		if (!slash)
			break;
		p = slash + 1;
	}
	return n;
}

enum hw_topo hw_topo_classify(const char *path_a, int numa_a, const char *path_b, int numa_b)
{
	char a[TOPO_MAX_DEPTH][24], b[TOPO_MAX_DEPTH][24];
	int na = split_path(path_a, a, TOPO_MAX_DEPTH);
	int nb = split_path(path_b, b, TOPO_MAX_DEPTH);
	int common = 0, below_a, below_b;

	if (na == 0 || nb == 0 || strcmp(a[0], b[0])) {
		if (numa_a >= 0 && numa_b >= 0 && numa_a != numa_b)
			return HW_TOPO_SYS;
		return HW_TOPO_NODE;
	}
	/* a[0] is the host bridge ("pci0000:16"); count the shared bridges below it. */
	while (common + 1 < na && common + 1 < nb && !strcmp(a[common + 1], b[common + 1]))
		common++;
	if (common == 0)
		return HW_TOPO_PHB;
	/* Bridges each device sits behind below the deepest shared one (itself excluded). */
	below_a = na - 1 - common - 1;
	below_b = nb - 1 - common - 1;
	if (below_a <= 1 && below_b <= 1)
		return HW_TOPO_PIX;
	return HW_TOPO_PXB;
}

const char *hw_topo_name(enum hw_topo t)
{
	static const char *const names[] = { "PIX", "PXB", "PHB", "NODE", "SYS" };

	return (unsigned int)t < 5 ? names[t] : "?";
}

const char *hw_topo_words(enum hw_topo t)
{
	switch (t) {
	case HW_TOPO_PIX:
		return "same PCIe switch";
	case HW_TOPO_PXB:
		return "behind several PCIe bridges, same root port";
	case HW_TOPO_PHB:
		return "through the CPU's PCIe host bridge";
	case HW_TOPO_NODE:
		return "different host bridges, same NUMA node";
	case HW_TOPO_SYS:
		return "across sockets";
	}
	return "?";
}

int hw_topo_parse(const char *name)
{
	int t;

	for (t = HW_TOPO_PIX; t <= HW_TOPO_SYS; t++)
		if (name && !strcmp(name, hw_topo_name((enum hw_topo)t)))
			return t;
	return -1;
}

/* The path of sysfs entry rel (".../devices/BDF", ".../NAME/device") below ROOT/sys/devices,
 * its last component the PCI function, into d. */
static int place(const char *rel, struct hw_topo_dev *d)
{
	const char *root = hw_sysfs_root();
	char path[PATH_MAX], real[PATH_MAX], top[PATH_MAX], rroot[PATH_MAX], v[16];
	const char *base;
	unsigned int dom, bus, dev, fn;
	size_t tl;

	rroot[0] = '\0';
	if (*root && !realpath(root, rroot))
		return -errno;
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (!realpath(path, real))
		return -errno;
	tl = (size_t)snprintf(top, sizeof(top), "%s/sys/devices/", rroot);
	if (tl >= sizeof(top) || strncmp(real, top, tl))
		return -ENOENT;
	base = strrchr(real, '/') + 1;
	if (hw_pci_parse_bdf(base, &dom, &bus, &dev, &fn) ||
	    snprintf(d->path, sizeof(d->path), "%s", real + tl) >= (int)sizeof(d->path))
		return -ENOENT;
	snprintf(d->bdf, sizeof(d->bdf), "%.15s", base);
	d->numa = hw_sysfs_readf(v, sizeof(v), "%s/numa_node", real) == 0 && v[0] ? atoi(v) : -1;
	if (d->numa < 0)
		d->numa = -1;
	return 0;
}

int hw_topo_dev_read(const char *bdf, struct hw_topo_dev *d)
{
	char rel[64], canon[HW_BDF_LEN];

	memset(d, 0, sizeof(*d));
	d->numa = -1;
	if (hw_pci_addr_canon(bdf, canon, sizeof(canon)))
		return -EINVAL;
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", canon);
	return place(rel, d);
}

int hw_topo_rdma_list(struct hw_topo_rdma *out, int max)
{
	char dir[PATH_MAX], rel[PATH_MAX];
	struct dirent **list;
	int i, cnt, n = 0;

	snprintf(dir, sizeof(dir), "%s/sys/class/infiniband", hw_sysfs_root());
	cnt = scandir(dir, &list, NULL, alphasort);
	if (cnt < 0)
		return errno == ENOENT ? 0 : -errno;
	for (i = 0; i < cnt; i++) {
		const char *name = list[i]->d_name;
		struct hw_topo_dev d;

		snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/device", name);
		if (name[0] != '.' && strlen(name) < sizeof(out->name) && !place(rel, &d)) {
			if (n < max) {
				snprintf(out[n].name, sizeof(out[n].name), "%.63s", name);
				out[n].dev = d;
			}
			n++;
		}
		free(list[i]);
	}
	free(list);
	return n;
}
