// SPDX-License-Identifier: GPL-2.0-or-later
/* timeline.c: review's timeline CSV, written from the summary's bins and read back line
 * by line with every field checked (bounded lines, decimal counts within 64 bits, one
 * bin between rows), so a damaged file is named with its line, never read as numbers.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"
#include "monitor/frames/timeline.h"

static const char *const tl_names[FRAMES_TL_NCOL] = {
	"time_s", "frames", "pause", "pfc", "cnp", "roce", "roce_ce", "other", "truncated",
	"invalid",
	"paused_ns_prio0", "paused_ns_prio1", "paused_ns_prio2", "paused_ns_prio3",
	"paused_ns_prio4", "paused_ns_prio5", "paused_ns_prio6", "paused_ns_prio7",
	"paused_ns_pause",
	"pfc_prio0", "pfc_prio1", "pfc_prio2", "pfc_prio3", "pfc_prio4", "pfc_prio5",
	"pfc_prio6", "pfc_prio7",
};

/* What review has written from the start: the columns before pfc_prio0. */
#define TL_REQUIRED ((UINT64_C(1) << FRAMES_TL_PFC_PRIO0) - 1)
#define TL_PAUSED(c) ((c) >= FRAMES_TL_PAUSED0 && (c) < FRAMES_TL_PFC_PRIO0)

const char *frames_tl_name(int c)
{
	return c >= 0 && c < FRAMES_TL_NCOL ? tl_names[c] : NULL;
}

/* ---- writer ----------------------------------------------------------------------- */

bool frames_tl_write(FILE *f, const struct frames_stats *st)
{
	size_t i;
	int c, p;

	for (c = 0; c < FRAMES_TL_NCOL; c++)
		fprintf(f, "%s%c", tl_names[c], c + 1 < FRAMES_TL_NCOL ? ',' : '\n');
	for (i = 0; i < st->bins_used; i++) {
		const struct frames_bin *b = &st->bins[i];
		uint64_t n = b->truncated + b->invalid, t = st->bin_t0 + i * st->bin_ns, k;

		if (i % 1024 == 0 && ferror(f))
			return false;	/* a closed pipe, a full disk */
		for (k = 0; k < FRAMES_KIND_MAX; k++)
			n += b->kind[k];
		fprintf(f, "%" PRIu64 ".%09" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
			t / UINT64_C(1000000000), t % UINT64_C(1000000000), n,
			b->kind[FRAMES_KIND_PAUSE], b->kind[FRAMES_KIND_PFC],
			b->kind[FRAMES_KIND_CNP], b->kind[FRAMES_KIND_ROCE], b->ce,
			b->kind[FRAMES_KIND_OTHER] + b->kind[FRAMES_KIND_MACCTL], b->truncated,
			b->invalid);
		/* paused time needs the link speed: without it the field stays empty */
		for (p = 0; p < FRAMES_NPRIO; p++)
			if (st->prio[p].time_valid)
				fprintf(f, ",%" PRIu64, i < st->npaused ? st->bin_paused[i][p] : 0);
			else
				fputc(',', f);
		for (p = 0; p < 8; p++)
			fprintf(f, ",%" PRIu64, b->pfc_prio[p]);
		fputc('\n', f);
	}
	return !ferror(f);
}

/* ---- reader ----------------------------------------------------------------------- */

static int tl_fail(struct frames_tl_reader *r, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int tl_fail(struct frames_tl_reader *r, int rc, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, sizeof(r->err), "line %" PRIu64 ": ", r->line);

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(r->err))
		vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	r->rc = rc;
	return rc;
}

/* A field of the file, shown in a message: at most 24 bytes, printable ASCII only (the
 * message lands on a terminal). */
static const char *shown(const char *s, char *buf, size_t n)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < n && i < 24; i++)
		buf[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	buf[i] = '\0';
	if (s[i] && i + 4 < n)
		memcpy(buf + i, "...", 4);
	return buf;
}

/* Decimal digits only (no sign, no space, no 0x), at most 20, within 64 bits. */
static bool dec_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9 || i >= 20 || x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return i > 0;
}

/* time_s: seconds, then optionally '.' and 1 to 9 digits, as ns within 64 bits. */
static bool time_ns(const char *s, uint64_t *ns)
{
	char sec[24];
	const char *dot = strchr(s, '.');
	size_t ls = dot ? (size_t)(dot - s) : strlen(s), i;
	uint64_t a, frac = 0;

	if (!ls || ls >= sizeof(sec))
		return false;
	memcpy(sec, s, ls);
	sec[ls] = '\0';
	if (!dec_u64(sec, &a) || a > UINT64_MAX / 1000000000u)
		return false;
	if (dot) {
		const char *f = dot + 1;
		size_t lf = strlen(f);

		if (!lf || lf > 9 || !dec_u64(f, &frac))
			return false;
		for (i = lf; i < 9; i++)
			frac *= 10;
	}
	a *= 1000000000u;
	if (a > UINT64_MAX - frac)
		return false;
	*ns = a + frac;
	return true;
}

/* One line into buf (n bytes, FRAMES_TL_MAX_LINE + 1), without its end of line: 1; 0 at
 * the end; -EINVAL when longer than FRAMES_TL_MAX_LINE or holding a NUL byte, -EIO on a
 * read error (r->err set). Read byte by byte so no line, however long, takes memory. */
static int tl_line(struct frames_tl_reader *r, char *buf, size_t n)
{
	size_t l = 0;
	int ch = getc_unlocked(r->f);

	if (ch == EOF)
		return ferror(r->f) ? tl_fail(r, -EIO, "read error after this line") : 0;
	r->line++;
	for (; ch != EOF && ch != '\n'; ch = getc_unlocked(r->f)) {
		if (l + 1 >= n)
			return tl_fail(r, -EINVAL, "longer than %d bytes", FRAMES_TL_MAX_LINE);
		if (!ch)
			return tl_fail(r, -EINVAL, "a NUL byte in the line");
		buf[l++] = (char)ch;
	}
	if (ch == EOF && ferror(r->f))
		return tl_fail(r, -EIO, "read error");
	if (l && buf[l - 1] == '\r')
		l--;
	buf[l] = '\0';
	return 1;
}

static int tl_header(struct frames_tl_reader *r)
{
	char buf[FRAMES_TL_MAX_LINE + 1], *fld[FRAMES_TL_MAX_FIELDS + 1];
	size_t n, i;
	int c, rc = tl_line(r, buf, sizeof(buf));

	if (!rc) {
		snprintf(r->err, sizeof(r->err), "empty: no header line");
		return r->rc = -EINVAL;
	}
	if (rc < 0)
		return rc;
	n = pfc_split(buf, ',', fld, FRAMES_TL_MAX_FIELDS + 1);
	if (n > FRAMES_TL_MAX_FIELDS)
		return tl_fail(r, -EINVAL, "more than %d columns", FRAMES_TL_MAX_FIELDS);
	for (i = 0; i < n; i++) {
		r->map[i] = -1;
		for (c = 0; c < FRAMES_TL_NCOL; c++)
			if (!strcmp(fld[i], tl_names[c]))
				break;
		if (c == FRAMES_TL_NCOL)
			continue;	/* a column added later: not read here */
		if (r->cols & (UINT64_C(1) << c))
			return tl_fail(r, -EINVAL, "column '%s' twice", tl_names[c]);
		r->map[i] = c;
		r->cols |= UINT64_C(1) << c;
	}
	r->nfield = (unsigned)n;
	for (c = 0; c < FRAMES_TL_NCOL; c++)
		if ((TL_REQUIRED & (UINT64_C(1) << c)) && !(r->cols & (UINT64_C(1) << c)))
			return tl_fail(r, -EINVAL, "no column '%s' in the header: not a "
				       "timeline of pfclab review", tl_names[c]);
	return 0;
}

int frames_tl_open(struct frames_tl_reader *r, const char *path)
{
	struct stat st;
	int fd, rc;

	memset(r, 0, sizeof(*r));
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);	/* a FIFO must not block */
	if (fd < 0) {
		rc = -errno;
		if (rc != -ENOENT)
			snprintf(r->err, sizeof(r->err), "%s", strerror(-rc));
		return r->rc = rc;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(r->err, sizeof(r->err), "not a regular file");
		return r->rc = -EINVAL;
	}
	if ((uint64_t)st.st_size > FRAMES_TL_MAX_BYTES) {
		close(fd);
		snprintf(r->err, sizeof(r->err), "%" PRIu64 " bytes, over the %llu MiB read at most",
			 (uint64_t)st.st_size, FRAMES_TL_MAX_BYTES >> 20);
		return r->rc = -EFBIG;
	}
	r->f = fdopen(fd, "r");
	if (!r->f) {
		rc = -errno;
		close(fd);
		snprintf(r->err, sizeof(r->err), "%s", strerror(-rc));
		return r->rc = rc;
	}
	rc = tl_header(r);
	if (rc) {
		fclose(r->f);
		r->f = NULL;
	}
	return rc;
}

/* The row's time against the rows before: the second one sets the bin, every later one
 * is one bin further. */
static int tl_step(struct frames_tl_reader *r, uint64_t t)
{
	char a[32], b[32];

	if (!r->rows) {
		r->t0 = t;
		return 0;
	}
	if (r->rows == 1) {
		if (t <= r->t0)
			return tl_fail(r, -EINVAL, "time_s does not step forward from the row "
				       "before (review writes one row per bin, in order)");
		r->bin_ns = t - r->t0;
		return 0;
	}
	if (r->rows > (UINT64_MAX - r->t0) / r->bin_ns || t != r->t0 + r->rows * r->bin_ns) {
		fmt_duration_ns(r->bin_ns, a, sizeof(a));
		snprintf(b, sizeof(b), "%" PRIu64 ".%09" PRIu64, t / 1000000000u,
			 t % 1000000000u);
		return tl_fail(r, -EINVAL, "time_s %s is not one bin (%s) after the row before",
			       b, a);
	}
	return 0;
}

int frames_tl_next(struct frames_tl_reader *r, struct frames_tl_row *row)
{
	char buf[FRAMES_TL_MAX_LINE + 1], *fld[FRAMES_TL_MAX_FIELDS + 1], s[32];
	size_t n, i;
	int rc;

	if (r->rc || !r->f)
		return r->rc;
	do {
		rc = tl_line(r, buf, sizeof(buf));
		if (rc <= 0)
			return rc;
	} while (!buf[0]);	/* a blank line holds nothing */
	if (r->rows >= FRAMES_MAX_BINS)
		return tl_fail(r, -E2BIG, "more than %u rows, more than review writes",
			       FRAMES_MAX_BINS);
	n = pfc_split(buf, ',', fld, FRAMES_TL_MAX_FIELDS + 1);
	if (n != r->nfield)
		return tl_fail(r, -EINVAL, "%zu fields where the header has %u", n, r->nfield);
	memset(row, 0, sizeof(*row));
	for (i = 0; i < n; i++) {
		int c = r->map[i];

		if (c < 0)
			continue;
		if (c == FRAMES_TL_TIME) {
			if (!time_ns(fld[i], &row->v[c]))
				return tl_fail(r, -EINVAL, "time_s '%s' is not seconds.nanoseconds",
					       shown(fld[i], s, sizeof(s)));
		} else if (!fld[i][0]) {
			if (!TL_PAUSED(c))	/* only a pause time may be unknown */
				return tl_fail(r, -EINVAL, "%s is empty", tl_names[c]);
			continue;
		} else if (!dec_u64(fld[i], &row->v[c])) {
			return tl_fail(r, -EINVAL, "%s '%s' is not a count", tl_names[c],
				       shown(fld[i], s, sizeof(s)));
		}
		row->have |= UINT64_C(1) << c;
	}
	rc = tl_step(r, row->v[FRAMES_TL_TIME]);
	if (rc)
		return rc;
	r->rows++;
	return 1;
}

void frames_tl_close(struct frames_tl_reader *r)
{
	if (r->f)
		fclose(r->f);
	r->f = NULL;
}
