// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor_topo.c: classify the PCIe path between a GPU and a NIC from their sysfs device
 * paths, with the categories of `nvidia-smi topo -m`.
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
#include <string.h>

#include "lab/doctor/doctor.h"

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

enum doctor_topo doctor_topo_classify(const char *path_a, int numa_a, const char *path_b,
				      int numa_b)
{
	char a[TOPO_MAX_DEPTH][24], b[TOPO_MAX_DEPTH][24];
	int na = split_path(path_a, a, TOPO_MAX_DEPTH);
	int nb = split_path(path_b, b, TOPO_MAX_DEPTH);
	int common = 0, below_a, below_b;

	if (na == 0 || nb == 0 || strcmp(a[0], b[0])) {
		if (numa_a >= 0 && numa_b >= 0 && numa_a != numa_b)
			return DOCTOR_TOPO_SYS;
		return DOCTOR_TOPO_NODE;
	}
	/* a[0] is the host bridge ("pci0000:16"); count the shared bridges below it. */
	while (common + 1 < na && common + 1 < nb && !strcmp(a[common + 1], b[common + 1]))
		common++;
	if (common == 0)
		return DOCTOR_TOPO_PHB;
	/* Bridges each device sits behind below the deepest shared one (itself excluded). */
	below_a = na - 1 - common - 1;
	below_b = nb - 1 - common - 1;
	if (below_a <= 1 && below_b <= 1)
		return DOCTOR_TOPO_PIX;
	return DOCTOR_TOPO_PXB;
}

const char *doctor_topo_name(enum doctor_topo t)
{
	static const char *const names[] = { "PIX", "PXB", "PHB", "NODE", "SYS" };

	return (unsigned int)t < 5 ? names[t] : "?";
}

const char *doctor_topo_words(enum doctor_topo t)
{
	switch (t) {
	case DOCTOR_TOPO_PIX:
		return "same PCIe switch";
	case DOCTOR_TOPO_PXB:
		return "behind several PCIe bridges, same root port";
	case DOCTOR_TOPO_PHB:
		return "through the CPU's PCIe host bridge";
	case DOCTOR_TOPO_NODE:
		return "different host bridges, same NUMA node";
	case DOCTOR_TOPO_SYS:
		return "across sockets";
	}
	return "?";
}
