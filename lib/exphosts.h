/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exphosts.h: the hosts of a `pfclab run` experiment file and how they are reached, for
 * what watches a run rather than runs it (`pfclab top -e`). Only the launcher:, hosts: and
 * monitor.interval keys are read, each checked for its type; the runner's own checks of
 * every key (scripts/run/exp.h) are not made here, so a file the runner refuses may still
 * name hosts to watch.
 */
#ifndef PFCLAB_LIB_EXPHOSTS_H
#define PFCLAB_LIB_EXPHOSTS_H

#include <stddef.h>
#include <stdint.h>

#define EXPHOSTS_MAX 256

struct ynode;

enum exphosts_launcher { EXPHOSTS_LOCAL, EXPHOSTS_SSH, EXPHOSTS_SLURM };

struct exphost {
	/* each a string of the file's tree, NULL where the key is not given */
	const char *name;	/* the key under hosts: */
	const char *ssh;	/* hosts.NAME.ssh (default: the name) */
	const char *node;	/* hosts.NAME.node, the Slurm node */
	const char *netdev, *rdma, *gpu, *pfclab;
	int line;
};

struct exphosts {
	enum exphosts_launcher launcher;	/* launcher:, default ssh */
	struct exphost *h;
	size_t n;
	const char *interval;	/* monitor.interval as written, NULL when not given */
	int interval_line;
	struct ynode *root;	/* the file's tree, which owns the strings */
};

/* Read PATH: 0, or -errno with "FILE:LINE: KEY: why" (or "PATH: why" for a file that could
 * not be read) in ERR: -EINVAL for a bad file, -EISDIR, -EIO, -ENOENT, -ENOMEM. */
int exphosts_load(const char *path, struct exphosts **out, char *err, size_t errlen);
void exphosts_free(struct exphosts *x);

#endif
