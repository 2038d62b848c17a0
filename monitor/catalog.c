// SPDX-License-Identifier: GPL-2.0-or-later
/* catalog.c: parses the raw-name -> metric table and matches counter names against it. */
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "monitor/catalog.h"
#include "monitor/catalog_data.h"
#include "monitor/monitor.h"

struct mon_catalog_row {
	char *source;
	char *drivers;
	char *raw;
	char *metric;
	char *unit;
	enum mon_kind kind;
	uint8_t width;
	char *ref;	/* the row's "# ..." tail: the upstream source it was checked
			 * against; NULL without one */
};

struct mon_catalog {
	struct mon_catalog_row *rows;
	size_t n;
	char *text;	/* one copy of the file; rows point into it */
};

void mon_catalog_free(struct mon_catalog *c)
{
	if (!c)
		return;
	free(c->rows);
	free(c->text);
	free(c);
}

size_t mon_catalog_size(const struct mon_catalog *c)
{
	return c ? c->n : 0;
}

int mon_catalog_row(const struct mon_catalog *c, size_t i, struct mon_catalog_info *info)
{
	const struct mon_catalog_row *r;

	if (!c || i >= c->n)
		return -ENOENT;
	r = &c->rows[i];
	*info = (struct mon_catalog_info){
		.source = r->source, .drivers = r->drivers, .raw = r->raw, .metric = r->metric,
		.unit = r->unit, .kind = r->kind, .width = r->width, .ref = r->ref,
	};
	return 0;
}

static bool pattern_ok(const char *s)
{
	for (; *s; s++)
		if (isspace((unsigned char)*s))
			return false;
	return true;
}

/* The sources' names (their ops' .name): a line for another one would never match. */
static const char catalog_sources[] = MON_SOURCES ",frames";

/* Why one line's nf fields (8: 8 or more) are not a catalog row, into why; "" when they
 * are one.
 */
static void line_check(char *const *f, size_t nf, char *why, size_t len)
{
	static const char *const col[] = { "source", "drivers", "raw", "metric" };
	size_t i;

	why[0] = '\0';
	if (nf != 6 && nf != 7) {
		snprintf(why, len, "%s%zu field%s, expected 6 or 7 separated by tabs (source "
			 "drivers raw metric unit counter|gauge [32|64] [# reference])%s",
			 nf > 7 ? "over " : "",
			 nf > 7 ? (size_t)7 : nf, nf == 1 ? "" : "s",
			 nf < 6 && strchr(f[0], ' ') ? ": are they separated by spaces?" : "");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(col); i++)
		if (!*f[i]) {
			snprintf(why, len, "the %s field is empty", col[i]);
			return;
		}
	if (!pfc_list_has(catalog_sources, f[0], strlen(f[0])))
		snprintf(why, len, "source '%s': expected one of " MON_SOURCES_TEXT ", frames", f[0]);
	else if (*f[1] == ',' || f[1][strlen(f[1]) - 1] == ',' || strstr(f[1], ",,"))
		/* an empty name would match a device whose driver is not known */
		snprintf(why, len, "drivers '%s': an empty name (a comma at the start, at the "
			 "end or twice); give driver names with one comma between them, or *", f[1]);
	else if (!pattern_ok(f[2]) || !pattern_ok(f[3]))
		snprintf(why, len, "%s '%s' holds white space", pattern_ok(f[2]) ? "metric" : "raw",
			 pattern_ok(f[2]) ? f[3] : f[2]);
	else if (strcmp(f[5], "counter") && strcmp(f[5], "gauge"))
		snprintf(why, len, "kind '%s': expected counter or gauge", f[5]);
	else if (nf == 7 && strcmp(f[6], "32") && strcmp(f[6], "64"))
		snprintf(why, len, "bits '%s': expected 32 or 64", f[6]);
}

int mon_catalog_parse(const char *text, size_t len, struct mon_catalog **out,
		      struct mon_catalog_err *err)
{
	struct mon_catalog *c = calloc(1, sizeof(*c));
	size_t cap = 0;
	char *p, *next;
	int lineno = 0;

	err->line = 0;
	err->why[0] = '\0';
	if (!c)
		return -ENOMEM;
	c->text = malloc(len + 1);
	if (!c->text) {
		free(c);
		return -ENOMEM;
	}
	memcpy(c->text, text, len);
	c->text[len] = '\0';
	for (p = c->text; p && *p; p = next) {
		char *f[8], *ref;
		size_t nf;

		lineno++;
		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		if (*p && p[strlen(p) - 1] == '\r')
			p[strlen(p) - 1] = '\0';
		if (*p == '#' || *p == '\0')
			continue;
		/* A field that starts with '#' ends the row: the rest of the line is its
		 * reference (where the name and its meaning were checked). */
		ref = strstr(p, "\t#");
		if (ref) {
			*ref = '\0';
			ref += 2;
			while (*ref == ' ' || *ref == '\t')
				ref++;
		}
		nf = pfc_split(p, '\t', f, 8);
		line_check(f, nf, err->why, sizeof(err->why));
		if (err->why[0])
			goto bad;
		if (c->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct mon_catalog_row *r = realloc(c->rows, ncap * sizeof(*r));

			if (!r) {
				mon_catalog_free(c);
				return -ENOMEM;
			}
			c->rows = r;
			cap = ncap;
		}
		c->rows[c->n++] = (struct mon_catalog_row){
			.source = f[0], .drivers = f[1], .raw = f[2], .metric = f[3],
			.unit = f[4], .kind = strcmp(f[5], "counter") ? MON_GAUGE : MON_COUNTER,
			.width = nf == 7 ? (uint8_t)atoi(f[6]) : 0,
			.ref = ref && *ref ? ref : NULL,
		};
	}
	*out = c;
	return 0;
bad:
	err->line = lineno;
	mon_catalog_free(c);
	return -EINVAL;
}

int mon_catalog_builtin(struct mon_catalog **out)
{
	size_t len;
	const char *t = mon_catalog_data(&len);
	struct mon_catalog_err err;

	return mon_catalog_parse(t, len, out, &err);
}

int mon_catalog_load(const char *path, struct mon_catalog **out, struct mon_catalog_err *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	int rc;

	err->line = 0;
	err->why[0] = '\0';
	if (!f)
		return -errno;
	buf = malloc(1 << 20);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	errno = 0;
	len = fread(buf, 1, (1 << 20) - 1, f);
	/* a folder opens, and fails only here (EISDIR) */
	rc = ferror(f) ? -(errno ? errno : EIO) : (!feof(f) ? -EFBIG : 0);
	fclose(f);
	if (!rc)
		rc = mon_catalog_parse(buf, len, out, err);
	free(buf);
	return rc;
}

static bool driver_match(const char *list, const char *driver)
{
	return !strcmp(list, "*") || pfc_list_has(list, driver, strlen(driver));
}

/* A qdisc name character ({h}): hex handle digits, "root", "p1-2" (by parent). */
static bool handle_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* Match raw against pat; {p} takes one digit, {n} one or more, {h} a qdisc name (letters,
 * digits, '-', '_'; no dot); blanks at the end of raw are ignored. The capture goes to cap.
 */
static bool raw_match(const char *pat, const char *raw, char *cap, size_t capsz)
{
	cap[0] = '\0';
	while (*pat) {
		if (!strncmp(pat, "{h}", 3)) {
			size_t n = 0;

			while (handle_char(raw[n]))
				n++;
			if (n == 0 || n >= capsz)
				return false;
			memcpy(cap, raw, n);
			cap[n] = '\0';
			raw += n;
			pat += 3;
			continue;
		}
		if (!strncmp(pat, "{p}", 3) || !strncmp(pat, "{n}", 3)) {
			size_t n = 0;
			bool one = pat[1] == 'p';

			while (isdigit((unsigned char)raw[n]) && (!one || n < 1))
				n++;
			if (n == 0 || n >= capsz)
				return false;
			memcpy(cap, raw, n);
			cap[n] = '\0';
			raw += n;
			pat += 3;
			continue;
		}
		if (*pat++ != *raw++)
			return false;
	}
	/* Trailing blanks are no part of a name: older mlx5 drivers spell
	 * "tx_pause_storm_warning_events " (en_stats.c, pport_pfc_stall_stats_desc). */
	while (*raw == ' ')
		raw++;
	return *raw == '\0';
}

static void expand(const char *tmpl, const char *cap, int index, const char *dev, char *out,
		   size_t size)
{
	size_t o = 0;

	while (*tmpl && o + 1 < size) {
		const char *sub = NULL;
		char num[16];

		if (!strncmp(tmpl, "{p}", 3) || !strncmp(tmpl, "{n}", 3) ||
		    !strncmp(tmpl, "{h}", 3)) {
			sub = cap;
		} else if (!strncmp(tmpl, "{d}", 3)) {
			sub = dev ? dev : "";
		} else if (!strncmp(tmpl, "{i}", 3)) {
			snprintf(num, sizeof(num), "%d", index < 0 ? 0 : index);
			sub = num;
		}
		if (sub) {
			size_t n = strlen(sub);

			if (n > size - 1 - o)
				n = size - 1 - o;
			memcpy(out + o, sub, n);
			o += n;
			tmpl += 3;
			continue;
		}
		out[o++] = *tmpl++;
	}
	out[o] = '\0';
}

int mon_catalog_lookup(const struct mon_catalog *c, const char *source, const char *driver,
		       const char *raw, int index, struct mon_catalog_hit *hit)
{
	return mon_catalog_lookup_dev(c, source, driver, NULL, raw, index, hit);
}

int mon_catalog_lookup_dev(const struct mon_catalog *c, const char *source, const char *driver,
			   const char *dev, const char *raw, int index,
			   struct mon_catalog_hit *hit)
{
	size_t i;
	char cap[32];

	if (!c)
		return 0;
	for (i = 0; i < c->n; i++) {
		const struct mon_catalog_row *r = &c->rows[i];

		if (strcmp(r->source, source) || !driver_match(r->drivers, driver ? driver : ""))
			continue;
		if (!raw_match(r->raw, raw, cap, sizeof(cap)))
			continue;
		expand(r->metric, cap, index, dev, hit->metric, sizeof(hit->metric));
		hit->unit = r->unit;
		hit->kind = r->kind;
		hit->width = r->width;
		return 1;
	}
	return 0;
}
