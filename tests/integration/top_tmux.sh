#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# top_tmux.sh: "pfclab top" in a real terminal (tmux, 80x24) on a veth pair in two
# namespaces while "pfclab inject" sends PFC on priority 3: the prio3 row counts exactly
# the injected frames and every other priority stays 0; values the device cannot give
# show n/a; what comes from the captured frames (seen/s, the paused share from their
# pause times, totals taken from them) is marked '*', explained on the status line, and
# the link counters are not; freeze, baseline, resize and quit work; the terminal is
# given back (alternate screen left, prompt back, stty settings unchanged) after q and
# after SIGTERM. HOST:IFACE with an empty host or interface is exit 2 naming it. A
# sampler held still (frozen) shows the intervals it missed in the host's header.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../tmux.sh"
plan 27
name=top_tmux
need_root $name || finish
need_cmd $name tmux ip || finish
setup_ns NSA NSB || { fail $name "cannot create namespaces"; finish; }
ip link add tta netns "$NSA" type veth peer name ttb netns "$NSB" || { fail $name "veth"; finish; }
ip -n "$NSA" link set tta up && ip -n "$NSB" link set ttb up
tmp=$(mktemp -d)
defer rm -rf "$tmp"
tmux_shell 80 24 || { fail $name "tmux"; finish; }
inject() { ip netns exec "$NSA" "$PFCLAB" inject --quiet -i tta -r 500 "$@" pfc --prio 3 --quanta 100; }

type_line "stty -a >$tmp/stty.before; clear"
start_top() { # [ENV=VALUE]: started with that in its environment
	type_line "sh -c 'echo \$\$ >$tmp/pid; exec env $1 ip netns exec $NSB $PFCLAB top -i ttb --frames -I 200ms --record-dir $tmp/rec'; echo TOP_EXIT=\$?"
	wait_for ' prio3 ' && wait_for 'ok [0-9]'
}
start_top || { fail "$name: starts" "$(screen | head -5)"; finish; }
[ "$(alternate_on)" = 1 ] && ok "$name: on the alternate screen" ||
	fail "$name: on the alternate screen" "alternate_on is not 1"

# n/a where veth has no counter (no ethtool PFC, no DCB), 0 where it has one.
[ "$(cell prio3 1)" = n/a ] && [ "$(cell prio3 2)" = n/a ] && [ "$(cell link 1)" != n/a ] &&
	ok "$name: PFC counters veth lacks show n/a, link counters show values" ||
	fail "$name: n/a cells" "$(screen | grep -E 'prio3|link')"

inject -c 300 &
inj=$!
# While frames arrive (500/s) the screen shows a prio3 rate; read it at the first
# refresh that does. A host stall can hold the sender or the sampler, so no rate is
# bounded from below by the pacing; from above, one 200 ms sample can hold at most
# all 300 frames (1500/s). Others read 0.
rate=
for i in $(seq 100); do
	rate=$(cell prio3 4)
	case $rate in [1-9]*) break ;; esac
	sleep 0.05
done
rother=$(for p in 0 1 2 4 5 6 7; do cell prio$p 4; done | sort -u | tr '\n' ' ')
wait $inj || { fail "$name: inject"; finish; }
awk -v r="$rate" 'BEGIN { exit !(r + 0 > 0 && r + 0 <= 1500) }' && [ "$rother" = "0* " ] &&
	ok "$name: while injecting, prio3 seen/s moves ($rate), other priorities 0" ||
	fail "$name: prio3 rate" "prio3 seen/s '$rate', others '$rother'"
sleep 0.6	# three samples of 200 ms after the last frame
got=$(cell prio3 5) others=$(for p in 0 1 2 4 5 6 7; do cell prio$p 5; done | sort -u | tr '\n' ' ')
[ "$got" = '300*' ] && [ "$others" = "0* " ] &&
	ok "$name: prio3 total counts the 300 injected frames, other priorities stay 0" ||
	fail "$name: prio3 row" "prio3 total '$got', others '$others'; $(screen | grep prio)"
# veth counts no PFC and no pause time: the paused share and the totals are the capture's,
# marked like seen/s; the link row is the kernel's counters, unmarked; the legend is on
# the status line.
paused=$(cell prio3 3) link="$(cell link 1) $(cell link 3)"
if [[ $paused =~ ^[0-9.]+%\*$ ]] && [[ $link != *'*'* ]] &&
	screen | tail -1 | grep -q "^\*: captured frames, not NIC counters"; then
	ok "$name: the capture's figures marked '*' (paused $paused, total $got), the link's not ($link), the legend on the status line"
else
	fail "$name: capture marks" "prio3 paused '$paused', link '$link'; status: $(screen | tail -1)"
fi

# freeze: the table does not move while frames arrive; space again and it catches up.
keys ' '
frozen=no
wait_for FROZEN && frozen=yes
sleep 0.3
before=$(screen | sed -n '3,23p')
inject -c 100
sleep 0.6
after=$(screen | sed -n '3,23p')
[ $frozen = yes ] && [ "$before" = "$after" ] && [ "$(cell prio3 5)" = '300*' ] &&
	ok "$name: space freezes the screen" ||
	fail "$name: space freezes the screen" "FROZEN shown: $frozen; $(diff <(echo "$before") <(echo "$after") | head -4)"
keys ' '
sleep 0.6
[ "$(cell prio3 5)" = '400*' ] && ok "$name: space again shows the frames sent while frozen" ||
	fail "$name: unfreeze" "prio3 total $(cell prio3 5), want 400*"

# baseline: z counts from now.
keys z
sleep 0.6
z0=$(cell prio3 5)
inject -c 50
sleep 0.6
z1=$(cell prio3 5)
[ "$z0" = '0*' ] && [ "$z1" = '50*' ] && ok "$name: z: totals from now (0, then 50 after 50 frames)" ||
	fail "$name: z baseline" "after z '$z0', after 50 more '$z1'"

# colours: the host state is green (NO_COLOR is checked below).
screen_colours | grep -q $'\e\\[3[0-7]m\|\e\\[38;5' &&
	ok "$name: colours without NO_COLOR" || fail "$name: colours" "no colour sequence on screen"

# r: records in the monitor's format while frames arrive; r again stops.
keys r
rec=no
wait_for '\[REC\]' && rec=yes
inject -c 20
sleep 0.6
keys r
sleep 0.5
rc_tot=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "capture.pfc.prio3.frames") c = i }
	NR == 2 { f = $c } END { print $c - f }' "$tmp/rec/samples.csv" 2>/dev/null)
[ $rec = yes ] && [ "$rc_tot" = 20 ] && grep -q '"finished": *true' "$tmp/rec/meta.json" && ! screen | head -1 | grep -q REC &&
	ok "$name: r records the 20 frames in the monitor's record format, r stops it" ||
	fail "$name: r record" "[REC] shown: $rec; CSV prio3 delta '$rc_tot'; $(grep finished "$tmp/rec/meta.json"); $(screen | head -1)"

# r again: the record made above is kept, this one goes to rec-2 (it replaced the first).
keys r
wait_for '\[REC\]'
again=$?
sleep 0.5
keys r
sleep 0.5
rc_tot2=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "capture.pfc.prio3.frames") c = i }
	NR == 2 { f = $c } END { print $c - f }' "$tmp/rec/samples.csv" 2>/dev/null)
[ $again = 0 ] && [ "$rc_tot2" = 20 ] && grep -q '"finished": *true' "$tmp/rec-2/meta.json" &&
	ok "$name: r again records to rec-2, the first record kept (its 20 frames)" ||
	fail "$name: r again" "CSV prio3 delta '$rc_tot2'; $(ls -d "$tmp"/rec*); $(screen | tail -1)"

# focus and help are drawn; refresh changes.
keys 3
wait_for 'focus prio 3' && ok "$name: 3 focuses priority 3" || fail "$name: focus" "$(screen | head -1)"
keys -
wait_for 'refresh 0.5s' && ok "$name: - slows the refresh (0.2 s -> 0.5 s)" || fail "$name: refresh" "$(screen | head -1)"
keys '?'
wait_for 'pfclab top: keys' && ok "$name: ? shows the keys" || fail "$name: help" "$(screen | head -12)"
keys x

# resize: larger, then smaller than 80x24; the title follows the width, the rows stay.
resize 120 40
sleep 0.8
w=$(screen | head -1 | sed 's/ *$//' | wc -L)
resize 60 16
sleep 0.8
w2=$(screen | head -1 | sed 's/ *$//' | wc -L)
[ "$w" -eq 118 ] && [ "$w2" -eq 58 ] && screen | grep -q 'prio' &&
	ok "$name: resize to 120x40 and 60x16 redraws to the new width" ||
	fail "$name: resize" "title widths $w $w2; $(screen | head -3)"
resize 80 24
sleep 0.5

# q: the alternate screen is left, the shell prompt is back, stty is as before.
keys q
wait_for 'TOP_EXIT=0' && [ "$(alternate_on)" = 0 ] &&
	screen | grep -q '^PROMPT\$ ' &&
	ok "$name: q exits 0 and leaves the alternate screen" ||
	fail "$name: q" "$(screen | tail -4)"
type_line "stty -a >$tmp/stty.q"
sleep 0.5
cmp -s "$tmp/stty.before" "$tmp/stty.q" && ok "$name: terminal settings restored after q" ||
	fail "$name: stty after q" "$(diff "$tmp/stty.before" "$tmp/stty.q" | head -3)"

# SIGTERM: the same.
type_line clear
again=no
start_top NO_COLOR=1 && again=yes
screen_colours | grep -q $'\e\\[3[0-7]m\|\e\\[38;5' &&
	fail "$name: NO_COLOR" "colour sequences on screen" || ok "$name: NO_COLOR: no colours"
# The sampler held still for 1.2 s (the cgroup freezer: top stays the terminal's
# foreground job): the intervals it missed, in the host's header.
if [ $again = yes ] && freeze_for "$(cat "$tmp/pid")" 1.2; then
	wait_for 'ok [0-9.]*s, [0-9]* missed' 30
	missed=$(screen | sed -n 2p | grep -o '[0-9]* missed' | cut -d' ' -f1)
	[ "${missed:-0}" -ge 3 ] && [ "$missed" -le 8 ] &&
		ok "$name: 1.2 s frozen at 200 ms: $missed missed intervals in the host's header" ||
		fail "$name: missed intervals" "want 3-8 in: $(screen | sed -n 2p)"
	# a record begun after them counts only its own: meta.json's overruns_total is
	# what its overruns column adds up to
	keys r
	wait_for '\[REC\]'
	sleep 0.6
	keys r
	sleep 0.5
	newest=$(ls -td "$tmp"/rec* | head -1)
	total=$(grep -o '"overruns_total": *[0-9]*' "$newest/meta.json" | grep -o '[0-9]*$')
	sum=$(awk -F, 'NR > 1 { s += $5 } END { print s + 0 }' "$newest/samples.csv")
	[ -n "$total" ] && [ "$total" = "$sum" ] && [ "$total" -lt "${missed:-0}" ] &&
		ok "$name: a record begun after them: overruns_total $total, as its rows add up" ||
		fail "$name: overruns_total of a later record" "meta.json '$total', rows $sum, missed before $missed ($newest)"
else
	skip "$name: missed intervals" "no cgroup freezer here"
	skip "$name: overruns_total of a later record" "no cgroup freezer here"
fi
kill -TERM "$(cat "$tmp/pid")"
[ $again = yes ] && wait_for 'TOP_EXIT=[0-9]' && [ "$(alternate_on)" = 0 ] &&
	ok "$name: SIGTERM leaves the alternate screen ($(screen | grep -o 'TOP_EXIT=[0-9][0-9]*'))" ||
	fail "$name: SIGTERM" "$(screen | tail -4)"
type_line "stty -a >$tmp/stty.term"
sleep 0.5
cmp -s "$tmp/stty.before" "$tmp/stty.term" && screen | grep -q '^PROMPT\$ ' &&
	ok "$name: terminal settings and prompt restored after SIGTERM" ||
	fail "$name: stty after SIGTERM" "$(diff "$tmp/stty.before" "$tmp/stty.term" | head -3)"

# in a terminal, a GPU address that is no NVIDIA GPU here: one line before the screen is
# taken, exit 2 as pfclab monitor gives
type_line clear
type_line "$PFCLAB top --gpu 0000:00:00.0; echo TOP_EXIT=\$?"
wait_for 'TOP_EXIT=[0-9]' && screen | grep -q "^pfclab top: --gpu '0000:00:00.0': .*NVIDIA GPU" &&
	screen | grep -q 'TOP_EXIT=2' && [ "$(alternate_on)" = 0 ] &&
	ok "$name: --gpu 0000:00:00.0: $(screen | grep -m1 -o 'there is no NVIDIA GPU.*\|is not an NVIDIA GPU.*'), exit 2" ||
	fail "$name: --gpu address" "$(screen | tail -4)"

# a terminal TERM cannot drive (dumb: no cursor motion; a name terminfo lacks): the
# monitor's text, saying why, for the local host; a replay exits 2 saying why. Before,
# dumb drew a blank screen and an unknown TERM ended in ncurses' own "Error opening
# terminal" with exit 1.
for term in dumb no-such-term; do
	type_line clear
	T clear-history -t "$TMUX_NAME"
	type_line "env TERM=$term timeout -s INT 1.5 ip netns exec $NSB $PFCLAB top -i ttb -I 300ms; echo TOP_EXIT=\$?; env TERM=$term $PFCLAB top --replay $tmp/rec; echo REPLAY_EXIT=\$?"
	wait_for 'REPLAY_EXIT=[0-9]'
	all=$(T capture-pane -p -J -S -200 -t "$TMUX_NAME")
	if grep -q "^pfclab top: warning: TERM=$term .*printing the counters as text" <<<"$all" &&
		grep -q '^#1 .*baseline' <<<"$all" && grep -q '^TOP_EXIT=124' <<<"$all" &&
		grep -q "^pfclab top: TERM=$term .*the replay needs a terminal" <<<"$all" &&
		grep -q '^REPLAY_EXIT=2' <<<"$all" && ! grep -q 'Error opening terminal' <<<"$all"; then
		ok "$name: TERM=$term: text output saying why; a replay exits 2 saying why"
	else
		fail "$name: TERM=$term" "$(grep -v '^$' <<<"$all" | grep -v '^  ' | tail -8)"
	fi
done

# HOST:IFACE with one side empty: exit 2 naming it, before the terminal is looked at
# (the empty interface went to the remote monitor as --iface=, the empty host to ssh)
hmsgs=
for h in 'h1:' ':ttb' 'h1:ttb h2:'; do
	# shellcheck disable=SC2086 # the words of $h are the hosts
	m=$("$PFCLAB" top $h </dev/null 2>&1 >/dev/null); rc=$?
	case $h in
	:*) want="HOST ':ttb': no host before ':'; give HOST:IFACE" ;;
	*) want="HOST '${h##* }': no interface after ':'; give HOST:IFACE, or HOST alone with -i IFACE" ;;
	esac
	[ $rc -eq 2 ] && [[ $m == "pfclab top: $want"* ]] && [ "$(wc -l <<<"$m")" -eq 1 ] ||
		hmsgs+="[$h: exit $rc: $m] "
done
[ -z "$hmsgs" ] && ok "$name: HOST:IFACE with an empty host or interface: exit 2 naming it" ||
	fail "$name: empty HOST or IFACE" "$hmsgs"

# not a terminal: the monitor's text output.
ip netns exec "$NSB" timeout 2 "$PFCLAB" top -i ttb -I 100ms >"$tmp/text" 2>&1 </dev/null &
txt=$!
sleep 0.7
inject -c 20
wait $txt
out=$(head -c 2000 "$tmp/text")
echo "$out" | grep -qE '^#[0-9]+ ' && ok "$name: not a terminal: monitor text output" ||
	fail "$name: not a terminal" "$(echo "$out" | head -3)"
finish
