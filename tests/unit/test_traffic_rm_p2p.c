// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_rm_p2p.c: the ThirdPartyP2P registrations of the geforce memory backend
 * against a stand-in RM. The capture is fed what libcuda does for one 8 MiB allocation
 * (the RM objects and the UVM mapping, as in test_traffic_rm_capture.c); ioctl() is
 * replaced in this binary by a stand-in that answers the NV503C calls the way RM's
 * third_party_p2p.c does: registrations are keyed by memory handle, and a second
 * REGISTER_VIDMEM of one handle is refused. Two buffers of one allocation must register
 * it once (whole) and unregister it with the last of them, in either order.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <cmocka.h>

#include "lib/hw/rm_abi.h"
#include "traffic/geforce/rm_capture.h"
#include "traffic/geforce/rm_p2p.h"

#define FD_CTL 7
#define REQ(nr, size) _IOC(_IOC_READ | _IOC_WRITE, RM_IOCTL_MAGIC, (nr), (size))
#define BASE 0x7f0000000000ull
#define MIB (1ull << 20)

/* ---- the stand-in RM ---------------------------------------------------------------- */

static struct {
	unsigned int alloc_503c, frees, va_space, unreg_va_space, vidmem, unreg_vidmem;
	uint32_t registered[8];		/* memory handles registered now */
	unsigned int nreg;
	struct rm_503c_register_vidmem last;
	uint32_t alloc_status;		/* answer to our NV503C alloc (RM_OK by default) */
} rm;

static int reg_find(uint32_t memory)
{
	unsigned int i;

	for (i = 0; i < rm.nreg; i++)
		if (rm.registered[i] == memory)
			return (int)i;
	return -1;
}

static uint32_t control(struct rm_control *c)
{
	void *p = (void *)(uintptr_t)c->params;
	int i;

	switch (c->cmd) {
	case RM_503C_CTRL_REGISTER_VA_SPACE:
		rm.va_space++;
		((struct rm_503c_register_va_space *)p)->va_space_token = 0x70c;
		return RM_OK;
	case RM_503C_CTRL_UNREGISTER_VA_SPACE:
		rm.unreg_va_space++;
		return RM_OK;
	case RM_503C_CTRL_REGISTER_VIDMEM:
		rm.vidmem++;
		memcpy(&rm.last, p, sizeof(rm.last));
		if (reg_find(rm.last.memory) >= 0)
			return RM_ERR_INSERT_DUPLICATE_NAME;
		rm.registered[rm.nreg++] = rm.last.memory;
		return RM_OK;
	case RM_503C_CTRL_UNREGISTER_VIDMEM:
		rm.unreg_vidmem++;
		i = reg_find(((struct rm_503c_unregister_vidmem *)p)->memory);
		if (i < 0)
			return 0x57;	/* NV_ERR_OBJECT_NOT_FOUND */
		rm.registered[i] = rm.registered[--rm.nreg];
		return RM_OK;
	}
	return 0x24;	/* NV_ERR_INVALID_COMMAND */
}

/* Replaces libc's ioctl() for everything linked into this test. */
int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != FD_CTL || _IOC_TYPE(req) != RM_IOCTL_MAGIC) {
		errno = ENOTTY;
		return -1;
	}
	switch (_IOC_NR(req)) {
	case RM_ESC_ALLOC: {
		struct rm_alloc *a = arg;

		a->status = RM_OK;
		if (a->cls == RM_CLASS_THIRD_PARTY_P2P) {
			rm.alloc_503c++;
			a->status = rm.alloc_status;
		}
		return 0;
	}
	case RM_ESC_CONTROL: {
		struct rm_control *c = arg;

		c->status = control(c);
		return 0;
	}
	case RM_ESC_FREE:
		rm.frees++;
		((struct rm_free *)arg)->status = RM_OK;
		return 0;
	}
	errno = ENOTTY;
	return -1;
}

/* ---- what libcuda does, fed to the capture ------------------------------------------- */

static void alloc64(uint32_t client, uint32_t parent, uint32_t obj, uint32_t cls)
{
	struct rm_alloc64 a = { .client = client, .parent = parent, .object = obj, .cls = cls };

	rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_ALLOC, sizeof(a)), &a, sizeof(a));
}

static void uvm_map(uint64_t base, uint64_t len, uint32_t client, uint32_t memory)
{
	size_t tail = (24 + RM_UVM_ATTR_SIZE * (size_t)256 + 7) & ~(size_t)7;
	uint8_t *p = calloc(1, tail + 24);
	uint64_t count = 1, off = 0;
	int32_t fd = FD_CTL;

	assert_non_null(p);
	memcpy(p, &base, 8);
	memcpy(p + 8, &len, 8);
	memcpy(p + 16, &off, 8);
	memcpy(p + tail, &count, 8);
	memcpy(p + tail + 8, &fd, 4);
	memcpy(p + tail + 12, &client, 4);
	memcpy(p + tail + 16, &memory, 4);
	rm_capture_observe(9, RM_FD_UVM, RM_UVM_MAP_EXTERNAL_ALLOCATION, p, 0);
	free(p);
}

/* One client, device, subdevice and VA space; memory objects 0x4e1 (8 MiB at BASE) and
 * 0x4e2 (2 MiB at BASE + 16 MiB).
 */
static int setup(void **state)
{
	(void)state;
	memset(&rm, 0, sizeof(rm));
	rm_capture_reset();
	alloc64(0xc1d00001, 0xc1d00001, 0xc1d00001, RM_CLASS_ROOT);
	alloc64(0xc1d00001, 0xc1d00001, 0xd1, RM_CLASS_DEVICE);
	alloc64(0xc1d00001, 0xd1, 0x51, RM_CLASS_SUBDEVICE);
	alloc64(0xc1d00001, 0xd1, 0x91, RM_CLASS_VASPACE);
	alloc64(0xc1d00001, 0xd1, 0x4e1, RM_CLASS_MEMORY_LOCAL);
	uvm_map(BASE, 8 * MIB, 0xc1d00001, 0x4e1);
	alloc64(0xc1d00001, 0xd1, 0x4e2, RM_CLASS_MEMORY_LOCAL);
	uvm_map(BASE + 16 * MIB, 2 * MIB, 0xc1d00001, 0x4e2);
	return 0;
}

static void reg(uint64_t va, uint64_t len, struct rm_p2p_reg *r)
{
	struct rm_handles h;
	char why[256] = "";

	assert_int_equal(rm_capture_lookup(va, len, 0, &h, why, sizeof(why)), 0);
	h.fd = FD_CTL;
	assert_int_equal(rm_p2p_register(&h, va, len, r), 0);
	assert_true(r->held);
}

/* Two buffers of one allocation: one REGISTER_VIDMEM, of the whole mapping. */
static void two_buffers(struct rm_p2p_reg *a, struct rm_p2p_reg *b)
{
	reg(BASE, 2 * MIB, a);
	assert_false(a->shared);
	assert_int_equal(rm.alloc_503c, 1);
	assert_int_equal(rm.va_space, 1);
	assert_int_equal(rm.vidmem, 1);
	assert_int_equal(rm.last.memory, 0x4e1);
	assert_int_equal(rm.last.address, BASE);
	assert_int_equal(rm.last.size, 8 * MIB);
	assert_int_equal(rm.last.offset, 0);
	reg(BASE + 4 * MIB, 2 * MIB, b);
	assert_true(b->shared);
	assert_int_equal(b->h.mem_offset, 4 * MIB);
	assert_int_equal(rm.vidmem, 1);		/* not sent again: RM would refuse it */
	assert_int_equal(rm.nreg, 1);
}

static void assert_all_released(void)
{
	assert_int_equal(rm.unreg_vidmem, 1);
	assert_int_equal(rm.nreg, 0);
	assert_int_equal(rm.unreg_va_space, 1);
	assert_int_equal(rm.frees, 1);
}

static void test_free_in_order(void **state)
{
	struct rm_p2p_reg a, b;

	(void)state;
	two_buffers(&a, &b);
	rm_p2p_unregister(&a);
	assert_int_equal(rm.unreg_vidmem, 0);	/* b still uses the memory object */
	assert_int_equal(rm.frees, 0);
	rm_p2p_unregister(&b);
	assert_all_released();
}

static void test_free_reversed(void **state)
{
	struct rm_p2p_reg a, b;

	(void)state;
	two_buffers(&a, &b);
	rm_p2p_unregister(&b);
	assert_int_equal(rm.unreg_vidmem, 0);
	assert_int_equal(rm.frees, 0);
	rm_p2p_unregister(&a);
	assert_all_released();
	/* A second unregister of a released buffer does nothing. */
	rm_p2p_unregister(&a);
	assert_int_equal(rm.unreg_vidmem, 1);
}

/* Two allocations: two registrations, the object kept until both are gone. */
static void test_two_allocations(void **state)
{
	struct rm_p2p_reg a, c;

	(void)state;
	reg(BASE, 2 * MIB, &a);
	reg(BASE + 16 * MIB, 2 * MIB, &c);
	assert_false(c.shared);
	assert_int_equal(rm.vidmem, 2);
	assert_int_equal(rm.alloc_503c, 1);
	rm_p2p_unregister(&a);
	assert_int_equal(rm.unreg_vidmem, 1);
	assert_int_equal(rm.frees, 0);
	rm_p2p_unregister(&c);
	assert_int_equal(rm.unreg_vidmem, 2);
	assert_int_equal(rm.frees, 1);
	assert_int_equal(rm.unreg_va_space, 1);
}

/* A datacenter GPU: CUDA made its own NV503C object (ours is refused) and registered its
 * memory with it. The buffer counts as registered; nothing of CUDA's is undone.
 */
static void test_cuda_registered_it(void **state)
{
	struct rm_p2p_reg a, b;

	(void)state;
	alloc64(0xc1d00001, 0x51, 0x503c0001, RM_CLASS_THIRD_PARTY_P2P);
	rm.registered[rm.nreg++] = 0x4e1;	/* CUDA's registration */
	rm.alloc_status = 0x63;			/* NV_ERR_STATE_IN_USE */
	reg(BASE, 2 * MIB, &a);
	assert_true(a.reused);
	assert_true(a.by_cuda);
	assert_int_equal(a.vidmem_status, RM_ERR_INSERT_DUPLICATE_NAME);
	assert_int_equal(a.p2p, 0x503c0001);
	reg(BASE + 2 * MIB, 2 * MIB, &b);
	assert_true(b.shared);
	assert_int_equal(rm.vidmem, 1);
	rm_p2p_unregister(&b);
	rm_p2p_unregister(&a);
	assert_int_equal(rm.unreg_vidmem, 0);	/* CUDA's registration stays */
	assert_int_equal(rm.nreg, 1);
	assert_int_equal(rm.unreg_va_space, 1);	/* ours goes */
	assert_int_equal(rm.frees, 0);		/* CUDA's object is not ours to free */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_free_in_order, setup),
		cmocka_unit_test_setup(test_free_reversed, setup),
		cmocka_unit_test_setup(test_two_allocations, setup),
		cmocka_unit_test_setup(test_cuda_registered_it, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
