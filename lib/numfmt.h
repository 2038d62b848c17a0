/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numfmt.h: numbers in decimal exactly as printf writes them, without printf's machinery
 * (its floating-point path costs thousands of instructions a number: a live row of
 * pfclab traffic spent 20k of its 22k in it, which the emulated lab's benchmark sees).
 *
 * Each function writes what snprintf(buf, n, FORMAT, ...) would, byte for byte, and
 * returns what it would return; where the quick way cannot be sure of the same digits
 * (a tie in rounding, a value near a power of ten, a huge or tiny value, NaN, infinity)
 * it calls snprintf itself.
 */
#ifndef PFCLAB_LIB_NUMFMT_H
#define PFCLAB_LIB_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* "%.*f" */
int numfmt_fixed(char *buf, size_t n, int prec, double v);
/* "%.*g" */
int numfmt_general(char *buf, size_t n, int prec, double v);
/* "%" PRIu64 */
int numfmt_uint(char *buf, size_t n, uint64_t v);
/* The first of "%.15g", "%.16g" and "%.17g" that strtod reads back as v itself: the
 * shortest of them that gives v back, where "%.17g" alone adds noise (0.1, not
 * 0.10000000000000001; 4.86492827, not 4.8649282700000001). Always '.' as the decimal
 * point, whatever LC_NUMERIC says. From 1e-8 to 1e36 it is worked out on 128-bit
 * integers, exactly and without printf or strtod (faster than "%.17g" alone); outside
 * that, through them. NaN and infinities: as "%.17g".
 */
int numfmt_shortest(char *buf, size_t n, double v);

/* A printf format with exactly one conversion of a double (f, g) or of a uint64_t (u
 * with l or ll), e.g. " %10.3f" or "%12" PRIu64 "\n": its text with the value put in.
 * Flags other than '-' and '0', '*' and other conversions are not handled: returns -1
 * then, and the caller uses printf. */
int numfmt_format_double(char *buf, size_t n, const char *fmt, double v);
int numfmt_format_uint(char *buf, size_t n, const char *fmt, uint64_t v);

#endif
