#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# top_replay.sh: "pfclab top --replay" shows the numbers of the record: a monitor run is
# recorded on a veth pair while PFC is injected on priorities 3 and 5, then replayed in
# tmux; at the end of the record the screen's totals equal the CSV's last row minus its
# first (PFC per priority, link bytes) and the rates equal the last two rows' delta over
# their mono_ns, what the capture counted marked '*' with its legend on the status line.
# A folder holding two records plays them side by side, each host's header with the
# intervals its monitor missed (one was stopped for 1 s); one that starts later shows
# n/a and no total until it starts, and after G the totals of its record, not 0. A point of a
# results folder (HOST/monitor without --frames, HOST/capture.json from a capture beside
# it, as 'pfclab run' lays them out) shows the capture's counts as whole-run totals
# marked '*', the rates n/a; with the capture's review-timeline.csv beside it (review
# --timeline 10ms of the capture, as the runner writes it), seen/s of PFC per priority,
# CNP and ECN-marked and the paused share, marked '*', on the record's time line, and
# totals equal to what was injected; a timeline with a damaged line is named on the
# screen, line and why, and left out. A record of another format than pfclab-monitor-2 or -1 is
# refused naming the format and the pfclab that wrote it; a meta.json cut short is named so,
# on one line. Without a terminal, --replay is exit 2 saying why.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../tmux.sh"
plan 17
name=top_replay
need_root $name || finish
need_cmd $name tmux ip awk || finish
setup_ns NSA NSB || { fail $name "cannot create namespaces"; finish; }
ip link add tra netns "$NSA" type veth peer name trb netns "$NSB" || { fail $name "veth"; finish; }
ip -n "$NSA" link set tra up && ip -n "$NSB" link set trb up
tmp=$(mktemp -d)
defer rm -rf "$tmp"

rec=$tmp/results/run1/h2
ip netns exec "$NSB" "$PFCLAB" monitor -i trb --frames -I 200ms -D 3s -q --record "$rec" \
	2>"$tmp/mon.err" &
mon=$!
ip netns exec "$NSA" "$PFCLAB" monitor -i tra -I 200ms -D 3s -q --record "$tmp/results/run1/h1" \
	2>/dev/null &
mon2=$!
# h1's monitor held still for 1 s: the intervals it missed are in its record
( sleep 0.3; kill -STOP "$mon2"; sleep 1; kill -CONT "$mon2" ) &
stopper=$!
defer kill -CONT "$mon2"
# a point as 'pfclab run' lays it out: the monitor without --frames, the capture apart
pt=$tmp/run2/points/p000/rep0/h2
mkdir -p "$pt"
ip netns exec "$NSB" "$PFCLAB" monitor -i trb -I 200ms -D 3s -q --record "$pt/monitor" 2>/dev/null &
mon3=$!
ip netns exec "$NSB" "$PFCLAB" capture -i trb -q --json -D 3s --ce --pcapng -w "$pt/capture.pcapng" \
	>"$pt/capture.json" 2>"$tmp/cap.err" &
cap=$!
defer kill "$mon" "$mon2" "$mon3" "$cap"
for _ in $(seq 50); do grep -qs listening "$tmp/cap.err" && break; sleep 0.1; done
sleep 0.8
# with the PFC on priority 3, for 0.3 s: 60 CNPs and 90 CE-marked RoCEv2 packets
ip netns exec "$NSA" "$PFCLAB" inject --quiet -i tra -c 60 -r 200 cnp &
cnp=$!
ip netns exec "$NSA" "$PFCLAB" inject --quiet -i tra -c 90 -r 300 --ecn ce roce &
ce=$!
ip netns exec "$NSA" "$PFCLAB" inject --quiet -i tra -c 120 -r 400 pfc --prio 3 --quanta 100 &&
	wait "$cnp" && wait "$ce" &&
	ip netns exec "$NSA" "$PFCLAB" inject --quiet -i tra -c 30 -r 400 pfc --prio 5 --quanta 100 ||
	{ fail "$name: inject"; finish; }
wait "$stopper"
wait "$mon" && wait "$mon2" && wait "$mon3" || { fail "$name: monitor" "$(cat "$tmp/mon.err")"; finish; }
wait "$cap" || { fail "$name: capture" "$(cat "$tmp/cap.err")"; finish; }

csv=$rec/samples.csv
# col NAME: the CSV column of NAME; want_total NAME: last row minus first.
col() { head -1 "$csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
want_total() { local c; c=$(col "$1"); awk -F, -v c="$c" 'NR == 2 { f = $c } END { print $c - f }' "$csv"; }
# The screen's number format (top_fmt_num): integers under 1000 as they are, then three
# significant digits with k, M, G.
fmt() {
	awk -v v="$1" 'BEGIN {
		if (v == 0) { print "0"; exit }
		if (v < 10 && v != int(v)) { printf "%.2f\n", v; exit }
		s = " kMGTPE"; i = 0
		while (v >= 999.5 && i < 6) { v /= 1000; i++ }
		if (i == 0) printf "%.0f\n", v
		else if (v < 9.995) printf "%.2f%s\n", v, substr(s, i + 1, 1)
		else if (v < 99.95) printf "%.1f%s\n", v, substr(s, i + 1, 1)
		else printf "%.0f%s\n", v, substr(s, i + 1, 1) }'
}
# want_rate NAME MULT: the last two rows' delta over mono_ns, times MULT (8: bits).
want_rate() {
	local c
	c=$(col "$1")
	awk -F, -v c="$c" -v m="$2" '{ pv = v; pt = t; v = $c; t = $2 }
		END { printf "%.6f\n", (v - pv) * 1e9 / (t - pt) * m }' "$csv"
}

tmux_shell 80 24 || { fail $name "tmux"; finish; }
# the row 'ECN marked' (two words): its rx/s, seen/s and total (the columns between blank)
ecn() { screen | awk -v c="$1" '$1 == "ECN" && $2 == "marked" { print $(c + 2); exit }'; }

type_line "$PFCLAB top --replay $rec --paused; echo TOP_EXIT=\$?"
wait_for PAUSED || { fail "$name: replay starts" "$(screen | head -3)"; finish; }
keys G
screen_at_end() { screen | head -1 | grep -qE ' ([0-9.]+) s / \1 s'; }
for ((i = 0; i < 50; i++)); do screen_at_end && break; sleep 0.1; done
bad=''
for p in 0 1 2 3 4 5 6 7; do
	want=$(fmt "$(want_total capture.pfc.prio$p.frames)")'*'
	got=$(cell prio$p 5)
	[ "$got" = "$want" ] || bad+=" prio$p total $got want $want;"
done
want=$(fmt "$(want_total link.rx_bytes)") got=$(cell link 3)
[ "$got" = "$want" ] || bad+=" link rx total $got want $want;"
want=$(fmt "$(want_rate link.rx_bytes 8)") got=$(cell link 1)
[ "$got" = "$want" ] || bad+=" link rx b/s $got want $want;"
want=$(fmt "$(want_rate capture.pfc.prio3.frames 1)")'*' got=$(cell prio3 4)
[ "$got" = "$want" ] || bad+=" prio3 seen/s $got want $want;"
screen | tail -1 | grep -q "^\*: captured frames, not NIC counters; h2: " ||
	bad+=" no legend of '*' on the status line: $(screen | tail -1);"
[ "$(want_total capture.pfc.prio3.frames)" = 120 ] && [ "$(want_total capture.pfc.prio5.frames)" = 30 ] ||
	bad+=" the record holds $(want_total capture.pfc.prio3.frames)/$(want_total capture.pfc.prio5.frames) frames, not 120/30;"
[ -z "$bad" ] && ok "$name: the replayed screen at the end equals the CSV (totals and rates)" ||
	fail "$name: replayed screen vs CSV" "$bad"

# seek back to the start: the first row, totals 0.
keys g
sleep 0.5
[ "$(cell prio3 5)" = '0*' ] && screen | head -1 | grep -q ' 0.0 s /' &&
	ok "$name: g seeks to the start (totals 0)" ||
	fail "$name: g" "$(screen | head -1) prio3 $(cell prio3 5)"
keys q
wait_for 'TOP_EXIT=0' && ok "$name: q ends the replay" || fail "$name: q" "$(screen | tail -2)"

# A results folder with two records: both hosts side by side.
type_line clear
resize 160 30
type_line "$PFCLAB top --replay $tmp/results --paused; echo TOP_EXIT=\$?"
wait_for 'run1/h2' && screen | sed -n 2p | grep -q 'run1/h1 .*run1/h2' &&
	ok "$name: a results folder plays its records side by side" ||
	fail "$name: results folder" "$(screen | sed -n 2p)"
# at the end, each host's header says how many intervals its monitor missed, as its
# record's overruns column adds up (h1's was stopped for 1 s; none said where 0)
keys G
for ((i = 0; i < 50; i++)); do screen_at_end && break; sleep 0.1; done
head2=$(screen | sed -n 2p)
sum() { awk -F, 'NR > 1 { s += $5 } END { print s + 0 }' "$tmp/results/run1/$1/samples.csv"; }
m1=$(sum h1) m2=$(sum h2)
said() { grep -o "run1/$1 [^,]*, [0-9]* missed" <<<"$head2" | grep -o '[0-9]* missed$' | cut -d' ' -f1; }
if [ "$m1" -ge 3 ] && [ "$(said h1)" = "$m1" ] &&
	{ [ "$m2" = 0 ] && [ -z "$(said h2)" ] || [ "$(said h2)" = "$m2" ]; }; then
	ok "$name: each host's header at the end: its record's missed intervals (h1 $m1, h2 $m2)"
else
	fail "$name: missed intervals" "records h1 $m1, h2 $m2; header: $head2"
fi
keys q
wait_for 'TOP_EXIT=0' && ok "$name: q ends the results folder's replay" ||
	fail "$name: q (results folder)" "$(screen | tail -2)"

# A record that starts 2 s after the other (a host whose monitor started late): paused at
# the start, its cells are n/a and its totals blank; G (the end, past its first sample)
# shows the totals of its record, counted from its first sample as the live run's were,
# not 0 from the one sample seen. At 96 columns: both hosts, no sparkline.
late=$tmp/late
mkdir -p "$late"
cp -r "$rec" "$late/a" && cp -r "$rec" "$late/b"
awk -F, -v OFS=, 'NR > 1 { n = length($3); s = substr($3, 1, n - 9) + 2
	$3 = sprintf("%.0f%s", s, substr($3, n - 8)) } 1' "$csv" >"$late/b/samples.csv"
type_line clear
resize 96 30
type_line "$PFCLAB top --replay $late --paused; echo TOP_EXIT=\$?"
wait_for PAUSED
sleep 0.3
before="$(cell prio3 6) $(cell prio3 9) '$(cell prio3 10)' '$(cell link 6)'"
hosts=$(screen | sed -n 2p | xargs)
keys G
for ((i = 0; i < 50; i++)); do screen_at_end && break; sleep 0.1; done
want=$(fmt "$(want_total link.rx_bytes)")
after="$(cell prio3 5) $(cell prio3 10) $(cell link 3) $(cell link 6)"
if [ "$before" = "n/a n/a '' ''" ] && [[ $hosts =~ ^a\ ok.*\ b\ waiting$ ]] &&
	[ "$after" = "120* 120* $want $want" ]; then
	ok "$name: a record that starts later: n/a and no total before it starts, after G its record's totals (prio3 120*, link $want)"
else
	fail "$name: a record that starts later" "before G (b: prio3 rx, seen/s, total, link total): $before ($hosts); after G (prio3 totals, link totals): '$after', want '120* 120* $want $want'"
fi
keys q
wait_for 'TOP_EXIT=0' || fail "$name: q (late record)" "$(screen | tail -2)"

# The point without a timeline: the capture's 120 and 30 PFC frames and 60 CNPs as totals
# marked '*', no rate.
type_line clear
resize 100 30
type_line "$PFCLAB top --replay $tmp/run2/points/p000/rep0 --paused; echo TOP_EXIT=\$?"
wait_for PAUSED && keys G
sleep 0.5
got="$(cell prio3 4) $(cell prio3 5) $(cell prio5 5) $(cell prio0 5) $(cell CNP 4)"	# CNP: no paused cell
if [ "$got" = "n/a 120* 30* 0* 60*" ] && screen | tail -1 | grep -q 'total\*: the whole capture, from capture.json'; then
	ok "$name: a point's capture.json beside a record without frame counters: totals 120*, 30* and 60 CNPs*, rates n/a"
else
	fail "$name: capture.json beside the record" "prio3 seen/s, totals prio3 prio5 prio0 CNP: '$got'; $(screen | tail -1)"
fi
keys q
wait_for 'TOP_EXIT=0' || fail "$name: q (point)" "$(screen | tail -2)"

# The point with the capture's timeline, as the runner writes it: at the end, the totals
# of what was injected, from the timeline (the first sample came before the first frame).
"$PFCLAB" review --timeline 10ms "$pt/capture.pcapng" >"$pt/review-timeline.csv" 2>"$tmp/rev.err" ||
	{ fail "$name: review --timeline" "$(cat "$tmp/rev.err")"; finish; }
type_line clear
type_line "$PFCLAB top --replay $tmp/run2/points/p000/rep0 --paused; echo TOP_EXIT=\$?"
wait_for PAUSED && keys G
sleep 0.5
got="$(cell prio3 5) $(cell prio5 5) $(cell prio0 5) $(cell CNP 4) $(ecn 3)"
if [ "$got" = "120* 30* 0* 60* 90*" ] && screen | tail -1 | grep -q "\*: the capture's, from review-timeline.csv (10ms bins)"; then
	ok "$name: a point's review-timeline.csv: totals 120*, 30*, 60 CNPs*, 90 CE-marked* from the timeline"
else
	fail "$name: timeline totals" "prio3 prio5 prio0 CNP ECN: '$got'; $(screen | tail -1)"
fi
keys q
wait_for 'TOP_EXIT=0' || fail "$name: q (timeline)" "$(screen | tail -2)"

# During the burst on priority 3 (its first bin in the timeline, on the record's wall
# clock, + 0.25 s): seen/s and the paused share of priority 3, CNP and ECN-marked seen/s
# from the timeline, nonzero and marked '*'.
first=$(awk -F, 'NR == 2 { print $3 }' "$pt/monitor/samples.csv")
burst=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pfc_prio3") c = i }
	NR > 1 && c && $c > 0 { print $1; exit }' "$pt/review-timeline.csv")
start=$(awk -v b="$burst" -v f="$first" 'BEGIN { printf "%dms\n", (b - f / 1e9) * 1000 + 250 }')
type_line clear
type_line "$PFCLAB top --replay $tmp/run2/points/p000/rep0 --paused --start $start; echo TOP_EXIT=\$?"
wait_for PAUSED
sleep 0.5
screen >"$tmp/burst.txt"
p3=$(cell prio3 3) s3=$(cell prio3 4) sc=$(cell CNP 3) se=$(ecn 2)
if [[ $p3 =~ ^[0-9.]+%\*$ && $p3 != 0.0%\* && $s3 =~ ^[0-9.]+[kM]?\*$ && $s3 != 0\* &&
	$sc =~ ^[0-9.]+\*$ && $sc != 0\* && $se =~ ^[0-9.]+\*$ && $se != 0\* ]]; then
	ok "$name: during the burst (--start $start): prio3 paused $p3 seen/s $s3, CNP $sc/s, ECN marked $se/s"
else
	fail "$name: during the burst (--start $start, burst at $burst, first sample $first)" \
		"prio3 paused '$p3' seen/s '$s3', CNP '$sc', ECN '$se'; $(tr '\n' '|' <"$tmp/burst.txt")"
fi
keys q
wait_for 'TOP_EXIT=0' || fail "$name: q (burst)" "$(screen | tail -2)"

# A damaged timeline: its line named above the status line, the timeline left out (the
# point plays as without it), and q still ends the replay with exit 0.
cp -r "$tmp/run2" "$tmp/run3"
sed -i '5s/^[^,]*,/5.x,/' "$tmp/run3/points/p000/rep0/h2/review-timeline.csv"
type_line clear
resize 140 30
type_line "$PFCLAB top --replay $tmp/run3/points/p000/rep0 --paused; echo TOP_EXIT=\$?"
wait_for PAUSED && keys G
sleep 0.5
got="$(cell prio3 4) $(cell prio3 5) $(cell CNP 4)"
note=$(screen | tail -2 | head -1)
if [ "$got" = "n/a 120* 60*" ] && [ "$note" = "h2/review-timeline.csv line 5: time_s '5.x' is not seconds.nanoseconds; the capture's timeline is not used" ]; then
	ok "$name: a damaged review-timeline.csv: the note names line 5 and why, the point plays as without it"
else
	fail "$name: damaged timeline" "prio3 seen/s, total, CNP total: '$got'; note: '$note'"
fi
keys q
wait_for 'TOP_EXIT=0' && ok "$name: q ends the replay with a damaged timeline (exit 0)" ||
	fail "$name: q (damaged timeline)" "$(screen | tail -2)"

# A record of a newer format (it was played as if it were this one), and a meta.json cut
# short (json-c's "failed: continue" and a newline in the middle of the message).
cp -r "$rec" "$tmp/newer"
sed -i 's/"format": *"pfclab-monitor-[12]"/"format":"pfclab-monitor-3"/' "$tmp/newer/meta.json"
cp -r "$rec" "$tmp/cut"
head -c 200 "$rec/meta.json" >"$tmp/cut/meta.json"
type_line clear
type_line "$PFCLAB top --replay $tmp/newer; echo TOP_EXIT=\$?"
wait_for 'TOP_EXIT=[0-9]' && got=$(T capture-pane -p -J -t "$TMUX_NAME" | grep '^pfclab top:')
if [[ $got == "pfclab top: $tmp/newer/meta.json: format 'pfclab-monitor-3', not the pfclab-monitor-2 or pfclab-monitor-1 this pfclab reads (written by pfclab "*"): replay it with a pfclab that reads that format" ]] &&
	screen | grep -q 'TOP_EXIT=1'; then
	ok "$name: a record of another format is refused naming it (exit 1)"
else
	fail "$name: newer format" "$(screen | grep -v '^$' | tail -3)"
fi
type_line clear
type_line "$PFCLAB top --replay $tmp/cut; echo TOP_EXIT=\$?"
wait_for 'TOP_EXIT=[0-9]' && got=$(T capture-pane -p -J -t "$TMUX_NAME" | grep '^pfclab top:\|^TOP_EXIT=')
if [ "$got" = "pfclab top: $tmp/cut/meta.json: not a JSON object (it ends before its JSON does: cut short?)
TOP_EXIT=1" ]; then
	ok "$name: a meta.json cut short is named so, on one line (exit 1)"
else
	fail "$name: meta.json cut short" "$got"
fi

# a record its monitor did not finish (killed, or still recording): it plays, and the
# status line says it is unfinished
cp -r "$rec" "$tmp/unfin"
sed -i 's/"finished": *true/"finished": false/' "$tmp/unfin/meta.json"
type_line clear
resize 200 30
type_line "$PFCLAB top --replay $tmp/unfin --paused; echo TOP_EXIT=\$?"
if wait_for PAUSED && wait_for 'samples (unfinished: its monitor did not close it)'; then
	ok "$name: a record whose meta.json says unfinished plays, the status line saying so"
else
	fail "$name: unfinished record" "$(screen | tail -1)"
fi
keys q
wait_for 'TOP_EXIT=[0-9]'

# a finished record plays the segments its meta.json lists: a samples-2.csv beside it
# (left by another run) is not its rows
cp -r "$rec" "$tmp/stray"
cp "$rec/samples.csv" "$tmp/stray/samples-2.csv"
nrow=$(($(wc -l <"$rec/samples.csv") - 1))
type_line clear
type_line "$PFCLAB top --replay $tmp/stray --paused; echo TOP_EXIT=\$?"
if wait_for PAUSED && wait_for ": $nrow samples"; then
	ok "$name: a samples-2.csv its meta.json does not list is left out ($nrow samples, as recorded)"
else
	fail "$name: stray segment" "want $nrow samples: $(screen | tail -1)"
fi
keys q
wait_for 'TOP_EXIT=[0-9]'

out=$("$PFCLAB" top --replay "$rec" </dev/null 2>&1 >/dev/null); rc=$?
if [ $rc -eq 2 ] && [[ $out == *"not a terminal: the replay needs a terminal"* ]]; then
	ok "$name: without a terminal, exit 2: $out"
else
	fail "$name: without a terminal" "rc $rc: $out"
fi
finish
