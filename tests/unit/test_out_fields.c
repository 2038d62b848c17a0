// SPDX-License-Identifier: GPL-2.0-or-later
/* test_out_fields.c: the output layer's fields with units and validity: each call gives
 * the text and the JSON form of one field; n/a keeps the text column's width.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "lib/out.h"
#include "lib/util.h"

/* One renderer, run in both forms. */
typedef void (*render_fn)(struct out *o);

static char *text_of(render_fn fn)
{
	struct out o;
	char *buf = NULL;
	size_t len = 0;

	out_begin(&o, false);
	o.f = open_memstream(&buf, &len);
	assert_non_null(o.f);
	fn(&o);
	assert_int_equal(out_end_report(&o), 0);
	fclose(o.f);
	return buf;
}

static char *json_of(render_fn fn)
{
	struct json_object *root;
	struct out o;
	char *s;

	out_begin(&o, true);
	fn(&o);
	root = out_take(&o);
	assert_non_null(root);
	s = strdup(out_json_text(root, false));
	json_object_put(root);
	return s;
}

static void check(render_fn fn, const char *text, const char *json)
{
	char *t = text_of(fn), *j = json_of(fn);

	assert_string_equal(t, text);
	assert_string_equal(j, json);
	free(t);
	free(j);
}

static void na_widths(struct out *o)
{
	out_na_fmt(o, "a", "[%11.3f]");
	out_na_fmt(o, "b", "[%-6s]");
	out_na_fmt(o, "c", "[%7" PRIu64 "]");
	out_na_fmt(o, "d", "[%#8x] 100%%");
	out_na_fmt(o, "e", "[%s]");
	out_na_fmt(o, "f", NULL);
	out_na_fmt(o, NULL, "[%2d]");
}

static void test_na_fmt(void **state)
{
	(void)state;
	check(na_widths, "[        n/a][n/a   ][    n/a][     n/a] 100%[n/a][n/a]",
	      "{\"a\":null,\"b\":null,\"c\":null,\"d\":null,\"e\":null,\"f\":null}");
}

static void valid_or_not(struct out *o)
{
	out_uint_na(o, "u", " %7" PRIu64, 42, true);
	out_uint_na(o, "v", " %7" PRIu64, 42, false);
	out_double_na(o, "r", " %10.1f", 333.25, true);
	out_double_na(o, "s", " %10.1f", 333.25, false);
}

static void test_valid(void **state)
{
	(void)state;
	check(valid_or_not, "      42     n/a      333.2        n/a",
	      "{\"u\":42,\"v\":null,\"r\":333.25,\"s\":null}");
}

static void units(struct out *o)
{
	out_ns(o, "paused_s", "%.3f ms", 1500000, 1e6, true);
	out_ns(o, "gap_s", " %.1f us", 250000000, 1e3, true);
	out_ns(o, "never_s", " %9.3f", 7, 1e6, false);
	out_share(o, "ce_share", " %.2f%%", 1, 4);
	out_share(o, "empty_share", " %6.2f%%", 0, 0);
	out_uint_scaled(o, "link_bps", " %.0f Gb/s", 25000000000ull, 1e9);
	out_ns(o, "json_only_s", NULL, 2000000000, 1e9, true);
	out_text(o, "\n");
}

static void test_units(void **state)
{
	(void)state;
	check(units, "1.500 ms 250000.0 us       n/a 25.00%    n/a% 25 Gb/s\n",
	      "{\"paused_s\":0.0015,\"gap_s\":0.25,\"never_s\":null,\"ce_share\":0.25,"
	      "\"empty_share\":null,\"link_bps\":25000000000,\"json_only_s\":2.0}");
}

static void labelled(struct out *o)
{
	out_text(o, "kinds    ");
	out_uint_kv(o, " ", "pause", 3);
	out_uint_kv(o, "  ", "pfc", 12);
}

static void test_kv(void **state)
{
	(void)state;
	check(labelled, "kinds     pause 3  pfc 12", "{\"pause\":3,\"pfc\":12}");
}

/* Arrays of plain values: keys are ignored inside them. */
static void plain_array(struct out *o)
{
	int i;

	out_arr_open(o, "per_prio");
	for (i = 0; i < 3; i++)
		out_uint_na(o, "ignored", " %" PRIu64, (uint64_t)i * 10, i != 1);
	out_obj_close(o);
}

static void test_array(void **state)
{
	(void)state;
	check(plain_array, " 0 n/a 20", "{\"per_prio\":[0,null,20]}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_na_fmt),
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_kv),
		cmocka_unit_test(test_array),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
