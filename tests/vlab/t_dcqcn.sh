#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_dcqcn.sh (vlab guest): DCQCN closed on the emulated lossless link (pfclab link
# --dcqcn) of the one-VM veth pair: one QP of RDMA WRITEs of 64 KiB from rxe0 (va) into
# rxe1 (vb), ECN-capable (--tclass 2), the receive buffer marking CE past K and sending
# PFC past XOFF:
#   1. unconstrained (drain 10 Gbit/s): the goodput G, the reference
#   2. drain G/2, PFC on, ECN marks, DCQCN off: marks, no CNP, the sender paused
#   3. the same with DCQCN on: CE marks at vb's buffer, CNPs sent by vb's NP, CNPs
#      handled by va's RP, all > 0 and handled <= sent <= marked; the QP's rate (the
#      RP's, time-weighted over the run's second half) within 20% of the drain rate; the
#      paused share below run 2's; the counters the monitor reads are the link's, and the
#      log's CNPs are the counters'; pfclab doctor gives the parameters in force as the
#      port's DCQCN parameters (source pfclab_link), as a run's manifest keeps them
#   4. two QPs into the same receiver (incast 2 -> 1), DCQCN on, at the defaults and at
#      Zhu et al.'s proportions of AI/HAI (0.1% and 1% of the line): each QP's rate from 5 s
#      after the first CNP on, printed for the record, not checked. The two do not converge
#      within 20% in 5 s here yet (seen: 5.4/5.7 Mb/s once, 7.3/3.4, 5.0/2.4 and 7.7/4.4
#      Mb/s in other runs): at the lab's scale the additive increase that makes DCQCN fair
#      takes longer than the run
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 8

name=dcqcn
O=$VLAB_OUT
need_cmd $name jq tc awk || finish
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary"; finish; }
[ "$VLAB_TOPO" = one ] || { skip $name "one-VM topology only"; finish; }
RUN=8			# seconds a traffic run
FRAME=1082		# a full RoCEv2 WRITE frame at rxe's MTU 1024 (14+20+8+12+1024+4)
PAYLOAD=1024
BUF=196608 SPEED=50M REACT=20ms
# CE past 16 KB; XOFF at 32 KB: one QP has at most 64 packets (69 KB) in flight, so PFC
# fires without DCQCN, and the 160 KB above XOFF hold what comes while the guest stands
# still
K=16384 XOFF=32K
export VLAB_LOSSLESS_BUFFER=$BUF VLAB_LOSSLESS_SPEED=50mbit VLAB_LOSSLESS_ECN=$K
export VLAB_LOSSLESS_DCQCN=1

vlab_lossless on || { fail $name "datapath set up: $(tc qdisc show | tr '\n' ' ')"; finish; }
defer vlab_lossless off

# one TAG PORT [QPS]: QPS QPs (1) from rxe0 (va) into rxe1 (vb) for RUN s; prints the
# receiver's goodput in Mb/s
one() {
	local tag=$1 port=$2 q=${3:-1} sp
	"$PFCLAB" traffic -d "$VLAB_DEV_B" -p "$port" -D "$RUN" -s 64K -q "$q" --tclass 2 \
		--qp-timeout 18 --json >"$O/$tag-s.out" 2>"$O/$tag-s.err" &
	sp=$!
	sleep 0.3
	"$PFCLAB" traffic -d "$VLAB_DEV_A" -p "$port" -D "$RUN" -s 64K -q "$q" --tclass 2 \
		--qp-timeout 18 --json "$VLAB_IP_B" >"$O/$tag-c.out" 2>"$O/$tag-c.err"
	wait $sp
	settle >&2
	jq -r 'select(.type == "summary") | .rx.gbps // 0 | . * 1000 * 100 | round / 100' \
		"$O/$tag-s.out" | tail -n 1
}
settle() { vlab_settle; }
link_start() {
	local tag=$1
	shift
	"$PFCLAB" link -j --buffer $BUF --speed $SPEED --react $REACT --xoff $XOFF \
		--log "$O/$tag.jsonl" "$@" \
		"$VLAB_IF_A" "$VLAB_IF_B" >"$O/$tag.json" 2>"$O/$tag.err" &
	LPID=$!
	for _ in $(seq 50); do [ -e /run/pfclab/link/"$VLAB_IF_B".stats ] && break; sleep 0.1; done
}
link_stop() { kill -INT "$LPID"; wait "$LPID"; }
v() { jq -r --arg p "$2" "select(.port == \$p) | .$3 // 0" "$O/$1.json"; }
fcmp() { awk "BEGIN { exit !($*) }"; }
red_marked() { tc -s qdisc show dev "lb$VLAB_IF_B" | awk '/^qdisc red/ { f = 1 } f && /marked/ { for (i = 1; i < NF; i++) if ($i == "marked") { print $(i + 1); exit } }'; }

# 1. unconstrained
link_start un --lossy
g=$(one un 18861)
link_stop
echo "unconstrained: $g Mb/s; link: $(tr '\n' ' ' <"$O/un.json")"
if fcmp "$g > 0"; then ok "$name: unconstrained goodput $g Mb/s (1 QP, 64 KiB, va -> vb)"
else fail "$name: unconstrained traffic" "$(tail -n 2 "$O"/un-*.err | tr '\n' ' ')"; finish; fi

want=$(awk -v g="$g" 'BEGIN { printf "%.3f", g / 2 }')
drain=$(awk -v g="$want" -v f=$FRAME -v p=$PAYLOAD 'BEGIN { printf "%d", g * 1e6 * f / p }')
vlab_lossless drain "${drain}bit" || fail "$name: drain rate set"
echo "$drain" >"$O/drain.txt"	# for h_dcqcn.sh's plot

# 2. DCQCN off
m0=$(red_marked)
stall_start
link_start off
goff=$(one off 18862)
link_stop
stood_off=$(stall_ms)
moff=$(( $(red_marked) - ${m0:-0} ))
poff=$(v off "$VLAB_IF_A" rx_pause_duration_us)
soff=$(awk -v p="$poff" -v r=$RUN 'BEGIN { printf "%.3f", p / 1e6 / r }')
echo "DCQCN off, drain $drain bit/s: $goff Mb/s, $moff CE marks at the buffer, paused $poff us; link: $(tr '\n' ' ' <"$O/off.json")"
cnp_off=$(v off "$VLAB_IF_B" np_cnp_sent)
if [ "$moff" -gt 0 ] && [ "$poff" -gt 0 ] && [ "$cnp_off" = 0 ]; then
	ok "$name: DCQCN off: $moff CE marks at the buffer, no CNP, the sender paused $((poff / 1000)) ms ($(awk -v s="$soff" 'BEGIN { printf "%.1f", s * 100 }')% of ${RUN} s), $goff Mb/s"
else fail "$name: DCQCN off: marks and pauses" "marks $moff, paused $poff us, CNPs $cnp_off"; fi

# 3. DCQCN on
m0=$(red_marked)
stall_start
link_start on --dcqcn
"$PFCLAB" doctor --json --section qos --netdev "$VLAB_IF_A" >"$O/doctor.json" 2>"$O/doctor.err"
"$PFCLAB" monitor -i "$VLAB_IF_B" --sources lossless -I 100ms -q --record "$O/mon" \
	2>"$O/mon.err" &
mpid=$!
defer kill "$mpid"
gon=$(one on 18863)
kill -INT "$mpid"; wait "$mpid"
link_stop
stood=$(stall_ms)
mon=$(( $(red_marked) - ${m0:-0} ))
echo "DCQCN on, drain $drain bit/s: $gon Mb/s, $mon CE marks at the buffer (RED); link: $(tr '\n' ' ' <"$O/on.json")"
marked=$(v on "$VLAB_IF_B" np_ecn_marked) sent=$(v on "$VLAB_IF_B" np_cnp_sent)
handled=$(v on "$VLAB_IF_A" rp_cnp_handled) ignored=$(v on "$VLAB_IF_A" rp_cnp_ignored)
cuts=$(v on "$VLAB_IF_A" rp_cuts) unp=$(v on "$VLAB_IF_B" np_unpaired)
if [ "$marked" -gt 0 ] && [ "$sent" -gt 0 ] && [ "$handled" -gt 0 ] && [ "$cuts" -gt 0 ] &&
	[ "$handled" -le "$sent" ] && [ "$sent" -le "$marked" ] && [ "$marked" -le "$mon" ]; then
	ok "$name: DCQCN on: $mon CE marks at the buffer, $marked seen by vb's NP, $sent CNPs sent, $handled handled by va's RP ($ignored ignored, $cuts rate cuts, $unp marks not paired with a QP)"
else fail "$name: DCQCN on: marks, CNPs sent and handled" "buffer marked $mon, NP saw $marked, sent $sent, RP handled $handled ($ignored ignored), cuts $cuts, unpaired $unp"; fi
# the RP's rate of the QP, time-weighted over the second half of the run (from the first
# CNP): piecewise constant between its events in the log
rate=$(jq -r --arg p "$VLAB_IF_A" 'select(.port == $p and (.rc_bps != null)) | "\(.mono_ns) \(.rc_bps)"' \
	"$O/on.jsonl" | sort -n | awk -v run=$RUN '
	NR == 1 { t0 = $1; a = t0 + run / 2 * 1e9; b = t0 + (run - 1) * 1e9 }
	{ if (NR > 1) seg(pt, $1, pr); pt = $1; pr = $2 }
	END { seg(pt, b, pr); if (w > 0) printf "%.0f\n", s / w; else print 0 }
	function seg(x, y, r,   lo, hi) { lo = x > a ? x : a; hi = y < b ? y : b; if (hi > lo) { s += r * (hi - lo); w += hi - lo } }')
dev=$(awk -v r="$rate" -v d="$drain" 'BEGIN { printf "%+.1f", (r / d - 1) * 100 }')
if fcmp "$rate > 0 && $rate >= $drain * 0.8 && $rate <= $drain * 1.2"; then
	ok "$name: DCQCN on: the QP's rate $rate bit/s over the run's second half, drain $drain bit/s ($dev%); goodput $gon Mb/s (drain $want Mb/s of payload)"
else fail "$name: DCQCN on: rate within 20% of the drain" "RP rate $rate bit/s against drain $drain ($dev%), goodput $gon Mb/s"; fi
pon=$(v on "$VLAB_IF_A" rx_pause_duration_us)
son=$(awk -v p="$pon" -v r=$RUN 'BEGIN { printf "%.3f", p / 1e6 / r }')
if fcmp "$son < $soff"; then
	ok "$name: paused share $(awk -v s="$son" 'BEGIN { printf "%.1f", s * 100 }')% with DCQCN, $(awk -v s="$soff" 'BEGIN { printf "%.1f", s * 100 }')% without (goodput $gon and $goff Mb/s; the guest stood still $stood and $stood_off ms)"
else fail "$name: paused share lower with DCQCN" "$son with, $soff without"; fi
# the monitor reads the link's counters through the catalog's mlx5 metrics
csv=$O/mon/samples.csv
col() { head -n 1 "$csv" 2>/dev/null | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
last() { local c; c=$(col "$1"); [ -n "$c" ] && awk -F, -v c="$c" 'NR > 1 && $c != "n/a" { x = $c } END { print x }' "$csv"; }
ms=$(last cnp.sent) mm=$(last ecn.marked)
if [ -n "$ms" ] && [ "$ms" = "$sent" ] && [ "$mm" = "$marked" ]; then
	ok "$name: monitor -i $VLAB_IF_B (source lossless) reads cnp.sent $ms and ecn.marked $mm, as the link counted"
else fail "$name: monitor reads the DCQCN counters" "monitor cnp.sent '${ms:-no column}' ecn.marked '${mm:-no column}', link $sent / $marked: $(head -c 300 "$O/mon.err")"; fi
# the log against the counters
ls=$(jq -rs --arg p "$VLAB_IF_B" '[.[] | select(.port == $p and .event == "np_cnp_sent")] | length' "$O/on.jsonl")
lh=$(jq -rs --arg p "$VLAB_IF_A" '[.[] | select(.port == $p and .event == "rp_cnp")] | length' "$O/on.jsonl")
lc=$(jq -rs --arg p "$VLAB_IF_A" '[.[] | select(.port == $p and .event == "rp_cut")] | length' "$O/on.jsonl")
if [ "$ls" = "$sent" ] && [ "$lh" = "$handled" ] && [ "$lc" = "$cuts" ]; then
	ok "$name: the log has the $ls CNPs sent, $lh handled and $lc cuts the counters have"
else fail "$name: log against counters" "log sent $ls handled $lh cuts $lc; counters $sent $handled $cuts"; fi

dsrc=$(jq -r '[.. | objects | select(has("dcqcn")) | .dcqcn][0] | "\(.source) \(.params.rp_time_reset) \(.params.rp_byte_reset) \(.params.np_cnp_dscp)"' "$O/doctor.json" 2>/dev/null)
if [ "$dsrc" = "pfclab_link 300000 16384 48" ]; then
	ok "$name: pfclab doctor --netdev $VLAB_IF_A: DCQCN parameters from pfclab_link (rp_time_reset 300000 us, rp_byte_reset 16384, np_cnp_dscp 48)"
else fail "$name: doctor reads the link's DCQCN parameters" "got '$dsrc': $(head -c 300 "$O/doctor.err")"; fi

# 4. incast: two QPs, one receiver
# qp_rates TAG: per QP, its rate time-weighted from 5 s after the first CNP (of any QP) to
# the last event: "QPN RATE" lines
qp_rates() {
	jq -r --arg p "$VLAB_IF_A" 'select(.port == $p and (.rc_bps != null)) | "\(.mono_ns) \(.qpn) \(.rc_bps)"' \
		"$O/$1.jsonl" | sort -n | awk '
	NR == 1 { a = $1 + 5e9 }
	{ if ($2 in pt) seg($2, $1); pt[$2] = $1; pr[$2] = $3; end = $1 }
	END { for (q in pt) { seg(q, end); printf "%s %.0f\n", q, (w[q] > 0 ? s[q] / w[q] : 0) } }
	function seg(q, y,   lo) { lo = pt[q] > a ? pt[q] : a; if (y > lo) { s[q] += pr[q] * (y - lo); w[q] += y - lo } }' | sort
}
RUN=10
link_start incdef --dcqcn
gdef=$(one incdef 18865 2)
link_stop
echo "incast 2 -> 1 at the default AI/HAI: $gdef Mb/s, QP rates from 5 s on: $(qp_rates incdef | tr '\n' ' ')"
link_start inc --dcqcn --rpg-ai-rate 50k --rpg-hai-rate 500k
ginc=$(one inc 18864 2)
link_stop
echo "incast 2 -> 1, DCQCN on: $ginc Mb/s; link: $(tr '\n' ' ' <"$O/inc.json")"
echo "incast 2 -> 1 at AI 50k, HAI 500k: QP rates from 5 s on: $(qp_rates inc | tr '\n' ' ') (drain $drain bit/s; unpaired marks $(v inc "$VLAB_IF_B" np_unpaired))"
finish
