/* SPDX-License-Identifier: GPL-2.0-or-later */
/* records.h: readers for what a point leaves in a host's folder: the monitor record
 * (monitor/samples.jsonl), the capture summary (capture.json), the traffic JSON lines and
 * the review JSON. Unreadable values are n/a (valid = false), never 0.
 */
#ifndef PFCLAB_RUN_RECORDS_H
#define PFCLAB_RUN_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* What a host left is read as data, never trusted: a member of the wrong type (null, a
 * string where a number belongs, a list for an object) reads as absent, and a number that
 * is not finite (1e999) as unreadable, never as a value. The string, or "" for anything
 * else; */
const char *rec_json_str(json_object *o);
/* true with a finite number (integer or not) in *v; */
bool rec_json_num(json_object *o, double *v);
/* an array's length, 0 for anything else; */
size_t rec_json_len(json_object *o);
/* the member key of o where it has type t, else NULL (absent, null or another type). */
json_object *rec_json_member(json_object *o, const char *key, json_type t);

/* A traffic file's name, "traffic-<phase>-<client|server>-<peer>.jsonl" (the last role
 * marker wins: a phase may be named like one): its parts into phase, role (7 bytes) and
 * peer; false for any other name or a phase longer than pl. */
bool rec_traffic_name(const char *f, char *phase, size_t pl, char *role, char *peer,
		      size_t peerl);

/* Calls FN for every line of a JSON-lines file that parses as an object; lines that do not
 * (a record cut short) are skipped. -errno when the file cannot be opened. */
int rec_jsonl_each(const char *path, void (*fn)(json_object *o, void *arg), void *arg);

/* A counter's total increase over the record: the sum of rate x interval of every sample
 * that has a rate (wraps corrected by the monitor, resets skipped). */
struct rec_counter {
	const char *metric;
	double delta;
	bool valid;
};

struct rec_monitor {
	size_t samples;
	unsigned resets;      /* a counter went back without a rate: reset or re-created */
	int64_t first_wall_ns, last_wall_ns;
	bool failed;	      /* an "error" event */
};

/* Scan DIR/samples.jsonl; fill COUNTERS[i].delta for the given metric names (exact, or a
 * prefix ending in '*' summed over every match). */
int rec_monitor_read(const char *dir, struct rec_monitor *m, struct rec_counter *counters,
		     size_t ncounters);

/* Mean of a gauge metric (e.g. pcie.gpu0.rx_Bps) over the record; false when never valid. */
bool rec_monitor_gauge_mean(const char *dir, const char *metric, double *mean);

/* capture.json: kernel drops summed over interfaces; false when absent or unreadable. */
bool rec_capture_drops(const char *path, uint64_t *drops);

struct rec_traffic {
	bool has_summary;
	uint64_t errors;
	double tx_gbps, rx_gbps;   /* of the summaries (bytes / seconds, all sizes) */
	bool tx_valid, rx_valid;
	double tx_bytes, tx_secs, rx_bytes, rx_secs;
	uint64_t in_flight;	/* sends left in flight at a size's end (summaries' in_flight) */
};
int rec_traffic_read(const char *path, struct rec_traffic *t);

/* Text a host left, made fit to show on one line and to put in JSON: the N bytes of IN
 * into OUT (LEN > 4 bytes) with control characters as spaces and bytes that are not UTF-8
 * as '?', cut at a character's end with "..." when longer than LEN - 1 bytes. Returns the
 * length written. */
size_t rec_text_clean(const char *in, size_t n, char *out, size_t len);

/* The line of a process's standard error (the file PATH, its first 64 KiB) that says
 * what went wrong: the first one that is not blank, a pfclab warning ("pfclab CMD:
 * warning: ...") or one of pfclab's progress lines ("listening on", "waiting for a
 * client", frames sent); a warning when there is nothing else. Made fit to show by
 * rec_text_clean. 0 with the line in BUF, -ENOENT no such file (or -errno opening it),
 * -ENODATA nothing to show. */
int rec_err_line(const char *path, char *buf, size_t len);

/* A failed process as status.json's "errors" keep it: host, process, file (its standard
 * error, in the host's folder), failure ("exit status 1") and message (rec_err_line's, or
 * null); REC_ERR_LINE bounds the message, REC_ERRORS_SHOWN the lines shown of a point. */
#define REC_ERR_LINE 240
#define REC_ERRORS_SHOWN 8
/* One of them as a line of text, its members read as data: "host b,
 * traffic-bidir-server-a.err (exit status 1): pfclab traffic: ...". */
void rec_error_text(json_object *e, char *buf, size_t len);

/* Appends (t, v) to a time series held as two arrays of n values in cap slots, growing
 * both together; a point that finds no memory is dropped (the plot misses one point). */
void run_tv_push(double **t, double **v, size_t *n, size_t *cap, double tt, double vv);

#endif
