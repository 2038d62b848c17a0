// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_records.c: libFuzzer target for the readers of what a point leaves on a host and
 * the runner copies back (scripts/run/records.h): every input is written as a monitor
 * record's samples.jsonl, a capture.json and a traffic JSON-lines file, and each reader
 * reads it. Nothing may crash, leak or overflow (UBSan checks the conversions of
 * numbers from the file), and a value it calls valid must be a finite number.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scripts/run/records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256];

static int put(const char *name, const uint8_t *data, size_t size)
{
	char path[320];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fwrite(data, 1, size, f) == size;
	return fclose(f) || !ok ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rec_counter c[] = { { .metric = "pfc.tx.prio3.frames" }, { .metric = "cnp.sent" },
				   { .metric = "discard.*" }, { .metric = "capture.kernel_drops" } };
	struct rec_monitor m;
	struct rec_traffic t;
	char path[320];
	uint64_t drops;
	double mean;
	size_t i;

	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%.200s/pfclab-fuzz-records-%d", tmp && *tmp ? tmp : "/tmp",
			 (int)getpid());
		if (mkdir(dir, 0700) && access(dir, W_OK))
			__builtin_trap();
	}
	if (put("samples.jsonl", data, size) || put("capture.json", data, size) ||
	    put("traffic.jsonl", data, size))
		return 0;	/* no room to write: nothing learnt */
	if (!rec_monitor_read(dir, &m, c, sizeof(c) / sizeof(c[0])))
		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
			if (c[i].valid && !isfinite(c[i].delta))
				__builtin_trap();
	if (rec_monitor_gauge_mean(dir, "pcie.gpu0.rx_Bps", &mean) && !isfinite(mean))
		__builtin_trap();
	snprintf(path, sizeof(path), "%s/capture.json", dir);
	(void)rec_capture_drops(path, &drops);
	snprintf(path, sizeof(path), "%s/traffic.jsonl", dir);
	if (!rec_traffic_read(path, &t) &&
	    ((t.tx_valid && !isfinite(t.tx_gbps)) || (t.rx_valid && !isfinite(t.rx_gbps))))
		__builtin_trap();
	return 0;
}
