#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# h_run_traffic.sh (host): plots of the run t_run_traffic.sh recorded in the guest, made
# here with `pfclab run --report`: gnuplot exits 0 and the throughput data holds both
# directions.
source "$(dirname "$0")/../lib.sh"
plan 1

name=run-traffic-report
dir=$VLAB_RESULT/run
[ -d "$dir" ] || { fail $name "no results folder from the guest"; finish; }
need_cmd $name gnuplot || finish
if "$PFCLAB" run --report "$dir" >"$VLAB_RESULT/report.out" 2>&1 && [ -s "$dir/plots/p000-rep0.png" ] &&
	[ -s "$dir/plots/sweep-throughput.png" ] &&
	grep -q '^# series a->b bidir' "$dir/plots/data/p000-rep0-throughput.dat" &&
	grep -q '^# series b->a bidir' "$dir/plots/data/p000-rep0-throughput.dat"; then
	ok "$name: --report here makes the plots of a run recorded in the guest (both directions)"
else
	fail "$name" "$(tail -n 3 "$VLAB_RESULT/report.out" | tr '\n' ' ')"
fi
finish
