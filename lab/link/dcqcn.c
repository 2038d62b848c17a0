// SPDX-License-Identifier: GPL-2.0-or-later
/* dcqcn.c: DCQCN's reaction point (rate cut, alpha, fast recovery, additive and hyper
 * increase) and notification point (which QP a CE mark came from, CNP pacing) of the
 * emulated lossless link (no I/O; the rules are in dcqcn.h).
 */
#include <errno.h>
#include <string.h>

#include "lab/link/dcqcn.h"

int dcqcn_rp_cfg_check(const struct dcqcn_rp_cfg *c)
{
	if (!c->line_bps || !c->time_reset_ns || !c->alpha_ns || !c->rrmp_ns)
		return -EINVAL;
	if (c->g > 1023 || c->initial_alpha > 1023 || c->min_dec_fac > 100)
		return -EINVAL;
	if (c->min_bps > c->line_bps || c->first_bps > c->line_bps)
		return -EINVAL;
	return 0;
}

void dcqcn_rp_init(struct dcqcn_rp *rp, const struct dcqcn_rp_cfg *cfg)
{
	memset(rp, 0, sizeof(*rp));
	rp->cfg = *cfg;
}

static void emit(struct dcqcn_rp *rp, uint64_t at, enum dcqcn_ev ev, int by_bytes)
{
	struct dcqcn_rp_event e = {
		.at = at, .ev = ev, .by_bytes = by_bytes,
		.rc = rp->rc, .rt = rp->rt, .alpha = rp->alpha,
	};

	if (rp->on_event)
		rp->on_event(rp->ctx, &e);
}

static double cap(const struct dcqcn_rp *rp, double r)
{
	return r > (double)rp->cfg.line_bps ? (double)rp->cfg.line_bps : r;
}

static void cut(struct dcqcn_rp *rp, uint64_t at)
{
	const struct dcqcn_rp_cfg *c = &rp->cfg;
	double r = rp->rc * (1.0 - rp->alpha / 2.0);
	double floor_dec = rp->rc * (double)c->min_dec_fac / 100.0;

	if (c->clamp_tgt || rp->rose || !rp->cuts)
		rp->rt = rp->rc;
	if (r < floor_dec)
		r = floor_dec;
	if (r < (double)c->min_bps)
		r = (double)c->min_bps;
	rp->rc = r;
	rp->t_stage = rp->b_stage = 0;
	rp->rose = false;
	rp->bytes = 0;
	rp->cut_due = false;
	rp->last_cut_ns = at;
	rp->next_timer_ns = at + c->time_reset_ns;
	rp->cuts++;
	emit(rp, at, DCQCN_EV_CUT, 0);
}

static void increase(struct dcqcn_rp *rp, uint64_t at, int by_bytes)
{
	const struct dcqcn_rp_cfg *c = &rp->cfg;
	uint32_t hi = rp->t_stage > rp->b_stage ? rp->t_stage : rp->b_stage;
	uint32_t lo = rp->t_stage < rp->b_stage ? rp->t_stage : rp->b_stage;
	enum dcqcn_ev ev;

	if (hi <= c->threshold) {
		ev = DCQCN_EV_FR;
		rp->fr++;
	} else if (lo > c->threshold) {
		rp->rt = cap(rp, rp->rt + (double)c->hai_bps);
		ev = DCQCN_EV_HAI;
		rp->hai++;
	} else {
		rp->rt = cap(rp, rp->rt + (double)c->ai_bps);
		ev = DCQCN_EV_AI;
		rp->ai++;
	}
	rp->rc = cap(rp, (rp->rt + rp->rc) / 2.0);
	rp->rose = true;
	emit(rp, at, ev, by_bytes);
}

static void alpha_update(struct dcqcn_rp *rp, uint64_t at)
{
	double g = (double)rp->cfg.g / 1024.0;

	rp->alpha = g * rp->alpha + (rp->cnp_in_period ? 1.0 - g : 0.0);
	rp->cnp_in_period = false;
	rp->next_alpha_ns = at + rp->cfg.alpha_ns;
	rp->alpha_updates++;
	emit(rp, at, DCQCN_EV_ALPHA, 0);
}

/* The next timer event: 0 a cut due, 1 alpha, 2 the increase timer; its time in *at. */
static int next_event(const struct dcqcn_rp *rp, uint64_t *at)
{
	int k = 1;

	*at = rp->next_alpha_ns;
	if (rp->cut_due && rp->last_cut_ns + rp->cfg.rrmp_ns <= *at) {
		*at = rp->last_cut_ns + rp->cfg.rrmp_ns;
		k = 0;
	}
	if (rp->next_timer_ns < *at) {
		*at = rp->next_timer_ns;
		k = 2;
	}
	return k;
}

static void run_timers(struct dcqcn_rp *rp, uint64_t now)
{
	uint64_t at;
	unsigned guard;

	/* bounded: a loop that stood still for long catches up at most this many events */
	for (guard = 0; guard < 1000000; guard++) {
		int k = next_event(rp, &at);

		if (at > now)
			return;
		if (k == 0) {
			cut(rp, at);
		} else if (k == 1) {
			alpha_update(rp, at);
		} else {
			rp->t_stage++;
			rp->timer_events++;
			rp->next_timer_ns = at + rp->cfg.time_reset_ns;
			increase(rp, at, 0);
		}
	}
}

void dcqcn_rp_advance(struct dcqcn_rp *rp, uint64_t now, uint64_t bytes_total)
{
	uint64_t d = 0;
	unsigned guard;

	if (rp->active)
		run_timers(rp, now);
	if (rp->have_bytes && bytes_total >= rp->last_bytes)
		d = bytes_total - rp->last_bytes;
	rp->last_bytes = bytes_total;
	rp->have_bytes = true;
	if (!rp->active || !rp->cfg.byte_reset)
		return;
	rp->bytes += d;
	for (guard = 0; guard < 1000000 && rp->bytes >= rp->cfg.byte_reset; guard++) {
		rp->bytes -= rp->cfg.byte_reset;
		rp->b_stage++;
		rp->byte_events++;
		increase(rp, now, 1);
	}
}

void dcqcn_rp_cnp(struct dcqcn_rp *rp, uint64_t now)
{
	const struct dcqcn_rp_cfg *c = &rp->cfg;

	if (rp->active)
		run_timers(rp, now);
	rp->cnps++;
	if (!rp->active) {
		rp->active = true;
		rp->rc = rp->rt = (double)(c->first_bps ? c->first_bps : c->line_bps);
		rp->alpha = (double)c->initial_alpha / 1024.0;
		rp->next_alpha_ns = now + c->alpha_ns;
		rp->next_timer_ns = now + c->time_reset_ns;
		rp->cnp_in_period = true;
		emit(rp, now, DCQCN_EV_CNP, 0);
		cut(rp, now);
		return;
	}
	rp->cnp_in_period = true;
	emit(rp, now, DCQCN_EV_CNP, 0);
	if (rp->cut_due)
		return;
	if (now >= rp->last_cut_ns + c->rrmp_ns)
		cut(rp, now);
	else
		rp->cut_due = true;
}

uint64_t dcqcn_rp_next(const struct dcqcn_rp *rp)
{
	uint64_t at;

	if (!rp->active)
		return UINT64_MAX;
	next_event(rp, &at);
	return at;
}

/* --- the notification point ------------------------------------------------------------ */

void dcqcn_np_init(struct dcqcn_np *np, uint64_t min_gap_ns)
{
	memset(np, 0, sizeof(*np));
	np->min_gap_ns = min_gap_ns;
}

void dcqcn_np_learn(struct dcqcn_np *np, uint32_t local_ip, uint32_t remote_ip, uint16_t sport,
		    uint32_t remote_qpn, uint64_t now)
{
	struct dcqcn_np_peer *p, *slot = NULL;
	unsigned i;

	for (i = 0; i < DCQCN_NP_PEERS; i++) {
		p = &np->p[i];
		if (p->used && p->local_ip == local_ip && p->remote_ip == remote_ip &&
		    p->sport == sport && p->remote_qpn == remote_qpn) {
			p->seen_ns = now;
			return;
		}
		/* a free slot, else the one seen longest ago */
		if (!slot || (slot->used && (!p->used || p->seen_ns < slot->seen_ns)))
			slot = p;
	}
	memset(slot, 0, sizeof(*slot));
	slot->used = true;
	slot->local_ip = local_ip;
	slot->remote_ip = remote_ip;
	slot->sport = sport;
	slot->remote_qpn = remote_qpn;
	slot->seen_ns = now;
}

struct dcqcn_np_peer *dcqcn_np_find(struct dcqcn_np *np, uint32_t local_ip, uint32_t remote_ip,
				    uint16_t sport)
{
	struct dcqcn_np_peer *one = NULL;
	unsigned i, n = 0;

	for (i = 0; i < DCQCN_NP_PEERS; i++) {
		struct dcqcn_np_peer *p = &np->p[i];

		if (!p->used || p->local_ip != local_ip || p->remote_ip != remote_ip)
			continue;
		if (p->sport == sport)
			return p;
		/* two entries of one QP (a port that changed) count once */
		if (!one || one->remote_qpn != p->remote_qpn)
			n++;
		one = p;
	}
	return n == 1 ? one : NULL;
}

bool dcqcn_np_due(const struct dcqcn_np *np, const struct dcqcn_np_peer *p, uint64_t now)
{
	return !p->cnp_sent || now - p->last_cnp_ns >= np->min_gap_ns;
}

void dcqcn_np_sent(struct dcqcn_np_peer *p, uint64_t now)
{
	p->cnp_sent = true;
	p->last_cnp_ns = now;
}

/* --- the lab's defaults -------------------------------------------------------------- */

void dcqcn_defaults(uint64_t speed_bps, struct dcqcn_rp_cfg *c, uint64_t *np_gap_ns)
{
	/* NVIDIA "DCQCN CC Parameters" (ConnectX-4 and later) defaults at 100 Gb/s */
	const double rs = (double)speed_bps / 100e9;	/* rates */
	const uint64_t ts = 1000;			/* times */

	memset(c, 0, sizeof(*c));
	c->line_bps = speed_bps;
	c->min_bps = (uint64_t)(1e6 * rs + 0.5);		/* rpg_min_rate 1 Mb/s */
	c->ai_bps = (uint64_t)(5e6 * rs + 0.5);			/* rpg_ai_rate 5 Mb/s */
	c->hai_bps = (uint64_t)(50e6 * rs + 0.5);		/* rpg_hai_rate 50 Mb/s */
	c->first_bps = 0;					/* rate_to_set_on_first_cnp */
	c->time_reset_ns = 300 * 1000 * ts;			/* rpg_time_reset 300 us */
	c->byte_reset = (uint64_t)(32767.0 * rs * (double)ts + 0.5);	/* 32767 B */
	c->threshold = 1;					/* rpg_threshold */
	c->min_dec_fac = 50;					/* rpg_min_dec_fac */
	c->g = 1019;						/* dce_tcp_g */
	c->alpha_ns = 1 * 1000 * ts;				/* dce_tcp_rtt 1 us */
	c->initial_alpha = 1023;				/* initial_alpha_value */
	c->rrmp_ns = 4 * 1000 * ts;				/* rate_reduce_monitor_period */
	c->clamp_tgt = false;					/* clamp_tgt_rate */
	if (!c->min_bps)
		c->min_bps = 1;
	*np_gap_ns = 4 * 1000 * ts;				/* min_time_between_cnps 4 us */
}
