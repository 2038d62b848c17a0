// SPDX-License-Identifier: GPL-2.0-or-later
/* validity.c: the rules that mark a point's repetition invalid (and so retried): a host
 * unreachable, traffic that failed or reported errors, an injector that failed, frames the
 * capture dropped, a counter reset, a link that flapped, a failing essential command, an
 * interruption; and the
 * caveats that leave it valid: capture frames whose time could not be trusted.
 */
#include <stdarg.h>
#include <stdio.h>

#include "records.h"
#include "validity.h"

static void note(json_object *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(json_object *r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_array_add(r, json_object_new_string(buf));
}

bool validity_judge(const struct validity_obs *o, const struct exp *e, json_object *reasons)
{
	size_t h;

	for (h = 0; h < e->nhosts && h < EXP_MAX_HOSTS; h++)
		if (o->host_unreachable[h])
			note(reasons, "host %s unreachable", e->hosts[h].name);
	if (o->interrupted)
		note(reasons, "interrupted");
	if (o->essential_failed)
		note(reasons, "an essential pre/post command failed");
	if (o->traffic_exit)
		note(reasons, "traffic exited with status %d", o->traffic_exit);
	if (o->inject_exit)
		note(reasons, "an injector exited with status %d", o->inject_exit);
	if (o->traffic_missing)
		note(reasons, "a traffic process left no summary");
	if (o->traffic_errors)
		note(reasons, "traffic reported %llu completion errors",
		     (unsigned long long)o->traffic_errors);
	if (o->capture_failed)
		note(reasons, "a capture failed");
	if (o->capture_drops)
		note(reasons, "capture dropped %llu frames (kernel drops)",
		     (unsigned long long)o->capture_drops);
	if (o->monitor_failed)
		note(reasons, "a monitor failed");
	if (o->counter_resets)
		note(reasons, "%u counter reset%s during the point", o->counter_resets,
		     o->counter_resets == 1 ? "" : "s");
	if (o->link_flaps)
		note(reasons, "link flapped (%u carrier change%s)", o->link_flaps,
		     o->link_flaps == 1 ? "" : "s");
	return json_object_array_length(reasons) == 0;
}

/* Frames out of time order are all there and all counted: what suffers is the time
 * between them. review puts PAUSE/PFC and CNP frames back in order within its reorder
 * window; those further back count where they came, so the paused time (802.1Qbb pause
 * timers run from each frame's time) and the CNP gaps around them are off by up to the
 * step back. The steps come from how the host stamps its capture (libpcap on Linux stamps
 * a received frame before a frame sent meanwhile reaches the file), so a retry would most
 * likely meet them again: they are said, with the count, not judged. So are timestamps
 * review could not use at all (a sub-second field out of range, a time past 64-bit
 * nanoseconds): those frames' times are wrong, the counts right.
 */
void validity_warn(const struct validity_obs *o, const struct exp *e, json_object *warnings)
{
	size_t h;

	for (h = 0; h < e->nhosts && h < EXP_MAX_HOSTS; h++) {
		uint64_t late = o->late_frames[h];
		uint64_t other = o->bad_timestamps[h] > late ? o->bad_timestamps[h] - late : 0;
		char back[64] = "";

		if (o->max_backstep_s[h] > 0)
			snprintf(back, sizeof(back), " (the capture steps back up to %.3f ms)",
				 o->max_backstep_s[h] * 1e3);
		if (late)
			note(warnings, "host %s: %llu PAUSE/PFC/CNP frame%s further out of time "
			     "order than review's reorder window, counted where %s came%s: paused "
			     "time and CNP gaps are less reliable", e->hosts[h].name,
			     (unsigned long long)late, late == 1 ? "" : "s",
			     late == 1 ? "it" : "they", back);
		if (other)
			note(warnings, "host %s: %llu captured frame%s with a timestamp out of "
			     "range, counted but at a wrong time: paused time and CNP gaps are less "
			     "reliable", e->hosts[h].name, (unsigned long long)other,
			     other == 1 ? "" : "s");
		if (o->untimed[h])
			note(warnings, "host %s: %llu captured frame%s without a timestamp (pcapng "
			     "simple packet blocks), counted but in no paused time, timeline or CNP "
			     "gap", e->hosts[h].name, (unsigned long long)o->untimed[h],
			     o->untimed[h] == 1 ? "" : "s");
	}
}

void validity_obs_review(struct validity_obs *o, size_t h, const struct rec_review *rv)
{
	o->late_frames[h] = rv->late_valid ? rv->late_frames : 0;
	o->bad_timestamps[h] = rv->bad_ts_valid ? rv->bad_timestamps : 0;
	o->max_backstep_s[h] = rv->backstep_valid ? rv->max_backstep_s : 0;
	o->untimed[h] = rv->untimed_valid ? rv->untimed : 0;
}
