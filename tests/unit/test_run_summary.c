// SPDX-License-Identifier: GPL-2.0-or-later
/* test_run_summary.c: the validity rules and warnings, host times on the runner's clock, and
 * summary arithmetic on a small constructed results folder (monitor rates x intervals,
 * captured PFC per priority and paused share of the point and per phase, throughput from
 * traffic summaries, spread over repetitions, n/a where nothing was read); review's time
 * order and ECN figures read as data, its timeline read whole or refused with the line
 * (and the summary saying so); the error line of a failed process and the failed
 * processes in the summary.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/util.h"
#include "scripts/run/clock.h"
#include "scripts/run/records.h"
#include "scripts/run/report.h"
#include "scripts/run/validity.h"

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
	o.inject_exit = 2;
	r = json_object_new_array();
	assert_false(validity_judge(&o, e, r));
	assert_string_equal(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN),
			    "[\"host b unreachable\",\"traffic exited with status 1\","
			    "\"an injector exited with status 2\",\"traffic reported 3 completion errors\",\"capture dropped 7 frames (kernel drops)\","
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
		 "\"t0_wall_ns\":1000000000,\"phases\":[{\"name\":\"x\",\"start_s\":0,\"end_s\":2.0,"
		 "\"traffic_end_s\":1.8999999999999999}]}",
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
	/* its meta.json: 3 missed intervals, 1.5 s of steal (rep 1: from a pfclab that wrote
	 * no steal) */
	put(d, "meta.json", rep == 1 ? "{\"overruns_total\":3}\n" :
	    "{\"overruns_total\":3,\"host_steal_ns\":1500000000}\n");
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
	/* the monitor's missed intervals and the host's steal time, from its meta.json */
	assert_int_equal(json_object_get_int(get(x, "missed_intervals")), 3);
	assert_float_equal(json_object_get_double(get(x, "host_steal_s")), 1.5, 1e-9);
	assert_null(get(sum, "points/0/repetitions/1/hosts/a/counters/host_steal_s"));
	assert_int_equal(json_object_get_int(get(sum, "points/0/repetitions/1/hosts/a/counters/missed_intervals")), 3);
	assert_null(get(sum, "points/0/repetitions/0/hosts/b/counters/missed_intervals"));
	assert_null(get(sum, "points/0/repetitions/0/hosts/b/counters/host_steal_s"));
	snprintf(path, sizeof(path), "grep -qx '      monitor        3 samples, 3 missed intervals, "
		 "host steal 1.50 s' %s/summary.txt && grep -qx '      monitor        3 samples, 3 "
		 "missed intervals, host steal n/a' %s/summary.txt && test \"$(grep -c '^      monitor ' "
		 "%s/summary.txt)\" = 3", root, root, root);
	assert_int_equal(system(path), 0);
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
	/* the phases as status.json has them, doubles in the fewest digits that read back (an
	 * older pfclab wrote 17), integers as integers */
	snprintf(path, sizeof(path), "grep -q '\"traffic_end_s\":1.9$' %s/summary.json && "
		 "grep -q '\"start_s\":0,$' %s/summary.json", root, root);
	assert_int_equal(system(path), 0);
	x = get(sum, "points/0/repetitions/0/phases/0");
	assert_true(json_object_get_double(get(x, "traffic_end_s")) == 1.9);
	/* host b recorded nothing: its figures are n/a, and the summary says why (no
	 * "not counted by this NIC" for a record that is not there), no count of 0 */
	assert_null(get(sum, "points/0/repetitions/0/hosts/b/counters/cnp_sent"));
	assert_null(get(sum, "points/0/repetitions/0/hosts/b/counters/samples"));
	assert_null(get(sum, "points/0/repetitions/0/hosts/b/counters/counter_resets"));
	assert_string_equal(json_object_get_string(get(sum, "points/0/repetitions/0/hosts/b/counters_na")),
			    "points/p000/rep0/b/monitor/samples.jsonl: No such file or directory (the "
			    "host's monitor left no record; points/p000/rep0/b/monitor.err says why)");
	assert_null(get(sum, "points/0/repetitions/0/hosts/a/counters_na"));
	snprintf(path, sizeof(path), "grep -qF '      counters       n/a: points/p000/rep0/b/monitor/"
		 "samples.jsonl: No such file or directory (the host' %s/summary.txt", root);
	assert_int_equal(system(path), 0);
	json_object_put(sum);
	/* monitor: false: not monitored, said so for every host */
	put(root, "experiment.yaml",
	    "name: sum\nmonitor: false\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4}\n"
	    "  b: {netdev: vb, rdma: s, addr: 1.2.3.5}\nphases:\n  - {name: x, traffic: {from: a, to: b}}\n");
	sum = summarised(root);
	assert_string_equal(json_object_get_string(get(sum, "points/0/repetitions/0/hosts/b/counters_na")),
			    "not monitored (monitor: false in the experiment)");
	assert_null(get(sum, "points/0/repetitions/0/hosts/b/counters/counter_resets"));
	json_object_put(sum);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* A GPU named by its PCI address: the summary takes the index the host's monitor found
 * (its meta.json's "gpuN" sources) for the PCIe means, where a number is taken as given. */
static void test_summary_gpu_address(void **state)
{
	char root[] = "/tmp/run-summary-XXXXXX", d[600];
	json_object *sum, *x;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "experiment.yaml",
	    "name: sum\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4, gpu: \"17:00.0\"}\n"
	    "  b: {netdev: vb, rdma: s, addr: 1.2.3.5, gpu: 1}\n"
	    "phases:\n  - {name: x, traffic: {from: a, to: b}}\n");
	rep_folder(root, 0, 1.0, true);
	snprintf(d, sizeof(d), "%s/points/p000/rep0/a/monitor", root);
	put(d, "meta.json", "{\"sources\":[{\"source\":\"nvml\",\"device\":\"gpu1\"},"
	    "{\"source\":\"pci\",\"device\":\"gpu1\"},{\"source\":\"link\",\"device\":\"va\"}]}\n");
	put(d, "samples.jsonl",
	    "{\"type\":\"sample\",\"seq\":1,\"wall_ns\":1000000000,\"dt_ns\":0,\"values\":{\"pcie.gpu1.rx_Bps\":2e9,\"pcie.gpu1.tx_Bps\":1e9}}\n"
	    "{\"type\":\"sample\",\"seq\":2,\"wall_ns\":2000000000,\"dt_ns\":1000000000,\"values\":{\"pcie.gpu1.rx_Bps\":4e9,\"pcie.gpu1.tx_Bps\":3e9}}\n");
	/* host b: gpu 1 as given, but its monitor has no GPU columns: n/a */
	snprintf(d, sizeof(d), "%s/points/p000/rep0/b/monitor", root);
	assert_int_equal(pfc_mkdir_p(d), 0);
	put(d, "samples.jsonl",
	    "{\"type\":\"sample\",\"seq\":1,\"wall_ns\":1000000000,\"dt_ns\":0,\"values\":{\"link.rx_packets\":1}}\n");
	sum = summarised(root);
	x = get(sum, "points/0/repetitions/0/hosts/a/counters/gpu_pcie");
	assert_float_equal(json_object_get_double(get(x, "rx_Bps_mean")), 3e9, 1);
	assert_float_equal(json_object_get_double(get(x, "tx_Bps_mean")), 2e9, 1);
	x = get(sum, "points/0/repetitions/0/hosts/b/counters/gpu_pcie");
	assert_non_null(x);
	assert_null(get(x, "rx_Bps_mean"));
	json_object_put(sum);
	/* two GPU sources that disagree: no index, so n/a rather than one of them */
	snprintf(d, sizeof(d), "%s/points/p000/rep0/a/monitor", root);
	put(d, "meta.json", "{\"sources\":[{\"source\":\"nvml\",\"device\":\"gpu1\"},"
	    "{\"source\":\"pci\",\"device\":\"gpu0\"}]}\n");
	sum = summarised(root);
	assert_null(get(sum, "points/0/repetitions/0/hosts/a/counters/gpu_pcie/rx_Bps_mean"));
	json_object_put(sum);
	snprintf(d, sizeof(d), "rm -rf %s", root);
	assert_int_equal(system(d), 0);
}

/* The NIC's PCIe line: mlx5's stall shares (percentage gauges, values only) averaged and
 * their peak, the PCIe buffer overflow counted; bnxt_re's CNPs received beside those
 * handled. A host whose NIC counts none of them (rxe, veth): every field null, n/a in
 * summary.txt, no "received" said. A record from before the shares were gauges
 * (microsecond counters with rates): the mean from their delta, no peak. */
static void test_summary_nic_pcie(void **state)
{
	char root[] = "/tmp/run-summary-XXXXXX", d[900];
	json_object *sum, *x;

	(void)state;
	results_root(root);
	rep_folder(root, 0, 1.0, true);
	snprintf(d, sizeof(d), "%s/points/p000/rep0/a/monitor", root);
	put(d, "meta.json", "{}\n");
	/* shares 12, 85, 40 % of writes; 0, 3, 1 % of reads; 17 packets dropped; 30 CNPs */
	put(d, "samples.jsonl",
	    "{\"type\":\"sample\",\"seq\":1,\"wall_ns\":1000000000,\"dt_ns\":0,\"values\":{\"pcie.nic.stalled_wr\":12,\"pcie.nic.stalled_rd\":0,\"pcie.nic.buffer_overflow\":0,\"cnp.received\":10}}\n"
	    "{\"type\":\"sample\",\"seq\":2,\"wall_ns\":2000000000,\"dt_ns\":1000000000,\"values\":{\"pcie.nic.stalled_wr\":85,\"pcie.nic.stalled_rd\":3,\"pcie.nic.buffer_overflow\":0,\"cnp.received\":20},"
	    "\"rates\":{\"pcie.nic.buffer_overflow\":0,\"cnp.received\":10}}\n"
	    "{\"type\":\"sample\",\"seq\":3,\"wall_ns\":3000000000,\"dt_ns\":1000000000,\"values\":{\"pcie.nic.stalled_wr\":40,\"pcie.nic.stalled_rd\":1,\"pcie.nic.buffer_overflow\":17,\"cnp.received\":40},"
	    "\"rates\":{\"pcie.nic.buffer_overflow\":17,\"cnp.received\":20}}\n");
	snprintf(d, sizeof(d), "%s/points/p000/rep0/b/monitor", root);
	assert_int_equal(pfc_mkdir_p(d), 0);
	put(d, "samples.jsonl",
	    "{\"type\":\"sample\",\"seq\":1,\"wall_ns\":1000000000,\"dt_ns\":0,\"values\":{\"link.rx_packets\":1}}\n"
	    "{\"type\":\"sample\",\"seq\":2,\"wall_ns\":2000000000,\"dt_ns\":1000000000,\"values\":{\"link.rx_packets\":2},\"rates\":{\"link.rx_packets\":1}}\n");
	sum = summarised(root);
	x = get(sum, "points/0/repetitions/0/hosts/a/counters/nic_pcie");
	assert_float_equal(json_object_get_double(get(x, "stalled_wr_share_mean")), 137.0 / 300, 1e-9);
	assert_float_equal(json_object_get_double(get(x, "stalled_wr_share_max")), 0.85, 1e-9);
	assert_float_equal(json_object_get_double(get(x, "stalled_rd_share_mean")), 4.0 / 300, 1e-9);
	assert_float_equal(json_object_get_double(get(x, "stalled_rd_share_max")), 0.03, 1e-9);
	assert_int_equal(json_object_get_int(get(x, "buffer_overflow")), 17);
	assert_int_equal(json_object_get_int(get(sum, "points/0/repetitions/0/hosts/a/counters/cnp_received")), 30);
	/* over the valid repetitions: the spread of the NIC's stall share and drops, per host */
	x = get(sum, "points/0/over_valid_repetitions");
	assert_int_equal(json_object_get_int(get(x, "nic_pcie_buffer_overflow a/n")), 1);
	assert_float_equal(json_object_get_double(get(x, "nic_pcie_stalled_wr_share_mean a/max")),
			   137.0 / 300, 1e-9);
	assert_int_equal(json_object_get_int(get(x, "cnp_received a/n")), 1);
	assert_null(get(x, "nic_pcie_buffer_overflow b"));
	x = get(sum, "points/0/repetitions/0/hosts/b/counters/nic_pcie");
	assert_non_null(x);
	assert_true(json_object_object_get_ex(x, "stalled_wr_share_mean", NULL));
	assert_null(get(x, "stalled_wr_share_mean"));
	assert_null(get(x, "stalled_wr_share_max"));
	assert_null(get(x, "stalled_rd_share_mean"));
	assert_null(get(x, "buffer_overflow"));
	assert_true(json_object_object_get_ex(get(sum, "points/0/repetitions/0/hosts/b/counters"),
					      "cnp_received", NULL));
	assert_null(get(sum, "points/0/repetitions/0/hosts/b/counters/cnp_received"));
	snprintf(d, sizeof(d),
		 "grep -qxF '      NIC PCIe       stalled wr 45.67%% (peak 85.00%%) rd 1.33%% (peak 3.00%%), "
		 "PCIe buffer overflow 17 packets' %s/summary.txt && "
		 "grep -qxF '      NIC PCIe       stalled wr n/a rd n/a, PCIe buffer overflow n/a' %s/summary.txt && "
		 "grep -qF 'CNP            sent n/a handled n/a received 30 (counters)' %s/summary.txt && "
		 "test \"$(grep -c 'received' %s/summary.txt)\" = 1", root, root, root, root);
	assert_int_equal(system(d), 0);
	json_object_put(sum);
	/* an older record: the shares as microsecond counters (rates), over the 2 s point */
	snprintf(d, sizeof(d), "%s/points/p000/rep0/a/monitor", root);
	put(d, "samples.jsonl",
	    "{\"type\":\"sample\",\"seq\":1,\"wall_ns\":1000000000,\"dt_ns\":0,\"values\":{\"pcie.nic.stalled_wr\":0}}\n"
	    "{\"type\":\"sample\",\"seq\":2,\"wall_ns\":2000000000,\"dt_ns\":1000000000,\"values\":{\"pcie.nic.stalled_wr\":500000},"
	    "\"rates\":{\"pcie.nic.stalled_wr\":500000}}\n");
	sum = summarised(root);
	x = get(sum, "points/0/repetitions/0/hosts/a/counters/nic_pcie");
	assert_float_equal(json_object_get_double(get(x, "stalled_wr_share_mean")), 0.25, 1e-9);
	assert_null(get(x, "stalled_wr_share_max"));
	json_object_put(sum);
	snprintf(d, sizeof(d), "rm -rf %s", root);
	assert_int_equal(system(d), 0);
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
	{
		/* the counters and several gauges in one pass give the same figures */
		struct rec_gauge g[] = { { .metric = "g", .sum = 99, .n = 9 }, { .metric = "none" },
					 { .metric = "cnp.sent" } };

		assert_int_equal(rec_monitor_read_gauges(root, &m, c, 2, g, 3), 0);
		assert_int_equal(m.samples, 3);
		assert_float_equal(c[0].delta, 3.0, 1e-9);
		assert_true(rec_gauge_mean(&g[0], &mean));
		assert_float_equal(mean, 4.0, 1e-9);	/* "7" and 1e999 are no values */
		assert_int_equal(g[0].n, 1);		/* zeroed first */
		assert_false(rec_gauge_mean(&g[1], &mean));
		assert_true(rec_gauge_mean(&g[2], &mean));
		assert_float_equal(mean, 35.0 / 3, 1e-9);
	}
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
/* An interrupted run: summary.txt's first line says how much of the plan ran, and
 * summary.json what was planned. */
static void test_summary_planned(void **state)
{
	char root[] = "/tmp/run-sumplan-XXXXXX", path[900];
	json_object *sum;

	(void)state;
	results_root(root);
	put(root, "experiment.yaml",
	    "name: sum\nrepetitions: 3\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4}\n"
	    "  b: {netdev: vb, rdma: s, addr: 1.2.3.5}\n"
	    "phases:\n  - {name: x, traffic: {from: a, to: b}}\n");
	rep_folder(root, 0, 1.0, true);
	sum = summarised(root);
	assert_int_equal(json_object_get_int(get(sum, "repetitions_total")), 1);
	assert_int_equal(json_object_get_int(get(sum, "repetitions_planned")), 3);
	snprintf(path, sizeof(path), "grep -q '^sum: .*, 1 of 1 repetitions valid (1 of the 3 "
		 "planned ran)$' %s/summary.txt", root);
	assert_int_equal(system(path), 0);
	json_object_put(sum);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

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

struct shown {
	size_t n;
	char first[REC_ERR_LINE + 400], last[REC_ERR_LINE + 400];
};

static void shown_line(const char *line, void *arg)
{
	struct shown *s = arg;

	snprintf(s->n ? s->last : s->first, sizeof(s->first), "%s", line);
	s->n++;
}

/* The lines shown of a point's failed processes: the first REC_ERRORS_SHOWN, each as
 * rec_error_text gives it, and how many more there are; none of anything but a list. */
static void test_errors_show(void **state)
{
	json_object *errs = json_object_new_array(), *o;
	struct shown s;
	char want[64];
	size_t i;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(rec_errors_show(errs, shown_line, &s), 0);
	assert_int_equal(rec_errors_show(NULL, shown_line, &s), 0);
	assert_int_equal(s.n, 0);
	for (i = 0; i < REC_ERRORS_SHOWN + 2; i++) {
		char file[32];

		snprintf(file, sizeof(file), "p%zu.err", i);
		o = json_object_new_object();
		json_object_object_add(o, "host", json_object_new_string("a"));
		json_object_object_add(o, "file", json_object_new_string(file));
		json_object_object_add(o, "failure", json_object_new_string("exit status 1"));
		json_object_object_add(o, "message", NULL);
		json_object_array_add(errs, o);
		if (i + 1 == REC_ERRORS_SHOWN)
			assert_int_equal(rec_errors_show(errs, shown_line, &s), 0);
	}
	assert_int_equal(s.n, REC_ERRORS_SHOWN);
	memset(&s, 0, sizeof(s));
	assert_int_equal(rec_errors_show(errs, shown_line, &s), 2);
	assert_int_equal(s.n, REC_ERRORS_SHOWN);
	assert_string_equal(s.first, "host a, p0.err (exit status 1): no error line in it");
	snprintf(want, sizeof(want), "host a, p%d.err (exit status 1): no error line in it",
		 REC_ERRORS_SHOWN - 1);
	assert_string_equal(s.last, want);
	json_object_put(errs);
}

/* Whether the file PATH has the line LINE (exactly). */
static bool has_line(const char *path, const char *line)
{
	FILE *f = fopen(path, "r");
	char *l = NULL;
	size_t cap = 0;
	ssize_t n;
	bool found = false;

	assert_non_null(f);
	while (!found && (n = getline(&l, &cap, f)) > 0) {
		if (l[n - 1] == '\n')
			l[n - 1] = 0;
		found = !strcmp(l, line);
	}
	free(l);
	fclose(f);
	return found;
}

/* What leaves a repetition valid but a figure less reliable: late frames and other bad
 * timestamps per host, with the counts; none where review found none. */
static void test_validity_warn(void **state)
{
	static const char text[] = "name: v\nhosts:\n  a: {netdev: va}\n  b: {netdev: vb}\n"
				   "phases:\n  - duration: 1s\n";
	char err[EXP_ERR_LEN];
	struct exp *e = NULL;
	struct validity_obs o;
	json_object *r, *w;

	(void)state;
	assert_int_equal(exp_parse("v.yaml", text, strlen(text), &e, err, sizeof(err)), 0);
	memset(&o, 0, sizeof(o));
	w = json_object_new_array();
	validity_warn(&o, e, w);
	assert_int_equal(json_object_array_length(w), 0);
	json_object_put(w);
	o.late_frames[0] = 1;
	o.bad_timestamps[0] = 1;	/* the late one itself: nothing else */
	o.late_frames[1] = 3;
	o.bad_timestamps[1] = 5;	/* 3 late, 2 out of range */
	o.max_backstep_s[1] = 0.0625;
	o.untimed[1] = 1;
	w = json_object_new_array();
	validity_warn(&o, e, w);
	assert_string_equal(json_object_to_json_string_ext(w, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
			    "[\"host a: 1 PAUSE/PFC/CNP frame further out of time order than review's reorder "
			    "window, counted where it came: paused time and CNP gaps are less reliable\","
			    "\"host b: 3 PAUSE/PFC/CNP frames further out of time order than review's reorder "
			    "window, counted where they came (the capture steps back up to 62.500 ms): paused "
			    "time and CNP gaps are less reliable\","
			    "\"host b: 2 captured frames with a timestamp out of range, counted but at a wrong "
			    "time: paused time and CNP gaps are less reliable\","
			    "\"host b: 1 captured frame without a timestamp (pcapng simple packet blocks), "
			    "counted but in no paused time, timeline or CNP gap\"]");
	/* a caveat, not a reason: the point stays valid */
	r = json_object_new_array();
	assert_true(validity_judge(&o, e, r));
	json_object_put(r);
	json_object_put(w);
	exp_free(e);
}

/* review.json's time order and ECN figures, read as data: members of the wrong type or
 * out of range are absent, counts summed over files, filters that differ "mixed", a share
 * n/a with review's reason. */
static void test_records_review(void **state)
{
	char root[] = "/tmp/run-review-XXXXXX", path[600];
	struct rec_review r;
	json_object *o;

	(void)state;
	assert_non_null(mkdtemp(root));
	o = json_tokener_parse(
		"{\"files\":[{\"reordered\":5,\"late_frames\":2,\"bad_timestamps\":3,\"max_backstep_s\":0.004,"
		"\"ecn_filter\":\"keeps_all\",\"frames_without_time\":4},"
		"{\"reordered\":\"7\",\"late_frames\":-1,\"bad_timestamps\":1e999,\"max_backstep_s\":null,"
		"\"ecn_filter\":5,\"frames_without_time\":null},"
		"7,{\"reordered\":7.0,\"max_backstep_s\":0.02,\"ecn_filter\":\"ce_only\","
		"\"frames_without_time\":3}],"
		"\"ecn_flows\":[{\"packets\":100,\"ce\":10,\"ce_share\":0.1},"
		"{\"packets\":50,\"ce\":50,\"ce_share\":null,\"ce_share_na\":\"capture kept only\\u0001 CE\"}]}");
	rec_review_scan(o, &r);
	json_object_put(o);
	assert_true(r.reordered_valid);
	assert_int_equal(r.reordered, 12);	/* 5 + 7.0; "7" is no count */
	assert_true(r.late_valid);
	assert_int_equal(r.late_frames, 2);	/* -1 is none */
	assert_int_equal(r.bad_timestamps, 3);	/* 1e999 is none */
	assert_true(r.untimed_valid);
	assert_int_equal(r.untimed, 7);		/* null is none */
	assert_true(r.backstep_valid);
	assert_float_equal(r.max_backstep_s, 0.02, 1e-12);
	assert_string_equal(r.ecn_filter, "mixed");
	assert_true(r.has_flows);
	assert_true(r.ce_valid);
	assert_int_equal(r.ce, 60);
	assert_false(r.share_valid);
	assert_string_equal(r.ce_share_na, "capture kept only  CE");
	/* every flow with a share: the share of all their packets */
	o = json_tokener_parse("{\"files\":[{\"reordered\":9000000000000000000},{\"reordered\":9000000000000000000}],"
			       "\"ecn_flows\":[{\"packets\":100,\"ce\":10,\"ce_share\":0.1},"
			       "{\"packets\":300,\"ce\":30,\"ce_share\":0.1}]}");
	rec_review_scan(o, &r);
	json_object_put(o);
	assert_false(r.reordered_valid);	/* a sum past int64 is no figure */
	assert_false(r.late_valid);		/* a review from before the field */
	assert_string_equal(r.ecn_filter, "");
	assert_true(r.share_valid);
	assert_float_equal(r.ce_share, 0.1, 1e-12);
	/* a flow without a share (a review from before ce_share), a CE count that is a string,
	 * no flows at all, no object at all */
	o = json_tokener_parse("{\"ecn_flows\":[{\"packets\":100,\"ce\":\"10\"}]}");
	rec_review_scan(o, &r);
	json_object_put(o);
	assert_false(r.ce_valid);
	assert_false(r.share_valid);
	assert_string_equal(r.ce_share_na, "");
	o = json_tokener_parse("{\"ecn_flows\":[],\"files\":{}}");
	rec_review_scan(o, &r);
	json_object_put(o);
	assert_true(r.ce_valid);
	assert_false(r.share_valid);
	assert_string_equal(r.ce_share_na, "no RoCEv2 packets captured");
	assert_false(r.reordered_valid);
	o = json_tokener_parse("[1]");
	rec_review_scan(o, &r);
	json_object_put(o);
	assert_false(r.has_flows);
	snprintf(path, sizeof(path), "%s/review.json", root);
	assert_int_equal(rec_review_read(path, &r), -ENOENT);
	put(root, "review.json", "[{\"files\":1}]");
	assert_int_equal(rec_review_read(path, &r), -EINVAL);
	put(root, "review.json", "{\"files\":[{\"late_frames\":4}]}");
	assert_int_equal(rec_review_read(path, &r), 0);
	assert_int_equal(r.late_frames, 4);

	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* review's timeline header up to paused_ns_pause, as every review has written it */
#define TL_HEAD "time_s,frames,pause,pfc,cnp,roce,roce_ce,other,truncated,invalid," \
	"paused_ns_prio0,paused_ns_prio1,paused_ns_prio2,paused_ns_prio3,paused_ns_prio4," \
	"paused_ns_prio5,paused_ns_prio6,paused_ns_prio7,paused_ns_pause"

/* The timeline, read through review's own reader: a valid file exactly (times as the
 * decimal in the file, counts, a paused time left empty not known, the file's bin); a
 * malformed one refused whole with the reader's line and reason, nothing kept. */
static void test_records_timeline(void **state)
{
	static const struct {
		const char *text;
		int rc;
		const char *err;
	} bad[] = {
		{ TL_HEAD "\n1.000000000,1,0,1,0,0,0,0,0,0,0,0,0,100,0,0,0,0,\n"
		  "1.010000000,1,0,1,0,0,0,0,0,0,0,0,0,100\n", -EINVAL,
		  "line 3: 14 fields where the header has 19" },
		{ TL_HEAD "\n1.0,1,0,1e999,0,0,0,0,0,0,0,0,0,100,0,0,0,0,\n", -EINVAL,
		  "line 2: pfc '1e999' is not a count" },
		{ TL_HEAD "\n1.0,1,0,1,0,0,0,0,0,0,0,0,0,-5,0,0,0,0,\n", -EINVAL,
		  "line 2: paused_ns_prio3 '-5' is not a count" },
		{ TL_HEAD "\nabc,1,0,1,0,0,0,0,0,0,0,0,0,5,0,0,0,0,\n", -EINVAL,
		  "line 2: time_s 'abc' is not seconds.nanoseconds" },
		{ TL_HEAD "\n1.0,1,0,,0,0,0,0,0,0,0,0,0,5,0,0,0,0,\n", -EINVAL,
		  "line 2: pfc is empty" },
		{ TL_HEAD "\n1.0,1,0,1,0,0,0,0,0,0,0,0,0,x,0,0,0,0,\n", -EINVAL,
		  "line 2: paused_ns_prio3 'x' is not a count" },
		{ TL_HEAD "\n1.0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"
		  "1.5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"
		  "1.2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n", -EINVAL,
		  "line 4: time_s 1.200000000 is not one bin (500ms) after the row before" },
		{ TL_HEAD "\n1.5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"
		  "1.5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n", -EINVAL,
		  "line 3: time_s does not step forward from the row before (review writes one "
		  "row per bin, in order)" },
		/* a header that lacks what review writes: not its timeline */
		{ "time_s,frames,pfc,paused_ns_prio3,paused_ns_pause\n1.0,1,2,100,\n", -EINVAL,
		  "line 1: no column 'pause' in the header: not a timeline of pfclab review" },
		{ "", -EINVAL, "empty: no header line" },
	};
	char root[] = "/tmp/run-timeline-XXXXXX", path[600], err[256];
	struct rec_timeline tl;
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/t.csv", root);
	/* a wall-clock time (past 2^53 ns, so no double holds it), an empty paused time, a
	 * column added later, a CRLF line end */
	put(root, "t.csv",
	    TL_HEAD ",pfc_prio0,later\n"
	    "1795700874.310000000,3,1,2,4,0,5,0,0,0,0,0,0,250000000,0,0,0,0,,0,x\n"
	    "1795700874.320000000,0,0,0,0,0,0,0,0,0,0,0,0,18446744073709551615,0,0,0,0,7,0,\r\n");
	assert_int_equal(rec_timeline_read(path, &tl, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(tl.n, 2);
	assert_true(tl.bin_s == 0.01);	/* the file's bin, not a difference of doubles */
	assert_true(tl.rows[0].t_ns == 1795700874310000000ull);	/* exact */
	assert_true(tl.rows[1].t_ns == 1795700874320000000ull);
	assert_true(tl.rows[0].v[REC_TL_PAUSE] == 1 && tl.rows[0].have[REC_TL_PAUSE]);
	assert_true(tl.rows[0].v[REC_TL_PFC] == 2 && tl.rows[0].have[REC_TL_PFC]);
	assert_true(tl.rows[0].v[REC_TL_CNP] == 4 && tl.rows[0].have[REC_TL_CNP]);
	assert_true(tl.rows[0].v[REC_TL_CE] == 5 && tl.rows[0].have[REC_TL_CE]);
	assert_true(tl.rows[0].v[REC_TL_PAUSED0 + 3] == 250000000);
	assert_true(tl.rows[0].have[REC_TL_PAUSED0 + 0]);		/* 0 is a time */
	assert_false(tl.rows[0].have[REC_TL_PAUSED0 + REC_TL_NPAUSED - 1]);	/* empty */
	assert_true(tl.rows[1].v[REC_TL_PAUSED0 + 3] == 18446744073709551615.0);
	assert_true(tl.rows[1].v[REC_TL_PAUSED0 + REC_TL_NPAUSED - 1] == 7);
	rec_timeline_free(&tl);
	/* a header alone (no frame captured) and a single row: the bin is 10 ms */
	put(root, "t.csv", TL_HEAD "\n");
	assert_int_equal(rec_timeline_read(path, &tl, err, sizeof(err)), 0);
	assert_int_equal(tl.n, 0);
	assert_true(tl.bin_s == 0.01);
	rec_timeline_free(&tl);
	put(root, "t.csv", TL_HEAD "\n2.5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n");
	assert_int_equal(rec_timeline_read(path, &tl, err, sizeof(err)), 0);
	assert_int_equal(tl.n, 1);
	assert_true(tl.bin_s == 0.01);
	assert_true(tl.rows[0].t_ns == 2500000000ull);
	rec_timeline_free(&tl);
	/* malformed: refused whole with the reader's text, never read in part */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int rc;

		put(root, "t.csv", bad[i].text);
		rc = rec_timeline_read(path, &tl, err, sizeof(err));
		if (rc != bad[i].rc || strcmp(err, bad[i].err))
			fail_msg("case %zu: rc %d '%s', want %d '%s'", i, rc, err, bad[i].rc, bad[i].err);
		assert_null(tl.rows);
		assert_int_equal(tl.n, 0);
	}
	/* a folder where the file belongs; no file at all (nothing to say) */
	snprintf(path, sizeof(path), "%s/dir.csv", root);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(rec_timeline_read(path, &tl, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "not a regular file");
	snprintf(path, sizeof(path), "%s/none.csv", root);
	assert_int_equal(rec_timeline_read(path, &tl, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "");
	assert_int_equal(tl.n, 0);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* The summary of a capture whose time stepped back and whose pauses fall in two phases:
 * per host the time-order figures and the CE share; per priority the paused share of the
 * point (labelled so in summary.txt) and per phase from the timeline, a bin across a
 * phase's edge shared by overlap; the warnings under the repetition, which stays valid. */
/* A results folder in root whose host a reviewed a capture with PFC on priority 3 and
 * one 802.3x PAUSE, in phases a (0-1.25 s) and b (1.25-2.5 s); its timeline is the
 * caller's. Time zero at 1 s on the runner's clock; host a's clock 0.25 s ahead. */
static void review_folder(char *root)
{
	char d[600];

	results_root(root);
	rep_folder(root, 0, 1.0, true);
	snprintf(d, sizeof(d), "%s/points/p000/rep0", root);
	put(d, "status.json",
	    "{\"finished\":true,\"valid\":true,\"reasons\":[],\"attempt\":0,\"t0_wall_ns\":1000000000,"
	    "\"phases\":[{\"name\":null,\"start_s\":0,\"end_s\":1},{\"name\":\"c\",\"start_s\":0,\"end_s\":0},"
	    "{\"name\":\"a\",\"start_s\":0,\"end_s\":1.25},{\"name\":\"b\",\"start_s\":1.25,\"end_s\":2.5}]}\n");
	put(root, "manifest.json", "{\"status\":\"complete\",\"hosts\":{\"a\":{\"clock\":{\"offset_start_ns\":250000000}}}}\n");
	snprintf(d, sizeof(d), "%s/points/p000/rep0/a", root);
	put(d, "review.json",
	    "{\"files\":[{\"reordered\":452,\"late_frames\":2,\"bad_timestamps\":3,\"max_backstep_s\":0.0116,"
	    "\"ecn_filter\":\"keeps_all\"}],"
	    "\"kinds\":{\"pfc\":12,\"pause\":\"1\",\"cnp\":-4,\"roce\":400},"
	    "\"ecn_flows\":[{\"packets\":100,\"ce\":10,\"ce_share\":0.1},{\"packets\":300,\"ce\":30,\"ce_share\":0.1}],"
	    "\"pause\":{\"priorities\":[{\"priority\":3,\"kind\":\"pfc\",\"frames\":12,\"xoff\":10,\"xon\":2,\"paused_s\":0.925},"
	    "{\"priority\":\"all\",\"kind\":\"pause\",\"frames\":1,\"xoff\":1,\"xon\":0,\"paused_s\":null}]}}\n");
}

/* The summary of a capture whose time stepped back and whose pauses fall in two phases:
 * per host the time-order figures and the CE share; per priority the paused share of the
 * point (labelled so in summary.txt) and per phase from the timeline, a bin across a
 * phase's edge shared by overlap; the warnings under the repetition, which stays valid. */
static void test_summary_review(void **state)
{
	char root[] = "/tmp/run-sumrev-XXXXXX", path[900], d[600];
	json_object *sum, *x;

	(void)state;
	review_folder(root);
	snprintf(d, sizeof(d), "%s/points/p000/rep0/a", root);
	/* bins of 0.5 s from 1.25 s on the host's clock; on the point's axis 0-0.5 (nothing), 0.5-1.0
	 * (0.25 s, phase a), 1.0-1.5 (0.1 s, half in a and half in b), 1.5-2.0, 2.0-2.5
	 * (0.075 s, b), 2.5-3.0 (0.5 s, after the point): a 0.3 s of 1.25, b 0.125 s of 1.25;
	 * PAUSE never timed (no link speed): n/a per phase */
	put(d, "review-timeline.csv",
	    TL_HEAD "\n"
	    "1.25,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"
	    "1.75,1,0,1,0,0,0,0,0,0,0,0,0,250000000,0,0,0,0,\n"
	    "2.25,1,0,1,0,0,0,0,0,0,0,0,0,100000000,0,0,0,0,\n"
	    "2.75,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"
	    "3.25,1,0,1,0,0,0,0,0,0,0,0,0,75000000,0,0,0,0,\n"
	    "3.75,1,0,1,0,0,0,0,0,0,0,0,0,500000000,0,0,0,0,\n");
	sum = summarised(root);
	x = get(sum, "points/0/repetitions/0/hosts/a/capture");
	assert_int_equal(json_object_get_int(get(x, "reordered")), 452);
	assert_int_equal(json_object_get_int(get(x, "late_frames")), 2);
	assert_int_equal(json_object_get_int(get(x, "bad_timestamps")), 3);
	assert_null(get(x, "frames_without_time"));	/* review gave none */
	assert_float_equal(json_object_get_double(get(x, "max_backstep_s")), 0.0116, 1e-12);
	assert_string_equal(json_object_get_string(get(x, "ecn_filter")), "keeps_all");
	assert_float_equal(json_object_get_double(get(x, "ce_share")), 0.1, 1e-12);
	assert_null(get(x, "ce_share_na"));
	assert_int_equal(json_object_get_int(get(x, "roce_ce")), 40);
	assert_int_equal(json_object_get_int(get(x, "pfc_frames")), 12);
	assert_null(get(x, "pause_frames"));	/* "1" is no count */
	assert_null(get(x, "cnp"));		/* nor is -4 */
	assert_float_equal(json_object_get_double(get(x, "pfc/prio3/paused_share")), 0.37, 1e-9);
	assert_float_equal(json_object_get_double(get(x, "pfc/prio3/by_phase/a/paused_s")), 0.3, 1e-9);
	assert_float_equal(json_object_get_double(get(x, "pfc/prio3/by_phase/a/paused_share")), 0.24, 1e-9);
	assert_float_equal(json_object_get_double(get(x, "pfc/prio3/by_phase/b/paused_s")), 0.125, 1e-9);
	assert_float_equal(json_object_get_double(get(x, "pfc/prio3/by_phase/b/duration_s")), 1.25, 1e-9);
	assert_null(get(x, "pfc/prio3/by_phase/c"));	/* no length: no share */
	assert_int_equal(json_object_object_length(get(x, "pfc/prio3/by_phase")), 2);
	assert_null(get(x, "pfc/pause/paused_s"));
	assert_null(get(x, "pfc/pause/paused_share"));
	assert_non_null(get(x, "pfc/pause/by_phase/a"));
	assert_null(get(x, "pfc/pause/by_phase/a/paused_s"));
	/* the warnings; the repetition stays valid */
	x = get(sum, "points/0/repetitions/0");
	assert_true(json_object_get_boolean(get(x, "valid")));
	assert_int_equal(json_object_array_length(get(x, "warnings")), 2);
	assert_non_null(strstr(json_object_get_string(get(x, "warnings/0")),
			       "host a: 2 PAUSE/PFC/CNP frames further out of time order"));
	/* host b left no review: n/a, no warning */
	assert_non_null(get(sum, "points/0/repetitions/0/hosts/b/capture/review"));
	assert_null(get(sum, "points/0/repetitions/0/hosts/b/capture/late_frames"));
	json_object_put(sum);
	snprintf(path, sizeof(path), "%s/summary.txt", root);
	{
		static const char *const lines[] = {
			"    warning  host a: 2 PAUSE/PFC/CNP frames further out of time order than review's "
			"reorder window, counted where they came (the capture steps back up to 11.600 ms): "
			"paused time and CNP gaps are less reliable",
			"    warning  host a: 1 captured frame with a timestamp out of range, counted but at a "
			"wrong time: paused time and CNP gaps are less reliable",
			"      PFC captured   prio3 12 frames (10 XOFF, 2 XON) paused 37.00% of the point's 2.5 s "
			"pause 1 frames (1 XOFF, 0 XON) paused n/a",
			"      paused prio3   a 24.00% of 1.2 s, b 10.00% of 1.2 s (by phase)",
			"      time order     452 frames put back in time order, 2 PAUSE/PFC/CNP frames too far "
			"back (warning above); steps back up to 11.600 ms",
			"      ECN            marked n/a (counters), CE captured 40 (10.00% of the RoCEv2 packets)",
			"      PFC counters   prio3 tx 15 rx n/a paused 16.00% (paused: share of the point's 2.5 s)",
		};
		size_t i;

		for (i = 0; i < ARRAY_SIZE(lines); i++)
			if (!has_line(path, lines[i]))
				fail_msg("summary.txt has no line '%s'", lines[i]);
	}
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* A timeline that is there but malformed is not used in part: the paused share per phase
 * is n/a (null, never 0) with one line naming the file, its line and why; the point's
 * figures from review.json stay. A missing timeline says nothing. */
static void test_summary_bad_timeline(void **state)
{
	static const struct {
		const char *text;
		const char *na;
	} cases[] = {
		{ TL_HEAD "\n"
		  "1.25,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"
		  "1.75,1,0,1,0,0,0,0,0,0,0,0,0,250000000,0,0,0,0,\n"
		  "2.25,1,0,1,0,0,0,0,0,0,0,0,0,100000000\n"
		  "2.75,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n",
		  "points/p000/rep0/a/review-timeline.csv line 4: 14 fields where the header has 19" },
		{ "", "points/p000/rep0/a/review-timeline.csv: empty: no header line" },
	};
	char root[] = "/tmp/run-sumtl-XXXXXX", path[600], d[600], line[1400];
	json_object *sum, *x;
	size_t i;

	(void)state;
	review_folder(root);
	snprintf(d, sizeof(d), "%s/points/p000/rep0/a", root);
	snprintf(path, sizeof(path), "%s/summary.txt", root);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		put(d, "review-timeline.csv", cases[i].text);
		sum = summarised(root);
		x = get(sum, "points/0/repetitions/0/hosts/a/capture");
		assert_string_equal(json_object_get_string(get(x, "by_phase_na")), cases[i].na);
		assert_non_null(get(x, "pfc/prio3"));
		assert_null(get(x, "pfc/prio3/by_phase"));
		assert_null(get(x, "pfc/pause/by_phase"));
		assert_float_equal(json_object_get_double(get(x, "pfc/prio3/paused_share")), 0.37, 1e-9);
		assert_null(get(sum, "points/0/repetitions/0/hosts/b/capture/by_phase_na"));
		json_object_put(sum);
		snprintf(line, sizeof(line), "      paused by phase n/a: %s", cases[i].na);
		if (!has_line(path, line))
			fail_msg("case %zu: summary.txt has no line '%s'", i, line);
		snprintf(line, sizeof(line), "test \"$(grep -c '(by phase)$' %s)\" = 0", path);
		assert_int_equal(system(line), 0);
	}
	/* no timeline: by_phase null as before, nothing said */
	snprintf(line, sizeof(line), "%s/review-timeline.csv", d);
	assert_int_equal(unlink(line), 0);
	sum = summarised(root);
	x = get(sum, "points/0/repetitions/0/hosts/a/capture");
	assert_null(get(x, "by_phase_na"));
	assert_false(json_object_object_get_ex(x, "by_phase_na", NULL));
	assert_null(get(x, "pfc/prio3/by_phase"));
	json_object_put(sum);
	snprintf(line, sizeof(line), "test \"$(grep -c 'by phase' %s)\" = 0", path);
	assert_int_equal(system(line), 0);
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
		cmocka_unit_test(test_summary_gpu_address),
		cmocka_unit_test(test_summary_nic_pcie),
		cmocka_unit_test(test_validity_warn),
		cmocka_unit_test(test_records_review),
		cmocka_unit_test(test_records_timeline),
		cmocka_unit_test(test_summary_review),
		cmocka_unit_test(test_summary_bad_timeline),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_records_malformed),
		cmocka_unit_test(test_summary_bad_status),
		cmocka_unit_test(test_err_line),
		cmocka_unit_test(test_summary_planned),
		cmocka_unit_test(test_summary_errors),
		cmocka_unit_test(test_errors_show),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
