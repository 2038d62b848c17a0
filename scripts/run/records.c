// SPDX-License-Identifier: GPL-2.0-or-later
/* records.c: readers of monitor, capture, review and traffic records left in a point's host
 * folder. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"
#include "monitor/frames/timeline.h"
#include "monitor/recfile.h"
#include "records.h"

const char *rec_json_str(json_object *o)
{
	return o && json_object_is_type(o, json_type_string) ? json_object_get_string(o) : "";
}

bool rec_json_num(json_object *o, double *v)
{
	if (!o || !(json_object_is_type(o, json_type_double) || json_object_is_type(o, json_type_int)))
		return false;
	*v = json_object_get_double(o);
	return isfinite(*v);
}

size_t rec_json_len(json_object *o)
{
	return o && json_object_is_type(o, json_type_array) ? json_object_array_length(o) : 0;
}

json_object *rec_json_member(json_object *o, const char *key, json_type t)
{
	json_object *m;

	return json_object_object_get_ex(o, key, &m) && m && json_object_is_type(m, t) ? m : NULL;
}

bool rec_traffic_name(const char *f, char *phase, size_t pl, char *role, char *peer,
		      size_t peerl)
{
	const char *c = strstr(f, "-client-"), *s = strstr(f, "-server-"), *m, *end;
	size_t l;

	if (strncmp(f, "traffic-", 8))
		return false;
	m = c ? c : s;
	if (!m || !(end = strstr(m + 8, ".jsonl")) || end[6])
		return false;
	while ((c = strstr(m + 1, "-client-")) || (c = strstr(m + 1, "-server-")))
		m = c;
	l = (size_t)(m - (f + 8));
	if (l >= pl)
		return false;
	memcpy(phase, f + 8, l);
	phase[l] = 0;
	memcpy(role, m + 1, 6);
	role[6] = 0;
	snprintf(peer, peerl, "%.*s", (int)(end - (m + 8)), m + 8);
	return true;
}

int rec_jsonl_each(const char *path, void (*fn)(json_object *o, void *arg), void *arg)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		json_object *o = json_tokener_parse(line);

		if (o && json_object_is_type(o, json_type_object))
			fn(o, arg);
		json_object_put(o);
	}
	free(line);
	fclose(f);
	return 0;
}

struct samples_each {
	struct rec_cols cols;
	void (*fn)(json_object *o, void *arg);
	void *arg;
};

static void samples_line(json_object *o, void *arg)
{
	struct samples_each *e = arg;

	if (!rec_line_keyed(&e->cols, o))
		e->fn(o, e->arg);
}

int rec_samples_each(const char *path, void (*fn)(json_object *o, void *arg), void *arg)
{
	struct samples_each e = { .fn = fn, .arg = arg };
	int rc = rec_jsonl_each(path, samples_line, &e);

	rec_cols_free(&e.cols);
	return rc;
}

struct mon_scan {
	struct rec_monitor *m;
	struct rec_counter *c;
	size_t nc;
	json_object *prev; /* previous sample's values */
	json_object *gauges; /* metric names of the record's gauges (meta.json), or NULL */
	struct rec_gauge *g; /* gauges to average */
	size_t ng;
};

static bool metric_match(const char *pat, const char *key)
{
	size_t l = strlen(pat);

	if (l && pat[l - 1] == '*')
		return !strncmp(pat, key, l - 1);
	return !strcmp(pat, key);
}

static void mon_line(json_object *o, void *arg)
{
	struct mon_scan *s = arg;
	json_object *t, *vals, *rates, *dt, *w, *ev;
	double dts;
	size_t i;

	if (!json_object_object_get_ex(o, "type", &t))
		return;
	if (!strcmp(rec_json_str(t), "event")) {
		if (json_object_object_get_ex(o, "event", &ev) &&
		    !strcmp(rec_json_str(ev), "error"))
			s->m->failed = true;
		return;
	}
	if (strcmp(rec_json_str(t), "sample"))
		return;
	if (!(vals = rec_json_member(o, "values", json_type_object)))
		return;
	s->m->samples++;
	if (json_object_object_get_ex(o, "wall_ns", &w)) {
		int64_t wn = json_object_get_int64(w);

		if (!s->m->first_wall_ns)
			s->m->first_wall_ns = wn;
		s->m->last_wall_ns = wn;
	}
	rates = rec_json_member(o, "rates", json_type_object);
	dts = json_object_object_get_ex(o, "dt_ns", &dt) ? (double)json_object_get_int64(dt) / 1e9 : 0;
	for (i = 0; i < s->ng; i++) {
		json_object *g;
		double gv;

		if (json_object_object_get_ex(vals, s->g[i].metric, &g) && rec_json_num(g, &gv)) {
			s->g[i].sum += gv;
			if (!s->g[i].n || gv > s->g[i].max)
				s->g[i].max = gv;
			s->g[i].n++;
		}
	}
	json_object_object_foreach(vals, key, val) {
		json_object *r = NULL, *pv = NULL;
		double rate = 0;
		bool has_rate = rates && json_object_object_get_ex(rates, key, &r) && rec_json_num(r, &rate);

		/* a gauge (a queue's backlog) may go down: that is no reset */
		if (val && s->prev && json_object_object_get_ex(s->prev, key, &pv) && pv && !has_rate &&
		    !(s->gauges && json_object_object_get_ex(s->gauges, key, NULL)) &&
		    json_object_get_uint64(val) < json_object_get_uint64(pv))
			s->m->resets++;
		if (!has_rate)
			continue;
		for (i = 0; i < s->nc; i++) {
			if (!metric_match(s->c[i].metric, key))
				continue;
			s->c[i].delta += rate * dts;
			s->c[i].valid = true;
		}
	}
	/* counters without any rate yet but read: valid with delta 0 only once a second
	 * sample exists, which the rate above covers; keep the values for the reset check */
	json_object_put(s->prev);
	s->prev = json_object_get(vals);
}

/* A count in meta.json: an integer, as rec_json_count takes it. */
static bool meta_count(json_object *m, const char *key, uint64_t *v)
{
	double d;

	if (!rec_json_count(rec_json_member(m, key, json_type_int), &d))
		return false;
	*v = (uint64_t)d;
	return true;
}

/* What the summary takes from a record's meta.json, in one parse: the names (metric,
 * else key) of the gauges among its columns, returned, and into m its missed intervals
 * and the machine's steal time. */
static json_object *meta_scan(const char *meta, struct rec_monitor *mon)
{
	json_object *m = json_object_from_file(meta), *cols, *g = json_object_new_object();
	size_t i;

	mon->missed_valid = meta_count(m, "overruns_total", &mon->missed);
	mon->steal_valid = meta_count(m, "host_steal_ns", &mon->steal_ns);

	if (m && json_object_object_get_ex(m, "columns", &cols))
		for (i = 0; i < rec_json_len(cols); i++) {
			json_object *c = json_object_array_get_idx(cols, i), *k, *n;

			if (!json_object_object_get_ex(c, "kind", &k) || strcmp(rec_json_str(k), "gauge") ||
			    !json_object_object_get_ex(c, "name", &n) || !*rec_json_str(n))
				continue;
			json_object_object_add(g, json_object_get_string(n), NULL);
		}
	json_object_put(m);
	return g;
}

int rec_monitor_format(const char *dir, char *why, size_t len)
{
	json_object *m, *f;
	char path[1200], fmt[80], ver[80];
	const char *s;
	int rc = 0;

	if (len)
		*why = '\0';
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	if (access(path, F_OK))
		return -errno;
	m = json_object_from_file(path);
	if (!m || !json_object_is_type(m, json_type_object)) {
		snprintf(why, len, "not a JSON object (cut short, or not a pfclab monitor record?)");
		json_object_put(m);
		return -EINVAL;
	}
	/* as top --replay reads a record: a "format" there must be one this pfclab reads
	 * (recfile.h); a meta.json without one is taken as it is */
	if (json_object_object_get_ex(m, "format", &f) &&
	    (!json_object_is_type(f, json_type_string) ||
	     !rec_format_known(json_object_get_string(f)))) {
		s = json_object_to_json_string_ext(f, JSON_C_TO_STRING_PLAIN);
		if (json_object_is_type(f, json_type_string))
			s = json_object_get_string(f);
		rec_text_clean(s, strlen(s), fmt, sizeof(fmt));
		s = rec_json_str(rec_json_member(m, "pfclab_version", json_type_string));
		rec_text_clean(s, strlen(s), ver, sizeof(ver));
		snprintf(why, len, "format '%s', not the %s this pfclab reads (written by pfclab %s)",
			 fmt, REC_FORMATS_READ, *ver ? ver : "of unknown version");
		rc = -EPROTO;
	}
	json_object_put(m);
	return rc;
}

int rec_monitor_read_gauges(const char *dir, struct rec_monitor *m, struct rec_counter *counters,
			    size_t ncounters, struct rec_gauge *gauges, size_t ngauges)
{
	struct mon_scan s = { .m = m, .c = counters, .nc = ncounters, .g = gauges, .ng = ngauges };
	char path[1200];
	size_t i;
	int rc;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < ncounters; i++) {
		counters[i].delta = 0;
		counters[i].valid = false;
	}
	for (i = 0; i < ngauges; i++) {
		gauges[i].sum = 0;
		gauges[i].max = 0;
		gauges[i].n = 0;
	}
	rc = rec_monitor_format(dir, path, sizeof(path));
	if (rc && rc != -ENOENT)
		return rc;	/* another format: none of it is read as this one */
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	s.gauges = meta_scan(path, m);
	snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
	rc = rec_samples_each(path, mon_line, &s);
	json_object_put(s.prev);
	json_object_put(s.gauges);
	for (i = 0; i < ncounters; i++)	/* a sum that ran out of range is no figure */
		counters[i].valid = counters[i].valid && isfinite(counters[i].delta);
	return rc;
}

int rec_monitor_read(const char *dir, struct rec_monitor *m, struct rec_counter *counters,
		     size_t ncounters)
{
	return rec_monitor_read_gauges(dir, m, counters, ncounters, NULL, 0);
}

bool rec_gauge_mean(const struct rec_gauge *g, double *mean)
{
	if (!g->n)
		return false;
	*mean = g->sum / (double)g->n;
	return isfinite(*mean);
}

bool rec_monitor_gpu_index(const char *dir, int *idx)
{
	char path[1200];
	json_object *o, *srcs;
	bool ok = false, bad = false;
	size_t i;

	if (rec_monitor_format(dir, path, sizeof(path)))
		return false;
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	o = json_object_from_file(path);
	srcs = rec_json_member(o, "sources", json_type_array);
	for (i = 0; srcs && i < json_object_array_length(srcs); i++) {
		const char *d = rec_json_str(rec_json_member(json_object_array_get_idx(srcs, i),
							    "device", json_type_string));
		uint32_t u;

		if (strncmp(d, "gpu", 3) || parse_u32(d + 3, 0, 1023, &u))
			continue;
		bad |= ok && *idx != (int)u;
		*idx = (int)u;
		ok = true;
	}
	json_object_put(o);
	return ok && !bad;
}

bool rec_capture_drops(const char *path, uint64_t *drops)
{
	json_object *o = json_object_from_file(path), *ifs;
	bool ok = false;
	size_t i;

	*drops = 0;
	if ((ifs = rec_json_member(o, "interfaces", json_type_array))) {
		ok = true;
		for (i = 0; i < json_object_array_length(ifs); i++) {
			json_object *d;

			if (json_object_object_get_ex(json_object_array_get_idx(ifs, i), "kernel_drops", &d) && d)
				*drops += json_object_get_uint64(d);
		}
	}
	json_object_put(o);
	return ok;
}

/* A count a host wrote: a finite number, not negative, within int64 (so a sum of them is
 * checked against that bound before it is written as JSON). */
bool rec_json_count(json_object *o, double *v)
{
	return rec_json_num(o, v) && *v >= 0 && *v < 9.2e18;
}

/* One count of files[] summed into *sum, valid once a file gives it; a sum past int64 is
 * no figure. */
static void count_add(json_object *file, const char *key, uint64_t *sum, bool *valid,
		      bool *broken)
{
	json_object *x = NULL;
	double v;

	if (!json_object_object_get_ex(file, key, &x) || !rec_json_count(x, &v))
		return;
	if ((double)*sum + v >= 9.2e18) {
		*broken = true;
		return;
	}
	*sum += (uint64_t)v;
	*valid = true;
}

static void review_files(json_object *files, struct rec_review *r)
{
	bool broken[4] = { false, false, false, false };
	size_t i;

	for (i = 0; i < rec_json_len(files); i++) {
		json_object *f = json_object_array_get_idx(files, i), *x;
		double v;

		if (!json_object_is_type(f, json_type_object))
			continue;
		count_add(f, "reordered", &r->reordered, &r->reordered_valid, &broken[0]);
		count_add(f, "late_frames", &r->late_frames, &r->late_valid, &broken[1]);
		count_add(f, "bad_timestamps", &r->bad_timestamps, &r->bad_ts_valid, &broken[2]);
		count_add(f, "frames_without_time", &r->untimed, &r->untimed_valid, &broken[3]);
		json_object_object_get_ex(f, "max_backstep_s", &x);
		if (rec_json_num(x, &v) && v >= 0) {
			if (!r->backstep_valid || v > r->max_backstep_s)
				r->max_backstep_s = v;
			r->backstep_valid = true;
		}
		if ((x = rec_json_member(f, "ecn_filter", json_type_string))) {
			char name[sizeof(r->ecn_filter)];

			rec_text_clean(json_object_get_string(x), (size_t)json_object_get_string_len(x),
				       name, sizeof(name));
			if (!r->ecn_filter[0])
				memcpy(r->ecn_filter, name, sizeof(name));
			else if (strcmp(r->ecn_filter, name))
				snprintf(r->ecn_filter, sizeof(r->ecn_filter), "mixed");
		}
	}
	r->reordered_valid &= !broken[0];
	r->late_valid &= !broken[1];
	r->bad_ts_valid &= !broken[2];
	r->untimed_valid &= !broken[3];
}

/* CE marks and the CE share over the flows. A flow's share null (review: its capture
 * filter chose packets by ECN, so the packets it left out were never counted) makes the
 * whole share n/a, with review's reason; a flow that gives no share at all (a review from
 * before ce_share) makes it n/a with none. */
static void review_flows(json_object *flows, struct rec_review *r)
{
	double ce = 0, share_ce = 0, share_pk = 0, v, pk;
	bool ce_ok = true, share_ok = true;
	size_t i, n = rec_json_len(flows);

	r->has_flows = json_object_is_type(flows, json_type_array);
	if (!r->has_flows)
		return;
	for (i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(flows, i), *x, *na;

		if (json_object_object_get_ex(f, "ce", &x) && ce_ok) {
			ce_ok = rec_json_count(x, &v);
			ce += ce_ok ? v : 0;
		}
		if (!share_ok)
			continue;
		json_object_object_get_ex(f, "ce_share", &x);
		if (rec_json_num(x, &v) && json_object_object_get_ex(f, "packets", &x) &&
		    rec_json_count(x, &pk) && json_object_object_get_ex(f, "ce", &x) && rec_json_count(x, &v) &&
		    v <= pk) {
			share_ce += v;
			share_pk += pk;
			continue;
		}
		share_ok = false;
		if ((na = rec_json_member(f, "ce_share_na", json_type_string)))
			rec_text_clean(json_object_get_string(na), (size_t)json_object_get_string_len(na),
				       r->ce_share_na, sizeof(r->ce_share_na));
	}
	r->ce_valid = ce_ok && ce < 9.2e18;
	r->ce = r->ce_valid ? (uint64_t)ce : 0;
	if (!n)
		snprintf(r->ce_share_na, sizeof(r->ce_share_na), "no RoCEv2 packets captured");
	r->share_valid = share_ok && n && share_pk > 0 && share_pk < 9.2e18;
	if (r->share_valid)
		r->ce_share = share_ce / share_pk;
}

void rec_review_scan(json_object *rv, struct rec_review *r)
{
	json_object *flows = NULL;

	memset(r, 0, sizeof(*r));
	if (!json_object_is_type(rv, json_type_object))
		return;
	review_files(rec_json_member(rv, "files", json_type_array), r);
	json_object_object_get_ex(rv, "ecn_flows", &flows);
	review_flows(flows, r);
}

int rec_review_read(const char *path, struct rec_review *r)
{
	json_object *rv = json_object_from_file(path);
	int rc = 0;

	if (!rv)
		rc = access(path, F_OK) ? -ENOENT : -EINVAL;
	else if (!json_object_is_type(rv, json_type_object))
		rc = -EINVAL;
	rec_review_scan(rc ? NULL : rv, r);
	json_object_put(rv);
	return rc;
}

/* A row of the reader as the runner keeps it: the columns it uses, a paused time left
 * empty (no link speed) not known. */
static void tl_row_put(struct rec_tl_row *o, const struct frames_tl_row *row)
{
	static const int col[REC_TL_PAUSED0] = {
		[REC_TL_PAUSE] = FRAMES_TL_PAUSE, [REC_TL_PFC] = FRAMES_TL_PFC,
		[REC_TL_CNP] = FRAMES_TL_CNP, [REC_TL_CE] = FRAMES_TL_CE,
	};
	int k, c;

	_Static_assert(REC_TL_NPAUSED == FRAMES_NPRIO, "a paused time per priority and PAUSE");
	memset(o, 0, sizeof(*o));
	o->t_ns = row->v[FRAMES_TL_TIME];
	for (k = 0; k < REC_TL_N; k++) {
		c = k < REC_TL_PAUSED0 ? col[k] : FRAMES_TL_PAUSED0 + (k - REC_TL_PAUSED0);
		if (row->have & (UINT64_C(1) << c)) {
			o->v[k] = (double)row->v[c];
			o->have[k] = true;
		}
	}
}

int rec_timeline_read(const char *path, struct rec_timeline *tl, char *err, size_t errlen)
{
	struct frames_tl_reader r;
	struct frames_tl_row row;
	struct rec_tl_row *nr;
	size_t cap = 0;
	int rc;

	memset(tl, 0, sizeof(*tl));
	tl->bin_s = (double)FRAMES_TL_RUN_BIN_NS / 1e9;
	snprintf(err, errlen, "%s", "");
	rc = frames_tl_open(&r, path);
	if (rc) {
		snprintf(err, errlen, "%s", r.err);	/* empty for -ENOENT */
		return rc;
	}
	while ((rc = frames_tl_next(&r, &row)) == 1) {
		if (tl->n == cap) {
			size_t nc = cap ? 2 * cap : 256;

			nr = realloc(tl->rows, nc * sizeof(*nr));
			if (!nr) {
				rc = -ENOMEM;
				snprintf(err, errlen, "line %" PRIu64 ": out of memory", r.line);
				break;
			}
			tl->rows = nr;
			cap = nc;
		}
		tl_row_put(&tl->rows[tl->n++], &row);
	}
	frames_tl_close(&r);
	if (rc) {
		if (rc != -ENOMEM)
			snprintf(err, errlen, "%s", r.err);
		rec_timeline_free(tl);
		return rc;
	}
	if (r.bin_ns)
		tl->bin_s = (double)r.bin_ns / 1e9;
	return 0;
}

void rec_timeline_free(struct rec_timeline *tl)
{
	free(tl->rows);
	tl->rows = NULL;
	tl->n = 0;
}

static void dir_add(json_object *d, double *bytes, double *secs, uint64_t *errors, bool *valid)
{
	json_object *b, *s, *e;
	double bv, sv;

	if (!d)
		return;
	if (json_object_object_get_ex(d, "bytes", &b) && json_object_object_get_ex(d, "seconds", &s) &&
	    rec_json_num(b, &bv) && rec_json_num(s, &sv) && bv >= 0 && sv >= 0) {
		*bytes += bv;
		*secs += sv;
		*valid = true;
	}
	if (json_object_object_get_ex(d, "errors", &e) && e)
		*errors += json_object_get_uint64(e);
}

static void traffic_line(json_object *o, void *arg)
{
	struct rec_traffic *t = arg;
	json_object *ty, *tx = NULL, *rx = NULL, *left = NULL;

	if (!json_object_object_get_ex(o, "type", &ty) || strcmp(rec_json_str(ty), "summary"))
		return;
	t->has_summary = true;
	json_object_object_get_ex(o, "tx", &tx);
	json_object_object_get_ex(o, "rx", &rx);
	dir_add(tx, &t->tx_bytes, &t->tx_secs, &t->errors, &t->tx_valid);
	dir_add(rx, &t->rx_bytes, &t->rx_secs, &t->errors, &t->rx_valid);
	if (json_object_object_get_ex(o, "in_flight", &left) && json_object_is_type(left, json_type_int))
		t->in_flight += json_object_get_uint64(left);
}

int rec_traffic_read(const char *path, struct rec_traffic *t)
{
	int rc;

	memset(t, 0, sizeof(*t));
	rc = rec_jsonl_each(path, traffic_line, t);
	if (t->tx_valid && t->tx_secs > 0)
		t->tx_gbps = t->tx_bytes * 8 / t->tx_secs / 1e9;
	t->tx_valid = t->tx_valid && t->tx_secs > 0 && isfinite(t->tx_gbps);
	if (t->rx_valid && t->rx_secs > 0)
		t->rx_gbps = t->rx_bytes * 8 / t->rx_secs / 1e9;
	t->rx_valid = t->rx_valid && t->rx_secs > 0 && isfinite(t->rx_gbps);
	return rc;
}

size_t rec_utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

size_t rec_text_clean(const char *in, size_t n, char *out, size_t len)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, o = 0, l, w, keep = 0; /* keep: where "..." goes if it comes to that */

	if (len < 4) {
		if (len)
			out[0] = 0;
		return 0;
	}
	while (i < n) {
		l = rec_utf8_len(s + i, n - i);
		w = l ? l : 1;
		if (o + w > len - 1) {
			memcpy(out + keep, "...", 3);
			o = keep + 3;
			break;
		}
		if (!l)
			out[o] = '?';
		else if (l == 1)
			out[o] = s[i] < 0x20 || s[i] == 0x7f ? ' ' : (char)s[i];
		else
			memcpy(out + o, s + i, l);
		o += w;
		i += w;
		if (o <= len - 4)
			keep = o;
	}
	out[o] = 0;
	return o;
}

/* pfclab's own lines on standard error that say how a run goes, not what went wrong:
 * "pfclab CMD" and then one of these. */
static const char *const progress_lines[] = {
	": warning: ",			/* taken only when nothing else is there */
	": listening on ",		/* capture: it has started */
	": waiting for a client on ",	/* traffic server */
	": wrote ",			/* inject -w: the frames written */
	": sent ",			/* inject: the frames sent */
	": answering ",			/* inject cnp-on-ce */
	": PFC on ",			/* inject pfc-on-backlog */
};

/* 0 a line that says what went wrong, 1 a warning, 2 progress or blank. */
static int err_line_rank(const char *l, size_t n)
{
	const char *colon;
	size_t i;

	while (n && (*l == ' ' || *l == '\t' || *l == '\r'))
		l++, n--;
	while (n && (l[n - 1] == ' ' || l[n - 1] == '\t' || l[n - 1] == '\r'))
		n--;
	if (!n)
		return 2;
	if (n < 8 || strncmp(l, "pfclab ", 7) || !(colon = memchr(l, ':', n)))
		return 0;
	for (i = 0; i < ARRAY_SIZE(progress_lines); i++) {
		size_t pl = strlen(progress_lines[i]);

		if ((size_t)(l + n - colon) >= pl && !memcmp(colon, progress_lines[i], pl))
			return i ? 2 : 1;
	}
	return 0;
}

int rec_err_line(const char *path, char *buf, size_t len)
{
	char text[65536];
	const char *p, *end, *best = NULL;
	size_t n, best_n = 0;
	int best_rank = 2;
	FILE *f = fopen(path, "rb");

	if (!f)
		return -errno;
	n = fread(text, 1, sizeof(text), f);
	fclose(f);
	for (p = text; p < text + n && best_rank; p = end + 1) {
		int rank;

		end = memchr(p, '\n', (size_t)(text + n - p));
		if (!end)
			end = text + n;
		rank = err_line_rank(p, (size_t)(end - p));
		if (rank < best_rank) {
			best = p;
			best_n = (size_t)(end - p);
			best_rank = rank;
		}
	}
	if (!best)
		return -ENODATA;
	while (best_n && (*best == ' ' || *best == '\t'))
		best++, best_n--;
	while (best_n && (best[best_n - 1] == ' ' || best[best_n - 1] == '\t' ||
			  best[best_n - 1] == '\r'))
		best_n--;
	rec_text_clean(best, best_n, buf, len);
	return 0;
}

static void clean_member(json_object *e, const char *key, char *buf, size_t len)
{
	const char *v = rec_json_str(rec_json_member(e, key, json_type_string));

	rec_text_clean(v, strlen(v), buf, len);
}

void rec_error_text(json_object *e, char *buf, size_t len)
{
	char host[80], file[160], how[80], msg[REC_ERR_LINE];

	clean_member(e, "host", host, sizeof(host));
	clean_member(e, "file", file, sizeof(file));
	clean_member(e, "failure", how, sizeof(how));
	clean_member(e, "message", msg, sizeof(msg));
	snprintf(buf, len, "host %s, %s (%s): %s", host, file, *how ? how : "failed",
		 *msg ? msg : "no error line in it");
}

size_t rec_errors_show(json_object *errs, void (*fn)(const char *line, void *arg), void *arg)
{
	size_t i, n = rec_json_len(errs);
	char line[REC_ERR_LINE + 400];

	for (i = 0; i < n && i < REC_ERRORS_SHOWN; i++) {
		rec_error_text(json_object_array_get_idx(errs, i), line, sizeof(line));
		fn(line, arg);
	}
	return n > REC_ERRORS_SHOWN ? n - REC_ERRORS_SHOWN : 0;
}

void run_tv_push(double **t, double **v, size_t *n, size_t *cap, double tt, double vv)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		double *nt = realloc(*t, nc * sizeof(*nt)), *nv;

		if (!nt)
			return;
		*t = nt;
		nv = realloc(*v, nc * sizeof(*nv));
		if (!nv)
			return;
		*v = nv;
		*cap = nc;
	}
	(*t)[*n] = tt;
	(*v)[(*n)++] = vv;
}
