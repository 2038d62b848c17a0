// SPDX-License-Identifier: GPL-2.0-or-later
/* local.c: the monitor engine inside "pfclab top": a sampler thread waits on the
 * engine's timer, turns each sample into a snapshot for the screen, and records it when
 * asked ('r'), apart from the drawing loop.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"
#include "monitor/catalog.h"
#include "monitor/record.h"
#include "monitor/sampler.h"
#include "monitor/sources/setup.h"
#include "monitor/top/feed.h"

struct local {
	struct mon_engine *e;
	struct mon_catalog *cat;
	struct top_local_cfg cfg;
	struct top_snap snap;		/* built by the thread */
	char evmsg[160];		/* the last source event */
	/* recording: the drawing loop asks, the sampler thread acts */
	pthread_mutex_t rlock;
	char want_dir[4096];
	bool want_change;
	struct mon_rec *rec;
	atomic_bool recording;
};

static void on_event(void *arg, const struct mon_event *ev)
{
	struct top_feed *f = arg;
	struct local *l = f->priv;

	if (ev->type != MON_EV_LAYOUT)
		snprintf(l->evmsg, sizeof(l->evmsg), "%s", ev->msg);
	if (l->rec)
		mon_rec_event(l->rec, ev);
}

/* The sources "pfclab monitor" uses for the same options (monitor/sources/setup.c). */
static int add_sources(struct local *l)
{
	const struct top_local_cfg *c = &l->cfg;
	struct mon_sources_want w = {
		.iface = c->iface, .rdma = c->rdma, .rdma_port = c->rdma_port,
		.gpus = c->gpus, .ngpus = c->ngpus,
		.frames = c->frames, .qdisc = c->qdisc,
		.gpu_cadence_ns = mon_sources_gpu_cadence(c->interval_ns, 0),
	};

	return mon_sources_add(l->e, &w);
}

static void to_snap(struct local *l, const struct mon_sample *s, struct top_snap *o)
{
	const struct mon_col *c;
	size_t i, n;

	c = mon_engine_cols(l->e, &n);
	o->n = 0;
	o->seq = s->seq;
	o->src_ns = s->mono_ns;
	o->wall_ns = s->wall_ns;
	o->got_ns = time_mono_ns();
	o->interval_ns = l->cfg.interval_ns;
	o->overruns = s->overruns;
	o->missed = s->overruns_total;
	o->has_missed = true;
	for (i = 0; i < s->ncol && i < n; i++) {
		const struct mon_val *v = &s->v[i];
		uint8_t fl = 0;

		if (!c[i].metric[0])
			continue;
		if (v->flags & MON_V_VALID)
			fl |= TOP_M_VALID;
		if (v->flags & MON_V_DELTA)
			fl |= TOP_M_RATE;
		if (c[i].kind == MON_COUNTER)
			fl |= TOP_M_COUNTER;
		top_snap_put(o, c[i].metric, c[i].unit, fl, v->raw, v->rate);
	}
	snprintf(o->status, sizeof(o->status), "%s", l->evmsg);
}

static void record_step(struct top_feed *f, struct local *l)
{
	char dir[4096];
	bool change;

	pthread_mutex_lock(&l->rlock);
	change = l->want_change;
	l->want_change = false;
	snprintf(dir, sizeof(dir), "%s", l->want_dir);
	pthread_mutex_unlock(&l->rlock);
	if (!change)
		return;
	if (l->rec) {
		if (mon_rec_close(l->rec))
			snprintf(l->evmsg, sizeof(l->evmsg), "record: could not finish meta.json");
		else
			snprintf(l->evmsg, sizeof(l->evmsg), "record stopped");
		l->rec = NULL;
		atomic_store(&l->recording, false);
	}
	if (!dir[0])
		return;
	if (mon_rec_open(dir, l->e, l->cfg.argc, l->cfg.argv, &l->rec)) {
		snprintf(l->evmsg, sizeof(l->evmsg), "record: %s", mon_rec_error(l->rec));
		mon_rec_close(l->rec);
		l->rec = NULL;
		return;
	}
	snprintf(l->evmsg, sizeof(l->evmsg), "recording to %.140s", dir);
	atomic_store(&l->recording, true);
	(void)f;
}

static void *sampler(void *arg)
{
	struct top_feed *f = arg;
	struct local *l = f->priv;
	struct pollfd p[2] = { { .fd = mon_engine_fd(l->e), .events = POLLIN },
			       { .fd = f->wake_fd, .events = POLLIN } };
	const struct mon_sample *s;

	while (!atomic_load(&f->stop)) {
		int rc = poll(p, 2, -1);

		if (rc < 0 && errno != EINTR)
			break;
		if (p[1].revents) {
			uint64_t x;

			if (read(f->wake_fd, &x, sizeof(x)) < 0)
				x = 0;
			record_step(f, l);
		}
		if (!(p[0].revents & POLLIN))
			continue;
		if (mon_engine_wait(l->e) < 0)
			continue;
		mon_engine_sample(l->e, &s);
		if (l->rec && mon_rec_sample(l->rec, s)) {
			snprintf(l->evmsg, sizeof(l->evmsg), "record stopped: %s",
				 mon_rec_error(l->rec));
			mon_rec_close(l->rec);
			l->rec = NULL;
			atomic_store(&l->recording, false);
		}
		to_snap(l, s, &l->snap);
		top_feed_publish(f, &l->snap);
	}
	if (l->rec) {
		mon_rec_close(l->rec);
		l->rec = NULL;
	}
	return NULL;
}

static void local_fini(struct top_feed *f)
{
	struct local *l = f->priv;

	if (!l)
		return;
	mon_engine_free(l->e);
	mon_catalog_free(l->cat);
	top_snap_free(&l->snap);
	pthread_mutex_destroy(&l->rlock);
	free(l);
	f->priv = NULL;
}

int top_local_start(struct top_feed *f, const struct top_local_cfg *cfg, char *err,
		    size_t errlen)
{
	struct mon_engine_cfg ec = { 0 };
	struct local *l = calloc(1, sizeof(*l));
	struct mon_catalog_err cerr;
	int rc, failed;

	if (!l)
		return -ENOMEM;
	f->priv = l;
	f->fini = local_fini;
	l->cfg = *cfg;
	pthread_mutex_init(&l->rlock, NULL);
	atomic_init(&l->recording, false);
	rc = cfg->catalog ? mon_catalog_load(cfg->catalog, &l->cat, &cerr) :
			    mon_catalog_builtin(&l->cat);
	if (rc == -EINVAL && cfg->catalog) {
		snprintf(err, errlen, "catalog %s line %d: %s", cfg->catalog, cerr.line, cerr.why);
		return rc;
	}
	if (rc) {
		snprintf(err, errlen, "catalog %s: %s", cfg->catalog ? cfg->catalog : "(built in)",
			 strerror(-rc));
		return rc;
	}
	ec.interval_ns = cfg->interval_ns;
	ec.catalog = l->cat;
	ec.on_event = on_event;
	ec.arg = f;
	rc = mon_engine_new(&ec, &l->e);
	if (!rc)
		rc = add_sources(l);
	if (rc) {
		snprintf(err, errlen, "setting up the sampler: %s", strerror(-rc));
		return rc;
	}
	rc = mon_engine_start(l->e, &failed);
	if (rc) {
		const struct mon_src *src = failed >= 0 ? mon_engine_src(l->e, (size_t)failed) :
							  NULL;

		if (src)
			snprintf(err, errlen, "%s on %s: %s", src->ops->what, src->dev, src->err);
		else
			snprintf(err, errlen, "starting the sampling timer: %s", strerror(-rc));
		return rc;
	}
	rc = pthread_create(&f->thr, NULL, sampler, f);
	if (rc) {
		snprintf(err, errlen, "starting the sampler thread: %s", strerror(rc));
		return -rc;
	}
	f->started = true;
	return 0;
}

void top_local_record(struct top_feed *f, const char *dir)
{
	struct local *l = f->priv;

	pthread_mutex_lock(&l->rlock);
	snprintf(l->want_dir, sizeof(l->want_dir), "%s", dir ? dir : "");
	l->want_change = true;
	pthread_mutex_unlock(&l->rlock);
	top_feed_wake(f);
}

bool top_local_recording(struct top_feed *f)
{
	struct local *l = f->priv;

	return l && atomic_load(&l->recording);
}
