#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# capture_veth.sh: the highest offered rate at which `pfclab capture` (writing a pcap)
# sees every frame with zero kernel drops, on a veth pair between two namespaces made
# here; pfclab inject offers 78-byte CNPs at rising rates for 2 s each. tcpdump with the
# same buffer, filter and immediate mode is measured the same way as the peer. The
# rate reported is the one inject achieved (on a small host the sender, which also
# carries the veth receive path in its softirq, is the limit). Target: 1 Mpps.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
PFCLAB=${PFCLAB:-$root/pfclab}
name=capture_veth
RATES=${RATES:-"250000 500000 1000000 2000000"}
SECS=${SECS:-2}
[ "$(id -u)" -eq 0 ] || { echo "BENCH $name: skipped (needs root)"; exit 0; }
[ -x "$PFCLAB" ] || { echo "BENCH $name: skipped (no pfclab at $PFCLAB)"; exit 0; }
dir=$root/$build/bench
mkdir -p "$dir"
nsa=pfc-bench-a-$$ nsb=pfc-bench-b-$$
cleanup() { ip netns del "$nsa" 2>/dev/null; ip netns del "$nsb" 2>/dev/null; rm -f "$dir"/cap-bench.*; }
trap cleanup EXIT
ip netns add "$nsa" && ip netns add "$nsb" || exit 1
ip -n "$nsa" link add pfca type veth peer name pfcb netns "$nsb" || exit 1
ip -n "$nsa" link set pfca up && ip -n "$nsb" link set pfcb up
filter="ether proto 0x8808 or (udp dst port 4791 and udp[8] = 0x81)"

offer() { # $1 = rate, $2 = frames; prints the achieved rate
	ip netns exec "$nsa" "$PFCLAB" inject -i pfca cnp -r "$1" -c "$2" 2>&1 |
		awk '/ sent / { for (i = 1; i <= NF; i++) if ($i == "in") { printf "%.0f\n", $4 / $(i + 1); exit } }'
}

run_pfclab() { # $1 = rate -> "achieved captured drops"
	local n=$(($1 * SECS)) got a
	ip netns exec "$nsb" "$PFCLAB" capture -i pfcb -q --json -c "$n" -d $((SECS * 20 + 20))s \
		-w "$dir/cap-bench.pcap" >"$dir/cap-bench.json" 2>"$dir/cap-bench.err" &
	local cpid=$!
	for _ in $(seq 50); do grep -q listening "$dir/cap-bench.err" && break; sleep 0.1; done
	a=$(offer "$1" "$n")
	sleep 1
	kill -INT $cpid 2>/dev/null # normally it has stopped at -c already
	wait $cpid
	got=$(jq -r '"\(.kinds.cnp) \(.interfaces[0].kernel_drops)"' "$dir/cap-bench.json")
	echo "$a $got"
}

run_tcpdump() { # $1 = rate -> "achieved captured drops"
	local n=$(($1 * SECS)) a
	ip netns exec "$nsb" tcpdump --immediate-mode -i pfcb -B 65536 -s 256 -w "$dir/cap-bench.tcpdump" \
		"$filter" >"$dir/cap-bench.td" 2>&1 &
	local tpid=$!
	for _ in $(seq 50); do grep -q listening "$dir/cap-bench.td" 2>/dev/null && break; sleep 0.1; done
	a=$(offer "$1" "$n")
	sleep 1
	kill -INT $tpid
	wait $tpid
	echo "$a $(awk '/packets captured/ { c = $1 } /dropped by kernel/ { d = $1 } END { print c, d }' "$dir/cap-bench.td")"
}

best_p=0 best_t=0 p_stop=0 t_stop=0 max_a=0
for r in $RATES; do
	n=$((r * SECS))
	if [ $p_stop = 0 ]; then
		read -r a got drops < <(run_pfclab "$r")
		echo "  pfclab  offered $r/s achieved ${a:-?}/s captured ${got:-?}/$n drops ${drops:-?}"
		[ "${a:-0}" -gt "$max_a" ] && max_a=$a
		if [ "${got:-0}" = "$n" ] && [ "${drops:-1}" = 0 ]; then
			[ "${a:-0}" -gt "$best_p" ] && best_p=$a
		else
			p_stop=1
		fi
	fi
	if [ $t_stop = 0 ] && command -v tcpdump >/dev/null; then
		read -r a got drops < <(run_tcpdump "$r")
		echo "  tcpdump offered $r/s achieved ${a:-?}/s captured ${got:-?}/$n drops ${drops:-?}"
		if [ "${got:-0}" = "$n" ] && [ "${drops:-1}" = 0 ]; then
			[ "${a:-0}" -gt "$best_t" ] && best_t=$a
		else
			t_stop=1
		fi
	fi
done
limit=""
[ $p_stop = 0 ] && [ "$best_p" = "$max_a" ] && limit="; no loss up to the highest rate the sender reached, so the capture limit was not found"
awk -v n="$name" -v p="$best_p" -v t="$best_t" -v l="$limit" 'BEGIN {
	printf "BENCH %s: pfclab %.2f Mpps, tcpdump %.2f Mpps, ratio %s (target pfclab >= 1 Mpps with zero drops)%s\n",
		n, p / 1e6, t / 1e6, (t > 0 ? sprintf("%.2f", p / t) : "n/a"), l }'
