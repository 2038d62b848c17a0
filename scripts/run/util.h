/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h: the runner's small helpers that every part of it uses and that call nothing of
 * the runner back: path building, JSON files, the run's log and the Ctrl-C flag.
 */
#ifndef PFCLAB_RUN_UTIL_H
#define PFCLAB_RUN_UTIL_H

#include <signal.h>
#include <stddef.h>

#include <json-c/json.h>

struct run_ctx;

/* Set by the first Ctrl-C (run.c's handler): every part stops cleanly where it can. */
extern volatile sig_atomic_t run_stop_requested;

/* One line to the run's run.log (timestamped) and, unless --quiet, to stderr. */
void run_log(struct run_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* snprintf for paths and names: -ENAMETOOLONG when cut short */
int run_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
json_object *run_json_read(const char *path);
/* O written to PATH through PATH.tmp and a rename: 0, or -errno (-EROFS, -ENOSPC). */
int run_json_write(const char *path, json_object *o);
/* The object under key in o, added empty where there is none (never NULL). */
json_object *run_json_child(json_object *o, const char *key);

#endif
