// SPDX-License-Identifier: GPL-2.0-or-later
/* test_link_lossless.c: the emulated lossless link's arithmetic and state machines
 * (lab/link/lossless.c) and its counter page (lib/linkstat.c): mlx5's headroom and
 * thresholds, quanta at a link speed, XOFF/refresh/XON from a fill sequence, the pause
 * storm (with a stall of the emulation told apart), drops across a 32-bit wrap, lossy
 * mode, the sender's per-priority pauses (XOFF, refresh, XON, expiry, other priorities
 * untouched, a pause ended by the link stopping), kernel receive stamps on the
 * monotonic axis, and the page written, read back and refused when damaged.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/linkstat.h"
#include "lab/link/lossless.h"

#define US 1000ull
#define MS 1000000ull

static void test_headroom(void **state)
{
	(void)state;
	/* DOMAIN.md: ~36 KB at 100G, MTU 1500, 7 m: (301 + 15.12) x 100 + 4080 */
	assert_int_equal(link_headroom(100000000000ull, 7, 1500, 0), 35692);
	assert_int_equal(link_headroom(25000000000ull, 7, 1500, 0), 11983);
	assert_int_equal(link_headroom(25000000000ull, 0, 4096, 0), 18667);	/* 7525 + 11141.12 */
	/* the emulation's reaction at the link speed: 5 ms at 100M is 62500 B */
	assert_int_equal(link_headroom(100000000ull, 7, 1500, 5 * MS), 66612);
}

static void test_quanta(void **state)
{
	(void)state;
	/* 0xffff at 25G: 1.342 ms (20.48 ns a quantum) */
	assert_int_equal(link_quanta_ns(0xffff, 25000000000ull), 1342157);
	assert_int_equal(link_quanta_ns(1, 100000000000ull), 6);	/* 5.12 ns, rounded up */
	assert_int_equal(link_quanta_ns(0xffff, 100000000ull), 335539200);
	assert_int_equal(link_quanta_ns(4096, 100000000ull), 20971520);
	assert_int_equal(link_quanta_ns(100, 0), 0);
	assert_int_equal(link_quanta_ns(0, 25000000000ull), 0);
}

static struct link_buf_cfg cfg_base(void)
{
	struct link_buf_cfg c = {
		.buffer = 100000, .headroom = 30000, .mtu = 1500, .pfc = true, .prios = 1u << 3,
		.quanta = 0xffff, .quanta_ns = 20 * MS, .refresh_ns = 10 * MS,
		.storm_ns = 100 * MS,
	};

	return c;
}

static void test_config(void **state)
{
	static const struct {
		uint64_t buffer, headroom, xoff, xon, refresh;
		int rc;
		uint64_t want_xoff, want_xon;
	} t[] = {
		{ 100000, 30000, 0, 0, 10 * MS, 0, 70000, 68500 },	/* derived */
		{ 100000, 30000, 80000, 50000, 10 * MS, 0, 80000, 50000 },	/* overrides */
		{ 100000, 99000, 0, 0, 10 * MS, -EINVAL, 0, 0 },	/* headroom + MTU >= B */
		{ 100000, 30000, 60000, 60000, 10 * MS, -EINVAL, 0, 0 },	/* XON not below */
		{ 100000, 30000, 200000, 0, 10 * MS, -EINVAL, 0, 0 },	/* XOFF past B */
		{ 100000, 30000, 0, 0, 20 * MS, -EINVAL, 0, 0 },	/* refresh >= pause */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct link_buf_cfg c = cfg_base();

		c.buffer = t[i].buffer;
		c.headroom = t[i].headroom;
		c.xoff = t[i].xoff;
		c.xon = t[i].xon;
		c.refresh_ns = t[i].refresh;
		assert_int_equal(link_buf_config(&c), t[i].rc);
		if (t[i].rc)
			continue;
		assert_int_equal(c.xoff, t[i].want_xoff);
		assert_int_equal(c.xon, t[i].want_xon);
		assert_int_equal(c.thres, 85000);
		assert_int_equal(c.storm_warn_ns, 85 * MS);
		assert_int_equal(c.max_gap_ns, 10 * MS);
	}
}

/* A step and what the caller does: send what it asked for, at once. */
static enum link_buf_act step(struct link_buf *b, uint64_t t, uint64_t fill, uint32_t drops)
{
	enum link_buf_act a = link_buf_step(b, t, fill, drops);

	link_buf_sent(b, t, a);
	return a;
}

static void test_xoff_xon(void **state)
{
	static const struct { uint64_t t_ms, fill; enum link_buf_act want; } seq[] = {
		{ 0, 0, LINK_BUF_NONE },
		{ 1, 70000, LINK_BUF_NONE },		/* at the threshold: not above */
		{ 2, 70001, LINK_BUF_XOFF },
		{ 3, 90000, LINK_BUF_NONE },		/* asserted: no new XOFF */
		{ 11, 90000, LINK_BUF_NONE },		/* 9 ms since the XOFF */
		{ 12, 88000, LINK_BUF_XOFF },		/* 10 ms: refreshed */
		{ 13, 68500, LINK_BUF_NONE },		/* at XON: not below */
		{ 14, 68499, LINK_BUF_XON },
		{ 15, 68000, LINK_BUF_NONE },
		{ 16, 80000, LINK_BUF_XOFF },		/* a new episode */
		{ 20, 1000, LINK_BUF_XON },
	};
	struct link_buf_cfg c = cfg_base();
	struct link_buf b;
	size_t i;

	(void)state;
	assert_int_equal(link_buf_config(&c), 0);
	link_buf_init(&b, &c);
	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		enum link_buf_act a = step(&b, seq[i].t_ms * MS, seq[i].fill, 0);

		if (a != seq[i].want)
			fail_msg("step %zu at %" PRIu64 " ms fill %" PRIu64 ": got %d, want %d", i,
				 (uint64_t)seq[i].t_ms, seq[i].fill, a, seq[i].want);
	}
	assert_int_equal(b.c.tx_xoff, 3);
	assert_int_equal(b.c.tx_xon, 2);
	assert_int_equal(b.c.tx_pause, 5);
	assert_int_equal(b.c.pauses, 2);
	/* 2..14 ms and 16..20 ms asked paused */
	assert_int_equal(link_buf_pause_ns(&b, 30 * MS), 16 * MS);
	assert_int_equal(b.c.passed_thres, 1);	/* above 85000 from 3 to 12 ms: one crossing */
	assert_int_equal(b.fill_max, 90000);
	assert_false(b.asserted);
	assert_int_equal(link_buf_next(&b), UINT64_MAX);
}

static void test_unsent(void **state)
{
	struct link_buf_cfg c = cfg_base();
	struct link_buf b;

	(void)state;
	assert_int_equal(link_buf_config(&c), 0);
	link_buf_init(&b, &c);
	/* a frame that could not be sent is asked for again and not counted */
	assert_int_equal(link_buf_step(&b, 1 * MS, 80000, 0), LINK_BUF_XOFF);
	assert_int_equal(link_buf_step(&b, 2 * MS, 80000, 0), LINK_BUF_XOFF);
	assert_int_equal(b.c.tx_pause, 0);
	link_buf_sent(&b, 2 * MS, LINK_BUF_XOFF);
	assert_int_equal(b.since_ns, 2 * MS);
	assert_int_equal(link_buf_next(&b), 12 * MS);	/* the refresh */
}

static void test_storm(void **state)
{
	struct link_buf_cfg c = cfg_base();
	struct link_buf b;
	uint64_t t, xoffs = 0;

	(void)state;
	assert_int_equal(link_buf_config(&c), 0);
	link_buf_init(&b, &c);
	/* drain 0: the fill never falls; XOFF every 10 ms, warning at 85 ms, error at 100 */
	for (t = 0; t <= 300 * MS; t += MS) {
		enum link_buf_act a = step(&b, t, 95000, 0);

		xoffs += a == LINK_BUF_XOFF;
		if (t == 84 * MS)
			assert_int_equal(b.c.storm_warning, 0);
		if (t == 85 * MS)
			assert_int_equal(b.c.storm_warning, 1);
		if (t == 99 * MS)
			assert_int_equal(b.c.storm_error, 0);
		if (t == 100 * MS) {
			assert_int_equal(b.c.storm_error, 1);
			assert_true(b.storm);
		}
		if (t > 100 * MS)
			assert_int_equal(a, LINK_BUF_NONE);	/* no pause frame after the storm */
	}
	assert_int_equal(xoffs, 10);		/* 0, 10, ..., 90 ms */
	assert_int_equal(b.c.storm_warning, 1);
	assert_int_equal(b.c.storm_error, 1);
	/* the peer was told to pause until the last XOFF (90 ms) ran out (+20 ms) */
	assert_int_equal(link_buf_pause_ns(&b, 300 * MS), 110 * MS);
	assert_int_equal(link_buf_next(&b), UINT64_MAX);
	/* the buffer drains: the episode ends without a frame; a new one may begin */
	assert_int_equal(step(&b, 301 * MS, 0, 0), LINK_BUF_NONE);
	assert_false(b.asserted);
	assert_int_equal(b.c.tx_xon, 0);
	assert_int_equal(step(&b, 302 * MS, 95000, 0), LINK_BUF_XOFF);
	assert_int_equal(b.c.storm_error, 1);
}

static void test_storm_stall(void **state)
{
	struct link_buf_cfg c = cfg_base();
	struct link_buf b;

	(void)state;
	assert_int_equal(link_buf_config(&c), 0);
	link_buf_init(&b, &c);
	assert_int_equal(step(&b, 0, 95000, 0), LINK_BUF_XOFF);
	assert_int_equal(step(&b, 1 * MS, 95000, 0), LINK_BUF_NONE);
	/* the emulation did not run for 121 ms: that counts 10 ms toward the storm */
	assert_int_equal(step(&b, 122 * MS, 95000, 0), LINK_BUF_XOFF);
	assert_int_equal(b.c.storm_warning, 0);
	assert_int_equal(b.c.storm_error, 0);
	assert_int_equal(b.storm_clock_ns, 11 * MS);
	/* looked at every millisecond again, the storm comes 89 ms later */
	assert_int_equal(link_buf_next(&b), 122 * MS + 10 * MS);
	{
		uint64_t t;

		for (t = 123 * MS; t <= 210 * MS; t += MS)
			step(&b, t, 95000, 0);
		assert_int_equal(b.c.storm_error, 0);
		step(&b, 211 * MS, 95000, 0);
		assert_int_equal(b.c.storm_error, 1);
	}
}

static void test_drops_lossy(void **state)
{
	struct link_buf_cfg c = cfg_base();
	struct link_buf b;

	(void)state;
	c.pfc = false;
	assert_int_equal(link_buf_config(&c), 0);
	link_buf_init(&b, &c);
	/* the first reading sets the base; the 32-bit counter wraps */
	assert_int_equal(step(&b, 0, 0, 0xfffffff0u), LINK_BUF_NONE);
	assert_int_equal(step(&b, MS, 100000, 0xfffffffau), LINK_BUF_NONE);
	assert_int_equal(step(&b, 2 * MS, 100000, 5), LINK_BUF_NONE);
	assert_int_equal(b.c.discards, 10 + 11);
	assert_int_equal(b.c.tx_pause, 0);
	assert_int_equal(b.c.passed_thres, 1);
	assert_int_equal(link_buf_next(&b), UINT64_MAX);
}

/* PFC turned off and on at run time (pfclab link's SIGUSR1/SIGUSR2): off during an
 * episode, the XON is still sent (again until it goes out); off, a full buffer only
 * drops; on again, the next fill above XOFF pauses again.
 */
static void test_pfc_toggle(void **state)
{
	struct link_buf_cfg c = cfg_base();
	struct link_buf b;

	(void)state;
	assert_int_equal(link_buf_config(&c), 0);
	link_buf_init(&b, &c);
	assert_int_equal(step(&b, 1 * MS, 80000, 0), LINK_BUF_XOFF);
	link_buf_set_pfc(&b, 2 * MS, false);
	assert_true(b.asserted);
	assert_int_equal(link_buf_step(&b, 3 * MS, 90000, 0), LINK_BUF_XON);	/* unsent */
	assert_int_equal(step(&b, 4 * MS, 90000, 0), LINK_BUF_XON);
	assert_false(b.asserted);
	assert_int_equal(link_buf_pause_ns(&b, 10 * MS), 3 * MS);
	assert_int_equal(step(&b, 5 * MS, 100000, 7), LINK_BUF_NONE);
	assert_int_equal(step(&b, 6 * MS, 100000, 9), LINK_BUF_NONE);
	assert_int_equal(b.c.discards, 9);
	link_buf_set_pfc(&b, 7 * MS, true);
	assert_int_equal(step(&b, 8 * MS, 80000, 9), LINK_BUF_XOFF);
	assert_int_equal(b.c.tx_xoff, 2);
	assert_int_equal(b.c.tx_xon, 1);
	assert_int_equal(b.c.pauses, 2);
	/* turned off after a storm: the episode ends without a frame */
	b.storm = true;
	link_buf_set_pfc(&b, 20 * MS, false);
	assert_false(b.asserted);
	assert_int_equal(step(&b, 21 * MS, 100000, 9), LINK_BUF_NONE);
	assert_int_equal(b.c.tx_xon, 1);
}

#define G100M 100000000ull

static void test_pause(void **state)
{
	struct link_pause lp;
	uint16_t q[LINK_PRIOS] = { 0 };
	uint8_t block, release;

	(void)state;
	link_pause_init(&lp, 1u << 3, G100M);
	/* XOFF of 4096 quanta for 3 (and 5, which is not PFC-enabled here) */
	q[3] = 4096;
	q[5] = 4096;
	link_pause_frame(&lp, 10 * MS, (1u << 3) | (1u << 5), q, &block, &release);
	assert_int_equal(block, 1u << 3);
	assert_int_equal(release, 0);
	assert_false(lp.p[5].paused);
	assert_int_equal(lp.p[5].frames, 0);
	assert_int_equal(link_pause_next(&lp), 10 * MS + 20971520);
	/* a refresh moves the end, begins nothing */
	link_pause_frame(&lp, 15 * MS, 1u << 3, q, &block, &release);
	assert_int_equal(block, 0);
	assert_int_equal(release, 0);
	assert_int_equal(link_pause_next(&lp), 15 * MS + 20971520);
	/* not yet */
	link_pause_expire(&lp, 15 * MS + 20971519, &release);
	assert_int_equal(release, 0);
	/* XON ends it at once */
	q[3] = 0;
	link_pause_frame(&lp, 20 * MS, 1u << 3, q, &block, &release);
	assert_int_equal(release, 1u << 3);
	assert_int_equal(lp.p[3].paused_ns, 10 * MS);
	assert_int_equal(lp.p[3].transitions, 1);
	assert_int_equal(lp.p[3].by_xon, 1);
	assert_int_equal(link_pause_next(&lp), UINT64_MAX);
	/* an XON while not paused is counted, changes nothing */
	link_pause_frame(&lp, 21 * MS, 1u << 3, q, &block, &release);
	assert_int_equal(release, 0);
	assert_int_equal(lp.p[3].frames, 4);
	assert_int_equal(lp.p[3].xoff, 2);
	assert_int_equal(lp.p[3].xon, 2);
	/* a pause that runs out ends at its own time, however late it is looked at */
	q[3] = 4096;
	link_pause_frame(&lp, 30 * MS, 1u << 3, q, &block, &release);
	assert_int_equal(block, 1u << 3);
	assert_int_equal(link_pause_ns(&lp, 3, 40 * MS), 10 * MS + 10 * MS);
	/* looked at past its time, not yet expired: counted to its time, not beyond */
	assert_int_equal(link_pause_ns(&lp, 3, 60 * MS), 10 * MS + 20971520);
	link_pause_expire(&lp, 60 * MS, &release);
	assert_int_equal(release, 1u << 3);
	assert_int_equal(lp.p[3].paused_ns, 10 * MS + 20971520);
	assert_int_equal(lp.p[3].by_expiry, 1);
	assert_int_equal(lp.p[3].transitions, 2);
	assert_int_equal(lp.p[3].pauses, 2);
}

static void test_pause_two_prios(void **state)
{
	struct link_pause lp;
	uint16_t q[LINK_PRIOS] = { 0 };
	uint8_t block, release;

	(void)state;
	link_pause_init(&lp, (1u << 3) | (1u << 4), G100M);
	q[3] = 100;
	q[4] = 0;
	/* one frame: 3 paused, 4 told XON (not paused: nothing to release) */
	link_pause_frame(&lp, 0, (1u << 3) | (1u << 4), q, &block, &release);
	assert_int_equal(block, 1u << 3);
	assert_int_equal(release, 0);
	q[4] = 200;
	link_pause_frame(&lp, 0, 1u << 4, q, &block, &release);
	assert_int_equal(block, 1u << 4);
	assert_int_equal(link_pause_next(&lp), link_quanta_ns(100, G100M));
	link_pause_expire(&lp, link_quanta_ns(100, G100M), &release);
	assert_int_equal(release, 1u << 3);
	assert_true(lp.p[4].paused);
	link_pause_expire(&lp, link_quanta_ns(200, G100M), &release);
	assert_int_equal(release, 1u << 4);
}

static void test_pause_stop(void **state)
{
	struct link_pause lp;
	uint16_t q[LINK_PRIOS] = { 0 };
	uint8_t block, release;

	(void)state;
	link_pause_init(&lp, (1u << 3) | (1u << 4), G100M);
	q[3] = q[4] = 4096;	/* 20.97 ms at 100M */
	link_pause_frame(&lp, 10 * MS, (1u << 3) | (1u << 4), q, &block, &release);
	/* the link stops 5 ms in: 3's pause ends then, with no frame and no timer */
	link_pause_stop(&lp, 1u << 3, 15 * MS, &release);
	assert_int_equal(release, 1u << 3);
	assert_false(lp.p[3].paused);
	assert_int_equal(lp.p[3].paused_ns, 5 * MS);
	assert_int_equal(lp.p[3].transitions, 1);
	assert_int_equal(lp.p[3].by_xon + lp.p[3].by_expiry, 0);
	assert_int_equal(lp.p[3].frames, 1);
	assert_true(lp.p[4].paused);
	/* stopped long after its timer ran out: the pause ended at the timer */
	link_pause_stop(&lp, 0xff, 100 * MS, &release);
	assert_int_equal(release, 1u << 4);
	assert_int_equal(lp.p[4].paused_ns, 20971520);
	/* nothing paused: nothing released */
	link_pause_stop(&lp, 0xff, 200 * MS, &release);
	assert_int_equal(release, 0);
}

/* kernel receive stamps (CLOCK_REALTIME) onto the monotonic axis */
static void test_kernel_mono(void **state)
{
	static const struct {
		uint64_t stamp, real, mono, want;
	} t[] = {
		{ 1700000000000000000ull, 1700000000000400000ull, 5000000000ull, 4999600000ull },
		{ 0, 1700000000000400000ull, 5000000000ull, 5000000000ull },	/* no stamp */
		{ 1700000000000500000ull, 1700000000000400000ull, 5000000000ull, 5000000000ull },
		{ 1000, 3000000000ull, 1000000000ull, 0 },	/* older than the mono axis */
		{ 2999999999ull, 3000000000ull, 1000000000ull, 999999999ull },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(link_kernel_mono(t[i].stamp, t[i].real, t[i].mono), t[i].want);
}

static void test_page(void **state)
{
	struct linkstat_entry e[3] = {
		{ .name = "rx_prio3_pause", .unit = LS_U_FRAMES },
		{ .name = "rx_prio3_pause_duration", .unit = LS_U_US },
		{ .name = "rx_buffer_fill", .kind = 1, .unit = LS_U_B },
	};
	uint64_t v[3] = { 7, 1234, 65536 };
	char dir[] = "/tmp/pfclab-linkstat-XXXXXX", path[256];
	struct linkstat_writer w;
	struct linkstat_view *view = calloc(1, sizeof(*view));
	uint8_t buf[LINKSTAT_HDR + 3 * LINKSTAT_ENTRY], bad[sizeof(buf)];
	FILE *f;

	(void)state;
	assert_non_null(view);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(linkstat_path(dir, "va", path, sizeof(path)), 0);
	assert_int_equal(linkstat_path(dir, "../x", path + 0, 0), -EINVAL);
	assert_int_equal(linkstat_path(dir, "va", path, sizeof(path)), 0);
	assert_int_equal(linkstat_create(&w, path, e, 3, 42), 0);
	linkstat_update(&w, v, 99);
	assert_int_equal(linkstat_read(path, view), 0);
	assert_int_equal(view->n, 3);
	assert_int_equal(view->epoch, 42);
	assert_int_equal(view->updated, 99);
	assert_int_equal(view->seq % 2, 0);
	assert_string_equal(view->e[1].name, "rx_prio3_pause_duration");
	assert_int_equal(view->e[1].value, 1234);
	assert_string_equal(linkstat_unit_name(view->e[1].unit), "us");
	assert_int_equal(view->e[2].kind, 1);
	assert_int_equal(view->e[2].value, 65536);
	/* damaged copies of the bytes */
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf), f), sizeof(buf));
	fclose(f);
	assert_int_equal(linkstat_parse(buf, sizeof(buf), view), 0);
	assert_int_equal(linkstat_parse(buf, sizeof(buf) - 1, view), -EBADMSG);	/* short */
	assert_int_equal(linkstat_parse(buf, 20, view), -EBADMSG);
	memcpy(bad, buf, sizeof(buf));
	bad[0] ^= 1;
	assert_int_equal(linkstat_parse(bad, sizeof(bad), view), -EBADMSG);	/* magic */
	memcpy(bad, buf, sizeof(buf));
	bad[4] = 9;
	assert_int_equal(linkstat_parse(bad, sizeof(bad), view), -EPROTO);	/* version */
	memcpy(bad, buf, sizeof(buf));
	bad[16] |= 1;
	assert_int_equal(linkstat_parse(bad, sizeof(bad), view), -EAGAIN);	/* updating */
	memcpy(bad, buf, sizeof(buf));
	bad[8] = 200;
	assert_int_equal(linkstat_parse(bad, sizeof(bad), view), -EBADMSG);	/* count */
	memcpy(bad, buf, sizeof(buf));
	memset(bad + LINKSTAT_HDR, 'x', LINKSTAT_NAME);
	assert_int_equal(linkstat_parse(bad, sizeof(bad), view), -EBADMSG);	/* no NUL */
	linkstat_remove(&w);
	assert_int_equal(linkstat_read(path, view), -ENOENT);
	rmdir(dir);
	free(view);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headroom),
		cmocka_unit_test(test_quanta),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_xoff_xon),
		cmocka_unit_test(test_unsent),
		cmocka_unit_test(test_storm),
		cmocka_unit_test(test_storm_stall),
		cmocka_unit_test(test_drops_lossy),
		cmocka_unit_test(test_pfc_toggle),
		cmocka_unit_test(test_pause),
		cmocka_unit_test(test_pause_two_prios),
		cmocka_unit_test(test_pause_stop),
		cmocka_unit_test(test_kernel_mono),
		cmocka_unit_test(test_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
