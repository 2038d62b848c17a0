#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cli_opts.sh: options of inject, review, capture and monitor, and `pfclab version`, each
# with its effect checked: frame fields written by inject read back by tshark; review
# --top; the front door's own words (help help, an unknown option, version's usage errors); on a veth pair between two namespaces made here: capture -f/-s/-B/-G/--speed/
# --interval/--list and two -i at once, the live counts; cnp-on-ce --cnp-dscp/--peer-qp
# and pfc-on-backlog --poll; monitor's default text, --raw, --catalog and --frames=IF;
# the second spellings of monitor's, top's and traffic's options (--interface, --ib-dev,
# --rdma, -F), the README's commands (its review run as written prints the picture it
# shows; every option it gives is in its command's --help) and the READMEs' experiment
# files (each passes pfclab run --dry-run).
source "$(dirname "$0")/../lib.sh"
plan 25

need_cmd cli_opts tshark jq ip || finish
[ -x "$PFCLAB" ] || { skip cli_opts "no pfclab binary at $PFCLAB"; finish; }
tmp=$(mktemp -d)
defer rm -rf "$tmp"
tf() { tshark -r "$1" -T fields -E separator=' ' "${@:2}" 2>/dev/null; }
inj() { "$PFCLAB" inject --quiet -w "$@"; }

# ---- frames written by inject, read by tshark ------------------------------------------
# 1 ms at 25 Gb/s is 48828.125 quanta of 512 bit times: 48828 on each of priorities 0-7
inj "$tmp/pfc.pcap" pfc --prio 0-7 --pause-time 1ms --speed 25G -c 1
got=$(tf "$tmp/pfc.pcap" -e macc.cbfc.enbv $(for p in 0 1 2 3 4 5 6 7; do echo "-e macc.cbfc.pause_time.c$p"; done))
if [ "$got" = "0x00ff 48828 48828 48828 48828 48828 48828 48828 48828" ]; then
	ok "inject pfc --prio 0-7 --pause-time 1ms --speed 25G: all 8 classes, 48828 quanta each"
else
	fail "inject pfc --prio 0-7 --pause-time 1ms --speed 25G" "tshark: $got"
fi
inj "$tmp/roce.pcap" roce --psn 1234 --dscp 26 --sport 50000 --ecn ect1 -c 1
got=$(tf "$tmp/roce.pcap" -e infiniband.bth.psn -e ip.dsfield.dscp -e udp.srcport -e ip.dsfield.ecn)
if [ "$got" = "1234 26 50000 1" ]; then ok "inject roce --psn 1234 --dscp 26 --sport 50000 --ecn ect1: each field as given"
else fail "inject roce --psn --dscp --sport --ecn ect1" "tshark psn dscp sport ecn: $got"; fi
# -c 0: until --duration; written frames are stamped at --rate, so 1 s holds 1000
inj "$tmp/c0.pcap" pause -c 0 -D 1s -r 1000
n=$(tf "$tmp/c0.pcap" -e frame.number | wc -l)
span=$("$PFCLAB" review --json "$tmp/c0.pcap" | jq '.last_s - .first_s')
if [ "$n" = 1000 ] && awk -v s="$span" 'BEGIN { exit !(s > 0.998999 && s < 0.999001) }'; then ok "inject -c 0 -D 1s -r 1000 -w: 1000 frames over 0.999 s"
else fail "inject -c 0 -D 1s -r 1000 -w" "$n frames over $span s"; fi

# ---- review --top, pfclab version --------------------------------------------------------
rows() { "$PFCLAB" review "$@" "$PFCLAB_ROOT/tests/golden/cnp_qps/input.pcap" |
	awk '/^cnp /{ f = 1; next } f && /^  source/ { next } f && /^  [0-9]/ { n++ } f && !/^  / { f = 0 }
	/\(\+[0-9]+ more/ { m = $0 } END { print n + 0, m }'; }
t2=$(rows --top 2) t9=$(rows)
if [ "$t2" = "2   (+4 more; --json lists all)" ] && [ "${t9%% *}" = 6 ]; then
	ok "review --top 2: 2 of the 6 CNP rows, '+4 more' (6 by default)"
else
	fail "review --top 2" "with --top 2: '$t2'; default: '$t9'"
fi
v=$("$PFCLAB" version 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$v" = "$("$PFCLAB" --version)" ] && [[ $v =~ ^pfclab\ [0-9A-Za-z._+-]+$ ]]; then
	ok "pfclab version: '$v', the same as --version"
else
	fail "pfclab version" "rc $rc: '$v' vs '$("$PFCLAB" --version 2>&1)'"
fi
# the front door: 'help help' is the usage; an option it does not know, and version's
# usage errors, are exit 2 with one line saying what was wrong and where to look
fd=""
out=$("$PFCLAB" help help 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$out" = "$("$PFCLAB" --help)" ] || fd+="[help help: rc $rc: $(head -n 1 <<<"$out")] "
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086 # the words of $args are the arguments
	err=$("$PFCLAB" $args 2>&1 >"$tmp/fd.out"); rc=$?
	[ $rc -eq 2 ] && [ "$err" = "$want" ] && [ ! -s "$tmp/fd.out" ] || fd+="[$args: rc $rc: $err] "
done <<'EOF2'
--bogus|pfclab: unknown option '--bogus'; see 'pfclab --help'
-x|pfclab: unknown option '-x'; see 'pfclab --help'
version --bogus|pfclab version: unknown option '--bogus'; see 'pfclab version --help'
version extra|pfclab version: unexpected argument 'extra'; see 'pfclab version --help'
no-such-command|pfclab: 'no-such-command' is not a pfclab command; 'pfclab --help' lists them
help run extra|pfclab: help takes one command, not 'extra'; e.g. 'pfclab help run'
EOF2
if [ -z "$fd" ]; then ok "front door: help help, unknown option, version usage errors, help with two commands (exit 2, one line)"
else fail "front door" "$fd"; fi

# top: a path named on the command line is checked before the terminal is (exit 2, one
# line naming the option and the path), whether or not stdout is a terminal
t_msgs=""
for a in "--replay $tmp/no-such-record" "--replay $PFCLAB_ROOT/README.md" "-e $tmp/no-such.yaml" \
	"--ssh-config $tmp/no-such-config h1:eth0" "--ssh-config $tmp h1:eth0"; do
	# shellcheck disable=SC2086 # the words of $a are the arguments
	m=$("$PFCLAB" top $a </dev/null 2>&1); rc=$?
	set -- $a
	if [ $rc -ne 2 ] || [ "$(wc -l <<<"$m")" != 1 ] || [[ $m != *"$1 '$2'"* ]] || [[ $m == *terminal* ]]; then
		t_msgs+="[$a: rc $rc: $m] "
	fi
done
if [ -z "$t_msgs" ]; then ok "top --replay/-e/--ssh-config: a missing or wrong path is exit 2 naming it, before the terminal check"
else fail "top: bad paths" "$t_msgs"; fi

# --gpu G of monitor and top: neither an index nor a PCI address is exit 2 naming it and
# what to give; a PCI address (long or lspci's short form) that is no NVIDIA GPU here is
# refused by the monitor (top's local monitor too) saying so; top passes an address on
g_msgs=""
for c in "monitor -c 1" top; do	# top, its stdout no terminal: the monitor, no -c
	# shellcheck disable=SC2086 # the words of $c are the arguments
	m=$("$PFCLAB" $c --gpu gpu0 </dev/null 2>&1); rc=$?
	[ $rc -eq 2 ] && [[ $m == *"--gpu 'gpu0': expected a GPU index 0..63"*"or a PCI address"* ]] ||
		g_msgs+="[$c --gpu gpu0: rc $rc: $m] "
	for a in 0000:00:00.0 ff:1f.7 63; do	# 63: an index past this host's GPUs
		# shellcheck disable=SC2086 # the words of $c are the arguments
		m=$(timeout 10 "$PFCLAB" $c --gpu $a </dev/null 2>&1); rc=$?
		[ $rc -eq 2 ] && [[ $m == *"--gpu '$a': "*"NVIDIA GPU"* ]] || g_msgs+="[$c --gpu $a: rc $rc: $m] "
	done
done
if [ -z "$g_msgs" ]; then ok "monitor/top --gpu: not an index or PCI address, or an address or index of no NVIDIA GPU here: exit 2 saying which"
else fail "--gpu" "$g_msgs"; fi

# an ssh config whose path ssh's Include cannot take (a double quote) is refused up front by
# both commands that reach hosts, naming the option, the path and why
mkdir -p "$tmp/q\"d" && echo 'Host x' >"$tmp/q\"d/cfg"
q_msgs=""
m=$("$PFCLAB" run --ssh-config "$tmp/q\"d/cfg" "$PFCLAB_ROOT/scripts/experiments/gpu-bar-bidir.yaml" </dev/null 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $m == *"--ssh-config '$tmp/q\"d/cfg'"*"double quote"* ]] || q_msgs+="[run: rc $rc: $m] "
m=$("$PFCLAB" top -i eth0 --ssh-config "$tmp/q\"d/cfg" h1 </dev/null 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $m == *"--ssh-config '$tmp/q\"d/cfg'"*"double quote"* ]] || q_msgs+="[top: rc $rc: $m] "
if [ -z "$q_msgs" ]; then ok "run/top --ssh-config: a path holding a double quote is exit 2 naming it and why"
else fail "--ssh-config with a double quote" "$q_msgs"; fi

# ---- one option, two spellings (struct opt.long_alias) --------------------------------------
# --help lists each second spelling under its option, as "(also --X)"; -F is top's letter
a_msgs=""
while read -r c opt also; do
	h=$("$PFCLAB" "$c" --help 2>&1)
	grep -A 3 -- "^  -., --$opt " <<<"$h" | grep -q "^ *(also --$also)\$" ||
		a_msgs+="[$c --$opt: no '(also --$also)'] "
done <<'EOF2'
monitor iface interface
monitor rdma ib-dev
top iface interface
top rdma ib-dev
traffic ib-dev rdma
EOF2
"$PFCLAB" top --help | grep -q -- '^  -F, --ssh-config FILE ' || a_msgs+="[top --help: no '-F, --ssh-config'] "
if [ -z "$a_msgs" ]; then ok "--help: monitor/top --iface (also --interface), --rdma (also --ib-dev), traffic --ib-dev (also --rdma), top -F"
else fail "--help lists the second spellings" "$a_msgs"; fi
# each spelling gives what the first one gives (here without the device: the same failure,
# naming it), and a bad value is refused naming the option's main name
same() {	# same "CMD ARGS" "A" "B" WORDS: one exit status (a failure) and message, holding WORDS
	local c=$1 x y rx ry
	# shellcheck disable=SC2086 # the words of $c, $2 and $3 are the arguments
	x=$(timeout 20 "$PFCLAB" $c $2 </dev/null 2>&1); rx=$?
	# shellcheck disable=SC2086
	y=$(timeout 20 "$PFCLAB" $c $3 </dev/null 2>&1); ry=$?
	[ $rx -eq $ry ] && [ $rx -ne 0 ] && [ $rx -ne 124 ] && [ "$x" = "$y" ] && [[ $x == *"$4"* ]] ||
		s_msgs+="[$c '$2' rc $rx: $x | '$3' rc $ry: $y] "
}
s_msgs=""
for c in "monitor -c 1" top; do	# top, its stdout no terminal: monitor's text, no -c
	same "$c" "--iface pfnosuch0" "--interface pfnosuch0" pfnosuch0
	same "$c" "--rdma pfnosuch_9" "--ib-dev pfnosuch_9" pfnosuch_9
	same "$c" "--rdma x:0" "--ib-dev x:0" "pfclab ${c%% *}: --rdma 'x:0': "
done
same top "--ssh-config $tmp/no-such-config h1:eth0" "-F $tmp/no-such-config h1:eth0" \
	"pfclab top: --ssh-config '$tmp/no-such-config': "
same "traffic --check-mem host" "--ib-dev pfnosuch0" "--rdma pfnosuch0" pfnosuch0
same traffic "--ib-dev" "--rdma" "pfclab traffic: --ib-dev: needs a value (DEV)"
if [ -z "$s_msgs" ]; then
	ok "monitor/top --interface, --ib-dev, top -F, traffic --rdma: as --iface, --rdma, --ssh-config, --ib-dev"
else
	fail "second spellings" "$s_msgs"
fi
# The README's commands as written: the review it shows is run from the checkout and
# prints the picture below it, byte for byte (the first line names the file as given)
r_cmd=$(awk '/^```sh/ { f = 1; next } /^```/ { f = 0 } f && /^pfclab review /' "$PFCLAB_ROOT/README.md")
r_pic=$(awk -v c="$r_cmd" 'index($0, c) == 1 { s = 1; next } s && /^```/ { if (++n == 3) exit; next } n == 2' \
	"$PFCLAB_ROOT/README.md")
r_got=$(cd "$PFCLAB_ROOT" && eval "\"\$PFCLAB\" ${r_cmd#pfclab }" 2>/dev/null)
if [ -n "$r_cmd" ] && [ -n "$r_pic" ] && [ "$r_got" = "$r_pic" ]; then
	ok "README's '$r_cmd' prints the picture below it"
else
	fail "README's review command and its picture" "'$r_cmd': $(diff <(echo "$r_pic") <(echo "$r_got") | head -n 4 | tr '\n' '|')"
fi
# and every option of every pfclab command it gives (in a sh block or a `...` span) is one
# that command's --help lists: a renamed or removed option fails here
o_msgs="" no=0
while read -r cmd rest; do
	h=$("$PFCLAB" "$cmd" --help 2>&1) || { o_msgs+="[pfclab $cmd: no such command] "; continue; }
	for w in $rest; do
		case $w in
		--?*) o=${w%%=*} ;;
		-[a-zA-Z]*) o=${w:0:2} ;;
		*) continue ;;
		esac
		no=$((no + 1))
		grep -qE -- "(^|[ ,[])$o([ ,=]|\]|$)" <<<"$h" || o_msgs+="[pfclab $cmd $o] "
	done
done < <(awk '/^```sh/ { f = 1; next } /^```/ { f = 0; next }
	f { sub(/ #.*/, ""); if (match($0, /(^| )pfclab [a-z]+/)) print substr($0, RSTART + (substr($0, RSTART, 1) == " ") + 7) }
	!f { while (match($0, /`pfclab [a-z]+[^`]*`/)) { print substr($0, RSTART + 8, RLENGTH - 9); $0 = substr($0, RSTART + RLENGTH) } }' \
	"$PFCLAB_ROOT/README.md")
if [ -z "$o_msgs" ] && [ $no -ge 10 ]; then ok "the README's $no options of pfclab commands are in their commands' --help"
else fail "the README's pfclab commands' options" "$no checked; unknown: $o_msgs"; fi
# every whole experiment file the READMEs show (a YAML block with a top-level name:) is
# one that pfclab run takes: --dry-run exits 0
y_msgs="" ny=0
for doc in README.md scripts/README.md; do
	rm -f "$tmp"/doc-*.yaml
	awk -v d="$tmp/doc-" '/^```yaml/ { n++; f = 1; next } /^```/ { f = 0 } f { print > (d n ".yaml") }' "$PFCLAB_ROOT/$doc"
	for y in "$tmp"/doc-*.yaml; do
		grep -q '^name:' "$y" || continue
		ny=$((ny + 1))
		m=$("$PFCLAB" run -n -r "$tmp/doc-results" "$y" 2>&1 >/dev/null) || y_msgs+="[$doc, block ${y##*doc-}: $m] "
	done
done
if [ -z "$y_msgs" ] && [ $ny -ge 2 ]; then ok "the READMEs' $ny experiment files pass pfclab run --dry-run"
else fail "the READMEs' experiment files" "$ny found; $y_msgs"; fi

# ---- on a veth pair: capture options, reactive inject options, monitor --------------------
if [ "$(id -u)" -ne 0 ]; then
	for t in capture-filter capture-rotate capture-two-i capture-live capture-list cnp-on-ce pfc-on-backlog \
		monitor-text monitor-raw monitor-catalog monitor-frames; do skip "cli_opts: $t" "needs root"; done
	finish
fi
setup_ns NSA NSB || { fail cli_opts "cannot create namespaces"; finish; }
ip link add pfoa type veth peer name pfob && ip link set pfoa netns "$NSA" && ip link set pfob netns "$NSB" &&
	ip -n "$NSA" link add pfoc type veth peer name pfod && ip -n "$NSA" link set pfod netns "$NSB" ||
	{ fail cli_opts "cannot create the veth pairs"; finish; }
for l in pfoa pfoc; do ip -n "$NSA" link set $l up; done
for l in pfob pfod; do ip -n "$NSB" link set $l up; done
ina() { ip netns exec "$NSA" "$@"; }
inb() { ip netns exec "$NSB" "$@"; }
waitlisten() { for _ in $(seq 100); do grep -q listening "$1" && return 0; sleep 0.1; done; return 1; }

# -f keeps PFC (MAC control opcode 0x0101) and RoCEv2, not PAUSE (opcode 0x0001); -s 64
# cuts each 586-byte RoCEv2 packet to 64 bytes; -B 4M accepted; --speed 25G with
# --pcapng is stored as the interface's speed, which review then uses
inb "$PFCLAB" capture -i pfob -f 'udp dst port 4791 or ether[14:2] == 0x0101' -s 64 -B 4M --speed 25G \
	--pcapng -q --json -w "$tmp/f.pcapng" -c 30 -D 20s >"$tmp/f.json" 2>"$tmp/f.err" &
cpid=$!
waitlisten "$tmp/f.err"
ina "$PFCLAB" inject --quiet -i pfoa pause -c 10 && ina "$PFCLAB" inject --quiet -i pfoa pfc -c 10 &&
	ina "$PFCLAB" inject --quiet -i pfoa roce --len 512 -c 20
wait $cpid
got=$("$PFCLAB" review --json "$tmp/f.pcapng" | jq -c '[.frames, .kinds.pause, .kinds.pfc, .kinds.truncated, .pause.link_bps, .pause.speed_from]')
caps=$(tf "$tmp/f.pcapng" -Y udp -e frame.cap_len -e frame.len | sort -u | tr '\n' ' ')
if [ "$got" = '[30,0,10,20,25000000000,"capture"]' ] && [ "$caps" = "64 586 " ]; then
	ok "capture -f -s 64 -B 4M --speed 25G --pcapng: 10 PFC, no PAUSE, 20 RoCEv2 records cut to 64 of 586 bytes (truncated), 25G in the file"
else
	fail "capture -f -s -B --speed" "review $got, record/wire lengths '$caps': $(head -c 200 "$tmp/f.err")"
fi
# -G 1s: a capture of 2.5 s rotates into 3 files; together they hold every frame
inb "$PFCLAB" capture -i pfob -q -G 1s -w "$tmp/g.pcap" -D 2500ms >"$tmp/g.out" 2>"$tmp/g.err" &
cpid=$!
waitlisten "$tmp/g.err"
ina "$PFCLAB" inject --quiet -i pfoa pause --quanta 10 -c 200 -r 100
wait $cpid
files=$(ls "$tmp"/g.pcap* | wc -l)
tot=$("$PFCLAB" review --json "$tmp"/g.pcap* | jq '.kinds.pause')
if [ "$files" = 3 ] && [ "$tot" = 200 ]; then ok "capture -G 1s over 2.5 s: 3 files holding all 200 frames"
else fail "capture -G 1s" "$files files, $tot frames: $(ls "$tmp"/g.pcap* | tr '\n' ' ')"; fi
# two -i at once: the frames of each link counted on their own interface; --interval
# 200ms live counts on stderr
inb "$PFCLAB" capture -i pfob -i pfod --interval 200ms --json -D 2s >"$tmp/two.json" 2>"$tmp/two.err" &
cpid=$!
waitlisten "$tmp/two.err"
ina "$PFCLAB" inject --quiet -i pfoa pause -c 30 && ina "$PFCLAB" inject --quiet -i pfoc pfc -c 40
wait $cpid
got=$(jq -c '[.interfaces[] | [.interface, .passed_filter]] | sort' "$tmp/two.json" 2>/dev/null)
k=$(jq -c '[.kinds.pause, .kinds.pfc]' "$tmp/two.json" 2>/dev/null)
if [ "$k" = '[30,40]' ] && [ "$got" = '[["pfob",30],["pfod",40]]' ]; then
	ok "capture -i pfob -i pfod: 30 PAUSE and 40 PFC, counted per interface ($got)"
else
	fail "capture with two -i" "kinds $k interfaces $got: $(head -c 200 "$tmp/two.err")"
fi
# live counts every 200 ms over 2 s: about 10 rows (a loaded machine may skip some)
live=$(grep -c 'pause' "$tmp/two.err")
if [ "$live" -ge 5 ] && [ "$live" -le 12 ]; then ok "capture --interval 200ms: $live live count rows on stderr over 2 s"
else fail "capture --interval 200ms" "$live live rows: $(head -n 3 "$tmp/two.err" | tr '\n' '|')"; fi
l=$(inb "$PFCLAB" capture --list 2>&1)
if grep -q '^pfob' <<<"$l" && grep -q '^pfod' <<<"$l"; then ok "capture --list names the namespace's interfaces"
else fail "capture --list" "$(echo "$l" | head -n 5 | tr '\n' '|')"; fi

# cnp-on-ce --cnp-dscp 10 --peer-qp 0x77: the CNPs answering 5 CE packets carry DSCP 10
# and go to QP 0x77 (packets 50 ms apart, far above the 50 us --cnp-gap)
inb "$PFCLAB" inject -i pfob cnp-on-ce --cnp-dscp 10 --peer-qp 0x77 -D 4s >"$tmp/np.out" 2>&1 &
npid=$!
ina "$PFCLAB" capture -i pfoa -q -w "$tmp/np.pcap" -D 3500ms >/dev/null 2>"$tmp/npcap.err" &
cpid=$!
waitlisten "$tmp/npcap.err"
sleep 0.5
ina "$PFCLAB" inject --quiet -i pfoa roce --ecn ce -c 5 -r 20
wait $cpid $npid
got=$(tf "$tmp/np.pcap" -Y 'infiniband.bth.opcode == 129' -e ip.dsfield.dscp -e infiniband.bth.destqp | sort | uniq -c | awk '{ $1 = $1; print }')
if [ "$got" = "5 10 0x000077" ] || [ "$got" = "5 10 0x77" ]; then ok "cnp-on-ce --cnp-dscp 10 --peer-qp 0x77: 5 CNPs, DSCP 10, QP 0x77"
else fail "cnp-on-ce --cnp-dscp --peer-qp" "tshark count dscp qp: '$got'; $(tail -n 1 "$tmp/np.out")"; fi

# pfc-on-backlog --poll: 10 ms for 1 s is at most 101 polls; the default 1 ms many more
polls() { ina "$PFCLAB" inject -i pfoa pfc-on-backlog --qdisc-dev pfoa -D 1s "$@" 2>&1 |
	sed -n 's/.* polls \([0-9]*\) .*/\1/p'; }
p10=$(polls --poll 10ms) p1=$(polls)
# a late wakeup costs polls, never adds one: 10 ms gives 50..101 on a loaded machine
if [ -n "$p10" ] && [ "$p10" -ge 50 ] && [ "$p10" -le 101 ] && [ -n "$p1" ] && [ "$p1" -gt $((3 * p10)) ]; then
	ok "pfc-on-backlog --poll 10ms: $p10 polls in 1 s ($p1 at the default 1 ms)"
else
	fail "pfc-on-backlog --poll 10ms" "$p10 polls at 10 ms, $p1 at 1 ms"
fi

# monitor: default text, --catalog, --raw, --frames=IF; frames go out of pfoa while it runs
# mon OUT ARGS...: monitor pfoa for 5 x 200 ms while 100 PAUSE frames leave through it
mon() {
	local out=$1 mpid
	shift
	ina "$PFCLAB" monitor -i pfoa -I 200ms -c 5 "$@" >"$out" 2>"$out.err" &
	mpid=$!
	sleep 0.4
	ina "$PFCLAB" inject --quiet -i pfoa pause -c 100 -r 1000 --via-qdisc
	wait $mpid
}
mon "$tmp/mon.txt"; rc=$?
if [ $rc -eq 0 ] && grep -q '^  link.tx_packets  *+[0-9]* packets' "$tmp/mon.txt"; then
	ok "monitor text output: link.tx_packets among the changed counters"
else
	fail "monitor text output" "rc $rc: $(head -n 5 "$tmp/mon.txt" "$tmp/mon.txt.err" | tr '\n' '|')"
fi
# a catalog of one line: link statistics' tx_packets named test.sent_frames; tx_bytes is
# then a counter no catalog names: hidden, unless --raw shows it by its raw name
printf 'link\t*\ttx_packets\ttest.sent_frames\tpackets\tcounter\n' >"$tmp/cat.tsv"
mon "$tmp/cat.json" --json --catalog "$tmp/cat.tsv"; rc=$?
mon "$tmp/raw.json" --json --catalog "$tmp/cat.tsv" --raw; rc2=$?
keys() { jq -r 'select(.changed) | .changed | keys[]' "$1" | sort -u | tr '\n' ' '; }
k1=$(keys "$tmp/cat.json") k2=$(keys "$tmp/raw.json")
if [ $rc -eq 0 ] && grep -q 'test.sent_frames' <<<"$k1" && ! grep -q 'tx_packets\|tx_bytes' <<<"$k1"; then
	ok "monitor --catalog FILE: tx_packets shown as test.sent_frames, the unnamed tx_bytes hidden"
else
	fail "monitor --catalog FILE" "rc $rc, changed: $k1 $(head -c 200 "$tmp/cat.json.err")"
fi
if [ $rc2 -eq 0 ] && grep -q 'tx_bytes' <<<"$k2"; then
	ok "monitor --raw: the unnamed tx_bytes shown by its raw name ($k2)"
else
	fail "monitor --raw" "rc $rc2, changed: $k2"
fi
ina "$PFCLAB" monitor -i pfoa --frames=pfoc -I 300ms -c 5 --json >"$tmp/fr.json" 2>"$tmp/fr.err" &
mpid=$!
sleep 0.6
inb "$PFCLAB" inject --quiet -i pfod pfc -c 25
wait $mpid; rc=$?
fr=$(jq -s '[.[] | .changed["capture.pfc.frames"].delta // 0] | add' "$tmp/fr.json")
if [ $rc -eq 0 ] && [ "$fr" = 25 ]; then ok "monitor -i pfoa --frames=pfoc: the 25 PFC frames on pfoc counted"
else fail "monitor --frames=pfoc" "rc $rc, pfc frames $fr: $(head -c 300 "$tmp/fr.json")"; fi
finish
