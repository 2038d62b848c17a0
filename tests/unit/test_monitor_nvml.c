// SPDX-License-Identifier: GPL-2.0-or-later
/* test_monitor_nvml.c: the NVML source's cumulative PCIe byte arithmetic: 32-bit counters
 * wrap (deltas modulo 2^32, as fields 197/198 are read on the H100 host), 64-bit ones are
 * reset when they go back, and values are taken from the 8-byte union by value type.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "monitor/sources/sources.h"

static void test_delta_32_wraps(void **state)
{
	(void)state;
	assert_int_equal(src_nvml_counter_delta(SRC_NVML_VT_UINT, 100, 350), 250);
	/* 0xfffffff0 -> 0x10: 0x20 bytes across the wrap, not a huge or negative number. */
	assert_int_equal(src_nvml_counter_delta(SRC_NVML_VT_UINT, 0xfffffff0u, 0x10), 0x20);
	assert_int_equal(src_nvml_counter_delta(SRC_NVML_VT_UINT, 5, 5), 0);
	/* Upper bits of a 32-bit value are ignored. */
	assert_int_equal(src_nvml_counter_delta(SRC_NVML_VT_UINT, 0x1fffffff0ull, 0x10), 0x20);
	assert_int_equal(src_nvml_counter_delta(SRC_NVML_VT_USHORT, 0xfff0, 0x5), 0x15);
}

static void test_delta_64_reset(void **state)
{
	(void)state;
	assert_int_equal(src_nvml_counter_delta(SRC_NVML_VT_ULONGLONG, 1ull << 40, (1ull << 40) + 7), 7);
	assert_int_equal(src_nvml_counter_delta(SRC_NVML_VT_ULONGLONG, 1000, 10), 0);
}

/* Summing deltas over many wraps gives the exact total a 64-bit counter would. */
static void test_sum_over_wraps(void **state)
{
	uint64_t truth = 0xfffff000ull, total = 0, prev = (uint32_t)truth, step = 0x9abcdef1ull;
	int i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		uint64_t cur;

		truth += step;	/* < 2^32 per reading: read before one wrap */
		cur = (uint32_t)truth;
		total += src_nvml_counter_delta(SRC_NVML_VT_UINT, prev, cur);
		prev = cur;
	}
	assert_int_equal(total, step * 1000);
}

static void test_field_raw(void **state)
{
	uint8_t v[8];
	uint64_t out = 0;
	uint32_t u32 = 0xdeadbeef;
	uint64_t u64 = 0x123456789abull;
	double d = 1.5;

	(void)state;
	memset(v, 0xff, sizeof(v));	/* bytes past a 32-bit value are not read */
	memcpy(v, &u32, 4);
	assert_int_equal(src_nvml_field_raw(SRC_NVML_VT_UINT, v, &out), 0);
	assert_int_equal(out, 0xdeadbeef);
	memcpy(v, &u64, 8);
	assert_int_equal(src_nvml_field_raw(SRC_NVML_VT_ULONGLONG, v, &out), 0);
	assert_int_equal(out, u64);
	memcpy(v, &d, 8);
	assert_int_equal(src_nvml_field_raw(SRC_NVML_VT_DOUBLE, v, &out), -EINVAL);
	assert_int_equal(src_nvml_field_raw(42, v, &out), -EINVAL);
}

/* The adaptive cadence: the wrap-safe bound by link generation, and reads kept within the
 * budget. Expected values worked out here from 2^32 B, x16 lanes and the per-lane rates.
 */
static void test_cadence(void **state)
{
	const uint64_t ms = 1000000ULL;
	uint64_t g5 = src_nvml_cadence_max(SRC_NVML_VT_UINT, 5);

	(void)state;
	/* gen 5 x16: 3.938e9 B/s x 16 = 63.0 GB/s, 2^32 B wrap in 68.2 ms */
	uint64_t w5 = src_nvml_wrap_ns(SRC_NVML_VT_UINT, 5);

	assert_true(w5 >= 68100000ULL && w5 <= 68200000ULL);
	/* 3/4 of it is 51.1 ms: the 50 ms cap */
	assert_int_equal(g5, 50 * ms);
	/* slower or unknown links are taken as gen 5 */
	assert_int_equal(src_nvml_wrap_ns(SRC_NVML_VT_UINT, 0), w5);
	assert_int_equal(src_nvml_wrap_ns(SRC_NVML_VT_UINT, 3), w5);
	assert_int_equal(src_nvml_cadence_max(SRC_NVML_VT_UINT, 0), g5);
	/* gen 6 x16 at 8e9 B/s a lane: 2^32 / 128e9 = 33.6 ms, 3/4: 25.2 ms */
	assert_true(src_nvml_wrap_ns(SRC_NVML_VT_UINT, 6) >= 33500000ULL &&
		    src_nvml_wrap_ns(SRC_NVML_VT_UINT, 6) <= 33600000ULL);
	assert_true(src_nvml_cadence_max(SRC_NVML_VT_UINT, 6) >= 25100000ULL &&
		    src_nvml_cadence_max(SRC_NVML_VT_UINT, 6) <= 25200000ULL);
	/* 64-bit counters do not wrap: the 50 ms cap, and no reading is ever late */
	assert_int_equal(src_nvml_wrap_ns(SRC_NVML_VT_ULONGLONG, 5), 0);
	assert_int_equal(src_nvml_cadence_max(SRC_NVML_VT_ULONGLONG, 5), 50 * ms);
	assert_false(src_nvml_read_late(SRC_NVML_VT_ULONGLONG, 5, 10ULL * 1000 * ms));
	/* a 32-bit reading one wrap after the last is late; just under it is not */
	assert_false(src_nvml_read_late(SRC_NVML_VT_UINT, 5, w5 - 1));
	assert_true(src_nvml_read_late(SRC_NVML_VT_UINT, 5, w5));
	assert_true(src_nvml_read_late(SRC_NVML_VT_UINT, 6, 34 * ms));
	assert_false(src_nvml_read_late(SRC_NVML_VT_UINT, 5, g5));
	/* reads of 0.05 ms keep the default 10 ms (0.5% of a core) */
	assert_int_equal(src_nvml_cadence_adapt(50000, 10 * ms, g5), 10 * ms);
	/* 0.2 ms reads: every 40 ms, 0.5% of a core */
	assert_int_equal(src_nvml_cadence_adapt(200000, 10 * ms, g5), 40 * ms);
	/* 0.4 ms reads (an H100's): the wrap-safe bound */
	assert_int_equal(src_nvml_cadence_adapt(400000, 10 * ms, g5), g5);
	/* 1 ms reads: the wrap-safe bound wins over the budget */
	assert_int_equal(src_nvml_cadence_adapt(1000000, 10 * ms, g5), g5);
	/* a base above the bound (a 50 ms sampling interval) is kept */
	assert_int_equal(src_nvml_cadence_adapt(1000000, 50 * ms, g5), 50 * ms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta_32_wraps),
		cmocka_unit_test(test_delta_64_reset),
		cmocka_unit_test(test_sum_over_wraps),
		cmocka_unit_test(test_field_raw),
		cmocka_unit_test(test_cadence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
