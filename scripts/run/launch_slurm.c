// SPDX-License-Identifier: GPL-2.0-or-later
/* launch_slurm.c: the slurm launcher: inside an allocation (salloc/sbatch), hosts are the
 * allocation's nodes (scontrol show hostnames "$SLURM_JOB_NODELIST"), in order, unless a
 * host names its node:, and every command is a job step started with srun.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static int slurm_resolve(struct run_ctx *c, char *err, size_t errlen)
{
	static const struct remote_target here = { .kind = REMOTE_LOCAL };
	const char *list = getenv("SLURM_JOB_NODELIST");
	char *out = NULL, *errs = NULL, *save = NULL, *tok;
	char *nodes[EXP_MAX_HOSTS];
	size_t n = 0, i, next = 0;
	int rc, code = -1;

	if (!getenv("SLURM_JOB_ID") || !list) {
		if (c->o.dry_run) {
			for (i = 0; i < c->nhosts; i++)
				snprintf(c->hosts[i].reach, sizeof(c->hosts[i].reach), "%s",
					 c->hosts[i].h->node ? c->hosts[i].h->node : "<node of the allocation>");
			return 0;
		}
		snprintf(err, errlen, "launcher slurm: not inside a Slurm allocation (SLURM_JOB_ID unset); "
			 "run it under salloc -N%zu or in an sbatch script", c->nhosts);
		return -EINVAL;
	}
	{
		const char *argv[] = { "scontrol", "show", "hostnames", list, NULL };

		rc = remote_run(&here, argv, NULL, 10000, &code, &out, &errs, 1 << 20);
	}
	if (rc || code) {
		snprintf(err, errlen, "launcher slurm: scontrol show hostnames '%s' failed: %s", list,
			 rc ? strerror(-rc) : errs && *errs ? strtok(errs, "\n") : "no message");
		free(out);
		free(errs);
		return rc ? rc : -EIO;
	}
	for (tok = strtok_r(out, " \n", &save); tok && n < EXP_MAX_HOSTS; tok = strtok_r(NULL, " \n", &save))
		nodes[n++] = tok;
	for (i = 0; i < c->nhosts; i++) {
		const struct exp_host *h = c->hosts[i].h;
		size_t j;

		if (h->node) {
			for (j = 0; j < n && strcmp(nodes[j], h->node); j++)
				;
			if (j == n) {
				snprintf(err, errlen, "launcher slurm: host %s names node %s, not in the "
					 "allocation (%s)", h->name, h->node, list);
				free(out);
				free(errs);
				return -EINVAL;
			}
			snprintf(c->hosts[i].reach, sizeof(c->hosts[i].reach), "%s", h->node);
			continue;
		}
		if (next >= n) {
			snprintf(err, errlen, "launcher slurm: %zu hosts but the allocation has %zu nodes "
				 "(%s); allocate with -N%zu", c->nhosts, n, list, c->nhosts);
			free(out);
			free(errs);
			return -EINVAL;
		}
		snprintf(c->hosts[i].reach, sizeof(c->hosts[i].reach), "%s", nodes[next++]);
	}
	free(out);
	free(errs);
	return 0;
}

const struct launch_ops launch_slurm_ops = {
	.name = "slurm",
	.kind = REMOTE_SRUN,
	.writes_results = false,
	.resolve = slurm_resolve,
};
