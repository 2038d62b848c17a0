// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_report.c: pfclab traffic's report rows and start line: JSON lines that
 * parse, null / "n/a" for values that were not measured, rates from bytes over measured
 * seconds.
 */
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

#include "traffic/report.h"

static char *render(bool json, const struct traffic_row *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	traffic_report_row(f, json, r);
	fclose(f);
	return buf;
}

/* The row as JSON, parsed (the caller puts it). */
static json_object *render_json(const struct traffic_row *r)
{
	char *s = render(true, r);
	json_object *o = json_tokener_parse(s);

	free(s);
	assert_non_null(o);
	return o;
}

static struct traffic_row sample(void)
{
	struct traffic_row r = { .phase = 1, .size = 65536, .t = 2.0 };

	r.tx = (struct traffic_dir){ .valid = true, .bytes = 1250000000, .msgs = 19073,
				     .cqes_valid = true, .cqes = 298, .errors_valid = true,
				     .secs = 1.0 };
	return r;
}

static void test_json_row(void **state)
{
	struct traffic_row r = sample();
	json_object *o, *tx, *v;
	char *s;

	(void)state;
	s = render(true, &r);
	assert_non_null(strchr(s, '\n'));
	assert_ptr_equal(strchr(s, '\n'), s + strlen(s) - 1);	/* one line */
	o = json_tokener_parse(s);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "type", &v));
	assert_string_equal(json_object_get_string(v), "interval");
	assert_true(json_object_object_get_ex(o, "tx", &tx));
	assert_true(json_object_object_get_ex(tx, "gbps", &v));
	assert_true(fabs(json_object_get_double(v) - 10.0) < 1e-9);
	assert_true(json_object_object_get_ex(tx, "bytes", &v));
	assert_int_equal(json_object_get_uint64(v), 1250000000);
	/* rx not measured in this run: present and null */
	assert_true(json_object_object_get_ex(o, "rx", &v));
	assert_null(v);
	json_object_put(o);
	free(s);

	/* receive completions only exist with --imm: null, not 0 */
	r.rx = r.tx;
	r.rx.cqes_valid = false;
	r.summary = true;
	r.interrupted = true;
	s = render(true, &r);
	o = json_tokener_parse(s);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "interrupted", &v));
	assert_true(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(o, "rx", &tx));
	assert_true(json_object_object_get_ex(tx, "completions", &v));
	assert_null(v);
	/* a summary says how many sends were still in flight at the end: 0 here */
	assert_true(json_object_object_get_ex(o, "in_flight", &v));
	assert_int_equal(json_object_get_uint64(v), 0);
	json_object_put(o);
	free(s);

	/* a part cut at the end: the count; a side that sent nothing: null */
	r.cut = true;
	r.in_flight = 3;
	o = render_json(&r);
	assert_true(json_object_object_get_ex(o, "in_flight", &v));
	assert_int_equal(json_object_get_uint64(v), 3);
	json_object_put(o);
	s = render(false, &r);
	assert_non_null(strstr(s, "3 sends still in flight at the end, not counted"));
	free(s);
	r.tx.valid = false;
	r.cut = false;
	r.in_flight = 0;
	o = render_json(&r);
	assert_true(json_object_object_get_ex(o, "in_flight", &v));
	assert_null(v);
	json_object_put(o);
}

static void test_text_row(void **state)
{
	struct traffic_row r = sample();
	char *s;

	(void)state;
	r.rx = r.tx;
	r.rx.cqes_valid = false;
	r.rx.secs = 0;		/* no time measured: no rate */
	s = render(false, &r);
	assert_non_null(strstr(s, " tx "));
	assert_non_null(strstr(s, "10.000"));
	assert_non_null(strstr(s, " rx "));
	assert_non_null(strstr(s, "n/a"));
	free(s);
	assert_true(isnan(traffic_dir_gbps(&r.rx)));
	r.tx.valid = false;
	assert_true(isnan(traffic_dir_mpps(&r.tx)));
}

static char *render_start(bool json, const struct traffic_run_info *ri)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	traffic_report_start(f, json, ri);
	fclose(f);
	return buf;
}

/* The start line's SL and traffic class: numbers when known, null / "n/a" when not. */
static void test_start_sl_tclass(void **state)
{
	struct traffic_run_info ri = {
		.dev = "rxe1", .port = 1, .gid_index = 1, .gid = "::ffff:10.77.0.2",
		.peer = "10.77.0.1:18515", .role = "client", .qps = 1, .mtu = 1024,
		.tclass = 104, .sl = 3, .mem = "host", .mem_desc = "host",
	};
	json_object *o, *v;
	char *s;

	(void)state;
	s = render_start(true, &ri);
	o = json_tokener_parse(s);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "tclass", &v));
	assert_int_equal(json_object_get_int(v), 104);
	assert_true(json_object_object_get_ex(o, "sl", &v));
	assert_int_equal(json_object_get_int(v), 3);
	json_object_put(o);
	free(s);
	s = render_start(false, &ri);
	assert_non_null(strstr(s, "tclass 104, SL 3,"));
	free(s);

	ri.tclass = ri.sl = -1;
	s = render_start(true, &ri);
	o = json_tokener_parse(s);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "tclass", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "sl", &v));
	assert_null(v);
	json_object_put(o);
	free(s);
	s = render_start(false, &ri);
	assert_non_null(strstr(s, "tclass n/a, SL n/a,"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_row),
		cmocka_unit_test(test_text_row),
		cmocka_unit_test(test_start_sl_tclass),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
