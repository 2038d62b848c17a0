#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_two_vm.sh (vlab guest, two VMs): true two-host RoCEv2. VM b runs the ib_write_bw
# server, VM a the client, across the QEMU socket link; both check their rxe counters.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}/tests/lib.sh"
plan 1

SIZE=65536 ITERS=50
MTU=$(ibv_devinfo -d "$VLAB_DEV" | awk '/active_mtu/ { print $2; exit }')
# one way: ITERS x ceil(SIZE/MTU) data packets, plus perftest's own few (at most 10 % + 10),
# plus what was sent again: the server counts each packet it got twice (duplicate_request),
# the client each of its retries (completer_retry_err), which resends at most the 64
# packets Soft-RoCE keeps in flight on a QP (under tests/stall.sh a stopped VM outlasted
# the QP's timeout: 5006 packets each way where 3530 were allowed)
wp=$(( (SIZE + MTU - 1) / MTU * ITERS ))
extra=0
in_range() { [ "$1" -ge "$wp" ] && [ "$1" -le $(( wp + wp / 10 + 10 + extra )) ]; }
hw() { cat "/sys/class/infiniband/$VLAB_DEV/ports/1/hw_counters/$1"; }
tx=$(hw sent_pkts) rx=$(hw rcvd_pkts) dup=$(hw duplicate_request) re=$(hw completer_retry_err)
if [ "$VLAB_ROLE" = b ]; then
	timeout 120 ib_write_bw -d "$VLAB_DEV" -x "$VLAB_GID" -s $SIZE -n $ITERS -F \
		--report_gbits >"$VLAB_OUT/server.txt" 2>&1
	rc=$?
	drx=$(( $(hw rcvd_pkts) - rx )) extra=$(( $(hw duplicate_request) - dup ))
	if [ $rc -eq 0 ] && in_range $drx; then
		ok "two VMs: server received $drx packets over the wire ($extra duplicates)"
	else
		fail "two VMs: server received data" "rc=$rc rcvd_pkts=$drx, want [$wp, $(( wp + wp / 10 + 10 + extra ))] ($extra duplicates)"
	fi
else
	# wait for the peer's server to listen (the two VMs boot at their own pace): only a
	# refused connection is tried again
	for i in $(seq 60); do
		timeout 60 ib_write_bw -d "$VLAB_DEV" -x "$VLAB_GID" -s $SIZE -n $ITERS -F \
			--report_gbits "$VLAB_PEER_IP" >"$VLAB_OUT/client.txt" 2>&1 && break
		grep -q 'Unable to init the socket\|Couldn.t connect' "$VLAB_OUT/client.txt" || break
		sleep 1
	done
	dtx=$(( $(hw sent_pkts) - tx )) r=$(( $(hw completer_retry_err) - re )) extra=$(( 64 * r ))
	if grep -qE "^ *$SIZE +$ITERS " "$VLAB_OUT/client.txt" && in_range $dtx; then
		ok "two VMs: client wrote $((SIZE * ITERS)) bytes in $dtx packets ($r retries)"
	else
		fail "two VMs: client wrote data" "sent_pkts=$dtx, want [$wp, $(( wp + wp / 10 + 10 + extra ))] ($r retries); $(tail -n 2 "$VLAB_OUT/client.txt" | tr '\n' ' ')"
	fi
fi
finish
