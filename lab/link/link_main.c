// SPDX-License-Identifier: GPL-2.0-or-later
/* link_main.c: `pfclab link`: runs the emulated lossless link of one or more ports. Per
 * port IFACE, the datapath is the kernel's (built by vlab_lossless in the lab, or by hand;
 * see --help), and this loop is the NICs' PFC logic:
 *
 *   IFACE egress: [wire at --speed] prio 1: (8 bands) - band p+1: plug (0x10+p): --> peer
 *   IFACE ingress: RoCEv2 (UDP 4791) --mirred--> BUFDEV: htb 1: rate R, bfifo 2: of B bytes
 *                                                --> back into IFACE's receive path
 *
 * Every --poll it reads the fill and drops of BUFDEV's bfifo (RTM_GETQDISC), steps the
 * buffer's state machine (lab/link/lossless.h) and sends the PFC frame it asks for on
 * IFACE, past the qdiscs (802.1Qbb: 01:80:c2:00:00:01, 0x8808, opcode 0x0101). PFC frames
 * arriving on IFACE (an AF_PACKET socket of EtherType 0x8808) step the pause state at the
 * kernel's receive time of each (SO_TIMESTAMPNS: the stamp a capture on IFACE gives the
 * same frame, not the later time this loop read it), which blocks or releases the plug
 * of each paused priority (sch_plug: block = TCQ_PLUG_BUFFER,
 * release = TCQ_PLUG_RELEASE_INDEFINITE); a pause's end is a timer here, as sch_plug has
 * none. Soft-RoCE stops posting a QP's packets with 64 held in the qdisc, so the RDMA
 * sender really stops rather than drops.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "lab/link/dcqcn_io.h"
#include "lab/link/link.h"
#include "lib/linkstat.h"
#include "lab/link/lossless.h"
#include "lib/nl.h"
#include "lib/opt.h"
#include "lib/out.h"
#include "lib/rd.h"
#include "lib/util.h"
#include "monitor/frames/craft.h"
#include "monitor/frames/review.h"
#include "monitor/frames/tx.h"
#include "monitor/sources/sources.h"

#define LINK_MAX_PORTS 4
#define PRIO_HANDLE 1u		/* IFACE's root prio qdisc 1: */
#define PLUG_HANDLE(p) (0x10u + (p))	/* plug of priority p's band */
#define BUF_HANDLE 2u		/* BUFDEV's bfifo 2: */

struct link_opts {
	uint64_t speed, buffer, headroom, xoff, xon, react_ns, poll_ns, refresh_ns, storm_ns;
	uint64_t duration_ns, publish_ns;
	uint32_t mtu, cable_m, quanta;
	uint8_t prios;
	bool lossy, json, quiet, no_rt;
	const char *log, *stats_dir;
};

struct port {
	char ifname[IFNAMSIZ], bufdev[IFNAMSIZ];
	int ifindex, bufindex;
	struct frames_tx tx;	/* PFC out, past the qdiscs */
	int rx_fd;		/* PFC in */
	struct link_buf buf;
	struct link_pause pause;
	struct frames_l2 l2;
	struct linkstat_writer ls;
	struct dcqcn_port *dc;	/* --dcqcn: NP and RP (lab/link/dcqcn_io.h) */
	uint64_t applied_ns[LINK_PRIOS];	/* when the plug was blocked */
	uint64_t band_bytes[LINK_PRIOS];	/* the band's bytes then */
	uint64_t held_ns[LINK_PRIOS];		/* plug blocked -> released, summed */
	uint64_t bytes_paused[LINK_PRIOS];	/* bytes the band sent while blocked */
	uint64_t prio0_at[LINK_PRIOS];		/* priority 0's band bytes at the block */
	bool prio0_ok[LINK_PRIOS];
	uint64_t prio0_bytes;	/* what priority 0's band sent during pauses, summed */
	uint64_t paused_logged_ns[LINK_PRIOS];	/* pause.p[p].paused_ns at the last end */
	uint64_t rx_unstamped;	/* PFC frames the kernel gave no receive time */
	uint64_t rx_dur_us[LINK_PRIOS];	/* rx_prio{p}_pause_duration last published */
	uint64_t late_max_ns, late_sum_ns, late_n;	/* expiry release after the due time */
	uint64_t polls, poll_errors, poll_ns_sum, plug_errors, tx_errors, rx_bad;
	uint64_t stall_late;	/* expiry releases late because the loop itself was */
	/* The buffer read empty between its first XOFF and its last XON: time the drain had
	 * nothing to drain while the senders were backlogged (a sender resuming late after
	 * an XON, a guest short of CPU), each gap between two readings counting at most
	 * EMPTY_GAP_NS (a stall of the whole guest stops the drain too: no emptiness).
	 */
	uint64_t last_poll_ns, empty_ns, empty_at_xon_ns, first_xoff_ns, last_xon_ns;
};
#define EMPTY_GAP_NS 10000000ull

static struct link_opts lo = {
	.speed = 100000000ull, .buffer = 256 * 1024, .mtu = 1500, .cable_m = 7,
	.quanta = 0xffff, .react_ns = 10000000, .poll_ns = 1000000, .storm_ns = 100000000,
	.publish_ns = 10000000, .prios = 1u << 3,
};
static volatile sig_atomic_t link_stop;
static struct nl_sock nl;
static FILE *link_log;
/* The loop's last wake-up came this much after it was due (an emulation stall: the VM or
 * the task not run); pauses ending then are marked, not counted as inexact.
 */
static uint64_t wake_late_ns;
static uint64_t stalls, stall_ns_max;
#define STALL_NS 1000000ull

static void on_signal(int sig)
{
	(void)sig;
	link_stop = 1;
}

/* SIGUSR1 turns PFC off on every port (lossy from then on; a pause asked for gets its
 * XON), SIGUSR2 on again: one link and one counter page across the points of an
 * experiment that compares the two (make demo's "PFC off" point).
 */
static volatile sig_atomic_t link_pfc_req;	/* 0: none, 1: off, 2: on */

static void on_pfc_signal(int sig)
{
	link_pfc_req = sig == SIGUSR1 ? 1 : 2;
}

/* --- netlink: the bfifo's fill, a plug's bytes, a plug's state ------------------------ */

struct qd_reply {
	bool found;
	struct src_qdisc_stats q;
};

static int qd_cb(const struct nl_msg *m, void *arg)
{
	struct qd_reply *r = arg;
	struct rd p = m->payload;

	if (src_qdisc_parse(&p, &r->q) == 0)
		r->found = true;
	return 0;
}

static int qdisc_get(int ifindex, uint32_t handle, struct src_qdisc_stats *out)
{
	/* a qdisc GET is answered through qdisc_notify: to the asker only with NLM_F_ECHO */
	struct nlmsghdr *nlh = nl_sock_req(&nl, RTM_GETQDISC, NLM_F_ECHO);
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	struct qd_reply r = { 0 };
	int rc;

	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_handle = handle << 16;
	rc = nl_sock_talk_type(&nl, nlh, RTM_NEWQDISC, qd_cb, &r);
	if (rc)
		return rc;
	if (!r.found)
		return -ENOENT;
	*out = r.q;
	return 0;
}

static int plug_set(int ifindex, unsigned prio, bool block)
{
	struct nlmsghdr *nlh = nl_sock_req(&nl, RTM_NEWQDISC, NLM_F_ACK);
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	struct tc_plug_qopt q = {
		.action = block ? TCQ_PLUG_BUFFER : TCQ_PLUG_RELEASE_INDEFINITE,
	};

	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_handle = PLUG_HANDLE(prio) << 16;
	tcm->tcm_parent = TC_H_MAKE(PRIO_HANDLE << 16, prio + 1);
	mnl_attr_put_strz(nlh, TCA_KIND, "plug");
	mnl_attr_put(nlh, TCA_OPTIONS, sizeof(q), &q);
	return nl_sock_talk(&nl, nlh, NULL, NULL);
}

/* --- the ground-truth log: one JSON line per event ---------------------------------- */

/* CLOCK_REALTIME less CLOCK_MONOTONIC now, from the tightest of a few readings of both:
 * a guest descheduled between two reads (milliseconds under QEMU TCG) would otherwise
 * put its stall into every time moved from one clock to the other.
 */
static void clock_pair(uint64_t *real, uint64_t *mono)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 4 && best > 20000; i++) {
		uint64_t m1 = time_mono_ns(), r = time_real_ns(), m2 = time_mono_ns();

		if (m2 - m1 < best) {
			best = m2 - m1;
			*real = r;
			*mono = m1 + (m2 - m1) / 2;
		}
	}
}

static void log_begin(struct out *o, const struct port *pt, const char *ev, uint64_t mono)
{
	uint64_t r, m;

	clock_pair(&r, &m);
	out_begin_stream(o, link_log, true);
	out_uint(o, "mono_ns", "%" PRIu64, mono);
	out_uint(o, "real_ns", "%" PRIu64, r - (m - mono));
	out_str(o, "port", "%s", pt->ifname);
	out_str(o, "event", "%s", ev);
}

static void log_frame(const struct port *pt, const char *ev, uint64_t mono, uint16_t quanta)
{
	struct out o;

	if (!link_log)
		return;
	log_begin(&o, pt, ev, mono);
	out_uint(&o, "prios", "%" PRIu64, lo.prios);
	out_uint(&o, "quanta", "%" PRIu64, quanta);
	out_uint(&o, "fill", "%" PRIu64, pt->buf.fill);
	out_end_lines(&o);
}

static void pfc_mode_apply(struct port *ports, size_t np, uint64_t now)
{
	const bool on = link_pfc_req == 2;
	size_t i;

	link_pfc_req = 0;
	for (i = 0; i < np; i++) {
		link_buf_set_pfc(&ports[i].buf, now, on);
		if (link_log) {
			struct out o;

			log_begin(&o, &ports[i], on ? "pfc_on" : "pfc_off", now);
			out_end_lines(&o);
		}
	}
}

/* --- receiver side: read the buffer, step, send ------------------------------------- */

static int send_pfc(struct port *pt, uint16_t quanta)
{
	uint16_t q[LINK_PRIOS];
	uint8_t frame[96];
	const uint8_t *f = frame;
	size_t len;
	unsigned p;

	for (p = 0; p < LINK_PRIOS; p++)
		q[p] = (lo.prios & (1u << p)) ? quanta : 0;
	len = frames_craft_pfc(frame, sizeof(frame), &pt->l2, lo.prios, q);
	return len && frames_tx_send(&pt->tx, &f, &len, 1) == 1 ? 0 : -EIO;
}

static void buf_poll(struct port *pt, uint64_t now)
{
	struct src_qdisc_stats q;
	uint64_t t0 = time_mono_ns(), prev_warn = pt->buf.c.storm_warning;
	uint64_t prev_err = pt->buf.c.storm_error;
	enum link_buf_act a;
	int rc = qdisc_get(pt->bufindex, BUF_HANDLE, &q);

	/* the reading's own time: the step and the episode it may begin share it */
	now = time_mono_ns();
	pt->poll_ns_sum += now - t0;
	if (rc || !q.have_queue) {
		pt->poll_errors++;
		return;
	}
	pt->polls++;
	if (pt->first_xoff_ns && pt->last_poll_ns && !q.backlog)
		pt->empty_ns += now - pt->last_poll_ns < EMPTY_GAP_NS ?
				now - pt->last_poll_ns : EMPTY_GAP_NS;
	pt->last_poll_ns = now;
	a = link_buf_step(&pt->buf, now, q.backlog, q.drops);
	if (a != LINK_BUF_NONE) {
		uint64_t t = time_mono_ns();

		if (send_pfc(pt, a == LINK_BUF_XOFF ? pt->buf.cfg.quanta : 0)) {
			pt->tx_errors++;
		} else {
			link_buf_sent(&pt->buf, now, a);
			if (a == LINK_BUF_XOFF && !pt->first_xoff_ns)
				pt->first_xoff_ns = now;
			if (a == LINK_BUF_XON) {
				pt->last_xon_ns = now;
				pt->empty_at_xon_ns = pt->empty_ns;
			}
			log_frame(pt, a == LINK_BUF_XOFF ? "xoff_sent" : "xon_sent", t,
				  a == LINK_BUF_XOFF ? pt->buf.cfg.quanta : 0);
		}
	}
	if (pt->dc)
		dcqcn_port_poll(pt->dc, now);
	if (link_log && pt->buf.c.storm_warning != prev_warn) {
		struct out o;

		log_begin(&o, pt, "storm_warning", now);
		out_uint(&o, "since_ns", "%" PRIu64, pt->buf.since_ns);
		out_end_lines(&o);
	}
	if (link_log && pt->buf.c.storm_error != prev_err) {
		struct out o;

		log_begin(&o, pt, "storm_error", now);
		out_uint(&o, "since_ns", "%" PRIu64, pt->buf.since_ns);
		out_uint(&o, "last_xoff_ns", "%" PRIu64, pt->buf.last_xoff_ns);
		out_end_lines(&o);
	}
}

/* --- sender side: pauses begin and end ----------------------------------------------- */

static uint64_t band_bytes(const struct port *pt, unsigned p, bool *ok)
{
	struct src_qdisc_stats q;

	*ok = qdisc_get(pt->ifindex, PLUG_HANDLE(p), &q) == 0 && q.have_basic;
	return *ok ? q.bytes : 0;
}

/* Whether priority 0's band is read beside a pause of p: it is not a PFC priority, so it
 * keeps flowing while p is paused, and what it sends meanwhile shows that.
 */
static bool prio0_beside(unsigned p)
{
	return p != 0 && !(lo.prios & 1u);
}

/* Blocks the plugs of `block` and releases those of `release` (a pause begun at the
 * frame received at rx_ns, ended by an XON received at rx_ns, by its timer due at due_ns,
 * or by the link stopping: `by`), logging each.
 */
static void pause_apply(struct port *pt, uint8_t block, uint8_t release, uint64_t due_ns,
			uint64_t rx_ns, const char *by)
{
	unsigned p;

	for (p = 0; p < LINK_PRIOS; p++) {
		uint8_t bit = (uint8_t)(1u << p);
		struct out o;
		bool ok;

		if (block & bit) {
			/* block, read the band's bytes, then take the time: the release mirrors
			 * it (read, release, time), so held_ns is not skewed by either read
			 */
			if (plug_set(pt->ifindex, p, true))
				pt->plug_errors++;
			if (pt->dc)
				dcqcn_port_pause(pt->dc, p, true);
			pt->band_bytes[p] = band_bytes(pt, p, &ok);
			pt->applied_ns[p] = time_mono_ns();
			/* after the time: the read delays neither the block nor the release */
			if (prio0_beside(p))
				pt->prio0_at[p] = band_bytes(pt, 0, &pt->prio0_ok[p]);
			if (link_log) {
				log_begin(&o, pt, "pause_applied", pt->applied_ns[p]);
				out_uint(&o, "prio", "%" PRIu64, p);
				out_uint(&o, "frame_ns", "%" PRIu64, rx_ns);
				out_uint(&o, "until_ns", "%" PRIu64, pt->pause.p[p].until_ns);
				out_end_lines(&o);
			}
		}
		if (release & bit) {
			uint64_t b = band_bytes(pt, p, &ok), t, moved, b0 = 0, moved0 = 0;
			uint64_t paused = pt->pause.p[p].paused_ns - pt->paused_logged_ns[p];
			bool ok0 = false;

			moved = ok && b >= pt->band_bytes[p] ? b - pt->band_bytes[p] : 0;
			if (plug_set(pt->ifindex, p, false))
				pt->plug_errors++;
			if (pt->dc)
				dcqcn_port_pause(pt->dc, p, false);
			t = time_mono_ns();
			if (prio0_beside(p) && pt->prio0_ok[p]) {
				b0 = band_bytes(pt, 0, &ok0);
				ok0 = ok0 && b0 >= pt->prio0_at[p];
				moved0 = ok0 ? b0 - pt->prio0_at[p] : 0;
				pt->prio0_bytes += moved0;
			}
			pt->paused_logged_ns[p] = pt->pause.p[p].paused_ns;
			pt->held_ns[p] += t - pt->applied_ns[p];
			pt->bytes_paused[p] += moved;
			if (due_ns && t > due_ns && wake_late_ns > STALL_NS) {
				pt->stall_late++;
			} else if (due_ns && t > due_ns) {
				uint64_t late = t - due_ns;

				pt->late_sum_ns += late;
				pt->late_n++;
				if (late > pt->late_max_ns)
					pt->late_max_ns = late;
			}
			if (link_log) {
				log_begin(&o, pt, "pause_ended", t);
				out_uint(&o, "prio", "%" PRIu64, p);
				out_str(&o, "by", "%s", by);
				/* 802.1Qbb's time: the first XOFF's arrival to the XON's, or
				 * to the timer's end; held_ns is the plug's */
				out_uint(&o, "paused_ns", "%" PRIu64, paused);
				out_uint(&o, "held_ns", "%" PRIu64, t - pt->applied_ns[p]);
				if (due_ns) {
					out_uint(&o, "late_ns", "%" PRIu64, t > due_ns ? t - due_ns : 0);
					out_bool(&o, "stall", NULL, wake_late_ns > STALL_NS);
				}
				else if (rx_ns)
					out_uint(&o, "frame_ns", "%" PRIu64, rx_ns);
				out_uint(&o, "bytes_while_paused", "%" PRIu64, moved);
				if (ok0)
					out_uint(&o, "prio0_bytes", "%" PRIu64, moved0);
				out_end_lines(&o);
			}
		}
	}
}

/* A received frame through the bounds-checked reader: 0 and the PFC fields, or -1
 * (not PFC, or too short: counted as bad only when it claimed to be PFC).
 */
static int pfc_parse(const uint8_t *b, size_t len, uint8_t *enable, uint16_t q[LINK_PRIOS])
{
	struct rd r = rd_init(b, len);
	uint8_t dst[6];
	uint16_t et, op;
	unsigned p;

	rd_bytes(&r, dst, 6);
	rd_skip(&r, 6);
	et = rd_be16(&r);
	while (rd_ok(&r) && (et == 0x8100 || et == 0x88a8)) {
		rd_skip(&r, 2);
		et = rd_be16(&r);
	}
	op = rd_be16(&r);
	if (!rd_ok(&r) || et != ETH_P_PAUSE || op != 0x0101 ||
	    memcmp(dst, frames_macctl_dst, 6))
		return -1;
	*enable = (uint8_t)rd_be16(&r);
	for (p = 0; p < LINK_PRIOS; p++)
		q[p] = rd_be16(&r);
	return rd_ok(&r) ? 0 : -1;
}

/* The pauses whose time ran out by `now` end, at their own time. */
static void pause_expire(struct port *pt, uint64_t now)
{
	uint64_t due[LINK_PRIOS];
	uint8_t release;
	unsigned p;

	if (link_pause_next(&pt->pause) > now)
		return;
	for (p = 0; p < LINK_PRIOS; p++)
		due[p] = pt->pause.p[p].until_ns;
	link_pause_expire(&pt->pause, now, &release);
	for (p = 0; p < LINK_PRIOS; p++)
		if (release & (1u << p))
			pause_apply(pt, 0, (uint8_t)(1u << p), due[p], 0, "expiry");
}

/* The kernel's receive time of the message (SCM_TIMESTAMPNS, CLOCK_REALTIME), 0 if none. */
static uint64_t rx_stamp(struct msghdr *mh)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		struct timespec ts;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS ||
		    c->cmsg_len < CMSG_LEN(sizeof(ts)))
			continue;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	return 0;
}

static void pfc_receive(struct port *pt)
{
	uint8_t b[256];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct timespec)) + 64];
	} ctl;
	struct iovec iov = { .iov_base = b, .iov_len = sizeof(b) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	for (;;) {
		uint64_t now, stamp, read_ns, real_c, mono_c;
		uint16_t q[LINK_PRIOS];
		uint8_t en, block, release;

		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		n = recvmsg(pt->rx_fd, &mh, MSG_DONTWAIT);
		if (n <= 0)
			break;
		/* the frame's time is the kernel's receive time, as a capture on this
		 * interface stamps it: the loop may read it a softirq and a wake-up later */
		read_ns = time_mono_ns();
		stamp = rx_stamp(&mh);
		clock_pair(&real_c, &mono_c);
		now = link_kernel_mono(stamp, real_c, mono_c);
		if (!stamp)
			pt->rx_unstamped++;
		if (pfc_parse(b, (size_t)n, &en, q)) {
			pt->rx_bad++;
			continue;
		}
		/* a pause whose time ran out before this frame came ended then: an XOFF
		 * after it begins a new pause, as a capture's review counts it */
		pause_expire(pt, now);
		link_pause_frame(&pt->pause, now, en, q, &block, &release);
		if (link_log && (en & pt->pause.honour)) {
			struct out o;
			unsigned p;

			for (p = 0; p < LINK_PRIOS; p++) {
				if (!(en & pt->pause.honour & (1u << p)))
					continue;
				log_begin(&o, pt, q[p] ? "xoff_received" : "xon_received", now);
				out_uint(&o, "prio", "%" PRIu64, p);
				out_uint(&o, "quanta", "%" PRIu64, q[p]);
				out_uint(&o, "read_ns", "%" PRIu64, read_ns);
				out_bool(&o, "kernel_stamp", NULL, stamp != 0);
				out_end_lines(&o);
			}
		}
		pause_apply(pt, block, release, 0, now, "xon");
	}
}

static void pause_timers(struct port *pt, uint64_t now)
{
	if (link_pause_next(&pt->pause) > now)
		return;
	/* a refresh that arrived before the pause ran out, not read yet, keeps it going */
	pfc_receive(pt);
	pause_expire(pt, now);
}


/* --- the counter page ---------------------------------------------------------------- */

enum { C_RX_PAUSE, C_RX_DUR, C_RX_TRANS, C_TX_PAUSE, C_TX_DUR, C_DISC, C_PAUSED_BYTES,
       C_PER_PRIO };

/* The one priority the buffer's drops are booked to: the lowest PFC priority. */
static unsigned buf_prio(void)
{
	unsigned p;

	for (p = 0; p < LINK_PRIOS; p++)
		if (lo.prios & (1u << p))
			return p;
	return 0;
}

static uint32_t stat_layout(struct linkstat_entry *e)
{
	static const struct { const char *dir, *what; uint8_t unit; } per[C_PER_PRIO] = {
		[C_RX_PAUSE] = { "rx", "_pause", LS_U_FRAMES },
		[C_RX_DUR] = { "rx", "_pause_duration", LS_U_US },
		[C_RX_TRANS] = { "rx", "_pause_transition", LS_U_EVENTS },
		[C_TX_PAUSE] = { "tx", "_pause", LS_U_FRAMES },
		[C_TX_DUR] = { "tx", "_pause_duration", LS_U_US },
		[C_DISC] = { "rx", "_discards", LS_U_PACKETS },
		[C_PAUSED_BYTES] = { "tx", "_bytes_while_paused", LS_U_B },
	};
	static const struct { const char *name; uint8_t kind, unit; } port[] = {
		{ "rx_discards_phy", 0, LS_U_PACKETS },
		{ "rx_buffer_passed_thres_phy", 0, LS_U_EVENTS },
		{ "tx_pause_storm_warning_events", 0, LS_U_EVENTS },
		{ "tx_pause_storm_error_events", 0, LS_U_EVENTS },
		{ "rx_buffer_fill", 1, LS_U_B },
		{ "rx_buffer_fill_max", 1, LS_U_B },
	};
	uint32_t n = 0, p, k;

	for (p = 0; p < LINK_PRIOS; p++) {
		if (!(lo.prios & (1u << p)))
			continue;
		for (k = 0; k < C_PER_PRIO; k++) {
			memset(&e[n], 0, sizeof(e[n]));
			snprintf(e[n].name, sizeof(e[n].name), "%s_prio%u%s", per[k].dir, p,
				 per[k].what);
			e[n++].unit = per[k].unit;
		}
	}
	for (k = 0; k < ARRAY_SIZE(port); k++) {
		memset(&e[n], 0, sizeof(e[n]));
		snprintf(e[n].name, sizeof(e[n].name), "%s", port[k].name);
		e[n].kind = port[k].kind;
		e[n++].unit = port[k].unit;
	}
	if (prio0_beside(buf_prio())) {
		/* what priority 0, no PFC priority, sent while the PFC priorities were paused */
		memset(&e[n], 0, sizeof(e[n]));
		snprintf(e[n].name, sizeof(e[n].name), "tx_prio0_bytes_during_pause");
		e[n++].unit = LS_U_B;
	}
	if (dcqcn_conf.on)
		n += dcqcn_stat_layout(&e[n]);
	return n;
}

static uint32_t stat_values(struct port *pt, uint64_t now, uint64_t *v)
{
	uint32_t n = 0;
	unsigned p;

	for (p = 0; p < LINK_PRIOS; p++) {
		const struct link_pause_prio *pp = &pt->pause.p[p];

		if (!(lo.prios & (1u << p)))
			continue;
		v[n + C_RX_PAUSE] = pp->frames;
		/* never below what was published: a frame stamped before `now` may still
		 * be on its way to the socket */
		v[n + C_RX_DUR] = link_pause_ns(&pt->pause, p, now) / 1000;
		if (v[n + C_RX_DUR] < pt->rx_dur_us[p])
			v[n + C_RX_DUR] = pt->rx_dur_us[p];
		pt->rx_dur_us[p] = v[n + C_RX_DUR];
		v[n + C_RX_TRANS] = pp->transitions;
		v[n + C_TX_PAUSE] = pt->buf.c.tx_pause;
		v[n + C_TX_DUR] = link_buf_pause_ns(&pt->buf, now) / 1000;
		v[n + C_DISC] = p == buf_prio() ? pt->buf.c.discards : 0;
		v[n + C_PAUSED_BYTES] = pt->bytes_paused[p];
		n += C_PER_PRIO;
	}
	v[n++] = pt->buf.c.discards;
	v[n++] = pt->buf.c.passed_thres;
	v[n++] = pt->buf.c.storm_warning;
	v[n++] = pt->buf.c.storm_error;
	v[n++] = pt->buf.fill;
	v[n++] = pt->buf.fill_max;
	if (prio0_beside(buf_prio()))
		v[n++] = pt->prio0_bytes;
	if (pt->dc)
		n += dcqcn_stat_values(pt->dc, &v[n]);
	return n;
}

static void publish(struct port *pt, uint64_t now)
{
	uint64_t v[LINKSTAT_MAX];

	/* an XON that came before `now` ends its pause before the pause is counted to now:
	 * a counter must never go back (the monitor would read a reset) */
	pfc_receive(pt);
	stat_values(pt, now, v);
	linkstat_update(&pt->ls, v, now);
}

/* --- set-up ---------------------------------------------------------------------------- */

static int rx_open(struct port *pt)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_PAUSE),
		.sll_ifindex = pt->ifindex,
	};
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, htons(ETH_P_PAUSE));
	int one = 1;

	if (fd < 0)
		return -errno;
	/* The kernel stamps each frame as it arrives (netif_rx, the stamp a capture
	 * on IFACE records too); without it a frame's time is when this loop read it,
	 * and the pauses' lengths would carry the wake-up's jitter. Refused: the read
	 * time, counted as rx_unstamped.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)))
		pfc_warn("%s: SO_TIMESTAMPNS refused (%s): pauses timed when read",
			 pt->ifname, strerror(errno));
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		int e = -errno;

		close(fd);
		return e;
	}
	pt->rx_fd = fd;
	return 0;
}

static int port_open(struct port *pt, const char *spec, const struct link_buf_cfg *cfg)
{
	const char *colon = strchr(spec, ':');
	size_t l = colon ? (size_t)(colon - spec) : strlen(spec);
	struct linkstat_entry e[LINKSTAT_MAX];
	char path[256];
	unsigned p;
	int rc;

	memset(pt, 0, sizeof(*pt));
	pt->rx_fd = -1;
	pt->tx.fd = -1;
	if (!l || l >= IFNAMSIZ) {
		pfc_err("port '%s': give IFACE or IFACE:BUFDEV", spec);
		return -EINVAL;
	}
	memcpy(pt->ifname, spec, l);
	if (colon)
		snprintf(pt->bufdev, sizeof(pt->bufdev), "%s", colon + 1);
	else
		snprintf(pt->bufdev, sizeof(pt->bufdev), "lb%s", pt->ifname);
	pt->ifindex = (int)if_nametoindex(pt->ifname);
	pt->bufindex = (int)if_nametoindex(pt->bufdev);
	if (!pt->ifindex || !pt->bufindex) {
		pfc_err("port %s: no such interface %s; build the datapath first (vlab_lossless "
			"on, or as --help shows)", pt->ifname,
			pt->ifindex ? pt->bufdev : pt->ifname);
		return -ENODEV;
	}
	rc = frames_tx_open(&pt->tx, pt->ifname, true);
	if (rc) {
		pfc_errno(-rc, "%s: cannot open an AF_PACKET socket to send PFC", pt->ifname);
		return rc;
	}
	rc = rx_open(pt);
	if (rc) {
		pfc_errno(-rc, "%s: cannot open an AF_PACKET socket for EtherType 0x8808",
			  pt->ifname);
		return rc;
	}
	memcpy(pt->l2.src, pt->tx.mac, 6);
	memcpy(pt->l2.dst, frames_macctl_dst, 6);
	pt->l2.vlan = -1;
	link_buf_init(&pt->buf, cfg);
	link_pause_init(&pt->pause, lo.prios, lo.speed);
	/* a new plug starts blocked: every band flows until a pause says otherwise */
	for (p = 0; p < LINK_PRIOS; p++) {
		rc = plug_set(pt->ifindex, p, false);
		if (rc) {
			pfc_errno(-rc, "%s: plug %x: of band 1:%u (priority %u)", pt->ifname,
				  PLUG_HANDLE(p), p + 1, p);
			return rc;
		}
	}
	if (dcqcn_conf.on) {
		rc = dcqcn_port_open(&pt->dc, pt->ifname, pt->bufdev, buf_prio(), &pt->tx, link_log);
		if (rc)
			return rc;
		rc = dcqcn_params_write(lo.stats_dir, pt->ifname, lo.speed);
		if (rc)
			pfc_warn("%s: DCQCN parameters not recorded: %s", pt->ifname, strerror(-rc));
	}
	rc = linkstat_path(lo.stats_dir, pt->ifname, path, sizeof(path));
	if (!rc)
		rc = linkstat_create(&pt->ls, path, e, stat_layout(e), time_mono_ns());
	if (rc) {
		pfc_errno(-rc, "%s: cannot publish counters at %s", pt->ifname, path);
		return rc;
	}
	return 0;
}

static void port_close(struct port *pt)
{
	uint8_t release;

	if (pt->ifindex && nl.mnl) {
		/* never leave the peer paused, nor our own bands blocked */
		if (pt->buf.asserted && !pt->buf.storm && pt->tx.fd >= 0 && !send_pfc(pt, 0)) {
			link_buf_sent(&pt->buf, time_mono_ns(), LINK_BUF_XON);
			log_frame(pt, "xon_sent", time_mono_ns(), 0);
		}
		link_pause_stop(&pt->pause, 0xff, time_mono_ns(), &release);
		pause_apply(pt, 0, release, 0, 0, "stop");
		publish(pt, time_mono_ns());
	}
	linkstat_remove(&pt->ls);
	if (pt->dc) {
		dcqcn_port_close(pt->dc);	/* its counters stay for the report */
		dcqcn_params_remove(lo.stats_dir, pt->ifname);
	}
	if (pt->rx_fd >= 0)
		close(pt->rx_fd);
	if (pt->tx.fd >= 0)
		frames_tx_close(&pt->tx);
}

/* --- the report ------------------------------------------------------------------------ */

static void report(struct port *ports, size_t n, uint64_t t0, uint64_t t1)
{
	struct out o;
	size_t i;

	for (i = 0; i < n; i++) {
		struct port *pt = &ports[i];
		unsigned p = buf_prio();
		const struct link_pause_prio *pp = &pt->pause.p[p];

		out_begin(&o, lo.json);
		out_str(&o, "port", "%s:", pt->ifname);
		out_str(&o, "buffer_dev", " buffer %s", pt->bufdev);
		out_double(&o, "seconds", " %.2f s", (double)(t1 - t0) / 1e9);
		out_uint(&o, "prio", " prio %" PRIu64, p);
		out_uint(&o, "xoff_sent", " xoff_sent %" PRIu64, pt->buf.c.tx_xoff);
		out_uint(&o, "xon_sent", " xon_sent %" PRIu64, pt->buf.c.tx_xon);
		out_uint(&o, "tx_pause_duration_us", " tx_pause_us %" PRIu64,
			 link_buf_pause_ns(&pt->buf, t1) / 1000);
		out_uint(&o, "discards", " discards %" PRIu64, pt->buf.c.discards);
		out_uint(&o, "fill_max", " fill_max %" PRIu64, pt->buf.fill_max);
		out_uint(&o, "starved_us", " starved_us %" PRIu64, pt->empty_at_xon_ns / 1000);
		out_uint(&o, "backlogged_us", " backlogged_us %" PRIu64,
			 pt->last_xon_ns > pt->first_xoff_ns ?
			 (pt->last_xon_ns - pt->first_xoff_ns) / 1000 : 0);
		out_uint(&o, "passed_thres", " passed_thres %" PRIu64, pt->buf.c.passed_thres);
		out_uint(&o, "storm_warning", " storm_warning %" PRIu64, pt->buf.c.storm_warning);
		out_uint(&o, "storm_error", " storm_error %" PRIu64, pt->buf.c.storm_error);
		out_uint(&o, "pfc_received", " pfc_received %" PRIu64, pp->frames);
		out_uint(&o, "pauses", " pauses %" PRIu64, pp->pauses);
		out_uint(&o, "ended_by_xon", " by_xon %" PRIu64, pp->by_xon);
		out_uint(&o, "ended_by_expiry", " by_expiry %" PRIu64, pp->by_expiry);
		out_uint(&o, "rx_pause_duration_us", " rx_pause_us %" PRIu64,
			 link_pause_ns(&pt->pause, p, t1) / 1000);
		out_uint(&o, "held_us", " held_us %" PRIu64, pt->held_ns[p] / 1000);
		out_uint(&o, "bytes_while_paused", " bytes_while_paused %" PRIu64,
			 pt->bytes_paused[p]);
		if (prio0_beside(p))
			out_uint(&o, "prio0_bytes_while_paused", " prio0_bytes_while_paused %" PRIu64,
				 pt->prio0_bytes);
		out_uint(&o, "late_max_us", " late_max_us %" PRIu64, pt->late_max_ns / 1000);
		out_uint(&o, "late_mean_us", " late_mean_us %" PRIu64,
			 pt->late_n ? pt->late_sum_ns / pt->late_n / 1000 : 0);
		out_uint(&o, "late_in_stall", " late_in_stall %" PRIu64, pt->stall_late);
		out_uint(&o, "stalls", " stalls %" PRIu64, stalls);
		out_uint(&o, "stall_max_us", " stall_max_us %" PRIu64, stall_ns_max / 1000);
		out_uint(&o, "polls", " polls %" PRIu64, pt->polls);
		out_uint(&o, "poll_errors", " poll_errors %" PRIu64, pt->poll_errors);
		out_uint(&o, "poll_mean_us", " poll_mean_us %" PRIu64,
			 pt->polls ? pt->poll_ns_sum / pt->polls / 1000 : 0);
		out_uint(&o, "plug_errors", " plug_errors %" PRIu64, pt->plug_errors);
		out_uint(&o, "tx_errors", " tx_errors %" PRIu64, pt->tx_errors);
		out_uint(&o, "rx_bad", " rx_bad %" PRIu64, pt->rx_bad);
		out_uint(&o, "rx_unstamped", " rx_unstamped %" PRIu64, pt->rx_unstamped);
		if (pt->dc)
			dcqcn_port_report(pt->dc, &o);
		out_end(&o);
	}
	fflush(stdout);
}

/* --- options --------------------------------------------------------------------------- */

static int speed_fn(void *dst, const char *v, char *why, size_t len)
{
	if (frames_speed_parse(v, dst) == 0)
		return 0;
	snprintf(why, len, "give a link speed such as 1G or 400M");
	return -1;
}

static int prios_fn(void *dst, const char *v, char *why, size_t len)
{
	uint8_t m = 0;
	const char *p = v;

	while (*p) {
		if (*p < '0' || *p > '7' || (p[1] && p[1] != ',')) {
			snprintf(why, len, "give priorities 0-7 separated by commas, e.g. 3 or 3,4");
			return -1;
		}
		m |= (uint8_t)(1u << (*p - '0'));
		p += p[1] ? 2 : 1;
	}
	if (!m) {
		snprintf(why, len, "give at least one priority");
		return -1;
	}
	*(uint8_t *)dst = m;
	return 0;
}

static const char link_usage[] =
	"Usage: pfclab link [OPTIONS] IFACE[:BUFDEV]...\n"
	"\n"
	"An emulated lossless link: each port IFACE gets a receive buffer of --buffer bytes\n"
	"drained at a set rate, sends PFC XOFF (IEEE 802.1Qbb) when its fill passes the XOFF\n"
	"threshold and XON below the XON threshold, and obeys the PFC frames it receives:\n"
	"an XOFF for priority p stops p's frames for quanta x 512 bit times at --speed,\n"
	"refreshed by further XOFFs, ended by XON; other priorities keep flowing.\n"
	"Thresholds as mlx5 (en/port_buffer.c): headroom = (301 + 2.16 x cable m) x Gb/s\n"
	"+ 2.72 x MTU bytes, plus --react at --speed; XOFF = buffer - headroom, XON = XOFF\n"
	"- MTU. Pause storm prevention: after --storm of XOFF the port stops sending pauses.\n"
	"\n"
	"The datapath is the kernel's and must exist first (vlab_lossless on builds it in\n"
	"the virtual lab); per port, with BUFDEV an ifb (default lbIFACE):\n"
	"  IFACE egress: the wire, a shaper at --speed (vlab: htb 9:), and under it\n"
	"    prio 1: bands 8, priomap 0 1 2 3 4 5 6 7 0 0 0 0 0 0 0 0; under\n"
	"    band 1:(p+1) a plug of handle (10+p): (hex); a filter sending RoCEv2 to the\n"
	"    band of its priority\n"
	"  IFACE ingress: RoCEv2 (UDP 4791) redirected (mirred) to BUFDEV\n"
	"  BUFDEV root: htb 1:, class 1:1 at the drain rate, bfifo 2: limit --buffer\n"
	"The buffer's fill and drops are read from bfifo 2: every --poll.\n"
	"\n"
	"Counters (mlx5 names and units) go to " LINKSTAT_DIR "/IFACE.stats, which\n"
	"'pfclab monitor -i IFACE' reads (source 'lossless'); --log writes every XOFF/XON\n"
	"sent and received and every pause applied and ended as JSON lines with\n"
	"CLOCK_MONOTONIC and CLOCK_REALTIME times; a received frame is timed by the\n"
	"kernel's receive stamp, as a capture of it is. SIGINT/SIGTERM or -D ends it:\n"
	"an XON for a pause in force, every plug released, then one summary line per port.\n"
	"SIGUSR1 turns PFC off (lossy from then on, a pause in force ended by its XON),\n"
	"SIGUSR2 on.\n"
	"\n"
	"Options:\n";

static const char link_tail[] =
	"\n"
	"Examples:\n"
	"  pfclab link --speed 100M --buffer 256K --log /tmp/link.jsonl va vb\n"
	"  pfclab link --lossy va vb              # no PFC: the full buffer drops\n"
	"  pfclab link --dcqcn --speed 50M va vb  # and DCQCN: CNPs for CE, a rate per QP\n"
	"\n"
	"Exit status: 0 success, 1 run-time failure, 2 usage error.\n";

int link_main(int argc, char **argv)
{
	static const struct opt opts[] = {
		OPT_HEADING("The link and its buffer:"),
		{ "speed", 0, OPT_FN, .dst = &lo.speed, .fn = speed_fn, .arg = "RATE",
		  .help = "emulated link speed, for quanta and headroom (default 100M,\n"
			  "about what Soft-RoCE moves under QEMU TCG)" },
		{ "buffer", 'B', OPT_SIZE, 4096, 1ull << 32, &lo.buffer, .arg = "SIZE",
		  .help = "receive buffer bytes (default 256K); BUFDEV's bfifo should hold as much" },
		{ "mtu", 0, OPT_U32, 68, 65535, &lo.mtu, .arg = "BYTES",
		  .help = "MTU for the thresholds (default 1500)" },
		{ "cable", 0, OPT_U32, 0, 100000, &lo.cable_m, .arg = "M",
		  .help = "cable length in metres (default 7, as mlx5)" },
		{ "react", 0, OPT_DUR, 0, 1000000000ull, &lo.react_ns, .arg = "DUR",
		  .help = "the emulation's reaction time in the headroom (default 10ms: the poll, the\n"
			  "PFC frame through a busy softirq, the peer's qdisc change)" },
		{ "headroom", 0, OPT_SIZE, 1, 1ull << 32, &lo.headroom, .arg = "SIZE",
		  .help = "override the computed headroom" },
		{ "xoff", 0, OPT_SIZE, 1, 1ull << 32, &lo.xoff, .arg = "SIZE",
		  .help = "override the XOFF threshold (fill above it: XOFF)" },
		{ "xon", 0, OPT_SIZE, 0, 1ull << 32, &lo.xon, .arg = "SIZE",
		  .help = "override the XON threshold (fill below it: XON)" },
		OPT_HEADING("PFC:"),
		{ "prio", 0, OPT_FN, .dst = &lo.prios, .fn = prios_fn, .arg = "LIST",
		  .help = "PFC-enabled priorities (default 3)" },
		{ "lossy", 0, OPT_FLAG, .dst = &lo.lossy,
		  .help = "PFC off: no pause frames; the full buffer drops (counted)" },
		{ "quanta", 0, OPT_U32, 1, 65535, &lo.quanta, .arg = "N",
		  .help = "pause time of an XOFF in quanta (default 65535)" },
		{ "refresh", 0, OPT_DUR, 1000, 10000000000ull, &lo.refresh_ns, .arg = "DUR",
		  .help = "resend XOFF this long after the last (default: half its time)" },
		{ "storm", 0, OPT_DUR, 0, 100000000000ull, &lo.storm_ns, .arg = "DUR",
		  .help = "pause storm timeout (default 100ms; 0: none); warning at 85%" },
		DCQCN_LINK_OPTS,
		OPT_HEADING("Running:"),
		{ "poll", 0, OPT_DUR, 100000, 1000000000ull, &lo.poll_ns, .arg = "DUR",
		  .help = "buffer reading period (default 1ms)" },
		{ "duration", 'D', OPT_DUR, 1, UINT64_MAX, &lo.duration_ns, .arg = "DUR",
		  .help = "stop after DUR (default: until SIGINT/SIGTERM)" },
		{ "log", 0, OPT_STR, .dst = &lo.log, .arg = "FILE",
		  .help = "ground-truth log, JSON lines" },
		{ "stats-dir", 0, OPT_STR, .dst = &lo.stats_dir, .arg = "DIR",
		  .help = "where the counter pages go (default " LINKSTAT_DIR ")" },
		{ "no-rt", 0, OPT_FLAG, .dst = &lo.no_rt,
		  .help = "stay a time-shared task (default: SCHED_FIFO 50, memory locked)" },
		{ "json", 'j', OPT_FLAG, .dst = &lo.json, .help = "summary as JSON lines" },
		{ "quiet", 'q', OPT_FLAG, .dst = &lo.quiet, .help = "no start-up line" },
		OPT_END
	};
	static const struct opt_cmd cmd = {
		.name = "link", .usage = link_usage, .tail = link_tail, .opts = opts,
	};
	struct port ports[LINK_MAX_PORTS];
	struct link_buf_cfg cfg = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t t0 = 0, deadline, next_poll, next_pub;
	size_t np = 0, i;
	int first = opt_parse(&cmd, argc, argv), rc = 1;

	if (first == OPT_HELP)
		return 0;
	if (first < 0)
		return 2;
	if (first >= argc || argc - first > LINK_MAX_PORTS) {
		pfc_err("give 1 to %d ports (IFACE or IFACE:BUFDEV); see --help", LINK_MAX_PORTS);
		return 2;
	}
	if (dcqcn_conf.on) {
		char why[200];

		if (dcqcn_conf_finish(&cmd, lo.speed, why, sizeof(why))) {
			pfc_err("%s", why);
			return 2;
		}
	}
	cfg.buffer = lo.buffer;
	cfg.mtu = lo.mtu;
	cfg.headroom = lo.headroom ? lo.headroom
				   : link_headroom(lo.speed, lo.cable_m, lo.mtu, lo.react_ns);
	cfg.xoff = lo.xoff;
	cfg.xon = lo.xon;
	cfg.pfc = !lo.lossy;
	cfg.prios = lo.prios;
	cfg.quanta = (uint16_t)lo.quanta;
	cfg.quanta_ns = link_quanta_ns(lo.quanta, lo.speed);
	cfg.refresh_ns = lo.refresh_ns ? lo.refresh_ns : cfg.quanta_ns / 2;
	cfg.storm_ns = lo.storm_ns;
	if (link_buf_config(&cfg)) {
		pfc_err("thresholds do not fit: buffer %" PRIu64 " B, headroom %" PRIu64
			" B, MTU %u, XOFF %" PRIu64 ", XON %" PRIu64 ", pause %" PRIu64
			" ns, refresh %" PRIu64 " ns; give a larger --buffer, or --headroom, "
			"--xoff/--xon, --refresh", cfg.buffer, cfg.headroom, cfg.mtu, cfg.xoff,
			cfg.xon, cfg.quanta_ns, cfg.refresh_ns);
		return 2;
	}
	if (lo.log) {
		link_log = fopen(lo.log, "we");
		if (!link_log) {
			pfc_errno(errno, "--log %s", lo.log);
			return 1;
		}
	}
	if (nl_sock_open(&nl, NETLINK_ROUTE)) {
		pfc_errno(errno, "cannot open a route netlink socket");
		goto out_log;
	}
	for (i = 0; i < (size_t)(argc - first); i++) {
		if (port_open(&ports[np], argv[first + (int)i], &cfg)) {
			port_close(&ports[np]);
			goto out;
		}
		np++;
	}
	/* A NIC's MAC answers in microseconds; a time-shared process can wait a whole
	 * scheduler slice behind busy-polling RDMA processes (3-8 ms measured under QEMU
	 * TCG), so the loop runs as a real-time task where it may.
	 */
	if (!lo.no_rt) {
		struct sched_param sp = { .sched_priority = 50 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			pfc_warn("SCHED_FIFO refused (%s): pauses may end late behind busy "
				 "processes; --no-rt silences this", strerror(errno));
		mlockall(MCL_CURRENT | MCL_FUTURE);
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_pfc_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!lo.quiet)
		fprintf(stderr, "pfclab link: %zu port%s, %s, speed %" PRIu64 " b/s, buffer %" PRIu64
			" B, headroom %" PRIu64 " B, XOFF above %" PRIu64 " B, XON below %" PRIu64
			" B, pause %" PRIu64 " us, refresh %" PRIu64 " us, storm %" PRIu64
			" ms%s; running\n", np, np == 1 ? "" : "s", cfg.pfc ? "PFC on" : "lossy",
			lo.speed, cfg.buffer, cfg.headroom, cfg.xoff, cfg.xon, cfg.quanta_ns / 1000,
			cfg.refresh_ns / 1000, cfg.storm_ns / 1000000,
			dcqcn_conf.on ? ", DCQCN on" : "");
	t0 = time_mono_ns();
	deadline = lo.duration_ns ? t0 + lo.duration_ns : UINT64_MAX;
	next_poll = next_pub = t0;
	while (!link_stop) {
		uint64_t now = time_mono_ns(), wake;
		struct pollfd pfd[LINK_MAX_PORTS * 4];
		unsigned nfd;
		struct timespec ts;

		if (now >= deadline)
			break;
		if (link_pfc_req)
			pfc_mode_apply(ports, np, now);
		for (i = 0; i < np; i++)
			pause_timers(&ports[i], now);
		if (now >= next_poll) {
			for (i = 0; i < np; i++)
				buf_poll(&ports[i], now);
			next_poll += lo.poll_ns;
			if (next_poll <= now)
				next_poll = now + lo.poll_ns;	/* late: no catching up */
		}
		if (now >= next_pub) {
			for (i = 0; i < np; i++)
				publish(&ports[i], now);
			next_pub = now + lo.publish_ns;
			if (link_log)
				fflush(link_log);
		}
		wake = next_poll < deadline ? next_poll : deadline;
		for (i = 0; i < np; i++) {
			uint64_t t = link_pause_next(&ports[i].pause);

			if (t < wake)
				wake = t;
			pfd[i] = (struct pollfd){ .fd = ports[i].rx_fd, .events = POLLIN };
		}
		nfd = (unsigned)np;
		for (i = 0; i < np; i++) {
			int fds[3];
			unsigned k, m = ports[i].dc ? dcqcn_port_fds(ports[i].dc, fds) : 0;

			for (k = 0; k < m; k++)
				pfd[nfd++] = (struct pollfd){ .fd = fds[k], .events = POLLIN };
		}
		now = time_mono_ns();
		ts = ns_timespec(wake > now ? wake - now : 0);
		if (ppoll(pfd, nfd, &ts, NULL) > 0) {
			wake_late_ns = 0;
			for (i = 0; i < np; i++)
				if (pfd[i].revents & POLLIN)
					pfc_receive(&ports[i]);
			for (i = 0; i < np; i++)
				if (ports[i].dc)
					dcqcn_port_input(ports[i].dc, time_mono_ns());
		} else {
			now = time_mono_ns();
			wake_late_ns = now > wake ? now - wake : 0;
			if (wake_late_ns > STALL_NS) {
				stalls++;
				if (wake_late_ns > stall_ns_max)
					stall_ns_max = wake_late_ns;
				if (link_log) {
					struct out o;

					log_begin(&o, &ports[0], "stall", now);
					out_uint(&o, "due_ns", "%" PRIu64, wake);
					out_end_lines(&o);
				}
			}
		}
	}
	rc = 0;
out:
	{
		uint64_t t1 = time_mono_ns();

		for (i = 0; i < np; i++)
			port_close(&ports[i]);
		if (np && (rc == 0))
			report(ports, np, t0, t1);
		for (i = 0; i < np; i++)
			dcqcn_port_free(ports[i].dc);
	}
	nl_sock_close(&nl);
out_log:
	if (link_log)
		fclose(link_log);
	return rc;
}
