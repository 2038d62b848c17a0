/* SPDX-License-Identifier: GPL-2.0-or-later */
/* timeline.h: review's timeline CSV (pfclab review --timeline BIN): its columns, the
 * writer, and the one reader for what takes the file back (top --replay of a results
 * folder; the runner's summary and plots, through rec_timeline_read).
 *
 * One row per bin, from the bin of the earliest frame to the bin of the latest, empty
 * bins too, so row i starts at row 0's time + i x BIN:
 *
 *   time_s                the bin's start: seconds.nanoseconds on the capture's clock
 *   frames                every frame in the bin, then per kind:
 *   pause pfc cnp roce    802.3x PAUSE, 802.1Qbb PFC, RoCEv2 CNP, other RoCEv2,
 *   roce_ce               RoCEv2 packets (CNPs aside) marked CE,
 *   other                 anything else decoded (other MAC control included),
 *   truncated invalid     cut by the snaplen; lengths that disagree
 *   paused_ns_prio0..7    the pause timers' time inside the bin per priority, summed
 *   paused_ns_pause       over senders, 802.3x PAUSE last; empty where the link speed
 *                         is unknown (no time can be worked out from quanta)
 *   pfc_prio0..7          PFC frames that name the priority (class-enable bit set)
 *
 * Columns are only ever added at the end, so a reader that finds them by name in the
 * header keeps working.
 */
#ifndef PFCLAB_FRAMES_TIMELINE_H
#define PFCLAB_FRAMES_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "monitor/frames/stats.h"

enum frames_tl_col {
	FRAMES_TL_TIME,
	FRAMES_TL_FRAMES,
	FRAMES_TL_PAUSE,
	FRAMES_TL_PFC,
	FRAMES_TL_CNP,
	FRAMES_TL_ROCE,
	FRAMES_TL_CE,
	FRAMES_TL_OTHER,
	FRAMES_TL_TRUNCATED,
	FRAMES_TL_INVALID,
	FRAMES_TL_PAUSED0,	/* + p: priority p; + FRAMES_PRIO_PAUSE: 802.3x PAUSE */
	FRAMES_TL_PFC_PRIO0 = FRAMES_TL_PAUSED0 + FRAMES_NPRIO,	/* + p: priority p */
	FRAMES_TL_NCOL = FRAMES_TL_PFC_PRIO0 + 8,
};

/* The header name of column c ("paused_ns_prio3"); NULL out of range. */
const char *frames_tl_name(int c);

/* The CSV of st's bins on f, header first. false when f failed (a closed pipe, a full
 * disk): the rows stop there.
 */
bool frames_tl_write(FILE *f, const struct frames_stats *st);

/* The bin `pfclab run` has review cut each capture's timeline into (review --timeline,
 * the text fmt_duration_ns makes of it: "10ms"), and the bin a reader of the runner's
 * timelines takes where a file has too few rows to tell its own. */
#define FRAMES_TL_RUN_BIN_NS 10000000ULL

/* Reading one back. Every line is checked: field count equal to the header's, counts
 * in decimal digits within 64 bits, an empty field only in a paused_ns column, time_s
 * one bin after the row before. A reader that failed stays failed.
 */
#define FRAMES_TL_MAX_LINE 2048			/* bytes; a row is under 600 today */
#define FRAMES_TL_MAX_FIELDS 64			/* in the header */
#define FRAMES_TL_MAX_BYTES (512ull << 20)	/* file size read at most */

struct frames_tl_row {
	/* by column; v[FRAMES_TL_TIME] is the bin's start, ns on the capture's clock */
	uint64_t v[FRAMES_TL_NCOL];
	uint64_t have;			/* bit c: column c holds a number in this row */
};

struct frames_tl_reader {
	FILE *f;
	uint64_t line;			/* lines read, the header included */
	int map[FRAMES_TL_MAX_FIELDS];	/* header field -> column, -1 for one not known */
	unsigned nfield;
	uint64_t cols;			/* bit c: the header names column c */
	uint64_t rows;			/* rows read */
	uint64_t t0, bin_ns;		/* the first row's time; the bin (0: fewer than 2 rows) */
	int rc;				/* the failure, once failed */
	char err[200];			/* "line 12: ..." on failure; text safe to show */
};

/* Opens path and reads its header. 0; -ENOENT absent; -EINVAL not a regular file or no
 * header of review's timeline (every column review writes at least since
 * paused_ns_pause); -EFBIG over FRAMES_TL_MAX_BYTES; another -errno. err says why on
 * any failure but -ENOENT, and nothing is left open.
 */
int frames_tl_open(struct frames_tl_reader *r, const char *path);
/* The next row into *row: 1; 0 at the end; -EINVAL for a malformed line and -E2BIG past
 * FRAMES_MAX_BINS rows (err: "line N: why"); -errno for a read error.
 */
int frames_tl_next(struct frames_tl_reader *r, struct frames_tl_row *row);
void frames_tl_close(struct frames_tl_reader *r);

#endif
