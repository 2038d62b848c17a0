// SPDX-License-Identifier: GPL-2.0-or-later
/* nl.c: netlink socket round trips and bounds-checked attribute parsing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "lib/nl.h"

#define NL_BUFSZ (64 * 1024)

int nl_attr_next(struct rd *r, struct nl_attr *a)
{
	size_t left = rd_left(r);
	uint16_t len = 0, type = 0;
	size_t pad;

	if (!rd_ok(r))
		return -EBADMSG;
	if (left == 0)
		return 0;
	if (left < NLA_HDRLEN)
		return -EBADMSG;
	/* struct nlattr is host order: nla_len then nla_type. */
	rd_bytes(r, &len, sizeof(len));
	rd_bytes(r, &type, sizeof(type));
	if (len < NLA_HDRLEN || (size_t)(len - NLA_HDRLEN) > rd_left(r))
		return -EBADMSG;
	a->type = type & NLA_TYPE_MASK;
	a->present = true;
	rd_sub(r, len - NLA_HDRLEN, &a->val);
	/* The last attribute may omit its alignment padding. */
	pad = NLA_ALIGN(len) - len;
	if (pad > rd_left(r))
		pad = rd_left(r);
	rd_skip(r, pad);
	return 1;
}

static bool nl_policy_ok(const struct nl_policy *p, size_t len)
{
	switch (p->type) {
	case NL_T_ANY:
	case NL_T_NEST:
		return true;
	case NL_T_U8:
		return len >= 1;
	case NL_T_U16:
		return len >= 2;
	case NL_T_U32:
		return len >= 4;
	case NL_T_U64:
		return len >= 8;
	case NL_T_STR:
		return len >= 1;
	case NL_T_BIN:
		return len >= p->min_len;
	}
	return false;
}

int nl_attr_parse(struct rd *r, const struct nl_policy *pol, uint16_t maxtype,
		  struct nl_attr *tb)
{
	struct nl_attr a;
	int rc;

	memset(tb, 0, sizeof(*tb) * ((size_t)maxtype + 1));
	while ((rc = nl_attr_next(r, &a)) > 0) {
		if (a.type > maxtype)
			continue;
		if (!nl_policy_ok(&pol[a.type], a.val.len))
			return -EBADMSG;
		if (pol[a.type].type == NL_T_STR &&
		    !memchr(a.val.p, '\0', a.val.len))
			return -EBADMSG;
		tb[a.type] = a;
	}
	return rc;
}

uint8_t nl_attr_u8(const struct nl_attr *a)
{
	struct rd r = a->val;

	return rd_u8(&r);
}

uint16_t nl_attr_u16(const struct nl_attr *a)
{
	struct rd r = a->val;
	uint16_t v = 0;

	rd_bytes(&r, &v, sizeof(v));
	return v;
}

uint32_t nl_attr_u32(const struct nl_attr *a)
{
	struct rd r = a->val;

	return rd_h32(&r);
}

uint64_t nl_attr_u64(const struct nl_attr *a)
{
	struct rd r = a->val;

	return rd_h64(&r);
}

int nl_attr_str(const struct nl_attr *a, char *buf, size_t size)
{
	const void *nul = memchr(a->val.p, '\0', a->val.len);
	size_t n;

	if (!nul)
		return -EBADMSG;
	n = (size_t)((const uint8_t *)nul - a->val.p);
	if (n >= size)
		return -ERANGE;
	memcpy(buf, a->val.p, n + 1);
	return 0;
}

int nl_msg_next(struct rd *r, struct nl_msg *m)
{
	uint32_t len;
	size_t left = rd_left(r);

	if (!rd_ok(r))
		return -EBADMSG;
	if (left == 0)
		return 0;
	if (left < NLMSG_HDRLEN)
		return -EBADMSG;
	len = rd_h32(r);
	if (len < NLMSG_HDRLEN || len - 4 > rd_left(r))
		return -EBADMSG;
	rd_bytes(r, &m->type, sizeof(m->type));
	rd_bytes(r, &m->flags, sizeof(m->flags));
	m->seq = rd_h32(r);
	m->portid = rd_h32(r);
	rd_sub(r, len - NLMSG_HDRLEN, &m->payload);
	if (NLMSG_ALIGN(len) - len <= rd_left(r))
		rd_skip(r, NLMSG_ALIGN(len) - len);
	return 1;
}

int nl_msg_error(const struct nl_msg *m)
{
	struct rd r = m->payload;
	int32_t err;

	if (!rd_bytes(&r, &err, sizeof(err)))
		return -EBADMSG;
	if (err > 0 || err < -4095)
		return -EBADMSG;
	return err;
}

int nl_sock_open(struct nl_sock *s, int bus)
{
	struct timeval tmo = { .tv_sec = 2 };
	int one = 1;

	memset(s, 0, sizeof(*s));
	s->bus = bus;
	s->buf = malloc(NL_BUFSZ);
	if (!s->buf)
		return -ENOMEM;
	s->bufsz = NL_BUFSZ;
	s->mnl = mnl_socket_open(bus);
	if (!s->mnl) {
		int err = errno;

		free(s->buf);
		s->buf = NULL;
		return -err;
	}
	/* Extended ACKs are best effort; older kernels lack them. */
	mnl_socket_setsockopt(s->mnl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(s->mnl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(s->mnl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = errno;

		nl_sock_close(s);
		return -err;
	}
	s->portid = mnl_socket_get_portid(s->mnl);
	/* A reply never comes later than this; better a reported error than a hang. */
	setsockopt(mnl_socket_get_fd(s->mnl), SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	s->seq = (uint32_t)getpid() << 16;
	return 0;
}

void nl_sock_close(struct nl_sock *s)
{
	if (s->mnl)
		mnl_socket_close(s->mnl);
	free(s->buf);
	s->mnl = NULL;
	s->buf = NULL;
}

/* Requests are small; libmnl before 1.0.5 leaves an attribute's alignment padding as it
 * was (the DCB request's interface name), so the request area starts zeroed: no byte of
 * an earlier reply goes out to the kernel.
 */
#define NL_REQ_MAX 1024

struct nlmsghdr *nl_sock_req(struct nl_sock *s, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh;

	memset(s->buf, 0, NL_REQ_MAX < s->bufsz ? NL_REQ_MAX : s->bufsz);
	nlh = mnl_nlmsg_put_header(s->buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++s->seq;
	return nlh;
}

int nl_sock_talk(struct nl_sock *s, struct nlmsghdr *req, nl_msg_cb cb, void *arg)
{
	uint32_t seq = req->nlmsg_seq;
	bool dump = req->nlmsg_flags & NLM_F_DUMP;
	bool ack = req->nlmsg_flags & NLM_F_ACK;
	ssize_t n;

	if (mnl_socket_sendto(s->mnl, req, req->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		struct rd r;
		struct nl_msg m;
		int rc;

		n = mnl_socket_recvfrom(s->mnl, s->buf, s->bufsz);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		}
		r = rd_init(s->buf, (size_t)n);
		while ((rc = nl_msg_next(&r, &m)) > 0) {
			if (m.seq != seq || (m.portid != s->portid && m.portid != 0))
				continue;	/* a stale reply or a notification */
			if (m.type == NLMSG_ERROR)
				return nl_msg_error(&m);
			if (m.type == NLMSG_DONE)
				return 0;
			if (m.type == NLMSG_NOOP)
				continue;
			rc = cb ? cb(&m, arg) : 0;
			if (rc)
				return rc;
			/* A plain request gets one reply (or an error) and no ACK unless
			 * asked: one recvmsg per sample instead of two.
			 */
			if (!dump && !ack && !(m.flags & NLM_F_MULTI))
				return 0;
		}
		if (rc < 0)
			return rc;
	}
}

int nl_genl_family_parse(struct rd *payload, uint16_t *id)
{
	static const struct nl_policy pol[CTRL_ATTR_FAMILY_NAME + 1] = {
		[CTRL_ATTR_FAMILY_ID] = { NL_T_U16, 0 },
		[CTRL_ATTR_FAMILY_NAME] = { NL_T_STR, 0 },
	};
	struct nl_attr tb[CTRL_ATTR_FAMILY_NAME + 1];
	int rc;

	if (!rd_skip(payload, GENL_HDRLEN))
		return -EBADMSG;
	rc = nl_attr_parse(payload, pol, CTRL_ATTR_FAMILY_NAME, tb);
	if (rc < 0)
		return rc;
	if (!tb[CTRL_ATTR_FAMILY_ID].present)
		return -EBADMSG;
	*id = nl_attr_u16(&tb[CTRL_ATTR_FAMILY_ID]);
	return 0;
}

struct type_filter {
	uint16_t type;
	nl_msg_cb cb;
	void *arg;
};

static int type_filter_cb(const struct nl_msg *m, void *arg)
{
	const struct type_filter *f = arg;

	return m->type == f->type ? f->cb(m, f->arg) : 0;
}

int nl_sock_talk_type(struct nl_sock *s, struct nlmsghdr *req, uint16_t type, nl_msg_cb cb,
		      void *arg)
{
	struct type_filter f = { type, cb, arg };

	return nl_sock_talk(s, req, type_filter_cb, &f);
}

static int genl_family_cb(const struct nl_msg *m, void *arg)
{
	struct rd p = m->payload;

	return nl_genl_family_parse(&p, arg);
}

int nl_genl_family(struct nl_sock *s, const char *name, uint16_t *id)
{
	struct nlmsghdr *nlh = nl_sock_req(s, GENL_ID_CTRL, 0);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	int rc;

	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	*id = 0;
	rc = nl_sock_talk(s, nlh, genl_family_cb, id);
	if (rc == -ENOENT || (!rc && !*id))
		return -ENOENT;
	return rc;
}
