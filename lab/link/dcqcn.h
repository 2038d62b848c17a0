/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dcqcn.h: the arithmetic of DCQCN's notification point (NP) and reaction point (RP) for
 * pfclab's emulated lossless link, with no I/O: a unit test drives them with made-up times,
 * CNPs and byte counts.
 *
 *   sender (RP)                    congestion point              receiver (NP)
 *   per QP: rate RC, target RT,    buffer fill > K:              CE-marked RoCEv2 packet:
 *   alpha; cuts on a CNP,  ----->  CE in the IP header  ------>  a CNP to the sending QP,
 *   recovers by timer and          (RED with ECN at the          at most one per
 *   byte counter          <-----------------------------------  min_time_between_cnps
 *                                  CNP (BTH opcode 0x81)
 *
 * The RP follows Zhu et al., "Congestion Control for Large-Scale RDMA Deployments"
 * (SIGCOMM 2015), with the parameter set and the alpha rule of NVIDIA's ConnectX
 * ("DCQCN CC Parameters"); where the two differ this file says which it follows:
 *
 * - Cut, on a CNP, at most once per rate_reduce_monitor_period (a CNP that comes sooner
 *   makes the cut due at the end of the period): RT = RC (only where the rate rose since
 *   the last cut, unless clamp_tgt_rate: then always; the first cut always), then
 *   RC = RC x (1 - alpha / 2), no lower than RC x rpg_min_dec_fac / 100 (NVIDIA: "the
 *   maximal ratio of rate decrease in a single event") nor rpg_min_rate. The timer, the
 *   byte counter and both stage counts restart.
 * - alpha, every dce_tcp_rtt from the first CNP (NVIDIA's rule; the paper updates it per
 *   CNP and decays it on a timer): alpha = g x alpha + (1 - g) if a CNP came in the period,
 *   else g x alpha, with g = dce_tcp_g / 1024. NVIDIA writes the gain two ways: as the
 *   weight of the old alpha (this reading) and as the weight of the new sample; with the
 *   default 1019 the first gives a new-sample weight of 5/1024 (~1/205), close to the
 *   paper's g = 1/256, the second 1019/1024, which would make alpha forget everything
 *   after one period: the first is the EWMA both sources describe.
 * - Increase, at each expiry of the timer (rpg_time_reset) or of the byte counter (every
 *   rpg_byte_reset bytes the QP sent; 0: none), after counting it (T, B): with F =
 *   rpg_threshold, fast recovery while max(T, B) <= F (RC = (RT + RC) / 2), hyper
 *   increase once min(T, B) > F (RT += rpg_hai_rate), additive increase between
 *   (RT += rpg_ai_rate), then RC = (RT + RC) / 2; neither above the line rate.
 * - The first CNP of a QP gives it a rate limiter: RC = RT = rate_to_set_on_first_cnp
 *   (0: the line rate), alpha = initial_alpha_value / 1024; then it is handled as any CNP.
 *
 * Events due at the same time are taken in the order: a cut due, alpha, the timer; byte
 * counter expiries are taken at the time the bytes are reported (dcqcn_rp_advance), after
 * every timer due by then. Times are CLOCK_MONOTONIC nanoseconds, rates bit/s.
 */
#ifndef PFCLAB_LINK_DCQCN_H
#define PFCLAB_LINK_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

/* The RP's parameters, NVIDIA's names (MLNX_OFED roce_rp/params, mlx5 debugfs rp_*). */
struct dcqcn_rp_cfg {
	uint64_t line_bps;		/* the port's speed: the highest rate */
	uint64_t min_bps;		/* rpg_min_rate */
	uint64_t ai_bps;		/* rpg_ai_rate */
	uint64_t hai_bps;		/* rpg_hai_rate */
	uint64_t first_bps;		/* rate_to_set_on_first_cnp (0: line rate) */
	uint64_t time_reset_ns;		/* rpg_time_reset */
	uint64_t byte_reset;		/* rpg_byte_reset, bytes (0: no byte counter) */
	uint32_t threshold;		/* rpg_threshold: F */
	uint32_t min_dec_fac;		/* rpg_min_dec_fac, percent */
	uint32_t g;			/* dce_tcp_g, 1/1024 */
	uint64_t alpha_ns;		/* dce_tcp_rtt: the alpha update period */
	uint32_t initial_alpha;		/* initial_alpha_value, 1/1024 */
	uint64_t rrmp_ns;		/* rate_reduce_monitor_period */
	bool clamp_tgt;			/* clamp_tgt_rate */
};

/* 0, or -EINVAL (a zero period or line rate, g or alpha above 1023, min_dec_fac > 100). */
int dcqcn_rp_cfg_check(const struct dcqcn_rp_cfg *c);

enum dcqcn_ev {
	DCQCN_EV_CNP,		/* a CNP arrived (handled; a cut may follow) */
	DCQCN_EV_CUT,		/* the rate was cut */
	DCQCN_EV_ALPHA,		/* alpha updated */
	DCQCN_EV_FR,		/* fast recovery step */
	DCQCN_EV_AI,		/* additive increase step */
	DCQCN_EV_HAI,		/* hyper increase step */
};

/* One event: its time, what it was, the counter that expired for an increase (0 timer,
 * 1 byte counter), and the state after it. */
struct dcqcn_rp_event {
	uint64_t at;
	enum dcqcn_ev ev;
	int by_bytes;
	double rc, rt, alpha;
};

struct dcqcn_rp {
	struct dcqcn_rp_cfg cfg;
	bool active;			/* a limiter was given (first CNP) */
	double rc, rt, alpha;		/* bit/s, bit/s, 0..1 */
	uint32_t t_stage, b_stage;
	bool rose;			/* an increase step since the last cut */
	bool cnp_in_period;		/* a CNP in the current alpha period */
	bool cut_due;			/* a CNP within the monitor period: cut at its end */
	uint64_t last_cut_ns, next_timer_ns, next_alpha_ns;
	bool have_bytes;
	uint64_t last_bytes;		/* the caller's byte count at the last advance */
	uint64_t bytes;			/* bytes since the last byte-counter expiry or cut */
	/* counters */
	uint64_t cnps, cuts, alpha_updates, fr, ai, hai, timer_events, byte_events;
	/* optional: called for every event, in order */
	void (*on_event)(void *ctx, const struct dcqcn_rp_event *e);
	void *ctx;
};

void dcqcn_rp_init(struct dcqcn_rp *rp, const struct dcqcn_rp_cfg *cfg);
/* A CNP for this QP at `now` (after dcqcn_rp_advance up to now). */
void dcqcn_rp_cnp(struct dcqcn_rp *rp, uint64_t now);
/* Take every timer event due by `now`, then the byte counter with `bytes_total`, the
 * QP's cumulative bytes sent (a count lower than the last is taken as a new start).
 */
void dcqcn_rp_advance(struct dcqcn_rp *rp, uint64_t now, uint64_t bytes_total);
/* The next timer event's time (UINT64_MAX: inactive). */
uint64_t dcqcn_rp_next(const struct dcqcn_rp *rp);

/* --- the notification point ------------------------------------------------------------ */

/* Which sending QP a CE-marked packet came from. A RoCEv2 packet names only its
 * destination QP; the sender's QP number is the destination QP of the packets going back
 * (ACKs), which the NP learns. Soft-RoCE gives both directions of a QP pair the same UDP
 * source port (rdma_get_udp_sport of the two QP numbers), so the pair is found by the two
 * addresses and the port; where the ports differ (another stack), by the addresses alone
 * when one QP of the peer is known.
 */
#define DCQCN_NP_PEERS 64

struct dcqcn_np_peer {
	bool used;
	uint32_t local_ip, remote_ip;	/* host order */
	uint16_t sport;			/* UDP source port of the packets back */
	uint32_t remote_qpn;		/* their destination QP: the sender's QP */
	bool cnp_sent;
	uint64_t last_cnp_ns, seen_ns;
};

struct dcqcn_np {
	uint64_t min_gap_ns;		/* min_time_between_cnps */
	struct dcqcn_np_peer p[DCQCN_NP_PEERS];
};

void dcqcn_np_init(struct dcqcn_np *np, uint64_t min_gap_ns);
/* A packet this port sent to remote_ip (its destination QP remote_qpn). */
void dcqcn_np_learn(struct dcqcn_np *np, uint32_t local_ip, uint32_t remote_ip, uint16_t sport,
		    uint32_t remote_qpn, uint64_t now);
/* The sending QP of a packet from remote_ip to local_ip with UDP source port sport, or
 * NULL when it cannot be told. */
struct dcqcn_np_peer *dcqcn_np_find(struct dcqcn_np *np, uint32_t local_ip, uint32_t remote_ip,
				    uint16_t sport);
/* Whether a CNP to this QP may go at `now` (min_time_between_cnps since the last); the
 * caller sends it and then calls dcqcn_np_sent. */
bool dcqcn_np_due(const struct dcqcn_np *np, const struct dcqcn_np_peer *p, uint64_t now);
void dcqcn_np_sent(struct dcqcn_np_peer *p, uint64_t now);

/* --- the lab's defaults -------------------------------------------------------------- */

/* NVIDIA's ConnectX defaults scaled to a link of speed_bps: times x 1000 (the lab reacts
 * in milliseconds where a NIC does in microseconds), rates x speed / 100 Gb/s, the byte
 * counter x speed / 100 Mb/s (so that it expires as often, in the scaled time, as at
 * 100 Gb/s). At the default 100 Mb/s: rrmp 4 ms, alpha period 1 ms, time reset 300 ms,
 * byte reset 32767 B, AI 5 kb/s, HAI 50 kb/s, min rate 1 kb/s; NP gap 4 ms.
 */
void dcqcn_defaults(uint64_t speed_bps, struct dcqcn_rp_cfg *rp, uint64_t *np_gap_ns);

#endif
