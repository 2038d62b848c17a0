// SPDX-License-Identifier: GPL-2.0-or-later
/* opt.c: the table-driven option parser and --help generator (see opt.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opt.h"
#include "lib/util.h"

#define OPT_MAX 96
#define HELP_COL 25

static const struct opt_cmd *cur;	/* the command being parsed, for say() */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A usage error: on standard error ("pfclab CMD: ..."), or into the command's buffer. */
static void say(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cur && cur->err && cur->errlen)
		snprintf(cur->err, cur->errlen, "%s", msg);
	else
		pfc_err("%s", msg);
}

/* Which options the last parse saw, by table index (one command parses at a time). */
static const struct opt *seen_tab;
static unsigned char seen[OPT_MAX];

static size_t count(const struct opt *t)
{
	size_t n = 0;

	while (t[n].name)
		n++;
	return n;
}

/* Up to most example durations that lie in [min, max], in the order of their size
 * ("500us, 10ms, 30s"); the first of the list are preferred.
 */
static void dur_examples(uint64_t min, uint64_t max, size_t most, char *buf, size_t len)
{
	static const struct { uint64_t ns; const char *text; } ex[] = {
		{ 10000000ULL, "10ms" }, { 30000000000ULL, "30s" }, { 500000ULL, "500us" },
		{ 300000000000ULL, "5m" }, { 250000000ULL, "250ms" }, { 2000000000ULL, "2s" },
		{ 3600000000000ULL, "1h" },
	};
	const size_t n_ex = sizeof(ex) / sizeof(ex[0]);
	bool take[sizeof(ex) / sizeof(ex[0])] = { false };
	size_t i, n = 0, off = 0;
	uint64_t last = 0;

	for (i = 0; i < n_ex && n < most; i++)
		if (ex[i].ns >= min && ex[i].ns <= max) {
			take[i] = true;
			n++;
		}
	buf[0] = '\0';
	while (n--) {			/* the smallest taken one above the last written */
		size_t best = n_ex;

		for (i = 0; i < n_ex; i++)
			if (take[i] && ex[i].ns > last && (best == n_ex || ex[i].ns < ex[best].ns))
				best = i;
		last = ex[best].ns;
		if (off >= len)
			break;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
					ex[best].text);
	}
}

/* A byte count as the options take it: 4K for 4096, 64 bytes for 64. */
static void size_str(uint64_t v, char *buf, size_t len)
{
	static const char sfx[] = "KMG";
	int i = -1;

	while (i < 2 && v && v % 1024 == 0) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%" PRIu64 " byte%s", v, v == 1 ? "" : "s");
	else
		snprintf(buf, len, "%" PRIu64 "%c", v, sfx[i]);
}

/* Up to three sizes that the option takes, from a fixed list; its least if none. */
static void size_examples(uint64_t min, uint64_t max, char *buf, size_t len)
{
	static const char *const text[] = { "64", "4K", "1M", "64M", "1G" };
	static const uint64_t val[] = { 64, 4096, 1 << 20, 64 << 20, 1 << 30 };
	size_t i, n = 0, at = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(val) && n < 3; i++) {
		if (val[i] < min || val[i] > max || at >= len)
			continue;
		at += snprintf(buf + at, len - at, "%s%s", n ? ", " : "", text[i]);
		n++;
	}
	if (!n)
		size_str(min, buf, len);
}

static const char *kind_want(const struct opt *o, char *buf, size_t len)
{
	char ex[64];
	char lo[32], hi[32];

	switch (o->kind) {
	case OPT_U32:
	case OPT_U64:
		if (o->max == UINT64_MAX || (o->kind == OPT_U32 && o->max == UINT32_MAX))
			snprintf(buf, len, "expected a whole number >= %" PRIu64, o->min);
		else
			snprintf(buf, len, "expected a whole number from %" PRIu64 " to %" PRIu64,
				 o->min, o->max);
		return buf;
	case OPT_SIZE:
		size_str(o->min, lo, sizeof(lo));
		size_str(o->max, hi, sizeof(hi));
		size_examples(o->min, o->max, ex, sizeof(ex));
		if (o->max == UINT64_MAX)
			snprintf(buf, len, "expected a size >= %s (e.g. %s)", lo, ex);
		else
			snprintf(buf, len, "expected a size from %s to %s (e.g. %s)", lo, hi, ex);
		return buf;
	case OPT_DUR:
		fmt_duration_ns(o->min, lo, sizeof(lo));
		fmt_duration_ns(o->max, hi, sizeof(hi));
		dur_examples(o->min, o->max, o->max == UINT64_MAX ? 4 : 3, ex, sizeof(ex));
		if (o->max == UINT64_MAX)
			snprintf(buf, len, "expected a duration >= %s%s%s%s", lo, *ex ? " (e.g. " : "",
				 ex, *ex ? ")" : "");
		else
			snprintf(buf, len, "expected a duration from %s to %s%s%s%s", lo, hi,
				 *ex ? " (e.g. " : "", ex, *ex ? ")" : "");
		return buf;
	default:
		return "invalid value";
	}
}

/* Messages name an option by its long name, whichever spelling was typed. */
static void spelled(const struct opt *o, char *buf, size_t len)
{
	snprintf(buf, len, "--%s", o->name);
}

static int store(const struct opt *o, const char *val)
{
	char why[256], name[64];
	uint64_t v64 = 0;
	int rc = 0;

	spelled(o, name, sizeof(name));
	switch (o->kind) {
	case OPT_TEXT:
		return 0;
	case OPT_FLAG:
		*(bool *)o->dst = true;
		return 0;
	case OPT_STR:
		*(const char **)o->dst = val;
		return 0;
	case OPT_U32:
	case OPT_U64:
		rc = parse_u64(val, o->min, o->max, &v64);
		break;
	case OPT_SIZE:
		rc = parse_size(val, o->min, o->max, &v64);
		break;
	case OPT_DUR:
		rc = parse_duration_ns(val, o->min, o->max, &v64);
		break;
	case OPT_FN:
		why[0] = '\0';
		if (o->fn(o->dst, val, why, sizeof(why)) == 0)
			return 0;
		say("%s '%s': %s", name, val ? val : "", why[0] ? why : "invalid value");
		return -1;
	}
	if (rc == -EDOM) {	/* a duration finer than the nanoseconds it is kept in */
		say("%s '%s': not a whole number of nanoseconds", name, val);
		return -1;
	}
	if (rc) {
		say("%s '%s': %s", name, val, kind_want(o, why, sizeof(why)));
		return -1;
	}
	if (o->kind == OPT_U32)
		*(uint32_t *)o->dst = (uint32_t)v64;	/* max <= UINT32_MAX in every table */
	else
		*(uint64_t *)o->dst = v64;
	return 0;
}

int opt_rdma_dev(const char *v, char *dev, size_t devlen, uint32_t *port, char *why,
		 size_t whylen)
{
	const char *colon = strchr(v, ':');
	size_t n = colon ? (size_t)(colon - v) : strlen(v);

	if (!n || n >= devlen || (colon && parse_u32(colon + 1, 1, 255, port))) {
		snprintf(why, whylen, "give DEV or DEV:PORT with a port number 1..255");
		return -1;
	}
	snprintf(dev, devlen, "%.*s", (int)n, v);
	return 0;
}

static int find_letter(const struct opt *t, size_t n, int c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].letter == c || (t[i].alias && c < 256 && strchr(t[i].alias, c)))
			return (int)i;
	return -1;
}

static size_t put_letter(char *so, size_t k, size_t len, char l, int has)
{
	if (k + 4 >= len)
		return k;
	so[k++] = l;
	if (has != no_argument)
		so[k++] = ':';
	if (has == optional_argument)
		so[k++] = ':';
	return k;
}

/* Whether the long-option prefix PFX (no leading "--") starts the names of two or more
 * options (a main name or its alias): getopt_long then calls it unknown. LIST gets them. */
static bool ambiguous(const struct opt *t, size_t n, const char *pfx, char *list, size_t len)
{
	size_t i, k = strlen(pfx), hits = 0, used = 0;

	if (!k)
		return false;
	list[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *m = NULL;

		if (t[i].name && !strncmp(t[i].name, pfx, k))
			m = t[i].name;
		else if (t[i].long_alias && !strncmp(t[i].long_alias, pfx, k))
			m = t[i].long_alias;
		if (!m)
			continue;
		hits++;
		if (used < len)
			used += (size_t)snprintf(list + used, len - used, "%s--%s", hits > 1 ? ", " : "",
						 m);
	}
	return hits > 1;
}

/* getopt_long's tables from ours: long options return 256 + index, letters themselves. */
static void build(const struct opt *t, size_t n, struct option *lo, char *so, size_t solen)
{
	size_t i, k = 0, nl = 0;
	const char *a;

	so[k++] = ':';	/* a missing value returns ':' so that we name it */
	so[k++] = 'h';
	for (i = 0; i < n; i++) {
		int has = t[i].kind == OPT_FLAG ? no_argument :
			  t[i].flags & OPT_OPTIONAL ? optional_argument : required_argument;

		if (t[i].kind == OPT_TEXT)
			continue;
		lo[nl++] = (struct option){ t[i].name, has, NULL, 256 + (int)i };
		/* the same value: getopt_long takes an abbreviation of both as no ambiguity */
		if (t[i].long_alias)
			lo[nl++] = (struct option){ t[i].long_alias, has, NULL, 256 + (int)i };
		if (t[i].letter)
			k = put_letter(so, k, solen, t[i].letter, has);
		for (a = t[i].alias; a && *a; a++)
			k = put_letter(so, k, solen, *a, has);
	}
	lo[nl] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[nl + 1] = (struct option){ 0 };
	so[k] = '\0';
}

int opt_parse(const struct opt_cmd *c, int argc, char **argv)
{
	struct option lo[2 * OPT_MAX + 2];	/* each option and its long alias */
	char so[3 * OPT_MAX + 8];
	const struct opt *t = c->opts;
	size_t n = count(t);
	int ch, i, idx;

	if (n > OPT_MAX)
		return OPT_USAGE;
	build(t, n, lo, so, sizeof(so));
	seen_tab = t;
	cur = c;
	if (c->err && c->errlen)
		c->err[0] = '\0';
	memset(seen, 0, sizeof(seen));
	opterr = 0;
	optind = 0;	/* 0, not 1: glibc then resets its state left by an earlier parse */
	for (optopt = 0; (ch = getopt_long(argc, argv, so, lo, &idx)) != -1; optopt = 0) {
		if (ch == 'h') {
			opt_help(c, stdout);
			return OPT_HELP;
		}
		if (ch == '?' || ch == ':') {
			const char *arg = argv[optind - 1];
			bool lng = !strncmp(arg, "--", 2) && optopt < 256;
			int k = optopt >= 256 ? optopt - 256 :
				optopt && !lng ? find_letter(t, n, optopt) : -1;
			char what[64], list[200];

			if (lng)
				snprintf(what, sizeof(what), "%.*s", (int)strcspn(arg, "="), arg);
			else if (k >= 0)
				snprintf(what, sizeof(what), "--%s", t[k].name);
			else if (optopt)
				snprintf(what, sizeof(what), "-%c", optopt);
			else
				snprintf(what, sizeof(what), "%s", arg);
			if (ch == ':')
				say("%s: needs a value (%s); see 'pfclab %s --help'", what,
					k >= 0 && t[k].arg ? t[k].arg : "see --help", c->name);
			else if (optopt >= 256)
				say("%s takes no value; see 'pfclab %s --help'", what, c->name);
			else if (lng && ambiguous(t, n, what + 2, list, sizeof(list)))
				say("'%s' is ambiguous: %s; give more of the name", what, list);
			else
				say("unknown option '%s'; see 'pfclab %s --help'", what, c->name);
			return OPT_USAGE;
		}
		if (ch >= 256) {
			i = ch - 256;
		} else {
			i = find_letter(t, n, ch);
			if (i < 0)
				return OPT_USAGE;
		}
		if ((t[i].flags & OPT_ONCE) && seen[i]) {
			say("--%s given twice; give it once", t[i].name);
			return OPT_USAGE;
		}
		seen[i] = 1;
		if (store(&t[i], t[i].kind == OPT_FLAG ? NULL : optarg))
			return OPT_USAGE;
	}
	return optind;
}

bool opt_given(const struct opt_cmd *c, const char *name)
{
	size_t i, n = count(c->opts);

	if (seen_tab != c->opts)
		return false;
	for (i = 0; i < n && i < OPT_MAX; i++)
		if (c->opts[i].kind != OPT_TEXT && !strcmp(c->opts[i].name, name))
			return seen[i];
	return false;
}

void opt_help(const struct opt_cmd *c, FILE *f)
{
	const struct opt *t = c->opts;
	char head[80];
	size_t i;

	fputs(c->usage, f);
	for (i = 0; t[i].name; i++) {
		const char *h = t[i].help, *nl;
		int w;

		if (t[i].kind == OPT_TEXT) {
			fprintf(f, "%s\n", h);
			continue;
		}
		if (t[i].letter)
			w = snprintf(head, sizeof(head), "  -%c, --%s", t[i].letter, t[i].name);
		else
			w = snprintf(head, sizeof(head), "      --%s", t[i].name);
		if (t[i].arg)
			w += snprintf(head + w, sizeof(head) - (size_t)w,
				      t[i].flags & OPT_OPTIONAL ? "[=%s]" : " %s", t[i].arg);
		fputs(head, f);
		if (w >= HELP_COL) {
			fputc('\n', f);
			w = 0;
		}
		for (;;) {
			nl = strchr(h, '\n');
			fprintf(f, "%*s%.*s\n", HELP_COL - w, "", (int)(nl ? nl - h : (int)strlen(h)), h);
			if (!nl)
				break;
			h = nl + 1;
			w = 0;
		}
		if (t[i].long_alias)
			fprintf(f, "%*s(also --%s)\n", HELP_COL, "", t[i].long_alias);
	}
	fprintf(f, "  -h, --help%*sthis help\n", HELP_COL - 12, "");
	if (c->extra)
		c->extra(f);
	if (c->tail)
		fputs(c->tail, f);
}
