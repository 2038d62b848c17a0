// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_mod.c: completion moderation follows the message size (a signalled send
 * at least every 64 KiB, at most every -Q sends, at least two per tx depth). */
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
		{ 64, 128, 1024, 64 },         /* 64 KiB / 1 KiB = 64 */
		{ 64, 128, 4096, 16 },         /* 64 KiB / 4 KiB */
		{ 64, 128, 65536, 1 },
		{ 64, 128, 1u << 20, 1 },      /* 1 MiB: every send */
		{ 64, 128, 4u << 20, 1 },
		{ 100, 128, 64, 64 },          /* two per window: depth 128 -> 64 */
		{ 16, 16, 64, 8 },
		{ 1, 1, 64, 1 },               /* depth 1: every send */
		{ 64, 128, 65537, 1 },         /* never 0 */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mod_by_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
