// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_xchg.c: exchange message encode/decode, including truncated, oversized,
 * wrong-magic, wrong-version and invalid-field messages, and parameter agreement.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/util.h"
#include "traffic/xchg.h"

static void sample_hello(struct xchg_msg *m)
{
	struct xchg_hello *h = &m->u.hello;
	uint32_t i;

	memset(m, 0, sizeof(*m));
	m->type = XCHG_HELLO;
	m->auth.flags = XCHG_AUTH_PSK;
	for (i = 0; i < XCHG_NONCE_LEN; i++)
		m->auth.nonce[i] = (uint8_t)(0xa0 + i);
	h->role = 1;
	h->flags = XCHG_F_BIDIR;
	h->qps = 4;
	h->nsizes = 2;
	h->sizes[0] = 64;
	h->sizes[1] = 65536;
	h->count = 2000000000ULL;
}

static void sample_endpoint(struct xchg_msg *m)
{
	struct xchg_hello *h = &m->u.hello;
	uint32_t i;

	memset(m, 0, sizeof(*m));
	m->type = XCHG_ENDPOINT;
	h->qps = 4;
	h->lid = 0;
	for (i = 0; i < 16; i++)
		h->gid[i] = (uint8_t)i;
	h->mtu = 3;
	h->rkey = 0x1234;
	h->addr = 0x7f0000001000ULL;
	h->len = 4 * 65536;
	for (i = 0; i < h->qps; i++) {
		h->qp[i].qpn = 0x11 + i;
		h->qp[i].psn = 0xabcdef - i;
	}
}

static void test_roundtrip(void **state)
{
	uint8_t buf[XCHG_HDR_LEN + XCHG_MAX_BODY];
	struct xchg_msg m, out;
	char why[256];
	int len;

	(void)state;
	sample_hello(&m);
	len = xchg_encode(&m, buf, sizeof(buf));
	assert_true(len > XCHG_HDR_LEN);
	assert_int_equal(buf[0], 'P');
	assert_int_equal(buf[3], 'T');
	assert_int_equal(buf[5], XCHG_VERSION);
	assert_int_equal(xchg_decode(buf, (size_t)len, &out, why, sizeof(why)), 0);
	assert_int_equal(out.type, XCHG_HELLO);
	assert_int_equal(out.auth.flags, XCHG_AUTH_PSK);
	assert_memory_equal(out.auth.nonce, m.auth.nonce, XCHG_NONCE_LEN);
	assert_int_equal(out.u.hello.qps, 4);
	assert_int_equal(out.u.hello.sizes[1], 65536);
	assert_int_equal(out.u.hello.count, 2000000000ULL);
	/* The memory key never travels in a HELLO. */
	assert_int_equal(out.u.hello.rkey, 0);
	assert_int_equal(out.u.hello.addr, 0);

	sample_endpoint(&m);
	len = xchg_encode(&m, buf, sizeof(buf));
	assert_int_equal(xchg_decode(buf, (size_t)len, &out, why, sizeof(why)), 0);
	assert_int_equal(out.type, XCHG_ENDPOINT);
	assert_int_equal(out.u.hello.qps, 4);
	assert_int_equal(out.u.hello.rkey, 0x1234);
	assert_int_equal(out.u.hello.addr, 0x7f0000001000ULL);
	assert_int_equal(out.u.hello.qp[3].qpn, 0x14);
	assert_int_equal(out.u.hello.qp[3].psn, 0xabcdef - 3);

	memset(&m, 0, sizeof(m));
	m.type = XCHG_PROOF;
	memset(m.auth.mac, 0x5a, XCHG_MAC_LEN);
	len = xchg_encode(&m, buf, sizeof(buf));
	assert_int_equal(len, XCHG_HDR_LEN + XCHG_MAC_LEN);
	assert_int_equal(xchg_decode(buf, (size_t)len, &out, why, sizeof(why)), 0);
	assert_memory_equal(out.auth.mac, m.auth.mac, XCHG_MAC_LEN);

	m.type = XCHG_PING;
	len = xchg_encode(&m, buf, sizeof(buf));
	assert_int_equal(len, XCHG_HDR_LEN);
	assert_int_equal(xchg_decode(buf, (size_t)len, &out, why, sizeof(why)), 0);
	assert_int_equal(out.type, XCHG_PING);
}

static void test_truncated(void **state)
{
	uint8_t buf[XCHG_HDR_LEN + XCHG_MAX_BODY];
	struct xchg_msg m, out;
	char why[256];
	int len, cut, k;

	(void)state;
	for (k = 0; k < 2; k++) {
		if (k)
			sample_endpoint(&m);
		else
			sample_hello(&m);
		len = xchg_encode(&m, buf, sizeof(buf));
		/* Every prefix is rejected, never read past its end (ASan build checks that). */
		for (cut = 0; cut < len; cut++) {
			int rc = xchg_decode(buf, (size_t)cut, &out, why, sizeof(why));

			assert_int_equal(rc, -EAGAIN);
		}
		assert_non_null(strstr(why, "truncated"));
		/* The header says a longer body than the fields need: lengths disagree. */
		buf[11] = (uint8_t)(buf[11] + 2);
		memset(buf + len, 0, 2);
		assert_int_equal(xchg_decode(buf, (size_t)len + 2, &out, why, sizeof(why)), -EPROTO);
		assert_non_null(strstr(why, "beyond its fields"));
		/* Body length field shorter than the fields. */
		len = xchg_encode(&m, buf, sizeof(buf));
		buf[11] = (uint8_t)(buf[11] - 4);
		assert_int_equal(xchg_decode(buf, (size_t)len - 4, &out, why, sizeof(why)), -EPROTO);
		assert_non_null(strstr(why, "shorter than its fields"));
		/* Trailing bytes after a whole message. */
		len = xchg_encode(&m, buf, sizeof(buf));
		assert_int_equal(xchg_decode(buf, (size_t)len + 1, &out, why, sizeof(why)), -EPROTO);
	}
	/* A partial header: fewer than 4 bytes never count as a bad magic. */
	assert_int_equal(xchg_decode("PF", 2, &out, why, sizeof(why)), -EAGAIN);
	assert_non_null(strstr(why, "truncated header: 2 of 12"));
}

static void test_bad_headers(void **state)
{
	uint8_t buf[XCHG_HDR_LEN + XCHG_MAX_BODY];
	struct xchg_msg m, out;
	uint32_t blen;
	uint8_t type;
	char why[256];
	int len;

	(void)state;
	sample_hello(&m);
	len = xchg_encode(&m, buf, sizeof(buf));

	/* Wrong magic: e.g. an HTTP request or a perftest peer. */
	memcpy(buf, "GET / HTTP/1.0\r\n", 16);
	assert_int_equal(xchg_decode(buf, 16, &out, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "bad magic"));
	assert_int_equal(xchg_header_decode(buf, 4, &type, &blen, why, sizeof(why)), -EBADMSG);

	/* Wrong version (1 is the exchange without keys). */
	len = xchg_encode(&m, buf, sizeof(buf));
	buf[5] = 1;
	assert_int_equal(xchg_decode(buf, (size_t)len, &out, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "version 1"));

	/* Oversized: the header alone is enough to refuse it. */
	len = xchg_encode(&m, buf, sizeof(buf));
	buf[8] = 0x7f;
	assert_int_equal(xchg_header_decode(buf, XCHG_HDR_LEN, &type, &blen, why, sizeof(why)),
			 -EMSGSIZE);
	assert_int_equal(xchg_decode(buf, (size_t)len, &out, why, sizeof(why)), -EMSGSIZE);
	assert_non_null(strstr(why, "oversized"));

	/* Unknown type and nonzero reserved byte. */
	len = xchg_encode(&m, buf, sizeof(buf));
	buf[6] = 99;
	assert_int_equal(xchg_decode(buf, (size_t)len, &out, why, sizeof(why)), -EPROTO);
	buf[6] = 0;
	assert_int_equal(xchg_decode(buf, (size_t)len, &out, why, sizeof(why)), -EPROTO);
	buf[6] = XCHG_HELLO;
	buf[7] = 1;
	assert_int_equal(xchg_decode(buf, (size_t)len, &out, why, sizeof(why)), -EPROTO);

	/* Encoding into a too small buffer. */
	assert_int_equal(xchg_encode(&m, buf, 20), -EMSGSIZE);
}

/* Field offsets inside an encoded HELLO body (see xchg.c): key mode, nonce, mac, then
 * the parameters at P.
 */
#define B(off) (XCHG_HDR_LEN + (off))
#define P (1 + XCHG_NONCE_LEN + XCHG_MAC_LEN)

static void test_bad_fields(void **state)
{
	uint8_t buf[XCHG_HDR_LEN + XCHG_MAX_BODY], ref[XCHG_HDR_LEN + XCHG_MAX_BODY];
	struct {
		int endpoint;
		size_t off;
		uint8_t val;
		const char *why_has;
	} cases[] = {
		{ 0, B(0), 2, "key mode" },
		{ 0, B(P + 0), 2, "role" },
		{ 0, B(P + 1), 0x80, "unknown flags" },
		{ 0, B(P + 2), 0x10, "QPs" },		/* qps = 0x1004 */
		{ 0, B(P + 4), 0, "message sizes" },	/* nsizes = 0 */
		{ 0, B(P + 5), 0x10, "out of range" },	/* sizes[0] = 0x10000040 */
		{ 1, B(0), 0x10, "QPs" },
		{ 1, B(2 + 2 + 16), 9, "MTU" },
		{ 1, B(2 + 2 + 16 + 1 + 4), 0xff, "wraps" },	/* addr 2^64-1 + len */
		{ 1, B(2 + 2 + 16 + 1 + 4 + 8 + 8), 0, "number 0" },	/* QP 0: qpn 0x000011 -> 0 */
	};
	struct xchg_msg m, out;
	char why[256];
	size_t i;
	int len;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int rc;

		if (cases[i].endpoint)
			sample_endpoint(&m);
		else
			sample_hello(&m);
		len = xchg_encode(&m, ref, sizeof(ref));
		memcpy(buf, ref, (size_t)len);
		buf[cases[i].off] = cases[i].val;
		if (cases[i].endpoint && !strcmp(cases[i].why_has, "number 0"))
			buf[cases[i].off + 2] = 0;
		if (!strcmp(cases[i].why_has, "wraps"))
			memset(buf + cases[i].off, 0xff, 8);
		rc = xchg_decode(buf, (size_t)len, &out, why, sizeof(why));
		if (rc != -EPROTO)
			fail_msg("case %zu: rc %d (%s)", i, rc, why);
		if (!strstr(why, cases[i].why_has))
			fail_msg("case %zu: '%s' lacks '%s'", i, why, cases[i].why_has);
	}

	/* A peer buffer too small for the agreed QPs and sizes. */
	sample_hello(&m);
	sample_endpoint(&out);
	out.u.hello.len = 100;
	assert_int_equal(xchg_endpoint_check(&m.u.hello, &out.u.hello, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "cannot hold"));
	out.u.hello.len = 4 * 65536;
	assert_int_equal(xchg_endpoint_check(&m.u.hello, &out.u.hello, why, sizeof(why)), 0);
	out.u.hello.qps = 3;
	assert_int_equal(xchg_endpoint_check(&m.u.hello, &out.u.hello, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "3 QPs"));

	/* Out-of-range fields are refused at encode time too. */
	sample_endpoint(&m);
	m.u.hello.qp[0].qpn = 0x1000000;
	assert_int_equal(xchg_encode(&m, buf, sizeof(buf)), -EINVAL);
	sample_hello(&m);
	m.auth.flags = 0x80;
	assert_int_equal(xchg_encode(&m, buf, sizeof(buf)), -EINVAL);

	/* ABORT: over-long reason, and control characters made harmless. */
	memset(&m, 0, sizeof(m));
	m.type = XCHG_ABORT;
	strcpy(m.u.reason, "bad\033[2Jthing");
	len = xchg_encode(&m, buf, sizeof(buf));
	assert_int_equal(xchg_decode(buf, (size_t)len, &out, why, sizeof(why)), 0);
	assert_string_equal(out.u.reason, "bad?[2Jthing");
	buf[B(0)] = 0x01;	/* reason length 256 + n */
	assert_int_equal(xchg_decode(buf, (size_t)len, &out, why, sizeof(why)), -EPROTO);

	/* PROOF of the wrong length, PING with a body. */
	memset(&m, 0, sizeof(m));
	m.type = XCHG_PROOF;
	len = xchg_encode(&m, buf, sizeof(buf));
	buf[11] = XCHG_MAC_LEN - 1;
	assert_int_equal(xchg_decode(buf, (size_t)len - 1, &out, why, sizeof(why)), -EPROTO);
	m.type = XCHG_PING;
	len = xchg_encode(&m, buf, sizeof(buf));
	buf[11] = 1;
	buf[len] = 0;
	assert_int_equal(xchg_decode(buf, (size_t)len + 1, &out, why, sizeof(why)), -EPROTO);
}

static void test_compare(void **state)
{
	struct traffic_opts o;
	struct xchg_hello a, b;
	char why[256];

	(void)state;
	memset(&o, 0, sizeof(o));
	o.qps = 2;
	o.nsizes = 1;
	o.sizes[0] = 65536;
	o.duration_ns = 1000000000ULL;
	xchg_hello_from_opts(&a, &o);
	o.host = "10.0.0.1";
	xchg_hello_from_opts(&b, &o);
	assert_int_equal(xchg_hello_compare(&a, &b, why, sizeof(why)), 0);

	b.role = 0;
	assert_int_equal(xchg_hello_compare(&a, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "both sides are servers"));
	b.role = 1;

	b.sizes[0] = 4096;
	assert_int_equal(xchg_hello_compare(&a, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "here 65536, peer 4096"));
	b.sizes[0] = 65536;

	b.qps = 4;
	assert_int_equal(xchg_hello_compare(&a, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "QPs (-q): here 2, peer 4"));
	b.qps = 2;

	b.flags |= XCHG_F_BIDIR;
	assert_int_equal(xchg_hello_compare(&a, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "mode"));
	b.flags = a.flags | XCHG_F_IMM;
	assert_int_equal(xchg_hello_compare(&a, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "opcode"));
	b.flags = a.flags;
	b.count = 7;
	assert_int_equal(xchg_hello_compare(&a, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "run length"));
}

/* Random bytes, and random corruptions of a valid message: decode never reads out of
 * bounds (the ASan build checks) and never accepts a message with a bad header.
 */
static void test_random(void **state)
{
	uint8_t buf[XCHG_HDR_LEN + XCHG_MAX_BODY], ref[XCHG_HDR_LEN + XCHG_MAX_BODY];
	struct xchg_msg m, out;
	char why[256];
	int i, j, len, accepted = 0, refused = 0;
	size_t n;

	(void)state;
	srand(12345);
	for (i = 0; i < 2000; i++) {
		n = (size_t)rand() % 200;
		for (j = 0; j < (int)n; j++)
			buf[j] = (uint8_t)rand();
		if (xchg_decode(buf, n, &out, why, sizeof(why)) == 0)
			assert_true(n >= XCHG_HDR_LEN && !memcmp(buf, "PFCT", 4));
	}
	sample_endpoint(&m);
	len = xchg_encode(&m, ref, sizeof(ref));
	for (i = 0; i < 5000; i++) {
		memcpy(buf, ref, (size_t)len);
		for (j = 0; j < 1 + rand() % 4; j++)
			buf[rand() % len] = (uint8_t)rand();
		n = (size_t)(rand() % 3 ? len : rand() % (len + 1));
		why[0] = '\0';
		if (xchg_decode(buf, n, &out, why, sizeof(why)) == 0) {
			/* what was accepted encodes back to the very bytes read */
			uint8_t again[XCHG_HDR_LEN + XCHG_MAX_BODY];
			int alen = xchg_encode(&out, again, sizeof(again));

			assert_int_equal(alen, (int)n);
			assert_memory_equal(again, buf, n);
			accepted++;
		} else {
			assert_true(why[0] != '\0'); /* a refusal always says why */
			refused++;
		}
	}
	/* mutations hit both outcomes: a fuzz loop that only ever refuses tests little */
	assert_true(accepted > 0 && refused > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_bad_fields),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
