#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# capture_opts.sh: capture and inject options that must fail early or hold exactly:
# a repeated -i is refused; -w to a full or missing target fails at the start with the
# path and the reason; -G rotates on its period and -W limits the file count (a ring
# with -C, a stop with -G); inject --len is checked against the interface's MTU before
# anything is sent. inject -D 1s -r 10 sends 10 frames in 1 s; --pause-time takes the
# veth's link speed from sysfs; both commands take --iface for -i; capture -D 1s prints
# its last counts once (summary), piped and on a terminal (tmux). Runs in namespaces
# made here, in about 8 s.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../tmux.sh"

name=capture_opts
plan 17
need_root $name || finish
need_cmd $name ip jq || finish
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary at $PFCLAB"; finish; }
tmp=$(mktemp -d)
defer rm -rf "$tmp"
setup_ns NSA NSB || { fail $name "cannot create namespaces"; finish; }
ip link add pfcoa type veth peer name pfcob || { fail $name "cannot create a veth pair"; finish; }
defer ip link del pfcoa
ip link set pfcoa netns "$NSA" && ip link set pfcob netns "$NSB"
ip -n "$NSA" link set pfcoa up && ip -n "$NSB" link set pfcob up
inb() { ip netns exec "$NSB" "$PFCLAB" "$@"; }
ina() { ip netns exec "$NSA" "$PFCLAB" "$@"; }

# the same interface twice
inb capture -i pfcob -i pfcob -D 1s >/dev/null 2>"$tmp/twice.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "pfcob.: given twice" "$tmp/twice.err"; then
	ok "$name: -i pfcob -i pfcob refused (exit 2, names the interface)"
else
	fail "$name: repeated -i" "exit $rc: $(cat "$tmp/twice.err")"
fi

# a full target: the header cannot be written, said at once (not after -D 30s)
inb capture -i pfcob -q -D 30s -w /dev/full >/dev/null 2>"$tmp/full.err"
rc=$?
if [ $rc -eq 1 ] && grep -q "/dev/full: cannot write: No space left on device" "$tmp/full.err" &&
	! grep -q listening "$tmp/full.err"; then
	ok "$name: -w /dev/full fails before capture starts, with the path and ENOSPC"
else
	fail "$name: -w /dev/full" "exit $rc: $(cat "$tmp/full.err")"
fi
inb capture -i pfcob -q -D 30s -w "$tmp/no/such/dir.pcap" >/dev/null 2>"$tmp/nodir.err"
rc=$?
if [ $rc -eq 1 ] && grep -q "$tmp/no/such/dir.pcap: cannot create: No such file or directory" \
	"$tmp/nodir.err"; then
	ok "$name: -w into a missing folder fails at the start with the path and ENOENT"
else
	fail "$name: -w missing folder" "exit $rc: $(cat "$tmp/nodir.err")"
fi

# -G 5ms for 500 ms: 100 periods. Bounded, not exact: a period in which the process
# was not scheduled at all is skipped (the files stay on the period grid), and the
# last file may start just before the end. The old 50 ms wakeup gave about 10.
mkdir "$tmp/g"
inb capture -i pfcob -q -G 5ms -D 500ms -w "$tmp/g/r.pcap" >/dev/null 2>&1
n=$(ls "$tmp/g" | wc -l)
if [ "$n" -ge 40 ] && [ "$n" -le 101 ]; then
	ok "$name: -G 5ms over 500 ms wrote $n files (40..101)"
else
	fail "$name: -G 5ms" "$n files over 500 ms, want 40..101"
fi
# -G 1ms -W 20: exactly 20 files, then capture ends by itself (exit 0)
mkdir "$tmp/w"
inb capture -i pfcob -q -G 1ms -W 20 -D 30s -w "$tmp/w/r.pcap" >"$tmp/w.out" 2>&1
rc=$?
n=$(ls "$tmp/w" | wc -l)
if [ $rc -eq 0 ] && [ "$n" -eq 20 ] && [ -f "$tmp/w/r.pcap.19" ]; then
	ok "$name: -G 1ms -W 20 wrote r.pcap.0..19 and stopped"
else
	fail "$name: -G -W" "exit $rc, $n files: $(ls "$tmp/w" | tr '\n' ' ')"
fi
inb capture -i pfcob -W 3 -w "$tmp/x.pcap" -D 1s >/dev/null 2>"$tmp/wnorot.err"
rc=$?
if [ $rc -eq 2 ]; then
	ok "$name: -W without -C or -G is a usage error"
else
	fail "$name: -W alone" "exit $rc: $(cat "$tmp/wnorot.err")"
fi
# a filter libpcap cannot parse is a usage error, refused before any interface is opened;
# a size below the least names the least as a size (64K) and examples it takes
inb capture -i pfcob -f 'ether prot 5' -D 1s >/dev/null 2>"$tmp/badf.err"
rc=$?
inb capture -i pfcob -B 12 -D 1s >/dev/null 2>"$tmp/badb.err"
rcb=$?
if [ $rc -eq 2 ] && grep -q "^pfclab capture: -f 'ether prot 5': .*syntax error.*pcap-filter(7)" "$tmp/badf.err" &&
	[ $rcb -eq 2 ] && grep -q "expected a size from 64K to 2G (e.g. 1M, 64M, 1G)" "$tmp/badb.err"; then
	ok "$name: -f with a syntax error and -B 12 are usage errors (exit 2) saying why"
else
	fail "$name: -f / -B errors" "exit $rc / $rcb: $(cat "$tmp/badf.err" "$tmp/badb.err")"
fi

# -C 4K -W 3: 400 PFC frames (76 bytes a record, about 30 KB) cycle through 3 files
mkdir "$tmp/c"
inb capture -i pfcob -q --json -c 400 -D 30s -C 4K -W 3 -w "$tmp/c/r.pcap" \
	>"$tmp/c.json" 2>"$tmp/c.err" &
cap=$!
defer kill "$cap"
for _ in $(seq 100); do grep -q listening "$tmp/c.err" && break; sleep 0.1; done
ina inject --quiet -i pfcoa -c 400 -r 100000 pfc --prio 2 --quanta 5
wait "$cap"
rc=$?
files=$(ls "$tmp/c" | tr '\n' ' ')
kept=$("$PFCLAB" review --json "$tmp"/c/r.pcap.* | jq .kinds.pfc)
# each full file holds 4K / 76 = 54 records or just over; three hold 120..240 of 400
if [ $rc -eq 0 ] && [ "$files" = "r.pcap.0 r.pcap.1 r.pcap.2 " ] && [ "$kept" -ge 120 ] &&
	[ "$kept" -lt 400 ]; then
	ok "$name: -C 4K -W 3 keeps a ring of 3 files ($kept of 400 frames, the newest)"
else
	fail "$name: -C -W" "exit $rc, files '$files', $kept frames kept"
fi

# --no-immediate, stopped by SIGINT right after the last frame: the kernel's partly
# filled block is still collected, all 500 frames counted
# started directly (not through a function), so that $! is capture itself: ip netns
# exec execs it, and SIGINT reaches it
ip netns exec "$NSB" "$PFCLAB" capture -i pfcob --no-immediate -q --json -D 30s \
	>"$tmp/ni.json" 2>"$tmp/ni.err" &
cap=$!
defer kill "$cap"
for _ in $(seq 100); do grep -q listening "$tmp/ni.err" && break; sleep 0.1; done
ina inject --quiet -i pfcoa -c 500 -r 100000 pfc --prio 4 --quanta 9
kill -INT "$cap"
wait "$cap"
rc=$?
got=$(jq -r '"\(.kinds.pfc) \(.interfaces[0].kernel_drops)"' "$tmp/ni.json" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$got" = "500 0" ]; then
	ok "$name: --no-immediate stopped at once still counts all 500 frames of its last block"
else
	fail "$name: --no-immediate end" "exit $rc, pfc/drops '$got' (want '500 0')"
fi

# inject --len against the MTU: 1500 takes 1400 bytes of payload, not 1500; 9000 takes 8900
ina inject --quiet -i pfcoa -c 1 roce --len 1500 >/dev/null 2>"$tmp/len.err"
rc=$?
if [ $rc -eq 1 ] && grep -q "does not fit the interface's MTU of 1500" "$tmp/len.err"; then
	ok "$name: inject --len 1500 at MTU 1500 refused before sending, MTU named"
else
	fail "$name: --len over MTU" "exit $rc: $(cat "$tmp/len.err")"
fi
ip -n "$NSA" link set pfcoa mtu 9000 && ip -n "$NSB" link set pfcob mtu 9000
if ina inject --quiet -i pfcoa -c 1 roce --len 1400 2>"$tmp/len.err" &&
	ina inject --quiet -i pfcoa -c 4 roce --len 8900 2>>"$tmp/len.err"; then
	ok "$name: inject --len 1400 and 8900 sent at MTU 9000"
else
	fail "$name: --len within MTU" "$(cat "$tmp/len.err")"
fi
ina inject --quiet -w "$tmp/j.pcap" -c 2 roce --len 9000 2>"$tmp/len.err"
got=$("$PFCLAB" review --json "$tmp/j.pcap" | jq .bytes)
# 9000 payload + 14 Ethernet + 20 IPv4 + 8 UDP + 12 BTH + 16 RETH + 4 ICRC = 9074 a frame
if [ "$got" = "$((2 * 9074))" ]; then
	ok "$name: inject --len 9000 -w writes two 9074-byte frames"
else
	fail "$name: --len 9000 -w" "review bytes '$got', want 18148: $(cat "$tmp/len.err")"
fi
# -D 1s -r 10: frames due at 0, 0.1, ..., 0.9 s, ten on the wire, and the run lasts 1 s;
# --pause-time 1ms at the veth's 10 Gb/s (sysfs) is 19531 quanta; --iface is -i
ip netns exec "$NSB" "$PFCLAB" capture --iface pfcob -q --json --pcapng -w "$tmp/rd.pcap" -D 30s \
	>"$tmp/rd.json" 2>"$tmp/rd.err" &
cap=$!
defer kill "$cap"
for _ in $(seq 100); do grep -q listening "$tmp/rd.err" && break; sleep 0.1; done
stall_start
ina inject --iface pfcoa -D 1s -r 10 pause 2>"$tmp/rd.inj"
stall=$(stall_ms)
ina inject -i pfcoa -c 1 pfc --pause-time 1ms 2>"$tmp/pt.inj"
sleep 0.2
kill -INT "$cap"
wait "$cap"
got=$(jq -r '"\(.kinds.pause) \(.kinds.pfc)"' "$tmp/rd.json" 2>/dev/null)
secs=$(sed -n 's/^pfclab inject: sent 10 pause frames on pfcoa in \([0-9.]*\) s .*/\1/p' "$tmp/rd.inj")
# (under 1.2 s, and the time this host stood still meanwhile: stall_ms)
if [ "${got%% *}" = 10 ] && [ -n "$secs" ] && awk -v s="$secs" -v st="$stall" 'BEGIN { exit !(s >= 1.0 && s < 1.2 + st / 1000) }'; then
	ok "$name: inject --iface -D 1s -r 10: 10 frames captured, the run lasts $secs s (limit 1.2 s + $stall ms stood still)"
else
	fail "$name: inject -D 1s -r 10" "captured pause/pfc '$got'; inject said: $(cat "$tmp/rd.inj")"
fi
q=$("$PFCLAB" review --json "$tmp/rd.pcap" | jq -r '.pause.priorities[] | select(.kind == "pfc") | .quanta')
if [ "${got#* }" = 1 ] && [ "$q" = 19531 ] &&
	grep -qx "pfclab inject: --pause-time 1ms at 10 Gb/s (the link speed of pfcoa) is 19531 quanta" "$tmp/pt.inj" &&
	grep -q "^pfclab inject: sent 1 pfc frame on pfcoa in" "$tmp/pt.inj"; then
	ok "$name: inject --pause-time 1ms without --speed: 19531 quanta at pfcoa's 10 Gb/s from sysfs"
else
	fail "$name: --pause-time from sysfs" "pfc $got, quanta '$q': $(cat "$tmp/pt.inj" | tr '\n' '|')"
fi
# --speed still overrides the interface's
ina inject -i pfcoa -c 1 pfc --pause-time 1ms --speed 25G >/dev/null 2>"$tmp/pt2.inj"
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l <"$tmp/pt2.inj")" = 1 ] &&
	grep -q "^pfclab inject: sent 1 pfc frame on pfcoa in " "$tmp/pt2.inj"; then
	ok "$name: inject --pause-time with --speed 25G: no sysfs note, sent"
else
	fail "$name: --pause-time --speed" "exit $rc: $(cat "$tmp/pt2.inj")"
fi

# capture -D 1s: the 1.0 s counts once (the summary's first line), not also as a live
# line: stdout and stderr together, and on a terminal. The summary gives the time it
# ran, which a loaded host makes 1.1 s (seen in a CI run), so any counts line is counted.
counts_re='^ *[0-9]*\.[0-9]s frames'
ip netns exec "$NSB" "$PFCLAB" capture -i pfcob -D 1s >"$tmp/live.out" 2>&1
n=$(grep -c "$counts_re" "$tmp/live.out")
if [ "$n" = 1 ]; then
	ok "$name: capture -D 1s (piped): the 1.0 s counts printed once"
else
	fail "$name: capture -D 1s (piped)" "$n lines of 1.0 s counts: $(tr '\n' '|' <"$tmp/live.out")"
fi
if need_cmd "$name: capture -D 1s on a terminal" tmux; then
	tmux_up 120 30 "ip netns exec $NSB $PFCLAB capture -i pfcob -D 1s; echo END; sleep 30"
	wait_for '^END' 50 2>/dev/null
	pane=$(screen 2>/dev/null)
	n=$(grep -c "$counts_re" <<<"$pane")
	if grep -q '^END' <<<"$pane" && [ "$n" = 1 ] && grep -q '^drops  *pfcob' <<<"$pane"; then
		ok "$name: capture -D 1s (terminal): the 1.0 s counts printed once"
	else
		fail "$name: capture -D 1s (terminal)" "$n lines of 1.0 s counts: $(sed '/^$/d' <<<"$pane" | tr '\n' '|')"
	fi
fi
finish
