// SPDX-License-Identifier: GPL-2.0-or-later
/* test_run_folder.c: the results folder of pfclab run: a folder that holds a run is known
 * as one (and said which), --force removes the run's files and nothing else, and a
 * folder is made only where the folder above it exists.
 */
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

#include "lib/util.h"
#include "scripts/run/folder.h"

static void put(const char *dir, const char *name, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static bool there(const char *dir, const char *name)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &st);
}

static void rm_tree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_holds(void **state)
{
	char root[] = "/tmp/run-folder-XXXXXX", d[300], what[300] = "";

	(void)state;
	assert_non_null(mkdtemp(root));
	/* absent, empty, or someone else's files: no run */
	snprintf(d, sizeof(d), "%s/none", root);
	assert_int_equal(run_folder_holds(d, what, sizeof(what)), 0);
	assert_int_equal(run_folder_holds(root, what, sizeof(what)), 0);
	put(root, "notes.txt", "mine\n");
	assert_int_equal(run_folder_holds(root, what, sizeof(what)), 0);
	/* a finished run: its id, status and repetitions (failed attempts beside not counted) */
	put(root, "manifest.json", "{\"run_id\":\"idle-20261126-124121\",\"status\":\"complete\"}\n");
	snprintf(d, sizeof(d), "%s/points/p000/rep0", root);
	assert_int_equal(pfc_mkdir_p(d), 0);
	put(d, "status.json", "{\"finished\":true}\n");
	snprintf(d, sizeof(d), "%s/points/p000/rep0.failed1", root);
	assert_int_equal(pfc_mkdir_p(d), 0);
	snprintf(d, sizeof(d), "%s/points/p001/rep0", root);
	assert_int_equal(pfc_mkdir_p(d), 0);
	put(d, "status.json", "{\"finished\":false}\n");
	assert_int_equal(run_folder_holds(root, what, sizeof(what)), -EEXIST);
	assert_string_equal(what, "the run idle-20261126-124121 (status complete; 1 of 2 repetitions "
				  "finished)");
	/* a manifest of the wrong shape (a folder from elsewhere): the files are named */
	put(root, "manifest.json", "[1]\n");
	put(root, "run.log", "");
	assert_int_equal(run_folder_holds(root, what, sizeof(what)), -EEXIST);
	assert_string_equal(what, "a run's files (manifest.json, run.log, points/; 1 of 2 repetitions "
				  "finished)");
	rm_tree(root);
}

static void test_clear(void **state)
{
	char root[] = "/tmp/run-clear-XXXXXX", d[300], err[600] = "", what[300];

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "manifest.json", "{}\n");
	put(root, "experiment.yaml", "name: x\n");
	put(root, "run.log", "x\n");
	put(root, "summary.json", "{}\n");
	put(root, "summary.txt", "x\n");
	put(root, "notes.txt", "mine\n");
	snprintf(d, sizeof(d), "%s/points/p000/rep0/a/monitor", root);
	assert_int_equal(pfc_mkdir_p(d), 0);
	put(d, "samples.csv", "x\n");
	snprintf(d, sizeof(d), "%s/plots/data", root);
	assert_int_equal(pfc_mkdir_p(d), 0);
	/* a link inside is removed, not followed */
	snprintf(d, sizeof(d), "%s/points/p000/rep0/a/elsewhere", root);
	assert_int_equal(symlink(root, d), 0);
	assert_int_equal(run_folder_clear(root, err, sizeof(err)), 0);
	assert_false(there(root, "manifest.json"));
	assert_false(there(root, "experiment.yaml"));
	assert_false(there(root, "run.log"));
	assert_false(there(root, "summary.json"));
	assert_false(there(root, "summary.txt"));
	assert_false(there(root, "points"));
	assert_false(there(root, "plots"));
	assert_true(there(root, "notes.txt"));
	assert_int_equal(run_folder_holds(root, what, sizeof(what)), 0);
	rm_tree(root);
}

static void test_make(void **state)
{
	char root[] = "/tmp/run-make-XXXXXX", d[300], err[600] = "";

	(void)state;
	assert_non_null(mkdtemp(root));
	/* one level is made; two are not */
	snprintf(d, sizeof(d), "%s/results", root);
	assert_int_equal(run_folder_make(d, err, sizeof(err)), 0);
	assert_true(there(root, "results"));
	assert_int_equal(run_folder_make(d, err, sizeof(err)), 0); /* there already */
	snprintf(d, sizeof(d), "%s/typo/results/", root);
	assert_int_equal(run_folder_make(d, err, sizeof(err)), -ENOENT);
	assert_false(there(root, "typo"));
	assert_non_null(strstr(err, "/typo: No such file or directory; pfclab run makes the results "
				    "folder "));
	assert_non_null(strstr(err, "but not the folders above it: create "));
	assert_int_equal(run_folder_parent_check(d, err, sizeof(err)), -ENOENT);
	/* a file where the folder would be, or above it */
	put(root, "file", "x\n");
	snprintf(d, sizeof(d), "%s/file", root);
	assert_int_equal(run_folder_make(d, err, sizeof(err)), -ENOTDIR);
	snprintf(d, sizeof(d), "%s/file/run", root);
	assert_int_equal(run_folder_make(d, err, sizeof(err)), -ENOTDIR);
	/* a name without a slash is made in the working folder, which exists */
	assert_int_equal(run_folder_parent_check("results", err, sizeof(err)), 0);
	assert_int_equal(run_folder_parent_check("/x", err, sizeof(err)), 0);
	rm_tree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holds),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_make),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
