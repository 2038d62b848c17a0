// SPDX-License-Identifier: GPL-2.0-or-later
/* dcb.c: the RTM_GETDCB IEEE_GET request and its bounds-checked reply parser. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include "lib/hw/dcb.h"

int hw_dcb_parse_ieee(struct rd *payload, struct hw_dcb_pfc *out)
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

	return hw_dcb_parse_ieee(&p, arg);
}

int hw_dcb_pfc_get(struct nl_sock *nl, const char *ifname, struct hw_dcb_pfc *out)
{
	struct nlmsghdr *nlh = nl_sock_req(nl, RTM_GETDCB, 0);
	struct dcbmsg *d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));
	int rc;

	d->dcb_family = AF_UNSPEC;
	d->cmd = DCB_CMD_IEEE_GET;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname);
	memset(out, 0, sizeof(*out));
	rc = nl_sock_talk_type(nl, nlh, RTM_GETDCB, dcb_cb, out);
	if (!rc && !out->have_pfc)
		rc = -EOPNOTSUPP;	/* DCB without IEEE PFC (CEE-only or no ieee_getpfc) */
	return rc;
}
