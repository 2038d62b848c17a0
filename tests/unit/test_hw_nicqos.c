// SPDX-License-Identifier: GPL-2.0-or-later
/* test_hw_nicqos.c: lib/hw/nicqos on the fixture trees of tests/fixtures/nicqos: the
 * MLNX_OFED sysfs parameters (sorted, "roce_rp."/"roce_np." names) and enable switches,
 * the inbox mlx5 debugfs cc_params in their fixed order found through the netdev's
 * device link (a missing file not valid), the qos/ files as text, the storm timeout not
 * read under a fixture root; a tree without any of it, and a name no interface can have.
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

#include "lib/hw/nicqos.h"

static struct hw_nicqos q;

static void tree(const char *name, char *buf, size_t n)
{
	const char *root = getenv("PFCLAB_ROOT");

	snprintf(buf, n, "%s/tests/fixtures/nicqos/%s", root ? root : ".", name);
}

/* The parameter NAME; the test fails where there is none. */
static const struct hw_dcqcn_param *param(const char *name)
{
	static const struct hw_dcqcn_param none = { .value = -1 };
	size_t i;

	for (i = 0; i < q.nparam; i++)
		if (!strcmp(q.param[i].name, name))
			return &q.param[i];
	fail_msg("no parameter %s", name);
	return &none;
}

static void test_ofed(void **state)
{
	char root[512];
	size_t i;
	int p;

	(void)state;
	tree("mlnx_ofed", root, sizeof(root));
	assert_int_equal(hw_nicqos_read(root, "eth2", &q), 0);
	assert_int_equal(q.dcqcn_source, HW_DCQCN_MLNX_OFED);
	assert_int_equal(q.nparam, 15);
	for (i = 1; i < q.nparam; i++)	/* sorted, whatever order readdir gives */
		assert_true(strcmp(q.param[i - 1].name, q.param[i].name) < 0);
	assert_true(param("roce_rp.rpg_ai_rate")->valid);
	assert_int_equal(param("roce_rp.rpg_ai_rate")->value, 5);
	assert_int_equal(param("roce_rp.dce_tcp_g")->value, 1019);
	assert_int_equal(param("roce_np.cnp_dscp")->value, 48);
	assert_int_equal(param("roce_np.cnp_802p_prio")->value, 6);
	for (p = 0; p < 8; p++) {
		assert_int_equal(q.rp_enable[p], p == 3);
		assert_int_equal(q.np_enable[p], p == 3);
	}
	assert_true(q.qos_valid[HW_QOS_TRUST]);
	assert_string_equal(q.qos[HW_QOS_TRUST], "dscp");
	assert_true(q.qos_valid[HW_QOS_BUFFER_SIZE]);
	assert_non_null(strstr(q.qos[HW_QOS_BUFFER_SIZE], "Port buffer size = 262016\n"));
	assert_true(q.qos[HW_QOS_PRIO2BUFFER][strlen(q.qos[HW_QOS_PRIO2BUFFER]) - 1] != '\n');
	assert_false(q.storm_valid);
	assert_false(q.storm_auto);
	assert_int_equal(q.storm_err, -ENOTSUP);
}

static void test_debugfs(void **state)
{
	const char *const *names;
	char root[512];
	size_t n, i;

	(void)state;
	tree("mlx5_inbox", root, sizeof(root));
	assert_int_equal(hw_nicqos_read(root, "eth3", &q), 0);
	assert_int_equal(q.dcqcn_source, HW_DCQCN_DEBUGFS);
	names = hw_dcqcn_debugfs_names(&n);
	assert_int_equal(n, 16);
	assert_int_equal(q.nparam, n);
	for (i = 0; i < n; i++)
		assert_string_equal(q.param[i].name, names[i]);
	assert_int_equal(param("rp_time_reset")->value, 300);
	assert_int_equal(param("rp_byte_reset")->value, 32767);
	assert_int_equal(param("np_cnp_prio_mode")->value, 1);
	assert_false(param("np_cnp_prio")->valid);	/* left out of the tree */
	for (i = 0; i < 8; i++)
		assert_int_equal(q.rp_enable[i], -1);
	for (i = 0; i < HW_QOS_NFILES; i++)
		assert_false(q.qos_valid[i]);
}

static void test_absent(void **state)
{
	char root[512];

	(void)state;
	tree("mlx5_inbox", root, sizeof(root));
	/* a netdev the tree does not have: nothing read, nothing an error */
	assert_int_equal(hw_nicqos_read(root, "veth9", &q), 0);
	assert_int_equal(q.dcqcn_source, HW_DCQCN_NONE);
	assert_int_equal(q.nparam, 0);
	assert_false(q.qos_valid[HW_QOS_TRUST]);
	assert_int_equal(hw_nicqos_read(root, "../eth3", &q), -EINVAL);
	assert_int_equal(hw_nicqos_read(root, "", &q), -EINVAL);
	assert_string_equal(hw_nicqos_file_name(HW_QOS_DSCP2PRIO), "dscp2prio");
	assert_string_equal(hw_nicqos_file_name(9), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ofed),
		cmocka_unit_test(test_debugfs),
		cmocka_unit_test(test_absent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
