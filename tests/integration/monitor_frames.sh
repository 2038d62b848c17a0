#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_frames.sh: the capture engine inside pfclab monitor (--frames). PFC and CNP
# frames injected from one namespace are counted per interval beside the link counters,
# in the same run and on the same clock, and the per-interval deltas add up exactly; so
# does the paused time from the frames' pause timers.
source "$(dirname "$0")/../lib.sh"
plan 4
name=monitor_frames
need_root $name || finish
need_cmd $name jq ip || finish
setup_ns NSA NSB || { fail $name "cannot create namespaces"; finish; }
ip link add mfa netns "$NSA" type veth peer name mfb netns "$NSB" || { fail $name "veth"; finish; }
ip -n "$NSA" link set mfa up && ip -n "$NSB" link set mfb up
tmp=$(mktemp -d)
defer rm -rf "$tmp"

ip netns exec "$NSB" "$PFCLAB" monitor -i mfb --frames --json -I 100ms -D 60s \
	>"$tmp/mon.json" 2>"$tmp/mon.err" &
mon=$!
defer kill "$mon"
sleep 1
# One PFC frame per inject run: runs are milliseconds apart, so no pause can overlap the
# next (a single paced run sends frames that fell behind back to back when the CPU is busy,
# and an XOFF that arrives while the previous one runs restarts its timer, as on a NIC).
for i in $(seq 40); do
	ip netns exec "$NSA" "$PFCLAB" inject --quiet -i mfa -c 1 pfc --prio 3 --quanta 100 ||
		{ fail $name "inject failed"; finish; }
done
ip netns exec "$NSA" "$PFCLAB" inject --quiet -i mfa -c 25 -r 2000 cnp \
	--src-ip 10.9.0.2 --dst-ip 10.9.0.1 --qp 0x42 || { fail $name "inject failed"; finish; }
sleep 0.5 # a sample after the last frame
kill -INT "$mon"
wait "$mon"
rc=$?
[ $rc -eq 0 ] || { fail "$name: monitor exit" "$rc: $(cat "$tmp/mon.err")"; finish; }
sum() { jq -s "[.[] | select(.changed) | .changed[\"$1\"].delta // 0] | add" "$tmp/mon.json"; }
pfc=$(sum capture.pfc.prio3.frames) cnp=$(sum capture.cnp.frames) drops=$(sum capture.kernel_drops)
if [ "$pfc" = 40 ] && [ "$cnp" = 25 ] && [ "$drops" = 0 ]; then
	ok "$name: per-interval deltas add up to 40 PFC prio 3 and 25 CNP, 0 drops"
else
	fail "$name" "pfc prio3=$pfc cnp=$cnp drops=$drops, want 40 25 0"
fi
# paused time from the frames' pause timers at the veth's link speed (sysfs): 40 pauses of
# 100 quanta (512 bit times each), none overlapping
speed=$(ip netns exec "$NSB" cat /sys/class/net/mfb/speed 2>/dev/null)
paused=$(sum capture.pfc.prio3.paused_us)
if [ "${speed:-0}" -gt 0 ] 2>/dev/null; then
	want=$(( 40 * (100 * 512 * 1000 / speed) / 1000 ))
	if [ "$paused" = "$want" ]; then
		ok "$name: paused time on priority 3 $paused us at $speed Mb/s (40 x 100 quanta)"
	else
		fail "$name: paused time" "capture.pfc.prio3.paused_us deltas add up to $paused, want $want at $speed Mb/s"
	fi
else
	got=$(jq -s '[.[] | select(.changed) | .changed["capture.pfc.prio3.paused_us"] // empty] | length' "$tmp/mon.json")
	if [ "$got" = 0 ]; then ok "$name: no link speed: no paused time given (not 0)"
	else fail "$name: paused time without a link speed" "$got samples carry it"; fi
fi
same=$(jq -s '[.[] | select(.changed) | select(.changed["capture.pfc.frames"] and .changed["link.rx_packets"])] | length' "$tmp/mon.json")
if [ "$same" -gt 0 ]; then ok "$name: captured frames and link counters in the same samples"
else fail "$name: captured frames and link counters in the same samples" "no sample holds both"; fi
"$PFCLAB" monitor --frames -d nodev >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q -- '--frames needs an interface' "$tmp/err"; then ok "$name: --frames without an interface refused"
else fail "$name: --frames without an interface refused" "rc=$rc $(cat "$tmp/err")"; fi
finish
