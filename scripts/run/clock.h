/* SPDX-License-Identifier: GPL-2.0-or-later */
/* clock.h: the hosts' wall clocks against the runner's (clock.c): measured at the start and
 * end of a run, and host timestamps moved onto the runner's time axis.
 */
#ifndef PFCLAB_RUN_CLOCK_H
#define PFCLAB_RUN_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

struct run_ctx;
struct rec_timeline;

/* Offset of host H's wall clock from ours (host - runner), from the command round trip
 * with the smallest delay of a few. WHICH: 0 start, 1 end. */
int clock_measure(struct run_ctx *c, size_t h, int which);
/* Host H's wall-clock time T_NS on the runner's axis (offset interpolated in time). */
int64_t clock_to_runner(const json_object *manifest_host, int64_t t_ns);
/* Each bin's start of a capture timeline of host MH, on the runner's axis in seconds since
 * T0_NS (malloc'd, tl->n values, at least one slot); NULL without memory. */
double *clock_timeline_s(const struct rec_timeline *tl, const json_object *mh, int64_t t0_ns);

#endif
