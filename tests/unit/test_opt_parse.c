// SPDX-License-Identifier: GPL-2.0-or-later
/* test_opt_parse.c: lib/opt's parser, table-driven: every kind of bad command line gives
 * exit status 2 and one message in the one style ("pfclab CMD: --opt 'x': why"), and
 * good ones land in their destinations, aliases (letters and long names) included.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/opt.h"
#include "lib/util.h"

struct dest {
	bool json, quiet;
	uint32_t prio;
	uint64_t count, dur, size, interval;
	const char *iface, *frames;
	int fn_calls;
};

static int parse_even(void *dst, const char *v, char *why, size_t len)
{
	struct dest *d = dst;

	if (!v || strlen(v) % 2) {
		snprintf(why, len, "expected an even number of characters");
		return -1;
	}
	d->fn_calls++;
	return 0;
}

static struct dest d;
static const struct opt opts[] = {
	{ "json", 'j', OPT_FLAG, .dst = &d.json, .help = "JSON" },
	{ "quiet", 'q', OPT_FLAG, .dst = &d.quiet, .help = "quiet" },
	{ "prio", 'p', OPT_U32, 0, 7, &d.prio, .arg = "N", .help = "priority" },
	{ "count", 'c', OPT_U64, 1, UINT64_MAX, &d.count, .arg = "N", .help = "count" },
	{ "duration", 'D', OPT_DUR, 1000000, UINT64_MAX, &d.dur, .arg = "DUR",
	  .help = "duration", .alias = "t" },
	{ "size", 's', OPT_SIZE, 2, 1 << 20, &d.size, .arg = "SIZE", .help = "size" },
	{ "iface", 'i', OPT_STR, .dst = &d.iface, .arg = "IFACE", .help = "interface",
	  .long_alias = "interface", .flags = OPT_ONCE },
	{ "frames", 0, OPT_STR, .dst = &d.frames, .arg = "IFACE", .help = "frames",
	  .flags = OPT_OPTIONAL },
	{ "interval", 0, OPT_DUR, 1000000, UINT64_MAX, &d.interval, .arg = "DUR",
	  .help = "interval" },
	{ "even", 0, OPT_FN, .dst = &d, .fn = parse_even, .arg = "X", .help = "even" },
	OPT_END
};
static const struct opt_cmd cmd = { "test", "Usage: pfclab test\n", NULL, opts, .extra = NULL };

/* Runs opt_parse on a space-separated command line; the message (if any) in msg. */
static int run(const char *line, char *msg, size_t len)
{
	static char buf[256]; /* the parsed values point into it after run() returns */
	char *argv[32], *save = NULL, *tok;
	FILE *old = stderr, *tmp = tmpfile();
	int argc = 0, rc;
	size_t n;

	snprintf(buf, sizeof(buf), "test %s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	memset(&d, 0, sizeof(d));
	assert_non_null(tmp);
	stderr = tmp;
	rc = opt_parse(&cmd, argc, argv);
	stderr = old;
	rewind(tmp);
	n = fread(msg, 1, len - 1, tmp);
	msg[n] = '\0';
	fclose(tmp);
	return rc;
}

static void test_errors(void **state)
{
	static const struct {
		const char *line;
		const char *msg;	/* the whole message, newline included */
	} t[] = {
		{ "-p 8", "pfclab test: --prio '8': expected a whole number from 0 to 7\n" },
		{ "--prio=-1", "pfclab test: --prio '-1': expected a whole number from 0 to 7\n" },
		{ "-p x", "pfclab test: --prio 'x': expected a whole number from 0 to 7\n" },
		{ "-c 0", "pfclab test: --count '0': expected a whole number >= 1\n" },
		{ "-D 10", "" },	/* a bare number is seconds: fine */
		{ "-D 5parsecs", "pfclab test: --duration '5parsecs': expected a duration >= 1ms "
		  "(e.g. 10ms, 250ms, 30s, 5m)\n" },
		{ "-t 1us", "pfclab test: --duration '1us': expected a duration >= 1ms "
		  "(e.g. 10ms, 250ms, 30s, 5m)\n" },
		{ "-D 1.5s", "" },	/* a decimal fraction: fine */
		{ "-D 0.5ms", "pfclab test: --duration '0.5ms': expected a duration >= 1ms "
		  "(e.g. 10ms, 250ms, 30s, 5m)\n" },
		{ "-D 1.0000000005s", "pfclab test: --duration '1.0000000005s': not a whole "
		  "number of nanoseconds\n" },
		{ "-D .5s", "pfclab test: --duration '.5s': expected a duration >= 1ms "
		  "(e.g. 10ms, 250ms, 30s, 5m)\n" },
		{ "-s 1", "pfclab test: --size '1': expected a size from 2 bytes to 1M "
		  "(e.g. 64, 4K, 1M)\n" },
		{ "-s 2M", "pfclab test: --size '2M': expected a size from 2 bytes to 1M "
		  "(e.g. 64, 4K, 1M)\n" },
		{ "--even abc", "pfclab test: --even 'abc': expected an even number of characters\n" },
		{ "-i a -i b", "pfclab test: --iface given twice; give it once\n" },
		/* the long alias is the option itself: named by its name, given once */
		{ "--interface a -i b", "pfclab test: --iface given twice; give it once\n" },
		{ "--interface", "pfclab test: --iface: needs a value (IFACE); see 'pfclab "
		  "test --help'\n" },
		{ "-x", "pfclab test: unknown option '-x'; see 'pfclab test --help'\n" },
		{ "--nope", "pfclab test: unknown option '--nope'; see 'pfclab test --help'\n" },
		/* a prefix of two options (a name and another's alias): said so, not "unknown" */
		{ "--inter 1s", "pfclab test: '--inter' is ambiguous: --interface, --interval; give "
		  "more of the name\n" },
		{ "-p", "pfclab test: --prio: needs a value (N); see 'pfclab test --help'\n" },
		{ "--duration", "pfclab test: --duration: needs a value (DUR); see 'pfclab test "
		  "--help'\n" },
		{ "--json=1", "pfclab test: --json takes no value; see 'pfclab test --help'\n" },
	};
	char msg[512];
	size_t i;

	(void)state;
	pfc_set_progname("pfclab test");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int rc = run(t[i].line, msg, sizeof(msg));

		print_message("%s\n", t[i].line);
		assert_string_equal(msg, t[i].msg);
		if (t[i].msg[0])
			assert_int_equal(rc, OPT_USAGE);
		else
			assert_int_equal(rc, 3);	/* argv[3]: past the option and its value */
	}
}

static void test_values(void **state)
{
	char msg[256];
	int rc;

	(void)state;
	rc = run("-jq -p 3 -c 10 -D 250ms -s 4K -i eth0 --even ab x y", msg, sizeof(msg));
	assert_string_equal(msg, "");
	assert_int_equal(rc, 14);
	assert_true(d.json && d.quiet);
	assert_int_equal(d.prio, 3);
	assert_int_equal(d.count, 10);
	assert_int_equal(d.dur, 250000000ULL);
	assert_int_equal(d.size, 4096);
	assert_string_equal(d.iface, "eth0");
	assert_int_equal(d.fn_calls, 1);
	assert_true(opt_given(&cmd, "prio"));
	assert_false(opt_given(&cmd, "frames"));
	/* a fraction, exactly: 2.675 s has no exact double */
	assert_int_equal(run("-D 2.675s", msg, sizeof(msg)), 3);
	assert_int_equal(d.dur, 2675000000ULL);
	/* the old letter, the optional value, options after operands */
	assert_int_equal(run("x -t 2s --frames", msg, sizeof(msg)), 4);	/* x moved last */
	assert_int_equal(d.dur, 2000000000ULL);
	assert_true(opt_given(&cmd, "frames"));
	assert_null(d.frames);
	assert_int_equal(run("--frames=va", msg, sizeof(msg)), 2);
	assert_string_equal(d.frames, "va");
	/* the long alias, in both forms, and an abbreviation (--i would also start
	 * --interval: ambiguous, see test_errors) */
	assert_int_equal(run("--interface eth1", msg, sizeof(msg)), 3);
	assert_string_equal(d.iface, "eth1");
	assert_true(opt_given(&cmd, "iface"));
	assert_int_equal(run("--interface=eth2", msg, sizeof(msg)), 2);
	assert_string_equal(d.iface, "eth2");
	assert_int_equal(run("--if eth3", msg, sizeof(msg)), 3);
	assert_string_equal(msg, "");
	assert_string_equal(d.iface, "eth3");
}

static void test_help(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	opt_help(&cmd, f);
	fclose(f);
	assert_non_null(strstr(buf, "Usage: pfclab test\n"));
	assert_non_null(strstr(buf, "  -D, --duration DUR     duration\n"));
	assert_non_null(strstr(buf, "      --frames[=IFACE]   frames\n"));
	assert_non_null(strstr(buf, "  -h, --help             this help\n"));
	assert_null(strstr(buf, "-t"));	/* letter aliases are not listed */
	/* a long alias is, below the option's help, in the help column */
	assert_non_null(strstr(buf, "  -i, --iface IFACE      interface\n"
				    "                         (also --interface)\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_help),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
