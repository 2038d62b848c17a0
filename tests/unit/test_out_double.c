// SPDX-License-Identifier: GPL-2.0-or-later
/* test_out_double.c: JSON doubles as the shortest text that reads back as the same
 * double (out_json_double, numfmt_shortest): expected texts, every text read back bit for
 * bit by strtod and by json-c's parser (and still a double), the streamed form the same as
 * json-c's, NaN and infinities as before, integers untouched, random doubles of every
 * magnitude against "%.15g, else %.16g, else %.17g", and the decimal point whatever the
 * locale.
 */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "lib/numfmt.h"
#include "lib/out.h"

static unsigned long long rng = 0x2545f4914f6cdd1dULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t bits(double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof(b));
	return b;
}

/* The JSON text of out_json_double(v), in s (64 bytes). */
static void json_text(char *s, double v)
{
	struct json_object *o = out_json_double(v);

	assert_non_null(o);
	snprintf(s, 64, "%s", out_json_text(o, false));
	json_object_put(o);
}

/* What numfmt_shortest must write: the first of %.15g, %.16g, %.17g that strtod
 * reads back as v. */
static void reference(char *s, size_t n, double v)
{
	int p;

	for (p = 15; p < 17; p++) {
		snprintf(s, n, "%.*g", p, v);
		if (strtod(s, NULL) == v)
			return;
	}
	snprintf(s, n, "%.17g", v);
}

/* s reads back as v, bit for bit, through strtod and through json-c (as a double). */
static void reads_back(const char *s, double v)
{
	struct json_object *j = json_tokener_parse(s);
	char *end;
	double r = strtod(s, &end);

	if (*end || bits(r) != bits(v)) {
		print_error("'%s' reads back as %a, not %a\n", s, r, v);
		fail();
	}
	assert_non_null(j);
	assert_true(json_object_is_type(j, json_type_double));
	assert_true(bits(json_object_get_double(j)) == bits(v));
	json_object_put(j);
}

static void test_expected(void **state)
{
	static const struct {
		double v;
		const char *json;
	} cases[] = {
		{ 0.1, "0.1" },
		{ 9.9, "9.9" },
		{ 1.0 / 3.0, "0.3333333333333333" },
		{ 2.0 / 3.0, "0.6666666666666666" },
		{ 4.86492827, "4.86492827" },
		{ 4.8649282700000001, "4.86492827" },	/* the same double */
		{ 0.00031678, "0.00031678" },
		{ 13.33047063, "13.33047063" },
		{ 0.1 + 0.2, "0.30000000000000004" },	/* 17 digits where they are needed */
		{ 1e-7, "1e-07" },
		{ 1e-4, "0.0001" },
		{ 1.5e-9, "1.5e-09" },
		{ 1e300, "1e+300" },
		{ 1.7976931348623157e308, "1.7976931348623157e+308" },
		{ 2.2250738585072014e-308, "2.2250738585072014e-308" },
		{ 5e-324, "4.94065645841247e-324" },
		{ 0.0, "0.0" },
		{ -0.0, "-0.0" },
		{ 2.0, "2.0" },
		{ -2.5, "-2.5" },
		{ 1234567.0, "1234567.0" },
		{ 100.0, "100.0" },
		{ 1e14, "100000000000000.0" },
		{ 1e15, "1e+15" },
		{ 1e16, "1e+16" },
		{ 123456789012345678.0, "1.2345678901234568e+17" },
		{ 9007199254740993.0, "9007199254740992.0" },	/* 2^53 + 1 is 2^53 as a double */
		{ 999999999999999.9, "999999999999999.9" },
		{ 0.9999999999999999, "0.9999999999999999" },
		{ 25e9, "25000000000.0" },
		{ 123456789012345.5, "123456789012345.5" },	/* 15 digits: a tie, to even */
		{ 0.5, "0.5" },
		{ 1e22, "1e+22" },
		{ 1e23, "1e+23" },	/* not exact: 9.999999999999999e22 reads back too */
	};
	char s[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_text(s, cases[i].v);
		if (strcmp(s, cases[i].json)) {
			print_error("%a: '%s', expected '%s'\n", cases[i].v, s, cases[i].json);
			fail();
		}
		reads_back(s, cases[i].v);
	}
}

/* numfmt_shortest against the reference, and its JSON text read back, for v and -v. */
static void check_one(double v)
{
	char a[64], b[64], j[64];
	int ra, k;

	for (k = 0; k < 2; k++, v = -v) {
		ra = numfmt_shortest(a, sizeof(a), v);
		reference(b, sizeof(b), v);
		if (ra != (int)strlen(b) || strcmp(a, b)) {
			print_error("%a: '%s' (%d), reference '%s'\n", v, a, ra, b);
			fail();
		}
		json_text(j, v);
		reads_back(j, v);
	}
}

static void test_random(void **state)
{
	int i, k;

	(void)state;
	for (i = 0; i < 100000; i++) {	/* any finite bit pattern: every magnitude */
		uint64_t b = next();
		double v;

		memcpy(&v, &b, sizeof(v));
		if (isfinite(v))
			check_one(v);
	}
	for (i = 0; i < 100000; i++)	/* short decimals, as measured times and rates are */
		check_one((double)(next() % 1000000000) / pow(10, (double)(next() % 20)));
	for (i = 0; i < 50000; i++)	/* ratios, as shares and means are */
		check_one((double)(next() % 100000 + 1) / (double)(next() % 100000 + 1));
	for (i = 0; i < 100000; i++)	/* every binary exponent from 1e-9 to 1e37 */
		check_one(ldexp((double)(next() >> 11) / 0x1p53, (int)(next() % 154) - 30));
	for (i = 0; i < 50000; i++)	/* exact binary fractions: decimal ties to round */
		check_one(ldexp((double)(next() >> 12) + 0.5, -(int)(next() % 12)));
	for (k = -1074; k <= 1023; k++) {	/* powers of two: a nearer neighbour below */
		check_one(ldexp(1, k));
		check_one(nextafter(ldexp(1, k), INFINITY));
	}
	for (k = -330; k <= 310; k++) {	/* powers of ten and their neighbours */
		double p = pow(10, k);

		check_one(p);
		if (isfinite(p) && p > 0) {
			check_one(nextafter(p, 0));
			check_one(nextafter(p, INFINITY));
		}
	}
}

/* The same fields through json-c objects and streamed, byte for byte. */
static char *written(bool stream)
{
	static const double vals[] = { 0.1, 1.0 / 3.0, 2.0, -0.0, 1e300, 5e-324, 1e16,
				       123456789012345678.0, NAN, INFINITY, -INFINITY };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	struct out o;

	assert_non_null(f);
	if (stream)
		out_begin_stream(&o, f, true);
	else
		out_begin_file(&o, f, true);
	out_arr_open(&o, "d");
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		out_double(&o, NULL, NULL, vals[i]);
	out_obj_close(&o);
	out_ns(&o, "ns", NULL, 4864928270ULL, 1e6, true);
	out_share(&o, "share", NULL, 1, 10);
	out_uint(&o, "u", NULL, 2);
	out_int(&o, "i", NULL, -2);
	assert_int_equal(out_end_lines(&o), 0);
	fclose(f);
	return buf;
}

static void test_stream_same(void **state)
{
	char *a = written(false), *b = written(true);

	(void)state;
	assert_string_equal(b, a);
	/* integers stay integers; NaN and infinities as json-c always wrote them */
	assert_string_equal(a, "{\"d\":[0.1,0.3333333333333333,2.0,-0.0,1e+300,"
			    "4.94065645841247e-324,1e+16,1.2345678901234568e+17,NaN,Infinity,"
			    "-Infinity],\"ns\":4.86492827,\"share\":0.1,\"u\":2,\"i\":-2}\n");
	free(a);
	free(b);
}

static void test_not_finite(void **state)
{
	static const double vals[] = { NAN, -NAN, INFINITY, -INFINITY };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		struct json_object *a = out_json_double(vals[i]);
		struct json_object *b = json_object_new_double(vals[i]);

		assert_string_equal(out_json_text(a, false),
				    json_object_to_json_string_ext(b, OUT_JSON_LINE));
		json_object_put(a);
		json_object_put(b);
	}
}

/* A value reads back from the summary's own objects as itself (spread sums re-read them). */
static void test_value_kept(void **state)
{
	struct json_object *o = out_json_double(1.0 / 3.0);

	(void)state;
	assert_true(json_object_is_type(o, json_type_double));
	assert_true(bits(json_object_get_double(o)) == bits(1.0 / 3.0));
	json_object_put(o);
}

/* With a locale whose decimal point is ',' (pfclab top sets the user's locale), still '.'. */
static void test_locale(void **state)
{
	static const char *const names[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
					     "fr_FR.utf8", "nl_NL.UTF-8", "ru_RU.UTF-8" };
	char s[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (setlocale(LC_NUMERIC, names[i]))
			break;
	/* none installed: the one tests/run.sh builds (PFCLAB_TEST_LOCPATH), read through
	 * LOCPATH, which setlocale looks at on each call */
	if (i == sizeof(names) / sizeof(names[0]) && getenv("PFCLAB_TEST_LOCPATH")) {
		setenv("LOCPATH", getenv("PFCLAB_TEST_LOCPATH"), 1);
		if (setlocale(LC_NUMERIC, names[0]))
			i = 0;
		unsetenv("LOCPATH");
	}
	if (i == sizeof(names) / sizeof(names[0])) {
		skip();		/* no such locale installed here */
		return;
	}
	assert_string_equal(localeconv()->decimal_point, ",");
	json_text(s, 1.0 / 3.0);	/* printf's path: 16 digits */
	assert_string_equal(s, "0.3333333333333333");
	json_text(s, 1e-320);		/* printf's path: below the quick range */
	assert_string_equal(s, "9.99988867182683e-321");
	json_text(s, 4.86492827);	/* the quick path */
	assert_string_equal(s, "4.86492827");
	setlocale(LC_NUMERIC, "C");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expected),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_stream_same),
		cmocka_unit_test(test_not_finite),
		cmocka_unit_test(test_value_kept),
		cmocka_unit_test(test_locale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
