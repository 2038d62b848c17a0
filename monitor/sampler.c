// SPDX-License-Identifier: GPL-2.0-or-later
/* sampler.c: the monitor engine: timerfd ticks, source life cycle (unsupported, gone,
 * back), the append-only column table, and per-counter deltas with wrap/reset handling.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "monitor/sampler.h"

struct mon_slot {
	struct mon_src s;
	enum mon_src_state state;
	bool open;
	uint64_t *vals;
	uint8_t *valid;
	uint32_t *colmap;	/* field index -> column */
	size_t cap;
	uint64_t last_try_ns;
	uint64_t last_read_ns;
	bool have_read;
	uint64_t cpu_ns;	/* sampling thread CPU spent in this source on measured samples */
	uint64_t thread_cpu_done_ns;	/* its own threads' CPU from earlier openings */
};

struct mon_engine {
	struct mon_engine_cfg cfg;
	struct mon_slot slot[MON_MAX_SRC];
	size_t nslot;
	struct mon_col *cols;
	size_t ncol, capcol;
	struct mon_val *vals;
	unsigned layout;
	int tfd;
	/* The tick schedule: every interval from t0_ns (the arming of the timer, or the
	 * baseline sample when one was taken before the first wait), and with end_ns one
	 * last tick end_ns after t0_ns.
	 */
	uint64_t t0_ns;
	uint64_t ticks;		/* periods of the schedule passed (timer expirations) */
	uint64_t end_ns;	/* 0: no end */
	uint64_t end_before;	/* with an end: ticks before it (end_ns / interval) */
	uint64_t end_tick;	/* and the first tick at or past it */
	bool waited;		/* mon_engine_wait was called: no baseline any more */
	bool end_armed;		/* the timer is the one-shot of the last tick */
	bool ended;		/* the last tick was waited for */
	uint64_t pending_overruns;
	struct mon_sample cur;
	uint64_t prev_mono;
	/* cfg.cpu_stats: reading a thread's CPU clock is a system call, two per source
	 * per sample would cost as much as a cheap source. So about one sample in
	 * MON_CPU_EVERY, picked at random (a fixed stride would beat in step with the
	 * sources' own periodic work), is measured and the sums scaled up.
	 */
	uint64_t cpu_rng;
	bool cpu_due;		/* the next sample is measured */
	uint64_t cpu_samples;	/* samples measured */
	uint64_t cpu_read_ns;	/* what one clock read costs (calibrated at start) */
	uint64_t cpu_reads;	/* clock reads made on measured samples */
};

#define MON_CPU_EVERY 16

const char *mon_event_name(enum mon_event_type t)
{
	switch (t) {
	case MON_EV_UNSUPPORTED:
		return "unsupported";
	case MON_EV_GAP_BEGIN:
		return "gap_begin";
	case MON_EV_GAP_END:
		return "gap_end";
	case MON_EV_LAYOUT:
		return "layout";
	case MON_EV_ERROR:
		return "error";
	}
	return "?";
}

static void emit(struct mon_engine *e, enum mon_event_type t, const struct mon_src *s,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void emit(struct mon_engine *e, enum mon_event_type t, const struct mon_src *s,
		 const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	struct mon_event ev = {
		.type = t, .mono_ns = time_mono_ns(), .wall_ns = time_real_ns(),
		.seq = e->cur.seq, .src = s, .msg = msg,
	};

	if (!e->cfg.on_event)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	e->cfg.on_event(e->cfg.arg, &ev);
}

int mon_engine_new(const struct mon_engine_cfg *cfg, struct mon_engine **out)
{
	struct mon_engine *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->cfg = *cfg;
	if (!e->cfg.retry_ns)
		e->cfg.retry_ns = 100 * 1000000ULL;
	e->tfd = -1;
	e->cpu_rng = time_mono_ns() | 1;
	e->cpu_due = cfg->cpu_stats;
	*out = e;
	return 0;
}

int mon_engine_add(struct mon_engine *e, const struct mon_src_ops *ops, const char *dev,
		   unsigned port, int index)
{
	struct mon_slot *sl;

	if (e->nslot >= MON_MAX_SRC)
		return -ENOSPC;
	sl = &e->slot[e->nslot];
	memset(sl, 0, sizeof(*sl));
	sl->s.ops = ops;
	snprintf(sl->s.dev, sizeof(sl->s.dev), "%s", dev ? dev : "");
	sl->s.port = port;
	sl->s.index = index;
	return (int)e->nslot++;
}

static int col_find(const struct mon_engine *e, const char *key)
{
	size_t i;

	for (i = 0; i < e->ncol; i++)
		if (!strcmp(e->cols[i].key, key))
			return (int)i;
	return -1;
}

static int col_add(struct mon_engine *e, size_t src, const struct mon_field *f)
{
	const struct mon_src *s = &e->slot[src].s;
	struct mon_catalog_hit hit;
	struct mon_col *c;

	if (e->ncol == e->capcol) {
		size_t ncap = e->capcol ? e->capcol * 2 : 64;
		struct mon_col *nc = realloc(e->cols, ncap * sizeof(*nc));
		struct mon_val *nv;

		if (!nc)
			return -ENOMEM;
		e->cols = nc;
		nv = realloc(e->vals, ncap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		e->vals = nv;
		e->capcol = ncap;
	}
	c = &e->cols[e->ncol];
	memset(c, 0, sizeof(*c));
	memset(&e->vals[e->ncol], 0, sizeof(e->vals[0]));
	snprintf(c->key, sizeof(c->key), "%s:%s:%s", s->ops->name, s->dev, f->raw);
	snprintf(c->raw, sizeof(c->raw), "%s", f->raw);
	c->unit = f->unit ? f->unit : "";
	c->kind = f->kind;
	c->width = f->width ? f->width : 64;
	c->src = (uint16_t)src;
	if (mon_catalog_lookup_dev(e->cfg.catalog, s->ops->name, s->driver, s->dev, f->raw,
				   s->index, &hit)) {
		snprintf(c->metric, sizeof(c->metric), "%s", hit.metric);
		if (*hit.unit)
			c->unit = hit.unit;
		c->kind = hit.kind;
		if (hit.width)
			c->width = hit.width;
	}
	e->layout++;
	return (int)e->ncol++;
}

/* After discover: map each field to a column (appending new ones) and mark presence. */
static int slot_map(struct mon_engine *e, size_t si)
{
	struct mon_slot *sl = &e->slot[si];
	size_t i, n = sl->s.nfields;
	unsigned before = e->layout;

	if (n > sl->cap) {
		uint64_t *v = realloc(sl->vals, n * sizeof(*v));
		uint8_t *ok;
		uint32_t *m;

		if (!v)
			return -ENOMEM;
		sl->vals = v;
		ok = realloc(sl->valid, n);
		if (!ok)
			return -ENOMEM;
		sl->valid = ok;
		m = realloc(sl->colmap, n * sizeof(*m));
		if (!m)
			return -ENOMEM;
		sl->colmap = m;
		sl->cap = n;
	}
	for (i = 0; i < e->ncol; i++)
		if (e->cols[i].src == si)
			e->cols[i].present = false;
	for (i = 0; i < n; i++) {
		char key[MON_KEY_MAX];
		int c;

		snprintf(key, sizeof(key), "%s:%s:%s", sl->s.ops->name, sl->s.dev,
			 sl->s.fields[i].raw);
		c = col_find(e, key);
		if (c < 0)
			c = col_add(e, si, &sl->s.fields[i]);
		if (c < 0)
			return c;
		sl->colmap[i] = (uint32_t)c;
		e->cols[c].present = true;
	}
	return e->layout != before;
}

static void slot_close(struct mon_slot *sl)
{
	if (sl->open && sl->s.ops->thread_cpu_ns)
		sl->thread_cpu_done_ns += sl->s.ops->thread_cpu_ns(&sl->s);
	if (sl->open && sl->s.ops->close)
		sl->s.ops->close(&sl->s);
	sl->open = false;
}

/* Open and discover; 0 on success, -errno otherwise (sl->s.err set). */
static int slot_open(struct mon_engine *e, size_t si)
{
	struct mon_slot *sl = &e->slot[si];
	int rc;

	sl->s.err[0] = '\0';
	rc = sl->s.ops->init(&sl->s);
	if (rc == -EOPNOTSUPP) {
		/* Static field sets are still listed, so they show as n/a. */
		if (!sl->s.ops->discover(&sl->s))
			slot_map(e, si);
		sl->s.ops->close(&sl->s);
		return rc;
	}
	if (rc == 0) {
		sl->open = true;
		rc = sl->s.ops->discover(&sl->s);
	}
	if (rc == 0)
		rc = slot_map(e, si) < 0 ? -ENOMEM : 0;
	if (rc && !sl->s.err[0])
		snprintf(sl->s.err, sizeof(sl->s.err), "%s", strerror(-rc));
	if (rc) {
		sl->open = true;
		slot_close(sl);
	}
	return rc;
}

static void mark_unsupported(struct mon_engine *e, size_t si)
{
	struct mon_slot *sl = &e->slot[si];

	sl->state = MON_SRC_UNSUPPORTED;
	emit(e, MON_EV_UNSUPPORTED, &sl->s, "%s: not supported by %s%s%s", sl->s.ops->what,
	     sl->s.dev, sl->s.err[0] && strcmp(sl->s.err, strerror(EOPNOTSUPP)) ? ": " : "",
	     sl->s.err[0] && strcmp(sl->s.err, strerror(EOPNOTSUPP)) ? sl->s.err : "");
	slot_close(sl);
}

/* Ticks every interval from t0 (absolute CLOCK_MONOTONIC ns), or only the end's when it
 * comes before the first.
 */
static int timer_arm(struct mon_engine *e, uint64_t t0)
{
	struct itimerspec its = { 0 };

	e->t0_ns = t0;
	e->ticks = 0;
	e->end_armed = e->end_ns && e->end_ns < e->cfg.interval_ns;
	if (e->end_armed) {
		its.it_value = ns_timespec(t0 + e->end_ns);
	} else {
		its.it_interval = ns_timespec(e->cfg.interval_ns);
		its.it_value = ns_timespec(t0 + e->cfg.interval_ns);
	}
	if (timerfd_settime(e->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	return 0;
}

int mon_engine_start(struct mon_engine *e, int *failed)
{
	size_t i;
	int rc;

	*failed = -1;
	for (i = 0; i < e->nslot; i++) {
		rc = slot_open(e, i);
		if (rc == -EOPNOTSUPP) {
			mark_unsupported(e, i);
			continue;
		}
		if (rc) {
			*failed = (int)i;
			return rc;
		}
		e->slot[i].state = MON_SRC_OK;
	}
	if (e->cfg.cpu_stats) {
		/* The cheapest of a few back-to-back reads: the cost of one, preemption aside. */
		uint64_t a = time_thread_cpu_ns(), b;

		e->cpu_read_ns = UINT64_MAX;
		for (i = 0; i < 16; i++, a = b) {
			b = time_thread_cpu_ns();
			if (b - a < e->cpu_read_ns)
				e->cpu_read_ns = b - a;
		}
	}
	e->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (e->tfd < 0)
		return -errno;
	return timer_arm(e, time_mono_ns());
}

int mon_engine_set_end(struct mon_engine *e, uint64_t end_ns)
{
	if (e->tfd >= 0)
		return -EBUSY;
	e->end_ns = end_ns;
	e->end_before = end_ns / e->cfg.interval_ns;
	e->end_tick = e->end_before + (end_ns % e->cfg.interval_ns != 0);
	return 0;
}

bool mon_engine_ended(const struct mon_engine *e)
{
	return e->ended;
}

int64_t mon_engine_wait(struct mon_engine *e)
{
	uint64_t exp, missed;
	ssize_t n;

	if (e->ended)
		return -ETIME;
	e->waited = true;
	n = read(e->tfd, &exp, sizeof(exp));
	if (n < 0)
		return -errno;
	if (n != sizeof(exp))
		return -EIO;
	if (e->end_armed) {	/* the end's own tick: nothing between it and the one before */
		e->ended = true;
		return 0;
	}
	missed = exp - 1;
	e->ticks += exp;
	if (e->end_ns && e->ticks >= e->end_tick) {
		/* at or past the end: this tick stands for it, and only the ticks before
		 * it were missed */
		missed -= e->ticks - e->end_tick;
		e->ended = true;
	} else if (e->end_ns && e->ticks == e->end_before) {
		/* the end falls before the next tick: one more, exactly at the end */
		struct itimerspec its = { .it_value = ns_timespec(e->t0_ns + e->end_ns) };

		if (timerfd_settime(e->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
			return -errno;
		e->end_armed = true;
	}
	e->pending_overruns += missed;
	return (int64_t)missed;
}

void mon_val_update(struct mon_col *c, struct mon_val *v, uint64_t raw, uint64_t ns,
		    uint64_t epoch)
{
	v->raw = raw;
	v->flags = MON_V_VALID;
	v->delta = 0;
	v->rate = 0;
	if (c->has_prev && c->prev_epoch != epoch) {
		v->flags |= MON_V_RESET | MON_V_CHANGED;
	} else if (c->has_prev && c->kind == MON_GAUGE) {
		if (raw != c->prev_raw)
			v->flags |= MON_V_CHANGED;
	} else if (c->has_prev && ns > c->prev_ns) {
		uint64_t d;
		bool ok = true;

		if (raw >= c->prev_raw) {
			d = raw - c->prev_raw;
		} else if (c->width == 32 && c->prev_raw <= UINT32_MAX &&
			   c->prev_raw > UINT32_MAX / 2) {
			/* A 32-bit counter in its upper half that reads lower has wrapped;
			 * one in its lower half cannot wrap within one interval, so it
			 * was reset.
			 */
			d = (uint64_t)(uint32_t)(raw - c->prev_raw);
			v->flags |= MON_V_WRAP;
		} else {
			d = 0;
			ok = false;
			v->flags |= MON_V_RESET;
		}
		if (ok) {
			v->delta = d;
			v->rate = (double)d * 1e9 / (double)(ns - c->prev_ns);
			v->flags |= MON_V_DELTA;
		}
		if (!ok || d)
			v->flags |= MON_V_CHANGED;
	}
	c->prev_raw = raw;
	c->prev_ns = ns;
	c->prev_epoch = epoch;
	c->has_prev = true;
}

static void slot_gap(struct mon_engine *e, size_t si, int rc, uint64_t now)
{
	struct mon_slot *sl = &e->slot[si];

	if (!sl->s.err[0])
		snprintf(sl->s.err, sizeof(sl->s.err), "%s", strerror(-rc));
	sl->state = MON_SRC_GAP;
	sl->last_try_ns = now;
	emit(e, MON_EV_GAP_BEGIN, &sl->s, "%s on %s: no data: %s", sl->s.ops->what, sl->s.dev,
	     sl->s.err);
	slot_close(sl);
}

static void slot_sample(struct mon_engine *e, size_t si, uint64_t now)
{
	struct mon_slot *sl = &e->slot[si];
	size_t i;
	int rc;

	if (sl->state == MON_SRC_UNSUPPORTED)
		return;
	if (sl->state == MON_SRC_GAP) {
		if (now - sl->last_try_ns < e->cfg.retry_ns) {
			e->cur.gap_mask |= 1u << si;
			return;
		}
		sl->last_try_ns = now;
		rc = slot_open(e, si);
		if (rc == -EOPNOTSUPP) {
			mark_unsupported(e, si);
			return;
		}
		if (rc) {
			e->cur.gap_mask |= 1u << si;
			return;
		}
		sl->state = MON_SRC_OK;
		sl->s.epoch++;	/* no delta across the gap */
		sl->have_read = false;
		emit(e, MON_EV_GAP_END, &sl->s, "%s on %s: data again", sl->s.ops->what,
		     sl->s.dev);
	}
	if (sl->have_read && sl->s.min_period_ns && now - sl->last_read_ns < sl->s.min_period_ns) {
		/* A slow source: carry its last values, without deltas. */
		for (i = 0; i < sl->s.nfields; i++) {
			struct mon_val *v = &e->vals[sl->colmap[i]];

			if (!sl->valid[i])
				continue;
			v->raw = sl->vals[i];
			v->flags = MON_V_VALID | MON_V_STALE;
		}
		return;
	}
	memset(sl->valid, 0, sl->s.nfields);
	rc = sl->s.ops->sample(&sl->s, sl->vals, sl->valid);
	if (rc == -ESTALE) {
		rc = sl->s.ops->discover(&sl->s);
		if (!rc) {
			int grew = slot_map(e, si);

			if (grew < 0)
				rc = grew;
			else
				emit(e, MON_EV_LAYOUT, &sl->s, "%s on %s: field set changed (%zu fields%s)",
				     sl->s.ops->what, sl->s.dev, sl->s.nfields,
				     grew ? ", new columns" : "");
		}
		if (!rc) {
			memset(sl->valid, 0, sl->s.nfields);
			rc = sl->s.ops->sample(&sl->s, sl->vals, sl->valid);
		}
	}
	if (rc == -EOPNOTSUPP) {
		mark_unsupported(e, si);
		return;
	}
	if (rc) {
		slot_gap(e, si, rc, now);
		e->cur.gap_mask |= 1u << si;
		return;
	}
	sl->last_read_ns = now;
	sl->have_read = true;
	for (i = 0; i < sl->s.nfields; i++) {
		struct mon_col *c = &e->cols[sl->colmap[i]];

		if (!sl->valid[i])
			continue;
		mon_val_update(c, &e->vals[sl->colmap[i]], sl->vals[i], now, sl->s.epoch);
		if (e->vals[sl->colmap[i]].flags & MON_V_RESET)
			e->cur.reset_mask |= 1u << si;
	}
}

int mon_engine_sample(struct mon_engine *e, const struct mon_sample **out)
{
	uint64_t now = time_mono_ns(), c0, c1;
	size_t i;

	e->cur.seq++;
	e->cur.mono_ns = now;
	e->cur.wall_ns = time_real_ns();
	e->cur.dt_ns = e->prev_mono ? now - e->prev_mono : 0;
	e->prev_mono = now;
	e->cur.overruns = e->pending_overruns;
	e->cur.overruns_total += e->pending_overruns;
	e->pending_overruns = 0;
	e->cur.gap_mask = 0;
	e->cur.reset_mask = 0;
	for (i = 0; i < e->ncol; i++)
		e->vals[i].flags = 0;
	/* on a measured sample, one clock read between sources: each span holds one
	 * read's cost, taken off */
	c0 = e->cpu_due ? time_thread_cpu_ns() : 0;
	e->cpu_reads += e->cpu_due;
	for (i = 0; i < e->nslot; i++) {
		if (e->slot[i].state == MON_SRC_UNSUPPORTED)	/* said once; free since */
			continue;
		slot_sample(e, i, now);
		if (!e->cpu_due)
			continue;
		c1 = time_thread_cpu_ns();
		e->cpu_reads++;
		if (c1 - c0 > e->cpu_read_ns)
			e->slot[i].cpu_ns += c1 - c0 - e->cpu_read_ns;
		c0 = c1;
	}
	e->cpu_samples += e->cpu_due;
	if (e->cfg.cpu_stats) {
		/* xorshift64: cheap, and enough to keep the choice out of step */
		e->cpu_rng ^= e->cpu_rng << 13;
		e->cpu_rng ^= e->cpu_rng >> 7;
		e->cpu_rng ^= e->cpu_rng << 17;
		e->cpu_due = e->cpu_rng % MON_CPU_EVERY == 0;
	}
	e->cur.ncol = e->ncol;
	e->cur.v = e->vals;
	*out = &e->cur;
	/* The baseline: the schedule counts from it, so that the first interval is a whole
	 * one and an end falls that long after the first sample.
	 */
	if (e->cur.seq == 1 && !e->waited && e->tfd >= 0)
		return timer_arm(e, now);
	return 0;
}

int mon_engine_fd(const struct mon_engine *e)
{
	return e->tfd;
}

void mon_engine_free(struct mon_engine *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->nslot; i++) {
		slot_close(&e->slot[i]);
		free(e->slot[i].vals);
		free(e->slot[i].valid);
		free(e->slot[i].colmap);
	}
	if (e->tfd >= 0)
		close(e->tfd);
	free(e->cols);
	free(e->vals);
	free(e);
}

size_t mon_engine_nsrc(const struct mon_engine *e)
{
	return e->nslot;
}

const struct mon_src *mon_engine_src(const struct mon_engine *e, size_t i)
{
	return i < e->nslot ? &e->slot[i].s : NULL;
}

int mon_engine_set_cadence(struct mon_engine *e, size_t i, uint64_t ns, bool floor)
{
	if (i >= e->nslot)
		return -EINVAL;
	e->slot[i].s.cadence_ns = ns;
	e->slot[i].s.cadence_floor = floor;
	return 0;
}

void mon_engine_src_cpu(const struct mon_engine *e, size_t i, uint64_t *sampling_ns,
			uint64_t *thread_ns)
{
	const struct mon_slot *sl = &e->slot[i];

	*sampling_ns = mon_engine_cpu_scale(e, sl->cpu_ns);
	*thread_ns = sl->thread_cpu_done_ns;
	if (sl->open && sl->s.ops->thread_cpu_ns)
		*thread_ns += sl->s.ops->thread_cpu_ns(&sl->s);
}

bool mon_engine_cpu_due(const struct mon_engine *e)
{
	return e->cpu_due;
}

uint64_t mon_engine_cpu_scale(const struct mon_engine *e, uint64_t ns)
{
	if (!e->cpu_samples)
		return 0;
	return (uint64_t)((double)ns * (double)e->cur.seq / (double)e->cpu_samples);
}

uint64_t mon_engine_cpu_probes(const struct mon_engine *e)
{
	return e->cpu_reads * e->cpu_read_ns;
}

uint64_t mon_engine_cpu_read_ns(const struct mon_engine *e)
{
	return e->cpu_read_ns == UINT64_MAX ? 0 : e->cpu_read_ns;
}

/* The parts and the whole come from the same measured samples, each part's span inside
 * the whole's, so the parts cannot add up to more than the whole but for two estimates:
 * the clock reads taken off (a calibrated cost per read, where a read can cost less
 * than that: the whole loses more reads than any part, and a part's span under one read
 * counts 0, not less), and the scaling (a sixteenth of the samples that cost more than
 * the average gives more than the thread spent). So: a whole below the parts' sum is
 * raised to it (the rest, loop and rendering, counts 0), and a whole and a wait above
 * what the thread really spent are brought down to that, the parts with them, all in
 * proportion. Each adjustment is flagged for the printout to say.
 */
void mon_cpu_fit(uint64_t *part, size_t n, uint64_t whole_est, uint64_t wait_est,
		 uint64_t thread_ns, struct mon_cpu_fig *f)
{
	uint64_t sum = 0, whole;
	size_t i;

	for (i = 0; i < n; i++)
		sum += part[i];
	whole = whole_est;
	f->raised = sum > whole_est;
	if (f->raised)
		whole = sum;
	f->wait = wait_est;
	f->scaled_down = whole + wait_est > thread_ns;
	if (f->scaled_down) {
		double k = (double)thread_ns / (double)(whole + wait_est);

		/* rounded down: the parts' sum stays within the whole, whole and wait
		 * within the thread's */
		for (i = 0; i < n; i++)
			part[i] = (uint64_t)((double)part[i] * k);
		whole = (uint64_t)((double)whole * k);
		f->wait = (uint64_t)((double)wait_est * k);
	}
	f->whole = whole;
	f->rest = thread_ns - whole - f->wait;
}

enum mon_src_state mon_engine_src_state(const struct mon_engine *e, size_t i)
{
	return e->slot[i].state;
}

const struct mon_col *mon_engine_cols(const struct mon_engine *e, size_t *n)
{
	*n = e->ncol;
	return e->cols;
}

unsigned mon_engine_layout(const struct mon_engine *e)
{
	return e->layout;
}

uint64_t mon_engine_interval(const struct mon_engine *e)
{
	return e->cfg.interval_ns;
}
