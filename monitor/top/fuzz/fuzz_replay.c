// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_replay.c: libFuzzer target for "pfclab top --replay": every input is a record
 * folder, its meta.json the bytes before the first line "%%" and its samples.csv the rest;
 * the record is loaded and its snapshot taken at the start, the middle and the end of its
 * time line, as the replay screen takes them. A refusal must say why.
 */
#include <stdint.h>
#include <string.h>

#include "lib/fuzz/fuzzdir.h"
#include "monitor/top/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, "\n%%\n", 4);
	size_t mlen = sep ? (size_t)(sep - data) + 1 : size, i, k;
	struct top_replay *r = NULL;
	struct top_snap s = { 0 };
	char err[512] = "";

	if (!dir[0] && fuzz_dir(dir, sizeof(dir), "replay"))
		__builtin_trap();	/* no folder to work in */
	if (fuzz_put(dir, "meta.json", data, mlen) ||
	    fuzz_put(dir, "samples.csv", sep ? sep + 4 : data + size, sep ? size - mlen - 3 : 0))
		return 0;
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
