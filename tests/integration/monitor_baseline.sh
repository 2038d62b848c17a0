#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_baseline.sh: pfclab monitor takes a baseline sample at the start, so nothing of
# the first interval is lost: PFC frames injected over a veth pair right after the start
# show in the first interval's deltas (JSON); -D 3s at 1 s samples at 0, 1, 2 and 3 s in
# JSON and in the record alike, -D 2.5s ends on a shorter last interval, -c N is N
# samples with the baseline; text mode says what it samples and when nothing changed,
# -q says nothing; no readable source is an error, an empty --sources item a usage
# error; -I takes a decimal fraction; missed
# intervals (the monitor stopped a while) are said where they are counted. ~17 s.
source "$(dirname "$0")/../lib.sh"
name=monitor_baseline
plan 10
need_root $name || finish
need_cmd $name ip jq awk || finish
setup_ns NSA NSB || { fail $name "cannot create namespaces"; finish; }
ip link add mba netns "$NSA" type veth peer name mbb netns "$NSB" || { fail $name "veth"; finish; }
ip -n "$NSA" link set mba up && ip -n "$NSB" link set mbb up
tmp=$(mktemp -d)
defer rm -rf "$tmp"
inb() { ip netns exec "$NSB" "$@"; }

# times FILE: "seq offset_ms dt_ns" of each JSON sample, the offset from the first sample
times() {
	jq -r 'select(.event | not) | "\(.seq) \(.mono_ns) \(.dt_ns)"' "$1" |
		awk 'NR == 1 { t0 = $2 } { printf "%d %d %s\n", $1, ($2 - t0) / 1e6, $3 }'
}
# on_time WANT_MS... < "seq offset_ms dt_ns" lines: one sample per wanted offset, each at
# it or up to 150 ms after it (a timer never fires early), the first with dt_ns 0
on_time() {
	awk -v want="$*" 'BEGIN { n = split(want, w, " ") }
		{ k++; if (k > n || $2 < w[k] || $2 > w[k] + 150 || (k == 1 && $3 != 0)) bad = 1 }
		END { exit bad || k != n }'
}

# --- 1: frames right after the start show in the first interval's deltas ------------
# The baseline comes as soon as the sources are open (milliseconds), long before the
# first tick at 1 s: frames sent then are in the first interval.
inb "$PFCLAB" monitor -i mbb --frames -D 3s --json >"$tmp/mon.json" 2>"$tmp/mon.err" &
mon=$!
defer kill "$mon"
base=no
for _ in $(seq 25); do
	grep -q '"seq":1,' "$tmp/mon.json" 2>/dev/null && { base=yes; break; }
	sleep 0.02
done
ip netns exec "$NSA" "$PFCLAB" inject --quiet -i mba -c 10 -r 1000 pfc --prio 3 --quanta 10 ||
	{ fail $name "inject failed"; finish; }
wait "$mon"
rc=$?
first=$(jq -s '[.[] | select(.seq == 2) | .changed["capture.pfc.prio3.frames"].delta // 0] | add' "$tmp/mon.json")
all=$(jq -s '[.[] | select(.changed) | .changed["capture.pfc.prio3.frames"].delta // 0] | add' "$tmp/mon.json")
if [ $rc -eq 0 ] && [ $base = yes ] && [ "$first" = 10 ] && [ "$all" = 10 ]; then
	ok "$name: baseline at the start; 10 PFC frames sent then are in the first interval's deltas"
else
	fail "$name: first interval" "exit $rc, baseline within 0.5 s: $base, first interval $first, all $all: $(head -c 300 "$tmp/mon.err")"
fi

# --- 2: -D 3s at 1 s: JSON samples at 0, 1, 2, 3 s, the run ends with the last ---------
t0=$(date +%s%N)
inb "$PFCLAB" monitor -i mbb --sources link -D 3s --json >"$tmp/d3.json" 2>"$tmp/d3.err"
rc=$? el=$(( ($(date +%s%N) - t0) / 1000000 ))
got=$(times "$tmp/d3.json" | tr '\n' ' ')
if [ $rc -eq 0 ] && times "$tmp/d3.json" | on_time 0 1000 2000 3000 && [ "$el" -lt 3600 ]; then
	ok "$name: -D 3s --json samples at 0, 1, 2, 3 s and ends (${el} ms)"
else
	fail "$name: -D 3s --json" "exit $rc, seq/ms/dt: $got, ran $el ms"
fi

# --- 3: the same in the record ---------------------------------------------------------
inb "$PFCLAB" monitor -i mbb --sources link -D 3s -q --record "$tmp/rec" 2>"$tmp/rec.err"
rc=$?
got=$(awk -F, 'NR > 1 { print $1, $2, $4 }' "$tmp/rec/samples.csv" |
	awk 'NR == 1 { t0 = $2 } { printf "%d %d %s\n", $1, ($2 - t0) / 1e6, $3 }')
if [ $rc -eq 0 ] && on_time 0 1000 2000 3000 <<<"$got" &&
	[ "$(jq .samples "$tmp/rec/meta.json")" = 4 ] &&
	[ "$(grep -c '"type":"sample"' "$tmp/rec/samples.jsonl")" = 4 ]; then
	ok "$name: -D 3s -q --record: 4 rows at 0, 1, 2, 3 s, the first with dt_ns 0"
else
	fail "$name: -D 3s --record" "exit $rc, rows: $(tr '\n' ' ' <<<"$got") $(head -c 200 "$tmp/rec.err")"
fi

# --- 4: an end between two ticks: a shorter last interval --------------------------------
inb "$PFCLAB" monitor -i mbb --sources link -I 200ms -D 0.5s --json >"$tmp/d05.json" 2>&1
rc=$?
if [ $rc -eq 0 ] && times "$tmp/d05.json" | on_time 0 200 400 500; then
	ok "$name: -I 200ms -D 0.5s samples at 0, 200, 400, 500 ms"
else
	fail "$name: -D 0.5s" "exit $rc, seq/ms/dt: $(times "$tmp/d05.json" | tr '\n' ' ')"
fi

# --- 5: -c N is N samples, the baseline the first; -I with a fraction --------------------
inb "$PFCLAB" monitor -i mbb --sources link -I 0.1s -c 3 --json >"$tmp/c3.json" 2>&1
rc=$?
if [ $rc -eq 0 ] && times "$tmp/c3.json" | on_time 0 100 200; then
	ok "$name: -I 0.1s -c 3: 3 samples at 0, 100, 200 ms"
else
	fail "$name: -c 3" "exit $rc, seq/ms/dt: $(times "$tmp/c3.json" | tr '\n' ' ')"
fi
out=$("$PFCLAB" monitor -i lo -I 1.5ns 2>&1)
rc=$?
if [ $rc -eq 2 ] && [ "$out" = "pfclab monitor: --interval '1.5ns': not a whole number of nanoseconds" ]; then
	ok "$name: -I 1.5ns refused: $out"
else
	fail "$name: -I 1.5ns" "exit $rc: $out"
fi

# --- 6: text mode on an idle link: what is sampled, the baseline, "no change" ---------------
inb "$PFCLAB" monitor -i lo --sources link -D 2s >"$tmp/text.out" 2>"$tmp/text.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l <"$tmp/text.out")" -eq 4 ] &&
	grep -qx 'sampling link on lo every 1s for 2s' "$tmp/text.out" &&
	grep -q '^#1 [0-9.]*s baseline: [1-9][0-9]* values read' "$tmp/text.out" &&
	[ "$(grep -c '^#[23] [0-9.]*s dt [0-9.]* ms: no change$' "$tmp/text.out")" -eq 2 ]; then
	ok "$name: text on an idle lo: what is sampled, the baseline, 2 x no change"
else
	fail "$name: text mode" "exit $rc: $(tr '\n' '|' <"$tmp/text.out") $(head -c 200 "$tmp/text.err")"
fi
inb "$PFCLAB" monitor -i lo --sources link -I 10ms -c 150 >"$tmp/fast.out" 2>&1
if grep -q '^#101 [0-9.]*s: no change in the last 100 samples' "$tmp/fast.out" &&
	grep -q '^#150 [0-9.]*s: no change in the last 49 samples' "$tmp/fast.out" &&
	[ "$(wc -l <"$tmp/fast.out")" -eq 4 ]; then
	ok "$name: text at 10 ms: one no-change line a second, and one at the end"
else
	fail "$name: text at 10 ms" "$(tr '\n' '|' <"$tmp/fast.out")"
fi

# --- 7: -q prints nothing; no readable source is an error ----------------------------------
q=$(inb "$PFCLAB" monitor -i lo --sources link -c 2 -I 10ms -q 2>&1)
rc=$?
e1=$(inb "$PFCLAB" monitor -i lo --sources ethtool -D 1s 2>"$tmp/e1.err")
rc1=$?
e2=$(inb "$PFCLAB" monitor -i lo --sources '' -D 1s 2>"$tmp/e2.err")
rc2=$?
# an empty item is refused, not skipped ('ethtool,' ran as 'ethtool'), saying where it is
# and what the list takes
empty=
for l in 'ethtool,:at the end' ',:at the start' ',link:at the start' 'link,,pci:after another'; do
	m=$(inb "$PFCLAB" monitor -i lo --sources "${l%:*}" -c 1 2>&1 >/dev/null)
	r=$?
	[ $r -eq 2 ] && [ "$m" = "pfclab monitor: --sources '${l%:*}': an empty item (a comma ${l#*:}); give source names separated by single commas, from ethtool, pause, dcb, link, pci, rdma, nvml, qdisc, lossless" ] ||
		empty+="['${l%:*}': exit $r: $m] "
done
if [ $rc -eq 0 ] && [ -z "$q" ] && [ $rc1 -eq 1 ] && [ -z "$e1" ] &&
	grep -q 'nothing to sample: no source can be read (ethtool on lo: not supported' "$tmp/e1.err" &&
	[ $rc2 -eq 2 ] && [ -z "$e2" ] && grep -q -- "--sources '': give at least one source" "$tmp/e2.err" &&
	[ -z "$empty" ]; then
	ok "$name: -q silent; --sources ethtool -i lo exit 1, --sources '' and an empty item ('ethtool,', ',', 'link,,pci') exit 2, each with a reason"
else
	fail "$name: quiet and no source" "-q exit $rc '$q'; ethtool on lo exit $rc1 '$e1' $(cat "$tmp/e1.err"); '' exit $rc2 $(cat "$tmp/e2.err"); empty items: $empty"
fi
# --- missed intervals: the closing warning points where they are counted --------------
for mode in text json record; do
	case $mode in
	text) args=() ;;
	json) args=(--json) ;;
	record) args=(-q --record "$tmp/overrun") ;;
	esac
	# not through inb: $! must be the monitor, not a subshell
	ip netns exec "$NSB" "$PFCLAB" monitor -i mbb --sources link -I 10ms -D 1s "${args[@]}" \
		>"$tmp/ov.out" 2>"$tmp/ov.$mode" &
	mon=$!
	defer kill -CONT "$mon"
	sleep 0.3
	kill -STOP "$mon"
	sleep 0.3
	kill -CONT "$mon"
	wait "$mon"
done
if grep -q "intervals were missed.*the sample after them says how many" "$tmp/ov.text" &&
   grep -q 'intervals were missed.*each sample.s "overruns" counts' "$tmp/ov.json" &&
   grep -q "intervals were missed.*record's overruns column" "$tmp/ov.record" &&
   ! grep -q "record" "$tmp/ov.text" "$tmp/ov.json"; then
	ok "$name: missed intervals are said where they are counted (text, JSON, the record)"
else
	fail "$name: missed intervals" "$(cat "$tmp/ov.text" "$tmp/ov.json" "$tmp/ov.record")"
fi
finish
