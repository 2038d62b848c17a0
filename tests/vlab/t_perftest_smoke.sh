#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_perftest_smoke.sh (vlab guest): perftest ib_write_bw bidirectional between rxe0 and
# rxe1 moves data; rxe's hw counters agree with the bytes perftest reports; a capture holds
# RoCEv2 RDMA WRITE packets; with the impaired link, ECT traffic collects CE marks.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 10

SIZE=65536 ITERS=100
MTU=$(ibv_devinfo -d "$VLAB_DEV_A" | awk '/active_mtu/ { print $2; exit }')

hw() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

# bw_run TAG EXTRA...: ib_write_bw server on rxe0, client on rxe1, bidirectional.
bw_run() {
	local tag=$1
	shift
	vlab_write_bw "$VLAB_OUT/$tag" a -s $SIZE -n $ITERS -b -F --report_gbits "$@"
}

# perftest's result row: "<bytes> <iterations> <peak> <avg> <Mpps>"
reported_bytes() { awk '$1 ~ /^[0-9]+$/ && NF >= 5 { print $1 * $2; exit }' "$1"; }

# 1. bidirectional data movement, counters vs reported bytes, capture of the WRITEs
tx0=$(hw "$VLAB_DEV_A" sent_pkts) rx0=$(hw "$VLAB_DEV_A" rcvd_pkts)
tx1=$(hw "$VLAB_DEV_B" sent_pkts) rx1=$(hw "$VLAB_DEV_B" rcvd_pkts)
dup0=$(hw "$VLAB_DEV_A" duplicate_request) dup1=$(hw "$VLAB_DEV_B" duplicate_request)
tcpdump -Z root -i "$VLAB_IF_A" -s 96 -w "$VLAB_OUT/roce.pcap" -U 'udp dst port 4791' \
	>"$VLAB_OUT/tcpdump.txt" 2>&1 &
tdpid=$!
sleep 1
if bw_run bidir; then ok "perftest bidirectional run"; else fail "perftest bidirectional run" "$(tail -n 3 "$VLAB_OUT"/bidir-*.txt | tr '\n' ' ')"; fi
sleep 1
kill -INT $tdpid; wait $tdpid
dtx0=$(( $(hw "$VLAB_DEV_A" sent_pkts) - tx0 )) drx0=$(( $(hw "$VLAB_DEV_A" rcvd_pkts) - rx0 ))
dtx1=$(( $(hw "$VLAB_DEV_B" sent_pkts) - tx1 )) drx1=$(( $(hw "$VLAB_DEV_B" rcvd_pkts) - rx1 ))
ddup0=$(( $(hw "$VLAB_DEV_A" duplicate_request) - dup0 )) ddup1=$(( $(hw "$VLAB_DEV_B" duplicate_request) - dup1 ))
bytes_s=$(reported_bytes "$VLAB_OUT/bidir-server.txt")
bytes_c=$(reported_bytes "$VLAB_OUT/bidir-client.txt")
# each direction carries ITERS writes of SIZE bytes in ceil(SIZE/MTU) packets; rxe adds
# an ACK per message or per 64 packets the other way
want=$(( (SIZE + MTU - 1) / MTU * ITERS ))
echo "mtu=$MTU reported server=$bytes_s client=$bytes_c want_pkts=$want" \
	"rxe0 sent=$dtx0 rcvd=$drx0 rxe1 sent=$dtx1 rcvd=$drx1 duplicates rxe0=$ddup0 rxe1=$ddup1" | tee "$VLAB_OUT/counters.txt"
if [ "$bytes_s" = $((SIZE * ITERS)) ] && [ "$bytes_c" = $((SIZE * ITERS)) ]; then
	ok "perftest reports $((SIZE * ITERS)) bytes each way"
else
	fail "perftest reports $((SIZE * ITERS)) bytes each way" "server=$bytes_s client=$bytes_c"
fi
# At most 10% more (the ACKs), plus the packets sent again that the receiving end counted
# as duplicates (duplicate_request, one per packet): a guest stopped by a busy host
# outlasts the QP's timeout, and the sender then resends all it had in flight (seen under
# tests/stall.sh: 786 more packets each way, 12%).
in_range() { [ "$1" -ge "$2" ] && [ "$1" -le $(( $2 + $2 / 10 + 10 + $3 )) ]; }
for pair in "rxe0-sent:$dtx0:$ddup1" "rxe0-rcvd:$drx0:$ddup0" "rxe1-sent:$dtx1:$ddup0" "rxe1-rcvd:$drx1:$ddup1"; do
	IFS=: read -r what v dup <<<"$pair"
	if in_range "$v" "$want" "$dup"; then ok "hw counter $what $v ~ $want packets ($dup sent again)"
	else fail "hw counter $what $v ~ $want packets" "outside [$want, $((want + want / 10 + 10 + dup))] ($dup duplicates received)"; fi
done
if [ "$dtx0" = "$drx1" ] && [ "$dtx1" = "$drx0" ]; then ok "sent on one end = received on the other"
else fail "sent on one end = received on the other" "rxe0 sent $dtx0 rxe1 rcvd $drx1; rxe1 sent $dtx1 rxe0 rcvd $drx0"; fi
# BTH opcode is the first byte after the UDP header: 0x06..0x0b are RC RDMA WRITE
nwr=$(tcpdump -r "$VLAB_OUT/roce.pcap" -nn 'udp[8] >= 6 and udp[8] <= 11' 2>/dev/null | wc -l)
if [ "$nwr" -ge $((2 * want)) ]; then ok "capture holds $nwr RDMA WRITE packets"
else fail "capture holds RDMA WRITE packets" "$nwr < $((2 * want))"; fi

# 2. impaired link: ECT(0) traffic through htb+RED collects CE marks. 20 Mbit/s, so that
#    a slow emulated guest still keeps a standing queue (see t_frames_cnp.sh)
vlab_impair on 20mbit || fail "impaired link set up"
tcpdump -Z root -i "$VLAB_IF_B" -s 64 -w "$VLAB_OUT/ecn.pcap" -U 'udp dst port 4791' \
	>"$VLAB_OUT/tcpdump-ecn.txt" 2>&1 &
tdpid=$!
sleep 1
# a shallow send queue keeps the backlog under the RED limit: CE marks, no tail drops;
# a QP timeout of 2^19 * 4 us = 2.1 s outlasts the queue (1.6 s; see t_frames_cnp.sh)
if bw_run ecn --tclass=2 -t 8 -u 19; then ok "perftest run on the impaired link"
else fail "perftest run on the impaired link" "$(grep -h -i 'status\|error\|fail' "$VLAB_OUT"/ecn-*.txt | head -n 4 | tr '\n' ' ')"; fi
sleep 1
kill -INT $tdpid; wait $tdpid
tc -s qdisc show >"$VLAB_OUT/qdisc.txt" 2>&1
vlab_impair off
ce=$(tcpdump -r "$VLAB_OUT/ecn.pcap" -nn 'ip[1] & 3 = 3' 2>/dev/null | wc -l)
ect=$(tcpdump -r "$VLAB_OUT/ecn.pcap" -nn 'ip[1] & 3 = 2' 2>/dev/null | wc -l)
echo "ce=$ce ect=$ect" >"$VLAB_OUT/ecn.txt"
if [ "$ce" -gt 0 ]; then ok "impaired link: $ce CE-marked packets ($ect ECT(0) unmarked)"
else fail "impaired link: CE-marked packets" "none among $ect ECT(0) packets"; fi
finish
