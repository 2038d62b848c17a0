#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_veth.sh: pfclab monitor on a veth pair between two network namespaces:
# ethtool (ioctl) and rtnetlink counters move with UDP the test sends, PAUSE and DCB are
# reported unsupported (n/a, never 0), deleting and re-creating the veth while sampling
# records a gap without a crash, a kill -9 leaves every complete line parseable, and
# --rt-priority puts the sampling thread (only it) under SCHED_FIFO, or says why it cannot
# (its --stats: no source's or the recording's CPU above the work they are part of);
# the other threads show by name in ps -L; the CSV rows and JSON lines agree row by row;
# renaming the interface away and creating another of its name moves every source to the
# new one, through a gap (no counter goes on from the renamed device under the old name);
# at 1 ms the text output says a gap as it begins and then once a second.
source "$(dirname "$0")/../lib.sh"
plan 19

need_root monitor_veth || exit 0
need_cmd monitor_veth ip ethtool jq awk || exit 0

tmp=$(mktemp -d)
defer rm -rf "$tmp"
setup_ns A B || { fail monitor_veth_setup "cannot create namespaces"; finish; }

make_veth() {
	ip link add vA netns "$A" type veth peer name vB netns "$B" || return 1
	# No IPv6 neighbour discovery noise on the counters.
	ip netns exec "$A" sysctl -qw net.ipv6.conf.vA.disable_ipv6=1 2>/dev/null
	ip netns exec "$B" sysctl -qw net.ipv6.conf.vB.disable_ipv6=1 2>/dev/null
	ip -n "$A" addr add 10.99.0.1/24 dev vA
	ip -n "$B" addr add 10.99.0.2/24 dev vB
	ip -n "$A" link set vA up
	ip -n "$B" link set vB up
	# veth counts rx_queue_0_xdp_* (its ethtool -S) only on the NAPI path: GRO on the
	# receiver, and no TSO on the sender (drivers/net/veth.c, veth_skb_is_eligible_for_gro).
	ip netns exec "$A" ethtool -K vA tso off gso off >/dev/null 2>&1
	ip netns exec "$B" ethtool -K vB gro on >/dev/null 2>&1
}
make_veth || { fail monitor_veth_setup "cannot create the veth pair"; finish; }

send_udp() { # N datagrams from A to B's discard port
	ip netns exec "$A" bash -c "for ((i = 0; i < $1; i++)); do echo pfclab-monitor-test > /dev/udp/10.99.0.2/9; done" 2>/dev/null
}

# col FILE NAME: column number of NAME in the CSV header.
col() { head -n 1 "$1" | tr ',' '\n' | grep -nx -- "$2" | cut -d: -f1; }
# first/last valid value of a column.
first_val() { awk -F, -v c="$2" 'NR > 1 && $c != "n/a" { print $c; exit }' "$1"; }
last_val() { awk -F, -v c="$2" 'NR > 1 && $c != "n/a" { v = $c } END { print v }' "$1"; }

# --- 1: counters move with traffic; pause/DCB unsupported, not zero -------------------
run1=$tmp/run1
ip netns exec "$B" "$PFCLAB" monitor -i vB -I 20ms -q --record "$run1" 2>"$tmp/err1" &
mon=$!
defer kill "$mon"
sleep 0.5
send_udp 300
sleep 0.5
kern0=$(ip netns exec "$B" cat /sys/class/net/vB/statistics/rx_packets)
sleep 0.1
kill -INT "$mon"
wait "$mon"
rc=$?
kern1=$(ip netns exec "$B" cat /sys/class/net/vB/statistics/rx_packets)
csv=$run1/samples.csv
if [ "$rc" -ne 0 ] || [ ! -s "$csv" ]; then
	fail monitor_veth_record "monitor exit $rc: $(tr '\n' ' ' <"$tmp/err1")"
else
	ok monitor_veth_record
fi

c=$(col "$csv" ethtool:vB:rx_queue_0_xdp_packets)
d=$(( $(last_val "$csv" "$c") - $(first_val "$csv" "$c") ))
if [ -n "$c" ] && [ "$d" -ge 300 ]; then
	ok monitor_veth_ethtool_moves
else
	fail monitor_veth_ethtool_moves "rx_queue_0_xdp_packets moved by $d, expected >= 300"
fi
c=$(col "$csv" link.rx_packets)
d=$(( $(last_val "$csv" "$c") - $(first_val "$csv" "$c") ))
if [ -n "$c" ] && [ "$d" -ge 300 ]; then
	ok monitor_veth_rtnetlink_moves
else
	fail monitor_veth_rtnetlink_moves "link.rx_packets moved by $d, expected >= 300"
fi
# The last recorded total equals what sysfs reported around the stop (a stray neighbour
# packet may land in between, hence the bracket).
last=$(last_val "$csv" "$c")
if [ "$last" -ge "$kern0" ] && [ "$last" -le "$kern1" ]; then
	ok monitor_veth_rtnetlink_equals_sysfs
else
	fail monitor_veth_rtnetlink_equals_sysfs "recorded $last, sysfs $kern0 .. $kern1"
fi

bad=""
for m in pause.tx.frames pause.rx.frames pfc.tx.prio3.frames pfc.rx.prio3.frames pfc.enabled_mask; do
	c=$(col "$csv" "$m")
	[ -n "$c" ] || { bad="$bad $m:missing"; continue; }
	v=$(awk -F, -v c="$c" 'NR > 1 && $c != "n/a" { print; exit }' "$csv")
	[ -z "$v" ] || bad="$bad $m:has-values"
done
if [ -z "$bad" ] && grep -q "PAUSE statistics.*not supported by vB" "$tmp/err1" &&
   grep -q "DCB IEEE PFC.*not supported by vB" "$tmp/err1" &&
   [ "$(jq -r '.sources[] | select(.source == "dcb") | .state' "$run1/meta.json")" = unsupported ] &&
   [ "$(grep -c '"event":"unsupported"' "$run1/samples.jsonl")" -ge 2 ]; then
	ok monitor_veth_pause_dcb_unsupported
else
	fail monitor_veth_pause_dcb_unsupported "columns:$bad; stderr: $(tr '\n' ' ' <"$tmp/err1")"
fi
if jq -e '.finished == true and .samples > 10 and (.columns | length) > 20' \
	"$run1/meta.json" >/dev/null; then
	ok monitor_veth_meta
else
	fail monitor_veth_meta "meta.json incomplete"
fi

# --- 2: delete and re-create the veth while sampling ----------------------------------
run2=$tmp/run2
ip netns exec "$B" "$PFCLAB" monitor -i vB -I 10ms -q --record "$run2" 2>"$tmp/err2" &
mon=$!
defer kill "$mon"
sleep 0.4
send_udp 50
sleep 0.2
ip -n "$B" link del vB
sleep 0.5
make_veth
sleep 0.5
send_udp 120
sleep 0.5
if kill -0 "$mon" 2>/dev/null; then
	ok monitor_veth_survives_recreate
else
	fail monitor_veth_survives_recreate "monitor died: $(tr '\n' ' ' <"$tmp/err2")"
fi
kill -INT "$mon"
wait "$mon"
csv=$run2/samples.csv
gcol=$(col "$csv" gaps)
gaprows=$(awk -F, -v c="$gcol" 'NR > 1 && $c ~ /vB/' "$csv" | wc -l)
begins=$(grep -c '"event":"gap_begin"' "$run2/samples.jsonl")
ends=$(grep -c '"event":"gap_end"' "$run2/samples.jsonl")
if [ "$gaprows" -gt 0 ] && [ "$begins" -ge 1 ] && [ "$ends" -ge 1 ]; then
	ok monitor_veth_gap_recorded
else
	fail monitor_veth_gap_recorded "gap rows $gaprows, gap_begin $begins, gap_end $ends"
fi
# During the gap the values are n/a; after it they are valid and move again.
c=$(col "$csv" link.rx_packets)
na=$(awk -F, -v c="$c" -v g="$gcol" 'NR > 1 && $g ~ /link:vB/ && $c != "n/a"' "$csv" | wc -l)
after=$(awk -F, -v c="$c" -v g="$gcol" 'NR > 1 && $g ~ /vB/ { seen = 1; next }
	seen && $c != "n/a" { if (first == "") first = $c; last = $c }
	END { print last - first }' "$csv")
if [ "$na" -eq 0 ] && [ "${after:-0}" -ge 120 ]; then
	ok monitor_veth_after_gap
else
	fail monitor_veth_after_gap "valid values during gap: $na; moved after gap: $after"
fi

# The CSV rows and the JSON lines are made from the same copied values: row by row
# they agree (times, gaps, every column; n/a where JSON has null), across the gap.
# wall_ns is left out: jq reads numbers as doubles, and it is past 2^53.
jq -r 'select(.type == "sample") | [.seq, .mono_ns, .dt_ns, .overruns,
	(.gaps | join(";"))] + [.values[] | if . == null then "n/a" else tostring end] |
	join(",")' "$run2/samples.jsonl" | sort -t, -k1,1n >"$tmp/fromjson.csv"
for f in "$run2"/samples*.csv; do tail -n +2 "$f"; done | cut -d, -f3 --complement |
	sort -t, -k1,1n >"$tmp/rows.csv"
nrows=$(wc -l <"$tmp/rows.csv")
if [ "$nrows" -gt 100 ] && cmp -s "$tmp/rows.csv" "$tmp/fromjson.csv"; then
	ok monitor_veth_csv_jsonl_agree
else
	fail monitor_veth_csv_jsonl_agree "$nrows rows; first difference: $(diff "$tmp/rows.csv" \
		"$tmp/fromjson.csv" | head -c 300)"
fi

# Named through the README's jq recipe, the last sample's values are the last CSV row's
# under the CSV's header (format pfclab-monitor-2 writes them as arrays after a "columns"
# line); more than 20 of them.
if why=$(rec_keyed_matches_csv "$run2") &&
   [ "$(rec_keyed "$run2/samples.jsonl" | jq -c 'select(.type == "sample")' | tail -n 1 |
	jq '.values | length')" -gt 20 ]; then
	ok monitor_veth_jsonl_keyed
else
	fail monitor_veth_jsonl_keyed "$why"
fi

# --- 3: kill -9 while recording at 1 ms: every complete line parses -------------------
run3=$tmp/run3
ip netns exec "$B" "$PFCLAB" monitor -i vB -I 1ms -q --record "$run3" 2>"$tmp/err3" &
mon=$!
defer kill -9 "$mon"
send_udp 200 &
sleep 1.3
kill -9 "$mon"
wait "$mon" 2>/dev/null
csv=$run3/samples.csv
ncol=$(head -n 1 "$csv" | awk -F, '{ print NF }')
complete=$(($(wc -l <"$csv") - 1))
badcsv=$(head -n "$((complete + 1))" "$csv" | awk -F, -v n="$ncol" 'NR > 1 && NF != n' | wc -l)
jl=$(wc -l <"$run3/samples.jsonl")
badjson=$(head -n "$jl" "$run3/samples.jsonl" | while IFS= read -r l; do
	jq -e . >/dev/null 2>&1 <<<"$l" || echo bad; done | wc -l)
echo "# kill -9 after ~1.3 s at 1 ms: $complete complete CSV rows, $jl JSON lines"
if [ "$complete" -gt 100 ] && [ "$badcsv" -eq 0 ] && [ "$badjson" -eq 0 ] &&
   jq -e '.finished == false' "$run3/meta.json" >/dev/null; then
	ok monitor_veth_kill9_parseable
else
	fail monitor_veth_kill9_parseable "rows $complete, bad CSV rows $badcsv, bad JSON lines $badjson"
fi

# --- 4: --rt-priority: the sampling thread runs SCHED_FIFO, the others do not ----------
run4=$tmp/run4
# this machine's steal time around the run, in ms (the steal column of /proc/stat's cpu
# line, in USER_HZ ticks), for --stats' host steal below
steal_ms() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / { if (NF >= 9) print $9 * 1000 / hz; exit }' /proc/stat; }
steal0=$(steal_ms)
ip netns exec "$B" "$PFCLAB" monitor -i vB --frames -I 1ms -D 3s --rt-priority 20 -q --stats \
	--record "$run4" 2>"$tmp/err4" &
mon=$!
defer kill "$mon"
sleep 1
# one line per thread: its id, policy (FF: SCHED_FIFO, B: batch, TS: normal), priority, name
threads=$(ps -L -o lwp=,cls=,rtprio=,comm= -p "$mon" 2>/dev/null)
wait "$mon"
rc=$?
steal1=$(steal_ms)
echo "# threads of monitor --rt-priority 20 (id, policy, priority, name):"
sed 's/^/#   /' <<<"$threads"
main=$(awk -v p="$mon" '$1 == p { print $2 "/" $3 }' <<<"$threads")
others_ff=$(awk -v p="$mon" '$1 != p && $2 == "FF"' <<<"$threads" | wc -l)
nthreads=$(wc -l <<<"$threads")
if [ "$rc" -eq 0 ] && [ "$main" = FF/20 ] && [ "$others_ff" -eq 0 ] && [ "$nthreads" -ge 2 ] &&
   grep -q "samples in" "$tmp/err4"; then
	ok monitor_veth_rt_priority
else
	fail monitor_veth_rt_priority "exit $rc, sampling thread $main, other FIFO threads $others_ff of $nthreads: $(tr '\n' ' ' <"$tmp/err4")"
fi
# --stats: the sampling thread's work and its waits on the timer are within the whole CPU
# per sample, and waiting is never free (a sleep and a wakeup per tick)
parts=$(awk '/samples in/ { for (i = 1; i <= NF; i++) {
		if ($i == "CPU") t = $(i + 1); if ($i == "writing:") w = $(i + 1)
		if ($i == "timer:") z = $(i + 1) }
	print t, w, z }' "$tmp/err4")
# and no part of the work (a source's reads, the recording) is above the work, nor are
# they together: all are scaled from the same measured samples
over=$(awk '/samples in/ { for (i = 1; i <= NF; i++) if ($i == "writing:") w = $(i + 1) }
	/^  (source|recording) / { for (i = 1; i <= NF; i++) if ($i == "us") { v = $(i - 1); break }
		sum += v; if (v > w) print $0 }
	END { if (sum > w + 0.1 * NR) print "sum " sum " over " w }' "$tmp/err4")
if [ -n "$parts" ] && awk -v p="$parts" 'BEGIN { split(p, a, " ");
	exit !(a[3] > 0 && a[2] > 0 && a[2] + a[3] <= a[1] * 1.02) }' && [ -z "$over" ] &&
	[ "$(grep -c '^  source ' "$tmp/err4")" -ge 2 ] && grep -q '^  recording ' "$tmp/err4"; then
	ok "monitor_veth_stats_parts: CPU, work, timer waits per sample: $parts us; no part above the work"
else
	fail monitor_veth_stats_parts "'$parts' from: $(grep 'samples in' "$tmp/err4"); parts above the work: $over"
fi
# --stats' host steal: a figure in ms, within what /proc/stat gave around the run (one
# tick of slack each way for the moments of the reads), or n/a where there is none
steal=$(sed -n 's/.* overruns, host steal \([0-9.]*\|n\/a\)\( ms\)\{0,1\}, CPU .*/\1/p' "$tmp/err4")
# and the record's meta.json the same in ns
msteal=$(jq -r '.host_steal_ns' "$run4/meta.json" 2>/dev/null)
if [ -n "$steal0" ] && [ -n "$steal1" ] && [ -n "$steal" ] && [ "$steal" != n/a ] &&
   [ "$(awk -v m="$msteal" 'BEGIN { printf "%.1f", m / 1e6 }')" = "$steal" ] &&
   awk -v s="$steal" -v a="$steal0" -v b="$steal1" -v t="$((1000 / $(getconf CLK_TCK)))" \
	'BEGIN { exit !(s >= 0 && s <= b - a + t) }'; then
	ok "monitor_veth_stats_steal: host steal $steal ms, meta.json $msteal ns (/proc/stat around the run: $(awk -v a="$steal0" -v b="$steal1" 'BEGIN { print b - a }') ms)"
elif [ -z "$steal1" ] && [ "$steal" = n/a ] && [ "$msteal" = null ]; then
	ok "monitor_veth_stats_steal: n/a, as /proc/stat has no steal column here"
else
	fail monitor_veth_stats_steal "'$steal' from: $(grep 'samples in' "$tmp/err4"); meta.json '$msteal'; /proc/stat steal $steal0 -> $steal1 ms"
fi
# the same threads by name, as ps -L and top -H show them: the writer (batch policy) and
# the capture thread
writer=$(awk '$4 == "pfc-writer" { print $2 }' <<<"$threads")
frames=$(awk '$4 == "pfc-frames"' <<<"$threads" | wc -l)
if [ "$writer" = B ] && [ "$frames" -eq 1 ]; then
	ok monitor_veth_thread_names
else
	fail monitor_veth_thread_names "pfc-writer policy '$writer', pfc-frames threads $frames"
fi

# --- 5: without CAP_SYS_NICE: a clear error naming the option, exit 1, no record ------
if command -v setpriv >/dev/null; then
	out=$(ulimit -r 0; ip netns exec "$B" setpriv --bounding-set -sys_nice --inh-caps -sys_nice \
		"$PFCLAB" monitor -i vB -I 10ms -c 5 --rt-priority 20 -q --record "$tmp/run5" 2>&1)
	rc=$?
	echo "# without CAP_SYS_NICE: exit $rc: $out"
	if [ "$rc" -eq 1 ] && grep -q -- "--rt-priority 20" <<<"$out" && grep -q "CAP_SYS_NICE" <<<"$out" &&
	   [ ! -e "$tmp/run5/samples.csv" ]; then
		ok monitor_veth_rt_priority_denied
	else
		fail monitor_veth_rt_priority_denied "exit $rc, record: $(ls "$tmp/run5" 2>&1 | tr '\n' ' '): $out"
	fi
else
	skip monitor_veth_rt_priority_denied "setpriv (util-linux) not installed"
fi


# --- 6: rename vB away and create another vB: every source follows the name -----------
# link and qdisc read by ifindex; they must notice the name now names another interface,
# as ethtool does, and not go on counting the renamed one's traffic as vB's.
run6=$tmp/run6
ip netns exec "$B" "$PFCLAB" monitor -i vB --sources ethtool,link,qdisc -I 20ms -q \
	--record "$run6" 2>"$tmp/err6" &
mon=$!
defer kill "$mon"
sleep 0.4
ip -n "$B" link set vB name vOld
ip -n "$B" link add vB type veth peer name vC
ip -n "$B" link set vB up
ip -n "$B" link set vC up
sleep 0.4
send_udp 150		# to 10.99.0.2, on vOld
sleep 0.4
kill -INT "$mon"
wait "$mon"
rc=$?
csv=$run6/samples.csv
c=$(col "$csv" link.rx_packets)
# the last link.rx_packets recorded for vB is the new vB's (a few at most), not vOld's
last=$(last_val "$csv" "$c")
new=$(ip netns exec "$B" cat /sys/class/net/vB/statistics/rx_packets)
old=$(ip netns exec "$B" cat /sys/class/net/vOld/statistics/rx_packets)
# (a check between the rename and the new vB finds no vB at all: noticed all the same)
if [ "$rc" -eq 0 ] && grep -q "link statistics.*vB.*\(re-created\|no such interface\)" "$tmp/err6" &&
   grep -q "qdisc statistics.*vB.*\(re-created\|no such interface\)" "$tmp/err6" &&
   [ -n "$last" ] && [ "$last" -le "$new" ] && [ "$old" -ge 150 ]; then
	ok monitor_veth_rename_follows_name
else
	fail monitor_veth_rename_follows_name "exit $rc; last link.rx_packets of vB '$last', the new vB has $new, vOld $old; stderr: $(tr '\n' ' ' <"$tmp/err6")"
fi

# --- 7: text at 1 ms while the interface is gone: a gap line as it begins, then one a
# second, not a line a sample for each source ---------------------------------------------
ip netns exec "$B" "$PFCLAB" monitor -i vB --sources link,ethtool -I 1ms -D 3s \
	>"$tmp/gap7.out" 2>"$tmp/err7" &
mon7=$!
defer kill "$mon7"
sleep 0.8
ip -n "$B" link del vB
wait "$mon7"
rc=$?
ngap=$(grep -c ' gap: ' "$tmp/gap7.out")
first=$(grep -m 1 ' gap: link on vB' "$tmp/gap7.out")
since=$(grep -c ' gap: link on vB: n/a since #[0-9]* ([0-9]* samples)$' "$tmp/gap7.out")
if [ $rc -eq 0 ] && [ "$ngap" -ge 2 ] && [ "$ngap" -le 10 ] &&
	[[ $first =~ ^#[0-9]+\ gap:\ link\ on\ vB:\ n/a$ ]] && [ "$since" -ge 1 ]; then
	ok "monitor_veth_gap_text_once_a_second ($ngap gap lines in about 2 s of gap at 1 ms, $(wc -l <"$tmp/gap7.out") lines in all)"
else
	fail monitor_veth_gap_text_once_a_second "exit $rc, $ngap gap lines (want 2-10), first '$first', $since with since; $(head -c 300 "$tmp/err7")"
fi

finish
