// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_rm_capture.c: the RM handle capture behind the geforce memory backend, fed
 * the ioctl parameter blocks libcuda would pass (RM ALLOC as NVOS21 and NVOS64, controls,
 * MAP_MEMORY_DMA in its 570 and 580 layouts, IOCTL_XFER, UVM_MAP_EXTERNAL_ALLOCATION of either UVM_MAX_GPUS size),
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

/* An NVOS46 block laid out by byte offsets, as the driver's header places the fields:
 * NVIDIA/open-gpu-kernel-modules src/common/sdk/nvidia/inc/nvos.h, at tag 570.133.20
 * (56 bytes: flags at 32, padding, dmaOffset at 40, status at 48) and at tag 580.142
 * (64 bytes: flags 32, flags2 36, kindOverride 40, padding, dmaOffset 48, status 56).
 */
struct nvos46_layout {
	const char *tag;
	size_t size, flags, dma_offset, status;
};

static const struct nvos46_layout nvos46_570 = { "570.133.20", 56, 32, 40, 48 };
static const struct nvos46_layout nvos46_580 = { "580.142", 64, 32, 48, 56 };

static void put32(uint8_t *p, size_t at, uint32_t v)
{
	memcpy(p + at, &v, 4);
}

static void put64(uint8_t *p, size_t at, uint64_t v)
{
	memcpy(p + at, &v, 8);
}

static void map_dma_bytes(const struct nvos46_layout *l, uint8_t *p, uint32_t memory,
			  uint64_t length, uint64_t va, uint32_t status)
{
	memset(p, 0, l->size);
	put32(p, 0, 0xc1d00001);	/* hClient */
	put32(p, 4, 0xd1);		/* hDevice */
	put32(p, 8, 0x91);		/* hDma: the VA space */
	put32(p, 12, memory);		/* hMemory */
	put64(p, 16, 0x20000);		/* offset */
	put64(p, 24, length);		/* length */
	put32(p, l->flags, 0x11);
	if (l->size == 64) {
		put32(p, 36, 0x5a5a5a5a);	/* flags2: must not be read as anything */
		put32(p, 40, 0xa5a5a5a5);	/* kindOverride: sits where 570's dmaOffset did */
	}
	put64(p, l->dma_offset, va);
	put32(p, l->status, status);
}

static void test_rm_map_dma_layouts(void **state)
{
	const struct nvos46_layout *ls[] = { &nvos46_570, &nvos46_580 };
	uint8_t p[64 + 8];
	struct rm_handles h;
	char why[256] = "", sum[1024];
	size_t i;

	(void)state;
	/* the structs pfclab declares are the headers' layouts */
	assert_int_equal(sizeof(struct rm_map_dma), nvos46_570.size);
	assert_int_equal(offsetof(struct rm_map_dma, dma_offset), nvos46_570.dma_offset);
	assert_int_equal(offsetof(struct rm_map_dma, status), nvos46_570.status);
	assert_int_equal(sizeof(struct rm_map_dma_580), nvos46_580.size);
	assert_int_equal(offsetof(struct rm_map_dma_580, flags2), 36);
	assert_int_equal(offsetof(struct rm_map_dma_580, kind_override), 40);
	assert_int_equal(offsetof(struct rm_map_dma_580, dma_offset), nvos46_580.dma_offset);
	assert_int_equal(offsetof(struct rm_map_dma_580, status), nvos46_580.status);
	for (i = 0; i < ARRAY_SIZE(ls); i++) {
		const struct nvos46_layout *l = ls[i];
		uint64_t va = 0x400000000ull + i * 0x10000000ull;

		rm_capture_reset();
		cuda_init_sequence();
		map_dma_bytes(l, p, 0x4e5, 2 << 20, va, RM_OK);
		rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_MAP_MEMORY_DMA, l->size), p,
				   l->size);
		assert_int_equal(rm_capture_lookup(va, 2 << 20, 0, &h, why, sizeof(why)), 0);
		assert_int_equal(h.memory, 0x4e5);
		assert_int_equal(h.mem_offset, 0x20000);
		assert_string_equal(h.how, "RM MAP_MEMORY_DMA");
		/* the summary tells which layout the driver used */
		rm_capture_summary(sum, sizeof(sum));
		assert_non_null(strstr(sum, i ? "MAP_MEMORY_DMA calls: 0 of 56 bytes, 1 of 64" :
					   "MAP_MEMORY_DMA calls: 1 of 56 bytes, 0 of 64"));
		/* a failed call maps nothing */
		rm_capture_reset();
		cuda_init_sequence();
		map_dma_bytes(l, p, 0x4e5, 2 << 20, va, 0x1f);
		rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_MAP_MEMORY_DMA, l->size), p,
				   l->size);
		assert_int_equal(rm_capture_lookup(va, 2 << 20, 0, &h, why, sizeof(why)),
				 -ENOENT);
	}
	/* 580's block read as 570's would take kindOverride and padding for the VA: the
	 * size decides, so the 570 VA slot (byte 40) is not what the 580 call mapped */
	rm_capture_reset();
	cuda_init_sequence();
	map_dma_bytes(&nvos46_580, p, 0x4e6, 2 << 20, 0x500000000ull, RM_OK);
	rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_MAP_MEMORY_DMA, 64), p, 64);
	assert_int_equal(rm_capture_lookup(0xa5a5a5a5ull, 1 << 20, 0, &h, why, sizeof(why)),
			 -ENOENT);
	assert_int_equal(rm_capture_lookup(0x500000000ull, 2 << 20, 0, &h, why, sizeof(why)),
			 0);
	/* sizes of neither layout are ignored */
	rm_capture_reset();
	cuda_init_sequence();
	map_dma_bytes(&nvos46_580, p, 0x4e7, 2 << 20, 0x600000000ull, RM_OK);
	rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_MAP_MEMORY_DMA, 72), p, 72);
	rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_MAP_MEMORY_DMA, 60), p, 60);
	assert_int_equal(rm_capture_lookup(0x600000000ull, 2 << 20, 0, &h, why, sizeof(why)),
			 -ENOENT);
}

/* The 64-byte block passed by pointer through IOCTL_XFER, as large parameters are. */
static void test_rm_map_dma_580_via_xfer(void **state)
{
	struct rm_map_dma_580 m = { .client = 0xc1d00001, .device = 0xd1, .dma = 0x91,
				    .memory = 0x4e8, .length = 4 << 20, .flags2 = 3,
				    .kind_override = 0xfe, .dma_offset = 0x700000000ull };
	struct rm_xfer x = { .cmd = RM_ESC_MAP_MEMORY_DMA, .size = sizeof(m),
			     .ptr = (uint64_t)(uintptr_t)&m };
	struct rm_handles h;
	char why[256] = "";

	(void)state;
	rm_capture_reset();
	cuda_init_sequence();
	rm_capture_observe(FD_CTL, RM_FD_RM, REQ(RM_ESC_IOCTL_XFER, sizeof(x)), &x, sizeof(x));
	assert_int_equal(rm_capture_lookup(0x700000000ull, 4 << 20, 0, &h, why, sizeof(why)), 0);
	assert_int_equal(h.memory, 0x4e8);
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
		cmocka_unit_test(test_rm_map_dma_layouts),
		cmocka_unit_test(test_rm_map_dma_580_via_xfer),
		cmocka_unit_test(test_fallback_single_alloc),
		cmocka_unit_test(test_failed_and_malformed_ignored),
		cmocka_unit_test(test_incomplete_handles),
		cmocka_unit_test(test_controls_fill_gaps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
