/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysfs.h: the one reader of small sysfs/procfs attribute files ("16.0 GT/s PCIe\n",
 * "0x10de\n", "-1\n"): the whole text up to the buffer size, trailing newlines and
 * spaces removed.
 */
#ifndef PFCLAB_LIB_HW_SYSFS_H
#define PFCLAB_LIB_HW_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/* Read path into buf (size > 0, always terminated). 0, or -errno (buf then ""). */
int hw_sysfs_read(const char *path, char *buf, size_t size);

/* The same for a path built from fmt ("/sys/bus/pci/devices/%s/vendor"); -ENAMETOOLONG
 * when the path does not fit PATH_MAX.
 */
int hw_sysfs_readf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The directory the PCI bus is read under: PFCLAB_SYSFS_ROOT where it is set (a fixture
 * tree standing in for a host: tests/fixtures/topo/), else "" for this host's own /sys.
 * GPU enumeration (lib/hw/gpu), the PCI topology (lib/hw/topo) and the doctor's sysfs
 * reads take it; nothing else does, so a fixture never reaches a live device.
 */
const char *hw_sysfs_root(void);

/* The link speed of network interface name from /sys/class/net/NAME/speed (Mb/s), the
 * one place pfclab reads it: 0 with *bps in bit/s; -ENODEV when there is no such network
 * interface (RDMA sniffer devices such as mlx5_0 are none); -ENODATA when it reports no
 * speed (lo, a link that is down, virtual devices that say -1). */
int hw_netdev_speed_bps(const char *name, uint64_t *bps);

#endif
