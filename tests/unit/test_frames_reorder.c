// SPDX-License-Identifier: GPL-2.0-or-later
/* test_frames_reorder.c: review's reorder window (monitor/frames/reorder.c). Frames out
 * of time order within the window give the summary of the same frames in order (paused
 * time, CNP gaps, timeline rows), equal timestamps keep their order, frames beyond the
 * window or behind a full window are late and counted where they came, and a window of
 * 0 keeps the file's order; random orders, windows and caps lose no frame. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/util.h"
#include "monitor/frames/decode.h"
#include "monitor/frames/reorder.h"
#include "monitor/frames/stats.h"

#define G25 25000000000ull
#define US 1000ull
#define MS 1000000ull
#define Q_NS(q) ((uint64_t)(q) * 512 * 1000000000ull / G25) /* quanta at 25G, in ns */

/* A frame of the test's captures: PFC on priority 3 (quanta), a CNP to QP 0x77, or a
 * RoCEv2 packet. */
enum kind { PFC, CNP, ROCE };
struct fr {
	uint64_t ts;
	enum kind k;
	uint16_t q;
	uint64_t key;	/* test_shuffle: where the frame lands in the file */
};
#define F(t, kind, quanta) { .ts = (t), .k = (kind), .q = (quanta) }

static void pkt_of(const struct fr *f, struct frames_pkt *pk)
{
	memset(pk, 0, sizeof(*pk));
	pk->status = FRAMES_OK;
	pk->wirelen = 64;
	if (f->k == PFC) {
		static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 9 };

		pk->kind = FRAMES_KIND_PFC;
		memcpy(pk->src, mac, 6);
		pk->pfc_enable = 1u << 3;
		pk->pfc_quanta[3] = f->q;
		return;
	}
	pk->kind = f->k == CNP ? FRAMES_KIND_CNP : FRAMES_KIND_ROCE;
	pk->ipver = 4;
	pk->ip_src[0] = 10;
	pk->ip_src[3] = 2;
	pk->ip_dst[0] = 10;
	pk->ip_dst[3] = 1;
	pk->has_bth = true;
	pk->bth_dqp = 0x77;
}

/* The frames in the given order through a reorder window of window_ns and cap, then
 * finished. */
static void run(struct frames_stats *st, struct frames_reorder *r, const struct fr *f, size_t n,
		uint64_t window_ns, size_t cap, uint64_t bin_ns)
{
	struct frames_pkt pk;
	size_t i;

	frames_stats_init(st, 0, 1 * MS, bin_ns);
	frames_reorder_init(r, window_ns, cap);
	for (i = 0; i < n; i++) {
		pkt_of(&f[i], &pk);
		frames_reorder_add(r, st, f[i].ts, &pk, G25);
	}
	frames_reorder_flush(r, st);
	frames_reorder_free(r);
	frames_stats_finish(st);
}

static const struct frames_cnp_stats *the_cnp(const struct frames_stats *st)
{
	size_t i;

	for (i = 0; i < st->cnps.cap; i++)
		if (frames_table_slot(&st->cnps, i))
			return frames_table_slot(&st->cnps, i);
	fail_msg("no CNP record");
	return NULL;
}

/* A PFC pause, CNPs with gaps of 100, 200 and 400 us, RoCEv2 packets, shuffled within
 * 5 ms: the same figures as in order, every step back counted as put back. */
static void test_within_window(void **state)
{
	/* in time order: XOFF 1000 q at 1 ms refreshed at 1.01 ms, XON at 1.02 ms; CNPs at
	 * 2, 2.1, 2.3, 2.7 ms */
	static const struct fr sorted[] = {
		F(1000 * US, PFC, 1000), F(1010 * US, PFC, 1000), F(1020 * US, PFC, 0),
		F(1500 * US, ROCE, 0), F(2000 * US, CNP, 0), F(2100 * US, CNP, 0),
		F(2300 * US, CNP, 0), F(2700 * US, CNP, 0), F(6000 * US, ROCE, 0),
	};
	/* as a capture might hold them: received frames stamped earlier landing later */
	static const struct fr shuffled[] = {
		F(1010 * US, PFC, 1000), F(1500 * US, ROCE, 0), F(1000 * US, PFC, 1000),
		F(2100 * US, CNP, 0), F(1020 * US, PFC, 0), F(2700 * US, CNP, 0),
		F(2000 * US, CNP, 0), F(6000 * US, ROCE, 0), F(2300 * US, CNP, 0),
	};
	struct frames_stats a, b;
	struct frames_reorder ra, rb;
	const struct frames_cnp_stats *ca, *cb;

	(void)state;
	run(&a, &ra, sorted, ARRAY_SIZE(sorted), 10 * MS, 64, 0);
	run(&b, &rb, shuffled, ARRAY_SIZE(shuffled), 10 * MS, 64, 0);
	assert_int_equal(ra.cnt.reordered + ra.cnt.late, 0);
	assert_int_equal(rb.cnt.late, 0);
	/* 1000 (after 1010 us), 1020 (after 2100), 2000 (after 2700), 2300 (after 6000) */
	assert_int_equal(rb.cnt.reordered, 4);
	assert_int_equal(rb.cnt.max_back_ns, 6000 * US - 2300 * US);
	/* the pause: 1.00 ms to the XON at 1.02 ms */
	assert_int_equal(b.prio[3].pauses, 1);
	assert_int_equal(b.prio[3].paused_ns, 20 * US);
	assert_int_equal(b.prio[3].paused_ns, a.prio[3].paused_ns);
	assert_int_equal(b.prio[3].xoff, 2);
	ca = the_cnp(&a);
	cb = the_cnp(&b);
	assert_int_equal(cb->count, 4);
	assert_int_equal(cb->gap_min, 100 * US);
	assert_int_equal(cb->gap_med, 200 * US);
	assert_int_equal(cb->gap_p99, 400 * US);
	assert_int_equal(cb->first_ns, 2000 * US);
	assert_int_equal(cb->last_ns, 2700 * US);
	assert_int_equal(ca->gap_min, cb->gap_min);
	assert_int_equal(b.first_ns, 1000 * US);
	assert_int_equal(b.last_ns, 6000 * US);
	assert_int_equal(b.frames, ARRAY_SIZE(sorted));
	assert_int_equal(b.kind[FRAMES_KIND_CNP], 4);
	frames_stats_free(&a);
	frames_stats_free(&b);
}

/* A CNP and a PFC XON more than the window behind: late, fed where they came. */
static void test_beyond_window(void **state)
{
	static const struct fr f[] = {
		F(1000 * US, PFC, 0xffff), /* runs out at 1 ms + 1.342156 ms */
		F(2000 * US, CNP, 0),
		F(2100 * US, CNP, 0),
		F(3000 * US, PFC, 0xffff), /* a second pause */
		F(30000 * US, ROCE, 0),
		F(2050 * US, CNP, 0),      /* 27.95 ms behind: late */
		F(1500 * US, PFC, 0),      /* 28.5 ms behind: late */
		F(30001 * US, CNP, 0),
	};
	struct frames_stats st;
	struct frames_reorder r;
	const struct frames_cnp_stats *c;

	(void)state;
	run(&st, &r, f, ARRAY_SIZE(f), 10 * MS, 64, 0);
	assert_int_equal(r.cnt.late, 2);
	assert_int_equal(r.cnt.reordered, 0);
	assert_int_equal(r.cnt.max_late_ns, 28500 * US);
	assert_int_equal(r.cnt.max_back_ns, 28500 * US);
	c = the_cnp(&st);
	assert_int_equal(c->count, 4);
	/* fed 2000, 2100, 2050 (late: a gap of 0), 30001 */
	assert_int_equal(c->gap_min, 0);
	/* the XON came after the second XOFF: it ends the second pause, at once (in time
	 * order it would have ended the first at 1.5 ms) */
	assert_int_equal(st.prio[3].pauses, 2);
	assert_int_equal(st.prio[3].paused_ns, Q_NS(0xffff));
	assert_int_equal(st.prio[3].xon, 1);
	frames_stats_free(&st);
}

/* Equal timestamps keep the order they came in: an XON and an XOFF both at 200 us,
 * behind an XOFF at 100 us that came after them. */
static void test_stable(void **state)
{
	static const struct fr f[] = {
		F(200 * US, PFC, 0),    /* XON */
		F(100 * US, PFC, 0xffff), /* XOFF, earlier */
		F(200 * US, PFC, 1000), /* XOFF after the XON, same time */
	};
	struct frames_stats st;
	struct frames_reorder r;

	(void)state;
	run(&st, &r, f, ARRAY_SIZE(f), 10 * MS, 64, 0);
	/* 100..200 us ended by the XON, then a new pause of 1000 quanta (the other way
	 * round the XOFF at 200 us would extend the first and the XON end it: 1 pause) */
	assert_int_equal(r.cnt.reordered, 1);
	assert_int_equal(st.prio[3].pauses, 2);
	assert_int_equal(st.prio[3].paused_ns, 100 * US + Q_NS(1000));
	assert_int_equal(st.prio[3].longest_ns, 100 * US);
	frames_stats_free(&st);
}

/* A window that holds at most 4 records: when full the earliest goes early, and a
 * later frame stamped before it is late though within the time window. */
static void test_cap(void **state)
{
	static const struct fr f[] = {
		F(100 * US, CNP, 0), F(200 * US, CNP, 0), F(300 * US, CNP, 0),
		F(400 * US, CNP, 0), F(500 * US, CNP, 0), /* full: 100 goes */
		F(150 * US, CNP, 0),                       /* full, earliest: goes at once */
		F(600 * US, CNP, 0),                       /* full: 200 goes */
		F(120 * US, CNP, 0),                       /* before 200: late */
	};
	struct frames_stats st;
	struct frames_reorder r;
	const struct frames_cnp_stats *c;

	(void)state;
	run(&st, &r, f, ARRAY_SIZE(f), 10 * MS, 4, 0);
	assert_int_equal(r.cnt.forced, 3);
	assert_int_equal(r.cnt.reordered, 1);
	assert_int_equal(r.cnt.late, 1);
	assert_int_equal(r.cnt.max_late_ns, 480 * US);
	c = the_cnp(&st);
	assert_int_equal(c->count, 8);
	/* fed 100, 150, 200, 120 (late), 300, 400, 500, 600: gaps 50, 50, 0, 180, 100 x 3 */
	assert_int_equal(c->gap_min, 0);
	assert_int_equal(c->gap_med, 100 * US);
	assert_int_equal(c->gap_p99, 180 * US);
	frames_stats_free(&st);
}

/* --reorder 0: every step back is late, fed where it came. */
static void test_off(void **state)
{
	static const struct fr f[] = {
		F(2000 * US, CNP, 0), F(2100 * US, CNP, 0), F(2050 * US, CNP, 0),
		F(2060 * US, ROCE, 0),
	};
	struct frames_stats st;
	struct frames_reorder r;

	(void)state;
	run(&st, &r, f, ARRAY_SIZE(f), 0, 64, 0);
	assert_int_equal(r.cnt.late, 2);
	assert_int_equal(r.cnt.reordered, 0);
	assert_int_equal(r.cnt.max_back_ns, 50 * US);
	assert_int_equal(the_cnp(&st)->gap_min, 0);
	frames_stats_free(&st);
}

/* Timeline rows go by each frame's own time: a frame before the first one's row adds
 * rows before it; the earliest frame is first_ns. */
static void test_timeline_rows(void **state)
{
	static const struct fr f[] = {
		F(5500 * US, ROCE, 0), F(6200 * US, ROCE, 0),
		F(3900 * US, ROCE, 0), /* two rows before the first */
		F(5400 * US, PFC, 1000),
	};
	struct frames_stats st;
	struct frames_reorder r;

	(void)state;
	run(&st, &r, f, ARRAY_SIZE(f), 10 * MS, 64, 1 * MS);
	assert_int_equal(st.bin_t0, 3 * MS);
	assert_int_equal(st.bins_used, 4);
	assert_int_equal(st.first_ns, 3900 * US);
	assert_int_equal(st.bins[0].kind[FRAMES_KIND_ROCE], 1);
	assert_int_equal(st.bins[1].kind[FRAMES_KIND_ROCE], 0);
	assert_int_equal(st.bins[2].kind[FRAMES_KIND_ROCE], 1);
	assert_int_equal(st.bins[2].kind[FRAMES_KIND_PFC], 1);
	assert_int_equal(st.bins[3].kind[FRAMES_KIND_ROCE], 1);
	/* the pause, 5.4 ms + 20.48 us, in row 2 */
	assert_true(st.npaused >= 3);
	assert_int_equal(st.bin_paused[2][3], Q_NS(1000));
	assert_false(st.bins_over);
	frames_stats_free(&st);
}

static int cmp_key(const void *a, const void *b)
{
	const struct fr *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* Many CNPs 10 us apart, each landing in the file up to 3 ms later than its time, at
 * random, through a window of 5 ms that starts small (the ring grows and wraps, records
 * are placed from either side): every gap comes out 10 us, as in order, and nothing is
 * late. Several seeds. */
static void test_shuffle(void **state)
{
	enum { N = 20000 };
	struct fr *f = calloc(N, sizeof(*f));
	unsigned seed;
	size_t i;

	(void)state;
	assert_non_null(f);
	for (seed = 1; seed <= 4; seed++) {
		struct frames_stats st;
		struct frames_reorder r;
		const struct frames_cnp_stats *c;

		srand(seed);
		for (i = 0; i < N; i++) {
			f[i].k = CNP;
			f[i].ts = 1 * MS + i * 10 * US;
			f[i].key = f[i].ts + (uint64_t)(rand() % 3000) * US;
		}
		qsort(f, N, sizeof(*f), cmp_key);	/* the file's order */
		run(&st, &r, f, N, 5 * MS, FRAMES_REORDER_CAP, 0);
		c = the_cnp(&st);
		assert_int_equal(r.cnt.late, 0);
		assert_true(r.cnt.reordered > N / 2);
		assert_true(r.cnt.max_back_ns > 2 * MS && r.cnt.max_back_ns < 3 * MS);
		assert_int_equal(c->count, N);
		assert_int_equal(c->first_ns, 1 * MS);
		assert_int_equal(c->last_ns, 1 * MS + (N - 1) * 10 * US);
		assert_int_equal(c->gap_min, 10 * US);
		assert_int_equal(c->gap_p99, 10 * US);
		frames_stats_free(&st);
	}
	free(f);
}

/* Any order at all, any window and cap (random times, far apart or near): every frame
 * is counted once, every step back is put back or late, and the summary saw time step
 * back (a CNP gap of 0: the times are distinct) no more often than frames came late. */
static void test_random(void **state)
{
	static const uint64_t windows[] = { 1 * US, 100 * US, 10 * MS };
	static const size_t caps[] = { 1, 2, 3, 16, 64, FRAMES_REORDER_CAP };
	enum { N = 3000 };
	struct fr *f = calloc(N, sizeof(*f));
	size_t w, k, i;

	(void)state;
	assert_non_null(f);
	srand(4791);
	for (w = 0; w < ARRAY_SIZE(windows); w++)
		for (k = 0; k < ARRAY_SIZE(caps); k++) {
			struct frames_stats st;
			struct frames_reorder r;
			const struct frames_cnp_stats *c;
			uint64_t zeros = 0;

			for (i = 0; i < N; i++) {
				f[i].k = CNP;
				/* distinct: the index in the low 16 bits */
				f[i].ts = k % 2 ? ((uint64_t)rand() << 16 | i) :
					  (i * 64 + (uint64_t)(rand() % 4096)) << 16 | i;
			}
			run(&st, &r, f, N, windows[w], caps[k], 0);
			c = the_cnp(&st);
			assert_int_equal(st.frames, N);
			assert_int_equal(c->count, N);
			assert_int_equal(c->ngaps, N - 1);
			for (i = 0; i < c->ngaps; i++)
				zeros += c->gaps[i] == 0;
			assert_true(zeros <= r.cnt.late);
			assert_true(r.cnt.reordered + r.cnt.late < N);
			if (!r.cnt.late)
				assert_int_equal(c->first_ns, st.first_ns);
			frames_stats_free(&st);
		}
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_within_window),
		cmocka_unit_test(test_beyond_window),
		cmocka_unit_test(test_stable),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_timeline_rows),
		cmocka_unit_test(test_shuffle),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
