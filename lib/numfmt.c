// SPDX-License-Identifier: GPL-2.0-or-later
/* numfmt.c: numbers in decimal exactly as printf writes them, the common cases by integer
 * arithmetic and the rest through snprintf (see numfmt.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/numfmt.h"

#define MAX_DIGITS 12	/* decimals the quick way writes at most */

static const uint64_t P10[] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
	100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
};

/* Powers of ten as doubles, 1e-4 .. 1e9, for the exponent of %g. */
static const double P10D[] = { 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6,
			       1e7, 1e8, 1e9 };
#define P10D_MIN (-4)

/* What snprintf returns after it wrote s (len bytes) into buf of n bytes. */
static int put(char *buf, size_t n, const char *s, size_t len)
{
	if (n) {
		size_t k = len < n - 1 ? len : n - 1;

		memcpy(buf, s, k);
		buf[k] = '\0';
	}
	return (int)len;
}

/* The digits of v, backwards from end; returns where they start. */
static char *digits_back(char *end, uint64_t v)
{
	do
		*--end = (char)('0' + v % 10);
	while ((v /= 10));
	return end;
}

/* a * 10^d rounded to an integer as printf rounds the exact decimal value of a, or false
 * where the product's rounding error could put it on the other side of a half (a tie
 * included: printf's result there follows the rounding mode).
 */
static bool scaled(double a, int d, uint64_t *out)
{
	double s = a * (double)P10[d], frac;
	uint64_t i;

	if (!(s < 4e15))	/* exact integers in a double, with room */
		return false;
	i = (uint64_t)s;
	frac = s - (double)i;	/* exact: s < 2^53 */
	if (fabs(frac - 0.5) <= ldexp(s, -50) + 0x1p-60)
		return false;
	*out = i + (frac > 0.5);
	return true;
}

/* sign, integer part of i / 10^d, and d decimals of it, into p (room for 40 bytes). */
static size_t fixed_text(char *p, bool minus, uint64_t i, int d)
{
	char t[40], *end = t + sizeof(t), *s;
	uint64_t ip = i / P10[d], fp = i % P10[d];
	int k;

	s = end;
	if (d > 0) {
		for (k = 0; k < d; k++, fp /= 10)
			*--s = (char)('0' + fp % 10);
		*--s = '.';
	}
	s = digits_back(s, ip);
	if (minus)
		*--s = '-';
	memcpy(p, s, (size_t)(end - s));
	return (size_t)(end - s);
}

int numfmt_fixed(char *buf, size_t n, int prec, double v)
{
	char t[40];
	uint64_t i;

	if (!isfinite(v) || prec < 0 || prec > MAX_DIGITS || !scaled(fabs(v), prec, &i))
		return snprintf(buf, n, "%.*f", prec, v);
	return put(buf, n, t, fixed_text(t, signbit(v), i, prec));
}

int numfmt_general(char *buf, size_t n, int prec, double v)
{
	double a = fabs(v);
	char t[40];
	size_t len;
	uint64_t i;
	int e, d;

	if (prec == 0)
		prec = 1;
	if (v == 0 && prec > 0)
		return put(buf, n, signbit(v) ? "-0" : "0", signbit(v) ? 2 : 1);
	/* %g uses %f's form for exponents -4 .. prec - 1 */
	if (!isfinite(v) || prec < 1 || prec > 9 || !(a >= P10D[0]) || !(a < P10D[prec - P10D_MIN]))
		return snprintf(buf, n, "%.*g", prec, v);
	for (e = prec - 1; a < P10D[e - P10D_MIN]; e--)
		;
	/* Below 1 the doubles of the powers of ten are not exact: near one, printf's exact
	 * comparison may go the other way. */
	if (fabs(a / P10D[e - P10D_MIN] - 1) < 1e-12 ||
	    (e + 1 - P10D_MIN < (int)(sizeof(P10D) / sizeof(P10D[0])) &&
	     fabs(a / P10D[e + 1 - P10D_MIN] - 1) < 1e-12))
		return snprintf(buf, n, "%.*g", prec, v);
	d = prec - 1 - e;
	if (d > MAX_DIGITS || !scaled(a, d, &i) || i >= P10[prec])
		return snprintf(buf, n, "%.*g", prec, v);	/* i >= 10^prec: a carry */
	len = fixed_text(t, v < 0, i, d);
	if (d > 0) {	/* no trailing zeros, and no point when nothing follows it */
		while (t[len - 1] == '0')
			len--;
		if (t[len - 1] == '.')
			len--;
	}
	return put(buf, n, t, len);
}

int numfmt_uint(char *buf, size_t n, uint64_t v)
{
	char t[24], *s = digits_back(t + sizeof(t), v);

	return put(buf, n, s, (size_t)(t + sizeof(t) - s));
}

struct spec {
	bool left, zero;
	int width, prec;	/* prec -1: none given */
	char conv;
	const char *pre, *post;	/* the text around the conversion */
	size_t pre_len;
};

/* Parses a format with one conversion of the kinds handled; false otherwise. */
static bool parse(const char *fmt, struct spec *sp, bool want_uint)
{
	const char *p = fmt;

	memset(sp, 0, sizeof(*sp));
	sp->prec = -1;
	while (*p && !(p[0] == '%' && p[1] != '%'))
		p += *p == '%' ? 2 : 1;
	if (!*p)
		return false;
	sp->pre = fmt;
	sp->pre_len = (size_t)(p - fmt);
	for (p++; *p == '-' || *p == '0'; p++) {
		sp->left |= *p == '-';
		sp->zero |= *p == '0';
	}
	for (; *p >= '0' && *p <= '9'; p++)
		if ((sp->width = sp->width * 10 + (*p - '0')) > 200)
			return false;
	if (*p == '.') {
		sp->prec = 0;
		for (p++; *p >= '0' && *p <= '9'; p++)
			if ((sp->prec = sp->prec * 10 + (*p - '0')) > 200)
				return false;
	}
	if (want_uint) {
		if (sp->prec >= 0 || *p++ != 'l')
			return false;
		if (*p == 'l')
			p++;
		if (*p != 'u')
			return false;
	} else {
		if (*p == 'l')
			p++;
		if (*p != 'f' && *p != 'g')
			return false;
	}
	sp->conv = *p++;
	sp->post = p;
	for (; *p; p++) {	/* no second conversion */
		if (*p == '%' && *++p != '%')
			return false;
	}
	return true;
}

/* Literal text of a format piece, "%%" as '%'. */
static bool copy_text(char **o, const char *end, const char *s, size_t len)
{
	const char *e = s + len;

	for (; s < e && *s; s++) {
		if (*o >= end)
			return false;
		*(*o)++ = *s;
		if (*s == '%')
			s++;
	}
	return true;
}

static int assemble(char *buf, size_t n, const struct spec *sp, const char *num, size_t len)
{
	char *o = buf, *end = buf + (n ? n - 1 : 0);
	size_t pad = sp->width > (int)len ? (size_t)sp->width - len : 0;

	if (!copy_text(&o, end, sp->pre, sp->pre_len) || (size_t)(end - o) < pad + len)
		return -1;
	if (sp->left) {
		memcpy(o, num, len);
		memset(o + len, ' ', pad);
	} else if (sp->zero) {
		size_t sign = num[0] == '-';

		memcpy(o, num, sign);
		memset(o + sign, '0', pad);
		memcpy(o + sign + pad, num + sign, len - sign);
	} else {
		memset(o, ' ', pad);
		memcpy(o + pad, num, len);
	}
	o += pad + len;
	if (!copy_text(&o, end, sp->post, strlen(sp->post)))
		return -1;
	*o = '\0';
	return (int)(o - buf);
}

int numfmt_format_double(char *buf, size_t n, const char *fmt, double v)
{
	struct spec sp;
	char num[64];
	int len;

	if (!isfinite(v) || !parse(fmt, &sp, false))
		return -1;
	if (sp.conv == 'f')
		len = numfmt_fixed(num, sizeof(num), sp.prec < 0 ? 6 : sp.prec, v);
	else
		len = numfmt_general(num, sizeof(num), sp.prec < 0 ? 6 : sp.prec, v);
	if (len < 0 || len >= (int)sizeof(num))
		return -1;
	return assemble(buf, n, &sp, num, (size_t)len);
}

int numfmt_format_uint(char *buf, size_t n, const char *fmt, uint64_t v)
{
	struct spec sp;
	char num[24];
	int len;

	if (!parse(fmt, &sp, true))
		return -1;
	len = numfmt_uint(num, sizeof(num), v);
	return assemble(buf, n, &sp, num, (size_t)len);
}
