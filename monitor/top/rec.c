// SPDX-License-Identifier: GPL-2.0-or-later
/* rec.c: a remote host's snapshots written as a monitor record: each CSV row and JSON
 * line in one write() on an O_APPEND file (a kill leaves whole lines), meta.json replaced
 * by write-temporary + fsync + rename, a new CSV segment (and a "columns" line in
 * samples.jsonl) when new metrics appear.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/out.h"
#include "lib/util.h"
#include "monitor/recfile.h"
#include "monitor/top/rec.h"

struct top_rec {
	char dir[4096];
	char host[64];
	int csv_fd, jsonl_fd;
	unsigned segment;
	struct top_snap cols;		/* the current segment's columns (names, units) */
	uint64_t samples, interval_ns, prev_ns, started_wall_ns;
	uint64_t overruns_total;	/* the recorded samples' missed intervals */
	bool overruns_lost;		/* a sample did not say: the total is unknown */
	char *line;
	size_t len, cap;
	char err[600];
};

const char *top_rec_error(const struct top_rec *r)
{
	return r->err;
}

static int fail(struct top_rec *r, int rc, const char *what)
{
	snprintf(r->err, sizeof(r->err), "%.300s: %s: %s", r->dir, what, strerror(-rc));
	return rc;
}

static int put(struct top_rec *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int put(struct top_rec *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(r->line + r->len, r->cap - r->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return -EINVAL;
		if ((size_t)n < r->cap - r->len) {
			r->len += (size_t)n;
			return 0;
		}
		{
			size_t nc = (r->cap + (size_t)n + 1) * 2;
			char *p = realloc(r->line, nc);

			if (!p)
				return -ENOMEM;
			r->line = p;
			r->cap = nc;
		}
	}
}

static int meta_write(struct top_rec *r, bool finished)
{
	json_object *m = rec_meta_new(r->host), *cols = json_object_new_array();
	char err[4300];
	size_t i;
	int rc;

	json_object_object_add(m, "recorded_by",
			       json_object_new_string("pfclab top, from the host's "
						      "'pfclab monitor --json --all'"));
	json_object_object_add(m, "interval_ns", json_object_new_uint64(r->interval_ns));
	json_object_object_add(m, "started_wall_ns", json_object_new_uint64(r->started_wall_ns));
	for (i = 0; i < r->cols.n; i++) {
		const struct top_metric *c = &r->cols.m[i];
		char key[MON_KEY_MAX + 80];

		snprintf(key, sizeof(key), "remote:%s:%s", r->host, c->name);
		rec_meta_column(cols, c->name, key, c->name, c->name, c->unit,
				c->flags & TOP_M_COUNTER, 64);
	}
	json_object_object_add(m, "columns", cols);
	/* as the monitor's own record has it: the intervals missed over what was recorded */
	json_object_object_add(m, "overruns_total", r->overruns_lost ? NULL :
			       json_object_new_uint64(r->overruns_total));
	rec_meta_files(m, r->segment, finished, r->samples);
	rc = rec_meta_replace(r->dir, m, err, sizeof(err));
	json_object_put(m);
	if (rc)
		snprintf(r->err, sizeof(r->err), "%.500s: %s", err, strerror(-rc));
	return rc;
}

int top_rec_open(const char *dir, const char *host, struct top_rec **out, char *err,
		 size_t errlen)
{
	struct top_rec *r = calloc(1, sizeof(*r));
	char path[4200];
	int rc;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	snprintf(r->host, sizeof(r->host), "%s", host);
	r->csv_fd = -1;
	r->started_wall_ns = time_real_ns();
	rc = pfc_mkdir_p(dir);
	/* a folder without a record may still hold samples-N.csv of one (its meta.json and
	 * samples.csv removed): they would play as this record's */
	if (!rc)
		rc = rec_segments_clear(dir, path, sizeof(path));
	snprintf(path, sizeof(path), "%s/" REC_JSONL, dir);
	if (!rc) {
		r->jsonl_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
		if (r->jsonl_fd < 0)
			rc = -errno;
	}
	if (!rc)
		rc = meta_write(r, false);
	if (rc) {
		snprintf(err, errlen, "%s: %s", dir, strerror(-rc));
		if (r->jsonl_fd > 0)
			close(r->jsonl_fd);
		free(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* Every metric of s is a column of the segment already? */
static bool same_columns(const struct top_rec *r, const struct top_snap *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!top_snap_get(&r->cols, s->m[i].name))
			return false;
	return true;
}

/* samples.jsonl's "columns" line: the names of the values and rates of the samples after
 * it, in their order (recfile.h). */
static int columns_line(struct top_rec *r)
{
	json_object *o = rec_columns_new();
	size_t i;
	int rc;

	for (i = 0; i < r->cols.n; i++)
		rec_columns_add(o, r->cols.m[i].name, r->cols.m[i].flags & TOP_M_COUNTER);
	r->len = 0;
	rc = put(r, "%s\n", out_json_text(o, false));
	json_object_put(o);
	return rc ? rc : pfc_write_all(r->jsonl_fd, r->line, r->len);
}

static int segment_open(struct top_rec *r, const struct top_snap *s)
{
	char name[32], path[4200];
	size_t i;
	int rc;

	for (i = 0; i < s->n; i++)	/* append the new ones: columns only grow */
		if (!top_snap_get(&r->cols, s->m[i].name) &&
		    !top_snap_put(&r->cols, s->m[i].name, s->m[i].unit, s->m[i].flags, 0, 0))
			return fail(r, -ENOMEM, "columns");
	if (r->csv_fd >= 0)
		close(r->csv_fd);
	r->segment++;
	rec_seg_name(r->segment, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	r->csv_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (r->csv_fd < 0)
		return fail(r, -errno, name);
	r->len = 0;
	put(r, "seq,mono_ns,wall_ns,dt_ns,overruns,gaps");
	for (i = 0; i < r->cols.n; i++)
		put(r, ",%s", r->cols.m[i].name);
	rc = put(r, "\n");
	if (!rc)
		rc = pfc_write_all(r->csv_fd, r->line, r->len);
	if (rc)
		return fail(r, rc, name);
	rc = columns_line(r);
	if (rc)
		return fail(r, rc, REC_JSONL);
	return meta_write(r, false);
}

int top_rec_sample(struct top_rec *r, const struct top_snap *s)
{
	json_object *o, *vals, *rates;
	const char *t;
	size_t i;
	int rc;

	if (!r->interval_ns)
		r->interval_ns = s->interval_ns;
	if (r->csv_fd < 0 || !same_columns(r, s)) {
		rc = segment_open(r, s);
		if (rc)
			return rc;
	}
	r->len = 0;
	put(r, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", s->seq, s->src_ns,
	    s->wall_ns, r->prev_ns && s->src_ns > r->prev_ns ? s->src_ns - r->prev_ns : 0);
	/* the intervals its monitor missed just before it, as the source said */
	if (s->has_missed)
		put(r, "%" PRIu64 ",", s->overruns);
	else
		put(r, "n/a,");
	for (i = 0; i < r->cols.n; i++) {
		const struct top_metric *m = top_snap_get(s, r->cols.m[i].name);

		if (m && (m->flags & TOP_M_VALID))
			put(r, ",%" PRIu64, m->raw);
		else
			put(r, ",n/a");
	}
	rc = put(r, "\n");
	if (!rc)
		rc = pfc_write_all(r->csv_fd, r->line, r->len);
	if (rc)
		return fail(r, rc, "samples.csv");
	o = json_object_new_object();
	vals = json_object_new_array();
	rates = json_object_new_array();
	json_object_object_add(o, "type", json_object_new_string("sample"));
	json_object_object_add(o, "seq", json_object_new_uint64(s->seq));
	json_object_object_add(o, "mono_ns", json_object_new_uint64(s->src_ns));
	json_object_object_add(o, "wall_ns", json_object_new_uint64(s->wall_ns));
	json_object_object_add(o, "overruns", s->has_missed ?
			       json_object_new_uint64(s->overruns) : NULL);
	/* in the order of the "columns" line; null where s has none */
	for (i = 0; i < r->cols.n; i++) {
		const struct top_metric *m = top_snap_get(s, r->cols.m[i].name);

		json_object_array_add(vals, m && (m->flags & TOP_M_VALID) ?
				      json_object_new_uint64(m->raw) : NULL);
		json_object_array_add(rates, m && (m->flags & TOP_M_COUNTER) &&
				      (m->flags & TOP_M_RATE) ? out_json_double(m->rate) : NULL);
	}
	json_object_object_add(o, "values", vals);
	json_object_object_add(o, "rates", rates);
	t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	r->len = 0;
	rc = put(r, "%s\n", t);
	json_object_put(o);
	if (!rc)
		rc = pfc_write_all(r->jsonl_fd, r->line, r->len);
	if (rc)
		return fail(r, rc, REC_JSONL);
	r->prev_ns = s->src_ns;
	r->samples++;
	if (s->has_missed)
		r->overruns_total += s->overruns;
	else
		r->overruns_lost = true;
	return 0;
}

int top_rec_close(struct top_rec *r)
{
	int rc;

	if (!r)
		return 0;
	rc = meta_write(r, true);
	if (r->csv_fd >= 0)
		close(r->csv_fd);
	close(r->jsonl_fd);
	top_snap_free(&r->cols);
	free(r->line);
	free(r);
	return rc;
}
