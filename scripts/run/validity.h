/* SPDX-License-Identifier: GPL-2.0-or-later */
/* validity.h: whether a point's repetition is valid (validity.c): what the runner saw of it,
 * the reasons that make it invalid (and so retried) and the caveats that leave it valid.
 */
#ifndef PFCLAB_RUN_VALIDITY_H
#define PFCLAB_RUN_VALIDITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "exp.h"

struct validity_obs {
	bool host_unreachable[EXP_MAX_HOSTS];
	bool essential_failed;
	bool interrupted;
	int traffic_exit;	   /* worst exit code of the traffic processes (0 ok) */
	int inject_exit;	   /* worst exit code of the injectors that ended by themselves */
	uint64_t traffic_errors;   /* completion errors reported in the summaries */
	bool traffic_missing;	   /* a traffic process left no summary */
	uint64_t capture_drops;	   /* kernel drops, all captures */
	bool capture_failed;	   /* a capture ended with an error */
	unsigned counter_resets;   /* counters that went back in the monitor records */
	unsigned link_flaps;	   /* carrier changes during the point */
	bool monitor_failed;
	/* what review found in each host's capture: caveats, not reasons (validity_warn) */
	uint64_t late_frames[EXP_MAX_HOSTS];	/* PAUSE/PFC/CNP beyond the reorder window */
	uint64_t bad_timestamps[EXP_MAX_HOSTS];	/* review's count, late frames included */
	double max_backstep_s[EXP_MAX_HOSTS];	/* the largest step back; 0 not known */
	uint64_t untimed[EXP_MAX_HOSTS];	/* frames without a timestamp */
};
/* Fills REASONS (a JSON array of strings) and returns whether the point is valid. */
bool validity_judge(const struct validity_obs *o, const struct exp *e, json_object *reasons);
/* Fills WARNINGS (a JSON array of strings) with what leaves the point valid but makes a
 * figure less reliable: "host a: 3 PAUSE/PFC/CNP frames further out of time order than
 * review's reorder window, counted where they came (...): paused time and CNP gaps are
 * less reliable". */
void validity_warn(const struct validity_obs *o, const struct exp *e, json_object *warnings);
struct rec_review;
/* Host H's caveats from what review found in its capture (rec_review_read); H below
 * EXP_MAX_HOSTS. */
void validity_obs_review(struct validity_obs *o, size_t h, const struct rec_review *rv);

#endif
