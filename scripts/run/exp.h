/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exp.h: the experiment model of `pfclab run`: hosts, what to monitor and capture, phases,
 * the sweep and repetitions, read from YAML and checked; every error names file, line and
 * key ("exp.yaml:14: phases[1].traffic.size: '64Q' is not valid for pfclab traffic -s; give
 * a size from 1 byte to 64M"). Traffic values are checked by traffic's own option table.
 * The format is described in scripts/README.md.
 */
#ifndef PFCLAB_RUN_EXP_H
#define PFCLAB_RUN_EXP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/ytree.h"

#define EXP_MAX_HOSTS	256
#define EXP_MAX_PHASES	64
#define EXP_MAX_SWEEP	8
#define EXP_MAX_POINTS	10000
#define EXP_ERR_LEN	512
/* Names that go into file names whole: the results folder <name>-<YYYYmmdd-HHMMSS>, a
 * host's folder and its traffic-<phase>-server-<host>.jsonl and the like. */
#define EXP_MAX_NAME	100
#define EXP_MAX_HOST_NAME 64
#define EXP_MAX_PHASE_NAME 64
/* Whether S is all letters, digits, '-', '_' and '.': what such names and a run's id
 * may hold. */
bool exp_name_chars_ok(const char *s);

struct exp_host {
	char *name;	 /* the key under hosts: */
	char *ssh;	 /* ssh destination (launcher ssh; default: the name) */
	char *node;	 /* Slurm node (launcher slurm; default: the allocation's nodes in order) */
	char *addr;	 /* data-plane address traffic clients connect to */
	char *rdma;	 /* RDMA device (traffic -d, monitor -d) */
	char *netdev;	 /* network interface (monitor -i, capture default) */
	char *gpu;	 /* GPU index or PCI address (monitor --gpu, traffic --gpu), NULL
			  * when none */
	char *gid_index; /* traffic -x, NULL: automatic */
	char *pfclab;	 /* pfclab on the host, NULL: "pfclab" (local: this binary) */
	char *workdir;	 /* scratch folder on the host, NULL: /tmp */
	char **capture_ifs;
	size_t ncapture_ifs;
	int line;
};

/* A pre/post command: run with sh -c on HOST. */
struct exp_cmd {
	size_t host;
	char *run;
	bool essential;
	int line;
};

struct exp_inject {
	size_t host;
	char *iface; /* -i, default: the host's netdev */
	char *kind;
	char **args;
	size_t nargs;
	int line;
};

struct exp_traffic {
	size_t *from; /* client hosts: they write towards TO (and TO back with -b) */
	size_t nfrom;
	size_t to;    /* the receiving host: one server per client on port+i */
	bool bidir;
	unsigned port;
	uint64_t duration_ns; /* run time (-D), or an estimate from -n for time limits */
	char **args;	      /* options both sides get, already checked */
	size_t nargs;
	bool gpu_mem;	      /* --mem is not host: each side gets its host's --gpu */
	int line;
};

struct exp_phase {
	char *name;
	bool has_traffic;
	struct exp_traffic traffic;
	uint64_t duration_ns; /* without traffic: how long the phase lasts */
	struct exp_inject *inject;
	size_t ninject;
	struct exp_cmd *pre, *post;
	size_t npre, npost;
	int line;
};

struct exp_sweep_var {
	char *name;
	char **values;
	int *lines;
	size_t n;
	int line;
};

enum exp_launcher { EXP_LOCAL, EXP_SSH, EXP_SLURM };

struct exp_cpoint; /* cpoint.h: the bottleneck: block, NULL when none */

struct exp {
	char *file;	/* base name used in messages */
	char *text;	/* the file as read (copied into the results, hashed) */
	size_t textlen;
	char *name;
	enum exp_launcher launcher;
	unsigned reps, retries;
	struct exp_host *hosts;
	size_t nhosts;
	bool monitor;
	char *mon_interval; /* as given, checked */
	uint64_t mon_interval_ns;
	char *mon_sources;  /* NULL: all */
	unsigned mon_rt_priority; /* monitor --rt-priority; 0: not given */
	bool capture;
	char *capture_mode; /* "default", "ce" or "roce" */
	char *capture_speed;
	struct exp_sweep_var sweep[EXP_MAX_SWEEP];
	size_t nsweep;
	struct ynode *root;
	struct exp_cpoint *cp;
};

/* One point of the sweep with its phases resolved (${var} substituted). */
struct exp_point {
	size_t index;
	char label[256];	 /* "size=64K qp=4", "" without a sweep */
	char id[16];		 /* "p000" */
	const char *values[EXP_MAX_SWEEP];
	struct exp_phase *phases;
	size_t nphases;
	uint64_t duration_ns;	 /* sum of the phases' durations */
};

/* Read and check PATH. 0, or -EINVAL with "FILE:LINE: KEY: why" in ERR (or another
 * -errno with its message: -EISDIR for a directory, -EIO for a file past 1 MiB or one
 * that could not be read). Every sweep point is resolved once, so a bad value anywhere
 * is found here. */
int exp_load(const char *path, struct exp **out, char *err, size_t errlen);
int exp_parse(const char *name, const char *text, size_t len, struct exp **out, char *err,
	      size_t errlen);
void exp_free(struct exp *e);

size_t exp_point_count(const struct exp *e);
/* Resolve point IDX (0 .. exp_point_count-1): the sweep's cross product, the last
 * variable varying fastest. */
int exp_point_build(const struct exp *e, size_t idx, struct exp_point *p, char *err, size_t errlen);
void exp_point_free(struct exp_point *p);

const char *exp_launcher_name(enum exp_launcher l);

#endif
