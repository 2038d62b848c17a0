#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# frames_cli.sh: command-line contract of pfclab capture, review and inject: --help
# exits 0, usage errors exit 2 with one line naming the option, unreadable input exits
# 1 without a report, --json is valid JSON, the timeline has one CSV row per bin, review
# refuses --json with --timeline and a bin too fine for the frames' span, a closed pipe
# is exit 1 with one message, files are named as given. inject refuses an option of
# another KIND, --quanta with --pause-time, --speed alone, a number after -q (the old
# quanta letter); --pause-time takes the link speed from -i IF and says where it has
# none; -D with -r writes the frames due before the end; counts are singular for one;
# capture and inject take --iface for --interface; inject --help lists the KINDs its
# messages name.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 43

need_cmd frames_cli jq || finish
[ -x "$PFCLAB" ] || { skip frames_cli "no pfclab binary at $PFCLAB"; finish; }
tmp=$(mktemp -d)
defer rm -rf "$tmp"
g=$PFCLAB_ROOT/tests/golden

# --help: exit 0, the usage line first, the exit statuses documented
for c in capture review inject; do
	out=$("$PFCLAB" "$c" --help 2>&1); rc=$?
	if [ $rc -eq 0 ] && [ "$(head -n 1 <<<"$out" | cut -d' ' -f1-3)" = "Usage: pfclab $c" ] &&
		grep -qi 'exit status' <<<"$out"; then
		ok "frames_cli: $c --help exits 0 with its usage and exit statuses"
	else
		fail "frames_cli: $c --help" "rc $rc: $(head -n 2 <<<"$out" | tr '\n' ' ')"
	fi
done
# inject --help's KIND list is literal text: it names every KIND of inject.c's table, the
# list its messages make from that table, and no other
kinds_msg=$("$PFCLAB" inject -w "$tmp/x.pcap" no-such-kind 2>&1 >/dev/null |
	sed -n "s/.*is not a frame kind; give //p" | sed 's/ or /, /' | tr -s ', ' '\n\n' | sort)
kinds_one=$("$PFCLAB" inject -w "$tmp/x.pcap" 2>&1 >/dev/null |
	sed -n 's/.*give exactly one KIND (\([^)]*\)).*/\1/p' | tr -s ', ' '\n\n' | sort)
kinds_help=$("$PFCLAB" inject --help | sed -n '/KIND is one of:/,/^An option of another KIND/p' |
	sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p' | sort)
if [ -n "$kinds_msg" ] && [ "$kinds_msg" = "$kinds_one" ] && [ "$kinds_msg" = "$kinds_help" ]; then
	ok "frames_cli: inject --help lists every KIND its messages name ($(echo $kinds_msg))"
else
	fail "frames_cli: inject --help's KINDs" \
		"messages: $(echo $kinds_msg) / $(echo $kinds_one); --help: $(echo $kinds_help)"
fi
expect_rc() { # NAME RC PATTERN CMD...: exit status RC and stderr matching PATTERN
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq "$want" ] && grep -q -- "$pat" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
		ok "frames_cli: $name"
	else
		fail "frames_cli: $name" "exit $rc (want $want), stderr: $(head -c 200 "$tmp/err")"
	fi
}
expect_rc "review without files is a usage error" 2 "no capture file" "$PFCLAB" review
expect_rc "review --speed nonsense" 2 "--speed 'fast'" "$PFCLAB" review --speed fast x.pcap
expect_rc "review of a missing file exits 1" 1 "cannot read" "$PFCLAB" review "$tmp/none.pcap"
[ ! -s "$tmp/out" ] && ok "frames_cli: no report when no file was read" ||
	fail "frames_cli: no report when no file was read" "$(head -c 100 "$tmp/out")"
echo "not a capture" >"$tmp/bad.pcap"
expect_rc "review of a non-capture exits 1" 1 "not a pcap or pcapng" "$PFCLAB" review "$tmp/bad.pcap"
expect_rc "inject without a kind" 2 "give exactly one KIND" "$PFCLAB" inject -w "$tmp/x.pcap"
expect_rc "inject --prio 9" 2 "--prio '9'" "$PFCLAB" inject --prio 9 pfc
expect_rc "inject --prio 3, (a comma ends no list)" 2 "--prio '3,'" "$PFCLAB" inject --prio 3, pfc
expect_rc "inject needs -i or -w" 2 "either -i IF" "$PFCLAB" inject pfc
expect_rc "inject --pause-time too long for one frame" 2 "at most 65535" \
	"$PFCLAB" inject -w "$tmp/x.pcap" --pause-time 5ms --speed 25G pfc
expect_rc "capture without -i" 2 "give an interface" "$PFCLAB" capture

# inject: an option of another KIND is refused, naming the KINDs it is for and the
# fields of the KIND given
expect_rc "inject pause --prio 5: not for pause" 2 \
	"^pfclab inject: --prio does not apply to pause (it is for pfc and pfc-on-backlog); pause takes --quanta and --pause-time$" \
	"$PFCLAB" inject -w "$tmp/x.pcap" pause --prio 5
expect_rc "inject cnp --quanta 3 --prio 2: not for cnp" 2 \
	"^pfclab inject: --quanta does not apply to cnp (it is for pause, pfc and pfc-on-backlog); cnp takes --src-ip, --dst-ip, --qp, --qp-step, --qp-count, --psn, --dscp, --sport and --ecn$" \
	"$PFCLAB" inject -w "$tmp/x.pcap" cnp --quanta 3 --prio 2
expect_rc "inject roce --cnp-gap: a reactive option" 2 "^pfclab inject: --cnp-gap does not apply to roce (it is for cnp-on-ce); roce takes" \
	"$PFCLAB" inject -w "$tmp/x.pcap" roce --cnp-gap 1ms
expect_rc "inject cnp-on-ce -c 5: no count in a reactive mode" 2 \
	"^pfclab inject: --count does not apply to cnp-on-ce (it is for pause, pfc, cnp and roce); cnp-on-ce takes --cnp-gap, --cnp-dscp and --peer-qp$" \
	"$PFCLAB" inject -i lo cnp-on-ce -c 5
expect_rc "inject --pcapng without -w" 2 "^pfclab inject: --pcapng is for a written file: give it with -w FILE$" \
	"$PFCLAB" inject -i lo pfc --pcapng
expect_rc "inject --via-qdisc with -w" 2 "^pfclab inject: --via-qdisc is for sending on -i IF, not for -w FILE$" \
	"$PFCLAB" inject -w "$tmp/x.pcap" pfc --via-qdisc
# the pause time once; --speed only with --pause-time
expect_rc "inject --quanta with --pause-time" 2 "^pfclab inject: --quanta and --pause-time both set the pause time; give one$" \
	"$PFCLAB" inject -w "$tmp/x.pcap" pfc --pause-time 1ms --speed 25G --quanta 3
expect_rc "inject --speed without --pause-time" 2 "^pfclab inject: --speed is the link speed for --pause-time" \
	"$PFCLAB" inject -w "$tmp/x.pcap" pfc --speed 25G
# -q is --quiet: a number after it (or in it) is the old quanta letter's
expect_rc "inject -q 5 pfc: -q is --quiet" 2 \
	"^pfclab inject: '5' is not a KIND: -q is --quiet and takes no value; give the pause time as --quanta 5$" \
	"$PFCLAB" inject -w "$tmp/x.pcap" -q 5 pfc
expect_rc "inject pfc -q 5: -q is --quiet" 2 "'5' is not a KIND: -q is --quiet" \
	"$PFCLAB" inject -w "$tmp/x.pcap" pfc -q 5
expect_rc "inject -q 5 without a KIND: -q is --quiet" 2 "'5' is not a KIND: -q is --quiet" \
	"$PFCLAB" inject -w "$tmp/x.pcap" -q 5
expect_rc "inject -q5 pfc: -q is --quiet" 2 \
	"^pfclab inject: -q5: -q is --quiet and takes no value; give the pause time as --quanta 5$" \
	"$PFCLAB" inject -w "$tmp/x.pcap" -q5 pfc
# --pause-time: the link speed of -i IF, else --speed; lo has none, a file no interface
expect_rc "inject -i lo --pause-time: lo has no link speed" 2 \
	"^pfclab inject: --pause-time 1ms: lo reports no link speed (/sys/class/net/lo/speed: a virtual or down link); give it with --speed RATE$" \
	"$PFCLAB" inject -i lo pfc --pause-time 1ms
expect_rc "inject -w --pause-time without --speed" 2 \
	"^pfclab inject: --pause-time with -w FILE needs --speed RATE: there is no interface" \
	"$PFCLAB" inject -w "$tmp/x.pcap" pfc --pause-time 1ms
expect_rc "inject --pause-time on a missing interface exits 1" 1 "^pfclab inject: pfcnosuch0: no such network interface" \
	"$PFCLAB" inject -i pfcnosuch0 pfc --pause-time 1ms
# --iface is --interface, in capture as in monitor and top
expect_rc "capture --iface is -i" 1 "pfcnosuch0" "$PFCLAB" capture --iface pfcnosuch0 -D 1s
expect_rc "inject --iface is -i (with -w: one of them)" 2 "either -i IF" \
	"$PFCLAB" inject --iface lo -w "$tmp/x.pcap" pfc
h=$("$PFCLAB" capture --help; "$PFCLAB" inject --help)
if [ "$(grep -A1 -c -- '-i, --interface IF' <<<"$h")" -eq 2 ] &&
	[ "$(grep -A1 -- '-i, --interface IF' <<<"$h" | grep -c '^  *(also --iface)$')" -eq 2 ]; then
	ok "frames_cli: capture and inject --help list --iface under --interface"
else
	fail "frames_cli: --iface in --help" "$(grep -A1 -- '--interface' <<<"$h" | tr '\n' '|')"
fi
# counts: one frame, two frames
"$PFCLAB" inject -w "$tmp/one.pcap" -c 1 pfc 2>"$tmp/one.err"
"$PFCLAB" inject -w "$tmp/two.pcap" -c 2 pfc 2>"$tmp/two.err"
if [ "$(cat "$tmp/one.err")" = "pfclab inject: wrote 1 pfc frame to $tmp/one.pcap" ] &&
	[ "$(cat "$tmp/two.err")" = "pfclab inject: wrote 2 pfc frames to $tmp/two.pcap" ]; then
	ok "frames_cli: inject says '1 pfc frame', '2 pfc frames'"
else
	fail "frames_cli: inject plurals" "$(cat "$tmp/one.err" "$tmp/two.err" | tr '\n' '|')"
fi
# -D 1s -r 10: frames at 0, 0.1, ..., 0.9 s (ten); with -c, whichever ends first
"$PFCLAB" inject -q -w "$tmp/d.pcap" -D 1s -r 10 pause
"$PFCLAB" inject -q -w "$tmp/dc.pcap" -D 1s -r 1000 -c 5000 pause
"$PFCLAB" inject -q -w "$tmp/df.pcap" -D 1050ms -r 10 pause
got=$(for f in d dc df; do "$PFCLAB" review --json "$tmp/$f.pcap" |
	jq -r '"\(.frames) \(.last_s - .first_s | . * 1000 | round)"'; done | tr '\n' ' ')
if [ "$got" = "10 900 1000 999 11 1000 " ]; then
	ok "frames_cli: inject -w -D 1s -r 10: 10 frames, 0 to 0.9 s (-c 5000 -r 1000: 1000; -D 1050ms: 11)"
else
	fail "frames_cli: inject -w -D with -r" "frames, span ms of three files: '$got' (want '10 900 1000 999 11 1000 ')"
fi
expect_rc "capture on a missing interface exits 1" 1 "pfcnosuch0" "$PFCLAB" capture -i pfcnosuch0 -D 1s

if "$PFCLAB" review --json "$g"/*/input.pcap | jq -e '.frames > 0 and (.files | length) >= 4' >/dev/null; then
	ok "frames_cli: review --json over several files is valid JSON"
else
	fail "frames_cli: review --json over several files is valid JSON"
fi
rows=$("$PFCLAB" review --timeline 1ms "$g/pfc_xoff_xon/input.pcap" | tail -n +2 | wc -l)
[ "$rows" -eq 6 ] && ok "frames_cli: timeline has one row per 1 ms bin (0 to 5 ms)" ||
	fail "frames_cli: timeline rows" "$rows rows, want 6"

# the CSV takes the report's place: not with --json (before, JSON came without it)
"$PFCLAB" review --json --timeline 1ms "$g/pfc_xoff_xon/input.pcap" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q "^pfclab review: --timeline prints a CSV timeline instead of the report, --json the report" "$tmp/err"; then
	ok "frames_cli: review --json --timeline is a usage error (exit 2, one line, no output)"
else
	fail "frames_cli: review --json --timeline" "exit $rc: $(head -c 200 "$tmp/err") $(head -c 100 "$tmp/out")"
fi
# output lost to a closed pipe: exit 1 and one message, not SIGPIPE (exit 141); 1 us
# rows of a 0.11 s capture are 6.7 MB, more than a pipe holds
"$PFCLAB" review --timeline 1us "$g/vlab_rxe_cnp/input.pcap" 2>"$tmp/err" | head -n 1 >/dev/null
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 1 ] && [ "$(cat "$tmp/err")" = "pfclab review: writing standard output: Broken pipe" ]; then
	ok "frames_cli: review --timeline | head -1: exit 1, 'writing standard output: Broken pipe'"
else
	fail "frames_cli: review into a closed pipe" "exit $rc: $(head -c 200 "$tmp/err")"
fi
# a bin that would need more than 1048576 rows for the frames' span (111.56 ms): refused
# after reading, naming the rows and a bin that fits; that bin gives every frame a row
expect_rc "review --timeline 1ns: refused, exit 2, names 200ns" 2 \
	"--timeline 1ns gives 111556761 rows over the frames' span of 111.55676ms; a timeline has at most 1048576: give --timeline 200ns or wider" \
	"$PFCLAB" review --timeline 1ns "$g/vlab_rxe_cnp/input.pcap"
got=$("$PFCLAB" review --timeline 200ns "$g/vlab_rxe_cnp/input.pcap" 2>"$tmp/err" |
	awk -F, 'NR > 1 { n++; fr += $2 } END { print n, fr }')
if [ "$got" = "557785 1200" ] && [ ! -s "$tmp/err" ]; then
	ok "frames_cli: review --timeline 200ns: 557785 rows holding all 1200 frames"
else
	fail "frames_cli: review --timeline 200ns" "rows, frames: '$got' $(head -c 200 "$tmp/err")"
fi
# files named as given, directories and all, read or not
mkdir -p "$tmp/d"
cp "$g/pfc_xoff_xon/input.pcap" "$tmp/d/a.pcap"
"$PFCLAB" review "$tmp/d/a.pcap" "$tmp/d/missing.pcap" >"$tmp/out" 2>/dev/null
rc=$?
if [ $rc -eq 1 ] && grep -qx "file      $tmp/d/a.pcap: 26 frames" "$tmp/out" &&
	grep -qx "file      $tmp/d/missing.pcap: not read" "$tmp/out"; then
	ok "frames_cli: review names files as given ($tmp/d/missing.pcap: not read), exit 1"
else
	fail "frames_cli: file names" "exit $rc: $(grep '^file' "$tmp/out" | tr '\n' '|')"
fi
finish
