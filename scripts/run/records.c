// SPDX-License-Identifier: GPL-2.0-or-later
/* records.c: readers of monitor, capture and traffic records left in a point's host folder. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct mon_scan {
	struct rec_monitor *m;
	struct rec_counter *c;
	size_t nc;
	json_object *prev; /* previous sample's values */
	json_object *gauges; /* metric names of the record's gauges (meta.json), or NULL */
	const char *gauge;
	double gsum;
	size_t gn;
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
	if (s->gauge) {
		json_object *g;
		double gv;

		if (json_object_object_get_ex(vals, s->gauge, &g) && rec_json_num(g, &gv)) {
			s->gsum += gv;
			s->gn++;
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

/* The names (metric, else key) of the gauges among a record's columns. */
static json_object *gauges_of(const char *meta)
{
	json_object *m = json_object_from_file(meta), *cols, *g = json_object_new_object();
	size_t i;

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

int rec_monitor_read(const char *dir, struct rec_monitor *m, struct rec_counter *counters,
		     size_t ncounters)
{
	struct mon_scan s = { .m = m, .c = counters, .nc = ncounters };
	char path[1200];
	size_t i;
	int rc;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < ncounters; i++) {
		counters[i].delta = 0;
		counters[i].valid = false;
	}
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	s.gauges = gauges_of(path);
	snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
	rc = rec_jsonl_each(path, mon_line, &s);
	json_object_put(s.prev);
	json_object_put(s.gauges);
	for (i = 0; i < ncounters; i++)	/* a sum that ran out of range is no figure */
		counters[i].valid = counters[i].valid && isfinite(counters[i].delta);
	return rc;
}

bool rec_monitor_gauge_mean(const char *dir, const char *metric, double *mean)
{
	struct rec_monitor m;
	struct mon_scan s = { .m = &m, .gauge = metric };
	char path[1200];

	memset(&m, 0, sizeof(m));
	snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
	if (rec_jsonl_each(path, mon_line, &s)) {
		json_object_put(s.prev);
		return false;
	}
	json_object_put(s.prev);
	if (!s.gn)
		return false;
	*mean = s.gsum / (double)s.gn;
	return isfinite(*mean);
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
