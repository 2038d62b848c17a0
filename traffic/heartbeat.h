/* SPDX-License-Identifier: GPL-2.0-or-later */
/* heartbeat.h: a thread that sends a PING on the exchange connection whenever nothing
 * else went out on it for a set time, whatever the main loop is doing (a post call on
 * Soft-RoCE can take seconds), so that the peer hears from a live process at least that
 * often and only a stopped, hung-up or unreachable one goes silent. Where the main loop's
 * own messages (a sender's STATS every interval) come often enough, no PING is sent.
 * Every message on the connection goes out through heartbeat_send, which keeps the
 * thread's PINGs from cutting into another message and notes when the last one left.
 */
#ifndef PFCLAB_TRAFFIC_HEARTBEAT_H
#define PFCLAB_TRAFFIC_HEARTBEAT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traffic/xchg.h"

struct heartbeat {
	pthread_mutex_t send_mu;	/* one message at a time on the connection */
	pthread_mutex_t mu;		/* guards stop and cond */
	pthread_cond_t cond;
	pthread_t th;
	bool running;
	bool stop;
	int fd;
	uint64_t quiet_ns;		/* a PING after this long without a message */
	uint64_t last_ns;		/* when the last message left (time_mono_ns; atomic) */
	uint64_t pings;			/* sent so far (tests) */
	int err;			/* the send error that ended the thread, 0 if none */
};

/* Ready to send (heartbeat_send works), no thread yet. 0 or -errno. */
int heartbeat_init(struct heartbeat *hb, int fd);
/* Starts the thread: a PING whenever no message went out for quiet_ns. 0 or -errno. */
int heartbeat_start(struct heartbeat *hb, uint64_t quiet_ns);
/* Sends one message, never interleaved with a PING. As conn_send. */
int heartbeat_send(struct heartbeat *hb, const struct xchg_msg *m, uint64_t timeout_ns,
		   char *why, size_t n);
/* Stops and joins the thread (if any) and frees what init made. */
void heartbeat_fini(struct heartbeat *hb);

#endif
