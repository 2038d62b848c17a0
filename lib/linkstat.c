// SPDX-License-Identifier: GPL-2.0-or-later
/* linkstat.c: the counter page of `pfclab link`: writer (shared mapping, sequence
 * counter) and bounds-checked reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/linkstat.h"
#include "lib/rd.h"

int linkstat_path(const char *dir, const char *iface, char *buf, size_t size)
{
	int n;

	if (!dir)
		dir = getenv("PFCLAB_LINK_DIR");
	if (!dir || !*dir)
		dir = LINKSTAT_DIR;
	if (!iface || !*iface || strchr(iface, '/'))
		return -EINVAL;
	n = snprintf(buf, size, "%s/%s.stats", dir, iface);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

const char *linkstat_unit_name(uint8_t unit)
{
	static const char *const names[] = { "", "frames", "us", "B", "events", "packets",
					      "b/s" };

	return unit < sizeof(names) / sizeof(names[0]) ? names[unit] : "";
}

int linkstat_parse(const void *buf, size_t len, struct linkstat_view *v)
{
	struct rd r = rd_init(buf, len);
	uint32_t magic, version, esz, i;

	magic = rd_h32(&r);
	version = rd_h32(&r);
	v->n = rd_h32(&r);
	esz = rd_h32(&r);
	v->seq = rd_h64(&r);
	v->epoch = rd_h64(&r);
	v->updated = rd_h64(&r);
	if (!rd_ok(&r) || magic != LINKSTAT_MAGIC)
		return -EBADMSG;
	if (version != LINKSTAT_VERSION)
		return -EPROTO;
	if (esz != LINKSTAT_ENTRY || v->n > LINKSTAT_MAX || rd_left(&r) < (size_t)v->n * esz)
		return -EBADMSG;
	if (v->seq & 1)
		return -EAGAIN;
	for (i = 0; i < v->n; i++) {
		struct linkstat_entry *e = &v->e[i];

		rd_bytes(&r, e->name, LINKSTAT_NAME);
		e->value = rd_h64(&r);
		e->kind = rd_u8(&r);
		e->unit = rd_u8(&r);
		rd_skip(&r, LINKSTAT_ENTRY - LINKSTAT_NAME - 10);
		if (!rd_ok(&r) || !memchr(e->name, '\0', LINKSTAT_NAME) || !e->name[0] ||
		    e->kind > 1)
			return -EBADMSG;
	}
	return 0;
}

int linkstat_read(const char *path, struct linkstat_view *v)
{
	uint8_t buf[LINKSTAT_HDR + LINKSTAT_MAX * LINKSTAT_ENTRY];
	int fd = open(path, O_RDONLY | O_CLOEXEC), tries, rc = -EAGAIN;

	if (fd < 0)
		return -errno;
	for (tries = 0; tries < 8 && rc == -EAGAIN; tries++) {
		ssize_t n = pread(fd, buf, sizeof(buf), 0);
		uint64_t seq2;

		if (n < 0) {
			rc = -errno;
			break;
		}
		rc = linkstat_parse(buf, (size_t)n, v);
		if (rc)
			continue;
		/* the writer may have changed values while we copied them */
		if (pread(fd, &seq2, sizeof(seq2), 16) != (ssize_t)sizeof(seq2))
			rc = -EBADMSG;
		else if (seq2 != v->seq)
			rc = -EAGAIN;
	}
	close(fd);
	return rc;
}

int linkstat_create(struct linkstat_writer *w, const char *path,
		    const struct linkstat_entry *e, uint32_t n, uint64_t epoch)
{
	uint32_t magic = LINKSTAT_MAGIC, version = LINKSTAT_VERSION, esz = LINKSTAT_ENTRY, i;
	uint64_t zero = 0;
	char tmp[300], *slash;
	int rc;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (n > LINKSTAT_MAX || strlen(path) >= sizeof(w->path))
		return -EINVAL;
	snprintf(w->path, sizeof(w->path), "%s", path);
	/* the folder, one level at a time */
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (slash = strchr(tmp + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*slash = '/';
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	w->len = LINKSTAT_HDR + (size_t)n * LINKSTAT_ENTRY;
	w->fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0)
		return -errno;
	if (ftruncate(w->fd, (off_t)w->len)) {
		rc = -errno;
		goto fail;
	}
	w->map = mmap(NULL, w->len, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, 0);
	if (w->map == MAP_FAILED) {
		rc = -errno;
		w->map = NULL;
		goto fail;
	}
	memcpy(w->map, &magic, 4);
	memcpy(w->map + 4, &version, 4);
	memcpy(w->map + 8, &n, 4);
	memcpy(w->map + 12, &esz, 4);
	memcpy(w->map + 16, &zero, 8);
	memcpy(w->map + 24, &epoch, 8);
	memcpy(w->map + 32, &zero, 8);
	for (i = 0; i < n; i++) {
		uint8_t *p = w->map + LINKSTAT_HDR + (size_t)i * LINKSTAT_ENTRY;

		strncpy((char *)p, e[i].name, LINKSTAT_NAME - 1);
		p[LINKSTAT_NAME] = 0;
		p[LINKSTAT_NAME + 8] = e[i].kind;
		p[LINKSTAT_NAME + 9] = e[i].unit;
	}
	w->n = n;
	if (rename(tmp, path)) {
		rc = -errno;
		goto fail;
	}
	return 0;
fail:
	if (w->map)
		munmap(w->map, w->len);
	w->map = NULL;
	close(w->fd);
	w->fd = -1;
	unlink(tmp);
	return rc;
}

void linkstat_update(struct linkstat_writer *w, const uint64_t *values, uint64_t now)
{
	uint64_t *seq;
	uint32_t i;

	if (!w->map)
		return;
	seq = (uint64_t *)(void *)(w->map + 16);
	__atomic_store_n(seq, *seq + 1, __ATOMIC_RELEASE);	/* odd: updating */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (i = 0; i < w->n; i++)
		memcpy(w->map + LINKSTAT_HDR + (size_t)i * LINKSTAT_ENTRY + LINKSTAT_NAME,
		       &values[i], 8);
	memcpy(w->map + 32, &now, 8);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(seq, *seq + 1, __ATOMIC_RELEASE);	/* even: stable */
}

void linkstat_remove(struct linkstat_writer *w)
{
	if (w->map) {
		munmap(w->map, w->len);
		unlink(w->path);
	}
	if (w->fd >= 0)
		close(w->fd);
	w->map = NULL;
	w->fd = -1;
}
