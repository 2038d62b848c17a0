// SPDX-License-Identifier: GPL-2.0-or-later
/* run.c: `pfclab run`: options, the results folder, the version check, the loop over sweep
 * points, repetitions and retries, Ctrl-C, resume, and the report at the end.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "lib/opt.h"
#include "lib/out.h"
#include "lib/util.h"
#include "clock.h"
#include "folder.h"
#include "manifest.h"
#include "records.h"
#include "report.h"
#include "run.h"
#include "util.h"
#include "scripts/run/run_main.h"
#include "version.h" /* generated: $(BUILD)/gen */

static void on_sigint(int sig)
{
	static const char msg[] = "\npfclab run: stopping every host cleanly (Ctrl-C again leaves at once)\n";

	if (run_stop_requested) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	run_stop_requested = 1;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		return;
}

static const char run_usage[] =
	"Usage: pfclab run [OPTIONS] EXPERIMENT.yaml\n"
	"       pfclab run --resume DIR      go on with an interrupted run\n"
	"       pfclab run --report DIR      (re)make summary and plots of a results folder\n"
	"\n"
	"Runs a scripted experiment across hosts: on every host a counter monitor and a frame\n"
	"capture for each sweep point, then the point's phases (traffic, inject, idle, pre/post\n"
	"commands); brings the records back, reviews the captures, judges each point valid or\n"
	"not (retrying invalid ones), and writes summary.json, summary.txt and plots/.\n"
	"The experiment file format and the results layout: scripts/README.md (installed:\n"
	"PREFIX/share/doc/pfclab/scripts/README.md, with the examples in scripts/experiments/).\n"
	"\n"
	"Options:\n";
static const char run_tail[] =
	"\n"
	"Exit status: 0 every point valid, 1 run-time failure (a host unreachable, a version\n"
	"mismatch, invalid points, interrupted, a results folder that holds a run already),\n"
	"2 usage error or a bad experiment file.\n";

static int launcher_fn(void *dst, const char *v, char *why, size_t len)
{
	if (!launch_find(v))
		return snprintf(why, len, "give local, ssh or slurm"), -1;
	*(const char **)dst = v;
	return 0;
}

static int ssh_config_fn(void *dst, const char *v, char *why, size_t len)
{
	const char *bad;

	if (access(v, R_OK))
		return snprintf(why, len, "%s: give a readable ssh config file", strerror(errno)), -1;
	if ((bad = remote_ssh_config_problem(v)))
		return snprintf(why, len, "%s", bad), -1;
	*(const char **)dst = v;
	return 0;
}

/* The command line into c and report_dir: the index of the first operand, or OPT_HELP /
 * OPT_USAGE.
 */
static int run_opts_parse(int argc, char **argv, struct run_ctx *c, const char **report_dir)
{
	bool no_plots = false;
	const struct opt opts[] = {
		{ "dry-run", 'n', OPT_FLAG, .dst = &c->o.dry_run,
		  .help = "print every command on every host, run nothing" },
		{ "resume", 0, OPT_STR, .dst = &c->o.resume, .arg = "DIR",
		  .help = "run the points of DIR that did not finish" },
		{ "report", 0, OPT_STR, .dst = report_dir, .arg = "DIR",
		  .help = "remake DIR/summary.* and DIR/plots from the records" },
		{ "results", 'r', OPT_STR, .dst = &c->o.results, .arg = "DIR",
		  .help = "parent folder of runs (default results), made if missing (the\n"
			  "folders above it are not); DIR/latest names the newest" },
		{ "out", 'o', OPT_STR, .dst = &c->o.out, .arg = "DIR",
		  .help = "put this run in DIR exactly, made if missing (the folders\n"
			  "above it are not); a DIR that holds a run already is refused" },
		{ "force", 0, OPT_FLAG, .dst = &c->o.force,
		  .help = "with --out: replace the run in DIR" },
		{ "launcher", 'l', OPT_FN, .dst = &c->o.launcher, .fn = launcher_fn, .arg = "NAME",
		  .help = "local, ssh or slurm (default: the file's launcher:, else ssh)" },
		{ "ssh-config", 'F', OPT_FN, .dst = &c->o.ssh_config, .fn = ssh_config_fn,
		  .arg = "FILE", .help = "ssh -F FILE (default: the user's own ssh config)" },
		{ "no-plots", 0, OPT_FLAG, .dst = &no_plots, .help = "no gnuplot plots at the end" },
		{ "quiet", 'q', OPT_FLAG, .dst = &c->o.quiet,
		  .help = "no progress lines (run.log keeps them)" },
		OPT_END
	};
	const struct opt_cmd cmd = { "run", run_usage, run_tail, opts, .extra = NULL };
	int first = opt_parse(&cmd, argc, argv);

	c->o.plots = !no_plots;
	return first;
}

/* DIR holds a 'pfclab run' results folder (its experiment.yaml and manifest.json); says
 * so on stderr when not. */
static bool results_folder(const char *dir, const char *opt)
{
	char path[PATH_MAX];

	run_path(path, sizeof(path), "%s/manifest.json", dir);
	if (!access(path, R_OK)) {
		run_path(path, sizeof(path), "%s/experiment.yaml", dir);
		if (!access(path, R_OK))
			return true;
	}
	pfc_err("%s %s: not a 'pfclab run' results folder (no readable %s); give a folder "
		"made by pfclab run, e.g. results/latest", opt, dir, path);
	return false;
}

static int report(const char *dir, bool plots, bool print)
{
	char err[1024], path[PATH_MAX];
	int rc;

	rc = summary_make(dir, err, sizeof(err));
	if (rc) {
		pfc_err("%s", err);
		return 1;
	}
	if (plots) {
		rc = plots_make(dir, err, sizeof(err));
		if (rc)
			pfc_warn("plots: %s", err);
	}
	if (print) {
		FILE *f;
		char buf[4096];
		size_t n;

		run_path(path, sizeof(path), "%s/summary.txt", dir);
		f = fopen(path, "r");
		while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, stdout);
		if (f)
			fclose(f);
		out_stdout_check(); /* keeps why a write failed (EPIPE, ENOSPC) for the end */
	}
	return rc ? 1 : 0;
}

static void manifest_hosts_update(struct run_ctx *c)
{
	json_object *hosts;
	size_t h;

	hosts = run_json_child(c->manifest, "hosts");
	for (h = 0; h < c->nhosts; h++) {
		struct run_host *rh = &c->hosts[h];
		json_object *o, *ck;

		o = run_json_child(hosts, rh->h->name);
		json_object_object_add(o, "reach", rh->reach[0] ? json_object_new_string(rh->reach) : NULL);
		json_object_object_add(o, "lost", json_object_new_boolean(rh->lost));
		ck = run_json_child(o, "clock");
		json_object_object_add(ck, "method", json_object_new_string(
			"date +%s%N over the launcher; offset = host - runner at the middle of the fastest of 3 round trips"));
		if (rh->off_valid[0]) {
			json_object_object_add(ck, "offset_start_ns", json_object_new_int64(rh->off_ns[0]));
			json_object_object_add(ck, "rtt_start_ns", json_object_new_int64((int64_t)rh->rtt_ns[0]));
		}
		if (rh->off_valid[1]) {
			json_object_object_add(ck, "offset_end_ns", json_object_new_int64(rh->off_ns[1]));
			json_object_object_add(ck, "rtt_end_ns", json_object_new_int64((int64_t)rh->rtt_ns[1]));
		}
	}
}

static void manifest_save(struct run_ctx *c)
{
	char path[PATH_MAX];

	json_object_object_add(c->manifest, "status", json_object_new_string(c->status));
	manifest_hosts_update(c);
	run_path(path, sizeof(path), "%s/manifest.json", c->dir);
	if (run_json_write(path, c->manifest))
		pfc_err("%s: cannot write the manifest", path);
}

/* One host's clock offset and probe, on a thread of its own: the hosts answer at once
 * instead of one after another (each probe is a remote command of its own).
 */
struct probe_job {
	struct run_ctx *c;
	size_t h;
	int which, clock_rc;
	json_object *probe;
	pthread_t thr;
	bool started;
};

static void *probe_host(void *arg)
{
	struct probe_job *j = arg;

	j->clock_rc = clock_measure(j->c, j->h, j->which);
	j->probe = manifest_probe(j->c, j->h);
	return NULL;
}

/* A host whose GPU and RDMA device are SYS apart (across the CPU interconnect): GPUDirect
 * RDMA runs there at about half the bandwidth (linux-rdma/perftest issue #241), which the
 * run's figures would show as the NIC's, not the topology's: said in the log. */
static void gpu_distance_note(struct run_ctx *c, size_t h, json_object *probe)
{
	json_object *g = rec_json_member(probe, "gpu", json_type_object);
	const char *d = rec_json_str(rec_json_member(g, "distance", json_type_string));

	if (!strcmp(d, "SYS"))
		run_log(c, "host %s: GPU %s (%s) and %s are SYS apart, across the CPU "
			"interconnect: expect about half the GPUDirect RDMA bandwidth (perftest "
			"issue #241); pfclab doctor there lists a GPU nearer to the NIC",
			c->hosts[h].h->name, rec_json_str(rec_json_member(g, "given", json_type_string)),
			rec_json_str(rec_json_member(g, "bdf", json_type_string)),
			rec_json_str(rec_json_member(g, "rdma", json_type_string)));
}

static void clock_and_probe(struct run_ctx *c, int which)
{
	struct probe_job *jobs = calloc(c->nhosts, sizeof(*jobs));
	json_object *hosts;
	size_t h;

	manifest_hosts_update(c);
	json_object_object_get_ex(c->manifest, "hosts", &hosts);
	for (h = 0; h < c->nhosts; h++) {
		json_object *o, *ck;

		if (c->hosts[h].lost)
			continue;
		json_object_object_get_ex(hosts, c->hosts[h].h->name, &o);
		json_object_object_get_ex(o, "clock", &ck);
		json_object_object_add(ck, which ? "end_wall_ns" : "start_wall_ns",
				       json_object_new_int64((int64_t)time_real_ns()));
		if (!jobs)
			continue;
		jobs[h] = (struct probe_job){ .c = c, .h = h, .which = which };
		jobs[h].started = !pthread_create(&jobs[h].thr, NULL, probe_host, &jobs[h]);
	}
	for (h = 0; h < c->nhosts; h++) {
		struct probe_job one, *j = jobs ? &jobs[h] : &one;
		json_object *o;

		if (c->hosts[h].lost)
			continue;
		if (jobs && j->started) {
			pthread_join(j->thr, NULL);
		} else {	/* no memory or no thread: here, in turn */
			*j = (struct probe_job){ .c = c, .h = h, .which = which };
			probe_host(j);
		}
		if (j->clock_rc)
			run_log(c, "host %s: clock offset could not be measured", c->hosts[h].h->name);
		json_object_object_get_ex(hosts, c->hosts[h].h->name, &o);
		if (!which)
			gpu_distance_note(c, h, j->probe);
		json_object_object_add(o, which ? "after" : "before", j->probe);
	}
	free(jobs);
	manifest_hosts_update(c);
}

static void latest_link(const char *parent, const char *id)
{
	char tmp[PATH_MAX], dst[PATH_MAX];

	run_path(tmp, sizeof(tmp), "%s/.latest.tmp", parent);
	run_path(dst, sizeof(dst), "%s/latest", parent);
	unlink(tmp);
	if (!symlink(id, tmp) && rename(tmp, dst))
		unlink(tmp);
}

/* an earlier attempt's folder is kept beside: repN.failedK / repN.interruptedK */
static void set_aside(const char *repdir, const char *why)
{
	char dst[PATH_MAX];
	struct stat st;
	int k;

	if (stat(repdir, &st))
		return;
	for (k = 1; k < 1000; k++) {
		run_path(dst, sizeof(dst), "%s.%s%d", repdir, why, k);
		if (stat(dst, &st))
			break;
	}
	rename(repdir, dst);
}

static int copy_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	if (fwrite(text, 1, len, f) != len) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}

/* The launcher, this binary, and each host's pfclab and remote target. 0, or -errno with
 * err filled (-ENOMEM: nothing to say).
 */
static int run_hosts(struct run_ctx *c, char *err, size_t errlen)
{
	ssize_t sl;
	size_t h;
	int rc;

	c->lops = launch_find(c->o.launcher ? c->o.launcher : exp_launcher_name(c->e->launcher));
	sl = readlink("/proc/self/exe", c->self, sizeof(c->self) - 1);
	if (sl <= 0)
		run_path(c->self, sizeof(c->self), "pfclab");
	c->nhosts = c->e->nhosts;
	c->hosts = calloc(c->nhosts, sizeof(*c->hosts));
	if (!c->hosts)
		return -ENOMEM;
	for (h = 0; h < c->nhosts; h++) {
		struct run_host *rh = &c->hosts[h];

		rh->h = &c->e->hosts[h];
		run_path(rh->pfclab, sizeof(rh->pfclab), "%s",
			 rh->h->pfclab ? rh->h->pfclab : c->lops->kind == REMOTE_LOCAL ? c->self : "pfclab");
	}
	rc = c->lops->resolve(c, err, errlen);
	if (rc)
		return rc;
	for (h = 0; h < c->nhosts; h++) {
		c->hosts[h].t = (struct remote_target){ .kind = c->lops->kind, .host = c->hosts[h].reach,
							.ssh_config = c->o.ssh_config };
		if (c->lops->kind == REMOTE_SSH && !remote_control_dir(&rc)) {
			snprintf(err, errlen, "no private folder for ssh control sockets "
				 "(XDG_RUNTIME_DIR or /tmp): %s", strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* A run id that can name a host's scratch folder: what a run's name and time make. */
static bool run_id_ok(const char *id, size_t max)
{
	return *id && *id != '.' && strlen(id) < max && exp_name_chars_ok(id);
}

/* --resume DIR: the run's id as its manifest recorded it, whatever DIR is called
 * (results/latest, a trailing '/', an -o folder); without a usable one, the name of the
 * folder DIR leads to.
 */
static void resume_id(struct run_ctx *c)
{
	char path[PATH_MAX], real[PATH_MAX];
	json_object *man;
	const char *id;

	run_path(path, sizeof(path), "%s/manifest.json", c->dir);
	man = run_json_read(path); /* data: the folder may come from elsewhere */
	id = rec_json_str(rec_json_member(man, "run_id", json_type_string));
	if (run_id_ok(id, sizeof(c->id))) {
		run_path(c->id, sizeof(c->id), "%s", id);
		json_object_put(man);
		return;
	}
	json_object_put(man);
	id = realpath(c->dir, real) ? strrchr(real, '/') + 1 : "";
	run_path(c->id, sizeof(c->id), "%s", run_id_ok(id, sizeof(c->id)) ? id : "resumed");
}

/* This run's id and results folder, and each host's scratch folder; returns the parent
 * of the results folder.
 */
static const char *run_paths(struct run_ctx *c)
{
	const char *parent;
	size_t h;

	/* the results folder */
	{
		char ts[32];
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
		run_path(c->id, sizeof(c->id), "%s-%s", c->e->name, ts);
	}
	parent = c->o.results ? c->o.results : "results";
	if (c->o.resume)
		run_path(c->dir, sizeof(c->dir), "%s", c->o.resume);
	else if (c->o.out)
		run_path(c->dir, sizeof(c->dir), "%s", c->o.out);
	else
		run_path(c->dir, sizeof(c->dir), "%s/%s", parent, c->id);
	if (c->o.resume)
		resume_id(c);
	for (h = 0; h < c->nhosts; h++) {
		struct run_host *rh = &c->hosts[h];

		if (c->lops->writes_results)
			run_path(rh->scratch, sizeof(rh->scratch), "/tmp/pfclab-run-XXXXXX");
		else
			run_path(rh->scratch, sizeof(rh->scratch), "%s/pfclab-run-%s-%s",
				 rh->h->workdir ? rh->h->workdir : "/tmp", c->id, rh->h->name);
		run_path(rh->psk_path, sizeof(rh->psk_path), "%s/psk", rh->scratch);
	}
	return parent;
}

/* The experiment's hash and the manifest's fixed fields (kept from DIR on --resume). */
static void manifest_start(struct run_ctx *c)
{
	char path[PATH_MAX];

	run_path(path, sizeof(path), "%s/manifest.json", c->dir);
	c->manifest = c->o.resume ? run_json_read(path) : NULL;
	if (!c->manifest)
		c->manifest = json_object_new_object();
	{
		unsigned char d[32];

		crypto_hash_sha256(d, (const unsigned char *)c->e->text, c->e->textlen);
		sodium_bin2hex(c->hash, sizeof(c->hash), d, sizeof(d));
	}
	json_object_object_add(c->manifest, "format", json_object_new_string("pfclab-run-1"));
	json_object_object_add(c->manifest, "experiment", json_object_new_string(c->e->name));
	json_object_object_add(c->manifest, "experiment_file", json_object_new_string(c->e->file));
	json_object_object_add(c->manifest, "experiment_sha256", json_object_new_string(c->hash));
	json_object_object_add(c->manifest, "run_id", json_object_new_string(c->id));
	json_object_object_add(c->manifest, "launcher", json_object_new_string(c->lops->name));
	json_object_object_add(c->manifest, "pfclab_version", json_object_new_string(PFCLAB_VERSION));
	json_object_object_add(c->manifest, "pre_shared_key",
			       json_object_new_string(c->o.psk ? "fresh per run, passed to traffic with --psk, not kept"
							      : "fresh per run, not passed to traffic (PFCLAB_RUN_PSK=0), not kept"));
	if (c->o.resume)
		json_object_object_add(c->manifest, "resumed_wall_ns", json_object_new_int64((int64_t)time_real_ns()));
	else
		json_object_object_add(c->manifest, "started_wall_ns", json_object_new_int64((int64_t)time_real_ns()));
	run_log(c, "%s: %zu host%s, launcher %s, results in %s", c->e->name, c->nhosts,
		c->nhosts == 1 ? "" : "s", c->lops->name, c->dir);
}

/* Every point and repetition, each retried while invalid; ends with c->status set unless
 * all ran.
 */
static void run_points(struct run_ctx *c)
{
	char err[EXP_ERR_LEN + 512];
	size_t np, i;
	unsigned rep;
	int rc;

	np = exp_point_count(c->e);
	for (i = 0; i < np && !strcmp(c->status, "running"); i++) {
		struct exp_point p;

		rc = exp_point_build(c->e, i, &p, err, sizeof(err));
		if (rc) {
			pfc_err("%s", err);
			c->status = "failed";
			break;
		}
		for (rep = 0; rep < c->e->reps && !strcmp(c->status, "running"); rep++) {
			char repdir[PATH_MAX];
			unsigned attempt;
			bool valid = false;

			run_path(repdir, sizeof(repdir), "%s/points/%s/rep%u", c->dir, p.id, rep);
			if (c->o.resume && run_rep_finished(repdir)) {
				run_log(c, "point %s repetition %u: finished before; skipped", p.id, rep);
				continue;
			}
			set_aside(repdir, "interrupted");
			for (attempt = 0; attempt <= c->e->retries; attempt++) {
				if (attempt) {
					run_log(c, "point %s repetition %u invalid; retry %u of %u", p.id, rep,
						attempt, c->e->retries);
					set_aside(repdir, "failed");
				}
				rc = exec_point(c, &p, rep, attempt, &valid);
				if (rc == -EINTR) {
					c->status = "interrupted";
					break;
				}
				if (rc == -EHOSTDOWN) {
					c->status = "host-lost";
					break;
				}
				if (rc) {
					pfc_errno(-rc, "point %s repetition %u", p.id, rep);
					c->status = "failed";
					break;
				}
				if (valid)
					break;
			}
			if (!valid && !strcmp(c->status, "running")) {
				c->invalid_points++;
				run_log(c, "point %s repetition %u: invalid after %u attempt%s (status.json says why)",
					p.id, rep, c->e->retries + 1, c->e->retries ? "s" : "");
			}
		}
		exp_point_free(&p);
	}
}

/* Before anything is made (and for --dry-run): the folder of a new run must not hold a
 * run already (--out without --force), the folder runs are made in must not be a run's
 * folder itself, and the folder either is made in must exist. 0, or -1 after saying why.
 */
static int folder_check(struct run_ctx *c, const char *parent)
{
	const char *dir = c->o.out ? c->o.out : parent;
	char what[300], err[PATH_MAX + 400];
	struct stat st;
	int rc;

	if (c->o.resume) {
		if (run_folder_writable(c->o.resume, "--resume", err, sizeof(err))) {
			pfc_err("%s", err);
			return -1;
		}
		return 0;
	}
	rc = run_folder_holds(dir, what, sizeof(what));
	if (rc == -EEXIST && c->o.out && c->o.force)
		snprintf(c->replaced, sizeof(c->replaced), "%s", what);
	if (rc == -EEXIST && c->o.out && !c->o.force) {
		pfc_err("%s already holds %s; give a new folder, --resume %s to run what did not "
			"finish there, or --force to replace it", dir, what, dir);
		return -1;
	}
	if (rc == -EEXIST && !c->o.out) {
		pfc_err("%s holds %s itself, but runs are made in folders under it "
			"(%s/<name>-<time>); give another -r DIR, or --resume %s to go on with that run",
			dir, what, dir, dir);
		return -1;
	}
	if (rc && rc != -EEXIST) {
		pfc_errno(-rc, "%s", dir);
		return -1;
	}
	if (stat(dir, &st) && run_folder_parent_check(dir, err, sizeof(err))) {
		pfc_err("%s", err);
		return -1;
	}
	if (run_folder_writable(dir, c->o.out ? "-o" : "-r", err, sizeof(err))) {
		pfc_err("%s", err);
		return -1;
	}
	return 0;
}

/* The results folder: made (an earlier run's files removed first with --force; a new
 * timestamped folder refused if it exists), the experiment copied in, results/latest
 * pointed at it, run.log opened. 0, or -1 after saying why.
 */
static int run_folder(struct run_ctx *c, const char *parent)
{
	char path[PATH_MAX], err[PATH_MAX + 400];
	int rc = 0;

	if (c->replaced[0])
		rc = run_folder_clear(c->o.out, err, sizeof(err));
	if (!rc && !c->o.resume && !c->o.out) {
		struct stat st;

		rc = run_folder_make(parent, err, sizeof(err));
		if (!rc && !stat(c->dir, &st)) {
			pfc_err("%s exists already (two runs within a second?); wait a second or give --out",
				c->dir);
			return -1;
		}
	}
	if (!rc && !c->o.resume)
		rc = run_folder_make(c->dir, err, sizeof(err));
	if (rc) {
		pfc_err("%s", err);
		return -1;
	}
	if (!c->o.resume) {
		run_path(path, sizeof(path), "%s/experiment.yaml", c->dir);
		if (copy_text(path, c->e->text, c->e->textlen)) {
			pfc_err("%s: cannot write", path);
			return -1;
		}
		if (!c->o.out)
			latest_link(parent, c->id);
	}
	run_path(path, sizeof(path), "%s/run.log", c->dir);
	c->log = fopen(path, "a");
	if (c->replaced[0])
		run_log(c, "--force: %s removed from %s", c->replaced, c->dir);
	return 0;
}

int run_main(int argc, char **argv)
{
	struct run_ctx c = { .status = "running" };
	const char *report_dir = NULL, *parent, *env;
	char err[EXP_ERR_LEN + 512], exp_path[PATH_MAX], what[300];
	struct sigaction sa = { .sa_handler = on_sigint };
	size_t h;
	int first, rc, ret = 0;

	c.o.plots = true;
	env = getenv("PFCLAB_RUN_PSK");
	c.o.psk = env ? strcmp(env, "0") != 0 : RUN_PSK_DEFAULT;
	first = run_opts_parse(argc, argv, &c, &report_dir);
	if (first < 0)
		return first == OPT_HELP ? 0 : 2;
	/* The plan (--dry-run), the summary (--report, the end of a run) and the progress
	 * lines into a closed pipe: exit 1 with one message (out_stdout_check), as for every
	 * command that prints as it goes, not death by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	if (c.o.force && !c.o.out) {
		pfc_err("--force needs --out DIR (it replaces the run in that folder)");
		return 2;
	}
	if (c.o.out && c.o.results) {
		pfc_err("give -o DIR (this run's folder) or -r DIR (the folder runs are made in), "
			"not both");
		return 2;
	}
	if (c.o.resume && (c.o.out || c.o.results)) {
		pfc_err("--resume DIR goes on in DIR; give no --out or --results with it");
		return 2;
	}
	if (report_dir && c.o.resume) {
		pfc_err("--resume DIR and --report DIR each go alone: give one of them (and no "
			"experiment file; DIR/experiment.yaml is read)");
		return 2;
	}
	if (report_dir) {
		if (first != argc) {
			pfc_err("--report DIR takes no experiment file (it reads DIR/experiment.yaml); "
				"'pfclab run --help' shows the usage");
			return 2;
		}
		if (!results_folder(report_dir, "--report"))
			return 2;
		return report(report_dir, c.o.plots, true);
	}
	if (c.o.resume) {
		if (first != argc) {
			pfc_err("--resume DIR reads DIR/experiment.yaml; give no other file");
			return 2;
		}
		if (!results_folder(c.o.resume, "--resume"))
			return 2;
		run_path(exp_path, sizeof(exp_path), "%s/experiment.yaml", c.o.resume);
	} else {
		if (first + 1 != argc) {
			pfc_err("give one experiment file; 'pfclab run --help' shows the usage");
			return 2;
		}
		run_path(exp_path, sizeof(exp_path), "%s", argv[first]);
	}
	rc = exp_load(exp_path, &c.e, err, sizeof(err));
	if (rc == -EISDIR && !c.o.resume && run_folder_holds(exp_path, what, sizeof(what)) == -EEXIST) {
		/* a results folder where the experiment file belongs */
		pfc_err("%s; it holds %s: --resume %s goes on with it, --report %s makes its "
			"summary and plots again", err, what, exp_path, exp_path);
		return 2;
	}
	if (rc) {
		pfc_err("%s%s", err, rc == -EISDIR ? " (e.g. scripts/experiments/vlab-demo.yaml)" : "");
		return 2; /* a missing, unreadable or bad experiment file */
	}
	rc = run_hosts(&c, err, sizeof(err));
	if (rc) {
		if (rc != -ENOMEM)
			pfc_err("%s", err);
		ret = 1;
		goto out;
	}
	parent = run_paths(&c);
	if (folder_check(&c, parent)) {
		ret = 1;
		goto out;
	}
	if (c.o.dry_run) {
		ret = plan_print(&c, stdout) ? 1 : 0;
		goto out;
	}
	if (run_folder(&c, parent)) {
		ret = 1;
		goto out;
	}
	manifest_start(&c);
	rc = manifest_check_versions(&c, err, sizeof(err));
	if (rc) {
		pfc_err("%s", err);
		if (c.log)
			fprintf(c.log, "%s\n", err);
		c.status = rc == -EPROTO ? "version-mismatch" : "host-unreachable";
		manifest_save(&c);
		ret = 1;
		goto out;
	}
	clock_and_probe(&c, 0);
	manifest_save(&c);
	rc = exec_prepare_hosts(&c);
	if (rc) {
		pfc_errno(-rc, "preparing the hosts' run folders");
		c.status = "failed";
		manifest_save(&c);
		exec_cleanup_hosts(&c);
		ret = 1;
		goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	run_points(&c);
	if (!strcmp(c.status, "running"))
		c.status = "complete";
	/* stop everything left, the end of the clock and the manifest */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	clock_and_probe(&c, 1);
	exec_cleanup_hosts(&c);
	json_object_object_add(c.manifest, "finished_wall_ns", json_object_new_int64((int64_t)time_real_ns()));
	manifest_save(&c);
	for (h = 0; h < c.nhosts; h++)
		if (c.hosts[h].lost)
			pfc_err("host %s (%s) was lost during the run; what it recorded before is kept in %s",
				c.hosts[h].h->name, c.hosts[h].reach, c.dir);
	if (strcmp(c.status, "complete"))
		pfc_err("run %s: %s; everything recorded so far is in %s (go on with --resume %s)", c.id,
			c.status, c.dir, c.dir);
	report(c.dir, c.o.plots, !c.o.quiet || true);
	printf("results: %s\n", c.dir);
	ret = strcmp(c.status, "complete") || c.invalid_points ? 1 : 0;
out:
	if (c.log)
		fclose(c.log);
	json_object_put(c.manifest);
	free(c.hosts);
	exp_free(c.e);
	return ret;
}
