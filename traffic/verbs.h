/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verbs.h: the RDMA side of pfclab traffic: device, GID, memory registration, RC QPs and
 * the post/poll loop that moves RDMA WRITEs.
 */
#ifndef PFCLAB_TRAFFIC_VERBS_H
#define PFCLAB_TRAFFIC_VERBS_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "traffic/mem.h"
#include "traffic/opts.h"
#include "traffic/xchg.h"

/* Data in flight per QP is bounded by time as well as by -t and 8 MiB: at most this much
 * at the measured rate, so that draining it (Ctrl-C, a peer that stops) takes about this
 * long on a slow link too; but never less than TRAFFIC_INFLIGHT_MIN_BYTES (within -t and
 * 8 MiB), whatever the rate. Where the rate is low because the CPU is (software RoCE), a
 * shallower queue runs dry while the process waits for its turn: both ways at 16 KiB on
 * one emulated CPU, 32 sends in flight moved 0.3% fewer packets than 128 (2 MiB). */
#define TRAFFIC_INFLIGHT_NS 100000000ULL
#define TRAFFIC_INFLIGHT_MIN_BYTES (2u << 20)

/* Cumulative counters of one phase (one message size). */
struct traffic_counters {
	uint64_t msgs;		/* sends completed (acknowledged by the peer) */
	uint64_t bytes;
	uint64_t cqes;		/* send completions polled (one per signalled send) */
	uint64_t errors;	/* error completions */
	uint64_t rx_cqes;	/* --imm: receive completions */
	uint64_t rx_bytes;
};

struct traffic_qp {
	struct ibv_qp *qp;
	uint32_t psn;
	uint64_t posted;
	uint64_t completed;
	uint64_t target;
	uint64_t sig_next;		/* sequence number of the next signalled send */
	struct ibv_send_wr *wr;		/* post list, chained */
	struct ibv_sge *sge;
	struct ibv_recv_wr rwr;
};

struct traffic_verbs {
	const struct traffic_opts *o;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct ibv_comp_channel *ch;	/* --poll auto: both CQs report here; NULL: spin */
	bool armed;			/* a completion event was asked for and not seen */
	struct ibv_mr *mr;
	struct mem_buf buf;
	bool buf_ok;
	struct ibv_port_attr port;
	bool roce;
	bool soft;			/* no PCI function under the device (rxe, siw) */
	int gid_index;
	union ibv_gid gid;
	char gid_str[48];
	enum ibv_mtu mtu;		/* path MTU after agreement */
	uint32_t nqps;
	struct traffic_qp *qps;
	size_t slot;			/* bytes per QP slot: max message size rounded up */
	uint32_t inline_size;		/* effective: 0 for GPU memory */
	const char *rate_how;		/* "hardware", "software pacing" or NULL */
	/* phase state */
	uint32_t size;
	uint32_t plist;			/* sends chained per post call in this phase */
	uint32_t mod;			/* one signalled send every mod sends in this phase */
	uint32_t window;		/* sends in flight per QP at most, this phase */
	uint32_t depth;			/* sends in flight per QP now: window, less by time */
	bool send;			/* this side writes in this run */
	bool stopping;
	bool unsettled;			/* sends of an abandoned phase may still complete */
	uint64_t start_ns;
	uint64_t end_ns;		/* -D: when the phase ends (0: no set end) */
	uint64_t end_limit;		/* traffic_verbs_end_limit at the last clock read */
	uint64_t posted;		/* sends posted on every QP in this phase */
	double rate;			/* completed bytes per ns, measured (0: not yet) */
	uint64_t rate_t, rate_b;	/* the last rate sample: time, completed bytes */
	uint32_t clock_every;		/* working passes between clock reads (adapted) */
	double pace_bytes_per_ns;	/* software pacing per QP, 0 = off */
	struct traffic_counters ctr;
	char why[512];
	int wc_status;		/* the last error completion's status (0: none) */
};

/* Opens DEV, picks the GID (local_ip: the exchange socket's address, may be NULL),
 * allocates and registers the buffer, creates CQs and QPs in INIT. Returns -errno; why says
 * what failed and what to do. On failure the caller still calls traffic_verbs_close.
 */
int traffic_verbs_open(struct traffic_verbs *tv, const struct traffic_opts *o, const char *local_ip);
/* Adds this side's endpoint (GID, MTU, buffer, QPNs/PSNs) to a HELLO. */
void traffic_verbs_hello(const struct traffic_verbs *tv, struct xchg_hello *h);
/* Moves the QPs to RTR/RTS towards the peer and applies the rate limit. */
int traffic_verbs_connect(struct traffic_verbs *tv, const struct xchg_hello *peer);
/* The SL and traffic class of the connected QPs as the device reports them back
 * (ibv_query_qp, IBV_QP_AV), not as the options asked for them; tclass -1 when the path
 * has no GRH. -errno when a query fails, -EPROTO when the QPs disagree; why says which.
 * Both are -1 on failure.
 */
int traffic_verbs_query_path(struct traffic_verbs *tv, int *sl, int *tclass);
/* Sends in flight per QP for messages of `size` bytes: -t, or fewer so that at most
 * 8 MiB are (never below 2). */
uint32_t traffic_verbs_window(const struct traffic_opts *o, uint32_t size);
/* Sends per signalled completion for messages of `size` bytes: at most -Q, at least
 * one completion every 256 KiB of data and two per window; 1 or more. */
uint32_t traffic_verbs_mod(const struct traffic_opts *o, uint32_t size);
/* Sends in flight per QP for the measured rate (completed bytes per ns over all nqps QPs,
 * 0: not measured yet): at most window, at most TRAFFIC_INFLIGHT_NS of data at that rate,
 * at least two, two moderation groups (2 * mod) and TRAFFIC_INFLIGHT_MIN_BYTES; one where
 * every send is signalled (mod 1) and a send takes over TRAFFIC_ALONE_NS at that rate
 * (megabytes on a path that moves a few MB/s): there a post call may do the work of all
 * that is queued before it returns (Soft-RoCE on one CPU held the loop for 2 s with two
 * 4 MiB sends queued each way), which neither -D's end nor the peer check can interrupt,
 * and the time between sends is small beside a send's own. */
#define TRAFFIC_ALONE_NS 500000000ULL
uint32_t traffic_verbs_depth(uint32_t window, uint32_t mod, uint32_t size, uint32_t nqps,
			     double rate);
/* With the phase ending at end_ns, whether more sends may go out at now: k more sends of
 * `size` bytes with m not completed yet may when 2m + k is at most the returned limit,
 * i.e. when they are expected to complete (at `rate`, completed bytes per ns; 0 = not
 * known yet: UINT64_MAX, no limit) nearer end_ns than the sends before them, and at most
 * TRAFFIC_END_SLACK_NS after it: a send that takes seconds (megabytes on a slow path) is
 * left out rather than let the phase run on for half its time, and the phase then waits
 * for its end without sending (phase.h). At or past the end: 0; before it, empty sends
 * have no limit. Computed once per clock read, so that the post loop compares integers. */
#define TRAFFIC_END_SLACK_NS 100000000ULL
uint64_t traffic_verbs_end_limit(uint64_t now, uint64_t end_ns, uint32_t size, double rate,
				 uint32_t k);
/* The post/poll loop reads the clock every `every` passes that did work; given the time
 * dt_ns the last `every` passes took, how many to wait next: twice as many while reads
 * come less than TRAFFIC_CLOCK_NS / 2 apart (at most TRAFFIC_CLOCK_EVERY_MAX), fewer in
 * proportion when more than 2 * TRAFFIC_CLOCK_NS apart, so that slow passes (a long post
 * call on software RoCE) read it every pass at once. */
#define TRAFFIC_CLOCK_NS 1000000ULL
#define TRAFFIC_CLOCK_EVERY_MAX 256u
uint32_t traffic_verbs_clock_every(uint32_t every, uint64_t dt_ns);
/* Starts phase `size`; send: whether this side writes; iters 0 = until stopped;
 * duration_ns: the phase ends that long after it starts (0: no set end), and this side
 * stops posting early enough that what is in flight completes by then. */
void traffic_verbs_phase_begin(struct traffic_verbs *tv, uint32_t size, bool send, uint64_t iters,
			       uint64_t duration_ns);
/* Stop posting new work (duration over, Ctrl-C, peer stopped); outstanding sends drain. */
void traffic_verbs_phase_stop(struct traffic_verbs *tv);
/* The phase ended without waiting for the sends in flight (phase_step_overdue): the
 * loop posts and polls no more sends until traffic_verbs_settle has seen them complete.
 * Returns how many were in flight (posted, not completed; not counted in tv->ctr). */
uint64_t traffic_verbs_phase_abandon(struct traffic_verbs *tv);
/* Lets an abandoned phase's sends complete, until deadline_ns: 1 once every one did
 * (tv->unsettled cleared; the counters are the next phase_begin's to reset), 0 at the
 * deadline, -errno on a completion error (why names it). */
int traffic_verbs_settle(struct traffic_verbs *tv, uint64_t deadline_ns);
/* Runs the post/poll loop until deadline_ns (CLOCK_MONOTONIC). Returns 1 when the phase
 * is complete (every send posted and completed), 0 at the deadline, -errno on a failure
 * (completion error: why names it with ibv_wc_status_str).
 */
int traffic_verbs_phase_run(struct traffic_verbs *tv, uint64_t deadline_ns);
/* --imm: polls the receive CQ until it is empty (end of a phase). */
int traffic_verbs_drain_rx(struct traffic_verbs *tv);
void traffic_verbs_close(struct traffic_verbs *tv);

/* Picks a GID index on (ctx, port): the RoCEv2 GID holding local_ip when given, else the
 * first RoCEv2 IPv4 GID, else the first RoCEv2 GID, else 0. -ENOENT when the table is empty.
 */
int traffic_verbs_pick_gid(struct ibv_context *ctx, uint8_t port, const char *local_ip,
			   int *index, union ibv_gid *gid);

#endif
