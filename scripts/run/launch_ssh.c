// SPDX-License-Identifier: GPL-2.0-or-later
/* launch_ssh.c: the ssh launcher: each host reached with OpenSSH (its ssh: destination, else
 * its name, resolved by the user's ssh config or --ssh-config), multiplexed, BatchMode.
 */
#include <stdio.h>

#include "run.h"

static int ssh_resolve(struct run_ctx *c, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < c->nhosts; i++) {
		const struct exp_host *h = c->hosts[i].h;

		snprintf(c->hosts[i].reach, sizeof(c->hosts[i].reach), "%s", h->ssh ? h->ssh : h->name);
	}
	return 0;
}

const struct launch_ops launch_ssh_ops = {
	.name = "ssh",
	.kind = REMOTE_SSH,
	.writes_results = false,
	.resolve = ssh_resolve,
};
