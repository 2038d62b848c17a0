// SPDX-License-Identifier: GPL-2.0-or-later
/* test_out_lines.c: the output layer's records written to a given stream, numbers with
 * fewer JSON digits, the "already there" query, records whose text ends its own lines, and
 * streamed JSON (out_begin_stream) byte for byte against json-c's.
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

/* What the fields write, through json-c's form (out_begin_file) or streamed. */
static char *written(bool stream, bool json, void (*fields)(struct out *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct out o;

	assert_non_null(f);
	if (stream)
		out_begin_stream(&o, f, json);
	else
		out_begin_file(&o, f, json);
	fields(&o);
	assert_int_equal(out_end_lines(&o), 0);
	fclose(f);
	return buf;
}

/* One record with two lines of text; JSON {"a":1,"x":{"r":0.333333,"n":null}}. */
static void two_lines(struct out *o)
{
	out_uint(o, "a", "a %" PRIu64 "\n", 1);
	out_obj_open(o, "x");
	out_double_digits(o, "r", "r %.2f", 6, 1.0 / 3.0);
	out_na(o, "n", " n/a\n");
	out_obj_close(o);
}

static char *record(bool json)
{
	return written(false, json, two_lines);
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

/* Every kind of field, nesting, dropped fields and every escape, into o. */
static void all_fields(struct out *o)
{
	char every[160], *p = every;
	int c;

	for (c = 1; c < 128; c++)	/* every ASCII byte but NUL, then UTF-8 */
		*p++ = (char)c;
	strcpy(p, "\xc3\xa9/\\\"end");
	out_str(o, "type", "%s", "interval");
	out_str(o, every, "%s", every);		/* keys are escaped too */
	out_str(o, "empty", NULL, "");
	out_uint(o, "u0", NULL, 0);
	out_uint(o, "umax", NULL, UINT64_MAX);
	out_int(o, "imin", NULL, INT64_MIN);
	out_int(o, "ineg", NULL, -42);
	out_double(o, "d", NULL, 0.1);
	out_double(o, "dint", NULL, 3.0);
	out_double(o, "dbig", NULL, 1e300);
	out_double_digits(o, "d6", NULL, 6, 2.0 / 3.0);
	out_double_digits(o, "d6e", NULL, 6, 1.5e-9);
	out_bool(o, "yes", NULL, true);
	out_bool(o, "no", NULL, false);
	out_na(o, "na", NULL);
	out_na_fmt(o, "naf", " %8.3f");
	out_uint_na(o, "una", NULL, 7, false);
	out_uint_na(o, "uok", NULL, 7, true);
	out_double_na(o, "dok", NULL, 0.25, true);
	out_ns(o, "ns", NULL, 1500000000ULL, 1e6, true);
	out_share(o, "share", NULL, 1, 3);
	out_share(o, "share0", NULL, 1, 0);
	out_uint_scaled(o, "speed", NULL, 25000000000ULL, 1e9);
	out_uint_kv(o, " ", "kv", 12);
	out_uint(o, NULL, "%" PRIu64, 5);		/* no key in an object: left out */
	out_text(o, "text only %d\n", 1);
	out_obj_open(o, "tx");
	out_uint(o, "bytes", NULL, 6291456);
	out_obj_open(o, "deeper");
	out_str(o, "s", NULL, "x");
	out_obj_close(o);
	out_obj_open(o, "empty_obj");
	out_obj_close(o);
	out_obj_close(o);
	out_na(o, "rx", NULL);
	out_arr_open(o, "arr");
	out_uint(o, "ignored", NULL, 1);		/* a key inside an array is ignored */
	out_uint(o, NULL, NULL, 2);
	out_na(o, NULL, NULL);
	out_str(o, NULL, NULL, "three");
	out_obj_open(o, NULL);
	out_uint(o, "k", NULL, 4);
	out_obj_close(o);
	out_arr_open(o, NULL);
	out_obj_close(o);
	out_obj_close(o);
	out_arr_open(o, "empty_arr");
	out_obj_close(o);
	out_obj_open(o, NULL);			/* no key in an object: the whole of it left out */
	out_uint(o, "lost", NULL, 1);
	out_arr_open(o, "lost_arr");
	out_uint(o, NULL, NULL, 1);
	out_obj_close(o);
	out_obj_close(o);
	out_obj_close(o);			/* one close too many: ignored */
	out_obj_open(o, "open");		/* left open: the end closes it */
	out_uint(o, "last", NULL, 9);
}

static void test_stream_same_bytes(void **state)
{
	char *a = written(false, true, all_fields), *b = written(true, true, all_fields);
	struct json_object *j = json_tokener_parse(b);

	(void)state;
	assert_string_equal(b, a);
	assert_non_null(j);			/* and it is JSON */
	assert_true(json_object_object_get_ex(j, "open", NULL));
	json_object_put(j);
	free(a);
	free(b);
	a = written(false, false, all_fields);	/* text: the same as ever */
	b = written(true, false, all_fields);
	assert_string_equal(b, a);
	free(a);
	free(b);
}

static void test_stream_queries(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct out o;

	(void)state;
	out_begin_stream(&o, f, true);
	out_uint(&o, "k", NULL, 1);
	assert_false(out_has(&o, "k"));		/* nothing is kept */
	assert_null(out_take(&o));
	out_uint(&o, "k", NULL, 2);		/* written twice (json-c would keep one) */
	assert_int_equal(out_end_pretty(&o), 0);	/* one line */
	assert_int_equal(out_end_lines(&o), 0);	/* a second end writes nothing */
	out_uint(&o, "after", NULL, 3);		/* nor a field after the end */
	out_obj_open(&o, "late");
	out_obj_close(&o);
	assert_int_equal(out_end_lines(&o), 0);
	fclose(f);
	assert_string_equal(buf, "{\"k\":1,\"k\":2}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_lines),
		cmocka_unit_test(test_json_line),
		cmocka_unit_test(test_has),
		cmocka_unit_test(test_stream_same_bytes),
		cmocka_unit_test(test_stream_queries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
