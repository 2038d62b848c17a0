// SPDX-License-Identifier: GPL-2.0-or-later
/* conn.c: TCP out-of-band connection between traffic peers: listen/accept/connect with
 * timeouts, and whole-message send/receive with deadlines.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/util.h"
#include "traffic/conn.h"

void conn_addr_str(const struct sockaddr *sa, char *buf, size_t n)
{
	char host[INET6_ADDRSTRLEN] = "?";
	uint16_t port = 0;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		port = ntohs(s4->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		port = ntohs(s6->sin6_port);
	}
	snprintf(buf, n, "%s:%u", host, port);
}

void conn_tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int conn_listen(const char *bind_addr, uint16_t port, int *lfd, char *why, size_t n)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	char svc[8];
	int fd = -1, one = 1, rc, err = 0;

	snprintf(svc, sizeof(svc), "%u", port);
	/* No bind address: listen on IPv6 any with v4-mapped, else IPv4 any. */
	if (!bind_addr)
		hints.ai_family = AF_INET6;
	rc = getaddrinfo(bind_addr, svc, &hints, &res);
	if (rc && !bind_addr) {
		hints.ai_family = AF_INET;
		rc = getaddrinfo(NULL, svc, &hints, &res);
	}
	if (rc)
		return pfc_why(why, n, -EINVAL, "--bind %s: %s", bind_addr ? bind_addr : "(any)",
			       gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6 && !bind_addr) {
			int zero = 0;

			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		}
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0)
			break;
		err = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return pfc_why(why, n, -err, "cannot listen on %s port %u: %s%s",
			       bind_addr ? bind_addr : "any address", port, strerror(err),
			       err == EADDRINUSE ? " (another pfclab traffic server? use -p)" : "");
	*lfd = fd;
	return 0;
}

static int wait_fd(int fd, short events, int64_t deadline_ns)
{
	struct pollfd p = { .fd = fd, .events = events };
	int ms = -1, rc;

	if (deadline_ns >= 0) {
		int64_t left = deadline_ns - (int64_t)time_mono_ns();

		if (left <= 0)
			return -ETIMEDOUT;
		ms = (int)((left + 999999) / 1000000);
	}
	rc = poll(&p, 1, ms);
	if (rc < 0)
		return -errno;
	if (rc == 0)
		return -ETIMEDOUT;
	return 0;
}

static int connect_once(const struct addrinfo *ai, const char *bind_addr, int64_t deadline,
			int *out)
{
	struct addrinfo hints = { .ai_family = ai->ai_family, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST };
	struct addrinfo *b = NULL;
	socklen_t el = sizeof(int);
	int fd, rc, err = 0, fl;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0)
		return -errno;
	if (bind_addr) {
		if (getaddrinfo(bind_addr, NULL, &hints, &b) || bind(fd, b->ai_addr, b->ai_addrlen)) {
			err = b ? errno : EADDRNOTAVAIL;
			if (b)
				freeaddrinfo(b);
			close(fd);
			return -err;
		}
		freeaddrinfo(b);
	}
	fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
	if (rc && errno != EINPROGRESS) {
		err = errno;
		close(fd);
		return -err;
	}
	if (rc) {
		rc = wait_fd(fd, POLLOUT, deadline);
		if (rc) {
			close(fd);
			return rc;
		}
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
		if (err) {
			close(fd);
			return -err;
		}
	}
	fcntl(fd, F_SETFL, fl);
	conn_tune(fd);
	*out = fd;
	return 0;
}

int conn_connect(const char *host, uint16_t port, const char *bind_addr, uint64_t timeout_ns,
		 int *fd, char *why, size_t n)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	int64_t deadline = (int64_t)(time_mono_ns() + timeout_ns);
	struct addrinfo *res, *ai;
	char svc[8];
	int rc, err = -ETIMEDOUT;

	snprintf(svc, sizeof(svc), "%u", port);
	rc = getaddrinfo(host, svc, &hints, &res);
	if (rc)
		return pfc_why(why, n, -EHOSTUNREACH, "cannot resolve '%s': %s", host,
			       gai_strerror(rc));
	for (;;) {
		for (ai = res; ai; ai = ai->ai_next) {
			err = connect_once(ai, bind_addr, deadline, fd);
			if (!err) {
				freeaddrinfo(res);
				return 0;
			}
		}
		/* Refused: the server is not up yet; try again shortly until the deadline. A
		 * signal (Ctrl-C; pfclab run stopping a client whose server failed) ends the
		 * pause early with EINTR, and the wait with it: nanosleep is never restarted.
		 */
		if (err != -ECONNREFUSED || (int64_t)time_mono_ns() + 100000000 > deadline)
			break;
		if (usleep(100000) && errno == EINTR) {
			err = -EINTR;
			break;
		}
	}
	freeaddrinfo(res);
	if (err == -EINTR)
		return pfc_why(why, n, err, "interrupted while connecting to %s port %u", host,
			       port);
	return pfc_why(why, n, err, "cannot connect to %s port %u: %s%s", host, port,
		       strerror(-err),
		       err == -ECONNREFUSED ? " (is 'pfclab traffic -d DEV' running there?)" : "");
}

int conn_send(int fd, const struct xchg_msg *m, uint64_t timeout_ns, char *why, size_t n)
{
	uint8_t buf[XCHG_HDR_LEN + XCHG_MAX_BODY];
	int64_t deadline = (int64_t)(time_mono_ns() + timeout_ns);
	size_t off = 0;
	ssize_t w;
	int len, rc;

	len = xchg_encode(m, buf, sizeof(buf));
	if (len < 0)
		return pfc_why(why, n, len, "cannot encode %s message", xchg_type_name(m->type));
	while (off < (size_t)len) {
		w = send(fd, buf + off, (size_t)len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			rc = wait_fd(fd, POLLOUT, deadline);
			if (rc)
				return pfc_why(why, n, rc, "sending %s: %s",
					       xchg_type_name(m->type), strerror(-rc));
			continue;
		}
		return pfc_why(why, n, -ECONNRESET, "sending %s: peer closed the connection (%s)",
			       xchg_type_name(m->type), strerror(errno));
	}
	return 0;
}

/* Reads exactly len bytes before the deadline; *got says how many came. */
static int read_full(int fd, uint8_t *buf, size_t len, int64_t deadline, size_t *got)
{
	ssize_t r;
	int rc;

	*got = 0;
	while (*got < len) {
		r = recv(fd, buf + *got, len - *got, MSG_DONTWAIT);
		if (r > 0) {
			*got += (size_t)r;
			continue;
		}
		if (r == 0)
			return *got ? -EPIPE : -ECONNRESET;
		if (errno == ECONNRESET)
			return -ECONNRESET;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		rc = wait_fd(fd, POLLIN, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

int conn_recv(int fd, struct xchg_msg *m, uint64_t timeout_ns, char *why, size_t n)
{
	uint8_t buf[XCHG_HDR_LEN + XCHG_MAX_BODY];
	int64_t deadline = (int64_t)(time_mono_ns() + timeout_ns);
	uint32_t blen;
	uint8_t type;
	size_t got;
	int rc;

	rc = read_full(fd, buf, XCHG_HDR_LEN, deadline, &got);
	if (rc && got) {
		/* Part of a header, then silence or EOF: a wrong magic if the bytes show one,
		 * else say how much came.
		 */
		if (xchg_header_decode(buf, got, &type, &blen, why, n) == -EBADMSG)
			return -EBADMSG;
		return pfc_why(why, n, -EPROTO,
			       "%s partial message header: %zu of %d bytes, then %s",
			       rc == -ETIMEDOUT ? "slow" : "truncated", got, XCHG_HDR_LEN,
			       rc == -ETIMEDOUT ? "nothing within the timeout" : "the connection closed");
	}
	if (rc == -ECONNRESET)
		return pfc_why(why, n, rc, "peer closed the exchange connection");
	if (rc == -ETIMEDOUT)
		return pfc_why(why, n, rc, "no message from the peer within the timeout");
	if (rc)
		return pfc_why(why, n, rc, "reading from the peer: %s", strerror(-rc));
	rc = xchg_header_decode(buf, XCHG_HDR_LEN, &type, &blen, why, n);
	if (rc)
		return rc;
	rc = read_full(fd, buf + XCHG_HDR_LEN, blen, deadline, &got);
	if (rc)
		return pfc_why(why, n,
			       rc == -ETIMEDOUT || rc == -EPIPE || rc == -ECONNRESET ? -EPROTO : rc,
			       "truncated %s message: %zu of %u body bytes arrived",
			       xchg_type_name(type), got, blen);
	return xchg_decode(buf, XCHG_HDR_LEN + blen, m, why, n);
}

int conn_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int rc = poll(&p, 1, 0);

	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	return rc > 0;
}

int conn_wait_readable(int fd, uint64_t timeout_ns)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec ts = ns_timespec(timeout_ns);
	int rc = ppoll(&p, 1, &ts, NULL);

	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	return rc > 0;
}

int conn_wait_closed(int fd, uint64_t timeout_ns)
{
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };
	struct timespec ts = ns_timespec(timeout_ns);
	int rc = ppoll(&p, 1, &ts, NULL);

	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	return rc > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

int conn_local_addr(int fd, char *buf, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		return -errno;
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, buf, (socklen_t)n);
	else if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf, (socklen_t)n);
	else
		return -EAFNOSUPPORT;
	return 0;
}
