#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# frames_pipe.sh (host): capture and inject whose standard output's reader goes away stop
# at once with exit 1 and one message, 'writing standard output: Broken pipe', not death
# by SIGPIPE. capture first finishes its file: while PFC frames still arrive on a veth
# pair (in namespaces made here), the reader of its stdout is killed; the pcapng it
# leaves is read by review, capinfos and tcpdump, and holds exactly the frames of the
# counts capture printed last. capture -w - keeps its summary out of the capture (on
# stderr) and stops on a closed pipe too. inject, sending, writing -w - or in a
# reactive mode, stops within a second. About 3 s.
source "$(dirname "$0")/../lib.sh"

name=frames_pipe
plan 9
need_root $name || finish
need_cmd $name ip jq || finish
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary at $PFCLAB"; finish; }
tmp=$(mktemp -d)
defer rm -rf "$tmp"
setup_ns NSA NSB || { fail $name "cannot create namespaces"; finish; }
# made inside the namespaces: the names never exist beside other tests' links
A=pfp$$a B=pfp$$b
ip -n "$NSA" link add "$A" type veth peer name "$B" netns "$NSB" ||
	{ fail $name "cannot create a veth pair"; finish; }
ip -n "$NSA" link set "$A" up && ip -n "$NSB" link set "$B" up
ina() { ip netns exec "$NSA" "$PFCLAB" "$@"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
msg='writing standard output: Broken pipe'
# one_msg CMD FILE: FILE has the message once, and no other line of CMD but the ones
# that say what it does (listening, counts sent or written, the reactive start)
one_msg() {
	[ "$(grep -c "^pfclab $1: $msg\$" "$2")" -eq 1 ] &&
		! grep "^pfclab $1: " "$2" | grep -v -e "$msg" -e ': listening on ' \
			-e ': sent [0-9]* ' -e ': answering ' -e ': PFC on ' | grep -q .
}

# capture -w FILE into a FIFO whose reader is killed while PFC frames still arrive
mkfifo "$tmp/out"
sleep 30 <"$tmp/out" &
reader=$!
defer kill "$reader"
ip netns exec "$NSB" "$PFCLAB" capture -i "$B" -I 100ms -D 10s --pcapng -w "$tmp/c.pcapng" \
	>"$tmp/out" 2>"$tmp/cap.err" &
cap=$!
defer kill "$cap"
for _ in $(seq 100); do grep -q listening "$tmp/cap.err" && break; sleep 0.1; done
# started directly (not through ina), so that $! is inject and SIGINT reaches it
ip netns exec "$NSA" "$PFCLAB" inject -i "$A" -r 5000 -D 3s pfc --prio 3 --quanta 7 \
	2>"$tmp/inj.err" &
inj=$!
defer kill "$inj"
sleep 0.5
kill "$reader"
t0=$(now_ms)
wait "$cap"
rc=$?
ms=$(($(now_ms) - t0))
kill -INT "$inj" 2>/dev/null
wait "$inj"
# the counts line just before the message is capture's last word on what it counted
n=$(tail -n 2 "$tmp/cap.err" | sed -n '1s/^ *[0-9.]*s frames \([0-9]*\) .*/\1/p')
if [ $rc -eq 1 ] && one_msg capture "$tmp/cap.err" && [ "$ms" -lt 1000 ] && [ -n "$n" ] &&
	[ "$n" -gt 0 ] && [ "$n" -lt 15000 ]; then
	ok "$name: capture, stdout's reader killed: exit 1 after $ms ms, one message, last counts $n frames"
else
	fail "$name: capture with stdout's reader killed" "exit $rc after $ms ms, counts '$n': $(tail -n 4 "$tmp/cap.err" | tr '\n' '|')"
fi
got=$("$PFCLAB" review --json "$tmp/c.pcapng" 2>"$tmp/rev.err" | jq -r '"\(.frames) \(.kinds.pfc)"')
rrc=${PIPESTATUS[0]}
if [ "$rrc" -eq 0 ] && [ "$got" = "$n $n" ]; then
	ok "$name: the capture file is whole: review reads $n PFC frames, as capture counted"
else
	fail "$name: capture file after a closed pipe" "review exit $rrc, frames/pfc '$got', counted '$n': $(cat "$tmp/rev.err")"
fi
if need_cmd "$name: capinfos and tcpdump read the file" capinfos tcpdump; then
	ci=$(capinfos -Mc "$tmp/c.pcapng" 2>&1 | sed -n 's/^Number of packets: *//p')
	td=$(tcpdump -nr "$tmp/c.pcapng" 2>/dev/null | wc -l)
	if [ "$ci" = "$n" ] && [ "$td" = "$n" ]; then
		ok "$name: capinfos and tcpdump read the file: $n frames each"
	else
		fail "$name: capinfos and tcpdump read the file" "capinfos '$ci', tcpdump '$td', counted '$n'"
	fi
fi

# capture -w -: a whole capture on stdout (the summary on stderr, not in the capture)
ip netns exec "$NSB" "$PFCLAB" capture -i "$B" -q -c 5 -D 10s -w - 2>"$tmp/cs.err" |
	"$PFCLAB" review --json - >"$tmp/cs.json" 2>&1 &
csp=$!
for _ in $(seq 100); do grep -q listening "$tmp/cs.err" && break; sleep 0.1; done
ina inject --quiet -i "$A" -c 5 pfc --prio 1 --quanta 3
wait "$csp"
got=$(jq -r '"\(.frames) \(.kinds.pfc) \(.files[0].error)"' "$tmp/cs.json" 2>/dev/null)
if [ "$got" = "5 5 null" ] && grep -q '^written   5 frames to 1 file$' "$tmp/cs.err"; then
	ok "$name: capture -w - | review -: 5 frames, the summary on stderr"
else
	fail "$name: capture -w - | review -" "review '$got': $(head -c 300 "$tmp/cs.json") / $(tr '\n' '|' <"$tmp/cs.err")"
fi
# ... and into a reader that takes 100 bytes and goes
ip netns exec "$NSA" "$PFCLAB" inject --quiet -i "$A" -r 5000 -D 3s pfc --prio 2 --quanta 5 &
inj=$!
defer kill "$inj"
t0=$(now_ms)
ip netns exec "$NSB" "$PFCLAB" capture -i "$B" -q -D 10s -w - 2>"$tmp/cw.err" | head -c 100 >/dev/null
rc=${PIPESTATUS[0]}
ms=$(($(now_ms) - t0))
kill -INT "$inj" 2>/dev/null
wait "$inj"
if [ "$rc" -eq 1 ] && one_msg capture "$tmp/cw.err" && [ "$ms" -lt 2000 ]; then
	ok "$name: capture -w - | head -c 100: exit 1 after $ms ms, one message"
else
	fail "$name: capture -w - | head -c 100" "exit $rc after $ms ms: $(tr '\n' '|' <"$tmp/cw.err")"
fi

# inject: its reader goes after 0.2 s, in a 5 s run: sending, writing -w -, reactive
t0=$(now_ms)
ina inject -i "$A" -r 1000 -D 5s pfc --prio 3 2>"$tmp/i1.err" | sleep 0.2
rc=${PIPESTATUS[0]}
ms=$(($(now_ms) - t0))
sent=$(sed -n 's/^pfclab inject: sent \([0-9]*\) pfc frames.*/\1/p' "$tmp/i1.err")
if [ "$rc" -eq 1 ] && one_msg inject "$tmp/i1.err" && [ "$ms" -lt 1000 ] && [ -n "$sent" ] &&
	[ "$sent" -lt 1000 ]; then
	ok "$name: inject -i -r 1000 -D 5s | sleep 0.2: exit 1 after $ms ms, $sent frames sent, one message"
else
	fail "$name: inject -i -D 5s, reader gone" "exit $rc after $ms ms: $(tr '\n' '|' <"$tmp/i1.err")"
fi
t0=$(now_ms)
ina inject -w - -r 1000000 -D 5s pfc --prio 3 2>"$tmp/i2.err" | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
ms=$(($(now_ms) - t0))
if [ "$rc" -eq 1 ] && one_msg inject "$tmp/i2.err" && [ "$ms" -lt 1000 ]; then
	ok "$name: inject -w - -r 1000000 -D 5s | head -c 1: exit 1 after $ms ms, one message"
else
	fail "$name: inject -w - | head -c 1" "exit $rc after $ms ms: $(tr '\n' '|' <"$tmp/i2.err")"
fi
t0=$(now_ms)
ina inject -i "$A" -D 5s pfc-on-backlog --qdisc-dev "$A" --xoff-bytes 10000 --xon-bytes 100 \
	--prio 3 2>"$tmp/i3.err" | sleep 0.2
rc=${PIPESTATUS[0]}
ms=$(($(now_ms) - t0))
if [ "$rc" -eq 1 ] && one_msg inject "$tmp/i3.err" && [ "$ms" -lt 1000 ]; then
	ok "$name: inject pfc-on-backlog -D 5s | sleep 0.2: exit 1 after $ms ms, one message"
else
	fail "$name: inject pfc-on-backlog, reader gone" "exit $rc after $ms ms: $(tr '\n' '|' <"$tmp/i3.err")"
fi
t0=$(now_ms)
ina inject -i "$A" -D 5s cnp-on-ce 2>"$tmp/i4.err" | sleep 0.2
rc=${PIPESTATUS[0]}
ms=$(($(now_ms) - t0))
if [ "$rc" -eq 1 ] && one_msg inject "$tmp/i4.err" && [ "$ms" -lt 1000 ]; then
	ok "$name: inject cnp-on-ce -D 5s | sleep 0.2: exit 1 after $ms ms, one message"
else
	fail "$name: inject cnp-on-ce, reader gone" "exit $rc after $ms ms: $(tr '\n' '|' <"$tmp/i4.err")"
fi
finish
