/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dcqcn.h: the DCQCN loop of a run with a congestion point (cpoint.h): a plot per point and
 * repetition and the four numbers in summary.txt.
 */
#ifndef PFCLAB_RUN_DCQCN_H
#define PFCLAB_RUN_DCQCN_H

#include <stdio.h>

#include <json-c/json.h>

#include "exp.h"

/* plots/<point>-<rep>-dcqcn.png and plots/data/<point>-<rep>-dcqcn.dat; 0 without a
 * congestion point. */
int dcqcn_plot(const char *dir, const char *pid, const char *rep, json_object *man,
	       const struct exp *e, char *err, size_t errlen);
/* Append the DCQCN-loop lines of every point and repetition to F and the same figures
 * to SUM as "dcqcn" (nothing without a congestion point). */
int dcqcn_summary(const char *dir, const struct exp *e, FILE *f, json_object *sum);

#endif
