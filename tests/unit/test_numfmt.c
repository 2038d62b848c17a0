// SPDX-License-Identifier: GPL-2.0-or-later
/* test_numfmt.c: the quick number formatting against snprintf, byte for byte: ties,
 * powers of ten, carries, signs, zeros, values near each decimal step, random values of
 * every magnitude, short buffers, and the one-conversion formats of the output layer.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/numfmt.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* fn's text of v against snprintf's with conv ("%.*f" or "%.*g") */
static void same(int (*fn)(char *, size_t, int, double), const char *conv, double v, int prec)
{
	char a[96], b[96];
	int ra = fn(a, sizeof(a), prec, v), rb = snprintf(b, sizeof(b), conv, prec, v);

	if (ra != rb || strcmp(a, b)) {
		print_error("%s, %d of %.17g (%a): '%s' (%d), printf '%s' (%d)\n", conv, prec, v, v, a, ra, b, rb);
		fail();
	}
}

#pragma GCC diagnostic pop

static void same_fixed(double v, int prec)
{
	same(numfmt_fixed, "%.*f", v, prec);
}

static void same_general(double v, int prec)
{
	same(numfmt_general, "%.*g", v, prec);
}

static void same_all(double v)
{
	int p;

	for (p = 0; p <= 10; p++) {
		same_fixed(v, p);
		same_fixed(-v, p);
		same_general(v, p);
		same_general(-v, p);
	}
}

static void test_edges(void **state)
{
	static const double vals[] = {
		0, 0.5, 1.5, 2.5, 0.125, 0.375, 1.005, 2.675, 0.045, 1e-4, 9.9999e-5, 1e-5,
		0.1, 0.01, 0.001, 1, 10, 100, 1e6, 999999.5, 999999.4, 9999995, 0.99999949,
		0.9999995, 9.5, 99.5, 0.95, 0.0095, 123456.5, 1234567, 4e15, 5e15, 1e16, 1e300,
		5e-324, 7.8e3, 0.007831, 1.000123, 6.38976, 1e9, 999999999.5, 0.1 + 0.2,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		same_all(vals[i]);
		same_all(nextafter(vals[i], INFINITY));
		same_all(nextafter(vals[i], 0));
	}
	same_all(INFINITY);
	same_all(NAN);
	same_fixed(-0.0, 2);
	same_general(-0.0, 6);
	same_fixed(-0.001, 2);
}

/* Every decimal step of a few precisions, and the doubles on either side of it. */
static void test_steps(void **state)
{
	int k, p;

	(void)state;
	for (p = 1; p <= 4; p++)
		for (k = 0; k < 20000; k++) {
			double v = (double)k / pow(10, p) + 0.5 / pow(10, p);

			same_fixed(v, p - 1);
			same_fixed(nextafter(v, 0), p - 1);
			same_fixed(nextafter(v, INFINITY), p - 1);
			same_general(v, 3);
			same_general((double)k / pow(10, p), 6);
		}
}

static void test_random(void **state)
{
	int k;

	(void)state;
	for (k = 0; k < 300000; k++) {
		uint64_t r = next();
		double m = (double)(r >> 11) / 9007199254740992.0;	/* [0, 1) */
		double v = m * pow(10, (int)(next() % 24) - 8);

		same_fixed(v, (int)(next() % 11));
		same_general(v, (int)(next() % 11));
		same_general((double)(r % 100000000) / 1000.0, 6);	/* a rate's decimals */
	}
}

static void test_short_buffer(void **state)
{
	char a[4], b[4];
	volatile size_t n = sizeof(a);	/* truncation on purpose: a size the compiler cannot see */

	(void)state;
	assert_int_equal(numfmt_fixed(a, n, 3, 12.5), snprintf(b, n, "%.3f", 12.5));
	assert_string_equal(a, b);
	assert_int_equal(numfmt_general(a, n, 6, 123.456), snprintf(b, n, "%.6g", 123.456));
	assert_string_equal(a, b);
	assert_int_equal(numfmt_uint(a, n, 123456), snprintf(b, n, "%" PRIu64, (uint64_t)123456));
	assert_string_equal(a, b);
	assert_int_equal(numfmt_uint(NULL, 0, 42), 2);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static void test_formats(void **state)
{
	static const char *const dfmt[] = {
		" %10.3f", " %13.4f", "%.2f", "%8.1f%%", "%-9.2f|", "%08.3f", "%g", "%.6g",
		"%12.6g ms", "100%% %.1f", "%lf", "%.0f",
	};
	static const char *const ufmt[] = {
		" %15" PRIu64, " %12" PRIu64, "%" PRIu64 "\n", "%-8" PRIu64 "|", "%06" PRIu64,
		"%llu", "x%%%lu%%",
	};
	static const double dv[] = { 0, -0.0, 1.25, -3.14159, 123456.789, 0.0004567, 7.831e-3,
				     -99999.95 };
	static const uint64_t uv[] = { 0, 7, 123456, UINT64_MAX };
	char a[128], b[128];
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(dfmt) / sizeof(dfmt[0]); i++)
		for (j = 0; j < sizeof(dv) / sizeof(dv[0]); j++) {
			int ra = numfmt_format_double(a, sizeof(a), dfmt[i], dv[j]);
			int rb = snprintf(b, sizeof(b), dfmt[i], dv[j]);

			assert_int_equal(ra, rb);
			assert_string_equal(a, b);
		}
	for (i = 0; i < sizeof(ufmt) / sizeof(ufmt[0]); i++)
		for (j = 0; j < sizeof(uv) / sizeof(uv[0]); j++) {
			int ra = numfmt_format_uint(a, sizeof(a), ufmt[i], uv[j]);
			int rb = snprintf(b, sizeof(b), ufmt[i], uv[j]);

			assert_int_equal(ra, rb);
			assert_string_equal(a, b);
		}
	/* not handled: the caller falls back on printf */
	assert_int_equal(numfmt_format_double(a, sizeof(a), "%+.2f", 1.0), -1);
	assert_int_equal(numfmt_format_double(a, sizeof(a), "%*.2f", 1.0), -1);
	assert_int_equal(numfmt_format_double(a, sizeof(a), "%e", 1.0), -1);
	assert_int_equal(numfmt_format_double(a, sizeof(a), "%.2f %.2f", 1.0), -1);
	assert_int_equal(numfmt_format_double(a, sizeof(a), "no conversion", 1.0), -1);
	assert_int_equal(numfmt_format_double(a, sizeof(a), "%.2f", NAN), -1);
	assert_int_equal(numfmt_format_uint(a, sizeof(a), "%u", 1), -1);
	assert_int_equal(numfmt_format_uint(a, sizeof(a), "%lx", 1), -1);
	assert_int_equal(numfmt_format_uint(a, 4, " %12" PRIu64, 1), -1);	/* too long */
}

#pragma GCC diagnostic pop

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_short_buffer),
		cmocka_unit_test(test_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
