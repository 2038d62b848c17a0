#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_qdisc.sh: pfclab monitor's qdisc source on a veth pair between two namespaces,
# against `tc -s qdisc` over the same window: an htb root with a pfifo child and a tbf,
# both shaped to 8 bit/s so what they queue stays queued (backlog and drops hold still
# once the UDP burst is in), the monitor recording across the burst; bytes, packets,
# drops, overlimits and backlog of the record's first and last sample equal tc's readings
# before and after. The same for tail drops of a tbf on the peer.
source "$(dirname "$0")/../lib.sh"
plan 6

need_root monitor_qdisc || exit 0
need_cmd monitor_qdisc ip tc jq awk || exit 0

tmp=$(mktemp -d)
defer rm -rf "$tmp"
setup_ns A || { fail monitor_qdisc_setup "cannot create a namespace"; finish; }

nsx() { ip netns exec "$A" "$@"; }

ip -n "$A" link add name qa type veth peer name qb || { fail monitor_qdisc_setup "veth"; finish; }
# No IPv6 neighbour discovery in the queues: the only packets are the test's.
nsx sysctl -qw net.ipv6.conf.qa.disable_ipv6=1 net.ipv6.conf.qb.disable_ipv6=1
ip -n "$A" addr add 10.98.0.1/24 dev qa
ip -n "$A" addr add 10.98.1.1/24 dev qb
ip -n "$A" link set qa up
ip -n "$A" link set qb up
# Static neighbours: an ARP request would wait in the shaped queue too.
ip -n "$A" neigh add 10.98.0.2 lladdr 02:00:00:00:98:02 dev qa
ip -n "$A" neigh add 10.98.1.2 lladdr 02:00:00:00:98:03 dev qb
setup_ok=1
nsx tc qdisc add dev qa root handle 1: htb default 10 r2q 1 || setup_ok=0
nsx tc class add dev qa parent 1: classid 1:10 htb rate 8bit burst 1600 cburst 1600 \
	quantum 1600 || setup_ok=0
nsx tc qdisc add dev qa parent 1:10 handle 10: pfifo limit 5 || setup_ok=0
nsx tc qdisc add dev qb root handle 2: tbf rate 8bit burst 1600 limit 3200 || setup_ok=0
if [ "$setup_ok" != 1 ]; then
	for t in htb_pfifo_backlog htb_pfifo_drops htb_overlimits tbf_drops tbf_backlog \
		 monitor_qdisc_names; do
		skip "$t" "this kernel lacks htb, pfifo or tbf"
	done
	finish
fi

# tc's numbers of every qdisc of a device, one line "handle key value".
tc_vals() {
	nsx tc -s -j qdisc show dev "$1" |
		jq -r '.[] | .handle as $h | ($h | rtrimstr(":")) as $n |
		       ["bytes","packets","drops","overlimits","backlog","qlen"][] as $k |
		       "\($n) \($k) \(.[$k])"'
}
# The same names in the record: the first or last sample of each qdisc metric.
rec_vals() { # DEV first|last
	local csv=$tmp/rec/samples.csv
	awk -F, -v dev="$1" -v which="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) name[i] = $i; next }
		which == "first" && NR > 2 { next }
		{ for (i = 1; i <= NF; i++) v[i] = $i }
		END {
			map["bytes"] = "bytes"; map["packets"] = "packets"; map["drops"] = "drops"
			map["overlimits"] = "overlimits"; map["backlog_bytes"] = "backlog"
			map["backlog_packets"] = "qlen"
			for (i = 1; i <= length(name); i++) {
				n = split(name[i], p, ".")
				if (n != 4 || p[1] != "qdisc" || p[2] != dev || !(p[4] in map))
					continue
				print p[3], map[p[4]], v[i]
			}
		}' "$csv"
}

before_qa=$(tc_vals qa | sort)
before_qb=$(tc_vals qb | sort)
ip netns exec "$A" "$PFCLAB" monitor -i qa --sources qdisc -I 50ms -q --record "$tmp/rec" 2>"$tmp/err" &
mon=$!
defer kill "$mon"
ip netns exec "$A" "$PFCLAB" monitor -i qb --sources qdisc -I 50ms -q --record "$tmp/recb" 2>"$tmp/errb" &
monb=$!
defer kill "$monb"
sleep 0.5
# 12 datagrams of 1000 B each way: one leaves on the burst, the queue holds what fits,
# the rest is dropped at enqueue.
nsx bash -c 'for i in $(seq 12); do head -c 1000 /dev/zero > /dev/udp/10.98.0.2/9; done'
nsx bash -c 'for i in $(seq 12); do head -c 1000 /dev/zero > /dev/udp/10.98.1.2/9; done'
sleep 0.5
after_qa=$(tc_vals qa | sort)
after_qb=$(tc_vals qb | sort)
sleep 0.2
kill -INT "$mon" "$monb"
wait "$mon"
rc=$?
wait "$monb"
rcb=$?
again_qa=$(tc_vals qa | sort)
again_qb=$(tc_vals qb | sort)
mv "$tmp/recb" "$tmp/rec_qb"

if [ "$rc" -ne 0 ] || [ "$rcb" -ne 0 ] || [ ! -s "$tmp/rec/samples.csv" ]; then
	fail monitor_qdisc_record "monitor exit $rc/$rcb: $(cat "$tmp/err" "$tmp/errb" | tr '\n' ' ')"
	finish
fi
first_qa=$(rec_vals qa first | sort)
last_qa=$(rec_vals qa last | sort)
mv "$tmp/rec" "$tmp/rec_qa"
mv "$tmp/rec_qb" "$tmp/rec"
first_qb=$(rec_vals qb first | sort)
last_qb=$(rec_vals qb last | sort)

val() { echo "$1" | awk -v h="$2" -v k="$3" '$1 == h && $2 == k { print $3 }'; }

# The queue held still between tc's two readings (the premise of exact equality).
if [ "$after_qa" != "$again_qa" ] || [ "$after_qb" != "$again_qb" ]; then
	fail htb_pfifo_backlog "the queues moved after the burst: $(echo "$after_qa" "$again_qa" | tr '\n' ' ')"
	fail htb_pfifo_drops "not quiescent"
	fail htb_overlimits "not quiescent"
	fail tbf_drops "not quiescent"
	fail tbf_backlog "not quiescent"
	fail monitor_qdisc_names "not quiescent"
	finish
fi

# Each check: the record's first sample equals tc before, its last equals tc after, and
# the burst made the quantity non-zero (12 sent: 1 leaves, 5 queue, 6 drop).
same_window() { # NAME HANDLE KEYS... (against the qa or qb readings chosen by HANDLE)
	local name=$1 h=$2 k b a f l
	shift 2
	for k in "$@"; do
		if [ "$h" = 2 ]; then
			b=$(val "$before_qb" "$h" "$k"); a=$(val "$after_qb" "$h" "$k")
			f=$(val "$first_qb" "$h" "$k"); l=$(val "$last_qb" "$h" "$k")
		else
			b=$(val "$before_qa" "$h" "$k"); a=$(val "$after_qa" "$h" "$k")
			f=$(val "$first_qa" "$h" "$k"); l=$(val "$last_qa" "$h" "$k")
		fi
		if [ -z "$a" ] || [ "$f" != "$b" ] || [ "$l" != "$a" ] || [ "$a" = 0 ]; then
			fail "$name" "$h $k: tc before $b after $a, record first ${f:-none} last ${l:-none}"
			return
		fi
	done
	ok "$name"
}
same_window htb_pfifo_backlog 10 backlog qlen bytes packets
same_window htb_pfifo_drops 10 drops
same_window htb_overlimits 1 overlimits backlog qlen drops bytes
same_window tbf_drops 2 drops overlimits
same_window tbf_backlog 2 backlog qlen bytes packets

# Names: the catalog's qdisc.<dev>.<handle>.<value>, kinds in meta.json.
if head -n 1 "$tmp/rec_qa/samples.csv" | tr ',' '\n' | grep -qx 'qdisc.qa.10.backlog_bytes' &&
   head -n 1 "$tmp/rec/samples.csv" | tr ',' '\n' | grep -qx 'qdisc.qb.2.overlimits' &&
   grep -q '"htb root"' "$tmp/rec_qa/meta.json" &&
   grep -q '"pfifo parent 1:10"' "$tmp/rec_qa/meta.json"; then
	ok monitor_qdisc_names
else
	fail monitor_qdisc_names "columns $(head -n 1 "$tmp/rec_qa/samples.csv" | cut -c1-200)"
fi
finish
