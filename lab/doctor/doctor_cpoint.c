// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor_cpoint.c: checks for a host used as the software congestion point: the port
 * towards the receiver forwards (a forwarding bridge port, or routing on), a qdisc on it
 * marks ECN (RED, codel or fq_codel with ecn), and ECN-capable packets are marked there
 * rather than dropped (no RED harddrop).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "lab/doctor/doctor.h"
#include "lib/nl.h"
#include "monitor/sources/sources.h"

#define SEC "cpoint"

struct cp_dump {
	uint32_t ifindex;
	struct src_qdisc_stats q[16];
	size_t n;
};

static int cp_cb(const struct nl_msg *m, void *arg)
{
	struct cp_dump *d = arg;
	struct src_qdisc_stats q;
	struct rd r = m->payload;

	if (m->type != RTM_NEWQDISC || src_qdisc_parse(&r, &q) || q.ifindex != d->ifindex ||
	    d->n >= sizeof(d->q) / sizeof(d->q[0]))
		return 0;
	d->q[d->n++] = q;
	return 0;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	return 0;
}

static void check_forwarding(struct doctor_report *r, const char *dev)
{
	char path[256], v[64], br[256] = "";
	char item[48], fix[320];

	snprintf(item, sizeof(item), "%s forwards", dev);
	snprintf(path, sizeof(path), "/sys/class/net/%s/brport/state", dev);
	if (!read_line(path, v, sizeof(v))) {
		char link[256];
		ssize_t n;

		snprintf(path, sizeof(path), "/sys/class/net/%s/master", dev);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = 0;
			snprintf(br, sizeof(br), "%s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
		}
		/* br_private.h: BR_STATE_FORWARDING is 3 */
		snprintf(fix, sizeof(fix), "wait for STP to reach forwarding, or turn STP off on "
			 "the bridge (ip link set %.*s type bridge stp_state 0)", IFNAMSIZ - 1,
			 br[0] ? br : "BRIDGE");	/* an interface name: < IFNAMSIZ */
		if (!strcmp(v, "3"))
			doctor_add(r, SEC, item, DOCTOR_OK, "", "port of bridge %s, forwarding",
				   br[0] ? br : "?");
		else
			doctor_add(r, SEC, item, DOCTOR_FAIL, fix,
				   "port of bridge %s in STP state %s, not forwarding (3)",
				   br[0] ? br : "?", v);
		return;
	}
	snprintf(fix, sizeof(fix), "make it a bridge port (ip link set %s master BRIDGE) or "
		 "route (sysctl -w net.ipv4.ip_forward=1)", dev);
	if (!read_line("/proc/sys/net/ipv4/ip_forward", v, sizeof(v)) && !strcmp(v, "1"))
		doctor_add(r, SEC, item, DOCTOR_OK, "", "no bridge port; routed (ip_forward 1)");
	else
		doctor_add(r, SEC, item, DOCTOR_FAIL, fix,
			   "%s is no bridge port and IPv4 forwarding is off", dev);
}

/* The fix for a port without ECN marking, built on the qdiscs found there: a RED without
 * ECN is replaced where it sits (its parent and handle); else RED goes in at the root, the
 * one place that always exists, naming the configured root qdisc it would replace.
 */
static void ecn_fix(const struct cp_dump *d, const struct src_qdisc_stats *red_noecn,
		    const char *dev, char *fix, size_t len)
{
	static const char bottleneck[] = "pfclab run's bottleneck: block sets one up for each "
					 "point; by hand: ";
	const struct src_qdisc_stats *root = NULL;
	size_t i;

	if (red_noecn) {
		char at[32];

		if (red_noecn->parent == TC_H_ROOT)
			snprintf(at, sizeof(at), "root");
		else
			snprintf(at, sizeof(at), "parent %x:%x", red_noecn->parent >> 16,
				 red_noecn->parent & 0xffff);
		snprintf(fix, len, "%stc qdisc replace dev %s %s handle %x: red ... ecn",
			 bottleneck, dev, at, red_noecn->handle >> 16);
		return;
	}
	for (i = 0; i < d->n; i++)
		if (d->q[i].parent == TC_H_ROOT)
			root = &d->q[i];
	if (root && root->handle)	/* configured; the kernel's default has handle 0: */
		snprintf(fix, len, "%stc qdisc replace dev %s root handle 10: red ... ecn (in "
			 "place of %s %x:), or add it under a class of %s %x: ('tc class show "
			 "dev %s' lists them)", bottleneck, dev, root->kind, root->handle >> 16,
			 root->kind, root->handle >> 16, dev);
	else
		snprintf(fix, len, "%stc qdisc replace dev %s root handle 10: red ... ecn",
			 bottleneck, dev);
}

void doctor_check_cpoint(struct doctor_report *r, const char *dev)
{
	struct cp_dump d = { 0 };
	struct nl_sock nl;
	struct nlmsghdr *nlh;
	struct tcmsg *t;
	const struct src_qdisc_stats *mark = NULL, *red_noecn = NULL;
	char item[48], v[32], path[256], fix[320];
	size_t i;
	int rc;

	d.ifindex = if_nametoindex(dev);
	snprintf(item, sizeof(item), "%s", dev);
	if (!d.ifindex) {
		doctor_add(r, SEC, item, DOCTOR_FAIL, "give the port towards the receiver",
			   "no interface %s on this host", dev);
		return;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", dev);
	snprintf(fix, sizeof(fix), "ip link set %s up; check the cable", dev);
	if (!read_line(path, v, sizeof(v)) && strcmp(v, "up") && strcmp(v, "unknown"))
		doctor_add(r, SEC, item, DOCTOR_FAIL, fix, "%s is %s", dev, v);
	check_forwarding(r, dev);

	snprintf(item, sizeof(item), "%s ECN qdisc", dev);
	rc = nl_sock_open(&nl, NETLINK_ROUTE);
	if (!rc) {
		nlh = nl_sock_req(&nl, RTM_GETQDISC, NLM_F_DUMP);
		t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
		t->tcm_family = AF_UNSPEC;
		rc = nl_sock_talk(&nl, nlh, cp_cb, &d);
		nl_sock_close(&nl);
	}
	if (rc) {
		snprintf(fix, sizeof(fix), "check 'tc -s qdisc show dev %s'", dev);
		doctor_add(r, SEC, item, DOCTOR_WARN, fix, "RTM_GETQDISC dump failed: %s",
			   strerror(-rc));
		return;
	}
	for (i = 0; i < d.n; i++) {
		if (d.q[i].have_ecn && d.q[i].ecn && !mark)
			mark = &d.q[i];
		else if (!strcmp(d.q[i].kind, "red") && !d.q[i].ecn)
			red_noecn = &d.q[i];
	}
	if (!mark) {
		ecn_fix(&d, red_noecn, dev, fix, sizeof(fix));
		if (red_noecn)
			doctor_add(r, SEC, item, DOCTOR_FAIL, fix, "RED %x: on %s has ECN marking "
				   "off: it drops instead of marking", red_noecn->handle >> 16, dev);
		else
			doctor_add(r, SEC, item, DOCTOR_FAIL, fix, "no ECN-marking qdisc (RED, codel, "
				   "fq_codel with ecn) on %s", dev);
		return;
	}
	if (!strcmp(mark->kind, "red"))
		doctor_add(r, SEC, item, DOCTOR_OK, "", "red %x: min %u max %u limit %u B, ecn on",
			   mark->handle >> 16, mark->qth_min, mark->qth_max, mark->limit);
	else
		doctor_add(r, SEC, item, DOCTOR_OK, "", "%s %x: ecn on", mark->kind,
			   mark->handle >> 16);

	snprintf(item, sizeof(item), "%s ECN-capable packets", dev);
	if (!strcmp(mark->kind, "red") && (mark->red_flags & TC_RED_HARDDROP))
		doctor_add(r, SEC, item, DOCTOR_WARN, "recreate the RED qdisc without harddrop",
			   "RED harddrop: ECT packets above max are dropped, not marked");
	else if (mark->have_red || mark->have_codel)
		doctor_add(r, SEC, item, DOCTOR_OK, "",
			   "marked, not dropped: %u CE marks, %u packets sent so far", mark->marked,
			   (unsigned)mark->packets);
	else
		doctor_add(r, SEC, item, DOCTOR_INFO, "", "the qdisc reports no marking counters");
}
