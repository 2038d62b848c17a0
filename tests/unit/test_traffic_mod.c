// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_mod.c: completion moderation and the send window follow the message size
 * (a signalled send at least every 256 KiB, at most every -Q sends, at least two per
 * window; at most 8 MiB in flight per QP). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mod_by_size),
		cmocka_unit_test(test_window_by_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
