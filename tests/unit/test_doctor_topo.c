// SPDX-License-Identifier: GPL-2.0-or-later
/* test_doctor_topo.c: GPU <-> NIC PCIe path classification (nvidia-smi topo -m categories)
 * from sysfs device paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lab/doctor/doctor.h"
#include "lib/util.h"

struct topo_case {
	const char *a;
	int numa_a;
	const char *b;
	int numa_b;
	enum doctor_topo want;
};

static void test_topo_classify(void **state)
{
	static const struct topo_case cases[] = {
		/* GPU and NIC on two downstream ports of one switch. */
		{ "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:00.0/0000:19:00.0", 0,
		  "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:01.0/0000:1a:00.0", 0,
		  DOCTOR_TOPO_PIX },
		/* Second port of a dual-port NIC beside the GPU: still one switch. */
		{ "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:00.0/0000:19:00.0", 0,
		  "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:01.0/0000:1a:00.1", 0,
		  DOCTOR_TOPO_PIX },
		/* Two switch levels below the shared one on the GPU side. */
		{ "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0/0000:1b:00.0", 0,
		  "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:01.0/0000:1c:00.0", 0,
		  DOCTOR_TOPO_PXB },
		/* Different root ports of one host bridge. */
		{ "pci0000:00/0000:00:01.0/0000:01:00.0", 0,
		  "pci0000:00/0000:00:03.1/0000:2b:00.0", 0, DOCTOR_TOPO_PHB },
		/* Different host bridges, one socket. */
		{ "pci0000:16/0000:16:01.0/0000:17:00.0", 0,
		  "pci0000:27/0000:27:01.0/0000:28:00.0", 0, DOCTOR_TOPO_NODE },
		/* Different host bridges on different sockets. */
		{ "pci0000:16/0000:16:01.0/0000:17:00.0", 0,
		  "pci0000:97/0000:97:01.0/0000:98:00.0", 1, DOCTOR_TOPO_SYS },
		/* NUMA unknown: no claim about sockets. */
		{ "pci0000:16/0000:16:01.0/0000:17:00.0", -1,
		  "pci0000:97/0000:97:01.0/0000:98:00.0", 1, DOCTOR_TOPO_NODE },
		/* Empty path (not readable): not a crash, the weakest claim. */
		{ "", -1, "pci0000:97/0000:97:01.0/0000:98:00.0", 1, DOCTOR_TOPO_NODE },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		enum doctor_topo t = doctor_topo_classify(cases[i].a, cases[i].numa_a, cases[i].b,
							  cases[i].numa_b);
		if (t != cases[i].want)
			fail_msg("case %zu: got %s, want %s", i, doctor_topo_name(t),
				 doctor_topo_name(cases[i].want));
	}
}

static void test_topo_names(void **state)
{
	(void)state;
	assert_string_equal(doctor_topo_name(DOCTOR_TOPO_PIX), "PIX");
	assert_string_equal(doctor_topo_name(DOCTOR_TOPO_SYS), "SYS");
	assert_string_equal(doctor_topo_name((enum doctor_topo)42), "?");
	assert_string_equal(doctor_topo_words(DOCTOR_TOPO_SYS), "across sockets");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topo_classify),
		cmocka_unit_test(test_topo_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
