// SPDX-License-Identifier: GPL-2.0-or-later
/* mem.c: the registry of memory backends and the backend-neutral --check-mem sequence. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "lib/util.h"
#include "traffic/mem.h"

/* Every backend, in --help order. One line per backend. */
static const struct mem_ops *const mem_backends[] = {
	&mem_host_ops,
	&mem_cuda_ops,
	&mem_cuda_dmabuf_ops,
	&mem_auto_ops,
	&mem_geforce_ops,
	&mem_geforce_vmm_ops,
};

const struct mem_ops *mem_ops_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mem_backends); i++)
		if (!strcmp(mem_backends[i]->name, name))
			return mem_backends[i];
	return NULL;
}

const struct mem_ops *mem_ops_at(size_t i)
{
	return i < ARRAY_SIZE(mem_backends) ? mem_backends[i] : NULL;
}

void mem_buf_init(struct mem_buf *b, const struct mem_ops *ops)
{
	memset(b, 0, sizeof(*b));
	b->ops = ops;
	b->dmabuf_fd = -1;
}

int mem_buf_fail(struct mem_buf *b, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->why, sizeof(b->why), fmt, ap);
	va_end(ap);
	return err;
}

static struct mem_step *step_begin(struct mem_check *c, const char *name, uint64_t *t0)
{
	struct mem_step *s = &c->steps[c->nsteps++];

	memset(s, 0, sizeof(*s));
	s->name = name;
	*t0 = time_mono_ns();
	return s;
}

static void step_end(struct mem_step *s, uint64_t t0, enum mem_step_result r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void step_end(struct mem_step *s, uint64_t t0, enum mem_step_result r, const char *fmt, ...)
{
	va_list ap;

	s->ns = time_mono_ns() - t0;
	s->result = r;
	va_start(ap, fmt);
	vsnprintf(s->detail, sizeof(s->detail), fmt, ap);
	va_end(ap);
}

/* Byte i of the check pattern: position-dependent so a misplaced copy is caught. */
static uint8_t pattern_byte(size_t i)
{
	return (uint8_t)((i * 131u) ^ (i >> 8) ^ 0x5a);
}

#define CHECK_CHUNK (1u << 20)

/* Write the pattern over the whole buffer, read it back, compare. */
static int check_pattern(struct mem_buf *b, struct mem_check *c)
{
	struct mem_step *s;
	uint8_t *host;
	size_t off, n, i;
	uint64_t t0;
	int rc;

	host = malloc(CHECK_CHUNK);
	if (!host) {
		s = step_begin(c, "write", &t0);
		step_end(s, t0, MEM_STEP_FAIL, "cannot allocate a %u-byte host bounce buffer", CHECK_CHUNK);
		return -ENOMEM;
	}
	s = step_begin(c, "write", &t0);
	for (off = 0; off < b->len; off += n) {
		n = b->len - off < CHECK_CHUNK ? b->len - off : CHECK_CHUNK;
		for (i = 0; i < n; i++)
			host[i] = pattern_byte(off + i);
		rc = b->ops->write(b, off, host, n);
		if (rc) {
			step_end(s, t0, MEM_STEP_FAIL, "at offset %zu: %s", off, b->why);
			goto out;
		}
	}
	step_end(s, t0, MEM_STEP_OK, "%zu bytes", b->len);

	s = step_begin(c, "read", &t0);
	for (off = 0; off < b->len; off += n) {
		n = b->len - off < CHECK_CHUNK ? b->len - off : CHECK_CHUNK;
		memset(host, 0, n);
		rc = b->ops->read(b, off, host, n);
		if (rc) {
			step_end(s, t0, MEM_STEP_FAIL, "at offset %zu: %s", off, b->why);
			goto out;
		}
		for (i = 0; i < n; i++) {
			if (host[i] != pattern_byte(off + i)) {
				step_end(s, t0, MEM_STEP_FAIL,
					 "pattern mismatch at offset %zu: wrote 0x%02x, read 0x%02x",
					 off + i, pattern_byte(off + i), host[i]);
				rc = -EIO;
				goto out;
			}
		}
	}
	step_end(s, t0, MEM_STEP_OK, "%zu bytes read back and match", b->len);
	rc = 0;
out:
	free(host);
	return rc;
}

int mem_check_run(const struct mem_ops *ops, const struct mem_req *req, struct ibv_pd *pd,
		  struct mem_check *c)
{
	struct mem_buf b;
	struct mem_step *s;
	struct ibv_mr *mr;
	uint64_t t0;
	int rc, first = 0;

	memset(c, 0, sizeof(*c));
	c->backend = ops->name;
	mem_buf_init(&b, ops);

	s = step_begin(c, "alloc", &t0);
	rc = ops->alloc(&b, req);
	snprintf(c->desc, sizeof(c->desc), "%s", b.desc);
	if (rc == -ENODEV || rc == -ENOENT) {
		step_end(s, t0, MEM_STEP_SKIP, "%s", b.why);
		ops->free(&b);
		return -ENODEV;
	}
	if (rc) {
		step_end(s, t0, MEM_STEP_FAIL, "%s", b.why);
		ops->free(&b);
		return rc;
	}
	c->len = b.len;
	step_end(s, t0, MEM_STEP_OK, "%zu bytes at %p%s%s", b.len, b.addr,
		 b.desc[0] ? " on " : "", b.desc);

	s = step_begin(c, "export", &t0);
	if (!ops->export) {
		step_end(s, t0, MEM_STEP_SKIP, "nothing to export for %s memory", ops->name);
	} else {
		rc = ops->export(&b);
		if (rc) {
			step_end(s, t0, MEM_STEP_FAIL, "%s", b.why);
			first = first ? first : rc;
		} else if (b.dmabuf_fd >= 0) {
			step_end(s, t0, MEM_STEP_OK, "dma-buf fd %d, offset %llu", b.dmabuf_fd,
				 (unsigned long long)b.dmabuf_offset);
		} else {
			step_end(s, t0, MEM_STEP_OK, "%s", b.why[0] ? b.why : "done");
		}
	}

	s = step_begin(c, "register", &t0);
	if (!pd) {
		step_end(s, t0, MEM_STEP_SKIP, "no RDMA device given (-d) or found: registration not tried");
	} else {
		b.why[0] = '\0';
		mr = ops->reg(&b, pd, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
		if (!mr) {
			step_end(s, t0, MEM_STEP_FAIL, "%s", b.why);
			first = first ? first : -EIO;
		} else {
			c->path = b.path;
			step_end(s, t0, MEM_STEP_OK, "via %s: lkey 0x%x rkey 0x%x", b.path ? b.path : "?",
				 mr->lkey, mr->rkey);
			ibv_dereg_mr(mr);
		}
	}

	rc = check_pattern(&b, c);
	first = first ? first : rc;

	s = step_begin(c, "free", &t0);
	ops->free(&b);
	step_end(s, t0, MEM_STEP_OK, "released");
	return first;
}
