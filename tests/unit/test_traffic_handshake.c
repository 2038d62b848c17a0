// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_handshake.c: the pre-shared key (file rules, proofs) and the exchange
 * handshake over loopback TCP: right key, wrong key, no key on either side, mismatched
 * parameters, and a hostile-peer suite (garbage, wrong version, oversized and slow partial
 * headers, close after HELLO, 30 idle connections, mutated messages) after which the
 * server still serves the real client; one connection's server side over a socketpair.
 * No RDMA device is needed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/util.h"
#include "traffic/auth.h"
#include "traffic/conn.h"
#include "traffic/handshake.h"
#include "traffic/xchg.h"

#define MAX_REJECTS 512

struct server_run {
	int lfd;
	uint16_t port;
	struct handshake_cfg cfg;
	struct auth_key key;
	struct xchg_hello mine;
	volatile sig_atomic_t stop;
	pthread_t th;
	int rc, fd;
	struct xchg_hello theirs;
	char peer[96], why[512];
	pthread_mutex_t mu;
	int nrej;
	char *rej[MAX_REJECTS];
};

static void on_reject(void *ctx, const char *peer, const char *why)
{
	struct server_run *s = ctx;

	(void)peer;
	pthread_mutex_lock(&s->mu);
	if (s->nrej < MAX_REJECTS)
		s->rej[s->nrej++] = strdup(why);
	pthread_mutex_unlock(&s->mu);
}

static int rejected_with(struct server_run *s, const char *has)
{
	int i, n = 0;

	pthread_mutex_lock(&s->mu);
	for (i = 0; i < s->nrej; i++)
		if (strstr(s->rej[i], has))
			n++;
	pthread_mutex_unlock(&s->mu);
	return n;
}

static void params(struct xchg_hello *h, uint8_t role, uint64_t dur_ns)
{
	memset(h, 0, sizeof(*h));
	h->role = role;
	h->qps = 2;
	h->nsizes = 1;
	h->sizes[0] = 65536;
	h->count = dur_ns;
}

static void key_set(struct auth_key *k, const char *text)
{
	memset(k, 0, sizeof(*k));
	k->len = strlen(text);
	memcpy(k->key, text, k->len);
}

static void *server_main(void *arg)
{
	struct server_run *s = arg;

	s->rc = handshake_server_run(s->lfd, &s->cfg, &s->fd, &s->theirs, s->peer, sizeof(s->peer),
				     s->why, sizeof(s->why));
	return NULL;
}

static struct server_run *server_start(const char *key, uint64_t dur_ns)
{
	struct server_run *s = calloc(1, sizeof(*s));
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);

	assert_non_null(s);
	pthread_mutex_init(&s->mu, NULL);
	s->fd = -1;
	if (key)
		key_set(&s->key, key);
	params(&s->mine, 0, dur_ns);
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(s->lfd >= 0);
	assert_int_equal(bind(s->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s->lfd, SOMAXCONN), 0);
	assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&a, &al), 0);
	s->port = ntohs(a.sin_port);
	s->cfg = (struct handshake_cfg){
		.key = &s->key, .mine = &s->mine, .step_ns = 2000000000ULL,
		/* short, so that the idle connections of the tests are dropped quickly */
		.deadline_ns = 300000000ULL, .wait_ns = 60000000000ULL, .stop = &s->stop,
		.reject = on_reject, .ctx = s,
	};
	assert_int_equal(pthread_create(&s->th, NULL, server_main, s), 0);
	return s;
}

static void server_wait(struct server_run *s)
{
	pthread_join(s->th, NULL);
}

static void server_free(struct server_run *s)
{
	int i;

	close(s->lfd);
	if (s->fd >= 0)
		close(s->fd);
	for (i = 0; i < s->nrej; i++)
		free(s->rej[i]);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

static void server_join(struct server_run *s)
{
	server_wait(s);
	assert_int_equal(s->rc, 0);
	server_free(s);
}

static int dial(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* A real client: 0 or its error with why. */
static int client(uint16_t port, const char *key, uint64_t dur_ns, char *why, size_t n)
{
	struct auth_key k = { 0 };
	struct xchg_hello mine, theirs;
	struct handshake_cfg c = { .key = &k, .mine = &mine, .step_ns = 2000000000ULL };
	int fd = dial(port), rc;

	if (key)
		key_set(&k, key);
	params(&mine, 1, dur_ns);
	rc = handshake_client_run(fd, &c, &theirs, why, n);
	if (!rc)
		assert_int_equal(theirs.count, dur_ns);
	close(fd);
	return rc;
}

#define KEY "0123456789abcdef0123456789abcdef"
#define D5 5000000000ULL

/* ---- key file and proofs ----------------------------------------------------------- */

static void write_key(const char *path, const char *content, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_key_file(void **state)
{
	char dir[] = "/tmp/pfclab-psk-XXXXXX", path[64], why[256], big[AUTH_KEY_MAX + 8];
	struct auth_key k;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key", dir);
	/* What the runner writes: 64 hex characters and a newline, mode 0600. */
	write_key(path, KEY KEY "\n", 65, 0600);
	assert_int_equal(auth_key_load(path, &k, why, sizeof(why)), 0);
	assert_int_equal(k.len, 64);
	/* Only one trailing newline is stripped. */
	write_key(path, KEY "\n\n", 34, 0600);
	assert_int_equal(auth_key_load(path, &k, why, sizeof(why)), 0);
	assert_int_equal(k.len, 33);
	/* Readable by group or others: refused, saying how to fix it. */
	write_key(path, KEY "\n", 33, 0640);
	assert_int_equal(auth_key_load(path, &k, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "chmod 600"));
	assert_int_equal(k.len, 0);
	write_key(path, KEY "\n", 33, 0604);
	assert_int_equal(auth_key_load(path, &k, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "others"));
	/* Too short (15 bytes after the newline), empty, too long. */
	write_key(path, "0123456789abcde\n", 16, 0600);
	assert_int_equal(auth_key_load(path, &k, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "at least 16"));
	write_key(path, "", 0, 0600);
	assert_int_equal(auth_key_load(path, &k, why, sizeof(why)), -EINVAL);
	memset(big, 'k', sizeof(big));
	write_key(path, big, AUTH_KEY_MAX, 0600);
	assert_int_equal(auth_key_load(path, &k, why, sizeof(why)), 0);
	write_key(path, big, AUTH_KEY_MAX + 1, 0600);
	assert_int_equal(auth_key_load(path, &k, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "longer than"));
	/* Missing file, a directory. */
	unlink(path);
	assert_int_equal(auth_key_load(path, &k, why, sizeof(why)), -ENOENT);
	assert_int_equal(auth_key_load(dir, &k, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not a regular file"));
	rmdir(dir);
}

static void test_mac(void **state)
{
	uint8_t nc[XCHG_NONCE_LEN], ns[XCHG_NONCE_LEN], a[XCHG_MAC_LEN], b[XCHG_MAC_LEN];
	struct xchg_hello pc, ps;
	struct auth_key k1, k2;

	(void)state;
	assert_int_equal(auth_init(), 0);
	key_set(&k1, KEY);
	key_set(&k2, KEY "x");
	auth_nonce_fill(nc);
	auth_nonce_fill(ns);
	assert_memory_not_equal(nc, ns, XCHG_NONCE_LEN);
	params(&pc, 1, D5);
	params(&ps, 0, D5);
	assert_int_equal(auth_mac(&k1, AUTH_SERVER, nc, ns, &pc, &ps, a), 0);
	assert_int_equal(auth_mac(&k1, AUTH_SERVER, nc, ns, &pc, &ps, b), 0);
	assert_true(auth_mac_equal(a, b));
	/* Each input changes the proof: key, role label, nonces, parameters. */
	auth_mac(&k2, AUTH_SERVER, nc, ns, &pc, &ps, b);
	assert_false(auth_mac_equal(a, b));
	auth_mac(&k1, AUTH_CLIENT, nc, ns, &pc, &ps, b);
	assert_false(auth_mac_equal(a, b));
	auth_mac(&k1, AUTH_SERVER, ns, nc, &pc, &ps, b);
	assert_false(auth_mac_equal(a, b));
	pc.count++;
	auth_mac(&k1, AUTH_SERVER, nc, ns, &pc, &ps, b);
	assert_false(auth_mac_equal(a, b));
	pc.qps = 0;	/* cannot be encoded */
	assert_int_equal(auth_mac(&k1, AUTH_SERVER, nc, ns, &pc, &ps, b), -EINVAL);
}

/* ---- handshake ----------------------------------------------------------------------- */

static void test_right_key(void **state)
{
	struct server_run *s = server_start(KEY, D5);
	char why[512];

	(void)state;
	assert_int_equal(client(s->port, KEY, D5, why, sizeof(why)), 0);
	server_join(s);
}

static void test_key_mismatches(void **state)
{
	struct server_run *s = server_start(KEY, D5);
	char why[512];

	(void)state;
	/* Wrong key: the client notices the server's proof first and says so; the server
	 * names it too and goes on waiting.
	 */
	assert_int_equal(client(s->port, KEY "x", D5, why, sizeof(why)), -EACCES);
	assert_non_null(strstr(why, "wrong key"));
	/* No key at the client. */
	assert_int_equal(client(s->port, NULL, D5, why, sizeof(why)), -ECONNABORTED);
	assert_non_null(strstr(why, "requires a key"));
	/* Different -D: the client hears the reason from the server. */
	assert_int_equal(client(s->port, KEY, 2 * D5, why, sizeof(why)), -ECONNABORTED);
	assert_non_null(strstr(why, "run length"));
	assert_int_equal(client(s->port, KEY, D5, why, sizeof(why)), 0);
	server_join(s);
	/* Server without a key, client with one: the client refuses. */
	s = server_start(NULL, D5);
	assert_int_equal(client(s->port, KEY, D5, why, sizeof(why)), -EACCES);
	assert_non_null(strstr(why, "server has no key"));
	assert_int_equal(client(s->port, NULL, D5, why, sizeof(why)), 0);
	server_join(s);
}

static void test_server_reasons(void **state)
{
	struct server_run *s = server_start(KEY, D5);
	char why[512];

	(void)state;
	client(s->port, KEY "x", D5, why, sizeof(why));
	client(s->port, NULL, D5, why, sizeof(why));
	client(s->port, KEY, 2 * D5, why, sizeof(why));
	assert_int_equal(client(s->port, KEY, D5, why, sizeof(why)), 0);
	server_wait(s);
	assert_int_equal(s->rc, 0);
	assert_int_equal(s->theirs.role, 1);
	assert_int_equal(rejected_with(s, "wrong key"), 1);
	assert_int_equal(rejected_with(s, "no key"), 1);
	assert_int_equal(rejected_with(s, "parameter mismatch: run length"), 1);
	assert_int_equal(s->nrej, 3);
	server_free(s);
}

/* ---- hostile peers ------------------------------------------------------------------- */

/* Reads what the server says until it closes (or 3 s); returns the byte count. */
static size_t drain(int fd, uint8_t *buf, size_t cap)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t off = 0;
	ssize_t r;

	while (off < cap && poll(&p, 1, 3000) == 1) {
		r = recv(fd, buf + off, cap - off, 0);
		if (r <= 0)
			break;
		off += (size_t)r;
	}
	return off;
}

/* No ENDPOINT (memory key) ever reaches a peer that did not pass the handshake. */
static void assert_no_endpoint(const uint8_t *buf, size_t len)
{
	size_t off = 0;

	while (off + XCHG_HDR_LEN <= len) {
		uint32_t blen = (uint32_t)buf[off + 8] << 24 | (uint32_t)buf[off + 9] << 16 |
				(uint32_t)buf[off + 10] << 8 | buf[off + 11];

		assert_memory_equal(buf + off, "PFCT", 4);
		assert_int_not_equal(buf[off + 6], XCHG_ENDPOINT);
		off += XCHG_HDR_LEN + blen;
	}
}

static void raw(uint16_t port, const void *bytes, size_t len, bool close_write)
{
	uint8_t reply[4096];
	int fd = dial(port);

	assert_int_equal(send(fd, bytes, len, MSG_NOSIGNAL), (ssize_t)len);
	if (close_write)
		shutdown(fd, SHUT_WR);
	assert_no_endpoint(reply, drain(fd, reply, sizeof(reply)));
	close(fd);
}

static int encode_hello(uint8_t *buf, size_t cap, bool keyed, uint64_t dur_ns)
{
	struct xchg_msg m = { .type = XCHG_HELLO };

	m.auth.flags = keyed ? XCHG_AUTH_PSK : 0;
	auth_nonce_fill(m.auth.nonce);
	params(&m.u.hello, 1, dur_ns);
	return xchg_encode(&m, buf, cap);
}

static void test_hostile_peers(void **state)
{
	uint8_t buf[XCHG_HDR_LEN + XCHG_MAX_BODY], reply[4096];
	struct xchg_msg proof = { .type = XCHG_PROOF };
	struct server_run *s = server_start(KEY, D5);
	int idle[30], i, fd, len, plen;
	char why[512];

	(void)state;
	raw(s->port, "GET / HTTP/1.0\r\n\r\n", 18, true);
	raw(s->port, "PFCT\x00\x09\x01\x00\x00\x00\x00\x00", 12, false);
	raw(s->port, "PFCT\x00\x02\x01\x00\x7f\xff\xff\xff", 12, false);
	raw(s->port, "PFCT\x00", 5, false);		/* then silence: slow partial header */
	raw(s->port, "", 0, true);			/* connect, say nothing, close */
	plen = xchg_encode(&proof, buf, sizeof(buf));
	raw(s->port, buf, (size_t)plen, true);		/* PROOF before HELLO */
	/* HELLO with a key claimed, then a forged (zero) proof. */
	len = encode_hello(buf, sizeof(buf), true, D5);
	memcpy(buf + len, buf, 0);
	xchg_encode(&proof, buf + len, sizeof(buf) - (size_t)len);
	raw(s->port, buf, (size_t)(len + plen), true);
	/* HELLO, read the server's HELLO, then close. */
	fd = dial(s->port);
	assert_int_equal(send(fd, buf, (size_t)len, MSG_NOSIGNAL), len);
	assert_true(recv(fd, reply, sizeof(reply), 0) > XCHG_HDR_LEN);
	close(fd);

	/* 30 idle connections do not hold a real client back. */
	for (i = 0; i < 30; i++)
		idle[i] = dial(s->port);
	/* Mutated HELLO + PROOF pairs: none passes, none gets a memory key. */
	srand(4242);
	for (i = 0; i < 300; i++) {
		int j, n;

		len = encode_hello(buf, sizeof(buf), true, D5);
		xchg_encode(&proof, buf + len, sizeof(buf) - (size_t)len);
		n = len + plen;
		for (j = 0; j < 1 + rand() % 3; j++)
			buf[rand() % n] = (uint8_t)rand();
		raw(s->port, buf, (size_t)(rand() % 4 ? n : rand() % n), true);
	}
	assert_int_equal(client(s->port, KEY, D5, why, sizeof(why)), 0);
	server_wait(s);
	for (i = 0; i < 30; i++)
		close(idle[i]);
	assert_int_equal(s->rc, 0);
	if (getenv("HS_DEBUG"))
		for (i = 0; i < s->nrej; i++)
			fprintf(stderr, "reject: %s\n", s->rej[i]);
	/* The named cases (the mutated messages add more of some kinds). */
	assert_int_equal(rejected_with(s, "bad magic 0x47455420"), 1);	/* "GET " */
	assert_true(rejected_with(s, "version 9") >= 1);
	assert_true(rejected_with(s, "oversized message: body of 2147483647 bytes") >= 1);
	assert_int_equal(rejected_with(s, "slow partial header: 5 of 12 bytes"), 1);
	assert_true(rejected_with(s, "closed the connection before its HELLO") >= 1);
	assert_true(rejected_with(s, "unexpected PROOF before its HELLO") >= 1);
	assert_true(rejected_with(s, "wrong key") >= 1);
	assert_true(rejected_with(s, "closed the connection after its HELLO") >= 1);
	/* Every connection but the real client's was rejected with a reason: 8 above, 300
	 * mutated ones, 30 idle (silent past the deadline, or dropped when the client won).
	 */
	assert_int_equal(s->nrej, 8 + 300 + 30);
	assert_int_equal(rejected_with(s, "silent before its HELLO") +
			 rejected_with(s, "another client completed"), 30);
	server_free(s);
}

/* More pending connections than slots: the oldest is dropped, the newest is served. */
static void test_pending_limit(void **state)
{
	struct server_run *s = server_start(KEY, D5);
	int idle[HANDSHAKE_MAX_PENDING + 5], i;
	char why[512];

	(void)state;
	s->cfg.deadline_ns = 30000000000ULL;	/* nobody expires: only the slot limit acts */
	for (i = 0; i < HANDSHAKE_MAX_PENDING + 5; i++)
		idle[i] = dial(s->port);
	assert_int_equal(client(s->port, KEY, D5, why, sizeof(why)), 0);
	server_wait(s);
	for (i = 0; i < HANDSHAKE_MAX_PENDING + 5; i++)
		close(idle[i]);
	assert_int_equal(s->rc, 0);
	assert_true(rejected_with(s, "this was the oldest") >= 6);
	server_free(s);
}

static void test_wait_and_stop(void **state)
{
	struct server_run *s = server_start(KEY, D5);

	(void)state;
	s->stop = 1;
	server_wait(s);
	assert_int_equal(s->rc, -EINTR);
	server_free(s);
}

/* handshake_server_conn: one connection's handshake on its own (a socketpair here). */
struct pair_client {
	int fd, rc;
	char why[512];
};

static void *pair_client_main(void *arg)
{
	struct pair_client *pc = arg;
	struct xchg_msg ping = { .type = XCHG_PING };
	struct auth_key k;
	struct xchg_hello mine, theirs;
	struct handshake_cfg c = { .key = &k, .mine = &mine, .step_ns = 2000000000ULL };

	key_set(&k, KEY);
	params(&mine, 1, D5);
	pc->rc = handshake_client_run(pc->fd, &c, &theirs, pc->why, sizeof(pc->why));
	if (!pc->rc)	/* the next message, which must stay in the socket for later */
		pc->rc = conn_send(pc->fd, &ping, 2000000000ULL, pc->why, sizeof(pc->why));
	return NULL;
}

static void test_server_conn(void **state)
{
	struct server_run *s = server_start(KEY, D5);
	struct pair_client pc = { .fd = -1 };
	struct xchg_hello theirs;
	struct xchg_msg m;
	uint8_t reply[512];
	char why[512];
	pthread_t th;
	int sv[2];

	(void)state;
	s->stop = 1;	/* only its configuration and rejections are used here */
	server_wait(s);
	s->stop = 0;
	s->cfg.deadline_ns = 100000000ULL;
	/* A real client passes; its next message is left for the caller. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pc.fd = sv[1];
	assert_int_equal(pthread_create(&th, NULL, pair_client_main, &pc), 0);
	assert_int_equal(handshake_server_conn(sv[0], "pair", &s->cfg, &theirs, why, sizeof(why)), 0);
	pthread_join(th, NULL);
	assert_int_equal(pc.rc, 0);
	assert_int_equal(theirs.role, 1);
	assert_int_equal(theirs.count, D5);
	assert_int_equal(conn_recv(sv[0], &m, 1000000000ULL, why, sizeof(why)), 0);
	assert_int_equal(m.type, XCHG_PING);
	close(sv[0]);
	close(sv[1]);
	/* A stranger, then a silent peer: rejected with the reason c->reject gets too, and
	 * the connection closed. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(write(sv[1], "GET / HTTP/1.0\r\n\r\n", 18), 18);
	assert_int_equal(handshake_server_conn(sv[0], "pair", &s->cfg, &theirs, why, sizeof(why)),
			 -ECONNABORTED);
	assert_non_null(strstr(why, "bad magic 0x47455420"));
	assert_int_equal(rejected_with(s, "bad magic 0x47455420"), 1);
	drain(sv[1], reply, sizeof(reply));	/* its ABORT, then EOF: closed */
	assert_int_equal(recv(sv[1], reply, sizeof(reply), 0), 0);
	close(sv[1]);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(handshake_server_conn(sv[0], "pair", &s->cfg, &theirs, why, sizeof(why)),
			 -ECONNABORTED);
	assert_non_null(strstr(why, "silent before its HELLO"));
	close(sv[1]);
	server_free(s);
}

/* After the handshake (conn_recv): a header cut short is named as slow or truncated, and
 * only bytes that show a wrong magic are called one.
 */
static void test_partial_header(void **state)
{
	struct xchg_msg m;
	char why[256];
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(write(sv[1], "PF", 2), 2);
	assert_int_equal(conn_recv(sv[0], &m, 100000000ULL, why, sizeof(why)), -EPROTO);
	assert_string_equal(why, "slow partial message header: 2 of 12 bytes, then nothing within the timeout");
	assert_int_equal(write(sv[1], "CT\x00", 3), 3);
	close(sv[1]);
	assert_int_equal(conn_recv(sv[0], &m, 100000000ULL, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "truncated partial message header: 3 of 12 bytes"));
	close(sv[0]);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(write(sv[1], "GET /", 5), 5);
	close(sv[1]);
	assert_int_equal(conn_recv(sv[0], &m, 100000000ULL, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "bad magic"));
	close(sv[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_file),
		cmocka_unit_test(test_mac),
		cmocka_unit_test(test_right_key),
		cmocka_unit_test(test_key_mismatches),
		cmocka_unit_test(test_server_reasons),
		cmocka_unit_test(test_hostile_peers),
		cmocka_unit_test(test_pending_limit),
		cmocka_unit_test(test_wait_and_stop),
		cmocka_unit_test(test_server_conn),
		cmocka_unit_test(test_partial_header),
	};

	assert_int_equal(auth_init(), 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
