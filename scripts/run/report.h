/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h: the report of a results folder, made from its records alone (so a folder
 * recorded elsewhere can be reported here): summary.json and summary.txt (summary.c), the
 * plots (plots.c, with dcqcn.h for a run with a congestion point).
 */
#ifndef PFCLAB_RUN_REPORT_H
#define PFCLAB_RUN_REPORT_H

#include <stdbool.h>
#include <stddef.h>

/* (Re)make summary.json and summary.txt of the results folder DIR. */
int summary_make(const char *dir, char *err, size_t errlen);
/* (Re)make DIR/plots from DIR/summary.json and the records; -ENOENT without gnuplot. */
int plots_make(const char *dir, char *err, size_t errlen);
/* "rep12" and not "rep12.failed1": a repetition's folder (summary.c) */
bool run_is_rep(const char *name);

#endif
