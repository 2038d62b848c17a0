// SPDX-License-Identifier: GPL-2.0-or-later
/* inject_pfc.c: `pfclab inject pfc-on-backlog`: behaves like a switch port's PFC
 * logic. It polls the backlog of a device's root qdisc over rtnetlink and sends PFC
 * XOFF for the --prio priorities on -i when the backlog reaches --xoff-bytes, repeats
 * the XOFF every millisecond while the backlog stays above --xon-bytes (so the pause
 * does not lapse), and sends XON (time 0) once it falls to --xon-bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/out.h"
#include "lib/rd.h"
#include "lib/util.h"
#include "monitor/frames/craft.h"
#include "monitor/frames/inject.h"
#include "monitor/frames/tx.h"

#define REFRESH_NS 1000000ull

struct backlog_query {
	int ifindex;
	bool found;
	uint32_t backlog, qlen;
};

/* TCA_STATS2 nest: TCA_STATS_QUEUE holds struct gnet_stats_queue. */
static int stats2_cb(const struct nlattr *a, void *data)
{
	struct backlog_query *q = data;
	struct rd r;

	if (mnl_attr_get_type(a) != TCA_STATS_QUEUE)
		return MNL_CB_OK;
	r = rd_init(mnl_attr_get_payload(a), mnl_attr_get_payload_len(a));
	q->qlen = rd_h32(&r);
	q->backlog = rd_h32(&r);
	if (rd_ok(&r))
		q->found = true;
	return MNL_CB_OK;
}

static int qdisc_attr_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == TCA_STATS2 && mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
		mnl_attr_parse_nested(a, stats2_cb, data);
	return MNL_CB_OK;
}

static int qdisc_cb(const struct nlmsghdr *nlh, void *data)
{
	struct backlog_query *q = data;
	const struct tcmsg *tcm;

	if (nlh->nlmsg_type != RTM_NEWQDISC ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct tcmsg))
		return MNL_CB_OK;
	tcm = mnl_nlmsg_get_payload(nlh);
	/* the dump covers every device: keep the root qdisc of ours */
	if (tcm->tcm_ifindex != q->ifindex || tcm->tcm_parent != TC_H_ROOT)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*tcm), qdisc_attr_cb, q);
	return MNL_CB_OK;
}

static int backlog_read(struct mnl_socket *nl, struct backlog_query *q)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;
	unsigned seq = (unsigned)time_mono_ns(), port = mnl_socket_get_portid(nl);
	ssize_t n;
	int rc = MNL_CB_OK;

	nlh->nlmsg_type = RTM_GETQDISC;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = q->ifindex;
	q->found = false;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	while ((n = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
		rc = mnl_cb_run(buf, (size_t)n, seq, port, qdisc_cb, q);
		if (rc <= MNL_CB_STOP)
			break;
	}
	if (n < 0 || rc == MNL_CB_ERROR)
		return -errno ? -errno : -EIO;
	return q->found ? 0 : -ENOENT;
}

static int send_pfc(struct frames_tx *tx, const struct inject_opts *o, uint16_t quanta)
{
	uint8_t buf[96];
	const uint8_t *p = buf;
	uint16_t q[8];
	size_t len;
	int i;

	for (i = 0; i < 8; i++)
		q[i] = quanta;
	len = frames_craft_pfc(buf, sizeof(buf), &o->l2, o->prios, q);
	return len && frames_tx_send(tx, &p, &len, 1) == 1 ? 0 : -EIO;
}

int inject_pfc_on_backlog_run(const struct inject_opts *o)
{
	struct inject_opts oo = *o;
	struct backlog_query q = { 0 };
	struct mnl_socket *nl;
	struct frames_tx tx;
	uint64_t t0, deadline, next, last_xoff = 0, polls = 0, xoff = 0, xon = 0, errs = 0;
	uint64_t look = 0;
	uint32_t max_backlog = 0;
	bool paused = false, gone = false;
	int rc;

	q.ifindex = (int)if_nametoindex(o->qdisc_dev);
	if (!q.ifindex) {
		pfc_err("--qdisc-dev %s: no such device; see 'ip link'", o->qdisc_dev);
		return 1;
	}
	rc = frames_tx_open(&tx, o->ifname, !o->via_qdisc);
	if (rc) {
		pfc_errno(-rc, "%s: cannot open an AF_PACKET socket to send PFC", o->ifname);
		return 1;
	}
	if (!oo.have_src_mac)
		memcpy(oo.l2.src, tx.mac, 6);
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		pfc_errno(errno, "cannot open a route netlink socket");
		if (nl)
			mnl_socket_close(nl);
		frames_tx_close(&tx);
		return 1;
	}
	rc = backlog_read(nl, &q);
	if (rc) {
		pfc_errno(-rc, "%s: cannot read the root qdisc backlog", o->qdisc_dev);
		goto out;
	}
	if (!o->quiet)
		fprintf(stderr, "pfclab inject: PFC on %s (prio vector 0x%02x) from the backlog "
			"of %s: XOFF at %" PRIu64 " B, XON at %" PRIu64 " B; Ctrl-C stops\n",
			o->ifname, o->prios, o->qdisc_dev, o->xoff_bytes, o->xon_bytes);
	t0 = time_mono_ns();
	deadline = o->duration_ns ? t0 + o->duration_ns : UINT64_MAX;
	next = t0;
	while (!inject_stop) {
		uint64_t now = time_mono_ns();

		if (now >= deadline)
			break;
		gone = out_stdout_gone_every(now, &look) != 0;
		if (gone)
			break;	/* whoever started it has gone: XON below, then exit 1 */
		if (now < next) {
			/* a long --poll period is cut at the next look at standard output */
			struct timespec ts = ns_timespec(next < look ? next : look);

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			continue;
		}
		next += o->poll_ns;
		if (backlog_read(nl, &q)) {
			errs++;
			continue;
		}
		polls++;
		if (q.backlog > max_backlog)
			max_backlog = q.backlog;
		if (!paused && q.backlog >= o->xoff_bytes) {
			if (!send_pfc(&tx, &oo, o->quanta)) {
				paused = true;
				xoff++;
				last_xoff = now;
			}
		} else if (paused && q.backlog <= o->xon_bytes) {
			if (!send_pfc(&tx, &oo, 0)) {
				paused = false;
				xon++;
			}
		} else if (paused && now - last_xoff >= REFRESH_NS) {
			if (!send_pfc(&tx, &oo, o->quanta)) {
				xoff++;
				last_xoff = now;
			}
		}
	}
	if (paused && !send_pfc(&tx, &oo, 0))
		xon++; /* never leave the peer paused */
	printf("pfc-on-backlog %s: polls %" PRIu64 " max_backlog %" PRIu32 " xoff_sent %" PRIu64
	       " xon_sent %" PRIu64 " read_errors %" PRIu64 "\n", o->qdisc_dev, polls,
	       max_backlog, xoff, xon, errs);
	fflush(stdout);
out:
	mnl_socket_close(nl);
	frames_tx_close(&tx);
	return rc || gone ? 1 : 0;
}
