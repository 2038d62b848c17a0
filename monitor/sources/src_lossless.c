// SPDX-License-Identifier: GPL-2.0-or-later
/* src_lossless.c: the counters of the emulated lossless link (`pfclab link`) of one port,
 * in mlx5's names and units, read from the page the link publishes (lib/linkstat.h)
 * through its bounds-checked reader.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/linkstat.h"
#include "monitor/sources/sources.h"

struct lossless_priv {
	char path[256];
	uint64_t epoch;		/* the writer's start: a new one restarts every counter */
	struct linkstat_view v;
};

bool src_lossless_present(const char *iface)
{
	char path[256];

	return !linkstat_path(NULL, iface, path, sizeof(path)) && !access(path, R_OK);
}

static int lossless_init(struct mon_src *s)
{
	struct lossless_priv *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	snprintf(s->driver, sizeof(s->driver), "pfclab-link");
	rc = linkstat_path(NULL, s->dev, p->path, sizeof(p->path));
	if (rc) {
		snprintf(s->err, sizeof(s->err), "%s: not an interface name", s->dev);
		return rc;
	}
	rc = linkstat_read(p->path, &p->v);
	if (rc == -ENOENT) {
		snprintf(s->err, sizeof(s->err), "%s: no emulated lossless link (%.120s absent; "
			 "start 'pfclab link' on it)", s->dev, p->path);
		return -EOPNOTSUPP;
	}
	if (rc) {
		snprintf(s->err, sizeof(s->err), "%.160s: %s", p->path, strerror(-rc));
		return rc;
	}
	p->epoch = p->v.epoch;
	src_info_add(s, "link_page", p->path);
	return 0;
}

static int lossless_discover(struct mon_src *s)
{
	struct lossless_priv *p = s->priv;
	uint32_t i;
	int rc = src_fields_reserve(s, p->v.n);

	if (rc)
		return rc;
	for (i = 0; i < p->v.n; i++)
		src_field_set(&s->fields[i], p->v.e[i].name,
			      p->v.e[i].kind ? MON_GAUGE : MON_COUNTER, 64,
			      linkstat_unit_name(p->v.e[i].unit));
	return 0;
}

static int lossless_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	struct lossless_priv *p = s->priv;
	uint32_t i;
	int rc = linkstat_read(p->path, &p->v);

	if (rc) {
		snprintf(s->err, sizeof(s->err), "%.160s: %s", p->path,
			 rc == -ENOENT ? "gone ('pfclab link' stopped)" : strerror(-rc));
		return rc == -ENOENT ? -ENODEV : rc;
	}
	if (p->v.epoch != p->epoch) {
		p->epoch = p->v.epoch;
		s->epoch++;	/* a new writer: its counters start again */
	}
	if (p->v.n != s->nfields)
		return -ESTALE;
	for (i = 0; i < p->v.n; i++)
		if (strcmp(p->v.e[i].name, s->fields[i].raw))
			return -ESTALE;
	for (i = 0; i < p->v.n; i++) {
		vals[i] = p->v.e[i].value;
		valid[i] = 1;
	}
	return 0;
}

static void lossless_close(struct mon_src *s)
{
	free(s->priv);
	s->priv = NULL;
	src_fields_free(s);
}

const struct mon_src_ops src_lossless_ops = {
	.name = "lossless",
	.what = "emulated lossless link counters (pfclab link)",
	.init = lossless_init,
	.discover = lossless_discover,
	.sample = lossless_sample,
	.close = lossless_close,
	.last_error = src_last_error,
};
