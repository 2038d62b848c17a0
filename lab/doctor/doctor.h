/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doctor.h: 'pfclab doctor', a preflight report for one host: each check appends findings
 * (OK / INFO / WARN / FAIL, what was seen, the fix) to a report; the renderer prints it as
 * text or JSON. Checks never print and never stop on a missing tool or device: absence is
 * itself a finding.
 */
#ifndef PFCLAB_LAB_DOCTOR_H
#define PFCLAB_LAB_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hw/pci.h"
#include "lib/hw/topo.h"

enum doctor_level { DOCTOR_OK, DOCTOR_INFO, DOCTOR_WARN, DOCTOR_FAIL };

struct doctor_finding {
	char section[16];	/* "kernel", "nvidia", "gpu", "rdma", "qos", "pci", "cpoint" */
	char item[48];		/* "iommu", "GPU 0000:17:00.0", "rxe0 port 1 gids" */
	enum doctor_level level;
	char detail[384];	/* what was seen */
	char fix[320];		/* what to do; empty when nothing to do */
};

#define DOCTOR_MAX_FINDINGS 320	/* 16 GPUs and 8 NICs: 128 paths beside the rest */
#define DOCTOR_MAX_DEVS 16

/* A PCI function the topology check relates: GPUs and RDMA NICs found by the checks. */
struct doctor_pcidev {
	char bdf[16];		/* "0000:17:00.0" */
	char name[96];		/* "NVIDIA H100 80GB HBM3", "mlx5_0" */
};

/* What the report's "gpus" list says of one GPU: each fact n/a where it was not read. */
struct doctor_gpu {
	struct doctor_pcidev id;
	int index;		/* as nvidia-smi -L numbers it; -1 n/a (a GPU the driver
				 * does not hold) */
	uint64_t bar1;		/* bytes (NVML, else the BAR's sysfs resource); 0 n/a */
	struct hw_pci_link link;	/* valid: read (doctor_check_pci) */
	struct hw_topo_dev place;	/* placed: read */
	bool placed;
};

struct doctor_report {
	struct doctor_finding f[DOCTOR_MAX_FINDINGS];
	unsigned int n;
	unsigned int dropped;	/* findings that did not fit */
	struct doctor_gpu gpus[DOCTOR_MAX_DEVS];
	unsigned int ngpus;
	struct doctor_pcidev nics[DOCTOR_MAX_DEVS];	/* RDMA devices (verbs) */
	unsigned int nnics;
	/* RDMA devices with a PCI function and their place (lib/hw/topo, sysfs) */
	struct hw_topo_rdma rdma[DOCTOR_MAX_DEVS];
	unsigned int nrdma;
	char hostname[64];
	char kernel[96];
	const char *sysroot;	/* where the NIC settings (doctor_nicqos.c) are read: NULL
				 * for "/", a fixture tree in tests (PFCLAB_SYSFS_ROOT) */
};

void doctor_add(struct doctor_report *r, const char *section, const char *item,
		enum doctor_level level, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
const char *doctor_level_name(enum doctor_level l);

/* The checks, in report order. Each reads sysfs/procfs under the real root. */
void doctor_check_kernel(struct doctor_report *r);
void doctor_check_nvidia(struct doctor_report *r);
void doctor_check_rdma(struct doctor_report *r);
void doctor_check_pci(struct doctor_report *r);
/* The host as the software congestion point, DEV its port towards the receiver. */
void doctor_check_cpoint(struct doctor_report *r, const char *dev);

/* Which way a NIC reaches GPU memory here, from these facts (doctor_gpumem.c). */
struct doctor_gpumem_facts {
	bool kernel_dmabuf;	/* kernel >= 5.12 */
	bool open_modules;	/* NVIDIA open kernel modules loaded */
	bool peer_core;		/* ib_core peer-memory core (/sys/kernel/mm/memory_peers) */
	bool nv_mem;		/* nvidia-peermem registered with it */
	bool geforce;		/* a GeForce/TITAN GPU */
	int cuda_dmabuf;	/* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED of any GPU; -1 n/a */
};
enum {
	DOCTOR_GPUMEM_PEERMEM = 1 << 0,
	DOCTOR_GPUMEM_DMABUF = 1 << 1,
	DOCTOR_GPUMEM_GEFORCE = 1 << 2,
};
/* The usable paths (DOCTOR_GPUMEM_* bits) and, in why, why each other one is not. */
int doctor_gpumem_decide(const struct doctor_gpumem_facts *f, char *why, size_t len);
void doctor_check_gpumem(struct doctor_report *r);

/* The "gpus" list (JSON) or block (text): per GPU its index, PCI address, name, NUMA node,
 * PCIe link (current and maximum speed and width), BAR1 size in MiB and its distance to
 * each RDMA device as nvidia-smi topo -m names it (null where the host has none). */
struct out;
void doctor_gpus_render(struct out *o, const struct doctor_report *r);

/* The NIC settings of netdev ifname (lib/hw/nicqos.h) as "qos" findings. */
void doctor_check_nicqos(struct doctor_report *r, const char *ifname);
/* Whether doctor_check_nicqos has reported ifname already (an RDMA device's netdev). */
bool doctor_netdev_checked(const struct doctor_report *r, const char *ifname);
/* The same as one object "nic" (JSON) or block (text): dcqcn {source, params, enable},
 * buffer {buffer_size, prio2buffer, trust, dscp2prio}, pfc_storm_timeout_ms, each null
 * where not read. */
void doctor_nicqos_render(struct out *o, const char *root, const char *ifname);

/* Small helpers shared by the checks. */
/* True when /proc/modules lists module name. */
bool doctor_module_loaded(const char *name);

int doctor_main(int argc, char **argv);

#endif
