// SPDX-License-Identifier: GPL-2.0-or-later
/* out.c: one call per field for text and JSON output, and the standard-output check. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/numfmt.h"
#include "lib/out.h"

static int stdout_err;	/* the first error seen on standard output, -errno */

static int check(FILE *f)
{
	int err;

	errno = 0;
	if (fflush(f) == 0 && !ferror(f))
		return f == stdout ? stdout_err : 0;	/* one recorded without writing */
	err = errno ? -errno : -EIO;
	if (f == stdout && !stdout_err)
		stdout_err = err;
	return f == stdout ? stdout_err : err;
}

/* A value in a caller's one-conversion text format, as fprintf would write it (numfmt.h:
 * printf's floating-point path costs thousands of instructions a number): false where
 * numfmt does not take the format, and the caller prints it. */
static bool text_fast(FILE *f, const char *buf, int n)
{
	if (n < 0)
		return false;
	fwrite(buf, 1, (size_t)n, f);
	return true;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static void text_double(FILE *f, const char *fmt, double v)
{
	char buf[256];

	if (!text_fast(f, buf, numfmt_format_double(buf, sizeof(buf), fmt, v)))
		fprintf(f, fmt, v);
}

static void text_uint(FILE *f, const char *fmt, uint64_t v)
{
	char buf[256];

	if (!text_fast(f, buf, numfmt_format_uint(buf, sizeof(buf), fmt, v)))
		fprintf(f, fmt, v);
}

#pragma GCC diagnostic pop

/* A double's JSON text into t (48 bytes): numfmt_shortest's, with ".0" where it has no
 * point and no exponent, as json-c adds it; NaN and infinities in json-c's words. Both the
 * json-c objects (out_json_double) and the streamed form write this, so the two agree.
 */
static size_t json_double_text(char *t, double v)
{
	size_t n;

	if (isnan(v))
		return (size_t)sprintf(t, "NaN");
	if (isinf(v))
		return (size_t)sprintf(t, "%sInfinity", v < 0 ? "-" : "");
	n = (size_t)numfmt_shortest(t, 40, v);
	if (!memchr(t, '.', n) && !memchr(t, 'e', n)) {
		memcpy(t + n, ".0", 3);
		n += 2;
	}
	return n;
}

struct json_object *out_json_double(double v)
{
	char t[48];

	if (!isfinite(v))
		return json_object_new_double(v);
	json_double_text(t, v);
	return json_object_new_double_s(v, t);
}

const char *out_json_text(struct json_object *o, bool pretty)
{
	return json_object_to_json_string_ext(o, pretty ? OUT_JSON_PRETTY : OUT_JSON_LINE);
}

int out_json_print(FILE *f, struct json_object *o, bool pretty)
{
	fputs(out_json_text(o, pretty), f);
	fputc('\n', f);
	return check(f);
}

void out_begin(struct out *o, bool json)
{
	o->json = json;
	o->stream = false;
	o->f = stdout;
	o->depth = 0;
	if (json)
		o->stack[o->depth++] = json_object_new_object();
}

/* Streamed JSON: a string as json-c escapes it with JSON_C_TO_STRING_NOSLASHESCAPE. */
static void s_string(FILE *f, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;
	char u[7];

	fputc('"', f);
	while (*s && (unsigned char)*s >= ' ' && *s != '"' && *s != '\\')
		s++;			/* most strings need no escape: one piece */
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *esc;

		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\f': esc = "\\f"; break;
		default:
			if (c >= ' ')
				continue;
			snprintf(u, sizeof(u), "\\u00%c%c", hex[c >> 4], hex[c & 0xf]);
			esc = u;
		}
		fwrite(run, 1, (size_t)(s - run), f);
		fputs(esc, f);
		run = s + 1;
	}
	fwrite(run, 1, (size_t)(s - run), f);
	fputc('"', f);
}

/* Streamed JSON: an integer in decimal, as "%" PRIu64 writes it (printf's machinery
 * costs more than the digits). */
static void s_uint(FILE *f, uint64_t v, bool minus)
{
	char d[21], *p = d + sizeof(d);

	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	if (minus)
		*--p = '-';
	fwrite(p, 1, (size_t)(d + sizeof(d) - p), f);
}

/* Streamed JSON: the separator and key before a value in the innermost object or array;
 * false where the value is dropped (no key in an object, or inside a dropped one). */
static bool s_key(struct out *o, const char *key)
{
	int d = o->depth - 1;
	char buf[72];
	size_t n = 0, len;

	if (d < 0 || o->mute[d] || (!o->arr[d] && !key))
		return false;	/* d < 0: after the end, as json-c drops it */
	if (o->more[d])
		buf[n++] = ',';
	o->more[d] = true;
	if (!o->arr[d]) {
		/* the common key, short and with nothing to escape, goes into buf with the
		 * separator: one write */
		for (len = 0; len < sizeof(buf) - 4 && (unsigned char)key[len] >= ' ' &&
		     key[len] != '"' && key[len] != '\\'; len++)
			;
		if (key[len]) {
			fwrite(buf, 1, n, o->f);
			s_string(o->f, key);
			n = 0;
		} else {
			buf[n++] = '"';
			memcpy(buf + n, key, len);
			n += len;
			buf[n++] = '"';
		}
		buf[n++] = ':';
	}
	fwrite(buf, 1, n, o->f);
	return true;
}

void out_begin_stream(struct out *o, FILE *f, bool json)
{
	o->json = json;
	o->stream = json;
	o->f = f;
	o->depth = 0;
	if (!json)
		return;
	o->arr[0] = o->more[0] = o->mute[0] = false;
	o->depth = 1;
	fputc('{', f);
}

/* Streamed JSON: a double, as out_json_double's object serialises. */
static void s_double(FILE *f, double v)
{
	char t[48];

	fwrite(t, 1, json_double_text(t, v), f);
}

/* Into the innermost object under key, or appended to the innermost array. */
static void add(struct out *o, const char *key, struct json_object *v)
{
	struct json_object *top = o->depth > 0 ? o->stack[o->depth - 1] : NULL;

	if (o->stream) {
		if (s_key(o, key))
			fputs(v ? json_object_to_json_string_ext(v, OUT_JSON_LINE) : "null", o->f);
		json_object_put(v);
		return;
	}
	if (top && json_object_is_type(top, json_type_array))
		json_object_array_add(top, v);
	else if (top && key)
		json_object_object_add(top, key, v);
	else
		json_object_put(v);
}

/* A double into the JSON form under key: streamed as its text, else a json-c double. */
static void add_double(struct out *o, const char *key, double v)
{
	if (!o->stream)
		add(o, key, out_json_double(v));
	else if (s_key(o, key))
		s_double(o->f, v);
}

/* The text formats come from the callers, one value each, as iproute2's print_* take
 * them; the compiler cannot see them through this layer.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void out_uint(struct out *o, const char *key, const char *fmt, uint64_t v)
{
	if (o->stream) {
		if (s_key(o, key))
			s_uint(o->f, v, false);
	} else if (o->json)
		add(o, key, json_object_new_uint64(v));
	else if (fmt)
		text_uint(o->f, fmt, v);
}

void out_int(struct out *o, const char *key, const char *fmt, int64_t v)
{
	if (o->stream) {
		if (s_key(o, key))
			s_uint(o->f, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
	} else if (o->json)
		add(o, key, json_object_new_int64(v));
	else if (fmt)
		fprintf(o->f, fmt, v);
}

void out_double(struct out *o, const char *key, const char *fmt, double v)
{
	if (o->json)
		add_double(o, key, v);
	else if (fmt)
		text_double(o->f, fmt, v);
}

void out_str(struct out *o, const char *key, const char *fmt, const char *v)
{
	if (o->stream) {
		if (s_key(o, key))
			s_string(o->f, v);
	} else if (o->json)
		add(o, key, json_object_new_string(v));
	else if (fmt)
		fprintf(o->f, fmt, v);
}

void out_bool(struct out *o, const char *key, const char *fmt, bool v)
{
	if (o->stream) {
		if (s_key(o, key))
			fputs(v ? "true" : "false", o->f);
	} else if (o->json)
		add(o, key, json_object_new_boolean(v));
	else if (fmt)
		fprintf(o->f, fmt, v ? "yes" : "no");
}

#pragma GCC diagnostic pop

void out_na(struct out *o, const char *key, const char *text)
{
	if (o->json) {
		add(o, key, NULL);
	} else if (text) {
		fputs(text, o->f);
	}
}

void out_text(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->json)
		return;
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

static void open_nested(struct out *o, const char *key, bool arr)
{
	struct json_object *n;

	if (o->stream) {	/* no json-c object: only its brackets are written */
		int d = o->depth;

		if (d == 0 || d >= OUT_DEPTH)	/* after the end, or too deep: dropped */
			return;
		o->mute[d] = !s_key(o, key);
		o->arr[d] = arr;
		o->more[d] = false;
		o->depth++;
		if (!o->mute[d])
			fputc(arr ? '[' : '{', o->f);
		return;
	}
	if (o->depth >= OUT_DEPTH)	/* deeper than any pfclab output: dropped */
		return;
	n = arr ? json_object_new_array() : json_object_new_object();
	add(o, key, json_object_get(n));
	o->stack[o->depth++] = n;
}

void out_obj_open(struct out *o, const char *key)
{
	if (o->json)
		open_nested(o, key, false);
}

void out_arr_open(struct out *o, const char *key)
{
	if (o->json)
		open_nested(o, key, true);
}

void out_obj_close(struct out *o)
{
	if (!o->json || o->depth <= 1)
		return;
	if (o->stream) {
		o->depth--;
		if (!o->mute[o->depth])
			fputc(o->arr[o->depth] ? ']' : '}', o->f);
		return;
	}
	json_object_put(o->stack[--o->depth]);
}

struct json_object *out_take(struct out *o)
{
	struct json_object *root = NULL;

	if (!o->json || o->stream || o->depth == 0)
		return NULL;
	while (o->depth > 1)
		out_obj_close(o);
	root = o->stack[0];
	o->depth = 0;
	return root;
}

static int end(struct out *o, bool pretty)
{
	struct json_object *root;
	int rc;

	if (!o->json) {
		fputc('\n', o->f);
		return ferror(o->f) ? check(o->f) : 0;
	}
	if (o->stream) {
		if (o->depth == 0)
			return 0;
		while (o->depth > 1)
			out_obj_close(o);
		o->depth = 0;
		fputs("}\n", o->f);
		return check(o->f);
	}
	root = out_take(o);
	if (!root)
		return 0;
	rc = out_json_print(o->f, root, pretty);
	json_object_put(root);
	return rc;
}

int out_end(struct out *o)
{
	return end(o, false);
}

int out_end_pretty(struct out *o)
{
	return end(o, true);
}

int out_stdout_check(void)
{
	return check(stdout);
}

int out_stdout_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = 0 };

	if (stdout_err)
		return stdout_err;
	/* No events asked: only the ones poll always reports. A pipe's write end without a
	 * reader is POLLERR, a stream socket closed by its peer POLLHUP; a file, a terminal
	 * or a reader still there gives none, a closed descriptor POLLNVAL. */
	if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)))
		stdout_err = -EPIPE;
	return stdout_err;
}

int out_stdout_gone_every(uint64_t now_ns, uint64_t *next_ns)
{
	if (now_ns < *next_ns)
		return 0;
	*next_ns = now_ns + OUT_STDOUT_LOOK_NS;
	return out_stdout_gone();
}

void out_stdout_failed(int err)
{
	if (!stdout_err && err < 0)
		stdout_err = err;
}

static bool one_of(char c, const char *set)
{
	for (; *set; set++)
		if (c == *set)
			return true;
	return false;
}

/* fmt with "n/a" in place of each conversion, in that conversion's width and alignment
 * (flags other than '-', precision and length modifiers do not apply to a word).
 */
static void na_text(FILE *f, const char *fmt)
{
	const char *p = fmt;

	while (*p) {
		bool left = false;
		int width = 0;

		if (*p != '%' || p[1] == '%') {
			fputc(*p, f);
			p += *p == '%' ? 2 : 1;
			continue;
		}
		for (p++; one_of(*p, "-+ #0'"); p++)
			left |= *p == '-';
		for (; *p >= '0' && *p <= '9'; p++)
			if (width < 4096)
				width = width * 10 + (*p - '0');
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
		while (one_of(*p, "hlLqjzt"))
			p++;
		if (*p)
			p++;	/* the conversion itself */
		fprintf(f, left ? "%-*s" : "%*s", width, "n/a");
	}
}

void out_na_fmt(struct out *o, const char *key, const char *fmt)
{
	if (o->json)
		add(o, key, NULL);
	else if (fmt)
		na_text(o->f, fmt);
}

void out_uint_na(struct out *o, const char *key, const char *fmt, uint64_t v, bool valid)
{
	if (valid)
		out_uint(o, key, fmt, v);
	else
		out_na_fmt(o, key, fmt);
}

void out_double_na(struct out *o, const char *key, const char *fmt, double v, bool valid)
{
	if (valid)
		out_double(o, key, fmt, v);
	else
		out_na_fmt(o, key, fmt);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void out_ns(struct out *o, const char *key, const char *fmt, uint64_t ns, double text_unit_ns,
	    bool valid)
{
	if (!valid)
		out_na_fmt(o, key, fmt);
	else if (o->json)
		add_double(o, key, (double)ns / 1e9);
	else if (fmt)
		text_double(o->f, fmt, (double)ns / text_unit_ns);
}

void out_share(struct out *o, const char *key, const char *fmt, uint64_t part, uint64_t whole)
{
	if (!whole)
		out_na_fmt(o, key, fmt);
	else if (o->json)
		add_double(o, key, (double)part / (double)whole);
	else if (fmt)
		text_double(o->f, fmt, 100.0 * (double)part / (double)whole);
}

void out_uint_scaled(struct out *o, const char *key, const char *fmt, uint64_t v,
		     double text_div)
{
	if (o->json)
		add(o, key, json_object_new_uint64(v));
	else if (fmt)
		text_double(o->f, fmt, (double)v / text_div);
}

#pragma GCC diagnostic pop

int out_end_report(struct out *o)
{
	if (!o->json)
		return ferror(o->f) ? check(o->f) : 0;
	return end(o, true);
}

void out_uint_kv(struct out *o, const char *sep, const char *key, uint64_t v)
{
	if (o->json)
		add(o, key, json_object_new_uint64(v));
	else
		fprintf(o->f, "%s%s %llu", sep, key, (unsigned long long)v);
}

void out_begin_file(struct out *o, FILE *f, bool json)
{
	out_begin(o, json);
	o->f = f;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void out_double_digits(struct out *o, const char *key, const char *fmt, int digits, double v)
{
	char buf[48];

	if (o->stream) {
		if (s_key(o, key)) {
			numfmt_general(buf, sizeof(buf), digits, v);
			fputs(buf, o->f);
		}
	} else if (o->json) {
		numfmt_general(buf, sizeof(buf), digits, v);
		add(o, key, json_object_new_double_s(v, buf));
	} else if (fmt) {
		text_double(o->f, fmt, v);
	}
}

#pragma GCC diagnostic pop

bool out_has(const struct out *o, const char *key)
{
	struct json_object *top = o->json && !o->stream && o->depth > 0 ? o->stack[o->depth - 1] : NULL;

	return top && key && json_object_is_type(top, json_type_object) &&
	       json_object_object_get_ex(top, key, NULL);
}

int out_end_lines(struct out *o)
{
	if (!o->json)
		return check(o->f);
	return end(o, false);
}
