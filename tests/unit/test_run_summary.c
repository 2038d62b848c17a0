// SPDX-License-Identifier: GPL-2.0-or-later
/* test_run_summary.c: the validity rules, host times on the runner's clock, and summary arithmetic on a small constructed
 * results folder (monitor rates x intervals, captured PFC per priority and paused share,
 * throughput from traffic summaries, spread over repetitions, n/a where nothing was read);
 * the error line of a failed process and the failed processes in the summary.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "lib/util.h"
#include "scripts/run/records.h"
#include "scripts/run/run.h"

static void test_validity(void **state)
{
	static const char text[] = "name: v\nhosts:\n  a: {netdev: va}\n  b: {netdev: vb}\n"
				   "phases:\n  - duration: 1s\n";
	char err[EXP_ERR_LEN];
	struct exp *e = NULL;
	struct validity_obs o;
	json_object *r;

	(void)state;
	assert_int_equal(exp_parse("v.yaml", text, strlen(text), &e, err, sizeof(err)), 0);
	memset(&o, 0, sizeof(o));
	r = json_object_new_array();
	assert_true(validity_judge(&o, e, r));
	assert_int_equal(json_object_array_length(r), 0);
	json_object_put(r);

	o.host_unreachable[1] = true;
	o.capture_drops = 7;
	o.counter_resets = 1;
	o.link_flaps = 2;
	o.traffic_exit = 1;
	o.traffic_errors = 3;
	r = json_object_new_array();
	assert_false(validity_judge(&o, e, r));
	assert_string_equal(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN),
			    "[\"host b unreachable\",\"traffic exited with status 1\","
			    "\"traffic reported 3 completion errors\",\"capture dropped 7 frames (kernel drops)\","
			    "\"1 counter reset during the point\",\"link flapped (2 carrier changes)\"]");
	json_object_put(r);
	exp_free(e);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static json_object *get(json_object *o, const char *path)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, "/", &save); tok && o; tok = strtok_r(NULL, "/", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(tok));
		else if (!json_object_object_get_ex(o, tok, &o))
			return NULL;
	}
	return o;
}

static void rep_folder(const char *root, int rep, double gbytes, bool valid)
{
	char d[512], s[2048];

	snprintf(d, sizeof(d), "%s/points/p000/rep%d/a/monitor", root, rep);
	assert_int_equal(pfc_mkdir_p(d), 0);
	snprintf(d, sizeof(d), "%s/points/p000/rep%d/b", root, rep);
	assert_int_equal(pfc_mkdir_p(d), 0);
	snprintf(d, sizeof(d), "%s/points/p000/rep%d", root, rep);
	snprintf(s, sizeof(s), "{\"finished\":true,\"valid\":%s,\"reasons\":[%s],\"attempt\":0,"
		 "\"t0_wall_ns\":1000000000,\"phases\":[{\"name\":\"x\",\"start_s\":0,\"end_s\":2.0}]}",
		 valid ? "true" : "false", valid ? "" : "\"interrupted\"");
	put(d, "status.json", s);
	/* host a's monitor: cnp.sent 100/s over 0.5 s then 300/s over 1 s = 350 CNPs; a reset
	 * of link.rx_packets (value back, no rate); pfc tx prio3 at 10/s for 1.5 s = 15 */
	snprintf(d, sizeof(d), "%s/points/p000/rep%d/a/monitor", root, rep);
	put(d, "samples.jsonl",
	    "{\"type\":\"sample\",\"seq\":1,\"wall_ns\":1000000000,\"dt_ns\":0,\"values\":{\"cnp.sent\":5,\"link.rx_packets\":90,\"pfc.tx.prio3.frames\":0,\"pfc.rx.prio3.pause_us\":0}}\n"
	    "{\"type\":\"sample\",\"seq\":2,\"wall_ns\":1500000000,\"dt_ns\":500000000,\"values\":{\"cnp.sent\":55,\"link.rx_packets\":100,\"pfc.tx.prio3.frames\":5,\"pfc.rx.prio3.pause_us\":100000},"
	    "\"rates\":{\"cnp.sent\":100,\"link.rx_packets\":20,\"pfc.tx.prio3.frames\":10,\"pfc.rx.prio3.pause_us\":200000}}\n"
	    "{\"type\":\"sample\",\"seq\":3,\"wall_ns\":2500000000,\"dt_ns\":1000000000,\"values\":{\"cnp.sent\":355,\"link.rx_packets\":3,\"pfc.tx.prio3.frames\":15,\"pfc.rx.prio3.pause_us\":400000},"
	    "\"rates\":{\"cnp.sent\":300,\"pfc.tx.prio3.frames\":10,\"pfc.rx.prio3.pause_us\":300000}}\n"
	    "{\"type\":\"sample\",\"seq\":4,\"wall_ns\":2600000000,\"dt_ns\":100000000,\"values\":{\"cnp.sent\":355,\"link.rx_packets\":\n");
	snprintf(d, sizeof(d), "%s/points/p000/rep%d/a", root, rep);
	put(d, "review.json",
	    "{\"kinds\":{\"pfc\":12,\"pause\":0,\"cnp\":4,\"roce\":0},\"ecn_flows\":[{\"ce\":3},{\"ce\":5}],"
	    "\"pause\":{\"priorities\":[{\"priority\":3,\"kind\":\"pfc\",\"frames\":12,\"xoff\":10,\"xon\":2,\"paused_s\":0.5}]}}\n");
	put(d, "capture.json", "{\"interfaces\":[{\"kernel_drops\":0},{\"kernel_drops\":2}]}\n");
	snprintf(s, sizeof(s),
		 "{\"type\":\"start\"}\n"
		 "{\"type\":\"summary\",\"size\":65536,\"tx\":{\"bytes\":%.0f,\"seconds\":2.0,\"errors\":0},\"rx\":{\"bytes\":0,\"seconds\":2.0,\"errors\":0},\"in_flight\":%d}\n",
		 gbytes * 1e9, rep == 1 ? 7 : 0);	/* rep 1 ended with 7 sends in flight */
	put(d, "traffic-x-client-b.jsonl", s);
}

/* A results folder in root (a mkdtemp template) with a two-host, one-phase experiment. */
static void results_root(char *root)
{
	assert_non_null(mkdtemp(root));
	put(root, "experiment.yaml",
	    "name: sum\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4}\n  b: {netdev: vb, rdma: s, addr: 1.2.3.5}\n"
	    "phases:\n  - {name: x, traffic: {from: a, to: b}}\n");
}

/* summary_make over root, then its summary.json */
static json_object *summarised(const char *root)
{
	char err[512] = "", path[600];
	json_object *sum;

	if (summary_make(root, err, sizeof(err)))
		fail_msg("%s", err);
	snprintf(path, sizeof(path), "%s/summary.json", root);
	sum = json_object_from_file(path);
	assert_non_null(sum);
	return sum;
}

static void test_summary(void **state)
{
	char root[] = "/tmp/run-summary-XXXXXX", path[600];
	json_object *sum, *x;

	(void)state;
	results_root(root);
	rep_folder(root, 0, 1.0, true);	 /* 1 GB in 2 s: 4 Gb/s */
	rep_folder(root, 1, 2.0, true);	 /* 8 Gb/s */
	rep_folder(root, 2, 9.0, false); /* invalid: not in the spread */
	sum = summarised(root);
	assert_int_equal(json_object_get_int(get(sum, "repetitions_valid")), 2);
	assert_int_equal(json_object_get_int(get(sum, "repetitions_total")), 3);
	x = get(sum, "points/0/repetitions/0/hosts/a/counters");
	assert_int_equal(json_object_get_int(get(x, "cnp_sent")), 350);
	assert_int_equal(json_object_get_int(get(x, "counter_resets")), 1);
	assert_int_equal(json_object_get_int(get(x, "pfc_tx_frames/prio3")), 15);
	assert_null(get(x, "pfc_tx_frames/prio2")); /* never read: n/a, not 0 */
	assert_null(get(x, "cnp_handled"));
	/* 0.1 s + 0.3 s paused of a 2 s point */
	assert_float_equal(json_object_get_double(get(x, "paused_share_rx/prio3")), 0.2, 1e-9);
	x = get(sum, "points/0/repetitions/0/hosts/a/capture");
	assert_int_equal(json_object_get_int(get(x, "pfc/prio3/xoff")), 10);
	assert_float_equal(json_object_get_double(get(x, "pfc/prio3/paused_share")), 0.25, 1e-9);
	assert_int_equal(json_object_get_int(get(x, "roce_ce")), 8);
	assert_int_equal(json_object_get_int(get(x, "kernel_drops")), 2);
	assert_float_equal(json_object_get_double(get(sum, "points/0/repetitions/1/throughput_gbps/x/a->b")),
			   8.0, 1e-9);
	x = get(sum, "points/0/over_valid_repetitions");
	assert_int_equal(json_object_get_int(get(x, "throughput_gbps x a->b/n")), 2);
	assert_float_equal(json_object_get_double(get(x, "throughput_gbps x a->b/mean")), 6.0, 1e-9);
	assert_float_equal(json_object_get_double(get(x, "throughput_gbps x a->b/min")), 4.0, 1e-9);
	assert_float_equal(json_object_get_double(get(x, "throughput_gbps x a->b/max")), 8.0, 1e-9);
	/* sends left in flight at a size's end: where any, by phase and direction */
	assert_int_equal(json_object_get_int(get(sum, "points/0/repetitions/1/sends_left_in_flight/x/a->b")), 7);
	assert_non_null(get(sum, "points/0/repetitions/0/sends_left_in_flight"));
	assert_null(get(sum, "points/0/repetitions/0/sends_left_in_flight/x"));
	snprintf(path, sizeof(path), "grep -q '^    in flight  x  *a->b 7 sends at the end, not counted$' %s/summary.txt", root);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "test \"$(grep -c 'in flight' %s/summary.txt)\" = 1", root);
	assert_int_equal(system(path), 0);
	/* host b recorded nothing: its figures are n/a */
	assert_null(get(sum, "points/0/repetitions/0/hosts/b/counters/cnp_sent"));
	json_object_put(sum);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* Records a host left are data, not trusted: members of the wrong type (null, a string
 * for a number, a number for an object) and numbers out of range (1e999) read as absent
 * or n/a, never crash or count; the good lines around them still count. */
static void test_records_malformed(void **state)
{
	char root[] = "/tmp/run-records-XXXXXX", path[600];
	struct rec_counter c[] = { { .metric = "cnp.sent" }, { .metric = "x.big" } };
	struct rec_monitor m;
	struct rec_traffic t;
	double mean = -1;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "meta.json", "{\"columns\":[null,{\"kind\":null,\"name\":1},{\"kind\":\"gauge\"},"
			       "{\"kind\":\"gauge\",\"name\":null}]}\n");
	put(root, "samples.jsonl",
	    "{\"type\":null}\n"
	    "{\"type\":\"event\",\"event\":null}\n"
	    "{\"type\":\"sample\",\"values\":5}\n"
	    "{\"type\":\"sample\",\"values\":[1,2]}\n"
	    "{\"type\":\"sample\",\"dt_ns\":1000000000,\"values\":{\"cnp.sent\":10,\"g\":\"7\"},"
	    "\"rates\":{\"cnp.sent\":\"3\"}}\n"
	    "{\"type\":\"sample\",\"dt_ns\":1000000000,\"values\":{\"cnp.sent\":12,\"x.big\":1,\"g\":4},"
	    "\"rates\":{\"cnp.sent\":2,\"x.big\":1e308}}\n"
	    "{\"type\":\"sample\",\"dt_ns\":1000000000,\"values\":{\"cnp.sent\":13,\"x.big\":2,\"g\":1e999},"
	    "\"rates\":{\"cnp.sent\":1,\"x.big\":1e308}}\n");
	assert_int_equal(rec_monitor_read(root, &m, c, 2), 0);
	assert_int_equal(m.samples, 3);	/* the three whose values are an object */
	assert_false(m.failed);		/* an event of no kind is no error */
	assert_true(c[0].valid);
	assert_float_equal(c[0].delta, 3.0, 1e-9);	/* the rate "3" (a string) left out */
	assert_false(c[1].valid);			/* 2e308 is out of range: n/a */
	assert_true(rec_monitor_gauge_mean(root, "g", &mean));
	assert_float_equal(mean, 4.0, 1e-9);		/* "7" and 1e999 are no values */
	snprintf(path, sizeof(path), "%s/t.jsonl", root);
	put(root, "t.jsonl",
	    "{\"type\":null}\n"
	    "{\"type\":\"summary\",\"tx\":{\"bytes\":\"12\",\"seconds\":1},\"rx\":[1]}\n"
	    "{\"type\":\"summary\",\"tx\":{\"bytes\":1e999,\"seconds\":1},\"rx\":{\"bytes\":-5,\"seconds\":1}}\n");
	assert_int_equal(rec_traffic_read(path, &t), 0);
	assert_true(t.has_summary);
	assert_false(t.tx_valid);
	assert_false(t.rx_valid);
	put(root, "t.jsonl",
	    "{\"type\":\"summary\",\"tx\":{\"bytes\":1e308,\"seconds\":1e-300}}\n");
	assert_int_equal(rec_traffic_read(path, &t), 0);
	assert_false(t.tx_valid);	/* 8e308 / 1e-300 b/s is out of range */
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* A results folder from elsewhere (pfclab run --report): a status.json whose members have
 * the wrong types is summarised, not trusted (phases null aborted in json-c before). */
static void test_summary_bad_status(void **state)
{
	char root[] = "/tmp/run-badstatus-XXXXXX", path[600];
	json_object *sum, *x;

	(void)state;
	results_root(root);
	snprintf(path, sizeof(path), "%s/points/p000/rep0", root);
	assert_int_equal(pfc_mkdir_p(path), 0);
	put(path, "status.json", "{\"phases\":null,\"reasons\":5,\"valid\":\"yes\","
				 "\"t0_wall_ns\":-9223372036854775808}\n");
	sum = summarised(root);
	x = get(sum, "points/0/repetitions/0");
	assert_non_null(x);
	assert_false(json_object_get_boolean(get(x, "valid")));	/* "yes" is no boolean */
	assert_int_equal(json_object_array_length(get(x, "reasons")), 0);
	assert_null(get(x, "phases"));
	json_object_put(sum);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* The line of a failed process's standard error that says why: progress, warnings and
 * blank lines passed over, a warning when nothing else is there, nothing from progress
 * alone; made fit to show (control characters, bytes that are not UTF-8, length). */
static void test_err_line(void **state)
{
	static const struct {
		const char *text;
		int rc;
		const char *want;
	} cases[] = {
		{ "pfclab traffic: waiting for a client on port 18515\n\n"
		  "pfclab traffic: warning: rxe0: no RoCEv2 GID\n"
		  "pfclab traffic: peer gone: Connection reset\nlater line\n",
		  0, "pfclab traffic: peer gone: Connection reset" },
		{ "pfclab capture: listening on va (snaplen 128)\n  \t\n"
		  "pfclab capture: va: capture failed: Network is down\n",
		  0, "pfclab capture: va: capture failed: Network is down" },
		{ "pfclab monitor: warning: dcb: not supported by va\n", 0,
		  "pfclab monitor: warning: dcb: not supported by va" },
		{ "sh: 1: ethtool: not found\r\n", 0, "sh: 1: ethtool: not found" },
		{ "pfclab capture: listening on va\n\n", -ENODATA, NULL },
		{ "", -ENODATA, NULL },
		{ "  bad\x01tab\there \xff\xc3\xa9t\xc3\xa9 \xed\xa0\x80 end  \n", 0,
		  "bad tab here ?\xc3\xa9t\xc3\xa9 ??? end" },
	};
	char root[] = "/tmp/run-errline-XXXXXX", path[600], line[REC_ERR_LINE], big[1000], out[16];
	size_t i, n;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/x.err", root);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		put(root, "x.err", cases[i].text);
		line[0] = 0;
		if (rec_err_line(path, line, sizeof(line)) != cases[i].rc)
			fail_msg("case %zu: rc %d, want %d", i, rec_err_line(path, line, sizeof(line)),
				 cases[i].rc);
		if (cases[i].want && strcmp(line, cases[i].want))
			fail_msg("case %zu:\n got '%s'\nwant '%s'", i, line, cases[i].want);
	}
	assert_int_equal(rec_err_line("/nonexistent/x.err", line, sizeof(line)), -ENOENT);
	/* a long line: cut to the bound with "..." */
	memset(big, 'e', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = 0;
	put(root, "x.err", big);
	assert_int_equal(rec_err_line(path, line, sizeof(line)), 0);
	assert_int_equal(strlen(line), REC_ERR_LINE - 1);
	assert_string_equal(line + REC_ERR_LINE - 4, "...");
	/* a cut never splits a character: "é" (2 bytes) that would end past the bound */
	n = rec_text_clean("abcdefghijk\xc3\xa9", 13, out, sizeof(out));
	assert_int_equal(n, 13);
	assert_string_equal(out, "abcdefghijk\xc3\xa9");
	n = rec_text_clean("abcdefghijklm\xc3\xa9xyz", 18, out, sizeof(out));
	assert_string_equal(out, "abcdefghijkl...");
	assert_int_equal(n, 15);
	n = rec_text_clean("abcdefghijkl\xc3\xa9xyz", 17, out, sizeof(out));
	assert_string_equal(out, "abcdefghijkl...");
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* status.json's failed processes reach summary.json and summary.txt; read as data: an
 * element that is no object is left out, a member of the wrong type is null, text is
 * made fit to show. */
static void test_summary_errors(void **state)
{
	char root[] = "/tmp/run-sumerr-XXXXXX", path[900], d[600];
	json_object *sum, *x;

	(void)state;
	results_root(root);
	rep_folder(root, 0, 1.0, false);
	snprintf(d, sizeof(d), "%s/points/p000/rep0", root);
	put(d, "status.json",
	    "{\"finished\":true,\"valid\":false,\"reasons\":[\"traffic exited with status 1\"],"
	    "\"errors\":[{\"host\":\"b\",\"process\":\"traffic-x-server-a\","
	    "\"file\":\"traffic-x-server-a.err\",\"failure\":\"exit status 1\","
	    "\"message\":\"pfclab traffic: this kernel has no RDMA support\"},"
	    "5,{\"host\":\"a\",\"file\":\"pre-x-0.err\",\"failure\":7,\"message\":\"bad\\u0001x\"},"
	    "{\"host\":\"a\",\"file\":\"capture.err\",\"failure\":\"no capture summary\","
	    "\"message\":null}],"
	    "\"t0_wall_ns\":1000000000,\"phases\":[{\"name\":\"x\",\"start_s\":0,\"end_s\":2.0}]}\n");
	sum = summarised(root);
	x = get(sum, "points/0/repetitions/0/errors");
	assert_int_equal(json_object_array_length(x), 3);
	assert_string_equal(json_object_get_string(get(x, "0/message")),
			    "pfclab traffic: this kernel has no RDMA support");
	assert_string_equal(json_object_get_string(get(x, "0/process")), "traffic-x-server-a");
	assert_null(get(x, "1/failure"));
	assert_null(get(x, "1/process"));
	assert_string_equal(json_object_get_string(get(x, "1/message")), "bad x");
	assert_null(get(x, "2/message"));
	snprintf(path, sizeof(path), "grep -qx '    error  host b, traffic-x-server-a.err (exit status 1): "
		 "pfclab traffic: this kernel has no RDMA support' %s/summary.txt", root);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "grep -qx '    error  host a, pre-x-0.err (failed): bad x' %s/summary.txt",
		 root);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "grep -qx '    error  host a, capture.err (no capture summary): "
		 "no error line in it' %s/summary.txt", root);
	assert_int_equal(system(path), 0);
	json_object_put(sum);
	/* a status.json from before: no errors, an empty list */
	rep_folder(root, 0, 1.0, true);
	sum = summarised(root);
	assert_int_equal(json_object_array_length(get(sum, "points/0/repetitions/0/errors")), 0);
	json_object_put(sum);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* host clock 2 s ahead at the start, 2.01 s at the end: a host time in the middle moves by
 * the interpolated offset; outside the run the nearest measured one applies */
static void test_clock(void **state)
{
	json_object *mh = json_tokener_parse(
		"{\"clock\":{\"start_wall_ns\":1000000000000,\"offset_start_ns\":2000000000,"
		"\"end_wall_ns\":1100000000000,\"offset_end_ns\":2010000000}}");
	json_object *only = json_tokener_parse("{\"clock\":{\"offset_start_ns\":-500}}");

	(void)state;
	assert_int_equal(clock_to_runner(mh, 1050000000000), 1050000000000 - 2005000000);
	assert_int_equal(clock_to_runner(mh, 900000000000), 900000000000 - 2000000000);
	assert_int_equal(clock_to_runner(mh, 1200000000000), 1200000000000 - 2010000000);
	assert_int_equal(clock_to_runner(only, 1000), 1500);
	assert_int_equal(clock_to_runner(NULL, 1000), 1000);
	json_object_put(mh);
	json_object_put(only);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validity),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_records_malformed),
		cmocka_unit_test(test_summary_bad_status),
		cmocka_unit_test(test_err_line),
		cmocka_unit_test(test_summary_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
