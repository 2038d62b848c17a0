/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mon.h: the monitor engine's plain data: counter sources (const ops tables), the
 * column table, one sample with per-value valid bits, and the events a front end shows.
 * Collectors fill these structs and never print; renderers (text, JSON, CSV, a live
 * dashboard) only read them.
 */
#ifndef PFCLAB_MON_H
#define PFCLAB_MON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MON_NAME_MAX 96
#define MON_KEY_MAX 160
/* Sources of one engine: an interface's seven, RDMA, frames, and two per GPU for up to
 * eleven GPUs (--gpu all on an 8-GPU host: 16). gap_mask and reset_mask hold a bit each. */
#define MON_MAX_SRC 32

enum mon_kind {
	MON_COUNTER,	/* monotonically increasing; rates come from deltas */
	MON_GAUGE,	/* a level or a rate the device already computed */
};

/* What a source says about one of its values when it discovers them. */
struct mon_field {
	char raw[MON_NAME_MAX];	/* the source's own name: "rx_prio3_pause" */
	enum mon_kind kind;
	uint8_t width;		/* 32 or 64: where a counter wraps */
	const char *unit;	/* static string: "B", "frames", "us", "B/s", "" */
};

/* One source instance: a device watched through one route (ops). */
struct mon_src;

struct mon_src_ops {
	const char *name;	/* short, used in keys: "ethtool" */
	const char *what;	/* for messages: "ethtool statistics (SIOCETHTOOL)" */
	/* Open handles, resolve the device. -EOPNOTSUPP: the device lacks this source;
	 * -ENODEV: device absent now (retried later); other -errno: failure.
	 */
	int (*init)(struct mon_src *s);
	/* (Re)read the field list into s->fields / s->nfields. */
	int (*discover)(struct mon_src *s);
	/* Fill vals[0..nfields) and valid[]. 0, or -ESTALE when the field list changed
	 * (the engine calls discover again), -EOPNOTSUPP, -ENODEV or another -errno.
	 */
	int (*sample)(struct mon_src *s, uint64_t *vals, uint8_t *valid);
	void (*close)(struct mon_src *s);
	/* The last failure, one line ("" when none): what, on which device, why. */
	const char *(*last_error)(const struct mon_src *s);
	/* Optional: CPU time spent so far in the source's own threads (a reader thread that
	 * reads on its own cadence), for --stats. NULL: it has none.
	 */
	uint64_t (*thread_cpu_ns)(const struct mon_src *s);
	/* Optional: how many readings that thread made (for --stats: its mean cadence). */
	uint64_t (*thread_reads)(const struct mon_src *s);
};

struct mon_src {
	const struct mon_src_ops *ops;
	char dev[64];		/* "veth0", "rxe0", "gpu0", "0000:3b:00.0" */
	unsigned port;		/* RDMA port */
	int index;		/* GPU index */
	char driver[64];	/* for the catalog: "mlx5_core", "rxe", "veth" */
	uint64_t min_period_ns;	/* sample at most this often (0: every tick) */
	uint64_t cadence_ns;	/* own reading cadence of a source with a reader thread
				 * (0: the source's default) */
	bool cadence_floor;	/* cadence_ns is the shortest: the source may read less
				 * often to bound its own CPU (not asked by the user) */
	uint64_t epoch;		/* bumped by the source when the device was re-created or
				 * its counters restarted: no delta across an epoch change */
	struct mon_field *fields;
	size_t nfields;
	char err[256];		/* last error, one line, no trailing period */
	/* Key/value facts for the metadata file (driver, firmware, bus). */
	char info[8][2][256];
	size_t ninfo;
	void *priv;
};

/* Flags of one value in one sample. */
enum {
	MON_V_VALID = 1 << 0,	/* raw was read this sample (or carried from a slow source) */
	MON_V_DELTA = 1 << 1,	/* delta and rate are valid */
	MON_V_CHANGED = 1 << 2,	/* differs from the previous sample */
	MON_V_WRAP = 1 << 3,	/* 32-bit counter wrapped; delta corrected */
	MON_V_RESET = 1 << 4,	/* counter went back: reset or re-created; no delta */
	MON_V_STALE = 1 << 5,	/* carried from an earlier read of a slow source */
};

struct mon_val {
	uint64_t raw;
	uint64_t delta;
	double rate;		/* per second, over the measured elapsed time */
	uint8_t flags;
};

/* One column: a value of one source, stable for the whole run (columns are only ever
 * appended; a value a source stops reporting stays, invalid).
 */
struct mon_col {
	char key[MON_KEY_MAX];		/* "ethtool:veth0:rx_bytes" */
	char metric[MON_NAME_MAX];	/* "pfc.rx.prio3.frames", "" when not in the catalog */
	char raw[MON_NAME_MAX];
	const char *unit;
	enum mon_kind kind;
	uint8_t width;
	uint16_t src;			/* index into the engine's sources */
	bool present;			/* the source reports it now */
	/* Delta state, per column (never in function statics). */
	uint64_t prev_raw;
	uint64_t prev_ns;
	uint64_t prev_epoch;
	bool has_prev;
};

enum mon_src_state {
	MON_SRC_OK,
	MON_SRC_GAP,		/* device gone or failing; retried */
	MON_SRC_UNSUPPORTED,	/* reported once; fields stay invalid */
};

struct mon_sample {
	uint64_t seq;
	uint64_t mono_ns;
	uint64_t wall_ns;
	uint64_t dt_ns;		/* since the previous sample (0 for the first) */
	uint64_t overruns;	/* timer periods missed just before this sample */
	uint64_t overruns_total;
	uint32_t gap_mask;	/* bit per source: no data this sample (MON_MAX_SRC <= 32) */
	uint32_t reset_mask;	/* bit per source: epoch changed, no deltas */
	size_t ncol;
	struct mon_val *v;	/* ncol values, owned by the engine */
};

enum mon_event_type {
	MON_EV_UNSUPPORTED,	/* once per source */
	MON_EV_GAP_BEGIN,
	MON_EV_GAP_END,
	MON_EV_LAYOUT,		/* field set changed (columns added or gone) */
	MON_EV_ERROR,		/* a failure that ends the source */
};

struct mon_event {
	enum mon_event_type type;
	uint64_t mono_ns;
	uint64_t wall_ns;
	uint64_t seq;		/* sample sequence at which it happened */
	const struct mon_src *src;
	const char *msg;
};

const char *mon_event_name(enum mon_event_type t);

#endif
