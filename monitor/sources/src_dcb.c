// SPDX-License-Identifier: GPL-2.0-or-later
/* src_dcb.c: per-priority PFC frame counts and pfc_en through DCB netlink (RTM_GETDCB,
 * DCB_CMD_IEEE_GET -> DCB_ATTR_IEEE_PFC, struct ieee_pfc; IEEE 802.1Qbb): requests[p] are
 * PFC frames sent for priority p, indications[p] those received.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include "lib/nl.h"
#include "lib/util.h"
#include "monitor/sources/sources.h"

struct dcb_priv {
	struct nl_sock nl;
	struct src_dcb_pfc pfc;
};

int src_dcb_parse_ieee(struct rd *payload, struct src_dcb_pfc *out)
{
	static const struct nl_policy pol[DCB_ATTR_IEEE + 1] = {
		[DCB_ATTR_IFNAME] = { NL_T_STR, 0 },
		[DCB_ATTR_IEEE] = { NL_T_NEST, 0 },
	};
	static const struct nl_policy ipol[DCB_ATTR_IEEE_PFC + 1] = {
		[DCB_ATTR_IEEE_PFC] = { NL_T_BIN, sizeof(struct ieee_pfc) },
	};
	struct nl_attr tb[DCB_ATTR_IEEE + 1], itb[DCB_ATTR_IEEE_PFC + 1];
	struct rd r;
	int rc, p;

	memset(out, 0, sizeof(*out));
	if (!rd_skip(payload, sizeof(struct dcbmsg)))
		return -EBADMSG;
	rc = nl_attr_parse(payload, pol, DCB_ATTR_IEEE, tb);
	if (rc < 0)
		return rc;
	if (!tb[DCB_ATTR_IEEE].present)
		return 0;
	r = tb[DCB_ATTR_IEEE].val;
	rc = nl_attr_parse(&r, ipol, DCB_ATTR_IEEE_PFC, itb);
	if (rc < 0)
		return rc;
	if (!itb[DCB_ATTR_IEEE_PFC].present)
		return 0;
	r = itb[DCB_ATTR_IEEE_PFC].val;
	rd_skip(&r, offsetof(struct ieee_pfc, pfc_en));
	out->pfc_en = rd_u8(&r);
	r = itb[DCB_ATTR_IEEE_PFC].val;
	rd_skip(&r, offsetof(struct ieee_pfc, requests));
	for (p = 0; p < 8; p++)
		out->requests[p] = rd_h64(&r);
	r = itb[DCB_ATTR_IEEE_PFC].val;
	rd_skip(&r, offsetof(struct ieee_pfc, indications));
	for (p = 0; p < 8; p++)
		out->indications[p] = rd_h64(&r);
	if (!rd_ok(&r))
		return -EBADMSG;
	out->have_pfc = true;
	return 0;
}

static int dcb_cb(const struct nl_msg *m, void *arg)
{
	struct rd p = m->payload;

	if (m->type != RTM_GETDCB)
		return 0;
	return src_dcb_parse_ieee(&p, arg);
}

static int dcb_query(struct mon_src *s)
{
	struct dcb_priv *p = s->priv;
	struct nlmsghdr *nlh = nl_sock_req(&p->nl, RTM_GETDCB, 0);
	struct dcbmsg *d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));
	int rc;

	d->dcb_family = AF_UNSPEC;
	d->cmd = DCB_CMD_IEEE_GET;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, s->dev);
	memset(&p->pfc, 0, sizeof(p->pfc));
	rc = nl_sock_talk(&p->nl, nlh, dcb_cb, &p->pfc);
	if (!rc && !p->pfc.have_pfc)
		rc = -EOPNOTSUPP;	/* DCB without IEEE PFC (CEE-only or no ieee_getpfc) */
	if (rc && rc != -EOPNOTSUPP)
		snprintf(s->err, sizeof(s->err), "%s: RTM_GETDCB IEEE_GET: %s", s->dev,
			 strerror(-rc));
	return rc;
}

static void dcb_close(struct mon_src *s)
{
	struct dcb_priv *p = s->priv;

	if (p) {
		nl_sock_close(&p->nl);
		free(p);
	}
	s->priv = NULL;
	src_fields_free(s);
}

static int dcb_init(struct mon_src *s)
{
	struct dcb_priv *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	rc = nl_sock_open(&p->nl, NETLINK_ROUTE);
	if (rc) {
		snprintf(s->err, sizeof(s->err), "rtnetlink socket: %s", strerror(-rc));
		return rc;
	}
	return dcb_query(s);
}

static int dcb_discover(struct mon_src *s)
{
	char name[MON_NAME_MAX];
	int rc = src_fields_reserve(s, 17), prio;

	if (rc)
		return rc;
	src_field_set(&s->fields[0], "pfc_en", MON_GAUGE, 64, "");
	for (prio = 0; prio < 8; prio++) {
		snprintf(name, sizeof(name), "prio%d_requests", prio);
		src_field_set(&s->fields[1 + prio], name, MON_COUNTER, 64, "frames");
		snprintf(name, sizeof(name), "prio%d_indications", prio);
		src_field_set(&s->fields[9 + prio], name, MON_COUNTER, 64, "frames");
	}
	return 0;
}

static int dcb_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	struct dcb_priv *p = s->priv;
	int rc = dcb_query(s), prio;

	if (rc)
		return rc;
	vals[0] = p->pfc.pfc_en;
	valid[0] = 1;
	for (prio = 0; prio < 8; prio++) {
		vals[1 + prio] = p->pfc.requests[prio];
		vals[9 + prio] = p->pfc.indications[prio];
		valid[1 + prio] = valid[9 + prio] = 1;
	}
	return 0;
}

const struct mon_src_ops src_dcb_ops = {
	.name = "dcb",
	.what = "DCB IEEE PFC counters (RTM_GETDCB)",
	.init = dcb_init,
	.discover = dcb_discover,
	.sample = dcb_sample,
	.close = dcb_close,
	.last_error = src_last_error,
};
