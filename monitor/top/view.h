/* SPDX-License-Identifier: GPL-2.0-or-later */
/* view.h: the ncurses renderer of "pfclab top": draws the rows of the screen model
 * for the hosts that fit, with the state of each host, and nothing else.
 */
#ifndef PFCLAB_TOP_VIEW_H
#define PFCLAB_TOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/top/keys.h"
#include "monitor/top/model.h"

struct top_view_info {
	const char *mode;	/* "live" or "replay" */
	bool recording;
	char where[96];		/* replay: "12.0 s / 60.0 s  x2  paused" */
	const char *status;	/* bottom line: the selected host's last message */
	const char *note;	/* NULL, or a line above it that must be seen (a host's
				 * snapshot note: a file beside its record not used) */
	uint64_t now;		/* local monotonic time of this frame */
};

/* Whether the terminal TERM names can hold the screen (known to terminfo, can move the
 * cursor); -1 with why ("TERM=dumb cannot move the cursor") when not.
 */
int top_view_usable(char *why, size_t n);
/* Take the terminal: alternate screen, no echo, keypad, no cursor. color: use colours
 * (false under NO_COLOR or without colours).
 */
int top_view_open(bool color);
/* Draws rows[0..nrows) as they fit the terminal: where they take more lines than it
 * has, the idle PFC priorities share one line first (top_model_fit, in place), and a
 * last line says how many rows are below when even that is not enough. */
void top_view_draw(const struct top_model *m, struct top_row *rows, size_t nrows,
		   const struct top_ui *u, const struct top_view_info *vi);
/* Give the terminal back as it was (also from a signal path: endwin only). */
void top_view_close(void);

#endif
