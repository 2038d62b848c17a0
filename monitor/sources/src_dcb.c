// SPDX-License-Identifier: GPL-2.0-or-later
/* src_dcb.c: per-priority PFC frame counts and pfc_en through DCB netlink (lib/hw/dcb:
 * RTM_GETDCB IEEE_GET; IEEE 802.1Qbb): requests[p] are PFC frames sent for priority p,
 * indications[p] those received.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>

#include "lib/hw/dcb.h"
#include "lib/nl.h"
#include "lib/util.h"
#include "monitor/sources/sources.h"

struct dcb_priv {
	struct nl_sock nl;
	struct hw_dcb_pfc pfc;
};

static int dcb_query(struct mon_src *s)
{
	struct dcb_priv *p = s->priv;
	int rc = hw_dcb_pfc_get(&p->nl, s->dev, &p->pfc);

	if (rc && rc != -EOPNOTSUPP)
		snprintf(s->err, sizeof(s->err), "%s: RTM_GETDCB IEEE_GET: %s", s->dev,
			 strerror(-rc));
	return rc;
}

static int dcb_init(struct mon_src *s)
{
	int rc = src_nl_open(s, sizeof(struct dcb_priv), NETLINK_ROUTE, "rtnetlink");

	return rc ? rc : dcb_query(s);
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
	.close = src_nl_close,
	.last_error = src_last_error,
};
