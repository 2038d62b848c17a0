/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dcqcn_io.h: DCQCN on a port of `pfclab link` (--dcqcn): the notification point that
 * answers CE-marked RoCEv2 packets with CNPs and the reaction point that paces each QP
 * that receives CNPs, around Soft-RoCE, which has neither. The arithmetic is
 * lab/link/dcqcn.h; this file is its I/O:
 *
 *   receiver port IFACE (NP)                        sender port IFACE (RP)
 *   BUFDEV (the buffer, RED with ECN: CE past K)    egress: htb 9:, class 9:1 the wire,
 *     AF_PACKET, CE-marked RoCEv2 leaving it         9:2 -> prio 1: (the PFC bands), and
 *     -> the sending QP: learned from IFACE's        per QP with CNPs 9:(100+n) at rate RC
 *        own ACKs to it (their destination QP),      -> plug (100+n): (PFC blocks it too),
 *        paired by addresses and UDP port            a u32 filter at 9: by peer address
 *     -> CNP (BTH 0x81, BECN, DSCP cnp_dscp) ---->   and UDP source port; AF_PACKET: the
 *        at most one per min_time_between_cnps       CNPs arriving, rate changes over
 *        per QP, past the qdiscs                     rtnetlink (RTM_NEWTCLASS)
 *
 * The CNP carries the UDP source port of the packet it answers: the RP classifies the
 * QP's packets by it and the peer's address. Soft-RoCE holds a QP at 64 packets not yet
 * sent, so a class at rate RC paces the QP without a drop.
 */
#ifndef PFCLAB_LINK_DCQCN_IO_H
#define PFCLAB_LINK_DCQCN_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lab/link/dcqcn.h"
#include "lib/linkstat.h"
#include "lib/opt.h"
#include "lib/out.h"
#include "monitor/frames/tx.h"

#define DCQCN_QPS 4		/* QPs with a rate limiter per port (published as gauges) */

/* The options (`pfclab link --dcqcn` and NVIDIA's parameter names). */
struct dcqcn_conf {
	bool on;
	struct dcqcn_rp_cfg rp;
	uint64_t np_gap_ns;	/* min_time_between_cnps */
	uint32_t cnp_dscp;	/* cnp_dscp (48) */
	uint32_t cnp_prio;	/* cnp_802p_prio (6): recorded; the lab's frames are untagged */
	uint32_t threshold, min_dec_fac, g, initial_alpha, clamp;
};
extern struct dcqcn_conf dcqcn_conf;
int dcqcn_rate_fn(void *dst, const char *v, char *why, size_t len);

/* The options' entries for the link's table. */
#define DCQCN_LINK_OPTS							\
	OPT_HEADING("DCQCN (ECN congestion control; defaults scaled to --speed):"),	\
	{ "dcqcn", 0, OPT_FLAG, .dst = &dcqcn_conf.on,				\
	  .help = "notification point (CNPs for CE marks) and reaction point (a rate\n"	\
		  "limiter per QP that gets CNPs) on every port; the datapath needs the\n" \
		  "sender's wire as htb 9:1 with the PFC bands under 9:2 and the buffer\n" \
		  "marking CE (vlab: VLAB_LOSSLESS_DCQCN=1, VLAB_LOSSLESS_ECN=K)" },	\
	{ "min-time-between-cnps", 0, OPT_DUR, 0, 10000000000ull, &dcqcn_conf.np_gap_ns,	\
	  .arg = "DUR", .help = "NP: at most one CNP per QP this often (4us x 1000)" },	\
	{ "cnp-dscp", 0, OPT_U32, 0, 63, &dcqcn_conf.cnp_dscp, .arg = "N",		\
	  .help = "NP: DSCP of the CNPs (default 48)" },					\
	{ "cnp-802p-prio", 0, OPT_U32, 0, 7, &dcqcn_conf.cnp_prio, .arg = "P",	\
	  .help = "NP: priority of the CNPs (6; recorded: the frames are untagged)" },	\
	{ "rate-reduce-monitor-period", 0, OPT_DUR, 1, 10000000000ull,		\
	  &dcqcn_conf.rp.rrmp_ns, .arg = "DUR",						\
	  .help = "RP: at most one rate cut this often (4us x 1000)" },			\
	{ "dce-tcp-g", 0, OPT_U32, 0, 1023, &dcqcn_conf.g, .arg = "N",			\
	  .help = "RP: alpha gain in 1/1024: alpha = g alpha + (1 - g) [CNP] (1019)" },	\
	{ "dce-tcp-rtt", 0, OPT_DUR, 1, 10000000000ull, &dcqcn_conf.rp.alpha_ns,	\
	  .arg = "DUR", .help = "RP: alpha update period (1us x 1000)" },		\
	{ "initial-alpha-value", 0, OPT_U32, 0, 1023, &dcqcn_conf.initial_alpha,	\
	  .arg = "N", .help = "RP: alpha at the first CNP, in 1/1024 (1023)" },		\
	{ "rpg-time-reset", 0, OPT_DUR, 1, 100000000000ull,				\
	  &dcqcn_conf.rp.time_reset_ns, .arg = "DUR",					\
	  .help = "RP: rate increase timer (300us x 1000)" },				\
	{ "rpg-byte-reset", 0, OPT_SIZE, 0, 1ull << 32, &dcqcn_conf.rp.byte_reset,	\
	  .arg = "SIZE", .help = "RP: rate increase every SIZE bytes sent (32767 x\n"	\
				 "speed / 100M; 0: no byte counter)" },			\
	{ "rpg-threshold", 0, OPT_U32, 0, 1000, &dcqcn_conf.threshold, .arg = "N",	\
	  .help = "RP: fast recovery steps before additive increase (1)" },		\
	{ "rpg-ai-rate", 0, OPT_FN, .dst = &dcqcn_conf.rp.ai_bps, .fn = dcqcn_rate_fn,	\
	  .arg = "RATE", .help = "RP: additive increase (5Mbit x speed / 100G)" },	\
	{ "rpg-hai-rate", 0, OPT_FN, .dst = &dcqcn_conf.rp.hai_bps, .fn = dcqcn_rate_fn,	\
	  .arg = "RATE", .help = "RP: hyper increase (50Mbit x speed / 100G)" },	\
	{ "rpg-min-rate", 0, OPT_FN, .dst = &dcqcn_conf.rp.min_bps, .fn = dcqcn_rate_fn,	\
	  .arg = "RATE", .help = "RP: lowest rate (1Mbit x speed / 100G)" },		\
	{ "rpg-min-dec-fac", 0, OPT_U32, 0, 100, &dcqcn_conf.min_dec_fac, .arg = "PCT",	\
	  .help = "RP: a cut leaves at least PCT% of the rate (50)" },			\
	{ "clamp-tgt-rate", 0, OPT_U32, 0, 1, &dcqcn_conf.clamp, .arg = "0|1",		\
	  .help = "RP: 1: every cut sets the target rate (0)" },			\
	{ "rate-to-set-on-first-cnp", 0, OPT_FN, .dst = &dcqcn_conf.rp.first_bps,	\
	  .fn = dcqcn_rate_fn, .arg = "RATE",						\
	  .help = "RP: a QP's rate at its first CNP (0: --speed)" }

/* After opt_parse: the defaults (dcqcn_defaults at speed_bps) of every DCQCN option not
 * given. 0, or -EINVAL with a message in why. */
int dcqcn_conf_finish(const struct opt_cmd *cmd, uint64_t speed_bps, char *why, size_t len);

struct dcqcn_port;

/* DCQCN on port ifname, its buffer device bufdev, the PFC priority of RoCE prio; CNPs
 * leave through the link's AF_PACKET socket tx_fd (past the qdiscs) from mac. log: the
 * ground-truth log or NULL. 0 or -errno (message printed: set-up is main's business).
 */
int dcqcn_port_open(struct dcqcn_port **dp, const char *ifname, const char *bufdev,
		    unsigned prio, struct frames_tx *tx, FILE *log);
/* Remove the QPs' classes, filters and plugs and close the sockets; the counters stay
 * for dcqcn_port_report until dcqcn_port_free. */
void dcqcn_port_close(struct dcqcn_port *dp);
void dcqcn_port_free(struct dcqcn_port *dp);
/* The sockets to wait on (3). */
unsigned dcqcn_port_fds(const struct dcqcn_port *dp, int *fds);
/* Read what arrived on the sockets (CE marks, CNPs, ACKs to learn from). */
void dcqcn_port_input(struct dcqcn_port *dp, uint64_t now);
/* Every poll: the RPs' timers and byte counters, and their rates into the classes. */
void dcqcn_port_poll(struct dcqcn_port *dp, uint64_t now);
/* PFC on priority p began (block) or ended at the sender: the QPs' plugs follow the band. */
void dcqcn_port_pause(struct dcqcn_port *dp, unsigned p, bool block);
/* The counter page's entries and values, appended after the link's own. */
uint32_t dcqcn_stat_layout(struct linkstat_entry *e);
uint32_t dcqcn_stat_values(const struct dcqcn_port *dp, uint64_t *v);
/* The summary's fields. */
void dcqcn_port_report(const struct dcqcn_port *dp, struct out *o);
/* The parameters in force, as the mlx5 debugfs cc_params names (lib/hw/nicqos.h), in
 * dir/IFACE.dcqcn ("name value" lines), for a run's manifest. */
int dcqcn_params_write(const char *dir, const char *ifname, uint64_t speed_bps);
void dcqcn_params_remove(const char *dir, const char *ifname);

#endif
