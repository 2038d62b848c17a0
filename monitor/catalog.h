/* SPDX-License-Identifier: GPL-2.0-or-later */
/* catalog.h: the table that maps raw counter names per driver to semantic metrics
 * (monitor/catalog.tsv, compiled in; another file may replace it at run time).
 */
#ifndef PFCLAB_MON_CATALOG_H
#define PFCLAB_MON_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/mon.h"

struct mon_catalog;

/* Where and why a catalog does not parse: the 1-based line (0: not a line's fault) and
 * what is wrong with it ("kind 'countr': expected counter or gauge").
 */
struct mon_catalog_err {
	int line;
	char why[200];
};

/* Parse a catalog from text; -EINVAL with *err filled for a line that does not parse. */
int mon_catalog_parse(const char *text, size_t len, struct mon_catalog **out,
		      struct mon_catalog_err *err);
/* The compiled-in table. */
int mon_catalog_builtin(struct mon_catalog **out);
/* The file at path: -errno where it cannot be read (a folder: -EISDIR), -EINVAL as above. */
int mon_catalog_load(const char *path, struct mon_catalog **out, struct mon_catalog_err *err);
void mon_catalog_free(struct mon_catalog *c);
size_t mon_catalog_size(const struct mon_catalog *c);

/* One row as the table gives it (pointers into the catalog). ref is the row's trailing
 * "# ..." field, the upstream file (and release) its raw name and meaning were checked
 * against; NULL where the row has none.
 */
struct mon_catalog_info {
	const char *source, *drivers, *raw, *metric, *unit;
	enum mon_kind kind;
	uint8_t width;
	const char *ref;
};

/* Row i (0-based, table order) into *info; -ENOENT past the end. */
int mon_catalog_row(const struct mon_catalog *c, size_t i, struct mon_catalog_info *info);

struct mon_catalog_hit {
	char metric[MON_NAME_MAX];
	const char *unit;	/* points into the catalog */
	enum mon_kind kind;
	uint8_t width;		/* 32 or 64 when the table says so, else 0 */
};

/* 1 and *hit filled when (source, driver, raw) matches a line; 0 when none does.
 * index replaces {i} in the metric name.
 */
int mon_catalog_lookup(const struct mon_catalog *c, const char *source, const char *driver,
		       const char *raw, int index, struct mon_catalog_hit *hit);
/* The same, with dev replacing {d} in the metric name (NULL: empty). */
int mon_catalog_lookup_dev(const struct mon_catalog *c, const char *source, const char *driver,
			   const char *dev, const char *raw, int index,
			   struct mon_catalog_hit *hit);

#endif
