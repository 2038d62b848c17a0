// SPDX-License-Identifier: GPL-2.0-or-later
/* test_hw_pci.c: lib/hw/pci's text parsers: the sysfs link-speed string (generation and
 * MT/s from one parse), the Link Status speed code and PCI addresses.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/hw/pci.h"

static void test_speed_text(void **state)
{
	static const struct {
		const char *in;
		int rc, gen;
		uint32_t mts;
	} t[] = {
		{ "2.5 GT/s PCIe", 0, 1, 2500 },
		{ "5.0 GT/s PCIe", 0, 2, 5000 },
		{ "8.0 GT/s PCIe", 0, 3, 8000 },
		{ "16.0 GT/s PCIe", 0, 4, 16000 },
		{ "32.0 GT/s PCIe", 0, 5, 32000 },
		{ "64.0 GT/s PCIe", 0, 6, 64000 },
		{ "8 GT/s", 0, 3, 8000 },		/* older kernels: no suffix, no ".0" */
		{ "2.5 GT/s", 0, 1, 2500 },
		{ "20.0 GT/s", 0, 0, 20000 },		/* a rate of no generation: MT/s only */
		{ "Unknown", -EINVAL, 0, 0 },		/* link down */
		{ "Unknown speed", -EINVAL, 0, 0 },
		{ "8.0 MHz", -EINVAL, 0, 0 },
		{ "0 GT/s", -EINVAL, 0, 0 },
		{ "-8 GT/s", -EINVAL, 0, 0 },
		{ "nan GT/s", -EINVAL, 0, 0 },
		{ "", -EINVAL, 0, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct hw_pci_speed s = { -1, 1 };
		int rc = hw_pci_parse_speed(t[i].in, &s);

		print_message("'%s'\n", t[i].in);
		assert_int_equal(rc, t[i].rc);
		if (rc)
			continue;
		assert_int_equal(s.gen, t[i].gen);
		assert_int_equal(s.mts, t[i].mts);
	}
}

static void test_speed_code(void **state)
{
	struct hw_pci_speed s;

	(void)state;
	assert_int_equal(hw_pci_speed_from_code(4, &s), 0);
	assert_int_equal(s.gen, 4);
	assert_int_equal(s.mts, 16000);
	assert_string_equal(hw_pci_speed_gts(&s), "16");
	assert_int_equal(hw_pci_speed_from_code(1, &s), 0);
	assert_string_equal(hw_pci_speed_gts(&s), "2.5");
	assert_int_equal(hw_pci_speed_from_code(0, &s), -EINVAL);
	assert_int_equal(hw_pci_speed_from_code(7, &s), -EINVAL);
	s.gen = 0;
	assert_string_equal(hw_pci_speed_gts(&s), "?");
}

static void test_bdf(void **state)
{
	unsigned int d, b, dv, f;

	(void)state;
	assert_int_equal(hw_pci_parse_bdf("0000:3b:00.1", &d, &b, &dv, &f), 0);
	assert_int_equal(d, 0);
	assert_int_equal(b, 0x3b);
	assert_int_equal(dv, 0);
	assert_int_equal(f, 1);
	assert_int_equal(hw_pci_parse_bdf("virtio2", &d, &b, &dv, &f), -EINVAL);
	assert_int_equal(hw_pci_parse_bdf("0000:3b:00.1x", &d, &b, &dv, &f), -EINVAL);
	assert_int_equal(hw_pci_parse_bdf("0000:3b:20.0", &d, &b, &dv, &f), -EINVAL);
	assert_int_equal(hw_pci_parse_bdf("0000:3b:00.8", &d, &b, &dv, &f), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_speed_text),
		cmocka_unit_test(test_speed_code),
		cmocka_unit_test(test_bdf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
