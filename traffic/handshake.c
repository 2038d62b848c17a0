// SPDX-License-Identifier: GPL-2.0-or-later
/* handshake.c: HELLO / HELLO / PROOF between traffic peers. The client side is a plain
 * sequence with deadlines; the server polls the listening socket and every pending
 * connection together, reads each message incrementally (never past its end, so that the
 * winner's next message stays in the socket), and rejects each bad peer with one reason.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/util.h"
#include "traffic/conn.h"
#include "traffic/handshake.h"

#define SEND_NS 20000000ULL	/* a handshake message fits an empty socket buffer */

static void send_abort(int fd, const char *reason)
{
	struct xchg_msg m = { .type = XCHG_ABORT };
	char ignored[64];

	snprintf(m.u.reason, sizeof(m.u.reason), "%.*s", XCHG_MAX_REASON, reason);
	conn_send(fd, &m, SEND_NS, ignored, sizeof(ignored));
}

static bool has_key(const struct handshake_cfg *c)
{
	return c->key && c->key->len;
}

/* ---- client --------------------------------------------------------------------- */

/* Checks the server's HELLO: key mode, parameters, the server's proof. */
static int client_check(int fd, const struct handshake_cfg *c, const uint8_t *nonce_c,
			const struct xchg_msg *m, char *why, size_t n)
{
	uint8_t mac[XCHG_MAC_LEN];
	char diff[300];

	if ((m->auth.flags & XCHG_AUTH_PSK) && !has_key(c)) {
		send_abort(fd, "rejected: this client has no key (--psk)");
		return pfc_why(why, n, -EACCES,
			       "the server requires a key: give --psk FILE with the server's key");
	}
	if (!(m->auth.flags & XCHG_AUTH_PSK) && has_key(c)) {
		send_abort(fd, "rejected: this server has no key but the client has one (--psk)");
		return pfc_why(why, n, -EACCES,
			       "the server has no key (no --psk there): refusing to exchange memory keys with a server that cannot prove it holds the key");
	}
	if (xchg_hello_compare(c->mine, &m->u.hello, diff, sizeof(diff))) {
		send_abort(fd, diff);
		return pfc_why(why, n, -EPROTO, "%s; give both sides the same options", diff);
	}
	if (!has_key(c))
		return 0;
	if (auth_mac(c->key, AUTH_SERVER, nonce_c, m->auth.nonce, c->mine, &m->u.hello, mac))
		return pfc_why(why, n, -EPROTO, "cannot encode the parameters for the key proof");
	if (!auth_mac_equal(mac, m->auth.mac)) {
		send_abort(fd, "rejected: wrong key (the server's proof does not match the client's --psk)");
		return pfc_why(why, n, -EACCES,
			       "wrong key: the server's key proof does not match --psk; give both sides the same key file");
	}
	return 0;
}

int handshake_client_run(int fd, const struct handshake_cfg *c, struct xchg_hello *theirs,
			 char *why, size_t n)
{
	struct xchg_msg m = { .type = XCHG_HELLO };
	uint8_t nonce_c[XCHG_NONCE_LEN], nonce_s[XCHG_NONCE_LEN];
	char err[512];
	int rc;

	auth_nonce_fill(nonce_c);
	m.auth.flags = has_key(c) ? XCHG_AUTH_PSK : 0;
	memcpy(m.auth.nonce, nonce_c, sizeof(nonce_c));
	m.u.hello = *c->mine;
	if ((rc = conn_send(fd, &m, c->step_ns, why, n)))
		return rc;
	rc = conn_recv(fd, &m, c->step_ns, err, sizeof(err));
	if (rc == -ECONNRESET)
		return pfc_why(why, n, rc, "the server closed the connection during the handshake (a pfclab of another version, or busy with another client)");
	if (rc)
		return pfc_why(why, n, rc, "handshake with the server: %s", err);
	if (m.type == XCHG_ABORT)
		return pfc_why(why, n, -ECONNABORTED, "the server rejected this client: %s", m.u.reason);
	if (m.type != XCHG_HELLO)
		return pfc_why(why, n, -EPROTO, "handshake: expected HELLO from the server, got %s",
			       xchg_type_name(m.type));
	if ((rc = client_check(fd, c, nonce_c, &m, why, n)))
		return rc;
	*theirs = m.u.hello;
	memcpy(nonce_s, m.auth.nonce, sizeof(nonce_s));
	memset(&m.auth, 0, sizeof(m.auth));
	if (has_key(c) &&
	    auth_mac(c->key, AUTH_CLIENT, nonce_c, nonce_s, c->mine, theirs, m.auth.mac))
		return pfc_why(why, n, -EPROTO, "cannot encode the parameters for the key proof");
	m.type = XCHG_PROOF;
	return conn_send(fd, &m, c->step_ns, why, n);
}

/* ---- server --------------------------------------------------------------------- */

enum pend_state { PEND_HELLO, PEND_PROOF };

struct pend {
	int fd;				/* -1: free slot */
	enum pend_state st;
	uint64_t since, deadline;
	size_t off;			/* bytes of the current message read so far */
	uint8_t buf[XCHG_HDR_LEN + XCHG_MAX_BODY];
	uint8_t nonce_s[XCHG_NONCE_LEN];
	struct xchg_msg hello;		/* the client's HELLO */
	char peer[96];
};

struct server {
	const struct handshake_cfg *c;
	struct pend *p;			/* nslots slots */
	int nslots;
	int winner;			/* slot index, -1 while none */
	char last[600];			/* the last rejection's reason */
};

static int pend_drop(struct server *s, struct pend *p, const char *abort_reason,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Rejects a pending connection: the peer gets abort_reason (if any), the user one line. */
static int pend_drop(struct server *s, struct pend *p, const char *abort_reason,
		      const char *fmt, ...)
{
	char why[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(s->last, sizeof(s->last), "%s", why);
	if (abort_reason)
		send_abort(p->fd, abort_reason);
	if (s->c->reject)
		s->c->reject(s->c->ctx, p->peer, why);
	close(p->fd);
	p->fd = -1;
	return 0;
}

static const char *stage(const struct pend *p)
{
	return p->st == PEND_HELLO ? "before its HELLO" : "after its HELLO, before its key proof";
}

/* The client's HELLO: key mode, parameters; then our HELLO with our proof. */
static int on_hello(struct server *s, struct pend *p)
{
	const struct handshake_cfg *c = s->c;
	const struct xchg_msg *h = &p->hello;
	struct xchg_msg m = { .type = XCHG_HELLO };
	char diff[300], err[256];

	if (has_key(c) && !(h->auth.flags & XCHG_AUTH_PSK))
		return pend_drop(s, p, "rejected: this server requires a key: give --psk FILE with the server's key",
				 "no key: the client gave no --psk and this server requires one");
	/* The client's view in its ABORT ("here" = the client), ours on our terminal. */
	if (xchg_hello_compare(&h->u.hello, c->mine, diff, sizeof(diff))) {
		char mine[300];

		xchg_hello_compare(c->mine, &h->u.hello, mine, sizeof(mine));
		return pend_drop(s, p, diff, "%s", mine);
	}
	auth_nonce_fill(p->nonce_s);
	m.auth.flags = has_key(c) ? XCHG_AUTH_PSK : 0;
	memcpy(m.auth.nonce, p->nonce_s, XCHG_NONCE_LEN);
	m.u.hello = *c->mine;
	if (has_key(c) && (h->auth.flags & XCHG_AUTH_PSK) &&
	    auth_mac(c->key, AUTH_SERVER, h->auth.nonce, p->nonce_s, &h->u.hello, c->mine, m.auth.mac))
		return pend_drop(s, p, NULL, "cannot encode the parameters for the key proof");
	if (conn_send(p->fd, &m, SEND_NS, err, sizeof(err)))
		return pend_drop(s, p, NULL, "%s", err);
	p->st = PEND_PROOF;
	return 0;
}

static int on_proof(struct server *s, struct pend *p, const struct xchg_msg *m)
{
	const struct handshake_cfg *c = s->c;
	uint8_t mac[XCHG_MAC_LEN];

	if (has_key(c)) {
		if (auth_mac(c->key, AUTH_CLIENT, p->hello.auth.nonce, p->nonce_s, &p->hello.u.hello,
			     c->mine, mac))
			return pend_drop(s, p, NULL, "cannot encode the parameters for the key proof");
		if (!auth_mac_equal(mac, m->auth.mac))
			return pend_drop(s, p, "rejected: wrong key (the client's proof does not match the server's --psk)",
					 "wrong key: the client's key proof does not match --psk");
	}
	s->winner = (int)(p - s->p);
	return 0;
}

static int on_message(struct server *s, struct pend *p, const struct xchg_msg *m)
{
	if (m->type == XCHG_ABORT)
		return pend_drop(s, p, NULL, "the client gave up %s: %s", stage(p), m->u.reason);
	if (p->st == PEND_HELLO && m->type == XCHG_HELLO) {
		p->hello = *m;
		return on_hello(s, p);
	}
	if (p->st == PEND_PROOF && m->type == XCHG_PROOF)
		return on_proof(s, p, m);
	return pend_drop(s, p, "rejected: unexpected message", "unexpected %s %s", xchg_type_name(m->type),
		  stage(p));
}

/* Reads what the pending connection sent, never past the current message. */
static int pend_read(struct server *s, struct pend *p)
{
	struct xchg_msg m;
	uint32_t blen = 0;
	uint8_t type;
	char why[300];
	size_t need;
	ssize_t r;
	int rc;

	for (;;) {
		need = XCHG_HDR_LEN;
		if (p->off >= 4) {
			rc = xchg_header_decode(p->buf, p->off < XCHG_HDR_LEN ? p->off : XCHG_HDR_LEN,
						&type, &blen, why, sizeof(why));
			if (rc && rc != -EAGAIN)
				return pend_drop(s, p, "rejected: malformed exchange message", "%s", why);
			if (!rc)
				need = XCHG_HDR_LEN + blen;
		}
		if (p->off == need) {
			rc = xchg_decode(p->buf, need, &m, why, sizeof(why));
			p->off = 0;
			if (rc)
				return pend_drop(s, p, "rejected: malformed exchange message", "%s", why);
			on_message(s, p, &m);
			if (p->fd < 0 || s->winner >= 0)
				return 0;
			continue;
		}
		r = recv(p->fd, p->buf + p->off, need - p->off, MSG_DONTWAIT);
		if (r > 0) {
			p->off += (size_t)r;
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (r < 0)
			return pend_drop(s, p, NULL, "%s", strerror(errno));
		if (p->off)
			return pend_drop(s, p, NULL, "closed the connection in the middle of a message (%zu of %zu bytes)",
					 p->off, need);
		return pend_drop(s, p, NULL, "closed the connection %s", stage(p));
	}
}

static int pend_expire(struct server *s, struct pend *p, uint64_t now)
{
	double secs = (double)(now - p->since) / 1e9;

	if (p->off && p->off < XCHG_HDR_LEN)
		return pend_drop(s, p, "rejected: too slow", "slow partial header: %zu of %d bytes in %.1f s",
				 p->off, XCHG_HDR_LEN, secs);
	if (p->off)
		return pend_drop(s, p, "rejected: too slow", "slow message: %zu bytes in %.1f s, incomplete",
				 p->off, secs);
	return pend_drop(s, p, "rejected: too slow", "silent %s for %.1f s", stage(p), secs);
}

/* A fresh connection in slot p: HELLO due before its deadline. */
static void pend_open(struct server *s, struct pend *p, int fd, const char *peer, uint64_t now)
{
	p->fd = fd;
	p->st = PEND_HELLO;
	p->off = 0;
	p->since = now;
	p->deadline = now + s->c->deadline_ns;
	snprintf(p->peer, sizeof(p->peer), "%s", peer);
}

static void pend_add(struct server *s, int lfd, uint64_t now)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct pend *p = NULL, *oldest = NULL;
	char peer[sizeof(p->peer)];
	int fd, i;

	fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;		/* gone already, or out of descriptors: try again later */
	for (i = 0; i < s->nslots && !p; i++) {
		if (s->p[i].fd < 0)
			p = &s->p[i];
		else if (!oldest || s->p[i].since < oldest->since)
			oldest = &s->p[i];
	}
	if (!p) {
		pend_drop(s, oldest, "rejected: too many pending connections",
			  "dropped: %d connections were pending, this was the oldest", HANDSHAKE_MAX_PENDING);
		p = oldest;
	}
	conn_addr_str((struct sockaddr *)&ss, peer, sizeof(peer));
	pend_open(s, p, fd, peer, now);
	conn_tune(fd);
}

/* One poll round over the listening socket (none: lfd < 0) and the pending connections. */
static int server_round(struct server *s, int lfd, uint64_t until)
{
	struct pollfd pf[HANDSHAKE_MAX_PENDING + 1];
	int map[HANDSHAKE_MAX_PENDING + 1];
	uint64_t now = time_mono_ns(), next = until;
	int i, k = 1, rc, ms;

	/* poll() skips a negative descriptor and reports nothing for it */
	pf[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	for (i = 0; i < s->nslots; i++) {
		if (s->p[i].fd < 0)
			continue;
		if (s->p[i].deadline < next)
			next = s->p[i].deadline;
		pf[k] = (struct pollfd){ .fd = s->p[i].fd, .events = POLLIN };
		map[k++] = i;
	}
	ms = next <= now ? 0 : (int)((next - now + 999999) / 1000000);
	if (ms > 1000)
		ms = 1000;
	rc = poll(pf, (nfds_t)k, ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 1; i < k && s->winner < 0; i++)
		if (pf[i].revents)
			pend_read(s, &s->p[map[i]]);
	now = time_mono_ns();
	for (i = 0; i < s->nslots && s->winner < 0; i++)
		if (s->p[i].fd >= 0 && now >= s->p[i].deadline)
			pend_expire(s, &s->p[i], now);
	if (s->winner < 0 && (pf[0].revents & POLLIN))
		pend_add(s, lfd, now);
	return 0;
}

static bool any_pending(const struct server *s)
{
	int i;

	for (i = 0; i < s->nslots; i++)
		if (s->p[i].fd >= 0)
			return true;
	return false;
}

/* Poll rounds until a connection passes, or (no listening socket) none is left. 0 with
 * s->winner set, -ECONNABORTED (every connection rejected, the last reason in s->last),
 * -ETIMEDOUT, -EINTR or -errno with why.
 */
static int server_loop(struct server *s, int lfd, char *why, size_t n)
{
	const struct handshake_cfg *c = s->c;
	uint64_t until = c->wait_ns ? time_mono_ns() + c->wait_ns : UINT64_MAX;
	int rc;

	while (s->winner < 0) {
		if (c->stop && *c->stop)
			return pfc_why(why, n, -EINTR, "interrupted while waiting for a client");
		if (lfd < 0 && !any_pending(s))
			return pfc_why(why, n, -ECONNABORTED, "%s", s->last);
		if (time_mono_ns() >= until)
			return pfc_why(why, n, -ETIMEDOUT, "no client completed the handshake within --wait");
		if ((rc = server_round(s, lfd, until)))
			return pfc_why(why, n, rc, "waiting for a client: %s", strerror(-rc));
	}
	return 0;
}

/* Frees the server; every connection still pending but the winner is dropped. */
static void server_end(struct server *s)
{
	int i;

	for (i = 0; i < s->nslots; i++) {
		if (s->p[i].fd < 0 || i == s->winner)
			continue;
		pend_drop(s, &s->p[i], "rejected: the server is busy with another client",
			  "dropped: another client completed the handshake first");
	}
	free(s->p);
}

static int server_init(struct server *s, const struct handshake_cfg *c, int nslots)
{
	int i;

	*s = (struct server){ .c = c, .nslots = nslots, .winner = -1 };
	s->p = calloc((size_t)nslots, sizeof(*s->p));
	if (!s->p)
		return -ENOMEM;
	for (i = 0; i < nslots; i++)
		s->p[i].fd = -1;
	return 0;
}

int handshake_server_run(int lfd, const struct handshake_cfg *c, int *fd,
			 struct xchg_hello *theirs, char *peer, size_t peerlen, char *why, size_t n)
{
	struct server s;
	int rc;

	if (server_init(&s, c, HANDSHAKE_MAX_PENDING))
		return pfc_why(why, n, -ENOMEM, "out of memory");
	rc = server_loop(&s, lfd, why, n);
	if (s.winner >= 0) {
		*fd = s.p[s.winner].fd;
		*theirs = s.p[s.winner].hello.u.hello;
		snprintf(peer, peerlen, "%s", s.p[s.winner].peer);
	}
	server_end(&s);
	return rc;
}

int handshake_server_conn(int fd, const char *peer, const struct handshake_cfg *c,
			  struct xchg_hello *theirs, char *why, size_t n)
{
	struct server s;
	int rc;

	if (server_init(&s, c, 1)) {
		close(fd);
		return pfc_why(why, n, -ENOMEM, "out of memory");
	}
	pend_open(&s, &s.p[0], fd, peer, time_mono_ns());
	rc = server_loop(&s, -1, why, n);
	if (s.winner >= 0)
		*theirs = s.p[0].hello.u.hello;
	else if (s.p[0].fd >= 0)	/* interrupted, or poll failed */
		close(s.p[0].fd);
	free(s.p);
	return rc;
}
