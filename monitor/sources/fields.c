// SPDX-License-Identifier: GPL-2.0-or-later
/* fields.c: the field-list, info and netlink-socket helpers the counter sources share. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/nl.h"
#include "lib/util.h"
#include "monitor/sources/sources.h"

int src_fields_reserve(struct mon_src *s, size_t n)
{
	struct mon_field *f = realloc(s->fields, (n ? n : 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	s->fields = f;
	memset(f, 0, (n ? n : 1) * sizeof(*f));
	s->nfields = n;
	return 0;
}

void src_field_set(struct mon_field *f, const char *raw, enum mon_kind kind, uint8_t width,
		   const char *unit)
{
	snprintf(f->raw, sizeof(f->raw), "%s", raw);
	f->kind = kind;
	f->width = width;
	f->unit = unit;
}

void src_fields_free(struct mon_src *s)
{
	free(s->fields);
	s->fields = NULL;
	s->nfields = 0;
}

void src_info_add(struct mon_src *s, const char *key, const char *val)
{
	size_t i;

	for (i = 0; i < s->ninfo; i++)
		if (!strcmp(s->info[i][0], key))
			break;
	if (i == s->ninfo) {
		if (s->ninfo >= sizeof(s->info) / sizeof(s->info[0]))
			return;
		s->ninfo++;
	}
	snprintf(s->info[i][0], sizeof(s->info[i][0]), "%s", key);
	snprintf(s->info[i][1], sizeof(s->info[i][1]), "%s", val);
}

const char *src_last_error(const struct mon_src *s)
{
	return s->err;
}

int src_nl_open(struct mon_src *s, size_t priv_size, int bus, const char *what)
{
	struct nl_sock *nl = calloc(1, priv_size);
	int rc;

	if (!nl)
		return -ENOMEM;
	s->priv = nl;
	rc = nl_sock_open(nl, bus);
	if (rc)
		snprintf(s->err, sizeof(s->err), "%s socket: %s", what, strerror(-rc));
	return rc;
}

void src_nl_close(struct mon_src *s)
{
	struct nl_sock *nl = s->priv;

	if (nl) {
		nl_sock_close(nl);
		free(nl);
	}
	s->priv = NULL;
	src_fields_free(s);
}

int src_ifindex_check(struct mon_src *s, uint32_t ifindex, uint64_t *last_ns)
{
	uint64_t now = time_mono_ns();
	unsigned idx;

	if (*last_ns && now - *last_ns < SRC_IFINDEX_CHECK_NS)
		return 0;
	*last_ns = now;
	idx = if_nametoindex(s->dev);
	if (idx == ifindex)
		return 0;
	if (idx)
		snprintf(s->err, sizeof(s->err), "interface %s re-created (ifindex %u -> %u)",
			 s->dev, ifindex, idx);
	else
		snprintf(s->err, sizeof(s->err), "interface %s: no such interface (renamed or "
			 "deleted)", s->dev);
	return -ENODEV;
}
