/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpoint.h: the congestion-point role of `pfclab run`: a host that bridges or routes the
 * RoCE hosts gets a bottleneck on one interface (htb at a rate with RED/ECN or a tail-drop
 * FIFO under it) before each point, its qdisc counters recorded, and the interface's
 * kernel-default root qdisc put back after the point.
 */
#ifndef PFCLAB_RUN_CPOINT_H
#define PFCLAB_RUN_CPOINT_H

#include <stdbool.h>
#include <stddef.h>

#include "exp.h"

/* The bottleneck: block of the experiment, checked; values may name sweep variables. */
struct exp_cpoint {
	size_t host;
	int line;
	const struct ynode *node;	/* the bottleneck: map, resolved per point */
};

/* Read the bottleneck: block of E (absent: *OUT = NULL). -EINVAL with file:line:key in ERR. */
int cpoint_parse(const struct exp *e, struct exp_cpoint **out, char *err, size_t errlen);
void cpoint_free(struct exp_cpoint *cp);

/* The point's set-up and restore commands (sh -c, run in the host's point folder), the
 * interface they act on; the caller frees both strings. -EINVAL with file:line:key in ERR
 * when a value (after sweep substitution) is not valid. */
int cpoint_commands(const struct exp *e, const struct exp_point *p, char **setup,
		    char **restore, char *dev, size_t devlen, char *err, size_t errlen);

/* The monitor's --sources for the congestion-point host: the experiment's list (or every
 * source) with qdisc added. */
void cpoint_mon_sources(const struct exp *e, char *buf, size_t len);

/* Name of the set-up and restore steps in the host's point folder. */
#define CPOINT_SETUP "bottleneck-setup"
#define CPOINT_RESTORE "bottleneck-restore"

#endif
