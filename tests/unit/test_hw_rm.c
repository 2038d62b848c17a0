// SPDX-License-Identifier: GPL-2.0-or-later
/* test_hw_rm.c: lib/hw/rm's parts that need no GPU: the "Device Minor" line of
 * /proc/driver/nvidia/gpus/BDF/information, NV_STATUS names, the parsers of RM's control
 * replies, and the open path's answers
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

/* The control replies as RM lays them out (host order), whole, cut short, and saying
 * what cannot be. */
static void test_parse_replies(void **state)
{
	uint32_t probed[96], ids[HW_RM_MAX_GPUS], inst, tx, rx;
	uint32_t info[8] = { 0x1700, 0, 1, 0, 0, 0, 0, 0xffffffffu };
	uint32_t pex[8] = { 3, 123456789, 987654321 };
	uint8_t pci[12] = { 0, 0x17, 0, 0, 1, 0, 0, 0, 0x17, 0, 0x02, 0 };
	struct hw_rm_pci_info pi;
	size_t n, i;

	(void)state;
	memset(probed, 0xff, sizeof(probed));
	probed[0] = 0x100;
	probed[1] = 0x1700;
	probed[3] = 0x2000;	/* after the first invalid id: not RM's */
	assert_int_equal(hw_rm_parse_probed_ids(probed, sizeof(probed), ids, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 0x100);
	assert_int_equal(ids[1], 0x1700);
	for (i = 0; i < HW_RM_MAX_GPUS; i++)
		probed[i] = (uint32_t)i + 1;	/* every slot a GPU: 32, none beyond */
	assert_int_equal(hw_rm_parse_probed_ids(probed, sizeof(probed), ids, &n), 0);
	assert_int_equal(n, HW_RM_MAX_GPUS);
	/* drivers before gpuFlags[] reply with two tables of 32: 256 bytes */
	assert_int_equal(hw_rm_parse_probed_ids(probed, 256, ids, &n), 0);
	assert_int_equal(n, HW_RM_MAX_GPUS);
	assert_int_equal(hw_rm_parse_probed_ids(probed, 255, ids, &n), -EBADMSG);
	assert_int_equal(n, 0);

	assert_int_equal(hw_rm_parse_pci_info(pci, sizeof(pci), &pi), 0);
	assert_int_equal(pi.domain, 1);
	assert_int_equal(pi.bus, 0x17);
	assert_int_equal(pi.slot, 2);
	assert_int_equal(hw_rm_parse_pci_info(pci, 11, &pi), -EBADMSG);

	assert_int_equal(hw_rm_parse_id_info(info, sizeof(info), &inst), 0);
	assert_int_equal(inst, 1);
	info[2] = HW_RM_MAX_GPUS;	/* no device object can have it */
	assert_int_equal(hw_rm_parse_id_info(info, sizeof(info), &inst), -EBADMSG);
	assert_int_equal(inst, HW_RM_MAX_GPUS);
	info[2] = 0xffffffffu;
	assert_int_equal(hw_rm_parse_id_info(info, sizeof(info), &inst), -EBADMSG);
	assert_int_equal(hw_rm_parse_id_info(info, 12, &inst), -EBADMSG);

	assert_int_equal(hw_rm_parse_pex_bytes(pex, sizeof(pex), &tx, &rx), 0);
	assert_int_equal(tx, 123456789);
	assert_int_equal(rx, 987654321);
	assert_int_equal(hw_rm_parse_pex_bytes(pex, 12, &tx, &rx), -EBADMSG);
	assert_int_equal(tx, 0);
	assert_int_equal(rx, 0);
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
		cmocka_unit_test(test_parse_replies),
		cmocka_unit_test(test_open_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
