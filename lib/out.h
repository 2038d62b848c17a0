/* SPDX-License-Identifier: GPL-2.0-or-later */
/* out.h: pfclab's output layer. One JSON style everywhere (json-c, no "\/" escaping;
 * one object per line, or pretty for whole-file reports; lines written often are
 * streamed in json-c's bytes without building objects), fields written once for both
 * the text and the JSON form (iproute2's print_uint(PRINT_ANY, key, fmt, v) idea), and
 * write errors on standard output caught in one place.
 *
 *   struct out o;
 *   out_begin(&o, json);                       // text: prints as it goes
 *   out_str(&o, "step", "%-9s ", name);        // JSON: {"step": name, ...}
 *   out_uint(&o, "bytes", "%" PRIu64 " B", n);
 *   out_na(&o, "rate", "n/a");                 // JSON null, text "n/a"
 *   out_end(&o);                               // text: newline; JSON: the object's line
 *
 * A fmt of NULL leaves the field out of the text form; a key of NULL out of the JSON.
 */
#ifndef PFCLAB_LIB_OUT_H
#define PFCLAB_LIB_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

/* The json-c serialisation flags of every JSON pfclab writes. */
#define OUT_JSON_LINE	(JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define OUT_JSON_PRETTY	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)

/* A JSON double (json-c) written as the shortest decimal that reads back as v exactly
 * (numfmt_shortest: the first of %.15g, %.16g, %.17g that does), not in json-c's 17
 * digits: 0.1, 4.86492827, 1e+300, not 0.10000000000000001. ".0" is added where the
 * digits alone would read as an integer (2.0, as json-c writes it), so a double stays a
 * double. NaN and infinities as json_object_new_double makes them (json-c writes NaN,
 * Infinity, -Infinity): callers that leave them out or write null go on doing so. NULL
 * when out of memory. out_double, out_double_na, out_ns and out_share write their
 * doubles so, streamed or not.
 */
struct json_object *out_json_double(double v);
/* o serialised with OUT_JSON_LINE (pretty: OUT_JSON_PRETTY). */
const char *out_json_text(struct json_object *o, bool pretty);
/* Writes o and a newline to f and flushes; -EIO (errno kept) when f has failed. */
int out_json_print(FILE *f, struct json_object *o, bool pretty);

#define OUT_DEPTH 8

struct out {
	bool json;
	bool stream;				/* JSON written as it comes (out_begin_stream) */
	FILE *f;
	struct json_object *stack[OUT_DEPTH];	/* JSON: the objects being filled */
	int depth;
	/* streamed JSON, per open object or array: */
	bool arr[OUT_DEPTH];			/* an array (values without keys) */
	bool more[OUT_DEPTH];			/* holds a value already (a comma first) */
	bool mute[OUT_DEPTH];			/* dropped, as json-c drops a keyless field */
};

void out_begin(struct out *o, bool json);
void out_uint(struct out *o, const char *key, const char *fmt, uint64_t v);
void out_int(struct out *o, const char *key, const char *fmt, int64_t v);
void out_double(struct out *o, const char *key, const char *fmt, double v);
void out_str(struct out *o, const char *key, const char *fmt, const char *v);
void out_bool(struct out *o, const char *key, const char *fmt, bool v);
/* A value that could not be read: JSON null, text the string given ("n/a"). */
void out_na(struct out *o, const char *key, const char *text);
/* Text only: fixed words between fields ("  ", "\n  "). */
void out_text(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Nested JSON object or array under key (key ignored inside an array; text: nothing);
 * out_obj_close closes either.
 */
void out_obj_open(struct out *o, const char *key);
void out_arr_open(struct out *o, const char *key);
void out_obj_close(struct out *o);
/* Ends the line: text a newline, JSON the object on one line (pretty: out_end_pretty).
 * Returns out_json_print's value.
 */
int out_end(struct out *o);
int out_end_pretty(struct out *o);
/* The object built so far, handed over to the caller (JSON only; out_end not called). */
struct json_object *out_take(struct out *o);

/* Flushes standard output and says whether anything written to it was lost (a full
 * disk, a closed pipe): 0, or -errno. The front door calls it once after every command
 * and exits 1 with a message; loops that print for long call it to stop early.
 */
int out_stdout_check(void);
/* Whether standard output's reader has gone (a pipe or stream socket closed at the
 * other end), found without writing: -EPIPE, kept as out_stdout_check's error so that
 * the front door says it once and exits 1; an error out_stdout_check already found;
 * else 0 (a file, a terminal, a reader still there, no descriptor 1). One poll() call:
 * for commands that run long while writing little or nothing there (capture, inject),
 * so that they stop when whoever started them has gone, as the others stop on a write.
 */
int out_stdout_gone(void);
/* out_stdout_gone, rate-limited for loops that call it on every turn: looks when now_ns
 * (CLOCK_MONOTONIC) has reached *next_ns, then moves *next_ns to now_ns +
 * OUT_STDOUT_LOOK_NS (start it at 0 to look on the first call). Returns
 * out_stdout_gone's value when it looked, else 0.
 */
#define OUT_STDOUT_LOOK_NS 10000000ull	/* 10 ms */
int out_stdout_gone_every(uint64_t now_ns, uint64_t *next_ns);
/* Records err (-errno) as standard output's error when it was written past this layer
 * (a capture file written to "-" through its own buffer): out_stdout_check returns it,
 * where the stream itself may only say "an error" by then.
 */
void out_stdout_failed(int err);

/* Fields with units and validity (review, capture). A field whose value could not be
 * read is n/a: JSON null; text "n/a" in the place and width of fmt's conversion
 * (" %11.3f" prints " " and "n/a" right-aligned in 11 columns), so tables stay aligned.
 */
void out_na_fmt(struct out *o, const char *key, const char *fmt);
/* out_uint, out_double; out_na_fmt where !valid. */
void out_uint_na(struct out *o, const char *key, const char *fmt, uint64_t v, bool valid);
void out_double_na(struct out *o, const char *key, const char *fmt, double v, bool valid);
/* A duration: JSON seconds (a double), text fmt applied to ns / text_unit_ns as a double
 * (1e6: milliseconds, 1e3: microseconds); out_na_fmt where !valid.
 */
void out_ns(struct out *o, const char *key, const char *fmt, uint64_t ns, double text_unit_ns,
	    bool valid);
/* A share: JSON the fraction part / whole, text fmt applied to the percentage
 * 100 * part / whole; out_na_fmt when whole is 0.
 */
void out_share(struct out *o, const char *key, const char *fmt, uint64_t part, uint64_t whole);
/* An integer that the text shows scaled: JSON v, text fmt applied to v / text_div as a
 * double ("%.0f Gb/s" of a speed in bit/s with 1e9).
 */
void out_uint_scaled(struct out *o, const char *key, const char *fmt, uint64_t v,
		     double text_div);
/* Ends a report whose text form ends its own lines: JSON pretty (out_end_pretty), text
 * nothing added. Returns out_json_print's value, or the text's write error.
 */
int out_end_report(struct out *o);

/* A count labelled by its key: JSON key: v, text sep, key, a space and v ("  pfc 12"). */
void out_uint_kv(struct out *o, const char *sep, const char *key, uint64_t v);

/* Like out_begin, writing to f instead of standard output (the text form, and the JSON
 * object's line at out_end).
 */
void out_begin_file(struct out *o, FILE *f, bool json);
/* Like out_begin_file, but the JSON form goes to f field by field as it comes, with no
 * json-c objects built: for lines written often (traffic's interval rows: 37k
 * instructions a row through json-c, 16k streamed). The bytes are json-c's
 * (OUT_JSON_LINE; the unit tests compare the two). A key given twice in one object is
 * written twice (json-c keeps the last), out_has is false and out_take NULL, and
 * out_end_pretty writes one line.
 */
void out_begin_stream(struct out *o, FILE *f, bool json);
/* As out_double, the JSON number written with `digits` significant digits ("%.6g" for 6)
 * instead of the shortest text that reads back as v exactly (out_json_double); "%.6g"
 * writes 2.0 as 2. The text form is fmt's, as always.
 */
void out_double_digits(struct out *o, const char *key, const char *fmt, int digits, double v);
/* JSON: whether the innermost object already holds key (so a later field can yield to an
 * earlier one); text: false.
 */
bool out_has(const struct out *o, const char *key);
/* Ends a record whose text form wrote its own line ends (none, one or several lines):
 * JSON as out_end; text adds nothing and flushes. Returns out_end's value.
 */
int out_end_lines(struct out *o);

#endif
