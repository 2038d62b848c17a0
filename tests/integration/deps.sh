#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# deps.sh (host): the tree keeps to the include table tests/deps/allowed.txt, and the
# checker does fail on a forbidden edge: a copy of the tree with monitor/ including a
# traffic/ header, traffic/ including a lab/ header, and lab/ including a monitor .c file.
source "$(dirname "$0")/../lib.sh"
check=$PFCLAB_ROOT/tests/deps/check.sh

if out=$("$check" "$PFCLAB_ROOT" 2>&1); then ok "deps: the tree keeps to tests/deps/allowed.txt"
else fail "deps: the tree keeps to tests/deps/allowed.txt" "$(head -n 3 <<<"$out" | tr '\n' ' ')"; fi

copy=$(mktemp -d)
defer rm -rf "$copy"
(cd "$PFCLAB_ROOT" && git ls-files -co --exclude-standard pfclab.c lib traffic monitor lab scripts |
	tar -cf - -T - 2>/dev/null) | tar -xf - -C "$copy"
while IFS='|' read -r file inc want; do
	cp "$copy/$file" "$copy/$file.orig"
	printf '#include "%s"\n' "$inc" >>"$copy/$file"
	out=$("$check" "$copy" 2>&1); rc=$?
	mv "$copy/$file.orig" "$copy/$file"
	if [ $rc -eq 1 ] && grep -q -- "^$file:[0-9]*: $want" <<<"$out" && [ "$(wc -l <<<"$out")" -eq 1 ]; then
		ok "deps: $file including $inc is refused"
	else
		fail "deps: $file including $inc is refused" "rc $rc: $(head -n 2 <<<"$out" | tr '\n' ' ')"
	fi
done <<'EOF2'
monitor/monitor.c|traffic/verbs.h|monitor may not include traffic/verbs.h
traffic/conn.c|lab/doctor/doctor.h|traffic may not include lab/doctor/doctor.h
lib/util.c|monitor/mon.h|lib may not include monitor/mon.h
lab/doctor/doctor.c|monitor/catalog_data.c|lab includes monitor/catalog_data.c: only headers
EOF2
finish
