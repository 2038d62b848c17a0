/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reorder.h: review's reorder window. Captures are not always in time order: on Linux a
 * received frame is stamped before the softirq that hands it to the packet socket, so a
 * frame sent meanwhile can land in the file first, stamped later (AF_PACKET through
 * libpcap shows steps back of several ms in the virtual lab). Paused time and CNP gaps
 * need their frames in time order, so the timed record of each PAUSE, PFC and CNP frame
 * (struct frames_timed, 48 bytes) is held until the newest timestamp seen is more than
 * the window past it, and fed to the summary in time order, frames with equal
 * timestamps in the order they came. Counts are fed at once (their order does not
 * matter). tshark and Wireshark keep the file's order; Wireshark's reordercap writes a
 * sorted copy.
 *
 *   file order:  t=5  t=9  t=7  t=12 ...        held (sorted): 5 7 9 12
 *   fed:         5 once newest > 5 + window, then 7, 9, ...
 *
 * A PAUSE, PFC or CNP frame more than the window behind the newest timestamp (or
 * behind a record let go early because cap records were held) is late: it is counted
 * where it came, out of order. Any other frame is in place wherever it comes (its
 * counts and timeline row go by its own timestamp). At most cap records are held, so
 * memory is fixed; a record placed among them moves the shorter side of the ring, at
 * most cap / 2 records.
 */
#ifndef PFCLAB_FRAMES_REORDER_H
#define PFCLAB_FRAMES_REORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/frames/decode.h"
#include "monitor/frames/stats.h"

/* review's default: 50 ms of capture time (the virtual lab's captures step back by up
 * to 22 ms) */
#define FRAMES_REORDER_WINDOW_NS 50000000ull
#define FRAMES_REORDER_CAP (1u << 16)        /* records held at most: 3 MiB */

/* What the window did: frames stamped before the newest one seen before them, put back
 * in order (reordered) or not (late: PAUSE/PFC/CNP frames beyond the window, or every
 * such frame with a window of 0); the largest step back of each; how often the cap made
 * a record go early. */
struct frames_reorder_counts {
	uint64_t reordered, late;
	uint64_t max_back_ns, max_late_ns;
	uint64_t forced;
};

struct frames_reorder {
	uint64_t window_ns;	/* 0: nothing held, each frame fed as it comes */
	size_t cap;
	struct frames_timed *ring; /* sorted by time from head, n of size (a power of 2) */
	size_t size, head, n;
	uint64_t newest;	/* the latest timestamp seen since the last flush (or 0) */
	uint64_t floor;		/* the latest one let go early (cap held): later frames
				 * stamped before it are late */
	struct frames_reorder_counts cnt; /* since init */
};

void frames_reorder_init(struct frames_reorder *r, uint64_t window_ns, size_t cap);
/* frames_reorder_add's part for a frame that steps back or has a timed part. */
void frames_reorder_add_slow(struct frames_reorder *r, struct frames_stats *st, uint64_t ts_ns,
			     const struct frames_pkt *pk, uint64_t link_bps);
/* One decoded frame stamped ts_ns, in file order: its counts go to st at once, its
 * timed part (PAUSE, PFC, CNP) when the window has passed it. link_bps as for
 * frames_stats_add. Out of memory for a larger window, it works as a full one (the
 * earliest record goes at once) and st->oom is set. */
static inline void frames_reorder_add(struct frames_reorder *r, struct frames_stats *st,
				      uint64_t ts_ns, const struct frames_pkt *pk,
				      uint64_t link_bps)
{
	/* most frames: in order, nothing to hold */
	if (ts_ns >= r->newest && !frames_pkt_timed(pk)) {
		r->newest = ts_ns;
		frames_stats_add_counts(st, ts_ns, pk);
		return;
	}
	frames_reorder_add_slow(r, st, ts_ns, pk, link_bps);
}
/* Feeds everything held to st in time order; the next frame starts a new time line (a
 * new pcapng section, whose clocks may differ, or the next file). Counts stay. */
void frames_reorder_flush(struct frames_reorder *r, struct frames_stats *st);
void frames_reorder_free(struct frames_reorder *r);

#endif
