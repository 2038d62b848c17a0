#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# h_frames_cnp.sh (host): checks the capture t_frames_cnp.sh brought back from the vlab
# with tshark, which the guest lacks: the CNP count and their dest QPs, and the number
# of CE-marked RoCEv2 packets, must agree with pfclab review.
source "$(dirname "$0")/../lib.sh"
plan 1

name=frames_cnp_tshark
f=${VLAB_RESULT:-}/cnp.pcap
[ -f "$f" ] || { skip $name "no capture at $f"; finish; }
need_cmd $name tshark jq || finish
t=$(tshark -r "$f" -Y 'infiniband.bth.opcode == 129' -T fields -e infiniband.bth.destqp 2>/dev/null |
	sort | uniq -c | awk '{ printf "%s:%d ", $2, $1 }')
p=$("$PFCLAB" review --json "$f" | jq -r '.cnp | sort_by(.dest_qp)[] | "\(.dest_qp) \(.count)"' |
	while read -r q n; do printf '0x%06x:%d ' "$q" "$n"; done)
tce=$(tshark -r "$f" -Y 'udp.dstport == 4791 and ip.dsfield.ecn == 3' 2>/dev/null | wc -l)
pce=$("$PFCLAB" review --json "$f" | jq '[.ecn_flows[].ce] | add // 0')
if [ -n "$t" ] && [ "$t" = "$p" ] && [ "$tce" = "$pce" ]; then
	ok "$name: tshark and pfclab agree (CNPs per dest QP: $t; CE packets: $tce)"
else
	fail "$name" "tshark CNPs '$t' CE $tce; pfclab '$p' CE $pce"
fi
finish
