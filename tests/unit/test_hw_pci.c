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

#include <string.h>

#include "lib/hw/gpu.h"
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

/* Long and lspci's short form come out long; anything else is refused. */
static void test_addr_canon(void **state)
{
	static const struct { const char *in, *out; } ok[] = {
		{ "0000:3b:00.1", "0000:3b:00.1" }, { "3b:00.1", "0000:3b:00.1" },
		{ "B3:0.0", "0000:b3:00.0" }, { "0001:02:1f.7", "0001:02:1f.7" },
	};
	static const char *const bad[] = { "", "3b", "3b:00", "0000:3b:00", "3b:20.0", "3b:00.8",
					   "100:00.0", "3b:00.1x", "10000:00:00.0", "eth0" };
	char out[HW_BDF_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(hw_pci_addr_canon(ok[i].in, out, sizeof(out)), 0);
		assert_string_equal(out, ok[i].out);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(hw_pci_addr_canon(bad[i], out, sizeof(out)), -EINVAL);
	assert_int_equal(hw_pci_addr_canon("3b:00.1", out, 8), -ENOSPC);
}

/* What --gpu G refuses before any GPU is looked for, what it takes as written, and an
 * index or a PCI address that is not an NVIDIA GPU here refused with why. */
static void test_gpu_find(void **state)
{
	char bdf[HW_BDF_LEN], why[200];
	const char *g = NULL;

	(void)state;
	assert_int_equal(hw_gpu_find("gpu0", bdf, sizeof(bdf), why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "expected a GPU index 0..63"));
	assert_int_equal(hw_gpu_find("64", bdf, sizeof(bdf), why, sizeof(why)), -EINVAL);
	assert_int_equal(hw_gpu_opt(&g, "-1", why, sizeof(why)), -1);
	assert_int_equal(hw_gpu_opt(&g, "63", why, sizeof(why)), 0);
	assert_string_equal(g, "63");
	/* an address is taken as written: the host that has the GPU finds it */
	assert_int_equal(hw_gpu_opt(&g, "ff:1f.7", why, sizeof(why)), 0);
	assert_string_equal(g, "ff:1f.7");
	assert_int_equal(hw_gpu_opt(&g, "ff:1f", why, sizeof(why)), -1);
	/* an index is looked for on this host too: none has a GPU 63, and why says how
	 * many there are or that there is none, and how to list them */
	assert_int_equal(hw_gpu_index("63", why, sizeof(why)), -ENODEV);
	assert_true(strstr(why, "numbered as nvidia-smi -L does") ||
		    strstr(why, "there is no NVIDIA GPU on this host's PCI bus (lspci -d 10de:"));
	assert_int_equal(hw_gpu_find("ff:1f.7", bdf, sizeof(bdf), why, sizeof(why)), -ENODEV);
	assert_true(strstr(why, "0000:ff:1f.7 is not an NVIDIA GPU here") ||
		    strstr(why, "there is no NVIDIA GPU"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_speed_text),
		cmocka_unit_test(test_speed_code),
		cmocka_unit_test(test_bdf),
		cmocka_unit_test(test_addr_canon),
		cmocka_unit_test(test_gpu_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
