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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta_32_wraps),
		cmocka_unit_test(test_delta_64_reset),
		cmocka_unit_test(test_sum_over_wraps),
		cmocka_unit_test(test_field_raw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
