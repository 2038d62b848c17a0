/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.h: the frame summary review reports and capture counts live: frames per kind,
 * PFC/PAUSE paused time per priority, CNPs per (source, dest QP), CE share per flow,
 * and an optional timeline. Fed decoded frames; prints nothing.
 *
 * Two parts: counts (kinds, bytes, flows, timeline rows) that do not care in which
 * order frames come, and the timed part (paused time runs from one PAUSE/PFC frame to
 * the next, CNP gaps are between neighbours) that must be fed in time order. A live
 * capture feeds both at once (frames_stats_add); review holds the timed records of a
 * capture whose timestamps step back and feeds them in order (reorder.h).
 */
#ifndef PFCLAB_FRAMES_STATS_H
#define PFCLAB_FRAMES_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/frames/decode.h"

#define FRAMES_PRIO_PAUSE 8 /* row for 802.3x PAUSE, which stops every priority */
#define FRAMES_NPRIO 9
#define FRAMES_MAX_PAUSERS 64
/* Rows of the timeline at most: a frame beyond them sets bins_over (review then refuses
 * the bin and names one that fits). 208 bytes a row (counts, PFC frames per priority and
 * paused time). */
#define FRAMES_MAX_BINS (1u << 20)
/* CNP inter-arrival gaps kept for the percentiles, all pairs together: 32 MiB. Past it,
 * each pair keeps a uniform sample of its gaps (the minimum stays exact), so memory
 * stays fixed however long the capture. */
#define FRAMES_MAX_GAPS (4u << 20)

struct frames_prio_stats {
	uint64_t frames;     /* frames that name this priority */
	uint64_t xoff, xon;  /* of them, time > 0 and time == 0 */
	uint64_t quanta_sum; /* sum of the XOFF times, in quanta */
	uint64_t pauses;     /* XOFF->XON transitions (by XON frame or expiry) */
	uint64_t storms;     /* pauses longer than the storm threshold */
	uint64_t paused_ns, longest_ns;
	bool time_valid;     /* false when a pause frame came without a link speed */
};

/* Open-addressed table of fixed-size records keyed by their first key_len bytes. */
struct frames_table {
	void *slots;
	size_t rec_size, key_len, cap, n;
	void *last;	/* the record found last: runs of one flow skip the hash */
};

struct frames_cnp_key {
	uint8_t ipver;
	uint8_t src[16];
	uint32_t dqp;
};

struct frames_cnp_stats {
	struct frames_cnp_key key;
	uint8_t used;
	uint64_t count, first_ns, last_ns;
	uint64_t *gaps;
	size_t ngaps, capgaps;
	uint64_t gaps_seen;  /* gaps measured; above ngaps once FRAMES_MAX_GAPS is reached,
			      * and then gaps[] is a uniform sample of them (reservoir) */
	uint64_t gap_min_all;
	/* filled by frames_stats_finish */
	uint64_t gap_min, gap_med, gap_p99;
};

struct frames_flow_key {
	uint8_t ipver;
	uint8_t src[16], dst[16];
	uint32_t dqp;
};

/* ect: packets sent ECN-capable, the ECN field ECT(0), ECT(1) or CE (a CE mark is set
 * on an ECN-capable packet, RFC 3168 section 5); ce: those marked CE. Their share is
 * ce / packets unless a capture filter chose packets by ECN (ecn_filtered). */
struct frames_flow_stats {
	struct frames_flow_key key;
	uint8_t used;
	uint8_t ecn_filtered; /* ECN codepoints (bit e: value e) a capture filter dropped from
			       * some of these packets, 0 for none: packets, ect and ce count
			       * only what was kept, and ce / packets is not the CE share */
	uint64_t packets, ect, ce;
};

struct frames_bin {
	uint64_t kind[FRAMES_KIND_MAX];
	uint64_t ce, truncated, invalid;
	uint64_t pfc_prio[8];	/* PFC frames that name priority p (class-enable bit p), as
				 * frames_prio_stats.frames counts them over the capture */
};

/* Pause timer of one (sender MAC, priority). */
struct frames_pauser {
	uint8_t mac[6];
	bool paused[FRAMES_NPRIO];
	uint64_t start[FRAMES_NPRIO], until[FRAMES_NPRIO];
};

struct frames_stats {
	uint64_t speed_bps;  /* fixed link speed, 0 = from each record's interface */
	uint64_t storm_ns;
	uint64_t bin_ns;     /* 0 = no timeline */
	bool counts_only;    /* no per-QP/per-flow tables: fixed memory for long runs */
	uint8_t ecn_filtered; /* set by the caller before frames_stats_add: the ECN codepoints
			       * the capture filter of the frames that follow dropped (bit e:
			       * value e; review reads the pcapng if_filter), 0 for none */

	uint64_t frames, bytes;
	/* of frames, those without a timestamp (pcapng simple packet blocks): counted in
	 * frames, bytes, kinds, statuses and flows, never in a figure of time (first_ns,
	 * last_ns, timeline rows, the pause and CNP tables) */
	uint64_t untimed;
	uint64_t kind[FRAMES_KIND_MAX];
	uint64_t status[FRAMES_STATUS_MAX];
	uint64_t roce_ce;    /* RoCEv2 packets (CNPs excluded) with ECN = CE */
	uint64_t first_ns, last_ns; /* the earliest and the latest timestamp */
	uint64_t speed_seen; /* last link speed used, for the report */
	bool speed_mixed;

	struct frames_prio_stats prio[FRAMES_NPRIO];
	struct frames_pauser pausers[FRAMES_MAX_PAUSERS];
	unsigned npausers;
	uint64_t pausers_dropped; /* pause frames from senders beyond the table */

	struct frames_table cnps;  /* struct frames_cnp_stats */
	struct frames_table flows; /* struct frames_flow_stats */

	struct frames_bin *bins;
	size_t nbins;     /* allocated */
	size_t bins_used; /* bins up to the last frame */
	/* Paused time per bin and priority (FRAMES_PRIO_PAUSE: 802.3x), summed over the
	 * senders, from the pause timers above; made when the first pause ends. */
	uint64_t (*bin_paused)[FRAMES_NPRIO];
	size_t npaused;   /* bins allocated in bin_paused */
	bool bins_over;   /* a frame fell beyond FRAMES_MAX_BINS rows: it is in no row, so
			   * the timeline is incomplete (the rest of the summary is not) */
	uint64_t bin_t0;  /* start of the first row: the earliest frame's, whole bins */
	bool oom;
	size_t gaps_stored;    /* CNP gaps kept, all pairs together (at most FRAMES_MAX_GAPS) */
	uint64_t rng;          /* xorshift state for the gap reservoirs */
};

/* What the timed part of the summary takes of a PAUSE, PFC or CNP frame: 48 bytes, so
 * that a reorder window can hold many (reorder.h). */
struct frames_timed {
	uint64_t ts_ns;
	uint64_t link_bps;	/* PAUSE/PFC: the interface's speed, 0 = unknown */
	uint8_t kind;		/* FRAMES_KIND_PAUSE, _PFC or _CNP */
	uint8_t pfc_enable;	/* PFC: class-enable vector */
	uint8_t ipver;		/* CNP */
	uint32_t dqp;		/* CNP: destination QP */
	union {
		struct {
			uint8_t src[6];
			uint16_t quanta[8];	/* PFC per priority; PAUSE in quanta[0] */
		} mac;
		uint8_t ip_src[16];	/* CNP: source address (IPv4 in the first 4 bytes) */
	} u;
};

void frames_stats_init(struct frames_stats *st, uint64_t speed_bps, uint64_t storm_ns,
		       uint64_t bin_ns);
/* Both parts at once, for frames that come in time order (or where order does not
 * matter to the caller). link_bps: speed of the interface the frame came from (0 =
 * unknown). */
void frames_stats_add(struct frames_stats *st, uint64_t ts_ns, const struct frames_pkt *pk,
		      uint64_t link_bps);
/* The counts: frames and bytes per kind and status, flows and CE marks, timeline rows.
 * Any order. */
void frames_stats_add_counts(struct frames_stats *st, uint64_t ts_ns,
			     const struct frames_pkt *pk);
/* The counts of a frame without a timestamp (a pcapng simple packet block): frames,
 * bytes, kinds, statuses and flows; no time-based figure (span, timeline, pause and CNP
 * tables), which a made-up time would skew. Counted in untimed. */
void frames_stats_add_untimed(struct frames_stats *st, const struct frames_pkt *pk);
/* Whether pk is a PAUSE, PFC or CNP frame that decoded cleanly: one with a timed part. */
static inline bool frames_pkt_timed(const struct frames_pkt *pk)
{
	const unsigned timed = 1u << FRAMES_KIND_PAUSE | 1u << FRAMES_KIND_PFC |
			       1u << FRAMES_KIND_CNP;

	return pk->status == FRAMES_OK && ((1u << pk->kind) & timed);
}
/* The timed record of pk (frames_pkt_timed) into *ev. */
void frames_timed_from_pkt(struct frames_timed *ev, uint64_t ts_ns, const struct frames_pkt *pk,
			   uint64_t link_bps);
/* The timed part: per-priority pause counts and paused time, CNPs per (source, dest QP)
 * and their gaps. In time order, each frame after its counts. */
void frames_stats_add_timed(struct frames_stats *st, const struct frames_timed *ev);
/* Closes pauses still open, computes gap percentiles. */
void frames_stats_finish(struct frames_stats *st);
void frames_stats_free(struct frames_stats *st);

/* Iteration over the tables: returns the i-th used record or NULL (i < cap). */
void *frames_table_slot(const struct frames_table *t, size_t i);

#endif
