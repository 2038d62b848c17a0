#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_monitor_rxe.sh (vlab guest): pfclab monitor reads rxe's hw counters through RDMA
# netlink: they move during a perftest ib_write_bw run, a one-shot reading equals the
# sysfs hw_counters files, and the RDMA device going away and coming back is a recorded
# gap, not a crash.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 6

need_cmd monitor_rxe ib_write_bw jq rdma || { finish; }
[ -x "$PFCLAB" ] || { skip monitor_rxe "no pfclab binary"; finish; }
SIZE=65536 ITERS=200
hwdir=/sys/class/infiniband/$VLAB_DEV_A/ports/1/hw_counters
out=$VLAB_OUT/monitor

col() { head -n 1 "$1" | tr ',' '\n' | grep -nx -- "$2" | cut -d: -f1; }
first_val() { awk -F, -v c="$2" 'NR > 1 && $c != "n/a" { print $c; exit }' "$1"; }
last_val() { awk -F, -v c="$2" 'NR > 1 && $c != "n/a" { v = $c } END { print v }' "$1"; }

# 1. counters move during ib_write_bw (rxe1 writes into rxe0)
"$PFCLAB" monitor -d "$VLAB_DEV_A" -i "$VLAB_IF_A" -I 50ms -q --record "$out/run" \
	2>"$out.err" &
mon=$!
defer kill "$mon"
sleep 1
vlab_write_bw "$out" a -s $SIZE -n $ITERS -F
sleep 1
kill -INT "$mon"
wait "$mon"
csv=$out/run/samples.csv
c=$(col "$csv" rdma.rx.packets)
if [ -z "$c" ]; then
	fail monitor_rxe_counters_move "no rdma.rx.packets column: $(tr '\n' ' ' <"$out.err")"
else
	d=$(( $(last_val "$csv" "$c") - $(first_val "$csv" "$c") ))
	mtu=$(ibv_devinfo -d "$VLAB_DEV_A" | awk '/active_mtu/ { print $2; exit }')
	want=$(( (SIZE + mtu - 1) / mtu * ITERS ))
	echo "# rdma.rx.packets moved by $d during ib_write_bw (>= $want expected)"
	if [ "$d" -ge "$want" ]; then ok monitor_rxe_counters_move
	else fail monitor_rxe_counters_move "rcvd_pkts moved by $d, expected >= $want"; fi
fi
route=$(jq -r '.sources[] | select(.source == "rdma") | .info.route // "netlink"' "$out/run/meta.json")
if [ "$route" = netlink ]; then ok monitor_rxe_netlink_route
else fail monitor_rxe_netlink_route "read through $route"; fi

# 2. idle now: one reading through netlink equals every sysfs hw_counters file
"$PFCLAB" monitor -d "$VLAB_DEV_A" --sources rdma -I 10ms -c 1 -q --record "$out/once" \
	2>>"$out.err"
bad="" n=0
for f in "$hwdir"/*; do
	name=${f##*/}
	[ "$name" = lifespan ] && continue
	cname=$(jq -r --arg k "rdma:$VLAB_DEV_A:$name" '.columns[] | select(.key == $k) | .name' \
		"$out/once/meta.json")
	c=$(col "$out/once/samples.csv" "$cname")
	v=$(awk -F, -v c="$c" 'NR == 2 { print $c }' "$out/once/samples.csv")
	s=$(cat "$f")
	n=$((n + 1))
	[ "$v" = "$s" ] || bad="$bad $name:$v/$s"
done
if [ -z "$bad" ] && [ "$n" -gt 5 ]; then ok "monitor_rxe_equals_sysfs ($n counters)"
else fail monitor_rxe_equals_sysfs "monitor/sysfs differ:$bad"; fi

# 2b. the sysfs fallback route reads the same values
PFCLAB_RDMA_SYSFS=1 "$PFCLAB" monitor -d "$VLAB_DEV_A" --sources rdma -I 10ms -c 1 -q \
	--record "$out/sysfs" 2>>"$out.err"
route=$(jq -r '.sources[] | select(.source == "rdma") | .info.route // "netlink"' "$out/sysfs/meta.json")
# name=value pairs of the last row, sorted (the two routes list counters in other orders)
pairs() { awk -F, 'NR == 1 { for (i = 7; i <= NF; i++) h[i] = $i; next }
	{ for (i = 7; i <= NF; i++) r[i] = $i } END { for (i in r) print h[i] "=" r[i] }' "$1" | sort; }
a=$(pairs "$out/once/samples.csv")
b=$(pairs "$out/sysfs/samples.csv")
if [ "$route" = sysfs ] && [ -n "$a" ] && [ "$a" = "$b" ]; then
	ok monitor_rxe_sysfs_fallback
else
	fail monitor_rxe_sysfs_fallback "route $route; differ: $(diff <(echo "$a") <(echo "$b") | tr '\n' ' ')"
fi

# 3. the RDMA device goes away and comes back while sampling: a gap, no crash
"$PFCLAB" monitor -d "$VLAB_DEV_B" --sources rdma -I 50ms -q --record "$out/gap" \
	2>"$out-gap.err" &
mon=$!
defer kill "$mon"
sleep 1
rdma link delete "$VLAB_DEV_B"
sleep 1
rdma link add "$VLAB_DEV_B" type rxe netdev "$VLAB_IF_B"
sleep 2
if kill -0 "$mon" 2>/dev/null; then ok monitor_rxe_survives_device_loss
else fail monitor_rxe_survives_device_loss "$(tr '\n' ' ' <"$out-gap.err")"; fi
kill -INT "$mon"
wait "$mon"
b=$(grep -c '"event":"gap_begin"' "$out/gap/samples.jsonl")
e=$(grep -c '"event":"gap_end"' "$out/gap/samples.jsonl")
if [ "$b" -ge 1 ] && [ "$e" -ge 1 ]; then ok monitor_rxe_gap_recorded
else fail monitor_rxe_gap_recorded "gap_begin $b gap_end $e"; fi
# leave rxe1 as the lab made it (its GIDs come back asynchronously)
for i in $(seq 20); do vlab_gid_index "$VLAB_DEV_B" "$VLAB_IP_B" >/dev/null && break; sleep 0.5; done
finish
