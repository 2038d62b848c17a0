// SPDX-License-Identifier: GPL-2.0-or-later
/* test_traffic_mem.c: memory backend registry and the --check-mem sequence on host memory;
 * GPU backends must report "cannot run here" (skip), not fail, on a host without CUDA.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/util.h"
#include "traffic/mem.h"

static void test_registry(void **state)
{
	const char *names[] = { "host", "cuda", "cuda-dmabuf", "auto" };
	size_t i, n = 0;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		const struct mem_ops *m = mem_ops_find(names[i]);

		assert_non_null(m);
		assert_string_equal(m->name, names[i]);
		assert_non_null(m->alloc);
		assert_non_null(m->reg);
		assert_non_null(m->write);
		assert_non_null(m->read);
		assert_non_null(m->free);
	}
	assert_null(mem_ops_find("floppy"));
	while (mem_ops_at(n))
		n++;
	assert_true(n >= ARRAY_SIZE(names));
}

static void test_check_host(void **state)
{
	struct mem_req req = { .len = 3 * 1024 * 1024 + 5, .numa_node = -1 };
	struct mem_check c;
	unsigned int i;

	(void)state;
	assert_int_equal(mem_check_run(&mem_host_ops, &req, NULL, &c), 0);
	assert_string_equal(c.backend, "host");
	assert_true(c.len >= req.len);
	assert_int_equal(c.len % 4096, 0);
	assert_string_equal(c.steps[0].name, "alloc");
	assert_int_equal(c.steps[0].result, MEM_STEP_OK);
	for (i = 0; i < c.nsteps; i++) {
		if (!strcmp(c.steps[i].name, "register") || !strcmp(c.steps[i].name, "export"))
			assert_int_equal(c.steps[i].result, MEM_STEP_SKIP);
		else
			assert_int_equal(c.steps[i].result, MEM_STEP_OK);
	}
	assert_string_equal(c.steps[c.nsteps - 1].name, "free");
}

static void test_host_bounds(void **state)
{
	struct mem_req req = { .len = 4096, .numa_node = -1 };
	struct mem_buf b;
	uint8_t x[16] = { 1 };

	(void)state;
	mem_buf_init(&b, &mem_host_ops);
	assert_int_equal(mem_host_ops.alloc(&b, &req), 0);
	assert_int_equal(mem_host_ops.write(&b, 4090, x, 16), -ERANGE);
	assert_int_equal(mem_host_ops.read(&b, 4096, x, 1), -ERANGE);
	assert_int_equal(mem_host_ops.write(&b, 4080, x, 16), 0);
	mem_host_ops.free(&b);
	req.len = 0;
	mem_buf_init(&b, &mem_host_ops);
	assert_int_equal(mem_host_ops.alloc(&b, &req), -EINVAL);
	mem_host_ops.free(&b);
}

/* Without libcuda or a GPU, every GPU backend says so (skip), with a reason. */
static void test_gpu_backends_skip_cleanly(void **state)
{
	const char *names[] = { "cuda", "cuda-dmabuf", "auto" };
	struct mem_req req = { .len = 1 << 20, .numa_node = -1 };
	struct mem_check c;
	size_t i;

	(void)state;
	if (getenv("PFCLAB_TEST_HAVE_GPU"))
		skip();
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		int rc = mem_check_run(mem_ops_find(names[i]), &req, NULL, &c);

		if (rc == 0)
			continue;	/* a GPU host: covered by tests/gpu/check_mem.sh */
		assert_int_equal(rc, -ENODEV);
		assert_int_equal(c.nsteps, 1);
		assert_int_equal(c.steps[0].result, MEM_STEP_SKIP);
		assert_true(strlen(c.steps[0].detail) > 10);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_check_host),
		cmocka_unit_test(test_host_bounds),
		cmocka_unit_test(test_gpu_backends_skip_cleanly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
