/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sources.h: the counter sources (one ops table per file) and the reply parsers each
 * exposes for unit tests. Parsers read kernel replies only through lib/rd.h.
 */
#ifndef PFCLAB_MON_SOURCES_H
#define PFCLAB_MON_SOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/rd.h"
#include "monitor/mon.h"

extern const struct mon_src_ops src_ethtool_ioctl_ops;	/* "ethtool" */
extern const struct mon_src_ops src_ethtool_nl_ops;	/* "pause" */
extern const struct mon_src_ops src_dcb_ops;		/* "dcb" */
extern const struct mon_src_ops src_rdma_nl_ops;	/* "rdma" */
extern const struct mon_src_ops src_link_ops;		/* "link" */
extern const struct mon_src_ops src_nvml_ops;		/* "nvml" */
extern const struct mon_src_ops src_pci_ops;		/* "pci" */
extern const struct mon_src_ops src_qdisc_ops;		/* "qdisc" */
extern const struct mon_src_ops src_lossless_ops;	/* "lossless" */
/* "frames": the capture engine (monitor/frames/capture_engine.h) on a thread, so captured
 * PAUSE/PFC/CNP/CE counts sit next to the NIC counters in one run, on one clock.
 * mon_engine_add(e, &src_frames_ops, "eth2", 0, -1) captures on eth2 with the default
 * filter plus CE-marked RoCEv2 (mlx5_0-style RDMA sniffer names work too). */
extern const struct mon_src_ops src_frames_ops;

/* Whether `pfclab link` publishes counters for this interface (lib/linkstat.h). */
bool src_lossless_present(const char *iface);

/* Field list helpers shared by the sources. */
int src_fields_reserve(struct mon_src *s, size_t n);
void src_field_set(struct mon_field *f, const char *raw, enum mon_kind kind, uint8_t width,
		   const char *unit);
void src_fields_free(struct mon_src *s);
void src_info_add(struct mon_src *s, const char *key, const char *val);
/* The last_error op every source uses: the text in s->err. */
const char *src_last_error(const struct mon_src *s);
/* Netlink-backed sources: s->priv becomes a zeroed priv_size block whose first member is
 * a struct nl_sock, opened on bus (what: "rtnetlink" for the message). 0 or -errno with
 * s->err set. src_nl_close is their close op.
 */
int src_nl_open(struct mon_src *s, size_t priv_size, int bus, const char *what);
void src_nl_close(struct mon_src *s);
/* Sources that read an interface by ifindex: at most every SRC_IFINDEX_CHECK_NS (*last_ns
 * keeps the time), whether the name s->dev still names ifindex. A renamed, deleted or
 * re-created interface is -ENODEV with s->err set, so that the source's counters never
 * go on under the name from another device (the ethtool source, by name, moves to the new
 * one); else 0.
 */
#define SRC_IFINDEX_CHECK_NS (100 * 1000000ULL)
int src_ifindex_check(struct mon_src *s, uint32_t ifindex, uint64_t *last_ns);

/* --- SIOCETHTOOL replies (struct ethtool_sset_info / ethtool_gstrings / ethtool_stats) */
int src_ethtool_parse_sset(const void *buf, size_t len, uint32_t *count);
/* names: count * ETH_GSTRING_LEN-sized slots are turned into fields; -ESTALE when the
 * reply's length differs from count.
 */
int src_ethtool_parse_strings(const void *buf, size_t len, uint32_t count,
			      struct mon_field *out);
int src_ethtool_parse_stats(const void *buf, size_t len, uint32_t count, uint64_t *vals);

/* --- ethtool netlink PAUSE_GET reply (genlmsghdr + attributes) */
struct src_pause_reply {
	bool have_rx, have_tx, have_tx_frames, have_rx_frames;
	uint8_t rx, tx;
	uint64_t tx_frames, rx_frames;
};
int src_ethtool_nl_parse_pause(struct rd *payload, struct src_pause_reply *out);

/* --- RDMA netlink STAT_GET reply: hw counter names and values */
struct src_rdma_counter {
	char name[MON_NAME_MAX];
	uint64_t value;
};
/* Fills up to max entries; *n gets how many the reply held (may exceed max). */
int src_rdma_parse_stat(struct rd *payload, struct src_rdma_counter *out, size_t max,
			size_t *n);
/* RDMA_NLDEV_CMD_GET reply: device index and name. */
int src_rdma_parse_dev(struct rd *payload, uint32_t *index, char *name, size_t namesz);

/* --- rtnetlink RTM_GETSTATS reply (struct if_stats_msg + IFLA_STATS_LINK_64) */
struct src_link_stats {
	uint32_t ifindex;
	bool have64;
	uint64_t v[24];		/* struct rtnl_link_stats64 as u64s, in order */
	size_t nv;
};
int src_link_parse_stats(struct rd *payload, struct src_link_stats *out);

/* --- rtnetlink RTM_NEWQDISC reply (struct tcmsg + TCA_KIND, TCA_OPTIONS, TCA_STATS2) */
struct src_qdisc_stats {
	uint32_t ifindex, handle, parent;
	char kind[16];
	bool have_basic, have_pkt64, have_queue, have_red, have_codel, have_htb;
	bool have_red_parms, have_ecn;
	uint64_t bytes, packets;
	uint32_t qlen, backlog, drops, requeues, overlimits;	/* struct gnet_stats_queue */
	uint32_t early, pdrop, other, marked;	/* RED; marked is codel's ecn_mark too */
	uint32_t drop_overlimit, ce_mark;	/* codel, fq_codel */
	uint32_t direct_packets;		/* htb */
	uint32_t limit, qth_min, qth_max;	/* RED options */
	uint8_t ecn;				/* ECN marking on (RED, codel, fq_codel) */
	uint8_t red_flags;			/* TC_RED_ECN, TC_RED_HARDDROP, ... */
};
/* -EBADMSG for a truncated header, a missing or unterminated kind, or a statistics or
 * options attribute shorter than its uapi struct.
 */
int src_qdisc_parse(struct rd *payload, struct src_qdisc_stats *out);
/* The qdisc's name in field and metric names: its handle's major in hex ("1", "8001"),
 * "root" for a handle-less root, else "p<parent major>-<minor>".
 */
void src_qdisc_name(const struct src_qdisc_stats *q, char *buf, size_t size);
/* One value of a qdisc, named as in the field list ("<name>.<value>"). */
struct src_qdisc_val {
	const char *name;
	enum mon_kind kind;
	uint8_t width;
	const char *unit;
	bool valid;
	uint64_t v;
};
/* The values a qdisc of this kind has, in field order; returns how many (out may be NULL). */
size_t src_qdisc_values(const struct src_qdisc_stats *q, struct src_qdisc_val *out,
			size_t max);

/* --- PCI sysfs text: the TOTAL_ERR_* line of aer_dev_correctable / _nonfatal / _fatal
 * (the link speed text is parsed by lib/hw/pci.h).
 */
int src_pci_parse_aer(const char *text, uint64_t *total);

/* --- NVML field values (nvmlValueType_t) and the cumulative PCIe byte counters */
enum {
	SRC_NVML_VT_DOUBLE, SRC_NVML_VT_UINT, SRC_NVML_VT_ULONG, SRC_NVML_VT_ULONGLONG,
	SRC_NVML_VT_LONGLONG, SRC_NVML_VT_INT, SRC_NVML_VT_USHORT,
};
/* Default reading cadence of the NVML reader thread. */
#define SRC_NVML_CADENCE_NS (10 * 1000000ULL)
/* Unless the user fixed the cadence, the reader keeps its PCIe reads within this share of
 * one core: where one read costs more than 0.05 ms of CPU (the driver spins on each round
 * trip to the GPU's firmware: ~0.3-0.45 ms on an H100), it reads less often than the
 * default, up to src_nvml_cadence_max (an H100's reads land there: every 50 ms).
 */
#define SRC_NVML_READ_BUDGET 0.005
/* The time a counter of this value type takes to wrap at the full rate of a x16 link of
 * PCIe generation max(GEN, 5) (32-bit, gen 5: 68.2 ms, gen 6: 33.6 ms; older links can
 * train up to gen 5 on a newer slot, so no less is assumed); 0 for 64-bit counters. Two
 * readings further apart than this may hide a whole wrap: the reader then takes no delta
 * across them.
 */
uint64_t src_nvml_wrap_ns(int value_type, unsigned gen);
/* Whether two readings GAP_NS apart are too far apart for a delta (src_nvml_wrap_ns). */
bool src_nvml_read_late(int value_type, unsigned gen, uint64_t gap_ns);
/* The longest adaptive cadence: 3/4 of src_nvml_wrap_ns (gen 5: 51 ms, gen 6: 25 ms),
 * leaving a quarter of a wrap for a late read, at most 50 ms; 50 ms for 64-bit counters.
 */
uint64_t src_nvml_cadence_max(int value_type, unsigned gen);
/* The cadence for reads costing COST_NS of CPU each (a running mean): COST_NS /
 * SRC_NVML_READ_BUDGET, no shorter than BASE_NS, no longer than MAX_NS (nor BASE_NS). */
uint64_t src_nvml_cadence_adapt(uint64_t cost_ns, uint64_t base_ns, uint64_t max_ns);
/* Bytes between two readings of a counter of this value type: modulo 2^32 for the 32-bit
 * types (a wrap), 0 when a 64-bit counter went back (a reset).
 */
uint64_t src_nvml_counter_delta(int value_type, uint64_t prev, uint64_t cur);
/* The integer in an 8-byte nvmlValue_t of this type; -EINVAL for a double or unknown type. */
int src_nvml_field_raw(int value_type, const void *value8, uint64_t *out);

#endif
