// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor_pci.c: the doctor's PCIe checks: link speed and width (current and maximum) of
 * each GPU and RDMA NIC and the GPU's Resizable BAR capability, read from config space with
 * libpci (sysfs link attributes when config space is not readable), then the path between
 * every GPU and NIC, classified as `nvidia-smi topo -m` does.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pci/pci.h>

#include "lab/doctor/doctor.h"

/* libpci's default error handler exits the process; ours returns to doctor_check_pci. */
static jmp_buf pci_escape;

static void __attribute__((noreturn)) pci_error(char *msg, ...)
{
	(void)msg;
	longjmp(pci_escape, 1);
}

static void pci_quiet(char *msg, ...)
{
	(void)msg;
}

struct link {
	bool valid;
	int cur_speed, max_speed;	/* PCIe generation code: 1 = 2.5 GT/s ... 6 = 64 GT/s */
	int cur_width, max_width;
	bool rebar;			/* Resizable BAR extended capability present */
	bool rebar_known;
};

static const char *speed_str(int code)
{
	static const char *const s[] = { "?", "2.5", "5", "8", "16", "32", "64" };

	return code >= 1 && code <= 6 ? s[code] : "?";
}

static int parse_bdf(const char *bdf, int *dom, int *bus, int *dev, int *fn)
{
	return sscanf(bdf, "%x:%x:%x.%x", dom, bus, dev, fn) == 4 ? 0 : -1;
}

/* sysfs fallback: "16.0 GT/s PCIe" -> generation code. */
static int sysfs_speed(const char *bdf, const char *attr)
{
	char path[128], v[64];
	double gts;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, attr);
	if (doctor_read_file(path, v, sizeof(v)) < 0 || sscanf(v, "%lf", &gts) != 1)
		return 0;
	return gts < 3 ? 1 : gts < 6 ? 2 : gts < 9 ? 3 : gts < 17 ? 4 : gts < 33 ? 5 : 6;
}

static int sysfs_int(const char *bdf, const char *attr)
{
	char path[128], v[32];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, attr);
	return doctor_read_file(path, v, sizeof(v)) < 0 ? 0 : atoi(v);
}

static void read_link(struct pci_access *pacc, const char *bdf, struct link *l)
{
	int dom, bus, dev, fn;
	struct pci_dev *d = NULL;
	struct pci_cap *cap;
	uint16_t sta;
	uint32_t lcap;

	memset(l, 0, sizeof(*l));
	if (pacc && parse_bdf(bdf, &dom, &bus, &dev, &fn) == 0)
		d = pci_get_dev(pacc, dom, bus, dev, fn);
	if (d) {
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CAPS | PCI_FILL_EXT_CAPS);
		cap = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
		if (cap) {
			sta = pci_read_word(d, cap->addr + PCI_EXP_LNKSTA);
			lcap = pci_read_long(d, cap->addr + PCI_EXP_LNKCAP);
			l->cur_speed = sta & PCI_EXP_LNKSTA_SPEED;
			l->cur_width = (sta & PCI_EXP_LNKSTA_WIDTH) >> 4;
			l->max_speed = (int)(lcap & PCI_EXP_LNKCAP_SPEED);
			l->max_width = (int)((lcap & PCI_EXP_LNKCAP_WIDTH) >> 4);
			l->valid = l->max_width > 0;
			/* Extended capabilities are only visible with all 4 KiB of config space. */
			l->rebar_known = pci_find_cap(d, PCI_EXT_CAP_ID_AER, PCI_CAP_EXTENDED) ||
					 pci_find_cap(d, PCI_EXT_CAP_ID_DSN, PCI_CAP_EXTENDED) ||
					 pci_find_cap(d, PCI_EXT_CAP_ID_REBAR, PCI_CAP_EXTENDED);
			l->rebar = pci_find_cap(d, PCI_EXT_CAP_ID_REBAR, PCI_CAP_EXTENDED) != NULL;
		}
		pci_free_dev(d);
	}
	if (!l->valid) {
		l->cur_speed = sysfs_speed(bdf, "current_link_speed");
		l->max_speed = sysfs_speed(bdf, "max_link_speed");
		l->cur_width = sysfs_int(bdf, "current_link_width");
		l->max_width = sysfs_int(bdf, "max_link_width");
		l->valid = l->max_width > 0;
	}
}

static void check_link(struct doctor_report *r, struct pci_access *pacc, const char *what,
		       const char *bdf, bool gpu)
{
	char item[48];
	struct link l;

	snprintf(item, sizeof(item), "%s %s link", what, bdf);
	read_link(pacc, bdf, &l);
	if (!l.valid) {
		doctor_add(r, "pci", item, DOCTOR_WARN, "run as root to read PCIe config space",
			   "link speed/width not readable");
		return;
	}
	if (l.cur_width < l.max_width)
		doctor_add(r, "pci", item, DOCTOR_WARN,
			   "reseat the card or use a full-width slot; check the riser and BIOS bifurcation",
			   "x%d of x%d at %s GT/s (max %s GT/s): link trained narrower than it can",
			   l.cur_width, l.max_width, speed_str(l.cur_speed), speed_str(l.max_speed));
	else if (l.cur_speed < l.max_speed)
		doctor_add(r, "pci", item, gpu ? DOCTOR_INFO : DOCTOR_WARN,
			   gpu ? NULL : "check the slot generation and BIOS PCIe speed setting",
			   "x%d at %s GT/s (max %s GT/s)%s", l.cur_width, speed_str(l.cur_speed),
			   speed_str(l.max_speed),
			   gpu ? ": idle GPUs lower their link speed; it rises under load" : "");
	else
		doctor_add(r, "pci", item, DOCTOR_OK, NULL, "x%d at %s GT/s (the maximum)",
			   l.cur_width, speed_str(l.cur_speed));
	if (!gpu)
		return;
	snprintf(item, sizeof(item), "GPU %s rebar", bdf);
	if (!l.rebar_known)
		doctor_add(r, "gpu", item, DOCTOR_INFO, "run as root to read extended config space",
			   "Resizable BAR capability n/a");
	else if (l.rebar)
		doctor_add(r, "gpu", item, DOCTOR_OK, NULL, "Resizable BAR capability present");
	else
		doctor_add(r, "gpu", item, DOCTOR_INFO, NULL,
			   "no Resizable BAR capability (BAR1 size is fixed by the board)");
}

/* "/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0" -> after "/sys/devices/". */
static int dev_path(const char *bdf, char *out, size_t len, int *numa)
{
	char path[128], real[PATH_MAX], v[16];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
	if (!realpath(path, real) || strncmp(real, "/sys/devices/", 13))
		return -1;
	snprintf(out, len, "%s", real + 13);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", bdf);
	*numa = doctor_read_file(path, v, sizeof(v)) == 0 ? atoi(v) : -1;
	return 0;
}

void doctor_check_pci(struct doctor_report *r)
{
	struct pci_access *volatile pacc = pci_alloc();
	char pa[PATH_MAX], pb[PATH_MAX], item[48];
	enum doctor_topo t;
	unsigned int g, n;
	int na, nb;

	if (pacc) {
		pacc->error = pci_error;
		pacc->warning = pci_quiet;
		pacc->debug = pci_quiet;
		if (setjmp(pci_escape) == 0) {
			pci_init(pacc);
		} else {
			/* libpci gave up (no access method): use the sysfs attributes alone. */
			pacc = NULL;
		}
	}
	for (g = 0; g < r->ngpus; g++)
		check_link(r, pacc, "GPU", r->gpus[g].bdf, true);
	for (n = 0; n < r->nnics; n++)
		check_link(r, pacc, r->nics[n].name, r->nics[n].bdf, false);
	if (pacc)
		pci_cleanup(pacc);

	if (r->ngpus == 0 || r->nnics == 0) {
		doctor_add(r, "pci", "GPU-NIC path", DOCTOR_INFO, NULL,
			   "n/a: %s", r->ngpus == 0 && r->nnics == 0 ? "no GPU and no PCI RDMA NIC" :
			   r->ngpus == 0 ? "no GPU" : "no PCI RDMA NIC (virtual RDMA devices have no path)");
		return;
	}
	for (g = 0; g < r->ngpus; g++) {
		for (n = 0; n < r->nnics; n++) {
			snprintf(item, sizeof(item), "GPU %s - %s", r->gpus[g].bdf, r->nics[n].name);
			if (dev_path(r->gpus[g].bdf, pa, sizeof(pa), &na) < 0 ||
			    dev_path(r->nics[n].bdf, pb, sizeof(pb), &nb) < 0) {
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
