/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run.h: the state of one `pfclab run` shared by its parts (launchers, plan, execution,
 * clock, manifest, validity, summary, plots), and their entry points.
 */
#ifndef PFCLAB_RUN_RUN_H
#define PFCLAB_RUN_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "exp.h"
#include "lib/remote.h"

/* Every run makes a fresh pre-shared key, writes it to each host (mode 0600, removed at
 * the end, never in the results) and passes it to traffic with --psk. PFCLAB_RUN_PSK=0
 * leaves --psk out (for a pfclab traffic that predates it). */
#define RUN_PSK_DEFAULT 1

struct run_opts {
	const char *ssh_config;	 /* --ssh-config FILE */
	const char *results;	 /* --results DIR (default results/) */
	const char *out;	 /* --out DIR: this exact run folder */
	const char *resume;	 /* --resume DIR */
	bool force;		 /* --force: replace the run in --out DIR */
	bool dry_run;
	bool plots;		 /* make plots (gnuplot) at the end */
	bool psk;		 /* pass --psk to traffic */
	bool quiet;
	const char *launcher;	 /* --launcher: overrides the file's */
};

struct run_host {
	const struct exp_host *h;
	struct remote_target t;
	char reach[256];     /* resolved ssh destination / node; "" locally */
	char pfclab[512];    /* pfclab command on the host */
	char scratch[512];   /* host folder for the run's files (key, remote point folders) */
	char psk_path[600];
	char version[128];
	/* clock: host_wall - runner_wall, at start and end of the run */
	int64_t off_ns[2];
	uint64_t rtt_ns[2];
	bool off_valid[2];
	bool lost;
};

struct launch_ops;

struct run_ctx {
	struct exp *e;
	const struct launch_ops *lops;
	struct run_opts o;
	struct run_host *hosts;
	size_t nhosts;
	char dir[1024];		/* results folder of this run */
	char id[128];		/* <name>-<YYYYmmdd-HHMMSS> */
	char self[1024];	/* this pfclab binary */
	FILE *log;		/* run.log in the results folder */
	char hash[65];		/* SHA-256 of the experiment file */
	const char *status;	/* "running", "complete", "interrupted", "host-lost", "failed" */
	unsigned invalid_points;
	json_object *manifest;	/* manifest.json as it grows */
	/* with --force, the run folder_check found in --out DIR ("the run exp-... (status
	 * complete; ...)"), which run_folder removes and logs; empty when there is none */
	char replaced[300];
};

/* ---- launchers (launch_local.c, launch_ssh.c, launch_slurm.c) ----------------------- */
struct launch_ops {
	const char *name;
	enum remote_kind kind;
	/* hosts write their files straight into the results folder (nothing to fetch) */
	bool writes_results;
	/* fill hosts[i].reach (and anything else the launcher needs); 0 or -errno with ERR */
	int (*resolve)(struct run_ctx *c, char *err, size_t errlen);
};
extern const struct launch_ops launch_local_ops;
extern const struct launch_ops launch_ssh_ops;
extern const struct launch_ops launch_slurm_ops;
const struct launch_ops *launch_find(const char *name);

/* ---- signals ------------------------------------------------------------------------ */
extern volatile sig_atomic_t run_stop_requested;

/* ---- plan.c: the commands of one point, as they run on each host -------------------- */
enum plan_role {
	PR_MONITOR,
	PR_CAPTURE,
	PR_PRE,
	PR_INJECT,
	PR_SERVER,
	PR_CLIENT,
	PR_POST,
};

struct plan_step {
	enum plan_role role;
	int phase;	   /* -1: for the whole point (monitor, capture) */
	size_t host;
	size_t peer;	   /* traffic: the host at the other end (server <-> client) */
	char name[160];	   /* file stem in the host's point folder: names whole (exp.h) */
	char out[176];	   /* stdout file name */
	char **argv;	   /* the command on the host */
	bool essential;
	uint64_t limit_ns; /* how long it may run */
};

struct plan {
	struct plan_step *s;
	size_t n;
};

int plan_point(const struct run_ctx *c, const struct exp_point *p, struct plan *pl);
void plan_free(struct plan *pl);
/* The host-side folder of a point's repetition. */
void plan_host_dir(const struct run_ctx *c, size_t host, const struct exp_point *p, unsigned rep,
		   char *buf, size_t len);
/* The wrapped argv: runs STEP in DIR, writes its pid to DIR/.NAME.pid, output to files. */
char **plan_wrap(const struct plan_step *s, const char *dir);
const char *plan_role_name(enum plan_role r);
/* --dry-run: every command on every host, for every point and repetition. */
int plan_print(struct run_ctx *c, FILE *f);

/* ---- clock.c ------------------------------------------------------------------------ */
/* Offset of host H's wall clock from ours (host - runner), from the command round trip
 * with the smallest delay of a few. WHICH: 0 start, 1 end. */
int clock_measure(struct run_ctx *c, size_t h, int which);
/* Host H's wall-clock time T_NS on the runner's axis (offset interpolated in time). */
int64_t clock_to_runner(const json_object *manifest_host, int64_t t_ns);
struct rec_timeline;
/* Each bin's start of a capture timeline of host MH, on the runner's axis in seconds since
 * T0_NS (malloc'd, tl->n values, at least one slot); NULL without memory. */
double *clock_timeline_s(const struct rec_timeline *tl, const json_object *mh, int64_t t0_ns);

/* ---- manifest.c --------------------------------------------------------------------- */
int manifest_check_versions(struct run_ctx *c, char *err, size_t errlen);
/* What host H answered `pfclab version`: its exit code (-1: it did not run), stdout and
 * stderr (either may be NULL; each may be cut at its first newline, in place). 0 with the
 * version in hosts[h].version, or -EHOSTUNREACH (ssh failed; the host is marked lost),
 * -ENOENT (no pfclab there), -EIO (it failed or said something else), -EPROTO (another
 * version), with the reason in ERR. */
int manifest_version_answer(struct run_ctx *c, size_t h, int code, char *out, char *errs,
			    char *err, size_t errlen);
/* Host H's manifest entry: pfclab version, netdev and what the probe found there. */
json_object *manifest_probe(struct run_ctx *c, size_t h);
/* Adds to O what a host printed for the probe (OUT, its sections "@@NAME" lines; cut up in
 * place): hostname, kernel, driver (ethtool -i), carrier_changes (each null where absent)
 * and doctor (its items by section, or a string saying there was no report), the NIC
 * settings, and gpu: the GPU GPU (the host's --gpu, NULL: none) as the doctor found it,
 * {given, bdf, rdma: RDMA (NULL: none), distance: PIX .. SYS}, each null where not said. */
void manifest_parse_probe(json_object *o, char *out, const char *gpu, const char *rdma);

/* ---- validity.c --------------------------------------------------------------------- */
struct validity_obs {
	bool host_unreachable[EXP_MAX_HOSTS];
	bool essential_failed;
	bool interrupted;
	int traffic_exit;	   /* worst exit code of the traffic processes (0 ok) */
	int inject_exit;	   /* worst exit code of the injectors that ended by themselves */
	uint64_t traffic_errors;   /* completion errors reported in the summaries */
	bool traffic_missing;	   /* a traffic process left no summary */
	uint64_t capture_drops;	   /* kernel drops, all captures */
	bool capture_failed;	   /* a capture ended with an error */
	unsigned counter_resets;   /* counters that went back in the monitor records */
	unsigned link_flaps;	   /* carrier changes during the point */
	bool monitor_failed;
	/* what review found in each host's capture: caveats, not reasons (validity_warn) */
	uint64_t late_frames[EXP_MAX_HOSTS];	/* PAUSE/PFC/CNP beyond the reorder window */
	uint64_t bad_timestamps[EXP_MAX_HOSTS];	/* review's count, late frames included */
	double max_backstep_s[EXP_MAX_HOSTS];	/* the largest step back; 0 not known */
	uint64_t untimed[EXP_MAX_HOSTS];	/* frames without a timestamp */
};
/* Fills REASONS (a JSON array of strings) and returns whether the point is valid. */
bool validity_judge(const struct validity_obs *o, const struct exp *e, json_object *reasons);
/* Fills WARNINGS (a JSON array of strings) with what leaves the point valid but makes a
 * figure less reliable: "host a: 3 PAUSE/PFC/CNP frames further out of time order than
 * review's reorder window, counted where they came (...): paused time and CNP gaps are
 * less reliable". */
void validity_warn(const struct validity_obs *o, const struct exp *e, json_object *warnings);
struct rec_review;
/* Host H's caveats from what review found in its capture (rec_review_read); H below
 * EXP_MAX_HOSTS. */
void validity_obs_review(struct validity_obs *o, size_t h, const struct rec_review *rv);

/* ---- exec.c ------------------------------------------------------------------------- */
/* Run point P repetition REP once (one attempt); writes status.json. 0 ran (valid or not:
 * *VALID says), -EINTR interrupted, -EHOSTDOWN a host was lost, other -errno. */
int exec_point(struct run_ctx *c, const struct exp_point *p, unsigned rep, unsigned attempt,
	       bool *valid);
int exec_prepare_hosts(struct run_ctx *c);
void exec_cleanup_hosts(struct run_ctx *c);

/* ---- summary.c / plots.c ------------------------------------------------------------ */
/* (Re)make summary.json and summary.txt of the results folder DIR. */
int summary_make(const char *dir, char *err, size_t errlen);
/* (Re)make DIR/plots from DIR/summary.json and the records; -ENOENT without gnuplot. */
int plots_make(const char *dir, char *err, size_t errlen);
/* "rep12" and not "rep12.failed1": a repetition's folder (summary.c) */
bool run_is_rep(const char *name);

/* ---- folder.c: the results folder ------------------------------------------------- */
/* Whether DIR holds a run already (manifest.json, experiment.yaml, run.log or points/):
 * 0 no (DIR may be absent), -EEXIST with WHAT saying which run ("the run exp-20261122-171812
 * (status complete; 3 of 3 repetitions finished)"), or another -errno from lstat. */
int run_folder_holds(const char *dir, char *what, size_t len);
/* --force: removes an earlier run's files and folders from DIR (those above and
 * summary.*, plots/), nothing else. 0, or -errno with ERR. */
int run_folder_clear(const char *dir, char *err, size_t errlen);
/* New files can be made in DIR, or where DIR is missing, in the folder it is to be made
 * in (a missing one is left to run_folder_parent_check): 0, or -errno (-EROFS, -EACCES)
 * with ERR naming OPT ("-r", "-o", "--resume"), the folder, why and what to do. */
int run_folder_writable(const char *dir, const char *opt, char *err, size_t errlen);
/* The folder DIR is made in exists: 0, or -errno with ERR saying what to do. */
int run_folder_parent_check(const char *dir, char *err, size_t errlen);
/* DIR made (0755) unless it is a folder already; the folders above it are never made:
 * -ENOENT (with ERR) when its parent is missing. 0, or -errno with ERR. */
int run_folder_make(const char *dir, char *err, size_t errlen);
/* Whether the repetition folder REPDIR finished: its status.json says "finished": true (a
 * JSON boolean; a missing or unreadable status.json, or another type, is not finished). */
bool run_rep_finished(const char *repdir);

/* ---- small helpers (run.c) ---------------------------------------------------------- */
void run_log(struct run_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* snprintf for paths and names: -ENAMETOOLONG when cut short */
int run_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
json_object *run_json_read(const char *path);
int run_json_write(const char *path, json_object *o);
/* The object under key in o, added empty where there is none (never NULL). */
json_object *run_json_child(json_object *o, const char *key);

#endif
