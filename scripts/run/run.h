/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run.h: the state of one `pfclab run` (its options, hosts and results folder) that the
 * parts acting on the hosts share (launchers, plan, execution, clock, manifest), and the
 * entry points of the launchers, the plan and the execution. The parts that work on a
 * results folder alone have headers of their own (report.h, folder.h, validity.h), and
 * the helpers every part uses are in util.h.
 */
#ifndef PFCLAB_RUN_RUN_H
#define PFCLAB_RUN_RUN_H

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

/* ---- exec.c ------------------------------------------------------------------------- */
/* Run point P repetition REP once (one attempt); writes status.json. 0 ran (valid or not:
 * *VALID says), -EINTR interrupted, -EHOSTDOWN a host was lost, other -errno. */
int exec_point(struct run_ctx *c, const struct exp_point *p, unsigned rep, unsigned attempt,
	       bool *valid);
int exec_prepare_hosts(struct run_ctx *c);
void exec_cleanup_hosts(struct run_ctx *c);

#endif
