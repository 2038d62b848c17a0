// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_replay.c: libFuzzer target for "pfclab top --replay": every input is a results
 * folder's host, its parts split at lines "%%": the record's meta.json and samples.csv
 * (HOST/monitor), then, where given, the capture beside it: review-timeline.csv and
 * capture.json (HOST). The folder is loaded and the snapshot taken at the start, the
 * middle and the end of its time line, as the replay screen takes them. A refusal must
 * say why.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/fuzz/fuzzdir.h"
#include "lib/util.h"
#include "monitor/top/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const part[] = { "h/monitor/meta.json", "h/monitor/samples.csv",
					    "h/review-timeline.csv", "h/capture.json" };
	const uint8_t *p = data, *end = data + size;
	struct top_replay *r = NULL;
	struct top_snap s = { 0 };
	char err[512] = "", sub[300];
	size_t i, k;

	if (!dir[0]) {
		if (fuzz_dir(dir, sizeof(dir), "replay"))
			__builtin_trap();	/* no folder to work in */
		snprintf(sub, sizeof(sub), "%s/h/monitor", dir);
		if (pfc_mkdir_p(sub))
			__builtin_trap();
	}
	for (i = 0; i < ARRAY_SIZE(part); i++) {
		const uint8_t *sep = p ? memmem(p, (size_t)(end - p), "\n%%\n", 4) : NULL;
		size_t len = p ? (sep ? (size_t)(sep - p) + 1 : (size_t)(end - p)) : 0;

		if (!p) {	/* a part not given: no file */
			snprintf(sub, sizeof(sub), "%s/%s", dir, part[i]);
			unlink(sub);
			continue;
		}
		if (fuzz_put(dir, part[i], p, len))
			return 0;
		p = sep ? sep + 4 : NULL;
	}
	if (top_replay_open(dir, &r, err, sizeof(err))) {
		if (!err[0])
			__builtin_trap();	/* refused without a reason */
		return 0;
	}
	for (i = 0; i < top_replay_nrec(r); i++) {
		uint64_t len = top_replay_length(r);

		(void)top_replay_name(r, i);
		for (k = 0; k < 3; k++)
			(void)top_replay_at(r, i, len / 2 * k, &s);
	}
	top_snap_free(&s);
	top_replay_free(r);
	return 0;
}
