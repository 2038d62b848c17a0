// SPDX-License-Identifier: GPL-2.0-or-later
/* catalog_data.c: embeds monitor/catalog.tsv (the data table) into the binary. */
#include <stddef.h>

#include "monitor/catalog_data.h"

/* The assembler runs in the repository root (the Makefile's directory). */
__asm__(".section .rodata\n"
	".global mon_catalog_tsv_start\n"
	".type mon_catalog_tsv_start, @object\n"
	"mon_catalog_tsv_start:\n"
	".incbin \"monitor/catalog.tsv\"\n"
	".global mon_catalog_tsv_end\n"
	".type mon_catalog_tsv_end, @object\n"
	"mon_catalog_tsv_end:\n"
	".byte 0\n"
	".previous\n");

extern const char mon_catalog_tsv_start[];
extern const char mon_catalog_tsv_end[];

const char *mon_catalog_data(size_t *len)
{
	*len = (size_t)(mon_catalog_tsv_end - mon_catalog_tsv_start);
	return mon_catalog_tsv_start;
}
