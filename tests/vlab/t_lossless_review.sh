#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_lossless_review.sh (vlab guest): the emulated lossless link's ground-truth log held
# against what pfclab's tools make of the same run. pfclab link runs on the one-VM veth
# pair (both receivers draining at $DRAIN, PFC on priority 3), and `pfclab run` runs
# bidirectional RDMA WRITEs through it with the monitor (the lossless source) and a
# capture on both ends, while `inject roce` sends priority-0 frames from a beside them:
#   1. the run is valid and both captures were reviewed
#   2. priority 0 keeps flowing while priority 3 is paused; priority 3 sends 0 bytes then
#   3. review's XOFF/XON/pause counts = the frames and pauses in the log, each end exact
#   4. review's paused time within 1% of the log's (paused_ns, from the kernel's receive
#      stamps: the stamps the capture gives the same frames)
#   5. the monitor's pause-duration and PFC frame counters against the log
#   6. the run summary (its counters and its capture figures) against the log
# No goodput check: the captures, the monitor and the priority-0 sender take CPU from
# the guest beside the traffic (an earlier run found the goodput 10% below the drain
# with them); t_lossless.sh holds the goodput on a quiet guest.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 6

name=lossless-review
O=$VLAB_OUT
need_cmd $name jq tc || finish
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary"; finish; }
[ "$VLAB_TOPO" = one ] || { skip $name "one-VM topology only"; finish; }
# as t_lossless.sh: a 192 KiB buffer, the wire at 50 Mbit/s, 20 ms of reaction headroom
BUF=196608 SPEED=50M REACT=20ms
# well below what the traffic offers (t_lossless: ~40 Mb/s each way), so it pauses often
DRAIN=12mbit
P0_RATE=500		# priority-0 frames a second (1058 B: ~4.2 Mb/s of the wire)
export VLAB_LOSSLESS_BUFFER=$BUF VLAB_LOSSLESS_SPEED=50mbit

vlab_lossless on || { fail $name "datapath set up: $(tc qdisc show | tr '\n' ' ')"; finish; }
defer vlab_lossless off
vlab_lossless drain $DRAIN || { fail $name "drain $DRAIN"; finish; }
"$PFCLAB" link -j --buffer $BUF --speed $SPEED --react $REACT --log "$O/link.jsonl" \
	"$VLAB_IF_A" "$VLAB_IF_B" >"$O/link.json" 2>"$O/link.err" &
LPID=$!
defer kill "$LPID"
for _ in $(seq 50); do [ -e /run/pfclab/link/"$VLAB_IF_B".stats ] && break; sleep 0.1; done

# hosts a and b as vlab-demo.yaml has them; the idle phase lets the last pauses end (the
# buffer drains) inside the capture. The monitor's sources leave out dcb: on a veth it
# reads nothing, but its PFC frame columns share their metric names with the lossless
# source's, and the record then names both by source (the summary's pfc_rx_frames null)
cat >"$O/exp.yaml" <<EOF
name: lossless-review
launcher: local
hosts:
  a: {addr: $VLAB_IP_A, rdma: $VLAB_DEV_A, netdev: $VLAB_IF_A}
  b: {addr: $VLAB_IP_B, rdma: $VLAB_DEV_B, netdev: $VLAB_IF_B}
monitor: {interval: 100ms, sources: [ethtool, link, rdma, lossless]}
capture: {speed: $SPEED}
phases:
  - name: paused
    inject:
      - {host: a, kind: roce, iface: $VLAB_IF_A, args: [--via-qdisc, --dst-ip, 10.77.0.99, -r, "$P0_RATE", --len, "1000"]}
    traffic: {from: b, to: a, bidirectional: true, size: 64K, qp: 4, duration: 8s, qp_timeout: 18}
  - name: rest
    duration: 1s
EOF
"$PFCLAB" run --no-plots -q -o "$O/run" "$O/exp.yaml" >"$O/run.out" 2>"$O/run.err"
rc=$?
kill -INT "$LPID"
wait "$LPID"
R=$O/run/points/p000/rep0
S=$O/run/summary.json
echo "pfclab run exit $rc; link: $(tr '\n' ' ' <"$O/link.json")"
if [ $rc = 0 ] && [ "$(jq -r '.valid' "$R/status.json" 2>/dev/null)" = true ] &&
	[ -s "$R/a/review.json" ] && [ -s "$R/b/review.json" ] && [ -s "$S" ]; then
	ok "$name: pfclab run over the link: valid, both captures reviewed"
else
	fail "$name: pfclab run" "exit $rc: $(tail -n 3 "$O/run.err" | tr '\n' ' ') $(jq -c .reasons "$R/status.json" 2>/dev/null)"
	finish
fi

# per port, from the log: frames received naming priority 3 (XOFF, XON), pauses ended
# (priority 3), their 802.1Qbb time (paused_ns) and the plug's (held_ns), bytes the paused
# band and priority 0's band sent during them
lg() {
	jq -rs --arg p "$1" '[.[] | select(.port == $p)] as $e |
		($e | map(select(.event == "pause_ended" and .prio == 3))) as $x |
		"\($e | map(select(.event == "xoff_received" and .prio == 3)) | length)" +
		" \($e | map(select(.event == "xon_received" and .prio == 3)) | length)" +
		" \($x | length) \($x | map(.paused_ns) | add // 0) \($x | map(.held_ns) | add // 0)" +
		" \($x | map(.bytes_while_paused) | add // 0) \($x | map(.prio0_bytes // 0) | add // 0)" +
		" \($x | map(select(.by == "stop")) | length)" +
		" \($e | map(select(.event == "xoff_sent" or .event == "xon_sent")) | length)"' "$O/link.jsonl"
}
# v PORT FIELD: the link's summary of PORT
v() { jq -r --arg p "$1" "select(.port == \$p) | .$2" "$O/link.json"; }
fcmp() { awk "BEGIN { exit !($*) }"; }
# within P% of B, never 0
near() { fcmp "$2 > 0 && $1 - $2 <= $2 * $3 / 100 && $2 - $1 <= $2 * $3 / 100"; }
declare -A LX LN LP LD LH LB L0 LS LT
for h in a b; do
	[ $h = a ] && p=$VLAB_IF_A || p=$VLAB_IF_B
	set -- $(lg "$p")
	LX[$h]=$1 LN[$h]=$2 LP[$h]=$3 LD[$h]=$4 LH[$h]=$5 LB[$h]=$6 L0[$h]=$7 LS[$h]=$8 LT[$h]=$9
	echo "log $p: sent ${LT[$h]} PFC frames; received XOFF ${LX[$h]} XON ${LN[$h]}, pauses ${LP[$h]} (${LS[$h]} ended by the link stopping), paused $(( ${LD[$h]} / 1000 )) us, plug held $(( ${LH[$h]} / 1000 )) us, prio 3 sent ${LB[$h]} B, prio 0 ${L0[$h]} B"
done

# 2. priority 0 beside the pauses of a (inject sends from a): it flowed, at a rate seen
#    against what was sent; priority 3 sent nothing while paused, on both ends
r0=$(awk -v b="${L0[a]}" -v t="${LD[a]}" 'BEGIN { printf "%.2f", (t > 0 ? b * 8 / t * 1e3 : 0) }')
tot0=$(v "$VLAB_IF_A" prio0_bytes_while_paused)
if [ "${LP[a]}" -gt 0 ] && [ "${L0[a]}" -gt 0 ] && [ "$tot0" = "${L0[a]}" ] &&
	[ "${LB[a]}" = 0 ] && [ "${LB[b]}" = 0 ]; then
	ok "$name: priority 0 flowed while priority 3 was paused: ${L0[a]} B in ${LP[a]} pauses of $VLAB_IF_A ($r0 Mb/s over $(( ${LD[a]} / 1000000 )) ms paused; sent at $P0_RATE frames/s, ~4.2 Mb/s); priority 3 sent 0 B while paused on both ends"
else
	fail "$name: priority 0 beside the pauses" "pauses ${LP[a]}, prio 0 ${L0[a]} B (summary $tot0), prio 3 ${LB[a]}/${LB[b]} B; inject: $(head -c 200 "$R"/a/inject-paused-0.err 2>/dev/null)"
fi

# 3, 4. review of each end's capture (the frames that end received) against the log
bad3= bad4= txt4=
for h in a b; do
	set -- $(jq -r '[.pause.priorities[] | select(.kind == "pfc" and .priority == 3)][0] |
		"\(.xoff // 0) \(.xon // 0) \(.pauses // 0) \(.paused_s // 0)"' "$R/$h/review.json")
	rx=$1 rn=$2 rp=$3 rs=$4
	# pauses the link ended as it stopped are no transition a capture saw
	lp=$(( ${LP[$h]} - ${LS[$h]} ))
	[ "$rx" = "${LX[$h]}" ] && [ "$rn" = "${LN[$h]}" ] && [ "$rp" = "$lp" ] ||
		bad3+=" $h: review XOFF $rx XON $rn pauses $rp, log ${LX[$h]} ${LN[$h]} $lp;"
	rus=$(awk -v s="$rs" 'BEGIN { printf "%.0f", s * 1e6 }')
	lus=$(( ${LD[$h]} / 1000 ))
	d=$(awk -v a="$rus" -v b="$lus" 'BEGIN { printf "%+.3f%%", b ? (a / b - 1) * 100 : 0 }')
	txt4+=" $h review $rus us, log $lus us ($d; plug held $(( ${LH[$h]} / 1000 )) us);"
	near "$rus" "$lus" 1 || bad4+=" $h: review $rus us, log $lus us ($d);"
done
if [ -z "$bad3" ]; then
	ok "$name: review's XOFF/XON/pause counts = the log's on both ends (a: ${LX[a]}/${LN[a]}/${LP[a]}, b: ${LX[b]}/${LN[b]}/${LP[b]})"
else fail "$name: review's counts against the log" "$bad3"; fi
if [ -z "$bad4" ]; then ok "$name: review's paused time within 1% of the log's:$txt4"
else fail "$name: review's paused time against the log" "$bad4"; fi

# 5. the monitor's counters over its record (last sample less first) against the log
col() { head -n 1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }
delta() { # CSV COLUMN: last less first valid value
	local c
	c=$(col "$1" "$2")
	[ -n "$c" ] || { echo none; return; }
	awk -F, -v c="$c" 'NR > 1 && $c != "n/a" && $c != "" { if (!n++) f = $c; l = $c }
		END { if (n) printf "%.0f", l - f; else print "none" }' "$1"
}
bad5= txt5=
for h in a b; do
	csv=$R/$h/monitor/samples.csv
	md=$(delta "$csv" pfc.rx.prio3.pause_us) mr=$(delta "$csv" pfc.rx.prio3.frames)
	mt=$(delta "$csv" pfc.tx.prio3.frames)
	lus=$(( ${LD[$h]} / 1000 ))
	txt5+=" $h pause_us $md (log $lus), rx $mr, tx $mt;"
	[ "$mr" = $(( ${LX[$h]} + ${LN[$h]} )) ] && [ "$mt" = "${LT[$h]}" ] &&
		[ "$md" != none ] && near "$md" "$lus" 1 || bad5+=" $h: pause_us $md (log $lus), rx $mr (log $(( ${LX[$h]} + ${LN[$h]} ))), tx $mt (log ${LT[$h]});"
done
if [ -z "$bad5" ]; then
	ok "$name: monitor (source lossless): PFC frames sent and received exact, pause duration within 1% of the log:$txt5"
else fail "$name: monitor against the log" "$bad5 ($(head -c 200 "$R/a/monitor.err" 2>/dev/null))"; fi

# 6. the run summary: counters (frames, paused share of the point) and capture figures
bad6= txt6=
for h in a b; do
	set -- $(jq -r --arg h $h '.points[0].repetitions[0] as $r | $r.hosts[$h] as $x |
		"\($x.counters.pfc_rx_frames.prio3 // "null") \($x.counters.paused_share_rx.prio3 // "null")" +
		" \($r.duration_s // "null") \($x.capture.pfc.prio3.xoff // "null") \($x.capture.pfc.prio3.xon // "null")" +
		" \($x.capture.pfc.prio3.paused_s // "null")"' "$S")
	sr=$1 share=$2 dur=$3 sx=$4 sn=$5 sp=$6
	lus=$(( ${LD[$h]} / 1000 ))
	cus=$(awk -v s="$share" -v d="$dur" 'BEGIN { printf "%.0f", s * d * 1e6 }')
	pus=$(awk -v s="$sp" 'BEGIN { printf "%.0f", s * 1e6 }')
	txt6+=" $h paused $(awk -v s="$share" 'BEGIN { printf "%.2f%%", s * 100 }') of ${dur} s = $cus us (counters), $pus us (capture), log $lus us;"
	[ "$sr" = $(( ${LX[$h]} + ${LN[$h]} )) ] && [ "$sx" = "${LX[$h]}" ] && [ "$sn" = "${LN[$h]}" ] &&
		near "$cus" "$lus" 1 && near "$pus" "$lus" 1 || bad6+=" $h: rx frames $sr, capture XOFF $sx XON $sn, paused $cus/$pus us, log $lus us;"
done
if [ -z "$bad6" ]; then ok "$name: run summary = the log: frames exact, paused time within 1%:$txt6"
else fail "$name: run summary against the log" "$bad6"; fi
finish
