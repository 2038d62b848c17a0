// SPDX-License-Identifier: GPL-2.0-or-later
/* src_frames.c: monitor counter source "frames". A thread runs the capture engine on
 * the source's device; sample() copies its counters (frames per kind, PFC frames per
 * priority, CE-marked RoCEv2, truncated/invalid, kernel drops, and the paused time per
 * priority from the captured frames' pause timers at the link speed) under a mutex, so
 * the monitor's sampling tick never waits on packet I/O.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"
#include "monitor/frames/capture_engine.h"
#include "monitor/sources/sources.h"

enum {
	F_PAUSE, F_PFC, F_PFC_P0, F_CNP = F_PFC_P0 + 8, F_ROCE, F_ROCE_CE, F_TRUNC, F_INVAL,
	F_DROPS, F_PAUSED_P0, F_N = F_PAUSED_P0 + FRAMES_NPRIO,	/* priorities 0..7, PAUSE */
};

/* The capture thread waits at most this long for frames, then looks at the stop flag;
 * the kernel's drop count is fetched as often. Frames themselves wake it at once, so
 * this only bounds how long closing waits and how old an idle drop count gets.
 */
#define IDLE_MS 100
#define STATS_NS (100 * 1000000ULL)

struct frames_priv {
	struct frames_cap cap;
	pthread_t th;
	pthread_mutex_t mu;
	bool running, stop, failed;
	uint64_t snap[F_N];
	bool drops_valid;
	/* the pause timers as the capture thread last saw them: closed time per priority
	 * and the pauses still running, which sample() counts up to its own clock */
	uint64_t paused_ns[FRAMES_NPRIO];
	struct frames_pauser pausers[FRAMES_MAX_PAUSERS];
	unsigned npausers;
	bool paused_valid[FRAMES_NPRIO];
	uint64_t paused_last_us[FRAMES_NPRIO];	/* what sample() gave last */
	char filter[1024], filter_untagged[512];
};

static void snapshot(struct frames_priv *p)
{
	const struct frames_stats *st = &p->cap.st;
	int i;

	p->snap[F_PAUSE] = st->kind[FRAMES_KIND_PAUSE];
	p->snap[F_PFC] = st->kind[FRAMES_KIND_PFC];
	for (i = 0; i < 8; i++)
		p->snap[F_PFC_P0 + i] = st->prio[i].frames;
	p->snap[F_CNP] = st->kind[FRAMES_KIND_CNP];
	p->snap[F_ROCE] = st->kind[FRAMES_KIND_ROCE];
	p->snap[F_ROCE_CE] = st->roce_ce;
	p->snap[F_TRUNC] = st->status[FRAMES_TRUNCATED];
	p->snap[F_INVAL] = st->status[FRAMES_INVALID];
	p->drops_valid = p->cap.ifs[0].stats_valid;
	p->snap[F_DROPS] = p->cap.ifs[0].drop;
	/* Paused time needs the link speed; a sender beyond the pauser table would go
	 * uncounted, so then it is not given at all. */
	for (i = 0; i < FRAMES_NPRIO; i++) {
		p->paused_ns[i] = st->prio[i].paused_ns;
		p->paused_valid[i] = p->cap.ifs[0].speed_bps && st->prio[i].time_valid &&
				     !st->pausers_dropped;
	}
	p->npausers = st->npausers;
	memcpy(p->pausers, st->pausers, st->npausers * sizeof(st->pausers[0]));
}

static void *capture_thread(void *arg)
{
	struct frames_priv *p = arg;
	uint64_t stats_ns = 0;

	for (;;) {
		uint64_t now;
		int rc;

		pthread_mutex_lock(&p->mu);
		if (p->stop) {
			pthread_mutex_unlock(&p->mu);
			break;
		}
		pthread_mutex_unlock(&p->mu);
		rc = frames_cap_poll(&p->cap, IDLE_MS);
		now = time_mono_ns();
		pthread_mutex_lock(&p->mu);
		if (rc < 0)
			p->failed = true;
		if (now - stats_ns >= STATS_NS || rc < 0) {
			stats_ns = now;
			frames_cap_stats(&p->cap);
		}
		snapshot(p);
		pthread_mutex_unlock(&p->mu);
		if (rc < 0)
			break;
	}
	return NULL;
}

static void frames_close(struct mon_src *s)
{
	struct frames_priv *p = s->priv;

	if (!p)
		return;
	if (p->running) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->th, NULL);
	}
	frames_cap_close(&p->cap);
	pthread_mutex_destroy(&p->mu);
	src_fields_free(s);
	free(p);
	s->priv = NULL;
}

static int frames_init(struct mon_src *s)
{
	struct frames_cap_opts o = { .nifs = 1, .snaplen = 128, .buffer_bytes = 16u << 20,
				     .immediate = true };
	struct frames_priv *p = calloc(1, sizeof(*p));
	sigset_t all, old;
	int rc;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	pthread_mutex_init(&p->mu, NULL);
	frames_cap_filter_build(p->filter, sizeof(p->filter), true, false);
	frames_cap_filter_untagged(p->filter_untagged, sizeof(p->filter_untagged), true, false);
	o.ifnames[0] = s->dev;
	o.filter = p->filter;
	o.filter_untagged = p->filter_untagged;
	rc = frames_cap_open(&p->cap, &o);
	if (rc) {
		snprintf(s->err, sizeof(s->err), "%.250s", p->cap.errmsg);
		frames_close(s);
		return rc == -ENODEV ? -ENODEV : rc;
	}
	/* the capture thread takes no signals: they go to the sampling thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&p->th, NULL, capture_thread, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(s->err, sizeof(s->err), "%s: cannot start the capture thread: %s",
			 s->dev, strerror(rc));
		frames_close(s);
		return -rc;
	}
	pthread_setname_np(p->th, "pfc-frames");	/* for ps -L, top -H */
	p->running = true;
	src_info_add(s, "capture_filter", "PAUSE/PFC, CNP, CE-marked RoCEv2");
	return 0;
}

static int frames_discover(struct mon_src *s)
{
	static const char *const names[F_N] = {
		[F_PAUSE] = "pause_frames", [F_PFC] = "pfc_frames",
		[F_PFC_P0 + 0] = "pfc_prio0_frames", [F_PFC_P0 + 1] = "pfc_prio1_frames",
		[F_PFC_P0 + 2] = "pfc_prio2_frames", [F_PFC_P0 + 3] = "pfc_prio3_frames",
		[F_PFC_P0 + 4] = "pfc_prio4_frames", [F_PFC_P0 + 5] = "pfc_prio5_frames",
		[F_PFC_P0 + 6] = "pfc_prio6_frames", [F_PFC_P0 + 7] = "pfc_prio7_frames",
		[F_CNP] = "cnp_frames", [F_ROCE] = "roce_frames", [F_ROCE_CE] = "roce_ce_frames",
		[F_TRUNC] = "truncated_frames", [F_INVAL] = "invalid_frames",
		[F_DROPS] = "capture_kernel_drops",
		[F_PAUSED_P0 + 0] = "pfc_prio0_paused_us", [F_PAUSED_P0 + 1] = "pfc_prio1_paused_us",
		[F_PAUSED_P0 + 2] = "pfc_prio2_paused_us", [F_PAUSED_P0 + 3] = "pfc_prio3_paused_us",
		[F_PAUSED_P0 + 4] = "pfc_prio4_paused_us", [F_PAUSED_P0 + 5] = "pfc_prio5_paused_us",
		[F_PAUSED_P0 + 6] = "pfc_prio6_paused_us", [F_PAUSED_P0 + 7] = "pfc_prio7_paused_us",
		[F_PAUSED_P0 + FRAMES_PRIO_PAUSE] = "pause_paused_us",
	};
	int i, rc = src_fields_reserve(s, F_N);

	if (rc)
		return rc;
	for (i = 0; i < F_N; i++)
		src_field_set(&s->fields[i], names[i], MON_COUNTER, 64,
			      i >= F_PAUSED_P0 ? "us" : "frames");
	return 0;
}

/* Priority q's paused time up to now (wall clock, as the frames' timestamps): the closed
 * pauses, and of each running one the part before now and before its expiry. */
static uint64_t paused_now_ns(const struct frames_priv *p, int q, uint64_t now)
{
	uint64_t t = p->paused_ns[q], end;
	unsigned k;

	for (k = 0; k < p->npausers; k++) {
		const struct frames_pauser *ps = &p->pausers[k];

		if (!ps->paused[q])
			continue;
		end = ps->until[q] < now ? ps->until[q] : now;
		if (end > ps->start[q])
			t += end - ps->start[q];
	}
	return t;
}

static int frames_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	struct frames_priv *p = s->priv;
	uint64_t now = time_real_ns(), v;
	bool failed;
	int i;

	pthread_mutex_lock(&p->mu);
	for (i = 0; i < F_PAUSED_P0; i++) {
		vals[i] = p->snap[i];
		valid[i] = i != F_DROPS || p->drops_valid;
	}
	/* A running pause counted up to now may end earlier (its XON not yet taken in by
	 * the capture thread): never report less than before, the counter only grows. */
	for (i = 0; i < FRAMES_NPRIO; i++) {
		valid[F_PAUSED_P0 + i] = p->paused_valid[i];
		v = p->paused_valid[i] ? paused_now_ns(p, i, now) / 1000 : 0;
		if (v < p->paused_last_us[i])
			v = p->paused_last_us[i];
		vals[F_PAUSED_P0 + i] = p->paused_last_us[i] = v;
	}
	failed = p->failed;
	if (failed)
		snprintf(s->err, sizeof(s->err), "%.250s", p->cap.errmsg);
	pthread_mutex_unlock(&p->mu);
	return failed ? -EIO : 0;
}

/* For --stats: the capture thread's CPU (its clock is readable while it runs, and the
 * engine asks before closing). */
static uint64_t frames_thread_cpu(const struct mon_src *s)
{
	const struct frames_priv *p = s->priv;
	struct timespec ts;
	clockid_t cid;

	if (!p || !p->running || pthread_getcpuclockid(p->th, &cid) || clock_gettime(cid, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

const struct mon_src_ops src_frames_ops = {
	.name = "frames",
	.what = "captured frames (libpcap)",
	.init = frames_init,
	.discover = frames_discover,
	.sample = frames_sample,
	.close = frames_close,
	.last_error = src_last_error,
	.thread_cpu_ns = frames_thread_cpu,
};
