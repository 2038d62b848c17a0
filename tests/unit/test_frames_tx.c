// SPDX-License-Identifier: GPL-2.0-or-later
/* test_frames_tx.c: the transmit ring on the loopback device: frames of varied lengths,
 * more of them than the ring has slots, arrive once each, in order and byte for byte
 * (no virtio-net header leaks into a frame); an oversized frame is refused. Needs
 * CAP_NET_RAW (skips without it). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "monitor/frames/tx.h"

#define N     3000 /* more than the ring's slots: the ring wraps */
#define ETYPE 0x88b5 /* IEEE local experimental */

static size_t make_frame(uint8_t *b, unsigned i)
{
	size_t len = 60 + i % 200, k;

	memset(b, 0, 6);
	b[0] = 0x02;
	b[5] = 0x01; /* dst 02:00:00:00:00:01 */
	/* src 02:00:<pid>: the loopback device is shared with every other process on the
	 * host, another run of this test included; the receiver keeps only its own frames */
	b[6] = 0x02;
	b[7] = 0;
	b[8] = (uint8_t)(getpid() >> 24);
	b[9] = (uint8_t)(getpid() >> 16);
	b[10] = (uint8_t)(getpid() >> 8);
	b[11] = (uint8_t)getpid();
	b[12] = ETYPE >> 8;
	b[13] = ETYPE & 0xff;
	b[14] = (uint8_t)(i >> 8);
	b[15] = (uint8_t)i;
	for (k = 16; k < len; k++)
		b[k] = (uint8_t)(i + k);
	return len;
}

static int open_rx(void)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETYPE) };
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETYPE)), sz = 64 << 20;

	if (fd < 0)
		return -errno;
	sll.sll_ifindex = (int)if_nametoindex("lo");
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		close(fd);
		return -EIO;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	return fd;
}

static void test_ring_on_lo(void **state)
{
	static uint8_t frames[N][300];
	const uint8_t *ptr[N];
	size_t lens[N];
	struct frames_tx tx;
	unsigned got = 0, i;
	int rx, rc;

	(void)state;
	if (getuid() != 0)
		skip();
	rx = open_rx();
	if (rx < 0)
		skip();
	assert_int_equal(frames_tx_open(&tx, "lo", true), 0);
	rc = frames_tx_ring(&tx, 2048);
	if (rc == -ENOPROTOOPT || rc == -EINVAL) { /* kernel without the ring */
		frames_tx_close(&tx);
		close(rx);
		skip();
	}
	assert_int_equal(rc, 0);
	for (i = 0; i < N; i++) {
		lens[i] = make_frame(frames[i], i);
		ptr[i] = frames[i];
	}
	for (i = 0; i < N;) {
		unsigned k = N - i < 64 ? N - i : 64;

		rc = frames_tx_send(&tx, ptr + i, lens + i, k);
		assert_true(rc >= 0);
		i += (unsigned)rc;
	}
	assert_int_equal(frames_tx_drain(&tx, 2000000000ull), 0);
	assert_int_equal(tx.sent, N);

	for (;;) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		struct pollfd p = { .fd = rx, .events = POLLIN };
		uint8_t b[400];
		ssize_t n;

		if (got == N || poll(&p, 1, 1000) <= 0)
			break;
		n = recvfrom(rx, b, sizeof(b), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < 0)
			continue;
		if (from.sll_pkttype == PACKET_OUTGOING) /* lo shows each frame leaving too */
			continue;
		if (n < 12 || memcmp(b + 6, frames[0] + 6, 6)) /* another process's frame */
			continue;
		assert_int_equal((size_t)n, lens[got]);
		assert_memory_equal(b, frames[got], lens[got]);
		got++;
	}
	assert_int_equal(got, N);

	/* a frame bigger than a slot is refused, not cut */
	lens[0] = 5000;
	{
		static uint8_t big[5000];

		ptr[0] = big;
		assert_int_equal(frames_tx_send(&tx, ptr, lens, 1), -EMSGSIZE);
	}
	frames_tx_close(&tx);
	close(rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_on_lo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
