/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys.h: the state of the "pfclab top" screen that keys change (refresh, freeze, focus,
 * selected host and panel, replay position and speed) and the key table. Pure: a unit
 * test drives it with key codes.
 */
#ifndef PFCLAB_TOP_KEYS_H
#define PFCLAB_TOP_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct top_ui {
	uint64_t refresh_ns;	/* redraw period: +/- */
	bool frozen;		/* space (live): the screen keeps its values */
	int focus;		/* 0-7: the focused PFC priority, -1: none */
	size_t host;		/* selected host (tab, left/right); the first one drawn */
	size_t nhost;
	int panel;		/* first section drawn (up/down) */
	int npanel;
	bool help;		/* ? */
	bool quit;
	/* replay */
	bool replay;
	bool paused;		/* space (replay) */
	double speed;		/* < > */
	int64_t seek_ns;	/* [ ] { } g G: a seek to apply, relative */
	bool seek_start, seek_end;
};

enum top_action {
	TOP_ACT_NONE,		/* unknown key */
	TOP_ACT_DRAW,		/* state changed: redraw now */
	TOP_ACT_BASELINE,	/* z: totals from now */
	TOP_ACT_BASELINE_CLEAR,	/* Z: no baseline: counters as the device reads them */
	TOP_ACT_RECORD,		/* r: start or stop recording */
	TOP_ACT_FREEZE,		/* space in live mode: frozen changed */
	TOP_ACT_QUIT,
};

#define TOP_REFRESH_MIN_NS 50000000ULL		/* 50 ms */
#define TOP_REFRESH_MAX_NS 10000000000ULL	/* 10 s */

void top_ui_init(struct top_ui *u, uint64_t refresh_ns, size_t nhost, int npanel,
		 bool replay);
/* Apply one key (ncurses key code); returns what the caller must do. */
enum top_action top_keys_apply(struct top_ui *u, int key);
/* The help text: lines of "KEY  what", NULL-terminated. */
const char *const *top_keys_help(bool replay);

#endif
