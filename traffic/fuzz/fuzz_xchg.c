// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_xchg.c: libFuzzer target for the traffic exchange parser: every input is decoded
 * as one message (and its header alone, and every prefix length given by byte 0); a
 * message that decodes must encode again, and except for ABORT (whose reason is made
 * printable) to exactly the input bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "traffic/xchg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[XCHG_HDR_LEN + XCHG_MAX_BODY];
	struct xchg_msg m, again;
	uint32_t blen;
	uint8_t type;
	char why[256];
	int len;

	(void)xchg_header_decode(data, size, &type, &blen, why, sizeof(why));
	if (size)
		(void)xchg_decode(data, data[0] % (size + 1), &m, why, sizeof(why));
	if (xchg_decode(data, size, &m, why, sizeof(why)))
		return 0;
	len = xchg_encode(&m, out, sizeof(out));
	if (len < 0)
		__builtin_trap();	/* accepted a message this side could not send */
	if (m.type != XCHG_ABORT && ((size_t)len != size || memcmp(out, data, size)))
		__builtin_trap();	/* two encodings of one message */
	if (xchg_decode(out, (size_t)len, &again, why, sizeof(why)))
		__builtin_trap();
	return 0;
}
