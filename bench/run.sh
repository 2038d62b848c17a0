#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: runs every executable bench/*.sh. Each prints lines of the form
#   BENCH <name>: pfclab <figure> <unit>, <peer> <figure> <unit>, ratio <r> (target ...)
# from one run of both tools side by side. Benchmarks report; they never fail a build.
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
n=0
for b in bench/*.sh; do
	[ "$b" = bench/run.sh ] && continue
	[ -x "$b" ] || continue
	echo "== $b"
	"$b" || echo "BENCH $(basename "$b" .sh): did not complete (exit $?)"
	n=$((n + 1))
done
[ $n -gt 0 ] || echo "bench: no benchmarks yet"
