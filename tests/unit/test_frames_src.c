// SPDX-License-Identifier: GPL-2.0-or-later
/* test_frames_src.c: the "frames" monitor source on the loopback device: PFC and CNP
 * frames sent there with AF_PACKET show up in its counters. Needs CAP_NET_RAW (skips
 * without it). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/util.h"
#include "monitor/frames/craft.h"
#include "monitor/frames/tx.h"
#include "monitor/sources/sources.h"

static void test_src_on_lo(void **state)
{
	struct mon_src s = { .ops = &src_frames_ops };
	struct frames_l2 l2 = { .src = { 2, 0, 0, 0, 0, 7 }, .vlan = -1 };
	struct frames_roce ro = { .src_ip = 0x7f000001, .dst_ip = 0x7f000001, .sport = 1,
				  .opcode = 0x81, .dqp = 5, .pkey = 0xffff };
	uint16_t q[8] = { 0 };
	uint8_t b[2][128];
	const uint8_t *ptr[2] = { b[0], b[1] };
	size_t len[2];
	struct frames_tx tx;
	uint64_t vals[32];
	uint8_t valid[32];
	struct timespec ts = { 0, 300 * 1000000 };
	int rc, i;

	(void)state;
	snprintf(s.dev, sizeof(s.dev), "lo");
	rc = src_frames_ops.init(&s);
	if (rc == -EPERM || rc == -EIO || getuid() != 0) {
		if (!rc)
			src_frames_ops.close(&s);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(src_frames_ops.discover(&s), 0);
	assert_true(s.nfields <= 32);
	assert_int_equal(frames_tx_open(&tx, "lo", false), 0);
	memcpy(l2.dst, frames_macctl_dst, 6);
	q[3] = 100;
	len[0] = frames_craft_pfc(b[0], sizeof(b[0]), &l2, 1u << 3, q);
	len[1] = frames_craft_roce(b[1], sizeof(b[1]), &l2, &ro);
	nanosleep(&ts, NULL);
	for (i = 0; i < 5; i++)
		assert_int_equal(frames_tx_send(&tx, ptr, len, 2), 2);
	frames_tx_close(&tx);
	nanosleep(&ts, NULL);
	assert_int_equal(src_frames_ops.sample(&s, vals, valid), 0);
	for (i = 0; i < (int)s.nfields; i++) {
		if (!strcmp(s.fields[i].raw, "pfc_prio3_frames") ||
		    !strcmp(s.fields[i].raw, "cnp_frames")) {
			assert_true(valid[i]);
			/* lo hands each frame to taps twice (out and in) */
			assert_true(vals[i] == 5 || vals[i] == 10);
		}
		if (!strcmp(s.fields[i].raw, "capture_kernel_drops"))
			assert_true(!valid[i] || vals[i] == 0);
	}
	src_frames_ops.close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_src_on_lo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
