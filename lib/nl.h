/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nl.h: netlink request/reply helpers: a socket that sends one request and walks its
 * replies, and a bounds-checked attribute parser with a policy table (unknown attributes
 * skipped, malformed ones rejected), in the manner of iproute2's rdma/utils.c.
 */
#ifndef PFCLAB_NL_H
#define PFCLAB_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/rd.h"

struct nlmsghdr;
struct mnl_socket;

enum nl_type {
	NL_T_ANY,	/* any length, not checked */
	NL_T_U8,
	NL_T_U16,
	NL_T_U32,
	NL_T_U64,
	NL_T_STR,	/* NUL-terminated inside the payload */
	NL_T_NEST,
	NL_T_BIN,	/* at least min_len bytes */
};

struct nl_policy {
	enum nl_type type;
	uint16_t min_len;	/* NL_T_BIN only */
};

/* One parsed attribute: its payload as a reader of exactly the payload bytes. */
struct nl_attr {
	uint16_t type;
	bool present;
	struct rd val;
};

/* Next attribute of r; returns 1 with *a filled, 0 at the clean end, -EBADMSG when the
 * header or length is malformed (a length running past the end included).
 */
int nl_attr_next(struct rd *r, struct nl_attr *a);

/* Parse all attributes of r into tb[0..maxtype] (zeroed first). Types above maxtype or
 * with no policy entry are skipped; an attribute whose payload does not fit its policy
 * gives -EBADMSG. The last duplicate wins, as in the kernel's nla_parse.
 */
int nl_attr_parse(struct rd *r, const struct nl_policy *pol, uint16_t maxtype,
		  struct nl_attr *tb);

uint8_t nl_attr_u8(const struct nl_attr *a);
uint16_t nl_attr_u16(const struct nl_attr *a);
uint32_t nl_attr_u32(const struct nl_attr *a);
uint64_t nl_attr_u64(const struct nl_attr *a);
/* Copy a string attribute into buf (size > 0); -EBADMSG when unterminated, -ERANGE when
 * it does not fit.
 */
int nl_attr_str(const struct nl_attr *a, char *buf, size_t size);

/* Next netlink message of a received buffer: 1 with header fields and payload reader,
 * 0 at the end, -EBADMSG when the header lies about its length.
 */
struct nl_msg {
	uint16_t type;
	uint16_t flags;
	uint32_t seq;
	uint32_t portid;
	struct rd payload;
};
int nl_msg_next(struct rd *r, struct nl_msg *m);

/* The -errno carried by an NLMSG_ERROR payload (0 for an ACK), -EBADMSG if truncated. */
int nl_msg_error(const struct nl_msg *m);

/* Called for each reply message of the request's sequence; non-zero return stops the
 * walk and is returned by nl_sock_talk.
 */
typedef int (*nl_msg_cb)(const struct nl_msg *m, void *arg);

struct nl_sock {
	struct mnl_socket *mnl;
	uint32_t portid;
	uint32_t seq;
	uint8_t *buf;
	size_t bufsz;
	int bus;
};

int nl_sock_open(struct nl_sock *s, int bus);
void nl_sock_close(struct nl_sock *s);
/* Fresh request header in the socket's buffer: type, flags (NLM_F_REQUEST is added; add
 * NLM_F_ACK for a request that has no reply of its own) and the next sequence number.
 */
struct nlmsghdr *nl_sock_req(struct nl_sock *s, uint16_t type, uint16_t flags);
/* Send req and hand every reply of its sequence to cb until the first reply (plain
 * request), the ACK (NLM_F_ACK), NLMSG_DONE (dump) or an error. Returns 0, the kernel's -errno, -EBADMSG for a malformed reply, or cb's value.
 */
int nl_sock_talk(struct nl_sock *s, struct nlmsghdr *req, nl_msg_cb cb, void *arg);

/* nl_sock_talk handing cb only the replies of message type `type` (others skipped). */
int nl_sock_talk_type(struct nl_sock *s, struct nlmsghdr *req, uint16_t type, nl_msg_cb cb,
		      void *arg);

/* Generic netlink family id by name (CTRL_CMD_GETFAMILY); -ENOENT when absent. */
int nl_genl_family(struct nl_sock *s, const char *name, uint16_t *id);
/* Parse a CTRL_CMD_GETFAMILY reply payload (genlmsghdr + attributes). */
int nl_genl_family_parse(struct rd *payload, uint16_t *id);

#endif
