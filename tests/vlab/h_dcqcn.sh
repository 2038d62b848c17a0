#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# h_dcqcn.sh (host): replays the reaction point's log that t_dcqcn.sh brought back from
# the vlab through the reference model of tests/unit/test_link_dcqcn.c (written apart
# from pfclab's RP): fed each QP's CNP arrival times and byte-counter expiries as
# pfclab's RP saw them, every cut and increase must come at the same time with the rates
# within 1%. Also draws the QPs' rates and the CNPs (dcqcn-rate.png) where gnuplot is.
source "$(dirname "$0")/../lib.sh"
plan 2

name=dcqcn_replay
d=${VLAB_RESULT:-}
bin=$PFCLAB_ROOT/build/tests/test_link_dcqcn
[ -x "$bin" ] || { skip $name "no $bin (make unit)"; skip dcqcn_plot "no replay"; finish; }
need_cmd $name jq || { skip dcqcn_plot "no jq"; finish; }
# trace TAG: the RP log of port va in the replay's form
trace() {
	jq -r 'select(.port == "va") |
		if .event == "dcqcn_params" then
			"P \(.line_bps) \(.min_bps) \(.ai_bps) \(.hai_bps) \(.first_bps) \(.time_reset_ns) \(.byte_reset) \(.threshold) \(.min_dec_fac) \(.g) \(.alpha_ns) \(.initial_alpha) \(.rrmp_ns) \(.clamp_tgt)"
		elif (.event | startswith("rp_")) and .rc_bps != null then
			"E \(.mono_ns) \(.qpn) \({"rp_cnp": "cnp", "rp_cut": "cut", "rp_fast_recovery": "fr", "rp_additive": "ai", "rp_hyper": "hai"}[.event]) \(.by // "-") \(.rc_bps) \(.rt_bps)"
		else empty end' "$1"
}
out= bad= n=0
for tag in on inc; do
	f=$d/$tag.jsonl
	[ -f "$f" ] || continue
	trace "$f" >"$d/$tag.trace"
	r=$(DCQCN_TRACE=$d/$tag.trace "$bin" 2>&1)
	rc=$?
	out+="$tag: $(tr '\n' ' ' <<<"$r")"
	n=$((n + 1))
	[ $rc = 0 ] || bad+=" $tag"
done
if [ "$n" = 0 ]; then skip $name "no on.jsonl or inc.jsonl in ${d:-VLAB_RESULT}"
elif [ -z "$bad" ]; then ok "$name: the reference model replays the RP's log: $out"
else fail "$name" "$out"; fi

# the plot: each QP's rate (the RP's RC) and the CNPs it handled, run 3 and the incast
if ! command -v gnuplot >/dev/null || [ ! -f "$d/on.trace" ]; then
	skip dcqcn_plot "no gnuplot or no trace"
	finish
fi
for tag in on inc; do
	[ -f "$d/$tag.trace" ] || continue
	awk '$1 == "E" { if (!t0) t0 = $2; q = $3; if (!(q in seen)) { seen[q] = ++nq }
		printf "%d %.6f %.3f %s\n", seen[q], ($2 - t0) / 1e9, $6 / 1e6, $4 }' \
		"$d/$tag.trace" >"$d/$tag.dat"
done
drain=$(cat "$d/drain.txt" 2>/dev/null || echo 0)
gnuplot <<EOF 2>"$d/plot.err"
set terminal pngcairo size 1100,700
set output "$d/dcqcn-rate.png"
set multiplot layout 2,1
set title "DCQCN on the emulated link: one QP into a buffer drained at half the unconstrained rate"
set xlabel "s since the first CNP"; set ylabel "Mb/s (RP rate RC)"
plot "$d/on.dat" using 2:(\$1 == 1 ? \$3 : 1/0) with steps title "QP rate", \
     "$d/on.dat" using 2:(strcol(4) eq "cnp" ? 0 : 1/0) with points pt 7 ps 0.3 title "CNP handled", \
     $drain / 1e6 with lines dt 2 title "drain"
set title "incast 2 -> 1"
plot "$d/inc.dat" using 2:(\$1 == 1 ? \$3 : 1/0) with steps title "QP 1", \
     "$d/inc.dat" using 2:(\$1 == 2 ? \$3 : 1/0) with steps title "QP 2", \
     $drain / 2e6 with lines dt 2 title "drain / 2"
unset multiplot
EOF
if [ -s "$d/dcqcn-rate.png" ]; then ok "dcqcn_plot: $d/dcqcn-rate.png"
else fail dcqcn_plot "gnuplot: $(head -c 300 "$d/plot.err")"; fi
finish
