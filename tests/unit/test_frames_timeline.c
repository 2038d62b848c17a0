// SPDX-License-Identifier: GPL-2.0-or-later
/* test_frames_timeline.c: review's timeline CSV written from the summary's bins and read
 * back (every column, PFC frames per priority at the end), and the reader on damaged
 * files: each refused with its line and why, never read as numbers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/util.h"
#include "monitor/frames/decode.h"
#include "monitor/frames/stats.h"
#include "monitor/frames/timeline.h"

#define G25 25000000000ull
#define MS 1000000ull

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/pfclab-tl-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void put(const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void pfc(struct frames_stats *st, uint64_t ts, uint8_t enable, uint16_t q)
{
	struct frames_pkt pk = { .status = FRAMES_OK, .kind = FRAMES_KIND_PFC,
				 .src = { 2, 0, 0, 0, 0, 9 } };
	int p;

	pk.pfc_enable = enable;
	for (p = 0; p < 8; p++)
		pk.pfc_quanta[p] = q;
	frames_stats_add(st, ts, &pk, G25);
}

/* Written, then read back: the header names every column, and each row gives what the
 * bins hold, PFC frames counted on every priority their class-enable vector names. */
static void test_roundtrip(void **state)
{
	struct frames_stats st;
	struct frames_tl_reader r;
	struct frames_tl_row row;
	struct frames_pkt cnp = { .status = FRAMES_OK, .kind = FRAMES_KIND_CNP };
	FILE *f;
	int c;

	(void)state;
	frames_stats_init(&st, 0, 0, 10 * MS);
	pfc(&st, 1700000000000000000ull + 1 * MS, 1u << 3 | 1u << 5, 1000);
	pfc(&st, 1700000000000000000ull + 2 * MS, 1u << 3, 0);
	frames_stats_add(&st, 1700000000000000000ull + 25 * MS, &cnp, G25);
	frames_stats_finish(&st);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(frames_tl_write(f, &st));
	fclose(f);

	assert_int_equal(frames_tl_open(&r, path), 0);
	assert_int_equal(r.nfield, FRAMES_TL_NCOL);
	for (c = 0; c < FRAMES_TL_NCOL; c++)
		assert_int_equal(r.map[c], c);
	assert_string_equal(frames_tl_name(FRAMES_TL_PFC_PRIO0 + 7), "pfc_prio7");
	assert_string_equal(frames_tl_name(FRAMES_TL_PAUSED0 + FRAMES_PRIO_PAUSE),
			    "paused_ns_pause");
	assert_null(frames_tl_name(FRAMES_TL_NCOL));
	assert_int_equal(frames_tl_next(&r, &row), 1);
	assert_int_equal(row.v[FRAMES_TL_TIME], 1700000000000000000ull);
	assert_int_equal(row.have, (UINT64_C(1) << FRAMES_TL_NCOL) - 1);
	assert_int_equal(row.v[FRAMES_TL_PFC], 2);
	assert_int_equal(row.v[FRAMES_TL_PFC_PRIO0 + 3], 2);
	assert_int_equal(row.v[FRAMES_TL_PFC_PRIO0 + 5], 1);
	assert_int_equal(row.v[FRAMES_TL_PFC_PRIO0 + 0], 0);
	/* 1000 quanta at 25G from 1 ms on 3 and 5; the XON at 2 ms comes after expiry */
	assert_int_equal(row.v[FRAMES_TL_PAUSED0 + 5], 20480);
	assert_int_equal(row.v[FRAMES_TL_PAUSED0 + 3], 20480);
	assert_int_equal(frames_tl_next(&r, &row), 1);
	assert_int_equal(row.v[FRAMES_TL_FRAMES], 0);	/* an empty bin is a row too */
	assert_int_equal(frames_tl_next(&r, &row), 1);
	assert_int_equal(row.v[FRAMES_TL_TIME], 1700000000000000000ull + 20 * MS);
	assert_int_equal(row.v[FRAMES_TL_CNP], 1);
	assert_int_equal(r.bin_ns, 10 * MS);
	assert_int_equal(frames_tl_next(&r, &row), 0);
	assert_int_equal(frames_tl_next(&r, &row), 0);
	frames_tl_close(&r);
	frames_stats_free(&st);
}

#define HEAD "time_s,frames,pause,pfc,cnp,roce,roce_ce,other,truncated,invalid," \
	"paused_ns_prio0,paused_ns_prio1,paused_ns_prio2,paused_ns_prio3,paused_ns_prio4," \
	"paused_ns_prio5,paused_ns_prio6,paused_ns_prio7,paused_ns_pause"
#define ROW(t) t ",1,0,1,0,0,0,0,0,0,0,0,0,5,0,0,0,0,0\n"

/* Files as they come: what is read, and where a damaged one stops (rc, the line, why). */
static void test_reader(void **state)
{
	static const struct {
		const char *text;
		int rows, rc;		/* rows read, then rc */
		const char *err;
	} t[] = {
		/* review's own, before the pfc_prioN columns; CRLF; a blank line; no last \n */
		{ HEAD "\n" ROW("1.00") ROW("1.01"), 2, 0, "" },
		{ HEAD "\r\n" ROW("1.00") "\n" ROW("1.010000000") , 2, 0, "" },
		{ HEAD ",later_column\n1,1,0,1,0,0,0,0,0,0,0,0,0,5,0,0,0,0,0,x\n", 1, 0, "" },
		{ HEAD "\n1,1,0,1,0,0,0,0,0,0,,,,,,,,,\n", 1, 0, "" },
		{ HEAD "\n1,1,0,1,0,0,0,0,0,0,0,0,0,5,0,0,0,0,0", 1, 0, "" },
		{ HEAD "\n", 0, 0, "" },
		/* refused */
		{ "", 0, -EINVAL, "empty: no header line" },
		{ "time_s,frames\n", 0, -EINVAL, "line 1: no column 'pause' in the header" },
		{ HEAD ",pfc\n", 0, -EINVAL, "line 1: column 'pfc' twice" },
		{ HEAD "\n" ROW("1.00") "1,2\n", 1, -EINVAL, "line 3: 2 fields where the header has 19" },
		{ HEAD "\n" ROW("1.00") ROW("1.00"), 1, -EINVAL, "line 3: time_s does not step forward" },
		{ HEAD "\n" ROW("1.00") ROW("1.01") ROW("1.03"), 2, -EINVAL,
		  "line 4: time_s 1.030000000 is not one bin (10ms) after the row before" },
		{ HEAD "\n" ROW("-1"), 0, -EINVAL, "line 2: time_s '-1' is not seconds.nanoseconds" },
		{ HEAD "\n" ROW("1.0000000001"), 0, -EINVAL, "is not seconds.nanoseconds" },
		{ HEAD "\n" ROW("18446744074"), 0, -EINVAL, "is not seconds.nanoseconds" },
		{ HEAD "\n" ROW("1."), 0, -EINVAL, "is not seconds.nanoseconds" },
		{ HEAD "\n" ROW("18446744073.709551615") ROW("18446744073.709551615"), 1, -EINVAL,
		  "does not step forward" },
		{ HEAD "\n1,1,0,0x1,0,0,0,0,0,0,0,0,0,5,0,0,0,0,0\n", 0, -EINVAL,
		  "line 2: pfc '0x1' is not a count" },
		{ HEAD "\n1,1,0, 1,0,0,0,0,0,0,0,0,0,5,0,0,0,0,0\n", 0, -EINVAL, "pfc ' 1' is not" },
		{ HEAD "\n1,1,0,18446744073709551616,0,0,0,0,0,0,0,0,0,5,0,0,0,0,0\n", 0, -EINVAL,
		  "pfc '18446744073709551616' is not a count" },
		{ HEAD "\n1,1,0,1,0,0,0,0,0,,0,0,0,5,0,0,0,0,0\n", 0, -EINVAL, "line 2: invalid is empty" },
		{ HEAD "\n1,1,0,\x1b[2J,0,0,0,0,0,0,0,0,0,5,0,0,0,0,0\n", 0, -EINVAL,
		  "pfc '?[2J' is not a count" },
	};
	struct frames_tl_reader r;
	struct frames_tl_row row;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		int n = 0, rc;

		put(t[i].text, strlen(t[i].text));
		rc = frames_tl_open(&r, path);
		if (!rc)
			while ((rc = frames_tl_next(&r, &row)) == 1)
				n++;
		if (n != t[i].rows || rc != t[i].rc || !strstr(r.err, t[i].err))
			fail_msg("case %zu: %d rows, rc %d, '%s'; want %d, %d, '%s'", i, n, rc,
				 r.err, t[i].rows, t[i].rc, t[i].err);
		/* failed stays failed */
		if (rc < 0)
			assert_int_equal(frames_tl_next(&r, &row), rc);
		frames_tl_close(&r);
	}
}

/* Bounds: a line past FRAMES_TL_MAX_LINE and a NUL byte end the read at that line;
 * a missing file is -ENOENT with no message. */
static void test_reader_bounds(void **state)
{
	struct frames_tl_reader r;
	struct frames_tl_row row;
	char *big = malloc(8192);
	size_t l;

	(void)state;
	assert_non_null(big);
	l = (size_t)snprintf(big, 8192, HEAD "\n" ROW("1.00") "1");
	memset(big + l, '0', 4000);
	put(big, l + 4000);
	assert_int_equal(frames_tl_open(&r, path), 0);
	assert_int_equal(frames_tl_next(&r, &row), 1);
	assert_int_equal(frames_tl_next(&r, &row), -EINVAL);
	assert_string_equal(r.err, "line 3: longer than 2048 bytes");
	frames_tl_close(&r);
	put(HEAD "\n1.00,1\0,0\n", sizeof(HEAD "\n1.00,1\0,0\n") - 1);
	assert_int_equal(frames_tl_open(&r, path), 0);
	assert_int_equal(frames_tl_next(&r, &row), -EINVAL);
	assert_string_equal(r.err, "line 2: a NUL byte in the line");
	frames_tl_close(&r);
	unlink(path);
	assert_int_equal(frames_tl_open(&r, path), -ENOENT);
	assert_string_equal(r.err, "");
	assert_int_equal(frames_tl_open(&r, "/"), -EINVAL);
	assert_string_equal(r.err, "not a regular file");
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_bounds, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
