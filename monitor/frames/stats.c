// SPDX-License-Identifier: GPL-2.0-or-later
/* stats.c: accumulates the frame summary (kinds, PFC paused time, CNPs per QP, CE share,
 * timeline) from decoded frames. Pure bookkeeping: no I/O.
 *
 * Paused time follows 802.1Qbb/802.3 Annex 31B receiver semantics: a frame with time
 * q > 0 (re)starts the priority's timer at q quanta of 512 bit times; time 0 (XON)
 * ends the pause at once. A pause lasts from the first XOFF until the timer runs out
 * or an XON arrives; one such interval is one XOFF->XON transition.
 */
#include <stdlib.h>
#include <string.h>

#include "monitor/frames/stats.h"

static uint64_t fnv(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

void *frames_table_slot(const struct frames_table *t, size_t i)
{
	uint8_t *rec;

	if (i >= t->cap)
		return NULL;
	rec = (uint8_t *)t->slots + i * t->rec_size;
	return rec[t->key_len] ? rec : NULL; /* the byte after the key is "used" */
}

static int table_grow(struct frames_table *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 64, i;
	uint8_t *ns = calloc(ncap, t->rec_size);

	if (!ns)
		return -1;
	for (i = 0; i < t->cap; i++) {
		uint8_t *rec = (uint8_t *)t->slots + i * t->rec_size;
		size_t j;

		if (!rec[t->key_len])
			continue;
		j = fnv(rec, t->key_len) & (ncap - 1);
		while (ns[j * t->rec_size + t->key_len])
			j = (j + 1) & (ncap - 1);
		memcpy(ns + j * t->rec_size, rec, t->rec_size);
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
	t->last = NULL;
	return 0;
}

/* Finds or inserts the record for key; NULL when out of memory. */
static void *table_get(struct frames_table *t, const void *key)
{
	size_t j;

	if (t->last && !memcmp(t->last, key, t->key_len))
		return t->last;
	if ((t->n + 1) * 2 > t->cap && table_grow(t))
		return NULL;
	j = fnv(key, t->key_len) & (t->cap - 1);
	for (;;) {
		uint8_t *rec = (uint8_t *)t->slots + j * t->rec_size;

		if (!rec[t->key_len]) {
			memcpy(rec, key, t->key_len);
			rec[t->key_len] = 1;
			t->n++;
			return t->last = rec;
		}
		if (!memcmp(rec, key, t->key_len))
			return t->last = rec;
		j = (j + 1) & (t->cap - 1);
	}
}

void frames_stats_init(struct frames_stats *st, uint64_t speed_bps, uint64_t storm_ns,
		       uint64_t bin_ns)
{
	int p;

	memset(st, 0, sizeof(*st));
	st->speed_bps = speed_bps;
	st->storm_ns = storm_ns;
	st->bin_ns = bin_ns;
	for (p = 0; p < FRAMES_NPRIO; p++)
		st->prio[p].time_valid = true;
	/* The key structs are packed by hand: "used" must follow the key directly. */
	st->cnps.rec_size = sizeof(struct frames_cnp_stats);
	st->cnps.key_len = offsetof(struct frames_cnp_stats, used);
	st->flows.rec_size = sizeof(struct frames_flow_stats);
	st->flows.key_len = offsetof(struct frames_flow_stats, used);
}

/* Makes *arr (of elem-byte items, *cap of them) hold at least need items, the new ones
 * zeroed; doubling, from 64. false when out of memory (*arr is kept). */
static bool grow_zeroed(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *na;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	na = realloc(*arr, n * elem);
	if (!na)
		return false;
	memset((char *)na + *cap * elem, 0, (n - *cap) * elem);
	*arr = na;
	*cap = n;
	return true;
}

/* Adds priority p's paused interval [a, b) to the timeline bins it overlaps (up to the
 * last bin the timeline has room for). */
static void bins_paused(struct frames_stats *st, int p, uint64_t a, uint64_t b)
{
	size_t i, last;
	void *arr;

	if (!st->bin_ns)
		return;
	if (a < st->bin_t0)
		a = st->bin_t0;
	if (b <= a || (a - st->bin_t0) / st->bin_ns >= FRAMES_MAX_BINS)
		return;
	i = (size_t)((a - st->bin_t0) / st->bin_ns);	/* < FRAMES_MAX_BINS: checked above */
	last = (size_t)((b - 1 - st->bin_t0) / st->bin_ns);
	if (last >= FRAMES_MAX_BINS)
		last = FRAMES_MAX_BINS - 1;
	arr = st->bin_paused;
	if (!grow_zeroed(&arr, &st->npaused, last + 1, sizeof(*st->bin_paused))) {
		st->oom = true;
		return;
	}
	st->bin_paused = arr;
	for (; i <= last; i++) {
		uint64_t lo = st->bin_t0 + i * st->bin_ns, hi = lo + st->bin_ns;

		st->bin_paused[i][p] += (b < hi ? b : hi) - (a > lo ? a : lo);
	}
}

static void pause_close(struct frames_stats *st, struct frames_pauser *ps, int p,
			uint64_t end)
{
	struct frames_prio_stats *ps_st = &st->prio[p];
	uint64_t d = end > ps->start[p] ? end - ps->start[p] : 0;

	bins_paused(st, p, ps->start[p], end);
	ps->paused[p] = false;
	ps_st->pauses++;
	ps_st->paused_ns += d;
	if (d > ps_st->longest_ns)
		ps_st->longest_ns = d;
	if (st->storm_ns && d >= st->storm_ns)
		ps_st->storms++;
}

static struct frames_pauser *pauser_get(struct frames_stats *st, const uint8_t mac[6])
{
	unsigned i;

	for (i = 0; i < st->npausers; i++)
		if (!memcmp(st->pausers[i].mac, mac, 6))
			return &st->pausers[i];
	if (st->npausers == FRAMES_MAX_PAUSERS)
		return NULL;
	memcpy(st->pausers[st->npausers].mac, mac, 6);
	return &st->pausers[st->npausers++];
}

static void pause_frame(struct frames_stats *st, uint64_t ts, const uint8_t mac[6], int p,
			uint16_t q, uint64_t bps)
{
	struct frames_prio_stats *pst = &st->prio[p];
	struct frames_pauser *ps;

	pst->frames++;
	if (q) {
		pst->xoff++;
		pst->quanta_sum += q;
	} else {
		pst->xon++;
	}
	if (!bps) {
		pst->time_valid = false;
		return;
	}
	ps = pauser_get(st, mac);
	if (!ps) {
		st->pausers_dropped++;
		return;
	}
	if (ps->paused[p] && ts >= ps->until[p])
		pause_close(st, ps, p, ps->until[p]);
	if (q) {
		if (!ps->paused[p]) {
			ps->paused[p] = true;
			ps->start[p] = ts;
		}
		/* one quantum = 512 bit times */
		ps->until[p] = ts + (uint64_t)((unsigned __int128)q * 512 * 1000000000ull / bps);
	} else if (ps->paused[p]) {
		pause_close(st, ps, p, ts);
	}
}

/* Makes room for k rows before the first one, for a frame stamped before it (a capture
 * whose time steps back): the rows so far and their paused time move up by k. false
 * when out of memory. */
static bool bins_prepend(struct frames_stats *st, size_t k)
{
	size_t used = st->bins_used, np = st->npaused, keep;
	void *arr = st->bins;

	if (!grow_zeroed(&arr, &st->nbins, used + k, sizeof(*st->bins)))
		return false;
	st->bins = arr;
	memmove(st->bins + k, st->bins, used * sizeof(*st->bins));
	memset(st->bins, 0, k * sizeof(*st->bins));
	if (np) {
		/* paused time may reach past the last frame's row; none past the last row */
		keep = np + k > FRAMES_MAX_BINS ? FRAMES_MAX_BINS - k : np;
		arr = st->bin_paused;
		if (!grow_zeroed(&arr, &st->npaused, keep + k, sizeof(*st->bin_paused)))
			return false;
		st->bin_paused = arr;
		memmove(st->bin_paused + k, st->bin_paused, keep * sizeof(*st->bin_paused));
		memset(st->bin_paused, 0, k * sizeof(*st->bin_paused));
	}
	st->bins_used = used + k;
	st->bin_t0 -= k * st->bin_ns;
	return true;
}

static void bin_add(struct frames_stats *st, uint64_t ts, const struct frames_pkt *pk)
{
	struct frames_bin *b;
	uint64_t i;

	if (ts < st->bin_t0) {
		uint64_t d = st->bin_t0 - ts, k = d / st->bin_ns + (d % st->bin_ns != 0);

		if (k > FRAMES_MAX_BINS - st->bins_used) {
			st->bins_over = true;
			return;
		}
		if (!bins_prepend(st, (size_t)k)) {
			st->oom = true;
			return;
		}
	}
	i = (ts - st->bin_t0) / st->bin_ns;
	if (i >= FRAMES_MAX_BINS) { /* in no row: review refuses such a timeline */
		st->bins_over = true;
		return;
	}
	if (i >= st->nbins) {
		void *arr = st->bins;

		if (!grow_zeroed(&arr, &st->nbins, (size_t)i + 1, sizeof(*st->bins))) {
			st->oom = true;
			return;
		}
		st->bins = arr;
	}
	if (i + 1 > st->bins_used)
		st->bins_used = (size_t)i + 1;
	b = &st->bins[i];
	if (pk->status == FRAMES_TRUNCATED)
		b->truncated++;
	else if (pk->status == FRAMES_INVALID)
		b->invalid++;
	else
		b->kind[pk->kind]++;
	if (pk->status == FRAMES_OK && pk->has_bth && pk->ecn == FRAMES_ECN_CE)
		b->ce++;
	if (pk->status == FRAMES_OK && pk->kind == FRAMES_KIND_PFC) {
		int p;

		for (p = 0; p < 8; p++)
			if (pk->pfc_enable & (1u << p))
				b->pfc_prio[p]++;
	}
}

static void cnp_add(struct frames_stats *st, const struct frames_timed *ev)
{
	uint64_t ts = ev->ts_ns;
	struct frames_cnp_key key;
	struct frames_cnp_stats *c;

	memset(&key, 0, sizeof(key));
	key.ipver = ev->ipver;
	memcpy(key.src, ev->u.ip_src, 16);
	key.dqp = ev->dqp;
	c = table_get(&st->cnps, &key);
	if (!c) {
		st->oom = true;
		return;
	}
	if (c->count++ == 0) {
		c->first_ns = ts;
	} else {
		uint64_t gap = ts > c->last_ns ? ts - c->last_ns : 0;

		if (!c->gaps_seen++ || gap < c->gap_min_all)
			c->gap_min_all = gap;
		if (c->ngaps == c->capgaps && st->gaps_stored + c->capgaps <= FRAMES_MAX_GAPS) {
			size_t n = c->capgaps ? c->capgaps * 2 : 16;
			uint64_t *g = realloc(c->gaps, n * sizeof(*g));

			if (!g) {
				st->oom = true;
				return;
			}
			c->gaps = g;
			st->gaps_stored += n - c->capgaps;
			c->capgaps = n;
		}
		if (c->ngaps < c->capgaps) {
			c->gaps[c->ngaps++] = gap;
		} else if (c->capgaps) {
			/* reservoir: the new gap replaces a kept one with chance kept/seen */
			uint64_t x = st->rng ? st->rng : 0x9e3779b97f4a7c15ull;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			st->rng = x;
			if (x % c->gaps_seen < c->capgaps)
				c->gaps[x % c->capgaps] = gap;
		}
	}
	c->last_ns = ts;
}

static void flow_add(struct frames_stats *st, const struct frames_pkt *pk)
{
	struct frames_flow_key key;
	struct frames_flow_stats *f;

	memset(&key, 0, sizeof(key));
	key.ipver = pk->ipver;
	memcpy(key.src, pk->ip_src, 16);
	memcpy(key.dst, pk->ip_dst, 16);
	key.dqp = pk->bth_dqp;
	f = table_get(&st->flows, &key);
	if (!f) {
		st->oom = true;
		return;
	}
	f->packets++;
	f->ecn_filtered |= st->ecn_filtered;
	if (pk->ecn)
		f->ect++;
	if (pk->ecn == FRAMES_ECN_CE)
		f->ce++;
}

/* What counts a frame whatever its time. */
static void counts_add(struct frames_stats *st, const struct frames_pkt *pk)
{
	st->frames++;
	st->bytes += pk->wirelen;
	st->status[pk->status < FRAMES_STATUS_MAX ? pk->status : FRAMES_INVALID]++;
	if (pk->status != FRAMES_OK)
		return;
	st->kind[pk->kind]++;
	if (pk->kind == FRAMES_KIND_ROCE) {
		if (pk->ecn == FRAMES_ECN_CE)
			st->roce_ce++;
		if (!st->counts_only)
			flow_add(st, pk);
	}
}

void frames_stats_add_counts(struct frames_stats *st, uint64_t ts, const struct frames_pkt *pk)
{
	if (st->frames == st->untimed) { /* the first frame with a time */
		st->first_ns = ts;
		st->bin_t0 = st->bin_ns ? ts - ts % st->bin_ns : 0;
	} else if (ts < st->first_ns) {
		st->first_ns = ts;
	}
	if (ts > st->last_ns)
		st->last_ns = ts;
	if (st->bin_ns)
		bin_add(st, ts, pk);
	counts_add(st, pk);
}

void frames_stats_add_untimed(struct frames_stats *st, const struct frames_pkt *pk)
{
	st->untimed++;
	counts_add(st, pk);
}

void frames_timed_from_pkt(struct frames_timed *ev, uint64_t ts, const struct frames_pkt *pk,
			   uint64_t link_bps)
{
	ev->ts_ns = ts;
	ev->link_bps = link_bps;
	ev->kind = (uint8_t)pk->kind;
	if (pk->kind == FRAMES_KIND_CNP) {
		memcpy(ev->u.ip_src, pk->ip_src, 16);
		ev->ipver = pk->ipver;
		ev->dqp = pk->bth_dqp;
		ev->pfc_enable = 0;
		return;
	}
	memcpy(ev->u.mac.src, pk->src, 6);
	if (pk->kind == FRAMES_KIND_PAUSE) {
		ev->pfc_enable = 0;
		ev->u.mac.quanta[0] = pk->pause_quanta;
	} else {
		ev->pfc_enable = pk->pfc_enable;
		memcpy(ev->u.mac.quanta, pk->pfc_quanta, sizeof(ev->u.mac.quanta));
	}
	ev->ipver = 0;
	ev->dqp = 0;
}

void frames_stats_add_timed(struct frames_stats *st, const struct frames_timed *ev)
{
	uint64_t bps = st->speed_bps ? st->speed_bps : ev->link_bps;
	int p;

	switch (ev->kind) {
	case FRAMES_KIND_PAUSE:
	case FRAMES_KIND_PFC:
		if (bps) {
			if (st->speed_seen && st->speed_seen != bps)
				st->speed_mixed = true;
			st->speed_seen = bps;
		}
		if (ev->kind == FRAMES_KIND_PAUSE) {
			pause_frame(st, ev->ts_ns, ev->u.mac.src, FRAMES_PRIO_PAUSE,
				    ev->u.mac.quanta[0], bps);
			break;
		}
		for (p = 0; p < 8; p++)
			if (ev->pfc_enable & (1u << p))
				pause_frame(st, ev->ts_ns, ev->u.mac.src, p, ev->u.mac.quanta[p], bps);
		break;
	case FRAMES_KIND_CNP:
		if (!st->counts_only)
			cnp_add(st, ev);
		break;
	default:
		break;
	}
}

void frames_stats_add(struct frames_stats *st, uint64_t ts, const struct frames_pkt *pk,
		      uint64_t link_bps)
{
	struct frames_timed ev;

	frames_stats_add_counts(st, ts, pk);
	if (!frames_pkt_timed(pk))
		return;
	frames_timed_from_pkt(&ev, ts, pk, link_bps);
	frames_stats_add_timed(st, &ev);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void frames_stats_finish(struct frames_stats *st)
{
	unsigned i;
	size_t k;
	int p;

	for (i = 0; i < st->npausers; i++)
		for (p = 0; p < FRAMES_NPRIO; p++)
			if (st->pausers[i].paused[p])
				pause_close(st, &st->pausers[i], p, st->pausers[i].until[p]);
	for (k = 0; k < st->cnps.cap; k++) {
		struct frames_cnp_stats *c = frames_table_slot(&st->cnps, k);

		if (!c || !c->ngaps)
			continue;
		qsort(c->gaps, c->ngaps, sizeof(*c->gaps), cmp_u64);
		c->gap_min = c->gap_min_all;
		/* nearest-rank percentiles */
		c->gap_med = c->gaps[(c->ngaps - 1) / 2];
		c->gap_p99 = c->gaps[(c->ngaps * 99 + 99) / 100 - 1];
	}
}

void frames_stats_free(struct frames_stats *st)
{
	size_t k;

	for (k = 0; k < st->cnps.cap; k++) {
		struct frames_cnp_stats *c = frames_table_slot(&st->cnps, k);

		if (c)
			free(c->gaps);
	}
	free(st->cnps.slots);
	free(st->flows.slots);
	free(st->bins);
	free(st->bin_paused);
	st->cnps.slots = st->flows.slots = NULL;
	st->cnps.last = st->flows.last = NULL;
	st->bins = NULL;
	st->bin_paused = NULL;
}
