#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo_story.sh DIR: make demo's verdict on a results folder of vlab-demo.yaml. Lays the
# points side by side (goodput, paused share, PFC frames sent, drops at the receive
# buffers, go-back-N counters, CNPs sent and handled), appends that table to
# DIR/summary.txt, writes DIR/story.tsv and DIR/plots/story.png (the points on one
# plot), and exits 1 naming what did not happen where the story did not show:
#   gpu-bar  PFC frames sent (a slow drain fills the buffer and fires PFC)
#   pfc-off  frames dropped at the buffers (the same drain without PFC is lossy)
#   dcqcn    CNPs handled (where the experiment has that point)
# Values that could not be read are n/a, never 0. Needs jq; the plot needs gnuplot.
set -uo pipefail
dir=${1:?usage: demo_story.sh RESULTS_DIR}
sum=$dir/summary.json
[ -r "$sum" ] || { echo "demo_story: no $sum (run 'pfclab run --report $dir' first)" >&2; exit 2; }
cal=$dir/calibration.json

# gbn REPDIR: the go-back-N counters of both hosts over the point (rxe's
# duplicate_request, out_of_seq_request and completer_retry_err: last - first sample)
gbn() {
	local f s=0 got=0 v
	for f in "$1"/*/monitor/samples.csv; do
		[ -r "$f" ] || continue
		v=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "rdma.duplicate_request" ||
			$i == "rdma.out_of_sequence" || $i == "rdma.retries") c[i] = 1; next }
			{ for (i in c) if ($i != "n/a" && $i != "") { if (!(i in a)) a[i] = $i; z[i] = $i } }
			END { n = 0; for (i in a) { s += z[i] - a[i]; n++ } if (n) print s; else print "n/a" }' "$f")
		[ "$v" = n/a ] && continue
		s=$((s + v)) got=1
	done
	[ $got = 1 ] && echo $s || echo n/a
}

rows=$(jq -r --slurpfile cal <(cat "$cal" 2>/dev/null || echo '{}') '
	def sum(f): [.[] | f | select(. != null)] | if length == 0 then null else add end;
	def mean(f): [.[] | f | select(. != null)] | if length == 0 then null else add / length end;
	def na: if . == null then "n/a" else . end;
	($cal[0].drain_bps // null) as $drain |
	.points[] | (.values.point // .label) as $name |
	(.repetitions | map(select(.valid)) | .[0] // .repetitions[0]) as $r |
	($r.hosts | [.[]]) as $h |
	[$name, .point, $r.repetition,
	 (if $name == "host" then "10000" elif $drain then ($drain / 1e6 * 100 | round / 100) else null end | na),
	 ([$r.throughput_gbps[]?[]?] | if length == 0 then null else add / length * 1000 * 100 | round / 100 end | na),
	 ($h | mean(.counters.paused_share_rx.prio3 // .capture.pfc.prio3.paused_share) |
	  if . == null then "n/a" else . * 1000 | round / 10 end),
	 ($h | sum(.counters.pfc_tx_frames.prio3 // .capture.pfc_frames) | na),
	 ($h | sum(.counters.discards) | na),
	 ($h | sum(.counters.cnp_sent) | na),
	 ($h | sum(.counters.cnp_handled) | na)] | @tsv' "$sum") || { echo "demo_story: $sum unreadable" >&2; exit 2; }

tsv=$dir/story.tsv
printf 'point\tdrain_mbps\tgoodput_mbps\tpaused_pct\tpfc_frames\tdrops\tgo_back_n\tcnp_sent\tcnp_handled\n' >"$tsv"
table="The story, point by point (both directions; PFC frames and drops summed over both ports):
  point     drain Mb/s  goodput Mb/s  paused  PFC frames   drops  go-back-N  CNPs sent/handled"
while IFS=$'\t' read -r name id rep drain good paused pfc drops cs ch; do
	g=$(gbn "$dir/points/$id/rep$rep")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$drain" "$good" "$paused" "$pfc" "$drops" "$g" "$cs" "$ch" >>"$tsv"
	table+=$(printf '\n  %-9s %10s %13s %6s%s %11s %7s %10s  %s/%s' "$name" "$drain" "$good" "$paused" \
		"$([ "$paused" = n/a ] || echo %)" "$pfc" "$drops" "$g" "$cs" "$ch")
done <<<"$rows"
printf '\n%s\n' "$table" >>"$dir/summary.txt"
printf '%s\n' "$table"

# One plot across the points: goodput, paused share, PFC frames and drops
if command -v gnuplot >/dev/null 2>&1 && mkdir -p "$dir/plots"; then
	gnuplot <<GP 2>"$dir/plots/story.err" || echo "demo_story: gnuplot failed (see $dir/plots/story.err)" >&2
set terminal pngcairo size 1000,700 noenhanced
set output '$dir/plots/story.png'
set datafile separator '\t'
set datafile missing 'n/a'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.8
set grid y
set key off
set multiplot layout 2,2 title 'make demo: the points side by side'
set title 'goodput (Mb/s, mean of the two directions)'
plot '$tsv' using 3:xtic(1) skip 1 lc rgb '#3060c0'
set title 'paused share (% of the point, priority 3)'
plot '$tsv' using 4:xtic(1) skip 1 lc rgb '#c04030'
set title 'PFC frames sent'
plot '$tsv' using 5:xtic(1) skip 1 lc rgb '#e08020'
set title 'frames dropped at the receive buffers'
plot '$tsv' using 6:xtic(1) skip 1 lc rgb '#505050'
unset multiplot
GP
fi

# The verdict
bad=()
col() { awk -F'\t' -v p="$1" -v c="$2" 'NR > 1 && $1 == p { print $c }' "$tsv"; }
pos() { [ -n "$1" ] && [ "$1" != n/a ] && awk -v x="$1" 'BEGIN { exit !(x > 0) }'; }
v=$(col gpu-bar 5); pos "$v" || bad+=("gpu-bar: no PFC frame sent (${v:-no such point}): the slow drain did not fill the buffer")
v=$(col pfc-off 6); pos "$v" || bad+=("pfc-off: no frame dropped at the buffers (${v:-no such point}): the lossy link did not overflow")
if grep -q '^dcqcn' "$tsv"; then
	v=$(col dcqcn 9); pos "$v" || bad+=("dcqcn: no CNP handled ($v): the reaction point did not act")
fi
if [ ${#bad[@]} -gt 0 ]; then
	printf 'demo: the story did not show: %s\n' "${bad[@]}" | tee -a "$dir/summary.txt" >&2
	exit 1
fi
echo "demo: the story showed: PFC fired at the slow drain, the lossy link dropped$(grep -q '^dcqcn' "$tsv" && echo ', DCQCN handled CNPs')" | tee -a "$dir/summary.txt"
