#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo_smoke.sh: `make demo`, the README's first command, as a person runs it: it exits 0
# and names a results folder that exists and holds files. Nothing else about the demo's
# content is assumed here (the tests of each part check that).
source "$(dirname "$0")/../lib.sh"
plan 2

need_root demo_smoke || finish
need_cmd demo_smoke make qemu-system-x86_64 || finish
tmp=$(mktemp -d)
defer rm -rf "$tmp"
cd "$PFCLAB_ROOT" || { fail demo_smoke "no $PFCLAB_ROOT"; finish; }
before=$(ls -d results/*/ 2>/dev/null | sort)
make demo >"$tmp/out" 2>&1
rc=$?
# folders the demo made are removed again: results/ belongs to the person running it
for d in $(comm -13 <(echo "$before") <(ls -d results/*/ 2>/dev/null | sort)); do
	defer rm -rf "$PFCLAB_ROOT/$d"
done
if [ $rc -eq 0 ]; then ok "make demo: exit 0"
else fail "make demo: exit 0" "exit $rc: $(tail -n 5 "$tmp/out" | tr '\n' '|')"; fi
# the last path it printed that lies under results/
p=$(grep -oE '[^ ()"]*results/[^ ()"]+' "$tmp/out" | tail -n 1)
[ -n "$p" ] && [ "${p#/}" = "$p" ] && p=$PFCLAB_ROOT/$p
if [ -n "$p" ] && [ -d "$p" ] && [ -n "$(ls -A "$p")" ]; then
	ok "make demo: printed its results folder ${p#"$PFCLAB_ROOT"/}, which holds $(find "$p" -type f | wc -l) files"
else
	fail "make demo: printed a results folder" "last results path printed: '${p:-none}'"
fi
finish
