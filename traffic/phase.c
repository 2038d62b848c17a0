// SPDX-License-Identifier: GPL-2.0-or-later
/* phase.c: the step functions of one traffic phase (states and transitions in phase.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "traffic/phase.h"

void phase_init(struct phase_state *ps, const struct phase_cfg *c)
{
	memset(ps, 0, sizeof(*ps));
	ps->c = *c;
	ps->next_report = c->t0 + c->interval_ns;
	ps->last_report = ps->last_heard = ps->last_progress = c->t0;
}

bool phase_step_clock(struct phase_state *ps, uint64_t now, bool stop_requested)
{
	bool over = ps->c.duration_ns && now >= ps->c.t0 + ps->c.duration_ns;

	if (ps->stopped || !(stop_requested || over))
		return false;
	ps->stopped = true;
	ps->stopped_at = over ? ps->c.t0 + ps->c.duration_ns : now;
	ps->interrupted = stop_requested;
	if ((!ps->c.send || ps->drained) && !ps->local_done) {
		ps->local_done = true;
		ps->local_done_at = now;
	}
	return true;
}

uint64_t phase_cut_at(const struct phase_state *ps)
{
	if (!ps->stopped || !ps->c.send || ps->local_done)
		return UINT64_MAX;
	return ps->stopped_at + PHASE_END_GRACE_NS;
}

bool phase_step_overdue(struct phase_state *ps, uint64_t now)
{
	uint64_t cut = phase_cut_at(ps);

	if (now < cut)
		return false;
	ps->cut_held_ns = ps->woke_late_ns < now - cut ? ps->woke_late_ns : now - cut;
	ps->cut = ps->local_done = true;
	ps->local_done_at = now;
	return true;
}

bool phase_wants_local(const struct phase_state *ps)
{
	return (ps->c.send && !ps->local_done && !ps->drained) || ps->c.imm;
}

int phase_step_local(struct phase_state *ps, int rc, const char *local_why, uint64_t now)
{
	if (rc < 0) {
		snprintf(ps->why, sizeof(ps->why), "%s", local_why);
		return rc;
	}
	if (rc == 1 && ps->c.send && !ps->local_done) {
		/* -D not over yet: the end limit held back the next send (phase.h) */
		if (ps->c.duration_ns && !ps->stopped && now < ps->c.t0 + ps->c.duration_ns) {
			ps->drained = true;
			return 0;
		}
		ps->local_done = true;
		ps->local_done_at = now;
	}
	return 0;
}

bool phase_wants_msgs(const struct phase_state *ps)
{
	return !(ps->peer_done && ps->done_sent);
}

static int on_peer_done(struct phase_state *ps, const struct xchg_msg *m, uint64_t now,
			bool *stop_local)
{
	ps->peer_done = true;
	ps->rx_final = m->u.ctr;
	if ((m->u.ctr.flags & XCHG_CTR_STOPPED) && !ps->stopped) {
		ps->stopped = ps->interrupted = true;
		ps->stopped_at = now;
		*stop_local = true;
	}
	if ((!ps->c.send || (ps->drained && ps->stopped)) && !ps->local_done) {
		ps->local_done = true;
		ps->local_done_at = now;
	}
	return 0;
}

int phase_step_msg(struct phase_state *ps, const struct xchg_msg *m, uint64_t now,
		   bool *stop_local)
{
	*stop_local = false;
	ps->last_heard = now;
	ps->held_ns = 0;
	switch (m->type) {
	case XCHG_PING:
		return 0;
	case XCHG_ABORT:
		snprintf(ps->why, sizeof(ps->why), "peer gave up: %s", m->u.reason);
		return -ECONNABORTED;
	case XCHG_STATS:
	case XCHG_DONE:
		if (m->u.ctr.phase != ps->c.phase || ps->peer_done)
			break;
		ps->rx_now = m->u.ctr;
		if (m->type == XCHG_DONE)
			return on_peer_done(ps, m, now, stop_local);
		ps->rx_row_due = true;
		return 0;
	}
	snprintf(ps->why, sizeof(ps->why), "unexpected %s%s from the peer during phase %u",
		 xchg_type_name(m->type), ps->peer_done ? " after its DONE" : "", ps->c.phase);
	return -EPROTO;
}

static void fill_dir_tx(struct traffic_dir *d, const struct traffic_counters *now,
			const struct traffic_counters *prev, double secs)
{
	d->valid = true;
	d->bytes = now->bytes - prev->bytes;
	d->msgs = now->msgs - prev->msgs;
	d->cqes_valid = d->errors_valid = true;
	d->cqes = now->cqes - prev->cqes;
	d->errors = now->errors - prev->errors;
	d->secs = secs;
}

static void fill_dir_rx(struct traffic_dir *d, const struct xchg_counters *now,
			const struct xchg_counters *prev, bool imm, uint64_t rx_cqes, double secs)
{
	d->valid = true;
	d->bytes = now->bytes - prev->bytes;
	d->msgs = now->msgs - prev->msgs;
	d->errors_valid = true;
	d->errors = now->errors - prev->errors;
	d->cqes_valid = imm;	/* receive completions exist only with --imm */
	d->cqes = rx_cqes;
	d->secs = secs;
}

static void counters_msg(struct xchg_msg *m, uint8_t type, const struct phase_state *ps,
			 uint64_t elapsed, uint32_t flags, const struct traffic_counters *ctr)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->u.ctr = (struct xchg_counters){
		.phase = ps->c.phase, .flags = flags, .elapsed_ns = elapsed, .bytes = ctr->bytes,
		.msgs = ctr->msgs, .completions = ctr->cqes, .errors = ctr->errors,
	};
}

bool phase_rows_follow_peer(const struct phase_state *ps)
{
	return !ps->c.send && ps->c.peer_sends;
}

bool phase_step_report(struct phase_state *ps, uint64_t now, const struct traffic_counters *ctr,
		       struct traffic_row *row, struct xchg_msg *stats, bool *send_stats)
{
	double secs, rx_secs;

	*send_stats = false;
	if (!phase_wants_msgs(ps) ||
	    (phase_rows_follow_peer(ps) ? !ps->rx_row_due : now < ps->next_report))
		return false;
	ps->rx_row_due = false;
	/* Rates over measured time: ours since the last row, the peer's from the elapsed
	 * times in its STATS.
	 */
	secs = (double)(now - ps->last_report) / 1e9;
	rx_secs = ps->rx_now.elapsed_ns > ps->rx_prev.elapsed_ns ?
		  (double)(ps->rx_now.elapsed_ns - ps->rx_prev.elapsed_ns) / 1e9 : secs;
	memset(row, 0, sizeof(*row));
	row->phase = ps->c.phase;
	row->size = ps->c.size;
	row->t = (double)(now - ps->c.t0) / 1e9;
	if (ps->c.send)
		fill_dir_tx(&row->tx, ctr, &ps->tx_prev, secs);
	/* The received side comes from the peer's STATS. On a side that also sends, until
	 * the peer's next one arrives (its interval ends when ours does, and the message may
	 * come just after our row) the row leaves it out rather than show 0 bytes; the next
	 * row then covers the peer's intervals since the last one, over their own measured
	 * time. A receive-only side's rows follow the STATS (phase_rows_follow_peer).
	 */
	if (ps->c.peer_sends && ps->rx_now.elapsed_ns > ps->rx_prev.elapsed_ns) {
		fill_dir_rx(&row->rx, &ps->rx_now, &ps->rx_prev, ps->c.imm,
			    ctr->rx_cqes - ps->rx_cqes_prev, rx_secs);
		ps->rx_prev = ps->rx_now;
		ps->rx_cqes_prev = ctr->rx_cqes;
	}
	ps->tx_prev = *ctr;
	/* A sending side sends its counters each interval until its DONE: the peer's rows
	 * of received bytes come from them. A receive-only side has none to send: its
	 * heartbeat's PINGs tell the peer it is alive (STATS of zeros from it cost the
	 * one-way data path about 0.1% of its rate on Soft-RoCE in an emulated guest).
	 */
	if (ps->c.send && !ps->done_sent) {
		counters_msg(stats, XCHG_STATS, ps, now - ps->c.t0, 0, ctr);
		*send_stats = true;
	}
	ps->last_report = now;
	while (ps->next_report <= now)
		ps->next_report += ps->c.interval_ns;
	return true;
}

bool phase_step_done(struct phase_state *ps, uint64_t now, const struct traffic_counters *ctr,
		     struct xchg_msg *done)
{
	if (!ps->local_done || ps->done_sent)
		return false;
	if (!ps->local_done_at)
		ps->local_done_at = now;
	counters_msg(done, XCHG_DONE, ps, ps->local_done_at - ps->c.t0,
		     ps->interrupted ? XCHG_CTR_STOPPED : 0, ctr);
	ps->done_sent = true;
	return true;
}

uint64_t phase_silence_limit(const struct phase_cfg *c)
{
	uint64_t check = PHASE_CHECK_NS < c->peer_timeout_ns / 8 ? PHASE_CHECK_NS :
			 c->peer_timeout_ns / 8;

	return c->peer_timeout_ns / 4 * 3 - check;
}

void phase_step_late(struct phase_state *ps, uint64_t now, uint64_t late_ns)
{
	ps->woke_late_ns = late_ns;
	if (late_ns <= PHASE_CHECK_NS)
		return;
	ps->held_ns += late_ns;
	if (ps->held_ns > now - ps->last_heard)
		ps->held_ns = now - ps->last_heard;
}

uint64_t phase_heard_by(const struct phase_state *ps)
{
	return ps->last_heard + ps->held_ns + phase_silence_limit(&ps->c);
}

int phase_step_check(struct phase_state *ps, uint64_t now, const struct traffic_counters *ctr)
{
	if (ctr->cqes != ps->last_cqes) {
		ps->last_cqes = ctr->cqes;
		ps->last_progress = now;
	} else if (ps->c.send && !ps->local_done && !ps->drained &&
		   now - ps->last_progress > ps->c.stall_ns) {
		snprintf(ps->why, sizeof(ps->why),
			 "%s: no send completed for %.1f s (%" PRIu64 " messages done): the path or the peer stopped acknowledging and no completion error came; check the link, or lower --qp-timeout",
			 ps->c.dev, (double)(now - ps->last_progress) / 1e9, ctr->msgs);
		return -ETIMEDOUT;
	}
	/* The peer sends something at least every 3/8 of the timeout (its heartbeat thread
	 * PINGs when nothing else went out), after its DONE too: silence means the process
	 * stopped (SIGSTOP) or became unreachable.
	 */
	if (phase_wants_msgs(ps) && now > phase_heard_by(ps)) {
		char held[64] = "";

		if (ps->held_ns)
			snprintf(held, sizeof(held), ", %.1f s of it with this side held up",
				 (double)ps->held_ns / 1e9);
		snprintf(ps->why, sizeof(ps->why),
			 "no message from the peer for %.1f s%s (--peer-timeout %.1f s): it stopped, hung or became unreachable",
			 (double)(now - ps->last_heard) / 1e9, held,
			 (double)ps->c.peer_timeout_ns / 1e9);
		return -ETIMEDOUT;
	}
	return 0;
}

bool phase_finished(const struct phase_state *ps)
{
	return ps->done_sent && ps->peer_done;
}

void phase_summary(const struct phase_state *ps, uint64_t now, const struct traffic_counters *ctr,
		   struct traffic_row *row)
{
	memset(row, 0, sizeof(*row));
	row->summary = true;
	row->interrupted = ps->interrupted;
	row->cut = ps->cut;
	row->in_flight = ps->in_flight;
	row->phase = ps->c.phase;
	row->size = ps->c.size;
	row->t = (double)(now - ps->c.t0) / 1e9;
	if (ps->c.send) {
		struct traffic_counters zero = { 0 };

		fill_dir_tx(&row->tx, ctr, &zero, (double)(ps->local_done_at - ps->c.t0) / 1e9);
	}
	if (ps->c.peer_sends) {
		struct xchg_counters zero = { 0 };

		fill_dir_rx(&row->rx, &ps->rx_final, &zero, ps->c.imm, ctr->rx_cqes,
			    (double)ps->rx_final.elapsed_ns / 1e9);
	}
}
