/* SPDX-License-Identifier: GPL-2.0-or-later */
/* heartbeat.h: a PING on the exchange connection whenever nothing else went out on it for
 * a set time, so that the peer hears from a live process at least that often and only a
 * stopped, hung-up or unreachable one goes silent. Where the main loop's own messages (a
 * sender's STATS every interval) come often enough, no PING is sent. The PINGs come from
 * the main loop where it surfaces often enough (heartbeat_beat), else from a thread that
 * sends them whatever the main loop is doing (a post call on Soft-RoCE can take seconds).
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
/* A PING whenever no message went out for quiet_ns (from the main loop or the thread);
 * with nothing sent yet, the first is quiet_ns from now. Before any of the calls below. */
void heartbeat_quiet(struct heartbeat *hb, uint64_t quiet_ns);
/* Starts the thread, which sends those PINGs whatever the main loop does. 0 or -errno. */
int heartbeat_start(struct heartbeat *hb);
/* Sends one message, never interleaved with a PING. As conn_send. */
int heartbeat_send(struct heartbeat *hb, const struct xchg_msg *m, uint64_t timeout_ns,
		   char *why, size_t n);
/* A side whose main loop posts sends its own PINGs while no thread runs (a second thread
 * makes every post call dearer: on Soft-RoCE a post is a write(2), and in a process with
 * two threads glibc's cancellation handling and the kernel's shared file table add about
 * 70 instructions to each, 0.2-0.3% of the small-message rate in an emulated guest).
 * The thread takes over where the loop may be held up for long: where a side may have
 * more than HEARTBEAT_THREAD_BYTES queued at once (on Soft-RoCE one post call does the
 * protocol work of everything queued on the send queue: 8 MiB took over 0.65 s on one
 * emulated CPU), or once the loop was late with a PING by over a quarter of quiet_ns.
 */
#define HEARTBEAT_THREAD_BYTES (2ull << 20)

/* Whether a side needs the thread for a phase: one that never posts sleeps on the
 * exchange connection for long (and gains nothing from one thread), one that may queue
 * more than HEARTBEAT_THREAD_BYTES may be held up in a post. */
bool heartbeat_thread_wanted(bool posts, uint64_t queued_bytes);
/* When the main loop's next PING is due: quiet_ns after the last message sent. */
uint64_t heartbeat_due_ns(struct heartbeat *hb);
/* The main loop's PING, when one is due by now and no thread runs: 0 when none was due
 * or it went out (*late_ns: how long past due, 0 if none), else as heartbeat_send. */
int heartbeat_beat(struct heartbeat *hb, uint64_t now, uint64_t *late_ns, char *why, size_t n);
/* Whether a PING that went out late_ns past due says the loop cannot be counted on. */
bool heartbeat_late(const struct heartbeat *hb, uint64_t late_ns);
/* Stops and joins the thread (if any) and frees what init made. */
void heartbeat_fini(struct heartbeat *hb);

#endif
