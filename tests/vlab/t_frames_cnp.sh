#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_frames_cnp.sh (vlab guest): the DCQCN notification loop on a real virtual wire.
# With the impaired link (htb + RED/ECN) and `pfclab inject cnp-on-ce` acting as the
# notification point on vb, bidirectional perftest traffic sent ECT (--tclass=2) shows
# CE-marked RoCEv2 packets and CNPs in a `pfclab capture --roce` (all RoCEv2 headers)
# on va, and `pfclab review` reports the CNPs per QP: from 10.77.0.2 to the QP of
# rxe0's perftest endpoint. Soft-RoCE has no reaction point (no CNP handling), so the
# CNPs go to a MAC va does not own: they cross the veth and are captured on va, and
# va's IP stack drops them before rxe0 could take them for a request on its QP.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 4

name=frames_cnp
SIZE=65536 ITERS=100
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary"; finish; }
# ib_write_bw server on rxe0, client on rxe1, bidirectional, ECT(0). The link is 20 Mbit/s:
# RED marks only once its average queue passes 30000 B, and an emulated guest on a loaded
# host pushed as little as 40-50 Mbit/s, so a 100 Mbit/s link kept no standing queue and
# some runs saw no mark at all. The QP timeout is 4 us * 2^19 = 2.1 s: the queue (RED
# limit 4 MB at 20 Mbit/s) holds up to 1.6 s of packets, longer than perftest's default
# 2^14 (67 ms); with that default rxe times out, retransmits into the queue, sees
# duplicates and ends most runs with "remote invalid request"
# (tests/vlab/stress/rxe_repeat.sh measures it).
bw_run() { vlab_write_bw "$VLAB_OUT/cnp" a -s $SIZE -n $ITERS -b -F --tclass=2 -u 19; }

vlab_impair on 20mbit || { fail $name "impaired link set up"; finish; }
defer vlab_impair off
"$PFCLAB" capture -i "$VLAB_IF_A" --roce -q --json -D 120s -w "$VLAB_OUT/cnp.pcap" \
	>"$VLAB_OUT/capture.json" 2>"$VLAB_OUT/capture.err" &
cpid=$!
defer kill $cpid
"$PFCLAB" inject -i "$VLAB_IF_B" cnp-on-ce --dst-mac 02:00:00:00:00:99 -D 120s >"$VLAB_OUT/np.txt" 2>&1 &
npid=$!
defer kill $npid
for _ in $(seq 100); do grep -q listening "$VLAB_OUT/capture.err" && break; sleep 0.1; done
sleep 1
bw_run
rc=$?
tc -s qdisc show dev "$VLAB_IF_A" >"$VLAB_OUT/qdisc.txt" 2>&1
if [ $rc -eq 0 ] && [ -n "$(sed -n '/BW average/{n;p}' "$VLAB_OUT/cnp-client.txt")" ]; then
	ok "$name: bidirectional perftest on the impaired link"
else
	fail "$name: perftest on the impaired link" "rc $rc: $(grep -h -i 'status\|error\|fail' "$VLAB_OUT"/cnp-*.txt | head -n 4 | tr '\n' ' ')"
fi
sleep 1
kill -INT $npid $cpid
wait $npid $cpid
"$PFCLAB" review "$VLAB_OUT/cnp.pcap" >"$VLAB_OUT/review.txt" 2>&1
"$PFCLAB" review --json "$VLAB_OUT/cnp.pcap" >"$VLAB_OUT/review.json" 2>"$VLAB_OUT/review.err"
cat "$VLAB_OUT/review.txt" "$VLAB_OUT/np.txt"

qpn=$(awk '/local address/ { for (i = 1; i <= NF; i++) if ($i == "QPN") { print $(i + 1); exit } }' \
	"$VLAB_OUT/cnp-server.txt")
ce=$(jq '[.ecn_flows[].ce] | add // 0' "$VLAB_OUT/review.json")
cnp=$(jq '.kinds.cnp' "$VLAB_OUT/review.json")
sent=$(sed -n 's/.* cnp_sent \([0-9]*\).*/\1/p' "$VLAB_OUT/np.txt")
drops=$(jq '.interfaces[0].kernel_drops' "$VLAB_OUT/capture.json")
echo "qpn=$qpn ce=$ce cnp=$cnp sent=$sent drops=$drops" | tee "$VLAB_OUT/summary.txt"

# CE marks fall on RoCEv2 data packets: at least one, at most every one captured
roce=$(jq '.kinds.roce' "$VLAB_OUT/review.json")
if [ "${ce:-0}" -gt 0 ] && [ "$ce" -le "${roce:-0}" ]; then ok "$name: capture holds $ce CE-marked of $roce RoCEv2 packets"
else fail "$name: CE-marked packets in the capture" "$ce CE of ${roce:-n/a} RoCEv2 packets"; fi
if [ "${cnp:-0}" -gt 0 ] && [ "$cnp" = "$sent" ]; then
	ok "$name: capture holds all $cnp CNPs the notification point sent"
else
	fail "$name: CNPs in the capture" "captured ${cnp:-none}, sent ${sent:-none}, drops ${drops:-n/a}"
fi
# every CNP goes from the NP's address to the QP of rxe0's endpoint
per_qp=$(jq -r --argjson q "$(printf '%d' "${qpn:-0}")" \
	'[.cnp[] | select(.source == "10.77.0.2" and .dest_qp == $q) | .count] | add // 0' "$VLAB_OUT/review.json")
if [ "${per_qp:-0}" -gt 0 ] && [ "$per_qp" = "$cnp" ]; then
	ok "$name: review reports all $per_qp CNPs from 10.77.0.2 to QP $qpn of rxe0's endpoint"
else
	fail "$name: review CNPs per QP" "$(jq -c '.cnp' "$VLAB_OUT/review.json" | head -c 300), want QP $qpn"
fi
finish
