// SPDX-License-Identifier: GPL-2.0-or-later
/* auth.c: loads the exchange's pre-shared key and computes and compares the key proofs
 * with libsodium's HMAC-SHA256 (no cryptography written here).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sodium.h>

#include "lib/util.h"
#include "traffic/auth.h"

/* How to make a key file that --psk accepts (mode 0600, 64 hex characters); %s is the path. */
#define KEY_MAKE "(umask 077; openssl rand -hex 32 >%s)"

int auth_init(void)
{
	return sodium_init() < 0 ? -EIO : 0;
}

/* Reads up to cap bytes; *len = cap means "at least cap". */
static int read_all(int fd, uint8_t *buf, size_t cap, size_t *len)
{
	ssize_t r;

	*len = 0;
	while (*len < cap) {
		r = read(fd, buf + *len, cap - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		*len += (size_t)r;
	}
	return 0;
}

static int check_file(int fd, const char *path, char *why, size_t n)
{
	struct stat st;

	if (fstat(fd, &st))
		return pfc_why(why, n, -errno, "--psk %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return pfc_why(why, n, -EINVAL, "--psk %s: not a regular file; give the path of "
			       "the key file itself", path);
	if (st.st_mode & (S_IRGRP | S_IROTH))
		return pfc_why(why, n, -EPERM, "--psk %s: readable by %s (mode %04o): run 'chmod 600 %s'",
			       path, st.st_mode & S_IROTH ? "others" : "its group",
			       (unsigned)(st.st_mode & 07777), path);
	return 0;
}

int auth_key_load(const char *path, struct auth_key *k, char *why, size_t n)
{
	uint8_t buf[AUTH_KEY_MAX + 2];	/* the key, its newline, one byte to see "too long" */
	size_t len = 0;
	int fd, rc;

	memset(k, 0, sizeof(*k));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		return pfc_why(why, n, -ENOENT, "--psk %s: %s; make one with '" KEY_MAKE
			       "' and give both sides the same file", path, strerror(ENOENT), path);
	if (fd < 0)
		return pfc_why(why, n, -errno, "--psk %s: %s", path, strerror(errno));
	rc = check_file(fd, path, why, n);
	if (!rc) {
		rc = read_all(fd, buf, sizeof(buf), &len);
		if (rc)
			pfc_why(why, n, rc, "--psk %s: %s", path, strerror(-rc));
	}
	close(fd);
	if (rc)
		goto out;
	if (len && buf[len - 1] == '\n')
		len--;
	if (len > AUTH_KEY_MAX) {
		rc = pfc_why(why, n, -EINVAL, "--psk %s: longer than %d bytes; a key of 64 hex "
			     "characters is enough: '" KEY_MAKE "'", path, AUTH_KEY_MAX, path);
	} else if (len < AUTH_KEY_MIN) {
		rc = pfc_why(why, n, -EINVAL,
			     "--psk %s: key of %zu bytes, at least %d needed (e.g. '" KEY_MAKE "')",
			     path, len, AUTH_KEY_MIN, path);
	} else {
		memcpy(k->key, buf, len);
		k->len = len;
	}
out:
	sodium_memzero(buf, sizeof(buf));
	return rc;
}

void auth_nonce_fill(uint8_t nonce[XCHG_NONCE_LEN])
{
	randombytes_buf(nonce, XCHG_NONCE_LEN);
}

int auth_mac(const struct auth_key *k, enum auth_role role, const uint8_t *nonce_c,
	     const uint8_t *nonce_s, const struct xchg_hello *params_c,
	     const struct xchg_hello *params_s, uint8_t mac[XCHG_MAC_LEN])
{
	static const char lab_s[] = "pfclab traffic server", lab_c[] = "pfclab traffic client";
	crypto_auth_hmacsha256_state st;
	uint8_t pc[XCHG_PARAMS_MAX], ps[XCHG_PARAMS_MAX];
	int lc, ls;

	lc = xchg_params_encode(params_c, pc, sizeof(pc));
	ls = xchg_params_encode(params_s, ps, sizeof(ps));
	if (lc < 0 || ls < 0)
		return -EINVAL;
	crypto_auth_hmacsha256_init(&st, k->key, k->len);
	if (role == AUTH_SERVER)
		crypto_auth_hmacsha256_update(&st, (const uint8_t *)lab_s, sizeof(lab_s) - 1);
	else
		crypto_auth_hmacsha256_update(&st, (const uint8_t *)lab_c, sizeof(lab_c) - 1);
	crypto_auth_hmacsha256_update(&st, nonce_c, XCHG_NONCE_LEN);
	crypto_auth_hmacsha256_update(&st, nonce_s, XCHG_NONCE_LEN);
	crypto_auth_hmacsha256_update(&st, pc, (unsigned long long)lc);
	crypto_auth_hmacsha256_update(&st, ps, (unsigned long long)ls);
	crypto_auth_hmacsha256_final(&st, mac);
	sodium_memzero(&st, sizeof(st));
	return 0;
}

bool auth_mac_equal(const uint8_t *a, const uint8_t *b)
{
	return sodium_memcmp(a, b, XCHG_MAC_LEN) == 0;
}

void auth_key_clear(struct auth_key *k)
{
	sodium_memzero(k, sizeof(*k));
}
