// SPDX-License-Identifier: GPL-2.0-or-later
/* test_hw_rm.c: lib/hw/rm's parts that need no GPU: the "Device Minor" line of
 * /proc/driver/nvidia/gpus/BDF/information, NV_STATUS names, and the open path's answers
 * where there is no NVIDIA driver or the address is not one.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/hw/rm.h"

static void test_parse_minor(void **state)
{
	static const struct {
		const char *in;
		int minor;
	} t[] = {
		{ "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 123\nDevice Minor: \t 0\n", 0 },
		{ "Model: x\nDevice Minor: \t 7\nBus Location: \t 0000:17:00.0\n", 7 },
		{ "Device Minor: 255\n", 255 },
		{ "Device Minor: 256\n", -1 },		/* beyond the driver's 8-bit minors */
		{ "Device Minor: \n", -1 },
		{ "Device Minor: -1\n", -1 },
		{ "Model: x\n", -1 },
		{ "", -1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(hw_rm_parse_minor(t[i].in), t[i].minor);
}

static void test_status_name(void **state)
{
	(void)state;
	assert_string_equal(hw_rm_status_name(RM_OK), "NV_OK");
	assert_string_equal(hw_rm_status_name(0x56), "NV_ERR_NOT_SUPPORTED");
	assert_string_equal(hw_rm_status_name(RM_STATUS_NOT_REACHED), "not reached");
	assert_string_equal(hw_rm_status_name(0x12345), "NV_STATUS 0x12345");
}

static void test_open_errors(void **state)
{
	struct hw_rm_gpu g;
	char why[160];
	int rc;

	(void)state;
	rc = hw_rm_gpu_open(&g, "not-a-bdf", why, sizeof(why));
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(why, "not-a-bdf"));
	hw_rm_gpu_close(&g);
	if (access("/dev/nvidiactl", F_OK) == 0)
		skip();		/* a driver is here: the no-driver answer cannot be seen */
	rc = hw_rm_gpu_open(&g, "0000:17:00.0", why, sizeof(why));
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(why, "/dev/nvidiactl"));
	hw_rm_gpu_close(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_minor),
		cmocka_unit_test(test_status_name),
		cmocka_unit_test(test_open_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
