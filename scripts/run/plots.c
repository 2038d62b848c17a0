// SPDX-License-Identifier: GPL-2.0-or-later
/* plots.c: gnuplot PNGs of a results folder. Per point and repetition, one time axis (the
 * runner's clock, 0 at the point's start) with the phases marked, in five panels: throughput
 * per direction, PFC/PAUSE frames per priority, paused share per priority, CNP and ECN,
 * GPU PCIe rx/tx. Per sweep, each figure along the swept points with the spread (min..max)
 * over repetitions. Every panel's data is a file under plots/data/ (one block per series,
 * headed "# series NAME", and "# bin_s W" for a rate per bin of W seconds), and the .gp
 * scripts stay beside the PNGs.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remote.h"
#include "lib/util.h"
#include "clock.h"
#include "dcqcn.h"
#include "records.h"
#include "report.h"
#include "util.h"

struct series {
	char name[160];
	double *t, *v;
	size_t n, cap;
	bool points; /* draw as points (frame counts per bin), else lines */
	double bin_s; /* a rate or share per bin of this width (its data says so), else 0 */
};

struct panel {
	const char *title, *ylabel;
	struct series *s;
	size_t n;
};

enum { P_TPUT, P_PFC, P_SHARE, P_CNP, P_PCIE, P_N };

static struct series *series_get(struct panel *p, const char *name, bool points)
{
	struct series *ns;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->s[i].name, name))
			return &p->s[i];
	ns = realloc(p->s, (p->n + 1) * sizeof(*ns));
	if (!ns)
		return NULL;
	p->s = ns;
	memset(&ns[p->n], 0, sizeof(ns[p->n]));
	snprintf(ns[p->n].name, sizeof(ns[p->n].name), "%s", name);
	ns[p->n].points = points;
	return &ns[p->n++];
}

static void series_add(struct series *s, double t, double v)
{
	if (!s || !isfinite(t) || !isfinite(v))
		return;
	run_tv_push(&s->t, &s->v, &s->n, &s->cap, t, v);
}

static void panels_free(struct panel *p)
{
	size_t i, j;

	for (i = 0; i < P_N; i++) {
		for (j = 0; j < p[i].n; j++) {
			free(p[i].s[j].t);
			free(p[i].s[j].v);
		}
		free(p[i].s);
		p[i].s = NULL;
		p[i].n = 0;
	}
}

/* ---- monitor samples ---------------------------------------------------------------- */

struct mon_ctx {
	struct panel *p;
	const char *host;
	json_object *mh; /* manifest host entry (clock) */
	int64_t t0;
};

static void mon_sample(json_object *o, void *arg)
{
	struct mon_ctx *m = arg;
	json_object *ty, *w, *dt, *rates, *vals;
	double t, tr, dts;
	char name[200];

	if (!json_object_object_get_ex(o, "type", &ty) || strcmp(rec_json_str(ty), "sample") ||
	    !json_object_object_get_ex(o, "wall_ns", &w))
		return;
	t = tr = ((double)clock_to_runner(m->mh, json_object_get_int64(w)) - (double)m->t0) / 1e9;
	/* a rate is over the interval that ended at the sample: drawn at its middle */
	if (json_object_object_get_ex(o, "dt_ns", &dt) && rec_json_num(dt, &dts) && dts > 0)
		tr = t - dts / 2e9;
	if ((rates = rec_json_member(o, "rates", json_type_object))) {
		json_object_object_foreach(rates, k, v) {
			int prio;
			char dir[3];
			double x;

			if (!rec_json_num(v, &x))
				continue;
			if (sscanf(k, "pfc.%2[rtx].prio%d.frames", dir, &prio) == 2) {
				snprintf(name, sizeof(name), "%s %s prio%d (NIC counter)", m->host, dir, prio);
				series_add(series_get(&m->p[P_PFC], name, false), tr, x);
			} else if (!strcmp(k, "pause.tx.frames") || !strcmp(k, "pause.rx.frames")) {
				snprintf(name, sizeof(name), "%s %s PAUSE (NIC counter)", m->host, k + 6);
				series_add(series_get(&m->p[P_PFC], name, false), tr, x);
			} else if (sscanf(k, "pfc.rx.prio%d.pause_us", &prio) == 1) {
				snprintf(name, sizeof(name), "%s paused prio%d (rx pause duration)", m->host, prio);
				series_add(series_get(&m->p[P_SHARE], name, false), tr, x / 1e6);
			} else if (!strcmp(k, "link.tx_bytes")) {
				/* every byte the port sent, at the monitor's interval: when traffic
				 * starts, stalls and stops, finer than traffic's reports */
				snprintf(name, sizeof(name), "%s link tx (NIC counter)", m->host);
				series_add(series_get(&m->p[P_TPUT], name, false), tr, x * 8 / 1e9);
			} else if (!strcmp(k, "cnp.sent") || !strcmp(k, "cnp.handled") ||
				   !strcmp(k, "cnp.received") || !strcmp(k, "ecn.marked")) {
				snprintf(name, sizeof(name), "%s %s (NIC counter)", m->host, k);
				series_add(series_get(&m->p[P_CNP], name, false), tr, x);
			}
		}
	}
	if ((vals = rec_json_member(o, "values", json_type_object))) {
		json_object_object_foreach(vals, k, v) {
			int g;
			char dir[3];
			double x;

			if (rec_json_num(v, &x) && sscanf(k, "pcie.gpu%d.%2[rtx]_Bps", &g, dir) == 2) {
				snprintf(name, sizeof(name), "%s gpu%d %s", m->host, g, dir);
				series_add(series_get(&m->p[P_PCIE], name, false), t, x / 1e9);
			}
		}
	}
}

/* ---- capture timeline (pfclab review --timeline 10ms) -------------------------------- */

/* The width frames are drawn in: the timeline's own bin, or the first of 50 ms .. 10 s
 * that puts at most TL_PLOT_BINS over the capture's span (frame counts per 10 ms read as
 * noise at a figure's width: one frame is 100/s). */
#define TL_PLOT_BINS 120

static double plot_bin(double bin, double span)
{
	static const double w[] = { 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10 };
	size_t i;

	if (!(span / bin > TL_PLOT_BINS))
		return bin;
	for (i = 0; i < ARRAY_SIZE(w); i++)
		if (w[i] > bin && span / w[i] <= TL_PLOT_BINS)
			return w[i];
	return w[ARRAY_SIZE(w) - 1];
}

/* One plotted bin of the timeline: the rows that fell in it, summed. */
struct tl_acc {
	double start;	/* s on the runner's axis */
	size_t rows;	/* the timeline's rows in it */
	double sum[REC_TL_N];
	bool have[REC_TL_N];
};

static const struct { int c, panel; const char *what; } tl_counts[] = {
	{ REC_TL_PFC, P_PFC, "PFC" }, { REC_TL_PAUSE, P_PFC, "PAUSE" },
	{ REC_TL_CNP, P_CNP, "CNP" }, { REC_TL_CE, P_CNP, "CE" },
};

/* A plotted bin into the panels, as rates and shares over its whole width W (a capture's
 * timeline covers it from the first frame to the last: there were none outside), at the
 * bin's middle. Frame counts: bins without frames are left out (the points show when
 * frames came). Paused share: for each priority that was paused at all over the capture. */
/* BIN: W (seconds) as text, for the series' names */
static void tl_flush(struct panel *p, const char *host, const struct tl_acc *a, double w,
		     const char *bin, const bool *paused_any)
{
	char name[200];
	double mid = a->start + w / 2;
	struct series *s;
	size_t k;

	if (!a->rows)
		return;
	for (k = 0; k < ARRAY_SIZE(tl_counts); k++) {
		if (!a->have[tl_counts[k].c] || !(a->sum[tl_counts[k].c] > 0))
			continue;
		snprintf(name, sizeof(name), "%s %s captured (%s bins)", host, tl_counts[k].what, bin);
		if ((s = series_get(&p[tl_counts[k].panel], name, true))) {
			s->bin_s = w;
			series_add(s, mid, a->sum[tl_counts[k].c] / w);
		}
	}
	for (k = 0; k < REC_TL_NPAUSED; k++) {
		if (!paused_any[k] || !a->have[REC_TL_PAUSED0 + k])
			continue;
		if (k < REC_TL_NPAUSED - 1)
			snprintf(name, sizeof(name), "%s paused prio%zu (captured frames, %s bins)",
				 host, k, bin);
		else
			snprintf(name, sizeof(name), "%s paused by PAUSE (captured frames, %s bins)",
				 host, bin);
		if ((s = series_get(&p[P_SHARE], name, false))) {
			s->bin_s = w;
			series_add(s, mid, a->sum[REC_TL_PAUSED0 + k] / 1e9 / w);
		}
	}
}

static void timeline(struct panel *p, const char *path, const char *host, json_object *mh, int64_t t0)
{
	struct rec_timeline tl;
	bool any[REC_TL_NPAUSED] = { false };
	struct tl_acc a;
	double *t, w;
	char bin[32];
	size_t i, k;

	/* one that cannot be read whole is left out, as a missing one: the summary names
	 * its bad line (by_phase_na), and a plot of part of it would pass for all of it */
	if (rec_timeline_read(path, &tl, NULL, 0))
		return;
	t = clock_timeline_s(&tl, mh, t0);
	if (!t || !tl.n) {
		free(t);
		rec_timeline_free(&tl);
		return;
	}
	for (i = 0; i < tl.n; i++)
		for (k = 0; k < REC_TL_NPAUSED; k++)
			any[k] |= tl.rows[i].have[REC_TL_PAUSED0 + k] &&
				  tl.rows[i].v[REC_TL_PAUSED0 + k] > 0;
	w = plot_bin(tl.bin_s, t[tl.n - 1] - t[0] + tl.bin_s);
	fmt_duration_ns((uint64_t)llround(w * 1e9), bin, sizeof(bin));
	memset(&a, 0, sizeof(a));
	a.start = floor(t[0] / w) * w;
	for (i = 0; i < tl.n; i++) {
		const struct rec_tl_row *r = &tl.rows[i];
		double start = floor(t[i] / w) * w;

		if (start != a.start) {	/* rows are in time order; a step back starts a bin too */
			tl_flush(p, host, &a, w, bin, any);
			memset(&a, 0, sizeof(a));
			a.start = start;
		}
		a.rows++;
		for (k = 0; k < REC_TL_N; k++)
			if (r->have[k]) {
				a.sum[k] += r->v[k];
				a.have[k] = true;
			}
	}
	tl_flush(p, host, &a, w, bin, any);
	free(t);
	rec_timeline_free(&tl);
}

/* ---- traffic intervals ---------------------------------------------------------------- */

struct tr_ctx {
	struct panel *p;
	const char *host;
	json_object *phases;
	json_object *last_t; /* run_file -> the last report's t */
};

/* A traffic process's reports count from its own start, which lies after the phase's start
 * by its start-up and connection time: its last report is put where the runner saw the
 * traffic end (traffic_end_s), the others before it by their t. */
static double phase_time(json_object *phases, const char *name, const char *key)
{
	size_t i;
	double v;

	for (i = 0; i < rec_json_len(phases); i++) {
		json_object *ph = json_object_array_get_idx(phases, i), *n, *s;

		if (json_object_object_get_ex(ph, "name", &n) && !strcmp(rec_json_str(n), name) &&
		    json_object_object_get_ex(ph, key, &s))
			return rec_json_num(s, &v) ? v : NAN;
	}
	return NAN;
}

static void tr_last(json_object *o, void *arg)
{
	struct tr_ctx *c = arg;
	json_object *file, *t;

	if (json_object_object_get_ex(o, "run_file", &file) && *rec_json_str(file) &&
	    json_object_object_get_ex(o, "t", &t))
		json_object_object_add(c->last_t, rec_json_str(file), json_object_get(t));
}

static void tr_line(json_object *o, void *arg)
{
	struct tr_ctx *c = arg;
	json_object *ty, *ph, *file, *t, *tx, *g, *secs, *last;
	const char *f;
	char name[300], phase[128], role[8], peer[128];
	double gbps, tv, s, lt, start, end;

	if (!json_object_object_get_ex(o, "type", &ty) || strcmp(rec_json_str(ty), "interval") ||
	    !json_object_object_get_ex(o, "run_phase", &ph) || !json_object_object_get_ex(o, "run_file", &file) ||
	    !json_object_object_get_ex(o, "t", &t) || !rec_json_num(t, &tv) ||
	    !json_object_object_get_ex(o, "tx", &tx) ||
	    !json_object_object_get_ex(tx, "gbps", &g) || !rec_json_num(g, &gbps))
		return;
	f = rec_json_str(file);
	if (!rec_traffic_name(f, phase, sizeof(phase), role, peer, sizeof(peer)))
		return;
	if (!strcmp(role, "server") && gbps == 0)
		return; /* a one-way server sends nothing */
	/* a short interval (the one that ends the run) says little about the rate */
	if (!json_object_object_get_ex(tx, "seconds", &secs) || !rec_json_num(secs, &s) || s < 0.2)
		return;
	end = phase_time(c->phases, rec_json_str(ph), "traffic_end_s");
	if (isfinite(end) && json_object_object_get_ex(c->last_t, f, &last) && rec_json_num(last, &lt))
		start = end - lt;
	else
		start = phase_time(c->phases, rec_json_str(ph), "start_s");
	snprintf(name, sizeof(name), "%s->%s %s", c->host, peer, rec_json_str(ph));
	/* the interval's rate at its middle: it ended at T, S long */
	series_add(series_get(&c->p[P_TPUT], name, false), start + tv - s / 2, gbps);
}

/* ---- writing data and scripts ---------------------------------------------------------- */

static int cmp_pt(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

static void sort_series(struct series *s)
{
	double *pairs = malloc(s->n * 2 * sizeof(double));
	size_t i;

	if (!pairs)
		return;
	for (i = 0; i < s->n; i++) {
		pairs[2 * i] = s->t[i];
		pairs[2 * i + 1] = s->v[i];
	}
	qsort(pairs, s->n, 2 * sizeof(double), cmp_pt);
	for (i = 0; i < s->n; i++) {
		s->t[i] = pairs[2 * i];
		s->v[i] = pairs[2 * i + 1];
	}
	free(pairs);
}

static int write_panel(const char *path, const struct panel *p)
{
	FILE *f = fopen(path, "w");
	size_t i, j, k;

	if (!f)
		return -errno;
	fprintf(f, "# %s: %s against seconds on the runner's clock since the point started\n", p->title,
		p->ylabel);
	for (i = 0, k = 0; i < p->n; i++) {
		if (!p->s[i].n)
			continue; /* an empty block would shift gnuplot's index */
		sort_series(&p->s[i]);
		fprintf(f, "%s# series %s\n", k++ ? "\n\n" : "", p->s[i].name);
		if (p->s[i].bin_s > 0)
			fprintf(f, "# bin_s %g\n", p->s[i].bin_s);
		for (j = 0; j < p->s[i].n; j++)
			fprintf(f, "%.6f %.9g\n", p->s[i].t[j], p->s[i].v[j]);
	}
	return fclose(f) ? -EIO : 0;
}

static void gp_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static int run_gnuplot(const char *gp, char *err, size_t errlen)
{
	static const struct remote_target here = { .kind = REMOTE_LOCAL };
	const char *argv[] = { "gnuplot", gp, NULL };
	char *e = NULL;
	int code = -1, rc;

	rc = remote_run(&here, argv, NULL, 120000, &code, NULL, &e, 4096);
	if (rc || code) {
		char *nl = e ? strrchr(e, '\n') : NULL;

		while (nl && nl > e && nl[1] == 0) {
			*nl = 0;
			nl = strrchr(e, '\n');
		}
		snprintf(err, errlen, "gnuplot %s failed (%s): %s", gp,
			 rc ? strerror(-rc) : code == 127 ? "gnuplot not installed: apt-get install gnuplot-nox" : "exit status",
			 nl ? nl + 1 : e ? e : "");
		free(e);
		return rc ? rc : -EIO;
	}
	free(e);
	return 0;
}

/* The right margin, in characters, that holds the widest key of any panel (its sample
 * line and its name): 40 at least, so that the panels of one kind of run line up. */
static size_t key_margin(const struct panel *p)
{
	size_t i, k, w = 40, n;

	for (i = 0; i < P_N; i++)
		for (k = 0; k < p[i].n; k++) {
			n = strlen(p[i].s[k].name) + 8;
			if (n > w)
				w = n;
		}
	return w;
}

/* The plot commands of the P_N panels, each reading its series from data/. */
static void gp_panels(FILE *f, const struct panel *p, const char *dir, const char *pid,
		      const char *rep, const char *const *stem)
{
	char path[PATH_MAX];
	size_t i, k;

	for (i = 0; i < P_N; i++) {
		size_t used = 0;

		fprintf(f, "set title ");
		gp_quote(f, p[i].title);
		fprintf(f, "\nset ylabel ");
		gp_quote(f, p[i].ylabel);
		fprintf(f, "\n%s", i == P_N - 1 ? "set xlabel \"s since the point started (runner's clock)\"\n" : "unset xlabel\n");
		for (k = 0; k < p[i].n; k++)
			used += p[i].s[k].n > 0;
		if (!used) {
			fprintf(f, "set label 99 \"n/a: not measured on these hosts\" at graph 0.5, graph 0.5 center\n"
				   "set yrange [0:1]\nplot NaN notitle\nunset label 99\nset autoscale y\n");
			continue;
		}
		fprintf(f, "set yrange [0:*]\nplot ");
		for (k = 0, used = 0; k < p[i].n; k++) {
			if (!p[i].s[k].n)
				continue;
			fprintf(f, "%s", used ? ", \\\n     " : "");
			run_path(path, sizeof(path), "data/%s-%s-%s.dat", pid, rep, stem[i]);
			fprintf(f, "\"%s/plots/%s\" index %zu using 1:2 with %s title ", dir, path, used++,
				p[i].s[k].points ? "points pt 7 ps 0.6" : "lines lw 2");
			gp_quote(f, p[i].s[k].name);
		}
		fprintf(f, "\n");
	}
}

static int plot_rep(const char *dir, const char *pid, const char *rep, json_object *man,
		    const struct exp *e, char *err, size_t errlen)
{
	static const char *const stem[P_N] = { "throughput", "pfc", "paused-share", "cnp-ecn", "pcie" };
	struct panel p[P_N] = {
		{ "Throughput per direction", "Gb/s", NULL, 0 },
		{ "PFC / PAUSE frames per priority", "frames/s", NULL, 0 },
		{ "Paused share per priority", "share of time", NULL, 0 },
		{ "CNP and ECN", "per second", NULL, 0 },
		{ "GPU PCIe", "GB/s", NULL, 0 },
	};
	char path[PATH_MAX], gp[PATH_MAX], png[PATH_MAX], why[256];
	json_object *st, *phases = NULL, *hosts = NULL, *x;
	int64_t t0 = 0;
	double tmax = 0;
	size_t h, i, k;
	FILE *f;
	int rc = 0, fr;

	run_path(path, sizeof(path), "%s/points/%s/%s/status.json", dir, pid, rep);
	st = json_object_from_file(path);
	if (!st)
		return 0;
	if (json_object_object_get_ex(st, "t0_wall_ns", &x))
		t0 = json_object_get_int64(x);
	json_object_object_get_ex(st, "phases", &phases);
	if (man)
		json_object_object_get_ex(man, "hosts", &hosts);
	for (h = 0; h < e->nhosts; h++) {
		const char *hn = e->hosts[h].name;
		json_object *mh = NULL;
		struct mon_ctx mc = { .p = p, .host = hn, .t0 = t0 };
		struct tr_ctx tc = { .p = p, .host = hn, .phases = phases,
				     .last_t = json_object_new_object() };

		if (hosts)
			json_object_object_get_ex(hosts, hn, &mh);
		mc.mh = mh;
		/* a record of another format is left out, as the summary leaves it (counters_na) */
		run_path(path, sizeof(path), "%s/points/%s/%s/%s/monitor", dir, pid, rep, hn);
		fr = rec_monitor_format(path, why, sizeof(why));
		run_path(path, sizeof(path), "%s/points/%s/%s/%s/monitor/samples.jsonl", dir, pid, rep, hn);
		if (!fr || fr == -ENOENT)
			rec_samples_each(path, mon_sample, &mc);
		run_path(path, sizeof(path), "%s/points/%s/%s/%s/review-timeline.csv", dir, pid, rep, hn);
		timeline(p, path, hn, mh, t0);
		run_path(path, sizeof(path), "%s/points/%s/%s/%s/traffic.jsonl", dir, pid, rep, hn);
		rec_jsonl_each(path, tr_last, &tc);
		rec_jsonl_each(path, tr_line, &tc);
		json_object_put(tc.last_t);
	}
	for (i = 0; i < P_N; i++) {
		run_path(path, sizeof(path), "%s/plots/data/%s-%s-%s.dat", dir, pid, rep, stem[i]);
		rc = write_panel(path, &p[i]);
		if (rc) {
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
			goto out;
		}
		for (k = 0; k < p[i].n; k++)
			if (p[i].s[k].n && p[i].s[k].t[p[i].s[k].n - 1] > tmax)
				tmax = p[i].s[k].t[p[i].s[k].n - 1];
	}
	for (i = 0; i < rec_json_len(phases); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(phases, i), "end_s", &x) &&
		    json_object_get_double(x) > tmax)
			tmax = json_object_get_double(x);
	run_path(gp, sizeof(gp), "%s/plots/%s-%s.gp", dir, pid, rep);
	run_path(png, sizeof(png), "%s/plots/%s-%s.png", dir, pid, rep);
	f = fopen(gp, "w");
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", gp, strerror(errno));
		goto out;
	}
	fprintf(f, "# gnuplot script made by pfclab run; data in data/%s-%s-*.dat\n", pid, rep);
	fprintf(f, "set terminal pngcairo size 1100,1400 font \",10\" noenhanced\nset output ");
	gp_quote(f, png);
	fprintf(f, "\nset multiplot layout %d,1 title ", P_N);
	{
		char t[300];

		snprintf(t, sizeof(t), "%s %s %s", e->name, pid, rep);
		gp_quote(f, t);
	}
	/* headroom above the highest point: a line at the top of its range would run
	 * along the frame and vanish into it */
	fprintf(f, "\nset grid\nset key outside right top\nset lmargin 12\nset rmargin %zu\n"
		   "set offsets 0, 0, graph 0.08, 0\n", key_margin(p));
	fprintf(f, "set xrange [0:%.3f]\n", tmax > 0 ? tmax * 1.02 : 1);
	/* phase markers on every panel */
	for (i = 0; i < rec_json_len(phases); i++) {
		json_object *ph = json_object_array_get_idx(phases, i), *s, *n;

		if (!json_object_object_get_ex(ph, "start_s", &s) || !json_object_object_get_ex(ph, "name", &n))
			continue;
		fprintf(f, "set arrow %zu from %.3f, graph 0 to %.3f, graph 1 nohead dt 2 lc rgb \"#888888\"\n",
			i + 1, json_object_get_double(s), json_object_get_double(s));
		fprintf(f, "set label %zu ", i + 1);
		gp_quote(f, json_object_get_string(n));
		fprintf(f, " at %.3f, graph 0.95 left offset 0.3,0 tc rgb \"#555555\"\n", json_object_get_double(s));
	}
	gp_panels(f, p, dir, pid, rep, stem);
	fprintf(f, "unset multiplot\n");
	if (fclose(f)) {
		rc = -EIO;
		goto out;
	}
	rc = run_gnuplot(gp, err, errlen);
out:
	panels_free(p);
	json_object_put(st);
	return rc;
}

/* ---- along the sweep ------------------------------------------------------------------- */

static int plot_sweep(const char *dir, json_object *points, char *err, size_t errlen)
{
	/* series of prefixes[] on the left axis, of y2[] on the right one */
	static const struct {
		const char *stem, *title, *ylabel, *y2label;
		const char *const prefixes[6];
		const char *const y2[4];
	} figs[] = {
		{ "throughput", "Throughput per direction", "Gb/s", NULL, { "throughput_gbps", NULL }, { NULL } },
		{ "pfc", "PFC / PAUSE frames captured", "frames", NULL, { "captured_pfc_frames", "captured_pause_frames", NULL }, { NULL } },
		/* the GPU-BAR story along a drain (or any) sweep: what gets through, and the
		 * share of the time the senders were paused: per phase from the captured
		 * frames, of the whole point from the NIC's pause-duration counters */
		{ "paused-goodput", "Goodput and paused share", "goodput, Gb/s",
		  "paused share (captured: of the phase; NIC counters: of the point)",
		  { "throughput_gbps", NULL }, { "phase_paused_share", "paused_share_rx", NULL } },
		{ "cnp-ecn", "CNP and ECN", "packets", NULL, { "captured_cnp", "captured_roce_ce", "cnp_sent", "cnp_handled", "ecn_marked", NULL }, { NULL } },
		{ "pcie", "GPU PCIe (mean)", "B/s", NULL, { "gpu_pcie_rx_Bps", "gpu_pcie_tx_Bps", NULL }, { NULL } },
	};
	size_t np = rec_json_len(points), fi, i, j;
	char path[PATH_MAX], gp[PATH_MAX];
	int rc = 0;

	for (fi = 0; fi < ARRAY_SIZE(figs); fi++) {
		char keys[64][300];
		bool right[64];
		size_t nk = 0, nright = 0;
		FILE *d, *f;

		/* the series: every aggregate key with one of the figure's prefixes */
		for (i = 0; i < np; i++) {
			json_object *agg;

			if (!json_object_object_get_ex(json_object_array_get_idx(points, i), "over_valid_repetitions", &agg))
				continue;
			json_object_object_foreach(agg, k, v) {
				bool match = false, r = false;

				(void)v;
				for (j = 0; figs[fi].prefixes[j]; j++)
					if (!strncmp(k, figs[fi].prefixes[j], strlen(figs[fi].prefixes[j])))
						match = true;
				for (j = 0; figs[fi].y2[j]; j++)
					if (!strncmp(k, figs[fi].y2[j], strlen(figs[fi].y2[j])))
						match = r = true;
				for (j = 0; match && j < nk; j++)
					if (!strcmp(keys[j], k))
						match = false;
				if (match && nk < 64) {
					right[nk] = r;
					nright += r;
					snprintf(keys[nk++], sizeof(keys[0]), "%s", k);
				}
			}
		}
		/* a two-axis figure says nothing without its right axis */
		if (!nk || (figs[fi].y2label && !nright))
			continue;
		run_path(path, sizeof(path), "%s/plots/data/sweep-%s.dat", dir, figs[fi].stem);
		d = fopen(path, "w");
		if (!d)
			return -errno;
		fprintf(d, "# %s along the sweep: point-index label mean min max (over valid repetitions)\n",
			figs[fi].title);
		for (j = 0; j < nk; j++) {
			fprintf(d, "%s# series %s\n", j ? "\n\n" : "", keys[j]);
			for (i = 0; i < np; i++) {
				json_object *pt = json_object_array_get_idx(points, i), *agg, *o, *mean, *mn, *mx, *lb;
				char label[200], *sp;

				json_object_object_get_ex(pt, "label", &lb);
				snprintf(label, sizeof(label), "%s", *json_object_get_string(lb) ? json_object_get_string(lb) : "-");
				for (sp = label; *sp; sp++)
					if (*sp == ' ' || *sp == '"')
						*sp = '_';
				if (!json_object_object_get_ex(pt, "over_valid_repetitions", &agg) ||
				    !json_object_object_get_ex(agg, keys[j], &o))
					continue;
				json_object_object_get_ex(o, "mean", &mean);
				json_object_object_get_ex(o, "min", &mn);
				json_object_object_get_ex(o, "max", &mx);
				fprintf(d, "%zu \"%s\" %.9g %.9g %.9g\n", i, label, json_object_get_double(mean),
					json_object_get_double(mn), json_object_get_double(mx));
			}
		}
		fclose(d);
		run_path(gp, sizeof(gp), "%s/plots/sweep-%s.gp", dir, figs[fi].stem);
		f = fopen(gp, "w");
		if (!f)
			return -errno;
		fprintf(f, "set terminal pngcairo size 1000,600 font \",10\" noenhanced\nset output \"%s/plots/sweep-%s.png\"\n",
			dir, figs[fi].stem);
		fprintf(f, "set title ");
		gp_quote(f, figs[fi].title);
		fprintf(f, "\nset ylabel ");
		gp_quote(f, figs[fi].ylabel);
		if (figs[fi].y2label) {
			fprintf(f, "\nset y2label ");
			gp_quote(f, figs[fi].y2label);
			fprintf(f, "\nset ytics nomirror\nset y2tics\nset yrange [0:*]\nset y2range [0:*]");
		}
		fprintf(f, "\nset xlabel \"sweep point (mean; bars: min..max over repetitions)\"\nset grid\nset key outside right top\n"
			   "set xrange [-0.5:%zu.5]\nset offsets 0, 0, graph 0.05, graph 0.05\nset xtics rotate by -20\nplot ", np - 1);
		for (j = 0; j < nk; j++) {
			fprintf(f, "%s\"%s\" index %zu using 1:3:4:5:xticlabels(2)%s with yerrorlines title ",
				j ? ", \\\n     " : "", path, j, right[j] ? " axes x1y2" : "");
			gp_quote(f, keys[j]);
		}
		fprintf(f, "\n");
		fclose(f);
		rc = run_gnuplot(gp, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

int plots_make(const char *dir, char *err, size_t errlen)
{
	json_object *sum, *man, *points;
	char path[PATH_MAX];
	struct exp *e = NULL;
	size_t i, j;
	int rc = 0;

	run_path(path, sizeof(path), "%s/summary.json", dir);
	sum = json_object_from_file(path);
	if (!sum || !json_object_object_get_ex(sum, "points", &points)) {
		snprintf(err, errlen, "%s: no summary to plot (pfclab run --report %s makes it)", path, dir);
		json_object_put(sum);
		return -ENOENT;
	}
	run_path(path, sizeof(path), "%s/experiment.yaml", dir);
	if (exp_load(path, &e, err, errlen)) {
		json_object_put(sum);
		return -EINVAL;
	}
	run_path(path, sizeof(path), "%s/manifest.json", dir);
	man = json_object_from_file(path);
	run_path(path, sizeof(path), "%s/plots/data", dir);
	rc = pfc_mkdir_p(path);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		goto out;
	}
	for (i = 0; i < rec_json_len(points) && !rc; i++) {
		json_object *pt = json_object_array_get_idx(points, i), *id, *reps;

		json_object_object_get_ex(pt, "point", &id);
		json_object_object_get_ex(pt, "repetitions", &reps);
		for (j = 0; j < rec_json_len(reps) && !rc; j++) {
			json_object *r;
			char rep[32];

			json_object_object_get_ex(json_object_array_get_idx(reps, j), "repetition", &r);
			snprintf(rep, sizeof(rep), "rep%d", json_object_get_int(r));
			rc = plot_rep(dir, json_object_get_string(id), rep, man, e, err, errlen);
			if (!rc)
				rc = dcqcn_plot(dir, json_object_get_string(id), rep, man, e, err,
						errlen);
		}
	}
	if (!rc && rec_json_len(points) > 1)
		rc = plot_sweep(dir, points, err, errlen);
out:
	json_object_put(man);
	json_object_put(sum);
	exp_free(e);
	return rc;
}
