/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mem.h: memory backends for traffic buffers (host, cuda, cuda-dmabuf, auto, ...), each a
 * const ops table in its own file, listed in one registry (mem.c).
 *
 * A backend allocates one buffer, optionally exports it (a dma-buf fd), registers it with
 * an RDMA protection domain, and copies bytes in and out for --check-mem. Backends never
 * print: a failure returns -errno and leaves one line in buf->why saying what failed, why,
 * and what to check. Adding a backend: write traffic/mem_<name>.c defining
 * `const struct mem_ops mem_<name>_ops`, declare it below, add one line to mem.c's table.
 */
#ifndef PFCLAB_TRAFFIC_MEM_H
#define PFCLAB_TRAFFIC_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ibv_pd;
struct ibv_mr;

/* What the caller wants. */
struct mem_req {
	size_t len;		/* bytes; backends may round up (buf->len says) */
	int numa_node;		/* host: bind to this node; -1 = no preference */
	bool hugepages;		/* host: try MAP_HUGETLB first */
	const char *gpu;	/* GPU by index ("0") or PCI bus id ("0000:17:00.0"); NULL = 0 */
};

/* One allocated buffer. Fields below `priv` belong to the backend. */
struct mem_buf {
	const struct mem_ops *ops;
	void *addr;		/* address the NIC uses: CPU VA (host) or GPU VA (cuda) */
	size_t len;
	bool device;		/* addr is GPU memory: the CPU must not touch it */
	int dmabuf_fd;		/* exported dma-buf fd, -1 if none */
	uint64_t dmabuf_offset;	/* offset of addr inside the dma-buf */
	const char *path;	/* how it was registered, set by reg: "host", "peermem", "dma-buf" */
	char desc[256];		/* what it is: "GPU 0 NVIDIA H100 80GB HBM3 (0000:17:00.0)" */
	char why[1024];		/* last failure or export detail, one line */
	void *priv;		/* backend state */
};

struct mem_ops {
	const char *name;	/* --mem / --check-mem value */
	const char *summary;	/* one line for --help */
	/* Allocate req->len bytes. -ENODEV / -ENOENT: the backend cannot run on this host
	 * (no GPU, no libcuda): --check-mem reports SKIP, not FAIL.
	 */
	int (*alloc)(struct mem_buf *b, const struct mem_req *req);
	/* Optional: make what registration needs (a dma-buf fd). NULL: nothing to export. */
	int (*export)(struct mem_buf *b);
	/* Register with the NIC; sets b->path. NULL return: errno set, b->why filled. */
	struct ibv_mr *(*reg)(struct mem_buf *b, struct ibv_pd *pd, int access);
	/* Copy n bytes between a host buffer and the buffer at off (for --check-mem). */
	int (*write)(struct mem_buf *b, size_t off, const void *src, size_t n);
	int (*read)(struct mem_buf *b, size_t off, void *dst, size_t n);
	/* Release everything alloc/export made; safe after a failed alloc. */
	void (*free)(struct mem_buf *b);
};

extern const struct mem_ops mem_host_ops;
extern const struct mem_ops mem_cuda_ops;
extern const struct mem_ops mem_cuda_dmabuf_ops;
extern const struct mem_ops mem_auto_ops;
extern const struct mem_ops mem_geforce_ops;
extern const struct mem_ops mem_geforce_vmm_ops;

/* Registry (mem.c). */
const struct mem_ops *mem_ops_find(const char *name);
/* i-th backend, NULL past the end. */
const struct mem_ops *mem_ops_at(size_t i);

/* Sets b to the empty state (no fd, no allocation) for ops. */
void mem_buf_init(struct mem_buf *b, const struct mem_ops *ops);
/* Fills b->why (printf-style) and returns err (a negative errno), for backends. */
int mem_buf_fail(struct mem_buf *b, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* --check-mem: run every step on one backend and record each outcome. */
enum mem_step_result { MEM_STEP_OK, MEM_STEP_FAIL, MEM_STEP_SKIP };

struct mem_step {
	const char *name;	/* "alloc", "export", "register", "write", "read", "verify", "free" */
	enum mem_step_result result;
	uint64_t ns;		/* time the step took */
	char detail[1024];	/* the geforce export step names every RM handle and status */
};

#define MEM_CHECK_MAX_STEPS 8

struct mem_check {
	const char *backend;
	char desc[256];
	const char *path;	/* registration path taken, NULL if not registered */
	size_t len;
	unsigned int nsteps;
	struct mem_step steps[MEM_CHECK_MAX_STEPS];
};

/* Runs alloc, export, register (only when pd is non-NULL), write/read/verify a pattern,
 * free. Returns 0 when no step failed (skips allowed), -ENODEV when the backend cannot run
 * here (alloc skipped), or the first failing step's -errno. Never prints.
 */
int mem_check_run(const struct mem_ops *ops, const struct mem_req *req, struct ibv_pd *pd,
		  struct mem_check *out);

#endif
