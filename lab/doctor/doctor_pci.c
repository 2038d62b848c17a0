// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor_pci.c: the doctor's PCIe checks: link speed and width (current and maximum) of
 * each GPU and RDMA NIC and the GPU's Resizable BAR capability, read from config space with
 * libpci (sysfs link attributes when config space is not readable; lib/hw/pci), then the
 * path between every GPU and NIC, classified as `nvidia-smi topo -m` does.
 */
#include <limits.h>
#include <stdio.h>

#include "lab/doctor/doctor.h"
#include "lib/hw/pci.h"

static void check_link(struct doctor_report *r, struct hw_pci *pci, const char *what,
		       const char *bdf, bool gpu)
{
	char item[48];
	struct hw_pci_link l;
	const char *cur, *max;

	snprintf(item, sizeof(item), "%s %s link", what, bdf);
	hw_pci_link_read(pci, bdf, &l);
	cur = hw_pci_speed_gts(&l.cur);
	max = hw_pci_speed_gts(&l.max);
	if (!l.valid) {
		doctor_add(r, "pci", item, DOCTOR_WARN, "run as root to read PCIe config space",
			   "link speed/width not readable");
		return;
	}
	if (l.cur_width < l.max_width)
		doctor_add(r, "pci", item, DOCTOR_WARN,
			   "reseat the card or use a full-width slot; check the riser and BIOS bifurcation",
			   "x%d of x%d at %s GT/s (max %s GT/s): link trained narrower than it can",
			   l.cur_width, l.max_width, cur, max);
	else if (l.cur.mts < l.max.mts)
		doctor_add(r, "pci", item, gpu ? DOCTOR_INFO : DOCTOR_WARN,
			   gpu ? NULL : "check the slot generation and BIOS PCIe speed setting",
			   "x%d at %s GT/s (max %s GT/s)%s", l.cur_width, cur, max,
			   gpu ? ": idle GPUs lower their link speed; it rises under load" : "");
	else
		doctor_add(r, "pci", item, DOCTOR_OK, NULL, "x%d at %s GT/s (the maximum)",
			   l.cur_width, cur);
	if (!gpu)
		return;
	snprintf(item, sizeof(item), "GPU %s rebar", bdf);
	if (!l.ext_known)
		doctor_add(r, "gpu", item, DOCTOR_INFO, "run as root to read extended config space",
			   "Resizable BAR capability n/a");
	else if (l.rebar)
		doctor_add(r, "gpu", item, DOCTOR_OK, NULL, "Resizable BAR capability present");
	else
		doctor_add(r, "gpu", item, DOCTOR_INFO, NULL,
			   "no Resizable BAR capability (BAR1 size is fixed by the board)");
}

void doctor_check_pci(struct doctor_report *r)
{
	char pa[PATH_MAX], pb[PATH_MAX], item[48], why[200];
	struct hw_pci *pci = NULL;
	enum doctor_topo t;
	unsigned int g, n;
	int na, nb;

	/* Without libpci (no access method) the sysfs link attributes are read alone. */
	hw_pci_open(&pci, why, sizeof(why));
	for (g = 0; g < r->ngpus; g++)
		check_link(r, pci, "GPU", r->gpus[g].bdf, true);
	for (n = 0; n < r->nnics; n++)
		check_link(r, pci, r->nics[n].name, r->nics[n].bdf, false);
	hw_pci_close(pci);

	if (r->ngpus == 0 || r->nnics == 0) {
		doctor_add(r, "pci", "GPU-NIC path", DOCTOR_INFO, NULL,
			   "n/a: %s", r->ngpus == 0 && r->nnics == 0 ? "no GPU and no PCI RDMA NIC" :
			   r->ngpus == 0 ? "no GPU" : "no PCI RDMA NIC (virtual RDMA devices have no path)");
		return;
	}
	for (g = 0; g < r->ngpus; g++) {
		for (n = 0; n < r->nnics; n++) {
			snprintf(item, sizeof(item), "GPU %s - %s", r->gpus[g].bdf, r->nics[n].name);
			if (hw_pci_dev_path(r->gpus[g].bdf, pa, sizeof(pa), &na) < 0 ||
			    hw_pci_dev_path(r->nics[n].bdf, pb, sizeof(pb), &nb) < 0) {
				doctor_add(r, "pci", item, DOCTOR_WARN, NULL, "sysfs path not readable");
				continue;
			}
			t = doctor_topo_classify(pa, na, pb, nb);
			doctor_add(r, "pci", item,
				   t <= DOCTOR_TOPO_PXB ? DOCTOR_OK : DOCTOR_WARN,
				   t <= DOCTOR_TOPO_PXB ? NULL :
				   "put the NIC and the GPU under one PCIe switch (or at least one root port) "
				   "for full GPUDirect bandwidth",
				   "%s (%s), NUMA %d / %d", doctor_topo_name(t), doctor_topo_words(t),
				   na, nb);
		}
	}
}
