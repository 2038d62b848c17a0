#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_doctor_rxe.sh (vlab guest): 'pfclab doctor' on Soft-RoCE reports both rxe devices with
# port state, active MTU and their RoCEv2 GIDs (the veth addresses), PFC as not supported
# on the veth netdevs, and no GPU; its JSON form says the same. lab/qos refuses the veth
# (no DCB) before changing anything.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 13

out=$("$PFCLAB" doctor 2>&1)
rc=$?
echo "$out" >"$VLAB_OUT/doctor.txt"
"$PFCLAB" doctor --json >"$VLAB_OUT/doctor.json" 2>&1
echo "$out" | sed 's/^/# /'

if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then ok "doctor runs on rxe"; else fail "doctor runs on rxe" "exit $rc"; fi

for dev in "$VLAB_DEV_A" "$VLAB_DEV_B"; do
	echo "$out" | grep -q "^  OK    $dev  *virtual (no PCI function)" &&
		ok "doctor device $dev" || fail "doctor device $dev" "$(echo "$out" | grep " $dev" | head -n 3)"
	echo "$out" | grep -q "^  OK    $dev port 1  *state ACTIVE, link layer Ethernet" &&
		ok "doctor $dev port state" || fail "doctor $dev port state" "$(echo "$out" | grep "$dev port 1 " | head -n 2)"
	echo "$out" | grep -q "^  \(OK\|WARN\)  $dev port 1 mtu  *active MTU [0-9]" &&
		ok "doctor $dev mtu" || fail "doctor $dev mtu" "$(echo "$out" | grep "$dev port 1 mtu")"
done
echo "$out" | grep -q "$VLAB_DEV_A port 1 gids .*RoCEv2 GID.*=$VLAB_IP_A($VLAB_IF_A)" &&
	ok "doctor $VLAB_DEV_A RoCEv2 GID $VLAB_IP_A" ||
	fail "doctor $VLAB_DEV_A RoCEv2 GID $VLAB_IP_A" "$(echo "$out" | grep "gids")"
echo "$out" | grep -q "$VLAB_DEV_B port 1 gids .*RoCEv2 GID.*=$VLAB_IP_B($VLAB_IF_B)" &&
	ok "doctor $VLAB_DEV_B RoCEv2 GID $VLAB_IP_B" ||
	fail "doctor $VLAB_DEV_B RoCEv2 GID $VLAB_IP_B" "$(echo "$out" | grep "gids")"
echo "$out" | grep -q "^  WARN  $VLAB_IF_A pfc  *PFC not supported" &&
	ok "doctor PFC not supported on $VLAB_IF_A" ||
	fail "doctor PFC not supported on $VLAB_IF_A" "$(echo "$out" | grep pfc)"
echo "$out" | grep -q "^  FAIL  GPUs " && ok "doctor no GPU is a finding" ||
	fail "doctor no GPU is a finding" "$(echo "$out" | grep -A1 '^\[gpu\]')"
if jq -e --arg d "$VLAB_DEV_A" '.items[] | select(.section == "rdma" and .item == $d and .level == "OK")' \
	"$VLAB_OUT/doctor.json" >/dev/null 2>&1; then
	ok "doctor json on rxe"
else
	fail "doctor json on rxe" "$(head -c 300 "$VLAB_OUT/doctor.json")"
fi
if command -v dcb >/dev/null 2>&1; then
	"$PFCLAB_ROOT/lab/qos" --state-dir "$VLAB_OUT/qos-state" apply "$VLAB_IF_A" --prio 3 \
		>"$VLAB_OUT/qos.txt" 2>&1
	rc=$?
	[ "$rc" = 3 ] && grep -q 'no DCB support' "$VLAB_OUT/qos.txt" && [ ! -e "$VLAB_OUT/qos-state/$VLAB_IF_A.state" ] &&
		ok "qos refuses $VLAB_IF_A (no DCB), nothing changed" ||
		fail "qos refuses $VLAB_IF_A" "rc=$rc $(cat "$VLAB_OUT/qos.txt")"
else
	skip "qos refuses $VLAB_IF_A" "no dcb in the guest"
fi
finish
