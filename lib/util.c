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

static int parse_with_units(const char *s, const struct unit *units, size_t n,
			    uint64_t dflt_mult, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v, mult = dflt_mult;
	size_t i;
	int rc = parse_num(s, &v, &end);

	if (rc)
		return rc;
	if (*end) {
		for (i = 0; i < n; i++)
			if (!strcasecmp(end, units[i].name))
				break;
		if (i == n)
			return -EINVAL;
		mult = units[i].mult;
	}
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

int parse_duration_ns(const char *s, uint64_t min_ns, uint64_t max_ns, uint64_t *out)
{
	static const struct unit units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000ULL },
		{ "m", 60000000000ULL }, { "min", 60000000000ULL }, { "h", 3600000000000ULL },
	};

	return parse_with_units(s, units, ARRAY_SIZE(units), 1000000000ULL, min_ns, max_ns,
				out);
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
