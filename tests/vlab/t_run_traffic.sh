#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_run_traffic.sh (vlab guest): a real traffic run through `pfclab run`: the local
# launcher, host a = rxe0/va, host b = rxe1/vb, two points of bidirectional 64 KiB / 4 KiB
# pfclab traffic with monitor and capture on both ends. The summary must show throughput
# in both directions for each point, every point valid; the folder goes back to the host
# (h_run_traffic.sh makes the plots there). Then a server that cannot start (no such
# device): its client is stopped at once and the server's error line is in status.json.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 5

name=run-traffic
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary"; finish; }
cat >"$VLAB_OUT/exp.yaml" <<EXP
name: vlab-traffic
launcher: local
hosts:
  a: {addr: $VLAB_IP_A, rdma: $VLAB_DEV_A, netdev: $VLAB_IF_A}
  b: {addr: $VLAB_IP_B, rdma: $VLAB_DEV_B, netdev: $VLAB_IF_B}
monitor: {interval: 100ms}
capture: {mode: roce}
sweep:
  size: [64K, 4K]
phases:
  - name: bidir
    traffic: {from: b, to: a, bidirectional: true, size: "\${size}", duration: 2s}
EXP
"$PFCLAB" run --no-plots -q --out "$VLAB_OUT/run" "$VLAB_OUT/exp.yaml" >"$VLAB_OUT/run.out" 2>&1
rc=$?
s=$VLAB_OUT/run/summary.json
if [ $rc -eq 0 ] && [ "$(jq .repetitions_valid "$s")" = 2 ]; then
	ok "$name: pfclab run exits 0, both points valid"
else
	fail "$name: pfclab run" "exit $rc: $(tail -n 3 "$VLAB_OUT/run.out" | tr '\n' ' ')"
fi
for p in 0 1; do
	# rxe under TCG moves 0.03..0.5 Gb/s each way (notes/vlab.md); anything above 1 Mb/s
	# and below 10 Gb/s is traffic that really ran
	set -- $(jq -r ".points[$p].repetitions[0].throughput_gbps.bidir | [.[\"b->a\"], .[\"a->b\"]] | @tsv" "$s")
	if awk -v x="${1:-0}" -v y="${2:-0}" 'BEGIN { exit !(x > 0.001 && x < 10 && y > 0.001 && y < 10) }'; then
		ok "$name: p00$p throughput b->a $1 Gb/s, a->b $2 Gb/s"
	else
		fail "$name: p00$p throughput" "b->a '${1:-}' a->b '${2:-}'"
	fi
done
# both traffic processes' JSON lines, and the RoCEv2 packets captured on va reviewed
r=$VLAB_OUT/run/points/p000/rep0
n=$(cat "$r/a/traffic.jsonl" "$r/b/traffic.jsonl" | jq -s '[.[] | select(.type == "summary")] | length')
roce=$(jq '.kinds.roce' "$r/a/review.json")
if [ "$n" = 2 ] && [ "${roce:-0}" -gt 100 ] && [ "$(jq '.interfaces[0].kernel_drops' "$r/a/capture.json")" = 0 ]; then
	ok "$name: traffic.jsonl holds both summaries; capture on va reviewed ($roce RoCEv2 packets, 0 drops)"
else
	fail "$name: traffic.jsonl / review" "summaries $n, roce ${roce:-n/a}"
fi
# the server on a gets a device that is not there: it fails at once, the client on b is
# stopped rather than retrying for its 10 s --timeout, and a's own words are kept
sed -e "s/rdma: $VLAB_DEV_A,/rdma: nodev9,/" -e 's/size: \[64K, 4K\]/size: [64K]/' \
	"$VLAB_OUT/exp.yaml" >"$VLAB_OUT/fail.yaml"
"$PFCLAB" run --no-plots -q --out "$VLAB_OUT/fail" "$VLAB_OUT/fail.yaml" >"$VLAB_OUT/fail.out" 2>&1
rc=$?
st=$VLAB_OUT/fail/points/p000/rep0/status.json
ms=$(jq '.phases[0] | (.traffic_end_s - .start_s) * 1000 | floor' "$st" 2>/dev/null)
sel='.errors[] | select(.file == "traffic-bidir-server-b.err")'
e0=$(jq -r "$sel"' | "\(.host) \(.failure)"' "$st" 2>/dev/null)
msg=$(jq -r "$sel"' | .message // empty' "$st" 2>/dev/null)
if [ $rc -eq 1 ] && [ "${ms:-99999}" -lt 5000 ] && [[ $e0 == "a exit status "* ]] &&
	[[ $msg == "pfclab traffic: "* ]] && grep -qF "error  host a, traffic-bidir-server-b.err" "$VLAB_OUT/fail.out" &&
	[ "$(jq '.errors | length' "$r/status.json")" = 0 ]; then
	ok "$name: a server without its device: traffic over in $ms ms, its error kept ('$msg')"
else
	fail "$name: failing server" "exit $rc, traffic $ms ms; the server's error '$e0' '$msg'"
fi
finish
