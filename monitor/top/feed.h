/* SPDX-License-Identifier: GPL-2.0-or-later */
/* feed.h: where "pfclab top" gets one host's values: the local monitor engine on a
 * sampler thread, a remote "pfclab monitor --json" over SSH on a reader thread, or a
 * record played back. A feed publishes its latest snapshot under a short lock; the
 * drawing loop copies it when it redraws, so a slow source never holds the screen.
 */
#ifndef PFCLAB_TOP_FEED_H
#define PFCLAB_TOP_FEED_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "monitor/top/model.h"

struct top_feed {
	char name[64];
	pthread_mutex_t lock;
	struct top_snap snap;		/* guarded by lock */
	pthread_t thr;
	bool started;
	atomic_bool stop;
	int wake_fd;			/* eventfd: wakes the thread to stop or act */
	void *priv;
	void (*fini)(struct top_feed *f);	/* frees priv after the thread ended */
};

int top_feed_init(struct top_feed *f, const char *name);
/* From the feed's thread: replace the published snapshot. */
void top_feed_publish(struct top_feed *f, const struct top_snap *s);
/* From the feed's thread: only the status line (and whether the source ended). */
void top_feed_status(struct top_feed *f, bool down, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* From the drawing loop: copy the latest snapshot into out. */
int top_feed_latest(struct top_feed *f, struct top_snap *out);
/* Ask the thread to stop, wait for it, free. */
void top_feed_stop(struct top_feed *f);
void top_feed_wake(struct top_feed *f);

/* --- local: the monitor engine in this process ------------------------------------ */
struct top_local_cfg {
	const char *iface;
	const char *rdma;
	unsigned rdma_port;
	const int *gpus;		/* the GPUs' indices (read by top_local_start only) */
	size_t ngpus;
	const char *frames;		/* capture interface, NULL: none */
	bool qdisc;			/* the qdisc source on iface too */
	uint64_t interval_ns;
	const char *catalog;		/* NULL: built in */
	int argc;
	char **argv;			/* kept in a record's meta.json */
};
/* Sets up the engine and opens its sources (errors: one line in err), then starts the
 * sampler thread.
 */
int top_local_start(struct top_feed *f, const struct top_local_cfg *cfg, char *err,
		    size_t errlen);
/* Start (dir != NULL) or stop (NULL) recording in the monitor's record format. The
 * sampler thread opens and closes the record; the result shows in the status line.
 */
void top_local_record(struct top_feed *f, const char *dir);
bool top_local_recording(struct top_feed *f);

/* --- remote: "ssh HOST pfclab monitor --json --all ..." (or srun) ----------------- */
struct top_remote_cfg {
	const char *host;		/* ssh destination, or Slurm node */
	int kind;			/* enum remote_kind: REMOTE_SSH or REMOTE_SRUN */
	const char *ssh_config;		/* -F FILE, NULL: the user's own */
	const char *pfclab;		/* the command on the host (default "pfclab") */
	const char *control_dir;	/* private folder for ControlPath */
	const char *const *monitor_args;	/* options passed to the remote monitor */
	uint64_t interval_ns;
	uint64_t retry_ns;		/* respawn after the ssh process ended */
};
int top_remote_start(struct top_feed *f, const struct top_remote_cfg *cfg);
/* Start (dir) or stop (NULL) recording what arrives from the host, in the monitor's
 * record format (monitor/top/rec.h), on the reader thread.
 */
void top_remote_record(struct top_feed *f, const char *dir);
bool top_remote_recording(struct top_feed *f);
/* Parse one line of "pfclab monitor --json --all" into snap (exposed for tests): 1 for
 * a sample, 0 for an event (msg gets its text), -EINVAL for a malformed line. Reads
 * line[0 .. len) only: the line need not end in a NUL.
 */
int top_remote_parse_line(const char *line, size_t len, struct top_snap *snap, char *msg,
			  size_t msglen);

#endif
