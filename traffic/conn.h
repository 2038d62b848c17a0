/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conn.h: the TCP connection that carries the exchange messages between two peers. */
#ifndef PFCLAB_TRAFFIC_CONN_H
#define PFCLAB_TRAFFIC_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "traffic/xchg.h"

/* All return 0 or -errno; why gets one line. -EINTR when a signal interrupted a wait. */
int conn_listen(const char *bind_addr, uint16_t port, int *lfd, char *why, size_t n);
/* Connects, retrying refused attempts until timeout_ns (the server may start later). */
int conn_connect(const char *host, uint16_t port, const char *bind_addr, uint64_t timeout_ns,
		 int *fd, char *why, size_t n);
int conn_send(int fd, const struct xchg_msg *m, uint64_t timeout_ns, char *why, size_t n);
/* Reads one whole message. -ECONNRESET when the peer closed the connection, -ETIMEDOUT,
 * or an xchg_decode error for a malformed message.
 */
int conn_recv(int fd, struct xchg_msg *m, uint64_t timeout_ns, char *why, size_t n);
/* 1 when bytes (or EOF / an error) wait to be read, 0 when none, -errno. Never blocks. */
int conn_readable(int fd);
/* Waits up to timeout_ns for bytes (or EOF / an error) to read: 1, 0 when none came (or a
 * signal ended the wait), -errno. */
int conn_wait_readable(int fd, uint64_t timeout_ns);
/* Waits up to timeout_ns for the peer to close the connection (its FIN or a reset, seen
 * past any bytes still queued, POLLRDHUP): 1 when it did, 0 when not, -errno.
 */
int conn_wait_closed(int fd, uint64_t timeout_ns);
/* "addr:port" of a socket address. */
struct sockaddr;
void conn_addr_str(const struct sockaddr *sa, char *buf, size_t n);
/* Socket options of an exchange connection (TCP_NODELAY). */
void conn_tune(int fd);
/* Local address of a connected socket as text, for GID selection. */
int conn_local_addr(int fd, char *buf, size_t n);

#endif
