/* SPDX-License-Identifier: GPL-2.0-or-later */
/* auth.h: the pre-shared key of the traffic exchange and the key proofs both peers send
 * (HMAC-SHA256 from libsodium over both nonces and both sides' parameters; layout and
 * handshake in xchg.h).
 */
#ifndef PFCLAB_TRAFFIC_AUTH_H
#define PFCLAB_TRAFFIC_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traffic/xchg.h"

#define AUTH_KEY_MIN 16
#define AUTH_KEY_MAX 4096

struct auth_key {
	size_t len;			/* 0: no key */
	uint8_t key[AUTH_KEY_MAX];
};

enum auth_role { AUTH_SERVER, AUTH_CLIENT };

/* Reads a key file: its content with one trailing newline stripped, at least AUTH_KEY_MIN
 * bytes. A file that group or others may read is refused. 0, or -errno with one line in
 * why (-EPERM for the mode, -EINVAL for the length, -EISDIR/-ENOENT/... from the file).
 */
int auth_key_load(const char *path, struct auth_key *k, char *why, size_t n);

/* Initialises libsodium. 0, or -EIO. Safe to call more than once. */
int auth_init(void);
void auth_nonce_fill(uint8_t nonce[XCHG_NONCE_LEN]);

/* The proof ROLE sends: HMAC-SHA256(key, label || nonce_c || nonce_s || params_c ||
 * params_s). -EINVAL when a HELLO's parameters cannot be encoded.
 */
int auth_mac(const struct auth_key *k, enum auth_role role, const uint8_t *nonce_c,
	     const uint8_t *nonce_s, const struct xchg_hello *params_c,
	     const struct xchg_hello *params_s, uint8_t mac[XCHG_MAC_LEN]);

/* Constant-time comparison of a received proof with the expected one. */
bool auth_mac_equal(const uint8_t *a, const uint8_t *b);

/* Wipes the key from memory. */
void auth_key_clear(struct auth_key *k);

#endif
