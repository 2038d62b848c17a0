// SPDX-License-Identifier: GPL-2.0-or-later
/* test_link_dcqcn.c: DCQCN's reaction and notification points of the emulated link
 * (lab/link/dcqcn.c). The reaction point is held against a reference model written here
 * on its own, from Zhu et al. (SIGCOMM 2015) and NVIDIA's "DCQCN CC Parameters", as a
 * discrete-event simulation with a queue of scheduled events (not pfclab's code): fed the
 * same CNP arrival times and byte counts, every event (cut, alpha update, fast recovery,
 * additive and hyper increase) must come at the same time, of the same kind, with the
 * current and target rates within 1%. Then a few figures worked by hand, the notification
 * point's QP pairing and CNP pacing, and the lab's scaled defaults.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lab/link/dcqcn.h"
#include "lab/link/dcqcn_io.h"
#include "lib/hw/nicqos.h"
#include "lib/linkstat.h"
#include "lib/util.h"

#define US 1000ull
#define MS 1000000ull

/* --- the reference model ----------------------------------------------------------------
 *
 * State of one QP's rate limiter (Zhu et al. section 4, Algorithm/Fig. 6; NVIDIA names):
 * Rc current rate, Rt target rate, a (alpha), T and BC the timer and byte-counter stages.
 * Scheduled events sit in a small queue ordered by (time, rank): rank 0 the cut that a
 * CNP inside the rate_reduce_monitor_period left pending, 1 the alpha update, 2 the
 * rate-increase timer; inputs (CNPs, byte reports) come after every scheduled event of
 * their time (rank 3).
 */
struct ref_in {
	uint64_t t;
	int cnp;		/* 1: a CNP, 0: a byte report */
	uint64_t bytes;		/* cumulative bytes at t (byte reports) */
};

struct ref_ev {
	uint64_t t;
	int kind;		/* enum dcqcn_ev */
	double rc, rt, a;
};

struct ref {
	const struct dcqcn_rp_cfg *p;
	int on;
	double rc, rt, a;
	unsigned T, BC;
	int up_since_cut, ncuts, cnp_seen, pending;
	uint64_t t_cut, t_alpha, t_timer;
	uint64_t acc, prev;
	int have_prev;
	struct ref_ev *ev;
	size_t nev, cap;
};

static void ref_log(struct ref *m, uint64_t t, int kind)
{
	if (m->nev == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 1024;
		m->ev = realloc(m->ev, m->cap * sizeof(*m->ev));
		assert_non_null(m->ev);
	}
	m->ev[m->nev++] = (struct ref_ev){ t, kind, m->rc, m->rt, m->a };
}

static double lim(const struct ref *m, double r)
{
	return fmin(r, (double)m->p->line_bps);
}

/* Rate decrease: Rt <- Rc (when the rate went up since the last cut, on the first cut, or
 * with clamp_tgt_rate), Rc <- Rc (1 - a/2), bounded by min_dec_fac and the minimum rate. */
static void ref_decrease(struct ref *m, uint64_t t)
{
	double old = m->rc;

	if (m->p->clamp_tgt || m->up_since_cut || m->ncuts == 0)
		m->rt = old;
	m->rc = fmax(fmax(old - old * m->a / 2, old * m->p->min_dec_fac / 100.0),
		     (double)m->p->min_bps);
	m->T = m->BC = 0;
	m->acc = 0;
	m->up_since_cut = 0;
	m->pending = 0;
	m->ncuts++;
	m->t_cut = t;
	m->t_timer = t + m->p->time_reset_ns;
	ref_log(m, t, DCQCN_EV_CUT);
}

/* Rate increase after a counter expired: fast recovery for the first F stages, additive
 * once one counter passed F, hyper once both did. */
static void ref_increase(struct ref *m, uint64_t t)
{
	unsigned F = m->p->threshold;
	int kind;

	if (m->T > F && m->BC > F) {
		m->rt = lim(m, m->rt + (double)m->p->hai_bps);
		kind = DCQCN_EV_HAI;
	} else if (m->T > F || m->BC > F) {
		m->rt = lim(m, m->rt + (double)m->p->ai_bps);
		kind = DCQCN_EV_AI;
	} else {
		kind = DCQCN_EV_FR;
	}
	m->rc = lim(m, 0.5 * (m->rc + m->rt));
	m->up_since_cut = 1;
	ref_log(m, t, kind);
}

static void ref_scheduled(struct ref *m, uint64_t until)
{
	for (;;) {
		uint64_t best = UINT64_MAX;
		int rank = -1;

		if (m->pending && m->t_cut + m->p->rrmp_ns < best) {
			best = m->t_cut + m->p->rrmp_ns;
			rank = 0;
		}
		if (m->t_alpha < best) {
			best = m->t_alpha;
			rank = 1;
		}
		if (m->t_timer < best) {
			best = m->t_timer;
			rank = 2;
		}
		if (rank < 0 || best > until)
			return;
		if (rank == 0) {
			ref_decrease(m, best);
		} else if (rank == 1) {
			double w = m->p->g / 1024.0;

			m->a = m->cnp_seen ? w * m->a + (1 - w) : w * m->a;
			m->cnp_seen = 0;
			m->t_alpha = best + m->p->alpha_ns;
			ref_log(m, best, DCQCN_EV_ALPHA);
		} else {
			m->T++;
			m->t_timer = best + m->p->time_reset_ns;
			ref_increase(m, best);
		}
	}
}

static void ref_run(struct ref *m, const struct dcqcn_rp_cfg *p, const struct ref_in *in, size_t n)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->p = p;
	for (i = 0; i < n; i++) {
		uint64_t t = in[i].t;

		if (m->on)
			ref_scheduled(m, t);
		if (!in[i].cnp) {
			uint64_t d = m->have_prev && in[i].bytes >= m->prev ? in[i].bytes - m->prev : 0;

			m->prev = in[i].bytes;
			m->have_prev = 1;
			if (!m->on || !p->byte_reset)
				continue;
			m->acc += d;
			while (m->acc >= p->byte_reset) {
				m->acc -= p->byte_reset;
				m->BC++;
				ref_increase(m, t);
			}
			continue;
		}
		if (!m->on) {
			/* a rate limiter for the QP on its first CNP */
			m->on = 1;
			m->rc = m->rt = (double)(p->first_bps ? p->first_bps : p->line_bps);
			m->a = p->initial_alpha / 1024.0;
			m->t_alpha = t + p->alpha_ns;
			m->t_timer = t + p->time_reset_ns;
			m->cnp_seen = 1;
			ref_log(m, t, DCQCN_EV_CNP);
			ref_decrease(m, t);
			continue;
		}
		m->cnp_seen = 1;
		ref_log(m, t, DCQCN_EV_CNP);
		if (m->pending)
			continue;
		if (t - m->t_cut >= p->rrmp_ns)
			ref_decrease(m, t);
		else
			m->pending = 1;
	}
}

/* --- pfclab's RP, fed the same inputs ----------------------------------------------- */

struct got {
	struct dcqcn_rp_event *e;
	size_t n, cap;
};

static void got_event(void *ctx, const struct dcqcn_rp_event *e)
{
	struct got *g = ctx;

	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->e = realloc(g->e, g->cap * sizeof(*g->e));
		assert_non_null(g->e);
	}
	g->e[g->n++] = *e;
}

static void run_rp(const struct dcqcn_rp_cfg *p, const struct ref_in *in, size_t n, struct got *g)
{
	struct dcqcn_rp rp;
	size_t i;

	dcqcn_rp_init(&rp, p);
	rp.on_event = got_event;
	rp.ctx = g;
	for (i = 0; i < n; i++) {
		if (in[i].cnp)
			dcqcn_rp_cnp(&rp, in[i].t);
		else
			dcqcn_rp_advance(&rp, in[i].t, in[i].bytes);
	}
}

static int close1(double a, double b)
{
	return fabs(a - b) <= 0.01 * fmax(fabs(a), fabs(b)) + 1e-9;
}

/* The inputs: CNPs at the given times, byte reports every `step` at a sender's rate that
 * changes at `t_change` (the RP cannot know what the QP really sends). */
static size_t inputs(struct ref_in *in, size_t cap, const uint64_t *cnp, size_t ncnp,
		     uint64_t end, uint64_t step, double bps1, double bps2, uint64_t t_change)
{
	size_t n = 0, k = 0;
	uint64_t t;
	double bytes = 0;

	for (t = step; t <= end && n < cap; t += step) {
		while (k < ncnp && cnp[k] <= t && n < cap) {
			in[n++] = (struct ref_in){ cnp[k], 1, 0 };
			k++;
		}
		bytes += (t < t_change ? bps1 : bps2) * (double)step / 8e9;
		if (n < cap)
			in[n++] = (struct ref_in){ t, 0, (uint64_t)bytes };
	}
	return n;
}

struct oracle_case {
	const char *what;
	struct dcqcn_rp_cfg cfg;
	uint64_t end, step;
	double bps1, bps2;
	uint64_t t_change;
	/* CNPs: every `every` from `from` to `to`, and `nrand` more at random times */
	uint64_t from, to, every;
	unsigned nrand;
	uint64_t rand_to;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void oracle_one(const struct oracle_case *c)
{
	static struct ref_in in[400000];
	static uint64_t cnp[100000];
	size_t ncnp = 0, n, i, kinds[6] = { 0 };
	uint64_t t, seed = 0x2545F4914F6CDD1Dull;
	struct got g = { 0 };
	struct ref m;

	if (c->every)
		for (t = c->from; t <= c->to && ncnp < 90000; t += c->every)
			cnp[ncnp++] = t;
	for (i = 0; i < c->nrand && ncnp < 100000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		cnp[ncnp++] = 1 + (seed >> 11) % c->rand_to;
	}
	qsort(cnp, ncnp, sizeof(cnp[0]), cmp_u64);
	n = inputs(in, sizeof(in) / sizeof(in[0]), cnp, ncnp, c->end, c->step, c->bps1, c->bps2,
		   c->t_change);
	ref_run(&m, &c->cfg, in, n);
	run_rp(&c->cfg, in, n, &g);
	if (g.n != m.nev)
		fail_msg("%s: pfclab's RP has %zu events, the reference %zu", c->what, g.n, m.nev);
	for (i = 0; i < g.n; i++) {
		const struct dcqcn_rp_event *e = &g.e[i];
		const struct ref_ev *r = &m.ev[i];

		if (e->at != r->t || (int)e->ev != r->kind || !close1(e->rc, r->rc) ||
		    !close1(e->rt, r->rt) || fabs(e->alpha - r->a) > 0.01)
			fail_msg("%s: event %zu: pfclab t=%llu kind %d rc %.0f rt %.0f alpha %.4f; "
				 "reference t=%llu kind %d rc %.0f rt %.0f alpha %.4f", c->what, i,
				 (unsigned long long)e->at, e->ev, e->rc, e->rt, e->alpha,
				 (unsigned long long)r->t, r->kind, r->rc, r->rt, r->a);
		kinds[r->kind]++;
	}
	/* the case must have exercised what it is about */
	assert_true(kinds[DCQCN_EV_CUT] > 0);
	assert_true(kinds[DCQCN_EV_FR] > 0);
	assert_true(kinds[DCQCN_EV_AI] + kinds[DCQCN_EV_HAI] > 0);
	print_message("  %s: %zu events (%zu cuts, %zu FR, %zu AI, %zu HAI, %zu alpha) agree\n",
		      c->what, g.n, kinds[DCQCN_EV_CUT], kinds[DCQCN_EV_FR], kinds[DCQCN_EV_AI],
		      kinds[DCQCN_EV_HAI], kinds[DCQCN_EV_ALPHA]);
	free(g.e);
	free(m.ev);
}

static struct dcqcn_rp_cfg lab(uint64_t speed)
{
	struct dcqcn_rp_cfg c;
	uint64_t gap;

	dcqcn_defaults(speed, &c, &gap);
	return c;
}

static void test_oracle(void **state)
{
	struct oracle_case cases[] = {
		{ "lab defaults at 50M: congestion 300 ms, then recovery", lab(50000000), 3000 * MS,
		  1 * MS, 24e6, 40e6, 1500 * MS, 10 * MS, 310 * MS, 5 * MS, 0, 0 },
		{ "lab defaults, random CNPs (bursts inside the monitor period)", lab(100000000),
		  4000 * MS, 1 * MS, 50e6, 50e6, 0, 0, 0, 0, 600, 3000 * MS },
		{ "clamp_tgt_rate, no byte counter, a first-CNP rate", { 0 }, 4000 * MS, 1 * MS,
		  30e6, 30e6, 0, 5 * MS, 200 * MS, 3 * MS, 200, 2500 * MS },
		{ "min_dec_fac 80 and a min rate that binds", { 0 }, 2000 * MS, 1 * MS, 10e6,
		  10e6, 0, 1 * MS, 800 * MS, 1 * MS, 0, 0 },
		{ "ConnectX at 100G, microsecond timers, 1 ms reports", { 0 }, 200 * MS, 1 * MS,
		  60e9, 90e9, 100 * MS, 50 * US, 30 * MS, 20 * US, 300, 150 * MS },
	};
	size_t i;

	(void)state;
	cases[2].cfg = lab(100000000);
	cases[2].cfg.clamp_tgt = true;
	cases[2].cfg.byte_reset = 0;
	cases[2].cfg.first_bps = 40000000;
	cases[3].cfg = lab(100000000);
	cases[3].cfg.min_dec_fac = 80;
	cases[3].cfg.min_bps = 20000000;
	cases[3].cfg.rrmp_ns = 2 * MS;
	/* NVIDIA's defaults as they are on a 100 Gb/s port */
	cases[4].cfg = (struct dcqcn_rp_cfg){
		.line_bps = 100000000000ull, .min_bps = 1000000, .ai_bps = 5000000,
		.hai_bps = 50000000, .time_reset_ns = 300 * US, .byte_reset = 32767,
		.threshold = 1, .min_dec_fac = 50, .g = 1019, .alpha_ns = 1 * US,
		.initial_alpha = 1023, .rrmp_ns = 4 * US,
	};
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(dcqcn_rp_cfg_check(&cases[i].cfg), 0);
		oracle_one(&cases[i]);
	}
}

/* Figures worked by hand at 100 Mb/s with the lab's defaults. */
static void test_rp_by_hand(void **state)
{
	struct dcqcn_rp_cfg c = lab(100000000);
	struct dcqcn_rp rp;
	double a0 = 1023.0 / 1024, g = 1019.0 / 1024, r1;

	(void)state;
	c.first_bps = 50000000;
	dcqcn_rp_init(&rp, &c);
	assert_int_equal(dcqcn_rp_next(&rp), UINT64_MAX);
	dcqcn_rp_advance(&rp, 1 * MS, 1000);
	assert_false(rp.active);
	/* first CNP at 10 ms: a limiter at rate_to_set_on_first_cnp, cut by alpha/2 at once */
	dcqcn_rp_cnp(&rp, 10 * MS);
	r1 = 50e6 * (1 - a0 / 2);
	assert_true(rp.active);
	assert_true(fabs(rp.rc - r1) < 1);
	assert_true(fabs(rp.rt - 50e6) < 1);
	assert_int_equal(rp.cuts, 1);
	/* a CNP 1 ms later is inside the 4 ms monitor period: the cut waits for its end */
	dcqcn_rp_cnp(&rp, 11 * MS);
	assert_int_equal(rp.cuts, 1);
	assert_true(rp.cut_due);
	assert_int_equal(dcqcn_rp_next(&rp), 12 * MS);	/* alpha first */
	dcqcn_rp_advance(&rp, 14 * MS, 1000);
	assert_int_equal(rp.cuts, 2);
	assert_int_equal(rp.last_cut_ns, 14 * MS);
	/* alpha at 11 (CNP in 10..11), 12 (CNP at 11 counts in 11..12), 13, 14 (none) */
	{
		double a = g * a0 + (1 - g);

		a = g * a + (1 - g);
		a = g * a;
		/* the cut at 14 comes before the alpha update of 14 */
		assert_true(fabs(rp.rc - r1 * (1 - a / 2)) < 1);
		/* no increase since the first cut: the target stays */
		assert_true(fabs(rp.rt - 50e6) < 1);
	}
	/* 32767 bytes sent: fast recovery, half way back to the target */
	{
		double rc = rp.rc;

		dcqcn_rp_advance(&rp, 15 * MS, 1000 + 32767);
		assert_int_equal(rp.fr, 1);
		assert_true(fabs(rp.rc - (rc + 50e6) / 2) < 1);
		/* again: B = 2 > F, T = 0: additive increase of 5 kb/s */
		rc = rp.rc;
		dcqcn_rp_advance(&rp, 16 * MS, 1000 + 2 * 32767);
		assert_int_equal(rp.ai, 1);
		assert_true(fabs(rp.rt - 50.005e6) < 1);
		assert_true(fabs(rp.rc - (rc + 50.005e6) / 2) < 1);
	}
	/* two timer expiries (300 ms each) and B > 1: hyper increase of 50 kb/s */
	dcqcn_rp_advance(&rp, 614 * MS, 1000 + 2 * 32767);
	assert_int_equal(rp.timer_events, 2);
	assert_int_equal(rp.ai, 2);	/* T = 1: B > F alone: additive */
	assert_int_equal(rp.hai, 1);	/* T = 2 and B = 2: hyper */
	assert_true(fabs(rp.rt - 50.06e6) < 1);
	assert_true(rp.rc <= rp.rt);
	/* the byte counter restarts at a cut */
	dcqcn_rp_cnp(&rp, 700 * MS);
	assert_int_equal(rp.cuts, 3);
	assert_int_equal(rp.b_stage, 0);
	assert_int_equal(rp.t_stage, 0);
	assert_int_equal(dcqcn_rp_cfg_check(&c), 0);
	c.g = 1024;
	assert_int_equal(dcqcn_rp_cfg_check(&c), -EINVAL);
}

/* alpha with no CNP decays by g each period; with a CNP every period it tends to 1. */
static void test_rp_alpha(void **state)
{
	struct dcqcn_rp_cfg c = lab(100000000);
	struct dcqcn_rp rp;
	uint64_t t;

	(void)state;
	c.initial_alpha = 512;
	dcqcn_rp_init(&rp, &c);
	dcqcn_rp_cnp(&rp, 0);
	dcqcn_rp_advance(&rp, 1 * MS, 0);	/* the period of the first CNP */
	assert_true(fabs(rp.alpha - (0.5 * 1019 / 1024 + 5.0 / 1024)) < 1e-9);
	dcqcn_rp_advance(&rp, 101 * MS, 0);
	assert_true(fabs(rp.alpha - (0.5 * 1019 / 1024 + 5.0 / 1024) * pow(1019.0 / 1024, 100)) < 1e-9);
	for (t = 101 * MS; t < 3101 * MS; t += MS)
		dcqcn_rp_cnp(&rp, t + MS / 2);
	dcqcn_rp_advance(&rp, 3101 * MS, 0);
	assert_true(rp.alpha > 0.99);
	/* and the rate at the minimum: every cut of ~1/2 for 3 s */
	assert_true(fabs(rp.rc - (double)c.min_bps) < 1);
}

static void test_np(void **state)
{
	struct dcqcn_np np;
	struct dcqcn_np_peer *p;
	const uint32_t a = 0x0a4d0001, b = 0x0a4d0002, c = 0x0a4d0003;
	unsigned i;

	(void)state;
	dcqcn_np_init(&np, 4 * MS);
	assert_null(dcqcn_np_find(&np, b, a, 0xc123));
	/* the receiver b sends ACKs to a's QP 0x11 with port 0xc123 */
	dcqcn_np_learn(&np, b, a, 0xc123, 0x11, 0);
	p = dcqcn_np_find(&np, b, a, 0xc123);
	assert_non_null(p);
	assert_int_equal(p->remote_qpn, 0x11);
	/* another port: the only QP of that peer still answers */
	assert_ptr_equal(dcqcn_np_find(&np, b, a, 0xc999), p);
	/* a second QP of the same peer: ports tell them apart, a third port is ambiguous */
	dcqcn_np_learn(&np, b, a, 0xc456, 0x12, 1);
	assert_int_equal(dcqcn_np_find(&np, b, a, 0xc456)->remote_qpn, 0x12);
	assert_int_equal(dcqcn_np_find(&np, b, a, 0xc123)->remote_qpn, 0x11);
	assert_null(dcqcn_np_find(&np, b, a, 0xc999));
	assert_null(dcqcn_np_find(&np, b, c, 0xc123));
	/* CNP pacing per QP */
	assert_true(dcqcn_np_due(&np, p, 10 * MS));
	dcqcn_np_sent(p, 10 * MS);
	assert_false(dcqcn_np_due(&np, p, 13 * MS));
	assert_true(dcqcn_np_due(&np, p, 14 * MS));
	assert_true(dcqcn_np_due(&np, dcqcn_np_find(&np, b, a, 0xc456), 13 * MS));
	/* relearning keeps the pacing state; a full table replaces the oldest */
	dcqcn_np_learn(&np, b, a, 0xc123, 0x11, 20 * MS);
	assert_true(p->cnp_sent);
	for (i = 0; i < DCQCN_NP_PEERS; i++)
		dcqcn_np_learn(&np, b, c, (uint16_t)(0xd000 + i), 0x100 + i, 30 * MS + i);
	assert_null(dcqcn_np_find(&np, b, a, 0xc456));
	assert_int_equal(dcqcn_np_find(&np, b, c, 0xd005)->remote_qpn, 0x105);
}

static void test_defaults(void **state)
{
	struct dcqcn_rp_cfg c;
	uint64_t gap;

	(void)state;
	dcqcn_defaults(100000000, &c, &gap);
	assert_int_equal(c.ai_bps, 5000);
	assert_int_equal(c.hai_bps, 50000);
	assert_int_equal(c.min_bps, 1000);
	assert_int_equal(c.byte_reset, 32767);
	assert_int_equal(c.time_reset_ns, 300 * MS);
	assert_int_equal(c.rrmp_ns, 4 * MS);
	assert_int_equal(c.alpha_ns, 1 * MS);
	assert_int_equal(gap, 4 * MS);
	assert_int_equal(c.g, 1019);
	assert_int_equal(c.initial_alpha, 1023);
	assert_int_equal(c.threshold, 1);
	assert_int_equal(c.min_dec_fac, 50);
	dcqcn_defaults(50000000, &c, &gap);
	assert_int_equal(c.byte_reset, 16384);
	assert_int_equal(c.ai_bps, 2500);
	assert_int_equal(dcqcn_rp_cfg_check(&c), 0);
}

/* The parameters in force, written by the link and read back by lib/hw/nicqos (the doctor
 * and a run's manifest) as a ConnectX's, under the same names. */
static void test_params(void **state)
{
	char root[] = "/tmp/pfclab-dcqcn-XXXXXX", dir[256], path[300];
	static const struct opt none[] = { OPT_END };
	static const struct opt_cmd cmd = { .name = "link", .opts = none };
	char *argv[] = { (char *)"link", NULL }, why[200];
	struct hw_nicqos q;
	size_t i, found = 0;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/run/pfclab/link", root);
	assert_int_equal(pfc_mkdir_p(dir), 0);
	assert_true(opt_parse(&cmd, 1, argv) >= 0);
	assert_int_equal(dcqcn_conf_finish(&cmd, 50000000, why, sizeof(why)), 0);
	assert_int_equal(dcqcn_params_write(dir, "va", 50000000), 0);
	assert_int_equal(hw_nicqos_read(root, "va", &q), 0);
	assert_int_equal(q.dcqcn_source, HW_DCQCN_PFCLAB_LINK);
	for (i = 0; i < q.nparam; i++) {
		const struct hw_dcqcn_param *p = &q.param[i];

		assert_true(p->valid);
		if (!strcmp(p->name, "rp_time_reset"))
			found += p->value == 300000;		/* us: 300 us x 1000 */
		else if (!strcmp(p->name, "rp_byte_reset"))
			found += p->value == 16384;
		else if (!strcmp(p->name, "rp_ai_rate_bps"))
			found += p->value == 2500;
		else if (!strcmp(p->name, "rp_dce_tcp_g"))
			found += p->value == 1019;
		else if (!strcmp(p->name, "np_cnp_dscp"))
			found += p->value == 48;
	}
	assert_int_equal(found, 5);
	/* every name the doctor records for a ConnectX is there */
	{
		size_t n, k;
		const char *const *names = hw_dcqcn_debugfs_names(&n);

		for (k = 0; k < n; k++) {
			for (i = 0; i < q.nparam && strcmp(q.param[i].name, names[k]); i++)
				;
			if (i == q.nparam)
				fail_msg("%s missing", names[k]);
		}
	}
	dcqcn_params_remove(dir, "va");
	assert_int_equal(hw_nicqos_read(root, "va", &q), 0);
	assert_int_equal(q.dcqcn_source, HW_DCQCN_NONE);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

/* --- replaying a run: DCQCN_TRACE=FILE -------------------------------------------------
 *
 * tests/vlab/h_dcqcn.sh turns a `pfclab link --dcqcn --log` of the virtual lab into
 *   P line min ai hai first time_reset byte_reset threshold min_dec_fac g alpha_ns
 *     initial_alpha rrmp_ns clamp
 *   E t_ns qpn cnp|cut|fr|ai|hai timer|bytes|- rc rt
 * and the reference model, fed each QP's CNP arrival times and byte-counter expiries as
 * pfclab's RP saw them, must give every one of its events (alpha updates are not logged)
 * at the same time, of the same kind, with the rates within 1%.
 */
struct trace_ev {
	uint64_t t;
	uint32_t qpn;
	int kind;
	int by_bytes;
	double rc, rt;
};

static int trace_kind(const char *k)
{
	static const char *const names[] = {
		[DCQCN_EV_CNP] = "cnp", [DCQCN_EV_CUT] = "cut", [DCQCN_EV_FR] = "fr",
		[DCQCN_EV_AI] = "ai", [DCQCN_EV_HAI] = "hai",
	};
	int i;

	for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (names[i] && !strcmp(k, names[i]))
			return i;
	return -1;
}

static int trace_run(const char *path)
{
	static struct trace_ev ev[400000];
	static struct ref_in in[400000];
	struct dcqcn_rp_cfg c = { 0 };
	unsigned long long v[14];
	size_t n = 0, i, k, nq = 0, total = 0, bad = 0;
	uint32_t qps[16];
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		char kind[8], by[8];
		unsigned long long t;
		unsigned q;
		double rc, rt;

		if (line[0] == 'P' && sscanf(line + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
					     &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
					     &v[9], &v[10], &v[11], &v[12], &v[13]) == 14) {
			c = (struct dcqcn_rp_cfg){
				.line_bps = v[0], .min_bps = v[1], .ai_bps = v[2], .hai_bps = v[3],
				.first_bps = v[4], .time_reset_ns = v[5], .byte_reset = v[6],
				.threshold = (uint32_t)v[7], .min_dec_fac = (uint32_t)v[8],
				.g = (uint32_t)v[9], .alpha_ns = v[10], .initial_alpha = (uint32_t)v[11],
				.rrmp_ns = v[12], .clamp_tgt = v[13] != 0,
			};
		} else if (line[0] == 'E' && n < sizeof(ev) / sizeof(ev[0]) &&
			   sscanf(line + 1, "%llu %u %7s %7s %lf %lf", &t, &q, kind, by, &rc, &rt) == 6 &&
			   trace_kind(kind) >= 0) {
			ev[n++] = (struct trace_ev){ t, q, trace_kind(kind), !strcmp(by, "bytes"), rc, rt };
			for (k = 0; k < nq && qps[k] != q; k++)
				;
			if (k == nq && nq < 16)
				qps[nq++] = q;
		}
	}
	fclose(f);
	if (dcqcn_rp_cfg_check(&c) || !n) {
		fprintf(stderr, "%s: no parameters or no events\n", path);
		return 2;
	}
	for (k = 0; k < nq; k++) {
		struct ref m;
		size_t nin = 0, j = 0, ncmp = 0, kinds[6] = { 0 };
		uint64_t bytes = 0;

		/* the inputs: CNPs and byte-counter expiries, in the order they came */
		for (i = 0; i < n; i++) {
			if (ev[i].qpn != qps[k])
				continue;
			if (ev[i].kind == DCQCN_EV_CNP)
				in[nin++] = (struct ref_in){ ev[i].t, 1, 0 };
			else if (ev[i].by_bytes && ev[i].kind != DCQCN_EV_CUT) {
				bytes += c.byte_reset;
				in[nin++] = (struct ref_in){ ev[i].t, 0, bytes };
			}
		}
		/* a byte report before the first CNP sets the reference's baseline, one at the
		 * last event runs the timers up to it */
		memmove(&in[1], &in[0], nin * sizeof(in[0]));
		in[0] = (struct ref_in){ 0, 0, 0 };
		nin++;
		for (i = n; i-- > 0;)
			if (ev[i].qpn == qps[k])
				break;
		in[nin++] = (struct ref_in){ ev[i].t, 0, bytes };
		ref_run(&m, &c, in, nin);
		for (i = 0; i < n; i++) {
			const struct trace_ev *e = &ev[i];

			if (e->qpn != qps[k])
				continue;
			while (j < m.nev && m.ev[j].kind == DCQCN_EV_ALPHA)
				j++;
			if (j == m.nev || m.ev[j].t != e->t || m.ev[j].kind != e->kind ||
			    !close1(m.ev[j].rc, e->rc) || !close1(m.ev[j].rt, e->rt)) {
				if (bad++ < 5)
					fprintf(stderr, "QP %u event %zu: pfclab t=%llu kind %d rc %.0f rt %.0f; "
						"reference %s t=%llu kind %d rc %.0f rt %.0f\n", qps[k], ncmp,
						(unsigned long long)e->t, e->kind, e->rc, e->rt,
						j == m.nev ? "(none)" : "", j == m.nev ? 0ull :
						(unsigned long long)m.ev[j].t, j == m.nev ? -1 : m.ev[j].kind,
						j == m.nev ? 0 : m.ev[j].rc, j == m.nev ? 0 : m.ev[j].rt);
				break;
			}
			kinds[e->kind]++;
			ncmp++;
			j++;
		}
		printf("QP %u: %zu events agree (%zu CNPs, %zu cuts, %zu FR, %zu AI, %zu HAI)\n",
		       qps[k], ncmp, kinds[DCQCN_EV_CNP], kinds[DCQCN_EV_CUT], kinds[DCQCN_EV_FR],
		       kinds[DCQCN_EV_AI], kinds[DCQCN_EV_HAI]);
		total += ncmp;
		free(m.ev);
	}
	return bad ? 1 : 0;
}

int main(void)
{
	const char *trace = getenv("DCQCN_TRACE");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle),
		cmocka_unit_test(test_rp_by_hand),
		cmocka_unit_test(test_rp_alpha),
		cmocka_unit_test(test_np),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_params),
	};

	if (trace && *trace)
		return trace_run(trace);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
