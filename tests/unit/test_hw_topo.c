// SPDX-License-Identifier: GPL-2.0-or-later
/* test_hw_topo.c: GPU <-> NIC PCIe path classification (nvidia-smi topo -m categories)
 * from sysfs device paths, and lib/hw/topo and lib/hw/gpu (--gpu all, lists) on the
 * handmade sysfs tree of an 8-GPU, 4-NIC host (tests/fixtures/topo).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/hw/gpu.h"
#include "lib/hw/topo.h"
#include "lib/util.h"

struct topo_case {
	const char *a;
	int numa_a;
	const char *b;
	int numa_b;
	enum hw_topo want;
};

static void test_topo_classify(void **state)
{
	static const struct topo_case cases[] = {
		/* GPU and NIC on two downstream ports of one switch. */
		{ "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:00.0/0000:19:00.0", 0,
		  "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:01.0/0000:1a:00.0", 0,
		  HW_TOPO_PIX },
		/* Second port of a dual-port NIC beside the GPU: still one switch. */
		{ "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:00.0/0000:19:00.0", 0,
		  "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:01.0/0000:1a:00.1", 0,
		  HW_TOPO_PIX },
		/* Two switch levels below the shared one on the GPU side. */
		{ "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0/0000:1b:00.0", 0,
		  "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:01.0/0000:1c:00.0", 0,
		  HW_TOPO_PXB },
		/* Different root ports of one host bridge. */
		{ "pci0000:00/0000:00:01.0/0000:01:00.0", 0,
		  "pci0000:00/0000:00:03.1/0000:2b:00.0", 0, HW_TOPO_PHB },
		/* Different host bridges, one socket. */
		{ "pci0000:16/0000:16:01.0/0000:17:00.0", 0,
		  "pci0000:27/0000:27:01.0/0000:28:00.0", 0, HW_TOPO_NODE },
		/* Different host bridges on different sockets. */
		{ "pci0000:16/0000:16:01.0/0000:17:00.0", 0,
		  "pci0000:97/0000:97:01.0/0000:98:00.0", 1, HW_TOPO_SYS },
		/* NUMA unknown: no claim about sockets. */
		{ "pci0000:16/0000:16:01.0/0000:17:00.0", -1,
		  "pci0000:97/0000:97:01.0/0000:98:00.0", 1, HW_TOPO_NODE },
		/* Empty path (not readable): not a crash, the weakest claim. */
		{ "", -1, "pci0000:97/0000:97:01.0/0000:98:00.0", 1, HW_TOPO_NODE },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		enum hw_topo t = hw_topo_classify(cases[i].a, cases[i].numa_a, cases[i].b,
							  cases[i].numa_b);
		if (t != cases[i].want)
			fail_msg("case %zu: got %s, want %s", i, hw_topo_name(t),
				 hw_topo_name(cases[i].want));
	}
}

static void test_topo_names(void **state)
{
	(void)state;
	assert_string_equal(hw_topo_name(HW_TOPO_PIX), "PIX");
	assert_string_equal(hw_topo_name(HW_TOPO_SYS), "SYS");
	assert_string_equal(hw_topo_name((enum hw_topo)42), "?");
	assert_string_equal(hw_topo_words(HW_TOPO_SYS), "across sockets");
}

/* --- the handmade sysfs tree of an 8-GPU, 4-NIC host (tests/fixtures/topo/README) --- */

static void fixture_root(void)
{
	const char *root = getenv("PFCLAB_ROOT");
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/topo/h8gpu_4nic.handmade",
		 root ? root : ".");
	setenv("PFCLAB_SYSFS_ROOT", path, 1);
}

static const char *const fx_gpus[8] = {
	"0000:19:00.0", "0000:1a:00.0", "0000:3d:00.0", "0000:40:00.0",
	"0000:9a:00.0", "0000:9b:00.0", "0000:bd:00.0", "0000:c0:00.0",
};

/* nvidia-smi topo -m of the tree: GPU N's row, the NICs mlx5_0..3 in order. */
static const enum hw_topo fx_dist[8][4] = {
	{ HW_TOPO_PIX, HW_TOPO_NODE, HW_TOPO_SYS, HW_TOPO_SYS },
	{ HW_TOPO_PIX, HW_TOPO_NODE, HW_TOPO_SYS, HW_TOPO_SYS },
	{ HW_TOPO_NODE, HW_TOPO_PXB, HW_TOPO_SYS, HW_TOPO_SYS },
	{ HW_TOPO_NODE, HW_TOPO_PHB, HW_TOPO_SYS, HW_TOPO_SYS },
	{ HW_TOPO_SYS, HW_TOPO_SYS, HW_TOPO_PIX, HW_TOPO_NODE },
	{ HW_TOPO_SYS, HW_TOPO_SYS, HW_TOPO_PIX, HW_TOPO_NODE },
	{ HW_TOPO_SYS, HW_TOPO_SYS, HW_TOPO_NODE, HW_TOPO_PXB },
	{ HW_TOPO_SYS, HW_TOPO_SYS, HW_TOPO_NODE, HW_TOPO_PHB },
};

/* The GPUs as nvidia-smi numbers them: the eight display functions, not GPU 0's HD audio
 * function 0000:19:00.1, nor the bridges. */
static void test_fixture_gpus(void **state)
{
	char bdf[8][HW_BDF_LEN], one[HW_BDF_LEN], why[200];
	int i, n;

	(void)state;
	fixture_root();
	n = hw_gpu_list(bdf, 8);
	assert_int_equal(n, 8);
	for (i = 0; i < 8; i++) {
		assert_string_equal(bdf[i], fx_gpus[i]);
		assert_int_equal(hw_gpu_find(fx_gpus[i], one, sizeof(one), why, sizeof(why)), i);
	}
	assert_int_equal(hw_gpu_find("8", one, sizeof(one), why, sizeof(why)), -ENODEV);
	assert_non_null(strstr(why, "8 NVIDIA GPUs"));
	assert_int_equal(hw_gpu_find("19:00.1", one, sizeof(one), why, sizeof(why)), -ENODEV);
	unsetenv("PFCLAB_SYSFS_ROOT");
}

/* --gpu all and lists, resolved on the tree. */
static void test_fixture_gpu_sets(void **state)
{
	static const struct {
		const char *set;
		int rc;
		int idx[8];
	} cases[] = {
		{ "all", 8, { 0, 1, 2, 3, 4, 5, 6, 7 } },
		{ "3", 1, { 3 } },
		{ "0,0000:c0:00.0", 2, { 0, 7 } },
		{ "bd:00.0,2,1", 3, { 6, 2, 1 } },
		{ "7,c0:00.0", -EINVAL, { 0 } },	/* one GPU twice */
		{ "0,8", -ENODEV, { 0 } },		/* past the last */
		{ "0,19:00.1", -ENODEV, { 0 } },	/* the audio function */
	};
	char why[200];
	int idx[8], rc;
	size_t i;

	(void)state;
	fixture_root();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		rc = hw_gpu_set_index(cases[i].set, idx, 8, why, sizeof(why));
		if (rc != cases[i].rc)
			fail_msg("'%s': %d (%s), want %d", cases[i].set, rc, why, cases[i].rc);
		for (int k = 0; k < rc; k++)
			assert_int_equal(idx[k], cases[i].idx[k]);
	}
	assert_int_equal(hw_gpu_set_index("all", idx, 2, why, sizeof(why)), 2);
	unsetenv("PFCLAB_SYSFS_ROOT");
}

/* The set's form, before any host is asked. */
static void test_gpu_set_opt(void **state)
{
	static const struct {
		const char *v;
		int rc;
	} cases[] = {
		{ "all", 0 }, { "0", 0 }, { "0,1,2", 0 }, { "0000:17:00.0,65:00.0", 0 },
		{ "", -1 }, { ",0", -1 }, { "0,", -1 }, { "0,,1", -1 }, { "gpu0", -1 },
		{ "0,64", -1 }, { "ALL", -1 }, { "all,0", -1 },
		{ "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", 0 },
		{ "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", -1 },	/* over HW_GPU_MAX */
	};
	const char *got;
	char why[200];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		got = NULL;
		if (hw_gpu_set_opt(&got, cases[i].v, why, sizeof(why)) != cases[i].rc)
			fail_msg("'%s': want %d (%s)", cases[i].v, cases[i].rc, why);
		if (!cases[i].rc)
			assert_ptr_equal(got, cases[i].v);
	}
}

/* Every RDMA device with a PCI function, by name; rxe0 (virtual) is left out. Every
 * distance class of nvidia-smi topo -m occurs between the tree's GPUs and NICs. */
static void test_fixture_distances(void **state)
{
	struct hw_topo_rdma nic[8];
	struct hw_topo_dev g;
	bool seen[HW_TOPO_SYS + 1] = { false };
	int n, i, k;

	(void)state;
	fixture_root();
	n = hw_topo_rdma_list(nic, 8);
	assert_int_equal(n, 4);
	for (k = 0; k < 4; k++) {
		char want[24];

		snprintf(want, sizeof(want), "mlx5_%d", k);
		assert_string_equal(nic[k].name, want);
		assert_int_equal(nic[k].dev.numa, k < 2 ? 0 : 1);
	}
	assert_string_equal(nic[0].dev.bdf, "0000:1b:00.0");
	assert_string_equal(nic[0].dev.path,
			    "pci0000:16/0000:16:01.0/0000:17:00.0/0000:18:02.0/0000:1b:00.0");
	for (i = 0; i < 8; i++) {
		assert_int_equal(hw_topo_dev_read(fx_gpus[i], &g), 0);
		assert_int_equal(g.numa, i < 4 ? 0 : 1);
		for (k = 0; k < 4; k++) {
			enum hw_topo t = hw_topo_classify(g.path, g.numa, nic[k].dev.path,
							  nic[k].dev.numa);

			if (t != fx_dist[i][k])
				fail_msg("GPU %d - mlx5_%d: %s, want %s", i, k, hw_topo_name(t),
					 hw_topo_name(fx_dist[i][k]));
			seen[t] = true;
		}
	}
	for (i = 0; i <= HW_TOPO_SYS; i++)
		if (!seen[i])
			fail_msg("no GPU-NIC pair is %s", hw_topo_name((enum hw_topo)i));
	/* absent, and not a PCI address at all */
	assert_int_equal(hw_topo_dev_read("0000:19:05.0", &g), -ENOENT);
	assert_int_equal(hw_topo_dev_read("mlx5_0", &g), -EINVAL);
	unsetenv("PFCLAB_SYSFS_ROOT");
	/* this host: no infiniband class is no RDMA device, not an error */
	setenv("PFCLAB_SYSFS_ROOT", "/nonexistent", 1);
	assert_int_equal(hw_topo_rdma_list(nic, 8), 0);
	unsetenv("PFCLAB_SYSFS_ROOT");
}

static void test_topo_parse(void **state)
{
	int t;

	(void)state;
	for (t = HW_TOPO_PIX; t <= HW_TOPO_SYS; t++)
		assert_int_equal(hw_topo_parse(hw_topo_name((enum hw_topo)t)), t);
	assert_int_equal(hw_topo_parse("X"), -1);
	assert_int_equal(hw_topo_parse(NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topo_classify),
		cmocka_unit_test(test_topo_names),
		cmocka_unit_test(test_topo_parse),
		cmocka_unit_test(test_gpu_set_opt),
		cmocka_unit_test(test_fixture_gpus),
		cmocka_unit_test(test_fixture_gpu_sets),
		cmocka_unit_test(test_fixture_distances),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
