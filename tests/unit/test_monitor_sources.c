// SPDX-License-Identifier: GPL-2.0-or-later
/* test_monitor_sources.c: every counter source's reply parser, fed replies built from the
 * kernel uapi structures: good, truncated, malformed and with unknown attributes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>

#include "lib/hw/dcb.h"
#include "lib/util.h"
#include "monitor/catalog.h"
#include "monitor/sources/sources.h"

static uint8_t buf[64 * 1024];

/* The payload of a netlink message we built, as the parsers see it. */
static struct rd payload_of(const struct nlmsghdr *nlh)
{
	return rd_init(mnl_nlmsg_get_payload(nlh), mnl_nlmsg_get_payload_len(nlh));
}

/* Fixture lines "name<TAB>value"; returns the count. */
static size_t load_fixture(const char *name, char names[][ETH_GSTRING_LEN + 1],
			   uint64_t *vals, size_t max)
{
	char path[512], line[256];
	const char *root = getenv("PFCLAB_ROOT");
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/tests/fixtures/monitor/%s", root ? root : ".", name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && n < max) {
		char *tab = strchr(line, '\t');

		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		snprintf(names[n], ETH_GSTRING_LEN + 1, "%.32s", line);
		vals[n++] = strtoull(tab + 1, NULL, 10);
	}
	fclose(f);
	return n;
}

/* --- SIOCETHTOOL --------------------------------------------------------------- */

static void test_ethtool_sset(void **state)
{
	struct {
		struct ethtool_sset_info h;
		uint32_t data[1];
	} r = { .h = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_STATS },
		.data = { 42 } };
	uint32_t n = 0;

	(void)state;
	assert_int_equal(src_ethtool_parse_sset(&r, sizeof(r), &n), 0);
	assert_int_equal(n, 42);
	/* Truncated: the count is missing. */
	assert_int_equal(src_ethtool_parse_sset(&r, sizeof(r.h), &n), -EBADMSG);
	assert_int_equal(src_ethtool_parse_sset(&r, 3, &n), -EBADMSG);
	/* The driver has no statistics set: unsupported, not zero counters. */
	r.h.sset_mask = 0;
	assert_int_equal(src_ethtool_parse_sset(&r, sizeof(r), &n), -EOPNOTSUPP);
	/* A reply to another command is malformed. */
	r.h.cmd = ETHTOOL_GSTATS;
	assert_int_equal(src_ethtool_parse_sset(&r, sizeof(r), &n), -EBADMSG);
}

static void test_ethtool_strings_stats_mlx5(void **state)
{
	static char names[64][ETH_GSTRING_LEN + 1];
	static uint64_t vals[64], got[64];
	struct ethtool_gstrings *gs = (void *)buf;
	struct ethtool_stats *st = (void *)buf;
	struct mon_field f[64];
	struct mon_catalog *cat;
	struct mon_catalog_hit hit;
	size_t n, i, slen, vlen;

	(void)state;
	n = load_fixture("mlx5_ethtool_stats.handmade.txt", names, vals, 64);
	assert_true(n > 20);
	memset(buf, 0, sizeof(buf));
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = (uint32_t)n;
	for (i = 0; i < n; i++)	/* a 32-char name fills its slot with no NUL */
		memcpy(gs->data + i * ETH_GSTRING_LEN, names[i],
		       strnlen(names[i], ETH_GSTRING_LEN));
	slen = sizeof(*gs) + n * ETH_GSTRING_LEN;
	assert_int_equal(src_ethtool_parse_strings(buf, slen, (uint32_t)n, f), 0);
	for (i = 0; i < n; i++)
		assert_string_equal(f[i].raw, names[i]);
	assert_int_equal(strlen(f[n - 1].raw), 32);
	/* Size changed since GSSET_INFO: stale, re-read. */
	assert_int_equal(src_ethtool_parse_strings(buf, slen, (uint32_t)n - 1, f), -ESTALE);
	/* Truncated in the middle of a name. */
	assert_int_equal(src_ethtool_parse_strings(buf, slen - 5, (uint32_t)n, f), -EBADMSG);
	assert_int_equal(src_ethtool_parse_strings(buf, 8, (uint32_t)n, f), -EBADMSG);

	/* The catalog names the PFC, ECN and PCIe counters of this mlx5 set. */
	assert_int_equal(mon_catalog_builtin(&cat), 0);
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core", "rx_prio3_pause", -1,
					    &hit), 1);
	assert_string_equal(hit.metric, "pfc.rx.prio3.frames");
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "tx_prio3_pause_duration", -1, &hit), 1);
	assert_string_equal(hit.metric, "pfc.tx.prio3.pause_us");
	assert_string_equal(hit.unit, "us");
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "outbound_pci_stalled_wr", -1, &hit), 1);
	assert_string_equal(hit.metric, "pcie.nic.stalled_wr");
	/* a share of the last second (0..100) the NIC computes: a gauge, never a delta */
	assert_string_equal(hit.unit, "%");
	assert_int_equal(hit.kind, MON_GAUGE);
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "outbound_pci_stalled_wr_events", -1, &hit), 1);
	assert_string_equal(hit.unit, "s");	/* seconds above 30% */
	assert_int_equal(hit.kind, MON_COUNTER);
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "outbound_pci_buffer_overflow", -1, &hit), 1);
	assert_string_equal(hit.unit, "packets");
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core", "rx_prio3_marked", -1,
					    &hit), 1);
	/* what the NIC marked for host congestion, not CE arrivals */
	assert_string_equal(hit.metric, "ecn.host_marked.prio3");
	/* rx_out_of_buffer is a 32-bit counter */
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core", "rx_out_of_buffer", -1,
					    &hit), 1);
	assert_int_equal(hit.width, 32);
	/* the storm warning with and without the trailing space of older kernels */
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "tx_pause_storm_warning_events", -1, &hit), 1);
	assert_string_equal(hit.metric, "pfc.storm.warning");
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "tx_pause_storm_warning_events ", -1, &hit), 1);
	assert_string_equal(hit.metric, "pfc.storm.warning");
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "tx_pause_storm_warning_events_x", -1, &hit), 0);
	/* Not mlx5: the mlx5 names do not apply. */
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "veth", "rx_prio3_pause", -1, &hit),
			 0);
	/* {p} is one digit only. */
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core", "rx_prio33_pause", -1,
					    &hit), 0);
	mon_catalog_free(cat);

	memset(buf, 0, sizeof(buf));
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = (uint32_t)n;
	memcpy(st->data, vals, n * sizeof(uint64_t));
	vlen = sizeof(*st) + n * sizeof(uint64_t);
	assert_int_equal(src_ethtool_parse_stats(buf, vlen, (uint32_t)n, got), 0);
	assert_memory_equal(got, vals, n * sizeof(uint64_t));
	assert_int_equal(src_ethtool_parse_stats(buf, vlen - 1, (uint32_t)n, got), -EBADMSG);
	assert_int_equal(src_ethtool_parse_stats(buf, vlen, (uint32_t)n + 1, got), -ESTALE);
	assert_int_equal(src_ethtool_parse_stats(buf, 4, (uint32_t)n, got), -EBADMSG);
}

/* --- ethtool netlink PAUSE_GET ----------------------------------------------------- */

static struct nlmsghdr *genl_reply(uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	nlh->nlmsg_type = 30;
	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

static void test_pause_reply(void **state)
{
	struct src_pause_reply rep;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct rd r;

	(void)state;
	nlh = genl_reply(ETHTOOL_MSG_PAUSE_GET_REPLY);
	nest = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_HEADER);
	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, 7);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, "eth9");
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_AUTONEG, 0);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_RX, 1);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_TX, 0);
	mnl_attr_put_u32(nlh, 200, 0xdead);	/* unknown attribute: skipped */
	nest = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
	mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 1234);
	mnl_attr_put_u64(nlh, 77, 5);		/* unknown statistic: skipped */
	mnl_attr_nest_end(nlh, nest);
	r = payload_of(nlh);
	assert_int_equal(src_ethtool_nl_parse_pause(&r, &rep), 0);
	assert_true(rep.have_rx && rep.rx == 1);
	assert_true(rep.have_tx && rep.tx == 0);
	assert_true(rep.have_tx_frames);
	assert_int_equal(rep.tx_frames, 1234);
	/* The driver did not report RX frames: absent, so n/a, never 0. */
	assert_false(rep.have_rx_frames);

	/* Truncated: cut the last attribute short. */
	r = rd_init(mnl_nlmsg_get_payload(nlh), mnl_nlmsg_get_payload_len(nlh) - 6);
	assert_int_equal(src_ethtool_nl_parse_pause(&r, &rep), -EBADMSG);
	/* Shorter than the genl header. */
	r = rd_init(mnl_nlmsg_get_payload(nlh), 2);
	assert_int_equal(src_ethtool_nl_parse_pause(&r, &rep), -EBADMSG);

	/* Malformed: a u64 statistic carried in 4 bytes. */
	nlh = genl_reply(ETHTOOL_MSG_PAUSE_GET_REPLY);
	nest = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
	mnl_attr_put_u32(nlh, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 9);
	mnl_attr_nest_end(nlh, nest);
	r = payload_of(nlh);
	assert_int_equal(src_ethtool_nl_parse_pause(&r, &rep), -EBADMSG);

	/* Malformed: an attribute length pointing past the message. */
	nlh = genl_reply(ETHTOOL_MSG_PAUSE_GET_REPLY);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_RX, 1);
	((struct nlattr *)((uint8_t *)mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN))->nla_len = 200;
	r = payload_of(nlh);
	assert_int_equal(src_ethtool_nl_parse_pause(&r, &rep), -EBADMSG);

	/* Malformed: a header that claims less than its own size. */
	((struct nlattr *)((uint8_t *)mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN))->nla_len = 2;
	r = payload_of(nlh);
	assert_int_equal(src_ethtool_nl_parse_pause(&r, &rep), -EBADMSG);
}

/* --- DCB IEEE_GET ------------------------------------------------------------------ */

static struct nlmsghdr *dcb_reply(void)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct dcbmsg *d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));

	nlh->nlmsg_type = RTM_GETDCB;
	d->cmd = DCB_CMD_IEEE_GET;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "eth9");
	return nlh;
}

static void test_dcb_reply(void **state)
{
	struct ieee_pfc pfc = { .pfc_cap = 8, .pfc_en = 1 << 3 };
	struct hw_dcb_pfc out;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct rd r;
	int p;

	(void)state;
	for (p = 0; p < 8; p++) {
		pfc.requests[p] = 100 + (uint64_t)p;
		pfc.indications[p] = 200 + (uint64_t)p;
	}
	nlh = dcb_reply();
	nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, 8, "\0\0\0\0\0\0\0");	/* not ours */
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	mnl_attr_put_u32(nlh, 99, 1);				/* unknown */
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, 4);			/* other top level */
	r = payload_of(nlh);
	assert_int_equal(hw_dcb_parse_ieee(&r, &out), 0);
	assert_true(out.have_pfc);
	assert_int_equal(out.pfc_en, 1 << 3);
	assert_int_equal(out.requests[3], 103);
	assert_int_equal(out.indications[7], 207);

	/* No PFC attribute (CEE-only driver): no data, not zeros. */
	nlh = dcb_reply();
	nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_nest_end(nlh, nest);
	r = payload_of(nlh);
	assert_int_equal(hw_dcb_parse_ieee(&r, &out), 0);
	assert_false(out.have_pfc);

	/* Malformed: struct ieee_pfc cut short. */
	nlh = dcb_reply();
	nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc) - 8, &pfc);
	mnl_attr_nest_end(nlh, nest);
	r = payload_of(nlh);
	assert_int_equal(hw_dcb_parse_ieee(&r, &out), -EBADMSG);
	assert_false(out.have_pfc);

	/* Truncated message: shorter than struct dcbmsg. */
	r = rd_init(mnl_nlmsg_get_payload(nlh), 2);
	assert_int_equal(hw_dcb_parse_ieee(&r, &out), -EBADMSG);

	/* Malformed: interface name without its NUL. */
	nlh = mnl_nlmsg_put_header(buf);
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct dcbmsg));
	mnl_attr_put(nlh, DCB_ATTR_IFNAME, 4, "eth9");
	r = payload_of(nlh);
	assert_int_equal(hw_dcb_parse_ieee(&r, &out), -EBADMSG);
}

/* --- RDMA netlink STAT_GET --------------------------------------------------------- */

static struct nlmsghdr *rdma_stat_reply(char names[][ETH_GSTRING_LEN + 1], uint64_t *vals,
					size_t n, bool junk)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlattr *tab, *ent;
	size_t i;

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	if (junk)
		mnl_attr_put_u64(nlh, 4000, 1);		/* unknown, above every max */
	tab = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	for (i = 0; i < n; i++) {
		ent = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, names[i]);
		mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, vals[i]);
		if (junk)
			mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, 0);
		mnl_attr_nest_end(nlh, ent);
	}
	if (junk)
		mnl_attr_put_u32(nlh, 3999, 7);	/* unknown inside the table */
	mnl_attr_nest_end(nlh, tab);
	return nlh;
}

static void test_rdma_stat_reply(void **state)
{
	static char names[32][ETH_GSTRING_LEN + 1];
	static uint64_t vals[32];
	struct src_rdma_counter out[32];
	struct mon_catalog *cat;
	struct mon_catalog_hit hit;
	struct nlmsghdr *nlh;
	struct rd r;
	size_t n, got, i;

	(void)state;
	n = load_fixture("mlx5_rdma_hw_counters.handmade.txt", names, vals, 32);
	assert_true(n >= 10);
	nlh = rdma_stat_reply(names, vals, n, true);
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_stat(&r, out, 32, &got), 0);
	assert_int_equal(got, n);
	for (i = 0; i < n; i++) {
		assert_string_equal(out[i].name, names[i]);
		assert_int_equal(out[i].value, vals[i]);
	}
	/* More counters than room: counted, not written past the array. */
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_stat(&r, out, 2, &got), 0);
	assert_int_equal(got, n);

	assert_int_equal(mon_catalog_builtin(&cat), 0);
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "mlx5_core", "np_cnp_sent", -1, &hit), 1);
	assert_string_equal(hit.metric, "cnp.sent");
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "mlx5_core", "out_of_buffer", -1, &hit),
			 1);
	assert_int_equal(hit.width, 32);	/* a Q counter: wraps at 2^32 */
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "rxe", "sent_pkts", -1, &hit), 1);
	assert_string_equal(hit.metric, "rdma.tx.packets");
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "irdma", "cnpSent", -1, &hit), 1);
	assert_string_equal(hit.metric, "cnp.sent");
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "bnxt_en", "rx_ecn_marked_pkts", -1,
					    &hit), 1);
	assert_string_equal(hit.metric, "ecn.marked");
	/* bnxt_re counts CNPs received, not handled; rxe's completer counts every retry */
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "bnxt_re", "rx_cnp_pkts", -1, &hit), 1);
	assert_string_equal(hit.metric, "cnp.received");
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "rxe", "completer_retry_err", -1, &hit),
			 1);
	assert_string_equal(hit.metric, "rdma.retries");
	mon_catalog_free(cat);

	/* Truncated anywhere: an error, never a crash or a partial success. */
	for (i = 1; i < mnl_nlmsg_get_payload_len(nlh); i += 7) {
		int rc;

		r = rd_init(mnl_nlmsg_get_payload(nlh), i);
		rc = src_rdma_parse_stat(&r, out, 32, &got);
		assert_true(rc == -EBADMSG || rc == -ENODATA);
	}

	/* No counter table at all (device without hw stats). */
	nlh = rdma_stat_reply(names, vals, 0, false);
	r = rd_init(mnl_nlmsg_get_payload(nlh), 28);	/* index, name, port: no table */
	assert_int_equal(src_rdma_parse_stat(&r, out, 32, &got), -ENODATA);

	/* Malformed: an entry without its value. */
	nlh = mnl_nlmsg_put_header(buf);
	{
		struct nlattr *tab = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
		struct nlattr *ent = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);

		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "x");
		mnl_attr_nest_end(nlh, ent);
		mnl_attr_nest_end(nlh, tab);
	}
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_stat(&r, out, 32, &got), -EBADMSG);
}

static void test_rdma_dev_reply(void **state)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	char name[16];
	uint32_t idx;
	struct rd r;

	(void)state;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 5);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_FW_VERSION, "1.0");
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_dev(&r, &idx, name, sizeof(name)), 0);
	assert_int_equal(idx, 5);
	assert_string_equal(name, "rxe0");
	/* A name longer than the caller's buffer. */
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_dev(&r, &idx, name, 3), -ERANGE);
	/* Missing index. */
	nlh = mnl_nlmsg_put_header(buf);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_dev(&r, &idx, name, sizeof(name)), -EBADMSG);
	/* The index as a u16: too short for its policy. */
	nlh = mnl_nlmsg_put_header(buf);
	mnl_attr_put_u16(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 5);
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_dev(&r, &idx, name, sizeof(name)), -EBADMSG);
}

/* --- rtnetlink RTM_GETSTATS -------------------------------------------------------- */

static void test_link_stats_reply(void **state)
{
	struct rtnl_link_stats64 st64 = { .rx_packets = 10, .tx_packets = 20, .rx_bytes = 1500,
					  .tx_bytes = 3000, .rx_dropped = 2 };
	struct src_link_stats out;
	struct if_stats_msg *ifsm;
	struct nlmsghdr *nlh;
	struct rd r;

	(void)state;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWSTATS;
	ifsm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifsm));
	ifsm->ifindex = 9;
	ifsm->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
	mnl_attr_put_u32(nlh, IFLA_STATS_LINK_XSTATS + 40, 1);	/* unknown */
	mnl_attr_put(nlh, IFLA_STATS_LINK_64, sizeof(st64), &st64);
	r = payload_of(nlh);
	assert_int_equal(src_link_parse_stats(&r, &out), 0);
	assert_int_equal(out.ifindex, 9);
	assert_true(out.have64);
	assert_int_equal(out.v[0], 10);
	assert_int_equal(out.v[2], 1500);
	assert_int_equal(out.v[3], 3000);
	assert_int_equal(out.v[6], 2);
	assert_true(out.nv >= 23);

	/* An older, shorter struct: only what is there. */
	nlh = mnl_nlmsg_put_header(buf);
	ifsm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifsm));
	ifsm->ifindex = 9;
	mnl_attr_put(nlh, IFLA_STATS_LINK_64, 8 * 4, &st64);
	r = payload_of(nlh);
	assert_int_equal(src_link_parse_stats(&r, &out), 0);
	assert_int_equal(out.nv, 4);

	/* Truncated inside struct if_stats_msg. */
	r = rd_init(mnl_nlmsg_get_payload(nlh), 6);
	assert_int_equal(src_link_parse_stats(&r, &out), -EBADMSG);
	/* Malformed: stats64 shorter than one counter. */
	nlh = mnl_nlmsg_put_header(buf);
	mnl_nlmsg_put_extra_header(nlh, sizeof(*ifsm));
	mnl_attr_put(nlh, IFLA_STATS_LINK_64, 4, &st64);
	r = payload_of(nlh);
	assert_int_equal(src_link_parse_stats(&r, &out), -EBADMSG);
}

/* --- PCI sysfs text ---------------------------------------------------------------- */

static void test_pci_text(void **state)
{
	static const char aer[] = "RxErr 0\nBadTLP 2\nBadDLLP 1\nTOTAL_ERR_COR 3\n";
	uint64_t v = 0;

	(void)state;
	assert_int_equal(src_pci_parse_aer(aer, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(src_pci_parse_aer("RxErr 0\n", &v), -ENOENT);
	assert_int_equal(src_pci_parse_aer("TOTAL_ERR_FATAL x\n", &v), -EINVAL);
	assert_int_equal(src_pci_parse_aer("", &v), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ethtool_sset),
		cmocka_unit_test(test_ethtool_strings_stats_mlx5),
		cmocka_unit_test(test_pause_reply),
		cmocka_unit_test(test_dcb_reply),
		cmocka_unit_test(test_rdma_stat_reply),
		cmocka_unit_test(test_rdma_dev_reply),
		cmocka_unit_test(test_link_stats_reply),
		cmocka_unit_test(test_pci_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
