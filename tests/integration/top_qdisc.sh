#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# top_qdisc.sh: "pfclab top --qdisc" in a real terminal (tmux, 120x60) on a veth whose
# htb + pfifo is shaped to 8 bit/s: a burst of 12 datagrams sent while top runs shows in
# the Qdisc rows: the pfifo's drops total 6 and its backlog 5 packets of 1042 B (5.21k),
# exactly what tc -s qdisc reports.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../tmux.sh"
plan 3
name=top_qdisc
need_root $name || finish
need_cmd $name tmux ip tc || finish
setup_ns A || { fail $name "cannot create a namespace"; finish; }
ip -n "$A" link add name tqa type veth peer name tqb || { fail $name "veth"; finish; }
ip netns exec "$A" sysctl -qw net.ipv6.conf.tqa.disable_ipv6=1 net.ipv6.conf.tqb.disable_ipv6=1
ip -n "$A" addr add 10.97.0.1/24 dev tqa
ip -n "$A" link set tqa up && ip -n "$A" link set tqb up
ip -n "$A" neigh add 10.97.0.2 lladdr 02:00:00:00:97:02 dev tqa
ip netns exec "$A" tc qdisc add dev tqa root handle 1: htb default 10 r2q 1 &&
	ip netns exec "$A" tc class add dev tqa parent 1: classid 1:10 htb rate 8bit burst 1600 \
		cburst 1600 quantum 1600 &&
	ip netns exec "$A" tc qdisc add dev tqa parent 1:10 handle 10: pfifo limit 5 ||
	{ skip $name "this kernel lacks htb or pfifo"; finish; }
tmux_up 120 60 "env -i PATH=$PATH TERM=screen-256color LANG=C.UTF-8 ip netns exec $A $PFCLAB top -i tqa --qdisc -I 200ms" ||
	{ fail $name "tmux"; finish; }
if wait_for '^Qdisc' && wait_for ' tqa.10.drops '; then
	ok "$name: a Qdisc section with the pfifo's rows"
else
	fail "$name: Qdisc section" "$(screen | grep -v '^ *$' | tail -n 8 | tr '\n' '|')"
fi
ip netns exec "$A" bash -c 'for i in $(seq 12); do head -c 1000 /dev/zero > /dev/udp/10.97.0.2/9; done'
tcd=$(ip netns exec "$A" tc -s -j qdisc show dev tqa | jq '.[] | select(.handle == "10:") | .drops')
for _ in $(seq 50); do [ "$(cell tqa.10.drops 2)" = 6 ] && break; sleep 0.1; done
if [ "$(cell tqa.10.drops 2)" = 6 ] && [ "$tcd" = 6 ]; then
	ok "$name: drops total 6, as tc -s qdisc"
else
	fail "$name: drops" "top $(screen | grep 'tqa.10.drops'), tc $tcd"
fi
# labels are cut to the column: tqa.10.backlog_bytes and _packets both start the same
bl=$(screen | awk '$1 ~ /^tqa\.10\.backlog/ { print $2 }' | sort | tr '\n' ' ')
if [ "$bl" = "5 5.21k " ]; then
	ok "$name: backlog 5 packets, 5.21 kB"
else
	fail "$name: backlog" "'$bl'"
fi
finish
