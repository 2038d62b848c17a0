// SPDX-License-Identifier: GPL-2.0-or-later
/* src_link.c: 64-bit link statistics (bytes, packets, drops, errors) through rtnetlink
 * RTM_GETSTATS with only IFLA_STATS_LINK_64 requested, the cheapest rtnetlink route.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "lib/nl.h"
#include "lib/util.h"
#include "monitor/sources/sources.h"

/* struct rtnl_link_stats64 members in order (include/uapi/linux/if_link.h); a kernel
 * with a shorter struct leaves the tail invalid.
 */
static const char *const link_names[] = {
	"rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_errors", "tx_errors",
	"rx_dropped", "tx_dropped", "multicast", "collisions", "rx_length_errors",
	"rx_over_errors", "rx_crc_errors", "rx_frame_errors", "rx_fifo_errors",
	"rx_missed_errors", "tx_aborted_errors", "tx_carrier_errors", "tx_fifo_errors",
	"tx_heartbeat_errors", "tx_window_errors", "rx_compressed", "tx_compressed",
	"rx_nohandler",
};

struct link_priv {
	struct nl_sock nl;
	uint32_t ifindex;
	uint64_t ifindex_ns;	/* when the name was last checked to still name ifindex */
	struct src_link_stats st;
	/* The request never changes but for its sequence number: built once. */
	struct {
		struct nlmsghdr nlh;
		struct if_stats_msg ifsm;
	} req;
};

/* The kernel reads exactly the header and struct if_stats_msg: no padding between. */
_Static_assert(sizeof(((struct link_priv *)0)->req) ==
	       NLMSG_HDRLEN + sizeof(struct if_stats_msg), "RTM_GETSTATS request layout");

int src_link_parse_stats(struct rd *payload, struct src_link_stats *out)
{
	static const struct nl_policy pol[IFLA_STATS_LINK_64 + 1] = {
		[IFLA_STATS_LINK_64] = { NL_T_BIN, 8 },
	};
	struct nl_attr tb[IFLA_STATS_LINK_64 + 1];
	struct rd st;
	int rc;

	memset(out, 0, sizeof(*out));
	/* struct if_stats_msg: family, pad1, pad2 (u16), ifindex, filter_mask */
	rd_skip(payload, 4);
	out->ifindex = rd_h32(payload);
	rd_skip(payload, 4);
	if (!rd_ok(payload))
		return -EBADMSG;
	rc = nl_attr_parse(payload, pol, IFLA_STATS_LINK_64, tb);
	if (rc < 0)
		return rc;
	if (!tb[IFLA_STATS_LINK_64].present)
		return 0;
	st = tb[IFLA_STATS_LINK_64].val;
	while (out->nv < ARRAY_SIZE(out->v) && rd_left(&st) >= 8)
		out->v[out->nv++] = rd_h64(&st);
	out->have64 = true;
	return 0;
}

static int link_cb(const struct nl_msg *m, void *arg)
{
	struct rd p = m->payload;

	return src_link_parse_stats(&p, arg);
}

static int link_init(struct mon_src *s)
{
	struct link_priv *p;
	int rc = src_nl_open(s, sizeof(*p), NETLINK_ROUTE, "rtnetlink");

	if (rc)
		return rc;
	p = s->priv;
	p->ifindex = if_nametoindex(s->dev);
	if (!p->ifindex) {
		snprintf(s->err, sizeof(s->err), "interface %s: no such interface", s->dev);
		return -ENODEV;
	}
	p->req.nlh.nlmsg_len = sizeof(p->req);
	p->req.nlh.nlmsg_type = RTM_GETSTATS;
	p->req.nlh.nlmsg_flags = NLM_F_REQUEST;
	p->req.ifsm.family = AF_UNSPEC;
	p->req.ifsm.ifindex = p->ifindex;
	p->req.ifsm.filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
	return 0;
}

static int link_discover(struct mon_src *s)
{
	size_t i;
	int rc = src_fields_reserve(s, ARRAY_SIZE(link_names));

	if (rc)
		return rc;
	for (i = 0; i < ARRAY_SIZE(link_names); i++)
		src_field_set(&s->fields[i], link_names[i], MON_COUNTER, 64,
			      strstr(link_names[i], "bytes") ? "B" : "packets");
	return 0;
}

static int link_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	struct link_priv *p = s->priv;
	size_t i;
	int rc = src_ifindex_check(s, p->ifindex, &p->ifindex_ns);

	if (rc)
		return rc;
	p->req.nlh.nlmsg_seq = ++p->nl.seq;
	p->st.have64 = false;
	rc = nl_sock_talk_type(&p->nl, &p->req.nlh, RTM_NEWSTATS, link_cb, &p->st);
	if (rc) {
		snprintf(s->err, sizeof(s->err), "%s: RTM_GETSTATS: %s", s->dev,
			 rc == -ENODEV ? "interface gone" : strerror(-rc));
		return rc;
	}
	if (p->st.ifindex != p->ifindex)
		return -EBADMSG;
	for (i = 0; p->st.have64 && i < p->st.nv && i < s->nfields; i++) {
		vals[i] = p->st.v[i];
		valid[i] = 1;
	}
	return 0;
}

const struct mon_src_ops src_link_ops = {
	.name = "link",
	.what = "link statistics (rtnetlink)",
	.init = link_init,
	.discover = link_discover,
	.sample = link_sample,
	.close = src_nl_close,
	.last_error = src_last_error,
};
