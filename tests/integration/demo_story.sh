#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo_story.sh: make demo's verdict (scripts/demo_story.sh) on hand-made results folders
# shaped as pfclab run writes them (summary.json, the monitor's samples.csv per host,
# calibration.json): the points side by side in summary.txt, story.tsv and story.png;
# exit 0 when PFC fired at gpu-bar and pfc-off dropped; exit 1 naming what did not
# happen otherwise; values that could not be read are n/a, not 0.
# runs beside the virtual lab
source "$(dirname "$0")/../lib.sh"
plan 6

need_cmd demo_story jq || finish
tmp=$(mktemp -d)
defer rm -rf "$tmp"

# mk DIR GPUBAR_PFC PFCOFF_DROPS: a results folder of three points
mk() {
	local d=$1 pfc=$2 drops=$3 p h
	mkdir -p "$d"
	echo '{"unconstrained_bps": 24000000, "drain_bps": 8455000, "wire_bps": 50000000}' >"$d/calibration.json"
	jq -n --argjson pfc "$pfc" --argjson drops "$drops" '
		def host(tx; share; disc): {counters: {pfc_tx_frames: {prio3: tx},
			paused_share_rx: {prio3: share}, discards: disc, cnp_sent: null, cnp_handled: null},
			capture: {pfc_frames: tx}};
		def pt(id; name; g; tx; share; disc): {point: id, label: ("point=" + name),
			values: {point: name}, repetitions: [{repetition: 0, valid: true,
			throughput_gbps: {bidir: {"a->b": g, "b->a": g}},
			hosts: {a: host(tx; share; disc), b: host(tx; share; disc)}}]};
		{points: [pt("p000"; "host"; 0.030; 0; 0; 0),
			  pt("p001"; "gpu-bar"; 0.0078; $pfc; 0.5; 0),
			  pt("p002"; "pfc-off"; 0.005; 0; 0; $drops)]}' >"$d/summary.json"
	for p in p000 p001 p002; do
		for h in a b; do
			mkdir -p "$d/points/$p/rep0/$h/monitor"
			printf 'seq,rdma.duplicate_request,rdma.out_of_sequence,rdma.retries\n1,10,n/a,1\n2,15,n/a,4\n' \
				>"$d/points/$p/rep0/$h/monitor/samples.csv"
		done
	done
	echo "vlab-demo: complete" >"$d/summary.txt"
}

mk "$tmp/good" 240 1500
"$PFCLAB_ROOT/scripts/demo_story.sh" "$tmp/good" >"$tmp/good.out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q 'the story showed' "$tmp/good.out"; then ok "demo_story: exit 0 where PFC fired and the lossy link dropped"
else fail "demo_story: a good run" "exit $rc: $(tr '\n' ' ' <"$tmp/good.out")"; fi
# the table: one row per point, summed over the two ports, go-back-N from the records
row=$(awk '$1 == "gpu-bar"' "$tmp/good/summary.txt")
if grep -q '^The story, point by point' "$tmp/good/summary.txt" &&
	[ "$(echo $row)" = "gpu-bar 8.46 7.8 50% 480 0 16 n/a/n/a" ]; then
	ok "demo_story: summary.txt ends with the points side by side (gpu-bar: $(echo $row))"
else fail "demo_story: the table in summary.txt" "gpu-bar row '$(echo $row)'"; fi
if [ "$(awk -F'\t' '$1 == "pfc-off" { print $6 "," $9 }' "$tmp/good/story.tsv")" = "3000,n/a" ]; then
	ok "demo_story: story.tsv: drops summed, CNPs n/a where not read"
else fail "demo_story: story.tsv" "$(cat "$tmp/good/story.tsv" | tr '\n' '|')"; fi
if ! command -v gnuplot >/dev/null 2>&1; then skip "demo_story: story.png" "no gnuplot"
elif [ -s "$tmp/good/plots/story.png" ] && [ "$(head -c 4 "$tmp/good/plots/story.png" | tail -c 3)" = PNG ]; then
	ok "demo_story: plots/story.png drawn ($(stat -c %s "$tmp/good/plots/story.png") bytes)"
else fail "demo_story: story.png" "$(cat "$tmp/good/plots/story.err" 2>/dev/null)"; fi

mk "$tmp/nopfc" 0 1500
"$PFCLAB_ROOT/scripts/demo_story.sh" "$tmp/nopfc" >"$tmp/nopfc.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q 'did not show: gpu-bar: no PFC frame sent' "$tmp/nopfc.out"; then
	ok "demo_story: no PFC at gpu-bar: exit 1, named"
else fail "demo_story: no PFC at gpu-bar" "exit $rc: $(tr '\n' ' ' <"$tmp/nopfc.out")"; fi
mk "$tmp/nodrop" 240 0
"$PFCLAB_ROOT/scripts/demo_story.sh" "$tmp/nodrop" >"$tmp/nodrop.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q 'pfc-off: no frame dropped' "$tmp/nodrop.out" &&
	grep -q 'did not show' "$tmp/nodrop/summary.txt"; then
	ok "demo_story: no drops at pfc-off: exit 1, named in summary.txt too"
else fail "demo_story: no drops at pfc-off" "exit $rc: $(tr '\n' ' ' <"$tmp/nodrop.out")"; fi
finish
