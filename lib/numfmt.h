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

/* A printf format with exactly one conversion of a double (f, g) or of a uint64_t (u
 * with l or ll), e.g. " %10.3f" or "%12" PRIu64 "\n": its text with the value put in.
 * Flags other than '-' and '0', '*' and other conversions are not handled: returns -1
 * then, and the caller uses printf. */
int numfmt_format_double(char *buf, size_t n, const char *fmt, double v);
int numfmt_format_uint(char *buf, size_t n, const char *fmt, uint64_t v);

#endif
