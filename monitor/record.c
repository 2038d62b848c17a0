// SPDX-License-Identifier: GPL-2.0-or-later
/* record.c: writes a monitor run to a folder so that a kill -9 at any moment leaves
 * every complete line parseable. The sampling loop only copies each sample's values
 * into a batch (events come as finished JSON lines); batches of up to FLUSH_NS or
 * FLUSH_BYTES go whole to a writer thread, which turns them into CSV rows and JSON
 * lines, a hundred samples at a time with the names and buffers warm, and puts those on
 * O_APPEND files in pieces of whole samples (a failed write is cut back to the last
 * whole sample in both files). A slow disk never holds up the sampling loop, and the
 * loop wakes the writer ten times a second at most; meta.json is replaced by
 * write-to-temporary, fsync, rename. A full disk stops the recording: the space kept
 * in a small reserve file is given back so that meta.json can still be finished.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/out.h"
#include "lib/util.h"
#include "monitor/recfile.h"
#include "monitor/record.h"

/* Lines gathered before they go to the writer: 100 ms, or less when samples are large
 * (memory stays bounded: REC_QLEN batches of FLUSH_BYTES at most, plus one sample).
 * The writer hands them to the kernel PIECE_BYTES at a time, in whole samples.
 */
#define FLUSH_NS    100000000ULL
#define FLUSH_BYTES (1024u * 1024)
#define PIECE_BYTES (64u * 1024)
#define RESERVE_BYTES (256u * 1024) /* meta.json with a few thousand columns */
/* Batches handed to the writer and not yet written: up to 1.6 s of samples. A
 * disk that stays slower than that makes the sampling loop wait (intervals are then
 * missed and counted) rather than lose samples or grow memory without bound.
 */
#define REC_QLEN 16
/* Room for one number and its separators. */
#define NUM_MAX 40

struct rec_buf {
	char *buf;
	size_t len, cap;
};

struct rec_file {
	int fd;
	off_t done;		/* bytes in the file that hold whole lines */
};

/* One batch, filled by the sampling loop: items in order, each a struct rec_item and
 * its payload (a sample's figures and values, or an event's JSON line), 8-aligned.
 */
struct rec_job {
	struct rec_buf raw;
	uint64_t samples;
};

enum { REC_ITEM_SAMPLE, REC_ITEM_EVENT };

struct rec_item {
	uint32_t type;
	uint32_t len;		/* the whole item, this header included */
	uint32_t text;		/* an event: the bytes of its line */
	uint32_t unused;
};

struct rec_samp {
	uint64_t seq, mono_ns, wall_ns, dt_ns, overruns;
	uint32_t gap_mask;
	uint32_t ncol;		/* struct mon_val values follow */
};

/* One batch as text (the writer's, or the caller's without a writer): CSV rows, JSON
 * lines, and where each sample ends in both.
 */
struct rec_text {
	struct rec_buf csv, jsonl;
	uint64_t samples;
	size_t *cend, *jend;	/* per sample: csv.len and jsonl.len after it */
	size_t ecap;
};

struct mon_rec {
	struct mon_engine *e;
	char dir[4096];
	int csv_fd;
	int jsonl_fd;
	struct rec_file csv, jsonl;	/* the writer's while it runs, else the caller's */
	/* The batches: cur is being filled by the sampling thread; fifo[qhead] ..
	 * fifo[qhead + qn - 1] wait for (or are in) the writer; the rest are free, on a
	 * stack, so that the same two buffers take turns while the disk keeps up (no
	 * fresh memory to fault in).
	 */
	struct rec_job job[REC_QLEN];
	struct rec_job *cur;
	struct rec_text txt;	/* the writer's (the caller's without one) */
	unsigned fifo[REC_QLEN], qhead, qn;
	unsigned freel[REC_QLEN], nfree;
	pthread_mutex_t mu;
	pthread_cond_t wake;	/* writer: a batch or the stop is there */
	pthread_cond_t idle;	/* sampler: a batch was written */
	pthread_t th;
	bool wrunning, wstop;
	int wfailed;		/* the writer's first failure (-errno), read atomically */
	char werr[512];		/* its message, set before wfailed */
	uint64_t wcpu_ns;	/* the writer's CPU, taken when it ends */
	uint64_t flushed_ns;	/* sample time of the last hand-off */
	bool failed;		/* a write failed: nothing more is recorded */
	bool reserve;		/* <dir>/.reserve holds RESERVE_BYTES */
	char failure[512];	/* the first failure, for meta.json */
	unsigned layout;	/* engine layout the current CSV segment was written for */
	unsigned segment;	/* 1 = samples.csv, 2 = samples-2.csv ... */
	size_t csv_ncol;	/* columns in the current segment */
	char *line;
	size_t cap, len;
	uint64_t samples, events, gaps;
	uint64_t steal_ns;	/* the host's steal time over the run (mon_rec_host_steal) */
	bool steal_valid;
	uint64_t first_wall_ns;
	/* the intervals missed before the samples recorded (their overruns column): a
	 * record begun after the engine (pfclab top's 'r') counts from its own first */
	uint64_t overruns;
	json_object *argv;
	/* What the writer needs to turn a sample into text, built once per layout while
	 * no batch waits (so the writer reads it unlocked): the columns (their names went
	 * into samples.jsonl's "columns" line), which are counters (a rate each), the
	 * sources' names for the gap fields.
	 */
	size_t jn;
	size_t jneed;		/* room one JSON line needs at most for these columns */
	bool *jcounter;		/* per column: a counter */
	char **jsrc;		/* per source, "source:device" as a JSON string */
	char **csrc;		/* per source, "source:device" as it is */
	size_t nsrc;
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


static int out_reserve(struct rec_buf *o, size_t n)
{
	if (o->len + n > o->cap) {
		size_t ncap = (o->len + n) * 2 > PIECE_BYTES * 2 ? (o->len + n) * 2 :
			      PIECE_BYTES * 2;
		char *p = realloc(o->buf, ncap);

		if (!p)
			return -ENOMEM;
		o->buf = p;
		o->cap = ncap;
	}
	return 0;
}

static int out_put(struct rec_buf *o, const char *s, size_t n)
{
	int rc = out_reserve(o, n);

	if (rc)
		return rc;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	return 0;
}

/* Short copies in 16-byte steps: the caller leaves CHUNK_SLACK bytes of room after the
 * destination, and the source is readable that far (a name block padded for it, or a
 * buffer with room reserved). */
#define CHUNK_SLACK 32

static char *put_short(char *p, const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < n; k += 16)
		memcpy(p + k, s + k, 16);
	return p + n;
}

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* v in decimal; writes up to 20 bytes past p whatever the length (room: CHUNK_SLACK). */
static char *u64_put(char *p, uint64_t v)
{
	char t[40], *e = t + 20, *q = e;

	if (v < 10) {	/* most counters, most of the time */
		*p = (char)('0' + v);
		return p + 1;
	}
	while (v >= 100) {
		unsigned k = (unsigned)(v % 100) * 2;

		v /= 100;
		q -= 2;
		memcpy(q, digit_pairs + k, 2);
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, digit_pairs + v * 2, 2);
	} else {
		*--q = (char)('0' + v);
	}
	memcpy(p, q, 20);
	return p + (e - q);
}

/* A rate with 10 significant digits, as "%.10g" would print it (the last digit may
 * round differently): rates are derived, the raw values beside them are exact. */
static char *rate_put(char *p, double v)
{
	char d[24];
	uint64_t m;
	int e, i, nd, last;

	if (!isfinite(v))
		return memcpy(p, "null", 4), p + 4;
	if (v < 0) {
		*p++ = '-';
		v = -v;
	}
	if (v == 0) {
		*p++ = '0';
		return p;
	}
	e = (int)floor(log10(v));
	m = (uint64_t)llround(v * pow(10.0, 9 - e));
	if (m >= 10000000000ULL) {
		m /= 10;
		e++;
	} else if (m < 1000000000ULL) {
		m = (uint64_t)llround(v * pow(10.0, 10 - e));
		e--;
	}
	nd = (int)(u64_put(d, m) - d); /* 10 digits */
	for (last = nd - 1; last > 0 && d[last] == '0'; last--)
		;
	if (e >= 10 || e < -5) { /* d.ddde+XX */
		*p++ = d[0];
		if (last > 0) {
			*p++ = '.';
			memcpy(p, d + 1, (size_t)last);
			p += last;
		}
		p += sprintf(p, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
		return p;
	}
	if (e < 0) {
		*p++ = '0';
		*p++ = '.';
		for (i = -1; i > e; i--)
			*p++ = '0';
		memcpy(p, d, (size_t)last + 1);
		return p + last + 1;
	}
	memcpy(p, d, (size_t)e + 1);
	p += e + 1;
	if (last > e) {
		*p++ = '.';
		memcpy(p, d + e + 1, (size_t)(last - e));
		p += last - e;
	}
	return p;
}

/* s[0..n) as one CSV field at p (room: 2n + 2): as it is, or quoted when it holds a
 * comma, a quote or a newline. Our names never do, but the file stays parseable anyway. */
static char *csv_quote(char *p, const char *s, size_t n)
{
	size_t i;

	if (!memchr(s, ',', n) && !memchr(s, '"', n) && !memchr(s, '\n', n)) {
		memcpy(p, s, n);
		return p + n;
	}
	*p++ = '"';
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			*p++ = '"';
		if (s[i] != '\n')
			*p++ = s[i];
	}
	*p++ = '"';
	return p;
}

static int csv_field(struct mon_rec *r, const char *s)
{
	size_t n = strlen(s);
	char *q = malloc(2 * n + 2), *e;
	int rc;

	if (!q)
		return -ENOMEM;
	e = csv_quote(q, s, n);
	rc = line_put(r, q, (size_t)(e - q));
	free(q);
	return rc;
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

static int rec_flush(struct mon_rec *r);

static int meta_write(struct mon_rec *r, bool finished)
{
	json_object *m, *srcs = json_object_new_array(), *cols = json_object_new_array();
	const struct mon_col *c;
	struct utsname u;
	char host[256] = "", err[4300];
	size_t i, n;
	int rc;

	if (!r->failed)
		(void)rec_flush(r); /* the counts below then match the files */
	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	uname(&u);
	m = rec_meta_new(host);
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
	for (i = 0; i < n; i++)
		rec_meta_column(cols, col_name(c, n, i), c[i].key, c[i].metric[0] ? c[i].metric : NULL,
				c[i].raw, c[i].unit, c[i].kind == MON_COUNTER, c[i].width);
	json_object_object_add(m, "columns", cols);
	rec_meta_files(m, r->segment, finished, r->samples);
	json_object_object_add(m, "gap_events", json_object_new_uint64(r->gaps));
	json_object_object_add(m, "overruns_total", json_object_new_uint64(r->overruns));
	/* null until the run's end gives it, or where the host has no steal column */
	json_object_object_add(m, "host_steal_ns", finished && r->steal_valid ?
			       json_object_new_uint64(r->steal_ns) : NULL);
	json_object_object_add(m, "error", r->failure[0] ?
			       json_object_new_string(r->failure) : NULL);
	rc = rec_meta_replace(r->dir, m, err, sizeof(err));
	json_object_put(m);
	return rc ? rec_fail(r, rc, "%s", err) : 0;
}

static void tmpl_free(struct mon_rec *r)
{
	size_t i;

	for (i = 0; i < r->nsrc; i++) {
		if (r->jsrc)
			free(r->jsrc[i]);
		if (r->csrc)
			free(r->csrc[i]);
	}
	free(r->jcounter);
	free(r->jsrc);
	free(r->csrc);
	r->jsrc = r->csrc = NULL;
	r->jcounter = NULL;
	r->jn = r->nsrc = 0;
}

/* s as a JSON string (json-c escapes it), with `tail` appended. */
static char *json_str(const char *s, const char *tail)
{
	json_object *o = json_object_new_string(s);
	const char *t = out_json_text(o, false);
	char *out = malloc(strlen(t) + strlen(tail) + 1);

	if (out)
		strcat(strcpy(out, t), tail);
	json_object_put(o);
	return out;
}

static int event_put(struct mon_rec *r, const char *line);

/* What the writer needs for the current layout: which columns are counters, the sources'
 * names for the gap fields; and samples.jsonl's "columns" line for it, which goes into the
 * batch ahead of the samples that follow (the batch is empty: the caller flushed it).
 */
static int tmpl_build(struct mon_rec *r)
{
	json_object *o;
	const struct mon_col *c;
	size_t i, n;
	int rc;

	tmpl_free(r);
	c = mon_engine_cols(r->e, &n);
	r->nsrc = mon_engine_nsrc(r->e);
	r->jcounter = calloc(n ? n : 1, sizeof(*r->jcounter));
	r->jsrc = calloc(r->nsrc ? r->nsrc : 1, sizeof(*r->jsrc));
	r->csrc = calloc(r->nsrc ? r->nsrc : 1, sizeof(*r->csrc));
	if (!r->jcounter || !r->jsrc || !r->csrc)
		return rec_fail(r, -ENOMEM, "recording");
	r->jn = n;
	r->jneed = 2 * n * (NUM_MAX + 1);
	o = rec_columns_new();
	for (i = 0; i < n; i++) {
		r->jcounter[i] = c[i].kind == MON_COUNTER;
		rec_columns_add(o, col_name(c, n, i), r->jcounter[i]);
	}
	rc = event_put(r, out_json_text(o, false));
	json_object_put(o);
	if (rc)
		return rc;
	for (i = 0; i < r->nsrc; i++) {
		const struct mon_src *src = mon_engine_src(r->e, i);
		char k[160];

		snprintf(k, sizeof(k), "%s:%s", src->ops->name, src->dev);
		if (!(r->jsrc[i] = json_str(k, "")) || !(r->csrc[i] = strdup(k)))
			return rec_fail(r, -ENOMEM, "recording");
		r->jneed += strlen(r->jsrc[i]) + 1;
	}
	return 0;
}

/* Every failure after the start ends the recording; the first one is kept for
 * meta.json. */
static int rec_stop(struct mon_rec *r, int rc)
{
	if (!r->failed) {
		r->failed = true;
		snprintf(r->failure, sizeof(r->failure), "%s", r->err);
	}
	return rc;
}

/* One sample's CSV row and JSON line, in one pass over the columns: each number is
 * made once and copied into both. The JSON line gives values and rates as arrays in the
 * order of the layout's "columns" line (tmpl_build), a null where there is none.
 */
static int sample_text(struct mon_rec *r, struct rec_text *t, const struct rec_samp *rs,
		       const struct mon_val *v)
{
	static const char head[] = "{\"type\":\"sample\",\"seq\":";
	static const char *const names[] = { ",\"mono_ns\":", ",\"wall_ns\":", ",\"dt_ns\":",
					     ",\"overruns\":" };
	const uint64_t hv[] = { rs->seq, rs->mono_ns, rs->wall_ns, rs->dt_ns, rs->overruns };
	size_t nc = r->csv_ncol < rs->ncol ? r->csv_ncol : rs->ncol;
	size_t nj = r->jn, nmax = nc > nj ? nc : nj;
	size_t i, glen = 0;
	char gbuf[1024], *p, *q, *d;
	bool first;
	int rc;

	for (i = 0; rs->gap_mask && i < r->nsrc && glen + 1 < sizeof(gbuf); i++) {
		int w;

		if (!(rs->gap_mask & (1u << i)))
			continue;
		w = snprintf(gbuf + glen, sizeof(gbuf) - glen, "%s%s", glen ? ";" : "",
			     r->csrc[i]);
		if (w < 0)
			break;
		glen = glen + (size_t)w < sizeof(gbuf) ? glen + (size_t)w : sizeof(gbuf) - 1;
	}
	rc = out_reserve(&t->csv, 5 * NUM_MAX + 2 * sizeof(gbuf) + 2 + nc * NUM_MAX +
			 CHUNK_SLACK);
	if (!rc)
		rc = out_reserve(&t->jsonl, sizeof(head) + 5 * NUM_MAX + 64 + r->jneed +
				 CHUNK_SLACK);
	if (rc)
		return rc;
	p = t->jsonl.buf + t->jsonl.len;
	q = t->csv.buf + t->csv.len;
	memcpy(p, head, sizeof(head) - 1);
	p += sizeof(head) - 1;
	for (i = 0; i < 5; i++) {
		if (i)
			p = stpcpy(p, names[i - 1]);
		d = p;
		p = u64_put(p, hv[i]);
		q = put_short(q, d, (size_t)(p - d));
		*q++ = ',';
	}
	q = csv_quote(q, gbuf, glen);
	p = stpcpy(p, ",\"gaps\":[");
	for (i = 0, first = true; i < r->nsrc; i++) {
		if (!(rs->gap_mask & (1u << i)))
			continue;
		if (!first)
			*p++ = ',';
		p = stpcpy(p, r->jsrc[i]);
		first = false;
	}
	p = stpcpy(p, "],\"values\":[");
	for (i = 0; i < nmax; i++) {
		bool valid = i < rs->ncol && (v[i].flags & MON_V_VALID);

		if (i < nj) {
			/* every column of the "columns" line, in its order */
			if (i)
				*p++ = ',';
			d = p;
			if (valid)
				p = u64_put(p, v[i].raw);
			else
				p = stpcpy(p, "null");
		}
		if (i >= nc)
			continue;
		*q++ = ',';
		if (!valid) {
			memcpy(q, "n/a", 3);
			q += 3;
		} else if (i < nj && p - d == 1) {
			*q++ = *d;
		} else if (i < nj) {
			q = put_short(q, d, (size_t)(p - d));
		} else {
			q = u64_put(q, v[i].raw);
		}
	}
	*q++ = '\n';
	t->csv.len = (size_t)(q - t->csv.buf);
	p = stpcpy(p, "],\"rates\":[");
	for (i = 0; i < nj; i++) {
		if (i)
			*p++ = ',';
		if (!(i < rs->ncol && r->jcounter[i] && (v[i].flags & MON_V_DELTA))) {
			memcpy(p, "null", 4);
			p += 4;
		} else if (v[i].rate == 0) {	/* a counter that did not move */
			*p++ = '0';
		} else {
			p = rate_put(p, v[i].rate);
		}
	}
	p = stpcpy(p, "]}\n");
	t->jsonl.len = (size_t)(p - t->jsonl.buf);
	return 0;
}

/* Turns batch j into text in t: its samples' rows and lines, its events' lines, in
 * order. */
static int job_format(struct mon_rec *r, const struct rec_job *j, struct rec_text *t)
{
	size_t off = 0;
	int rc = 0;

	t->csv.len = t->jsonl.len = 0;
	t->samples = 0;
	if (t->ecap < j->samples) {
		size_t *ce = realloc(t->cend, j->samples * sizeof(*ce)), *je;

		if (ce)
			t->cend = ce;
		je = ce ? realloc(t->jend, j->samples * sizeof(*je)) : NULL;
		if (!je)
			return -ENOMEM;
		t->jend = je;
		t->ecap = j->samples;
	}
	while (!rc && off < j->raw.len) {
		const struct rec_item *it = (const void *)(j->raw.buf + off);

		if (it->type == REC_ITEM_SAMPLE) {
			const struct rec_samp *rs = (const void *)(it + 1);
			const struct mon_val *v = (const void *)(rs + 1);

			rc = sample_text(r, t, rs, v);
			if (!rc && t->samples < t->ecap) {
				t->cend[t->samples] = t->csv.len;
				t->jend[t->samples] = t->jsonl.len;
				t->samples++;
			}
		} else {
			rc = out_put(&t->jsonl, (const char *)(it + 1), it->text);
		}
		off += it->len;
	}
	return rc;
}

/* Writes one batch in pieces of whole samples (CSV rows, then the same samples' JSON
 * lines); *nsamp gets the samples both files now hold. On failure msg says which file
 * and why, and both files are cut back to the end of the last piece written whole.
 */
static int job_write(struct mon_rec *r, struct rec_text *j, uint64_t *nsamp, char *msg,
		     size_t msgsz)
{
	size_t c0 = 0, j0 = 0, i = 0;
	int rc = 0;

	*nsamp = 0;
	while (i < j->samples || j0 < j->jsonl.len) {
		size_t k = i, c1, j1;

		while (k < j->samples && (k == i || j->cend[k] - c0 + j->jend[k] - j0 <=
					   PIECE_BYTES))
			k++;
		c1 = k ? j->cend[k - 1] : 0;
		/* event lines after the last sample go with the last piece */
		j1 = k == j->samples ? j->jsonl.len : j->jend[k - 1];
		rc = pfc_write_all(r->csv.fd, j->csv.buf + c0, c1 - c0);
		if (rc) {
			snprintf(msg, msgsz, "%.440s: writing samples.csv: %s", r->dir,
				 strerror(-rc));
			break;
		}
		rc = pfc_write_all(r->jsonl.fd, j->jsonl.buf + j0, j1 - j0);
		if (rc) {
			snprintf(msg, msgsz, "%.440s: writing " REC_JSONL ": %s", r->dir,
				 strerror(-rc));
			break;
		}
		r->csv.done += (off_t)(c1 - c0);
		r->jsonl.done += (off_t)(j1 - j0);
		*nsamp += k - i;
		c0 = c1;
		j0 = j1;
		i = k;
	}
	if (rc) {
		/* the reader then sees the same whole samples in both (if a cut fails, one
		 * cut line at the end, as after kill -9) */
		if (ftruncate(r->csv.fd, r->csv.done) || ftruncate(r->jsonl.fd, r->jsonl.done))
			(void)0;
	}
	return rc;
}

/* Turns batch j into text and writes it (or, after a failure, drops it), and empties
 * it. Called with mu held when the writer thread runs, alone otherwise.
 */
static void job_retire(struct mon_rec *r, struct rec_job *j, bool locked)
{
	int rc = 0;

	if (!__atomic_load_n(&r->wfailed, __ATOMIC_ACQUIRE)) {
		char msg[sizeof(r->werr)];
		uint64_t n = 0;

		if (locked)
			pthread_mutex_unlock(&r->mu);
		rc = job_format(r, j, &r->txt);
		if (rc)
			snprintf(msg, sizeof(msg), "%.440s: recording: %s", r->dir,
				 strerror(-rc));
		else
			rc = job_write(r, &r->txt, &n, msg, sizeof(msg));
		if (locked)
			pthread_mutex_lock(&r->mu);
		r->samples += n;
		if (rc) {
			memcpy(r->werr, msg, sizeof(msg));
			__atomic_store_n(&r->wfailed, rc, __ATOMIC_RELEASE);
		}
	}
	j->raw.len = 0;
	j->samples = 0;
}

static void *writer_main(void *arg)
{
	struct mon_rec *r = arg;
	struct sched_param sp = { 0 };
	struct timespec ts;
	unsigned idx;

	/* A batch policy: the writer's wakeups never preempt the sampling thread, so that
	 * its writes (a burst every 100 ms) do not make a tick late on a busy host.
	 * Best effort; the default policy works too.
	 */
	pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->qn && !r->wstop)
			pthread_cond_wait(&r->wake, &r->mu);
		if (!r->qn)
			break;	/* stopped, and every batch written */
		idx = r->fifo[r->qhead];
		job_retire(r, &r->job[idx], true);
		r->qhead = (r->qhead + 1) % REC_QLEN;
		r->qn--;
		r->freel[r->nfree++] = idx;
		pthread_cond_broadcast(&r->idle);
	}
	pthread_mutex_unlock(&r->mu);
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		r->wcpu_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return NULL;
}

/* A failure the writer met ends the recording here, with its message. */
static int rec_check(struct mon_rec *r)
{
	int rc = __atomic_load_n(&r->wfailed, __ATOMIC_ACQUIRE);

	if (rc && !r->failed) {
		snprintf(r->err, sizeof(r->err), "%s", r->werr);
		return rec_stop(r, rc);
	}
	return r->failed ? -EIO : 0;
}

/* Queues the batch being filled and starts a new one; waits only while all REC_QLEN
 * batches are unwritten. Without a writer thread the batch is written here.
 */
static void rec_handoff(struct mon_rec *r)
{
	struct rec_job *j = r->cur;

	if (!j->raw.len)
		return;
	if (!r->wrunning) {
		job_retire(r, j, false);
		return;
	}
	pthread_mutex_lock(&r->mu);
	r->fifo[(r->qhead + r->qn) % REC_QLEN] = (unsigned)(j - r->job);
	r->qn++;
	pthread_cond_signal(&r->wake);
	while (!r->nfree)
		pthread_cond_wait(&r->idle, &r->mu);
	r->cur = &r->job[r->freel[--r->nfree]];
	pthread_mutex_unlock(&r->mu);
}

/* Writes out everything handed over so far and waits for it: the files then hold
 * every sample taken (for meta.json's counts, a new segment, the end). */
static int rec_flush(struct mon_rec *r)
{
	int rc = rec_check(r);

	if (rc)
		return rc;
	rec_handoff(r);
	if (r->wrunning) {
		pthread_mutex_lock(&r->mu);
		while (r->qn)
			pthread_cond_wait(&r->idle, &r->mu);
		pthread_mutex_unlock(&r->mu);
	}
	return rec_check(r);
}

static void writer_stop(struct mon_rec *r)
{
	if (!r->wrunning)
		return;
	pthread_mutex_lock(&r->mu);
	r->wstop = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->th, NULL);
	r->wrunning = false;
}

void mon_rec_host_steal(struct mon_rec *r, uint64_t ns, bool valid)
{
	r->steal_ns = ns;
	r->steal_valid = valid;
}

uint64_t mon_rec_cpu_ns(const struct mon_rec *r)
{
	struct timespec ts;
	clockid_t cid;

	if (!r->wrunning)
		return r->wcpu_ns;
	if (pthread_getcpuclockid(r->th, &cid) || clock_gettime(cid, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int csv_segment_open(struct mon_rec *r)
{
	const struct mon_col *c;
	char name[32], path[4200];
	size_t i, n;
	int rc;

	rc = rec_flush(r);
	if (rc)
		return rc;
	if (r->csv_fd >= 0)
		close(r->csv_fd);
	r->csv.fd = -1;
	tmpl_free(r);	/* the JSON names follow the new layout */
	r->segment++;
	rec_seg_name(r->segment, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	r->csv_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (r->csv_fd < 0)
		return rec_fail(r, -errno, "%s", path);
	r->csv.fd = r->csv_fd;
	r->csv.done = 0;
	c = mon_engine_cols(r->e, &n);
	r->len = 0;
	line_printf(r, "seq,mono_ns,wall_ns,dt_ns,overruns,gaps");
	for (i = 0; i < n; i++) {
		line_put(r, ",", 1);
		csv_field(r, col_name(c, n, i));
	}
	line_put(r, "\n", 1);
	/* the writer is idle (rec_flush above): the header goes out from here */
	rc = pfc_write_all(r->csv_fd, r->line, r->len);
	if (rc)
		return rec_fail(r, rc, "%s", path);
	r->csv.done = (off_t)r->len;
	r->csv_ncol = n;
	r->layout = mon_engine_layout(r->e);
	return meta_write(r, false);
}

int mon_rec_check_dir(const char *dir)
{
	static const char *const names[] = { "meta.json", "samples.csv", REC_JSONL };
	char path[4200];
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!lstat(path, &st))
			return -EEXIST;
	}
	return 0;
}

/* Space for the final meta.json when the disk fills up: taken now, given back then. */
static void reserve_take(struct mon_rec *r)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/.reserve", r->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	r->reserve = posix_fallocate(fd, 0, RESERVE_BYTES) == 0;
	close(fd);
	if (!r->reserve)
		unlink(path);
}

static void reserve_give_back(struct mon_rec *r)
{
	char path[4200];

	if (!r->reserve)
		return;
	snprintf(path, sizeof(path), "%s/.reserve", r->dir);
	unlink(path);
	r->reserve = false;
}

int mon_rec_open(const char *dir, struct mon_engine *e, int argc, char **argv,
		 struct mon_rec **out)
{
	struct mon_rec *r = calloc(1, sizeof(*r));
	char path[4200];
	sigset_t all, old;
	int i, rc;

	if (!r)
		return -ENOMEM;
	*out = r;
	r->e = e;
	r->csv_fd = r->jsonl_fd = r->csv.fd = r->jsonl.fd = -1;
	r->cur = &r->job[0];
	for (i = REC_QLEN - 1; i > 0; i--)
		r->freel[r->nfree++] = (unsigned)i;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->wake, NULL);
	pthread_cond_init(&r->idle, NULL);
	r->first_wall_ns = time_real_ns();
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	rc = pfc_mkdir_p(dir); /* the run folder may be new, with new parents */
	if (rc)
		return rec_fail(r, rc, "creating run folder %s", dir);
	/* the files below are truncated; a replaced run's further segments must go too */
	rc = rec_segments_clear(dir, path, sizeof(path));
	if (rc)
		return rec_fail(r, rc, "%s", path);
	if (argv) {
		r->argv = json_object_new_array();
		for (i = 0; i < argc; i++)
			json_object_array_add(r->argv, json_object_new_string(argv[i]));
	}
	reserve_take(r);
	snprintf(path, sizeof(path), "%s/" REC_JSONL, dir);
	r->jsonl_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (r->jsonl_fd < 0)
		return rec_fail(r, -errno, "%s", path);
	r->jsonl.fd = r->jsonl_fd;
	rc = csv_segment_open(r);
	if (rc)
		return rc;
	/* Without the thread (no resources for one) batches are written in the loop. It
	 * takes no signals: SIGINT and SIGTERM go to the sampling thread, whose wait they
	 * end at once.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r->wrunning = pthread_create(&r->th, NULL, writer_main, r) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r->wrunning)
		pthread_setname_np(r->th, "pfc-writer");	/* for ps -L, top -H */
	return 0;
}



int mon_rec_sample(struct mon_rec *r, const struct mon_sample *s)
{
	struct rec_item *it;
	struct rec_samp *rs;
	struct rec_job *j;
	size_t n, len;
	int rc;

	rc = rec_check(r);
	if (rc)
		return rc;
	if (mon_engine_layout(r->e) != r->layout) {
		rc = csv_segment_open(r);
		if (rc)
			return rec_stop(r, rc);
	}
	mon_engine_cols(r->e, &n);
	if (!r->jcounter || r->jn != n || r->nsrc != mon_engine_nsrc(r->e)) {
		/* the writer reads the names unlocked: no batch may wait on the old ones */
		rc = rec_flush(r);
		if (!rc)
			rc = tmpl_build(r);
		if (rc)
			return rec_stop(r, rc);
	}
	/* the values as they are; the writer makes them text */
	j = r->cur;
	len = sizeof(*it) + sizeof(*rs) + s->ncol * sizeof(*s->v);
	rc = out_reserve(&j->raw, len);
	if (rc)
		return rec_stop(r, rec_fail(r, rc, "%s: recording", r->dir));
	it = (struct rec_item *)(void *)(j->raw.buf + j->raw.len);
	*it = (struct rec_item){ .type = REC_ITEM_SAMPLE, .len = (uint32_t)len };
	rs = (struct rec_samp *)(it + 1);
	*rs = (struct rec_samp){ .seq = s->seq, .mono_ns = s->mono_ns, .wall_ns = s->wall_ns,
				 .dt_ns = s->dt_ns, .overruns = s->overruns,
				 .gap_mask = s->gap_mask, .ncol = (uint32_t)s->ncol };
	memcpy(rs + 1, s->v, s->ncol * sizeof(*s->v));
	j->raw.len += len;
	j->samples++;
	r->overruns += s->overruns;
	if (!r->flushed_ns)
		r->flushed_ns = s->mono_ns;
	if (j->raw.len >= FLUSH_BYTES ||
	    s->mono_ns - r->flushed_ns >= FLUSH_NS) {
		r->flushed_ns = s->mono_ns;
		rec_handoff(r);
	}
	return 0;
}

/* An event's JSON line goes into the batch as it is, between the samples around it. */
static int event_put(struct mon_rec *r, const char *line)
{
	struct rec_buf *o = &r->cur->raw;
	size_t n = strlen(line), len = (sizeof(struct rec_item) + n + 1 + 7) & ~(size_t)7;
	struct rec_item *it;
	char *p;
	int rc = out_reserve(o, len);

	if (rc)
		return rec_fail(r, rc, "%s/" REC_JSONL, r->dir);
	it = (struct rec_item *)(void *)(o->buf + o->len);
	p = (char *)(it + 1);
	memcpy(p, line, n);
	p[n] = '\n';
	it->type = REC_ITEM_EVENT;
	it->len = (uint32_t)len;
	it->text = (uint32_t)n + 1;
	memset(p + n + 1, 0, len - sizeof(*it) - n - 1);
	o->len += len;
	return 0;
}

int mon_rec_event(struct mon_rec *r, const struct mon_event *ev)
{
	json_object *o;
	int rc;

	if (r->failed)
		return -EIO;
	o = json_object_new_object();
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
	rc = event_put(r, out_json_text(o, false));
	json_object_put(o);
	r->events++;
	if (ev->type == MON_EV_GAP_BEGIN)
		r->gaps++;
	if (!rc && (ev->type == MON_EV_LAYOUT || ev->type == MON_EV_UNSUPPORTED))
		rc = meta_write(r, false);
	return rc ? rec_stop(r, rc) : 0;
}

int mon_rec_close(struct mon_rec *r)
{
	int rc = 0, frc;
	size_t i;

	if (!r)
		return 0;
	frc = r->failed ? -EIO : rec_flush(r);
	writer_stop(r);
	/* after a full disk the reserve makes room for the final meta.json */
	reserve_give_back(r);
	if (r->jsonl_fd >= 0 && r->csv_fd >= 0)
		rc = meta_write(r, true);
	if (r->csv_fd >= 0)
		close(r->csv_fd);
	if (r->jsonl_fd >= 0)
		close(r->jsonl_fd);
	if (r->argv)
		json_object_put(r->argv);
	tmpl_free(r);
	for (i = 0; i < REC_QLEN; i++)
		free(r->job[i].raw.buf);
	free(r->txt.csv.buf);
	free(r->txt.jsonl.buf);
	free(r->txt.cend);
	free(r->txt.jend);
	pthread_cond_destroy(&r->idle);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->mu);
	free(r->line);
	free(r);
	return rc ? rc : frc;
}
