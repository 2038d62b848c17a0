// SPDX-License-Identifier: GPL-2.0-or-later
/* launch_local.c: the local launcher: every host of the experiment is this machine
 * (e.g. the virtual lab's rxe0 <-> rxe1), commands run as child processes.
 */
#include <string.h>

#include "run.h"

static int local_resolve(struct run_ctx *c, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < c->nhosts; i++)
		c->hosts[i].reach[0] = 0;
	return 0;
}

const struct launch_ops launch_local_ops = {
	.name = "local",
	.kind = REMOTE_LOCAL,
	.writes_results = true,
	.resolve = local_resolve,
};

const struct launch_ops *launch_find(const char *name)
{
	static const struct launch_ops *const all[] = { &launch_local_ops, &launch_ssh_ops,
							 &launch_slurm_ops };
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}
