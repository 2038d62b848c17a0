// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_phase.c: every transition of a traffic phase (traffic/phase.h) driven with
 * made-up times, counters and peer messages: duration end, Ctrl-C, completion error, all
 * sends done, drained before -D, peer STATS/DONE/ABORT/PING, a peer's early stop,
 * unexpected messages, report rows and STATS, DONE, stalled sends and a silent peer. No
 * RDMA device.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "traffic/phase.h"

#define MS 1000000ULL
#define S 1000000000ULL
#define T0 (100 * S)

static void cfg(struct phase_cfg *c, bool send, bool peer_sends, uint64_t dur)
{
	*c = (struct phase_cfg){
		.phase = 2, .size = 4096, .send = send, .peer_sends = peer_sends, .t0 = T0,
		.duration_ns = dur, .interval_ns = 1 * S, .stall_ns = 10 * S,
		.peer_timeout_ns = 2 * S, .dev = "rxe0",
	};
}

static struct xchg_msg ctr_msg(uint8_t type, uint32_t phase, uint64_t bytes, uint32_t flags)
{
	struct xchg_msg m = { .type = type };

	m.u.ctr = (struct xchg_counters){ .phase = phase, .flags = flags, .bytes = bytes,
					  .msgs = bytes / 4096, .elapsed_ns = 1 * S };
	return m;
}

static void test_clock(void **state)
{
	struct phase_state ps;
	struct phase_cfg c;

	(void)state;
	/* Duration over: stop once, not interrupted; a sender is not done until its sends
	 * complete.
	 */
	cfg(&c, true, false, 5 * S);
	phase_init(&ps, &c);
	assert_false(phase_step_clock(&ps, T0 + 4 * S, false));
	assert_true(phase_step_clock(&ps, T0 + 5 * S, false));
	assert_false(phase_step_clock(&ps, T0 + 6 * S, false));
	assert_true(ps.stopped);
	assert_false(ps.interrupted);
	assert_false(ps.local_done);
	assert_true(phase_wants_local(&ps));
	/* Ctrl-C on a receive-only side: stopped, interrupted, and its part is over. */
	cfg(&c, false, true, 5 * S);
	phase_init(&ps, &c);
	assert_true(phase_step_clock(&ps, T0 + 1 * S, true));
	assert_true(ps.interrupted);
	assert_true(ps.local_done);
	assert_int_equal(ps.local_done_at, T0 + 1 * S);
	assert_false(phase_wants_local(&ps));
	/* A message count (-n) has no end of time. */
	cfg(&c, true, false, 0);
	phase_init(&ps, &c);
	assert_false(phase_step_clock(&ps, T0 + 1000 * S, false));
}

/* A stopped sender waits PHASE_END_GRACE_NS for its sends in flight, counted from the
 * end of -D (not from a late clock read) or from the stop; then its part is over, cut,
 * and DONE goes out. A side with nothing to wait for is never cut. */
static void test_overdue(void **state)
{
	struct traffic_counters ctr = { .bytes = 8192, .msgs = 2 };
	struct phase_state ps;
	struct phase_cfg c;
	struct traffic_row row;
	struct xchg_msg m;

	(void)state;
	cfg(&c, true, true, 5 * S);
	phase_init(&ps, &c);
	assert_int_equal(phase_cut_at(&ps), UINT64_MAX);
	assert_false(phase_step_overdue(&ps, T0 + 100 * S));
	assert_true(phase_step_clock(&ps, T0 + 5 * S + 70 * MS, false));
	assert_int_equal(phase_cut_at(&ps), T0 + 5 * S + PHASE_END_GRACE_NS);
	assert_false(phase_step_overdue(&ps, T0 + 5 * S + PHASE_END_GRACE_NS - 1));
	assert_false(ps.local_done);
	assert_true(phase_step_overdue(&ps, T0 + 5 * S + PHASE_END_GRACE_NS));
	assert_false(phase_step_overdue(&ps, T0 + 6 * S));
	assert_true(ps.cut && ps.local_done);
	assert_int_equal(ps.local_done_at, T0 + 5 * S + PHASE_END_GRACE_NS);
	assert_int_equal(phase_cut_at(&ps), UINT64_MAX);
	assert_false(phase_wants_local(&ps));
	assert_true(phase_step_done(&ps, T0 + 6 * S, &ctr, &m));
	assert_int_equal(m.type, XCHG_DONE);
	assert_int_equal(m.u.ctr.bytes, 8192);
	assert_int_equal(m.u.ctr.elapsed_ns, 5 * S + PHASE_END_GRACE_NS);
	ps.in_flight = 3;
	phase_summary(&ps, T0 + 6 * S, &ctr, &row);
	assert_true(row.cut);
	assert_int_equal(row.in_flight, 3);
	/* Ctrl-C: from the moment of the stop */
	phase_init(&ps, &c);
	assert_true(phase_step_clock(&ps, T0 + 2 * S, true));
	assert_int_equal(phase_cut_at(&ps), T0 + 2 * S + PHASE_END_GRACE_NS);
	/* sends all completed in time: not cut */
	phase_init(&ps, &c);
	assert_true(phase_step_clock(&ps, T0 + 5 * S, false));
	assert_int_equal(phase_step_local(&ps, 1, "", T0 + 5 * S + 50 * MS), 0);
	assert_true(ps.local_done);
	assert_false(phase_step_overdue(&ps, T0 + 9 * S));
	assert_false(ps.cut);
	phase_summary(&ps, T0 + 9 * S, &ctr, &row);
	assert_false(row.cut);
	assert_int_equal(row.in_flight, 0);
	/* a receive-only side has no sends to wait for */
	cfg(&c, false, true, 5 * S);
	phase_init(&ps, &c);
	assert_true(phase_step_clock(&ps, T0 + 5 * S, false));
	assert_int_equal(phase_cut_at(&ps), UINT64_MAX);
	assert_false(phase_step_overdue(&ps, T0 + 9 * S));
}

/* A cut that comes late says how much of the delay the last wait's late end explains:
 * the time this side did not run, never more than the delay itself. */
static void test_overdue_held(void **state)
{
	const uint64_t cut = T0 + 3 * S + PHASE_END_GRACE_NS;
	struct phase_state ps;
	struct phase_cfg c;

	(void)state;
	cfg(&c, true, true, 3 * S);
	/* on time: the wait for the cut ended on it */
	phase_init(&ps, &c);
	assert_true(phase_step_clock(&ps, T0 + 3 * S, false));
	phase_step_late(&ps, cut, 0);
	assert_true(phase_step_overdue(&ps, cut + 20000));
	assert_int_equal(ps.cut_held_ns, 0);
	/* the wait for the cut ended 340 ms late, the decision came 350 ms late */
	phase_init(&ps, &c);
	assert_true(phase_step_clock(&ps, T0 + 3 * S, false));
	phase_step_late(&ps, cut + 340 * MS, 340 * MS);
	assert_true(phase_step_overdue(&ps, cut + 350 * MS));
	assert_int_equal(ps.cut_held_ns, 340 * MS);
	assert_int_equal(ps.local_done_at, cut + 350 * MS);
	/* a wait that was to end before the cut ended 500 ms late: only the 200 ms past
	 * the cut count */
	phase_init(&ps, &c);
	assert_true(phase_step_clock(&ps, T0 + 3 * S, false));
	phase_step_late(&ps, cut + 200 * MS, 500 * MS);
	assert_true(phase_step_overdue(&ps, cut + 200 * MS));
	assert_int_equal(ps.cut_held_ns, 200 * MS);
	/* an earlier late wait, then one on time: the loop's own delay is not excused */
	phase_init(&ps, &c);
	assert_true(phase_step_clock(&ps, T0 + 3 * S, false));
	phase_step_late(&ps, T0 + 2 * S, 400 * MS);
	phase_step_late(&ps, cut, 0);
	assert_true(phase_step_overdue(&ps, cut + 300 * MS));
	assert_int_equal(ps.cut_held_ns, 0);
}

static void test_local(void **state)
{
	struct phase_state ps;
	struct phase_cfg c;

	(void)state;
	cfg(&c, true, false, 0);
	phase_init(&ps, &c);
	assert_int_equal(phase_step_local(&ps, 0, "", T0 + 1 * S), 0);
	assert_false(ps.local_done);
	/* Completion error: its text becomes the phase's reason. */
	assert_int_equal(phase_step_local(&ps, -EIO, "rxe0: QP 0x11: retry exceeded", T0), -EIO);
	assert_string_equal(ps.why, "rxe0: QP 0x11: retry exceeded");
	/* Every send completed. */
	assert_int_equal(phase_step_local(&ps, 1, "", T0 + 3 * S), 0);
	assert_true(ps.local_done);
	assert_int_equal(ps.local_done_at, T0 + 3 * S);
	assert_false(phase_wants_local(&ps));
	/* --imm receivers keep polling receives after their own sends are done. */
	c.imm = true;
	phase_init(&ps, &c);
	ps.local_done = true;
	assert_true(phase_wants_local(&ps));
}

/* -D: sends over before the end (the end limit held the next one back) leave the side
 * DRAINED: no post loop, no stall, and its part ends at -D, at Ctrl-C, or when the
 * peer's DONE says it stopped; not earlier. */
static void test_drained(void **state)
{
	struct phase_state ps;
	struct phase_cfg c;
	struct xchg_msg m;
	bool stop_local;

	(void)state;
	cfg(&c, true, true, 7 * S);
	phase_init(&ps, &c);
	assert_int_equal(phase_step_local(&ps, 1, "", T0 + 6700 * MS), 0);
	assert_true(ps.drained);
	assert_false(ps.local_done);
	assert_false(phase_wants_local(&ps));
	/* no completion for longer than stall_ns while drained is no stall */
	ps.last_heard = T0 + 6800 * MS;
	assert_int_equal(phase_step_check(&ps, T0 + 6900 * MS, &(struct traffic_counters){ 0 }), 0);
	ps.last_progress = T0;
	assert_int_equal(phase_step_check(&ps, T0 + 6900 * MS, &(struct traffic_counters){ 0 }), 0);
	/* the peer's plain DONE does not end it; the end does, at the end */
	m = ctr_msg(XCHG_DONE, 2, 4096, 0);
	assert_int_equal(phase_step_msg(&ps, &m, T0 + 6950 * MS, &stop_local), 0);
	assert_false(stop_local);
	assert_false(ps.local_done);
	assert_true(phase_step_clock(&ps, T0 + 7001 * MS, false));
	assert_true(ps.local_done);
	assert_int_equal(ps.local_done_at, T0 + 7001 * MS);
	assert_false(ps.interrupted);
	/* Ctrl-C while drained ends it at once */
	phase_init(&ps, &c);
	phase_step_local(&ps, 1, "", T0 + 6 * S);
	assert_true(phase_step_clock(&ps, T0 + 6500 * MS, true));
	assert_true(ps.local_done && ps.interrupted);
	assert_int_equal(ps.local_done_at, T0 + 6500 * MS);
	/* and so does the peer's DONE that says it stopped */
	phase_init(&ps, &c);
	phase_step_local(&ps, 1, "", T0 + 6 * S);
	m = ctr_msg(XCHG_DONE, 2, 4096, XCHG_CTR_STOPPED);
	assert_int_equal(phase_step_msg(&ps, &m, T0 + 6200 * MS, &stop_local), 0);
	assert_true(stop_local);
	assert_true(ps.local_done);
	/* all sends done at or after the end, after a stop, or with -n: done, not drained */
	phase_init(&ps, &c);
	phase_step_local(&ps, 1, "", T0 + 7 * S);
	assert_true(ps.local_done && !ps.drained);
	cfg(&c, true, true, 0);
	phase_init(&ps, &c);
	phase_step_local(&ps, 1, "", T0 + 2 * S);
	assert_true(ps.local_done && !ps.drained);
}

static void test_peer_messages(void **state)
{
	struct phase_state ps;
	struct phase_cfg c;
	struct xchg_msg m;
	bool stop;

	(void)state;
	cfg(&c, true, true, 5 * S);
	phase_init(&ps, &c);
	m = (struct xchg_msg){ .type = XCHG_PING };
	assert_int_equal(phase_step_msg(&ps, &m, T0 + 1 * S, &stop), 0);
	assert_int_equal(ps.last_heard, T0 + 1 * S);
	m = ctr_msg(XCHG_STATS, 2, 8192, 0);
	assert_int_equal(phase_step_msg(&ps, &m, T0 + 2 * S, &stop), 0);
	assert_int_equal(ps.rx_now.bytes, 8192);
	assert_false(ps.peer_done);
	/* STATS of another phase, a READY, an ENDPOINT: not part of a running phase. */
	m = ctr_msg(XCHG_STATS, 1, 8192, 0);
	assert_int_equal(phase_step_msg(&ps, &m, T0, &stop), -EPROTO);
	assert_non_null(strstr(ps.why, "unexpected STATS"));
	m = (struct xchg_msg){ .type = XCHG_READY };
	assert_int_equal(phase_step_msg(&ps, &m, T0, &stop), -EPROTO);
	m = (struct xchg_msg){ .type = XCHG_ENDPOINT };
	assert_int_equal(phase_step_msg(&ps, &m, T0, &stop), -EPROTO);
	/* DONE: the peer's final counters. */
	m = ctr_msg(XCHG_DONE, 2, 40960, 0);
	assert_int_equal(phase_step_msg(&ps, &m, T0 + 5 * S, &stop), 0);
	assert_false(stop);
	assert_true(ps.peer_done);
	assert_int_equal(ps.rx_final.bytes, 40960);
	assert_false(ps.local_done);	/* this side still sends */
	/* Nothing but heartbeats after a DONE. */
	m = (struct xchg_msg){ .type = XCHG_PING };
	assert_int_equal(phase_step_msg(&ps, &m, T0 + 6 * S, &stop), 0);
	m = ctr_msg(XCHG_STATS, 2, 1, 0);
	assert_int_equal(phase_step_msg(&ps, &m, T0, &stop), -EPROTO);
	assert_non_null(strstr(ps.why, "after its DONE"));
	/* ABORT: the peer's reason. */
	m = (struct xchg_msg){ .type = XCHG_ABORT };
	strcpy(m.u.reason, "rxe1: completion error");
	assert_int_equal(phase_step_msg(&ps, &m, T0, &stop), -ECONNABORTED);
	assert_string_equal(ps.why, "peer gave up: rxe1: completion error");
}

static void test_peer_stopped(void **state)
{
	struct phase_state ps;
	struct phase_cfg c;
	struct xchg_msg m;
	bool stop;

	(void)state;
	/* The peer's Ctrl-C: its DONE says stopped, this side stops posting too. */
	cfg(&c, true, true, 60 * S);
	phase_init(&ps, &c);
	m = ctr_msg(XCHG_DONE, 2, 4096, XCHG_CTR_STOPPED);
	assert_int_equal(phase_step_msg(&ps, &m, T0 + 3 * S, &stop), 0);
	assert_true(stop);
	assert_true(ps.stopped && ps.interrupted);
	/* Receive-only side: the peer's DONE ends its part. */
	cfg(&c, false, true, 60 * S);
	phase_init(&ps, &c);
	m = ctr_msg(XCHG_DONE, 2, 4096, 0);
	assert_int_equal(phase_step_msg(&ps, &m, T0 + 3 * S, &stop), 0);
	assert_false(stop);
	assert_true(ps.local_done);
	assert_int_equal(ps.local_done_at, T0 + 3 * S);
}

static void test_report(void **state)
{
	struct traffic_counters ctr = { .bytes = 1000, .msgs = 10, .cqes = 2, .rx_cqes = 0 };
	struct phase_state ps;
	struct phase_cfg c;
	struct traffic_row row;
	struct xchg_msg m;
	bool send_stats, stop;

	(void)state;
	cfg(&c, true, true, 10 * S);
	phase_init(&ps, &c);
	assert_false(phase_step_report(&ps, T0 + 999 * MS, &ctr, &row, &m, &send_stats));
	m = ctr_msg(XCHG_STATS, 2, 3000, 0);
	phase_step_msg(&ps, &m, T0 + 900 * MS, &stop);
	assert_true(phase_step_report(&ps, T0 + 1 * S, &ctr, &row, &m, &send_stats));
	assert_true(send_stats);
	assert_int_equal(m.type, XCHG_STATS);
	assert_int_equal(m.u.ctr.phase, 2);
	assert_int_equal(m.u.ctr.bytes, 1000);
	assert_int_equal(m.u.ctr.elapsed_ns, 1 * S);
	assert_false(row.summary);
	assert_int_equal(row.size, 4096);
	assert_true(row.tx.valid && row.rx.valid);
	assert_int_equal(row.tx.bytes, 1000);
	assert_int_equal(row.rx.bytes, 3000);
	assert_true(row.tx.secs > 0.999 && row.tx.secs < 1.001);
	/* The next row holds the difference; a late loop skips the missed intervals. The
	 * peer's next STATS has not come: no received side rather than 0 bytes.
	 */
	ctr.bytes = 2500;
	assert_true(phase_step_report(&ps, T0 + 3500 * MS, &ctr, &row, &m, &send_stats));
	assert_int_equal(row.tx.bytes, 1500);
	assert_true(row.tx.valid && !row.rx.valid);
	assert_int_equal(ps.next_report, T0 + 4 * S);
	/* Its two next STATS arrive together: one row holds both intervals' bytes over the
	 * peer's own 2 s.
	 */
	m = ctr_msg(XCHG_STATS, 2, 5000, 0);
	m.u.ctr.elapsed_ns = 2 * S;
	phase_step_msg(&ps, &m, T0 + 3700 * MS, &stop);
	m = ctr_msg(XCHG_STATS, 2, 9000, 0);
	m.u.ctr.elapsed_ns = 3 * S;
	phase_step_msg(&ps, &m, T0 + 3800 * MS, &stop);
	/* After this side's DONE: rows go on, STATS do not. */
	ps.local_done = true;
	assert_true(phase_step_done(&ps, T0 + 3900 * MS, &ctr, &m));
	assert_true(phase_step_report(&ps, T0 + 4 * S, &ctr, &row, &m, &send_stats));
	assert_false(send_stats);
	assert_true(row.rx.valid);
	assert_int_equal(row.rx.bytes, 6000);
	assert_true(row.rx.secs > 1.999 && row.rx.secs < 2.001);

	/* A receive-only side: no STATS of its own (its heartbeat keeps the peer informed),
	 * and its rows follow the peer's STATS, not its own clock: a row when one arrives,
	 * early or late, none without, and none for the peer's DONE (the summary has it).
	 */
	cfg(&c, false, true, 10 * S);
	phase_init(&ps, &c);
	assert_true(phase_rows_follow_peer(&ps));
	assert_false(phase_step_report(&ps, T0 + 1 * S, &ctr, &row, &m, &send_stats));
	m = ctr_msg(XCHG_STATS, 2, 3000, 0);
	phase_step_msg(&ps, &m, T0 + 1020 * MS, &stop);
	assert_true(phase_step_report(&ps, T0 + 1020 * MS, &ctr, &row, &m, &send_stats));
	assert_false(send_stats);
	assert_false(row.tx.valid);
	assert_true(row.rx.valid);
	assert_int_equal(row.rx.bytes, 3000);
	assert_true(row.rx.secs > 0.999 && row.rx.secs < 1.001);
	assert_false(phase_step_report(&ps, T0 + 2500 * MS, &ctr, &row, &m, &send_stats));
	m = ctr_msg(XCHG_STATS, 2, 7000, 0);
	m.u.ctr.elapsed_ns = 2 * S;
	phase_step_msg(&ps, &m, T0 + 2990 * MS, &stop);
	assert_true(phase_step_report(&ps, T0 + 2990 * MS, &ctr, &row, &m, &send_stats));
	assert_int_equal(row.rx.bytes, 4000);
	m = ctr_msg(XCHG_DONE, 2, 9000, 0);
	m.u.ctr.elapsed_ns = 2500 * MS;
	phase_step_msg(&ps, &m, T0 + 3000 * MS, &stop);
	assert_false(phase_step_report(&ps, T0 + 3000 * MS, &ctr, &row, &m, &send_stats));
	/* The sides that send keep their own clock. */
	cfg(&c, true, true, 10 * S);
	phase_init(&ps, &c);
	assert_false(phase_rows_follow_peer(&ps));
	cfg(&c, true, false, 10 * S);
	phase_init(&ps, &c);
	assert_false(phase_rows_follow_peer(&ps));
}

static void test_done(void **state)
{
	struct traffic_counters ctr = { .bytes = 40960, .msgs = 10, .cqes = 1 };
	struct phase_state ps;
	struct phase_cfg c;
	struct traffic_row row;
	struct xchg_msg m;
	bool stop;

	(void)state;
	cfg(&c, true, true, 5 * S);
	phase_init(&ps, &c);
	assert_false(phase_step_done(&ps, T0, &ctr, &m));
	phase_step_clock(&ps, T0 + 2 * S, true);	/* Ctrl-C */
	phase_step_local(&ps, 1, "", T0 + 2100 * MS);
	assert_true(phase_step_done(&ps, T0 + 2200 * MS, &ctr, &m));
	assert_int_equal(m.type, XCHG_DONE);
	assert_int_equal(m.u.ctr.flags, XCHG_CTR_STOPPED);
	assert_int_equal(m.u.ctr.elapsed_ns, 2100 * MS);
	assert_int_equal(m.u.ctr.bytes, 40960);
	assert_false(phase_step_done(&ps, T0 + 2300 * MS, &ctr, &m));	/* once */
	assert_false(phase_finished(&ps));
	assert_true(phase_wants_msgs(&ps));
	m = ctr_msg(XCHG_DONE, 2, 8192, XCHG_CTR_STOPPED);
	phase_step_msg(&ps, &m, T0 + 2400 * MS, &stop);
	assert_true(phase_finished(&ps));
	assert_false(phase_wants_msgs(&ps));
	phase_summary(&ps, T0 + 2500 * MS, &ctr, &row);
	assert_true(row.summary && row.interrupted);
	assert_int_equal(row.tx.bytes, 40960);
	assert_true(row.tx.secs > 2.099 && row.tx.secs < 2.101);
	assert_int_equal(row.rx.bytes, 8192);
}

static void test_silent_peer(void **state)
{
	struct traffic_counters ctr = { 0 };
	struct phase_state ps;
	struct phase_cfg c;
	struct xchg_msg m;
	bool stop;

	(void)state;
	cfg(&c, false, true, 60 * S);
	phase_init(&ps, &c);
	/* 3/4 of the timeout less the 100 ms check period: seen by 3/4 of it */
	assert_int_equal(phase_silence_limit(&c), 1400 * MS);
	m = (struct xchg_msg){ .type = XCHG_PING };
	phase_step_msg(&ps, &m, T0 + 1 * S, &stop);
	assert_int_equal(phase_step_check(&ps, T0 + 2400 * MS, &ctr), 0);
	assert_int_equal(phase_step_check(&ps, T0 + 2401 * MS, &ctr), -ETIMEDOUT);
	assert_non_null(strstr(ps.why, "no message from the peer for 1.4 s (--peer-timeout 2.0 s)"));
	/* a short timeout: the check period is at most an eighth of it */
	cfg(&c, false, true, 60 * S);
	c.peer_timeout_ns = 400 * MS;
	assert_int_equal(phase_silence_limit(&c), 250 * MS);
	cfg(&c, false, true, 60 * S);
	/* Any message counts: a PING after this side's DONE keeps the peer alive. */
	ps.local_done = true;
	phase_step_done(&ps, T0 + 2600 * MS, &ctr, &m);
	m = (struct xchg_msg){ .type = XCHG_PING };
	assert_int_equal(phase_step_msg(&ps, &m, T0 + 3 * S, &stop), 0);
	assert_int_equal(phase_step_check(&ps, T0 + 4 * S, &ctr), 0);
	/* Once both DONEs crossed, silence is expected. */
	ps.peer_done = true;
	assert_int_equal(phase_step_check(&ps, T0 + 100 * S, &ctr), 0);
}

/* This side's own hold-up past PHASE_CHECK_NS does not count as the peer's silence; a
 * short one does, and a hold-up never puts the last message after now. */
static void test_late_loop(void **state)
{
	struct traffic_counters ctr = { 0 };
	struct phase_state ps;
	struct phase_cfg c;
	struct xchg_msg m = { .type = XCHG_PING };
	bool stop;

	(void)state;
	cfg(&c, true, true, 60 * S);
	phase_init(&ps, &c);
	phase_step_msg(&ps, &m, T0 + 1 * S, &stop);
	/* back 900 ms late at 2.2 s: silent for 0.3 s of this side's running time */
	phase_step_late(&ps, T0 + 2200 * MS, 900 * MS);
	/* an idle side sleeps until then, not until the unmoved limit (2.4 s, now past) */
	assert_int_equal(phase_heard_by(&ps), T0 + 3300 * MS);
	assert_int_equal(phase_step_check(&ps, T0 + 2200 * MS, &ctr), 0);
	assert_int_equal(phase_step_check(&ps, T0 + 3300 * MS, &ctr), 0);
	assert_int_equal(phase_step_check(&ps, T0 + 3301 * MS, &ctr), -ETIMEDOUT);
	/* the message gives the whole silence and the part this side was held up */
	assert_non_null(strstr(ps.why, "no message from the peer for 2.3 s, 0.9 s of it with this side held up"));
	/* a message from the peer starts the count afresh */
	phase_step_msg(&ps, &m, T0 + 4 * S, &stop);
	assert_int_equal(ps.held_ns, 0);
	assert_int_equal(phase_step_check(&ps, T0 + 5400 * MS, &ctr), 0);
	assert_int_equal(phase_step_check(&ps, T0 + 5401 * MS, &ctr), -ETIMEDOUT);
	/* 100 ms late is the loop's own period: it counts */
	phase_init(&ps, &c);
	phase_step_msg(&ps, &m, T0 + 1 * S, &stop);
	phase_step_late(&ps, T0 + 2400 * MS, PHASE_CHECK_NS);
	assert_int_equal(phase_step_check(&ps, T0 + 2401 * MS, &ctr), -ETIMEDOUT);
	/* late by more than the time since the last message: heard "now" at the latest */
	phase_init(&ps, &c);
	phase_step_msg(&ps, &m, T0 + 2 * S, &stop);
	phase_step_late(&ps, T0 + 2500 * MS, 2 * S);
	assert_int_equal(ps.held_ns, 500 * MS);
	assert_int_equal(phase_step_check(&ps, T0 + 3900 * MS, &ctr), 0);
	assert_int_equal(phase_step_check(&ps, T0 + 3901 * MS, &ctr), -ETIMEDOUT);
}

static void test_stall(void **state)
{
	struct traffic_counters ctr = { .cqes = 5, .msgs = 320 };
	struct phase_state ps;
	struct phase_cfg c;
	struct xchg_msg m = { .type = XCHG_PING };
	bool stop;

	(void)state;
	cfg(&c, true, false, 60 * S);
	c.peer_timeout_ns = 100 * S;
	phase_init(&ps, &c);
	assert_int_equal(phase_step_check(&ps, T0 + 1 * S, &ctr), 0);	/* progress */
	phase_step_msg(&ps, &m, T0 + 10 * S, &stop);
	assert_int_equal(phase_step_check(&ps, T0 + 11 * S, &ctr), 0);
	assert_int_equal(phase_step_check(&ps, T0 + 11001 * MS, &ctr), -ETIMEDOUT);
	assert_non_null(strstr(ps.why, "rxe0: no send completed for 10.0 s (320 messages done)"));
	/* A receive-only side never stalls on sends. */
	cfg(&c, false, true, 60 * S);
	c.peer_timeout_ns = 100 * S;
	phase_init(&ps, &c);
	assert_int_equal(phase_step_check(&ps, T0 + 50 * S, &ctr), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_overdue),
		cmocka_unit_test(test_overdue_held),
		cmocka_unit_test(test_local),
		cmocka_unit_test(test_drained),
		cmocka_unit_test(test_peer_messages),
		cmocka_unit_test(test_peer_stopped),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_done),
		cmocka_unit_test(test_silent_peer),
		cmocka_unit_test(test_late_loop),
		cmocka_unit_test(test_stall),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
