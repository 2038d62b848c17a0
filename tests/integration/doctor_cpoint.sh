#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# doctor_cpoint.sh: pfclab doctor --congestion-point DEV in a namespace: a forwarding
# bridge port is OK, an interface neither bridged nor routed FAILs, a qdisc without ECN
# marking (tbf; this kernel has no RED) FAILs with a fix naming the interface and the
# root qdisc found there, and the exit status is 1; an empty name is a usage error (2).
# The OK side of the ECN check runs on a real RED in the virtual lab (t_qdisc_red.sh).
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 5

need_root doctor_cpoint || exit 0
need_cmd doctor_cpoint ip tc || exit 0
setup_ns A || { fail doctor_cpoint_setup "cannot create a namespace"; finish; }
ip -n "$A" link add cpbr type bridge &&
	ip -n "$A" link add name p1 type veth peer name p1x &&
	ip -n "$A" link add name q1 type veth peer name q1x || { fail doctor_cpoint_setup "links"; finish; }
ip -n "$A" link set p1 master cpbr
for l in cpbr p1 p1x q1 q1x; do ip -n "$A" link set "$l" up; done
ip netns exec "$A" tc qdisc add dev p1 root handle 1: tbf rate 1mbit burst 1600 limit 3000
ip netns exec "$A" sysctl -qw net.ipv4.ip_forward=0
# A bridge port without STP forwards once its link is up (a moment for the state).
for _ in $(seq 50); do
	[ "$(ip netns exec "$A" cat /sys/class/net/p1/brport/state)" = 3 ] && break
	sleep 0.1
done
out=$(ip netns exec "$A" "$PFCLAB" doctor --section cpoint --congestion-point p1 2>&1)
rc=$?
if grep -qE '^ +OK +p1 forwards +port of bridge cpbr, forwarding' <<<"$out"; then
	ok doctor_cpoint_bridge_forwards
else
	fail doctor_cpoint_bridge_forwards "$(tr '\n' ' ' <<<"$out")"
fi
# the fix names p1 and a place that exists: the root, in place of the tbf found there
if grep -qE '^ +FAIL +p1 ECN qdisc +no ECN-marking qdisc' <<<"$out" &&
	grep -qF "fix: pfclab run's bottleneck: block sets one up for each point; by hand: tc qdisc replace dev p1 root handle 10: red ... ecn (in place of tbf 1:), or add it under a class of tbf 1: ('tc class show dev p1' lists them)" <<<"$out" &&
	! grep -qw DEV <<<"$out"; then
	ok doctor_cpoint_no_ecn_qdisc
else
	fail doctor_cpoint_no_ecn_qdisc "$(tr '\n' ' ' <<<"$out")"
fi
check doctor_cpoint_exit_status test "$rc" -eq 1
out=$(ip netns exec "$A" "$PFCLAB" doctor --section cpoint --congestion-point q1 2>&1)
if grep -qE '^ +FAIL +q1 forwards +q1 is no bridge port and IPv4 forwarding is off' <<<"$out" &&
	grep -qF 'fix: make it a bridge port (ip link set q1 master BRIDGE) or route' <<<"$out" &&
	grep -qF 'by hand: tc qdisc replace dev q1 root handle 10: red ... ecn' <<<"$out"; then
	ok doctor_cpoint_not_forwarding
else
	fail doctor_cpoint_not_forwarding "$(tr '\n' ' ' <<<"$out")"
fi
# an empty or impossible name is a usage error, not an interface missing from the host
msgs=
for dev in "" "a/b" "0123456789abcdef"; do
	out=$(ip netns exec "$A" "$PFCLAB" doctor --congestion-point "$dev" 2>&1); rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" = 1 ] &&
		[[ $out == "pfclab doctor: --congestion-point '$dev': expected an interface name"* ]] ||
		msgs+="['$dev': rc $rc: $out] "
done
if [ -z "$msgs" ]; then ok doctor_cpoint_bad_name_usage
else fail doctor_cpoint_bad_name_usage "$msgs"; fi
finish
