// SPDX-License-Identifier: GPL-2.0-or-later
/* test_exphosts.c: the hosts of an experiment file as `pfclab top -e` reads them
 * (lib/exphosts), table-driven over files good and bad, and the file reader under it. */
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

#include "lib/exphosts.h"
#include "lib/util.h"

struct xcase {
	const char *yaml;
	int rc;
	const char *err;	/* the message's end after "exp.yaml:" */
};

static int load(const char *yaml, struct exphosts **x, char *err, size_t len)
{
	char dir[] = "/tmp/test_exphosts.XXXXXX", path[64];
	FILE *f;
	int rc;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/exp.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(yaml, f);
	fclose(f);
	rc = exphosts_load(path, x, err, len);
	unlink(path);
	rmdir(dir);
	return rc;
}

static void test_exphosts_files(void **state)
{
	static const struct xcase cases[] = {
		{ "name: a\nhosts: {a: {netdev: eth0}}\n", 0, NULL },
		{ "name: a\n", -EINVAL, "1: hosts: missing; name the hosts" },
		{ "name: a\nhosts: []\n", -EINVAL, "2: hosts: give a map of 1..256 hosts" },
		{ "hosts: {a: x}\n", -EINVAL, "1: hosts.a: give the host's keys" },
		{ "hosts: {a: {ssh: [x]}}\n", -EINVAL, "1: hosts.a.ssh: give one value" },
		{ "launcher: pbs\nhosts: {a: {}}\n", -EINVAL, "1: launcher: give local, ssh or slurm" },
		{ "- a\n", -EINVAL, "1: experiment: give a map" },
		{ "hosts: {a: {netdev: [\n", -EINVAL, NULL },
		/* the runner's checks are not made: an unknown key or a bad traffic value */
		{ "hosts: {a: {netdev: eth0, colour: red}}\nphases: 7\n", 0, NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct exphosts *x = NULL;
		char err[512] = "";
		int rc = load(cases[i].yaml, &x, err, sizeof(err));

		if (rc != cases[i].rc)
			fail_msg("case %zu: rc %d, want %d (%s)", i, rc, cases[i].rc, err);
		if (cases[i].err && (strncmp(err, "exp.yaml:", 9) ||
				     strncmp(err + 9, cases[i].err, strlen(cases[i].err))))
			fail_msg("case %zu: '%s', want 'exp.yaml:%s...'", i, err, cases[i].err);
		assert_true(rc ? x == NULL : x != NULL);
		exphosts_free(x);
	}
}

static void test_exphosts_fields(void **state)
{
	struct exphosts *x = NULL;
	char err[512] = "";

	(void)state;
	assert_int_equal(load("launcher: slurm\nmonitor: {interval: 10ms}\nhosts:\n"
			      "  a: {node: n1, netdev: eth2, rdma: mlx5_0, gpu: 0}\n"
			      "  b: {ssh: user@b, pfclab: /opt/pfclab}\n", &x, err, sizeof(err)), 0);
	assert_int_equal(x->launcher, EXPHOSTS_SLURM);
	assert_string_equal(x->interval, "10ms");
	assert_int_equal(x->interval_line, 2);
	assert_int_equal(x->n, 2);
	assert_string_equal(x->h[0].name, "a");
	assert_string_equal(x->h[0].node, "n1");
	assert_string_equal(x->h[0].netdev, "eth2");
	assert_string_equal(x->h[0].rdma, "mlx5_0");
	assert_string_equal(x->h[0].gpu, "0");
	assert_null(x->h[0].ssh);
	assert_int_equal(x->h[0].line, 4);
	assert_string_equal(x->h[1].ssh, "user@b");
	assert_string_equal(x->h[1].pfclab, "/opt/pfclab");
	assert_null(x->h[1].netdev);
	exphosts_free(x);
	x = NULL;
	assert_int_equal(load("hosts: {a: {}}\n", &x, err, sizeof(err)), 0);
	assert_int_equal(x->launcher, EXPHOSTS_SSH);
	assert_null(x->interval);
	exphosts_free(x);
}

/* A folder is not a file: said so with what is expected, as the runner says it. */
static void test_exphosts_dir(void **state)
{
	struct exphosts *x = NULL;
	char err[512] = "";

	(void)state;
	assert_int_equal(exphosts_load("/tmp", &x, err, sizeof(err)), -EISDIR);
	assert_string_equal(err, "/tmp is a directory; an experiment file (YAML) is expected");
	assert_int_equal(exphosts_load("/nonexistent/exp.yaml", &x, err, sizeof(err)), -ENOENT);
	assert_null(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exphosts_files),
		cmocka_unit_test(test_exphosts_fields),
		cmocka_unit_test(test_exphosts_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
