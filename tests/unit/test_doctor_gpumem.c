// SPDX-License-Identifier: GPL-2.0-or-later
/* test_doctor_gpumem.c: the doctor's GPU-memory path decision: peermem needs the MLNX_OFED
 * peer-memory core and nvidia-peermem registered; dma-buf needs kernel >= 5.12, the open
 * modules and DMA_BUF_SUPPORTED=1; GeForce boards get neither and are pointed at the
 * geforce backend; each path not usable says why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lab/doctor/doctor.h"

static void test_mofed_host(void **state)
{
	struct doctor_gpumem_facts f = { .kernel_dmabuf = false, .open_modules = false,
					  .peer_core = true, .nv_mem = true, .cuda_dmabuf = 0 };
	char why[640];

	(void)state;
	assert_int_equal(doctor_gpumem_decide(&f, why, sizeof(why)), DOCTOR_GPUMEM_PEERMEM);
	assert_non_null(strstr(why, "dma-buf: kernel older than 5.12"));
	assert_null(strstr(why, "peermem:"));
}

static void test_inbox_dmabuf_host(void **state)
{
	struct doctor_gpumem_facts f = { .kernel_dmabuf = true, .open_modules = true,
					  .cuda_dmabuf = 1 };
	char why[640];

	(void)state;
	assert_int_equal(doctor_gpumem_decide(&f, why, sizeof(why)), DOCTOR_GPUMEM_DMABUF);
	assert_non_null(strstr(why, "peermem: no peer-memory core"));
	f.peer_core = f.nv_mem = true;
	assert_int_equal(doctor_gpumem_decide(&f, why, sizeof(why)),
			 DOCTOR_GPUMEM_DMABUF | DOCTOR_GPUMEM_PEERMEM);
	assert_string_equal(why, "");
}

static void test_geforce(void **state)
{
	struct doctor_gpumem_facts f = { .kernel_dmabuf = true, .open_modules = true,
					  .peer_core = true, .nv_mem = true, .geforce = true,
					  .cuda_dmabuf = 0 };
	char why[640];

	(void)state;
	assert_int_equal(doctor_gpumem_decide(&f, why, sizeof(why)), DOCTOR_GPUMEM_GEFORCE);
	assert_non_null(strstr(why, "ThirdPartyP2P"));
	assert_non_null(strstr(why, "DMA_BUF_SUPPORTED=0"));
	f.peer_core = f.nv_mem = false;
	assert_int_equal(doctor_gpumem_decide(&f, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "geforce: needs the MLNX_OFED peer-memory core"));
}

static void test_neither(void **state)
{
	struct doctor_gpumem_facts f = { .kernel_dmabuf = true, .open_modules = false,
					  .cuda_dmabuf = -1 };
	char why[640];

	(void)state;
	assert_int_equal(doctor_gpumem_decide(&f, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "proprietary kernel modules"));
	assert_non_null(strstr(why, "peermem: no peer-memory core"));
	/* Short buffers are cut, never overrun. */
	assert_int_equal(doctor_gpumem_decide(&f, why, 8), 0);
	assert_int_equal(strlen(why), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mofed_host),
		cmocka_unit_test(test_inbox_dmabuf_host),
		cmocka_unit_test(test_geforce),
		cmocka_unit_test(test_neither),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
