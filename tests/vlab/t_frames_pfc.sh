#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_frames_pfc.sh (vlab guest): the PFC loop on a real virtual wire. With the impaired
# link (htb at 100 Mbit/s), RDMA WRITEs from rxe0 build a backlog in va's egress qdisc;
# `pfclab inject pfc-on-backlog` on vb watches that backlog as a switch watches its
# buffer and sends PFC XOFF for priority 3 back toward the sender when it passes
# --xoff-bytes, XON once it falls under --xon-bytes. A capture on va (where the sender
# sits) must hold exactly the XOFF and XON frames the watcher reports, and review must
# count the XOFF->XON transitions and a paused time. veth does not obey PAUSE, so the
# traffic itself is not held back: this shows the signalling, not its effect.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 4

name=frames_pfc
SIZE=65536 ITERS=60
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary"; finish; }
# ib_write_bw server on rxe1, client on rxe0: the data leaves through va. QP timeout
# 2^18 * 4 us = 1.07 s, longer than the impaired link's queue can hold (0.32 s; see
# t_frames_cnp.sh)
bw_run() { vlab_write_bw "$VLAB_OUT/pfc" b -s $SIZE -n $ITERS -F -u 18; }

vlab_impair on 100mbit || { fail $name "impaired link set up"; finish; }
defer vlab_impair off
"$PFCLAB" capture -i "$VLAB_IF_A" -q --json -D 120s -w "$VLAB_OUT/pfc.pcap" \
	>"$VLAB_OUT/capture.json" 2>"$VLAB_OUT/capture.err" &
cpid=$!
defer kill $cpid
"$PFCLAB" inject -i "$VLAB_IF_B" pfc-on-backlog --qdisc-dev "$VLAB_IF_A" --prio 3 \
	--xoff-bytes 20000 --xon-bytes 5000 -D 120s >"$VLAB_OUT/sw.txt" 2>&1 &
spid=$!
defer kill $spid
for _ in $(seq 100); do grep -q listening "$VLAB_OUT/capture.err" && grep -q "PFC on" "$VLAB_OUT/sw.txt" && break; sleep 0.1; done
sleep 0.5
bw_run
rc=$?
if [ $rc -eq 0 ] && [ -n "$(sed -n '/BW average/{n;p}' "$VLAB_OUT/pfc-client.txt")" ]; then
	ok "$name: perftest through the impaired link"
else
	fail "$name: perftest through the impaired link" "rc $rc: $(grep -h -i 'status\|error\|fail' "$VLAB_OUT"/pfc-*.txt | head -n 4 | tr '\n' ' ')"
fi
tc -s qdisc show dev "$VLAB_IF_A" >"$VLAB_OUT/qdisc.txt" 2>&1
sleep 0.5
kill -INT $spid
wait $spid
sleep 0.2
kill -INT $cpid
wait $cpid
# paused time from the quanta at the impaired link's rate
"$PFCLAB" review --speed 100M "$VLAB_OUT/pfc.pcap" >"$VLAB_OUT/review.txt" 2>&1
"$PFCLAB" review --speed 100M --json "$VLAB_OUT/pfc.pcap" >"$VLAB_OUT/review.json" 2>"$VLAB_OUT/review.err"
cat "$VLAB_OUT/review.txt" "$VLAB_OUT/sw.txt"

# (no process substitution: the guest has no /dev/fd)
set -- $(awk '{ for (i = 1; i < NF; i++) { if ($i == "xoff_sent") a = $(i + 1)
	if ($i == "xon_sent") b = $(i + 1); if ($i == "max_backlog") m = $(i + 1) } } END { print a, b, m }' "$VLAB_OUT/sw.txt")
xoff=${1:-} xon=${2:-} maxb=${3:-}
set -- $(jq -r '.pause.priorities[] | select(.priority == 3) | "\(.xoff) \(.xon) \(.pauses) \(.paused_s)"' \
	"$VLAB_OUT/review.json")
cxoff=${1:-} cxon=${2:-} trans=${3:-} paused=${4:-}
drops=$(jq '.interfaces[0].kernel_drops' "$VLAB_OUT/capture.json")
echo "xoff=$xoff xon=$xon max_backlog=$maxb captured xoff=$cxoff xon=$cxon pauses=$trans paused_s=$paused drops=$drops" |
	tee "$VLAB_OUT/summary.txt"

if [ "${xoff:-0}" -ge 1 ] && [ "${xon:-0}" -ge 1 ]; then
	ok "$name: the watcher saw the backlog reach ${maxb:-?} B and sent $xoff XOFF, $xon XON"
else
	fail "$name: XOFF and XON sent" "$(tail -n 1 "$VLAB_OUT/sw.txt")"
fi
if [ "${xoff:-0}" -ge 1 ] && [ "$cxoff $cxon" = "$xoff $xon" ] && [ "${drops:-1}" = 0 ]; then
	ok "$name: capture on $VLAB_IF_A holds exactly those $xoff XOFF and $xon XON frames, 0 drops"
else
	fail "$name: PFC frames in the capture" "captured '$cxoff $cxon', sent '$xoff $xon', drops ${drops:-n/a}"
fi
# every pause starts with an XOFF: 1 <= pauses <= XOFF frames; the paused time lies
# within the capture's span plus one last XOFF's quanta (at most 0xffff at 100 Mbit/s,
# 0.34 s)
span=$(jq '.last_s - .first_s' "$VLAB_OUT/review.json")
if [ "${trans:-null}" != null ] && [ "$trans" -ge 1 ] && [ "$trans" -le "${cxoff:-0}" ] &&
	awk -v p="${paused:-null}" -v s="${span:-0}" 'BEGIN { exit !(p != "null" && p > 0 && p <= s + 0.336) }'; then
	ok "$name: review reports $trans pauses (XOFF->XON) and $paused s paused on priority 3"
else
	fail "$name: review of the PFC capture" "$(jq -c '.pause' "$VLAB_OUT/review.json" | head -c 300)"
fi
finish
