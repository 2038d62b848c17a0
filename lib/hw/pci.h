/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pci.h: what pfclab knows about PCI functions: libpci opened with an error handler
 * that returns instead of exiting (libpci's default handler calls exit() when no access
 * method works), the PCIe link state of a function (config space, else sysfs), the one
 * parser of the sysfs link-speed text, and the function behind a network interface.
 */
#ifndef PFCLAB_LIB_HW_PCI_H
#define PFCLAB_LIB_HW_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A PCIe link speed: generation (1 = 2.5 GT/s ... 6 = 64 GT/s; 0 when the rate is none
 * of those) and transfer rate in MT/s (0 unknown).
 */
struct hw_pci_speed {
	int gen;
	uint32_t mts;
};

/* "16.0 GT/s PCIe", "2.5 GT/s", "8 GT/s" -> {4, 16000}, {1, 2500}, {3, 8000}.
 * -EINVAL for anything else ("Unknown", "8.0 MHz").
 */
int hw_pci_parse_speed(const char *s, struct hw_pci_speed *out);
/* The Link Status/Capabilities speed code (1..6) as a speed; -EINVAL outside. */
int hw_pci_speed_from_code(int code, struct hw_pci_speed *out);
/* "16", "2.5" (GT/s) for printing; "?" when unknown. */
const char *hw_pci_speed_gts(const struct hw_pci_speed *s);

/* "0000:3b:00.0" -> its four parts; -EINVAL when it is not a PCI address. */
int hw_pci_parse_bdf(const char *s, unsigned int *dom, unsigned int *bus,
		     unsigned int *dev, unsigned int *fn);
/* "0000:3b:00.0" or, as lspci prints it, "3b:00.0" (domain 0) -> "0000:3b:00.0" in out,
 * the form sysfs, NVML and CUDA take. 0, -EINVAL when s is not a PCI address, -ENOSPC.
 */
int hw_pci_addr_canon(const char *s, char *out, size_t len);

/* libpci, opened once per user. */
struct hw_pci;
/* 0 with *out set, or -ENODEV with why filled when libpci finds no access method (no
 * /sys/bus/pci, no /proc/bus/pci, no I/O port access), -ENOMEM.
 */
int hw_pci_open(struct hw_pci **out, char *why, size_t whylen);
void hw_pci_close(struct hw_pci *p);

struct hw_pci_link {
	bool valid;			/* the widths were read */
	bool from_config;		/* config space (libpci), else sysfs attributes */
	struct hw_pci_speed cur, max;
	int cur_width, max_width;
	bool ext_known;			/* extended config space was readable */
	bool rebar;			/* Resizable BAR extended capability present */
	bool devctl_known;		/* PCIe Device Control read: */
	uint32_t max_payload;		/*   MaxPayload, bytes */
	uint32_t max_read_req;		/*   MaxReadReq, bytes */
};

/* Link state of function bdf: from config space through p when p is not NULL and the
 * function has a PCIe capability there, else from the sysfs link attributes. 0 (check
 * l->valid), -EINVAL for a malformed bdf.
 */
int hw_pci_link_read(struct hw_pci *p, const char *bdf, struct hw_pci_link *l);

/* One function's PCIe capability found once and kept, for a sampler that reads the link
 * again and again: each read is three config-space reads (Link Status, Link Capabilities,
 * Device Control), where hw_pci_link_read walks every capability first. The extended
 * capabilities are not read (ext_known, rebar stay false), and neither are the sysfs
 * attributes.
 */
struct hw_pci_fn;
/* 0 with *out set; -ENOENT no such function or no PCIe capability in its config space,
 * -EINVAL a malformed bdf or no p, -EIO libpci failed, -ENOMEM.
 */
int hw_pci_fn_open(struct hw_pci *p, const char *bdf, struct hw_pci_fn **out);
/* 0 with l filled as hw_pci_link_read fills it from config space; -EIO (l zeroed) when
 * the registers read as all ones: the function is gone or was reset, close it and open
 * it again.
 */
int hw_pci_fn_link(struct hw_pci_fn *f, struct hw_pci_link *l);
void hw_pci_fn_close(struct hw_pci_fn *f);

/* The PCI function of device name in /sys/class/cls ("net", "infiniband"), e.g.
 * "0000:3b:00.0": -ENODEV no such device, -EOPNOTSUPP a virtual one (rxe, veth) or one
 * whose parent is not a PCI function (why says which).
 */
int hw_pci_class_bdf(const char *cls, const char *name, char *bdf, size_t len, char *why,
		     size_t whylen);
/* The same for network interface ifname. */
int hw_pci_netdev_bdf(const char *ifname, char *bdf, size_t len, char *why, size_t whylen);

#endif
