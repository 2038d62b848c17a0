// SPDX-License-Identifier: GPL-2.0-or-later
/* test_frames_ecnfilter.c: the capture filter recorded in pcapng (if_filter written by
 * the writer, read back; other filter types, cut or odd strings marked unusable) and the
 * check of which ECN codepoints a filter keeps (pfclab capture --ce: only CE; --roce:
 * all; IPv4, VLAN-tagged and IPv6 packets), and the flows that carry it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "monitor/frames/capture_engine.h"
#include "monitor/frames/craft.h"
#include "monitor/frames/decode.h"
#include "monitor/frames/ecnfilter.h"
#include "monitor/frames/pcapfile.h"
#include "monitor/frames/stats.h"

static const struct frames_l2 l2 = {
	.src = { 2, 0, 0, 0, 0, 1 }, .dst = { 2, 0, 0, 0, 0, 2 }, .vlan = -1,
};

/* ---- pcapng if_filter ------------------------------------------------------------ */

static void put_opt(uint8_t *b, size_t *off, uint16_t code, const void *v, uint16_t len)
{
	memcpy(b + *off, &code, 2);
	memcpy(b + *off + 2, &len, 2);
	memcpy(b + *off + 4, v, len);
	memset(b + *off + 4 + len, 0, (4u - len % 4) % 4);
	*off += 4u + len + (4u - len % 4) % 4;
}

static void put32(uint8_t *b, size_t *off, uint32_t v)
{
	memcpy(b + *off, &v, 4);
	*off += 4;
}

/* A pcapng file in host byte order: a section header, one interface block with the
 * options opts (olen bytes, padded, end of options not included) and one 60-byte
 * packet; `sections` times over. Returns its length. */
static size_t ng_file(uint8_t *b, const uint8_t *opts, size_t olen, int sections)
{
	size_t off = 0, start;
	int s;

	for (s = 0; s < sections; s++) {
		put32(b, &off, 0x0a0d0d0a);
		put32(b, &off, 28);
		put32(b, &off, 0x1a2b3c4d);
		put32(b, &off, 1);            /* major 1, minor 0 */
		put32(b, &off, 0xffffffffu);  /* section length -1 */
		put32(b, &off, 0xffffffffu);
		put32(b, &off, 28);
		start = off;
		put32(b, &off, 1);
		put32(b, &off, (uint32_t)(20 + olen + 4));
		put32(b, &off, FRAMES_LINK_EN10MB);
		put32(b, &off, 256);
		memcpy(b + off, opts, olen);
		off += olen;
		put32(b, &off, 0);            /* end of options */
		put32(b, &off, (uint32_t)(off + 4 - start));
		put32(b, &off, 6);
		put32(b, &off, 32 + 60);
		put32(b, &off, 0);
		put32(b, &off, 0);
		put32(b, &off, (uint32_t)s);
		put32(b, &off, 60);
		put32(b, &off, 60);
		memset(b + off, 0, 60);
		off += 60;
		put32(b, &off, 32 + 60);
	}
	return off;
}

/* Reads the one packet of buf's (first) section; returns its interface. */
static const struct pcapf_if *read_if(struct pcapf_reader *pr, const uint8_t *buf, size_t len)
{
	struct pcapf_rec rec;

	assert_int_equal(pcapf_reader_init(pr, buf, len), 0);
	assert_int_equal(pcapf_reader_next(pr, &rec), 1);
	return rec.ifc;
}

static void test_filter_written_and_read(void **state)
{
	char path[] = "/tmp/pfclab-test-XXXXXX";
	char fbuf[2048];
	struct pcapf_writer w;
	struct pcapf_reader pr;
	struct pcapf_rec rec;
	struct pcapf_map m;
	uint8_t b[128];
	size_t n = frames_craft_pause(b, sizeof(b), &l2, 7);
	int fd = mkstemp(path);
	bool ng;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(frames_cap_filter_build(fbuf, sizeof(fbuf), true, false), 0);
	for (ng = false; ; ng = true) {
		assert_int_equal(pcapf_writer_open(&w, path, ng, FRAMES_LINK_EN10MB, 256), 0);
		assert_int_equal(pcapf_writer_add_if(&w, FRAMES_LINK_EN10MB, 256, "a", 0, fbuf), 0);
		assert_int_equal(pcapf_writer_add_if(&w, FRAMES_LINK_EN10MB, 256, "b", 0, NULL),
				 ng ? 1 : 0);
		assert_int_equal(pcapf_writer_write(&w, 0, 1, b, (uint32_t)n, (uint32_t)n), 0);
		assert_int_equal(pcapf_writer_write(&w, ng ? 1 : 0, 2, b, (uint32_t)n,
						    (uint32_t)n), 0);
		assert_int_equal(pcapf_writer_close(&w), 0);
		assert_int_equal(pcapf_map_open(&m, path), 0);
		assert_int_equal(pcapf_reader_init(&pr, m.p, m.len), 0);
		assert_int_equal(pcapf_reader_next(&pr, &rec), 1);
		/* classic pcap has no place for it */
		assert_int_equal(rec.ifc->has_filter, ng);
		assert_false(rec.ifc->filter_unusable);
		assert_string_equal(rec.ifc->filter, ng ? fbuf : "");
		assert_int_equal(pcapf_reader_next(&pr, &rec), 1);
		assert_false(rec.ifc->has_filter);
		assert_int_equal(pcapf_reader_next(&pr, &rec), 0);
		pcapf_map_close(&m);
		if (ng)
			break;
	}
	/* too long to record */
	{
		char *big = malloc(70000);

		assert_non_null(big);
		memset(big, ' ', 69999);
		big[69999] = 0;
		assert_int_equal(pcapf_writer_open(&w, path, true, FRAMES_LINK_EN10MB, 256), 0);
		assert_int_equal(pcapf_writer_add_if(&w, FRAMES_LINK_EN10MB, 256, "a", 0, big),
				 -E2BIG);
		pcapf_writer_close(&w);
		free(big);
	}
	unlink(path);
}

static void test_filter_odd_options(void **state)
{
	static uint8_t buf[8192];
	uint8_t opt[2048], opts[4096];
	struct pcapf_reader pr;
	const struct pcapf_if *ifc;
	size_t olen, len;

	(void)state;
	/* a libpcap string with a trailing NUL, as some writers add */
	memcpy(opt, "\0udp\0", 5);
	olen = 0;
	put_opt(opts, &olen, 11, opt, 5);
	len = ng_file(buf, opts, olen, 1);
	ifc = read_if(&pr, buf, len);
	assert_true(ifc->has_filter);
	assert_false(ifc->filter_unusable);
	assert_string_equal(ifc->filter, "udp");
	/* the first of two is kept */
	memcpy(opt, "\0tcp", 4);
	put_opt(opts, &olen, 11, opt, 4);
	len = ng_file(buf, opts, olen, 1);
	ifc = read_if(&pr, buf, len);
	assert_string_equal(ifc->filter, "udp");
	/* BPF code (type 1): recorded but not a string */
	memset(opt, 0, 9);
	opt[0] = 1;
	olen = 0;
	put_opt(opts, &olen, 11, opt, 9);
	len = ng_file(buf, opts, olen, 1);
	ifc = read_if(&pr, buf, len);
	assert_true(ifc->has_filter);
	assert_true(ifc->filter_unusable);
	assert_string_equal(ifc->filter, "");
	/* a NUL inside */
	memcpy(opt, "\0udp\0or tcp", 11);
	olen = 0;
	put_opt(opts, &olen, 11, opt, 11);
	ifc = read_if(&pr, buf, ng_file(buf, opts, olen, 1));
	assert_true(ifc->filter_unusable);
	/* longer than the reader keeps */
	opt[0] = 0;
	memset(opt + 1, 'x', PCAPF_FILTER_MAX);
	olen = 0;
	put_opt(opts, &olen, 11, opt, PCAPF_FILTER_MAX + 1);
	ifc = read_if(&pr, buf, ng_file(buf, opts, olen, 1));
	assert_true(ifc->has_filter);
	assert_true(ifc->filter_unusable);
	/* the longest it keeps */
	olen = 0;
	put_opt(opts, &olen, 11, opt, PCAPF_FILTER_MAX);
	ifc = read_if(&pr, buf, ng_file(buf, opts, olen, 1));
	assert_false(ifc->filter_unusable);
	assert_int_equal(strlen(ifc->filter), PCAPF_FILTER_MAX - 1);
	/* an empty if_filter option: no filter type octet, ignored */
	olen = 0;
	put_opt(opts, &olen, 11, opt, 0);
	ifc = read_if(&pr, buf, ng_file(buf, opts, olen, 1));
	assert_false(ifc->has_filter);
	/* none at all; sections are counted */
	{
		struct pcapf_rec rec;

		len = ng_file(buf, opts, 0, 2);
		ifc = read_if(&pr, buf, len);
		assert_false(ifc->has_filter);
		assert_int_equal(pr.sections, 1);
		assert_int_equal(pcapf_reader_next(&pr, &rec), 1);
		assert_int_equal(pr.sections, 2);
		assert_int_equal(pcapf_reader_next(&pr, &rec), 0);
	}
}

/* ---- which ECN codepoints a filter keeps ------------------------------------------- */

static size_t roce4(uint8_t *b, size_t cap, int vlan, uint8_t ecn, struct frames_pkt *pk)
{
	struct frames_l2 t = l2;
	struct frames_roce ro = {
		.src_ip = 0x0a000001, .dst_ip = 0x0a000002, .sport = 0xc000, .ecn = ecn,
		.opcode = 0x04, .pkey = 0xffff, .dqp = 0x11, .payload = 64,
	};
	size_t n;

	t.vlan = vlan;
	n = frames_craft_roce(b, cap, &t, &ro);
	assert_true(n > 0);
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)n, (uint32_t)n, pk),
			 FRAMES_OK);
	assert_int_equal(pk->kind, FRAMES_KIND_ROCE);
	assert_int_equal(pk->ecn, ecn);
	assert_int_equal(pk->ip_off, vlan < 0 ? 14 : 18);
	return n;
}

/* Ethernet | IPv6 (traffic class with ecn) | UDP 4791 | BTH SEND only | 16 | ICRC */
static size_t roce6(uint8_t *b, uint8_t ecn, struct frames_pkt *pk)
{
	uint8_t tc = (uint8_t)(26 << 2 | ecn);
	size_t i;

	memset(b, 0, 14 + 40 + 8 + 12 + 16 + 4);
	memcpy(b, l2.dst, 6);
	memcpy(b + 6, l2.src, 6);
	b[12] = 0x86, b[13] = 0xdd;
	b[14] = (uint8_t)(0x60 | tc >> 4);
	b[15] = (uint8_t)(tc << 4);
	b[19] = 8 + 12 + 16 + 4;     /* payload length */
	b[20] = 17;                  /* next header UDP */
	b[21] = 64;
	for (i = 0; i < 16; i++) {
		b[22 + i] = (uint8_t)(i == 0 ? 0xfd : i == 15 ? 1 : 0);
		b[38 + i] = (uint8_t)(i == 0 ? 0xfd : i == 15 ? 2 : 0);
	}
	b[54] = 0xc0;                /* source port 0xc000 */
	b[56] = 4791 >> 8, b[57] = 4791 & 0xff;
	b[59] = 8 + 12 + 16 + 4;     /* UDP length */
	b[62] = 0x04;                /* BTH: RC SEND only */
	b[64] = 0xff, b[65] = 0xff;  /* pkey */
	b[69] = 0x11;                /* dest QP */
	assert_int_equal(frames_decode(FRAMES_LINK_EN10MB, b, 102, 102, pk), FRAMES_OK);
	assert_int_equal(pk->kind, FRAMES_KIND_ROCE);
	assert_int_equal(pk->ipver, 6);
	assert_int_equal(pk->ecn, ecn);
	return 102;
}

static int kept(const char *filter, const uint8_t *b, size_t n, const struct frames_pkt *pk)
{
	char why[512] = "";
	int rc = frames_filter_ecn_kept(FRAMES_LINK_EN10MB, filter, b, (uint32_t)n, (uint32_t)n,
					pk, why, sizeof(why));

	if (rc < 0)
		assert_true(why[0]);
	return rc;
}

static void test_ecn_kept(void **state)
{
	char ce[2048], roce[2048], dflt[2048];
	struct frames_pkt pk;
	uint8_t b[256], copy[256];
	size_t n;

	(void)state;
	assert_int_equal(frames_cap_filter_build(ce, sizeof(ce), true, false), 0);
	assert_int_equal(frames_cap_filter_build(roce, sizeof(roce), false, true), 0);
	assert_int_equal(frames_cap_filter_build(dflt, sizeof(dflt), false, false), 0);

	/* pfclab capture --ce: only CE, untagged, tagged and over IPv6 */
	n = roce4(b, sizeof(b), -1, FRAMES_ECN_CE, &pk);
	memcpy(copy, b, n);
	assert_int_equal(kept(ce, b, n, &pk), FRAMES_ECN_CE_ONLY);
	assert_memory_equal(b, copy, n); /* the packet itself is left alone */
	n = roce4(b, sizeof(b), 100, FRAMES_ECN_CE, &pk);
	assert_int_equal(kept(ce, b, n, &pk), FRAMES_ECN_CE_ONLY);
	n = roce6(b, FRAMES_ECN_CE, &pk);
	assert_int_equal(kept(ce, b, n, &pk), FRAMES_ECN_CE_ONLY);
	/* --roce, an empty-ish filter, and one on addresses: every codepoint */
	n = roce4(b, sizeof(b), -1, 2, &pk);
	assert_int_equal(kept(roce, b, n, &pk), FRAMES_ECN_ALL);
	assert_int_equal(kept("udp", b, n, &pk), FRAMES_ECN_ALL);
	assert_int_equal(kept("host 10.0.0.1", b, n, &pk), FRAMES_ECN_ALL);
	n = roce6(b, 2, &pk);
	assert_int_equal(kept(roce, b, n, &pk), FRAMES_ECN_ALL);
	/* ECN-capable only (ECT(1), ECT(0), CE) */
	n = roce4(b, sizeof(b), -1, 2, &pk);
	assert_int_equal(kept("ip[1] & 3 != 0", b, n, &pk), 0xe);
	/* the default filter keeps CNPs, not this packet: nothing to tell */
	assert_int_equal(kept(dflt, b, n, &pk), -ENODATA);
	/* the filter reads the UDP port, past the 30 bytes kept */
	assert_int_equal(frames_filter_ecn_kept(FRAMES_LINK_EN10MB, roce, b, 30, (uint32_t)n,
						&pk, (char[64]){ 0 }, 64), -ENODATA);
	/* not a filter; not an IP packet */
	assert_int_equal(kept("udp and and", b, n, &pk), -EINVAL);
	n = frames_craft_pause(b, sizeof(b), &l2, 1);
	frames_decode(FRAMES_LINK_EN10MB, b, (uint32_t)n, (uint32_t)n, &pk);
	assert_int_equal(kept("udp", b, n, &pk), -EINVAL);
}

/* A flow carries what the filters of its packets dropped. */
static void test_flow_ecn_filtered(void **state)
{
	struct frames_stats st;
	struct frames_pkt pk;
	const struct frames_flow_stats *f = NULL;
	uint8_t b[256];
	size_t i;

	(void)state;
	frames_stats_init(&st, 0, 1000000, 0);
	roce4(b, sizeof(b), -1, FRAMES_ECN_CE, &pk);
	frames_stats_add(&st, 1, &pk, 0);
	for (i = 0; i < st.flows.cap && !f; i++)
		f = frames_table_slot(&st.flows, i);
	if (!f)
		fail_msg("no flow record");
	assert_int_equal(f->ecn_filtered, 0);
	st.ecn_filtered = (uint8_t)(FRAMES_ECN_ALL & ~FRAMES_ECN_CE_ONLY);
	frames_stats_add(&st, 2, &pk, 0);
	st.ecn_filtered = 0;
	frames_stats_add(&st, 3, &pk, 0);
	assert_int_equal(f->ecn_filtered, FRAMES_ECN_ALL & ~FRAMES_ECN_CE_ONLY);
	assert_int_equal(f->packets, 3);
	assert_int_equal(f->ect, 3);
	assert_int_equal(f->ce, 3);
	frames_stats_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_written_and_read),
		cmocka_unit_test(test_filter_odd_options),
		cmocka_unit_test(test_ecn_kept),
		cmocka_unit_test(test_flow_ecn_filtered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
