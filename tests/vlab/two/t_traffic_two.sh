#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_traffic_two.sh (vlab guest, two VMs): pfclab traffic between two hosts over the wire:
# VM b is the server, VM a the client, bidirectional 64 KiB; each side reports exactly the
# bytes both ways, and its rxe counters saw at least that many packets.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}/tests/lib.sh"
plan 2

need_cmd "two VMs: pfclab traffic" jq || finish
SIZE=65536 ITERS=100
MTU=$(ibv_devinfo -d "$VLAB_DEV" | awk '/active_mtu/ { print $2; exit }')
hw() { cat "/sys/class/infiniband/$VLAB_DEV/ports/1/hw_counters/$1"; }
tx=$(hw sent_pkts) re=$(hw completer_retry_err)
if [ "$VLAB_ROLE" = b ]; then
	timeout 180 "$PFCLAB" traffic -d "$VLAB_DEV" -x "$VLAB_GID" -b -s $SIZE -n $ITERS --json \
		--wait 150s >"$VLAB_OUT/server.out" 2>"$VLAB_OUT/server.err"
else
	# the client retries a refused connection until --timeout: the VMs boot at their own pace
	timeout 180 "$PFCLAB" traffic -d "$VLAB_DEV" -b -s $SIZE -n $ITERS --json --timeout 150s \
		"$VLAB_PEER_IP" >"$VLAB_OUT/client.out" 2>"$VLAB_OUT/client.err"
fi
rc=$?
out=$(ls "$VLAB_OUT"/*.out)
dtx=$(( $(hw sent_pkts) - tx )) dre=$(( $(hw completer_retry_err) - re ))
sum=$(jq -c 'select(.type == "summary") | [.tx.bytes, .rx.bytes]' "$out" 2>/dev/null)
want=$((SIZE * ITERS))
if [ $rc -eq 0 ] && [ "$sum" = "[$want,$want]" ]; then
	ok "two VMs ($VLAB_ROLE): pfclab traffic -b reports $want bytes each way"
else
	fail "two VMs ($VLAB_ROLE): pfclab traffic -b" "rc $rc summary $sum: $(tr '\n' ' ' <"${out%.out}.err")"
fi
# each side sends ITERS x ceil(SIZE/MTU) data packets and, for the peer's writes, an ACK
# per message or per 64 packets: at most 10 % more (+10 for the connection's first ones),
# and what it sent again: each retry this side counted (completer_retry_err: an ACK
# timeout or a NAK) resends at most the 64 packets Soft-RoCE keeps in flight on a QP
# (under tests/stall.sh a stopped VM outlasted the timeout: 7616 packets sent, 566 over)
wp=$(( (SIZE + MTU - 1) / MTU * ITERS ))
hi=$(( wp + wp / 10 + 10 + 64 * dre ))
if [ $dtx -ge $wp ] && [ $dtx -le $hi ]; then
	ok "two VMs ($VLAB_ROLE): rxe sent $dtx packets on the wire (data: $wp; $dre retries)"
else
	fail "two VMs ($VLAB_ROLE): rxe sent packets" "sent_pkts $dtx outside [$wp, $hi] ($dre retries)"
fi
finish
