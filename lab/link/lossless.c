// SPDX-License-Identifier: GPL-2.0-or-later
/* lossless.c: threshold and quanta arithmetic, the receive buffer's PFC logic and the
 * sender's per-priority pause state of the emulated lossless link (no I/O).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "lab/link/lossless.h"

uint64_t link_headroom(uint64_t speed_bps, double cable_m, uint32_t mtu, uint64_t react_ns)
{
	double gbps = (double)speed_bps / 1e9;
	double h = (301.0 + 2.16 * cable_m) * gbps + 2.72 * (double)mtu;

	h += (double)react_ns * (double)speed_bps / 8e9;
	return (uint64_t)ceil(h);
}

uint64_t link_quanta_ns(uint32_t quanta, uint64_t speed_bps)
{
	/* 512 bit times a quantum; ns = quanta * 512 * 1e9 / speed, rounded up */
	unsigned __int128 num = (unsigned __int128)quanta * 512u * 1000000000u;

	if (!speed_bps)
		return 0;
	return (uint64_t)((num + speed_bps - 1) / speed_bps);
}

int link_buf_config(struct link_buf_cfg *c)
{
	if (!c->buffer || !c->mtu || c->headroom + c->mtu >= c->buffer)
		return -EINVAL;
	if (!c->xoff)
		c->xoff = c->buffer - c->headroom;
	if (!c->xon)
		c->xon = c->xoff > c->mtu ? c->xoff - c->mtu : 0;
	if (!c->thres)
		c->thres = c->buffer * 85 / 100;
	if (c->xoff > c->buffer || c->xon >= c->xoff)
		return -EINVAL;
	if (c->pfc && (!c->quanta || !c->quanta_ns || !c->refresh_ns ||
		       c->refresh_ns >= c->quanta_ns))
		return -EINVAL;
	if (!c->max_gap_ns)
		c->max_gap_ns = 10000000;
	if (c->storm_ns && !c->storm_warn_ns)
		c->storm_warn_ns = c->storm_ns * 85 / 100;
	return 0;
}

void link_buf_init(struct link_buf *b, const struct link_buf_cfg *cfg)
{
	memset(b, 0, sizeof(*b));
	b->cfg = *cfg;
}

/* The time the peer was told to pause in the current episode, up to `now`: after a
 * storm stopped the pauses, up to the end of the last XOFF's time.
 */
static uint64_t episode_ns(const struct link_buf *b, uint64_t now)
{
	uint64_t end = now;

	if (!b->asserted)
		return 0;
	if (b->storm && b->last_xoff_ns + b->cfg.quanta_ns < end)
		end = b->last_xoff_ns + b->cfg.quanta_ns;
	return end > b->since_ns ? end - b->since_ns : 0;
}

enum link_buf_act link_buf_step(struct link_buf *b, uint64_t now, uint64_t fill, uint32_t drops)
{
	const struct link_buf_cfg *c = &b->cfg;
	uint64_t gap = b->have_step && now > b->last_step_ns ? now - b->last_step_ns : 0;

	b->last_step_ns = now;
	b->have_step = true;
	if (b->asserted)
		b->storm_clock_ns += gap < c->max_gap_ns ? gap : c->max_gap_ns;
	if (b->have_drops)
		b->c.discards += (uint32_t)(drops - b->last_drops);	/* modulo 2^32 */
	b->last_drops = drops;
	b->have_drops = true;
	b->fill = fill;
	if (fill > b->fill_max)
		b->fill_max = fill;
	if (fill > c->thres && !b->above_thres)
		b->c.passed_thres++;
	b->above_thres = fill > c->thres;
	if (!c->pfc)	/* PFC turned off during an episode: its XON is still due */
		return b->asserted && !b->storm ? LINK_BUF_XON : LINK_BUF_NONE;
	if (!b->asserted)
		return fill > c->xoff ? LINK_BUF_XOFF : LINK_BUF_NONE;
	if (fill < c->xon) {
		if (!b->storm)
			return LINK_BUF_XON;
		/* the pauses stopped at the storm; the episode ends without a frame */
		b->c.tx_pause_duration_ns += episode_ns(b, now);
		b->asserted = b->storm = b->warned = false;
		return LINK_BUF_NONE;
	}
	if (b->storm)
		return LINK_BUF_NONE;
	if (c->storm_ns && !b->warned && b->storm_clock_ns >= c->storm_warn_ns) {
		b->warned = true;
		b->c.storm_warning++;
	}
	if (c->storm_ns && b->storm_clock_ns >= c->storm_ns) {
		/* mlx5 PFC storm prevention: the port stops sending pause frames */
		b->storm = true;
		b->c.storm_error++;
		return LINK_BUF_NONE;
	}
	return now - b->last_xoff_ns >= c->refresh_ns ? LINK_BUF_XOFF : LINK_BUF_NONE;
}

void link_buf_set_pfc(struct link_buf *b, uint64_t now, bool pfc)
{
	b->cfg.pfc = pfc;
	if (pfc || !b->asserted || !b->storm)
		return;
	/* after a storm no XON follows: the episode ends here, as at the XON level */
	b->c.tx_pause_duration_ns += episode_ns(b, now);
	b->asserted = b->storm = b->warned = false;
}

void link_buf_sent(struct link_buf *b, uint64_t now, enum link_buf_act a)
{
	if (a == LINK_BUF_NONE)
		return;
	b->c.tx_pause++;
	if (a == LINK_BUF_XOFF) {
		b->c.tx_xoff++;
		if (!b->asserted) {
			b->asserted = true;
			b->since_ns = now;
			b->storm_clock_ns = 0;
			b->c.pauses++;
		}
		b->last_xoff_ns = now;
		return;
	}
	b->c.tx_xon++;
	b->c.tx_pause_duration_ns += episode_ns(b, now);
	b->asserted = b->storm = b->warned = false;
}

uint64_t link_buf_pause_ns(const struct link_buf *b, uint64_t now)
{
	return b->c.tx_pause_duration_ns + episode_ns(b, now);
}

uint64_t link_buf_next(const struct link_buf *b)
{
	const struct link_buf_cfg *c = &b->cfg;
	uint64_t t;

	if (!c->pfc || !b->asserted || b->storm)
		return UINT64_MAX;
	t = b->last_xoff_ns + c->refresh_ns;
	if (c->storm_ns && !b->warned && b->storm_clock_ns < c->storm_warn_ns &&
	    b->last_step_ns + c->storm_warn_ns - b->storm_clock_ns < t)
		t = b->last_step_ns + c->storm_warn_ns - b->storm_clock_ns;
	if (c->storm_ns && b->storm_clock_ns < c->storm_ns &&
	    b->last_step_ns + c->storm_ns - b->storm_clock_ns < t)
		t = b->last_step_ns + c->storm_ns - b->storm_clock_ns;
	return t;
}

void link_pause_init(struct link_pause *lp, uint8_t honour, uint64_t speed_bps)
{
	memset(lp, 0, sizeof(*lp));
	lp->honour = honour;
	lp->speed_bps = speed_bps;
}

static void pause_end(struct link_pause_prio *pp, uint64_t at)
{
	pp->paused = false;
	pp->paused_ns += at > pp->start_ns ? at - pp->start_ns : 0;
	pp->transitions++;
}

void link_pause_frame(struct link_pause *lp, uint64_t now, uint8_t enable,
		      const uint16_t quanta[LINK_PRIOS], uint8_t *block, uint8_t *release)
{
	unsigned p;

	*block = *release = 0;
	for (p = 0; p < LINK_PRIOS; p++) {
		struct link_pause_prio *pp = &lp->p[p];

		if (!(enable & lp->honour & (1u << p)))
			continue;
		pp->frames++;
		if (!quanta[p]) {
			/* XON: time 0 ends the pause now (802.1Qbb) */
			pp->xon++;
			if (pp->paused) {
				pause_end(pp, now);
				pp->by_xon++;
				*release |= (uint8_t)(1u << p);
			}
			continue;
		}
		pp->xoff++;
		if (!pp->paused) {
			pp->paused = true;
			pp->start_ns = now;
			pp->pauses++;
			*block |= (uint8_t)(1u << p);
		}
		/* a further XOFF restarts the timer with its own time, longer or shorter */
		pp->until_ns = now + link_quanta_ns(quanta[p], lp->speed_bps);
	}
}

void link_pause_expire(struct link_pause *lp, uint64_t now, uint8_t *release)
{
	unsigned p;

	*release = 0;
	for (p = 0; p < LINK_PRIOS; p++) {
		struct link_pause_prio *pp = &lp->p[p];

		if (!pp->paused || now < pp->until_ns)
			continue;
		/* the pause ended when its time ran out, however late we look */
		pause_end(pp, pp->until_ns);
		pp->by_expiry++;
		*release |= (uint8_t)(1u << p);
	}
}

void link_pause_stop(struct link_pause *lp, uint8_t prios, uint64_t now, uint8_t *release)
{
	unsigned p;

	*release = 0;
	for (p = 0; p < LINK_PRIOS; p++) {
		struct link_pause_prio *pp = &lp->p[p];

		if (!(prios & (1u << p)) || !pp->paused)
			continue;
		/* a timer that ran out before `now` ended the pause then */
		pause_end(pp, now < pp->until_ns ? now : pp->until_ns);
		*release |= (uint8_t)(1u << p);
	}
}

uint64_t link_pause_next(const struct link_pause *lp)
{
	uint64_t t = UINT64_MAX;
	unsigned p;

	for (p = 0; p < LINK_PRIOS; p++)
		if (lp->p[p].paused && lp->p[p].until_ns < t)
			t = lp->p[p].until_ns;
	return t;
}

uint64_t link_pause_ns(const struct link_pause *lp, unsigned p, uint64_t now)
{
	const struct link_pause_prio *pp = &lp->p[p];
	uint64_t end = now < pp->until_ns ? now : pp->until_ns;

	/* a pause in progress ends at its timer at the latest */
	return pp->paused_ns + (pp->paused && end > pp->start_ns ? end - pp->start_ns : 0);
}

uint64_t link_kernel_mono(uint64_t stamp_real_ns, uint64_t real_now, uint64_t mono_now)
{
	uint64_t age;

	if (!stamp_real_ns || stamp_real_ns >= real_now)
		return mono_now;
	age = real_now - stamp_real_ns;
	return age < mono_now ? mono_now - age : 0;
}
