// SPDX-License-Identifier: GPL-2.0-or-later
/* pci.c: libpci with a safe error handler, PCIe link state from config space or sysfs,
 * the sysfs link-speed parser and the PCI function behind a network interface.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pci/pci.h>

#include "lib/hw/pci.h"
#include "lib/hw/sysfs.h"

/* The PCIe transfer rates by generation (PCI Express Base Specification, Link
 * Capabilities "Max Link Speed" encoding 1..6).
 */
static const uint32_t gen_mts[] = { 0, 2500, 5000, 8000, 16000, 32000, 64000 };
static const char *const gen_gts[] = { "?", "2.5", "5", "8", "16", "32", "64" };
#define GEN_MAX 6

struct hw_pci {
	struct pci_access *pacc;
};

/* libpci calls its error hook for fatal conditions and expects it not to return; ours
 * jumps back to the libpci call in progress on this thread, which then fails.
 */
static __thread jmp_buf *pci_jump;
static __thread char pci_msg[160];

static void __attribute__((noreturn)) pci_error(char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pci_msg, sizeof(pci_msg), fmt, ap);
	va_end(ap);
	longjmp(*pci_jump, 1);
}

static void pci_quiet(char *fmt, ...)
{
	(void)fmt;
}

/* fn(arg) with the error hook armed: 0, or -EIO when libpci failed inside it (pci_msg
 * says why). fn leaves its results in arg, never in locals of this frame.
 */
static int pci_guarded(void (*fn)(void *arg), void *arg)
{
	jmp_buf jb, *volatile saved = pci_jump;

	pci_jump = &jb;
	if (setjmp(jb)) {
		pci_jump = saved;
		return -EIO;
	}
	fn(arg);
	pci_jump = saved;
	return 0;
}

int hw_pci_speed_from_code(int code, struct hw_pci_speed *out)
{
	if (code < 1 || code > GEN_MAX)
		return -EINVAL;
	out->gen = code;
	out->mts = gen_mts[code];
	return 0;
}

int hw_pci_parse_speed(const char *s, struct hw_pci_speed *out)
{
	char *end;
	double v = strtod(s, &end);
	int g;

	if (end == s || !(v > 0) || v > 1000 || strncmp(end, " GT/s", 5))
		return -EINVAL;
	out->mts = (uint32_t)(v * 1000.0 + 0.5);
	out->gen = 0;
	for (g = 1; g <= GEN_MAX; g++)
		if (gen_mts[g] == out->mts)
			out->gen = g;
	return 0;
}

const char *hw_pci_speed_gts(const struct hw_pci_speed *s)
{
	return s->gen >= 1 && s->gen <= GEN_MAX ? gen_gts[s->gen] : "?";
}

int hw_pci_parse_bdf(const char *s, unsigned int *dom, unsigned int *bus, unsigned int *dev,
		     unsigned int *fn)
{
	char tail;

	if (sscanf(s, "%x:%x:%x.%x%c", dom, bus, dev, fn, &tail) != 4 || *dom > 0xffff ||
	    *bus > 0xff || *dev > 0x1f || *fn > 7)
		return -EINVAL;
	return 0;
}

int hw_pci_addr_canon(const char *s, char *out, size_t len)
{
	unsigned int dom, bus, dev, fn;
	char tail;
	int n;

	if (hw_pci_parse_bdf(s, &dom, &bus, &dev, &fn)) {
		dom = 0;
		if (sscanf(s, "%x:%x.%x%c", &bus, &dev, &fn, &tail) != 3 || bus > 0xff ||
		    dev > 0x1f || fn > 7)
			return -EINVAL;
	}
	n = snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

static void do_init(void *pacc)
{
	pci_init(pacc);
}

static void do_cleanup(void *pacc)
{
	pci_cleanup(pacc);
}

int hw_pci_open(struct hw_pci **out, char *why, size_t whylen)
{
	struct hw_pci *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->pacc = pci_alloc();
	if (!p->pacc) {
		free(p);
		return -ENOMEM;
	}
	p->pacc->error = pci_error;
	p->pacc->warning = pci_quiet;
	p->pacc->debug = pci_quiet;
	if (pci_guarded(do_init, p->pacc)) {
		snprintf(why, whylen, "libpci: %s", pci_msg);
		/* pci_init failed before any access method was set up: nothing to clean but
		 * the structure itself, which pci_cleanup would try to tear down further.
		 */
		free(p);
		return -ENODEV;
	}
	*out = p;
	return 0;
}

void hw_pci_close(struct hw_pci *p)
{
	if (!p)
		return;
	pci_guarded(do_cleanup, p->pacc);
	free(p);
}

static int sysfs_int(const char *bdf, const char *attr)
{
	char v[32];

	return hw_sysfs_readf(v, sizeof(v), "%s/sys/bus/pci/devices/%s/%s", hw_sysfs_root(), bdf,
			      attr) < 0 ? 0 :
	       atoi(v);
}

static void sysfs_speed(const char *bdf, const char *attr, struct hw_pci_speed *s)
{
	char v[64];

	if (hw_sysfs_readf(v, sizeof(v), "%s/sys/bus/pci/devices/%s/%s", hw_sysfs_root(), bdf,
			   attr) < 0 ||
	    hw_pci_parse_speed(v, s) < 0)
		memset(s, 0, sizeof(*s));
}

/* Link Status/Capabilities and Device Control at the PCIe capability at pos: 0, or -EIO
 * when they read as all ones (the function gone, or its config space unreadable).
 */
static int config_regs(struct pci_dev *d, int pos, struct hw_pci_link *l)
{
	uint16_t sta, ctl;
	uint32_t lcap;

	sta = pci_read_word(d, pos + PCI_EXP_LNKSTA);
	lcap = pci_read_long(d, pos + PCI_EXP_LNKCAP);
	ctl = pci_read_word(d, pos + PCI_EXP_DEVCTL);
	if (sta == 0xffff && lcap == 0xffffffffu && ctl == 0xffff)
		return -EIO;
	hw_pci_speed_from_code(sta & PCI_EXP_LNKSTA_SPEED, &l->cur);
	hw_pci_speed_from_code((int)(lcap & PCI_EXP_LNKCAP_SPEED), &l->max);
	l->cur_width = (sta & PCI_EXP_LNKSTA_WIDTH) >> 4;
	l->max_width = (int)((lcap & PCI_EXP_LNKCAP_WIDTH) >> 4);
	l->valid = l->from_config = l->max_width > 0;
	/* Device Control: MaxPayload bits 7:5, MaxReadReq bits 14:12, 128 << n bytes. */
	l->max_payload = 128u << ((ctl >> 5) & 7);
	l->max_read_req = 128u << ((ctl >> 12) & 7);
	l->devctl_known = true;
	return 0;
}

/* Link Status/Capabilities and Device Control of d's PCIe capability, and what the
 * extended capabilities say.
 */
static void config_link(struct pci_dev *d, struct hw_pci_link *l)
{
	struct pci_cap *cap;

	pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CAPS | PCI_FILL_EXT_CAPS);
	cap = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
	if (!cap || config_regs(d, cap->addr, l))
		return;
	/* Extended capabilities are only visible with all 4 KiB of config space. */
	l->ext_known = pci_find_cap(d, PCI_EXT_CAP_ID_AER, PCI_CAP_EXTENDED) ||
		       pci_find_cap(d, PCI_EXT_CAP_ID_DSN, PCI_CAP_EXTENDED) ||
		       pci_find_cap(d, PCI_EXT_CAP_ID_REBAR, PCI_CAP_EXTENDED);
	l->rebar = pci_find_cap(d, PCI_EXT_CAP_ID_REBAR, PCI_CAP_EXTENDED) != NULL;
}

/* One function's pci_dev from libpci, and what a guarded step made of it. */
struct pci_job {
	struct pci_access *pacc;
	unsigned int dom, bus, dev, fn;
	struct pci_dev *d;
	struct hw_pci_link *l;
	int pos;	/* the PCIe capability's offset, 0 when it has none */
	int rc;
};

static void do_link(void *arg)
{
	struct pci_job *j = arg;

	j->d = pci_get_dev(j->pacc, (int)j->dom, (int)j->bus, (int)j->dev, (int)j->fn);
	if (j->d)
		config_link(j->d, j->l);
}

int hw_pci_link_read(struct hw_pci *p, const char *bdf, struct hw_pci_link *l)
{
	struct pci_job j = { .l = l };

	memset(l, 0, sizeof(*l));
	if (hw_pci_parse_bdf(bdf, &j.dom, &j.bus, &j.dev, &j.fn))
		return -EINVAL;
	if (p) {
		j.pacc = p->pacc;
		if (pci_guarded(do_link, &j))
			memset(l, 0, sizeof(*l));	/* libpci failed half way: sysfs below */
		if (j.d)
			pci_free_dev(j.d);
	}
	if (!l->valid) {
		sysfs_speed(bdf, "current_link_speed", &l->cur);
		sysfs_speed(bdf, "max_link_speed", &l->max);
		l->cur_width = sysfs_int(bdf, "current_link_width");
		l->max_width = sysfs_int(bdf, "max_link_width");
		l->valid = l->max_width > 0;
	}
	return 0;
}

struct hw_pci_fn {
	struct hw_pci *pci;
	struct pci_dev *dev;
	int pos;	/* the PCIe capability's offset */
};

static void do_find_exp(void *arg)
{
	struct pci_job *j = arg;
	struct pci_cap *cap;

	j->d = pci_get_dev(j->pacc, (int)j->dom, (int)j->bus, (int)j->dev, (int)j->fn);
	if (!j->d)
		return;
	pci_fill_info(j->d, PCI_FILL_IDENT | PCI_FILL_CAPS);
	cap = pci_find_cap(j->d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
	j->pos = cap ? cap->addr : 0;
}

int hw_pci_fn_open(struct hw_pci *p, const char *bdf, struct hw_pci_fn **out)
{
	struct pci_job j = { 0 };
	struct hw_pci_fn *f;
	int rc;

	*out = NULL;
	if (!p || hw_pci_parse_bdf(bdf, &j.dom, &j.bus, &j.dev, &j.fn))
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	j.pacc = p->pacc;
	rc = pci_guarded(do_find_exp, &j);
	if (!rc && !j.pos)
		rc = -ENOENT;
	if (rc) {
		if (j.d)
			pci_free_dev(j.d);
		free(f);
		return rc;
	}
	f->pci = p;
	f->dev = j.d;
	f->pos = j.pos;
	*out = f;
	return 0;
}

static void do_regs(void *arg)
{
	struct pci_job *j = arg;

	j->rc = config_regs(j->d, j->pos, j->l);
}

int hw_pci_fn_link(struct hw_pci_fn *f, struct hw_pci_link *l)
{
	struct pci_job j = { .d = f->dev, .pos = f->pos, .l = l };

	memset(l, 0, sizeof(*l));
	return pci_guarded(do_regs, &j) ?: j.rc;
}

static void do_free_dev(void *d)
{
	pci_free_dev(d);
}

void hw_pci_fn_close(struct hw_pci_fn *f)
{
	if (!f)
		return;
	pci_guarded(do_free_dev, f->dev);
	free(f);
}

/* The last path component of link when it is a PCI address. */
static const char *bdf_of(char *link)
{
	unsigned int dom, bus, dev, fn;
	char *base = strrchr(link, '/');

	base = base ? base + 1 : link;
	return hw_pci_parse_bdf(base, &dom, &bus, &dev, &fn) ? NULL : base;
}

int hw_pci_class_bdf(const char *cls, const char *name, char *bdf, size_t len, char *why,
		      size_t whylen)
{
	char path[PATH_MAX], link[PATH_MAX], *slash;
	const char *b;

	snprintf(path, sizeof(path), "/sys/class/%s/%s/device", cls, name);
	if (!realpath(path, link)) {
		if (errno != ENOENT) {
			snprintf(why, whylen, "%s: %s", path, strerror(errno));
			return -EOPNOTSUPP;
		}
		snprintf(path, sizeof(path), "/sys/class/%s/%s", cls, name);
		if (!realpath(path, link)) {
			snprintf(why, whylen, "%s %s: no such device", cls, name);
			return -ENODEV;
		}
		snprintf(why, whylen, "virtual device, no PCI function");
		return -EOPNOTSUPP;
	}
	b = bdf_of(link);
	slash = strrchr(link, '/');
	if (!b && slash && slash != link) {
		/* virtio_net and similar hang off a bus device below the function. */
		*slash = '\0';
		b = bdf_of(link);
	}
	if (!b) {
		snprintf(why, whylen, "parent %.100s is not a PCI function",
			 slash ? slash + 1 : link);
		return -EOPNOTSUPP;
	}
	snprintf(bdf, len, "%s", b);
	return 0;
}

int hw_pci_netdev_bdf(const char *ifname, char *bdf, size_t len, char *why, size_t whylen)
{
	int rc = hw_pci_class_bdf("net", ifname, bdf, len, why, whylen);

	if (rc == -ENODEV)
		snprintf(why, whylen, "interface %s: no such interface", ifname);
	else if (rc == -EOPNOTSUPP && !strcmp(why, "virtual device, no PCI function"))
		snprintf(why, whylen, "virtual interface, no PCI function");
	return rc;
}
