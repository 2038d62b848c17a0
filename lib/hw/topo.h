/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topo.h: where PCI functions sit on the PCIe tree, and the distance between two of them
 * (a GPU and an RDMA NIC) named as `nvidia-smi topo -m` names it, from sysfs alone: each
 * function's path below /sys/devices (its chain of bridges up to the host bridge) and its
 * NUMA node. Read under hw_sysfs_root(), so a fixture tree stands in for a host.
 */
#ifndef PFCLAB_LIB_HW_TOPO_H
#define PFCLAB_LIB_HW_TOPO_H

#include <stddef.h>

#include "lib/hw/gpu.h"

/* nvidia-smi topo -m's legend, nearest first. */
enum hw_topo {
	HW_TOPO_PIX,	/* at most one PCIe bridge between them: one switch */
	HW_TOPO_PXB,	/* several PCIe bridges, no host bridge */
	HW_TOPO_PHB,	/* through a PCIe host bridge (the CPU's root complex) */
	HW_TOPO_NODE,	/* different host bridges in one NUMA node */
	HW_TOPO_SYS,	/* across the CPU interconnect between NUMA nodes (UPI, Infinity
			 * Fabric): GPUDirect RDMA at about half the bandwidth there
			 * (linux-rdma/perftest issue #241) */
};

/* Classify from the two functions' paths below /sys/devices (e.g.
 * "pci0000:16/0000:16:01.0/0000:17:00.0") and NUMA nodes (-1 unknown). Paths that part at
 * different host bridges are SYS only where both NUMA nodes are known and differ, else
 * NODE (the weaker claim: a host of one NUMA node reports -1).
 */
enum hw_topo hw_topo_classify(const char *path_a, int numa_a, const char *path_b, int numa_b);
const char *hw_topo_name(enum hw_topo t);	/* "PIX" ... "SYS", "?" */
const char *hw_topo_words(enum hw_topo t);	/* "same PCIe switch" ... */
/* "PIX".."SYS" back to the enum; -1 for anything else. */
int hw_topo_parse(const char *name);

/* One PCI function's place. */
struct hw_topo_dev {
	char bdf[HW_BDF_LEN];
	char path[256];		/* below /sys/devices: "pci0000:16/0000:16:01.0/..." */
	int numa;		/* NUMA node; -1 unknown (or a host of one node) */
};

/* Function bdf's place: 0, or -errno when it is not on the bus (-ENOENT) or its path
 * does not lead below sys/devices.
 */
int hw_topo_dev_read(const char *bdf, struct hw_topo_dev *d);

/* An RDMA device that is a PCI function (/sys/class/infiniband/NAME/device); virtual
 * ones (rxe, siw) have none and are left out.
 */
struct hw_topo_rdma {
	char name[64];		/* "mlx5_0" */
	struct hw_topo_dev dev;
};

/* The RDMA devices into out[0..max), sorted by name; returns how many there are (only
 * max stored), 0 where /sys/class/infiniband is absent (no RDMA core loaded).
 */
int hw_topo_rdma_list(struct hw_topo_rdma *out, int max);

#endif
