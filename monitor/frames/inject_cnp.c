// SPDX-License-Identifier: GPL-2.0-or-later
/* inject_cnp.c: `pfclab inject cnp-on-ce`: a software notification point. It watches
 * RoCEv2 packets on an interface and answers each CE-marked one with a CNP to its
 * sender, at most one per --cnp-gap per QP, as a NIC's NP does (IBTA Annex A17.9,
 * DCQCN; mlx5 np_min_time_between_cnps).
 *
 *   RP (10.0.0.1, QP a) --- data to QP b, CE set on the way ---> NP (10.0.0.2, QP b)
 *   RP <--------------- CNP, BTH dest QP = a ------------------- NP (this mode)
 *
 * The CE packet names only the NP's QP (b). The RP's QP (a) is what the NP's own QP
 * context knows; from the wire it is learned as the dest QP of packets flowing back
 * from 10.0.0.2 to 10.0.0.1 (RC ACKs and reverse data carry it), or given with
 * --peer-qp. With several QPs between the same two addresses the last one seen wins.
 * --dst-mac sends the CNPs to another MAC than the CE packet's source: a wire or a
 * capture still carries them, the sender's IP stack drops them (for senders with no
 * reaction point, such as Soft-RoCE, which has no CNP handling).
 */
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "lib/out.h"
#include "lib/util.h"
#include "monitor/frames/craft.h"
#include "monitor/frames/decode.h"
#include "monitor/frames/inject.h"
#include "monitor/frames/tx.h"

#define SLOTS 4096

struct qp_slot {
	uint32_t src, dst; /* IPv4 pair, host order; src == dst == 0: empty */
	uint32_t qp;
	uint64_t last_cnp;
	bool used;
};

struct np_state {
	const struct inject_opts *o;
	struct frames_tx tx;
	struct qp_slot learned[SLOTS]; /* (src, dst) -> dest QP of src's packets to dst */
	struct qp_slot limit[SLOTS];   /* (cnp dst ip, qp) -> time of the last CNP */
	uint64_t seen, ce, sent, limited, unmapped, failed, not_ipv4;
};

static struct qp_slot *slot(struct qp_slot *tab, uint32_t a, uint32_t b)
{
	uint32_t h = (a * 2654435761u) ^ (b * 40503u + 0x9e3779b9u), i;

	for (i = 0; i < SLOTS; i++) {
		struct qp_slot *s = &tab[(h + i) & (SLOTS - 1)];

		if (!s->used) {
			s->used = true;
			s->src = a;
			s->dst = b;
			return s;
		}
		if (s->src == a && s->dst == b)
			return s;
	}
	return NULL; /* table full */
}

static uint32_t ip4(const uint8_t *a)
{
	return (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct np_state *np = (struct np_state *)user;
	struct frames_pkt pk;
	struct frames_roce ro;
	struct frames_l2 l2;
	struct qp_slot *s, *lim;
	uint8_t buf[128];
	const uint8_t *fp = buf;
	uint32_t src, dst, qp;
	uint64_t now;
	size_t len;

	if (frames_decode(FRAMES_LINK_EN10MB, bytes, h->caplen, h->len, &pk) != FRAMES_OK ||
	    !pk.has_bth)
		return;
	if (pk.ipver != 4) {
		np->not_ipv4++;
		return;
	}
	if (pk.kind == FRAMES_KIND_CNP)
		return;
	np->seen++;
	src = ip4(pk.ip_src);
	dst = ip4(pk.ip_dst);
	s = slot(np->learned, src, dst);
	if (s)
		s->qp = pk.bth_dqp;
	/* only packets arriving here are ours to answer */
	if (pk.ecn != FRAMES_ECN_CE || !memcmp(pk.src, np->tx.mac, 6))
		return;
	np->ce++;
	if (np->o->peer_qp >= 0) {
		qp = (uint32_t)np->o->peer_qp;
	} else {
		struct qp_slot *back = slot(np->learned, dst, src);

		if (!back || !back->qp) {
			np->unmapped++;
			return;
		}
		qp = back->qp;
	}
	/* the packet's arrival time, not when this process got to it: a late wakeup
	 * must not make two CE packets look closer than they were */
	now = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
	lim = slot(np->limit, src, qp);
	if (lim && lim->last_cnp && now - lim->last_cnp < np->o->cnp_gap_ns) {
		np->limited++;
		return;
	}
	memset(&l2, 0, sizeof(l2));
	memcpy(l2.src, pk.dst, 6);
	memcpy(l2.dst, np->o->have_dst_mac ? np->o->l2.dst : pk.src, 6);
	l2.vlan = pk.ntags ? (int)(pk.tci[pk.ntags - 1] & 0xfff) : -1;
	l2.pcp = pk.pcp;
	ro = (struct frames_roce){
		.src_ip = dst, .dst_ip = src, .sport = pk.sport, .dscp = np->o->cnp_dscp,
		.ecn = 1, /* ECT(1): a CNP is never sent CE */
		.opcode = FRAMES_BTH_OP_CNP, .pkey = pk.bth_pkey, .dqp = qp,
	};
	len = frames_craft_roce(buf, sizeof(buf), &l2, &ro);
	if (len && frames_tx_send(&np->tx, &fp, &len, 1) == 1) {
		np->sent++;
		if (lim)
			lim->last_cnp = now;
	} else {
		np->failed++;
	}
}

int inject_cnp_on_ce_run(const struct inject_opts *o)
{
	static struct np_state np;
	char errbuf[PCAP_ERRBUF_SIZE];
	struct bpf_program prog;
	uint64_t t0, deadline, now, look = 0;
	bool gone = false;
	pcap_t *pc;
	int rc;

	memset(&np, 0, sizeof(np));
	np.o = o;
	rc = frames_tx_open(&np.tx, o->ifname, !o->via_qdisc);
	if (rc) {
		pfc_errno(-rc, "%s: cannot open an AF_PACKET socket to send CNPs", o->ifname);
		return 1;
	}
	pc = pcap_create(o->ifname, errbuf);
	if (!pc) {
		pfc_err("%s: %s", o->ifname, errbuf);
		frames_tx_close(&np.tx);
		return 1;
	}
	pcap_set_snaplen(pc, 128);
	pcap_set_immediate_mode(pc, 1);
	pcap_set_buffer_size(pc, 16 << 20);
	pcap_set_timeout(pc, 50);
	pcap_set_tstamp_precision(pc, PCAP_TSTAMP_PRECISION_NANO); /* tv_usec holds ns */
	rc = pcap_activate(pc);
	if (rc < 0) {
		pfc_err("%s: cannot capture: %s", o->ifname, pcap_geterr(pc));
		goto fail;
	}
	if (pcap_compile(pc, &prog, "udp dst port 4791 or (vlan and udp dst port 4791)", 1,
			 PCAP_NETMASK_UNKNOWN) || pcap_setfilter(pc, &prog)) {
		pfc_err("%s: cannot set the RoCEv2 filter: %s", o->ifname, pcap_geterr(pc));
		goto fail;
	}
	pcap_freecode(&prog);
	/* non-blocking with poll(): Ctrl-C and --duration end the loop even when idle */
	if (pcap_setnonblock(pc, 1, errbuf) < 0) {
		pfc_err("%s: %s", o->ifname, errbuf);
		goto fail;
	}
	if (!o->quiet)
		fprintf(stderr, "pfclab inject: answering CE-marked RoCEv2 on %s with CNPs "
			"(gap %.1f us per QP); Ctrl-C stops\n", o->ifname,
			(double)o->cnp_gap_ns / 1e3);
	t0 = time_mono_ns();
	deadline = o->duration_ns ? t0 + o->duration_ns : UINT64_MAX;
	while (!inject_stop && (now = time_mono_ns()) < deadline &&
	       !(gone = out_stdout_gone_every(now, &look) != 0)) {
		struct pollfd pfd = { .fd = pcap_get_selectable_fd(pc), .events = POLLIN };

		poll(&pfd, 1, 50);
		rc = pcap_dispatch(pc, 256, on_packet, (u_char *)&np);
		if (rc == PCAP_ERROR) {
			pfc_err("%s: capture failed: %s", o->ifname, pcap_geterr(pc));
			goto fail;
		}
	}
	printf("cnp-on-ce %s: roce %" PRIu64 " ce %" PRIu64 " cnp_sent %" PRIu64
	       " rate_limited %" PRIu64 " unmapped %" PRIu64 " send_failed %" PRIu64 "\n",
	       o->ifname, np.seen, np.ce, np.sent, np.limited, np.unmapped, np.failed);
	fflush(stdout);
	pcap_close(pc);
	frames_tx_close(&np.tx);
	return gone ? 1 : 0;
fail:
	pcap_close(pc);
	frames_tx_close(&np.tx);
	return 1;
}
