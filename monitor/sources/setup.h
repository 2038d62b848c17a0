/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setup.h: which counter sources watch an interface, an RDMA device, a GPU and a capture
 * interface: the one list that "pfclab monitor" and "pfclab top" both use.
 */
#ifndef PFCLAB_MON_SETUP_H
#define PFCLAB_MON_SETUP_H

#include "monitor/sampler.h"

struct mon_sources_want {
	const char *iface;	/* ethtool, pause, dcb, link, pci (qdisc when named in only)
				 * on it; NULL: none */
	const char *rdma;	/* RDMA hw counters; NULL: none */
	unsigned rdma_port;
	const int *gpus;	/* NVML and PCI of each of these GPUs (their indices), each
				 * with its own reader thread and cadence */
	size_t ngpus;		/* 0: none */
	uint64_t gpu_cadence_ns;	/* NVML reader thread's cadence; 0: its default */
	bool gpu_cadence_fixed;	/* the user asked for it: no longer when reads are dear */
	const char *frames;	/* capture interface for "frames"; NULL: none */
	const char *only;	/* comma list of source names ("ethtool,link"); NULL: all */
	bool qdisc;		/* the qdisc source on iface even when only does not name it */
};

/* The NVML reader's cadence: asked_ns when given, else 10 ms, or the sampling interval
 * (up to 50 ms, inside one counter wrap) when samples are further apart: reading faster
 * than the samples are taken costs CPU and shows nothing more.
 */
uint64_t mon_sources_gpu_cadence(uint64_t interval_ns, uint64_t asked_ns);

/* Add the sources to e. -ENOSPC when the engine is full. */
int mon_sources_add(struct mon_engine *e, const struct mon_sources_want *w);

#endif
