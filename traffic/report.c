// SPDX-License-Identifier: GPL-2.0-or-later
/* report.c: renders pfclab traffic's start line, interval rows and summaries as text or
 * JSON lines.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/numfmt.h"
#include "lib/out.h"
#include "traffic/report.h"

double traffic_dir_gbps(const struct traffic_dir *d)
{
	if (!d->valid || d->secs <= 0)
		return NAN;
	return (double)d->bytes * 8.0 / d->secs / 1e9;
}

double traffic_dir_mpps(const struct traffic_dir *d)
{
	if (!d->valid || d->secs <= 0)
		return NAN;
	return (double)d->msgs / d->secs / 1e6;
}

/* JSON doubles with 6 significant digits, not the up to 17 that read back exactly. */
#define DIGITS 6

void traffic_report_start(FILE *f, bool json, const struct traffic_run_info *ri)
{
	bool via = ri->mem_path && strcmp(ri->mem_path, ri->mem);
	const char *mode = ri->bidir ? "bidirectional" : "one-way";
	struct out o;

	out_begin_stream(&o, f, json);
	out_str(&o, "type", NULL, "start");
	out_str(&o, "role", "pfclab traffic %s: ", ri->role);
	out_str(&o, "device", "%s", ri->dev);
	out_uint(&o, "port", " port %" PRIu64, ri->port);
	out_int(&o, "gid_index", " GID[%" PRId64 "]", ri->gid_index);
	out_str(&o, "gid", " %s", ri->gid);
	out_str(&o, "peer", " <-> %s\n", ri->peer);
	/* Text names the verb first, without its RDMA_ prefix. */
	out_str(&o, "mode", NULL, mode);
	out_str(&o, "opcode", NULL, ri->imm ? "RDMA_WRITE_WITH_IMM" : "RDMA_WRITE");
	out_text(&o, "  RC %s, %s", ri->imm ? "WRITE_WITH_IMM" : "WRITE", mode);
	out_uint(&o, "qps", ri->qps == 1 ? ", %" PRIu64 " QP" : ", %" PRIu64 " QPs", ri->qps);
	out_uint(&o, "mtu", ", MTU %" PRIu64, ri->mtu);
	/* as the device reports them; n/a when it could not */
	out_uint_na(&o, "tclass", ", tclass %" PRIu64, (uint64_t)(ri->tclass < 0 ? 0 : ri->tclass),
		    ri->tclass >= 0);
	out_uint_na(&o, "sl", ", SL %" PRIu64, (uint64_t)(ri->sl < 0 ? 0 : ri->sl), ri->sl >= 0);
	if (ri->poll)
		out_str(&o, "poll", NULL, ri->poll);
	out_str(&o, "mem", ", memory %s", ri->mem);
	out_str(&o, "mem_desc", " (%s", ri->mem_desc);
	if (ri->mem_path)
		out_str(&o, "mem_registration", via ? ", registered via %s" : NULL, ri->mem_path);
	else
		out_na(&o, "mem_registration", NULL);
	out_text(&o, ")");
	if (ri->rate_gbps > 0)
		out_double_digits(&o, "rate_gbps_per_qp", ", rate %.3f Gb/s per QP", DIGITS,
				  ri->rate_gbps);
	else
		out_na(&o, "rate_gbps_per_qp", NULL);
	if (ri->rate_how)
		out_str(&o, "rate_limit", ri->rate_gbps > 0 ? " (%s)" : NULL, ri->rate_how);
	else
		out_na(&o, "rate_limit", NULL);
	out_text(&o, "\n %10s %4s %8s %15s %12s %10s %13s %12s %7s\n", "#bytes", "dir", "t[s]", "bytes", "msgs", "BW[Gb/s]",
		 "MsgRate[Mpps]", "completions", "errors");
	out_end_lines(&o);
}

/* A rate, or null / "n/a" in the column's width when it could not be computed. */
static void cell_rate(struct out *o, const char *key, const char *fmt, double v)
{
	if (isnan(v))
		out_na_fmt(o, key, fmt);
	else
		out_double_digits(o, key, fmt, DIGITS, v);
}

/* One direction: a JSON object (null when the direction carries no traffic), a table row. */
static void report_dir(struct out *o, const struct traffic_row *r, const char *name,
		       const struct traffic_dir *d)
{
	char t[16];

	if (!d->valid) {
		out_na(o, name, NULL);
		return;
	}
	out_obj_open(o, name);
	if (!o->json) {
		if (r->summary)
			snprintf(t, sizeof(t), "%s", "total");
		else
			numfmt_fixed(t, sizeof(t), 2, r->t);
		out_text(o, " %10u %4s %8s", r->size, name, t);
	}
	out_uint(o, "bytes", " %15" PRIu64, d->bytes);
	out_uint(o, "msgs", " %12" PRIu64, d->msgs);
	out_double_digits(o, "seconds", NULL, DIGITS, d->secs);
	cell_rate(o, "gbps", " %10.3f", traffic_dir_gbps(d));
	cell_rate(o, "mpps", " %13.4f", traffic_dir_mpps(d));
	out_uint_na(o, "completions", " %12" PRIu64, d->cqes, d->cqes_valid);
	out_uint_na(o, "errors", " %7" PRIu64, d->errors, d->errors_valid);
	out_text(o, "\n");
	out_obj_close(o);
}

void traffic_report_row(FILE *f, bool json, const struct traffic_row *r)
{
	struct out o;

	out_begin_stream(&o, f, json);
	out_str(&o, "type", NULL, r->summary ? "summary" : "interval");
	out_uint(&o, "phase", NULL, r->phase);
	out_uint(&o, "size", NULL, r->size);
	out_double_digits(&o, "t", NULL, DIGITS, r->t);
	if (r->summary)
		out_bool(&o, "interrupted", r->interrupted ? " -- summary (ended early) --\n" :
			 " -- summary --\n", r->interrupted);
	report_dir(&o, r, "tx", &r->tx);
	report_dir(&o, r, "rx", &r->rx);
	if (r->summary) {
		/* sends this side posted that had not completed when its part ended: 0 but
		 * where the phase did not wait for them (phase_step_overdue) */
		out_uint_na(&o, "in_flight", NULL, r->in_flight, r->tx.valid);
		if (r->cut)
			out_text(&o, " -- %" PRIu64 " send%s still in flight at the end, not counted --\n",
				 r->in_flight, r->in_flight == 1 ? "" : "s");
	}
	out_end_lines(&o);
}
