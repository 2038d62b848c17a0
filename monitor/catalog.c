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

struct mon_catalog_row {
	char *source;
	char *drivers;
	char *raw;
	char *metric;
	char *unit;
	enum mon_kind kind;
	uint8_t width;
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

static bool pattern_ok(const char *s)
{
	for (; *s; s++)
		if (isspace((unsigned char)*s))
			return false;
	return true;
}

int mon_catalog_parse(const char *text, size_t len, struct mon_catalog **out, int *line_err)
{
	struct mon_catalog *c = calloc(1, sizeof(*c));
	size_t cap = 0;
	char *p, *next;
	int lineno = 0;

	*line_err = 0;
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
		char *f[8];
		size_t nf;

		lineno++;
		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		if (*p && p[strlen(p) - 1] == '\r')
			p[strlen(p) - 1] = '\0';
		if (*p == '#' || *p == '\0')
			continue;
		nf = pfc_split(p, '\t', f, 8);
		if ((nf != 6 && nf != 7) || (nf == 7 && strcmp(f[6], "32") && strcmp(f[6], "64")) || !*f[0] || !*f[1] || !*f[2] || !*f[3] ||
		    (strcmp(f[5], "counter") && strcmp(f[5], "gauge")) ||
		    !pattern_ok(f[2]) || !pattern_ok(f[3]))
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
		};
	}
	*out = c;
	return 0;
bad:
	*line_err = lineno;
	mon_catalog_free(c);
	return -EINVAL;
}

int mon_catalog_builtin(struct mon_catalog **out)
{
	size_t len;
	const char *t = mon_catalog_data(&len);
	int line;

	return mon_catalog_parse(t, len, out, &line);
}

int mon_catalog_load(const char *path, struct mon_catalog **out, int *line_err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	int rc;

	*line_err = 0;
	if (!f)
		return -errno;
	buf = malloc(1 << 20);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	len = fread(buf, 1, (1 << 20) - 1, f);
	rc = ferror(f) ? -EIO : (!feof(f) ? -EFBIG : 0);
	fclose(f);
	if (!rc)
		rc = mon_catalog_parse(buf, len, out, line_err);
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
 * digits, '-', '_'; no dot). The capture goes to cap.
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
