// SPDX-License-Identifier: GPL-2.0-or-later
/* feed.c: the hand-over of one host's latest snapshot from its thread to the screen. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "monitor/top/feed.h"

int top_feed_init(struct top_feed *f, const char *name)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	pthread_mutex_init(&f->lock, NULL);
	atomic_init(&f->stop, false);
	f->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return f->wake_fd < 0 ? -errno : 0;
}

void top_feed_publish(struct top_feed *f, const struct top_snap *s)
{
	pthread_mutex_lock(&f->lock);
	top_snap_copy(&f->snap, s);
	pthread_mutex_unlock(&f->lock);
}

void top_feed_status(struct top_feed *f, bool down, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&f->lock);
	va_start(ap, fmt);
	vsnprintf(f->snap.status, sizeof(f->snap.status), fmt, ap);
	va_end(ap);
	f->snap.down = down;
	pthread_mutex_unlock(&f->lock);
}

int top_feed_latest(struct top_feed *f, struct top_snap *out)
{
	int rc;

	pthread_mutex_lock(&f->lock);
	rc = top_snap_copy(out, &f->snap);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

void top_feed_wake(struct top_feed *f)
{
	uint64_t one = 1;

	if (f->wake_fd >= 0 && write(f->wake_fd, &one, sizeof(one)) < 0)
		return;	/* the counter is full: the thread is woken anyway */
}

void top_feed_stop(struct top_feed *f)
{
	atomic_store(&f->stop, true);
	top_feed_wake(f);
	if (f->started)
		pthread_join(f->thr, NULL);
	f->started = false;
	if (f->fini)
		f->fini(f);
	f->fini = NULL;
	if (f->wake_fd >= 0)
		close(f->wake_fd);
	f->wake_fd = -1;
	top_snap_free(&f->snap);
	pthread_mutex_destroy(&f->lock);
}
