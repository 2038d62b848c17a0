#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# inject_reactive.sh: the two reactive modes of pfclab inject on a veth pair between
# two namespaces made here.
#  1. cnp-on-ce: B learns A's QP from a packet B sends to A (through the qdisc, as
#     the stack sends RC ACKs; packets that bypass it skip the capture taps), then
#     answers each of N CE-marked RoCEv2 packets from A with a CNP to that QP; a
#     capture on A counts N CNPs from B's address to the learned QP (--cnp-gap 0: the
#     sender's pacing jitters, so no packet may be held back). A burst faster than
#     --cnp-gap is answered with fewer CNPs (rate limit per QP).
#  2. pfc-on-backlog: A's egress is a 1 Mbit/s tbf; a burst through it builds a
#     backlog; the watcher sends XOFF then XON for priority 3, and a capture on B sees
#     exactly the XOFF and XON frames the watcher reports.
source "$(dirname "$0")/../lib.sh"
plan 3

need_root inject_reactive || finish
need_cmd inject_reactive ip tc jq || finish
[ -x "$PFCLAB" ] || { skip inject_reactive "no pfclab binary at $PFCLAB"; finish; }
setup_ns NSA NSB || { fail inject_reactive "cannot create namespaces"; finish; }
ip -n "$NSA" link add pfra type veth peer name pfrb netns "$NSB" ||
	{ fail inject_reactive "cannot create a veth pair"; finish; }
ip -n "$NSA" link set pfra up && ip -n "$NSB" link set pfrb up
tmp=$(mktemp -d)
defer rm -rf "$tmp"
A() { ip netns exec "$NSA" "$@"; }
B() { ip netns exec "$NSB" "$@"; }
# What is signalled runs as 'ip netns exec' itself (it execs pfclab), not through A or B:
# $! of a function run in the background is a subshell, which ignores SIGINT.
wait_listening() { for _ in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

# 1. cnp-on-ce ---------------------------------------------------------------------
N=50
ip netns exec "$NSA" "$PFCLAB" capture -i pfra -q --json -D 20s -c $N -w "$tmp/cnp.pcap" >"$tmp/cap.json" 2>"$tmp/cap.err" &
cpid=$!
defer kill $cpid
ip netns exec "$NSB" "$PFCLAB" inject -i pfrb cnp-on-ce --cnp-gap 0 -D 20s >"$tmp/np.txt" 2>&1 &
npid=$!
defer kill $npid
wait_listening "$tmp/cap.err" listening && wait_listening "$tmp/np.txt" answering ||
	{ fail "inject_reactive: cnp-on-ce" "capture or notification point did not start"; finish; }
sleep 0.2
B "$PFCLAB" inject --quiet --via-qdisc -i pfrb roce --src-ip 10.9.0.2 --dst-ip 10.9.0.1 --qp 0x77 -c 1
sleep 0.2
A "$PFCLAB" inject --quiet -i pfra roce --ecn ce --src-ip 10.9.0.1 --dst-ip 10.9.0.2 --qp 0x55 \
	-c $N -r 1000
wait $cpid
kill -INT $npid
wait $npid
got=$("$PFCLAB" review --json "$tmp/cnp.pcap" | jq -r '.cnp[] | "\(.source) \(.dest_qp) \(.count)"')
sent=$(sed -n 's/.* cnp_sent \([0-9]*\).*/\1/p' "$tmp/np.txt")
if [ "$got" = "10.9.0.2 119 $N" ] && [ "$sent" = $N ]; then
	ok "inject_reactive: cnp-on-ce answered $N CE packets with CNPs to the learned QP 0x77"
else
	fail "inject_reactive: cnp-on-ce" "captured '$got' (want '10.9.0.2 119 $N'); $(cat "$tmp/np.txt" | tail -n 1)"
fi

ip netns exec "$NSB" "$PFCLAB" inject -i pfrb cnp-on-ce --cnp-gap 100ms -D 20s >"$tmp/np2.txt" 2>&1 &
npid=$!
defer kill $npid
wait_listening "$tmp/np2.txt" answering
B "$PFCLAB" inject --quiet --via-qdisc -i pfrb roce --src-ip 10.9.0.2 --dst-ip 10.9.0.1 --qp 0x77 -c 1
sleep 0.2
A "$PFCLAB" inject --quiet -i pfra roce --ecn ce --src-ip 10.9.0.1 --dst-ip 10.9.0.2 --qp 0x55 \
	-c 200 -r 20000
sleep 0.3
kill -INT $npid
wait $npid
read -r ce sent lim < <(awk '{ for (i = 1; i < NF; i++) { if ($i == "ce") c = $(i + 1)
	if ($i == "cnp_sent") s = $(i + 1); if ($i == "rate_limited") l = $(i + 1) } }
	END { print c, s, l }' "$tmp/np2.txt")
if [ "$ce" = 200 ] && [ "${sent:-0}" -ge 1 ] && [ "${sent:-0}" -le 3 ] && [ $((sent + lim)) = 200 ]; then
	ok "inject_reactive: cnp-on-ce rate limit (200 CE in 10 ms -> $sent CNPs at one per 100 ms)"
else
	fail "inject_reactive: cnp-on-ce rate limit" "$(tail -n 1 "$tmp/np2.txt")"
fi

# 2. pfc-on-backlog ----------------------------------------------------------------
tc -n "$NSA" qdisc add dev pfra root tbf rate 1mbit burst 4k limit 1mb ||
	{ fail "inject_reactive: pfc-on-backlog" "cannot add tbf"; finish; }
ip netns exec "$NSB" "$PFCLAB" capture -i pfrb -q --json -D 20s -w "$tmp/pfc.pcap" >"$tmp/cap2.json" 2>"$tmp/cap2.err" &
cpid=$!
defer kill $cpid
ip netns exec "$NSA" "$PFCLAB" inject -i pfra pfc-on-backlog --qdisc-dev pfra --xoff-bytes 20000 --xon-bytes 4000 \
	--prio 3 -d 20s >"$tmp/sw.txt" 2>&1 &
spid=$!
defer kill $spid
wait_listening "$tmp/cap2.err" listening && wait_listening "$tmp/sw.txt" "PFC on"
# 60 KB through 1 Mbit/s: the backlog passes 20000 B at once and drains in ~0.5 s
A "$PFCLAB" inject --quiet --via-qdisc -i pfra roce -c 60 --len 1000 -r 100000
for _ in $(seq 40); do
	[ "$(tc -n "$NSA" -s qdisc show dev pfra | awk '/backlog/ { print $2; exit }')" = 0b ] && break
	sleep 0.1
done
sleep 0.2
kill -INT $spid
wait $spid
kill -INT $cpid
wait $cpid
read -r xoff xon maxb < <(awk '{ for (i = 1; i < NF; i++) { if ($i == "xoff_sent") a = $(i + 1)
	if ($i == "xon_sent") b = $(i + 1); if ($i == "max_backlog") m = $(i + 1) } } END { print a, b, m }' "$tmp/sw.txt")
seen=$("$PFCLAB" review --json "$tmp/pfc.pcap" |
	jq -r '.pause.priorities[] | select(.priority == 3) | "\(.xoff) \(.xon)"')
if [ "${xoff:-0}" -ge 1 ] && [ "${xon:-0}" -ge 1 ] && [ "$seen" = "$xoff $xon" ]; then
	ok "inject_reactive: pfc-on-backlog (backlog up to $maxb B: $xoff XOFF, $xon XON, all on the wire)"
else
	fail "inject_reactive: pfc-on-backlog" "watcher '$(tail -n 1 "$tmp/sw.txt")', capture prio 3 xoff/xon '$seen'"
fi
finish
