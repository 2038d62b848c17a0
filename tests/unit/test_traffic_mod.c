// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_mod.c: completion moderation and the send window follow the message size
 * (a signalled send at least every 256 KiB, at most every -Q sends, at least two per
 * window; at most 8 MiB in flight per QP, and at most 100 ms of data at the measured
 * rate); -D: the last send is posted so that it completes nearest the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "traffic/opts.h"
#include "traffic/verbs.h"

static void test_mod_by_size(void **state)
{
	static const struct { uint32_t cq_mod, depth, size, want; } t[] = {
		{ 64, 128, 64, 64 },           /* small: -Q decides */
		{ 64, 128, 4096, 64 },         /* 256 KiB / 4 KiB = 64 */
		{ 64, 128, 16384, 16 },        /* 256 KiB / 16 KiB */
		{ 64, 128, 65536, 4 },
		{ 64, 128, 262144, 1 },
		{ 64, 128, 1u << 20, 1 },      /* 1 MiB: every send */
		{ 64, 128, 4u << 20, 1 },
		{ 100, 128, 64, 64 },          /* two per window: depth 128 -> 64 */
		{ 16, 16, 64, 8 },
		{ 1, 1, 64, 1 },               /* depth 1: every send */
		{ 64, 128, 262145, 1 },        /* never 0 */
	};
	struct traffic_opts o = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		o.cq_mod = t[i].cq_mod;
		o.tx_depth = t[i].depth;
		assert_int_equal(traffic_verbs_mod(&o, t[i].size), t[i].want);
	}
}

static void test_window_by_size(void **state)
{
	static const struct { uint32_t depth, size, want; } t[] = {
		{ 128, 64, 128 },
		{ 128, 65536, 128 },           /* 8 MiB exactly */
		{ 128, 1u << 20, 8 },          /* 8 x 1 MiB */
		{ 128, 4u << 20, 2 },          /* 2 x 4 MiB */
		{ 128, 16u << 20, 2 },         /* never below 2 */
		{ 1, 4u << 20, 1 },            /* nor above -t */
		{ 16, 64, 16 },
	};
	struct traffic_opts o = { .cq_mod = 64 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		o.tx_depth = t[i].depth;
		assert_int_equal(traffic_verbs_window(&o, t[i].size), t[i].want);
	}
}

static void test_depth_by_rate(void **state)
{
	/* rate in bytes per ns: 0.0375 = 0.3 Gb/s, 12.5 = 100 Gb/s */
	static const struct { uint32_t window, mod, size, nqps; double rate; uint32_t want; } t[] = {
		{ 128, 64, 4096, 1, 0, 128 },          /* not measured yet: the window */
		{ 128, 64, 4096, 1, 0.0375, 128 },     /* two moderation groups at least */
		{ 128, 4, 65536, 1, 0.0375, 58 },      /* 3.75 MB in 100 ms / 64 KiB, + 1 */
		{ 128, 4, 65536, 2, 0.075, 58 },       /* 7.5 MB in 100 ms shared by two QPs */
		{ 128, 4, 65536, 1, 0.001, 32 },       /* slower: 2 MiB at least */
		{ 128, 16, 16384, 1, 0.0036, 128 },    /* 2 MiB of 16 KiB: the window */
		{ 128, 4, 65536, 4, 0.0036, 32 },      /* 2 MiB on each QP */
		{ 8, 1, 1u << 20, 1, 0.0375, 4 },      /* 1 MiB: 3.75 MB -> 3 + 1 */
		{ 2, 1, 4u << 20, 1, 0.0375, 2 },      /* never below 2 */
		{ 2, 1, 4u << 20, 1, 0.0037, 1 },      /* but 1.1 s a send: alone */
		{ 8, 1, 1u << 20, 1, 0.0037, 2 },      /* 0.28 s a send: two */
		{ 8, 1, 1u << 20, 2, 0.0037, 1 },      /* 0.57 s on each of two QPs: alone */
		{ 128, 4, 65536, 1, 1e-6, 32 },        /* 2 MiB however slow */
		{ 128, 64, 1024, 1, 1e-6, 128 },       /* two moderation groups, 2 MiB: the window */
		{ 64, 16, 1u << 20, 1, 1e-3, 32 },     /* two groups where they are more (-Q) */
		{ 128, 1, 4u << 20, 1, 12.5, 128 },    /* 100 Gb/s: -t decides */
		{ 1, 1, 4u << 20, 1, 0.0375, 1 },      /* nor above the window */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(traffic_verbs_depth(t[i].window, t[i].mod, t[i].size, t[i].nqps,
						     t[i].rate), t[i].want);
}

static void test_end_limit(void **state)
{
	const uint64_t ms = 1000000;
	uint64_t l;

	(void)state;
	/* rate unknown, or no size: no limit */
	assert_true(traffic_verbs_end_limit(0, 1, 1u << 20, 0, 1) == UINT64_MAX);
	assert_true(traffic_verbs_end_limit(0, 1, 0, 1.0, 1) == UINT64_MAX);
	/* 1 byte per ns, one 4 MB send in flight (done at 4 ms); one more would end at 8 ms:
	 * posted when the end is at 6 ms or later (nearer 8 than 4), not at 5.9 ms. */
	l = traffic_verbs_end_limit(0, 6 * ms, 4 * ms, 1.0, 1);
	assert_true(2 * 1 + 1 <= l);
	l = traffic_verbs_end_limit(0, 6 * ms - 100000, 4 * ms, 1.0, 1);
	assert_false(2 * 1 + 1 <= l);
	/* nothing in flight: one send may go while its midpoint is due by the end */
	assert_true(1 <= traffic_verbs_end_limit(0, 2 * ms, 4 * ms, 1.0, 1));
	assert_false(1 <= traffic_verbs_end_limit(0, 2 * ms - 1000, 4 * ms, 1.0, 1));
	/* small sends at 12.5 bytes per ns with 1 ms left: 12.5 MB / 64 B = 195312 sends,
	 * 390625 halves */
	assert_int_equal(traffic_verbs_end_limit(5 * ms, 6 * ms, 64, 12.5, 1), 390625);
	/* at or past the end: none */
	assert_int_equal(traffic_verbs_end_limit(6 * ms, 6 * ms, 64, 1.0, 1), 0);
	assert_int_equal(traffic_verbs_end_limit(7 * ms, 6 * ms, 64, 1.0, 1), 0);
	/* 4 MiB sends at 3.7 MB/s (1.13 s each), one in flight: the nearest-end rule would
	 * post one more with 1.7 s left and run 0.57 s past the end; at most
	 * TRAFFIC_END_SLACK_NS past it, so 2.17 s left at least (ends by -D, then waits) */
	l = traffic_verbs_end_limit(0, 2000 * ms, 4u << 20, 0.0037, 1);
	assert_false(2 * 1 + 1 <= l);
	l = traffic_verbs_end_limit(0, 2200 * ms, 4u << 20, 0.0037, 1);
	assert_true(2 * 1 + 1 <= l);
	/* nothing in flight, a send longer than the time left plus the slack: none */
	assert_int_equal(traffic_verbs_end_limit(0, 500 * ms, 4u << 20, 0.0037, 1), 0);
	/* a rate far beyond any link: no overflow */
	assert_true(traffic_verbs_end_limit(0, UINT64_MAX, 1, 1e12, 1) == UINT64_MAX);
}

/* Clock reads in the post/poll loop: about one a millisecond, every pass where a pass is
 * slow. */
static void test_clock_every(void **state)
{
	(void)state;
	/* quick passes: doubles, up to the cap */
	assert_int_equal(traffic_verbs_clock_every(1, 10000), 2);
	assert_int_equal(traffic_verbs_clock_every(128, 100000), 256);
	assert_int_equal(traffic_verbs_clock_every(200, 100000), TRAFFIC_CLOCK_EVERY_MAX);
	assert_int_equal(traffic_verbs_clock_every(256, 1000), TRAFFIC_CLOCK_EVERY_MAX);
	/* about a millisecond apart (0.5-2 ms): kept */
	assert_int_equal(traffic_verbs_clock_every(40, 500000), 40);
	assert_int_equal(traffic_verbs_clock_every(40, 1000000), 40);
	assert_int_equal(traffic_verbs_clock_every(40, 2000000), 40);
	/* slow: in proportion at once, e.g. 64 passes took 3 ms: 64 * 1/3 + 1 = 22 */
	assert_int_equal(traffic_verbs_clock_every(64, 3000000), 22);
	/* a 4 MiB post call on software RoCE (400 ms): every pass */
	assert_int_equal(traffic_verbs_clock_every(256, 400000000), 1);
	assert_int_equal(traffic_verbs_clock_every(1, 400000000), 1);
	/* never 0 */
	assert_int_equal(traffic_verbs_clock_every(0, 10000), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mod_by_size),
		cmocka_unit_test(test_window_by_size),
		cmocka_unit_test(test_depth_by_rate),
		cmocka_unit_test(test_end_limit),
		cmocka_unit_test(test_clock_every),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
