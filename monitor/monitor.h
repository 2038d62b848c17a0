/* SPDX-License-Identifier: GPL-2.0-or-later */
/* monitor.h: entry point of "pfclab monitor". */
#ifndef PFCLAB_MONITOR_H
#define PFCLAB_MONITOR_H

/* --interval's range; `pfclab run` checks an experiment's monitor interval against it. */
#define MON_INTERVAL_MIN_NS 100000ULL	     /* 100us */
#define MON_INTERVAL_MAX_NS 3600000000000ULL /* 1h */

int monitor_main(int argc, char **argv);

#endif
