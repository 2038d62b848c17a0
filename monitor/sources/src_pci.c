// SPDX-License-Identifier: GPL-2.0-or-later
/* src_pci.c: PCIe link speed/width, MaxPayload/MaxReadReq (lib/hw/pci: config space
 * through libpci, sysfs) and AER error counts (sysfs) of the NIC behind an interface or
 * of NVIDIA GPU N (lib/hw/gpu).
 * These change rarely, so the engine reads them at most once a second.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hw/gpu.h"
#include "lib/hw/pci.h"
#include "lib/hw/sysfs.h"
#include "lib/util.h"
#include "monitor/sources/sources.h"

enum { P_SPEED, P_WIDTH, P_MPS, P_MRRS, P_AER_COR, P_AER_NONFATAL, P_AER_FATAL, P_N };

struct pci_priv {
	char addr[HW_BDF_LEN];	/* 0000:3b:00.0 */
	char sysdir[PATH_MAX];
	struct hw_pci *pci;
	struct hw_pci_fn *fn;	/* the PCIe capability kept, found at the first read */
	bool no_pcie_cap;	/* none in config space: the link is read from sysfs */
};

/* The "TOTAL_ERR_COR 3" style line of an aer_dev_* file's text. */
int src_pci_parse_aer(const char *text, uint64_t *out)
{
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n > 6 && n < 64 && !strncmp(p, "TOTAL_", 6)) {
			char line[64];
			const char *sp;

			memcpy(line, p, n);
			line[n] = '\0';
			sp = strchr(line, ' ');
			return sp ? parse_u64(sp + 1, 0, UINT64_MAX, out) : -EINVAL;
		}
		p = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

static int aer_total(const char *dir, const char *file, uint64_t *out)
{
	char text[2048];
	int rc = hw_sysfs_readf(text, sizeof(text), "%s/%s", dir, file);

	return rc ? rc : src_pci_parse_aer(text, out);
}

static void pci_src_close(struct mon_src *s)
{
	struct pci_priv *p = s->priv;

	if (p) {
		hw_pci_fn_close(p->fn);
		hw_pci_close(p->pci);
		free(p);
	}
	s->priv = NULL;
	src_fields_free(s);
}

/* The PCI function: NVIDIA GPU N (numbered as nvidia-smi does) or the NIC behind -i. */
static int pci_src_addr(struct mon_src *s, struct pci_priv *p)
{
	char sel[16], why[200];
	int rc;

	if (s->index < 0)
		return hw_pci_netdev_bdf(s->dev, p->addr, sizeof(p->addr), s->err, sizeof(s->err));
	snprintf(sel, sizeof(sel), "%d", s->index);
	rc = hw_gpu_find(sel, p->addr, sizeof(p->addr), why, sizeof(why));
	if (rc < 0) {
		snprintf(s->err, sizeof(s->err), "GPU %d: %s", s->index, why);
		return rc;
	}
	return 0;
}

static int pci_src_init(struct mon_src *s)
{
	struct pci_priv *p = calloc(1, sizeof(*p));
	const char *root;
	char why[200];
	int rc;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	s->min_period_ns = 1000000000ULL;
	rc = pci_src_addr(s, p);
	if (rc)
		return rc;
	/* a GPU under the root its enumeration read (lib/hw/sysfs.h): a fixture tree's GPU
	 * is read from the tree's attributes alone, never from this host's config space */
	root = s->index >= 0 ? hw_sysfs_root() : "";
	snprintf(p->sysdir, sizeof(p->sysdir), "%s/sys/bus/pci/devices/%s", root, p->addr);
	src_info_add(s, "pci_address", p->addr);
	if (*root)
		return 0;
	rc = hw_pci_open(&p->pci, why, sizeof(why));
	if (rc == -ENODEV) {
		/* Without an access method there is no sysfs PCI tree either. */
		snprintf(s->err, sizeof(s->err), "no PCI access on this host (%s)", why);
		return -EOPNOTSUPP;
	}
	return rc;
}

static int pci_src_discover(struct mon_src *s)
{
	static const char *const names[P_N] = {
		"link_speed_mts", "link_width", "max_payload", "max_read_req",
		"aer_correctable", "aer_nonfatal", "aer_fatal",
	};
	static const char *const units[P_N] = { "MT/s", "lanes", "B", "B", "events", "events",
						"events" };
	const char *pfx = s->index >= 0 ? "gpu" : "nic";
	char name[MON_NAME_MAX];
	int rc = src_fields_reserve(s, P_N), i;

	if (rc)
		return rc;
	for (i = 0; i < P_N; i++) {
		snprintf(name, sizeof(name), "%s_%s", pfx, names[i]);
		src_field_set(&s->fields[i], name, i >= P_AER_COR ? MON_COUNTER : MON_GAUGE, 64,
			      units[i]);
	}
	return 0;
}

static int pci_src_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	struct pci_priv *p = s->priv;
	struct hw_pci_link l;
	char buf[64];

	if (hw_sysfs_readf(buf, sizeof(buf), "%s/vendor", p->sysdir))
		return -ENODEV;
	/* Config space reads may each be trapped and emulated (a GPU passed to a virtual
	 * machine): the capability is found once, then three registers a read. */
	if (!p->fn && !p->no_pcie_cap)
		p->no_pcie_cap = hw_pci_fn_open(p->pci, p->addr, &p->fn) == -ENOENT;
	if (p->no_pcie_cap) {
		hw_pci_link_read(NULL, p->addr, &l);
	} else if (!p->fn || hw_pci_fn_link(p->fn, &l)) {
		hw_pci_fn_close(p->fn);	/* gone or reset: found again next time */
		p->fn = NULL;
		hw_pci_link_read(p->pci, p->addr, &l);
	}
	vals[P_SPEED] = l.cur.mts;
	valid[P_SPEED] = l.cur.mts > 0;
	vals[P_WIDTH] = (uint64_t)l.cur_width;
	valid[P_WIDTH] = l.valid;
	vals[P_MPS] = l.max_payload;
	vals[P_MRRS] = l.max_read_req;
	valid[P_MPS] = valid[P_MRRS] = l.devctl_known;
	valid[P_AER_COR] = !aer_total(p->sysdir, "aer_dev_correctable", &vals[P_AER_COR]);
	valid[P_AER_NONFATAL] = !aer_total(p->sysdir, "aer_dev_nonfatal", &vals[P_AER_NONFATAL]);
	valid[P_AER_FATAL] = !aer_total(p->sysdir, "aer_dev_fatal", &vals[P_AER_FATAL]);
	return 0;
}

const struct mon_src_ops src_pci_ops = {
	.name = "pci",
	.what = "PCIe link and AER (libpci, sysfs)",
	.init = pci_src_init,
	.discover = pci_src_discover,
	.sample = pci_src_sample,
	.close = pci_src_close,
	.last_error = src_last_error,
};
