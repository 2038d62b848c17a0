// SPDX-License-Identifier: GPL-2.0-or-later
/* exphosts.c: the launcher:, hosts: and monitor.interval of an experiment file
 * (exphosts.h), read through lib/ytree with file:line:key messages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/exphosts.h"
#include "lib/ytree.h"

struct xctx {
	const char *file;
	char *err;
	size_t errlen;
};

static int bad(struct xctx *c, int line, const char *key, const char *why)
{
	snprintf(c->err, c->errlen, "%s:%d: %s: %s", c->file, line, key, why);
	return -EINVAL;
}

/* The scalar under KEY of map M in *S (left alone where M has no KEY). */
static int scalar(struct xctx *c, const struct ynode *m, const char *key, const char *where,
		  const char **s)
{
	const struct ynode *v = ytree_get(m, key);
	char k[200];

	if (!v)
		return 0;
	snprintf(k, sizeof(k), "%s%s", where, key);
	if (v->type != YN_SCALAR)
		return bad(c, v->line, k, "give one value");
	if (!*v->str)
		return bad(c, v->line, k, "empty value");
	*s = v->str;
	return 0;
}

static int read_hosts(struct xctx *c, struct exphosts *x, const struct ynode *hs)
{
	char where[200];
	size_t i;
	int rc = 0;

	if (!hs)
		return bad(c, x->root->line, "hosts", "missing; name the hosts (hosts: {a: {ssh: "
			   "..., netdev: ...}})");
	if (hs->type != YN_MAP || hs->n == 0 || hs->n > EXPHOSTS_MAX)
		return bad(c, hs->line, "hosts", "give a map of 1..256 hosts");
	x->h = calloc(hs->n, sizeof(*x->h));
	if (!x->h)
		return -ENOMEM;
	for (i = 0; i < hs->n && !rc; i++) {
		struct exphost *h = &x->h[i];
		const struct ynode *m = hs->v[i];

		snprintf(where, sizeof(where), "hosts.%.100s", hs->keys[i]);
		if (!*hs->keys[i])
			return bad(c, hs->key_lines[i], "hosts", "a host without a name");
		if (m->type != YN_MAP)
			return bad(c, m->line, where, "give the host's keys (ssh:, netdev:, ...)");
		h->name = hs->keys[i];
		h->line = hs->key_lines[i];
		x->n++;
		snprintf(where, sizeof(where), "hosts.%.100s.", hs->keys[i]);
		rc = scalar(c, m, "ssh", where, &h->ssh);
		if (!rc)
			rc = scalar(c, m, "node", where, &h->node);
		if (!rc)
			rc = scalar(c, m, "netdev", where, &h->netdev);
		if (!rc)
			rc = scalar(c, m, "rdma", where, &h->rdma);
		if (!rc)
			rc = scalar(c, m, "gpu", where, &h->gpu);
		if (!rc)
			rc = scalar(c, m, "pfclab", where, &h->pfclab);
	}
	return rc;
}

static int read_top(struct xctx *c, struct exphosts *x)
{
	const struct ynode *r = x->root, *mon;
	const char *l = NULL;
	int rc;

	if (r->type != YN_MAP)
		return bad(c, r->line, "experiment", "give a map (name:, hosts:, phases:, ...)");
	rc = scalar(c, r, "launcher", "", &l);
	if (rc)
		return rc;
	x->launcher = EXPHOSTS_SSH;
	if (l && !strcmp(l, "local"))
		x->launcher = EXPHOSTS_LOCAL;
	else if (l && !strcmp(l, "slurm"))
		x->launcher = EXPHOSTS_SLURM;
	else if (l && strcmp(l, "ssh"))
		return bad(c, ytree_get(r, "launcher")->line, "launcher", "give local, ssh or slurm");
	mon = ytree_get(r, "monitor");
	if (mon && mon->type == YN_MAP) {
		rc = scalar(c, mon, "interval", "monitor.", &x->interval);
		if (rc)
			return rc;
		if (x->interval)
			x->interval_line = ytree_get(mon, "interval")->line;
	}
	return read_hosts(c, x, ytree_get(r, "hosts"));
}

int exphosts_load(const char *path, struct exphosts **out, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/');
	struct xctx c = { .file = base ? base + 1 : path, .err = err, .errlen = errlen };
	struct exphosts *x;
	char *text;
	size_t len;
	int rc;

	*out = NULL;
	rc = ytree_read_file(path, "an experiment file (YAML)", &text, &len, err, errlen);
	if (rc)
		return rc;
	x = calloc(1, sizeof(*x));
	rc = x ? ytree_parse(c.file, text, len, &x->root, err, errlen) : -ENOMEM;
	free(text);
	if (!rc)
		rc = read_top(&c, x);
	if (rc) {
		exphosts_free(x);
		return rc;
	}
	*out = x;
	return 0;
}

void exphosts_free(struct exphosts *x)
{
	if (!x)
		return;
	free(x->h);
	ytree_free(x->root);
	free(x);
}
