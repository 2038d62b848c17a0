/* SPDX-License-Identifier: GPL-2.0-or-later */
/* monitor.h: entry point of "pfclab monitor". */
#ifndef PFCLAB_MONITOR_H
#define PFCLAB_MONITOR_H

/* --interval's range; `pfclab run` checks an experiment's monitor interval against it. */
#define MON_INTERVAL_MIN_NS 100000ULL	     /* 100us */
#define MON_INTERVAL_MAX_NS 3600000000000ULL /* 1h */

/* The counter sources by name, as --sources and an experiment's monitor.sources take them:
 * each is the .name of one ops table (monitor/sources/sources.h; test_monitor_engine
 * checks the two agree). The catalog knows one more, "frames". */
#define MON_SOURCES "ethtool,pause,dcb,link,pci,rdma,nvml,qdisc,lossless"
#define MON_SOURCES_TEXT "ethtool, pause, dcb, link, pci, rdma, nvml, qdisc, lossless"

int monitor_main(int argc, char **argv);

#endif
