/* SPDX-License-Identifier: GPL-2.0-or-later */
/* records.h: readers for what a point leaves in a host's folder: the monitor record
 * (monitor/samples.jsonl), the capture summary (capture.json), the traffic JSON lines, the
 * review JSON and its timeline. Unreadable values are n/a (valid = false), never 0; the
 * timeline, whose lines are checked one by one, is read whole or refused with the line.
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
/* o as a count: a number from 0 up to what int64 holds. */
bool rec_json_count(json_object *o, double *v);
/* an array's length, 0 for anything else; */
size_t rec_json_len(json_object *o);
/* the member key of o where it has type t, else NULL (absent, null or another type). */
json_object *rec_json_member(json_object *o, const char *key, json_type t);

/* review.json (pfclab review --json) as the runner reads it. Per file (files[]): frames
 * put back in time order (reordered), PAUSE/PFC/CNP frames further back than the reorder
 * window and so counted out of time order (late_frames), the largest step back
 * (max_backstep_s) and the records with timestamps review could not use (bad_timestamps,
 * late frames included); each count summed over the files that give it, valid where one
 * does (a review from before these fields gives none). ecn_filter: what the files'
 * capture filters kept of RoCEv2 packets by ECN ("keeps_all", "ce_only", "by_ecn",
 * "unknown"; "mixed" where files differ, "" where none says). Per flow (ecn_flows[]):
 * the CE marks summed (ce_valid: every flow's count a number); the CE share of the
 * captured RoCEv2 packets where every flow gives its share (share_valid), else n/a, with
 * review's reason (ce_share_na, "" when it gave none). Host text is made fit to show. */
struct rec_review {
	uint64_t reordered, late_frames, bad_timestamps;
	uint64_t untimed;	/* frames_without_time: counted, in no time-based figure */
	double max_backstep_s;
	bool reordered_valid, late_valid, bad_ts_valid, untimed_valid, backstep_valid;
	char ecn_filter[16];
	bool has_flows;		/* ecn_flows[] is there (else ce is n/a) */
	uint64_t ce;
	bool ce_valid;
	double ce_share;
	bool share_valid;
	char ce_share_na[96];
};
/* From a parsed review (anything else reads as a review that gave nothing). */
void rec_review_scan(json_object *rv, struct rec_review *r);
/* From the file PATH: 0, -ENOENT absent or -EINVAL not a JSON object (r gives nothing). */
int rec_review_read(const char *path, struct rec_review *r);

/* review-timeline.csv (pfclab review --timeline BIN): one row per bin, read through
 * review's own reader (monitor/frames/timeline.h), which checks every line: the bin's
 * start (time_s, seconds on the host's clock), the frames of each kind, and the paused
 * time in the bin of priorities 0..7 and of 802.3x PAUSE (paused_ns_prioN,
 * paused_ns_pause; empty where review had no link speed to time them). The start is
 * kept once, in t_ns: a wall clock's nanoseconds (past 2^53) are no double, and bins
 * are placed on the runner's clock from the exact value (clock_timeline_s). */
enum {
	REC_TL_PAUSE, REC_TL_PFC, REC_TL_CNP, REC_TL_CE,
	REC_TL_PAUSED0,		/* then the paused time of priorities 1..7 and of PAUSE */
};
#define REC_TL_NPAUSED 9	/* priorities 0..7 and 802.3x PAUSE */
#define REC_TL_N (REC_TL_PAUSED0 + REC_TL_NPAUSED)

struct rec_tl_row {
	uint64_t t_ns;		/* the bin's start exactly as the file gives it (ns) */
	double v[REC_TL_N];	/* frame counts and paused times, by REC_TL_* */
	bool have[REC_TL_N];	/* false only for a paused time left empty: not known */
};
struct rec_timeline {
	struct rec_tl_row *rows;	/* every row, in file (and time) order */
	size_t n;
	double bin_s;	/* the file's bin (one row to the next); with fewer than 2 rows the
			 * runner's (FRAMES_TL_RUN_BIN_NS, 10 ms) */
};
/* The timeline at PATH, whole or not at all: 0 with every row in TL (none for a header
 * alone). Otherwise TL holds nothing: -ENOENT no such file (ERR empty); -EINVAL not a
 * regular file, no header of review's timeline or a malformed line, -EFBIG, -E2BIG, -EIO
 * or another -errno as the reader gives them, and -ENOMEM; ERR (ERRLEN bytes) the
 * reader's text, safe to show: "line 17: 14 fields where the header has 19" for a line,
 * what is wrong ("not a regular file") for the file. */
int rec_timeline_read(const char *path, struct rec_timeline *tl, char *err, size_t errlen);
void rec_timeline_free(struct rec_timeline *tl);

/* A traffic file's name, "traffic-<phase>-<client|server>-<peer>.jsonl" (the last role
 * marker wins: a phase may be named like one): its parts into phase, role (7 bytes) and
 * peer; false for any other name or a phase longer than pl. */
bool rec_traffic_name(const char *f, char *phase, size_t pl, char *role, char *peer,
		      size_t peerl);

/* Calls FN for every line of a JSON-lines file that parses as an object; lines that do not
 * (a record cut short) are skipped. -errno when the file cannot be opened. */
int rec_jsonl_each(const char *path, void (*fn)(json_object *o, void *arg), void *arg);
/* rec_jsonl_each for a monitor record's samples.jsonl, of either format: FN gets every
 * line but the "columns" lines, each sample with its values and rates as objects keyed
 * by name (monitor/recfile.h: rec_line_keyed); a sample that does not fit its columns is
 * left out. */
int rec_samples_each(const char *path, void (*fn)(json_object *o, void *arg), void *arg);

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
	/* From its meta.json (where absent, null or not a count: not valid): the sampling
	 * intervals the monitor missed, and the machine's steal time over its run (the
	 * hypervisor's share, the usual cause of missed intervals on a virtual machine). */
	uint64_t missed, steal_ns;
	bool missed_valid, steal_valid;
};

/* Whether the monitor record in DIR is of a format this pfclab reads, as top --replay
 * checks it: its meta.json's "format" (a meta.json without one is taken as it is). 0 it
 * is; -ENOENT (or another -errno) no meta.json; -EINVAL meta.json is not a JSON object;
 * -EPROTO another format. WHY (LEN bytes, safe to show) says what is wrong for the last
 * two: "format 'pfclab-monitor-3', not the pfclab-monitor-2 or pfclab-monitor-1 this pfclab
 * reads (written by pfclab 2.0)". The readers below read nothing of a record it refuses. */
int rec_monitor_format(const char *dir, char *why, size_t len);

/* Scan DIR/samples.jsonl (-EPROTO or -EINVAL where rec_monitor_format refuses DIR); fill COUNTERS[i].delta for the given metric names (exact, or a
 * prefix ending in '*' summed over every match). */
int rec_monitor_read(const char *dir, struct rec_monitor *m, struct rec_counter *counters,
		     size_t ncounters);

/* A gauge metric (e.g. pcie.gpu0.rx_Bps) averaged over a record: the sum, count and
 * largest of its valid values (max meaningful only where n > 0). */
struct rec_gauge {
	const char *metric;
	double sum, max;
	size_t n;
};

/* rec_monitor_read, and in the same pass over samples.jsonl the sums of GAUGES (NGAUGES of
 * them; zeroed first). */
int rec_monitor_read_gauges(const char *dir, struct rec_monitor *m, struct rec_counter *counters,
			    size_t ncounters, struct rec_gauge *gauges, size_t ngauges);

/* A gauge's mean; false when it never had a valid value. */
bool rec_gauge_mean(const struct rec_gauge *g, double *mean);
/* The index of the GPU the monitor of DIR watched (its meta.json's source device "gpuN",
 * the same on every GPU source): false when none, or when they disagree. */
bool rec_monitor_gpu_index(const char *dir, int *idx);

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

/* The length of the UTF-8 character at S (N bytes left), 0 when S does not start one:
 * a bad lead byte, a missing or bad continuation, an overlong form, a surrogate or a code
 * point past U+10FFFF (RFC 3629). */
size_t rec_utf8_len(const unsigned char *s, size_t n);
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
/* The lines of a point's failed processes that are shown (the log, summary.txt): FN with
 * rec_error_text's line of each of the first REC_ERRORS_SHOWN of ERRS (status.json's
 * "errors"; anything but an array holds none). Returns how many more there are, for the
 * caller's "and N more" in its own words. */
size_t rec_errors_show(json_object *errs, void (*fn)(const char *line, void *arg), void *arg);

/* Appends (t, v) to a time series held as two arrays of n values in cap slots, growing
 * both together; a point that finds no memory is dropped (the plot misses one point). */
void run_tv_push(double **t, double **v, size_t *n, size_t *cap, double tt, double vv);

#endif
