/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay_cap.h: what the capture beside a record adds to its replay. In a 'pfclab run'
 * results folder (points/pNNN/repN/HOST/monitor) the runner captures frames apart from
 * the monitor; where the record has no frame counters of its own:
 *
 *   HOST/review-timeline.csv  (pfclab review --timeline 10ms of the capture) gives the
 *       captured PAUSE, PFC, CNP and CE-marked frames and the paused time per priority
 *       on the record's samples, by wall clock: values with rates, as a monitor with
 *       --frames records them, marked TOP_M_BESIDE ("*" on the screen);
 *   HOST/capture.json  gives what the timeline does not (PFC frames per priority from a
 *       timeline older than its pfc_prioN columns) as counts of the whole capture, with
 *       no time line (TOP_M_ELSEWHERE, "n/a" and a total marked "*").
 *
 * A timeline that cannot be used (a malformed line, no overlap with the record) is left
 * out whole, with a note that names the file and the line.
 */
#ifndef PFCLAB_TOP_REPLAY_CAP_H
#define PFCLAB_TOP_REPLAY_CAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/top/model.h"

struct top_rcap;

/* For the record in folder dir with nrow samples taken at wall[0..nrow) (ns, the host's
 * clock): *out is NULL where nothing applies (dir not HOST/monitor, or has_frames: the
 * record counted frames itself). label: HOST as a note names it (its files as
 * "label/review-timeline.csv"), NULL for its path. 0, or -ENOMEM.
 */
int top_rcap_load(const char *dir, const char *label, bool has_frames, const uint64_t *wall,
		  size_t nrow, struct top_rcap **out);
/* Puts the capture's values at sample k (k > 0: rates from sample k - 1) into o. 0 or
 * -ENOMEM.
 */
int top_rcap_put(const struct top_rcap *c, size_t k, const uint64_t *wall, struct top_snap *o);
/* What the marks mean, for the status line ("" when nothing is marked); the note ("" when
 * none): why the timeline beside the record is not used.
 */
const char *top_rcap_legend(const struct top_rcap *c);
const char *top_rcap_note(const struct top_rcap *c);
void top_rcap_free(struct top_rcap *c);

#endif
