#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# capture_veth.sh: a veth pair between two namespaces made here; pfclab inject sends N
# PAUSE, N PFC, N CNP and N CE-marked RoCEv2 frames on one end, pfclab capture on the
# other end must count exactly N of each, report zero kernel drops, and write a pcapng
# that pfclab review reads back with the same counts and the veth's link speed; a
# capture rotated by size spreads N frames over several files without losing one;
# `capture -i any` (Linux cooked, where libpcap filters know no `vlan`) takes tagged and
# untagged frames, and review reads its --ce pcapng as CE-only.
source "$(dirname "$0")/../lib.sh"
plan 4

name=capture_veth
N=${N:-1000}
need_root $name || finish
need_cmd $name ip jq || finish
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary at $PFCLAB"; finish; }
setup_ns NSA NSB || { fail $name "cannot create namespaces"; finish; }
ip link add pfca type veth peer name pfcb || { fail $name "cannot create a veth pair"; finish; }
defer ip link del pfca
ip link set pfca netns "$NSA" && ip link set pfcb netns "$NSB"
ip -n "$NSA" link set pfca up && ip -n "$NSB" link set pfcb up
tmp=$(mktemp -d)
defer rm -rf "$tmp"

ip netns exec "$NSB" "$PFCLAB" capture -i pfcb --ce -q --json -c $((4 * N)) -D 30s \
	--pcapng -w "$tmp/cap.pcap" >"$tmp/cap.json" 2>"$tmp/cap.err" &
cap=$!
defer kill "$cap"
for _ in $(seq 100); do grep -q listening "$tmp/cap.err" && break; sleep 0.1; done
grep -q listening "$tmp/cap.err" || { fail $name "capture did not start: $(cat "$tmp/cap.err")"; finish; }

inj() { ip netns exec "$NSA" "$PFCLAB" inject --quiet -i pfca -c "$N" -r 200000 "$@"; }
inj pause --quanta 100 && inj pfc --prio 3 --quanta 100 &&
	inj cnp --src-ip 10.9.0.2 --dst-ip 10.9.0.1 --qp 0x42 &&
	inj roce --ecn ce --src-ip 10.9.0.1 --dst-ip 10.9.0.2 --len 256 ||
	{ fail $name "inject failed"; finish; }
wait "$cap"
rc=$?
[ $rc -eq 0 ] || { fail $name "capture exit $rc: $(cat "$tmp/cap.err")"; finish; }

got=$(jq -r '"\(.kinds.pause) \(.kinds.pfc) \(.kinds.cnp) \(.kinds.roce) \(.pfc_frames_per_priority[3]) \(.interfaces[0].kernel_drops) \(.written)"' "$tmp/cap.json")
want="$N $N $N $N $N 0 $((4 * N))"
if [ "$got" = "$want" ]; then
	ok "$name: captured exactly $N of each kind, 0 drops"
else
	fail "$name" "pause pfc cnp roce pfc_p3 drops written = '$got', want '$want'"
fi
rev=$("$PFCLAB" review --json "$tmp/cap.pcap" |
	jq -r '"\(.kinds.pause) \(.kinds.pfc) \(.kinds.cnp) \(.kinds.roce) \(.ecn_flows[0].ce) \(.pause.speed_from)"')
if [ "$rev" = "$N $N $N $N $N capture" ]; then
	ok "$name: review of the written pcapng agrees (link speed from its metadata)"
else
	fail "$name: review" "pause pfc cnp roce ce speed_from = '$rev', want $N x5 and capture"
fi

# rotation by size: N PFC frames of 60 bytes into files of at least 16 KiB each
ip netns exec "$NSB" "$PFCLAB" capture -i pfcb -q --json -c "$N" -D 30s -C 16K \
	-w "$tmp/rot.pcap" >"$tmp/rot.json" 2>"$tmp/rot.err" &
cap=$!
defer kill "$cap"
for _ in $(seq 100); do grep -q listening "$tmp/rot.err" && break; sleep 0.1; done
inj pfc --prio 5 --quanta 7
wait "$cap"
files=$(ls "$tmp"/rot.pcap.* 2>/dev/null | wc -l)
sum=$("$PFCLAB" review --json "$tmp"/rot.pcap.* | jq '.kinds.pfc')
if [ "$files" -ge 3 ] && [ "$sum" = "$N" ]; then
	ok "$name: rotation by size wrote $files files holding all $N frames"
else
	fail "$name: rotation" "$files files, $sum frames in them (want >= 3 files, $N frames)"
fi

# -i any: the built-in filter without its `vlan` half; frames behind a tag still count
ip netns exec "$NSB" "$PFCLAB" capture -i any --ce -q --json -c 40 -D 30s --pcapng \
	-w "$tmp/any.pcapng" >"$tmp/any.json" 2>"$tmp/any.err" &
cap=$!
defer kill "$cap"
for _ in $(seq 100); do grep -q listening "$tmp/any.err" && break; sleep 0.1; done
ai() { ip netns exec "$NSA" "$PFCLAB" inject --quiet -i pfca -c 10 "$@"; }
ai pfc --prio 3 && ai pfc --prio 3 --vlan 100:3 && ai cnp --vlan 100:3 &&
	ai roce --ecn ect0 --vlan 7 && ai roce --ecn ce --vlan 7 ||
	{ fail $name "inject failed"; finish; }
wait "$cap"
rc=$?
got=$(jq -r '"\(.kinds.pfc) \(.kinds.cnp) \(.kinds.roce) \(.kinds.roce_ce)"' "$tmp/any.json" 2>/dev/null)
rev=$("$PFCLAB" review --json "$tmp/any.pcapng" 2>/dev/null |
	jq -r '"\(.kinds.pfc) \(.kinds.cnp) \(.kinds.roce) \(.files[0].ecn_filter)"')
if [ $rc -eq 0 ] && [ "$got" = "20 10 10 10" ] && [ "$rev" = "20 10 10 ce_only" ]; then
	ok "$name: capture -i any takes tagged and untagged frames; review reads it as CE-only"
else
	fail "$name: -i any" "exit $rc, pfc cnp roce ce '$got' (want '20 10 10 10'), review \
'$rev' (want '20 10 10 ce_only'): $(head -c 600 "$tmp/any.err")"
fi
finish
