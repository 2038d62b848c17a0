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

/* What ssh would use as HOST's ConnectTimeout with the argv remote built (ssh -G reads the
 * configuration and prints it, connecting nowhere); -1 without ssh. */
static int ssh_effective_timeout(char **av)
{
	char cmd[8192], line[256];
	size_t off = 0;
	int v = -1, i;
	FILE *p;

	if (system("command -v ssh >/dev/null 2>&1"))
		return -1;
	off += (size_t)snprintf(cmd, sizeof(cmd), "HOME=%s ssh -G", getenv("HOME"));
	for (i = 1; av[i] && strcmp(av[i], "--"); i++) {
		char *q = remote_shell_quote(av[i]);

		off += (size_t)snprintf(cmd + off, sizeof(cmd) - off, " %s", q);
		free(q);
	}
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "connecttimeout %d", &v) == 1)
			break;
	pclose(p);
	return v;
}

static void test_ssh_argv(void **state)
{
	char dir[] = "/tmp/pfclab-remote-XXXXXX", ucfg[64], exp[512], path[128], buf[512];
	struct remote_target t = { .kind = REMOTE_SSH, .host = "h1" };
	const char *argv[] = { "pfclab", "version", NULL };
	char **av = NULL, *line, *cfg;
	FILE *f;
	int v;

	(void)state;
	assert_non_null(mkdtemp(dir));
	t.control_dir = dir;
	snprintf(ucfg, sizeof(ucfg), "%s/user cfg", dir);
	f = fopen(ucfg, "w");
	assert_non_null(f);
	fputs("Host h1\n\tConnectTimeout 3\n", f);
	fclose(f);
	t.ssh_config = ucfg;
	assert_int_equal(remote_argv_build(&t, argv, &av), 0);
	line = remote_argv_join((const char *const *)av);
	cfg = strstr(line, " -F ");
	assert_non_null(cfg);
	snprintf(exp, sizeof(exp), "ssh -o BatchMode=yes -o ControlMaster=auto -o "
		 "ControlPath=%s/cm-%%C -o ControlPersist=60 -F %s/ssh_config-", dir, dir);
	assert_memory_equal(line, exp, strlen(exp));
	assert_string_equal(line + strlen(exp) + 16, " -T h1 -- 'pfclab version'");
	/* the generated file: the user's first, then pfclab's default */
	snprintf(path, sizeof(path), "%.*s", 16 + (int)strlen(dir) + 12, cfg + 4);
	f = fopen(path, "r");
	assert_non_null(f);
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = 0;
	fclose(f);
	snprintf(exp, sizeof(exp), "Include \"%s\"\n# pfclab's defaults, for what the files above "
		 "leave unset\nHost *\n\tConnectTimeout 10\n", ucfg);
	assert_string_equal(buf, exp);
	/* the user's ConnectTimeout for h1 wins, pfclab's applies to other hosts */
	v = ssh_effective_timeout(av);
	if (v >= 0)
		assert_int_equal(v, 3);
	free(line);
	remote_argv_free(av);
	t.host = "h2";
	assert_int_equal(remote_argv_build(&t, argv, &av), 0);
	v = ssh_effective_timeout(av);
	if (v >= 0)
		assert_int_equal(v, 10);
	remote_argv_free(av);
	/* a timeout the caller asks for goes on the command line, over the files */
	t.host = "h1";
	t.connect_timeout_s = 7;
	assert_int_equal(remote_argv_build(&t, argv, &av), 0);
	line = remote_argv_join((const char *const *)av);
	assert_non_null(strstr(line, " -o ConnectTimeout=7 -F "));
	v = ssh_effective_timeout(av);
	if (v >= 0)
		assert_int_equal(v, 7);
	free(line);
	remote_argv_free(av);
	t.connect_timeout_s = 0;
	/* no config file given: the user's own and the system's are included */
	t.ssh_config = NULL;
	assert_int_equal(remote_argv_build(&t, argv, &av), 0);
	line = remote_argv_join((const char *const *)av);
	cfg = strstr(line, " -F ");
	assert_non_null(cfg);
	snprintf(path, sizeof(path), "%.*s", 16 + (int)strlen(dir) + 12, cfg + 4);
	f = fopen(path, "r");
	assert_non_null(f);
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = 0;
	fclose(f);
	assert_memory_equal(buf, "Include ~/.ssh/config\nInclude /etc/ssh/ssh_config\n", 50);
	unlink(path);
	free(line);
	remote_argv_free(av);
	/* a config file that is not there is an error, not silently nothing */
	t.ssh_config = "/nonexistent/pfclab-cfg";
	assert_int_equal(remote_argv_build(&t, argv, &av), -ENOENT);
	t.ssh_config = NULL;
	t.host = NULL;
	assert_int_equal(remote_argv_build(&t, argv, &av), -EINVAL);
	snprintf(exp, sizeof(exp), "rm -rf '%s'", dir);
	assert_int_equal(system(exp), 0);
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
