// SPDX-License-Identifier: GPL-2.0-or-later
/* rm_capture.c: interpose libcuda's ioctl() (its GOT entry is pointed at a wrapper) and
 * keep the RM objects CUDA creates: clients, devices, subdevices, VA spaces, video memory,
 * and where memory got mapped (RM MAP_MEMORY_DMA or UVM_MAP_EXTERNAL_ALLOCATION).
 *
 *   libcuda --ioctl()--> [GOT slot] --> capture_ioctl() --> libc ioctl()
 *                                            \--> rm_capture_observe(): parse, remember
 *
 * Parameters are parsed only after the kernel accepted the call, through lib/rd.h, and
 * only within the size the ioctl number states (or, for UVM, a size validated below).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/rd.h"
#include "lib/util.h"
#include "lib/hw/rm_abi.h"
#include "traffic/geforce/rm_capture.h"

#define NVIDIA_MAJOR 195
#define CAP_OBJS 64
#define CAP_MAPS 64

struct cap_obj {
	uint32_t cls, client, parent, handle;
	int fd;
	uint64_t seq;
};

struct cap_map {
	uint32_t client, memory;
	uint64_t va, length, offset;
	uint64_t seq;
	const char *how;
};

static struct {
	pthread_mutex_t lock;
	struct cap_obj objs[CAP_OBJS];
	unsigned int nobjs;		/* total recorded; index = n % CAP_OBJS */
	struct cap_map maps[CAP_MAPS];
	unsigned int nmaps;
	unsigned int nmap_dma[2];	/* MAP_MEMORY_DMA calls in the 570 and the 580 layout */
	uint64_t seq;
	uint64_t n_rm, n_uvm;
	uint64_t n_calls;		/* every ioctl() libcuda made through the interposer */
	struct {
		uint32_t cls, n;
	} classes[16];			/* every class RM allocated, for the summary */
	unsigned int nclasses;
	uint32_t ctl_client, ctl_device, ctl_subdevice, ctl_vaspace;	/* seen in controls */
	int ctl_fd;
	dev_t uvm_rdev;
	bool started;
} cap = { .lock = PTHREAD_MUTEX_INITIALIZER, .ctl_fd = -1 };

static void add_obj(uint32_t cls, uint32_t client, uint32_t parent, uint32_t handle, int fd)
{
	struct cap_obj *o = &cap.objs[cap.nobjs++ % CAP_OBJS];

	*o = (struct cap_obj){ .cls = cls, .client = client, .parent = parent, .handle = handle,
			       .fd = fd, .seq = ++cap.seq };
}

static void add_map(uint32_t client, uint32_t memory, uint64_t va, uint64_t length,
		    uint64_t offset, const char *how)
{
	struct cap_map *m = &cap.maps[cap.nmaps++ % CAP_MAPS];

	*m = (struct cap_map){ .client = client, .memory = memory, .va = va, .length = length,
			       .offset = offset, .seq = ++cap.seq, .how = how };
}

static bool is_root_class(uint32_t cls)
{
	return cls == RM_CLASS_ROOT || cls == RM_CLASS_ROOT_NON_PRIV || cls == RM_CLASS_ROOT_CLIENT;
}

static void count_class(uint32_t cls)
{
	unsigned int i;

	for (i = 0; i < cap.nclasses; i++)
		if (cap.classes[i].cls == cls)
			break;
	if (i == cap.nclasses) {
		if (i == ARRAY_SIZE(cap.classes))
			return;
		cap.classes[cap.nclasses++].cls = cls;
	}
	cap.classes[i].n++;
}

/* NVOS21 (32 bytes) or NVOS64 (48 bytes). */
static void observe_alloc(int fd, const void *arg, size_t size)
{
	struct rd r = rd_init(arg, size);
	uint32_t client, parent, handle, cls, status;

	if (size != sizeof(struct rm_alloc) && size != sizeof(struct rm_alloc64))
		return;
	client = rd_h32(&r);
	parent = rd_h32(&r);
	handle = rd_h32(&r);
	cls = rd_h32(&r);
	rd_skip(&r, size == sizeof(struct rm_alloc) ? 8 + 4 : 8 + 8 + 4 + 4);
	status = rd_h32(&r);
	if (!rd_ok(&r) || status != RM_OK)
		return;
	count_class(cls);
	if (is_root_class(cls) || cls == RM_CLASS_DEVICE || cls == RM_CLASS_SUBDEVICE ||
	    cls == RM_CLASS_VASPACE || cls == RM_CLASS_MEMORY_LOCAL || cls == RM_CLASS_THIRD_PARTY_P2P)
		add_obj(cls, is_root_class(cls) ? handle : client, parent, handle, fd);
}

static void observe_control(int fd, const void *arg, size_t size)
{
	struct rd r = rd_init(arg, size);
	uint32_t client, object, cmd, status;

	if (size != sizeof(struct rm_control))
		return;
	client = rd_h32(&r);
	object = rd_h32(&r);
	cmd = rd_h32(&r);
	rd_skip(&r, 4 + 8 + 4);
	status = rd_h32(&r);
	if (!rd_ok(&r) || status != RM_OK)
		return;
	cap.ctl_client = client;
	if (cap.ctl_fd < 0)
		cap.ctl_fd = fd;
	switch (cmd >> 16) {
	case 0x2080:
		cap.ctl_subdevice = object;
		break;
	case 0x0080:
		cap.ctl_device = object;
		break;
	case 0x90f1:
		cap.ctl_vaspace = object;
		break;
	}
}

/* MAP_MEMORY_DMA: NVOS46 has two layouts (rm_abi.h), told apart by the escape's size; the
 * fields before flags are in the same places in both, dmaOffset and status move by 8.
 */
static void observe_map_dma(const void *arg, size_t size)
{
	struct rd r = rd_init(arg, size);
	uint32_t client, memory, status;
	uint64_t offset, length, va;
	size_t after_length;

	if (size == sizeof(struct rm_map_dma))
		after_length = offsetof(struct rm_map_dma, dma_offset) -
			       offsetof(struct rm_map_dma, flags);
	else if (size == sizeof(struct rm_map_dma_580))
		after_length = offsetof(struct rm_map_dma_580, dma_offset) -
			       offsetof(struct rm_map_dma_580, flags);
	else
		return;
	cap.nmap_dma[size == sizeof(struct rm_map_dma_580)]++;
	client = rd_h32(&r);
	rd_skip(&r, 8);
	memory = rd_h32(&r);
	offset = rd_h64(&r);
	length = rd_h64(&r);
	rd_skip(&r, after_length);	/* flags (and flags2, kindOverride), padding */
	va = rd_h64(&r);
	status = rd_h32(&r);
	if (rd_ok(&r) && status == RM_OK && length)
		add_map(client, memory, va, length, offset, "RM MAP_MEMORY_DMA");
}

/* UVM_MAP_EXTERNAL_ALLOCATION: the struct's size depends on the release's UVM_MAX_GPUS.
 * Try the known sizes, smallest first, and accept the first whose tail is consistent: a
 * zero rmStatus, a GPU count within bounds and an RM client we already saw.
 */
static void observe_uvm_map(const void *arg)
{
	static const unsigned int max_gpus[] = { 32, 256 };
	size_t i, size, tail;
	uint64_t base, length, offset, count;
	uint32_t client, memory, status;
	struct rd r;

	for (i = 0; i < ARRAY_SIZE(max_gpus); i++) {
		tail = (24 + RM_UVM_ATTR_SIZE * (size_t)max_gpus[i] + 7) & ~(size_t)7;
		size = tail + 24;
		r = rd_init(arg, size);
		base = rd_h64(&r);
		length = rd_h64(&r);
		offset = rd_h64(&r);
		rd_skip(&r, tail - 24);
		count = rd_h64(&r);
		rd_skip(&r, 4);		/* rmCtrlFd */
		client = rd_h32(&r);
		memory = rd_h32(&r);
		status = rd_h32(&r);
		if (!rd_ok(&r) || status != RM_OK || count == 0 || count > max_gpus[i] || !length)
			continue;
		if (client != cap.ctl_client) {
			unsigned int k, n = cap.nobjs < CAP_OBJS ? cap.nobjs : CAP_OBJS;
			bool known = false;

			for (k = 0; k < n && !known; k++)
				known = cap.objs[k].client == client;
			if (!known)
				continue;
		}
		add_map(client, memory, base, length, offset, "UVM_MAP_EXTERNAL_ALLOCATION");
		return;
	}
}

void rm_capture_observe(int fd, enum rm_fd_kind kind, unsigned long req, const void *arg,
			size_t size)
{
	unsigned int nr;
	struct rm_xfer x;

	if (!arg)
		return;
	pthread_mutex_lock(&cap.lock);
	if (kind == RM_FD_UVM) {
		cap.n_uvm++;
		if (req == RM_UVM_MAP_EXTERNAL_ALLOCATION)
			observe_uvm_map(arg);
		goto out;
	}
	if (kind != RM_FD_RM || _IOC_TYPE(req) != RM_IOCTL_MAGIC)
		goto out;
	cap.n_rm++;
	nr = _IOC_NR(req);
	if (nr == RM_ESC_IOCTL_XFER) {
		struct rd r = rd_init(arg, size);

		x.cmd = rd_h32(&r);
		x.size = rd_h32(&r);
		x.ptr = rd_h64(&r);
		if (!rd_ok(&r) || !x.ptr)
			goto out;
		nr = x.cmd;
		arg = (const void *)(uintptr_t)x.ptr;
		size = x.size;
	}
	switch (nr) {
	case RM_ESC_ALLOC:
		observe_alloc(fd, arg, size);
		break;
	case RM_ESC_CONTROL:
		observe_control(fd, arg, size);
		break;
	case RM_ESC_MAP_MEMORY_DMA:
		observe_map_dma(arg, size);
		break;
	}
out:
	pthread_mutex_unlock(&cap.lock);
}

void rm_capture_reset(void)
{
	pthread_mutex_lock(&cap.lock);
	memset(cap.objs, 0, sizeof(cap.objs));
	memset(cap.maps, 0, sizeof(cap.maps));
	cap.nobjs = cap.nmaps = 0;
	cap.nmap_dma[0] = cap.nmap_dma[1] = 0;
	cap.n_rm = cap.n_uvm = 0;
	cap.nclasses = 0;
	cap.ctl_client = cap.ctl_device = cap.ctl_subdevice = cap.ctl_vaspace = 0;
	cap.ctl_fd = -1;
	pthread_mutex_unlock(&cap.lock);
}

uint64_t rm_capture_mark(void)
{
	uint64_t s;

	pthread_mutex_lock(&cap.lock);
	s = cap.seq;
	pthread_mutex_unlock(&cap.lock);
	return s;
}

/* Latest object of class cls (and parent, when non-zero) for client; NULL if none. */
static const struct cap_obj *find_obj(uint32_t cls, uint32_t client, uint32_t parent)
{
	const struct cap_obj *best = NULL;
	unsigned int k, n = cap.nobjs < CAP_OBJS ? cap.nobjs : CAP_OBJS;

	for (k = 0; k < n; k++) {
		const struct cap_obj *o = &cap.objs[k];

		if (o->cls != cls && !(is_root_class(cls) && is_root_class(o->cls)))
			continue;
		if ((client && o->client != client) || (parent && o->parent != parent))
			continue;
		if (!best || o->seq > best->seq)
			best = o;
	}
	return best;
}

int rm_capture_lookup(uint64_t va, uint64_t len, uint64_t since, struct rm_handles *h,
		      char *why, size_t whylen)
{
	const struct cap_map *map = NULL;
	const struct cap_obj *mem = NULL, *o;
	unsigned int k, n, fresh = 0;
	int rc = 0;

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	pthread_mutex_lock(&cap.lock);
	n = cap.nmaps < CAP_MAPS ? cap.nmaps : CAP_MAPS;
	for (k = 0; k < n; k++) {
		const struct cap_map *m = &cap.maps[k];

		if (va >= m->va && va + len <= m->va + m->length && (!map || m->seq > map->seq))
			map = m;
	}
	n = cap.nobjs < CAP_OBJS ? cap.nobjs : CAP_OBJS;
	if (map) {
		h->client = map->client;
		h->memory = map->memory;
		h->mem_offset = map->offset + (va - map->va);
		h->map_va = map->va;
		h->map_len = map->length;
		h->map_offset = map->offset;
		h->how = map->how;
		for (k = 0; k < n; k++)
			if (cap.objs[k].cls == RM_CLASS_MEMORY_LOCAL &&
			    cap.objs[k].handle == map->memory && cap.objs[k].client == map->client)
				mem = &cap.objs[k];
	} else {
		/* No mapping seen: the one video-memory object made since the mark, if one. */
		for (k = 0; k < n; k++) {
			if (cap.objs[k].cls == RM_CLASS_MEMORY_LOCAL && cap.objs[k].seq > since) {
				mem = &cap.objs[k];
				fresh++;
			}
		}
		if (fresh != 1) {
			snprintf(why, whylen,
				 "no RM memory object found for GPU VA 0x%llx: no mapping of it seen, and "
				 "%u video-memory allocations since cuMemAlloc began (need exactly 1)",
				 (unsigned long long)va, fresh);
			rc = -ENOENT;
			goto out;
		}
		h->client = mem->client;
		h->memory = mem->handle;
		h->mem_offset = 0;
		h->map_va = va;
		h->map_len = len;
		h->map_offset = 0;
		h->how = "the only video memory allocated by cuMemAlloc";
	}
	o = find_obj(RM_CLASS_ROOT, h->client, 0);
	h->fd = o ? o->fd : mem ? mem->fd : cap.ctl_fd;
	/* Device: the memory's parent when seen, else the latest device of the client. */
	o = mem ? find_obj(RM_CLASS_DEVICE, h->client, 0) : NULL;
	h->device = mem && mem->parent ? mem->parent : o ? o->handle : cap.ctl_device;
	o = find_obj(RM_CLASS_SUBDEVICE, h->client, h->device);
	h->subdevice = o ? o->handle : cap.ctl_subdevice;
	o = find_obj(RM_CLASS_VASPACE, h->client, h->device);
	h->va_space = o ? o->handle : cap.ctl_vaspace;
	o = find_obj(RM_CLASS_THIRD_PARTY_P2P, h->client, h->subdevice);
	h->cuda_p2p = o ? o->handle : 0;
	if (!h->subdevice || !h->va_space || h->fd < 0) {
		snprintf(why, whylen,
			 "RM handles incomplete: client 0x%x device 0x%x subdevice 0x%x VA space 0x%x "
			 "fd %d (CUDA was initialised before the capture started?)", h->client,
			 h->device, h->subdevice, h->va_space, h->fd);
		rc = -ENOENT;
	}
out:
	pthread_mutex_unlock(&cap.lock);
	return rc;
}

void rm_capture_summary(char *buf, size_t len)
{
	unsigned int k, n, c[5] = { 0 };

	pthread_mutex_lock(&cap.lock);
	n = cap.nobjs < CAP_OBJS ? cap.nobjs : CAP_OBJS;
	for (k = 0; k < n; k++) {
		uint32_t cls = cap.objs[k].cls;

		c[is_root_class(cls) ? 0 : cls == RM_CLASS_DEVICE ? 1 : cls == RM_CLASS_SUBDEVICE ? 2 :
		  cls == RM_CLASS_VASPACE ? 3 : 4]++;
	}
	snprintf(buf, len,
		 "libcuda made %llu ioctl calls through the interposer (%llu RM, %llu UVM accepted); "
		 "saw %u client, %u device, %u subdevice, %u VA space, %u video-memory object(s), "
		 "%u mapping(s) (MAP_MEMORY_DMA calls: %u of 56 bytes, %u of 64)",
		 (unsigned long long)__atomic_load_n(&cap.n_calls, __ATOMIC_RELAXED),
		 (unsigned long long)cap.n_rm, (unsigned long long)cap.n_uvm, c[0], c[1], c[2], c[3],
		 c[4], cap.nmaps, cap.nmap_dma[0], cap.nmap_dma[1]);
	for (k = 0; k < cap.nclasses; k++) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, "%s0x%x x%u", k ? ", " : "; RM classes allocated: ",
			 cap.classes[k].cls, cap.classes[k].n);
	}
	pthread_mutex_unlock(&cap.lock);
}

/* ---- the interposer ------------------------------------------------------------------ */

static enum rm_fd_kind fd_kind(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode))
		return RM_FD_OTHER;
	if (major(st.st_rdev) == NVIDIA_MAJOR)
		return RM_FD_RM;
	if (cap.uvm_rdev && st.st_rdev == cap.uvm_rdev)
		return RM_FD_UVM;
	return RM_FD_OTHER;
}

static int capture_ioctl(int fd, unsigned long req, ...)
{
	enum rm_fd_kind kind;
	va_list ap;
	void *arg;
	int rc;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	rc = ioctl(fd, req, arg);
	__atomic_fetch_add(&cap.n_calls, 1, __ATOMIC_RELAXED);
	if (rc == 0 && arg) {
		kind = fd_kind(fd);
		if (kind != RM_FD_OTHER)
			rm_capture_observe(fd, kind, req, arg,
					   kind == RM_FD_RM ? _IOC_SIZE(req) : 0);
	}
	return rc;
}

struct patch_ctx {
	unsigned int patched;
	bool found;
};

static uintptr_t dyn_ptr(const struct dl_phdr_info *info, uintptr_t v)
{
	/* glibc relocates these d_ptr values in place; other loaders may not. */
	return v < info->dlpi_addr ? v + info->dlpi_addr : v;
}

static void patch_relocs(const struct dl_phdr_info *info, const ElfW(Rela) *rel, size_t relsz,
			 const ElfW(Sym) *symtab, const char *strtab, struct patch_ctx *pc)
{
	size_t i, n = relsz / sizeof(*rel);
	long page = sysconf(_SC_PAGESIZE);

	for (i = 0; i < n; i++) {
		unsigned long type = ELF64_R_TYPE(rel[i].r_info);
		const ElfW(Sym) *sym = &symtab[ELF64_R_SYM(rel[i].r_info)];
		void **slot;
		uintptr_t pg;

		if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
		    ELF64_R_SYM(rel[i].r_info) == 0 || strcmp(strtab + sym->st_name, "ioctl"))
			continue;
		slot = (void **)(info->dlpi_addr + rel[i].r_offset);
		pg = (uintptr_t)slot & ~(uintptr_t)(page - 1);
		if (mprotect((void *)pg, (size_t)page, PROT_READ | PROT_WRITE) < 0)
			continue;
		__atomic_store_n(slot, (void *)capture_ioctl, __ATOMIC_SEQ_CST);
		pc->patched++;
	}
}

static int patch_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct patch_ctx *pc = data;
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Rela) *jmprel = NULL, *rela = NULL;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	size_t jmprelsz = 0, relasz = 0;
	int i;

	(void)size;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "libcuda.so"))
		return 0;
	pc->found = true;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_JMPREL:
			jmprel = (const ElfW(Rela) *)dyn_ptr(info, dyn->d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			jmprelsz = dyn->d_un.d_val;
			break;
		case DT_RELA:
			rela = (const ElfW(Rela) *)dyn_ptr(info, dyn->d_un.d_ptr);
			break;
		case DT_RELASZ:
			relasz = dyn->d_un.d_val;
			break;
		case DT_SYMTAB:
			symtab = (const ElfW(Sym) *)dyn_ptr(info, dyn->d_un.d_ptr);
			break;
		case DT_STRTAB:
			strtab = (const char *)dyn_ptr(info, dyn->d_un.d_ptr);
			break;
		}
	}
	if (!symtab || !strtab)
		return 1;
	if (jmprel)
		patch_relocs(info, jmprel, jmprelsz, symtab, strtab, pc);
	if (rela)
		patch_relocs(info, rela, relasz, symtab, strtab, pc);
	return 1;
}

int rm_capture_start(char *why, size_t whylen)
{
	struct patch_ctx pc = { 0 };
	struct stat st;

	if (cap.started)
		return 0;
	/* RTLD_NOW: every PLT slot is bound before we replace one. */
	if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL)) {
		snprintf(why, whylen, "cannot load libcuda.so.1 (%s): install the NVIDIA driver", dlerror());
		return -ENOENT;
	}
	if (stat("/dev/nvidia-uvm", &st) == 0 && S_ISCHR(st.st_mode))
		cap.uvm_rdev = st.st_rdev;
	dl_iterate_phdr(patch_cb, &pc);
	if (!pc.found || pc.patched == 0) {
		snprintf(why, whylen,
			 "libcuda.so.1 %s: its RM calls cannot be interposed",
			 pc.found ? "imports no ioctl symbol" : "not found among the loaded objects");
		return -ENOSYS;
	}
	cap.started = true;
	return 0;
}
