// SPDX-License-Identifier: GPL-2.0-or-later
/* test_frames_decode.c: the frame decoder on crafted PAUSE, PFC, RoCEv2, CNP, VLAN,
 * IPv6 and cooked frames, and its truncated/invalid outcomes at every cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/util.h"
#include "monitor/frames/craft.h"
#include "monitor/frames/decode.h"
#include "monitor/frames/pcapfile.h"

static const struct frames_l2 l2 = {
	.src = { 2, 0, 0, 0, 0, 1 }, .dst = { 2, 0, 0, 0, 0, 2 }, .vlan = -1,
};

static void test_pause(void **state)
{
	uint8_t b[128];
	struct frames_pkt pk;
	size_t n = frames_craft_pause(b, sizeof(b), &l2, 0xffff);

	(void)state;
	assert_int_equal(n, 60);
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)n, (uint32_t)n, &pk),
			 FRAMES_OK);
	assert_int_equal(pk.kind, FRAMES_KIND_PAUSE);
	assert_int_equal(pk.pause_quanta, 0xffff);
	assert_memory_equal(pk.src, l2.src, 6);
}

static void test_pfc_vlan(void **state)
{
	struct frames_l2 t = l2;
	uint16_t q[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t b[128];
	struct frames_pkt pk;
	size_t n;

	(void)state;
	t.vlan = 100;
	t.pcp = 3;
	n = frames_craft_pfc(b, sizeof(b), &t, 0x88, q);
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)n, (uint32_t)n, &pk),
			 FRAMES_OK);
	assert_int_equal(pk.kind, FRAMES_KIND_PFC);
	assert_int_equal(pk.ntags, 1);
	assert_int_equal(pk.tci[0] & 0xfff, 100);
	assert_int_equal(pk.pcp, 3);
	assert_int_equal(pk.pfc_enable, 0x88);
	assert_int_equal(pk.pfc_quanta[3], 4);
	assert_int_equal(pk.pfc_quanta[7], 8);
	assert_int_equal(pk.pfc_quanta[0], 0); /* not enabled: crafted as 0 */
}

static void test_qinq(void **state)
{
	/* 802.1ad S-tag, 802.1Q C-tag, then PAUSE */
	uint8_t b[64] = { 1, 0x80, 0xc2, 0, 0, 1, 2, 0, 0, 0, 0, 1,
			  0x88, 0xa8, 0x00, 0x0a, 0x81, 0x00, 0xa0, 0x14, 0x88, 0x08,
			  0x00, 0x01, 0x12, 0x34 };
	struct frames_pkt pk;

	(void)state;
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, 64, 64, &pk), FRAMES_OK);
	assert_int_equal(pk.ntags, 2);
	assert_int_equal(pk.tci[0], 0x000a);
	assert_int_equal(pk.tci[1] & 0xfff, 0x014);
	assert_int_equal(pk.pcp, 5);
	assert_int_equal(pk.kind, FRAMES_KIND_PAUSE);
	assert_int_equal(pk.pause_quanta, 0x1234);
	/* a third tag is invalid */
	memmove(b + 16, b + 12, 40);
	b[12] = 0x81;
	b[13] = 0;
	b[14] = 0;
	b[15] = 1;
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, 64, 64, &pk), FRAMES_INVALID);
}

static size_t roce(uint8_t *b, size_t cap, uint8_t opcode, uint8_t ecn, uint16_t payload)
{
	struct frames_roce ro = {
		.src_ip = 0x0a000001, .dst_ip = 0x0a000002, .sport = 0xc000, .ecn = ecn,
		.opcode = opcode, .pkey = 0xffff, .dqp = 0x123456, .psn = 0xabcdef,
		.payload = payload, .reth_va = 0x1122334455667788ull, .reth_rkey = 0x99,
	};

	return frames_craft_roce(b, cap, &l2, &ro);
}

static void test_roce_cnp(void **state)
{
	uint8_t b[256];
	struct frames_pkt pk;
	size_t n;

	(void)state;
	n = roce(b, sizeof(b), FRAMES_BTH_OP_CNP, 1, 0);
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)n, (uint32_t)n, &pk),
			 FRAMES_OK);
	assert_int_equal(pk.kind, FRAMES_KIND_CNP);
	assert_int_equal(pk.bth_dqp, 0x123456);
	assert_int_equal(pk.ecn, 1);
	assert_int_equal(pk.ipver, 4);

	n = roce(b, sizeof(b), 0x0a, FRAMES_ECN_CE, 64);
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)n, (uint32_t)n, &pk),
			 FRAMES_OK);
	assert_int_equal(pk.kind, FRAMES_KIND_ROCE);
	assert_true(pk.has_reth);
	assert_int_equal(pk.reth_va, 0x1122334455667788ull);
	assert_int_equal(pk.reth_len, 64);
	assert_int_equal(pk.bth_psn, 0xabcdef);
	assert_true(pk.bth_ackreq);
	assert_int_equal(pk.ecn, FRAMES_ECN_CE);

	n = roce(b, sizeof(b), 0x11, 2, 4); /* RC ACK: 4 payload bytes stand for the AETH */
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)n, (uint32_t)n, &pk),
			 FRAMES_OK);
	assert_true(pk.has_aeth);
}

/* Every cut of a RoCEv2 WRITE with caplen < wirelen is TRUNCATED or OK, never INVALID;
 * the same bytes presented as the whole frame are INVALID (the IPv4 length says more). */
static void test_cuts(void **state)
{
	uint8_t b[256];
	struct frames_pkt pk;
	size_t n = roce(b, sizeof(b), 0x0a, 2, 32), cut;

	(void)state;
	for (cut = 0; cut < n; cut++) {
		enum frames_status s = frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)cut,
						     (uint32_t)n, &pk);

		assert_true(s == FRAMES_TRUNCATED || s == FRAMES_OK);
		if (cut < 14 + 20 + 8 + 12 + 16)
			assert_int_equal(s, FRAMES_TRUNCATED);
		/* nothing was cut, and the IPv4 total length names more bytes than there are */
		s = frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)cut, (uint32_t)cut, &pk);
		assert_int_equal(s, FRAMES_INVALID);
	}
}

static void test_invalid_lengths(void **state)
{
	uint8_t b[256];
	struct frames_pkt pk;
	size_t n;

	(void)state;
	/* BTH byte 4 (after the IPv4 and UDP headers): BECN set in a CNP, clear in data */
	n = roce(b, sizeof(b), 0x81, 0, 0);
	assert_int_equal(b[14 + 20 + 8 + 4], FRAMES_BTH_BECN);
	assert_int_equal(b[14 + 20 + 8 + 4], 0x40);
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)n, (uint32_t)n, &pk),
			 FRAMES_OK);
	assert_int_equal(pk.kind, FRAMES_KIND_CNP);
	n = roce(b, sizeof(b), 0x0a, 0, 64);
	assert_int_equal(b[14 + 20 + 8 + 4], 0);
	/* IPv4 total length beyond the frame */
	n = roce(b, sizeof(b), 0x81, 0, 0);
	b[14 + 2] = 0x05;
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)n, (uint32_t)n, &pk),
			 FRAMES_INVALID);
	/* UDP length beyond the IP payload */
	n = roce(b, sizeof(b), 0x81, 0, 0);
	b[14 + 20 + 4] = 0x7f;
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)n, (uint32_t)n, &pk),
			 FRAMES_INVALID);
	/* IHL below 5 */
	n = roce(b, sizeof(b), 0x81, 0, 0);
	b[14] = 0x44;
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)n, (uint32_t)n, &pk),
			 FRAMES_INVALID);
	/* UDP payload too short for BTH + CNP reserved + ICRC */
	n = roce(b, sizeof(b), 0x81, 0, 0);
	b[14 + 20 + 4] = 0;
	b[14 + 20 + 5] = 8 + 12 + 4;
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)n, (uint32_t)n, &pk),
			 FRAMES_INVALID);
	/* caplen above wirelen */
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, 60, 59, &pk), FRAMES_INVALID);
	/* unknown link type */
	assert_int_equal(frames_decode(999, b, 60, 60, &pk), FRAMES_INVALID);
}

static void test_ipv6_sll(void **state)
{
	/* Linux cooked v1 header, IPv6 with traffic class CE, UDP 4791, CNP */
	uint8_t b[16 + 40 + 8 + 12 + 16 + 4];
	struct frames_pkt pk;
	size_t o = 0;

	(void)state;
	memset(b, 0, sizeof(b));
	b[1] = 4;             /* sent by us */
	b[3] = 1;             /* ARPHRD_ETHER */
	b[5] = 6;
	memcpy(b + 6, l2.src, 6);
	b[14] = 0x86;
	b[15] = 0xdd;
	o = 16;
	b[o] = 0x60 | 0x0;    /* version 6, TC high nibble 0 */
	b[o + 1] = 0x30;      /* TC low nibble 3 -> ECN CE */
	b[o + 5] = 8 + 12 + 16 + 4;
	b[o + 6] = 17;
	b[o + 7] = 64;
	b[o + 23] = 1;
	b[o + 39] = 2;
	o += 40;
	b[o] = 0xc0;
	b[o + 2] = 0x12;
	b[o + 3] = 0xb7;
	b[o + 5] = 8 + 12 + 16 + 4;
	o += 8;
	b[o] = 0x81;
	b[o + 7] = 0x42;
	assert_int_equal(frames_decode(FRAMES_LINK_LINUX_SLL, b, sizeof(b), sizeof(b), &pk),
			 FRAMES_OK);
	assert_int_equal(pk.ipver, 6);
	assert_int_equal(pk.ecn, FRAMES_ECN_CE);
	assert_int_equal(pk.kind, FRAMES_KIND_CNP);
	assert_int_equal(pk.bth_dqp, 0x42);
	assert_memory_equal(pk.src, l2.src, 6);
}

/* Linux cooked v1 as libpcap writes a tagged frame (`tcpdump -i any -y LINUX_SLL`): the
 * tag put back after the header, whose protocol field then says 0x8100. */
static void test_sll_vlan(void **state)
{
	struct frames_l2 t = l2;
	struct frames_roce ro = {
		.src_ip = 0x0a000002, .dst_ip = 0x0a000001, .sport = 0xc000, .ecn = 2,
		.opcode = FRAMES_BTH_OP_CNP, .pkey = 0xffff, .dqp = 0x1a4,
	};
	uint16_t q[8] = { 0, 0, 0, 7 };
	uint8_t e[256], b[256];
	struct frames_pkt pk;
	size_t n;

	(void)state;
	t.vlan = 100;
	t.pcp = 3;
	n = frames_craft_roce(e, sizeof(e), &t, &ro);
	memset(b, 0, 14);
	b[3] = 1;             /* ARPHRD_ETHER */
	b[5] = 6;
	memcpy(b + 6, l2.src, 6);
	memcpy(b + 14, e + 12, n - 12); /* 0x8100, the tag, then the frame's own type */
	n += 4;
	assert_int_equal(frames_decode(FRAMES_LINK_LINUX_SLL, b, (uint32_t)n, (uint32_t)n, &pk),
			 FRAMES_OK);
	assert_int_equal(pk.kind, FRAMES_KIND_CNP);
	assert_int_equal(pk.bth_dqp, 0x1a4);
	assert_int_equal(pk.ntags, 1);
	assert_int_equal(pk.tci[0] & 0xfff, 100);
	assert_int_equal(pk.pcp, 3);

	n = frames_craft_pfc(e, sizeof(e), &t, 0x08, q);
	memcpy(b + 14, e + 12, n - 12);
	n += 4;
	assert_int_equal(frames_decode(FRAMES_LINK_LINUX_SLL, b, (uint32_t)n, (uint32_t)n, &pk),
			 FRAMES_OK);
	assert_int_equal(pk.kind, FRAMES_KIND_PFC);
	assert_int_equal(pk.pfc_enable, 0x08);
	assert_int_equal(pk.pfc_quanta[3], 7);
	assert_memory_equal(pk.src, l2.src, 6);
}

/* The ICRC crafted frames carry is the one rxe computes: check it on the complete RC
 * ACKs rxe sent in the virtual-lab golden capture. */
static void test_icrc_matches_rxe(void **state)
{
	struct pcapf_map m;
	struct pcapf_reader pr;
	struct pcapf_rec rec;
	struct frames_pkt pk;
	int checked = 0;

	(void)state;
	if (pcapf_map_open(&m, "tests/golden/vlab_rxe_cnp/input.pcap"))
		skip();
	assert_int_equal(pcapf_reader_init(&pr, m.p, m.len), 0);
	while (pcapf_reader_next(&pr, &rec) > 0 && checked < 10) {
		const uint8_t *ip = rec.data + 14, *icrc;
		uint32_t want;

		if (frames_decode(rec.ifc->link, rec.data, rec.caplen, rec.wirelen, &pk) !=
		    FRAMES_OK || pk.bth_opcode != 0x11 || rec.caplen != rec.wirelen || pk.ntags)
			continue;
		icrc = rec.data + rec.caplen - 4;
		want = (uint32_t)icrc[0] | (uint32_t)icrc[1] << 8 | (uint32_t)icrc[2] << 16 |
		       (uint32_t)icrc[3] << 24;
		assert_int_equal(frames_roce_icrc(ip, rec.caplen - 14 - 4), want);
		checked++;
	}
	pcapf_map_close(&m);
	assert_true(checked > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pause),
		cmocka_unit_test(test_pfc_vlan),
		cmocka_unit_test(test_qinq),
		cmocka_unit_test(test_roce_cnp),
		cmocka_unit_test(test_cuts),
		cmocka_unit_test(test_invalid_lengths),
		cmocka_unit_test(test_ipv6_sll),
		cmocka_unit_test(test_sll_vlan),
		cmocka_unit_test(test_icrc_matches_rxe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
