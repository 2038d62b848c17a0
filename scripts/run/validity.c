// SPDX-License-Identifier: GPL-2.0-or-later
/* validity.c: the rules that mark a point's repetition invalid (and so retried): a host
 * unreachable, traffic that failed or reported errors, frames the capture dropped, a counter
 * reset, a link that flapped, a failing essential command, an interruption.
 */
#include <stdarg.h>
#include <stdio.h>

#include "run.h"

static void reason(json_object *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason(json_object *r, const char *fmt, ...)
{
	char buf[256];
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
			reason(reasons, "host %s unreachable", e->hosts[h].name);
	if (o->interrupted)
		reason(reasons, "interrupted");
	if (o->essential_failed)
		reason(reasons, "an essential pre/post command failed");
	if (o->traffic_exit)
		reason(reasons, "traffic exited with status %d", o->traffic_exit);
	if (o->traffic_missing)
		reason(reasons, "a traffic process left no summary");
	if (o->traffic_errors)
		reason(reasons, "traffic reported %llu completion errors",
		       (unsigned long long)o->traffic_errors);
	if (o->capture_failed)
		reason(reasons, "a capture failed");
	if (o->capture_drops)
		reason(reasons, "capture dropped %llu frames (kernel drops)",
		       (unsigned long long)o->capture_drops);
	if (o->monitor_failed)
		reason(reasons, "a monitor failed");
	if (o->counter_resets)
		reason(reasons, "%u counter reset%s during the point", o->counter_resets,
		       o->counter_resets == 1 ? "" : "s");
	if (o->link_flaps)
		reason(reasons, "link flapped (%u carrier change%s)", o->link_flaps,
		       o->link_flaps == 1 ? "" : "s");
	return json_object_array_length(reasons) == 0;
}
