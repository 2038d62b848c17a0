/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nicqos.h: the one reader of a NIC's congestion settings that decide when PFC fires and
 * how DCQCN reacts: the DCQCN parameters (MLNX_OFED sysfs or inbox mlx5 debugfs), the
 * receive buffer split (MLNX_OFED sysfs qos/) and the PFC storm-prevention timeout
 * (ethtool tunable); on a port of the virtual lab's emulated link, the DCQCN parameters
 * `pfclab link --dcqcn` runs with. Every value carries whether it was read; nothing is made up.
 */
#ifndef PFCLAB_LIB_HW_NICQOS_H
#define PFCLAB_LIB_HW_NICQOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the DCQCN parameters came from. */
enum hw_dcqcn_source {
	HW_DCQCN_NONE,		/* neither interface exists (veth, rxe, other vendors) */
	HW_DCQCN_MLNX_OFED,	/* /sys/class/net/IF/ecn/roce_rp|roce_np/params/<name> */
	HW_DCQCN_DEBUGFS,	/* /sys/kernel/debug/mlx5/<pci>/cc_params/<name> (inbox mlx5,
				 * drivers/infiniband/hw/mlx5/cong.c) */
	HW_DCQCN_PFCLAB_LINK,	/* /run/pfclab/link/IF.dcqcn: the emulated link of the
				 * virtual lab (pfclab link --dcqcn), debugfs names */
};

#define HW_DCQCN_MAX_PARAMS 48

struct hw_dcqcn_param {
	char name[64];		/* debugfs: "rp_ai_rate"; MLNX_OFED: "roce_rp.rpg_ai_rate" */
	int64_t value;
	bool valid;		/* false: the file is there but could not be read as a number */
};

/* The buffer split files MLNX_OFED's mlx5 keeps in /sys/class/net/IF/qos/. */
enum { HW_QOS_BUFFER_SIZE, HW_QOS_PRIO2BUFFER, HW_QOS_TRUST, HW_QOS_DSCP2PRIO, HW_QOS_NFILES };

struct hw_nicqos {
	enum hw_dcqcn_source dcqcn_source;
	struct hw_dcqcn_param param[HW_DCQCN_MAX_PARAMS];
	size_t nparam;
	/* MLNX_OFED only: enable/<prio> of the reaction (rp) and notification (np) point,
	 * -1 where not read */
	int rp_enable[8], np_enable[8];
	/* the qos/ files' text (newlines kept, trailing ones removed); valid where read */
	char qos[HW_QOS_NFILES][1024];
	bool qos_valid[HW_QOS_NFILES];
	/* ETHTOOL_PFC_PREVENTION_TOUT in ms; 0 = prevention off; auto: the driver's own
	 * default was asked for (PFC_STORM_PREVENTION_AUTO; mlx5: 100 ms) */
	uint32_t storm_ms;
	bool storm_valid, storm_auto;
	int storm_err;		/* -errno of the ioctl where not valid (-EOPNOTSUPP: the driver
				 * has no such tunable) */
};

/* The qos/ file names, in HW_QOS_* order ("buffer_size", ...). */
const char *hw_nicqos_file_name(int i);

/* The inbox mlx5 debugfs cc_params names pfclab records, in a fixed order (the
 * virtual lab's emulated link fills the same names); *n their count. */
const char *const *hw_dcqcn_debugfs_names(size_t *n);

/* Read IF's settings from the tree under root ("" or NULL: the real "/"; a fixture
 * tree in tests). The storm timeout is an ioctl, not a file: under another root it is
 * not read (storm_err -ENOTSUP). 0, or -EINVAL for an interface name that cannot exist;
 * what is absent is marked so in q, never an error.
 */
int hw_nicqos_read(const char *root, const char *ifname, struct hw_nicqos *q);

#endif
