// SPDX-License-Identifier: GPL-2.0-or-later
/* heartbeat.c: the PING thread of the exchange connection (see heartbeat.h). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"
#include "traffic/conn.h"
#include "traffic/heartbeat.h"

int heartbeat_init(struct heartbeat *hb, int fd)
{
	pthread_condattr_t ca;
	int rc;

	memset(hb, 0, sizeof(*hb));
	hb->fd = fd;
	if ((rc = pthread_mutex_init(&hb->send_mu, NULL)))
		return -rc;
	if ((rc = pthread_mutex_init(&hb->mu, NULL)))
		goto fail_mu;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&hb->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (rc)
		goto fail_cond;
	return 0;
fail_cond:
	pthread_mutex_destroy(&hb->mu);
fail_mu:
	pthread_mutex_destroy(&hb->send_mu);
	return -rc;
}

int heartbeat_send(struct heartbeat *hb, const struct xchg_msg *m, uint64_t timeout_ns,
		   char *why, size_t n)
{
	int rc;

	pthread_mutex_lock(&hb->send_mu);
	rc = conn_send(hb->fd, m, timeout_ns, why, n);
	if (!rc)
		__atomic_store_n(&hb->last_ns, time_mono_ns(), __ATOMIC_RELAXED);
	pthread_mutex_unlock(&hb->send_mu);
	return rc;
}

/* Sleeps until quiet_ns after the last message sent; sends a PING if none went out since,
 * else sleeps again until quiet_ns after that one. */
static void *beat(void *arg)
{
	struct heartbeat *hb = arg;
	const struct xchg_msg ping = { .type = XCHG_PING };
	struct timespec at;
	uint64_t last, due;
	char why[128];
	int rc;

	pthread_mutex_lock(&hb->mu);
	while (!hb->stop) {
		last = __atomic_load_n(&hb->last_ns, __ATOMIC_RELAXED);
		due = last + hb->quiet_ns;
		if (time_mono_ns() < due) {
			at = ns_timespec(due);
			while (!hb->stop && pthread_cond_timedwait(&hb->cond, &hb->mu, &at) != ETIMEDOUT)
				;
			continue;	/* something may have gone out meanwhile */
		}
		pthread_mutex_unlock(&hb->mu);
		rc = heartbeat_send(hb, &ping, hb->quiet_ns, why, sizeof(why));
		pthread_mutex_lock(&hb->mu);
		if (rc) {
			/* The main loop sees the broken connection itself. */
			hb->err = rc;
			break;
		}
		hb->pings++;
	}
	pthread_mutex_unlock(&hb->mu);
	return NULL;
}

bool heartbeat_thread_wanted(bool posts, uint64_t queued_bytes)
{
	return !posts || queued_bytes > HEARTBEAT_THREAD_BYTES;
}

uint64_t heartbeat_due_ns(struct heartbeat *hb)
{
	return __atomic_load_n(&hb->last_ns, __ATOMIC_RELAXED) + hb->quiet_ns;
}

bool heartbeat_late(const struct heartbeat *hb, uint64_t late_ns)
{
	return late_ns > hb->quiet_ns / 4;
}

int heartbeat_beat(struct heartbeat *hb, uint64_t now, uint64_t *late_ns, char *why, size_t n)
{
	const struct xchg_msg ping = { .type = XCHG_PING };
	uint64_t due = heartbeat_due_ns(hb);
	int rc;

	*late_ns = 0;
	if (hb->running || now < due)
		return 0;
	rc = heartbeat_send(hb, &ping, hb->quiet_ns, why, n);
	if (!rc) {
		hb->pings++;
		*late_ns = now - due;
	}
	return rc;
}

void heartbeat_quiet(struct heartbeat *hb, uint64_t quiet_ns)
{
	hb->quiet_ns = quiet_ns;
	if (!hb->last_ns)	/* nothing sent yet: the first PING is quiet_ns from now */
		hb->last_ns = time_mono_ns();
}

int heartbeat_start(struct heartbeat *hb)
{
	sigset_t all, old;
	int rc;

	/* Signals (Ctrl-C) go to the main thread, whose waits they must interrupt. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&hb->th, NULL, beat, hb);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	hb->running = true;
	return 0;
}

void heartbeat_fini(struct heartbeat *hb)
{
	if (hb->running) {
		pthread_mutex_lock(&hb->mu);
		hb->stop = true;
		pthread_cond_signal(&hb->cond);
		pthread_mutex_unlock(&hb->mu);
		pthread_join(hb->th, NULL);
		hb->running = false;
	}
	pthread_cond_destroy(&hb->cond);
	pthread_mutex_destroy(&hb->mu);
	pthread_mutex_destroy(&hb->send_mu);
}
