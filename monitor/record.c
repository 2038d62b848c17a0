// SPDX-License-Identifier: GPL-2.0-or-later
/* record.c: writes a monitor run to a folder so that a kill -9 at any moment leaves
 * every complete line parseable: each CSV row and JSON line is built in memory and
 * handed to the kernel in one write() on an O_APPEND file; meta.json is replaced by
 * write-to-temporary, fsync, rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/out.h"
#include "lib/util.h"
#include "monitor/record.h"
#include "version.h" /* generated: $(BUILD)/gen */

struct mon_rec {
	struct mon_engine *e;
	char dir[4096];
	int csv_fd;
	int jsonl_fd;
	unsigned layout;	/* engine layout the current CSV segment was written for */
	unsigned segment;	/* 1 = samples.csv, 2 = samples-2.csv ... */
	size_t csv_ncol;	/* columns in the current segment */
	char *line;
	size_t cap, len;
	uint64_t samples, events, gaps;
	uint64_t first_wall_ns;
	const struct mon_sample *last;
	json_object *argv;
	/* The JSON line of a sample is built once per layout and updated in place each
	 * sample (no allocation per value): tmpl holds values{} and rates{}, and jv/jr the
	 * per-column number objects (NULL while the value is null).
	 */
	json_object *tmpl, *jvals, *jrates;
	json_object **jv, **jr;
	size_t jn;
	char err[512];
};

const char *mon_rec_error(const struct mon_rec *r)
{
	return r->err;
}

static int rec_fail(struct mon_rec *r, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int rec_fail(struct mon_rec *r, int rc, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(r->err))
		snprintf(r->err + n, sizeof(r->err) - (size_t)n, ": %s", strerror(-rc));
	return rc;
}

static int line_put(struct mon_rec *r, const char *s, size_t n)
{
	if (r->len + n + 1 > r->cap) {
		size_t ncap = (r->len + n + 1) * 2;
		char *p = realloc(r->line, ncap);

		if (!p)
			return -ENOMEM;
		r->line = p;
		r->cap = ncap;
	}
	memcpy(r->line + r->len, s, n);
	r->len += n;
	r->line[r->len] = '\0';
	return 0;
}

static int line_printf(struct mon_rec *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int line_printf(struct mon_rec *r, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	return line_put(r, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* One complete line in one write(); a short write is finished, never interleaved. */
static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* CSV-safe: our names never hold commas or quotes, but keep the file parseable anyway. */
static int csv_field(struct mon_rec *r, const char *s)
{
	if (!strpbrk(s, ",\"\n"))
		return line_put(r, s, strlen(s));
	line_put(r, "\"", 1);
	for (; *s; s++) {
		if (*s == '"')
			line_put(r, "\"", 1);
		if (*s != '\n')
			line_put(r, s, 1);
	}
	return line_put(r, "\"", 1);
}

/* The CSV/JSON name of column i: its metric when catalogued and unique, else its key. */
static const char *col_name(const struct mon_col *cols, size_t n, size_t i)
{
	size_t j;

	if (!cols[i].metric[0])
		return cols[i].key;
	for (j = 0; j < n; j++)
		if (j != i && !strcmp(cols[j].metric, cols[i].metric))
			return cols[i].key;
	return cols[i].metric;
}

static void seg_name(unsigned seg, char *buf, size_t n)
{
	if (seg <= 1)
		snprintf(buf, n, "samples.csv");
	else
		snprintf(buf, n, "samples-%u.csv", seg);
}

static int meta_write(struct mon_rec *r, bool finished)
{
	json_object *m = json_object_new_object(), *srcs = json_object_new_array();
	json_object *cols = json_object_new_array(), *segs = json_object_new_array();
	const struct mon_col *c;
	struct utsname u;
	char host[256] = "", path[4200], tmp[4200], name[32];
	const char *txt;
	size_t i, n;
	unsigned k;
	int fd, rc;

	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	uname(&u);
	json_object_object_add(m, "format", json_object_new_string("pfclab-monitor-1"));
	json_object_object_add(m, "pfclab_version", json_object_new_string(PFCLAB_VERSION));
	json_object_object_add(m, "host", json_object_new_string(host));
	json_object_object_add(m, "kernel", json_object_new_string(u.release));
	json_object_object_add(m, "machine", json_object_new_string(u.machine));
	json_object_object_add(m, "interval_ns",
			       json_object_new_uint64(mon_engine_interval(r->e)));
	json_object_object_add(m, "started_wall_ns", json_object_new_uint64(r->first_wall_ns));
	if (r->argv)
		json_object_object_add(m, "argv", json_object_get(r->argv));
	for (i = 0; i < mon_engine_nsrc(r->e); i++) {
		const struct mon_src *s = mon_engine_src(r->e, i);
		json_object *o = json_object_new_object(), *info = json_object_new_object();
		enum mon_src_state st = mon_engine_src_state(r->e, i);
		size_t j;

		json_object_object_add(o, "source", json_object_new_string(s->ops->name));
		json_object_object_add(o, "what", json_object_new_string(s->ops->what));
		json_object_object_add(o, "device", json_object_new_string(s->dev));
		json_object_object_add(o, "driver", json_object_new_string(s->driver));
		json_object_object_add(o, "state", json_object_new_string(
			st == MON_SRC_OK ? "ok" : st == MON_SRC_GAP ? "gap" : "unsupported"));
		if (s->err[0])
			json_object_object_add(o, "last_error", json_object_new_string(s->err));
		for (j = 0; j < s->ninfo; j++)
			json_object_object_add(info, s->info[j][0],
					       json_object_new_string(s->info[j][1]));
		json_object_object_add(o, "info", info);
		json_object_array_add(srcs, o);
	}
	json_object_object_add(m, "sources", srcs);
	c = mon_engine_cols(r->e, &n);
	for (i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(col_name(c, n, i)));
		json_object_object_add(o, "key", json_object_new_string(c[i].key));
		json_object_object_add(o, "metric", c[i].metric[0] ?
				       json_object_new_string(c[i].metric) : NULL);
		json_object_object_add(o, "raw", json_object_new_string(c[i].raw));
		json_object_object_add(o, "unit", json_object_new_string(c[i].unit));
		json_object_object_add(o, "kind", json_object_new_string(
			c[i].kind == MON_COUNTER ? "counter" : "gauge"));
		json_object_object_add(o, "bits", json_object_new_int(c[i].width));
		json_object_array_add(cols, o);
	}
	json_object_object_add(m, "columns", cols);
	for (k = 1; k <= r->segment; k++) {
		seg_name(k, name, sizeof(name));
		json_object_array_add(segs, json_object_new_string(name));
	}
	json_object_object_add(m, "csv_segments", segs);
	json_object_object_add(m, "jsonl", json_object_new_string("samples.jsonl"));
	json_object_object_add(m, "finished", json_object_new_boolean(finished));
	json_object_object_add(m, "samples", json_object_new_uint64(r->samples));
	json_object_object_add(m, "gap_events", json_object_new_uint64(r->gaps));
	json_object_object_add(m, "overruns_total",
			       json_object_new_uint64(r->last ? r->last->overruns_total : 0));
	txt = out_json_text(m, true);
	snprintf(path, sizeof(path), "%s/meta.json", r->dir);
	snprintf(tmp, sizeof(tmp), "%s/.meta.json.tmp", r->dir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		json_object_put(m);
		return rec_fail(r, rc, "%s", tmp);
	}
	rc = write_all(fd, txt, strlen(txt));
	if (!rc)
		rc = write_all(fd, "\n", 1);
	if (!rc && fsync(fd))
		rc = -errno;
	close(fd);
	json_object_put(m);
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		return rec_fail(r, rc, "writing %s", path);
	fd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	return 0;
}

static void tmpl_free(struct mon_rec *r);

static int csv_segment_open(struct mon_rec *r)
{
	const struct mon_col *c;
	char name[32], path[4200];
	size_t i, n;
	int rc;

	if (r->csv_fd >= 0)
		close(r->csv_fd);
	tmpl_free(r);	/* the JSON template follows the new layout */
	r->segment++;
	seg_name(r->segment, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	r->csv_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (r->csv_fd < 0)
		return rec_fail(r, -errno, "%s", path);
	c = mon_engine_cols(r->e, &n);
	r->len = 0;
	line_printf(r, "seq,mono_ns,wall_ns,dt_ns,overruns,gaps");
	for (i = 0; i < n; i++) {
		line_put(r, ",", 1);
		csv_field(r, col_name(c, n, i));
	}
	line_put(r, "\n", 1);
	rc = write_all(r->csv_fd, r->line, r->len);
	if (rc)
		return rec_fail(r, rc, "%s", path);
	r->csv_ncol = n;
	r->layout = mon_engine_layout(r->e);
	return meta_write(r, false);
}

/* mkdir -p: the run folder may be new, with new parents. */
static int mkdir_p(const char *dir)
{
	char tmp[4096];
	char *p;

	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int mon_rec_open(const char *dir, struct mon_engine *e, int argc, char **argv,
		 struct mon_rec **out)
{
	struct mon_rec *r = calloc(1, sizeof(*r));
	char path[4200];
	int i, rc;

	if (!r)
		return -ENOMEM;
	*out = r;
	r->e = e;
	r->csv_fd = r->jsonl_fd = -1;
	r->first_wall_ns = time_real_ns();
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	rc = mkdir_p(dir);
	if (rc)
		return rec_fail(r, rc, "creating run folder %s", dir);
	if (argv) {
		r->argv = json_object_new_array();
		for (i = 0; i < argc; i++)
			json_object_array_add(r->argv, json_object_new_string(argv[i]));
	}
	snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
	r->jsonl_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (r->jsonl_fd < 0)
		return rec_fail(r, -errno, "%s", path);
	rc = csv_segment_open(r);
	return rc;
}

static int jsonl_write(struct mon_rec *r, json_object *o)
{
	const char *t = out_json_text(o, false);
	int rc;

	r->len = 0;
	line_put(r, t, strlen(t));
	rc = line_put(r, "\n", 1);
	if (!rc)
		rc = write_all(r->jsonl_fd, r->line, r->len);
	if (rc)
		return rec_fail(r, rc, "%s/samples.jsonl", r->dir);
	return 0;
}

static void gaps_text(struct mon_rec *r, const struct mon_sample *s, char *buf, size_t n)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < mon_engine_nsrc(r->e) && o + 1 < n; i++) {
		const struct mon_src *src = mon_engine_src(r->e, i);
		int w;

		if (!(s->gap_mask & (1u << i)))
			continue;
		w = snprintf(buf + o, n - o, "%s%s:%s", o ? ";" : "", src->ops->name, src->dev);
		if (w < 0)
			break;
		o += (size_t)w;
	}
	if (o >= n)
		buf[n - 1] = '\0';
}

static const char rate_fmt[] = "%.10g";

static void tmpl_free(struct mon_rec *r)
{
	if (r->tmpl)
		json_object_put(r->tmpl);
	free(r->jv);
	free(r->jr);
	r->tmpl = r->jvals = r->jrates = NULL;
	r->jv = r->jr = NULL;
	r->jn = 0;
}

static int tmpl_build(struct mon_rec *r)
{
	const struct mon_col *c;
	size_t i, n;

	tmpl_free(r);
	c = mon_engine_cols(r->e, &n);
	r->jv = calloc(n ? n : 1, sizeof(*r->jv));
	r->jr = calloc(n ? n : 1, sizeof(*r->jr));
	if (!r->jv || !r->jr)
		return rec_fail(r, -ENOMEM, "recording");
	r->tmpl = json_object_new_object();
	r->jvals = json_object_new_object();
	r->jrates = json_object_new_object();
	json_object_object_add(r->tmpl, "type", json_object_new_string("sample"));
	json_object_object_add(r->tmpl, "seq", json_object_new_uint64(0));
	json_object_object_add(r->tmpl, "mono_ns", json_object_new_uint64(0));
	json_object_object_add(r->tmpl, "wall_ns", json_object_new_uint64(0));
	json_object_object_add(r->tmpl, "dt_ns", json_object_new_uint64(0));
	json_object_object_add(r->tmpl, "overruns", json_object_new_uint64(0));
	json_object_object_add(r->tmpl, "gaps", json_object_new_array());
	/* Every column has its key from the start (null until read), in column order. */
	for (i = 0; i < n; i++) {
		json_object_object_add(r->jvals, col_name(c, n, i), NULL);
		if (c[i].kind == MON_COUNTER)
			json_object_object_add(r->jrates, col_name(c, n, i), NULL);
	}
	json_object_object_add(r->tmpl, "values", r->jvals);
	json_object_object_add(r->tmpl, "rates", r->jrates);
	r->jn = n;
	return 0;
}

int mon_rec_sample(struct mon_rec *r, const struct mon_sample *s)
{
	json_object *o, *gaps;
	const struct mon_col *c;
	char gbuf[1024];
	size_t i, n;
	int rc;

	if (mon_engine_layout(r->e) != r->layout) {
		rc = csv_segment_open(r);
		if (rc)
			return rc;
	}
	c = mon_engine_cols(r->e, &n);
	gaps_text(r, s, gbuf, sizeof(gbuf));
	r->len = 0;
	line_printf(r, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", s->seq,
		    s->mono_ns, s->wall_ns, s->dt_ns, s->overruns);
	csv_field(r, gbuf);
	for (i = 0; i < r->csv_ncol && i < s->ncol; i++) {
		if (s->v[i].flags & MON_V_VALID)
			line_printf(r, ",%" PRIu64, s->v[i].raw);
		else
			line_put(r, ",n/a", 4);
	}
	rc = line_put(r, "\n", 1);
	if (!rc)
		rc = write_all(r->csv_fd, r->line, r->len);
	if (rc)
		return rec_fail(r, rc, "%s: writing CSV", r->dir);

	if (!r->tmpl || r->jn != n) {
		rc = tmpl_build(r);
		if (rc)
			return rc;
	}
	o = r->tmpl;
	json_object_set_uint64(json_object_object_get(o, "seq"), s->seq);
	json_object_set_uint64(json_object_object_get(o, "mono_ns"), s->mono_ns);
	json_object_set_uint64(json_object_object_get(o, "wall_ns"), s->wall_ns);
	json_object_set_uint64(json_object_object_get(o, "dt_ns"), s->dt_ns);
	json_object_set_uint64(json_object_object_get(o, "overruns"), s->overruns);
	gaps = json_object_new_array();
	for (i = 0; i < mon_engine_nsrc(r->e); i++) {
		const struct mon_src *src = mon_engine_src(r->e, i);
		char k[160];

		if (!(s->gap_mask & (1u << i)))
			continue;
		snprintf(k, sizeof(k), "%s:%s", src->ops->name, src->dev);
		json_object_array_add(gaps, json_object_new_string(k));
	}
	json_object_object_add(o, "gaps", gaps);
	for (i = 0; i < s->ncol && i < r->jn; i++) {
		const struct mon_val *v = &s->v[i];

		if (v->flags & MON_V_VALID) {
			if (r->jv[i]) {
				json_object_set_uint64(r->jv[i], v->raw);
			} else {
				r->jv[i] = json_object_new_uint64(v->raw);
				json_object_object_add(r->jvals, col_name(c, n, i), r->jv[i]);
			}
		} else if (r->jv[i]) {
			json_object_object_add(r->jvals, col_name(c, n, i), NULL);
			r->jv[i] = NULL;
		}
		if (c[i].kind != MON_COUNTER)
			continue;
		if (v->flags & MON_V_DELTA) {
			if (r->jr[i]) {
				json_object_set_double(r->jr[i], v->rate);
			} else {
				r->jr[i] = json_object_new_double(v->rate);
				/* 10 significant digits: rates are derived, the raw values exact;
				 * "%.17g" costs more than the rest of the line.
				 */
				json_object_set_serializer(r->jr[i], json_object_double_to_json_string,
							   (void *)rate_fmt, NULL);
				json_object_object_add(r->jrates, col_name(c, n, i), r->jr[i]);
			}
		} else if (r->jr[i]) {
			json_object_object_add(r->jrates, col_name(c, n, i), NULL);
			r->jr[i] = NULL;
		}
	}
	rc = jsonl_write(r, o);
	r->samples++;
	r->last = s;
	return rc;
}

int mon_rec_event(struct mon_rec *r, const struct mon_event *ev)
{
	json_object *o = json_object_new_object();
	int rc;

	json_object_object_add(o, "type", json_object_new_string("event"));
	json_object_object_add(o, "event", json_object_new_string(mon_event_name(ev->type)));
	json_object_object_add(o, "seq", json_object_new_uint64(ev->seq));
	json_object_object_add(o, "mono_ns", json_object_new_uint64(ev->mono_ns));
	json_object_object_add(o, "wall_ns", json_object_new_uint64(ev->wall_ns));
	if (ev->src) {
		json_object_object_add(o, "source", json_object_new_string(ev->src->ops->name));
		json_object_object_add(o, "device", json_object_new_string(ev->src->dev));
	}
	json_object_object_add(o, "message", json_object_new_string(ev->msg));
	rc = jsonl_write(r, o);
	json_object_put(o);
	r->events++;
	if (ev->type == MON_EV_GAP_BEGIN)
		r->gaps++;
	if (!rc && (ev->type == MON_EV_LAYOUT || ev->type == MON_EV_UNSUPPORTED))
		rc = meta_write(r, false);
	return rc;
}

int mon_rec_close(struct mon_rec *r)
{
	int rc = 0;

	if (!r)
		return 0;
	if (r->jsonl_fd >= 0 && r->csv_fd >= 0)
		rc = meta_write(r, true);
	if (r->csv_fd >= 0)
		close(r->csv_fd);
	if (r->jsonl_fd >= 0)
		close(r->jsonl_fd);
	if (r->argv)
		json_object_put(r->argv);
	tmpl_free(r);
	free(r->line);
	free(r);
	return rc;
}
