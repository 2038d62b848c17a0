// SPDX-License-Identifier: GPL-2.0-or-later
/* replay_cap.c: the capture beside a results folder's record, in its replay: the bins of
 * HOST/review-timeline.csv summed up to each sample's wall clock (a bin's counts spread
 * evenly over its width, as the runner's summary takes them per phase), so seen/s and the
 * paused share have a time line; HOST/capture.json's whole-capture counts for what the
 * timeline lacks.
 *
 *   samples      |s0        |s1        |s2 ...        (the record's wall_ns)
 *   bins       [b0][b1][b2][b3][b4][b5][b6] ...       (time_s, one bin wide)
 *   at s1: every bin that ended by s1, plus the part of b3 before s1
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/util.h"
#include "monitor/frames/timeline.h"
#include "monitor/top/replay_cap.h"

#define MAX_TOT 12	/* PFC per priority, PAUSE, CNP, CE-marked RoCEv2 */

/* The timeline's columns put on the samples, and the metric each one is (the metrics a
 * monitor with --frames records: catalog family "frames"). div: the column's unit per
 * the metric's (ns of pause per us).
 */
static const struct tl_metric {
	int col;
	const char *metric, *unit;
	unsigned div;
} tl_metrics[] = {
	{ FRAMES_TL_PAUSE, "capture.pause.frames", "frames", 1 },
	{ FRAMES_TL_CNP, "capture.cnp.frames", "frames", 1 },
	{ FRAMES_TL_CE, "capture.roce.ce_frames", "frames", 1 },
#define PRIO(p) \
	{ FRAMES_TL_PFC_PRIO0 + (p), "capture.pfc.prio" #p ".frames", "frames", 1 }, \
	{ FRAMES_TL_PAUSED0 + (p), "capture.pfc.prio" #p ".paused_us", "us", 1000 }
	PRIO(0), PRIO(1), PRIO(2), PRIO(3), PRIO(4), PRIO(5), PRIO(6), PRIO(7),
#undef PRIO
	{ FRAMES_TL_PAUSED0 + FRAMES_PRIO_PAUSE, "capture.pause.paused_us", "us", 1000 },
	{ FRAMES_TL_PFC, NULL, NULL, 1 },	/* PFC frames of all priorities: see pfc_from */
};
#define NTL ARRAY_SIZE(tl_metrics)

struct rtot {
	char metric[MON_NAME_MAX];
	uint64_t n;
};

struct top_rcap {
	/* capture.json */
	struct rtot tot[MAX_TOT];
	size_t ntot;
	bool have_prio;		/* pfc_frames_per_priority read */
	uint64_t prio[8];
	/* the timeline, when used */
	bool tl;
	uint64_t bin_ns;
	bool valid[NTL];	/* every row gave the column (a paused time may be unknown) */
	int pfc_from[8];	/* priority p's frames: index into tl_metrics, -1: not known,
				 * -2: none (capture.json counted none on p) */
	int pfc_only;		/* the one priority all PFC frames named, from capture.json
				 * (-1: the timeline's own pfc_prioN columns, or none) */
	double pfc_total;	/* the timeline's PFC frames, all priorities */
	double *cum;		/* nrow x NTL: the count up to each sample's wall clock */
	size_t nrow;
	char legend[240], note[240];
};

/* ---- capture.json ------------------------------------------------------------------ */

/* kinds.KEY or arr[i] of capture.json as a count: true when it is a whole number >= 0. */
static bool jcount(json_object *o, uint64_t *v)
{
	if (!o || !json_object_is_type(o, json_type_int) || json_object_get_int64(o) < 0)
		return false;
	*v = (uint64_t)json_object_get_int64(o);
	return true;
}

static void tot_add(struct top_rcap *c, const char *metric, json_object *o)
{
	uint64_t v;

	if (c->ntot < MAX_TOT && jcount(o, &v)) {
		snprintf(c->tot[c->ntot].metric, sizeof(c->tot[0].metric), "%s", metric);
		c->tot[c->ntot++].n = v;
	}
}

/* The frames HOST's capture counted (pfclab capture --json, written beside the record as
 * HOST/capture.json). No file, or one that does not parse, adds nothing.
 */
static void json_load(struct top_rcap *c, const char *path)
{
	static const struct { const char *kind, *metric; } kinds[] = {
		{ "pause", "capture.pause.frames" },
		{ "cnp", "capture.cnp.frames" },
		{ "roce_ce", "capture.roce.ce_frames" },
	};
	json_object *o = json_object_from_file(path), *k, *prio;
	size_t i;

	if (!o)
		return;
	if (json_object_object_get_ex(o, "pfc_frames_per_priority", &prio) &&
	    json_object_is_type(prio, json_type_array) && json_object_array_length(prio) == 8) {
		c->have_prio = true;
		for (i = 0; i < 8; i++) {
			char m[MON_NAME_MAX];
			json_object *v = json_object_array_get_idx(prio, i);

			snprintf(m, sizeof(m), "capture.pfc.prio%zu.frames", i);
			tot_add(c, m, v);
			c->have_prio &= jcount(v, &c->prio[i]);
		}
	}
	if (json_object_object_get_ex(o, "kinds", &k) && json_object_is_type(k, json_type_object))
		for (i = 0; i < ARRAY_SIZE(kinds); i++) {
			json_object *v = NULL;

			json_object_object_get_ex(k, kinds[i].kind, &v);
			tot_add(c, kinds[i].metric, v);
		}
	json_object_put(o);
}

/* ---- the timeline on the samples ----------------------------------------------------- */

struct wk {
	uint64_t wall;
	size_t k;
};

static int cmp_wk(const void *a, const void *b)
{
	const struct wk *x = a, *y = b;

	return x->wall < y->wall ? -1 : x->wall > y->wall;
}

/* Bin [bs, bs + bin) of row: samples before its end get what came before it, plus its
 * share of the bin up to their wall clock; then the bin counts in full.
 */
static void bin_place(struct top_rcap *c, const struct wk *s, size_t n, size_t *p,
		      double run[NTL], const struct frames_tl_row *row, uint64_t bin)
{
	uint64_t bs = row->v[FRAMES_TL_TIME];
	uint64_t be = bs <= UINT64_MAX - bin ? bs + bin : UINT64_MAX;
	size_t j;

	for (; *p < n && s[*p].wall < be; (*p)++) {
		double f = s[*p].wall <= bs ? 0 : (double)(s[*p].wall - bs) / (double)bin;
		double *out = c->cum + s[*p].k * NTL;

		for (j = 0; j < NTL; j++)
			out[j] = run[j] + f * (double)row->v[tl_metrics[j].col];
	}
	for (j = 0; j < NTL; j++) {
		run[j] += (double)row->v[tl_metrics[j].col];
		c->valid[j] &= (row->have >> tl_metrics[j].col) & 1;
	}
}

/* A count as the uint64_t of a snapshot (a sum of 64-bit counts may pass 2^64). */
static uint64_t u64_of(double v)
{
	return v >= 18446744073709551615.0 ? UINT64_MAX : v > 0 ? (uint64_t)v : 0;
}

/* path as a note shows it: its last 96 bytes at most ("..." before), printable only. */
static const char *path_shown(const char *path, char buf[100])
{
	size_t l = strlen(path), i = 0, o = 0;

	if (l > 96) {
		memcpy(buf, "...", 3);
		o = 3;
		i = l - 93;
	}
	for (; path[i]; i++)
		buf[o++] = path[i] >= 0x20 && path[i] < 0x7f ? path[i] : '?';
	buf[o] = '\0';
	return buf;
}

/* The note: "PATH line 7: why" for a line, "PATH: why" for the file; the screen shows
 * the rest of the capture as without the timeline. */
static void tl_note(struct top_rcap *c, const char *path, const char *err)
{
	char p[100];

	snprintf(c->note, sizeof(c->note), "%s%s %.110s; the capture's timeline is not used",
		 path_shown(path, p), strncmp(err, "line ", 5) ? ":" : "", err);
}

/* Reads the timeline at path onto the samples. 0: used; 1: not there or not used (the
 * note, naming the file as shown, says why where there is one to give); -ENOMEM. */
static int tl_load(struct top_rcap *c, const char *path, const char *shown,
		   const uint64_t *wall, size_t nrow)
{
	struct frames_tl_reader r;
	struct frames_tl_row row[2];
	double run[NTL] = { 0 };
	struct wk *s;
	size_t i, p = 0;
	int rc, cur = 0;
	bool pending = false;
	uint64_t tmin = UINT64_MAX, tmax = 0, end;
	char a[32], ps[100];

	if (!nrow)
		return 1;
	rc = frames_tl_open(&r, path);
	if (rc == -ENOENT)
		return 1;
	if (rc) {
		tl_note(c, shown, r.err);
		return 1;
	}
	s = malloc(nrow * sizeof(*s));
	c->cum = calloc(nrow, NTL * sizeof(*c->cum));
	if (!s || !c->cum) {
		frames_tl_close(&r);
		free(s);
		return -ENOMEM;
	}
	for (i = 0; i < nrow; i++) {
		s[i].wall = wall[i];
		s[i].k = i;
		if (wall[i] < tmin)
			tmin = wall[i];
		if (wall[i] > tmax)
			tmax = wall[i];
	}
	qsort(s, nrow, sizeof(*s), cmp_wk);
	for (i = 0; i < NTL; i++)
		c->valid[i] = true;
	/* a row is placed once the next one is read: the second row gives the bin */
	while ((rc = frames_tl_next(&r, &row[cur])) == 1) {
		if (pending)
			bin_place(c, s, nrow, &p, run, &row[cur ^ 1], r.bin_ns);
		pending = true;
		cur ^= 1;
	}
	/* r.bin_ns is 0 for a timeline of a single row: the runner's bin then */
	if (!rc && pending)
		bin_place(c, s, nrow, &p, run, &row[cur ^ 1], r.bin_ns ? r.bin_ns : FRAMES_TL_RUN_BIN_NS);
	for (; p < nrow; p++)
		memcpy(c->cum + s[p].k * NTL, run, sizeof(run));
	frames_tl_close(&r);
	free(s);
	if (rc) {
		tl_note(c, shown, r.err);
		return 1;
	}
	if (!r.rows)
		return 1;	/* a header alone: the capture kept no frame */
	c->bin_ns = r.bin_ns ? r.bin_ns : FRAMES_TL_RUN_BIN_NS;
	c->pfc_total = run[NTL - 1];
	/* rows 0 .. rows - 1 were checked to fit 64 bits; the end of the last may not */
	end = r.t0 + (r.rows - 1) * c->bin_ns;
	end = end <= UINT64_MAX - c->bin_ns ? end + c->bin_ns : UINT64_MAX;
	if (tmax < r.t0 || tmin >= end) {
		fmt_duration_ns(tmin > end ? tmin - end : r.t0 - tmax, a, sizeof(a));
		snprintf(c->note, sizeof(c->note), "%s: its bins and the record's samples are %s "
			 "apart on the wall clock (another run's?); the capture's timeline is not "
			 "used", path_shown(shown, ps), a);
		return 1;
	}
	return 0;	/* columns the header lacks (pfc_prioN) are in no row: not valid */
}

/* PFC frames per priority where the timeline has no pfc_prioN columns: when the capture
 * counted them all on one priority p (capture.json, the same total as the timeline's pfc
 * column), the pfc column is p's and every other priority had none.
 */
static void pfc_derive(struct top_rcap *c)
{
	size_t i, j, only = 8, nz = 0;

	for (i = 0; i < 8; i++)
		c->pfc_from[i] = -1;
	c->pfc_only = -1;
	for (j = 0; j < NTL; j++)
		if (tl_metrics[j].col == FRAMES_TL_PFC_PRIO0 && c->valid[j])
			return;	/* the timeline's own columns */
	if (!c->have_prio)
		return;
	for (i = 0; i < 8; i++)
		if (c->prio[i]) {
			nz++;
			only = i;
		}
	if (nz > 1 || (nz == 1 && (double)c->prio[only] != c->pfc_total) ||
	    (!nz && c->pfc_total != 0))
		return;	/* several priorities, or the two files disagree */
	for (i = 0; i < 8; i++)
		c->pfc_from[i] = i == only ? (int)(NTL - 1) : -2;
	if (nz)
		c->pfc_only = (int)only;
}

/* ---- entry points -------------------------------------------------------------------- */

/* Whether metric is one the timeline gives: then capture.json's total of it is not put. */
static bool tl_gives(const struct top_rcap *c, const char *metric)
{
	size_t j;

	if (!c->tl)
		return false;
	for (j = 0; j < NTL; j++)
		if (tl_metrics[j].metric && !strcmp(tl_metrics[j].metric, metric))
			return c->valid[j] || (tl_metrics[j].col >= FRAMES_TL_PFC_PRIO0 &&
					       c->pfc_from[tl_metrics[j].col -
							   FRAMES_TL_PFC_PRIO0] != -1);
	return false;
}

static void legend_make(struct top_rcap *c)
{
	char bin[32], only[64] = "";
	size_t i, left = 0;

	for (i = 0; i < c->ntot; i++)
		left += !tl_gives(c, c->tot[i].metric);
	if (!c->tl) {
		if (left)
			snprintf(c->legend, sizeof(c->legend), "total*: the whole capture, from "
				 "capture.json (not in the record)");
		return;
	}
	fmt_duration_ns(c->bin_ns, bin, sizeof(bin));
	if (c->pfc_only >= 0)
		snprintf(only, sizeof(only), "; all its PFC on prio %d, as capture.json counts",
			 c->pfc_only);
	snprintf(c->legend, sizeof(c->legend), "*: the capture's, from review-timeline.csv "
		 "(%.20s bins%.60s)%s", bin, only, left ? "; total* of an n/a rate: the whole "
		 "capture, from capture.json" : "");
}

int top_rcap_load(const char *dir, const char *label, bool has_frames, const uint64_t *wall,
		  size_t nrow, struct top_rcap **out)
{
	char host[4200], path[4300], shown[4300];
	size_t l = strlen(dir);
	struct top_rcap *c;
	int rc;

	*out = NULL;
	if (has_frames || (strcmp(dir, "monitor") && (l < 8 || strcmp(dir + l - 8, "/monitor"))))
		return 0;	/* not HOST/monitor, or the record's own frame counters */
	if (l == 7)	/* "monitor": the record in the current folder */
		snprintf(host, sizeof(host), ".");
	else
		snprintf(host, sizeof(host), "%.*s", (int)(l - 8), dir);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->nrow = nrow;
	c->pfc_only = -1;
	snprintf(path, sizeof(path), "%s/capture.json", host);
	json_load(c, path);
	snprintf(path, sizeof(path), "%s/review-timeline.csv", host);
	snprintf(shown, sizeof(shown), "%s/review-timeline.csv", label ? label : host);
	rc = tl_load(c, path, shown, wall, nrow);
	if (rc < 0) {
		top_rcap_free(c);
		return rc;
	}
	c->tl = rc == 0;
	if (!c->tl) {
		free(c->cum);
		c->cum = NULL;
	} else {
		pfc_derive(c);
	}
	legend_make(c);
	if (!c->tl && !c->ntot && !c->note[0]) {
		top_rcap_free(c);
		return 0;
	}
	*out = c;
	return 0;
}

/* One of the timeline's metrics at sample k: the count up to it, the rate since k - 1. */
static int tl_put(const struct top_rcap *c, size_t k, const uint64_t *wall, struct top_snap *o,
		  const char *metric, const char *unit, int j, unsigned div)
{
	uint8_t fl = TOP_M_VALID | TOP_M_COUNTER | TOP_M_BESIDE;
	double v = j >= 0 ? c->cum[k * NTL + (size_t)j] : 0, rate = 0;

	if (k > 0 && wall[k] > wall[k - 1]) {
		double d = j >= 0 ? v - c->cum[(k - 1) * NTL + (size_t)j] : 0;

		if (d >= 0) {
			rate = d / div * 1e9 / (double)(wall[k] - wall[k - 1]);
			fl |= TOP_M_RATE;
		}
	}
	return top_snap_put(o, metric, unit, fl, u64_of(v / div), rate) ? 0 : -ENOMEM;
}

int top_rcap_put(const struct top_rcap *c, size_t k, const uint64_t *wall, struct top_snap *o)
{
	size_t j;
	int rc;

	if (c->tl && k < c->nrow) {
		for (j = 0; j < NTL; j++) {
			const struct tl_metric *t = &tl_metrics[j];

			if (!t->metric || !c->valid[j])
				continue;
			rc = tl_put(c, k, wall, o, t->metric, t->unit, (int)j, t->div);
			if (rc)
				return rc;
		}
		for (j = 0; j < 8; j++) {
			char m[MON_NAME_MAX];

			if (c->pfc_from[j] == -1)
				continue;
			snprintf(m, sizeof(m), "capture.pfc.prio%zu.frames", j);
			rc = tl_put(c, k, wall, o, m, "frames", c->pfc_from[j], 1);
			if (rc)
				return rc;
		}
	}
	for (j = 0; j < c->ntot; j++)
		if (!tl_gives(c, c->tot[j].metric) &&
		    !top_snap_put(o, c->tot[j].metric, "frames", TOP_M_COUNTER | TOP_M_ELSEWHERE,
				  c->tot[j].n, 0))
			return -ENOMEM;
	return 0;
}

const char *top_rcap_legend(const struct top_rcap *c)
{
	return c->legend;
}

const char *top_rcap_note(const struct top_rcap *c)
{
	return c->note;
}

void top_rcap_free(struct top_rcap *c)
{
	if (!c)
		return;
	free(c->cum);
	free(c);
}
