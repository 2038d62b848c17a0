// SPDX-License-Identifier: GPL-2.0-or-later
/* numfmt.c: numbers in decimal exactly as printf writes them, the common cases by integer
 * arithmetic and the rest through snprintf (see numfmt.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/numfmt.h"

#define MAX_DIGITS 12	/* decimals the quick way writes at most */

/* 10^0 .. 10^17: decimals of the quick way (up to MAX_DIGITS) and exact decimal digits
 * of a double (numfmt_shortest: up to 17). */
static const uint64_t P10[] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
	100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
	10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL,
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

typedef unsigned __int128 u128;

/* 5^0 .. 5^26 (and P10 above), for exact decimal digits of a double. */
static const uint64_t POW5[] = {
	1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL, 390625ULL, 1953125ULL,
	9765625ULL, 48828125ULL, 244140625ULL, 1220703125ULL, 6103515625ULL, 30517578125ULL,
	152587890625ULL, 762939453125ULL, 3814697265625ULL, 19073486328125ULL,
	95367431640625ULL, 476837158203125ULL, 2384185791015625ULL, 11920928955078125ULL,
	59604644775390625ULL, 298023223876953125ULL, 1490116119384765625ULL,
};
#define POW5_MAX 26

/* The quick range of numfmt_shortest: normal doubles whose digits fit 128-bit integers. */
#define SHORT_MIN 1e-8
#define SHORT_MAX 1e36

/* x * 2^b * 10^d, for any integer x, as x * unit / den; false where unit or den would
 * not fit 64 bits, the room that x < 2^56 needs in 128 (then the caller asks printf).
 */
static bool scale(int b, int d, u128 *unit, u128 *den)
{
	if (d > POW5_MAX || -d > POW5_MAX)
		return false;
	*unit = d >= 0 ? POW5[d] : 1;	/* 10^d = 5^d 2^d */
	*den = d >= 0 ? 1 : POW5[-d];
	b += d;
	if (b >= 0) {
		if (b > 60)
			return false;
		*unit <<= b;
	} else {
		if (-b > 60)
			return false;
		*den <<= -b;
	}
	return *unit >> 64 == 0 && *den >> 64 == 0;
}

/* v = m * 2^q (2^52 <= m < 2^53) in p significant digits, as printf rounds them (the
 * exact value to nearest, a tie to even): i (10^(p-1) <= i <= 10^p) times 10^(*e + 1 - p),
 * *e the decimal exponent of v's first digit (a guess in; exact out). 1 when that decimal
 * reads back as v, 0 when it does not, -1 out of range.
 *
 * Reads back: strtod rounds to nearest, a tie to the even mantissa, so the decimal must lie
 * between the midpoints to v's neighbours, (m - 1/2) 2^q and (m + 1/2) 2^q (below a power
 * of two the lower neighbour is half as far: (m - 1/4) 2^q), ends included when m is even.
 * All of it on integers: 4m 2^(q-2) 10^d and the midpoints (4m -+ 2, 4m - 1) over one den.
 */
static int digits_exact(uint64_t m, int q, int p, int *e, uint64_t *out)
{
	u128 unit, den, num, i, r, x, lo, hi;
	int tries, d;
	bool even = !(m & 1);

	for (tries = 0;; tries++) {	/* the guess may be one off near a power of ten */
		d = p - 1 - *e;
		if (tries > 2 || !scale(q - 2, d, &unit, &den))
			return -1;
		num = (u128)(4 * m) * unit;
		i = num / den;
		if (i >= P10[p])
			(*e)++;
		else if (i < P10[p - 1])
			(*e)--;
		else
			break;
	}
	r = num - i * den;
	if (2 * r > den || (2 * r == den && (i & 1)))
		i++;
	*out = (uint64_t)i;
	x = i * den;
	hi = num + 2 * unit;
	lo = num - (m == 1ULL << 52 ? 1 : 2) * unit;
	return (x > lo || (x == lo && even)) && (x < hi || (x == hi && even));
}

/* "%.<p>g" of i * 10^(e + 1 - p) (digits_exact's; i may be 10^p, a carry), sign first
 * when minus, into t (40 bytes). */
static size_t text_g(char *t, bool minus, uint64_t i, int p, int e)
{
	char dg[17], *o = t;
	int k, j, ae;

	if (i == P10[p]) {	/* 9.99..95 rounded up: 1 and the next exponent */
		i = P10[p - 1];
		e++;
	}
	ae = e < 0 ? -e : e;
	for (k = p; k > 0; k--, i /= 10)
		dg[k - 1] = (char)('0' + i % 10);
	for (k = p; k > 1 && dg[k - 1] == '0'; k--)
		;			/* %g drops trailing zeros */
	if (minus)
		*o++ = '-';
	if (e < -4 || e >= p) {		/* d.ddde+XX, two exponent digits at least */
		*o++ = dg[0];
		if (k > 1) {
			*o++ = '.';
			memcpy(o, dg + 1, (size_t)k - 1);
			o += k - 1;
		}
		*o++ = 'e';
		*o++ = e < 0 ? '-' : '+';
		if (ae >= 100)
			*o++ = (char)('0' + ae / 100);
		*o++ = (char)('0' + ae / 10 % 10);
		*o++ = (char)('0' + ae % 10);
	} else if (e < 0) {		/* 0.000ddd */
		*o++ = '0';
		*o++ = '.';
		for (j = -1; j > e; j--)
			*o++ = '0';
		memcpy(o, dg, (size_t)k);
		o += k;
	} else {			/* ddd.ddd, or ddd000 */
		for (j = 0; j <= e; j++)
			*o++ = j < k ? dg[j] : '0';
		if (k > e + 1) {
			*o++ = '.';
			memcpy(o, dg + e + 1, (size_t)(k - e - 1));
			o += k - e - 1;
		}
	}
	return (size_t)(o - t);
}

/* numfmt_shortest of a (SHORT_MIN <= a < SHORT_MAX) on integers, into t (40 bytes);
 * -1 where the integers would not do (then printf does). */
static int shortest_exact(char *t, bool minus, double a)
{
	int be, e = (int)floor(log10(a)), p, rc;
	uint64_t m = (uint64_t)ldexp(frexp(a, &be), 53), i;

	for (p = 15; p <= 17; p++) {
		rc = digits_exact(m, be - 53, p, &e, &i);
		if (rc < 0)
			return -1;
		if (rc > 0 || p == 17)	/* 17 digits always read back */
			return (int)text_g(t, minus, i, p, e);
	}
	return -1;
}

int numfmt_shortest(char *buf, size_t n, double v)
{
	char t[40], *o, *s;
	double a = fabs(v);
	int prec, len;

	if (!isfinite(v))
		return snprintf(buf, n, "%.17g", v);
	if (v == 0)
		return put(buf, n, signbit(v) ? "-0" : "0", signbit(v) ? 2 : 1);
	if (a >= SHORT_MIN && a < SHORT_MAX && (len = shortest_exact(t, signbit(v), a)) >= 0)
		return put(buf, n, t, (size_t)len);
	/* tiny, huge: what numfmt.h says, through printf and strtod */
	for (prec = 15; prec < 17; prec++) {
		snprintf(t, sizeof(t), "%.*g", prec, v);
		if (strtod(t, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(t, sizeof(t), "%.17g", v);
	/* the locale's decimal point (',' or more bytes) becomes '.' */
	for (s = o = t; *s; ) {
		if ((*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == 'e') {
			*o++ = *s++;
			continue;
		}
		*o++ = '.';
		while (*s && !(*s >= '0' && *s <= '9'))
			s++;
	}
	*o = '\0';
	return put(buf, n, t, (size_t)(o - t));
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
