/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model.h: the screen model of "pfclab top": per host the latest snapshot of named
 * values (from the local engine, a remote monitor or a record), turned into rows of cells
 * (rates, totals since a baseline, paused share, share of a PCIe link), with sparkline
 * history, staleness and the pairing of one host's counters with its peer's. Pure: no
 * terminal, no clock reads (the caller passes "now"), unit-tested.
 */
#ifndef PFCLAB_TOP_MODEL_H
#define PFCLAB_TOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/mon.h"

#define TOP_MAX_HOSTS 16
#define TOP_MAX_GPUS 16		/* GPU rows: GPU0..GPU15 (pcie.gpuN.*) */
#define TOP_HIST 120		/* history points per row and host (one per sample) */
#define TOP_UNIT_MAX 16

/* Flags of one value in a snapshot. */
enum {
	TOP_M_VALID = 1 << 0,	/* raw holds a reading */
	TOP_M_RATE = 1 << 1,	/* rate holds a per-second rate */
	TOP_M_COUNTER = 1 << 2,	/* cumulative (else a gauge) */
	TOP_M_ELSEWHERE = 1 << 3,	/* not read by this source (not valid): raw is what
					 * another file counted over the whole run, with no
					 * time line (a results folder's capture.json); the
					 * snapshot's status says where it came from */
	TOP_M_BESIDE = 1 << 4,	/* valid, on the record's time line, but read from a file
				 * beside the record, not by its source (a results folder's
				 * capture timeline): shown marked "*", the snapshot's status
				 * says from where */
};

/* The catalog's prefix for what the frames source counts (family "frames", --frames):
 * figures from captured frames, not from the device's counters.
 */
#define TOP_CAPTURE_PREFIX "capture."

struct top_metric {
	char name[MON_NAME_MAX];	/* catalog metric ("pfc.rx.prio3.frames") */
	char unit[TOP_UNIT_MAX];
	uint8_t flags;
	uint64_t raw;
	double rate;
};

/* What a source hands the model: one host's values at one sample. */
struct top_snap {
	uint64_t seq;		/* sample number at the source; 0: nothing yet */
	uint64_t src_ns;	/* the source's own clock (monotonic there, or record time) */
	uint64_t wall_ns;	/* the source's wall clock at the sample */
	uint64_t got_ns;	/* local monotonic time the snapshot arrived */
	uint64_t interval_ns;	/* the source's sampling interval (0: unknown) */
	/* sampling intervals the source's monitor missed (it fell behind): just before this
	 * sample, and in all since the feed began; has_missed false where the source does
	 * not say (then neither is shown or recorded as a number) */
	uint64_t overruns, missed;
	bool has_missed;
	size_t n, cap;
	struct top_metric *m;
	char status[320];	/* "" or one line: "ssh: Connection refused" */
	char note[240];		/* "" or a line to show apart from the status: a file beside
				 * a record that is not used, and why */
	bool down;		/* the source ended (ssh exited, record over) */
};

int top_snap_reserve(struct top_snap *s, size_t n);
/* Append or replace metric name; returns its slot or NULL when out of memory. The first
 * valid value of a name wins when a source reports one metric twice (dcb and ethtool).
 */
struct top_metric *top_snap_put(struct top_snap *s, const char *name, const char *unit,
				uint8_t flags, uint64_t raw, double rate);
const struct top_metric *top_snap_get(const struct top_snap *s, const char *name);
int top_snap_copy(struct top_snap *dst, const struct top_snap *src);
void top_snap_free(struct top_snap *s);

/* How a cell turns a metric into what is shown. */
enum top_how {
	TOP_RATE,	/* per-second rate of a counter */
	TOP_BITS,	/* rate of a byte counter, shown in bit/s */
	TOP_SHARE_US,	/* rate of a microsecond counter: share of time (paused) */
	TOP_SHARE_PCT,	/* a percentage gauge (0..100) the device computes: share of time
			 * (mlx5 outbound_pci_stalled_rd/_wr); a microsecond counter of the
			 * same name (records made before it was a gauge) is shown as
			 * TOP_SHARE_US */
	TOP_GAUGE,	/* the value itself */
	TOP_LINK_SHARE,	/* a B/s gauge as a share of the PCIe link's maximum */
};

enum top_cell_state {
	TOP_CELL_NONE,	/* the column has no meaning in this row: blank */
	TOP_CELL_NA,	/* cannot be read: "n/a" */
	TOP_CELL_OK,
	TOP_CELL_ELSEWHERE,	/* not read by the source: "n/a", with total the whole run's
				 * count from elsewhere (TOP_M_ELSEWHERE), shown marked "*" */
};

struct top_cell {
	enum top_cell_state state;
	enum top_how how;
	double value;		/* rate, share (0..1) or gauge */
	uint64_t total;		/* since the baseline (counters) */
	bool has_total;
	bool mismatch;		/* disagrees with the peer host beyond the tolerance */
	bool nonzero;		/* worth highlighting (PFC, discards moving) */
	bool capture;		/* from captured frames, not the device's counters: a metric
				 * of the frames source (TOP_CAPTURE_PREFIX, live, remote or
				 * recorded) or of the capture beside a record (TOP_M_BESIDE);
				 * marked "*" in every mode */
	const char *unit;	/* "b/s", "/s", "%", ... */
};

#define TOP_CELLS 4

enum top_section {
	TOP_SEC_TRAFFIC,
	TOP_SEC_PFC,
	TOP_SEC_CONG,
	TOP_SEC_DISCARD,
	TOP_SEC_PCIE,
	TOP_SEC_QDISC,
	TOP_SEC_N,
};

struct top_row {
	enum top_section sec;
	char label[24];
	int prio;		/* 0..7 for PFC priority rows, else -1 */
	struct top_cell cell[TOP_MAX_HOSTS][TOP_CELLS];
	int hist_col;		/* which cell the sparkline follows (-1: none) */
	const float *hist[TOP_MAX_HOSTS];	/* TOP_HIST points, oldest first, NaN = none */
};

enum top_host_state {
	TOP_HOST_WAIT,		/* nothing received yet */
	TOP_HOST_OK,
	TOP_HOST_STALE,		/* no new sample for longer than the stale limit */
	TOP_HOST_DOWN,		/* the source ended */
};

struct top_hist;

struct top_host {
	char name[64];
	struct top_snap snap;	/* latest accepted */
	uint64_t last_seq;
	/* baseline: raw values at the time 'z' was pressed */
	struct top_snap base;
	bool have_base;
	struct top_hist *hist;
	size_t nhist, caphist;
};

struct top_model {
	struct top_host host[TOP_MAX_HOSTS];
	size_t nhost;
	double tolerance;	/* relative disagreement allowed between paired hosts */
	double tol_abs;		/* and an absolute one, per second */
	uint64_t stale_ns;	/* 0: from the interval (3 intervals, at least 1 s) */
	bool frozen;
};

/* The section headings and the meaning of each cell column per section. */
const char *top_section_name(enum top_section s);
const char *top_section_col(enum top_section s, int col);

void top_model_init(struct top_model *m);
int top_model_add_host(struct top_model *m, const char *name);
/* Take host h's latest snapshot; a new sample (seq changed) adds history. Ignored while
 * frozen. Returns 1 when the snapshot held a new sample, 0 when not, -ENOMEM.
 */
int top_model_update(struct top_model *m, size_t h, const struct top_snap *s);
/* Baseline: totals count from the current values ('z'); at the start, from the first
 * sample; cleared ('Z'), totals are the counters as read.
 */
void top_model_baseline(struct top_model *m);
void top_model_baseline_clear(struct top_model *m);
/* Totals of host h count from s where they do not start at the first sample shown (a
 * replay: its record's first sample, whatever moment playing starts at or seeks to).
 * Ignored while frozen or when s holds no sample (seq 0). 0 or -ENOMEM.
 */
int top_model_base_set(struct top_model *m, size_t h, const struct top_snap *s);
/* Whether host h's snapshot holds a reading of a frames source of its own (a
 * TOP_CAPTURE_PREFIX metric not taken from a file beside a record): the screen then needs
 * the legend of its "*" marks.
 */
bool top_model_host_captures(const struct top_model *m, size_t h);

enum top_host_state top_model_host_state(const struct top_model *m, size_t h, uint64_t now,
					 uint64_t *age_ns);

/* Build the rows for the current snapshots into rows[0..max); returns the count. Rows
 * of the fixed sections always appear (the NIC's PCIe line among them, n/a where not
 * counted); rows of a family (discards, qdisc, GPU) appear when some host reports a
 * metric of it.
 */
size_t top_model_rows(const struct top_model *m, struct top_row *rows, size_t max);

/* The screen's lines that hold no row: the title, the host headers and the status line. */
#define TOP_SCREEN_CHROME 3

/* The lines rows[0..n) take on the screen from section panel on: each row, and a heading
 * for each section.
 */
int top_model_lines(const struct top_row *rows, size_t n, int panel);
/* Make rows[0..n) fit NLINES lines (the terminal's, less TOP_SCREEN_CHROME and a note
 * line) where they take more: the PFC priority rows that no host counts (every cell n/a:
 * a NIC without PFC counters for them, none at all on a GPU-only screen) and not the
 * focused one fold into one row at the first one's place, labelled with their numbers
 * ("prio0-2,4-7"), its cells n/a. A row that reads 0 keeps its line, so the layout does
 * not change as traffic comes and goes. A GPU-only 8-GPU screen then fits 80x24: the
 * fixed rows, one line for the priorities and the eight GPU lines. Rows that fit stay as
 * they are. Returns the row count (rows after a fold move up).
 */
size_t top_model_fit(struct top_row *rows, size_t n, int panel, int focus, int nlines);

/* The pairing of hosts: host h is compared with top_model_peer(h) (h1 with h2, h3 with
 * h4 ...); -1 when it has none.
 */
int top_model_peer(const struct top_model *m, size_t h);

/* Maximum PCIe payload bandwidth in B/s of a link of gen g with w lanes; 0 if unknown. */
double top_pcie_link_Bps(unsigned gen, unsigned width);

/* Short human form of a value in at most 6 characters: "0", "12.3k", "1.25G". */
void top_fmt_num(double v, char *buf, size_t n);

void top_model_free(struct top_model *m);

#endif
