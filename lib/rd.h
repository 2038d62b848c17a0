/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rd.h: bounds-checked readers for bytes that come from outside (packets, netlink,
 * peer messages). Every accessor checks the remaining length first and returns false
 * instead of reading past the end; the reader then stays failed ("sticky"), so a caller
 * may read a whole header and test rd_ok() once.
 */
#ifndef PFCLAB_RD_H
#define PFCLAB_RD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rd {
	const uint8_t *p;
	size_t len;
	size_t off;
	bool bad;
};

static inline struct rd rd_init(const void *p, size_t len)
{
	return (struct rd){ .p = p, .len = len };
}

static inline size_t rd_left(const struct rd *r)
{
	return r->bad ? 0 : r->len - r->off;
}

static inline bool rd_ok(const struct rd *r)
{
	return !r->bad;
}

static inline bool rd_need(struct rd *r, size_t n)
{
	if (r->bad || r->len - r->off < n) {
		r->bad = true;
		return false;
	}
	return true;
}

static inline const uint8_t *rd_ptr(const struct rd *r)
{
	return r->p + r->off;
}

static inline bool rd_skip(struct rd *r, size_t n)
{
	if (!rd_need(r, n))
		return false;
	r->off += n;
	return true;
}

static inline bool rd_bytes(struct rd *r, void *dst, size_t n)
{
	if (!rd_need(r, n))
		return false;
	memcpy(dst, r->p + r->off, n);
	r->off += n;
	return true;
}

/* A sub-reader over the next n bytes; the parent moves past them. */
static inline bool rd_sub(struct rd *r, size_t n, struct rd *sub)
{
	if (!rd_need(r, n)) {
		*sub = (struct rd){ .bad = true };
		return false;
	}
	*sub = rd_init(r->p + r->off, n);
	r->off += n;
	return true;
}

static inline uint8_t rd_u8(struct rd *r)
{
	if (!rd_need(r, 1))
		return 0;
	return r->p[r->off++];
}

static inline uint16_t rd_be16(struct rd *r)
{
	uint16_t v;

	if (!rd_need(r, 2))
		return 0;
	v = (uint16_t)(r->p[r->off] << 8 | r->p[r->off + 1]);
	r->off += 2;
	return v;
}

static inline uint32_t rd_be24(struct rd *r)
{
	uint32_t v;

	if (!rd_need(r, 3))
		return 0;
	v = (uint32_t)r->p[r->off] << 16 | (uint32_t)r->p[r->off + 1] << 8 | r->p[r->off + 2];
	r->off += 3;
	return v;
}

static inline uint32_t rd_be32(struct rd *r)
{
	uint32_t v;

	if (!rd_need(r, 4))
		return 0;
	v = (uint32_t)r->p[r->off] << 24 | (uint32_t)r->p[r->off + 1] << 16 |
	    (uint32_t)r->p[r->off + 2] << 8 | r->p[r->off + 3];
	r->off += 4;
	return v;
}

static inline uint64_t rd_be64(struct rd *r)
{
	uint64_t hi = rd_be32(r);

	return hi << 32 | rd_be32(r);
}

/* Host-order readers for kernel structures (netlink, ioctl replies). */
static inline uint16_t rd_h16(struct rd *r)
{
	uint16_t v = 0;

	rd_bytes(r, &v, sizeof(v));
	return v;
}

static inline uint32_t rd_h32(struct rd *r)
{
	uint32_t v = 0;

	rd_bytes(r, &v, sizeof(v));
	return v;
}

static inline uint64_t rd_h64(struct rd *r)
{
	uint64_t v = 0;

	rd_bytes(r, &v, sizeof(v));
	return v;
}

/* Writer counterpart for messages we build (peer exchange, injected frames). */
struct wr {
	uint8_t *p;
	size_t cap;
	size_t off;
	bool bad;
};

static inline struct wr wr_init(void *p, size_t cap)
{
	return (struct wr){ .p = p, .cap = cap };
}

static inline bool wr_need(struct wr *w, size_t n)
{
	if (w->bad || w->cap - w->off < n) {
		w->bad = true;
		return false;
	}
	return true;
}

static inline void wr_u8(struct wr *w, uint8_t v)
{
	if (wr_need(w, 1))
		w->p[w->off++] = v;
}

static inline void wr_be16(struct wr *w, uint16_t v)
{
	if (!wr_need(w, 2))
		return;
	w->p[w->off++] = (uint8_t)(v >> 8);
	w->p[w->off++] = (uint8_t)v;
}

static inline void wr_be24(struct wr *w, uint32_t v)
{
	if (!wr_need(w, 3))
		return;
	w->p[w->off++] = (uint8_t)(v >> 16);
	w->p[w->off++] = (uint8_t)(v >> 8);
	w->p[w->off++] = (uint8_t)v;
}

static inline void wr_be32(struct wr *w, uint32_t v)
{
	wr_be16(w, (uint16_t)(v >> 16));
	wr_be16(w, (uint16_t)v);
}

static inline void wr_be64(struct wr *w, uint64_t v)
{
	wr_be32(w, (uint32_t)(v >> 32));
	wr_be32(w, (uint32_t)v);
}

static inline void wr_bytes(struct wr *w, const void *src, size_t n)
{
	if (!wr_need(w, n))
		return;
	memcpy(w->p + w->off, src, n);
	w->off += n;
}

#endif
