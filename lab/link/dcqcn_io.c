// SPDX-License-Identifier: GPL-2.0-or-later
/* dcqcn_io.c: the notification and reaction points of `pfclab link --dcqcn` on one port:
 * packet sockets for CE marks, ACKs and CNPs, CNPs sent, and the per-QP rate limiters in
 * the sender's qdiscs over rtnetlink (dcqcn_io.h draws the datapath).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "lab/link/dcqcn_io.h"
#include "lib/nl.h"
#include "lib/rd.h"
#include "lib/util.h"
#include "monitor/frames/craft.h"
#include "monitor/frames/decode.h"
#include "monitor/frames/review.h"
#include "monitor/sources/sources.h"

#define WIRE_HTB 9u		/* the sender's root htb 9: */
#define WIRE_CLASS 1u		/* 9:1, the wire */
#define QP_CLASS(n) (0x100u + (n))	/* 9:(100+n) and its plug (100+n): (hex) */
#define QP_FILTER_PRIO 2u	/* the RP's u32 filters at 9: */
#define QP_BURST 16384u		/* bytes: under QEMU TCG htb's timers fire late, and a
				 * smaller bucket loses the tokens of the late time */

struct dcqcn_conf dcqcn_conf = { .cnp_dscp = 48, .cnp_prio = 6 };

struct dcqcn_port;

struct rp_qp {
	struct dcqcn_port *dp;
	bool used, class_ok, plug_blocked;
	uint32_t qpn;			/* the CNPs' destination QP: ours */
	uint32_t peer_ip;		/* host order */
	uint16_t sport;			/* the QP's UDP source port */
	struct dcqcn_rp rp;
	uint64_t set_bps;		/* the class's rate now */
	uint64_t bytes;			/* the plug's bytes, last reading */
};

struct dcqcn_port {
	char ifname[IFNAMSIZ], bufdev[IFNAMSIZ];
	int ifindex, bufindex;
	unsigned prio;
	int cnp_fd, ce_fd, learn_fd;
	struct frames_tx *tx;
	FILE *log;
	bool paused;
	struct dcqcn_np np;
	struct rp_qp qp[DCQCN_QPS];
	/* counters, mlx5's names where mlx5 has them */
	uint64_t np_ecn_marked, np_cnp_sent, np_unpaired, np_paced, np_tx_errors;
	uint64_t rp_cnp_handled, rp_cnp_ignored, rp_rate_sets, rp_nl_errors;
	uint64_t learned, rx_bad;
	uint64_t cpu_ns, polls, pkts;	/* the NP's and RP's own CPU time, what it served */
	bool warned;
};

static struct nl_sock dnl;
static unsigned dnl_users;

/* --- options --------------------------------------------------------------------------- */

int dcqcn_rate_fn(void *dst, const char *v, char *why, size_t len)
{
	if (!strcmp(v, "0")) {
		*(uint64_t *)dst = 0;
		return 0;
	}
	if (frames_speed_parse(v, dst) == 0)
		return 0;
	snprintf(why, len, "give a rate such as 5k, 2.5kbit or 10M (bit/s), at least 1k");
	return -1;
}

int dcqcn_conf_finish(const struct opt_cmd *cmd, uint64_t speed_bps, char *why, size_t len)
{
	struct dcqcn_conf *c = &dcqcn_conf;
	struct dcqcn_rp_cfg d;
	uint64_t gap;

	dcqcn_defaults(speed_bps, &d, &gap);
#define DEF(name, field, val) do { if (!opt_given(cmd, name)) (field) = (val); } while (0)
	DEF("min-time-between-cnps", c->np_gap_ns, gap);
	DEF("rate-reduce-monitor-period", c->rp.rrmp_ns, d.rrmp_ns);
	DEF("dce-tcp-g", c->g, d.g);
	DEF("dce-tcp-rtt", c->rp.alpha_ns, d.alpha_ns);
	DEF("initial-alpha-value", c->initial_alpha, d.initial_alpha);
	DEF("rpg-time-reset", c->rp.time_reset_ns, d.time_reset_ns);
	DEF("rpg-byte-reset", c->rp.byte_reset, d.byte_reset);
	DEF("rpg-threshold", c->threshold, d.threshold);
	DEF("rpg-ai-rate", c->rp.ai_bps, d.ai_bps);
	DEF("rpg-hai-rate", c->rp.hai_bps, d.hai_bps);
	DEF("rpg-min-rate", c->rp.min_bps, d.min_bps);
	DEF("rpg-min-dec-fac", c->min_dec_fac, d.min_dec_fac);
	DEF("clamp-tgt-rate", c->clamp, d.clamp_tgt ? 1u : 0u);
	DEF("rate-to-set-on-first-cnp", c->rp.first_bps, d.first_bps);
#undef DEF
	c->rp.line_bps = speed_bps;
	c->rp.threshold = c->threshold;
	c->rp.min_dec_fac = c->min_dec_fac;
	c->rp.g = c->g;
	c->rp.initial_alpha = c->initial_alpha;
	c->rp.clamp_tgt = c->clamp != 0;
	if (dcqcn_rp_cfg_check(&c->rp)) {
		snprintf(why, len, "DCQCN parameters do not fit: --rpg-min-rate and "
			 "--rate-to-set-on-first-cnp at most --speed (%" PRIu64 " b/s)", speed_bps);
		return -EINVAL;
	}
	return 0;
}

/* --- rtnetlink: the QPs' classes, plugs and filters ------------------------------------ */

static void put_rate(struct tc_ratespec *r, uint64_t bps)
{
	uint64_t Bps = bps / 8 ? bps / 8 : 1;

	memset(r, 0, sizeof(*r));
	r->linklayer = TC_LINKLAYER_ETHERNET;	/* no rate table needed */
	r->rate = Bps > UINT32_MAX ? UINT32_MAX : (uint32_t)Bps;
}

/* htb class 9:(100+n) under 9:1 at bps (rate = ceil: the QP borrows nothing). */
static int class_set(int ifindex, unsigned n, uint64_t bps, bool create)
{
	struct nlmsghdr *nlh = nl_sock_req(&dnl, RTM_NEWTCLASS,
					   NLM_F_ACK | (create ? NLM_F_CREATE | NLM_F_EXCL : 0));
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	struct tc_htb_opt h = { 0 };
	uint64_t Bps = bps / 8 ? bps / 8 : 1, t;
	struct nlattr *nest;

	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_handle = TC_H_MAKE(WIRE_HTB << 16, QP_CLASS(n));
	tcm->tcm_parent = TC_H_MAKE(WIRE_HTB << 16, WIRE_CLASS);
	put_rate(&h.rate, bps);
	put_rate(&h.ceil, bps);
	/* bucket sizes are times at the rate, in psched ticks of 64 ns */
	t = (uint64_t)QP_BURST * 1000000000ull / Bps / 64;
	h.buffer = h.cbuffer = t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
	h.quantum = 1514;
	mnl_attr_put_strz(nlh, TCA_KIND, "htb");
	nest = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_HTB_PARMS, sizeof(h), &h);
	if (Bps > UINT32_MAX) {
		mnl_attr_put_u64(nlh, TCA_HTB_RATE64, Bps);
		mnl_attr_put_u64(nlh, TCA_HTB_CEIL64, Bps);
	}
	mnl_attr_nest_end(nlh, nest);
	return nl_sock_talk(&dnl, nlh, NULL, NULL);
}

static int class_del(int ifindex, unsigned n)
{
	struct nlmsghdr *nlh = nl_sock_req(&dnl, RTM_DELTCLASS, NLM_F_ACK);
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));

	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_handle = TC_H_MAKE(WIRE_HTB << 16, QP_CLASS(n));
	tcm->tcm_parent = TC_H_MAKE(WIRE_HTB << 16, WIRE_CLASS);
	return nl_sock_talk(&dnl, nlh, NULL, NULL);
}

/* The QP's plug under its class: added (a new plug holds everything) or blocked/released. */
static int plug(int ifindex, unsigned n, bool add, bool block)
{
	struct nlmsghdr *nlh = nl_sock_req(&dnl, RTM_NEWQDISC,
					   NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0));
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	struct tc_plug_qopt q = { .limit = 16000000 };

	if (!add)
		q.action = block ? TCQ_PLUG_BUFFER : TCQ_PLUG_RELEASE_INDEFINITE;
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_handle = QP_CLASS(n) << 16;
	tcm->tcm_parent = TC_H_MAKE(WIRE_HTB << 16, QP_CLASS(n));
	mnl_attr_put_strz(nlh, TCA_KIND, "plug");
	mnl_attr_put(nlh, TCA_OPTIONS, sizeof(q), &q);
	return nl_sock_talk(&dnl, nlh, NULL, NULL);
}

/* u32 at 9: prio 2: IPv4, UDP, to peer_ip, from sport to 4791 -> 9:(100+n). Offsets are
 * from the IP header, taken as 20 bytes (RoCEv2 sends no IP options). */
static int filter_add(int ifindex, unsigned n, uint32_t peer_ip, uint16_t sport)
{
	struct nlmsghdr *nlh = nl_sock_req(&dnl, RTM_NEWTFILTER, NLM_F_ACK | NLM_F_CREATE);
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	struct {
		struct tc_u32_sel sel;
		struct tc_u32_key keys[3];
	} s;
	struct nlattr *nest;

	memset(&s, 0, sizeof(s));
	s.sel.flags = TC_U32_TERMINAL;
	s.sel.nkeys = 3;
	s.keys[0] = (struct tc_u32_key){ .mask = htonl(0x00ff0000), .val = htonl(17u << 16),
					 .off = 8 };
	s.keys[1] = (struct tc_u32_key){ .mask = htonl(0xffffffff), .val = htonl(peer_ip),
					 .off = 16 };
	s.keys[2] = (struct tc_u32_key){ .mask = htonl(0xffffffff),
					 .val = htonl((uint32_t)sport << 16 | FRAMES_ROCEV2_PORT),
					 .off = 20 };
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = WIRE_HTB << 16;
	tcm->tcm_info = TC_H_MAKE(QP_FILTER_PRIO << 16, htons(ETH_P_IP));
	mnl_attr_put_strz(nlh, TCA_KIND, "u32");
	nest = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_U32_CLASSID, TC_H_MAKE(WIRE_HTB << 16, QP_CLASS(n)));
	mnl_attr_put(nlh, TCA_U32_SEL, sizeof(s), &s);
	mnl_attr_nest_end(nlh, nest);
	return nl_sock_talk(&dnl, nlh, NULL, NULL);
}

static int filters_del(int ifindex)
{
	struct nlmsghdr *nlh = nl_sock_req(&dnl, RTM_DELTFILTER, NLM_F_ACK);
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));

	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = WIRE_HTB << 16;
	tcm->tcm_info = TC_H_MAKE(QP_FILTER_PRIO << 16, htons(ETH_P_IP));
	return nl_sock_talk(&dnl, nlh, NULL, NULL);
}

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

/* Qdisc handle: of ifindex; with parent, only as that class's leaf (the kernel's answer
 * names the parent asked, not the qdisc's own: asking is the way to check it). */
static int qdisc_stats(int ifindex, uint32_t handle, uint32_t parent, struct src_qdisc_stats *q)
{
	struct nlmsghdr *nlh = nl_sock_req(&dnl, RTM_GETQDISC, NLM_F_ECHO);
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	struct qd_reply r = { 0 };
	int rc;

	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_handle = handle << 16;
	tcm->tcm_parent = parent;
	rc = nl_sock_talk_type(&dnl, nlh, RTM_NEWQDISC, qd_cb, &r);
	if (rc)
		return rc;
	if (!r.found)
		return -ENOENT;
	*q = r.q;
	return 0;
}

/* Bytes the QP's plug let through (what the QP sent past its limiter). */
static int plug_bytes(int ifindex, unsigned n, uint64_t *bytes)
{
	struct src_qdisc_stats q;
	int rc = qdisc_stats(ifindex, QP_CLASS(n), 0, &q);

	if (rc)
		return rc;
	if (!q.have_basic)
		return -ENOENT;
	*bytes = q.bytes;
	return 0;
}

/* --- the ground-truth log ---------------------------------------------------------------- */

static void log_begin(struct out *o, const struct dcqcn_port *dp, const char *ev, uint64_t mono)
{
	out_begin_stream(o, dp->log, true);
	out_uint(o, "mono_ns", "%" PRIu64, mono);
	out_uint(o, "real_ns", "%" PRIu64, time_real_ns() - (time_mono_ns() - mono));
	out_str(o, "port", "%s", dp->ifname);
	out_str(o, "event", "%s", ev);
}

static void rp_event(void *ctx, const struct dcqcn_rp_event *e)
{
	static const char *const names[] = {
		[DCQCN_EV_CNP] = "rp_cnp", [DCQCN_EV_CUT] = "rp_cut", [DCQCN_EV_ALPHA] = "rp_alpha",
		[DCQCN_EV_FR] = "rp_fast_recovery", [DCQCN_EV_AI] = "rp_additive",
		[DCQCN_EV_HAI] = "rp_hyper",
	};
	const struct rp_qp *q = ctx;
	const struct dcqcn_port *dp = q->dp;
	struct out o;

	/* alpha changes every dce_tcp_rtt: its value goes with every other event instead */
	if (!dp->log || e->ev == DCQCN_EV_ALPHA)
		return;
	log_begin(&o, dp, names[e->ev], e->at);
	out_uint(&o, "qpn", "%" PRIu64, q->qpn);
	if (e->ev == DCQCN_EV_FR || e->ev == DCQCN_EV_AI || e->ev == DCQCN_EV_HAI)
		out_str(&o, "by", "%s", e->by_bytes ? "bytes" : "timer");
	out_double(&o, "rc_bps", "%.0f", e->rc);
	out_double(&o, "rt_bps", "%.0f", e->rt);
	out_double(&o, "alpha", "%.6f", e->alpha);
	out_end_lines(&o);
}

/* --- packet sockets ------------------------------------------------------------------ */

enum sock_kind { SK_CNP, SK_CE, SK_LEARN };

/* Classic BPF: IPv4, not a fragment, UDP to 4791; then by kind: CNP (opcode 0x81,
 * arriving), CE (ECN 11, not a CNP, leaving the buffer device), LEARN (an ACK or read
 * response, opcodes 0x0d-0x12, leaving). */
static int sock_filter_attach(int fd, enum sock_kind k)
{
	enum { ACC = 0xfe, REJ = 0xff };
	struct sock_filter f[32];
	unsigned n = 0, i, acc, rej;
	struct sock_fprog prog;

#define I(code, jt, jf, k_) (f[n++] = (struct sock_filter){ (code), (jt), (jf), (k_) })
	I(BPF_LD | BPF_W | BPF_ABS, 0, 0, (uint32_t)(SKF_AD_OFF + SKF_AD_PKTTYPE));
	if (k == SK_CNP)
		I(BPF_JMP | BPF_JEQ | BPF_K, REJ, 0, PACKET_OUTGOING);
	else
		I(BPF_JMP | BPF_JEQ | BPF_K, 0, REJ, PACKET_OUTGOING);
	I(BPF_LD | BPF_H | BPF_ABS, 0, 0, 12);
	I(BPF_JMP | BPF_JEQ | BPF_K, 0, REJ, ETH_P_IP);
	I(BPF_LD | BPF_B | BPF_ABS, 0, 0, 23);
	I(BPF_JMP | BPF_JEQ | BPF_K, 0, REJ, 17);
	I(BPF_LD | BPF_H | BPF_ABS, 0, 0, 20);
	I(BPF_JMP | BPF_JSET | BPF_K, REJ, 0, 0x1fff);
	I(BPF_LDX | BPF_B | BPF_MSH, 0, 0, 14);
	I(BPF_LD | BPF_H | BPF_IND, 0, 0, 16);		/* UDP destination port */
	I(BPF_JMP | BPF_JEQ | BPF_K, 0, REJ, FRAMES_ROCEV2_PORT);
	I(BPF_LD | BPF_B | BPF_IND, 0, 0, 22);		/* BTH opcode */
	if (k == SK_CNP) {
		I(BPF_JMP | BPF_JEQ | BPF_K, ACC, REJ, FRAMES_BTH_OP_CNP);
	} else if (k == SK_CE) {
		I(BPF_JMP | BPF_JEQ | BPF_K, REJ, 0, FRAMES_BTH_OP_CNP);
		I(BPF_LD | BPF_B | BPF_ABS, 0, 0, 15);	/* IPv4 TOS */
		I(BPF_ALU | BPF_AND | BPF_K, 0, 0, 3);
		I(BPF_JMP | BPF_JEQ | BPF_K, ACC, REJ, 3);
	} else {
		I(BPF_JMP | BPF_JGE | BPF_K, 0, REJ, 0x0d);
		I(BPF_JMP | BPF_JGT | BPF_K, REJ, ACC, 0x12);
	}
	acc = n;
	I(BPF_RET | BPF_K, 0, 0, 256);
	rej = n;
	I(BPF_RET | BPF_K, 0, 0, 0);
#undef I
	for (i = 0; i < n; i++) {
		if (f[i].jt == ACC)
			f[i].jt = (uint8_t)(acc - i - 1);
		else if (f[i].jt == REJ)
			f[i].jt = (uint8_t)(rej - i - 1);
		if (f[i].jf == ACC)
			f[i].jf = (uint8_t)(acc - i - 1);
		else if (f[i].jf == REJ)
			f[i].jf = (uint8_t)(rej - i - 1);
	}
	prog = (struct sock_fprog){ .len = (unsigned short)n, .filter = f };
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ? -errno : 0;
}

static int sock_open(int ifindex, enum sock_kind k, int *out)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = ifindex,
	};
	/* ETH_P_ALL: taps see a packet before tc ingress redirects it to the buffer */
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), rc;

	if (fd < 0)
		return -errno;
	rc = sock_filter_attach(fd, k);
	if (!rc && bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		rc = -errno;
	if (rc) {
		close(fd);
		return rc;
	}
	*out = fd;
	return 0;
}

/* The fields of a RoCEv2 packet the NP and RP need, through the bounds-checked reader. */
struct roce_pkt {
	uint8_t src_mac[6];
	uint8_t ecn, opcode;
	uint32_t src_ip, dst_ip, dqpn;
	uint16_t sport;
};

static int roce_parse(const uint8_t *b, size_t len, struct roce_pkt *p)
{
	struct rd r = rd_init(b, len);
	uint8_t vihl, tos, proto;
	uint16_t et, dport;

	rd_skip(&r, 6);
	rd_bytes(&r, p->src_mac, 6);
	et = rd_be16(&r);
	vihl = rd_u8(&r);
	tos = rd_u8(&r);
	rd_skip(&r, 7);
	proto = rd_u8(&r);
	rd_skip(&r, 2);
	p->src_ip = rd_be32(&r);
	p->dst_ip = rd_be32(&r);
	if (!rd_ok(&r) || et != ETH_P_IP || (vihl >> 4) != 4 || (vihl & 0xf) < 5 || proto != 17)
		return -1;
	rd_skip(&r, ((size_t)(vihl & 0xf) - 5) * 4);
	p->sport = rd_be16(&r);
	dport = rd_be16(&r);
	rd_skip(&r, 4);
	p->opcode = rd_u8(&r);
	rd_skip(&r, 4);
	p->dqpn = rd_be24(&r);
	p->ecn = tos & 3;
	return rd_ok(&r) && dport == FRAMES_ROCEV2_PORT ? 0 : -1;
}

/* --- the notification point ---------------------------------------------------------- */

static void np_ce(struct dcqcn_port *dp, const struct roce_pkt *p, uint64_t now)
{
	struct dcqcn_np_peer *peer;
	struct frames_l2 l2 = { .vlan = -1 };
	struct frames_roce ro = { 0 };
	uint8_t frame[128];
	const uint8_t *f = frame;
	size_t len;
	struct out o;

	dp->np_ecn_marked++;
	peer = dcqcn_np_find(&dp->np, p->dst_ip, p->src_ip, p->sport);
	if (!peer) {
		dp->np_unpaired++;
		return;
	}
	if (!dcqcn_np_due(&dp->np, peer, now)) {
		dp->np_paced++;
		return;
	}
	memcpy(l2.src, dp->tx->mac, 6);
	memcpy(l2.dst, p->src_mac, 6);
	ro.src_ip = p->dst_ip;
	ro.dst_ip = p->src_ip;
	ro.sport = p->sport;
	ro.dscp = (uint8_t)dcqcn_conf.cnp_dscp;
	ro.ecn = 0;
	ro.opcode = FRAMES_BTH_OP_CNP;
	ro.pkey = 0xffff;
	ro.dqp = peer->remote_qpn;
	len = frames_craft_roce(frame, sizeof(frame), &l2, &ro);
	if (!len || frames_tx_send(dp->tx, &f, &len, 1) != 1) {
		dp->np_tx_errors++;
		return;
	}
	dcqcn_np_sent(peer, now);
	dp->np_cnp_sent++;
	if (dp->log) {
		log_begin(&o, dp, "np_cnp_sent", now);
		out_uint(&o, "qpn", "%" PRIu64, peer->remote_qpn);
		out_uint(&o, "marked_qpn", "%" PRIu64, p->dqpn);
		out_uint(&o, "sport", "%" PRIu64, p->sport);
		out_end_lines(&o);
	}
}

/* --- the reaction point -------------------------------------------------------------- */

static void rp_apply(struct dcqcn_port *dp, struct rp_qp *q)
{
	uint64_t bps = (uint64_t)(q->rp.rc + 0.5);

	if (!q->class_ok || bps == q->set_bps)
		return;
	if (class_set(dp->ifindex, (unsigned)(q - dp->qp), bps, false)) {
		dp->rp_nl_errors++;
		return;
	}
	q->set_bps = bps;
	dp->rp_rate_sets++;
}

static struct rp_qp *rp_qp_get(struct dcqcn_port *dp, const struct roce_pkt *p)
{
	unsigned n;
	struct rp_qp *q;
	int rc;

	for (n = 0; n < DCQCN_QPS; n++)
		if (dp->qp[n].used && dp->qp[n].qpn == p->dqpn)
			return &dp->qp[n];
	for (n = 0; n < DCQCN_QPS && dp->qp[n].used; n++)
		;
	if (n == DCQCN_QPS)
		return NULL;
	q = &dp->qp[n];
	memset(q, 0, sizeof(*q));
	q->dp = dp;
	q->used = true;
	q->qpn = p->dqpn;
	q->peer_ip = p->src_ip;
	q->sport = p->sport;
	dcqcn_rp_init(&q->rp, &dcqcn_conf.rp);
	q->rp.on_event = rp_event;
	q->rp.ctx = q;
	/* the class at line rate first; the plug as the band is now; then the filter */
	rc = class_set(dp->ifindex, n, dcqcn_conf.rp.line_bps, true);
	if (!rc)
		rc = plug(dp->ifindex, n, true, false);
	if (!rc)
		rc = plug(dp->ifindex, n, false, dp->paused);
	if (!rc)
		rc = filter_add(dp->ifindex, n, q->peer_ip, q->sport);
	if (rc) {
		dp->rp_nl_errors++;
		if (!dp->warned)
			pfc_warn("%s: no rate limiter for QP %u (%s): --dcqcn needs the wire as htb "
				 "class 9:1 with the PFC bands under 9:2 (VLAB_LOSSLESS_DCQCN=1)",
				 dp->ifname, q->qpn, strerror(-rc));
		dp->warned = true;
		return q;
	}
	q->class_ok = true;
	q->plug_blocked = dp->paused;
	q->set_bps = dcqcn_conf.rp.line_bps;
	return q;
}

static void rp_cnp(struct dcqcn_port *dp, const struct roce_pkt *p, uint64_t now)
{
	struct rp_qp *q = rp_qp_get(dp, p);

	if (!q) {
		dp->rp_cnp_ignored++;	/* no rate limiter left for another QP */
		return;
	}
	dp->rp_cnp_handled++;
	dcqcn_rp_cnp(&q->rp, now);
	rp_apply(dp, q);
}

/* --- the port -------------------------------------------------------------------------- */

void dcqcn_port_input(struct dcqcn_port *dp, uint64_t now)
{
	int fds[3] = { dp->cnp_fd, dp->ce_fd, dp->learn_fd };
	uint64_t c0 = time_thread_cpu_ns();
	uint8_t b[256];
	unsigned k, guard;

	for (k = 0; k < 3; k++) {
		ssize_t len;

		/* bounded, so that a flood on one socket cannot hold the loop */
		for (guard = 0; guard < 4096; guard++) {
			struct roce_pkt p;

			len = recv(fds[k], b, sizeof(b), MSG_DONTWAIT | MSG_TRUNC);
			if (len <= 0)
				break;
			dp->pkts++;
			if (roce_parse(b, (size_t)len < sizeof(b) ? (size_t)len : sizeof(b), &p)) {
				dp->rx_bad++;
				continue;
			}
			if (k == 0) {
				rp_cnp(dp, &p, time_mono_ns());
			} else if (k == 1) {
				np_ce(dp, &p, time_mono_ns());
			} else {
				dcqcn_np_learn(&dp->np, p.src_ip, p.dst_ip, p.sport, p.dqpn, now);
				dp->learned++;
			}
		}
	}
	dp->cpu_ns += time_thread_cpu_ns() - c0;
}

void dcqcn_port_poll(struct dcqcn_port *dp, uint64_t now)
{
	uint64_t c0 = time_thread_cpu_ns();
	unsigned n;

	for (n = 0; n < DCQCN_QPS; n++) {
		struct rp_qp *q = &dp->qp[n];
		uint64_t b;

		if (!q->used)
			continue;
		if (q->class_ok && !plug_bytes(dp->ifindex, n, &b))
			q->bytes = b;
		dcqcn_rp_advance(&q->rp, now, q->bytes);
		rp_apply(dp, q);
	}
	dp->polls++;
	dp->cpu_ns += time_thread_cpu_ns() - c0;
}

void dcqcn_port_pause(struct dcqcn_port *dp, unsigned p, bool block)
{
	unsigned n;

	if (p != dp->prio)
		return;
	dp->paused = block;
	for (n = 0; n < DCQCN_QPS; n++) {
		struct rp_qp *q = &dp->qp[n];

		if (!q->class_ok || q->plug_blocked == block)
			continue;
		if (plug(dp->ifindex, n, false, block))
			dp->rp_nl_errors++;
		else
			q->plug_blocked = block;
	}
}

unsigned dcqcn_port_fds(const struct dcqcn_port *dp, int *fds)
{
	fds[0] = dp->cnp_fd;
	fds[1] = dp->ce_fd;
	fds[2] = dp->learn_fd;
	return 3;
}

int dcqcn_port_open(struct dcqcn_port **out, const char *ifname, const char *bufdev,
		    unsigned prio, struct frames_tx *tx, FILE *log)
{
	struct dcqcn_port *dp = calloc(1, sizeof(*dp));
	unsigned n;
	int rc;

	*out = NULL;
	if (!dp)
		return -ENOMEM;
	dp->cnp_fd = dp->ce_fd = dp->learn_fd = -1;
	snprintf(dp->ifname, sizeof(dp->ifname), "%s", ifname);
	snprintf(dp->bufdev, sizeof(dp->bufdev), "%s", bufdev);
	dp->ifindex = (int)if_nametoindex(ifname);
	dp->bufindex = (int)if_nametoindex(bufdev);
	dp->prio = prio;
	dp->tx = tx;
	dp->log = log;
	dcqcn_np_init(&dp->np, dcqcn_conf.np_gap_ns);
	if (!dnl_users && nl_sock_open(&dnl, NETLINK_ROUTE)) {
		rc = -errno;
		pfc_errno(-rc, "%s: DCQCN: cannot open a route netlink socket", ifname);
		free(dp);
		return rc;
	}
	dnl_users++;
	*out = dp;
	rc = sock_open(dp->ifindex, SK_CNP, &dp->cnp_fd);
	if (!rc)
		rc = sock_open(dp->bufindex, SK_CE, &dp->ce_fd);
	if (!rc)
		rc = sock_open(dp->ifindex, SK_LEARN, &dp->learn_fd);
	if (rc) {
		pfc_errno(-rc, "%s: DCQCN: cannot open the packet sockets (on %s and %s)", ifname,
			  ifname, bufdev);
		return rc;
	}
	/* A class beside the bands needs the wire as an inner class: were the bands' prio
	 * the wire's own leaf, htb would destroy it (and every plug) to make room */
	{
		struct src_qdisc_stats q;

		rc = qdisc_stats(dp->ifindex, 1, TC_H_MAKE(WIRE_HTB << 16, 2), &q);
		if (rc) {
			pfc_err("%s: --dcqcn needs the PFC bands' prio 1: under htb class 9:2 of the "
				"wire 9:1 (%s); build the datapath with VLAB_LOSSLESS_DCQCN=1 (see "
				"pfclab link --help)", ifname, strerror(-rc));
			return rc;
		}
	}
	if (dp->log) {
		const struct dcqcn_rp_cfg *c = &dcqcn_conf.rp;
		struct out o;

		/* the parameters, so that the log can be replayed (tests/vlab/h_dcqcn.sh) */
		log_begin(&o, dp, "dcqcn_params", time_mono_ns());
		out_uint(&o, "line_bps", "%" PRIu64, c->line_bps);
		out_uint(&o, "min_bps", "%" PRIu64, c->min_bps);
		out_uint(&o, "ai_bps", "%" PRIu64, c->ai_bps);
		out_uint(&o, "hai_bps", "%" PRIu64, c->hai_bps);
		out_uint(&o, "first_bps", "%" PRIu64, c->first_bps);
		out_uint(&o, "time_reset_ns", "%" PRIu64, c->time_reset_ns);
		out_uint(&o, "byte_reset", "%" PRIu64, c->byte_reset);
		out_uint(&o, "threshold", "%" PRIu64, c->threshold);
		out_uint(&o, "min_dec_fac", "%" PRIu64, c->min_dec_fac);
		out_uint(&o, "g", "%" PRIu64, c->g);
		out_uint(&o, "alpha_ns", "%" PRIu64, c->alpha_ns);
		out_uint(&o, "initial_alpha", "%" PRIu64, c->initial_alpha);
		out_uint(&o, "rrmp_ns", "%" PRIu64, c->rrmp_ns);
		out_uint(&o, "clamp_tgt", "%" PRIu64, c->clamp_tgt);
		out_uint(&o, "np_gap_ns", "%" PRIu64, dcqcn_conf.np_gap_ns);
		out_end_lines(&o);
	}
	/* what an earlier run may have left: its filters, then its classes */
	filters_del(dp->ifindex);
	for (n = 0; n < DCQCN_QPS; n++)
		class_del(dp->ifindex, n);
	return 0;
}

void dcqcn_port_close(struct dcqcn_port *dp)
{
	unsigned n;

	if (!dp)
		return;
	if (dp->ifindex) {
		filters_del(dp->ifindex);
		for (n = 0; n < DCQCN_QPS; n++)
			if (dp->qp[n].used)
				class_del(dp->ifindex, n);
	}
	if (dp->cnp_fd >= 0)
		close(dp->cnp_fd);
	if (dp->ce_fd >= 0)
		close(dp->ce_fd);
	if (dp->learn_fd >= 0)
		close(dp->learn_fd);
	dp->cnp_fd = dp->ce_fd = dp->learn_fd = -1;
	dp->ifindex = 0;
	if (dnl_users && !--dnl_users)
		nl_sock_close(&dnl);
}

void dcqcn_port_free(struct dcqcn_port *dp)
{
	if (dp && dp->ifindex)
		dcqcn_port_close(dp);
	free(dp);
}

/* --- counters, summary, parameters ------------------------------------------------------ */

uint32_t dcqcn_stat_layout(struct linkstat_entry *e)
{
	static const char *const port[] = {
		"np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored",
	};
	uint32_t n = 0, k;

	for (k = 0; k < ARRAY_SIZE(port); k++) {
		memset(&e[n], 0, sizeof(e[n]));
		snprintf(e[n].name, sizeof(e[n].name), "%s", port[k]);
		e[n++].unit = LS_U_PACKETS;
	}
	for (k = 0; k < DCQCN_QPS; k++) {
		memset(&e[n], 0, 3 * sizeof(e[n]));
		snprintf(e[n].name, sizeof(e[n].name), "rp_qp%u_qpn", k);
		e[n++].kind = 1;
		snprintf(e[n].name, sizeof(e[n].name), "rp_qp%u_rate", k);
		e[n].kind = 1;
		e[n++].unit = LS_U_BPS;
		snprintf(e[n].name, sizeof(e[n].name), "rp_qp%u_alpha", k);
		e[n++].kind = 1;
	}
	return n;
}

uint32_t dcqcn_stat_values(const struct dcqcn_port *dp, uint64_t *v)
{
	uint32_t n = 0, k;

	v[n++] = dp->np_ecn_marked;
	v[n++] = dp->np_cnp_sent;
	v[n++] = dp->rp_cnp_handled;
	v[n++] = dp->rp_cnp_ignored;
	for (k = 0; k < DCQCN_QPS; k++) {
		const struct rp_qp *q = &dp->qp[k];

		/* a slot without a QP reads QP 0 (never an RC QP), rate and alpha 0 */
		v[n++] = q->used ? q->qpn : 0;
		v[n++] = q->used && q->rp.active ? (uint64_t)(q->rp.rc + 0.5) : 0;
		v[n++] = q->used && q->rp.active ? (uint64_t)(q->rp.alpha * 1024 + 0.5) : 0;
	}
	return n;
}

void dcqcn_port_report(const struct dcqcn_port *dp, struct out *o)
{
	uint64_t cuts = 0, fr = 0, ai = 0, hai = 0;
	unsigned n;

	for (n = 0; n < DCQCN_QPS; n++) {
		cuts += dp->qp[n].rp.cuts;
		fr += dp->qp[n].rp.fr;
		ai += dp->qp[n].rp.ai;
		hai += dp->qp[n].rp.hai;
	}
	out_uint(o, "np_ecn_marked", " np_ecn_marked %" PRIu64, dp->np_ecn_marked);
	out_uint(o, "np_cnp_sent", " np_cnp_sent %" PRIu64, dp->np_cnp_sent);
	out_uint(o, "np_unpaired", " np_unpaired %" PRIu64, dp->np_unpaired);
	out_uint(o, "np_paced", " np_paced %" PRIu64, dp->np_paced);
	out_uint(o, "np_learned", " np_learned %" PRIu64, dp->learned);
	out_uint(o, "rp_cnp_handled", " rp_cnp_handled %" PRIu64, dp->rp_cnp_handled);
	out_uint(o, "rp_cnp_ignored", " rp_cnp_ignored %" PRIu64, dp->rp_cnp_ignored);
	out_uint(o, "rp_cuts", " rp_cuts %" PRIu64, cuts);
	out_uint(o, "rp_fast_recovery", " rp_fr %" PRIu64, fr);
	out_uint(o, "rp_additive", " rp_ai %" PRIu64, ai);
	out_uint(o, "rp_hyper", " rp_hai %" PRIu64, hai);
	out_uint(o, "rp_rate_sets", " rp_rate_sets %" PRIu64, dp->rp_rate_sets);
	out_uint(o, "rp_nl_errors", " rp_nl_errors %" PRIu64, dp->rp_nl_errors);
	out_uint(o, "dcqcn_rx_bad", " dcqcn_rx_bad %" PRIu64, dp->rx_bad);
	/* what the NP and RP cost this task: packets read (CE, CNP, ACK), polls (the RPs'
	 * timers, byte counters and rate changes) */
	out_uint(o, "dcqcn_cpu_us", " dcqcn_cpu_us %" PRIu64, dp->cpu_ns / 1000);
	out_uint(o, "dcqcn_packets", " dcqcn_packets %" PRIu64, dp->pkts);
	out_uint(o, "dcqcn_polls", " dcqcn_polls %" PRIu64, dp->polls);
	for (n = 0; n < DCQCN_QPS; n++) {
		const struct rp_qp *q = &dp->qp[n];
		char key[32];

		if (!q->used)
			continue;
		snprintf(key, sizeof(key), "rp_qp%u_qpn", n);
		out_uint(o, key, " qp %" PRIu64, q->qpn);
		snprintf(key, sizeof(key), "rp_qp%u_rate_bps", n);
		out_uint(o, key, " rate %" PRIu64 " b/s", (uint64_t)(q->rp.rc + 0.5));
		snprintf(key, sizeof(key), "rp_qp%u_alpha", n);
		out_double(o, key, " alpha %.3f", q->rp.alpha);
	}
}

static int params_path(const char *dir, const char *ifname, char *buf, size_t size)
{
	char p[256];
	int rc = linkstat_path(dir, ifname, p, sizeof(p)), n;

	if (rc)
		return rc;
	p[strlen(p) - strlen(".stats")] = 0;
	n = snprintf(buf, size, "%s.dcqcn", p);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int dcqcn_params_write(const char *dir, const char *ifname, uint64_t speed_bps)
{
	const struct dcqcn_conf *c = &dcqcn_conf;
	char path[300], tmp[310];
	FILE *f;
	int rc = params_path(dir, ifname, path, sizeof(path));

	if (rc)
		return rc;
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	/* mlx5 debugfs cc_params names and units (us, Mb/s, bytes, 1/1024, %); the rates of
	 * a link scaled to Mb/s are below 1 Mb/s: the exact b/s beside them (_bps) */
	fprintf(f, "# pfclab link --dcqcn on %s: the DCQCN parameters in force\n", ifname);
	fprintf(f, "rp_time_reset %" PRIu64 "\n", c->rp.time_reset_ns / 1000);
	fprintf(f, "rp_byte_reset %" PRIu64 "\n", c->rp.byte_reset);
	fprintf(f, "rp_ai_rate %" PRIu64 "\n", c->rp.ai_bps / 1000000);
	fprintf(f, "rp_hai_rate %" PRIu64 "\n", c->rp.hai_bps / 1000000);
	fprintf(f, "rp_dce_tcp_g %u\n", c->rp.g);
	fprintf(f, "rp_dce_tcp_rtt %" PRIu64 "\n", c->rp.alpha_ns / 1000);
	fprintf(f, "rp_threshold %u\n", c->rp.threshold);
	fprintf(f, "rp_min_rate %" PRIu64 "\n", c->rp.min_bps / 1000000);
	fprintf(f, "rp_min_dec_fac %u\n", c->rp.min_dec_fac);
	fprintf(f, "rp_initial_alpha_value %u\n", c->rp.initial_alpha);
	fprintf(f, "rp_rate_reduce_monitor_period %" PRIu64 "\n", c->rp.rrmp_ns / 1000);
	fprintf(f, "rp_clamp_tgt_rate %u\n", c->rp.clamp_tgt ? 1 : 0);
	fprintf(f, "rp_rate_to_set_on_first_cnp %" PRIu64 "\n", c->rp.first_bps / 1000000);
	fprintf(f, "np_min_time_between_cnps %" PRIu64 "\n", c->np_gap_ns / 1000);
	fprintf(f, "np_cnp_dscp %u\n", c->cnp_dscp);
	fprintf(f, "np_cnp_prio_mode 0\n");	/* np_cnp_prio, not the marked packet's */
	fprintf(f, "np_cnp_prio %u\n", c->cnp_prio);
	fprintf(f, "rp_ai_rate_bps %" PRIu64 "\n", c->rp.ai_bps);
	fprintf(f, "rp_hai_rate_bps %" PRIu64 "\n", c->rp.hai_bps);
	fprintf(f, "rp_min_rate_bps %" PRIu64 "\n", c->rp.min_bps);
	fprintf(f, "rp_rate_to_set_on_first_cnp_bps %" PRIu64 "\n", c->rp.first_bps);
	fprintf(f, "link_speed_bps %" PRIu64 "\n", speed_bps);
	if (fclose(f) || rename(tmp, path)) {
		rc = -errno;
		unlink(tmp);
		return rc;
	}
	return 0;
}

void dcqcn_params_remove(const char *dir, const char *ifname)
{
	char path[300];

	if (!params_path(dir, ifname, path, sizeof(path)))
		unlink(path);
}
