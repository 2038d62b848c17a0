/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phase.h: the protocol of one traffic phase (one message size) as a state struct and
 * step functions. The steps only decide: they do no I/O, so a unit test drives every
 * transition with made-up times, counters and peer messages. traffic.c does the I/O:
 * it posts and polls, reads and sends exchange messages, prints rows.
 *
 *   RUNNING --(duration over / Ctrl-C / peer's DONE says stopped)--> STOPPING
 *   RUNNING --(-D: the last sends that end by -D completed)--> DRAINED: no sends, waits
 *   RUNNING, STOPPING --(all sends completed, or nothing to send)--> local done: DONE sent
 *   DRAINED --(duration over / Ctrl-C / peer's DONE says stopped)--> local done
 *   STOPPING --(sends still in flight PHASE_END_GRACE_NS after the stop)--> local done,
 *          cut: those sends are not counted, and complete before the next phase
 *   local done + peer's DONE --> finished (summary)
 *   any --(completion error / peer ABORT / peer silent > peer timeout / sends stalled /
 *          malformed or unexpected message)--> failed (why says which)
 *
 * While the phase runs a sending side sends STATS every interval (a receive-only side
 * has no counters to send), and each side's heartbeat thread a PING whenever nothing
 * went out for 3/8 of the peer timeout (heartbeat.h), also after its DONE: a peer silent
 * for three quarters of the peer timeout (stopped, unreachable) ends the phase, so it is
 * noticed within the peer timeout of going silent.
 */
#ifndef PFCLAB_TRAFFIC_PHASE_H
#define PFCLAB_TRAFFIC_PHASE_H

#include <stdbool.h>
#include <stdint.h>

#include "traffic/report.h"
#include "traffic/verbs.h"
#include "traffic/xchg.h"

struct phase_cfg {
	uint32_t phase;
	uint32_t size;
	bool send;			/* this side writes */
	bool peer_sends;		/* the peer writes into this side */
	bool imm;			/* --imm: receive completions exist */
	uint64_t t0;			/* measurement start (CLOCK_MONOTONIC ns) */
	uint64_t duration_ns;		/* 0: run until the message count is done */
	uint64_t interval_ns;
	uint64_t stall_ns;		/* sends without a completion for this long: stalled */
	uint64_t peer_timeout_ns;	/* peer silent for this long: gone */
	const char *dev;		/* for messages */
};

struct phase_state {
	struct phase_cfg c;
	bool stopped;			/* no new sends (duration over or stop) */
	uint64_t stopped_at;		/* when: the end of -D, or the moment of the stop */
	bool cut;			/* the part ended with sends in flight (phase_step_overdue) */
	uint64_t in_flight;		/* how many: the caller's count at the cut */
	bool interrupted;		/* stopped early by Ctrl-C on either side */
	bool local_done;		/* this side's part is over */
	bool drained;			/* -D: sends over and completed before the end, which a
					 * send would have passed (traffic_verbs_end_limit): the
					 * part ends at -D, not earlier */
	bool done_sent;
	bool peer_done;
	uint64_t local_done_at;
	uint64_t next_report, last_report;
	uint64_t last_heard;
	uint64_t held_ns;	/* of the time since, this side's own hold-ups (phase_step_late) */
	uint64_t woke_late_ns;		/* how late the last wait ended (phase_step_late) */
	uint64_t cut_held_ns;		/* of the cut's lateness, what that wait explains */
	uint64_t last_cqes, last_progress;
	struct traffic_counters tx_prev;
	uint64_t rx_cqes_prev;
	struct xchg_counters rx_now, rx_prev, rx_final;
	bool rx_row_due;		/* STATS came since the last row (a receive-only side) */
	char why[600];
};

void phase_init(struct phase_state *ps, const struct phase_cfg *c);

/* The clock and Ctrl-C. true once, when the caller must stop posting new sends now. */
bool phase_step_clock(struct phase_state *ps, uint64_t now, bool stop_requested);

/* A stopped side waits this long for its sends in flight: a paused or lossy path can
 * hold one for the QP's retransmission timeout (4.3 s at --qp-timeout 20), and the phase
 * still ends within half a second of -D. Sends timed to complete at most
 * TRAFFIC_END_SLACK_NS after the end do so with room to spare. */
#define PHASE_END_GRACE_NS 300000000ULL

/* When a stopped side with sends in flight stops waiting for them (UINT64_MAX: not
 * stopped, or nothing to wait for): the caller's waits end there. */
uint64_t phase_cut_at(const struct phase_state *ps);

/* true once, when that moment came with the sends not all completed: this side's part
 * is over without them (ps->cut; the caller abandons them and sets ps->in_flight).
 * ps->cut_held_ns: how much of the time from that moment to now the last wait's late end
 * explains (phase_step_late): time this side was held up in a call (not run by the host,
 * or a post call doing software RoCE's work), which no moment it chose could have saved;
 * the rest is the loop's own. */
bool phase_step_overdue(struct phase_state *ps, uint64_t now);

/* Whether the caller should run the post/poll loop (sends, or --imm receives). */
bool phase_wants_local(const struct phase_state *ps);

/* The post/poll loop's result: rc < 0 a failure (completion error) with its text in
 * local_why, 1 every send completed, 0 still running. Returns 0 or rc with ps->why set.
 */
int phase_step_local(struct phase_state *ps, int rc, const char *local_why, uint64_t now);

/* One message from the peer. 0, or -errno with ps->why: -ECONNABORTED for its ABORT,
 * -EPROTO for a message that does not belong here. *stop_local is set when the peer's
 * DONE says it stopped early: the caller stops posting too.
 */
int phase_step_msg(struct phase_state *ps, const struct xchg_msg *m, uint64_t now,
		   bool *stop_local);

/* Whether messages from the peer are still expected in this phase. */
bool phase_wants_msgs(const struct phase_state *ps);

/* Whether this side's rows follow the peer's STATS rather than its own clock: a
 * receive-only side has nothing of its own to report, so its row for an interval is due
 * when the sender's counters for it arrive (one row per interval, none left out or
 * doubled by the two clocks' skew, and no wakeup of its own).
 */
bool phase_rows_follow_peer(const struct phase_state *ps);

/* Report row and, on a sending side, STATS when an interval is over (or, where rows
 * follow the peer, when its STATS came). Returns true with *row filled (and *stats when
 * *send_stats) when one is due.
 */
bool phase_step_report(struct phase_state *ps, uint64_t now, const struct traffic_counters *ctr,
		       struct traffic_row *row, struct xchg_msg *stats, bool *send_stats);

/* DONE when the local part is over and DONE was not sent yet. */
bool phase_step_done(struct phase_state *ps, uint64_t now, const struct traffic_counters *ctr,
		     struct xchg_msg *done);

/* A side with traffic of its own checks the peer (phase_step_check) at least this
 * often; an idle one sleeps until the silence limit is past by PHASE_SLEEP_PAST_NS. */
#define PHASE_CHECK_NS 100000000ULL
#define PHASE_SLEEP_PAST_NS 1000000ULL

/* How long the peer may be silent before it is declared gone: 3/4 of the timeout, less
 * the loop's check period (at most an eighth of the timeout), so that the check that
 * sees it comes within 3/4 of the timeout; the last quarter is left for the host's own
 * scheduling delays. */
uint64_t phase_silence_limit(const struct phase_cfg *c);

/* This side's loop came back late_ns after the moment it meant to (0: on time; a post
 * call that did Soft-RoCE's work for seconds, or a host that did not run it; the last
 * one is kept for phase_step_overdue): the peer cannot be heard while this side does
 * not run, and on a shared CPU the peer was held up as well, so past PHASE_CHECK_NS
 * that time does not count as the peer's silence (a stopped peer is then noticed that
 * much later). */
void phase_step_late(struct phase_state *ps, uint64_t now, uint64_t late_ns);

/* The moment by which the peer must be heard from: the silence limit after its last
 * message, moved on by this side's own hold-ups since. */
uint64_t phase_heard_by(const struct phase_state *ps);

/* Sends stalled, or the peer silent too long: -ETIMEDOUT with ps->why; else 0. */
int phase_step_check(struct phase_state *ps, uint64_t now, const struct traffic_counters *ctr);

bool phase_finished(const struct phase_state *ps);

/* The summary row of a finished phase (rx_cqes: receive completions counted here). */
void phase_summary(const struct phase_state *ps, uint64_t now, const struct traffic_counters *ctr,
		   struct traffic_row *row);

#endif
