// SPDX-License-Identifier: GPL-2.0-or-later
/* test_util.c: number/size/duration parsing and the bounds-checked reader/writer. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/rd.h"
#include "lib/util.h"

struct parse_case {
	const char *in;
	int rc;
	uint64_t want;
};

static void test_parse_size(void **state)
{
	static const struct parse_case cases[] = {
		{ "64", 0, 64 },
		{ "4K", 0, 4096 },
		{ "64KiB", 0, 65536 },
		{ "1m", 0, 1 << 20 },
		{ "2G", 0, 2ULL << 30 },
		{ "0x10", 0, 16 },
		{ "", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "12Q", -EINVAL, 0 },
		{ " 5", -EINVAL, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
		{ "17179869184G", -ERANGE, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t v = 0;
		int rc = parse_size(cases[i].in, 0, UINT64_MAX, &v);

		assert_int_equal(rc, cases[i].rc);
		if (!rc)
			assert_int_equal(v, cases[i].want);
	}
}

static void test_parse_duration(void **state)
{
	static const struct parse_case cases[] = {
		{ "10ms", 0, 10000000 },
		{ "1s", 0, 1000000000 },
		{ "2", 0, 2000000000 },
		{ "250us", 0, 250000 },
		{ "1h", 0, 3600000000000ULL },
		{ "2m", 0, 120000000000ULL },
		{ "2min", 0, 120000000000ULL },
		{ "10MS", 0, 10000000 },
		{ "5parsecs", -EINVAL, 0 },
		{ "0ms", -ERANGE, 0 },
		/* decimal fractions, exact to the nanosecond (no floating point) */
		{ "1.5s", 0, 1500000000 },
		{ "0.5ms", 0, 500000 },
		{ "1.5", 0, 1500000000 },		/* bare: seconds */
		{ "0.1s", 0, 100000000 },		/* 0.1 has no exact double */
		{ "2.675ms", 0, 2675000 },
		{ "0.000001s", 0, 1000 },
		{ "1.000000001s", 0, 1000000001 },
		{ "1.10000000000000000000000s", 0, 1100000000 },	/* zeros cut */
		{ "1.5m", 0, 90000000000ULL },
		{ "0.25h", 0, 900000000000ULL },
		{ "0.0000000003h", 0, 1080 },		/* 3.6e12 ns x 3e-10 */
		{ "0.000000000555h", 0, 1998 },		/* 12 places, still whole ns */
		{ "007ms", 0, 7000000 },		/* decimal, not octal */
		{ "18446744073.709551615s", 0, UINT64_MAX },
		{ "1.5ns", -EDOM, 0 },
		{ "0.0000000001s", -EDOM, 0 },
		{ "0.0000000000000000000001s", -EDOM, 0 },
		{ "1.0000000000000000000001s", -EDOM, 0 },
		{ "0.0000000000001h", -EDOM, 0 },	/* 0.36 ns */
		{ "0.0005us", -EDOM, 0 },
		{ ".5s", -EINVAL, 0 },
		{ "1.s", -EINVAL, 0 },
		{ "1..5s", -EINVAL, 0 },
		{ "1.5.s", -EINVAL, 0 },
		{ "1,5s", -EINVAL, 0 },
		{ "0x10s", -EINVAL, 0 },
		{ "1e3ms", -EINVAL, 0 },
		{ "-1s", -EINVAL, 0 },
		{ "+1s", -EINVAL, 0 },
		{ " 1s", -EINVAL, 0 },
		{ "1s ", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "s", -EINVAL, 0 },
		{ "1.5x", -EINVAL, 0 },
		{ "0.5us", -ERANGE, 0 },		/* 500 ns, below the 1 us minimum */
		{ "18446744073.709551616s", -ERANGE, 0 },
		{ "5124096h", -ERANGE, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
		{ "99999999999999999999.5ms", -ERANGE, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t v = 0;
		int rc = parse_duration_ns(cases[i].in, 1000, UINT64_MAX, &v);

		print_message("%s\n", cases[i].in);
		assert_int_equal(rc, cases[i].rc);
		if (!rc)
			assert_int_equal(v, cases[i].want);
	}
	assert_int_equal(parse_duration_ns(NULL, 0, UINT64_MAX, &(uint64_t){ 0 }), -EINVAL);
}

/* fmt_duration_ns: the shortest exact form, which the parser reads back. */
static void test_fmt_duration(void **state)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = {
		{ 0, "0ns" }, { 999, "999ns" }, { 1000, "1us" }, { 100000, "100us" },
		{ 1500, "1.5us" }, { 1000000, "1ms" }, { 2500000, "2.5ms" },
		{ 1000000000ULL, "1s" }, { 1500000000ULL, "1.5s" }, { 1000000001ULL, "1.000000001s" },
		{ 90000000000ULL, "90s" }, { 120000000000ULL, "2m" }, { 3600000000000ULL, "1h" },
		{ 5400000000000ULL, "90m" }, { 2592000000000000ULL, "720h" },
		{ UINT64_MAX, "18446744073.709551615s" },
	};
	char buf[48];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t v = 0;

		fmt_duration_ns(cases[i].ns, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].text);
		assert_int_equal(parse_duration_ns(buf, 0, UINT64_MAX, &v), 0);
		assert_int_equal(v, cases[i].ns);
	}
}

static void test_parse_u32_range(void **state)
{
	uint32_t v = 7;

	(void)state;
	assert_int_equal(parse_u32("8", 1, 8, &v), 0);
	assert_int_equal(v, 8);
	assert_int_equal(parse_u32("9", 1, 8, &v), -ERANGE);
	assert_int_equal(parse_u32("0", 1, 8, &v), -ERANGE);
	assert_int_equal(parse_u32("3x", 1, 8, &v), -EINVAL);
	assert_int_equal(v, 8);
}

static void test_split(void **state)
{
	char a[] = "x,,y", b[] = "", c[] = "1\t2\t3\t4", *f[3];

	(void)state;
	assert_int_equal(pfc_split(a, ',', f, 3), 3);	/* empty fields kept */
	assert_string_equal(f[0], "x");
	assert_string_equal(f[1], "");
	assert_string_equal(f[2], "y");
	assert_int_equal(pfc_split(b, ',', f, 3), 1);
	assert_string_equal(f[0], "");
	assert_int_equal(pfc_split(c, '\t', f, 3), 3);	/* the last keeps the rest */
	assert_string_equal(f[1], "2");
	assert_string_equal(f[2], "3\t4");
}

static void test_ifname_valid(void **state)
{
	(void)state;
	assert_true(pfc_ifname_valid("eth0"));
	assert_true(pfc_ifname_valid("enp1s0f0np0"));	/* 11 */
	assert_true(pfc_ifname_valid("abcdefghijklmno"));	/* 15 */
	assert_true(pfc_ifname_valid("br-lab.100@x"));
	assert_false(pfc_ifname_valid(""));
	assert_false(pfc_ifname_valid("abcdefghijklmnop"));	/* 16 */
	assert_false(pfc_ifname_valid("."));
	assert_false(pfc_ifname_valid(".."));
	assert_false(pfc_ifname_valid("a/b"));
	assert_false(pfc_ifname_valid("eth0:1"));
	assert_false(pfc_ifname_valid("eth 0"));
	assert_false(pfc_ifname_valid("eth\t0"));
	assert_false(pfc_ifname_valid("eth\x7f"));
}

static void test_ns_timespec(void **state)
{
	struct timespec ts = ns_timespec(1500000000ULL);

	(void)state;
	assert_int_equal(ts.tv_sec, 1);
	assert_int_equal(ts.tv_nsec, 500000000);
	ts = ns_timespec(999999999ULL);
	assert_int_equal(ts.tv_sec, 0);
	assert_int_equal(ts.tv_nsec, 999999999);
}

static void test_reader_bounds(void **state)
{
	static const uint8_t buf[] = { 0x01, 0x02, 0x03, 0x04, 0x05 };
	struct rd r = rd_init(buf, sizeof(buf)), sub;

	(void)state;
	assert_int_equal(rd_be16(&r), 0x0102);
	assert_int_equal(rd_be24(&r), 0x030405);
	assert_true(rd_ok(&r));
	assert_int_equal(rd_u8(&r), 0);
	assert_false(rd_ok(&r));
	assert_int_equal(rd_left(&r), 0);
	/* a failed reader stays failed */
	assert_int_equal(rd_be32(&r), 0);
	assert_false(rd_ok(&r));

	r = rd_init(buf, sizeof(buf));
	assert_true(rd_sub(&r, 2, &sub));
	assert_int_equal(rd_be16(&sub), 0x0102);
	assert_false(rd_skip(&sub, 1));
	assert_int_equal(rd_left(&r), 3);
	assert_false(rd_sub(&r, 4, &sub));
}

static void test_writer_bounds(void **state)
{
	uint8_t buf[6];
	struct wr w = wr_init(buf, sizeof(buf));
	struct rd r;

	(void)state;
	wr_be32(&w, 0xdeadbeef);
	wr_be16(&w, 0x0102);
	assert_false(w.bad);
	wr_u8(&w, 1);
	assert_true(w.bad);
	r = rd_init(buf, sizeof(buf));
	assert_int_equal(rd_be32(&r), 0xdeadbeef);
	assert_int_equal(rd_be16(&r), 0x0102);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_fmt_duration),
		cmocka_unit_test(test_parse_u32_range),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_ifname_valid),
		cmocka_unit_test(test_ns_timespec),
		cmocka_unit_test(test_reader_bounds),
		cmocka_unit_test(test_writer_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
