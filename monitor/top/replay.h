/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.h: plays back monitor records in "pfclab top": one record folder (meta.json +
 * samples*.csv), or a folder holding several (a "pfclab run" results folder: each
 * record found below it is a host, side by side), on one time line of wall clocks.
 */
#ifndef PFCLAB_TOP_REPLAY_H
#define PFCLAB_TOP_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/top/model.h"

struct top_replay;

/* Load every record under dir (dir itself, or folders below it up to 5 levels). err
 * gets one line on failure (-ENOENT: no record found; -EINVAL: a malformed file), and
 * *out is NULL then, with nothing left to free.
 */
int top_replay_open(const char *dir, struct top_replay **out, char *err, size_t errlen);
size_t top_replay_nrec(const struct top_replay *r);
const char *top_replay_name(const struct top_replay *r, size_t i);
/* Length of the time line in ns (first sample of any record to the last of any). */
uint64_t top_replay_length(const struct top_replay *r);
/* Record i's snapshot at time t (ns from the start): the last sample at or before t,
 * rates from the sample before it. seq 0 when the record has not started yet at t.
 */
int top_replay_at(const struct top_replay *r, size_t i, uint64_t t, struct top_snap *out);
/* Hand model host i record i's snapshot at time t (got_ns: now), with totals that count
 * from the record's first sample wherever playing starts or seeks to, as the live run's
 * did. tmp and first: the caller's buffers (top_snap_free them). What top_model_update
 * returns: 1 a new sample, 0 not, -ENOMEM.
 */
int top_replay_feed(const struct top_replay *r, size_t i, uint64_t t, uint64_t now,
		    struct top_model *m, struct top_snap *tmp, struct top_snap *first);
void top_replay_free(struct top_replay *r);

#endif
