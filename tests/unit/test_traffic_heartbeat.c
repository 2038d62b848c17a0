// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_heartbeat.c: the heartbeat thread sends PINGs while the main thread sends
 * its own messages through heartbeat_send: every message arrives whole (none cut by a
 * PING), in order, and stopping the thread joins it; a PING goes out only when nothing
 * else did for the set time. Without the thread, the main loop's own PING (heartbeat_beat)
 * and when a side needs the thread.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "traffic/conn.h"
#include "traffic/heartbeat.h"

#define NSTATS 1000

struct reader {
	int fd;
	uint64_t pings, stats, out_of_order, other;
	int rc;
};

/* Reads everything until EOF (the socket buffer is small: read while the sender sends). */
static void *read_all(void *arg)
{
	struct reader *rd = arg;
	struct xchg_msg m;
	char why[256];

	while ((rd->rc = conn_recv(rd->fd, &m, 5000000000ULL, why, sizeof(why))) == 0) {
		if (m.type == XCHG_PING)
			rd->pings++;
		else if (m.type != XCHG_STATS)
			rd->other++;
		else if (m.u.ctr.bytes != rd->stats++)
			rd->out_of_order++;
	}
	return NULL;
}

static uint64_t pings_of(struct heartbeat *hb)
{
	uint64_t n;

	pthread_mutex_lock(&hb->mu);
	n = hb->pings;
	pthread_mutex_unlock(&hb->mu);
	return n;
}

/* A socket pair with read_all on one end and a heartbeat of quiet_ns on the other. */
static void connect_reader(struct reader *rd, pthread_t *th, struct heartbeat *hb, int sv[2],
			   uint64_t quiet_ns)
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	rd->fd = sv[1];
	assert_int_equal(pthread_create(th, NULL, read_all, rd), 0);
	assert_int_equal(heartbeat_init(hb, sv[0]), 0);
	heartbeat_quiet(hb, quiet_ns);
	assert_int_equal(heartbeat_start(hb), 0);
}

static void test_pings_and_messages(void **state)
{
	struct reader rd = { 0 };
	struct heartbeat hb;
	struct xchg_msg m;
	pthread_t th;
	char why[256];
	uint64_t i;
	int sv[2];

	(void)state;
	connect_reader(&rd, &th, &hb, sv, 1000000ULL);	/* quiet for 1 ms: a PING */
	for (i = 0; i < NSTATS; i++) {
		m = (struct xchg_msg){ .type = XCHG_STATS };
		m.u.ctr.phase = 1;
		m.u.ctr.bytes = i;
		assert_int_equal(heartbeat_send(&hb, &m, 1000000000ULL, why, sizeof(why)), 0);
	}
	/* Wait (at most 5 s) for a few PINGs of the thread's own. */
	for (i = 0; i < 500 && pings_of(&hb) < 3; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	heartbeat_fini(&hb);
	assert_int_equal(hb.err, 0);
	assert_true(hb.pings >= 3);
	close(sv[0]);
	pthread_join(th, NULL);
	/* Everything arrived whole and in order, then EOF. */
	assert_int_equal(rd.rc, -ECONNRESET);
	assert_int_equal(rd.stats, NSTATS);
	assert_int_equal(rd.out_of_order, 0);
	assert_int_equal(rd.other, 0);
	assert_int_equal(rd.pings, hb.pings);
	close(sv[1]);
}

/* Messages of the main thread every 20 ms keep a heartbeat of 500 ms quiet (a PING would
 * need one 25 times late); once they stop, PINGs come. */
static void test_quiet_while_messages_flow(void **state)
{
	const struct timespec ms20 = { .tv_nsec = 20000000 };
	struct reader rd = { 0 };
	struct heartbeat hb;
	struct xchg_msg m = { .type = XCHG_STATS };
	pthread_t th;
	char why[256];
	uint64_t i;
	int sv[2];

	(void)state;
	connect_reader(&rd, &th, &hb, sv, 500000000ULL);
	m.u.ctr.phase = 1;
	for (i = 0; i < 75; i++) {	/* 1.5 s: three times the quiet time */
		m.u.ctr.bytes = i;
		assert_int_equal(heartbeat_send(&hb, &m, 1000000000ULL, why, sizeof(why)), 0);
		nanosleep(&ms20, NULL);
	}
	assert_int_equal(pings_of(&hb), 0);
	for (i = 0; i < 250 && pings_of(&hb) < 2; i++)	/* then at most 5 s for two PINGs */
		nanosleep(&ms20, NULL);
	heartbeat_fini(&hb);
	assert_int_equal(hb.err, 0);
	assert_true(hb.pings >= 2);
	close(sv[0]);
	pthread_join(th, NULL);
	assert_int_equal(rd.stats, 75);
	assert_int_equal(rd.pings, hb.pings);
	close(sv[1]);
}

/* A peer that went away ends the thread with the send error; fini still joins. */
static void test_peer_gone(void **state)
{
	struct heartbeat hb;
	int sv[2], i;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	close(sv[1]);
	assert_int_equal(heartbeat_init(&hb, sv[0]), 0);
	heartbeat_quiet(&hb, 1000000ULL);
	assert_int_equal(heartbeat_start(&hb), 0);
	for (i = 0; i < 500; i++) {
		struct timespec ts = { .tv_nsec = 10000000 };
		int err;

		pthread_mutex_lock(&hb.mu);
		err = hb.err;
		pthread_mutex_unlock(&hb.mu);
		if (err)
			break;
		nanosleep(&ts, NULL);
	}
	heartbeat_fini(&hb);
	assert_int_equal(hb.err, -ECONNRESET);
	close(sv[0]);
}

/* Without the thread the main loop's heartbeat_beat sends a PING only once quiet_ns passed
 * since the last message, says how late it was, and a message sent meanwhile puts it off. */
static void test_main_loop_beat(void **state)
{
	const uint64_t quiet = 200000000ULL;	/* 200 ms */
	struct reader rd = { 0 };
	struct heartbeat hb;
	struct xchg_msg m = { .type = XCHG_STATS };
	uint64_t t, late = 1;
	pthread_t th;
	char why[256];
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	rd.fd = sv[1];
	assert_int_equal(pthread_create(&th, NULL, read_all, &rd), 0);
	assert_int_equal(heartbeat_init(&hb, sv[0]), 0);
	hb.quiet_ns = quiet;
	m.u.ctr.phase = 1;
	assert_int_equal(heartbeat_send(&hb, &m, 1000000000ULL, why, sizeof(why)), 0);
	t = hb.last_ns;
	assert_int_equal(heartbeat_due_ns(&hb), t + quiet);
	/* not due: nothing goes out */
	assert_int_equal(heartbeat_beat(&hb, t + quiet - 1, &late, why, sizeof(why)), 0);
	assert_int_equal(late, 0);
	assert_int_equal(hb.pings, 0);
	/* due, 30 ms late: a PING, and the lateness */
	assert_int_equal(heartbeat_beat(&hb, t + quiet + 30000000ULL, &late, why, sizeof(why)),
			 0);
	assert_int_equal(hb.pings, 1);
	assert_int_equal(late, 30000000ULL);
	assert_false(heartbeat_late(&hb, late));	/* within a quarter of quiet_ns */
	assert_true(heartbeat_late(&hb, quiet / 4 + 1));
	/* the PING put the next one off by quiet_ns from when it went */
	assert_true(heartbeat_due_ns(&hb) >= t + quiet);
	assert_false(hb.running);
	heartbeat_fini(&hb);
	close(sv[0]);
	pthread_join(th, NULL);
	assert_int_equal(rd.stats, 1);
	assert_int_equal(rd.pings, 1);
	assert_int_equal(rd.other, 0);
	close(sv[1]);
}

/* The thread where a side never posts or may queue over HEARTBEAT_THREAD_BYTES; none for
 * less. */
static void test_thread_wanted(void **state)
{
	(void)state;
	assert_true(heartbeat_thread_wanted(false, 0));
	assert_true(heartbeat_thread_wanted(false, 128 * 64));
	assert_false(heartbeat_thread_wanted(true, 128 * 4096));
	assert_false(heartbeat_thread_wanted(true, HEARTBEAT_THREAD_BYTES));
	assert_true(heartbeat_thread_wanted(true, HEARTBEAT_THREAD_BYTES + 1));
	assert_true(heartbeat_thread_wanted(true, 128ull * 65536));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pings_and_messages),
		cmocka_unit_test(test_quiet_while_messages_flow),
		cmocka_unit_test(test_peer_gone),
		cmocka_unit_test(test_main_loop_beat),
		cmocka_unit_test(test_thread_wanted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
