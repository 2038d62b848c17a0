// SPDX-License-Identifier: GPL-2.0-or-later
/* setup.c: the counter sources for a set of devices, in one order for every front end. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "monitor/sources/setup.h"
#include "monitor/sources/sources.h"

static bool wanted(const char *only, const char *name)
{
	const char *p = only;
	size_t n = strlen(name);

	if (!p)
		return true;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == n && !strncmp(p, name, n))
			return true;
		if (!e)
			break;
		p = e + 1;
	}
	return false;
}

uint64_t mon_sources_gpu_cadence(uint64_t interval_ns, uint64_t asked_ns)
{
	const uint64_t ms = 1000000ULL;

	if (asked_ns)
		return asked_ns;
	if (interval_ns <= SRC_NVML_CADENCE_NS)
		return SRC_NVML_CADENCE_NS;
	return interval_ns < 50 * ms ? interval_ns : 50 * ms;
}

int mon_sources_add(struct mon_engine *e, const struct mon_sources_want *w)
{
	size_t g;
	int rc = 0;

	if (w->iface) {
		/* The emulated lossless link's counters: where `pfclab link` runs on the
		 * interface, or when asked for by name. It stands in for the NIC's PFC there,
		 * so unless sources are named the DCB source (PFC counts of a NIC's firmware;
		 * n/a on the veth or virtio port the link runs on) is left out: both map
		 * pfc.{tx,rx}.prio{p}.frames, and a name two sources claim is kept by neither.
		 */
		const bool lossless = w->only ? wanted(w->only, "lossless") :
					     src_lossless_present(w->iface);

		if (wanted(w->only, "ethtool"))
			rc |= mon_engine_add(e, &src_ethtool_ioctl_ops, w->iface, 0, -1) < 0;
		if (wanted(w->only, "pause"))
			rc |= mon_engine_add(e, &src_ethtool_nl_ops, w->iface, 0, -1) < 0;
		if (wanted(w->only, "dcb") && (w->only || !lossless))
			rc |= mon_engine_add(e, &src_dcb_ops, w->iface, 0, -1) < 0;
		if (wanted(w->only, "link"))
			rc |= mon_engine_add(e, &src_link_ops, w->iface, 0, -1) < 0;
		if (wanted(w->only, "pci"))
			rc |= mon_engine_add(e, &src_pci_ops, w->iface, 0, -1) < 0;
		/* Every qdisc of the interface: only when asked for by name. */
		if (w->qdisc || (w->only && wanted(w->only, "qdisc")))
			rc |= mon_engine_add(e, &src_qdisc_ops, w->iface, 0, -1) < 0;
		if (lossless)
			rc |= mon_engine_add(e, &src_lossless_ops, w->iface, 0, -1) < 0;
	}
	if (w->frames)
		rc |= mon_engine_add(e, &src_frames_ops, w->frames, 0, -1) < 0;
	if (w->rdma && wanted(w->only, "rdma"))
		rc |= mon_engine_add(e, &src_rdma_nl_ops, w->rdma, w->rdma_port, -1) < 0;
	/* Each GPU's NVML source reads on its own thread at its own cadence (adapted to what
	 * its reads cost), so one slow GPU does not hold the others; the metrics carry the
	 * index (pcie.gpuN.*), one record holds them all. */
	for (g = 0; g < w->ngpus; g++) {
		int gpu = w->gpus[g];
		char dev[16];

		snprintf(dev, sizeof(dev), "gpu%d", gpu);
		if (wanted(w->only, "nvml")) {
			int i = mon_engine_add(e, &src_nvml_ops, dev, 0, gpu);

			rc |= i < 0;
			if (i >= 0 && w->gpu_cadence_ns)
				mon_engine_set_cadence(e, (size_t)i, w->gpu_cadence_ns,
						       !w->gpu_cadence_fixed);
		}
		if (wanted(w->only, "pci"))
			rc |= mon_engine_add(e, &src_pci_ops, dev, 0, gpu) < 0;
	}
	return rc ? -ENOSPC : 0;
}
