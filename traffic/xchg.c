// SPDX-License-Identifier: GPL-2.0-or-later
/* xchg.c: encodes and decodes the out-of-band exchange messages (layout in xchg.h);
 * every received byte goes through the bounds-checked reader of lib/rd.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/rd.h"
#include "lib/util.h"
#include "traffic/xchg.h"

const char *xchg_type_name(uint8_t type)
{
	switch (type) {
	case XCHG_HELLO: return "HELLO";
	case XCHG_READY: return "READY";
	case XCHG_STATS: return "STATS";
	case XCHG_DONE: return "DONE";
	case XCHG_ABORT: return "ABORT";
	case XCHG_PROOF: return "PROOF";
	case XCHG_ENDPOINT: return "ENDPOINT";
	case XCHG_PING: return "PING";
	}
	return "unknown";
}

static void put_counters(struct wr *w, const struct xchg_counters *c)
{
	wr_be32(w, c->phase);
	wr_be32(w, c->flags);
	wr_be64(w, c->elapsed_ns);
	wr_be64(w, c->bytes);
	wr_be64(w, c->msgs);
	wr_be64(w, c->completions);
	wr_be64(w, c->errors);
}

static bool params_valid_to_send(const struct xchg_hello *h)
{
	return h->qps >= 1 && h->qps <= TRAFFIC_MAX_QPS && h->nsizes >= 1 &&
	       h->nsizes <= TRAFFIC_MAX_SIZES && h->role <= 1 && !(h->flags & ~XCHG_F_ALL);
}

static bool endpoint_valid_to_send(const struct xchg_hello *h)
{
	uint32_t i;

	if (h->qps < 1 || h->qps > TRAFFIC_MAX_QPS)
		return false;
	for (i = 0; i < h->qps; i++)
		if (h->qp[i].qpn > 0xffffff || h->qp[i].psn > 0xffffff)
			return false;
	return true;
}

static void put_params(struct wr *w, const struct xchg_hello *h)
{
	uint32_t i;

	wr_u8(w, h->role);
	wr_u8(w, h->flags);
	wr_be16(w, h->qps);
	wr_u8(w, h->nsizes);
	for (i = 0; i < h->nsizes; i++)
		wr_be32(w, h->sizes[i]);
	wr_be64(w, h->count);
	wr_be64(w, h->warmup_ns);
}

int xchg_params_encode(const struct xchg_hello *h, uint8_t *buf, size_t cap)
{
	struct wr w = wr_init(buf, cap);

	if (!params_valid_to_send(h))
		return -EINVAL;
	put_params(&w, h);
	return w.bad ? -EMSGSIZE : (int)w.off;
}

static void put_endpoint(struct wr *w, const struct xchg_hello *h)
{
	uint32_t i;

	wr_be16(w, h->qps);
	wr_be16(w, h->lid);
	wr_bytes(w, h->gid, sizeof(h->gid));
	wr_u8(w, h->mtu);
	wr_be32(w, h->rkey);
	wr_be64(w, h->addr);
	wr_be64(w, h->len);
	for (i = 0; i < h->qps; i++) {
		wr_be24(w, h->qp[i].qpn);
		wr_be24(w, h->qp[i].psn);
	}
}

/* Writes m's body; false for a message this side must not send. */
static bool put_body(struct wr *w, const struct xchg_msg *m)
{
	size_t rlen;

	switch (m->type) {
	case XCHG_HELLO:
		if (!params_valid_to_send(&m->u.hello) || (m->auth.flags & ~XCHG_AUTH_PSK))
			return false;
		wr_u8(w, m->auth.flags);
		wr_bytes(w, m->auth.nonce, XCHG_NONCE_LEN);
		wr_bytes(w, m->auth.mac, XCHG_MAC_LEN);
		put_params(w, &m->u.hello);
		return true;
	case XCHG_PROOF:
		wr_bytes(w, m->auth.mac, XCHG_MAC_LEN);
		return true;
	case XCHG_ENDPOINT:
		if (!endpoint_valid_to_send(&m->u.hello))
			return false;
		put_endpoint(w, &m->u.hello);
		return true;
	case XCHG_READY:
		wr_be32(w, m->u.phase);
		return true;
	case XCHG_STATS:
	case XCHG_DONE:
		put_counters(w, &m->u.ctr);
		return true;
	case XCHG_ABORT:
		rlen = strnlen(m->u.reason, XCHG_MAX_REASON);
		wr_be16(w, (uint16_t)rlen);
		wr_bytes(w, m->u.reason, rlen);
		return true;
	case XCHG_PING:
		return true;
	}
	return false;
}

int xchg_encode(const struct xchg_msg *m, void *buf, size_t cap)
{
	struct wr w = wr_init(buf, cap);
	size_t body_at, body_len;

	wr_be32(&w, XCHG_MAGIC);
	wr_be16(&w, XCHG_VERSION);
	wr_u8(&w, m->type);
	wr_u8(&w, 0);
	wr_be32(&w, 0);		/* body length, patched below */
	body_at = w.off;
	if (!put_body(&w, m))
		return -EINVAL;
	if (w.bad)
		return -EMSGSIZE;
	body_len = w.off - body_at;
	if (body_len > XCHG_MAX_BODY)
		return -EMSGSIZE;
	((uint8_t *)buf)[8] = (uint8_t)(body_len >> 24);
	((uint8_t *)buf)[9] = (uint8_t)(body_len >> 16);
	((uint8_t *)buf)[10] = (uint8_t)(body_len >> 8);
	((uint8_t *)buf)[11] = (uint8_t)body_len;
	return (int)w.off;
}

int xchg_header_decode(const void *buf, size_t len, uint8_t *type, uint32_t *body_len,
		       char *why, size_t n)
{
	struct rd r = rd_init(buf, len);
	uint32_t magic, blen;
	uint16_t ver;
	uint8_t t, rsvd;

	magic = rd_be32(&r);
	ver = rd_be16(&r);
	t = rd_u8(&r);
	rsvd = rd_u8(&r);
	blen = rd_be32(&r);
	/* A wrong magic is the most useful thing to say even on a short read. */
	if (len >= 4 && magic != XCHG_MAGIC)
		return pfc_why(why, n, -EBADMSG,
			       "not a pfclab traffic peer: bad magic 0x%08" PRIx32 " (expected 0x%08x)",
			       magic, XCHG_MAGIC);
	if (!rd_ok(&r))
		return pfc_why(why, n, -EAGAIN, "truncated header: %zu of %d bytes", len, XCHG_HDR_LEN);
	if (ver != XCHG_VERSION)
		return pfc_why(why, n, -EPROTONOSUPPORT,
			       "peer speaks exchange version %u, this pfclab speaks %d: run the same pfclab version on both hosts",
			       ver, XCHG_VERSION);
	if (blen > XCHG_MAX_BODY)
		return pfc_why(why, n, -EMSGSIZE, "oversized message: body of %" PRIu32 " bytes (limit %d)",
			       blen, XCHG_MAX_BODY);
	if (rsvd != 0)
		return pfc_why(why, n, -EPROTO, "reserved header byte is 0x%02x, expected 0", rsvd);
	if (t < XCHG_HELLO || t > XCHG_PING)
		return pfc_why(why, n, -EPROTO, "unknown message type %u", t);
	*type = t;
	*body_len = blen;
	return 0;
}

static int decode_params(struct rd *r, struct xchg_hello *h, char *why, size_t n)
{
	uint32_t i;

	h->role = rd_u8(r);
	h->flags = rd_u8(r);
	h->qps = rd_be16(r);
	h->nsizes = rd_u8(r);
	if (!rd_ok(r))
		return pfc_why(why, n, -EAGAIN, "HELLO truncated in its parameters");
	if (h->role > 1)
		return pfc_why(why, n, -EPROTO, "HELLO: role %u is neither server (0) nor client (1)", h->role);
	if (h->flags & ~XCHG_F_ALL)
		return pfc_why(why, n, -EPROTO, "HELLO: unknown flags 0x%02x", h->flags & ~XCHG_F_ALL);
	if (h->qps < 1 || h->qps > TRAFFIC_MAX_QPS)
		return pfc_why(why, n, -EPROTO, "HELLO: %u QPs, expected 1..%d", h->qps, TRAFFIC_MAX_QPS);
	if (h->nsizes < 1 || h->nsizes > TRAFFIC_MAX_SIZES)
		return pfc_why(why, n, -EPROTO, "HELLO: %u message sizes, expected 1..%d", h->nsizes,
			       TRAFFIC_MAX_SIZES);
	for (i = 0; i < h->nsizes; i++) {
		h->sizes[i] = rd_be32(r);
		if (rd_ok(r) && (h->sizes[i] < 1 || h->sizes[i] > TRAFFIC_MAX_MSG))
			return pfc_why(why, n, -EPROTO, "HELLO: message size %" PRIu32 " out of range",
				       h->sizes[i]);
	}
	h->count = rd_be64(r);
	h->warmup_ns = rd_be64(r);
	if (!rd_ok(r))
		return pfc_why(why, n, -EAGAIN, "HELLO truncated");
	if (h->count == 0)
		return pfc_why(why, n, -EPROTO, "HELLO: zero %s", h->flags & XCHG_F_ITERS ? "iterations" : "duration");
	return 0;
}

static int decode_hello(struct rd *r, struct xchg_msg *m, char *why, size_t n)
{
	m->auth.flags = rd_u8(r);
	rd_bytes(r, m->auth.nonce, XCHG_NONCE_LEN);
	rd_bytes(r, m->auth.mac, XCHG_MAC_LEN);
	if (!rd_ok(r))
		return pfc_why(why, n, -EAGAIN, "HELLO truncated in its key fields");
	if (m->auth.flags & ~XCHG_AUTH_PSK)
		return pfc_why(why, n, -EPROTO, "HELLO: unknown key mode 0x%02x", m->auth.flags);
	return decode_params(r, &m->u.hello, why, n);
}

static int decode_endpoint(struct rd *r, struct xchg_hello *h, char *why, size_t n)
{
	uint32_t i;

	h->qps = rd_be16(r);
	if (rd_ok(r) && (h->qps < 1 || h->qps > TRAFFIC_MAX_QPS))
		return pfc_why(why, n, -EPROTO, "ENDPOINT: %u QPs, expected 1..%d", h->qps, TRAFFIC_MAX_QPS);
	h->lid = rd_be16(r);
	rd_bytes(r, h->gid, sizeof(h->gid));
	h->mtu = rd_u8(r);
	h->rkey = rd_be32(r);
	h->addr = rd_be64(r);
	h->len = rd_be64(r);
	for (i = 0; i < h->qps && rd_ok(r); i++) {
		h->qp[i].qpn = rd_be24(r);
		h->qp[i].psn = rd_be24(r);
		if (rd_ok(r) && h->qp[i].qpn == 0)
			return pfc_why(why, n, -EPROTO, "ENDPOINT: QP %u has number 0", i);
	}
	if (!rd_ok(r))
		return pfc_why(why, n, -EAGAIN, "ENDPOINT truncated");
	if (h->mtu < 1 || h->mtu > 5)
		return pfc_why(why, n, -EPROTO, "ENDPOINT: MTU code %u, expected 1..5 (256..4096)", h->mtu);
	if (h->len == 0)
		return pfc_why(why, n, -EPROTO, "ENDPOINT: empty peer buffer");
	if (h->addr > UINT64_MAX - h->len)
		return pfc_why(why, n, -EPROTO, "ENDPOINT: buffer address range wraps");
	return 0;
}

int xchg_endpoint_check(const struct xchg_hello *p, const struct xchg_hello *ep, char *why, size_t n)
{
	uint32_t i, max = 0;

	if (ep->qps != p->qps)
		return pfc_why(why, n, -EPROTO, "peer's ENDPOINT has %u QPs, the agreed run %u", ep->qps,
			       p->qps);
	for (i = 0; i < p->nsizes; i++)
		if (p->sizes[i] > max)
			max = p->sizes[i];
	if (ep->len < (uint64_t)p->qps * max)
		return pfc_why(why, n, -EPROTO,
			       "peer buffer of %" PRIu64 " bytes cannot hold %u QPs x %" PRIu32 " bytes",
			       ep->len, p->qps, max);
	return 0;
}

static int decode_counters(struct rd *body, struct xchg_msg *m, char *why, size_t n)
{
	struct xchg_counters *c = &m->u.ctr;

	c->phase = rd_be32(body);
	c->flags = rd_be32(body);
	c->elapsed_ns = rd_be64(body);
	c->bytes = rd_be64(body);
	c->msgs = rd_be64(body);
	c->completions = rd_be64(body);
	c->errors = rd_be64(body);
	if (rd_ok(body) && (c->flags & ~(uint32_t)XCHG_CTR_STOPPED))
		return pfc_why(why, n, -EPROTO, "%s: unknown flags 0x%" PRIx32, xchg_type_name(m->type),
			       c->flags);
	if (rd_ok(body) && c->phase >= TRAFFIC_MAX_SIZES)
		return pfc_why(why, n, -EPROTO, "%s for phase %" PRIu32, xchg_type_name(m->type), c->phase);
	return 0;
}

static int decode_abort(struct rd *body, struct xchg_msg *m, char *why, size_t n)
{
	uint16_t rlen;
	size_t i;

	rlen = rd_be16(body);
	if (rd_ok(body) && rlen > XCHG_MAX_REASON)
		return pfc_why(why, n, -EPROTO, "ABORT reason of %u bytes (max %d)", rlen, XCHG_MAX_REASON);
	if (!rd_bytes(body, m->u.reason, rlen))
		return 0;	/* reported as short by the caller */
	/* The reason is printed on our terminal: printable ASCII only. */
	for (i = 0; i < rlen; i++)
		if (m->u.reason[i] < 0x20 || m->u.reason[i] > 0x7e)
			m->u.reason[i] = '?';
	m->u.reason[rlen] = '\0';
	return 0;
}

static int decode_body(struct rd *body, struct xchg_msg *m, char *why, size_t n)
{
	switch (m->type) {
	case XCHG_HELLO:
		return decode_hello(body, m, why, n);
	case XCHG_PROOF:
		rd_bytes(body, m->auth.mac, XCHG_MAC_LEN);
		return 0;
	case XCHG_ENDPOINT:
		return decode_endpoint(body, &m->u.hello, why, n);
	case XCHG_READY:
		m->u.phase = rd_be32(body);
		if (m->u.phase >= TRAFFIC_MAX_SIZES && rd_ok(body))
			return pfc_why(why, n, -EPROTO, "READY for phase %" PRIu32 " (max %d)", m->u.phase,
				       TRAFFIC_MAX_SIZES - 1);
		return 0;
	case XCHG_STATS:
	case XCHG_DONE:
		return decode_counters(body, m, why, n);
	case XCHG_ABORT:
		return decode_abort(body, m, why, n);
	}
	return 0;	/* PING: empty */
}

int xchg_decode(const void *buf, size_t len, struct xchg_msg *m, char *why, size_t n)
{
	struct rd r = rd_init(buf, len), body;
	uint32_t blen;
	uint8_t type;
	int rc;

	rc = xchg_header_decode(buf, len, &type, &blen, why, n);
	if (rc)
		return rc;
	rd_skip(&r, XCHG_HDR_LEN);
	if (!rd_sub(&r, blen, &body))
		return pfc_why(why, n, -EAGAIN, "truncated %s: body has %zu of %" PRIu32 " bytes",
			       xchg_type_name(type), len - XCHG_HDR_LEN, blen);
	if (rd_left(&r))
		return pfc_why(why, n, -EPROTO, "%zu bytes after the %s message", rd_left(&r),
			       xchg_type_name(type));
	memset(m, 0, sizeof(*m));
	m->type = type;
	rc = decode_body(&body, m, why, n);
	/* A field that ran past the body's end: the header's length was too short. */
	if (rc == -EAGAIN || (!rc && !rd_ok(&body)))
		return pfc_why(why, n, -EPROTO, "%s body of %" PRIu32 " bytes is shorter than its fields",
			       xchg_type_name(type), blen);
	if (rc)
		return rc;
	if (rd_left(&body))
		return pfc_why(why, n, -EPROTO, "%s body has %zu bytes beyond its fields (lengths disagree)",
			       xchg_type_name(type), rd_left(&body));
	return 0;
}

void xchg_hello_from_opts(struct xchg_hello *h, const struct traffic_opts *o)
{
	uint32_t i;

	memset(h, 0, sizeof(*h));
	h->role = o->host ? 1 : 0;
	h->flags = (uint8_t)((o->bidir ? XCHG_F_BIDIR : 0) | (o->imm ? XCHG_F_IMM : 0) |
			     (o->duration_ns ? 0 : XCHG_F_ITERS));
	h->qps = (uint16_t)o->qps;
	h->nsizes = (uint8_t)o->nsizes;
	for (i = 0; i < o->nsizes; i++)
		h->sizes[i] = o->sizes[i];
	h->count = o->duration_ns ? o->duration_ns : o->iters;
	h->warmup_ns = o->warmup_ns;
}

static void fmt_sizes(const struct xchg_hello *h, char *buf, size_t n)
{
	size_t off = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < h->nsizes && off < n; i++)
		off += (size_t)snprintf(buf + off, n - off, "%s%" PRIu32, i ? "," : "", h->sizes[i]);
}

static const char *mode_name(uint8_t flags)
{
	return flags & XCHG_F_BIDIR ? "bidirectional (-b)" : "one-way";
}

int xchg_hello_compare(const struct xchg_hello *a, const struct xchg_hello *b, char *why, size_t n)
{
	char sa[96], sb[96];

	if (a->role == b->role)
		return pfc_why(why, n, -EPROTO, "both sides are %s: exactly one side gives HOST",
			       a->role ? "clients" : "servers");
	if (a->nsizes != b->nsizes ||
	    memcmp(a->sizes, b->sizes, a->nsizes * sizeof(a->sizes[0]))) {
		fmt_sizes(a, sa, sizeof(sa));
		fmt_sizes(b, sb, sizeof(sb));
		return pfc_why(why, n, -EPROTO, "parameter mismatch: message size (-s/-a): here %s, peer %s",
			       sa, sb);
	}
	if (a->qps != b->qps)
		return pfc_why(why, n, -EPROTO, "parameter mismatch: QPs (-q): here %u, peer %u", a->qps,
			       b->qps);
	if ((a->flags ^ b->flags) & XCHG_F_BIDIR)
		return pfc_why(why, n, -EPROTO, "parameter mismatch: mode: here %s, peer %s",
			       mode_name(a->flags), mode_name(b->flags));
	if ((a->flags ^ b->flags) & XCHG_F_IMM)
		return pfc_why(why, n, -EPROTO, "parameter mismatch: opcode: here %s, peer %s",
			       a->flags & XCHG_F_IMM ? "WRITE_WITH_IMM (--imm)" : "WRITE",
			       b->flags & XCHG_F_IMM ? "WRITE_WITH_IMM (--imm)" : "WRITE");
	if (((a->flags ^ b->flags) & XCHG_F_ITERS) || a->count != b->count)
		return pfc_why(why, n, -EPROTO,
			       "parameter mismatch: run length: here %s %" PRIu64 ", peer %s %" PRIu64,
			       a->flags & XCHG_F_ITERS ? "-n" : "-D (ns)", a->count,
			       b->flags & XCHG_F_ITERS ? "-n" : "-D (ns)", b->count);
	if (a->warmup_ns != b->warmup_ns)
		return pfc_why(why, n, -EPROTO,
			       "parameter mismatch: --warmup: here %" PRIu64 " ns, peer %" PRIu64 " ns",
			       a->warmup_ns, b->warmup_ns);
	return 0;
}
