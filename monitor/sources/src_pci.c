// SPDX-License-Identifier: GPL-2.0-or-later
/* src_pci.c: PCIe link speed/width, MaxPayload/MaxReadReq (config space through libpci)
 * and AER error counts (sysfs) of the NIC behind an interface or of NVIDIA GPU N.
 * These change rarely, so the engine reads them at most once a second.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pci/pci.h>

#include "lib/util.h"
#include "monitor/sources/sources.h"

enum { P_SPEED, P_WIDTH, P_MPS, P_MRRS, P_AER_COR, P_AER_NONFATAL, P_AER_FATAL, P_N };

struct pci_priv {
	char addr[32];		/* 0000:3b:00.0 */
	char sysdir[PATH_MAX];
	struct pci_access *pacc;
	struct pci_dev *pdev;
};

static int read_line(const char *dir, const char *file, char *buf, size_t n)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)n, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* "16.0 GT/s PCIe" -> 16000 (MT/s); "Unknown" -> error. */
int src_pci_parse_speed(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v <= 0 || v > 1000 || strncmp(end, " GT/s", 5))
		return -EINVAL;
	*out = (uint64_t)(v * 1000.0 + 0.5);
	return 0;
}

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
	char path[PATH_MAX + 64], text[2048];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return src_pci_parse_aer(text, out);
}

static int find_gpu(int index, char *addr, size_t n)
{
	struct dirent **list;
	int i, cnt, found = -1, k = 0;

	cnt = scandir("/sys/bus/pci/devices", &list, NULL, alphasort);
	if (cnt < 0)
		return -errno;
	for (i = 0; i < cnt; i++) {
		char dir[PATH_MAX], v[32], c[32];

		if (list[i]->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", list[i]->d_name);
		if (read_line(dir, "vendor", v, sizeof(v)) || read_line(dir, "class", c, sizeof(c)))
			continue;
		/* NVIDIA, display controller: VGA (0x0300) or 3D (0x0302). */
		if (strcmp(v, "0x10de") || (strncmp(c, "0x0300", 6) && strncmp(c, "0x0302", 6)))
			continue;
		if (k++ == index && found < 0) {
			snprintf(addr, n, "%.31s", list[i]->d_name);
			found = 0;
		}
	}
	for (i = 0; i < cnt; i++)
		free(list[i]);
	free(list);
	return found;
}

static void pci_src_close(struct mon_src *s)
{
	struct pci_priv *p = s->priv;

	if (p) {
		if (p->pdev)
			pci_free_dev(p->pdev);
		if (p->pacc)
			pci_cleanup(p->pacc);
		free(p);
	}
	s->priv = NULL;
	src_fields_free(s);
}

static int pci_src_init(struct mon_src *s)
{
	struct pci_priv *p = calloc(1, sizeof(*p));
	char link[PATH_MAX], path[PATH_MAX];
	unsigned dom, bus, dev, fn;
	char *base;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	s->min_period_ns = 1000000000ULL;
	if (s->index >= 0) {
		if (find_gpu(s->index, p->addr, sizeof(p->addr))) {
			snprintf(s->err, sizeof(s->err), "no NVIDIA GPU number %d on the PCI bus",
				 s->index);
			return -ENODEV;
		}
	} else {
		snprintf(path, sizeof(path), "/sys/class/net/%s/device", s->dev);
		if (!realpath(path, link)) {
			if (errno == ENOENT) {
				snprintf(path, sizeof(path), "/sys/class/net/%s", s->dev);
				if (!realpath(path, link)) {
					snprintf(s->err, sizeof(s->err), "interface %s: no such "
						 "interface", s->dev);
					return -ENODEV;
				}
				snprintf(s->err, sizeof(s->err), "virtual interface, no PCI "
					 "function");
			}
			return -EOPNOTSUPP;
		}
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		if (sscanf(base, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4 && base != link) {
			/* virtio_net and similar hang off a bus device below the function. */
			base[-1] = '\0';
			base = strrchr(link, '/');
			base = base ? base + 1 : link;
		}
		if (sscanf(base, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4) {
			snprintf(s->err, sizeof(s->err), "parent %.100s is not a PCI function",
				 base);
			return -EOPNOTSUPP;
		}
		snprintf(p->addr, sizeof(p->addr), "%.31s", base);
	}
	snprintf(p->sysdir, sizeof(p->sysdir), "/sys/bus/pci/devices/%s", p->addr);
	src_info_add(s, "pci_address", p->addr);
	if (sscanf(p->addr, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4) {
		p->pacc = pci_alloc();
		if (p->pacc) {
			pci_init(p->pacc);
			p->pdev = pci_get_dev(p->pacc, (int)dom, (int)bus, (int)dev, (int)fn);
		}
	}
	return 0;
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
	char buf[64];

	if (read_line(p->sysdir, "vendor", buf, sizeof(buf)))
		return -ENODEV;
	if (!read_line(p->sysdir, "current_link_speed", buf, sizeof(buf)) &&
	    !src_pci_parse_speed(buf, &vals[P_SPEED]))
		valid[P_SPEED] = 1;
	if (!read_line(p->sysdir, "current_link_width", buf, sizeof(buf)) &&
	    !parse_u64(buf, 0, 64, &vals[P_WIDTH]))
		valid[P_WIDTH] = 1;
	if (p->pdev) {
		struct pci_cap *cap = pci_find_cap(p->pdev, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);

		if (cap) {
			/* PCIe Device Control: MPS bits 7:5, MRRS bits 14:12, 128 << n bytes. */
			unsigned ctl = pci_read_word(p->pdev, cap->addr + PCI_EXP_DEVCTL);

			vals[P_MPS] = 128ULL << ((ctl >> 5) & 7);
			vals[P_MRRS] = 128ULL << ((ctl >> 12) & 7);
			valid[P_MPS] = valid[P_MRRS] = 1;
		}
	}
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
