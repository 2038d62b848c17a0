// SPDX-License-Identifier: GPL-2.0-or-later
/* clock.c: each host's wall-clock offset from the runner's, measured from the round trip of
 * `date +%s%N` (the sample with the smallest delay of three; the error is at most half that
 * delay), and host timestamps moved onto the runner's time axis.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "records.h"
#include "clock.h"
#include "run.h"

#define CLOCK_TRIES 3

int clock_measure(struct run_ctx *c, size_t h, int which)
{
	const char *argv[] = { "date", "+%s%N", NULL };
	struct run_host *rh = &c->hosts[h];
	uint64_t best = UINT64_MAX;
	int64_t off = 0;
	int i, rc = -EIO;

	for (i = 0; i < CLOCK_TRIES; i++) {
		uint64_t t0, t1, remote;
		char *out = NULL;
		int code = -1, r;

		t0 = time_real_ns();
		r = remote_run(&rh->t, argv, NULL, 10000, &code, &out, NULL, 256);
		t1 = time_real_ns();
		if (r || code || !out || parse_u64(strtok(out, "\n") ? out : "", 1, UINT64_MAX, &remote)) {
			free(out);
			rc = r ? r : -EIO;
			continue;
		}
		free(out);
		if (t1 - t0 < best) {
			best = t1 - t0;
			off = (int64_t)remote - (int64_t)(t0 + (t1 - t0) / 2);
		}
		rc = 0;
	}
	if (best == UINT64_MAX)
		return rc;
	rh->off_ns[which] = off;
	rh->rtt_ns[which] = best;
	rh->off_valid[which] = true;
	return 0;
}

/* A time moved by an offset, in doubles (values from a file may be anything), back in
 * int64 range. */
static int64_t shifted(int64_t t_ns, double off)
{
	double r = (double)t_ns - off;

	if (r < -9.2e18)
		return -9200000000000000000LL;
	if (r > 9.2e18)
		return 9200000000000000000LL;
	return (int64_t)r;
}

/* manifest host entry: "clock": {"offset_start_ns", "offset_end_ns", "start_wall_ns", "end_wall_ns"} */
int64_t clock_to_runner(const json_object *mh, int64_t t_ns)
{
	json_object *ck = NULL, *v;
	int64_t o0 = 0, o1 = 0, w0 = 0, w1 = 0;
	bool h0 = false, h1 = false;

	if (!mh || !json_object_object_get_ex(mh, "clock", &ck))
		return t_ns;
	if (json_object_object_get_ex(ck, "offset_start_ns", &v) && json_object_is_type(v, json_type_int)) {
		o0 = json_object_get_int64(v);
		h0 = true;
	}
	if (json_object_object_get_ex(ck, "offset_end_ns", &v) && json_object_is_type(v, json_type_int)) {
		o1 = json_object_get_int64(v);
		h1 = true;
	}
	if (json_object_object_get_ex(ck, "start_wall_ns", &v))
		w0 = json_object_get_int64(v);
	if (json_object_object_get_ex(ck, "end_wall_ns", &v))
		w1 = json_object_get_int64(v);
	if (h0 && h1 && w1 > w0) {
		double f = ((double)t_ns - (double)w0) / ((double)w1 - (double)w0);

		if (f < 0)
			f = 0;
		if (f > 1)
			f = 1;
		return shifted(t_ns, (double)o0 + f * ((double)o1 - (double)o0));
	}
	if (h0)
		return shifted(t_ns, (double)o0);
	if (h1)
		return shifted(t_ns, (double)o1);
	return t_ns;
}

double *clock_timeline_s(const struct rec_timeline *tl, const json_object *mh, int64_t t0_ns)
{
	double *t = malloc((tl->n ? tl->n : 1) * sizeof(*t));
	size_t i;

	for (i = 0; t && i < tl->n; i++)
		t[i] = ((double)clock_to_runner(mh, (int64_t)tl->rows[i].t_ns) - (double)t0_ns) / 1e9;
	return t;
}
