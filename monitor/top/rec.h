/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rec.h: records the snapshots of a remote host, as "pfclab top" receives them, in the
 * monitor's record format (meta.json, samples.csv with numbered segments when metrics
 * appear, samples.jsonl), so "pfclab top --replay" and the readers of records take it.
 */
#ifndef PFCLAB_TOP_REC_H
#define PFCLAB_TOP_REC_H

#include <stddef.h>

#include "monitor/top/model.h"

struct top_rec;

/* Create dir (and parents). err gets one line on failure. */
int top_rec_open(const char *dir, const char *host, struct top_rec **out, char *err,
		 size_t errlen);
int top_rec_sample(struct top_rec *r, const struct top_snap *s);
/* meta.json finished, files closed; r freed. */
int top_rec_close(struct top_rec *r);
const char *top_rec_error(const struct top_rec *r);

#endif
