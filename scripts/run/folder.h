/* SPDX-License-Identifier: GPL-2.0-or-later */
/* folder.h: the results folder of `pfclab run` (folder.c): whether a folder holds a run
 * already, clearing one for --force, making a new one without making its parents.
 */
#ifndef PFCLAB_RUN_FOLDER_H
#define PFCLAB_RUN_FOLDER_H

#include <stdbool.h>
#include <stddef.h>

/* Whether DIR holds a run already (manifest.json, experiment.yaml, run.log or points/):
 * 0 no (DIR may be absent), -EEXIST with WHAT saying which run ("the run exp-20261122-171812
 * (status complete; 3 of 3 repetitions finished)"), or another -errno from lstat. */
int run_folder_holds(const char *dir, char *what, size_t len);
/* --force: removes an earlier run's files and folders from DIR (those above and
 * summary.*, plots/), nothing else. 0, or -errno with ERR. */
int run_folder_clear(const char *dir, char *err, size_t errlen);
/* New files can be made in DIR, or where DIR is missing, in the folder it is to be made
 * in (a missing one is left to run_folder_parent_check): 0, or -errno (-EROFS, -EACCES)
 * with ERR naming OPT ("-r", "-o", "--resume"), the folder, why and what to do. */
int run_folder_writable(const char *dir, const char *opt, char *err, size_t errlen);
/* The folder DIR is made in exists: 0, or -errno with ERR saying what to do. */
int run_folder_parent_check(const char *dir, char *err, size_t errlen);
/* DIR made (0755) unless it is a folder already; the folders above it are never made:
 * -ENOENT (with ERR) when its parent is missing. 0, or -errno with ERR. */
int run_folder_make(const char *dir, char *err, size_t errlen);
/* Whether the repetition folder REPDIR finished: its status.json says "finished": true (a
 * JSON boolean; a missing or unreadable status.json, or another type, is not finished). */
bool run_rep_finished(const char *repdir);

#endif
