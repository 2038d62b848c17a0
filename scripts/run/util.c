// SPDX-License-Identifier: GPL-2.0-or-later
/* util.c: the runner's small helpers (util.h): path building, JSON files, the run's log
 * and the Ctrl-C flag. They call nothing of the runner back, so each part of it (exec,
 * summary, plots, manifest, folder) depends on this file and not on run.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/out.h"
#include "lib/util.h"
#include "run.h"
#include "util.h"

volatile sig_atomic_t run_stop_requested;

void run_log(struct run_ctx *c, const char *fmt, ...)
{
	char line[2048], ts[48];
	struct timespec now;
	struct tm tm;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	run_path(ts + strlen(ts), sizeof(ts) - strlen(ts), ".%03ld", now.tv_nsec / 1000000);
	if (c->log) {
		fprintf(c->log, "%s %s\n", ts, line);
		fflush(c->log);
	}
	if (!c->o.quiet)
		fprintf(stderr, "%s: %s\n", pfc_progname(), line);
}

int run_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

json_object *run_json_read(const char *path)
{
	return json_object_from_file(path);
}

int run_json_write(const char *path, json_object *o)
{
	char tmp[PATH_MAX];

	run_path(tmp, sizeof(tmp), "%s.tmp", path);
	errno = 0;
	if (json_object_to_file_ext(tmp, o, OUT_JSON_PRETTY))
		return errno ? -errno : -EIO;	/* why open or write failed (EROFS, ENOSPC) */
	if (rename(tmp, path))
		return -errno;
	return 0;
}

json_object *run_json_child(json_object *o, const char *key)
{
	json_object *c;

	if (!json_object_object_get_ex(o, key, &c)) {
		c = json_object_new_object();
		json_object_object_add(o, key, c);
	}
	return c;
}
