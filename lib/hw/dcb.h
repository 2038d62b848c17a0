/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dcb.h: a network interface's IEEE 802.1Qbb PFC state through DCB netlink
 * (RTM_GETDCB, DCB_CMD_IEEE_GET -> DCB_ATTR_IEEE_PFC, struct ieee_pfc): the enabled
 * priorities and, per priority, PFC frames sent (requests) and received (indications).
 */
#ifndef PFCLAB_LIB_HW_DCB_H
#define PFCLAB_LIB_HW_DCB_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/nl.h"

struct hw_dcb_pfc {
	bool have_pfc;		/* the reply held DCB_ATTR_IEEE_PFC */
	uint8_t pfc_en;		/* bit p: PFC enabled on priority p */
	uint64_t requests[8];
	uint64_t indications[8];
};

/* Parse a DCB_CMD_IEEE_GET reply payload (struct dcbmsg + attributes); 0 (have_pfc
 * false when the reply has no PFC attribute), -EBADMSG when malformed.
 */
int hw_dcb_parse_ieee(struct rd *payload, struct hw_dcb_pfc *out);

/* Ask the kernel for ifname's PFC state on nl (a NETLINK_ROUTE socket). 0, the kernel's
 * -errno (-EOPNOTSUPP: the driver has no DCB, as veth and rxe's netdev), -EOPNOTSUPP as
 * well for DCB without IEEE PFC (CEE only), -EBADMSG for a malformed reply.
 */
int hw_dcb_pfc_get(struct nl_sock *nl, const char *ifname, struct hw_dcb_pfc *out);

#endif
