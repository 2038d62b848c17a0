#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# catalog_readme.sh: monitor/README.md's counter table is the built-in catalog
# (monitor/catalog.tsv), row for row: counter, source, drivers, metric, unit, kind and
# the upstream file each row was checked against. Regenerate the table with
#   tests/integration/catalog_readme.sh --print
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"

table() {
	awk -F'\t' '
	BEGIN {
		print "| counter | via | driver | metric | unit | kind | checked against |"
		print "|---|---|---|---|---|---|---|"
	}
	/^#/ || NF < 6 { next }
	{
		ref = ""; n = NF
		for (i = 7; i <= NF; i++) if ($i ~ /^#/) { n = i - 1; ref = $i
			for (j = i + 1; j <= NF; j++) ref = ref " " $j; break }
		sub(/^# */, "", ref)
		kind = $6; if (n >= 7 && $7 == "32") kind = kind ", 32-bit"
		drv = $2 == "*" ? "any" : $2; gsub(/,/, ", ", drv)
		unit = $5 == "" ? "-" : $5
		gsub(/\|/, "\\|", ref)
		printf "| `%s` | %s | %s | `%s` | %s | %s | %s |\n", $3, $1, drv, $4, unit, kind, ref
	}' "$PFCLAB_ROOT/monitor/catalog.tsv"
}

if [ "${1:-}" = --print ]; then
	table
	exit 0
fi
plan 1
readme="$PFCLAB_ROOT/monitor/README.md"
got=$(sed -n '/<!-- catalog-table:begin -->/,/<!-- catalog-table:end -->/p' "$readme" | sed '1d;$d')
if [ -z "$got" ]; then
	fail catalog_readme "no table between the catalog-table markers in monitor/README.md"
elif diff -u <(table) <(printf '%s\n' "$got") >"${TMPDIR:-/tmp}/catalog_readme.$$.diff"; then
	ok "catalog_readme: monitor/README.md lists the $(table | tail -n +3 | wc -l) catalog rows"
else
	fail catalog_readme "monitor/README.md's table differs from catalog.tsv (- catalog, + README); regenerate with $0 --print"
	cat "${TMPDIR:-/tmp}/catalog_readme.$$.diff" >&2
fi
rm -f "${TMPDIR:-/tmp}/catalog_readme.$$.diff"
finish
