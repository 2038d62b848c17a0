#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# review_vs_tshark.sh: pfclab review against tshark computing the same summary (frames
# per kind, PFC frames and quanta per priority, CNPs per (source, dest QP), CE per
# RoCEv2 flow) on one >= 1 GB pcap made locally with pfclab inject; the two tools'
# counts must agree (exit 1 when they do not). The file lives in
# the build folder (git-ignored); both tools read it from the page cache.
#   BENCH_PCAP_MB (default 1100) sets the size (the file is named after it), BENCH_RUNS
#   (default 3) the rounds, BENCH_TSHARK=0 leaves tshark out (a memory check on a 4 GB
#   file: BENCH_PCAP_MB=4100 BENCH_TSHARK=0).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
PFCLAB=${PFCLAB:-$root/pfclab}
name=review_vs_tshark
command -v tshark >/dev/null || { echo "BENCH $name: skipped (tshark not installed)"; exit 0; }
[ -x "$PFCLAB" ] || { echo "BENCH $name: skipped (no pfclab at $PFCLAB)"; exit 0; }
dir=$root/$build/bench
mkdir -p "$dir"
mb=${BENCH_PCAP_MB:-1100}
pcap=$dir/review-1g.pcap
[ "$mb" = 1100 ] || pcap=$dir/review-${mb}m.pcap
n_roce=$((mb * 1000000 / 1100))

if [ ! -f "$pcap" ] || [ "$(stat -c %s "$pcap")" -lt $((mb * 1000000)) ]; then
	i="$PFCLAB inject --quiet -w $pcap"
	$i roce --src-ip 10.0.0.1 --dst-ip 10.0.0.2 --qp 0x40 --ce-every 10 --len 1024 \
		-r 10000000 -c "$n_roce" || exit 1
	$i --append --start 1700000001 cnp --src-ip 10.0.0.2 --dst-ip 10.0.0.1 --qp 0x1000 \
		--qp-step 1 --qp-count 1000 -r 1000000 -c 100000 || exit 1
	$i --append --start 1700000002 cnp --src-ip 10.0.0.3 --dst-ip 10.0.0.1 --qp 0x2000 \
		-r 100000 -c 100000 || exit 1
	$i --append --start 1700000003 pfc --prio 3 --quanta 0xffff -r 1000000 -c 50000 || exit 1
	$i --append --start 1700000004 pfc --prio 3 --quanta 0 -r 1000000 -c 5000 || exit 1
fi
size=$(stat -c %s "$pcap")
cat "$pcap" >/dev/null # page cache, for both tools alike

runs=${BENCH_RUNS:-3}
for run in $(seq "$runs"); do
	t0=$(date +%s.%N)
	/usr/bin/time -f "%U %S %M" -o "$dir/review.time" \
		"$PFCLAB" review --json "$pcap" >"$dir/review.json" || exit 1
	t1=$(date +%s.%N)
	if [ "${BENCH_TSHARK:-1}" = 1 ]; then
		/usr/bin/time -f "%U %S" -o "$dir/tshark.time" \
			tshark -r "$pcap" -T fields -E separator=/t -E occurrence=f \
			-e macc.opcode -e macc.cbfc.enbv -e macc.pause_time \
			-e macc.cbfc.pause_time.c0 -e macc.cbfc.pause_time.c1 -e macc.cbfc.pause_time.c2 \
			-e macc.cbfc.pause_time.c3 -e macc.cbfc.pause_time.c4 -e macc.cbfc.pause_time.c5 \
			-e macc.cbfc.pause_time.c6 -e macc.cbfc.pause_time.c7 \
			-e infiniband.bth.opcode -e infiniband.bth.destqp -e ip.src -e ip.dst \
			-e ip.dsfield.ecn 2>/dev/null |
		awk -F'\t' '
			$1 == "0x0001" { pause++; pq += $3 }
			function hex(s,   i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
				for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v }
			$1 == "0x0101" { pfc++; en = hex($2); for (p = 0; p < 8; p++) if (int(en / 2 ^ p) % 2) { pf[p]++; qs[p] += $(4 + p) } }
			$12 == "129" { cnp[$14 " " $13]++; ncnp++ }
			$12 != "" && $12 != "129" { roce[$14 " " $15 " " $13]++; nroce++; if ($16 == 3) { ce[$14 " " $15 " " $13]++; nce++ } }
			END { printf "pause %d pfc %d pfc3_quanta %.0f cnp %d cnp_pairs %d roce %d ce %d flows %d\n",
				pause, pfc, qs[3], ncnp, length(cnp), nroce, nce, length(roce) }' \
			>"$dir/tshark.txt" || exit 1
	fi
	t2=$(date +%s.%N)
	read -r ucpu scpu rss <"$dir/review.time"
	tcpu=0
	[ "${BENCH_TSHARK:-1}" = 1 ] && tcpu=$(awk '{ print $1 + $2 }' "$dir/tshark.time")
	# pfclab's CPU time beside the wall time: on a shared host the wall time also holds
	# the time the process waited for a CPU.
	awk -v s="$size" -v a="$t0" -v b="$t1" -v c="$t2" -v n="$name" -v r="$run" \
		-v u="$ucpu" -v k="$scpu" -v m="$rss" -v ts="${BENCH_TSHARK:-1}" -v tc="$tcpu" 'BEGIN {
		p = s / 1e6 / (b - a)
		printf "BENCH %s run %d: pfclab %.0f MB/s (%.2f s wall, %.2f s CPU, %.0f MB/s per CPU second, max RSS %.1f MiB)", n, r, p, b - a, u + k, s / 1e6 / (u + k), m / 1024
		if (ts == 1) { t = s / 1e6 / (c - b); printf ", tshark %.1f MB/s (%.1f s wall, %.1f s CPU), ratio %.1f wall, %.1f CPU (target >= 50)", t, c - b, tc, p / t, tc / (u + k) }
		printf "; %.2f GB pcap\n", s / 1e9 }'
done
[ "${BENCH_TSHARK:-1}" = 1 ] || exit 0
# both tools' counts must agree, or the speed comparison means nothing
jq -r '"pause \(.kinds.pause) pfc \(.kinds.pfc) pfc3_quanta \([.pause.priorities[] | select(.priority == 3) | .quanta] | add // 0) cnp \(.kinds.cnp) cnp_pairs \(.cnp | length) roce \(.kinds.roce) ce \([.ecn_flows[].ce] | add // 0) flows \(.ecn_flows | length)"' \
	"$dir/review.json" >"$dir/pfclab.txt"
echo "  pfclab: $(cat "$dir/pfclab.txt")"
echo "  tshark: $(cat "$dir/tshark.txt")"
if ! cmp -s "$dir/pfclab.txt" "$dir/tshark.txt"; then
	echo "BENCH $name: FAIL: pfclab and tshark counts disagree (above)"
	exit 1
fi
