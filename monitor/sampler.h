/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sampler.h: the monitor engine: owns the sources, a CLOCK_MONOTONIC timerfd, the column
 * table and the current sample; computes deltas, rates, wraps, resets, overruns and gaps.
 * Front ends (text, JSON, recorder, dashboard, experiment runner) drive it with
 * mon_engine_wait() + mon_engine_sample(), or poll mon_engine_fd() themselves.
 */
#ifndef PFCLAB_MON_SAMPLER_H
#define PFCLAB_MON_SAMPLER_H

#include "monitor/catalog.h"
#include "monitor/mon.h"

struct mon_engine;

typedef void (*mon_event_cb)(void *arg, const struct mon_event *ev);

struct mon_engine_cfg {
	uint64_t interval_ns;
	uint64_t retry_ns;		/* how often a gone source is retried (default 100 ms) */
	const struct mon_catalog *catalog;	/* may be NULL */
	mon_event_cb on_event;		/* may be NULL */
	bool cpu_stats;			/* account the sampling CPU of each source */
	void *arg;
};

int mon_engine_new(const struct mon_engine_cfg *cfg, struct mon_engine **out);
/* Add a source watching dev (port for RDMA, index for a GPU). Returns its index. */
int mon_engine_add(struct mon_engine *e, const struct mon_src_ops *ops, const char *dev,
		   unsigned port, int index);
/* Open every source and arm the timer. A source that is missing (-ENODEV) or fails
 * makes this return that error with mon_engine_src(e, i)->err set and *failed = i;
 * an unsupported source is reported through the event callback and is no error.
 */
int mon_engine_start(struct mon_engine *e, int *failed);
/* Block until the next tick; returns the missed periods (overruns) or -errno (-EINTR
 * when a signal arrived: the caller decides whether to stop; -ETIME at once after the
 * last tick of mon_engine_set_end).
 */
int64_t mon_engine_wait(struct mon_engine *e);
/* Read every source now and compute the sample; *out valid until the next call; 0 or
 * -errno (re-arming the timer for a baseline). The first sample has no deltas (dt_ns 0).
 * Taken after mon_engine_start and before the first mon_engine_wait, it is the
 * baseline: the ticks are counted from it (the first comes one interval after it), so
 * the deltas of the next sample cover the whole first interval.
 */
int mon_engine_sample(struct mon_engine *e, const struct mon_sample **out);
/* End the schedule end_ns after its start (the baseline sample, else mon_engine_start):
 * ticks every interval before then and one last exactly then, also where the end falls
 * between two ticks (that interval is the shorter). mon_engine_ended() says whether the
 * tick just waited for was the last. 0: no end (the default). Set it before
 * mon_engine_start; -EBUSY after.
 */
int mon_engine_set_end(struct mon_engine *e, uint64_t end_ns);
bool mon_engine_ended(const struct mon_engine *e);
int mon_engine_fd(const struct mon_engine *e);
void mon_engine_free(struct mon_engine *e);

size_t mon_engine_nsrc(const struct mon_engine *e);
const struct mon_src *mon_engine_src(const struct mon_engine *e, size_t i);
/* Reading cadence for source i's own reader thread (before mon_engine_start); with floor,
 * the shortest: the source may read less often where a read costs much CPU. */
int mon_engine_set_cadence(struct mon_engine *e, size_t i, uint64_t ns, bool floor);
/* CPU spent on source i so far: in the sampling thread (only with cfg.cpu_stats; an
 * estimate from a random sixteenth of the samples, scaled) and in the source's own threads.
 */
void mon_engine_src_cpu(const struct mon_engine *e, size_t i, uint64_t *sampling_ns,
			uint64_t *thread_ns);
/* cfg.cpu_stats: whether the next sample is one whose CPU is measured; a front end that
 * measures its own work on the same samples scales its sums with mon_engine_cpu_scale.
 */
bool mon_engine_cpu_due(const struct mon_engine *e);
uint64_t mon_engine_cpu_scale(const struct mon_engine *e, uint64_t ns);
/* The CPU the engine's own clock reads took on the measured samples (an estimate): a
 * front end's sum over a span that holds mon_engine_sample less this is the work alone.
 */
uint64_t mon_engine_cpu_probes(const struct mon_engine *e);
/* The cost of one such clock read, for a front end's own reads. */
uint64_t mon_engine_cpu_read_ns(const struct mon_engine *e);

/* The sampling thread's CPU as --stats prints it: a whole ("reading, computing and
 * writing") and its parts (each source's reads, the recording's share), and the waits
 * on the timer, all scaled from the same measured samples, made to add up honestly.
 * In: part[0..n), whole_est and wait_est, the scaled estimates with the clock reads
 * taken off; thread_ns, what the thread spent in all (measured, not sampled) less
 * those reads. Out: part[] and the figures below.
 */
struct mon_cpu_fig {
	uint64_t whole;		/* >= the sum of the parts */
	uint64_t wait;		/* sleeping until the ticks and waking */
	uint64_t rest;		/* thread_ns - whole - wait: the loop around them */
	bool raised;		/* whole_est was below the parts' sum: raised to it */
	bool scaled_down;	/* whole, wait and parts scaled down to thread_ns */
};
void mon_cpu_fit(uint64_t *part, size_t n, uint64_t whole_est, uint64_t wait_est,
		 uint64_t thread_ns, struct mon_cpu_fig *f);
enum mon_src_state mon_engine_src_state(const struct mon_engine *e, size_t i);
const struct mon_col *mon_engine_cols(const struct mon_engine *e, size_t *n);
/* Bumped whenever columns are appended (a recorder starts a new CSV segment). */
unsigned mon_engine_layout(const struct mon_engine *e);
uint64_t mon_engine_interval(const struct mon_engine *e);

/* The per-value arithmetic, exposed for tests: update v from column state c with a new
 * raw reading at ns in source epoch.
 */
void mon_val_update(struct mon_col *c, struct mon_val *v, uint64_t raw, uint64_t ns,
		    uint64_t epoch);

#endif
