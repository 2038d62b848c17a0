#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# deps.sh (host): the tree keeps to the include table tests/deps/allowed.txt, and the
# checker does fail on a forbidden edge: monitor/ including a traffic/ header, traffic/
# including a lab/ header, lib/ including a monitor/ header, lab/ including a monitor .c
# file, and the dashboard including the runner's experiment parser (it reads an
# experiment's hosts through lib/exphosts.h); and it fails on an include cycle between
# sibling folders (monitor/frames including monitor/sources, which includes it back).
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 7
check=$PFCLAB_ROOT/tests/deps/check.sh

if out=$("$check" "$PFCLAB_ROOT" 2>&1); then ok "deps: the tree keeps to tests/deps/allowed.txt"
else fail "deps: the tree keeps to tests/deps/allowed.txt" "$(head -n 3 <<<"$out" | tr '\n' ' ')"; fi

# Each forbidden edge on a copy of just the including file and the included one: the
# checker charges includes it cannot find to build/gen, so nothing else is needed.
copy=$(mktemp -d)
defer rm -rf "$copy"
while IFS='|' read -r file inc want; do
	rm -rf "$copy"/* && mkdir -p "$copy/$(dirname "$file")" "$copy/$(dirname "$inc")"
	cp "$PFCLAB_ROOT/$file" "$copy/$file" && cp "$PFCLAB_ROOT/$inc" "$copy/$inc"
	printf '#include "%s"\n' "$inc" >>"$copy/$file"
	out=$("$check" "$copy" 2>&1); rc=$?
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
monitor/top/top.c|scripts/run/exp.h|monitor may not include scripts/run/exp.h
EOF2

# A cycle between sibling folders, each include allowed by the table: monitor/sources'
# frames source includes the capture engine; the engine including sources.h back closes it.
rm -rf "$copy"/* && mkdir -p "$copy/monitor/sources" "$copy/monitor/frames"
for f in monitor/sources/src_frames.c monitor/sources/sources.h monitor/frames/capture_engine.c \
	monitor/frames/capture_engine.h; do cp "$PFCLAB_ROOT/$f" "$copy/$f"; done
printf '#include "%s"\n' monitor/sources/sources.h >>"$copy/monitor/frames/capture_engine.c"
out=$("$check" "$copy" 2>&1); rc=$?
if [ $rc -eq 1 ] && [ "$(grep -c ': include cycle between sibling folders: monitor/\(frames\|sources\) includes' <<<"$out")" -eq 2 ] &&
	[ "$(wc -l <<<"$out")" -eq 2 ]; then
	ok "deps: an include cycle between monitor/frames and monitor/sources is refused"
else
	fail "deps: an include cycle between sibling folders is refused" "rc $rc: $(head -n 2 <<<"$out" | tr '\n' ' ')"
fi
finish
