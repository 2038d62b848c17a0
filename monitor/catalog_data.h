/* SPDX-License-Identifier: GPL-2.0-or-later */
/* catalog_data.h: access to the compiled-in copy of monitor/catalog.tsv. */
#ifndef PFCLAB_MON_CATALOG_DATA_H
#define PFCLAB_MON_CATALOG_DATA_H

#include <stddef.h>

const char *mon_catalog_data(size_t *len);

#endif
