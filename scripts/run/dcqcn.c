// SPDX-License-Identifier: GPL-2.0-or-later
/* dcqcn.c: the DCQCN loop of a run with a congestion point, on one time axis per point and
 * repetition (plots/<point>-<rep>-dcqcn.png): the bottleneck's CE marks and backlog, the
 * receiver's CNPs sent, the sender's CNPs handled and the sender's throughput; and the
 * same four numbers side by side in summary.txt.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <inttypes.h>

#include "lib/out.h"
#include "lib/remote.h"
#include "clock.h"
#include "cpoint.h"
#include "dcqcn.h"
#include "records.h"
#include "util.h"

enum { D_CE, D_BACKLOG, D_CNP_SENT, D_CNP_HANDLED, D_TPUT, D_N };

struct dseries {
	double *t, *v;
	size_t n, cap;
};

struct dctx {
	const char *metric;	/* the value this host gives */
	bool rate;		/* from "rates" (per second), else from "values" */
	double scale;
	struct dseries *s;
	json_object *mh;
	int64_t t0;
};

static void dadd(struct dseries *s, double t, double v)
{
	if (!isfinite(t) || !isfinite(v))
		return;
	run_tv_push(&s->t, &s->v, &s->n, &s->cap, t, v);
}

static void dsample(json_object *o, void *arg)
{
	struct dctx *d = arg;
	json_object *ty, *w, *grp, *v;
	double x;

	if (!json_object_object_get_ex(o, "type", &ty) || strcmp(rec_json_str(ty), "sample") ||
	    !json_object_object_get_ex(o, "wall_ns", &w) ||
	    !json_object_object_get_ex(o, d->rate ? "rates" : "values", &grp) ||
	    !json_object_object_get_ex(grp, d->metric, &v) || !rec_json_num(v, &x))
		return;
	dadd(d->s, ((double)clock_to_runner(d->mh, json_object_get_int64(w)) - (double)d->t0) / 1e9,
	     x * d->scale);
}

/* The point's sender and receiver: the first phase with traffic (its first sender). */
static int roles(const struct exp *e, const char *pid, size_t *snd, size_t *rcv)
{
	struct exp_point p;
	char err[EXP_ERR_LEN];
	size_t k;
	int rc = -ENOENT;

	if (exp_point_build(e, strtoul(pid + 1, NULL, 10), &p, err, sizeof(err)))
		return -EINVAL;
	for (k = 0; k < p.nphases; k++)
		if (p.phases[k].has_traffic && p.phases[k].traffic.nfrom) {
			*snd = p.phases[k].traffic.from[0];
			*rcv = p.phases[k].traffic.to;
			rc = 0;
			break;
		}
	exp_point_free(&p);
	return rc;
}

/* The four series' metric and host. */
static void metrics(const struct exp *e, size_t snd, size_t rcv, char m[D_N][160],
		    size_t host[D_N])
{
	const char *dev = e->hosts[e->cp->host].netdev;

	snprintf(m[D_CE], sizeof(m[D_CE]), "qdisc.%s.10.ecn_marked", dev);
	snprintf(m[D_BACKLOG], sizeof(m[D_BACKLOG]), "qdisc.%s.10.backlog_bytes", dev);
	snprintf(m[D_CNP_SENT], sizeof(m[D_CNP_SENT]), "cnp.sent");
	snprintf(m[D_CNP_HANDLED], sizeof(m[D_CNP_HANDLED]), "cnp.handled");
	snprintf(m[D_TPUT], sizeof(m[D_TPUT]), "link.tx_bytes");
	host[D_CE] = host[D_BACKLOG] = e->cp->host;
	host[D_CNP_SENT] = rcv;
	host[D_CNP_HANDLED] = snd;
	host[D_TPUT] = snd;
}

static int gnuplot(const char *gp, char *err, size_t errlen)
{
	static const struct remote_target here = { .kind = REMOTE_LOCAL };
	const char *argv[] = { "gnuplot", gp, NULL };
	char *e = NULL;
	int code = -1, rc = remote_run(&here, argv, NULL, 120000, &code, NULL, &e, 4096);

	if (rc || code) {
		snprintf(err, errlen, "gnuplot %s failed (%s): %.200s", gp,
			 rc ? strerror(-rc) : "exit status", e ? e : "");
		free(e);
		return rc ? rc : -EIO;
	}
	free(e);
	return 0;
}

static const char *const d_title[D_N] = {
	"CE marks at the bottleneck", "backlog at the bottleneck", "CNPs sent (receiver)",
	"CNPs handled (sender)", "sender throughput",
};
static const char *const d_ylabel[D_N] = { "marks/s", "KB", "CNPs/s", "CNPs/s", "Gb/s" };

/* plots/data/<point>-<rep>-dcqcn.dat: one block per series (gnuplot's index). */
static int write_dat(const char *path, const struct exp *e, const struct dseries *s,
		     char m[D_N][160], const size_t host[D_N], char *err, size_t errlen)
{
	size_t i, j;
	FILE *f = fopen(path, "w");

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "# the DCQCN loop: seconds on the runner's clock since the point started, "
		   "value; one block per series (gnuplot index), one NaN row when not measured\n");
	for (i = 0; i < D_N; i++) {
		fprintf(f, "%s# series %zu: %s, %s on %s (%s)\n", i ? "\n\n" : "", i, d_title[i],
			m[i], e->hosts[host[i]].name, d_ylabel[i]);
		for (j = 0; j < s[i].n; j++)
			fprintf(f, "%.6f %.9g\n", s[i].t[j], s[i].v[j]);
		if (!s[i].n)
			fprintf(f, "NaN NaN\n"); /* n/a; keeps the block (gnuplot's index) in place */
	}
	if (fclose(f)) {
		snprintf(err, errlen, "%s: write error", path);
		return -EIO;
	}
	return 0;
}

int dcqcn_plot(const char *dir, const char *pid, const char *rep, json_object *man,
	       const struct exp *e, char *err, size_t errlen)
{
	struct dseries s[D_N] = { { 0 } };
	char m[D_N][160], path[PATH_MAX], gp[PATH_MAX], png[PATH_MAX];
	size_t host[D_N], snd, rcv, i, j;
	json_object *st, *hosts = NULL, *x;
	int64_t t0 = 0;
	FILE *f;
	int rc;

	if (!e->cp || roles(e, pid, &snd, &rcv))
		return 0;
	run_path(path, sizeof(path), "%s/points/%s/%s/status.json", dir, pid, rep);
	st = json_object_from_file(path);
	if (!st)
		return 0;
	if (json_object_object_get_ex(st, "t0_wall_ns", &x))
		t0 = json_object_get_int64(x);
	json_object_put(st);
	if (man)
		json_object_object_get_ex(man, "hosts", &hosts);
	metrics(e, snd, rcv, m, host);
	for (i = 0; i < D_N; i++) {
		struct dctx d = { .metric = m[i], .rate = i != D_BACKLOG, .s = &s[i], .t0 = t0,
				  .scale = i == D_BACKLOG ? 1e-3 : i == D_TPUT ? 8e-9 : 1 };

		if (hosts)
			json_object_object_get_ex(hosts, e->hosts[host[i]].name, &d.mh);
		run_path(path, sizeof(path), "%s/points/%s/%s/%s/monitor/samples.jsonl", dir, pid,
			 rep, e->hosts[host[i]].name);
		rec_samples_each(path, dsample, &d);
	}
	run_path(path, sizeof(path), "%s/plots/data/%s-%s-dcqcn.dat", dir, pid, rep);
	rc = write_dat(path, e, s, m, host, err, errlen);
	if (rc)
		goto out;
	run_path(gp, sizeof(gp), "%s/plots/%s-%s-dcqcn.gp", dir, pid, rep);
	run_path(png, sizeof(png), "%s/plots/%s-%s-dcqcn.png", dir, pid, rep);
	f = fopen(gp, "w");
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", gp, strerror(errno));
		goto out;
	}
	fprintf(f, "# gnuplot script made by pfclab run; data in data/%s-%s-dcqcn.dat\n"
		   "set terminal pngcairo size 1100,1100 font \",10\" noenhanced\n"
		   "set output \"%s\"\n"
		   "set multiplot layout 4,1 title \"%s %s %s: the DCQCN loop (bottleneck %s %s)\"\n"
		   "set grid\nset lmargin 12\nset rmargin 12\nset key left top\n"
		   "set offsets 0, 0, graph 0.08, 0\n",
		   pid, rep, png, e->name, pid, rep, e->hosts[e->cp->host].name,
		   e->hosts[e->cp->host].netdev);
	{
		/* one time axis for the four panels */
		double lo = 0, hi = 1;

		for (i = 0; i < D_N; i++)
			for (j = 0; j < s[i].n; j++) {
				lo = s[i].t[j] < lo ? s[i].t[j] : lo;
				hi = s[i].t[j] > hi ? s[i].t[j] : hi;
			}
		fprintf(f, "set xrange [%.3f:%.3f]\n", lo, hi);
	}
	for (i = 0; i < 4; i++) {
		static const int panel_series[4] = { D_CE, D_CNP_SENT, D_CNP_HANDLED, D_TPUT };
		int k = panel_series[i];

		fprintf(f, "set title \"%s\"\nset ylabel \"%s\"\nset yrange [0:*]\n%s", d_title[k],
			d_ylabel[k], i == 3 ? "set xlabel \"s since the point started (runner's clock)\"\n"
					  : "unset xlabel\n");
		if (k == D_CE && (s[D_CE].n || s[D_BACKLOG].n)) {
			fprintf(f, "set y2label \"backlog KB\"\nset y2range [0:*]\nset ytics nomirror\n"
				   "set y2tics\n");
			if (!s[D_CE].n)
				fprintf(f, "set label 98 \"CE marks n/a (%s not recorded: tail drop, or "
					   "no ECN)\" at graph 0.5, graph 0.5 center\n", m[D_CE]);
			fprintf(f, "plot ");
			if (s[D_CE].n)
				fprintf(f, "\"%s\" index %d using 1:2 with lines lw 2 title \"CE marks/s "
					   "(%s)\"%s", path, D_CE, m[D_CE], s[D_BACKLOG].n ? ", " : "");
			if (s[D_BACKLOG].n)
				fprintf(f, "\"%s\" index %d using 1:2 axes x1y2 with lines lw 1 title "
					   "\"backlog KB (%s)\"", path, D_BACKLOG, m[D_BACKLOG]);
			fprintf(f, "\nunset y2label\nunset y2tics\nset ytics mirror\nunset label 98\n");
			continue;
		}
		if (!s[k].n) {
			fprintf(f, "set label 99 \"n/a: %s not measured on %s\" at graph 0.5, graph 0.5 "
				   "center\nset yrange [0:1]\nplot NaN notitle\nunset label 99\n",
				m[k], e->hosts[host[k]].name);
			continue;
		}
		fprintf(f, "plot \"%s\" index %d using 1:2 with lines lw 2 title \"%s on %s\"\n",
			path, k, m[k], e->hosts[host[k]].name);
	}
	fprintf(f, "unset multiplot\n");
	if (fclose(f)) {
		rc = -EIO;
		goto out;
	}
	rc = gnuplot(gp, err, errlen);
out:
	for (i = 0; i < D_N; i++) {
		free(s[i].t);
		free(s[i].v);
	}
	return rc;
}

/* One repetition's DCQCN figures, gathered before they are written. */
struct dcqcn_row {
	char pid[16];
	unsigned rep;
	double v[4];		/* CE marks, CNPs sent, CNPs handled, sender Gb/s */
	bool valid[4];
};

/* The rows of every point and repetition with a record; *n of them (NULL when none). */
static struct dcqcn_row *dcqcn_rows(const char *dir, const struct exp *e, size_t *n)
{
	static const int which[4] = { D_CE, D_CNP_SENT, D_CNP_HANDLED, D_TPUT };
	struct dcqcn_row *rows = NULL, *nr;
	char path[PATH_MAX], m[D_N][160];
	size_t host[D_N], snd, rcv, i;
	int np;

	*n = 0;
	for (np = 0; np < (int)exp_point_count(e); np++) {
		char pid[16];
		unsigned r;

		snprintf(pid, sizeof(pid), "p%03d", np);
		if (roles(e, pid, &snd, &rcv))
			continue;
		metrics(e, snd, rcv, m, host);
		for (r = 0; r < e->reps; r++) {
			struct rec_counter c[4];
			struct rec_monitor mon[4];
			struct dcqcn_row *row;
			double secs;

			for (i = 0; i < 4; i++) {
				memset(&mon[i], 0, sizeof(mon[i]));
				c[i] = (struct rec_counter){ .metric = m[which[i]] };
				run_path(path, sizeof(path), "%s/points/%s/rep%u/%s/monitor", dir, pid,
					 r, e->hosts[host[which[i]]].name);
				if (rec_monitor_read(path, &mon[i], &c[i], 1))
					c[i].valid = false;
			}
			if (!mon[0].samples && !mon[3].samples)
				continue;
			nr = realloc(rows, (*n + 1) * sizeof(*rows));
			if (!nr)
				break;
			rows = nr;
			row = &rows[(*n)++];
			snprintf(row->pid, sizeof(row->pid), "%s", pid);
			row->rep = r;
			secs = (double)(mon[3].last_wall_ns - mon[3].first_wall_ns) / 1e9;
			for (i = 0; i < 3; i++) {
				row->v[i] = (double)c[i].delta;
				row->valid[i] = c[i].valid;
			}
			row->valid[3] = c[3].valid && secs > 0;
			row->v[3] = row->valid[3] ? (double)c[3].delta * 8 / secs / 1e9 : 0;
		}
	}
	return rows;
}

/* The DCQCN section, each field named once for the text form and the JSON one. */
static void dcqcn_render(struct out *o, const struct exp *e, const struct dcqcn_row *rows,
			 size_t n)
{
	static const char *const keys[4] = { "ce_marks", "cnps_sent", "cnps_handled",
					      "sender_gbps" };
	size_t i, k;

	out_obj_open(o, "bottleneck");
	out_text(o, "DCQCN loop (bottleneck ");
	out_str(o, "host", "%s ", e->hosts[e->cp->host].name);
	out_str(o, "netdev", "%s", e->hosts[e->cp->host].netdev);
	out_obj_close(o);
	out_text(o, "): CE marks | CNPs sent (receiver) | CNPs handled (sender) | sender "
		 "throughput\n");
	out_arr_open(o, "repetitions");
	for (i = 0; i < n; i++) {
		out_obj_open(o, NULL);
		out_str(o, "point", "  %s", rows[i].pid);
		out_uint(o, "rep", " rep%" PRIu64 ":", rows[i].rep);
		for (k = 0; k < 4; k++) {
			static const char *const fmt[4] = { " %.6g", " | %.6g", " | %.6g",
							    " | %.6g Gb/s" };

			if (rows[i].valid[k])
				out_double(o, keys[k], fmt[k], rows[i].v[k]);
			else
				out_na_fmt(o, keys[k], k ? " | %s" : " %s");
		}
		out_text(o, "\n");
		out_obj_close(o);
	}
	out_obj_close(o);
}

int dcqcn_summary(const char *dir, const struct exp *e, FILE *f, json_object *sum)
{
	struct dcqcn_row *rows;
	struct out o;
	size_t n;

	if (!e->cp)
		return 0;
	rows = dcqcn_rows(dir, e, &n);
	out_begin_file(&o, f, false);
	dcqcn_render(&o, e, rows, n);
	out_begin(&o, true);
	dcqcn_render(&o, e, rows, n);
	json_object_object_add(sum, "dcqcn", out_take(&o));
	free(rows);
	return 0;
}
