// SPDX-License-Identifier: GPL-2.0-or-later
/* replay.c: reads monitor records (meta.json through json-c, samples*.csv through a
 * bounded field splitter) into memory and builds the snapshot of any moment, so the
 * screen of a replay is the screen of the live run. In a 'pfclab run' results folder
 * (points/pNNN/repN/HOST/monitor) the runner captures frames apart from the monitor: where
 * the record has no frame counters, what the capture beside it gives comes with every
 * snapshot (replay_cap.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "lib/util.h"
#include "monitor/recfile.h"
#include "monitor/top/replay.h"
#include "monitor/top/replay_cap.h"

#define MAX_RECS TOP_MAX_HOSTS
#define MAX_COLS 4096
#define MAX_LINE (1u << 20)

struct rcol {
	char name[MON_NAME_MAX * 2];	/* CSV header name */
	char metric[MON_NAME_MAX];	/* catalog metric, "" when none */
	char unit[TOP_UNIT_MAX];
	bool counter;
	unsigned bits;
};

struct rec {
	char name[64];
	struct top_rcap *cap;	/* the capture beside the record; NULL: none */
	uint64_t interval_ns;
	struct rcol *col;
	size_t ncol;
	size_t nrow, caprow;
	uint64_t *mono, *wall;
	uint64_t *missed;	/* intervals its monitor missed up to each row, in all */
	bool missed_lost;	/* a row's overruns column was not a number */
	uint64_t *val;		/* nrow * ncol */
	uint8_t *ok;		/* nrow * ncol */
	bool unfinished;	/* meta.json says its monitor did not finish it */
	unsigned nseg;		/* the CSV segments meta.json lists; 0: not listed */
};

struct top_replay {
	struct rec rec[MAX_RECS];
	size_t n;
	uint64_t t0, t1;	/* earliest and latest wall_ns */
};

static int col_find(const struct rec *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->ncol; i++)
		if (!strcmp(r->col[i].name, name))
			return (int)i;
	return -1;
}

static const char *jstr(json_object *o, const char *k)
{
	json_object *x;

	if (!json_object_object_get_ex(o, k, &x) || !json_object_is_type(x, json_type_string))
		return NULL;
	return json_object_get_string(x);
}

static int meta_load(struct rec *r, const char *dir, char *err, size_t errlen)
{
	char path[4400];
	json_object *m, *cols, *x;
	size_t i, n;

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	m = json_object_from_file(path);
	if (!m || !json_object_is_type(m, json_type_object)) {
		const char *why = json_util_get_last_err();

		/* json-c's message ends in a newline: one line here; its "continue" is a
		 * file that ends before the JSON does
		 */
		if (why && strstr(why, "failed: continue"))
			why = "it ends before its JSON does: cut short?";
		snprintf(err, errlen, "%s: not a JSON object (%.*s)", path,
			 why ? (int)strcspn(why, "\n") : 10, why ? why : "unreadable");
		if (m)
			json_object_put(m);
		return -EINVAL;
	}
	if (json_object_object_get_ex(m, "format", &x) && (!json_object_is_type(x, json_type_string) ||
	    !rec_format_known(json_object_get_string(x)))) {
		const char *ver = jstr(m, "pfclab_version");

		snprintf(err, errlen, "%s: format '%s', not the %s this pfclab reads (written by "
			 "pfclab %s): replay it with a pfclab that reads that format", path,
			 json_object_get_string(x), REC_FORMATS_READ, ver ? ver : "of unknown version");
		json_object_put(m);
		return -EINVAL;
	}
	/* killed, stopped by a full disk, or still recording: what it holds plays, said so */
	if (json_object_object_get_ex(m, "finished", &x) &&
	    json_object_is_type(x, json_type_boolean) && !json_object_get_boolean(x))
		r->unfinished = true;
	if (json_object_object_get_ex(m, "interval_ns", &x) &&
	    json_object_is_type(x, json_type_int))
		r->interval_ns = json_object_get_uint64(x);
	/* a finished record's own list of its segments: a samples-N.csv beyond it is not
	 * this run's */
	if (json_object_object_get_ex(m, "csv_segments", &x) &&
	    json_object_is_type(x, json_type_array) && json_object_array_length(x) < 1000)
		r->nseg = (unsigned)json_object_array_length(x);
	if (!json_object_object_get_ex(m, "columns", &cols) ||
	    !json_object_is_type(cols, json_type_array)) {
		snprintf(err, errlen, "%s: no \"columns\" array; is it a pfclab monitor record?",
			 path);
		json_object_put(m);
		return -EINVAL;
	}
	n = json_object_array_length(cols);
	if (n > MAX_COLS)
		n = MAX_COLS;
	r->col = calloc(n ? n : 1, sizeof(*r->col));
	if (!r->col) {
		json_object_put(m);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(cols, i);
		const char *name, *metric, *unit, *kind;
		struct rcol *rc = &r->col[r->ncol];

		if (!c || !json_object_is_type(c, json_type_object) || !(name = jstr(c, "name")))
			continue;
		metric = jstr(c, "metric");
		unit = jstr(c, "unit");
		kind = jstr(c, "kind");
		snprintf(rc->name, sizeof(rc->name), "%s", name);
		snprintf(rc->metric, sizeof(rc->metric), "%s", metric ? metric : "");
		snprintf(rc->unit, sizeof(rc->unit), "%s", unit ? unit : "");
		rc->counter = !kind || !strcmp(kind, "counter");
		rc->bits = 64;
		if (json_object_object_get_ex(c, "bits", &x) && json_object_is_type(x, json_type_int))
			rc->bits = json_object_get_int(x) == 32 ? 32 : 64;
		r->ncol++;
	}
	json_object_put(m);
	return 0;
}

/* Split one CSV line in place into at most max fields ("..." quoted, "" = quote). */
static size_t csv_split(char *s, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		char *w = s;

		f[n++] = s;
		if (*s == '"') {
			char *r = s + 1;

			f[n - 1] = w;
			while (*r) {
				if (r[0] == '"' && r[1] == '"') {
					*w++ = '"';
					r += 2;
				} else if (r[0] == '"') {
					r++;
					break;
				} else {
					*w++ = *r++;
				}
			}
			s = r;
			*w = '\0';
			if (*s != ',')
				return n;
			s++;
			continue;
		}
		while (*s && *s != ',')
			s++;
		if (!*s)
			return n;
		*s++ = '\0';
	}
	return n;
}

static int rows_grow(struct rec *r)
{
	size_t nc = r->caprow ? r->caprow * 2 : 256;
	uint64_t *a, *b, *v;
	uint8_t *o;

	a = realloc(r->mono, nc * sizeof(*a));
	if (!a)
		return -ENOMEM;
	r->mono = a;
	b = realloc(r->wall, nc * sizeof(*b));
	if (!b)
		return -ENOMEM;
	r->wall = b;
	b = realloc(r->missed, nc * sizeof(*b));
	if (!b)
		return -ENOMEM;
	r->missed = b;
	v = realloc(r->val, nc * r->ncol * sizeof(*v) + 1);
	if (!v)
		return -ENOMEM;
	r->val = v;
	o = realloc(r->ok, nc * r->ncol + 1);
	if (!o)
		return -ENOMEM;
	r->ok = o;
	r->caprow = nc;
	return 0;
}

static int seg_load(struct rec *r, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, **fld = NULL;
	size_t cap = 0, nf, i;
	int *map = NULL, rc = 0;
	size_t nhead = 0;
	uint64_t ov;
	ssize_t len;

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	fld = calloc(MAX_COLS + 6, sizeof(*fld));
	map = calloc(MAX_COLS + 6, sizeof(*map));
	if (!fld || !map) {
		rc = -ENOMEM;
		goto out;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		char *end;

		if ((size_t)len > MAX_LINE || line[len - 1] != '\n')
			continue;	/* over-long, or the last line cut by a kill: dropped */
		line[len - 1] = '\0';
		nf = csv_split(line, fld, MAX_COLS + 6);
		if (!nhead) {
			if (nf < 6 || strcmp(fld[0], "seq") || strcmp(fld[1], "mono_ns") ||
			    strcmp(fld[2], "wall_ns")) {
				snprintf(err, errlen, "%s: header is not seq,mono_ns,wall_ns,...",
					 path);
				rc = -EINVAL;
				goto out;
			}
			for (i = 6; i < nf; i++)
				map[i] = col_find(r, fld[i]);
			nhead = nf;
			continue;
		}
		if (nf != nhead)
			continue;	/* a torn row */
		if (r->nrow == r->caprow && (rc = rows_grow(r)))
			goto out;
		r->mono[r->nrow] = strtoull(fld[1], &end, 10);
		if (*end)
			continue;
		r->wall[r->nrow] = strtoull(fld[2], &end, 10);
		if (*end)
			continue;
		/* the overruns column: intervals missed just before this row */
		ov = strtoull(fld[4], &end, 10);
		if (!*fld[4] || *end || fld[4][0] == '-') {
			r->missed_lost = true;
			ov = 0;
		}
		r->missed[r->nrow] = (r->nrow ? r->missed[r->nrow - 1] : 0) + ov;
		memset(r->ok + r->nrow * r->ncol, 0, r->ncol);
		for (i = 6; i < nf; i++) {
			uint64_t v;

			if (map[i] < 0)
				continue;
			v = strtoull(fld[i], &end, 10);
			if (!*fld[i] || *end)
				continue;	/* "n/a" */
			r->val[r->nrow * r->ncol + (size_t)map[i]] = v;
			r->ok[r->nrow * r->ncol + (size_t)map[i]] = 1;
		}
		r->nrow++;
	}
out:
	free(line);
	free(fld);
	free(map);
	fclose(f);
	return rc;
}

/* label: how notes name the folder around the record (NULL: by its path). */
static int rec_load(struct rec *r, const char *dir, const char *name, const char *label,
		    char *err, size_t errlen)
{
	char path[4400];
	unsigned seg;
	size_t i;
	int rc;

	snprintf(r->name, sizeof(r->name), "%s", name);
	rc = meta_load(r, dir, err, errlen);
	if (rc)
		return rc;
	/* an unfinished record may have opened a segment its meta.json does not list yet */
	for (seg = 1; seg < 1000 && (r->unfinished || !r->nseg || seg <= r->nseg); seg++) {
		struct stat st;

		if (seg == 1)
			snprintf(path, sizeof(path), "%s/samples.csv", dir);
		else
			snprintf(path, sizeof(path), "%s/samples-%u.csv", dir, seg);
		if (stat(path, &st))
			break;
		rc = seg_load(r, path, err, errlen);
		if (rc) {
			if (!err[0])
				snprintf(err, errlen, "%s: %s", path, strerror(-rc));
			return rc;
		}
	}
	for (i = 0; i < r->ncol; i++)
		if (!strncmp(r->col[i].name, "capture.", 8))
			break;	/* recorded with --frames: the record's own, on its time line */
	rc = top_rcap_load(dir, label, i < r->ncol, r->wall, r->nrow, &r->cap);
	if (rc)
		snprintf(err, errlen, "%s: the capture beside the record: %s", dir, strerror(-rc));
	return rc;
}

static void rec_free(struct rec *r)
{
	top_rcap_free(r->cap);
	free(r->col);
	free(r->mono);
	free(r->wall);
	free(r->missed);
	free(r->val);
	free(r->ok);
}

static bool has_meta(const char *dir)
{
	char path[4400];
	struct stat st;

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* Depth-first, names sorted, so hosts come in a stable order. */
static int find_recs(struct top_replay *t, const char *root, const char *rel, int depth,
		     char *err, size_t errlen)
{
	char dir[4200], *names[256];
	size_t n = 0, i;
	struct dirent *d;
	DIR *D;
	int rc = 0;

	snprintf(dir, sizeof(dir), "%s%s%s", root, rel[0] ? "/" : "", rel);
	if (has_meta(dir)) {
		const char *nm = rel[0] ? rel : strrchr(root, '/') ? strrchr(root, '/') + 1 : root;

		if (t->n >= MAX_RECS)
			return 0;
		char shown[64];
		size_t l;

		/* A results folder keeps a host's record in .../HOST/monitor: show HOST. */
		snprintf(shown, sizeof(shown), "%s", nm[0] ? nm : root);
		l = strlen(shown);
		if (l > 8 && !strcmp(shown + l - 8, "/monitor"))
			shown[l - 8] = '\0';
		/* below the folder given, notes name HOST as shown; else by its path */
		rc = rec_load(&t->rec[t->n], dir, shown, rel[0] ? shown : NULL, err, errlen);
		if (rc) {
			rec_free(&t->rec[t->n]);
			memset(&t->rec[t->n], 0, sizeof(t->rec[0]));
			return rc;
		}
		t->n++;
		return 0;
	}
	if (depth >= 5 || !(D = opendir(dir)))
		return 0;
	while ((d = readdir(D)) && n < ARRAY_SIZE(names)) {
		if (d->d_name[0] == '.' || (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN))
			continue;
		names[n] = strdup(d->d_name);
		if (names[n])
			n++;
	}
	closedir(D);
	qsort(names, n, sizeof(names[0]), pfc_cmp_str);
	for (i = 0; i < n; i++) {
		char sub[4200];

		snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", names[i]);
		if (!rc)
			rc = find_recs(t, root, sub, depth + 1, err, errlen);
		free(names[i]);
	}
	return rc;
}

int top_replay_open(const char *dir, struct top_replay **out, char *err, size_t errlen)
{
	struct top_replay *t = calloc(1, sizeof(*t));
	char root[4096];
	size_t i, l;
	int rc;

	if (!t)
		return -ENOMEM;
	*out = t;
	err[0] = '\0';
	snprintf(root, sizeof(root), "%s", dir);
	l = strlen(root);
	while (l > 1 && root[l - 1] == '/')
		root[--l] = '\0';
	rc = find_recs(t, root, "", 0, err, errlen);
	if (!rc && !t->n) {
		snprintf(err, errlen, "%s: no monitor record (meta.json + samples.csv) here or "
			 "in the folders below", dir);
		rc = -ENOENT;
	}
	if (rc) {
		top_replay_free(t);
		*out = NULL;
		return rc;
	}
	t->t0 = UINT64_MAX;
	for (i = 0; i < t->n; i++) {
		const struct rec *r = &t->rec[i];

		if (!r->nrow)
			continue;
		if (r->wall[0] < t->t0)
			t->t0 = r->wall[0];
		if (r->wall[r->nrow - 1] > t->t1)
			t->t1 = r->wall[r->nrow - 1];
	}
	if (t->t0 == UINT64_MAX)
		t->t0 = t->t1 = 0;
	return 0;
}

size_t top_replay_nrec(const struct top_replay *r)
{
	return r->n;
}

const char *top_replay_name(const struct top_replay *r, size_t i)
{
	return r->rec[i].name;
}

uint64_t top_replay_length(const struct top_replay *r)
{
	return r->t1 - r->t0;
}

/* The last row with wall time <= t0 + t (binary search); -1 when none. */
static long row_at(const struct rec *r, uint64_t w)
{
	size_t lo = 0, hi = r->nrow;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->wall[mid] <= w)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/* Record r's snapshot at row k (-1: before its first, no sample). */
static int snap_row(const struct rec *r, long k, struct top_snap *o)
{
	size_t c;

	o->n = 0;
	o->seq = 0;
	o->overruns = o->missed = 0;
	o->has_missed = false;
	o->interval_ns = r->interval_ns;
	o->down = false;
	snprintf(o->status, sizeof(o->status), "%s: %zu samples%s%s%s", r->name, r->nrow,
		 r->unfinished ? " (unfinished: its monitor did not close it)" : "",
		 r->cap && top_rcap_legend(r->cap)[0] ? "; " : "",
		 r->cap ? top_rcap_legend(r->cap) : "");
	snprintf(o->note, sizeof(o->note), "%s", r->cap ? top_rcap_note(r->cap) : "");
	if (k < 0)
		return 0;
	o->seq = (uint64_t)k + 1;
	o->src_ns = r->mono[k];
	o->wall_ns = r->wall[k];
	o->missed = r->missed[k];
	o->overruns = r->missed[k] - (k ? r->missed[k - 1] : 0);
	o->has_missed = !r->missed_lost;
	for (c = 0; c < r->ncol; c++) {
		const struct rcol *rc = &r->col[c];
		size_t at_k = (size_t)k * r->ncol + c;
		uint8_t fl = rc->counter ? TOP_M_COUNTER : 0;
		double rate = 0;

		if (!rc->metric[0])
			continue;
		if (r->ok[at_k]) {
			fl |= TOP_M_VALID;
			if (rc->counter && k > 0 && r->ok[at_k - r->ncol] &&
			    r->mono[k] > r->mono[k - 1]) {
				uint64_t a = r->val[at_k - r->ncol], b = r->val[at_k], d;
				bool ok = true;

				if (b >= a)
					d = b - a;
				else if (rc->bits == 32 && a <= UINT32_MAX && a > UINT32_MAX / 2)
					d = (uint64_t)(uint32_t)(b - a);
				else
					ok = false, d = 0;
				if (ok) {
					rate = (double)d * 1e9 / (double)(r->mono[k] - r->mono[k - 1]);
					fl |= TOP_M_RATE;
				}
			}
		}
		if (!top_snap_put(o, rc->metric, rc->unit, fl, r->ok[at_k] ? r->val[at_k] : 0,
				  rate))
			return -ENOMEM;
	}
	return r->cap ? top_rcap_put(r->cap, (size_t)k, r->wall, o) : 0;
}

int top_replay_at(const struct top_replay *t, size_t i, uint64_t at, struct top_snap *o)
{
	return snap_row(&t->rec[i], row_at(&t->rec[i], t->t0 + at), o);
}

int top_replay_feed(const struct top_replay *t, size_t i, uint64_t at, uint64_t now,
		    struct top_model *m, struct top_snap *tmp, struct top_snap *first)
{
	const struct rec *r = &t->rec[i];
	int rc = snap_row(r, row_at(r, t->t0 + at), tmp);

	if (rc)
		return rc;
	tmp->got_ns = now;
	/* The first sample shown is not where the totals start when playing starts or
	 * seeks past the record's first (--start, G, ]): they count from there, as the
	 * live run's did, never 0 for what the record holds.
	 */
	if (i < m->nhost && !m->host[i].have_base && tmp->seq > 1) {
		rc = snap_row(r, 0, first);
		if (!rc)
			rc = top_model_base_set(m, i, first);
		if (rc)
			return rc;
	}
	return top_model_update(m, i, tmp);
}

void top_replay_free(struct top_replay *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		rec_free(&t->rec[i]);
	free(t);
}
