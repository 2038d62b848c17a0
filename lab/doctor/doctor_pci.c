// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor_pci.c: the doctor's PCIe checks: link speed and width (current and maximum) of
 * each GPU and RDMA NIC and the GPU's Resizable BAR capability, read from config space with
 * libpci (sysfs link attributes when config space is not readable; lib/hw/pci), then the
 * path between every GPU and RDMA NIC, classified as `nvidia-smi topo -m` does
 * (lib/hw/topo), and the "gpus" list that sums each GPU up.
 */
#include <inttypes.h>
#include <stdio.h>

#include "lab/doctor/doctor.h"
#include "lib/hw/pci.h"
#include "lib/hw/sysfs.h"
#include "lib/hw/topo.h"
#include "lib/out.h"

/* One function's link as an item; a GPU's (gpu_link not NULL) is kept for the gpus list. */
static void check_link(struct doctor_report *r, struct hw_pci *pci, const char *what,
		       const char *bdf, struct hw_pci_link *gpu_link)
{
	bool gpu = gpu_link != NULL;
	char item[48];
	struct hw_pci_link l;
	const char *cur, *max;

	snprintf(item, sizeof(item), "%s %s link", what, bdf);
	hw_pci_link_read(pci, bdf, &l);
	if (gpu)
		*gpu_link = l;
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

/* The distance of every GPU to every RDMA device, one item a pair: fine up to PXB (the
 * NIC reaches the GPU's BAR without the CPU), a warning through the host bridge or another
 * host bridge of the socket, and a stronger one across sockets, where peer-to-peer traffic
 * crosses the CPU interconnect: GPUDirect RDMA then runs at about half the bandwidth
 * (linux-rdma/perftest issue #241), so an experiment's GPU and NIC must not be SYS apart.
 */
static void check_paths(struct doctor_report *r)
{
	char item[48];
	unsigned int g, n;
	int cnt;

	cnt = hw_topo_rdma_list(r->rdma, DOCTOR_MAX_DEVS);
	r->nrdma = cnt < 0 ? 0 : cnt > DOCTOR_MAX_DEVS ? DOCTOR_MAX_DEVS : (unsigned int)cnt;
	for (g = 0; g < r->ngpus; g++)
		r->gpus[g].placed = !hw_topo_dev_read(r->gpus[g].id.bdf, &r->gpus[g].place);
	if (r->ngpus == 0 || r->nrdma == 0) {
		doctor_add(r, "pci", "GPU-NIC path", DOCTOR_INFO, NULL,
			   "n/a: %s", r->ngpus == 0 && r->nrdma == 0 ? "no GPU and no PCI RDMA NIC" :
			   r->ngpus == 0 ? "no GPU" : "no PCI RDMA NIC (virtual RDMA devices have no path)");
		return;
	}
	for (g = 0; g < r->ngpus; g++) {
		const struct doctor_gpu *gp = &r->gpus[g];

		for (n = 0; n < r->nrdma; n++) {
			const struct hw_topo_dev *nic = &r->rdma[n].dev;
			enum hw_topo t;

			snprintf(item, sizeof(item), "GPU %s - %s", gp->id.bdf, r->rdma[n].name);
			if (!gp->placed) {
				doctor_add(r, "pci", item, DOCTOR_WARN, NULL, "sysfs path not readable");
				continue;
			}
			t = hw_topo_classify(gp->place.path, gp->place.numa, nic->path, nic->numa);
			if (t == HW_TOPO_SYS)
				doctor_add(r, "pci", item, DOCTOR_WARN,
					   "use a GPU and an RDMA NIC of one socket (see the gpus list: "
					   "each GPU's distance to each NIC); across sockets peer-to-peer "
					   "traffic crosses the CPU interconnect (perftest issue #241: "
					   "half the GPUDirect RDMA bandwidth)",
					   "SYS (%s): NUMA %d / %d", hw_topo_words(t), gp->place.numa,
					   nic->numa);
			else
				doctor_add(r, "pci", item,
					   t <= HW_TOPO_PXB ? DOCTOR_OK : DOCTOR_WARN,
					   t <= HW_TOPO_PXB ? NULL :
					   "put the NIC and the GPU under one PCIe switch (or at least one "
					   "root port) for full GPUDirect bandwidth",
					   "%s (%s), NUMA %d / %d", hw_topo_name(t), hw_topo_words(t),
					   gp->place.numa, nic->numa);
		}
	}
}

void doctor_check_pci(struct doctor_report *r)
{
	char why[200];
	struct hw_pci *pci = NULL;
	unsigned int g, n;

	/* Without libpci (no access method) the sysfs link attributes are read alone; a
	 * fixture tree (PFCLAB_SYSFS_ROOT) is read from its sysfs attributes only, never
	 * from this host's config space. */
	if (!*hw_sysfs_root())
		hw_pci_open(&pci, why, sizeof(why));
	for (g = 0; g < r->ngpus; g++)
		check_link(r, pci, "GPU", r->gpus[g].id.bdf, &r->gpus[g].link);
	for (n = 0; n < r->nnics; n++)
		check_link(r, pci, r->nics[n].name, r->nics[n].bdf, NULL);
	hw_pci_close(pci);
	check_paths(r);
}

/* The nearest RDMA device of GPU g: its index in r->rdma, -1 where none is known. */
static int nearest(const struct doctor_report *r, const struct doctor_gpu *g, enum hw_topo *tt)
{
	unsigned int n;
	int best = -1;

	for (n = 0; g->placed && n < r->nrdma; n++) {
		enum hw_topo t = hw_topo_classify(g->place.path, g->place.numa, r->rdma[n].dev.path,
						  r->rdma[n].dev.numa);

		if (best < 0 || t < *tt) {
			best = (int)n;
			*tt = t;
		}
	}
	return best;
}

void doctor_gpus_render(struct out *o, const struct doctor_report *r)
{
	unsigned int g, n;

	out_text(o, "[gpus]\n");
	out_arr_open(o, "gpus");
	for (g = 0; g < r->ngpus; g++) {
		const struct doctor_gpu *gp = &r->gpus[g];
		const struct hw_pci_link *l = &gp->link;
		enum hw_topo t = HW_TOPO_SYS;
		int near = nearest(r, gp, &t);

		out_obj_open(o, NULL);
		out_text(o, "GPU ");
		if (gp->index >= 0)
			out_int(o, "index", "%" PRId64, gp->index);
		else
			out_na(o, "index", "n/a");
		out_str(o, "bdf", " %s", gp->id.bdf);
		out_str(o, "name", " %s:", gp->id.name);
		out_obj_open(o, "link");
		if (l->valid) {
			out_int(o, "width", " x%" PRId64, l->cur_width);
			out_double_na(o, "speed_gts", " %g GT/s", l->cur.mts / 1000.0, l->cur.mts);
			out_int(o, "max_width", " (max x%" PRId64, l->max_width);
			out_double_na(o, "max_speed_gts", " %g GT/s)", l->max.mts / 1000.0, l->max.mts);
		} else {
			out_na(o, "width", " link n/a");
			out_na(o, "speed_gts", NULL);
			out_na(o, "max_width", NULL);
			out_na(o, "max_speed_gts", NULL);
		}
		out_obj_close(o);
		out_uint_na(o, "bar1_mib", ", BAR1 %" PRIu64 " MiB", gp->bar1 >> 20, gp->bar1 != 0);
		if (gp->placed && gp->place.numa >= 0)
			out_int(o, "numa_node", ", NUMA %" PRId64 "\n", gp->place.numa);
		else
			out_na(o, "numa_node", ", NUMA n/a\n");
		/* a host without a PCI RDMA device: null, not an empty claim */
		if (!r->nrdma || !gp->placed) {
			out_na(o, "rdma", !r->nrdma ? "        to RDMA devices: n/a (none with a PCI "
			       "function on this host)\n" : "        to RDMA devices: n/a (the GPU's "
			       "sysfs path is not readable)\n");
			out_na(o, "nearest_rdma", NULL);
			out_na(o, "nearest_distance", NULL);
			out_obj_close(o);
			continue;
		}
		out_text(o, "        to");
		out_obj_open(o, "rdma");
		for (n = 0; n < r->nrdma; n++) {
			const struct hw_topo_dev *nic = &r->rdma[n].dev;
			enum hw_topo d = hw_topo_classify(gp->place.path, gp->place.numa, nic->path,
							  nic->numa);
			out_text(o, "%s %s", n ? "," : "", r->rdma[n].name);
			out_str(o, r->rdma[n].name, " %s", hw_topo_name(d));
		}
		out_obj_close(o);
		out_str(o, "nearest_rdma", "; nearest %s", r->rdma[near].name);
		out_str(o, "nearest_distance", " (%s)\n", hw_topo_name(t));
		out_obj_close(o);
	}
	if (!r->ngpus)
		out_text(o, "no NVIDIA GPU\n");
	out_obj_close(o);
}
