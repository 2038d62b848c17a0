// SPDX-License-Identifier: GPL-2.0-or-later
/* test_steal.c: /proc/stat's steal column: the aggregate "cpu" line and not a per-CPU
 * one, kernels with fewer columns, text cut short, fields that are no number or too
 * large; and this machine's own /proc/stat.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/hw/steal.h"

static int parse(const char *s, uint64_t *t)
{
	return hw_steal_parse(s, strlen(s), t);
}

static void test_steal_line(void **state)
{
	uint64_t t = 7;

	(void)state;
	assert_int_equal(parse("cpu  2869900 41352 1013793 4906969 21373 0 43234 158 0 0\n"
			       "cpu0 1 2 3 4 5 6 7 99 0 0\n", &t), 0);
	assert_int_equal(t, 158);
	/* a tab, and no guest columns (kernels 2.6.11 to 2.6.23) */
	assert_int_equal(parse("cpu\t1 2 3 4 5 6 7 8\n", &t), 0);
	assert_int_equal(t, 8);
	/* the aggregate line after another one; a per-CPU line is never taken for it */
	assert_int_equal(parse("cpu0 1 2 3 4 5 6 7 99\ncpu  1 2 3 4 5 6 7 42 0 0\n", &t), 0);
	assert_int_equal(t, 42);
	assert_int_equal(parse("cpu  1 2 3 4 5 6 7 18446744073709551615\n", &t), 0);
	assert_int_equal(t, UINT64_MAX);
}

static void test_steal_missing(void **state)
{
	uint64_t t = 7;

	(void)state;
	/* seven columns: no steal (before 2.6.11) */
	assert_int_equal(parse("cpu  1 2 3 4 5 6 7\n", &t), -ENODATA);
	assert_int_equal(parse("cpu  1 2 3 4 5 6 7   \n", &t), -ENODATA);
	/* no line end: the read stopped in it */
	assert_int_equal(parse("cpu  1 2 3 4 5 6 7 8 9 10", &t), -ENODATA);
	assert_int_equal(parse("cpu0 1 2 3 4 5 6 7 8 9 10\n", &t), -ENODATA);
	assert_int_equal(parse("", &t), -ENODATA);
	assert_int_equal(hw_steal_parse("cpu  1 2 3 4 5 6 7 8\n", 10, &t), -ENODATA);
	assert_int_equal(t, 7);	/* untouched on an error */
}

static void test_steal_bad(void **state)
{
	uint64_t t = 7;

	(void)state;
	assert_int_equal(parse("cpu  1 2 3 4 5 6 7 x\n", &t), -EINVAL);
	assert_int_equal(parse("cpu  1 2 3 4 5 6 7 8x 9\n", &t), -EINVAL);
	assert_int_equal(parse("cpu  1 2 -3 4 5 6 7 8\n", &t), -EINVAL);
	assert_int_equal(parse("cpux 1 2 3 4 5 6 7 8\n", &t), -ENODATA);
	assert_int_equal(parse("cpu  1 2 3 4 5 6 7 18446744073709551616\n", &t), -ERANGE);
	assert_int_equal(parse("cpu  99999999999999999999999 2 3 4 5 6 7 8\n", &t), -ERANGE);
	assert_int_equal(t, 7);
}

/* this machine's: a number of ns (zero on bare metal), never less on a second read */
static void test_steal_here(void **state)
{
	uint64_t a = 0, b = 0;

	(void)state;
	assert_int_equal(hw_steal_read_ns(&a), 0);
	assert_int_equal(hw_steal_read_ns(&b), 0);
	assert_true(b >= a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steal_line),
		cmocka_unit_test(test_steal_missing),
		cmocka_unit_test(test_steal_bad),
		cmocka_unit_test(test_steal_here),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
