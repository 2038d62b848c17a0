// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_records.c: libFuzzer target for the readers of what a point leaves on a host and
 * the runner copies back (scripts/run/records.h): every input is written as a monitor
 * record's samples.jsonl, a capture.json, a review.json, a review timeline CSV and a
 * traffic JSON-lines file, and each reader reads it. Nothing may crash, leak or overflow
 * (UBSan checks the conversions of numbers from the file), and a value it calls valid
 * must be a finite number (a count within int64, a share within 0..1); a timeline is
 * read whole, rows in time order, or refused with the reader's text and nothing kept.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fuzz/fuzzdir.h"
#include "scripts/run/records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rec_counter c[] = { { .metric = "pfc.tx.prio3.frames" }, { .metric = "cnp.sent" },
				   { .metric = "discard.*" }, { .metric = "capture.kernel_drops" } };
	struct rec_monitor m;
	struct rec_traffic t;
	struct rec_review rv;
	struct rec_timeline tl;
	char path[320], err[256];
	uint64_t drops;
	struct rec_gauge g = { .metric = "pcie.gpu0.rx_Bps" };
	double mean;
	size_t i;
	int rc;

	if (!dir[0] && fuzz_dir(dir, sizeof(dir), "records"))
		__builtin_trap();	/* no folder to work in */
	if (fuzz_put(dir, "samples.jsonl", data, size) || fuzz_put(dir, "capture.json", data, size) ||
	    fuzz_put(dir, "traffic.jsonl", data, size) || fuzz_put(dir, "review.json", data, size) ||
	    fuzz_put(dir, "timeline.csv", data, size))
		return 0;	/* no room to write: nothing learnt */
	if (!rec_monitor_read_gauges(dir, &m, c, sizeof(c) / sizeof(c[0]), &g, 1)) {
		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
			if (c[i].valid && !isfinite(c[i].delta))
				__builtin_trap();
		if (rec_gauge_mean(&g, &mean) && !isfinite(mean))
			__builtin_trap();
	}
	snprintf(path, sizeof(path), "%s/capture.json", dir);
	(void)rec_capture_drops(path, &drops);
	snprintf(path, sizeof(path), "%s/review.json", dir);
	(void)rec_review_read(path, &rv);
	if ((rv.reordered_valid && rv.reordered > INT64_MAX) ||
	    (rv.late_valid && rv.late_frames > INT64_MAX) ||
	    (rv.bad_ts_valid && rv.bad_timestamps > INT64_MAX) ||
	    (rv.backstep_valid && !(isfinite(rv.max_backstep_s) && rv.max_backstep_s >= 0)) ||
	    (rv.ce_valid && rv.ce > INT64_MAX) ||
	    (rv.share_valid && !(rv.ce_share >= 0 && rv.ce_share <= 1)) ||
	    !memchr(rv.ecn_filter, 0, sizeof(rv.ecn_filter)) ||
	    !memchr(rv.ce_share_na, 0, sizeof(rv.ce_share_na)))
		__builtin_trap();
	snprintf(path, sizeof(path), "%s/timeline.csv", dir);
	rc = rec_timeline_read(path, &tl, err, sizeof(err));
	if (rc) {
		/* refused whole, with the reader's text */
		if (tl.rows || tl.n || !memchr(err, 0, sizeof(err)) || (rc != -ENOMEM && !err[0]))
			__builtin_trap();
	} else {
		if (!(tl.bin_s > 0) || !isfinite(tl.bin_s))
			__builtin_trap();
		for (i = 0; i < tl.n; i++) {
			size_t k;

			if (i && !(tl.rows[i].t_ns > tl.rows[i - 1].t_ns))
				__builtin_trap();
			for (k = 0; k < REC_TL_N; k++)
				if (tl.rows[i].have[k] && !(isfinite(tl.rows[i].v[k]) && tl.rows[i].v[k] >= 0))
					__builtin_trap();
		}
		rec_timeline_free(&tl);
	}
	snprintf(path, sizeof(path), "%s/traffic.jsonl", dir);
	if (!rec_traffic_read(path, &t) &&
	    ((t.tx_valid && !isfinite(t.tx_gbps)) || (t.rx_valid && !isfinite(t.rx_gbps))))
		__builtin_trap();
	return 0;
}
