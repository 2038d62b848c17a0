// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_rm_capture.c: the RM handle capture behind the geforce memory backend, fed
 * the ioctl parameter blocks libcuda would pass (RM ALLOC as NVOS21 and NVOS64, controls,
 * MAP_MEMORY_DMA, IOCTL_XFER, UVM_MAP_EXTERNAL_ALLOCATION of either UVM_MAX_GPUS size),
 * then asked which objects back a GPU VA. Also the NV_STATUS names.
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

#include "lib/util.h"
#include "lib/hw/rm_abi.h"
#include "traffic/geforce/rm_capture.h"

#define FD_CTL 7
#define REQ(nr, size) _IOC(_IOC_READ | _IOC_WRITE, RM_IOCTL_MAGIC, (nr), (size))

static void alloc21(uint32_t client, uint32_t parent, uint32_t obj, uint32_t cls, uint32_t st)
{
	struct rm_alloc a = { .client = client, .parent = parent, .object = obj, .cls = cls,
			      .status = st };

	rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_ALLOC, sizeof(a)), &a, sizeof(a));
}

static void alloc64(uint32_t client, uint32_t parent, uint32_t obj, uint32_t cls)
{
	struct rm_alloc64 a = { .client = client, .parent = parent, .object = obj, .cls = cls };

	rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_ALLOC, sizeof(a)), &a, sizeof(a));
}

/* client c1, device d1 under it, subdevice s1 under d1, VA space v1 under d1. */
static void cuda_init_sequence(void)
{
	alloc21(0xc1d00001, 0xc1d00001, 0xc1d00001, RM_CLASS_ROOT, RM_OK);
	alloc21(0xc1d00001, 0xc1d00001, 0xd1, RM_CLASS_DEVICE, RM_OK);
	alloc64(0xc1d00001, 0xd1, 0x51, RM_CLASS_SUBDEVICE);
	alloc64(0xc1d00001, 0xd1, 0x91, RM_CLASS_VASPACE);
}

/* A UVM_MAP_EXTERNAL_ALLOCATION block for a release with max_gpus entries. */
static void uvm_map(unsigned int max_gpus, uint64_t base, uint64_t len, uint64_t off,
		    uint32_t client, uint32_t memory)
{
	size_t tail = (24 + RM_UVM_ATTR_SIZE * (size_t)max_gpus + 7) & ~(size_t)7;
	uint8_t *p = calloc(1, tail + 24);
	uint64_t count = 1;
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

static void test_uvm_map_256(void **state)
{
	struct rm_handles h;
	char why[256] = "";
	uint64_t mark;

	(void)state;
	rm_capture_reset();
	cuda_init_sequence();
	mark = rm_capture_mark();
	alloc64(0xc1d00001, 0xd1, 0x4e1, RM_CLASS_MEMORY_LOCAL);
	uvm_map(256, 0x7f0000000000ull, 8 << 20, 0, 0xc1d00001, 0x4e1);
	assert_int_equal(rm_capture_lookup(0x7f0000200000ull, 2 << 20, mark, &h, why, sizeof(why)), 0);
	assert_int_equal(h.client, 0xc1d00001);
	assert_int_equal(h.device, 0xd1);
	assert_int_equal(h.subdevice, 0x51);
	assert_int_equal(h.va_space, 0x91);
	assert_int_equal(h.memory, 0x4e1);
	assert_int_equal(h.mem_offset, 0x200000);
	assert_int_equal(h.fd, FD_CTL);
	assert_string_equal(h.how, "UVM_MAP_EXTERNAL_ALLOCATION");
}

static void test_uvm_map_32(void **state)
{
	struct rm_handles h;
	char why[256] = "";

	(void)state;
	rm_capture_reset();
	cuda_init_sequence();
	alloc21(0xc1d00001, 0xd1, 0x4e2, RM_CLASS_MEMORY_LOCAL, RM_OK);
	uvm_map(32, 0x7f1000000000ull, 4 << 20, 0x10000, 0xc1d00001, 0x4e2);
	assert_int_equal(rm_capture_lookup(0x7f1000000000ull, 4 << 20, 0, &h, why, sizeof(why)), 0);
	assert_int_equal(h.memory, 0x4e2);
	assert_int_equal(h.mem_offset, 0x10000);
}

static void test_rm_map_dma_via_xfer(void **state)
{
	struct rm_map_dma m = { .client = 0xc1d00001, .device = 0xd1, .dma = 0x91, .memory = 0x4e3,
				.offset = 0, .length = 2 << 20, .dma_offset = 0x300000000ull };
	struct rm_xfer x = { .cmd = RM_ESC_MAP_MEMORY_DMA, .size = sizeof(m),
			     .ptr = (uint64_t)(uintptr_t)&m };
	struct rm_handles h;
	char why[256] = "";

	(void)state;
	rm_capture_reset();
	cuda_init_sequence();
	rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_IOCTL_XFER, sizeof(x)), &x, sizeof(x));
	assert_int_equal(rm_capture_lookup(0x300000000ull, 2 << 20, 0, &h, why, sizeof(why)), 0);
	assert_int_equal(h.memory, 0x4e3);
	assert_string_equal(h.how, "RM MAP_MEMORY_DMA");
	/* A range running past the mapping is not claimed. */
	assert_int_equal(rm_capture_lookup(0x300100000ull, 2 << 20, 0, &h, why, sizeof(why)), -ENOENT);
}

static void test_fallback_single_alloc(void **state)
{
	struct rm_handles h;
	char why[256] = "";
	uint64_t mark;

	(void)state;
	rm_capture_reset();
	cuda_init_sequence();
	mark = rm_capture_mark();
	alloc64(0xc1d00001, 0xd1, 0x4e4, RM_CLASS_MEMORY_LOCAL);
	assert_int_equal(rm_capture_lookup(0x7f2000000000ull, 2 << 20, mark, &h, why, sizeof(why)), 0);
	assert_int_equal(h.memory, 0x4e4);
	assert_int_equal(h.mem_offset, 0);
	/* Two candidates: ambiguous, refused with a reason. */
	alloc64(0xc1d00001, 0xd1, 0x4e5, RM_CLASS_MEMORY_LOCAL);
	assert_int_equal(rm_capture_lookup(0x7f2000000000ull, 2 << 20, mark, &h, why, sizeof(why)),
			 -ENOENT);
	assert_non_null(strstr(why, "2 video-memory allocations"));
}

static void test_failed_and_malformed_ignored(void **state)
{
	struct rm_handles h;
	struct rm_alloc a = { .client = 1, .parent = 1, .object = 0x4e6, .cls = RM_CLASS_MEMORY_LOCAL };
	char why[256] = "";

	(void)state;
	rm_capture_reset();
	cuda_init_sequence();
	/* RM refused it: not an object. */
	alloc21(0xc1d00001, 0xd1, 0x4e7, RM_CLASS_MEMORY_LOCAL, 0x1f);
	/* Size matching neither NVOS21 nor NVOS64: ignored. */
	rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_ALLOC, 20), &a, 20);
	/* Not an RM fd: ignored. */
	rm_capture_observe(FD_CTL, RM_FD_OTHER, REQ(RM_ESC_ALLOC, sizeof(a)), &a, sizeof(a));
	/* UVM map for an unknown client: ignored. */
	uvm_map(256, 0x7f3000000000ull, 2 << 20, 0, 0xdeadbeef, 0x4e8);
	assert_int_equal(rm_capture_lookup(0x7f3000000000ull, 2 << 20, 0, &h, why, sizeof(why)),
			 -ENOENT);
}

static void test_incomplete_handles(void **state)
{
	struct rm_handles h;
	char why[256] = "";

	(void)state;
	rm_capture_reset();
	/* Only the memory seen (CUDA initialised before the capture started). */
	alloc64(0xc1d00001, 0xd1, 0x4e9, RM_CLASS_MEMORY_LOCAL);
	assert_int_equal(rm_capture_lookup(0x7f4000000000ull, 2 << 20, 0, &h, why, sizeof(why)),
			 -ENOENT);
	assert_non_null(strstr(why, "incomplete"));
}

static void test_controls_fill_gaps(void **state)
{
	struct rm_control c = { .client = 0xc1d00001, .object = 0x52, .cmd = 0x20800101 };
	struct rm_control v = { .client = 0xc1d00001, .object = 0x92, .cmd = 0x90f10101 };
	struct rm_handles h;
	char why[256] = "";

	(void)state;
	rm_capture_reset();
	alloc64(0xc1d00001, 0xd1, 0x4ea, RM_CLASS_MEMORY_LOCAL);
	rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_CONTROL, sizeof(c)), &c, sizeof(c));
	rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_CONTROL, sizeof(v)), &v, sizeof(v));
	assert_int_equal(rm_capture_lookup(0x7f5000000000ull, 2 << 20, 0, &h, why, sizeof(why)), 0);
	assert_int_equal(h.subdevice, 0x52);
	assert_int_equal(h.va_space, 0x92);
	assert_int_equal(h.fd, FD_CTL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uvm_map_256),
		cmocka_unit_test(test_uvm_map_32),
		cmocka_unit_test(test_rm_map_dma_via_xfer),
		cmocka_unit_test(test_fallback_single_alloc),
		cmocka_unit_test(test_failed_and_malformed_ignored),
		cmocka_unit_test(test_incomplete_handles),
		cmocka_unit_test(test_controls_fill_gaps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
