// SPDX-License-Identifier: GPL-2.0-or-later
/* src_ethtool_nl.c: 802.3x (global) PAUSE frame counters through ethtool netlink:
 * ETHTOOL_MSG_PAUSE_GET with ETHTOOL_FLAG_STATS (IEEE 802.3 Annex 31B).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "lib/nl.h"
#include "lib/util.h"
#include "monitor/sources/sources.h"

struct pause_priv {
	struct nl_sock nl;
	uint16_t family;
	struct src_pause_reply rep;
};

int src_ethtool_nl_parse_pause(struct rd *payload, struct src_pause_reply *out)
{
	static const struct nl_policy pol[ETHTOOL_A_PAUSE_STATS + 1] = {
		[ETHTOOL_A_PAUSE_HEADER] = { NL_T_NEST, 0 },
		[ETHTOOL_A_PAUSE_AUTONEG] = { NL_T_U8, 0 },
		[ETHTOOL_A_PAUSE_RX] = { NL_T_U8, 0 },
		[ETHTOOL_A_PAUSE_TX] = { NL_T_U8, 0 },
		[ETHTOOL_A_PAUSE_STATS] = { NL_T_NEST, 0 },
	};
	static const struct nl_policy spol[ETHTOOL_A_PAUSE_STAT_RX_FRAMES + 1] = {
		[ETHTOOL_A_PAUSE_STAT_TX_FRAMES] = { NL_T_U64, 0 },
		[ETHTOOL_A_PAUSE_STAT_RX_FRAMES] = { NL_T_U64, 0 },
	};
	struct nl_attr tb[ETHTOOL_A_PAUSE_STATS + 1], stb[ETHTOOL_A_PAUSE_STAT_RX_FRAMES + 1];
	struct rd r;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!rd_skip(payload, GENL_HDRLEN))
		return -EBADMSG;
	rc = nl_attr_parse(payload, pol, ETHTOOL_A_PAUSE_STATS, tb);
	if (rc < 0)
		return rc;
	if (tb[ETHTOOL_A_PAUSE_RX].present) {
		out->have_rx = true;
		out->rx = nl_attr_u8(&tb[ETHTOOL_A_PAUSE_RX]);
	}
	if (tb[ETHTOOL_A_PAUSE_TX].present) {
		out->have_tx = true;
		out->tx = nl_attr_u8(&tb[ETHTOOL_A_PAUSE_TX]);
	}
	if (!tb[ETHTOOL_A_PAUSE_STATS].present)
		return 0;
	r = tb[ETHTOOL_A_PAUSE_STATS].val;
	rc = nl_attr_parse(&r, spol, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, stb);
	if (rc < 0)
		return rc;
	/* The kernel leaves out a statistic the driver does not report. */
	if (stb[ETHTOOL_A_PAUSE_STAT_TX_FRAMES].present) {
		out->have_tx_frames = true;
		out->tx_frames = nl_attr_u64(&stb[ETHTOOL_A_PAUSE_STAT_TX_FRAMES]);
	}
	if (stb[ETHTOOL_A_PAUSE_STAT_RX_FRAMES].present) {
		out->have_rx_frames = true;
		out->rx_frames = nl_attr_u64(&stb[ETHTOOL_A_PAUSE_STAT_RX_FRAMES]);
	}
	return 0;
}

static int pause_cb(const struct nl_msg *m, void *arg)
{
	struct rd p = m->payload;

	return src_ethtool_nl_parse_pause(&p, arg);
}

static int pause_query(struct mon_src *s)
{
	struct pause_priv *p = s->priv;
	struct nlmsghdr *nlh = nl_sock_req(&p->nl, p->family, 0);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	struct nlattr *hdr;
	int rc;

	g->cmd = ETHTOOL_MSG_PAUSE_GET;
	g->version = ETHTOOL_GENL_VERSION;
	hdr = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_HEADER);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, s->dev);
	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_STATS);
	mnl_attr_nest_end(nlh, hdr);
	rc = nl_sock_talk(&p->nl, nlh, pause_cb, &p->rep);
	if (rc && rc != -EOPNOTSUPP)
		snprintf(s->err, sizeof(s->err), "%s: ETHTOOL_MSG_PAUSE_GET: %s", s->dev,
			 strerror(-rc));
	return rc;
}

static int pause_init(struct mon_src *s)
{
	struct pause_priv *p;
	int rc = src_nl_open(s, sizeof(*p), NETLINK_GENERIC, "generic netlink");

	if (rc)
		return rc;
	p = s->priv;
	rc = nl_genl_family(&p->nl, ETHTOOL_GENL_NAME, &p->family);
	if (rc == -ENOENT) {
		snprintf(s->err, sizeof(s->err), "kernel has no ethtool netlink (needs 5.6+)");
		return -EOPNOTSUPP;
	}
	if (rc) {
		snprintf(s->err, sizeof(s->err), "resolving genl family ethtool: %s",
			 strerror(-rc));
		return rc;
	}
	return pause_query(s);
}

static int pause_discover(struct mon_src *s)
{
	int rc = src_fields_reserve(s, 4);

	if (rc)
		return rc;
	src_field_set(&s->fields[0], "tx_frames", MON_COUNTER, 64, "frames");
	src_field_set(&s->fields[1], "rx_frames", MON_COUNTER, 64, "frames");
	src_field_set(&s->fields[2], "tx_enabled", MON_GAUGE, 64, "");
	src_field_set(&s->fields[3], "rx_enabled", MON_GAUGE, 64, "");
	return 0;
}

static int pause_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	struct pause_priv *p = s->priv;
	int rc = pause_query(s);

	if (rc)
		return rc;
	vals[0] = p->rep.tx_frames;
	valid[0] = p->rep.have_tx_frames;
	vals[1] = p->rep.rx_frames;
	valid[1] = p->rep.have_rx_frames;
	vals[2] = p->rep.tx;
	valid[2] = p->rep.have_tx;
	vals[3] = p->rep.rx;
	valid[3] = p->rep.have_rx;
	return 0;
}

const struct mon_src_ops src_ethtool_nl_ops = {
	.name = "pause",
	.what = "PAUSE statistics (ethtool netlink PAUSE_GET)",
	.init = pause_init,
	.discover = pause_discover,
	.sample = pause_sample,
	.close = src_nl_close,
	.last_error = src_last_error,
};
