// SPDX-License-Identifier: GPL-2.0-or-later
/* folder.c: the results folder of `pfclab run`: whether a folder holds a run already (and
 * what run), clearing one for --force, and making a new one without making its parents.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"
#include "folder.h"
#include "records.h"
#include "report.h"
#include "util.h"

/* What makes a folder a run's: the runner writes these first (run.c, exec.c). */
static const char *const run_marks[] = { "manifest.json", "experiment.yaml", "run.log", "points" };
/* What --force removes: the marks and what the report makes from them. */
static const char *const run_files[] = { "manifest.json", "experiment.yaml", "run.log", "points",
					 "summary.json", "summary.txt", "plots" };

bool run_rep_finished(const char *repdir)
{
	char path[PATH_MAX];
	json_object *st, *f;
	bool done;

	if (run_path(path, sizeof(path), "%s/status.json", repdir))
		return false;
	st = json_object_from_file(path);
	f = rec_json_member(st, "finished", json_type_boolean);
	done = f && json_object_get_boolean(f);
	json_object_put(st);
	return done;
}

/* Repetition folders under DIR/points (repN, not the repN.failedK kept beside) and how
 * many of them say "finished": true. */
static void count_reps(const char *dir, unsigned *reps, unsigned *finished)
{
	char path[PATH_MAX];
	struct dirent *p;
	DIR *pd;

	*reps = *finished = 0;
	if (run_path(path, sizeof(path), "%s/points", dir) || !(pd = opendir(path)))
		return;
	while ((p = readdir(pd))) {
		struct dirent *r;
		DIR *rd;

		if (p->d_name[0] == '.' ||
		    run_path(path, sizeof(path), "%s/points/%s", dir, p->d_name) || !(rd = opendir(path)))
			continue;
		while ((r = readdir(rd))) {
			char rp[PATH_MAX];

			if (!run_is_rep(r->d_name))
				continue;
			(*reps)++;
			if (!run_path(rp, sizeof(rp), "%s/%s", path, r->d_name) && run_rep_finished(rp))
				(*finished)++;
		}
		closedir(rd);
	}
	closedir(pd);
}

int run_folder_holds(const char *dir, char *what, size_t len)
{
	char path[PATH_MAX], marks[128] = "";
	unsigned reps, fin;
	json_object *man;
	struct stat st;
	const char *id, *status;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(run_marks); i++) {
		if (run_path(path, sizeof(path), "%s/%s", dir, run_marks[i]))
			return -ENAMETOOLONG;
		if (lstat(path, &st)) {
			if (errno != ENOENT && errno != ENOTDIR)
				return -errno;
			continue;
		}
		snprintf(marks + strlen(marks), sizeof(marks) - strlen(marks), "%s%s%s",
			 marks[0] ? ", " : "", run_marks[i], !strcmp(run_marks[i], "points") ? "/" : "");
	}
	if (!marks[0])
		return 0;
	/* The manifest is read as data (the folder may come from elsewhere). */
	run_path(path, sizeof(path), "%s/manifest.json", dir);
	man = json_object_from_file(path);
	id = rec_json_str(rec_json_member(man, "run_id", json_type_string));
	status = rec_json_str(rec_json_member(man, "status", json_type_string));
	count_reps(dir, &reps, &fin);
	if (*id)
		snprintf(what, len, "the run %.100s (status %.40s; %u of %u repetition%s finished)", id,
			 *status ? status : "unknown", fin, reps, reps == 1 ? "" : "s");
	else
		snprintf(what, len, "a run's files (%s; %u of %u repetition%s finished)", marks, fin,
			 reps, reps == 1 ? "" : "s");
	json_object_put(man);
	return -EEXIST;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP ? rmdir(path) : unlink(path))
		return errno ? errno : EIO;
	return 0;
}

int run_folder_clear(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;
	size_t i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(run_files); i++) {
		if (run_path(path, sizeof(path), "%s/%s", dir, run_files[i]))
			return pfc_why(err, errlen, -ENAMETOOLONG, "%s/%s: path too long", dir,
				       run_files[i]);
		if (lstat(path, &st))
			continue;
		errno = 0;
		/* FTW_PHYS: a link in there is removed, never followed */
		rc = S_ISDIR(st.st_mode) ? nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) : unlink(path);
		if (rc) {
			rc = rc > 0 ? rc : errno ? errno : EIO;
			return pfc_why(err, errlen, -rc, "%s: cannot remove the earlier run's files: %s",
				       path, strerror(rc));
		}
	}
	return 0;
}

/* The folder DIR is in ("." for a bare name); -ENAMETOOLONG or 0. */
static int parent_of(const char *dir, char *parent, size_t len)
{
	char *slash;
	size_t n;

	if (run_path(parent, len, "%s", dir))
		return -ENAMETOOLONG;
	n = strlen(parent);
	while (n > 1 && parent[n - 1] == '/')
		parent[--n] = 0;
	slash = strrchr(parent, '/');
	if (!slash)
		snprintf(parent, len, ".");
	else if (slash == parent)
		parent[1] = 0;
	else
		*slash = 0;
	return 0;
}

int run_folder_writable(const char *dir, const char *opt, char *err, size_t errlen)
{
	char where[PATH_MAX];
	struct stat st;
	int rc;

	if (!stat(dir, &st))
		run_path(where, sizeof(where), "%s", dir);
	else if (parent_of(dir, where, sizeof(where)) || stat(where, &st))
		return 0;	/* run_folder_parent_check says what is missing */
	if (!access(where, W_OK | X_OK))
		return 0;
	rc = -errno;
	if (!strcmp(opt, "--resume"))
		return pfc_why(err, errlen, rc, "--resume %s: cannot write in %s: %s; a resumed run "
			       "writes into its folder: copy it (cp -a %s NEW) where you can write and "
			       "give --resume NEW", dir, where, strerror(-rc), dir);
	return pfc_why(err, errlen, rc, "%s %s: cannot write in %s: %s; give %s a folder where you "
		       "can write", opt, dir, where, strerror(-rc), opt);
}

int run_folder_parent_check(const char *dir, char *err, size_t errlen)
{
	char parent[PATH_MAX];
	struct stat st;

	if (parent_of(dir, parent, sizeof(parent)))
		return pfc_why(err, errlen, -ENAMETOOLONG, "%.200s...: path too long", dir);
	if (stat(parent, &st))
		return pfc_why(err, errlen, -errno, "%s: %s; pfclab run makes the results folder %s "
			       "but not the folders above it: create %s first, or give another folder",
			       parent, strerror(errno), dir, parent);
	if (!S_ISDIR(st.st_mode))
		return pfc_why(err, errlen, -ENOTDIR, "%s is not a folder; give a results folder in "
			       "an existing folder", parent);
	return 0;
}

int run_folder_make(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	int rc;

	if (!stat(dir, &st)) {
		if (S_ISDIR(st.st_mode))
			return 0;
		return pfc_why(err, errlen, -ENOTDIR, "%s exists and is not a folder; give a folder",
			       dir);
	}
	rc = run_folder_parent_check(dir, err, errlen);
	if (rc)
		return rc;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return pfc_why(err, errlen, -errno, "%s: cannot create the results folder: %s", dir,
			       strerror(errno));
	return 0;
}
