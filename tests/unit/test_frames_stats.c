// SPDX-License-Identifier: GPL-2.0-or-later
/* test_frames_stats.c: paused-time bookkeeping (XOFF refresh, XON, expiry, storms, per
 * timeline bin), CNP gap percentiles, frames without a timestamp, and the pcap/pcapng
 * writers read back by the reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/util.h"
#include "monitor/frames/craft.h"
#include "monitor/frames/decode.h"
#include "monitor/frames/pcapfile.h"
#include "monitor/frames/stats.h"

#define G25 25000000000ull

static void pfc_at(struct frames_stats *st, uint64_t ts, int prio, uint16_t q)
{
	struct frames_pkt pk = { .status = FRAMES_OK, .kind = FRAMES_KIND_PFC,
				 .src = { 2, 0, 0, 0, 0, 9 } };

	pk.pfc_enable = (uint8_t)(1u << prio);
	pk.pfc_quanta[prio] = q;
	frames_stats_add(st, ts, &pk, G25);
}

static void test_pause_time(void **state)
{
	struct frames_stats st;

	(void)state;
	frames_stats_init(&st, 0, 1000000, 0); /* storm >= 1 ms */
	/* 1000 quanta at 25G = 20480 ns; expires */
	pfc_at(&st, 0, 3, 1000);
	/* XOFF refreshed before expiry, XON after expiry: the pause 100000..135480 */
	pfc_at(&st, 100000, 3, 1000);
	pfc_at(&st, 115000, 3, 1000); /* runs to 135480, XON at 140000 comes later */
	pfc_at(&st, 140000, 3, 0);
	/* 0xffff quanta refreshed every ms for 3 ms: a storm */
	pfc_at(&st, 1000000, 3, 0xffff);
	pfc_at(&st, 2000000, 3, 0xffff);
	pfc_at(&st, 3000000, 3, 0xffff);
	frames_stats_finish(&st);
	assert_int_equal(st.prio[3].frames, 7);
	assert_int_equal(st.prio[3].xoff, 6);
	assert_int_equal(st.prio[3].xon, 1);
	assert_int_equal(st.prio[3].pauses, 3);
	/* longest: the storm, from 1 ms to 3 ms + 65535 quanta */
	assert_int_equal(st.prio[3].longest_ns, 2000000 + 1342156);
	assert_int_equal(st.prio[3].paused_ns, 20480 + 35480 + 2000000 + 1342156);
	assert_int_equal(st.prio[3].storms, 1);
	frames_stats_free(&st);
}

/* The timeline's paused time per bin: a pause split over the bins it overlaps, one closed
 * by XON, one closed at the end; bins past the first 64 (the arrays grow). */
static void test_pause_bins(void **state)
{
	struct frames_stats st;
	uint64_t sum = 0;
	size_t i;

	(void)state;
	frames_stats_init(&st, 0, 0, 1000000); /* 1 ms bins */
	pfc_at(&st, 500000, 3, 0xffff);		/* 0.5 ms .. 1.842156 ms */
	pfc_at(&st, 1500000, 5, 1000);		/* 1.5 ms .. 1.52048 ms */
	pfc_at(&st, 1510000, 5, 0);		/* XON: 10 us */
	pfc_at(&st, 200400000, 3, 0xffff);	/* bin 200, still open at the end */
	frames_stats_finish(&st);
	assert_true(st.npaused >= 202);
	assert_int_equal(st.bin_paused[0][3], 500000);
	assert_int_equal(st.bin_paused[1][3], 842156);
	assert_int_equal(st.bin_paused[1][5], 10000);
	assert_int_equal(st.bin_paused[200][3], 600000);
	assert_int_equal(st.bin_paused[201][3], 1342156 - 600000);
	for (i = 0; i < st.npaused; i++)
		sum += st.bin_paused[i][3] + st.bin_paused[i][5];
	assert_int_equal(sum, st.prio[3].paused_ns + st.prio[5].paused_ns);
	assert_false(st.oom);
	frames_stats_free(&st);
}

static void test_no_speed(void **state)
{
	struct frames_stats st;
	struct frames_pkt pk = { .status = FRAMES_OK, .kind = FRAMES_KIND_PAUSE,
				 .pause_quanta = 10 };

	(void)state;
	frames_stats_init(&st, 0, 0, 0);
	frames_stats_add(&st, 5, &pk, 0);
	frames_stats_finish(&st);
	assert_false(st.prio[FRAMES_PRIO_PAUSE].time_valid);
	assert_int_equal(st.prio[FRAMES_PRIO_PAUSE].frames, 1);
	frames_stats_free(&st);
}

static void test_cnp_gaps(void **state)
{
	struct frames_stats st;
	struct frames_pkt pk = { .status = FRAMES_OK, .kind = FRAMES_KIND_CNP, .ipver = 4,
				 .ip_src = { 10, 0, 0, 2 }, .bth_dqp = 0x77, .has_bth = true };
	const struct frames_cnp_stats *c = NULL;
	uint64_t t = 0;
	size_t i;

	(void)state;
	frames_stats_init(&st, 0, 0, 0);
	for (i = 0; i < 101; i++) {
		frames_stats_add(&st, t, &pk, 0);
		t += i < 98 ? 1000 : 50000; /* 98 gaps of 1 us, then 2 of 50 us */
	}
	frames_stats_finish(&st);
	assert_int_equal(st.cnps.n, 1);
	for (i = 0; i < st.cnps.cap && !c; i++)
		c = frames_table_slot(&st.cnps, i);
	if (!c)
		fail_msg("no CNP record");
	assert_int_equal(c->count, 101);
	assert_int_equal(c->gap_min, 1000);
	assert_int_equal(c->gap_med, 1000);
	assert_int_equal(c->gap_p99, 50000);
	assert_int_equal(c->key.dqp, 0x77);
	frames_stats_free(&st);
}

/* Past FRAMES_MAX_GAPS the gaps are sampled: memory stays fixed, the minimum exact, the
 * median of a distribution with one value in 4 at 9 us stays 1 us. */
static void test_cnp_gaps_bounded(void **state)
{
	struct frames_stats st;
	struct frames_pkt pk = { .status = FRAMES_OK, .kind = FRAMES_KIND_CNP, .ipver = 4,
				 .ip_src = { 10, 0, 0, 3 }, .bth_dqp = 0x78, .has_bth = true };
	const struct frames_cnp_stats *c = NULL;
	uint64_t t = 0, n = FRAMES_MAX_GAPS + FRAMES_MAX_GAPS / 2;
	size_t i;

	(void)state;
	frames_stats_init(&st, 0, 0, 0);
	for (i = 0; i <= n; i++) {
		frames_stats_add(&st, t, &pk, 0);
		t += i == n - 7 ? 10 : i % 4 == 3 ? 9000 : 1000; /* one 10 ns gap, late */
	}
	frames_stats_finish(&st);
	for (i = 0; i < st.cnps.cap && !c; i++)
		c = frames_table_slot(&st.cnps, i);
	if (!c)
		fail_msg("no CNP record");
	assert_true(st.gaps_stored <= FRAMES_MAX_GAPS);
	assert_int_equal(c->gaps_seen, n);
	assert_true(c->ngaps < n);
	assert_int_equal(c->gap_min, 10);
	assert_int_equal(c->gap_med, 1000);
	assert_int_equal(c->gap_p99, 9000);
	frames_stats_free(&st);
}

static void roundtrip(bool ng)
{
	char path[] = "/tmp/pfclab-test-XXXXXX";
	struct frames_l2 l2 = { .src = { 2, 0, 0, 0, 0, 1 }, .vlan = -1 };
	struct pcapf_writer w;
	struct pcapf_reader pr;
	struct pcapf_rec rec;
	struct pcapf_map m;
	uint8_t b[128];
	size_t n = frames_craft_pause(b, sizeof(b), &l2, 7);
	int fd = mkstemp(path), i;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pcapf_writer_open(&w, path, ng, FRAMES_LINK_EN10MB, 256), 0);
	assert_int_equal(pcapf_writer_add_if(&w, FRAMES_LINK_EN10MB, 256, "veth0", G25, NULL), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(pcapf_writer_write(&w, 0, 1700000000123456789ull + (uint64_t)i,
						    b, (uint32_t)n, (uint32_t)n), 0);
	assert_int_equal(pcapf_writer_close(&w), 0);
	assert_int_equal(pcapf_writer_append(&w, path), 0);
	assert_int_equal(pcapf_writer_write(&w, 0, 5, b, 20, (uint32_t)n), 0);
	assert_int_equal(pcapf_writer_close(&w), 0);

	assert_int_equal(pcapf_map_open(&m, path), 0);
	assert_int_equal(pcapf_reader_init(&pr, m.p, m.len), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(pcapf_reader_next(&pr, &rec), 1);
		assert_int_equal(rec.ts_ns, 1700000000123456789ull + (uint64_t)i);
		assert_int_equal(rec.caplen, n);
		assert_memory_equal(rec.data, b, n);
		assert_int_equal(rec.ifc->link, FRAMES_LINK_EN10MB);
		if (ng) {
			assert_int_equal(rec.ifc->speed_bps, G25);
			assert_string_equal(rec.ifc->name, "veth0");
		}
	}
	assert_int_equal(pcapf_reader_next(&pr, &rec), 1);
	assert_int_equal(rec.caplen, 20);
	assert_int_equal(rec.wirelen, n);
	assert_int_equal(pcapf_reader_next(&pr, &rec), 0);
	/* a cut file: the last record is reported corrupt, not read past the end */
	assert_int_equal(pcapf_reader_init(&pr, m.p, m.len - 3), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(pcapf_reader_next(&pr, &rec), 1);
	assert_true(pcapf_reader_next(&pr, &rec) < 0);
	assert_non_null(pr.why);
	pcapf_map_close(&m);
	unlink(path);
}

static void test_pcap_roundtrip(void **state)
{
	(void)state;
	roundtrip(false);
}

static void test_pcapng_roundtrip(void **state)
{
	(void)state;
	roundtrip(true);
}

static void test_not_pcap(void **state)
{
	struct pcapf_reader pr;

	(void)state;
	assert_int_equal(pcapf_reader_init(&pr, "hello world", 11), -22);
	assert_int_equal(pcapf_reader_init(&pr, "ab", 2), -22);
}

/* pcapng with two interfaces (little-endian), times as tshark reads them: if0 at the default
 * microseconds with if_tsoffset +100 s, if1 at 2^-10 s with if_tsoffset -5 s. */
static void test_pcapng_tsresol_tsoffset(void **state)
{
	static const uint8_t f[] = {
		/* SHB: type, length 28, byte-order magic, version 1.0, section length -1 */
		0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 28, 0, 0, 0,
		/* IDB 0: Ethernet, if_tsoffset (14) = 100, end of options */
		1, 0, 0, 0, 36, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0,
		14, 0, 8, 0, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 36, 0, 0, 0,
		/* IDB 1: Ethernet, if_tsresol (9) = 0x8a, if_tsoffset = -5 */
		1, 0, 0, 0, 44, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0,
		9, 0, 1, 0, 0x8a, 0, 0, 0,
		14, 0, 8, 0, 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0,
		44, 0, 0, 0,
		/* EPB on if0: 1700000000.000001 s in microseconds (0x6_0a24_181e_4001) */
		6, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0, 0x24, 0x0a, 0x06, 0, 0x01, 0x40, 0x1e, 0x18,
		4, 0, 0, 0, 4, 0, 0, 0, 1, 2, 3, 4, 36, 0, 0, 0,
		/* EPB on if1: 1700000000.5 s in 1024ths (0x195_4fc4_0200) */
		6, 0, 0, 0, 36, 0, 0, 0, 1, 0, 0, 0, 0x95, 0x01, 0, 0, 0x00, 0x02, 0xc4, 0x4f,
		4, 0, 0, 0, 4, 0, 0, 0, 1, 2, 3, 4, 36, 0, 0, 0,
	};
	struct pcapf_reader pr;
	struct pcapf_rec rec;

	(void)state;
	assert_int_equal(pcapf_reader_init(&pr, f, sizeof(f)), 0);
	assert_int_equal(pcapf_reader_next(&pr, &rec), 1);
	assert_int_equal(rec.ifidx, 0);
	assert_true(rec.has_ts);
	assert_int_equal(rec.ts_ns, 1700000100000001000ull);
	assert_int_equal(pcapf_reader_next(&pr, &rec), 1);
	assert_int_equal(rec.ifidx, 1);
	assert_int_equal(rec.ts_ns, 1699999995500000000ull);
	assert_int_equal(pcapf_reader_next(&pr, &rec), 0);
	assert_int_equal(pr.ts_overflow, 0);
}

/* A simple packet block has no timestamp: the reader says so (has_ts false), and the
 * summary counts such a frame without placing it in time: a first frame without one
 * leaves the span and the timeline to the timed frame after it. */
static void test_untimed(void **state)
{
	static const uint8_t f[] = {
		0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 28, 0, 0, 0,
		/* IDB: Ethernet, no options */
		1, 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0,
		/* SPB: original length 4, then the packet */
		3, 0, 0, 0, 20, 0, 0, 0, 4, 0, 0, 0, 1, 2, 3, 4, 20, 0, 0, 0,
	};
	struct pcapf_reader pr;
	struct pcapf_rec rec;
	struct frames_stats st;
	struct frames_pkt pk = { .status = FRAMES_OK, .kind = FRAMES_KIND_PFC, .wirelen = 60,
				 .pfc_enable = 1u << 3, .pfc_quanta = { [3] = 1000 } };

	(void)state;
	assert_int_equal(pcapf_reader_init(&pr, f, sizeof(f)), 0);
	assert_int_equal(pcapf_reader_next(&pr, &rec), 1);
	assert_false(rec.has_ts);
	assert_int_equal(rec.caplen, 4);
	assert_int_equal(pcapf_reader_next(&pr, &rec), 0);

	frames_stats_init(&st, 0, 1000000, 1000000);
	frames_stats_add_untimed(&st, &pk);
	frames_stats_add(&st, 5500000, &pk, G25);
	frames_stats_add_untimed(&st, &pk);
	frames_stats_finish(&st);
	assert_int_equal(st.frames, 3);
	assert_int_equal(st.untimed, 2);
	assert_int_equal(st.bytes, 180);
	assert_int_equal(st.kind[FRAMES_KIND_PFC], 3);
	assert_int_equal(st.first_ns, 5500000);
	assert_int_equal(st.last_ns, 5500000);
	assert_int_equal(st.bin_t0, 5000000);
	assert_int_equal(st.bins_used, 1);
	assert_int_equal(st.bins[0].kind[FRAMES_KIND_PFC], 1);
	assert_int_equal(st.prio[3].frames, 1);	/* the timed one: the pause table's */
	assert_int_equal(st.prio[3].paused_ns, 20480);
	frames_stats_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pause_time),
		cmocka_unit_test(test_pause_bins),
		cmocka_unit_test(test_no_speed),
		cmocka_unit_test(test_cnp_gaps),
		cmocka_unit_test(test_cnp_gaps_bounded),
		cmocka_unit_test(test_pcap_roundtrip),
		cmocka_unit_test(test_pcapng_roundtrip),
		cmocka_unit_test(test_not_pcap),
		cmocka_unit_test(test_pcapng_tsresol_tsoffset),
		cmocka_unit_test(test_untimed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
