// SPDX-License-Identifier: GPL-2.0-or-later
/* traffic.c: 'pfclab traffic': connects two peers over TCP, agrees on parameters, runs
 * RDMA WRITE phases (one per message size) with a report per interval, and stops cleanly
 * on Ctrl-C, on a peer's failure or on a completion error.
 *
 *   client                                server
 *     | --- HELLO (params, endpoint) --->  |   both compare parameters
 *     | <-- HELLO (params, endpoint) ----  |   QPs to RTR/RTS
 *     | --- READY p ---> <--- READY p ---  |   per phase (message size)
 *     | ==== RDMA WRITE (one way or -b) == |   STATS every interval (sender)
 *     | --- DONE p ----> <--- DONE p ----  |   then the next phase
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "lib/out.h"
#include "lib/util.h"
#include "traffic/auth.h"
#include "traffic/conn.h"
#include "traffic/handshake.h"
#include "traffic/heartbeat.h"
#include "traffic/mem.h"
#include "traffic/opts.h"
#include "traffic/phase.h"
#include "traffic/report.h"
#include "traffic/traffic.h"
#include "traffic/verbs.h"
#include "traffic/xchg.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define EXIT_SKIP 3

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* No SA_RESTART: a blocking wait returns EINTR and the run winds down. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* ---- --check-mem ---------------------------------------------------------------- */

static const char *step_word(enum mem_step_result r)
{
	return r == MEM_STEP_OK ? "OK" : r == MEM_STEP_SKIP ? "SKIP" : "FAIL";
}

/* The steps and the verdict: a text block, or one JSON line. */
static void check_mem_report(const struct traffic_opts *o, const struct mem_check *c,
			     const char *verdict)
{
	struct out p;
	unsigned int i;

	out_begin(&p, o->json);
	out_str(&p, "type", NULL, "check-mem");
	out_str(&p, "backend", "check-mem %s", c->backend);
	out_str(&p, "desc", c->desc[0] ? ": %s" : NULL, c->desc);
	if (o->dev)
		out_str(&p, "device", ", registering with %s", o->dev);
	else
		out_na(&p, "device", ", no RDMA device (-d): registration skipped");
	out_uint(&p, "bytes", NULL, c->len);
	if (c->path)
		out_str(&p, "registration", NULL, c->path);
	else
		out_na(&p, "registration", NULL);
	out_text(&p, "\n");
	out_arr_open(&p, "steps");
	for (i = 0; i < c->nsteps; i++) {
		out_obj_open(&p, NULL);
		out_str(&p, "step", "  %-9s", c->steps[i].name);
		out_str(&p, "result", " %-4s", step_word(c->steps[i].result));
		out_double(&p, "ms", " %9.3f ms", (double)c->steps[i].ns / 1e6);
		out_str(&p, "detail", "  %s\n", c->steps[i].detail);
		out_obj_close(&p);
	}
	out_obj_close(&p);
	out_str(&p, "result", "result: %s\n", verdict);
	out_end_lines(&p);
}

static int check_mem(const struct traffic_opts *o)
{
	const struct mem_ops *ops = mem_ops_find(o->check_mem);
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	struct mem_req req = {
		.len = o->check_size,
		.numa_node = o->numa_node,
		.hugepages = o->hugepages,
		.gpu = o->gpu,
	};
	struct mem_check c;
	const char *verdict;
	int rc;

	if (o->dev) {
		struct ibv_device **list;
		int n = 0, k;

		/* Only a protection domain is needed to try registration. */
		list = ibv_get_device_list(&n);
		if (!list && errno == ENOSYS) {
			pfc_err("--check-mem -d %s: %s; leave out -d to check without registration, or %s",
				o->dev, PFC_NO_RDMA_KERNEL, PFC_NO_RDMA_KERNEL_FIX);
			return EXIT_RUNTIME;
		}
		for (k = 0; list && k < n; k++)
			if (!strcmp(ibv_get_device_name(list[k]), o->dev))
				ctx = ibv_open_device(list[k]);
		if (list)
			ibv_free_device_list(list);
		if (!ctx) {
			pfc_err("--check-mem: cannot open RDMA device '%s' (see 'ibv_devices'); leave out -d to check without registration",
				o->dev);
			return EXIT_RUNTIME;
		}
		pd = ibv_alloc_pd(ctx);
		if (!pd) {
			pfc_errno(errno, "--check-mem: %s: cannot allocate a protection domain", o->dev);
			ibv_close_device(ctx);
			return EXIT_RUNTIME;
		}
	}
	rc = mem_check_run(ops, &req, pd, &c);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	verdict = rc == 0 ? "OK" : rc == -ENODEV ? "SKIP" : "FAIL";

	check_mem_report(o, &c, verdict);
	return rc == 0 ? 0 : rc == -ENODEV ? EXIT_SKIP : EXIT_RUNTIME;
}

/* ---- a run ----------------------------------------------------------------------- */

struct run {
	const struct traffic_opts *o;
	struct traffic_verbs tv;
	int fd;
	char peer[96];
	struct xchg_hello mine;
	struct xchg_hello theirs;
	struct auth_key key;
	struct heartbeat hb;
	bool hb_ready;
	struct phase_state ps;
	struct xchg_msg ready;		/* the peer's READY, taken while settling (settle_peer) */
	bool ready_kept;
	char why[600];
};

/* Every message after the handshake goes through the heartbeat's lock. */
static int xsend(struct run *r, const struct xchg_msg *m, uint64_t timeout_ns, char *why,
		 size_t n)
{
	if (r->hb_ready)
		return heartbeat_send(&r->hb, m, timeout_ns, why, n);
	return conn_send(r->fd, m, timeout_ns, why, n);
}

static int send_msg(struct run *r, const struct xchg_msg *m)
{
	return xsend(r, m, r->o->timeout_ns, r->why, sizeof(r->why));
}

/* What a side may have queued at once with messages of size: it may hold up a post call
 * for that long on a software device (heartbeat.h). */
static uint64_t queued_bytes(const struct run *r, uint32_t size)
{
	return (uint64_t)traffic_verbs_window(r->o, size) * size * r->o->qps;
}

/* The heartbeat thread from now on (see heartbeat.h for when). */
static int hb_thread(struct run *r)
{
	int rc;

	if (r->hb.running)
		return 0;
	rc = heartbeat_start(&r->hb);
	if (rc)
		snprintf(r->why, sizeof(r->why), "cannot start the heartbeat thread: %s",
			 strerror(-rc));
	return rc;
}

/* The main loop's PING where no thread runs; a loop that was late with one hands the
 * PINGs to the thread. Errors go to why (r->why or a phase's). */
static int hb_beat(struct run *r, uint64_t now, char *why, size_t n)
{
	uint64_t late;
	int rc = heartbeat_beat(&r->hb, now, &late, why, n);

	if (rc || !heartbeat_late(&r->hb, late))
		return rc;
	if ((rc = hb_thread(r)))
		snprintf(why, n, "%s", r->why);
	return rc;
}

/* Tell the peer why we give up (best effort: it may be gone already). */
static void send_abort(struct run *r, const char *reason)
{
	struct xchg_msg m = { .type = XCHG_ABORT };
	char ignored[64];

	snprintf(m.u.reason, sizeof(m.u.reason), "%.*s", XCHG_MAX_REASON, reason);
	xsend(r, &m, 200000000ULL, ignored, sizeof(ignored));
}

/* A failed receive from the peer as r->why, with what it likely means. */
static int recv_failed(struct run *r, int rc, const char *during, const char *why)
{
	snprintf(r->why, sizeof(r->why), "%s: %s%s", during, why,
		 rc == -ECONNRESET ? " (the peer exited or was killed)" :
		 rc == -ETIMEDOUT ? " (the peer stopped, hung or became unreachable)" : "");
	return rc;
}

/* A message where `want` is due: 0, or the peer's ABORT and surprises as errors in r->why. */
static int expect_msg(struct run *r, uint8_t want, const struct xchg_msg *m, const char *during)
{
	if (m->type == XCHG_ABORT) {
		snprintf(r->why, sizeof(r->why), "%s: peer gave up: %s", during, m->u.reason);
		return -ECONNABORTED;
	}
	if (m->type != want) {
		snprintf(r->why, sizeof(r->why), "%s: expected %s from the peer, got %s", during,
			 xchg_type_name(want), xchg_type_name(m->type));
		return -EPROTO;
	}
	return 0;
}

/* Receive one message of `want` type, skipping heartbeats; silent_ns: how long the peer may
 * say nothing. ABORT and surprises become errors in r->why.
 */
static int recv_expect(struct run *r, uint8_t want, struct xchg_msg *m, const char *during,
		       uint64_t silent_ns)
{
	char why[512];
	int rc;

	do
		rc = conn_recv(r->fd, m, silent_ns, why, sizeof(why));
	while (!rc && m->type == XCHG_PING && want != XCHG_PING);
	if (rc)
		return recv_failed(r, rc, during, why);
	return expect_msg(r, want, m, during);
}

/* Warm-up: traffic that is not measured, before the phase (each side on its own; the
 * heartbeat thread keeps the peer informed).
 */
static int warmup(struct run *r, uint32_t size, bool send)
{
	uint64_t end = time_mono_ns() + r->o->warmup_ns, now;
	int rc;

	if (!send || !r->o->warmup_ns)
		return 0;
	if (heartbeat_thread_wanted(true, queued_bytes(r, size)) && (rc = hb_thread(r)))
		return rc;
	traffic_verbs_phase_begin(&r->tv, size, true, 0, 0);
	while (!stop_requested && (now = time_mono_ns()) < end) {
		rc = traffic_verbs_phase_run(&r->tv, now + PHASE_CHECK_NS < end ? now + PHASE_CHECK_NS : end);
		if (rc < 0)
			return snprintf(r->why, sizeof(r->why), "%s", r->tv.why), rc;
		if ((rc = hb_beat(r, time_mono_ns(), r->why, sizeof(r->why))))
			return rc;
	}
	traffic_verbs_phase_stop(&r->tv);
	do {
		rc = traffic_verbs_phase_run(&r->tv, time_mono_ns() + PHASE_CHECK_NS);
		if (rc == 0 && (rc = hb_beat(r, time_mono_ns(), r->why, sizeof(r->why))))
			return rc;
	} while (rc == 0 && !stop_requested);
	if (rc < 0)
		return snprintf(r->why, sizeof(r->why), "%s", r->tv.why), rc;
	return 0;
}

/* Both sides at the start of `phase`. */
static int phase_barrier(struct run *r, uint32_t phase)
{
	struct xchg_msg m = { .type = XCHG_READY, .u.phase = phase };
	int rc;

	if ((rc = send_msg(r, &m)))
		return rc;
	/* Before the first phase the peer may still be connecting its QPs (no heartbeats
	 * there): --timeout; later it sends heartbeats through its warm-up.
	 */
	if (r->ready_kept) {
		m = r->ready;
		r->ready_kept = false;
	} else if ((rc = recv_expect(r, XCHG_READY, &m, "waiting for the peer to start",
				     phase || r->o->timeout_ns < r->o->peer_timeout_ns ?
				     r->o->peer_timeout_ns : r->o->timeout_ns))) {
		return rc;
	}
	if (m.u.phase != phase) {
		snprintf(r->why, sizeof(r->why), "peer is at phase %u, this side at %u", m.u.phase, phase);
		return -EPROTO;
	}
	return 0;
}

static void phase_cfg_fill(struct run *r, uint32_t phase, struct phase_cfg *c)
{
	const struct traffic_opts *o = r->o;

	*c = (struct phase_cfg){
		.phase = phase, .size = o->sizes[phase],
		.send = o->bidir || o->host,		/* one-way: the client writes */
		.peer_sends = o->bidir || !o->host, .imm = o->imm, .t0 = r->tv.start_ns,
		.duration_ns = o->duration_ns, .interval_ns = o->interval_ns,
		.peer_timeout_ns = o->peer_timeout_ns, .dev = o->dev,
	};
	/* Sends that make no progress for this long mean a path that silently stopped: the
	 * QP's own timeout/retry normally reports first. Pacing stretches the gap between
	 * signalled completions, so it is added.
	 */
	c->stall_ns = o->timeout_ns;
	if (r->tv.pace_bytes_per_ns > 0)
		c->stall_ns += (uint64_t)((double)o->cq_mod * c->size / r->tv.pace_bytes_per_ns);
}

/* Back from a wait that was to end at until: the clock now, and any lateness told to
 * the peer check (phase_step_late). */
static uint64_t back_from(struct phase_state *ps, uint64_t until)
{
	uint64_t now = time_mono_ns();

	phase_step_late(ps, now, now > until ? now - until : 0);
	return now;
}

static void abandon(struct run *r, struct phase_state *ps);

/* This side's traffic until the next report or check, or a sleep on the socket. */
static int phase_local(struct run *r, struct phase_state *ps)
{
	uint64_t now = time_mono_ns();
	uint64_t until = ps->next_report < now + PHASE_CHECK_NS ? ps->next_report : now + PHASE_CHECK_NS;
	uint64_t end = ps->c.t0 + ps->c.duration_ns, cut = phase_cut_at(ps), quiet;
	int64_t left;

	if (ps->c.duration_ns && !ps->stopped && end < until)
		until = end;
	if (cut < until)
		until = cut;
	if (phase_wants_local(ps)) {
		int rc = traffic_verbs_phase_run(&r->tv, until);

		now = back_from(ps, until);
		rc = phase_step_local(ps, rc, r->tv.why, now);
		/* a return past the cut ends the part on that clock reading: its lateness then
		 * accounts for all of the part's delay, whatever runs between here and the
		 * loop's own check (a host stall there would otherwise go untold) */
		if (!rc && phase_step_overdue(ps, now))
			abandon(r, ps);
		return rc;
	}
	/* This side's DONE, due since the clock ended its part, goes out first (phase_out):
	 * where both sides' parts end at -D (a receive-only side, a drained one) each would
	 * otherwise sleep until the other's message, which then is a PING. */
	if (ps->local_done && !ps->done_sent)
		return 0;
	/* Nothing to post: sleep on the socket until a message, the next row (unless rows
	 * follow the peer's STATS, which wake it anyway), the end, or the moment the peer's
	 * silence would count, or, where no heartbeat thread runs, this side's own PING;
	 * nothing else can happen before (a signal ends the sleep early), so an idle side
	 * does not wake ten times a second. */
	quiet = phase_heard_by(ps) + PHASE_SLEEP_PAST_NS;
	until = ps->next_report < quiet && !phase_rows_follow_peer(ps) ? ps->next_report : quiet;
	if (ps->c.duration_ns && !ps->stopped && end < until)
		until = end;
	if (!r->hb.running && heartbeat_due_ns(&r->hb) < until)
		until = heartbeat_due_ns(&r->hb);
	left = (int64_t)until - (int64_t)time_mono_ns();
	if (phase_wants_msgs(ps) && left > 0) {
		int rc = conn_wait_readable(r->fd, (uint64_t)left);

		if (rc < 0) {
			snprintf(ps->why, sizeof(ps->why), "exchange connection: %s", strerror(-rc));
			return rc;
		}
		back_from(ps, until);
	}
	return 0;
}

/* Messages from the peer that are waiting. */
static int phase_peer(struct run *r, struct phase_state *ps)
{
	struct xchg_msg m;
	char why[512];
	bool stop_local;
	int rc;

	while (phase_wants_msgs(ps) && (rc = conn_readable(r->fd)) > 0) {
		rc = conn_recv(r->fd, &m, r->o->timeout_ns, why, sizeof(why));
		if (rc) {
			snprintf(ps->why, sizeof(ps->why), "%s%s", why,
				 rc == -ECONNRESET ? ": the peer's pfclab traffic exited or was killed" : "");
			return rc == -ECONNRESET ? -ENOTCONN : rc;
		}
		if ((rc = phase_step_msg(ps, &m, time_mono_ns(), &stop_local)))
			return rc;
		if (stop_local)
			traffic_verbs_phase_stop(&r->tv);
	}
	if (rc < 0)
		snprintf(ps->why, sizeof(ps->why), "exchange connection: %s", strerror(-rc));
	return rc < 0 ? rc : 0;
}

static int phase_send(struct run *r, struct phase_state *ps, const struct xchg_msg *m)
{
	return xsend(r, m, r->o->timeout_ns, ps->why, sizeof(ps->why));
}

/* Rows, STATS and DONE that are due. */
static int phase_out(struct run *r, struct phase_state *ps)
{
	uint64_t now = time_mono_ns();
	struct traffic_row row;
	struct xchg_msg m;
	bool send_stats;
	int rc;

	if (phase_step_report(ps, now, &r->tv.ctr, &row, &m, &send_stats)) {
		if (!r->o->quiet && (row.tx.valid || row.rx.valid))
			traffic_report_row(stdout, r->o->json, &row);
		if (send_stats && (rc = phase_send(r, ps, &m)))
			return rc;
	}
	if (phase_step_done(ps, now, &r->tv.ctr, &m) && (rc = phase_send(r, ps, &m)))
		return rc;
	return hb_beat(r, now, ps->why, sizeof(ps->why));
}

#define CUT_HELD_SAID_NS 10000000ULL	/* a hold-up at the cut this long is told */

/* This side's part ended with sends in flight (phase_step_overdue): say so, and leave
 * them to complete before the next phase (settle). */
static void abandon(struct run *r, struct phase_state *ps)
{
	char held[200] = "";

	ps->in_flight = traffic_verbs_phase_abandon(&r->tv);
	/* a part that ended late because this side was held up in a call says so, and how long */
	if (ps->cut_held_ns >= CUT_HELD_SAID_NS)
		snprintf(held, sizeof(held),
			 "; this side was held up %.2f s past that moment (the wait or post call it was in returned that late: the process or its CPU did not run, or the call did software RoCE's work)",
			 (double)ps->cut_held_ns / 1e9);
	pfc_warn("%s: %" PRIu64 " send%s of %u bytes still in flight %.1f s after the %s%s; the phase ends without %s (not counted): a paused path holds sends until it resumes, a lossy one until the QP retransmits (--qp-timeout)",
		 r->o->dev, ps->in_flight, ps->in_flight == 1 ? "" : "s", ps->c.size,
		 (double)PHASE_END_GRACE_NS / 1e9, ps->interrupted ? "stop" : "end of -D", held,
		 ps->in_flight == 1 ? "it" : "them");
}

/* While settle waits, what the peer sent: PINGs; its ABORT or its exit ends the wait (a
 * peer that gave up or was stopped does not acknowledge the sends any more); its READY
 * for the next size is kept for phase_barrier. */
static int settle_peer(struct run *r)
{
	static const char during[] = "waiting for the last size's sends";
	struct xchg_msg m;
	char why[512];
	int rc = 0;

	while (!r->ready_kept && (rc = conn_readable(r->fd)) > 0) {
		if ((rc = conn_recv(r->fd, &m, r->o->timeout_ns, why, sizeof(why))))
			return recv_failed(r, rc, during, why);
		if (m.type == XCHG_PING)
			continue;
		if ((rc = expect_msg(r, XCHG_READY, &m, during)))
			return rc;
		r->ready = m;
		r->ready_kept = true;
	}
	if (rc < 0)
		snprintf(r->why, sizeof(r->why), "%s: exchange connection: %s", during, strerror(-rc));
	return rc < 0 ? rc : 0;
}

/* Before a phase: the last one's abandoned sends, if any, complete first (their
 * completions are not the new phase's), within --timeout, with heartbeats meanwhile.
 * Ctrl-C there ends the run: the next size cannot start with them outstanding. */
static int settle(struct run *r)
{
	const uint64_t end = time_mono_ns() + r->o->timeout_ns;
	uint64_t now;
	int rc;

	while (r->tv.unsettled) {
		if (stop_requested) {
			snprintf(r->why, sizeof(r->why),
				 "%s: stopped while the last size's sends were still in flight (a paused or lossy path); the remaining sizes are left out",
				 r->o->dev);
			return -EINTR;
		}
		if ((now = time_mono_ns()) >= end) {
			snprintf(r->why, sizeof(r->why),
				 "%s: the last size's sends did not complete within %.1f s after its end (--timeout): the path or the peer stopped acknowledging and no completion error came; check the link, or lower --qp-timeout",
				 r->o->dev, (double)r->o->timeout_ns / 1e9);
			return -ETIMEDOUT;
		}
		rc = traffic_verbs_settle(&r->tv, now + PHASE_CHECK_NS < end ? now + PHASE_CHECK_NS : end);
		if (rc < 0)
			return snprintf(r->why, sizeof(r->why), "%s", r->tv.why), rc;
		if ((rc = hb_beat(r, time_mono_ns(), r->why, sizeof(r->why))) || (rc = settle_peer(r)))
			return rc;
	}
	return 0;
}

/* A completion error where the peer's process is gone (killed: its QPs destroyed, ours
 * flushed or refused) is told as that: its exchange connection closes in the same exit, a
 * moment after the error (t_traffic_fail's kill -9 cases: a flush error, or a remote
 * invalid request, came first under a busy host). Up to 1 s in 50 ms slices: a guest
 * stopped by its host wakes with one timeout spent, not all of them. Not after the retry
 * counter ran out: its message names both causes already, and a broken path, where the
 * peer lives on, must not wait (t_traffic_opts' vanished path times that exit).
 */
#define PEER_GONE_SLICE_NS 50000000ull
#define PEER_GONE_SLICES 20
static bool peer_gone(struct run *r)
{
	int i, rc;

	if (r->tv.wc_status == IBV_WC_RETRY_EXC_ERR)
		return false;
	for (i = 0; r->fd >= 0 && i < PEER_GONE_SLICES; i++)
		if ((rc = conn_wait_closed(r->fd, PEER_GONE_SLICE_NS)) != 0)
			return rc > 0;
	return false;
}

/* One phase: one message size. Returns 0, or -errno with r->why set; *ended_early tells
 * that either side stopped it (Ctrl-C), so that both skip the remaining sizes.
 */
static int run_phase(struct run *r, uint32_t phase, bool *ended_early)
{
	const struct traffic_opts *o = r->o;
	struct phase_state *ps = &r->ps;
	struct phase_cfg c;
	struct traffic_row row;
	int rc;

	if ((rc = settle(r)) || (rc = warmup(r, o->sizes[phase], o->bidir || o->host)) ||
	    (rc = phase_barrier(r, phase)))
		return rc;
	phase_cfg_fill(r, phase, &c);
	if (heartbeat_thread_wanted(c.send, queued_bytes(r, c.size)) && (rc = hb_thread(r)))
		return rc;
	traffic_verbs_phase_begin(&r->tv, c.size, c.send, o->duration_ns ? 0 : o->iters,
				  o->duration_ns);
	c.t0 = r->tv.start_ns;
	phase_init(ps, &c);
	while (!phase_finished(ps)) {
		uint64_t now = time_mono_ns();

		if (phase_step_clock(ps, now, stop_requested))
			traffic_verbs_phase_stop(&r->tv);
		if (phase_step_overdue(ps, now))
			abandon(r, ps);
		if ((rc = phase_local(r, ps)) || (rc = phase_peer(r, ps)) || (rc = phase_out(r, ps)) ||
		    (rc = phase_step_check(ps, time_mono_ns(), &r->tv.ctr))) {
			snprintf(r->why, sizeof(r->why), "%.515s%s", ps->why,
				 rc == -EIO && peer_gone(r) ? ": the peer's pfclab traffic exited "
				 "or was killed (its exchange connection closed)" : "");
			return rc;
		}
	}
	/* The peer's last writes completed before its DONE left: their receive completions
	 * are in our CQ already, count them before the summary.
	 */
	if ((rc = traffic_verbs_drain_rx(&r->tv)) < 0) {
		snprintf(r->why, sizeof(r->why), "%s", r->tv.why);
		return rc;
	}
	phase_summary(ps, time_mono_ns(), &r->tv.ctr, &row);
	traffic_report_row(stdout, o->json, &row);
	*ended_early = ps->interrupted;
	return 0;
}

static void on_reject(void *ctx, const char *peer, const char *why)
{
	(void)ctx;
	pfc_warn("rejected %s: %s", peer, why);
}

static void handshake_cfg_fill(struct run *r, struct handshake_cfg *c)
{
	*c = (struct handshake_cfg){
		.key = &r->key, .mine = &r->mine, .step_ns = r->o->timeout_ns,
		.deadline_ns = r->o->timeout_ns < HANDSHAKE_DEADLINE_NS ? r->o->timeout_ns :
			       HANDSHAKE_DEADLINE_NS,
		.wait_ns = r->o->wait_ns, .stop = &stop_requested, .reject = on_reject,
	};
}

/* After the handshake: the endpoints (memory key, QPs) both ways, the client's first,
 * each checked against the agreed parameters; then the QPs go to RTS.
 */
static int exchange_endpoints(struct run *r)
{
	struct xchg_msg m = { .type = XCHG_ENDPOINT }, in;
	char why[512];
	int rc;

	traffic_verbs_hello(&r->tv, &r->mine);
	m.u.hello = r->mine;
	if (r->o->host && (rc = send_msg(r, &m)))
		return rc;
	if ((rc = recv_expect(r, XCHG_ENDPOINT, &in, "waiting for the peer's endpoint",
			      r->o->timeout_ns)))
		return rc;
	if ((rc = xchg_endpoint_check(&r->mine, &in.u.hello, why, sizeof(why)))) {
		snprintf(r->why, sizeof(r->why), "%s", why);
		return rc;
	}
	if (!r->o->host && (rc = send_msg(r, &m)))
		return rc;
	r->theirs.lid = in.u.hello.lid;
	memcpy(r->theirs.gid, in.u.hello.gid, sizeof(r->theirs.gid));
	r->theirs.mtu = in.u.hello.mtu;
	r->theirs.rkey = in.u.hello.rkey;
	r->theirs.addr = in.u.hello.addr;
	r->theirs.len = in.u.hello.len;
	memcpy(r->theirs.qp, in.u.hello.qp, sizeof(r->theirs.qp));
	rc = traffic_verbs_connect(&r->tv, &r->theirs);
	if (rc) {
		snprintf(r->why, sizeof(r->why), "%s", r->tv.why);
		send_abort(r, r->why);
	}
	return rc;
}

/* Server: accept and handshake until one client passes; every rejected peer is named on
 * stderr and the server goes on waiting.
 */
static int server_accept(struct run *r)
{
	struct handshake_cfg c;
	char why[512];
	int lfd, rc;

	rc = conn_listen(r->o->bind_addr, r->o->port, &lfd, why, sizeof(why));
	if (rc) {
		snprintf(r->why, sizeof(r->why), "%s", why);
		return rc;
	}
	if (!r->key.len)
		pfc_warn("no --psk: anyone who reaches port %u%s%s can write into this side's buffer; give both sides --psk FILE",
			 r->o->port, r->o->bind_addr ? " on " : "", r->o->bind_addr ? r->o->bind_addr : "");
	if (!r->o->json)
		fprintf(stderr, "%s: waiting for a client on port %u\n", pfc_progname(), r->o->port);
	handshake_cfg_fill(r, &c);
	rc = handshake_server_run(lfd, &c, &r->fd, &r->theirs, r->peer, sizeof(r->peer), r->why,
				  sizeof(r->why));
	close(lfd);
	return rc;
}

static int client_connect(struct run *r, char *local_ip, size_t iplen)
{
	const struct traffic_opts *o = r->o;
	struct handshake_cfg c;
	int rc;

	rc = conn_connect(o->host, o->port, o->bind_addr, o->timeout_ns, &r->fd, r->why,
			  sizeof(r->why));
	if (rc)
		return rc;
	snprintf(r->peer, sizeof(r->peer), "%s:%u", o->host, o->port);
	conn_local_addr(r->fd, local_ip, iplen);
	handshake_cfg_fill(r, &c);
	rc = handshake_client_run(r->fd, &c, &r->theirs, r->why, sizeof(r->why));
	if (rc)
		return rc == -EACCES || rc == -EPROTO ? -ECONNABORTED : rc;
	rc = traffic_verbs_open(&r->tv, o, local_ip);
	if (rc) {
		snprintf(r->why, sizeof(r->why), "%s", r->tv.why);
		send_abort(r, "client could not set up its RDMA resources");
		return -ECONNABORTED;
	}
	return 0;
}

static int setup(struct run *r)
{
	const struct traffic_opts *o = r->o;
	char local_ip[64] = "";
	int rc;

	if (o->psk_file && (rc = auth_key_load(o->psk_file, &r->key, r->why, sizeof(r->why))))
		return rc;
	if (auth_init()) {
		snprintf(r->why, sizeof(r->why), "libsodium failed to initialise");
		return -EIO;
	}
	xchg_hello_from_opts(&r->mine, o);
	if (o->host) {
		rc = client_connect(r, local_ip, sizeof(local_ip));
	} else {
		/* Device first, so that a wrong -d fails before anyone connects. */
		rc = traffic_verbs_open(&r->tv, o, o->bind_addr);
		if (rc) {
			snprintf(r->why, sizeof(r->why), "%s", r->tv.why);
			return rc;
		}
		rc = server_accept(r);
	}
	if (rc)
		return rc;
	if ((rc = heartbeat_init(&r->hb, r->fd))) {
		snprintf(r->why, sizeof(r->why), "cannot set up the heartbeat: %s", strerror(-rc));
		return rc;
	}
	r->hb_ready = true;
	if ((rc = exchange_endpoints(r)))
		return rc;
	/* From now on a PING whenever nothing went out for 3/8 of --peer-timeout: a
	 * sender's STATS of the default 1 s interval come sooner than that (2 s timeout), so
	 * it sends one PING a second instead of four (a receive-only side, which sends no
	 * STATS, one every 3/8 of the timeout); the peer's limit (phase_silence_limit) leaves
	 * at least a quarter of the timeout for delays. A side that posts sends them from its
	 * main loop until a phase needs the thread (heartbeat.h); one that never posts has
	 * the thread from the start. */
	heartbeat_quiet(&r->hb, o->peer_timeout_ns / 8 * 3);
	if (heartbeat_thread_wanted(o->bidir || o->host, 0))
		return hb_thread(r);
	return 0;
}

static int run_traffic(const struct traffic_opts *o)
{
	struct run *r = calloc(1, sizeof(*r));
	struct traffic_run_info ri;
	uint32_t p;
	int rc, ret = EXIT_RUNTIME;

	if (!r) {
		pfc_err("out of memory");
		return EXIT_RUNTIME;
	}
	r->o = o;
	r->fd = -1;
	rc = setup(r);
	if (rc)
		goto out;
	if (o->inline_size && !o->inline_auto && r->tv.buf.device)
		pfc_warn("-I %u ignored: inline sends are read by the CPU, and --mem %s is GPU memory",
			 o->inline_size, o->mem);

	ri = (struct traffic_run_info){
		.dev = o->dev, .port = o->ib_port, .gid_index = r->tv.gid_index,
		.gid = r->tv.gid_str, .peer = r->peer, .role = o->host ? "client" : "server",
		.bidir = o->bidir, .imm = o->imm, .qps = o->qps,
		.mtu = 128u << r->tv.mtu,
		.mem = o->mem, .mem_desc = r->tv.buf.desc, .mem_path = r->tv.buf.path,
		.rate_gbps = o->rate_gbps, .rate_how = r->tv.rate_how,
		.poll = o->poll_mode == TRAFFIC_POLL_SPIN ? "spin" : "auto",
	};
	/* The start line shows the SL and traffic class the device reports for the QPs, a
	 * check of -S/--tclass independent of the options; n/a when it cannot tell. A device
	 * may keep less than it was given: Soft-RoCE (rxe) keeps no SL and reports 0. */
	if (traffic_verbs_query_path(&r->tv, &ri.sl, &ri.tclass))
		pfc_warn("SL and traffic class not known: %s", r->tv.why);
	else if (ri.sl != (int)o->sl)
		pfc_warn("%s reports SL %d for its QPs, not the %u asked for (-S): the device does not keep it",
			 o->dev, ri.sl, o->sl);
	if (ri.tclass >= 0 && ri.tclass != (o->tclass < 0 ? 0 : o->tclass))
		pfc_warn("%s reports traffic class %d for its QPs, not the %d asked for (--tclass/--dscp)",
			 o->dev, ri.tclass, o->tclass < 0 ? 0 : o->tclass);
	if (!o->quiet || o->json)
		traffic_report_start(stdout, o->json, &ri);
	for (p = 0; p < o->nsizes; p++) {
		bool ended_early = false;

		rc = run_phase(r, p, &ended_early);
		if (rc || ended_early || stop_requested)
			break;
	}
	if (!rc)
		ret = 0;
out:
	if (rc) {
		pfc_err("%s", r->why);
		if (r->fd >= 0 && rc != -ENOTCONN && rc != -ECONNRESET && rc != -ECONNABORTED)
			send_abort(r, r->why);
	}
	if (r->hb_ready)
		heartbeat_fini(&r->hb);
	if (r->fd >= 0)
		close(r->fd);
	traffic_verbs_close(&r->tv);
	auth_key_clear(&r->key);
	free(r);
	return ret;
}

int traffic_main(int argc, char **argv)
{
	struct traffic_opts o;
	char err[256];
	int rc;

	rc = traffic_opts_parse(argc, argv, &o, err, sizeof(err));
	if (rc == 1)
		return 0;	/* --help, printed */
	if (rc) {
		pfc_err("%s", err);
		return EXIT_USAGE;
	}
	install_signals();
	if (o.check_mem)
		return check_mem(&o);
	return run_traffic(&o);
}
