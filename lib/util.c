// SPDX-License-Identifier: GPL-2.0-or-later
/* util.c: diagnostics, number/size/duration parsing and clocks shared by all components. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static const char *progname = "pfclab";

void pfc_set_progname(const char *name)
{
	progname = name;
}

const char *pfc_progname(void)
{
	return progname;
}

static void vmsg(const char *tag, int err, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (err)
		fprintf(stderr, "%s: %s%s: %s\n", progname, tag, line, strerror(err));
	else
		fprintf(stderr, "%s: %s%s\n", progname, tag, line);
}

void pfc_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", 0, fmt, ap);
	va_end(ap);
}

void pfc_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", err, fmt, ap);
	va_end(ap);
}

void pfc_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", 0, fmt, ap);
	va_end(ap);
}

int pfc_bad_arg(const char *opt, const char *val, const char *want)
{
	pfc_err("%s '%s': %s", opt, val, want);
	return 2;
}

int pfc_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

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

int pfc_mkdir_p(const char *dir)
{
	char tmp[4096], *p;

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
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

int pfc_why(char *why, size_t n, int err, const char *fmt, ...)
{
	va_list ap;

	if (why && n) {
		va_start(ap, fmt);
		vsnprintf(why, n, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* Parse the leading unsigned decimal (or 0x hex) number; *end points after it. */
static int parse_num(const char *s, uint64_t *v, const char **end)
{
	char *e;
	unsigned long long x;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &e, 0);
	if (e == s)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*v = x;
	*end = e;
	return 0;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int rc = parse_num(s, &v, &end);

	if (rc)
		return rc;
	if (*end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;
	int rc = parse_u64(s, min, max, &v);

	if (!rc)
		*out = (uint32_t)v;
	return rc;
}

struct unit {
	const char *name;
	uint64_t mult;
};

/* The multiplier of the unit NAME (any case) in UNITS: 0, or -EINVAL for no such unit. */
static int unit_find(const char *name, const struct unit *units, size_t n, uint64_t *mult)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcasecmp(name, units[i].name)) {
			*mult = units[i].mult;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_with_units(const char *s, const struct unit *units, size_t n,
			    uint64_t dflt_mult, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v, mult = dflt_mult;
	int rc = parse_num(s, &v, &end);

	if (rc)
		return rc;
	if (*end && unit_find(end, units, n, &mult))
		return -EINVAL;
	if (mult && v > UINT64_MAX / mult)
		return -ERANGE;
	v *= mult;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	static const struct unit units[] = {
		{ "b", 1 },
		{ "k", 1ULL << 10 }, { "kb", 1ULL << 10 }, { "kib", 1ULL << 10 },
		{ "m", 1ULL << 20 }, { "mb", 1ULL << 20 }, { "mib", 1ULL << 20 },
		{ "g", 1ULL << 30 }, { "gb", 1ULL << 30 }, { "gib", 1ULL << 30 },
	};

	return parse_with_units(s, units, ARRAY_SIZE(units), 1, min, max, out);
}

static const struct unit dur_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000ULL },
	{ "m", 60000000000ULL }, { "min", 60000000000ULL }, { "h", 3600000000000ULL },
};

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The decimal fraction 0.DIGITS (n digits, trailing zeros already cut) of one unit of
 * mult ns, exactly: 0 and *ns, -EDOM when it is no whole number of ns, -ERANGE.
 * With the zeros cut, 10^n divides DIGITS * mult only when n is at most the number of
 * 2s or of 5s in mult (13 at most, for 1 h), so 18 digits fit any that can.
 */
static int dur_fraction(const char *digits, size_t n, uint64_t mult, uint64_t *ns)
{
	uint64_t num = 0, den = 1, g;
	size_t i;

	if (n > 18)
		return -EDOM;
	for (i = 0; i < n; i++) {
		num = num * 10 + (uint64_t)(digits[i] - '0');
		den *= 10;
	}
	g = gcd_u64(mult, den);
	den /= g;
	mult /= g;
	if (num % den)
		return -EDOM;
	num /= den;
	if (mult && num > UINT64_MAX / mult)
		return -ERANGE;
	*ns = num * mult;
	return 0;
}

int parse_duration_ns(const char *s, uint64_t min_ns, uint64_t max_ns, uint64_t *out)
{
	const char *p = s, *frac = NULL;
	uint64_t whole = 0, mult = 1000000000ULL, part = 0, v;
	size_t nfrac = 0;
	bool big = false;
	int rc;

	if (!s || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			big = true;
		else
			whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		frac = ++p;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		while (isdigit((unsigned char)*p))
			p++;
		nfrac = (size_t)(p - frac);
		while (nfrac && frac[nfrac - 1] == '0')
			nfrac--;
	}
	if (*p && unit_find(p, dur_units, ARRAY_SIZE(dur_units), &mult))
		return -EINVAL;
	rc = dur_fraction(frac, nfrac, mult, &part);
	if (rc == -EDOM)
		return rc;
	if (big || rc || whole > UINT64_MAX / mult)
		return -ERANGE;
	v = whole * mult;
	if (v > UINT64_MAX - part)
		return -ERANGE;
	v += part;
	if (v < min_ns || v > max_ns)
		return -ERANGE;
	*out = v;
	return 0;
}

void fmt_duration_ns(uint64_t ns, char *buf, size_t len)
{
	/* h and m only when whole: "90s", not "1.5m" */
	static const struct unit whole[] = { { "h", 3600000000000ULL }, { "m", 60000000000ULL } };
	static const struct unit dec[] = { { "s", 1000000000ULL }, { "ms", 1000000 },
					   { "us", 1000 } };
	const struct unit *u = NULL;
	char fr[16];
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(whole) && !u; i++)
		if (ns && ns % whole[i].mult == 0)
			u = &whole[i];
	for (i = 0; i < ARRAY_SIZE(dec) && !u; i++)
		if (ns >= dec[i].mult)
			u = &dec[i];
	if (!u) {
		snprintf(buf, len, "%" PRIu64 "ns", ns);
		return;
	}
	/* the fraction's digits (as many as the unit has ns places), trailing zeros cut */
	n = (size_t)snprintf(fr, sizeof(fr), "%0*" PRIu64,
			     u->mult == 1000000000ULL ? 9 : u->mult == 1000000 ? 6 : 3,
			     ns % u->mult);
	while (n && fr[n - 1] == '0')
		n--;
	fr[n] = '\0';
	snprintf(buf, len, "%" PRIu64 "%s%s%s", ns / u->mult, n ? "." : "", n ? fr : "",
		 u->name);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t time_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t time_real_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

uint64_t time_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

int pfc_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct timespec ns_timespec(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000ULL),
				  .tv_nsec = (long)(ns % 1000000000ULL) };
}

size_t pfc_split(char *s, char sep, char **f, size_t max)
{
	size_t n = 0;

	if (!max)
		return 0;
	for (;;) {
		f[n++] = s;
		if (n == max || !(s = strchr(s, sep)))
			break;
		*s++ = '\0';
	}
	return n;
}

bool pfc_ifname_valid(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 15 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || isspace((unsigned char)s[i]) ||
		    (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

bool pfc_list_has(const char *list, const char *item, size_t n)
{
	const char *p = list;

	while (*p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == n && !strncmp(p, item, n))
			return true;
		if (!e)
			break;
		p = e + 1;
	}
	return false;
}
