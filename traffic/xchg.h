/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xchg.h: the out-of-band exchange messages between two pfclab traffic peers.
 *
 * Every message is a 12-byte header followed by a body, all big-endian:
 *
 *   0       4       6    7    8          12
 *   +-------+-------+----+----+----------+------------ - -
 *   | magic |version|type|rsvd| body len | body ...
 *   +-------+-------+----+----+----------+------------ - -
 *    "PFCT"    1          0     <= XCHG_MAX_BODY
 *
 * Bodies: HELLO (key mode, a random nonce, the sender's key proof and the run parameters
 * both sides must agree on), PROOF (the client's key proof), ENDPOINT (this side's RDMA
 * endpoint: GID, MTU, buffer key and address, one QPN/PSN per QP), READY (barrier before a
 * phase), STATS (per-interval sender counters), DONE (final counters of a phase), ABORT
 * (reason) and PING (heartbeat, empty). Every field is validated on decode; a body longer or
 * shorter than its fields is an error.
 *
 * Handshake (the memory key travels only after both HELLOs agree and both proofs check):
 *
 *   client                                        server
 *     | -- HELLO (nonce_c, params) ------------->  |  params compared, else ABORT
 *     | <- HELLO (nonce_s, params, mac_s) -------  |
 *     | -- PROOF (mac_c) ------------------------>  |  mac_c checked, else ABORT
 *     | -- ENDPOINT (rkey, addr, QPs) ---------->  |
 *     | <- ENDPOINT (rkey, addr, QPs) -----------  |
 *
 *   mac_s = HMAC-SHA256(key, "pfclab traffic server" || T), mac_c likewise with "client",
 *   T = nonce_c || nonce_s || params_c || params_s (params as encoded in the HELLOs).
 * Without a key (--psk) on both sides the MACs are zero and anyone may connect.
 */
#ifndef PFCLAB_TRAFFIC_XCHG_H
#define PFCLAB_TRAFFIC_XCHG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traffic/opts.h"

#define XCHG_MAGIC 0x50464354u	/* "PFCT" */
#define XCHG_VERSION 2
#define XCHG_HDR_LEN 12
#define XCHG_MAX_BODY 8192
#define XCHG_MAX_REASON 200

enum xchg_type {
	XCHG_HELLO = 1,
	XCHG_READY = 2,
	XCHG_STATS = 3,
	XCHG_DONE = 4,
	XCHG_ABORT = 5,
	XCHG_PROOF = 6,
	XCHG_ENDPOINT = 7,
	XCHG_PING = 8,
};

#define XCHG_NONCE_LEN 32
#define XCHG_MAC_LEN 32
#define XCHG_AUTH_PSK 0x01	/* the sender holds a pre-shared key and proves it */
/* Largest encoding of the agreement part of a HELLO (role .. warmup). */
#define XCHG_PARAMS_MAX (5 + 4 * TRAFFIC_MAX_SIZES + 16)

struct xchg_auth {
	uint8_t flags;			/* XCHG_AUTH_* (HELLO) */
	uint8_t nonce[XCHG_NONCE_LEN];	/* HELLO */
	uint8_t mac[XCHG_MAC_LEN];	/* server's HELLO, PROOF; zero without a key */
};

#define XCHG_F_BIDIR 0x01
#define XCHG_F_IMM 0x02
#define XCHG_F_ITERS 0x04	/* count is a message count per QP, else a duration in ns */
#define XCHG_F_ALL (XCHG_F_BIDIR | XCHG_F_IMM | XCHG_F_ITERS)

struct xchg_qp {
	uint32_t qpn;	/* 24 bits */
	uint32_t psn;	/* 24 bits */
};

/* Both halves of what a side tells its peer: the agreement part travels in HELLO, the
 * endpoint part (from lid on, with qps) in ENDPOINT.
 */
struct xchg_hello {
	uint8_t role;		/* 0 server, 1 client */
	uint8_t flags;		/* XCHG_F_* */
	uint16_t qps;
	uint8_t nsizes;
	uint32_t sizes[TRAFFIC_MAX_SIZES];
	uint64_t count;		/* duration ns or iterations */
	uint64_t warmup_ns;
	/* endpoint */
	uint16_t lid;
	uint8_t gid[16];
	uint8_t mtu;		/* enum ibv_mtu: 1..5 */
	uint32_t rkey;
	uint64_t addr;		/* where the peer writes: qps slots of max(sizes) bytes */
	uint64_t len;
	struct xchg_qp qp[TRAFFIC_MAX_QPS];
};

#define XCHG_CTR_STOPPED 0x1	/* DONE sent early (Ctrl-C): the peer should stop too */

struct xchg_counters {
	uint32_t phase;		/* index into the size list */
	uint32_t flags;		/* XCHG_CTR_* */
	uint64_t elapsed_ns;	/* since the phase's measurement started */
	uint64_t bytes;
	uint64_t msgs;
	uint64_t completions;
	uint64_t errors;
};

struct xchg_msg {
	uint8_t type;
	struct xchg_auth auth;			/* HELLO, PROOF */
	union {
		struct xchg_hello hello;	/* HELLO: agreement part; ENDPOINT: endpoint part */
		uint32_t phase;			/* READY */
		struct xchg_counters ctr;	/* STATS, DONE */
		char reason[XCHG_MAX_REASON + 1]; /* ABORT, NUL-terminated */
	} u;
};

/* Encodes m into buf. Returns the length, or -EMSGSIZE when cap is too small, -EINVAL for
 * a message this side must not send (out-of-range field).
 */
int xchg_encode(const struct xchg_msg *m, void *buf, size_t cap);

/* Checks a received header. Returns 0 with *body_len set, or
 *   -EAGAIN  fewer than XCHG_HDR_LEN bytes (truncated),
 *   -EBADMSG wrong magic (not a pfclab traffic peer),
 *   -EPROTONOSUPPORT other protocol version,
 *   -EMSGSIZE body length above XCHG_MAX_BODY,
 *   -EPROTO  nonzero reserved byte or unknown type.
 * why gets one line for the user.
 */
int xchg_header_decode(const void *buf, size_t len, uint8_t *type, uint32_t *body_len,
		       char *why, size_t whylen);

/* Decodes a whole message (header + body): the header errors above, -EAGAIN when the
 * body is cut short, -EPROTO for an invalid field or trailing bytes.
 */
int xchg_decode(const void *buf, size_t len, struct xchg_msg *m, char *why, size_t whylen);

/* Encodes the agreement part of a HELLO (the bytes the key proofs cover). Returns the
 * length (<= XCHG_PARAMS_MAX) or -EINVAL for fields this side must not send.
 */
int xchg_params_encode(const struct xchg_hello *h, uint8_t *buf, size_t cap);

/* Checks a peer's ENDPOINT against the agreed parameters: the same QP count, and a buffer
 * that holds one slot of the largest size per QP. 0, or -EPROTO with the reason.
 */
int xchg_endpoint_check(const struct xchg_hello *params, const struct xchg_hello *ep,
			char *why, size_t whylen);

/* Compares the parameters both sides must share. 0, or -EPROTO with the first difference
 * ("message sizes: here 65536, peer 4096") in why.
 */
int xchg_hello_compare(const struct xchg_hello *mine, const struct xchg_hello *peer,
		       char *why, size_t whylen);

/* Fills the agreement part of a HELLO from options. */
void xchg_hello_from_opts(struct xchg_hello *h, const struct traffic_opts *o);

const char *xchg_type_name(uint8_t type);

#endif
