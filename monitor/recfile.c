// SPDX-License-Identifier: GPL-2.0-or-later
/* recfile.c: the files of a monitor record (see recfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/out.h"
#include "lib/util.h"
#include "monitor/recfile.h"
#include "version.h" /* generated: $(BUILD)/gen */

void rec_seg_name(unsigned seg, char *buf, size_t n)
{
	if (seg <= 1)
		snprintf(buf, n, "samples.csv");
	else
		snprintf(buf, n, "samples-%u.csv", seg);
}

int rec_segments_clear(const char *dir, char *err, size_t errlen)
{
	char path[4200], name[32];
	unsigned seg;

	for (seg = 2;; seg++) {
		rec_seg_name(seg, name, sizeof(name));
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (!unlink(path))
			continue;
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "removing %s of the run replaced", path);
		return -errno;
	}
}

bool rec_format_known(const char *fmt)
{
	return fmt && (!strcmp(fmt, REC_FORMAT) || !strcmp(fmt, REC_FORMAT_1));
}

void rec_cols_free(struct rec_cols *c)
{
	json_object_put(c->names);
	json_object_put(c->kinds);
	c->names = c->kinds = NULL;
}

json_object *rec_columns_new(void)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string("columns"));
	json_object_object_add(o, "names", json_object_new_array());
	json_object_object_add(o, "kinds", json_object_new_array());
	return o;
}

void rec_columns_add(json_object *line, const char *name, bool counter)
{
	json_object *names, *kinds;

	if (json_object_object_get_ex(line, "names", &names) &&
	    json_object_object_get_ex(line, "kinds", &kinds)) {
		json_object_array_add(names, json_object_new_string(name));
		json_object_array_add(kinds, json_object_new_string(counter ? "counter" : "gauge"));
	}
}

static bool cols_take(struct rec_cols *c, json_object *o)
{
	json_object *n, *k;
	size_t i, len;

	rec_cols_free(c);
	if (!json_object_object_get_ex(o, "names", &n) || !json_object_is_type(n, json_type_array))
		return false;
	len = json_object_array_length(n);
	for (i = 0; i < len; i++)
		if (!json_object_is_type(json_object_array_get_idx(n, i), json_type_string))
			return false;
	if (json_object_object_get_ex(o, "kinds", &k) &&
	    (!json_object_is_type(k, json_type_array) || json_object_array_length(k) != len))
		return false;
	c->names = json_object_get(n);
	c->kinds = k ? json_object_get(k) : NULL;
	return true;
}

/* Column i counts (a rate belongs to it): its kind says so, or, without kinds, the line
 * has a rate for it. */
static bool col_counter(const struct rec_cols *c, size_t i, json_object *rate)
{
	json_object *k;

	if (!c->kinds)
		return rate != NULL;
	k = json_object_array_get_idx(c->kinds, i);
	return json_object_is_type(k, json_type_string) &&
	       !strcmp(json_object_get_string(k), "counter");
}

int rec_line_keyed(struct rec_cols *c, json_object *o)
{
	json_object *t, *v, *r = NULL, *vals, *rates;
	size_t i, n;

	if (!json_object_object_get_ex(o, "type", &t) || !json_object_is_type(t, json_type_string))
		return 0;
	if (!strcmp(json_object_get_string(t), "columns")) {
		if (!cols_take(c, o))
			rec_cols_free(c);	/* the samples after it are left out */
		return 1;
	}
	if (strcmp(json_object_get_string(t), "sample") ||
	    !json_object_object_get_ex(o, "values", &v) || !json_object_is_type(v, json_type_array))
		return 0;
	n = json_object_array_length(v);
	if (!c->names || n != json_object_array_length(c->names) ||
	    (json_object_object_get_ex(o, "rates", &r) &&
	     (!json_object_is_type(r, json_type_array) || json_object_array_length(r) != n)))
		return -EPROTO;
	vals = json_object_new_object();
	rates = json_object_new_object();
	for (i = 0; i < n; i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(c->names, i));
		json_object *x = r ? json_object_array_get_idx(r, i) : NULL;

		json_object_object_add(vals, name, json_object_get(json_object_array_get_idx(v, i)));
		if (col_counter(c, i, x))
			json_object_object_add(rates, name, json_object_get(x));
	}
	json_object_object_add(o, "values", vals);
	json_object_object_add(o, "rates", rates);
	return 0;
}

json_object *rec_meta_new(const char *host)
{
	json_object *m = json_object_new_object();

	json_object_object_add(m, "format", json_object_new_string(REC_FORMAT));
	json_object_object_add(m, "pfclab_version", json_object_new_string(PFCLAB_VERSION));
	json_object_object_add(m, "host", json_object_new_string(host));
	return m;
}

void rec_meta_column(json_object *cols, const char *name, const char *key, const char *metric,
		     const char *raw, const char *unit, bool counter, int bits)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "key", json_object_new_string(key));
	json_object_object_add(o, "metric", metric ? json_object_new_string(metric) : NULL);
	json_object_object_add(o, "raw", json_object_new_string(raw));
	json_object_object_add(o, "unit", json_object_new_string(unit));
	json_object_object_add(o, "kind", json_object_new_string(counter ? "counter" : "gauge"));
	json_object_object_add(o, "bits", json_object_new_int(bits));
	json_object_array_add(cols, o);
}

void rec_meta_files(json_object *m, unsigned segments, bool finished, uint64_t samples)
{
	json_object *segs = json_object_new_array();
	char name[32];
	unsigned k;

	for (k = 1; k <= segments; k++) {
		rec_seg_name(k, name, sizeof(name));
		json_object_array_add(segs, json_object_new_string(name));
	}
	json_object_object_add(m, "csv_segments", segs);
	json_object_object_add(m, "jsonl", json_object_new_string(REC_JSONL));
	json_object_object_add(m, "finished", json_object_new_boolean(finished));
	json_object_object_add(m, "samples", json_object_new_uint64(samples));
}

int rec_meta_replace(const char *dir, json_object *m, char *err, size_t errlen)
{
	const char *txt = out_json_text(m, true);
	char path[4200], tmp[4200];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	snprintf(tmp, sizeof(tmp), "%s/.meta.json.tmp", dir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s", tmp);
		return rc;
	}
	rc = pfc_write_all(fd, txt, strlen(txt));
	if (!rc)
		rc = pfc_write_all(fd, "\n", 1);
	if (!rc && fsync(fd))
		rc = -errno;
	close(fd);
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		unlink(tmp);
		snprintf(err, errlen, "writing %s", path);
		return rc;
	}
	/* the rename itself lasts once the folder is on disk */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	return 0;
}
