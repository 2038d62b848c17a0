// SPDX-License-Identifier: GPL-2.0-or-later
/* keys.c: what each key of "pfclab top" does to the screen state. */
#include <curses.h>
#include <string.h>

#include "monitor/top/keys.h"

/* The refresh steps of +/-, as btop and top offer them. */
static const uint64_t steps[] = { 50000000ULL, 100000000ULL, 200000000ULL, 500000000ULL,
				  1000000000ULL, 2000000000ULL, 5000000000ULL,
				  10000000000ULL };

void top_ui_init(struct top_ui *u, uint64_t refresh_ns, size_t nhost, int npanel,
		 bool replay)
{
	memset(u, 0, sizeof(*u));
	u->refresh_ns = refresh_ns;
	u->nhost = nhost;
	u->npanel = npanel;
	u->focus = -1;
	u->replay = replay;
	u->speed = 1.0;
}

static uint64_t step(uint64_t cur, int dir)
{
	size_t i, n = sizeof(steps) / sizeof(steps[0]);

	if (dir > 0) {	/* faster: the next shorter period */
		for (i = n; i-- > 0;)
			if (steps[i] < cur)
				return steps[i];
		return steps[0];
	}
	for (i = 0; i < n; i++)
		if (steps[i] > cur)
			return steps[i];
	return steps[n - 1];
}

enum top_action top_keys_apply(struct top_ui *u, int key)
{
	if (u->help && key != 'q' && key != 'Q') {
		/* Any key closes the help; it does nothing else. */
		u->help = false;
		return TOP_ACT_DRAW;
	}
	switch (key) {
	case 'q':
	case 'Q':
		u->quit = true;
		return TOP_ACT_QUIT;
	case ' ':
		if (u->replay) {
			u->paused = !u->paused;
			return TOP_ACT_DRAW;
		}
		u->frozen = !u->frozen;
		return TOP_ACT_FREEZE;
	case '+':
	case '=':
		u->refresh_ns = step(u->refresh_ns, 1);
		return TOP_ACT_DRAW;
	case '-':
	case '_':
		u->refresh_ns = step(u->refresh_ns, -1);
		return TOP_ACT_DRAW;
	case 'z':
		return TOP_ACT_BASELINE;
	case 'Z':
		return TOP_ACT_BASELINE_CLEAR;
	case 'r':
	case 'R':
		return u->replay ? TOP_ACT_NONE : TOP_ACT_RECORD;
	case '?':
	case 'h':
	case KEY_F(1):
		u->help = true;
		return TOP_ACT_DRAW;
	case '\t':
	case KEY_RIGHT:
		if (u->nhost)
			u->host = (u->host + 1) % u->nhost;
		return TOP_ACT_DRAW;
	case KEY_BTAB:
	case KEY_LEFT:
		if (u->nhost)
			u->host = (u->host + u->nhost - 1) % u->nhost;
		return TOP_ACT_DRAW;
	case KEY_DOWN:
	case KEY_NPAGE:
		if (u->panel + 1 < u->npanel)
			u->panel++;
		return TOP_ACT_DRAW;
	case KEY_UP:
	case KEY_PPAGE:
		if (u->panel > 0)
			u->panel--;
		return TOP_ACT_DRAW;
	case KEY_HOME:
		u->panel = 0;
		return TOP_ACT_DRAW;
	case KEY_RESIZE:
	case 12:	/* ^L */
		return TOP_ACT_DRAW;
	default:
		break;
	}
	if (key >= '0' && key <= '7') {
		u->focus = u->focus == key - '0' ? -1 : key - '0';
		return TOP_ACT_DRAW;
	}
	if (!u->replay)
		return TOP_ACT_NONE;
	switch (key) {
	case '>':
	case '.':
		if (u->speed < 64)
			u->speed *= 2;
		return TOP_ACT_DRAW;
	case '<':
	case ',':
		if (u->speed > 1.0 / 16)
			u->speed /= 2;
		return TOP_ACT_DRAW;
	case ']':
		u->seek_ns += 10000000000LL;
		return TOP_ACT_DRAW;
	case '[':
		u->seek_ns -= 10000000000LL;
		return TOP_ACT_DRAW;
	case '}':
		u->seek_ns += 60000000000LL;
		return TOP_ACT_DRAW;
	case '{':
		u->seek_ns -= 60000000000LL;
		return TOP_ACT_DRAW;
	case 'g':
		u->seek_start = true;
		return TOP_ACT_DRAW;
	case 'G':
		u->seek_end = true;
		return TOP_ACT_DRAW;
	default:
		return TOP_ACT_NONE;
	}
}

const char *const *top_keys_help(bool replay)
{
	static const char *const live[] = {
		"q          quit",
		"space      freeze the screen (sampling goes on)",
		"+ / -      refresh faster / slower",
		"z / Z      totals from now (baseline) / counters as read",
		"r          start / stop recording (monitor record format)",
		"0-7        focus a PFC priority (again: none)",
		"tab, <- -> select host (the first drawn)",
		"up / down  scroll by panel",
		"?          this help (any key closes it)",
		NULL,
	};
	static const char *const rep[] = {
		"q          quit",
		"space      pause / play",
		"< / >      half / double speed",
		"[ / ]      back / forward 10 s;  { / }  60 s",
		"g / G      to the start / the end",
		"+ / -      refresh faster / slower",
		"z / Z      totals from now (baseline) / counters as read",
		"0-7        focus a PFC priority (again: none)",
		"tab, <- -> select host (the first drawn)",
		"up / down  scroll by panel",
		"?          this help (any key closes it)",
		NULL,
	};
	return replay ? rep : live;
}
