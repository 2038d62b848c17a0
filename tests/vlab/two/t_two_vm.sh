#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_two_vm.sh (vlab guest, two VMs): true two-host RoCEv2. VM b runs the ib_write_bw
# server, VM a the client, across the QEMU socket link; both check their rxe counters.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}/tests/lib.sh"
plan 1

SIZE=65536 ITERS=50
MTU=$(ibv_devinfo -d "$VLAB_DEV" | awk '/active_mtu/ { print $2; exit }')
# one way: ITERS x ceil(SIZE/MTU) data packets, plus perftest's own few (at most 10 % + 10)
wp=$(( (SIZE + MTU - 1) / MTU * ITERS ))
in_range() { [ "$1" -ge "$wp" ] && [ "$1" -le $(( wp + wp / 10 + 10 )) ]; }
hw() { cat "/sys/class/infiniband/$VLAB_DEV/ports/1/hw_counters/$1"; }
tx=$(hw sent_pkts) rx=$(hw rcvd_pkts)
if [ "$VLAB_ROLE" = b ]; then
	timeout 120 ib_write_bw -d "$VLAB_DEV" -x "$VLAB_GID" -s $SIZE -n $ITERS -F \
		--report_gbits >"$VLAB_OUT/server.txt" 2>&1
	rc=$?
	drx=$(( $(hw rcvd_pkts) - rx ))
	if [ $rc -eq 0 ] && in_range $drx; then
		ok "two VMs: server received $drx packets over the wire"
	else
		fail "two VMs: server received data" "rc=$rc rcvd_pkts=$drx, want [$wp, $(( wp + wp / 10 + 10 ))]"
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
	dtx=$(( $(hw sent_pkts) - tx ))
	if grep -qE "^ *$SIZE +$ITERS " "$VLAB_OUT/client.txt" && in_range $dtx; then
		ok "two VMs: client wrote $((SIZE * ITERS)) bytes in $dtx packets"
	else
		fail "two VMs: client wrote data" "sent_pkts=$dtx, want [$wp, $(( wp + wp / 10 + 10 ))]; $(tail -n 2 "$VLAB_OUT/client.txt" | tr '\n' ' ')"
	fi
fi
finish
