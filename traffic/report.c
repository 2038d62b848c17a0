// SPDX-License-Identifier: GPL-2.0-or-later
/* report.c: renders pfclab traffic's start line, interval rows and summaries as text or
 * JSON lines.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

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

static void emit(FILE *f, json_object *o)
{
	out_json_print(f, o, false);
	json_object_put(o);
}

/* Doubles with 6 significant digits instead of json-c's 17. */
static json_object *dbl(double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.6g", v);
	return json_object_new_double_s(v, buf);
}

static json_object *num_or_null(double v)
{
	return isnan(v) ? NULL : dbl(v);
}

void traffic_report_start(FILE *f, bool json, const struct traffic_run_info *ri)
{
	char tc[16], sl[16];

	if (json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "type", json_object_new_string("start"));
		json_object_object_add(o, "role", json_object_new_string(ri->role));
		json_object_object_add(o, "device", json_object_new_string(ri->dev));
		json_object_object_add(o, "port", json_object_new_int((int)ri->port));
		json_object_object_add(o, "gid_index", json_object_new_int(ri->gid_index));
		json_object_object_add(o, "gid", json_object_new_string(ri->gid));
		json_object_object_add(o, "peer", json_object_new_string(ri->peer));
		json_object_object_add(o, "mode", json_object_new_string(ri->bidir ? "bidirectional" : "one-way"));
		json_object_object_add(o, "opcode", json_object_new_string(ri->imm ? "RDMA_WRITE_WITH_IMM" : "RDMA_WRITE"));
		json_object_object_add(o, "qps", json_object_new_int((int)ri->qps));
		json_object_object_add(o, "mtu", json_object_new_int((int)ri->mtu));
		json_object_object_add(o, "tclass", ri->tclass < 0 ? NULL : json_object_new_int(ri->tclass));
		json_object_object_add(o, "sl", ri->sl < 0 ? NULL : json_object_new_int(ri->sl));
		json_object_object_add(o, "mem", json_object_new_string(ri->mem));
		json_object_object_add(o, "mem_desc", json_object_new_string(ri->mem_desc));
		json_object_object_add(o, "mem_registration",
				       ri->mem_path ? json_object_new_string(ri->mem_path) : NULL);
		json_object_object_add(o, "rate_gbps_per_qp",
				       ri->rate_gbps > 0 ? dbl(ri->rate_gbps) : NULL);
		json_object_object_add(o, "rate_limit",
				       ri->rate_how ? json_object_new_string(ri->rate_how) : NULL);
		emit(f, o);
		return;
	}
	fprintf(f, "pfclab traffic %s: %s port %u GID[%d] %s <-> %s\n", ri->role, ri->dev, ri->port,
		ri->gid_index, ri->gid, ri->peer);
	snprintf(tc, sizeof(tc), ri->tclass < 0 ? "n/a" : "%d", ri->tclass);
	snprintf(sl, sizeof(sl), ri->sl < 0 ? "n/a" : "%d", ri->sl);
	fprintf(f, "  RC %s, %s, %u QP%s, MTU %u, tclass %s, SL %s, memory %s (%s%s%s)",
		ri->imm ? "WRITE_WITH_IMM" : "WRITE", ri->bidir ? "bidirectional" : "one-way",
		ri->qps, ri->qps == 1 ? "" : "s", ri->mtu, tc, sl, ri->mem, ri->mem_desc,
		ri->mem_path && strcmp(ri->mem_path, ri->mem) ? ", registered via " : "",
		ri->mem_path && strcmp(ri->mem_path, ri->mem) ? ri->mem_path : "");
	if (ri->rate_gbps > 0)
		fprintf(f, ", rate %.3f Gb/s per QP (%s)", ri->rate_gbps, ri->rate_how);
	fprintf(f, "\n %10s %4s %8s %15s %12s %10s %13s %12s %7s\n", "#bytes", "dir", "t[s]",
		"bytes", "msgs", "BW[Gb/s]", "MsgRate[Mpps]", "completions", "errors");
	fflush(f);
}

static json_object *dir_json(const struct traffic_dir *d)
{
	json_object *o;

	if (!d->valid)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "bytes", json_object_new_uint64(d->bytes));
	json_object_object_add(o, "msgs", json_object_new_uint64(d->msgs));
	json_object_object_add(o, "seconds", dbl(d->secs));
	json_object_object_add(o, "gbps", num_or_null(traffic_dir_gbps(d)));
	json_object_object_add(o, "mpps", num_or_null(traffic_dir_mpps(d)));
	json_object_object_add(o, "completions", d->cqes_valid ? json_object_new_uint64(d->cqes) : NULL);
	json_object_object_add(o, "errors", d->errors_valid ? json_object_new_uint64(d->errors) : NULL);
	return o;
}

static void dir_text(FILE *f, const struct traffic_row *r, const char *name,
		     const struct traffic_dir *d)
{
	char t[16], cq[24], er[24], bw[16], mr[16];
	double g = traffic_dir_gbps(d), m = traffic_dir_mpps(d);

	if (!d->valid)
		return;
	if (r->summary)
		snprintf(t, sizeof(t), "%s", "total");
	else
		snprintf(t, sizeof(t), "%.2f", r->t);
	snprintf(bw, sizeof(bw), isnan(g) ? "n/a" : "%.3f", g);
	snprintf(mr, sizeof(mr), isnan(m) ? "n/a" : "%.4f", m);
	if (d->cqes_valid)
		snprintf(cq, sizeof(cq), "%llu", (unsigned long long)d->cqes);
	else
		snprintf(cq, sizeof(cq), "n/a");
	if (d->errors_valid)
		snprintf(er, sizeof(er), "%llu", (unsigned long long)d->errors);
	else
		snprintf(er, sizeof(er), "n/a");
	fprintf(f, " %10u %4s %8s %15llu %12llu %10s %13s %12s %7s\n", r->size, name, t,
		(unsigned long long)d->bytes, (unsigned long long)d->msgs, bw, mr, cq, er);
}

void traffic_report_row(FILE *f, bool json, const struct traffic_row *r)
{
	if (json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "type", json_object_new_string(r->summary ? "summary" : "interval"));
		json_object_object_add(o, "phase", json_object_new_int((int)r->phase));
		json_object_object_add(o, "size", json_object_new_int64(r->size));
		json_object_object_add(o, "t", dbl(r->t));
		if (r->summary)
			json_object_object_add(o, "interrupted", json_object_new_boolean(r->interrupted));
		json_object_object_add(o, "tx", dir_json(&r->tx));
		json_object_object_add(o, "rx", dir_json(&r->rx));
		emit(f, o);
		return;
	}
	if (r->summary)
		fprintf(f, " %s\n", r->interrupted ? "-- summary (ended early) --" : "-- summary --");
	dir_text(f, r, "tx", &r->tx);
	dir_text(f, r, "rx", &r->rx);
	fflush(f);
}
