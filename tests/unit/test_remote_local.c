// SPDX-License-Identifier: GPL-2.0-or-later
/* test_remote_local.c: the ssh/srun command lines remote builds, and local runs, puts and fetches. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/remote.h"

static void test_quote(void **state)
{
	const char *argv[] = { "echo", "a b", "it's", "plain-1.0", "", NULL };
	char *q = remote_shell_quote("it's");
	char *j = remote_argv_join(argv);

	(void)state;
	assert_string_equal(q, "'it'\\''s'");
	assert_string_equal(j, "echo 'a b' 'it'\\''s' plain-1.0 ''");
	free(q);
	free(j);
}

static void test_ssh_argv(void **state)
{
	struct remote_target t = { .kind = REMOTE_SSH, .host = "h1", .ssh_config = "/x/cfg",
				   .control_dir = "/run/cm" };
	const char *argv[] = { "pfclab", "version", NULL };
	char **av = NULL, *line;

	(void)state;
	assert_int_equal(remote_argv_build(&t, argv, &av), 0);
	line = remote_argv_join((const char *const *)av);
	assert_string_equal(line, "ssh -o BatchMode=yes -o ControlMaster=auto -o "
				  "ControlPath=/run/cm/cm-%C -o ControlPersist=60 -o ConnectTimeout=10 "
				  "-F /x/cfg -T h1 -- 'pfclab version'");
	free(line);
	remote_argv_free(av);
	t.ssh_config = NULL; /* the user's own config: no -F */
	assert_int_equal(remote_argv_build(&t, argv, &av), 0);
	line = remote_argv_join((const char *const *)av);
	assert_null(strstr(line, " -F "));
	free(line);
	remote_argv_free(av);
	t.host = NULL;
	assert_int_equal(remote_argv_build(&t, argv, &av), -EINVAL);
}

static void test_srun_argv(void **state)
{
	struct remote_target t = { .kind = REMOTE_SRUN, .host = "n2" };
	const char *argv[] = { "pfclab", "version", NULL };
	char **av = NULL, *line;

	(void)state;
	assert_int_equal(remote_argv_build(&t, argv, &av), 0);
	line = remote_argv_join((const char *const *)av);
	assert_string_equal(line, "srun --nodes=1 --ntasks=1 --nodelist=n2 --overlap --quiet -- "
				  "pfclab version");
	free(line);
	remote_argv_free(av);
}

static void test_local_run(void **state)
{
	struct remote_target t = { .kind = REMOTE_LOCAL };
	const char *argv[] = { "sh", "-c", "cat; echo err >&2; exit 3", NULL };
	const char *sl[] = { "sleep", "5", NULL };
	char *out = NULL, *err = NULL;
	int code = -1;

	(void)state;
	assert_int_equal(remote_run(&t, argv, "in\n", 5000, &code, &out, &err, 0), 0);
	assert_int_equal(code, 3);
	assert_string_equal(out, "in\n");
	assert_string_equal(err, "err\n");
	free(out);
	free(err);
	assert_int_equal(remote_run(&t, sl, NULL, 100, &code, NULL, NULL, 0), -ETIMEDOUT);
}

static void test_local_put_fetch(void **state)
{
	struct remote_target t = { .kind = REMOTE_LOCAL };
	char dir[] = "/tmp/remote-test-XXXXXX", path[256], back[256], buf[16] = { 0 };
	struct stat st;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a/b/key", dir);
	assert_int_equal(remote_put(&t, path, "secret\n", 7, 0600, 5000), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(path, sizeof(path), "%s/a", dir);
	snprintf(back, sizeof(back), "%s/back", dir);
	assert_int_equal(remote_fetch(&t, path, back, 5000), 0);
	snprintf(path, sizeof(path), "%s/back/a/b/key", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf) - 1, f), 7);
	fclose(f);
	assert_string_equal(buf, "secret\n");
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_ssh_argv),
		cmocka_unit_test(test_srun_argv),
		cmocka_unit_test(test_local_run),
		cmocka_unit_test(test_local_put_fetch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
