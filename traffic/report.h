/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h: pfclab traffic's per-interval and summary reports, as a perftest-like table or
 * as JSON lines (one object per line, json-c). Renderers only: the numbers come in plain
 * structs, and a value that was not measured is printed as "n/a" / null.
 */
#ifndef PFCLAB_TRAFFIC_REPORT_H
#define PFCLAB_TRAFFIC_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct traffic_dir {
	bool valid;		/* this direction carries traffic in this run */
	uint64_t bytes;
	uint64_t msgs;
	bool cqes_valid;
	uint64_t cqes;
	bool errors_valid;
	uint64_t errors;
	double secs;		/* time the numbers span */
};

struct traffic_row {
	bool summary;
	bool interrupted;	/* summary of a phase ended early (Ctrl-C on either side) */
	bool cut;		/* summary: this side's part ended with sends in flight */
	uint64_t in_flight;	/* how many (not counted in tx) */
	uint32_t phase;
	uint32_t size;
	double t;		/* seconds since the phase started */
	struct traffic_dir tx;	/* what this side wrote */
	struct traffic_dir rx;	/* what the peer wrote into this side */
};

struct traffic_run_info {
	const char *dev;
	unsigned int port;
	int gid_index;
	const char *gid;
	const char *peer;
	const char *role;	/* "server" / "client" */
	bool bidir;
	bool imm;
	unsigned int qps;
	unsigned int mtu;
	int tclass;		/* traffic class and SL the device reports for the QPs */
	int sl;			/* (ibv_query_qp); -1 = n/a (query failed, no GRH) */
	const char *poll;	/* --poll: "auto" or "spin" (JSON only) */
	const char *mem;
	const char *mem_desc;
	const char *mem_path;
	double rate_gbps;
	const char *rate_how;
};

void traffic_report_start(FILE *f, bool json, const struct traffic_run_info *ri);
void traffic_report_row(FILE *f, bool json, const struct traffic_row *r);

/* Gb/s and Mpps of a direction; NaN when not valid or secs is 0. */
double traffic_dir_gbps(const struct traffic_dir *d);
double traffic_dir_mpps(const struct traffic_dir *d);

#endif
