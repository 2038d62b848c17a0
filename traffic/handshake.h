/* SPDX-License-Identifier: GPL-2.0-or-later */
/* handshake.h: the authenticated start of a traffic exchange (HELLO, HELLO, PROOF; see
 * xchg.h). The server runs every pending connection's handshake at once, each under a
 * short deadline, so that idle or hostile connections cannot hold a real client back;
 * every rejected peer is reported with its reason and the server goes on waiting.
 * Memory keys are never part of the handshake: they follow in ENDPOINT messages once it
 * succeeded.
 */
#ifndef PFCLAB_TRAFFIC_HANDSHAKE_H
#define PFCLAB_TRAFFIC_HANDSHAKE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "traffic/auth.h"
#include "traffic/xchg.h"

#define HANDSHAKE_MAX_PENDING 64	/* beyond this the oldest pending connection is dropped */
#define HANDSHAKE_DEADLINE_NS 1000000000ULL

struct handshake_cfg {
	const struct auth_key *key;		/* key->len 0: no key */
	const struct xchg_hello *mine;		/* this side's agreement part */
	uint64_t step_ns;			/* client: wait per message */
	uint64_t deadline_ns;			/* server: each connection's whole handshake */
	uint64_t wait_ns;			/* server: give up after this, 0 = wait forever */
	volatile sig_atomic_t *stop;		/* set by a signal handler: give up (-EINTR) */
	/* server: called once per rejected connection with its address and the reason */
	void (*reject)(void *ctx, const char *peer, const char *why);
	void *ctx;
};

/* Client side on a connected socket. 0 with the server's agreement part in *theirs, or
 *   -ECONNABORTED the server rejected this client (its reason in why),
 *   -EACCES       key mode or key differ (told to the server too),
 *   -EPROTO       parameters differ or a malformed reply,
 *   -ECONNRESET, -ETIMEDOUT, -EINTR from the connection.
 */
int handshake_client_run(int fd, const struct handshake_cfg *c, struct xchg_hello *theirs,
			 char *why, size_t n);

/* Server side on a listening socket: accepts and handshakes until one client passes.
 * 0 with its socket in *fd, its agreement part in *theirs and its address in peer;
 * -ETIMEDOUT (wait_ns passed), -EINTR (*stop), or -errno from poll/accept.
 */
int handshake_server_run(int lfd, const struct handshake_cfg *c, int *fd,
			 struct xchg_hello *theirs, char *peer, size_t peerlen, char *why, size_t n);

/* Server side on one connection accepted already (fd; peer names it to c->reject): the
 * steps handshake_server_run takes for each of its connections, under c->deadline_ns
 * (c->wait_ns and c->stop as above). 0 with its agreement part in *theirs and fd open,
 * nothing read past the client's PROOF; otherwise fd is closed and the return is
 *   -ECONNABORTED the connection was rejected (the reason in why, as c->reject got it),
 *   -ETIMEDOUT, -EINTR, -ENOMEM, or -errno from poll.
 */
int handshake_server_conn(int fd, const char *peer, const struct handshake_cfg *c,
			  struct xchg_hello *theirs, char *why, size_t n);

#endif
