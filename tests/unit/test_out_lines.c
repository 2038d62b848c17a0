// SPDX-License-Identifier: GPL-2.0-or-later
/* test_out_lines.c: the output layer's records written to a given stream, numbers with
 * fewer JSON digits, the "already there" query and records whose text ends its own lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "lib/out.h"

/* One record with two lines of text; JSON {"a":1,"x":{"r":0.333333,"n":null}}. */
static char *record(bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct out o;

	assert_non_null(f);
	out_begin_file(&o, f, json);
	out_uint(&o, "a", "a %" PRIu64 "\n", 1);
	out_obj_open(&o, "x");
	out_double_digits(&o, "r", "r %.2f", 6, 1.0 / 3.0);
	out_na(&o, "n", " n/a\n");
	out_obj_close(&o);
	assert_int_equal(out_end_lines(&o), 0);
	fclose(f);
	return buf;
}

static void test_text_lines(void **state)
{
	char *s = record(false);

	(void)state;
	assert_string_equal(s, "a 1\nr 0.33 n/a\n");	/* no newline added */
	free(s);
}

static void test_json_line(void **state)
{
	char *s = record(true);

	(void)state;
	assert_string_equal(s, "{\"a\":1,\"x\":{\"r\":0.333333,\"n\":null}}\n");
	free(s);
}

static void test_has(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct out o;

	(void)state;
	out_begin_file(&o, f, false);
	out_uint(&o, "k", NULL, 1);
	assert_false(out_has(&o, "k"));		/* text keeps no keys */
	out_end_lines(&o);
	out_begin_file(&o, f, true);
	assert_false(out_has(&o, "k"));
	out_uint(&o, "k", NULL, 1);
	assert_true(out_has(&o, "k"));
	assert_false(out_has(&o, NULL));
	out_obj_open(&o, "in");
	assert_false(out_has(&o, "k"));		/* only the innermost object */
	out_na(&o, "m", NULL);
	assert_true(out_has(&o, "m"));		/* a null is there too */
	out_obj_close(&o);
	out_arr_open(&o, "arr");
	assert_false(out_has(&o, "k"));		/* an array holds no keys */
	out_obj_close(&o);
	out_end_lines(&o);
	fclose(f);
	assert_string_equal(buf, "{\"k\":1,\"in\":{\"m\":null},\"arr\":[]}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_lines),
		cmocka_unit_test(test_json_line),
		cmocka_unit_test(test_has),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
