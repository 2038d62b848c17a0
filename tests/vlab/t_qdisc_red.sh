#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_qdisc_red.sh (vlab guest): the qdisc source on a real RED qdisc with ECN, the impaired
# link's htb + RED on va and vb. Bidirectional perftest sent ECT (--tclass=2) while
# `pfclab monitor --sources qdisc` records both links, `pfclab capture --roce` records va
# and `pfclab inject cnp-on-ce` answers CE on vb. Then: each RED's ecn_marked in the
# record's last sample equals `tc -s qdisc`'s "marked"; the CE-marked RoCEv2 packets in
# the capture equal the two REDs' marks together (va's marks leave on va, vb's arrive on
# va: every marked packet crosses va once); the CNPs follow them (at least one, all of
# them in the capture, never more than the CE marks they answer). And `pfclab doctor
# --congestion-point va` finds the ECN-marking RED; on vb, with ECN turned off, it fails
# with a fix that names vb and the RED's place, and that fix turns marking back on.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 6

name=qdisc_red
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary"; finish; }
# As in t_frames_cnp.sh: a 20 Mbit/s link keeps a standing queue even when the guest is
# slow, and the QP timeout 2^19 * 4 us outlasts the RED queue.
bw_run() { vlab_write_bw "$VLAB_OUT/bw" a -s 65536 -n 100 -b -F --tclass=2 -u 19; }

vlab_impair on 20mbit || { fail $name "impaired link set up"; finish; }
defer vlab_impair off
for l in "$VLAB_IF_A" "$VLAB_IF_B"; do
	"$PFCLAB" monitor -i "$l" --sources qdisc -I 100ms -q --record "$VLAB_OUT/mon-$l" \
		2>"$VLAB_OUT/mon-$l.err" &
	eval "mon_$l=$!"
	defer kill $!
done
"$PFCLAB" capture -i "$VLAB_IF_A" --roce -q --json -d 120s -w "$VLAB_OUT/red.pcap" \
	>"$VLAB_OUT/capture.json" 2>"$VLAB_OUT/capture.err" &
cpid=$!
defer kill $cpid
"$PFCLAB" inject -i "$VLAB_IF_B" cnp-on-ce --dst-mac 02:00:00:00:00:99 -d 120s >"$VLAB_OUT/np.txt" 2>&1 &
npid=$!
defer kill $npid
for _ in $(seq 100); do grep -q listening "$VLAB_OUT/capture.err" && break; sleep 0.1; done
sleep 1
bw_run
rc=$?
sleep 1
kill -INT $npid $cpid
wait $npid $cpid
tc -s qdisc show dev "$VLAB_IF_A" >"$VLAB_OUT/tc-$VLAB_IF_A.txt" 2>&1
tc -s qdisc show dev "$VLAB_IF_B" >"$VLAB_OUT/tc-$VLAB_IF_B.txt" 2>&1
sleep 0.3
kill -INT "$mon_va" "$mon_vb" 2>/dev/null
for l in "$VLAB_IF_A" "$VLAB_IF_B"; do
	eval "wait \$mon_$l"
done
tc -s qdisc show dev "$VLAB_IF_A" >"$VLAB_OUT/tc2-$VLAB_IF_A.txt" 2>&1
tc -s qdisc show dev "$VLAB_IF_B" >"$VLAB_OUT/tc2-$VLAB_IF_B.txt" 2>&1
if [ $rc -eq 0 ]; then
	ok "$name: bidirectional ECT perftest through the RED qdiscs"
else
	fail "$name: perftest" "rc $rc: $(grep -h -i 'error\|fail' "$VLAB_OUT"/bw-*.txt | head -n 3 | tr '\n' ' ')"
fi

tc_marked() { sed -n 's/.*marked \([0-9]*\).*/\1/p' "$1" | head -n 1; }
rec_marked() { # the last reading of qdisc.<dev>.10.ecn_marked (the RED is handle 10:)
	rec_keyed "$VLAB_OUT/mon-$1/samples.jsonl" 2>/dev/null | jq -r --arg m "qdisc.$1.10.ecn_marked" \
		'select(.type == "sample") | .values[$m] // empty' | tail -n 1
}
ta=$(tc_marked "$VLAB_OUT/tc-$VLAB_IF_A.txt"); tb=$(tc_marked "$VLAB_OUT/tc-$VLAB_IF_B.txt")
ta2=$(tc_marked "$VLAB_OUT/tc2-$VLAB_IF_A.txt"); tb2=$(tc_marked "$VLAB_OUT/tc2-$VLAB_IF_B.txt")
ma=$(rec_marked "$VLAB_IF_A"); mb=$(rec_marked "$VLAB_IF_B")
# review's warnings (timestamps going back under TCG) go apart from its JSON
"$PFCLAB" review --json "$VLAB_OUT/red.pcap" >"$VLAB_OUT/review.json" 2>"$VLAB_OUT/review.err"
ce=$(jq '[.ecn_flows[].ce] | add // 0' "$VLAB_OUT/review.json")
cnp=$(jq '.kinds.cnp' "$VLAB_OUT/review.json")
sent=$(sed -n 's/.* cnp_sent \([0-9]*\).*/\1/p' "$VLAB_OUT/np.txt")
drops=$(jq '.interfaces[0].kernel_drops' "$VLAB_OUT/capture.json")
echo "tc marked va=$ta/$ta2 vb=$tb/$tb2 record va=$ma vb=$mb capture ce=$ce cnp=$cnp sent=$sent drops=$drops" |
	tee "$VLAB_OUT/summary.txt"

# The marks stopped with the traffic: tc's two readings agree, so the record's last
# sample (between them) must equal them exactly.
if [ -n "$ta" ] && [ "$ta" = "$ta2" ] && [ "$tb" = "$tb2" ] && [ "$ma" = "$ta" ] &&
   [ "$mb" = "$tb" ] && [ $((ta + tb)) -gt 0 ]; then
	ok "$name: ecn_marked equals tc -s qdisc (va $ma, vb $mb)"
else
	fail "$name: ecn_marked against tc" "tc va $ta/$ta2 vb $tb/$tb2, record va ${ma:-none} vb ${mb:-none}"
fi
if [ "${drops:-x}" = 0 ] && [ -n "$ce" ] && [ "$ce" = $((ta + tb)) ]; then
	ok "$name: the capture's $ce CE-marked RoCEv2 packets equal the RED marks"
else
	fail "$name: CE in the capture" "capture $ce, RED marks va $ta + vb $tb, capture drops ${drops:-n/a}"
fi
dout=$("$PFCLAB" doctor --section cpoint --congestion-point "$VLAB_IF_A" 2>&1)
echo "$dout" >"$VLAB_OUT/doctor.txt"
if grep -qE "^ +OK +$VLAB_IF_A ECN qdisc +red 10: min 30000 max 90000 limit 4000000 B, ecn on" <<<"$dout"; then
	ok "$name: doctor --congestion-point finds the ECN-marking RED"
else
	fail "$name: doctor --congestion-point" "$(tr '\n' ' ' <<<"$dout")"
fi
# RED with ECN off on vb: doctor FAILs with a fix naming vb and where the RED sits (its
# parent and handle); run as given, with RED's parameters, it turns marking on there
red="red limit 4000000 min 30000 max 90000 avpkt 1000 burst 55 probability 0.5 bandwidth 20mbit"
# shellcheck disable=SC2086 # the words of $red are tc's
tc qdisc replace dev "$VLAB_IF_B" parent 1:1 handle 10: $red
dout=$("$PFCLAB" doctor --section cpoint --congestion-point "$VLAB_IF_B" 2>&1)
fix=$(sed -n 's/^ *fix: .*by hand: \(tc qdisc replace dev .*\) red \.\.\. ecn$/\1/p' <<<"$dout")
# shellcheck disable=SC2086
if grep -qE "^ +FAIL +$VLAB_IF_B ECN qdisc +RED 10: on $VLAB_IF_B has ECN marking off" <<<"$dout" &&
	[ "$fix" = "tc qdisc replace dev $VLAB_IF_B parent 1:1 handle 10:" ] && $fix $red ecn &&
	"$PFCLAB" doctor --section cpoint --congestion-point "$VLAB_IF_B" 2>&1 |
	grep -qE "^ +OK +$VLAB_IF_B ECN qdisc +red 10: .*ecn on"; then
	ok "$name: doctor on a RED without ECN: the fix names $VLAB_IF_B, parent 1:1 and handle 10:, and works"
else
	fail "$name: doctor on a RED without ECN" "fix '$fix': $(tr '\n' ' ' <<<"$dout")"
fi
if [ "${cnp:-0}" -gt 0 ] && [ "$cnp" = "$sent" ] && [ "$cnp" -le "${ce:-0}" ]; then
	ok "$name: $cnp CNPs from cnp-on-ce follow the $ce CE marks"
else
	fail "$name: CNPs" "captured ${cnp:-none}, sent ${sent:-none}, CE ${ce:-none}"
fi
finish
