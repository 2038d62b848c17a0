// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_handshake.c: libFuzzer target for the traffic handshake above the exchange parser
 * (handshake.c, with conn.c's reads and auth.c's key proofs): the input is what a hostile
 * peer sends. Byte 0 picks this side: bit 0 client (else server), bit 1 it holds the key
 * (--psk). The rest is written into one end of a socketpair and that end is shut for
 * writing; the real handshake runs on the other end, so every read ends at EOF and none
 * waits. After a handshake that passed, the peer's ENDPOINT is read and checked as
 * traffic.c does before the verbs take it (no RDMA device here).
 *
 * Nonces come from a fixed stand-in for libsodium's random source, so that a well-formed
 * handshake can prove the key; the seeds are made by this program's own encoder calls:
 * PFCLAB_FUZZ_SEEDS=DIR build/fuzz/fuzz_handshake writes them into DIR and exits.
 *
 * Checks beyond the sanitizers: a handshake passes only with agreeing parameters and,
 * with a key, the right proof; the server reads nothing past the PROOF nor the client
 * past the server's HELLO (the next message stays in the socket); every reason for the
 * user is one line of printable ASCII, whatever bytes the peer sent.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <sodium.h>

#include "lib/fuzz/fuzzdir.h"
#include "traffic/auth.h"
#include "traffic/conn.h"
#include "traffic/handshake.h"
#include "traffic/xchg.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PICK_CLIENT 0x01
#define PICK_KEY 0x02
#define STEP_NS 50000000ULL	/* never waited for: the peer's end is shut */

static const char key_text[] = "fuzz-handshake-key-0123456789abcdef";

/* ---- a fixed random source (nonces) -------------------------------------------------- */

static const char *rng_name(void)
{
	return "pfclab-fuzz-fixed";
}

static uint32_t rng_random(void)
{
	return 0x5a5a5a5a;
}

static void rng_buf(void *const buf, const size_t size)
{
	memset(buf, 0x5a, size);
}

static randombytes_implementation rng_fixed = {
	.implementation_name = rng_name, .random = rng_random, .buf = rng_buf,
};

/* ---- both sides' parameters ---------------------------------------------------------- */

static void params(struct xchg_hello *h, uint8_t role)
{
	memset(h, 0, sizeof(*h));
	h->role = role;
	h->flags = XCHG_F_BIDIR;
	h->qps = 2;
	h->nsizes = 2;
	h->sizes[0] = 4096;
	h->sizes[1] = 65536;
	h->count = 2000000000ULL;
	h->warmup_ns = 100000000ULL;
}

static void endpoint(struct xchg_hello *h)
{
	uint32_t i;

	h->lid = 0;
	memset(h->gid, 0, sizeof(h->gid));
	h->gid[10] = h->gid[11] = 0xff;
	h->gid[12] = 10;
	h->gid[15] = 1;
	h->mtu = 3;
	h->rkey = 0x1234;
	h->addr = 0x7f0000001000ULL;
	h->len = (uint64_t)h->qps * h->sizes[1];
	for (i = 0; i < h->qps; i++) {
		h->qp[i].qpn = 0x11 + i;
		h->qp[i].psn = 0xabcd00 + i;
	}
}

static void key_fill(struct auth_key *k)
{
	memset(k, 0, sizeof(*k));
	k->len = sizeof(key_text) - 1;
	memcpy(k->key, key_text, k->len);
}

/* ---- seeds ---------------------------------------------------------------------------- */

struct seed {
	uint8_t buf[4 * (XCHG_HDR_LEN + XCHG_MAX_BODY)];
	size_t len;
};

static void put(struct seed *s, const struct xchg_msg *m)
{
	int n = xchg_encode(m, s->buf + s->len, sizeof(s->buf) - s->len);

	if (n < 0) {
		fprintf(stderr, "fuzz_handshake: cannot encode a %s seed message\n", xchg_type_name(m->type));
		exit(1);
	}
	s->len += (size_t)n;
}

static void seed_write(const char *dir, const char *name, const struct seed *s)
{
	if (fuzz_put(dir, name, s->buf, s->len)) {
		fprintf(stderr, "fuzz_handshake: cannot write %s/%s\n", dir, name);
		exit(1);
	}
}

/* The peer's HELLO: its parameters (role: the peer's), key mode, and for a server with the
 * key its proof over this side's parameters and both nonces (the fixed source's). */
static void put_hello(struct seed *s, uint8_t peer_role, bool key, bool bad_proof, uint64_t count)
{
	struct xchg_msg m = { .type = XCHG_HELLO };
	struct xchg_hello other;
	struct auth_key k;
	uint8_t nonce[XCHG_NONCE_LEN];

	params(&m.u.hello, peer_role);
	m.u.hello.count = count;
	params(&other, !peer_role);
	auth_nonce_fill(nonce);
	memcpy(m.auth.nonce, nonce, sizeof(nonce));
	if (key) {
		m.auth.flags = XCHG_AUTH_PSK;
		key_fill(&k);
		if (peer_role == 0 &&
		    auth_mac(&k, AUTH_SERVER, nonce, nonce, &other, &m.u.hello, m.auth.mac))
			exit(1);
		if (bad_proof)
			m.auth.mac[0] ^= 1;
	}
	put(s, &m);
}

/* The client's PROOF: its key proof, or zeros without a key. */
static void put_proof(struct seed *s, bool key, bool bad_proof)
{
	struct xchg_msg m = { .type = XCHG_PROOF };
	struct xchg_hello client, server;
	uint8_t nonce[XCHG_NONCE_LEN];
	struct auth_key k;

	if (key) {
		params(&client, 1);
		params(&server, 0);
		auth_nonce_fill(nonce);
		key_fill(&k);
		if (auth_mac(&k, AUTH_CLIENT, nonce, nonce, &client, &server, m.auth.mac))
			exit(1);
		if (bad_proof)
			m.auth.mac[0] ^= 1;
	}
	put(s, &m);
}

static void put_endpoint(struct seed *s)
{
	struct xchg_msg m = { .type = XCHG_ENDPOINT };

	params(&m.u.hello, 0);
	endpoint(&m.u.hello);
	put(s, &m);
}

static void put_simple(struct seed *s, uint8_t type, const char *reason)
{
	struct xchg_msg m = { .type = type };

	if (reason)
		snprintf(m.u.reason, sizeof(m.u.reason), "%s", reason);
	put(s, &m);
}

static void seeds_write(const char *dir)
{
	static const struct {
		const char *name;
		uint8_t pick;
		enum { S_GOOD, S_BAD_PROOF, S_MISMATCH, S_ABORT, S_NO_PROOF } what;
	} list[] = {
		{ "server", 0, S_GOOD },
		{ "server-key", PICK_KEY, S_GOOD },
		{ "server-key-wrong", PICK_KEY, S_BAD_PROOF },
		{ "server-mismatch", 0, S_MISMATCH },
		{ "server-abort", 0, S_ABORT },
		{ "server-no-proof", PICK_KEY, S_NO_PROOF },
		{ "client", PICK_CLIENT, S_GOOD },
		{ "client-key", PICK_CLIENT | PICK_KEY, S_GOOD },
		{ "client-key-wrong", PICK_CLIENT | PICK_KEY, S_BAD_PROOF },
		{ "client-mismatch", PICK_CLIENT, S_MISMATCH },
		{ "client-abort", PICK_CLIENT | PICK_KEY, S_ABORT },
	};
	static struct seed s;
	size_t i;

	for (i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
		bool client = list[i].pick & PICK_CLIENT, key = list[i].pick & PICK_KEY;
		uint8_t peer_role = client ? 0 : 1;

		s.buf[0] = list[i].pick;
		s.len = 1;
		switch (list[i].what) {
		case S_ABORT:
			put_simple(&s, XCHG_ABORT, "rejected: wrong key (seed)");
			break;
		case S_MISMATCH:
			put_hello(&s, peer_role, key, false, 5000000000ULL);
			break;
		case S_NO_PROOF:
			put_hello(&s, peer_role, key, false, 2000000000ULL);
			put_simple(&s, XCHG_PING, NULL);
			break;
		case S_GOOD:
		case S_BAD_PROOF:
			put_hello(&s, peer_role, key, list[i].what == S_BAD_PROOF, 2000000000ULL);
			if (!client)
				put_proof(&s, key, list[i].what == S_BAD_PROOF);
			put_simple(&s, XCHG_PING, NULL);
			put_endpoint(&s);
			put_simple(&s, XCHG_READY, NULL);
			break;
		}
		seed_write(dir, list[i].name, &s);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("PFCLAB_FUZZ_SEEDS");

	(void)argc;
	(void)argv;
	if (randombytes_set_implementation(&rng_fixed) || auth_init()) {
		fprintf(stderr, "fuzz_handshake: libsodium failed to initialise\n");
		exit(1);
	}
	if (dir) {
		seeds_write(dir);
		exit(0);
	}
	return 0;
}

/* ---- one run -------------------------------------------------------------------------- */

/* A reason for the user: one line of printable ASCII. */
static void check_text(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			__builtin_trap();
}

static void on_reject(void *ctx, const char *peer, const char *why)
{
	(void)ctx;
	(void)peer;
	if (!*why)
		__builtin_trap();
	check_text(why);
}

/* Length of the input's message at off (header and body), 0 when none is whole. */
static size_t msg_len(const uint8_t *in, size_t len, size_t off, struct xchg_msg *m)
{
	uint32_t blen;
	uint8_t type;
	char why[256];

	if (off > len || xchg_header_decode(in + off, len - off, &type, &blen, why, sizeof(why)) ||
	    xchg_decode(in + off, XCHG_HDR_LEN + (size_t)blen, m, why, sizeof(why)))
		return 0;
	return XCHG_HDR_LEN + blen;
}

static size_t unread(int fd)
{
	int n = 0;

	if (ioctl(fd, SIOCINQ, &n))
		__builtin_trap();
	return (size_t)n;
}

/* After a passed handshake: the bytes this side has not read are what followed the
 * handshake's messages in the input, and a client's proof was the one the key makes. */
static void check_passed(bool client, const struct handshake_cfg *c, const struct xchg_hello *theirs,
			 const uint8_t *in, size_t fed, int fd)
{
	struct xchg_msg hello, proof;
	uint8_t mac[XCHG_MAC_LEN];
	size_t used;
	char why[300];

	if (xchg_hello_compare(c->mine, theirs, why, sizeof(why)))
		__builtin_trap();	/* passed with parameters that differ */
	used = msg_len(in, fed, 0, &hello);
	if (!used || hello.type != XCHG_HELLO || memcmp(&hello.u.hello, theirs, sizeof(*theirs)))
		__builtin_trap();
	if (!client) {
		size_t p = msg_len(in, fed, used, &proof);

		if (!p || proof.type != XCHG_PROOF)
			__builtin_trap();
		used += p;
		if (c->key->len) {
			uint8_t nonce_s[XCHG_NONCE_LEN];

			auth_nonce_fill(nonce_s);
			if (auth_mac(c->key, AUTH_CLIENT, hello.auth.nonce, nonce_s, &hello.u.hello,
				     c->mine, mac) || !auth_mac_equal(mac, proof.auth.mac))
				__builtin_trap();	/* passed without the key */
		}
	}
	if (unread(fd) != fed - used)
		__builtin_trap();	/* read past the handshake, or less than it */
}

/* What traffic.c's exchange_endpoints does before the verbs: the peer's ENDPOINT (heartbeats
 * skipped), checked against the agreed parameters. */
static void endpoint_read(int fd, const struct handshake_cfg *c)
{
	struct xchg_msg m;
	char why[512];
	int rc;

	do
		rc = conn_recv(fd, &m, STEP_NS, why, sizeof(why));
	while (!rc && m.type == XCHG_PING);
	if (rc) {
		check_text(why);
		return;
	}
	if (m.type != XCHG_ENDPOINT)
		return;
	if (!xchg_endpoint_check(c->mine, &m.u.hello, why, sizeof(why))) {
		if (m.u.hello.qps != c->mine->qps ||
		    m.u.hello.len < (uint64_t)c->mine->qps * c->mine->sizes[1])
			__builtin_trap();
	} else {
		check_text(why);
	}
}

/* Writes what fits into the peer's end without waiting; how much did. */
static size_t feed(int fd, const uint8_t *in, size_t len)
{
	size_t off = 0;
	ssize_t w;

	while (off < len) {
		w = send(fd, in + off, len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	return off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xchg_hello mine, theirs;
	static struct auth_key key;
	struct handshake_cfg c;
	bool client;
	char why[600] = "";
	size_t fed;
	int sv[2], rc;

	if (!size)
		return 0;
	client = data[0] & PICK_CLIENT;
	if (data[0] & PICK_KEY)
		key_fill(&key);
	else
		memset(&key, 0, sizeof(key));
	params(&mine, client ? 1 : 0);
	c = (struct handshake_cfg){
		.key = &key, .mine = &mine, .step_ns = STEP_NS, .deadline_ns = STEP_NS,
		.wait_ns = 20 * STEP_NS, .reject = on_reject,
	};
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	fed = feed(sv[1], data + 1, size - 1);
	shutdown(sv[1], SHUT_WR);
	if (client) {
		rc = handshake_client_run(sv[0], &c, &theirs, why, sizeof(why));
	} else {
		fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);	/* as accepted */
		rc = handshake_server_conn(sv[0], "peer", &c, &theirs, why, sizeof(why));
	}
	if (rc) {
		if (!*why)
			__builtin_trap();
		check_text(why);
		if (client)
			close(sv[0]);
	} else {
		check_passed(client, &c, &theirs, data + 1, fed, sv[0]);
		endpoint_read(sv[0], &c);
		close(sv[0]);
	}
	close(sv[1]);
	return 0;
}
