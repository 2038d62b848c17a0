// SPDX-License-Identifier: GPL-2.0-or-later
/* reorder.c: the reorder window between review's reader and the summary (reorder.h).
 *
 * The held records form a ring sorted by time. In a capture in order each record goes
 * on the tail and leaves from the head: no search, no move. A record stamped earlier
 * than the tail is placed after the last one with a time not above its own (so equal
 * times keep their order), found by binary search, and the shorter side of the ring
 * moves by one.
 *
 * Why nothing fed is ever out of order, for a frame that is not late (at most the
 * window behind the newest timestamp, and not before the floor): a record let go by
 * the window was more than the window behind the newest timestamp of its time, so
 * earlier than this frame; one let go for room (cap) set the floor, at or before it.
 */
#include <stdlib.h>
#include <string.h>

#include "monitor/frames/reorder.h"

_Static_assert(sizeof(struct frames_timed) == 48, "keep the held records small");

void frames_reorder_init(struct frames_reorder *r, uint64_t window_ns, size_t cap)
{
	memset(r, 0, sizeof(*r));
	r->window_ns = window_ns;
	r->cap = cap ? cap : 1;
}

static struct frames_timed *at(const struct frames_reorder *r, size_t i)
{
	return &r->ring[(r->head + i) & (r->size - 1)];
}

static void pop(struct frames_reorder *r, struct frames_stats *st)
{
	frames_stats_add_timed(st, at(r, 0));
	r->head = (r->head + 1) & (r->size - 1);
	r->n--;
}

/* Feeds the records the window has passed. */
static void release(struct frames_reorder *r, struct frames_stats *st)
{
	while (r->n && r->newest - at(r, 0)->ts_ns > r->window_ns)
		pop(r, st);
}

/* Room for one more record: a larger ring up to cap; false when out of memory. */
static bool grow(struct frames_reorder *r)
{
	size_t size = r->size ? r->size * 2 : 64, i;
	struct frames_timed *ring;

	ring = malloc(size * sizeof(*ring));
	if (!ring)
		return false;
	for (i = 0; i < r->n; i++)	/* unwrapped: head at 0 */
		ring[i] = *at(r, i);
	free(r->ring);
	r->ring = ring;
	r->size = size;
	r->head = 0;
	return true;
}

/* Puts ev in its place among the n held records (n < size), before the tail's. */
static void insert(struct frames_reorder *r, const struct frames_timed *ev)
{
	size_t lo = 0, hi = r->n - 1, mask = r->size - 1, i;

	while (lo < hi) {	/* the first record stamped after ev */
		size_t mid = lo + (hi - lo) / 2;

		if (at(r, mid)->ts_ns > ev->ts_ns)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo < r->n - lo) {	/* the records before it move one toward the head */
		r->head = (r->head + mask) & mask;
		for (i = 0; i < lo; i++)
			*at(r, i) = *at(r, i + 1);
	} else {		/* the records after it move one toward the tail */
		for (i = r->n; i > lo; i--)
			*at(r, i) = *at(r, i - 1);
	}
	*at(r, lo) = *ev;
	r->n++;
}

/* The rest of frames_reorder_add_slow, for a record that does not go on the tail: late,
 * no window, the window full, or stamped before the tail. */
static __attribute__((noinline)) void place(struct frames_reorder *r, struct frames_stats *st,
					     uint64_t ts, const struct frames_pkt *pk,
					     uint64_t link_bps, bool late)
{
	struct frames_timed ev;

	frames_timed_from_pkt(&ev, ts, pk, link_bps);
	if (late || !r->window_ns) {	/* after the records the window has passed */
		frames_stats_add_timed(st, &ev);
		return;
	}
	if (r->n == r->size && r->size < r->cap && !grow(r))
		st->oom = true;
	if (r->n == r->size || r->n == r->cap) {
		/* full: the earliest of the held records and this one goes now, and later
		 * frames stamped before it are late */
		r->cnt.forced++;
		if (!r->n || ts < at(r, 0)->ts_ns) {
			r->floor = ts;
			frames_stats_add_timed(st, &ev);
			return;
		}
		r->floor = at(r, 0)->ts_ns;
		pop(r, st);
	}
	if (!r->n || at(r, r->n - 1)->ts_ns <= ts) {
		*at(r, r->n) = ev;
		r->n++;
		return;
	}
	insert(r, &ev);
}

void frames_reorder_add_slow(struct frames_reorder *r, struct frames_stats *st, uint64_t ts,
			     const struct frames_pkt *pk, uint64_t link_bps)
{
	bool timed = frames_pkt_timed(pk), late = false;

	if (ts >= r->newest) {
		r->newest = ts;
	} else {
		uint64_t back = r->newest - ts;

		if (back > r->cnt.max_back_ns)
			r->cnt.max_back_ns = back;
		/* the counts of any frame are in place wherever it comes; a timed record
		 * only within the window */
		if (!r->window_ns || (timed && (back > r->window_ns || ts < r->floor))) {
			late = true;
			r->cnt.late++;
			if (back > r->cnt.max_late_ns)
				r->cnt.max_late_ns = back;
		} else {
			r->cnt.reordered++;
		}
	}
	frames_stats_add_counts(st, ts, pk);
	if (!timed)
		return;
	release(r, st);
	/* in order with room: on the tail, made in place */
	if (!late && r->window_ns && r->n < r->cap && r->n < r->size &&
	    (!r->n || at(r, r->n - 1)->ts_ns <= ts)) {
		frames_timed_from_pkt(at(r, r->n), ts, pk, link_bps);
		r->n++;
		return;
	}
	place(r, st, ts, pk, link_bps, late);
}

void frames_reorder_flush(struct frames_reorder *r, struct frames_stats *st)
{
	while (r->n)
		pop(r, st);
	r->head = 0;
	r->newest = 0;
	r->floor = 0;
}

void frames_reorder_free(struct frames_reorder *r)
{
	free(r->ring);
	r->ring = NULL;
	r->size = r->n = r->head = 0;
}
