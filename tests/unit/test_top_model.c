// SPDX-License-Identifier: GPL-2.0-or-later
/* test_top_model.c: the screen model of pfclab top (rows, rates, totals and baseline,
 * paused share, PCIe link share, staleness, pairing across hosts), its keys, the remote
 * line parser and the replay of a record written here.
 */
#include <curses.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/util.h"
#include "monitor/top/feed.h"
#include "monitor/top/keys.h"
#include "monitor/top/model.h"
#include "monitor/top/rec.h"
#include "monitor/top/replay.h"

#define C (TOP_M_VALID | TOP_M_RATE | TOP_M_COUNTER)
#define S 1000000000ULL

static struct top_row rows[256];

static const struct top_row *find_row(size_t n, const char *label)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].label, label))
			return &rows[i];
	return NULL;
}

/* The row, or a failed test (never NULL). */
static const struct top_row *row(size_t n, const char *label)
{
	static struct top_row none;
	const struct top_row *r = find_row(n, label);

	if (!r)
		fail_msg("no row '%s'", label);
	return r ? r : &none;
}

static const float *hist_of(const struct top_row *r, size_t h)
{
	static const float none[TOP_HIST];

	if (!r->hist[h])
		fail_msg("row '%s' has no history", r->label);
	return r->hist[h] ? r->hist[h] : none;
}

static void snap_set(struct top_snap *s, uint64_t seq, uint64_t got)
{
	s->n = 0;
	s->seq = seq;
	s->got_ns = got;
	s->interval_ns = 200000000ULL;
}

/* A model with host "a" and its first snapshot, empty, taken at 1 s. */
static void one_host(struct top_model *m, struct top_snap *s)
{
	top_model_init(m);
	top_model_add_host(m, "a");
	snap_set(s, 1, 1 * S);
}

static void test_snap_put(void **state)
{
	struct top_snap s = { 0 };
	const struct top_metric *m;

	(void)state;
	assert_non_null(top_snap_put(&s, "pfc.rx.prio3.frames", "frames", C, 10, 5));
	/* A second source's null never hides the first one's reading. */
	top_snap_put(&s, "pfc.rx.prio3.frames", "frames", TOP_M_COUNTER, 0, 0);
	m = top_snap_get(&s, "pfc.rx.prio3.frames");
	assert_non_null(m);
	assert_int_equal(m->raw, 10);
	assert_int_equal(s.n, 1);
	assert_null(top_snap_get(&s, "cnp.sent"));
	top_snap_free(&s);
}

static void test_rows_one_host(void **state)
{
	struct top_model m;
	struct top_snap s = { 0 };
	const struct top_row *r;
	size_t n;

	(void)state;
	one_host(&m, &s);
	top_snap_put(&s, "link.rx_bytes", "B", C, 1000, 125000000.0);	/* 1 Gb/s */
	top_snap_put(&s, "pfc.tx.prio3.frames", "frames", C, 500, 40);
	top_snap_put(&s, "pfc.rx.prio3.pause_us", "us", C, 7, 250000);	/* 25 % paused */
	top_snap_put(&s, "capture.pfc.prio3.frames", "frames", TOP_M_VALID | TOP_M_COUNTER, 9, 0);
	top_snap_put(&s, "discard.rx_phy", "packets", C, 3, 2);
	assert_int_equal(top_model_update(&m, 0, &s), 1);
	n = top_model_rows(&m, rows, 256);
	/* Fixed rows always: link, 8 priorities, PAUSE, ECN, CNP; a family row when
	 * reported; no RDMA, GPU, qdisc rows when nobody reports them.
	 */
	assert_non_null(find_row(n, "link"));
	assert_non_null(find_row(n, "prio0"));
	assert_non_null(find_row(n, "prio7"));
	assert_non_null(find_row(n, "PAUSE"));
	assert_non_null(find_row(n, "CNP"));
	assert_non_null(find_row(n, "rx_phy"));
	assert_null(find_row(n, "RDMA"));
	assert_null(find_row(n, "GPU0"));
	r = row(n, "link");
	assert_int_equal(r->cell[0][0].state, TOP_CELL_OK);
	assert_true(fabs(r->cell[0][0].value - 1e9) < 1);
	assert_int_equal(r->cell[0][1].state, TOP_CELL_NA);	/* tx not read: n/a */
	r = row(n, "prio3");
	assert_int_equal(r->prio, 3);
	assert_int_equal(r->cell[0][0].state, TOP_CELL_NA);
	assert_true(fabs(r->cell[0][1].value - 40) < 1e-9);
	assert_true(fabs(r->cell[0][2].value - 0.25) < 1e-9);
	/* Read once, no rate yet: a total but no rate. */
	assert_int_equal(r->cell[0][3].state, TOP_CELL_OK);
	assert_true(isnan(r->cell[0][3].value));
	assert_int_equal(r->cell[0][3].total, 0);
	r = row(n, "prio0");
	assert_int_equal(r->cell[0][0].state, TOP_CELL_NA);
	top_snap_free(&s);
	top_model_free(&m);
}

/* mlx5's outbound_pci_stalled_wr/_rd: a percentage the NIC computes over the last second
 * (a gauge), shown as that share; a record from before the catalog said so holds them as a
 * microsecond counter, shown from its rate as before. */
static void test_nic_stall_share(void **state)
{
	struct top_model m;
	struct top_snap s = { 0 };
	const struct top_row *r;
	size_t n;

	(void)state;
	one_host(&m, &s);
	top_snap_put(&s, "pcie.nic.stalled_wr", "%", TOP_M_VALID, 85, 0);
	top_snap_put(&s, "pcie.nic.stalled_rd", "%", TOP_M_VALID, 0, 0);
	assert_int_equal(top_model_update(&m, 0, &s), 1);
	n = top_model_rows(&m, rows, 256);
	r = row(n, "NIC PCIe");
	assert_int_equal(r->cell[0][0].state, TOP_CELL_OK);
	assert_int_equal(r->cell[0][0].how, TOP_SHARE_PCT);
	assert_string_equal(r->cell[0][0].unit, "%");
	assert_true(fabs(r->cell[0][0].value - 0.85) < 1e-9);
	assert_true(r->cell[0][0].nonzero);
	assert_false(r->cell[0][0].has_total);	/* a level has no total */
	assert_true(r->cell[0][1].value == 0);
	/* it falls: still a share, no gap, no reset */
	snap_set(&s, 2, 2 * S);
	top_snap_put(&s, "pcie.nic.stalled_wr", "%", TOP_M_VALID, 12, 0);
	top_snap_put(&s, "pcie.nic.stalled_rd", "%", TOP_M_VALID, 3, 0);
	assert_int_equal(top_model_update(&m, 0, &s), 1);
	n = top_model_rows(&m, rows, 256);
	r = row(n, "NIC PCIe");
	assert_int_equal(r->cell[0][0].state, TOP_CELL_OK);
	assert_true(fabs(r->cell[0][0].value - 0.12) < 1e-9);
	assert_true(fabs(r->cell[0][1].value - 0.03) < 1e-9);
	/* the PCIe buffer overflow beside them: packets dropped per second, with a total */
	assert_int_equal(r->cell[0][2].state, TOP_CELL_NONE);
	assert_int_equal(r->cell[0][3].state, TOP_CELL_NA);
	snap_set(&s, 3, 3 * S);
	top_snap_put(&s, "pcie.nic.buffer_overflow", "packets", C, 7, 4);
	assert_int_equal(top_model_update(&m, 0, &s), 1);
	n = top_model_rows(&m, rows, 256);
	r = row(n, "NIC PCIe");
	assert_int_equal(r->cell[0][3].state, TOP_CELL_OK);
	assert_true(fabs(r->cell[0][3].value - 4) < 1e-9);
	assert_true(r->cell[0][3].has_total);
	assert_string_equal(top_section_col(TOP_SEC_PCIE, 3), "drop/s");
	top_snap_free(&s);
	top_model_free(&m);

	/* a host that counts none of them (rxe, veth): the line is there, every cell n/a */
	one_host(&m, &s);
	assert_int_equal(top_model_update(&m, 0, &s), 1);
	n = top_model_rows(&m, rows, 256);
	r = row(n, "NIC PCIe");
	assert_int_equal(r->sec, TOP_SEC_PCIE);
	assert_int_equal(r->cell[0][0].state, TOP_CELL_NA);
	assert_int_equal(r->cell[0][1].state, TOP_CELL_NA);
	assert_int_equal(r->cell[0][3].state, TOP_CELL_NA);
	assert_null(find_row(n, "NIC stall"));
	assert_null(find_row(n, "NIC overflow"));
	top_snap_free(&s);
	top_model_free(&m);

	/* CNPs received (bnxt_re): a row of their own, only where reported */
	assert_null(find_row(n, "CNP received"));
	one_host(&m, &s);
	top_snap_put(&s, "cnp.received", "packets", C, 40, 20);
	assert_int_equal(top_model_update(&m, 0, &s), 1);
	n = top_model_rows(&m, rows, 256);
	r = row(n, "CNP received");
	assert_true(fabs(r->cell[0][0].value - 20) < 1e-9);
	top_snap_free(&s);
	top_model_free(&m);

	/* an older record: a microsecond counter of the same name */
	one_host(&m, &s);
	top_snap_put(&s, "pcie.nic.stalled_wr", "us", C, 1000, 250000);
	assert_int_equal(top_model_update(&m, 0, &s), 1);
	n = top_model_rows(&m, rows, 256);
	r = row(n, "NIC PCIe");
	assert_int_equal(r->cell[0][0].how, TOP_SHARE_US);
	assert_true(fabs(r->cell[0][0].value - 0.25) < 1e-9);
	top_snap_free(&s);
	top_model_free(&m);
}

/* The paused share from the captured frames where the NIC counts no pause duration; the
 * NIC's own counter where it has one; n/a where neither was read (no link speed). */
static void test_paused_from_capture(void **state)
{
	struct top_model m;
	struct top_snap s = { 0 };
	const struct top_row *r;
	size_t n;

	(void)state;
	one_host(&m, &s);
	top_snap_put(&s, "capture.pfc.prio3.paused_us", "us", C, 1342156, 671000);
	top_snap_put(&s, "pfc.rx.prio5.pause_us", "us", C, 10, 100000);
	top_snap_put(&s, "capture.pfc.prio5.paused_us", "us", C, 10, 900000);
	top_snap_put(&s, "capture.pfc.prio6.paused_us", "us", TOP_M_COUNTER, 0, 0);
	top_snap_put(&s, "capture.pause.paused_us", "us", C, 0, 0);
	assert_int_equal(top_model_update(&m, 0, &s), 1);
	n = top_model_rows(&m, rows, 256);
	r = row(n, "prio3");
	assert_int_equal(r->cell[0][2].state, TOP_CELL_OK);
	assert_true(fabs(r->cell[0][2].value - 0.671) < 1e-9);
	r = row(n, "prio5");	/* the NIC's counter first */
	assert_true(fabs(r->cell[0][2].value - 0.1) < 1e-9);
	r = row(n, "prio6");	/* not valid: n/a, never 0 */
	assert_int_equal(r->cell[0][2].state, TOP_CELL_NA);
	r = row(n, "PAUSE");
	assert_int_equal(r->cell[0][2].state, TOP_CELL_OK);
	assert_true(r->cell[0][2].value == 0);
	top_snap_free(&s);
	top_model_free(&m);
}

/* What comes from captured frames is marked wherever it comes from (--frames live, a
 * remote monitor, a record): seen/s, the paused share from the capture where the NIC has
 * no pause-duration counter, and a total taken from either; the NIC's own are not.
 */
static void test_capture_marks(void **state)
{
	struct top_model m;
	struct top_snap s = { 0 };
	const struct top_row *r;
	size_t n;

	(void)state;
	one_host(&m, &s);
	top_snap_put(&s, "link.rx_bytes", "B", C, 1000, 10);
	top_snap_put(&s, "capture.pfc.prio3.frames", "frames", C, 300, 100);
	top_snap_put(&s, "capture.pfc.prio3.paused_us", "us", C, 1000, 5000);
	top_snap_put(&s, "pfc.rx.prio5.frames", "frames", C, 40, 4);
	top_snap_put(&s, "pfc.rx.prio5.pause_us", "us", C, 10, 100000);
	top_snap_put(&s, "capture.pfc.prio5.frames", "frames", C, 40, 4);
	top_snap_put(&s, "capture.pfc.prio5.paused_us", "us", C, 10, 900000);
	assert_false(top_model_host_captures(&m, 0));	/* nothing taken yet */
	assert_int_equal(top_model_update(&m, 0, &s), 1);
	assert_true(top_model_host_captures(&m, 0));
	n = top_model_rows(&m, rows, 256);
	assert_false(row(n, "link")->cell[0][0].capture);
	r = row(n, "prio3");	/* the NIC counts nothing: every figure the capture's */
	assert_int_equal(r->cell[0][0].state, TOP_CELL_NA);
	assert_true(r->cell[0][2].capture);	/* paused, from the frames' pause times */
	assert_true(r->cell[0][3].capture);	/* seen/s, and the total taken from it */
	assert_true(r->cell[0][3].has_total);
	r = row(n, "prio5");	/* the NIC's counters first: not marked */
	assert_false(r->cell[0][0].capture);
	assert_false(r->cell[0][2].capture);
	assert_true(fabs(r->cell[0][2].value - 0.1) < 1e-9);
	assert_true(r->cell[0][3].capture);
	top_model_free(&m);
	/* n/a readings of the capture, or the capture beside a record (its own legend):
	 * no legend for a frames source of the host's own
	 */
	one_host(&m, &s);
	top_snap_put(&s, "capture.pfc.prio3.frames", "frames", TOP_M_COUNTER, 0, 0);
	top_snap_put(&s, "capture.cnp.frames", "frames", TOP_M_VALID | TOP_M_COUNTER |
		     TOP_M_BESIDE, 7, 0);
	top_model_update(&m, 0, &s);
	assert_false(top_model_host_captures(&m, 0));
	n = top_model_rows(&m, rows, 256);
	assert_int_equal(row(n, "prio3")->cell[0][3].state, TOP_CELL_NA);
	assert_true(row(n, "CNP")->cell[0][3].capture);
	top_snap_free(&s);
	top_model_free(&m);
}

static void test_totals_baseline_history(void **state)
{
	struct top_model m;
	struct top_snap s = { 0 };
	const struct top_row *r;
	size_t n;

	(void)state;
	one_host(&m, &s);
	top_snap_put(&s, "capture.pfc.prio5.frames", "frames", C, 100, 0);
	top_model_update(&m, 0, &s);
	snap_set(&s, 2, 2 * S);
	top_snap_put(&s, "capture.pfc.prio5.frames", "frames", C, 130, 30);
	top_model_update(&m, 0, &s);
	/* The same sample again (a redraw between samples): no new history point. */
	assert_int_equal(top_model_update(&m, 0, &s), 0);
	n = top_model_rows(&m, rows, 256);
	r = row(n, "prio5");
	assert_int_equal(r->cell[0][3].total, 30);	/* since the first sample */
	assert_int_equal(r->hist_col, 3);
	assert_true(hist_of(r, 0)[TOP_HIST - 1] == 30.0f);
	assert_true(hist_of(r, 0)[TOP_HIST - 2] == 0.0f);
	assert_true(isnan(hist_of(r, 0)[TOP_HIST - 3]));
	top_model_baseline(&m);
	snap_set(&s, 3, 3 * S);
	top_snap_put(&s, "capture.pfc.prio5.frames", "frames", C, 137, 7);
	top_model_update(&m, 0, &s);
	n = top_model_rows(&m, rows, 256);
	assert_int_equal(row(n, "prio5")->cell[0][3].total, 7);
	top_model_baseline_clear(&m);	/* the counter as read */
	n = top_model_rows(&m, rows, 256);
	assert_int_equal(row(n, "prio5")->cell[0][3].total, 137);
	/* Frozen: updates are ignored. */
	m.frozen = true;
	snap_set(&s, 4, 4 * S);
	top_snap_put(&s, "capture.pfc.prio5.frames", "frames", C, 200, 63);
	assert_int_equal(top_model_update(&m, 0, &s), 0);
	n = top_model_rows(&m, rows, 256);
	assert_int_equal(row(n, "prio5")->cell[0][3].total, 137);
	top_snap_free(&s);
	top_model_free(&m);
}

/* A counter that goes back while top runs keeps what it counted in the total: one reset
 * or re-created (ip link del/add: no rate for that step) counts on from 0; a 32-bit one
 * that wrapped (the source gave a rate for the step) adds 2^32. 'z' starts over.
 */
static void test_totals_counter_reset(void **state)
{
	struct top_model m;
	struct top_snap s = { 0 };
	size_t n;

	(void)state;
	one_host(&m, &s);
	top_snap_put(&s, "link.rx_bytes", "B", C, 1000, 0);
	top_snap_put(&s, "discard.rdma_rx_buffer", "packets", C, 4294967000ULL, 0);
	top_model_update(&m, 0, &s);
	snap_set(&s, 2, 2 * S);
	top_snap_put(&s, "link.rx_bytes", "B", C, 1500, 500);
	top_snap_put(&s, "discard.rdma_rx_buffer", "packets", C, 4294967200ULL, 200);
	top_model_update(&m, 0, &s);
	snap_set(&s, 3, 3 * S);	/* re-created: reads from 0, no rate */
	top_snap_put(&s, "link.rx_bytes", "B", TOP_M_VALID | TOP_M_COUNTER, 20, 0);
	top_snap_put(&s, "discard.rdma_rx_buffer", "packets", C, 100, 196);	/* wrapped */
	top_model_update(&m, 0, &s);
	n = top_model_rows(&m, rows, 256);
	assert_int_equal(row(n, "link")->cell[0][0].total, 520);
	assert_int_equal(row(n, "rdma_rx_buffer")->cell[0][0].total, 396);
	snap_set(&s, 4, 4 * S);	/* past the first reading: the total never goes back */
	top_snap_put(&s, "link.rx_bytes", "B", C, 2000, 1980);
	top_snap_put(&s, "discard.rdma_rx_buffer", "packets", C, 104, 4);
	top_model_update(&m, 0, &s);
	n = top_model_rows(&m, rows, 256);
	assert_int_equal(row(n, "link")->cell[0][0].total, 2500);
	assert_int_equal(row(n, "rdma_rx_buffer")->cell[0][0].total, 400);
	top_model_baseline(&m);	/* z: from now */
	snap_set(&s, 5, 5 * S);
	top_snap_put(&s, "link.rx_bytes", "B", C, 2100, 100);
	top_snap_put(&s, "discard.rdma_rx_buffer", "packets", C, 105, 1);
	top_model_update(&m, 0, &s);
	n = top_model_rows(&m, rows, 256);
	assert_int_equal(row(n, "link")->cell[0][0].total, 100);
	assert_int_equal(row(n, "rdma_rx_buffer")->cell[0][0].total, 1);
	top_model_baseline_clear(&m);	/* Z: as read */
	n = top_model_rows(&m, rows, 256);
	assert_int_equal(row(n, "link")->cell[0][0].total, 2100);
	top_snap_free(&s);
	top_model_free(&m);
}

static void test_stale(void **state)
{
	struct top_model m;
	struct top_snap s = { 0 };
	uint64_t age;

	(void)state;
	top_model_init(&m);
	top_model_add_host(&m, "a");
	assert_int_equal(top_model_host_state(&m, 0, 5 * S, &age), TOP_HOST_WAIT);
	snap_set(&s, 1, 10 * S);	/* interval 200 ms: stale after 1 s (the floor) */
	top_model_update(&m, 0, &s);
	assert_int_equal(top_model_host_state(&m, 0, 10 * S + S / 2, &age), TOP_HOST_OK);
	assert_int_equal(age, S / 2);
	assert_int_equal(top_model_host_state(&m, 0, 11 * S + 1, &age), TOP_HOST_STALE);
	m.stale_ns = 5 * S;
	assert_int_equal(top_model_host_state(&m, 0, 14 * S, &age), TOP_HOST_OK);
	m.stale_ns = 0;
	s.interval_ns = 2 * S;		/* 3 intervals */
	top_model_update(&m, 0, &s);
	assert_int_equal(top_model_host_state(&m, 0, 15 * S, &age), TOP_HOST_OK);
	assert_int_equal(top_model_host_state(&m, 0, 16 * S + 1, &age), TOP_HOST_STALE);
	m.frozen = true;
	assert_int_equal(top_model_host_state(&m, 0, 30 * S, &age), TOP_HOST_OK);
	m.frozen = false;
	s.down = true;
	top_model_update(&m, 0, &s);
	assert_int_equal(top_model_host_state(&m, 0, 10 * S, &age), TOP_HOST_DOWN);
	top_snap_free(&s);
	top_model_free(&m);
}

struct pair_case {
	double sent, recv;	/* A's PFC sent on prio 3, B's received */
	bool mismatch;
};

static void test_pairing(void **state)
{
	static const struct pair_case cases[] = {
		{ 1000, 1000, false },
		{ 1000, 950, false },	/* within 10 % */
		{ 1000, 850, true },
		{ 0.5, 0, false },	/* under the absolute floor of 1/s */
		{ 0, 40, true },
	};
	struct top_model m;
	struct top_snap a = { 0 }, b = { 0 };
	const struct top_row *r;
	size_t i, n;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		top_model_init(&m);
		top_model_add_host(&m, "a");
		top_model_add_host(&m, "b");
		top_model_add_host(&m, "c");
		assert_int_equal(top_model_peer(&m, 0), 1);
		assert_int_equal(top_model_peer(&m, 1), 0);
		assert_int_equal(top_model_peer(&m, 2), -1);
		snap_set(&a, 1, 10 * S);
		snap_set(&b, 1, 10 * S);
		top_snap_put(&a, "pfc.tx.prio3.frames", "frames", C, 5, cases[i].sent);
		top_snap_put(&b, "pfc.rx.prio3.frames", "frames", C, 5, cases[i].recv);
		top_snap_put(&a, "cnp.sent", "packets", C, 5, 10);
		top_snap_put(&b, "cnp.handled", "packets", C, 5, 10);
		top_model_update(&m, 0, &a);
		top_model_update(&m, 1, &b);
		n = top_model_rows(&m, rows, 256);
		r = row(n, "prio3");
		assert_int_equal(r->cell[1][0].mismatch, cases[i].mismatch);
		assert_int_equal(r->cell[0][1].mismatch, cases[i].mismatch);
		r = row(n, "CNP");
		assert_false(r->cell[0][1].mismatch);
		assert_false(r->cell[1][0].mismatch);
		top_model_free(&m);
	}
	/* A stale peer is not compared. */
	top_model_init(&m);
	top_model_add_host(&m, "a");
	top_model_add_host(&m, "b");
	snap_set(&a, 1, 10 * S);
	snap_set(&b, 1, 5 * S);
	top_snap_put(&a, "pfc.tx.prio3.frames", "frames", C, 5, 1000);
	top_snap_put(&b, "pfc.rx.prio3.frames", "frames", C, 5, 0);
	top_model_update(&m, 0, &a);
	top_model_update(&m, 1, &b);
	n = top_model_rows(&m, rows, 256);
	assert_false(row(n, "prio3")->cell[0][1].mismatch);
	top_model_free(&m);
	top_snap_free(&a);
	top_snap_free(&b);
}

static void test_gpu_link_share(void **state)
{
	struct top_model m;
	struct top_snap s = { 0 };
	const struct top_row *r;
	size_t n;

	(void)state;
	assert_true(fabs(top_pcie_link_Bps(4, 16) - 16 * 1969.2e6) < 1);
	assert_true(top_pcie_link_Bps(0, 16) == 0);
	assert_true(top_pcie_link_Bps(9, 16) == 0);
	top_model_init(&m);
	top_model_add_host(&m, "a");
	snap_set(&s, 1, S);
	top_snap_put(&s, "pcie.gpu1.rx_Bps", "B/s", TOP_M_VALID, 15753600000ULL, 0);
	top_snap_put(&s, "pcie.gpu1.tx_Bps", "B/s", TOP_M_VALID, 1000, 0);
	top_snap_put(&s, "pcie.gpu1.link_gen", "", TOP_M_VALID, 4, 0);
	top_snap_put(&s, "pcie.gpu1.link_width", "lanes", TOP_M_VALID, 16, 0);
	top_model_update(&m, 0, &s);
	n = top_model_rows(&m, rows, 256);
	r = row(n, "GPU1");
	assert_non_null(r);
	assert_null(find_row(n, "GPU0"));
	assert_int_equal(r->cell[0][0].how, TOP_LINK_SHARE);
	assert_true(fabs(r->cell[0][0].value - 0.5) < 1e-6);
	/* Link unknown: the bandwidth itself. */
	snap_set(&s, 2, 2 * S);
	top_snap_put(&s, "pcie.gpu1.rx_Bps", "B/s", TOP_M_VALID, 5000, 0);
	top_model_update(&m, 0, &s);
	n = top_model_rows(&m, rows, 256);
	r = row(n, "GPU1");
	assert_int_equal(r->cell[0][0].how, TOP_GAUGE);
	assert_true(r->cell[0][0].value == 5000);
	top_snap_free(&s);
	top_model_free(&m);
}


/* One host watching eight GPUs and a NIC that counts PFC on priorities 3 and 5 only (as
 * mlx5 has pause counters only where PFC is on): GPU g moves g+1 GB/s in, the link 1 Gb/s;
 * priority 3 counts frames, 5 reads 0, the others are n/a. */
static void gpus_snap(struct top_snap *s, uint64_t seq, uint64_t pfc3, double rate3)
{
	char name[64];
	int g;

	snap_set(s, seq, seq * S);
	top_snap_put(s, "link.rx_bytes", "B", C, 1000, 125000000.0);
	top_snap_put(s, "pfc.rx.prio3.frames", "frames", C, pfc3, rate3);
	top_snap_put(s, "pfc.rx.prio5.frames", "frames", C, 0, 0);	/* counted, none */
	for (g = 0; g < 8; g++) {
		snprintf(name, sizeof(name), "pcie.gpu%d.rx_Bps", g);
		top_snap_put(s, name, "B/s", TOP_M_VALID, (uint64_t)(g + 1) * 1000000000ULL, 0);
		snprintf(name, sizeof(name), "pcie.gpu%d.tx_Bps", g);
		top_snap_put(s, name, "B/s", TOP_M_VALID, 0, 0);
		snprintf(name, sizeof(name), "pcie.gpu%d.link_gen", g);
		top_snap_put(s, name, "", TOP_M_VALID, 5, 0);
		snprintf(name, sizeof(name), "pcie.gpu%d.link_width", g);
		top_snap_put(s, name, "lanes", TOP_M_VALID, 16, 0);
	}
}

static size_t eight_gpus(struct top_model *m, struct top_snap *s, uint64_t pfc3)
{
	one_host(m, s);
	gpus_snap(s, 1, pfc3, pfc3 ? 100 : 0);
	assert_int_equal(top_model_update(m, 0, s), 1);
	return top_model_rows(m, rows, 256);
}

static void assert_gpu_rows(size_t n)
{
	char label[16];
	int g;

	for (g = 0; g < 8; g++) {
		const struct top_row *r;

		snprintf(label, sizeof(label), "GPU%d", g);
		r = row(n, label);
		assert_int_equal(r->sec, TOP_SEC_PCIE);
		/* g+1 GB/s of a gen 5 x16 link's 63.0 GB/s */
		assert_true(fabs(r->cell[0][0].value - (g + 1) * 1e9 / top_pcie_link_Bps(5, 16)) < 1e-9);
	}
	assert_null(find_row(n, "GPU8"));
}

/* 80x24 leaves 21 lines for the rows: the 8 GPU lines and every fixed row fit once the
 * priorities nothing counts share one line; the counted ones keep their own (one at 0
 * too), and so does the one the user focused. 120x40 (37 lines) holds everything
 * unfolded. */
static void test_rows_eight_gpus_fit(void **state)
{
	struct top_model m;
	struct top_snap s = { 0 };
	const struct top_row *r;
	size_t n, k;
	int p;

	(void)state;
	n = eight_gpus(&m, &s, 500);
	assert_gpu_rows(n);
	assert_true(top_model_lines(rows, n, 0) > 24 - TOP_SCREEN_CHROME);
	k = top_model_fit(rows, n, 0, -1, 24 - TOP_SCREEN_CHROME);
	assert_true(top_model_lines(rows, k, 0) <= 24 - TOP_SCREEN_CHROME);
	assert_gpu_rows(k);
	assert_non_null(find_row(k, "link"));
	assert_non_null(find_row(k, "PAUSE"));
	assert_non_null(find_row(k, "CNP"));
	assert_non_null(find_row(k, "NIC PCIe"));
	r = row(k, "prio3");	/* it moved */
	assert_true(fabs(r->cell[0][0].value - 100) < 1e-9);
	r = row(k, "prio5");	/* read 0: counted, kept */
	assert_int_equal(r->cell[0][0].state, TOP_CELL_OK);
	r = row(k, "prio0-2,4,6-7");
	assert_int_equal(r->prio, -1);
	assert_int_equal(r->sec, TOP_SEC_PFC);
	for (p = 0; p < TOP_CELLS; p++)
		assert_int_equal(r->cell[0][p].state, TOP_CELL_NA);
	for (p = 0; p < 8; p++) {
		char l[24];

		snprintf(l, sizeof(l), "prio%d", p);
		if (p != 3 && p != 5)
			assert_null(find_row(k, l));
	}
	/* in the row order: the fold stands where prio0 stood, before prio3 */
	assert_true(find_row(k, "prio0-2,4,6-7") < find_row(k, "prio3"));

	/* the focused priority keeps its line */
	n = top_model_rows(&m, rows, 256);
	k = top_model_fit(rows, n, 0, 6, 24 - TOP_SCREEN_CHROME);
	assert_true(top_model_lines(rows, k, 0) <= 24 - TOP_SCREEN_CHROME);
	assert_non_null(find_row(k, "prio6"));
	assert_non_null(find_row(k, "prio0-2,4,7"));
	assert_gpu_rows(k);

	/* 120x40: nothing to fold */
	n = top_model_rows(&m, rows, 256);
	k = top_model_fit(rows, n, 0, -1, 40 - TOP_SCREEN_CHROME);
	assert_int_equal(k, n);
	for (p = 0; p < 8; p++) {
		char l[24];

		snprintf(l, sizeof(l), "prio%d", p);
		assert_non_null(find_row(k, l));
	}
	assert_gpu_rows(k);
	top_snap_free(&s);
	top_model_free(&m);
}

/* The fold depends on what is counted, not on the traffic: quiet or busy, the same
 * lines (no line comes and goes as frames arrive); a GPU-only screen (no NIC at all)
 * folds all eight; a screen too short even folded keeps the rows in order, the caller
 * says what is below. */
static void test_rows_fit_keeps_counted(void **state)
{
	struct top_model m;
	struct top_snap s = { 0 };
	char label[8][24];
	size_t n, k, i;

	(void)state;
	n = eight_gpus(&m, &s, 0);	/* quiet */
	k = top_model_fit(rows, n, 0, -1, 24 - TOP_SCREEN_CHROME);
	assert_true(top_model_lines(rows, k, 0) <= 24 - TOP_SCREEN_CHROME);
	for (i = 0; i < 8 && i < k; i++)
		snprintf(label[i], sizeof(label[i]), "%s", rows[i].label);
	gpus_snap(&s, 2, 40, 200);	/* busy */
	assert_int_equal(top_model_update(&m, 0, &s), 1);
	n = top_model_rows(&m, rows, 256);
	assert_int_equal(top_model_fit(rows, n, 0, -1, 24 - TOP_SCREEN_CHROME), k);
	for (i = 0; i < 8 && i < k; i++)
		assert_string_equal(rows[i].label, label[i]);
	assert_non_null(find_row(k, "prio3"));
	assert_non_null(find_row(k, "prio0-2,4,6-7"));
	top_snap_free(&s);
	top_model_free(&m);

	/* GPU-only: nothing counts PFC */
	one_host(&m, &s);
	for (i = 0; i < 8; i++) {
		char name[64];

		snprintf(name, sizeof(name), "pcie.gpu%zu.rx_Bps", i);
		top_snap_put(&s, name, "B/s", TOP_M_VALID, 1000, 0);
	}
	assert_int_equal(top_model_update(&m, 0, &s), 1);
	n = top_model_rows(&m, rows, 256);
	k = top_model_fit(rows, n, 0, -1, 24 - TOP_SCREEN_CHROME);
	assert_non_null(find_row(k, "prio0-7"));
	assert_non_null(find_row(k, "GPU7"));
	assert_true(top_model_lines(rows, k, 0) <= 24 - TOP_SCREEN_CHROME);
	top_snap_free(&s);
	top_model_free(&m);

	eight_gpus(&m, &s, 0);
	/* 10 lines: as many rows as fit, none reordered */
	n = top_model_rows(&m, rows, 256);
	k = top_model_fit(rows, n, 0, -1, 10);
	assert_true(top_model_lines(rows, k, 0) > 10);
	assert_true(find_row(k, "link") < find_row(k, "GPU0"));
	top_snap_free(&s);
	top_model_free(&m);
}

static void test_fmt(void **state)
{
	static const struct {
		double v;
		const char *s;
	} cases[] = {
		{ 0, "0" }, { 7, "7" }, { 0.5, "0.50" }, { 999, "999" }, { 1000, "1.00k" },
		{ 12345, "12.3k" }, { 123456, "123k" }, { 999999, "1.00M" },
		{ 24.5e9, "24.5G" }, { NAN, "-" },
	};
	char buf[16];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		top_fmt_num(cases[i].v, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].s);
	}
}

static void test_keys(void **state)
{
	struct top_ui u;

	(void)state;
	top_ui_init(&u, 1000000000ULL, 3, 6, false);
	assert_int_equal(top_keys_apply(&u, '+'), TOP_ACT_DRAW);
	assert_int_equal(u.refresh_ns, 500000000ULL);
	top_keys_apply(&u, '-');
	top_keys_apply(&u, '-');
	assert_int_equal(u.refresh_ns, 2000000000ULL);
	for (int i = 0; i < 20; i++)
		top_keys_apply(&u, '+');
	assert_int_equal(u.refresh_ns, TOP_REFRESH_MIN_NS);
	assert_int_equal(top_keys_apply(&u, ' '), TOP_ACT_FREEZE);
	assert_true(u.frozen);
	assert_int_equal(top_keys_apply(&u, '3'), TOP_ACT_DRAW);
	assert_int_equal(u.focus, 3);
	top_keys_apply(&u, '3');
	assert_int_equal(u.focus, -1);
	assert_int_equal(top_keys_apply(&u, '8'), TOP_ACT_NONE);
	top_keys_apply(&u, '\t');
	top_keys_apply(&u, '\t');
	top_keys_apply(&u, '\t');
	assert_int_equal(u.host, 0);
	top_keys_apply(&u, KEY_LEFT);
	assert_int_equal(u.host, 2);
	top_keys_apply(&u, KEY_UP);
	assert_int_equal(u.panel, 0);
	top_keys_apply(&u, KEY_DOWN);
	assert_int_equal(u.panel, 1);
	assert_int_equal(top_keys_apply(&u, 'z'), TOP_ACT_BASELINE);
	assert_int_equal(top_keys_apply(&u, 'r'), TOP_ACT_RECORD);
	top_keys_apply(&u, '?');
	assert_true(u.help);
	assert_int_equal(top_keys_apply(&u, 'z'), TOP_ACT_DRAW);	/* closes help only */
	assert_false(u.help);
	assert_int_equal(top_keys_apply(&u, ']'), TOP_ACT_NONE);	/* live: no seek */
	assert_int_equal(top_keys_apply(&u, 'q'), TOP_ACT_QUIT);
	top_ui_init(&u, 1000000000ULL, 1, 6, true);
	top_keys_apply(&u, ' ');
	assert_true(u.paused);
	assert_false(u.frozen);
	top_keys_apply(&u, '>');
	assert_true(u.speed == 2.0);
	top_keys_apply(&u, ']');
	top_keys_apply(&u, '{');
	assert_true(u.seek_ns == -50000000000LL);
	assert_int_equal(top_keys_apply(&u, 'r'), TOP_ACT_NONE);
}

/* A host's missed intervals: each sample line says how many came just before it; the
 * feed sums them. One line that does not say makes the sum unknown from then on (shown
 * as nothing, recorded as n/a), never a count that leaves some out.
 */
static void test_remote_missed(void **state)
{
	static const char *const lines[] = {
		"{\"seq\":1,\"overruns\":0,\"values\":{}}",
		"{\"seq\":2,\"overruns\":3,\"values\":{}}",
		"{\"event\":\"gap_begin\",\"seq\":2,\"overruns\":9}",	/* events: no */
		"{\"seq\":3,\"overruns\":2,\"values\":{}}",
		"{\"seq\":4,\"overruns\":\"1\",\"values\":{}}",	/* not a number */
		"{\"seq\":5,\"overruns\":1,\"values\":{}}",
	};
	static const struct { uint64_t overruns, missed; bool has; } want[] = {
		{ 0, 0, true }, { 3, 3, true }, { 3, 3, true }, { 2, 5, true }, { 0, 5, false },
		{ 1, 6, false },
	};
	struct top_snap s = { 0 };
	char msg[64];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		assert_true(top_remote_parse_line(lines[i], strlen(lines[i]), &s, msg,
						  sizeof(msg)) >= 0);
		assert_int_equal(s.overruns, want[i].overruns);
		assert_int_equal(s.missed, want[i].missed);
		assert_int_equal(s.has_missed, want[i].has);
	}
	top_snap_free(&s);
}

static void test_remote_parse(void **state)
{
	static const char ok[] =
		"{\"seq\":7,\"mono_ns\":100,\"wall_ns\":200,\"dt_ns\":1,\"overruns\":0,\"gaps\":[],"
		"\"values\":{\"link.rx_bytes\":{\"value\":1000,\"delta\":10,\"rate\":50.5,"
		"\"unit\":\"B\"},\"pfc.rx.prio3.frames\":{\"value\":null,\"delta\":null,"
		"\"rate\":null,\"unit\":\"frames\"},\"pcie.gpu0.rx_Bps\":{\"value\":42,"
		"\"unit\":\"B/s\"},\"bad\":[1,2],\"x.y\":{\"value\":\"12\",\"rate\":\"3\"}}}";
	static const char ev[] = "{\"event\":\"gap_begin\",\"seq\":3,\"message\":\"link on "
				 "eth0: no data\"}";
	static const char *const bad[] = {
		"", "{", "[]", "{\"seq\":1}", "{\"seq\":\"1\",\"values\":{}}",
		"{\"seq\":1,\"values\":[]}", "{\"seq\":1,\"values\":{}} trailing",
		"{\"seq\":1,\"values\":{\"a\":{\"value\":1}}",
	};
	struct top_snap s = { 0 };
	const struct top_metric *m;
	char msg[64] = "";
	size_t i;

	(void)state;
	assert_int_equal(top_remote_parse_line(ok, strlen(ok), &s, msg, sizeof(msg)), 1);
	assert_int_equal(s.seq, 7);
	assert_int_equal(s.src_ns, 100);
	assert_int_equal(s.wall_ns, 200);
	m = top_snap_get(&s, "link.rx_bytes");
	assert_non_null(m);
	assert_int_equal(m->flags, TOP_M_VALID | TOP_M_RATE | TOP_M_COUNTER);
	assert_int_equal(m->raw, 1000);
	assert_true(m->rate == 50.5);
	assert_string_equal(m->unit, "B");
	m = top_snap_get(&s, "pfc.rx.prio3.frames");
	assert_non_null(m);
	assert_int_equal(m->flags, TOP_M_COUNTER);	/* null: n/a, not 0 */
	m = top_snap_get(&s, "pcie.gpu0.rx_Bps");
	assert_int_equal(m->flags, TOP_M_VALID);	/* a gauge */
	assert_null(top_snap_get(&s, "bad"));
	m = top_snap_get(&s, "x.y");		/* strings are not numbers */
	assert_int_equal(m->flags, TOP_M_COUNTER);
	assert_int_equal(top_remote_parse_line(ev, strlen(ev), &s, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "link on eth0: no data");
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(top_remote_parse_line(bad[i], strlen(bad[i]), &s, msg,
						       sizeof(msg)), -EINVAL);
	/* A line cut short is rejected too. */
	assert_int_equal(top_remote_parse_line(ok, strlen(ok) - 3, &s, msg, sizeof(msg)),
			 -EINVAL);
	/* Only line[0 .. len) is read: a line with no NUL after it (ASan sees a read past
	 * the copy), blanks after the object, and a NUL inside the length. */
	{
		static const char nul[] = "{\"seq\":1,\"values\":{}}\0x";
		size_t n = strlen(ev);
		char *cp = malloc(n + 3);

		assert_non_null(cp);
		memcpy(cp, ev, n);
		assert_int_equal(top_remote_parse_line(cp, n, &s, msg, sizeof(msg)), 0);
		memcpy(cp + n, " \r", 2);
		assert_int_equal(top_remote_parse_line(cp, n + 2, &s, msg, sizeof(msg)), 0);
		cp[n + 2] = 'x';
		assert_int_equal(top_remote_parse_line(cp, n + 3, &s, msg, sizeof(msg)), -EINVAL);
		free(cp);
		assert_int_equal(top_remote_parse_line(nul, sizeof(nul) - 1, &s, msg, sizeof(msg)),
				 -EINVAL);
	}
	top_snap_free(&s);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_replay(void **state)
{
	char dir[] = "/tmp/pfclab-top-replay-XXXXXX", p[256], err[256];
	struct top_replay *r = NULL;
	struct top_snap s = { 0 };
	const struct top_metric *m;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/meta.json", dir);
	write_file(p, "{\"format\":\"pfclab-monitor-1\",\"interval_ns\":1000000000,\"columns\":["
		      "{\"name\":\"capture.pfc.prio3.frames\",\"metric\":\"capture.pfc.prio3.frames\","
		      "\"unit\":\"frames\",\"kind\":\"counter\",\"bits\":64},"
		      "{\"name\":\"rdma:x:out_of_buffer\",\"metric\":\"discard.rdma_rx_buffer\","
		      "\"unit\":\"packets\",\"kind\":\"counter\",\"bits\":32},"
		      "{\"name\":\"raw:only\",\"metric\":null,\"unit\":\"\",\"kind\":\"gauge\"}]}");
	snprintf(p, sizeof(p), "%s/samples.csv", dir);
	write_file(p, "seq,mono_ns,wall_ns,dt_ns,overruns,gaps,capture.pfc.prio3.frames,"
		      "rdma:x:out_of_buffer,raw:only\n"
		      "1,1000000000,5000000000,0,0,,10,4294967290,1\n"
		      "2,2000000000,6000000000,1000000000,0,,30,6,1\n"
		      "3,2500000000,6500000000,500000000,0,\"link:a;b\",n/a,n/a,1\n"
		      "4,3000000000,7000000000,500000000,0,,40,7");	/* cut by a kill */
	assert_int_equal(top_replay_open(dir, &r, err, sizeof(err)), 0);
	assert_int_equal(top_replay_nrec(r), 1);
	assert_int_equal(top_replay_length(r), 1500000000ULL);
	assert_int_equal(top_replay_at(r, 0, 0, &s), 0);
	assert_int_equal(s.seq, 1);
	m = top_snap_get(&s, "capture.pfc.prio3.frames");
	assert_int_equal(m->flags, TOP_M_VALID | TOP_M_COUNTER);
	assert_int_equal(m->raw, 10);
	assert_null(top_snap_get(&s, "raw:only"));
	top_replay_at(r, 0, 1200000000ULL, &s);	/* between rows: the earlier one */
	assert_int_equal(s.seq, 2);
	m = top_snap_get(&s, "capture.pfc.prio3.frames");
	assert_int_equal(m->flags, TOP_M_VALID | TOP_M_COUNTER | TOP_M_RATE);
	assert_true(m->rate == 20.0);
	m = top_snap_get(&s, "discard.rdma_rx_buffer");	/* 32-bit wrap: 12 */
	assert_true(m->rate == 12.0);
	top_replay_at(r, 0, 9 * S, &s);	/* past the end: the last complete row */
	assert_int_equal(s.seq, 3);
	m = top_snap_get(&s, "capture.pfc.prio3.frames");
	assert_int_equal(m->flags, TOP_M_COUNTER);	/* n/a */
	top_replay_free(r);
	r = NULL;
	snprintf(p, sizeof(p), "%s/samples.csv", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/meta.json", dir);
	write_file(p, "{\"columns\":7}");
	assert_int_equal(top_replay_open(dir, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "columns"));
	assert_null(r);		/* freed by the failed open (ASan: nothing leaks) */
	unlink(p);
	rmdir(dir);
	assert_int_equal(top_replay_open(dir, &r, err, sizeof(err)), -ENOENT);
	assert_null(r);
	top_snap_free(&s);
}

/* Two records, b starting 1.5 s after a: while b has not started, its cells are n/a with
 * no total; a jump past its start (G, ], --start) shows the totals of its record from its
 * first sample, never 0 for what it counted; from its first sample they are 0.
 */
static void test_replay_late_host(void **state)
{
	static const char meta[] = "{\"interval_ns\":500000000,\"columns\":["
		"{\"name\":\"link.rx_bytes\",\"metric\":\"link.rx_bytes\",\"unit\":\"B\","
		"\"kind\":\"counter\"},{\"name\":\"capture.pfc.prio3.frames\",\"metric\":"
		"\"capture.pfc.prio3.frames\",\"unit\":\"frames\",\"kind\":\"counter\"}]}";
	char dir[] = "/tmp/pfclab-top-late-XXXXXX", p[256], cmd[300], err[256];
	struct top_snap tmp = { 0 }, first = { 0 };
	struct top_replay *r = NULL;
	struct top_model m;
	const struct top_row *row3;
	size_t i, n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%c", dir, "ab"[i]);
		assert_int_equal(mkdir(p, 0755), 0);
		snprintf(p, sizeof(p), "%s/%c/meta.json", dir, "ab"[i]);
		write_file(p, meta);
		snprintf(p, sizeof(p), "%s/%c/samples.csv", dir, "ab"[i]);
		write_file(p, i == 0 ?
			   "seq,mono_ns,wall_ns,dt_ns,overruns,gaps,link.rx_bytes,"
			   "capture.pfc.prio3.frames\n"
			   "1,1000000000,5000000000,0,0,,100,0\n"
			   "2,1500000000,5500000000,0,0,,200,10\n"
			   "3,2000000000,6000000000,0,0,,300,20\n"
			   "4,2500000000,6500000000,0,0,,400,30\n"
			   "5,3000000000,7000000000,0,0,,500,40\n" :
			   "seq,mono_ns,wall_ns,dt_ns,overruns,gaps,link.rx_bytes,"
			   "capture.pfc.prio3.frames\n"
			   "1,9000000000,6500000000,0,0,,1000,5\n"
			   "2,9250000000,6750000000,0,0,,1100,55\n"
			   "3,9500000000,7000000000,0,0,,1300,125\n");
	}
	assert_int_equal(top_replay_open(dir, &r, err, sizeof(err)), 0);
	assert_int_equal(top_replay_nrec(r), 2);
	top_model_init(&m);
	top_model_add_host(&m, "a");
	top_model_add_host(&m, "b");
	for (i = 0; i < 2; i++)	/* the start: a's first sample, b not yet */
		assert_int_equal(top_replay_feed(r, i, 0, 1 * S, &m, &tmp, &first), 1 - (int)i);
	n = top_model_rows(&m, rows, 256);
	row3 = row(n, "prio3");
	assert_int_equal(row3->cell[0][3].state, TOP_CELL_OK);
	assert_int_equal(row3->cell[0][3].total, 0);	/* a: its first sample */
	assert_int_equal(row3->cell[1][3].state, TOP_CELL_NA);	/* b: nothing yet */
	assert_false(row3->cell[1][3].has_total);
	assert_false(row(n, "link")->cell[1][0].has_total);
	for (i = 0; i < 2; i++)	/* G: to the end */
		assert_int_equal(top_replay_feed(r, i, top_replay_length(r), 2 * S, &m, &tmp,
						 &first), 1);
	n = top_model_rows(&m, rows, 256);
	row3 = row(n, "prio3");
	assert_int_equal(row3->cell[0][3].total, 40);
	assert_int_equal(row3->cell[1][3].total, 120);	/* b: its record's, not 0 */
	assert_true(fabs(row3->cell[1][3].value - 280) < 1e-9);
	assert_int_equal(row(n, "link")->cell[1][0].total, 300);
	top_model_free(&m);
	/* b played from its first sample: totals 0 there */
	top_model_init(&m);
	top_model_add_host(&m, "a");
	top_model_add_host(&m, "b");
	assert_int_equal(top_replay_feed(r, 1, 1500000000ULL, 1 * S, &m, &tmp, &first), 1);
	n = top_model_rows(&m, rows, 256);
	assert_int_equal(row(n, "prio3")->cell[1][3].total, 0);
	assert_int_equal(top_replay_feed(r, 1, 1750000000ULL, 2 * S, &m, &tmp, &first), 1);
	n = top_model_rows(&m, rows, 256);
	assert_int_equal(row(n, "prio3")->cell[1][3].total, 50);
	/* a baseline from z stays where it was put */
	top_model_baseline(&m);
	assert_int_equal(top_replay_feed(r, 1, 2 * S, 3 * S, &m, &tmp, &first), 1);
	n = top_model_rows(&m, rows, 256);
	assert_int_equal(row(n, "prio3")->cell[1][3].total, 70);
	top_model_free(&m);
	top_replay_free(r);
	top_snap_free(&tmp);
	top_snap_free(&first);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A results folder's point: the runner captures apart from the monitor, so a record
 * without frame counters gets the counts of the capture.json beside it, as whole-run totals
 * with no rate (n/a, the total marked); a record with its own frame counters keeps them,
 * and a capture.json that does not parse adds nothing.
 */
static void test_replay_capture_json(void **state)
{
	static const char meta[] = "{\"interval_ns\":100000000,\"columns\":[{\"name\":"
		"\"%s\",\"metric\":\"%s\",\"unit\":\"frames\",\"kind\":\"counter\"}]}";
	char dir[] = "/tmp/pfclab-top-cap-XXXXXX", p[256], txt[512], err[256], cmd[300];
	const char *host[] = { "a", "b", "c" };
	struct top_replay *r = NULL;
	struct top_snap s = { 0 };
	struct top_model m;
	const struct top_metric *x;
	const struct top_row *row3, *cnp;
	size_t i, n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (i = 0; i < 3; i++) {
		/* a and c: no frame counters; b: recorded with --frames */
		const char *col = i == 1 ? "capture.cnp.frames" : "rdma.rx.packets";

		snprintf(cmd, sizeof(cmd), "mkdir -p %s/points/p000/rep0/%s/monitor", dir, host[i]);
		assert_int_equal(system(cmd), 0);
		snprintf(p, sizeof(p), "%s/points/p000/rep0/%s/monitor/meta.json", dir, host[i]);
		snprintf(txt, sizeof(txt), meta, col, col);
		write_file(p, txt);
		snprintf(p, sizeof(p), "%s/points/p000/rep0/%s/monitor/samples.csv", dir, host[i]);
		snprintf(txt, sizeof(txt), "seq,mono_ns,wall_ns,dt_ns,overruns,gaps,%s\n"
			 "1,1000000000,5000000000,0,0,,5\n2,1100000000,5100000000,100000000,0,,7\n",
			 col);
		write_file(p, txt);
		snprintf(p, sizeof(p), "%s/points/p000/rep0/%s/capture.json", dir, host[i]);
		write_file(p, i == 2 ? "{\"kinds\":" :
			   "{\"frames\":4376,\"kinds\":{\"pause\":0,\"pfc\":1610,\"cnp\":1277,"
			   "\"roce\":2392,\"roce_ce\":2392},"
			   "\"pfc_frames_per_priority\":[0,0,0,1610,0,0,0,0]}");
	}
	assert_int_equal(top_replay_open(dir, &r, err, sizeof(err)), 0);
	assert_int_equal(top_replay_nrec(r), 3);
	assert_string_equal(top_replay_name(r, 0), "points/p000/rep0/a");
	assert_int_equal(top_replay_at(r, 0, 0, &s), 0);
	x = top_snap_get(&s, "capture.pfc.prio3.frames");
	assert_non_null(x);
	assert_int_equal(x->flags, TOP_M_COUNTER | TOP_M_ELSEWHERE);
	assert_int_equal(x->raw, 1610);
	assert_int_equal(top_snap_get(&s, "capture.cnp.frames")->raw, 1277);
	assert_int_equal(top_snap_get(&s, "capture.roce.ce_frames")->raw, 2392);
	assert_int_equal(top_snap_get(&s, "capture.pause.frames")->raw, 0);
	assert_non_null(strstr(s.status, "capture.json"));
	/* on the screen: no rate (n/a), the whole capture as the total */
	top_model_init(&m);
	top_model_add_host(&m, "a");
	s.got_ns = 1 * S;
	assert_int_equal(top_model_update(&m, 0, &s), 1);
	n = top_model_rows(&m, rows, 256);
	row3 = row(n, "prio3");
	cnp = row(n, "CNP");
	assert_int_equal(row3->cell[0][0].state, TOP_CELL_NA);
	assert_int_equal(row3->cell[0][3].state, TOP_CELL_ELSEWHERE);
	assert_true(row3->cell[0][3].has_total);
	assert_int_equal(row3->cell[0][3].total, 1610);
	assert_int_equal(cnp->cell[0][3].state, TOP_CELL_ELSEWHERE);
	assert_int_equal(cnp->cell[0][3].total, 1277);
	assert_null(row3->hist[0]);	/* no time line, no sparkline */
	top_model_free(&m);
	/* b: its own counters, on its time line; c: a broken capture.json adds nothing */
	assert_int_equal(top_replay_at(r, 1, 100000000ULL, &s), 0);
	x = top_snap_get(&s, "capture.cnp.frames");
	assert_int_equal(x->flags, TOP_M_VALID | TOP_M_COUNTER | TOP_M_RATE);
	assert_int_equal(x->raw, 7);
	assert_null(top_snap_get(&s, "capture.pfc.prio3.frames"));
	assert_null(strstr(s.status, "capture.json"));
	assert_int_equal(top_replay_at(r, 2, 0, &s), 0);
	assert_null(top_snap_get(&s, "capture.cnp.frames"));
	assert_non_null(top_snap_get(&s, "rdma.rx.packets"));
	top_replay_free(r);
	top_snap_free(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A point's host folder DIR/points/p000/rep0/a as 'pfclab run' leaves it: a record
 * without frame counters, samples at 5.000, 5.105, 5.200 and 5.305 s on the wall clock,
 * and capture.json (cj: its text, NULL for none).
 */
static void point_make(const char *dir, const char *cj)
{
	char p[256], cmd[300];

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/points/p000/rep0/a/monitor", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(p, sizeof(p), "%s/points/p000/rep0/a/monitor/meta.json", dir);
	write_file(p, "{\"interval_ns\":100000000,\"columns\":[{\"name\":\"rdma.rx.packets\","
		   "\"metric\":\"rdma.rx.packets\",\"unit\":\"packets\",\"kind\":\"counter\"}]}");
	snprintf(p, sizeof(p), "%s/points/p000/rep0/a/monitor/samples.csv", dir);
	write_file(p, "seq,mono_ns,wall_ns,dt_ns,overruns,gaps,rdma.rx.packets\n"
		   "1,1000000000,5000000000,0,0,,5\n2,1105000000,5105000000,0,0,,7\n"
		   "3,1200000000,5200000000,0,0,,9\n4,1305000000,5305000000,0,0,,9\n");
	snprintf(p, sizeof(p), "%s/points/p000/rep0/a/capture.json", dir);
	if (cj)
		write_file(p, cj);
	else
		unlink(p);
}

/* review-timeline.csv beside it: 30 bins of 10 ms from t0 (5.000 s to 5.300 s), each
 * with 2 PFC frames on priority 3 and 5 ms of its pause, 1 CNP and 3 CE-marked RoCEv2
 * packets; prio: with the pfc_prioN columns; speed: paused times known (else empty);
 * line bad (1: the header) replaced by text.
 */
static void tl_make(const char *dir, uint64_t t0, bool prio, bool speed, int bad,
		    const char *text)
{
	char p[256];
	FILE *f;
	int i, q;

	snprintf(p, sizeof(p), "%s/points/p000/rep0/a/review-timeline.csv", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	if (bad == 1) {
		fprintf(f, "%s\n", text);
	} else {
		fputs("time_s,frames,pause,pfc,cnp,roce,roce_ce,other,truncated,invalid", f);
		for (q = 0; q < 8; q++)
			fprintf(f, ",paused_ns_prio%d", q);
		fputs(",paused_ns_pause", f);
		for (q = 0; prio && q < 8; q++)
			fprintf(f, ",pfc_prio%d", q);
		fputc('\n', f);
	}
	for (i = 0; i < 30; i++) {
		uint64_t t = t0 + (uint64_t)i * 10000000;

		if (i + 2 == bad) {
			fprintf(f, "%s\n", text);
			continue;
		}
		fprintf(f, "%llu.%09llu,6,0,2,1,3,3,0,0,0", (unsigned long long)(t / S),
			(unsigned long long)(t % S));
		for (q = 0; q < 9; q++)
			fprintf(f, speed ? ",%d" : ",", q == 3 ? 5000000 : 0);
		for (q = 0; prio && q < 8; q++)
			fprintf(f, ",%d", q == 3 ? 2 : 0);
		fputc('\n', f);
	}
	fclose(f);
}

static const char *cap_json =
	"{\"kinds\":{\"pause\":0,\"pfc\":60,\"cnp\":30,\"roce\":90,\"roce_ce\":90},"
	"\"pfc_frames_per_priority\":[0,0,0,60,0,0,0,0]}";

#define B (TOP_M_VALID | TOP_M_COUNTER | TOP_M_BESIDE)

/* The screen of host a at sample k of the point in dir (model m, rows filled). */
static size_t point_rows(const char *dir, size_t k, struct top_model *m, struct top_snap *s)
{
	static const uint64_t at[] = { 0, 105000000, 200000000, 305000000 };
	char err[256];
	struct top_replay *r = NULL;

	assert_int_equal(top_replay_open(dir, &r, err, sizeof(err)), 0);
	assert_int_equal(top_replay_nrec(r), 1);
	top_model_init(m);
	top_model_add_host(m, "a");
	assert_int_equal(top_replay_at(r, 0, at[k < 4 ? k : 3], s), 0);
	s->got_ns = 1 * S;
	assert_int_equal(top_model_update(m, 0, s), 1);
	top_replay_free(r);
	return top_model_rows(m, rows, 256);
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6 * (fabs(b) > 1 ? fabs(b) : 1);
}

/* A point with the capture's timeline beside its record: seen/s and the paused share
 * of the capture on the record's time line (bins spread evenly over their 10 ms, summed
 * to each sample's wall clock), marked as the capture's; capture.json's totals give way.
 */
static void test_replay_timeline(void **state)
{
	char dir[] = "/tmp/pfclab-top-tl-XXXXXX", cmd[300];
	struct top_snap s = { 0 };
	struct top_model m;
	const struct top_metric *x;
	const struct top_row *r;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	point_make(dir, cap_json);
	tl_make(dir, 5 * S, true, true, 0, NULL);
	/* sample 1 at 5.105 s: 10 bins and a half */
	n = point_rows(dir, 1, &m, &s);
	x = top_snap_get(&s, "capture.pfc.prio3.frames");
	assert_non_null(x);
	assert_int_equal(x->flags, B | TOP_M_RATE);
	assert_int_equal(x->raw, 21);
	assert_true(near(x->rate, 200));
	x = top_snap_get(&s, "capture.pfc.prio3.paused_us");
	assert_int_equal(x->raw, 52500);
	assert_true(near(x->rate, 500000));
	assert_true(near(top_snap_get(&s, "capture.cnp.frames")->rate, 100));
	assert_true(near(top_snap_get(&s, "capture.roce.ce_frames")->rate, 300));
	assert_int_equal(top_snap_get(&s, "capture.pfc.prio5.frames")->raw, 0);
	assert_non_null(strstr(s.status, "*: the capture's, from review-timeline.csv (10ms bins)"));
	assert_null(strstr(s.status, "capture.json"));	/* every total from the timeline */
	assert_string_equal(s.note, "");
	r = row(n, "prio3");
	assert_int_equal(r->cell[0][2].state, TOP_CELL_OK);	/* paused */
	assert_true(r->cell[0][2].capture);
	assert_true(near(r->cell[0][2].value, 0.5));
	assert_int_equal(r->cell[0][3].state, TOP_CELL_OK);	/* seen/s */
	assert_true(r->cell[0][3].capture);
	assert_true(near(r->cell[0][3].value, 200));
	assert_int_equal(r->cell[0][0].state, TOP_CELL_NA);	/* the NIC's: none */
	r = row(n, "CNP");
	assert_true(r->cell[0][3].capture && near(r->cell[0][3].value, 100));
	r = row(n, "ECN marked");
	assert_true(r->cell[0][3].capture && near(r->cell[0][3].value, 300));
	r = row(n, "link");
	assert_false(r->cell[0][0].capture);
	top_model_free(&m);
	/* sample 3 at 5.305 s, after the last bin: every frame, no more since 5.3 s */
	point_rows(dir, 3, &m, &s);
	x = top_snap_get(&s, "capture.pfc.prio3.frames");
	assert_int_equal(x->raw, 60);
	assert_true(near(x->rate, 20 / 0.105));
	assert_int_equal(top_snap_get(&s, "capture.cnp.frames")->raw, 30);
	top_model_free(&m);
	/* sample 0: the first, no rate yet */
	point_rows(dir, 0, &m, &s);
	assert_int_equal(top_snap_get(&s, "capture.pfc.prio3.frames")->flags, B);
	top_model_free(&m);
	/* no link speed: the paused times are not known, the counts are */
	tl_make(dir, 5 * S, true, false, 0, NULL);
	n = point_rows(dir, 2, &m, &s);
	assert_null(top_snap_get(&s, "capture.pfc.prio3.paused_us"));
	assert_int_equal(row(n, "prio3")->cell[0][2].state, TOP_CELL_NA);
	assert_true(near(top_snap_get(&s, "capture.pfc.prio3.frames")->rate, 200));
	top_model_free(&m);
	top_snap_free(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A timeline from before its pfc_prioN columns: PFC per priority from its pfc column
 * where capture.json counted every PFC frame on one priority (the same total), else
 * capture.json's whole-capture totals as without a timeline.
 */
static void test_replay_timeline_old(void **state)
{
	char dir[] = "/tmp/pfclab-top-tlo-XXXXXX", cmd[300];
	struct top_snap s = { 0 };
	struct top_model m;
	const struct top_metric *x;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	point_make(dir, cap_json);
	tl_make(dir, 5 * S, false, true, 0, NULL);
	n = point_rows(dir, 2, &m, &s);
	x = top_snap_get(&s, "capture.pfc.prio3.frames");
	assert_int_equal(x->flags, B | TOP_M_RATE);
	assert_int_equal(x->raw, 40);
	assert_true(near(x->rate, 200));
	x = top_snap_get(&s, "capture.pfc.prio0.frames");	/* none on 0 */
	assert_int_equal(x->flags, B | TOP_M_RATE);
	assert_int_equal(x->raw, 0);
	assert_non_null(strstr(s.status, "all its PFC on prio 3, as capture.json counts"));
	assert_true(row(n, "prio3")->cell[0][3].capture);
	top_model_free(&m);
	/* capture.json counted 61: the files disagree, per priority from capture.json */
	point_make(dir, "{\"kinds\":{\"pause\":0,\"pfc\":61,\"cnp\":30,\"roce_ce\":90},"
		   "\"pfc_frames_per_priority\":[0,0,0,61,0,0,0,0]}");
	n = point_rows(dir, 2, &m, &s);
	x = top_snap_get(&s, "capture.pfc.prio3.frames");
	assert_int_equal(x->flags, TOP_M_COUNTER | TOP_M_ELSEWHERE);
	assert_int_equal(x->raw, 61);
	assert_int_equal(row(n, "prio3")->cell[0][3].state, TOP_CELL_ELSEWHERE);
	assert_true(row(n, "prio3")->cell[0][2].capture);	/* paused: the timeline's */
	assert_int_equal(top_snap_get(&s, "capture.cnp.frames")->flags, B | TOP_M_RATE);
	assert_non_null(strstr(s.status, "total* of an n/a rate: the whole capture, from capture.json"));
	top_model_free(&m);
	top_snap_free(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A timeline that cannot be used is left out whole, with a note naming the file and the
 * line: the point replays as without it (capture.json's totals, rates n/a).
 */
static void test_replay_timeline_bad(void **state)
{
	static const struct {
		int line;
		const char *text, *want;
	} bad[] = {
		{ 7, "1,2,3", "review-timeline.csv line 7: 3 fields where the header has 27" },
		{ 7, "5.050000000,6,0,2,x,3,3,0,0,0,0,0,0,5000000,0,0,0,0,0,0,0,0,2,0,0,0,0",
		  "review-timeline.csv line 7: cnp 'x' is not a count" },
		{ 7, "5.050000000,6,0,,1,3,3,0,0,0,0,0,0,5000000,0,0,0,0,0,0,0,0,2,0,0,0,0",
		  "review-timeline.csv line 7: pfc is empty" },
		{ 7, "5.050000000,6,0,2,1,3,3,0,0,0,0,0,0,5000000,0,0,0,0,0,0,0,0,99999999999999999999,0,0,0,0",
		  "review-timeline.csv line 7: pfc_prio3 '99999999999999999999' is not a count" },
		{ 7, "5.070000000,6,0,2,1,3,3,0,0,0,0,0,0,5000000,0,0,0,0,0,0,0,0,2,0,0,0,0",
		  "review-timeline.csv line 7: time_s 5.070000000 is not one bin (10ms) after "
		  "the row before" },
		{ 3, "5.000000000,6,0,2,1,3,3,0,0,0,0,0,0,5000000,0,0,0,0,0,0,0,0,2,0,0,0,0",
		  "review-timeline.csv line 3: time_s does not step forward" },
		{ 5, "5.03e0,6,0,2,1,3,3,0,0,0,0,0,0,5000000,0,0,0,0,0,0,0,0,2,0,0,0,0",
		  "review-timeline.csv line 5: time_s '5.03e0' is not seconds.nanoseconds" },
		{ 1, "time_s,frames,pfc", "review-timeline.csv line 1: no column 'pause' in the "
		  "header: not a timeline of pfclab review" },
		{ 1, "", "review-timeline.csv line 1: no column 'time_s'" },
	};
	char dir[] = "/tmp/pfclab-top-tlb-XXXXXX", cmd[300], p[256];
	struct top_snap s = { 0 };
	struct top_model m;
	size_t i, n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	point_make(dir, cap_json);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		tl_make(dir, 5 * S, true, true, bad[i].line, bad[i].text);
		n = point_rows(dir, 2, &m, &s);
		if (!strstr(s.note, bad[i].want))
			fail_msg("case %zu: note '%s', want '%s'", i, s.note, bad[i].want);
		assert_non_null(strstr(s.note, "; the capture's timeline is not used"));
		/* the file as the host is shown, under the folder given */
		assert_true(!strncmp(s.note, "points/p000/rep0/a/review-timeline.csv ", 39));
		assert_int_equal(top_snap_get(&s, "capture.pfc.prio3.frames")->flags,
				 TOP_M_COUNTER | TOP_M_ELSEWHERE);
		assert_null(top_snap_get(&s, "capture.pfc.prio3.paused_us"));
		assert_int_equal(row(n, "CNP")->cell[0][3].state, TOP_CELL_ELSEWHERE);
		assert_non_null(strstr(s.status, "total*: the whole capture, from capture.json"));
		top_model_free(&m);
	}
	/* bins 95 s from the record (another run's) */
	tl_make(dir, 100 * S, true, true, 0, NULL);
	point_rows(dir, 2, &m, &s);
	assert_non_null(strstr(s.note, "review-timeline.csv: its bins and the record's samples "
				       "are 94.695s apart"));
	top_model_free(&m);
	/* a line over the bound, a NUL byte, a folder in the file's place */
	snprintf(p, sizeof(p), "%s/points/p000/rep0/a/review-timeline.csv", dir);
	{
		FILE *f = fopen(p, "w");

		assert_non_null(f);
		fputs("time_s,frames,pause,pfc,cnp,roce,roce_ce,other,truncated,invalid,"
		      "paused_ns_prio0,paused_ns_prio1,paused_ns_prio2,paused_ns_prio3,"
		      "paused_ns_prio4,paused_ns_prio5,paused_ns_prio6,paused_ns_prio7,"
		      "paused_ns_pause\n5.000000000", f);
		for (i = 0; i < 3000; i++)
			fputc('0', f);
		fputs("\n", f);
		fclose(f);
	}
	point_rows(dir, 2, &m, &s);
	assert_non_null(strstr(s.note, "line 2: longer than 2048 bytes"));
	top_model_free(&m);
	{
		FILE *f = fopen(p, "w");

		assert_non_null(f);
		fwrite("time_s\0,frames\n", 1, 15, f);
		fclose(f);
	}
	point_rows(dir, 2, &m, &s);
	assert_non_null(strstr(s.note, "line 1: a NUL byte in the line"));
	top_model_free(&m);
	unlink(p);
	assert_int_equal(mkdir(p, 0755), 0);
	point_rows(dir, 2, &m, &s);
	assert_non_null(strstr(s.note, "review-timeline.csv: not a regular file"));
	top_model_free(&m);
	/* no file: no note, as before */
	rmdir(p);
	point_rows(dir, 2, &m, &s);
	assert_string_equal(s.note, "");
	top_model_free(&m);
	top_snap_free(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* What top records from a remote host, replay reads back (a metric that appears later
 * starts a second CSV segment).
 */
static void test_rec_roundtrip(void **state)
{
	char dir[] = "/tmp/pfclab-top-rec-XXXXXX", sub[128], err[256], cmd[300];
	struct top_snap s = { 0 }, o = { 0 };
	struct top_replay *rp = NULL;
	struct top_rec *r = NULL;
	const struct top_metric *m;
	uint64_t k;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/h1", dir);
	assert_int_equal(top_rec_open(sub, "h1", &r, err, sizeof(err)), 0);
	for (k = 1; k <= 3; k++) {
		snap_set(&s, k, k * S);
		s.src_ns = k * S;
		s.wall_ns = 100 * S + k * S;
		top_snap_put(&s, "pfc.rx.prio3.frames", "frames", C, 10 * k, 10);
		top_snap_put(&s, "pfc.tx.prio3.frames", "frames", TOP_M_COUNTER, 0, 0);
		if (k == 3)
			top_snap_put(&s, "cnp.sent", "packets", C, 5, 1);
		assert_int_equal(top_rec_sample(r, &s), 0);
	}
	assert_int_equal(top_rec_close(r), 0);
	assert_int_equal(top_replay_open(dir, &rp, err, sizeof(err)), 0);
	assert_int_equal(top_replay_nrec(rp), 1);
	assert_string_equal(top_replay_name(rp, 0), "h1");
	assert_int_equal(top_replay_length(rp), 2 * S);
	assert_int_equal(top_replay_at(rp, 0, 2 * S, &o), 0);
	assert_int_equal(o.seq, 3);
	m = top_snap_get(&o, "pfc.rx.prio3.frames");
	assert_non_null(m);
	assert_int_equal(m->raw, 30);
	assert_true(m->rate == 10.0);
	m = top_snap_get(&o, "pfc.tx.prio3.frames");
	assert_int_equal(m->flags, TOP_M_COUNTER);	/* n/a stays n/a */
	m = top_snap_get(&o, "cnp.sent");
	assert_int_equal(m->raw, 5);
	top_replay_at(rp, 0, 0, &o);
	assert_null(top_snap_get(&o, "cnp.sent") &&
		    (top_snap_get(&o, "cnp.sent")->flags & TOP_M_VALID) ? "valid" : NULL);
	top_replay_free(rp);
	top_snap_free(&s);
	top_snap_free(&o);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snap_put),
		cmocka_unit_test(test_rows_one_host),
		cmocka_unit_test(test_paused_from_capture),
		cmocka_unit_test(test_nic_stall_share),
		cmocka_unit_test(test_capture_marks),
		cmocka_unit_test(test_totals_baseline_history),
		cmocka_unit_test(test_totals_counter_reset),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_gpu_link_share),
		cmocka_unit_test(test_rows_eight_gpus_fit),
		cmocka_unit_test(test_rows_fit_keeps_counted),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_remote_parse),
		cmocka_unit_test(test_remote_missed),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_replay_late_host),
		cmocka_unit_test(test_replay_capture_json),
		cmocka_unit_test(test_replay_timeline),
		cmocka_unit_test(test_replay_timeline_old),
		cmocka_unit_test(test_replay_timeline_bad),
		cmocka_unit_test(test_rec_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
