// SPDX-License-Identifier: GPL-2.0-or-later
/* view.c: draws the "pfclab top" screen with ncurses: a title line, one column block per
 * host (as many as fit, starting at the selected one), section headings, rows of cells,
 * sparklines where room is left, the help overlay and a status line.
 *
 *   pfclab top  live  refresh 1s  ...                                   ? help
 *                h1 ok 0.2s                      h2 STALE 3.1s
 *   PFC          rx/s  tx/s paused seen/s total  rx/s  tx/s ...
 *    prio3       1.2k     0  12.5%   1.2k  840k   ...
 */
#include <curses.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

#include "lib/util.h"
#include "monitor/top/view.h"

#define LABEL_W 16
#define CELL_W 7

enum { PAIR_RED = 1, PAIR_YELLOW, PAIR_GREEN, PAIR_CYAN };

static bool use_color, use_utf8;

int top_view_usable(char *why, size_t n)
{
	const char *term = getenv("TERM");
	char *cup;
	bool moves;
	int err = 0;

	if (!term || !*term) {
		snprintf(why, n, "TERM is not set");
		return -1;
	}
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
		snprintf(why, n, "TERM=%s is not in this system's terminal database", term);
		return -1;
	}
	cup = tigetstr("cup");
	moves = cup && cup != (char *)-1;
	del_curterm(cur_term);
	if (!moves) {
		snprintf(why, n, "TERM=%s cannot move the cursor", term);
		return -1;
	}
	return 0;
}

int top_view_open(bool color)
{
	const char *cs;

	cs = nl_langinfo(CODESET);
	use_utf8 = cs && !strcmp(cs, "UTF-8");
	if (!newterm(NULL, stdout, stdin))
		return -1;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	use_color = color && has_colors();
	if (use_color) {
		start_color();
		use_default_colors();
		init_pair(PAIR_RED, COLOR_RED, -1);
		init_pair(PAIR_YELLOW, COLOR_YELLOW, -1);
		init_pair(PAIR_GREEN, COLOR_GREEN, -1);
		init_pair(PAIR_CYAN, COLOR_CYAN, -1);
	}
	return 0;
}

void top_view_close(void)
{
	if (!isendwin())
		endwin();
}

static attr_t color(int pair, attr_t fallback)
{
	return use_color ? COLOR_PAIR(pair) : fallback;
}

/* The cell columns in display order and the order they are given up when narrow. */
enum { COL_C0, COL_C1, COL_C2, COL_C3, COL_TOTAL, NCOL };
static const int give_up[] = { COL_C2, COL_C3, COL_TOTAL, COL_C1 };

static int panel_cols(int width, bool show[NCOL])
{
	int n = NCOL, k = 0, i;

	for (i = 0; i < NCOL; i++)
		show[i] = true;
	while (n * CELL_W + 1 > width && k < (int)ARRAY_SIZE(give_up)) {
		show[give_up[k++]] = false;
		n--;
	}
	return n * CELL_W + 1;
}

static void fmt_cell(const struct top_cell *c, char *buf, size_t n)
{
	switch (c->state) {
	case TOP_CELL_NONE:
		buf[0] = '\0';
		return;
	case TOP_CELL_NA:
	case TOP_CELL_ELSEWHERE:
		snprintf(buf, n, "n/a");
		return;
	case TOP_CELL_OK:
		break;
	}
	if (isnan(c->value)) {
		snprintf(buf, n, "-");	/* read once, no rate yet */
	} else if (c->how == TOP_SHARE_US || c->how == TOP_SHARE_PCT ||
		   c->how == TOP_LINK_SHARE) {
		double pct = c->value * 100;

		snprintf(buf, n, pct > 0 && pct < 0.1 ? "%.2f%%" : "%.1f%%", pct);
		if (c->capture && strlen(buf) + 1 > CELL_W - 1)	/* room for the mark */
			snprintf(buf, n, "%.0f%%", pct);
	} else {
		top_fmt_num(c->value, buf, n);
	}
	if (c->capture && strlen(buf) + 1 < n)
		strcat(buf, "*");
	if (c->mismatch && strlen(buf) + 1 < n)
		strcat(buf, "!");
}

/* The first counter cell of a row that has a total: received, captured, sent; else a
 * whole run's count from elsewhere (shown marked "*").
 */
static const struct top_cell *total_cell(const struct top_row *r, size_t h)
{
	static const int order[] = { 0, 3, 1 };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(order); k++)
		if (r->cell[h][order[k]].state == TOP_CELL_OK && r->cell[h][order[k]].has_total)
			return &r->cell[h][order[k]];
	for (k = 0; k < ARRAY_SIZE(order); k++)
		if (r->cell[h][order[k]].state == TOP_CELL_ELSEWHERE)
			return &r->cell[h][order[k]];
	return NULL;
}

static void spark(const float *v, int width, char *out, size_t n)
{
	static const char *const bars[] = { "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
					    "\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86",
					    "\xe2\x96\x87", "\xe2\x96\x88" };
	static const char ascii[] = "_.-:=+*#";
	float max = 0;
	size_t o = 0;
	int i, first = TOP_HIST - width;

	if (first < 0)
		first = 0;
	for (i = first; i < TOP_HIST; i++)
		if (!isnan(v[i]) && v[i] > max)
			max = v[i];
	for (i = first; i < TOP_HIST && o + 4 < n; i++) {
		int lvl;

		if (isnan(v[i]) || v[i] <= 0 || max <= 0) {
			out[o++] = ' ';
			continue;
		}
		lvl = (int)(v[i] / max * 7.999f);
		if (lvl > 7)
			lvl = 7;
		if (use_utf8) {
			memcpy(out + o, bars[lvl], 3);
			o += 3;
		} else {
			out[o++] = ascii[lvl];
		}
	}
	out[o] = '\0';
}

static void host_head(const struct top_model *m, size_t h, uint64_t now, char *buf, size_t n,
		      attr_t *attr)
{
	uint64_t age;
	enum top_host_state st = top_model_host_state(m, h, now, &age);

	switch (st) {
	case TOP_HOST_WAIT:
		snprintf(buf, n, "%s waiting", m->host[h].name);
		*attr = A_DIM;
		break;
	case TOP_HOST_OK:
		snprintf(buf, n, "%s ok %.1fs", m->host[h].name, age / 1e9);
		*attr = A_BOLD | color(PAIR_GREEN, 0);
		break;
	case TOP_HOST_STALE:
		snprintf(buf, n, "%s STALE %.1fs", m->host[h].name, age / 1e9);
		*attr = A_BOLD | color(PAIR_RED, A_REVERSE);
		break;
	case TOP_HOST_DOWN:
		snprintf(buf, n, "%s DOWN %.1fs", m->host[h].name, age / 1e9);
		*attr = A_BOLD | color(PAIR_RED, A_REVERSE);
		break;
	}
	/* the host's sampler fell behind: its figures span longer intervals than asked */
	if (st != TOP_HOST_WAIT && m->host[h].snap.has_missed && m->host[h].snap.missed) {
		size_t l = strlen(buf);

		snprintf(buf + l, n - l, ", %" PRIu64 " missed", m->host[h].snap.missed);
		if (st == TOP_HOST_OK)
			*attr = A_BOLD | color(PAIR_YELLOW, 0);
	}
}

static void draw_help(const struct top_ui *u)
{
	const char *const *l = top_keys_help(u->replay);
	int n = 0, w = 0, y0, x0, i;

	for (i = 0; l[i]; i++, n++)
		if ((int)strlen(l[i]) > w)
			w = (int)strlen(l[i]);
	w += 4;
	y0 = (LINES - n - 2) / 2;
	x0 = (COLS - w) / 2;
	if (y0 < 0)
		y0 = 0;
	if (x0 < 0)
		x0 = 0;
	attron(A_REVERSE);
	for (i = -1; i <= n; i++) {
		mvhline(y0 + i + 1, x0, ' ', w);
		if (i >= 0 && i < n)
			mvaddnstr(y0 + i + 1, x0 + 2, l[i], COLS - x0 - 2);
	}
	mvaddnstr(y0, x0 + 2, " pfclab top: keys ", COLS - x0 - 2);
	attroff(A_REVERSE);
}

/* The title line: mode, refresh, frozen/recording marks, focus, "? help". */
static void title_line(const struct top_ui *u, const struct top_view_info *vi)
{
	char buf[512];

	snprintf(buf, sizeof(buf), " pfclab top  %s  refresh %gs%s%s%s%s", vi->mode,
		 u->refresh_ns / 1e9, u->frozen ? "  [FROZEN]" : "",
		 vi->recording ? "  [REC]" : "", vi->where[0] ? "  " : "", vi->where);
	if (u->focus >= 0)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "  focus prio %d",
			 u->focus);
	attron(A_REVERSE);
	mvhline(0, 0, ' ', COLS);
	mvaddnstr(0, 0, buf, COLS);
	if (COLS > 10)
		mvaddnstr(0, COLS - 8, "? help ", 7);
	attroff(A_REVERSE);

}

/* A section's header row: its name, then the column titles under every host shown. */
static void section_head(int y, enum top_section sec, const bool *show, int nshow, int stride)
{
	int k, x;

	attron(A_BOLD | color(PAIR_CYAN, 0));
	mvaddnstr(y, 0, top_section_name(sec), LABEL_W - 1);
	for (k = 0; k < nshow; k++) {
		x = LABEL_W + k * stride;
		for (int c = 0; c < NCOL; c++) {
			const char *t = c == COL_TOTAL ? "total" :
					top_section_col(sec, c);

			if (!show[c])
				continue;
			mvprintw(y, x, "%*.*s", CELL_W - 1, CELL_W - 1, t);
			x += CELL_W;
		}
	}
	attroff(A_BOLD | color(PAIR_CYAN, 0));
}

void top_view_draw(const struct top_model *m, struct top_row *rows, size_t nrows,
		   const struct top_ui *u, const struct top_view_info *vi)
{
	bool show[NCOL];
	int pw, nshow, sparkw = 0, stride, y = 0, x, k;
	size_t i, h, first = u->host < m->nhost ? u->host : 0;
	char buf[512], cell[32];
	int sec = -1, bottom = LINES - 1 - (vi->note && vi->note[0] && LINES > 3), need;
	int end = bottom;	/* the rows' lines: from 2 (below the host headers) to end */

	erase();
	/* rows that do not fit fold first; where even that is not enough, the last line
	 * says what is below */
	nrows = top_model_fit(rows, nrows, u->panel, u->focus, bottom - 2);
	need = top_model_lines(rows, nrows, u->panel);
	if (need > bottom - 2 && bottom > 3)
		end = bottom - 1;
	title_line(u, vi);

	/* Host blocks: as many as fit from the selected one; a sparkline when room is left.
	 * As many hosts as fit with at least three columns each (rx, tx, total), the
	 * columns given up in give_up's order; one host when even that does not fit.
	 */
	for (nshow = (int)(m->nhost - first); nshow > 1; nshow--) {
		int per = (COLS - LABEL_W) / nshow, ncol = 0;

		pw = panel_cols(per, show);
		for (k = 0; k < NCOL; k++)
			ncol += show[k];
		if (pw <= per && ncol >= 3)
			break;
	}
	if (nshow <= 1) {
		nshow = 1;
		pw = panel_cols(COLS - LABEL_W, show);
	}
	if (nshow == 1 || (size_t)nshow == m->nhost) {
		int left = (COLS - LABEL_W) / (nshow ? nshow : 1) - pw;

		if (left >= 8)
			sparkw = left - 1;
	}
	stride = pw + sparkw + (sparkw ? 1 : 0);	/* one host's columns and sparkline */
	y = 1;
	for (k = 0; k < nshow; k++) {
		attr_t a;

		h = first + (size_t)k;
		host_head(m, h, vi->now, buf, sizeof(buf), &a);
		attron(a);
		mvaddnstr(y, LABEL_W + k * stride, buf, pw + sparkw);
		attroff(a);
	}
	if ((size_t)nshow < m->nhost) {
		snprintf(buf, sizeof(buf), "%zu/%zu hosts", (size_t)nshow, m->nhost);
		mvaddnstr(y, 0, buf, LABEL_W - 1);
	}
	y++;
	for (i = 0; i < nrows && y < end; i++) {
		const struct top_row *r = &rows[i];
		attr_t rowattr = 0;

		if ((int)r->sec < u->panel)
			continue;
		if ((int)r->sec != sec) {
			sec = (int)r->sec;
			section_head(y, r->sec, show, nshow, stride);
			if (++y >= end)
				break;
		}
		if (r->prio >= 0 && r->prio == u->focus)
			rowattr = A_REVERSE;
		attron(rowattr);
		mvprintw(y, 0, " %-*.*s", LABEL_W - 1, LABEL_W - 2, r->label);
		for (k = 0; k < nshow; k++) {
			uint64_t age;
			enum top_host_state st;

			h = first + (size_t)k;
			st = top_model_host_state(m, h, vi->now, &age);
			x = LABEL_W + k * stride;
			for (int c = 0; c < NCOL; c++) {
				const struct top_cell *tc = c < TOP_CELLS ? &r->cell[h][c] : NULL;
				attr_t a = 0;

				if (!show[c])
					continue;
				if (c == COL_TOTAL) {
					const struct top_cell *t = total_cell(r, h);

					if (t)
						top_fmt_num((double)t->total, cell, sizeof(cell));
					else
						cell[0] = '\0';
					if (t && (t->state == TOP_CELL_ELSEWHERE || t->capture) &&
					    strlen(cell) + 1 < sizeof(cell))
						strcat(cell, "*");
				} else {
					fmt_cell(tc, cell, sizeof(cell));
					if (tc->mismatch)
						a = A_BOLD | color(PAIR_RED, A_UNDERLINE);
					else if (tc->nonzero && (r->sec == TOP_SEC_PFC ||
								 r->sec == TOP_SEC_DISCARD))
						a = A_BOLD | color(PAIR_YELLOW, 0);
				}
				if (st == TOP_HOST_STALE || st == TOP_HOST_DOWN)
					a |= A_DIM;
				attron(a);
				mvprintw(y, x, "%*.*s", CELL_W - 1, CELL_W - 1, cell);
				attroff(a);
				x += CELL_W;
			}
			if (sparkw && r->hist[h]) {
				spark(r->hist[h], sparkw, buf, sizeof(buf));
				mvaddstr(y, x + 1, buf);
			}
		}
		attroff(rowattr);
		y++;
	}
	/* Rows that did not fit: say so, and how to reach them. */
	if (end < bottom) {
		snprintf(buf, sizeof(buf), " ... %d more line%s below (down: next panel; a "
			 "taller terminal shows them)", need - (y - 2), need - (y - 2) == 1 ? "" : "s");
		attron(A_DIM);
		mvaddnstr(end, 0, buf, COLS - 1);
		attroff(A_DIM);
	}
	/* A note above the status line: something the screen lacks, and why. */
	if (bottom < LINES - 1) {
		attron(A_BOLD | color(PAIR_YELLOW, A_REVERSE));
		mvaddnstr(bottom, 0, vi->note, COLS - 1);
		attroff(A_BOLD | color(PAIR_YELLOW, A_REVERSE));
	}
	/* Status line. */
	attron(A_DIM);
	mvaddnstr(LINES - 1, 0, vi->status ? vi->status : "", COLS - 1);
	attroff(A_DIM);
	if (u->help)
		draw_help(u);
	refresh();
}
