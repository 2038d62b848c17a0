// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_opts.c: table-driven checks of pfclab traffic's option validation. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/util.h"
#include "traffic/opts.h"

struct opt_case {
	int rc;			/* expected return */
	const char *args;	/* space-separated, after "traffic" */
	const char *err_has;	/* substring of the error, or NULL */
};

static int run_parse(const char *args, struct traffic_opts *o, char *err, size_t n)
{
	/* static: the parsed options point into these strings after we return. */
	static char buf[512];
	static char *argv[64];
	char *tok, *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", args);
	argv[argc++] = (char *)"traffic";
	for (tok = strtok_r(buf, " ", &save); tok && argc < 63; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return traffic_opts_parse(argc, argv, o, err, n);
}

static void test_opts_table(void **state)
{
	static const struct opt_case cases[] = {
		{ 0, "-d rxe0", NULL },
		{ 0, "-d rxe0 10.0.0.1", NULL },
		{ 0, "-d rxe0 -b -q 4 -s 64K -D 2 --tclass 106 -x 1", NULL },
		{ 0, "-d rxe0 -s 64,4K,1M -n 200", NULL },
		{ 0, "-d rxe0 -a -n 10", NULL },
		{ 0, "-d rxe0 --dscp 26 -S 3", NULL },
		{ 0, "-d rxe0 -t 16", NULL },			/* -Q follows -t down */
		{ 0, "-d rxe0 --rate 2.5 --rate-mode sw", NULL },
		{ 0, "--check-mem host", NULL },
		{ 0, "--check-mem cuda --gpu 0000:17:00.0", NULL },
		{ 0, "-d rxe0 --mem cuda-dmabuf --gpu 1 --json --interval 250ms", NULL },
		{ 1, "-h", NULL },
		{ 1, "-d rxe0 --help", NULL },
		{ -EINVAL, "", "no RDMA device" },
		{ -EINVAL, "-d rxe0 -D 1 -n 5", "-D and -n" },
		{ -EINVAL, "-d rxe0 -s 64 -a", "-s and -a" },
		{ -EINVAL, "-d rxe0 --tclass 8 --dscp 2", "--tclass and --dscp" },
		{ -EINVAL, "-d rxe0 -q 0", "--qp '0'" },
		{ -EINVAL, "-d rxe0 -q 257", "from 1 to 256" },
		{ -EINVAL, "-d rxe0 -q many", "--qp 'many': expected a whole number" },
		{ -EINVAL, "-d rxe0 -s 0", "--size '0'" },
		{ -EINVAL, "-d rxe0 -s 128M", "--size '128M'" },
		{ -EINVAL, "-d rxe0 -s 64,,", "empty size" },
		{ -EINVAL, "-d rxe0 -m 1000", "MTU" },
		{ -EINVAL, "-d rxe0 -m 8192", "MTU" },
		{ -EINVAL, "-d rxe0 --tclass 256", "--tclass" },
		{ -EINVAL, "-d rxe0 --dscp 64", "--dscp" },
		{ -EINVAL, "-d rxe0 -S 16", "--sl '16'" },
		{ -EINVAL, "-d rxe0 -t 16 -Q 32", "larger than the tx depth" },
		{ -EINVAL, "-d rxe0 -t 4 -l 8", "-l 8" },
		{ -EINVAL, "-d rxe0 --retry 8", "--retry" },
		{ -EINVAL, "-d rxe0 --qp-timeout 0", "--qp-timeout" },
		{ -EINVAL, "-d rxe0 --rate -1", "--rate" },
		{ -EINVAL, "-d rxe0 --rate fast", "--rate" },
		{ -EINVAL, "-d rxe0 --rate-mode hw", "without --rate" },
		{ -EINVAL, "-d rxe0 --rate 1 --rate-mode turbo", "--rate-mode" },
		{ -EINVAL, "-d rxe0 --poll busy", "auto or spin" },
		{ -EINVAL, "-d rxe0 --mem vram", "unknown memory type" },
		{ -EINVAL, "--check-mem floppy", "unknown memory type" },
		{ -EINVAL, "-d rxe0 -D 5parsecs", "expected a duration" },
		{ -EINVAL, "-d rxe0 --interval 1ms", "--interval" },
		{ -EINVAL, "-d rxe0 -p 0", "--port '0'" },
		{ -EINVAL, "-d rxe0 -p 70000", "--port '70000'" },
		{ -EINVAL, "-d rxe0 host1 host2", "only one HOST" },
		{ -EINVAL, "-d rxe0 --frobnicate", "unknown option" },
		{ -EINVAL, "-d", "needs a value" },
		{ -EINVAL, "-d rxe0 -x", "needs a value" },
	};
	struct traffic_opts o;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int rc = run_parse(cases[i].args, &o, err, sizeof(err));

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d (%s)", cases[i].args, rc, cases[i].rc, err);
		if (cases[i].err_has && !strstr(err, cases[i].err_has))
			fail_msg("'%s': error '%s' lacks '%s'", cases[i].args, err, cases[i].err_has);
	}
}

static void test_opts_values(void **state)
{
	struct traffic_opts o;
	char err[256];

	(void)state;
	assert_int_equal(run_parse("-d rxe0", &o, err, sizeof(err)), 0);
	assert_string_equal(o.dev, "rxe0");
	assert_null(o.host);
	assert_int_equal(o.qps, 1);
	assert_int_equal(o.nsizes, 1);
	assert_int_equal(o.sizes[0], 65536);
	assert_int_equal(o.duration_ns, 5000000000ULL);
	assert_int_equal(o.gid_index, -1);
	assert_int_equal(o.tclass, -1);
	assert_string_equal(o.mem, "host");
	assert_int_equal(o.poll_mode, TRAFFIC_POLL_AUTO);
	/* small messages inline unless -I says otherwise (-I 0: never) */
	assert_int_equal(o.inline_size, 220);
	assert_true(o.inline_auto);
	assert_int_equal(run_parse("-d rxe0 -I 0", &o, err, sizeof(err)), 0);
	assert_int_equal(o.inline_size, 0);
	assert_false(o.inline_auto);
	assert_int_equal(run_parse("-d rxe0 --poll spin", &o, err, sizeof(err)), 0);
	assert_int_equal(o.poll_mode, TRAFFIC_POLL_SPIN);
	assert_int_equal(run_parse("-d rxe0 --poll auto", &o, err, sizeof(err)), 0);
	assert_int_equal(o.poll_mode, TRAFFIC_POLL_AUTO);

	assert_int_equal(run_parse("-d rxe1 -b -q 8 -s 64,4K -n 200 --dscp 26 -x 3 -t 64 -Q 16 -l 4 "
				   "-I 128 -m 1024 10.77.0.1", &o, err, sizeof(err)), 0);
	assert_string_equal(o.host, "10.77.0.1");
	assert_true(o.bidir);
	assert_int_equal(o.qps, 8);
	assert_int_equal(o.nsizes, 2);
	assert_int_equal(o.sizes[1], 4096);
	assert_int_equal(o.iters, 200);
	assert_int_equal(o.duration_ns, 0);
	assert_int_equal(o.tclass, 104);
	assert_int_equal(o.gid_index, 3);
	assert_int_equal(o.cq_mod, 16);
	assert_int_equal(o.post_list, 4);
	assert_int_equal(o.inline_size, 128);
	assert_false(o.inline_auto);
	assert_int_equal(o.mtu, 1024);
	assert_int_equal(traffic_opts_max_size(&o), 4096);

	assert_int_equal(run_parse("-d rxe0 -a -n 3", &o, err, sizeof(err)), 0);
	assert_int_equal(o.nsizes, 23);
	assert_int_equal(o.sizes[0], 2);
	assert_int_equal(o.sizes[22], 8u << 20);

	/* A small tx depth pulls the default completion moderation down with it. */
	assert_int_equal(run_parse("-d rxe0 -t 8", &o, err, sizeof(err)), 0);
	assert_int_equal(o.cq_mod, 8);
	assert_int_equal(o.post_list, 8);
	assert_int_equal(run_parse("-d rxe0 -t 4", &o, err, sizeof(err)), 0);
	assert_int_equal(o.post_list, 4);
}

/* One option's value checked alone, as the experiment runner does: same table, the
 * message without the option's name, no checks between options (no -d needed).
 */
static void test_opts_check(void **state)
{
	static const struct {
		const char *flag, *value, *why;	/* why NULL: accepted */
	} cases[] = {
		{ "-q", "256", NULL },
		{ "-q", "300", "expected a whole number from 1 to 256" },
		{ "-t", "20000", "expected a whole number from 1 to 16384" },
		{ "-s", "4K,64K", NULL },
		{ "-s", "64Q", "expected a size from 1 byte to 64M" },
		{ "-s", "4K,1X", "'1X' is not a size from 1 byte to 64M" },
		{ "-m", "1000", "the MTU is one of 256, 512, 1024, 2048, 4096" },
		{ "--mem", "nope", "unknown memory type; 'pfclab traffic --help' lists them" },
		{ "--rate", "0", "a rate in Gb/s above 0 and up to 1000" },
		{ "--warmup", "-5", "expected a duration from 0ns to 1h (e.g. 500us, 10ms, 30s)" },
		{ "--no-such", "1", "unknown option '--no-such'; see 'pfclab traffic --help'" },
	};
	struct traffic_opts o;
	char why[256];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int rc = traffic_opts_check(cases[i].flag, cases[i].value, &o, why, sizeof(why));

		if (!cases[i].why) {
			assert_int_equal(rc, 0);
			continue;
		}
		assert_int_equal(rc, -EINVAL);
		if (strcmp(why, cases[i].why))
			fail_msg("%s %s: got '%s'", cases[i].flag, cases[i].value, why);
	}
	assert_int_equal(traffic_opts_check("-D", "250ms", &o, why, sizeof(why)), 0);
	assert_int_equal(o.duration_ns, 250000000ULL);	/* the value, for the runner */
	assert_int_equal(o.qps, 1);			/* the rest: defaults */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts_table),
		cmocka_unit_test(test_opts_values),
		cmocka_unit_test(test_opts_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
