#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_results.sh: builds the libFuzzer target for the summary and plots of a results
# folder over what the hosts left (ASan+UBSan, leaks checked; gnuplot stood in for) and
# runs it for a bounded time (FUZZ_SECONDS, default 15). Seeds: a real monitor record and
# capture summary taken on lo, review.json of that capture, fixtures for the traffic
# lines and a review with PFC priorities (no NIC here sends PFC), and lines of the wrong
# types that once crashed the readers (kept as regressions).
source "$(dirname "$0")/../lib.sh"
plan 1

name=fuzz_results
need_cmd $name clang make || finish
build=${BUILD:-build}
secs=${FUZZ_SECONDS:-15}
cd "$PFCLAB_ROOT" || exit 1
if ! out=$(make -s BUILD="$build" fuzz 2>&1); then
	fail $name "build failed: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	finish
fi
corpus=$(mktemp -d) work=$(mktemp -d)
defer rm -rf "$corpus" "$work"
timeout 10 "$PFCLAB" monitor -i lo --record "$work/mon" --interval 100ms --duration 350ms -q \
	>/dev/null 2>&1
head -c 12000 "$work/mon/samples.jsonl" >"$corpus/samples.jsonl" 2>/dev/null
timeout 10 "$PFCLAB" capture -i lo -D 200ms --pcapng -w "$work/c.pcapng" --json -q \
	>"$corpus/capture.json" 2>/dev/null
"$PFCLAB" review --json "$work/c.pcapng" >"$corpus/review.json" 2>/dev/null
{
	echo '{"type":"start","role":"client","mode":"bidirectional","qps":1,"mtu":1024}'
	echo '{"type":"interval","phase":0,"size":65536,"t":1.0364,"tx":{"bytes":26738688,"msgs":408,"seconds":1.0364,"gbps":0.206397,"completions":102,"errors":0},"rx":null,"run_phase":"x","run_role":"client","run_file":"traffic-x-client-a.jsonl"}'
	echo '{"type":"summary","phase":0,"size":65536,"t":3.048,"interrupted":false,"tx":{"bytes":87818240,"msgs":1340,"seconds":3.04756,"gbps":0.230527,"errors":0},"rx":{"bytes":100139008,"msgs":1528,"seconds":3.0015,"gbps":0.266904,"completions":null,"errors":0},"in_flight":0,"run_phase":"x","run_role":"client","run_file":"traffic-x-client-a.jsonl"}'
} >"$corpus/traffic.jsonl"
echo '{"kinds":{"pfc":12,"pause":1,"cnp":4,"roce":0},"ecn_flows":[{"ce":3},{"ce":5}],"pause":{"priorities":[{"priority":3,"kind":"pfc","frames":12,"xoff":10,"xon":2,"paused_s":0.5},{"priority":"all","kind":"pause","frames":1,"xoff":1,"xon":0,"paused_s":0.01}]}}' \
	>"$corpus/review-pfc.json"
{
	echo '{"type":null,"event":null}'
	echo '{"type":"sample","wall_ns":1,"values":5,"rates":[1]}'
	echo '{"type":"interval","run_file":null,"run_phase":null,"t":null,"tx":{"gbps":"1"}}'
	echo '{"run_file":"x-client-","t":1}'
	echo '{"kinds":5,"ecn_flows":null,"pause":{"priorities":[{"priority":null,"kind":null},{"priority":1e999,"kind":"pfc"}]}}'
} >"$corpus/wrong-types.jsonl"
log=$(mktemp)
defer rm -f "$log"
if [ ! -s "$corpus/samples.jsonl" ] || [ ! -s "$corpus/review.json" ]; then
	fail $name "no seed: pfclab monitor --record, capture or review on lo wrote nothing"
elif TMPDIR=$work "$build/fuzz/fuzz_results" -max_total_time="$secs" -max_len=16384 \
	-print_final_stats=1 -artifact_prefix="$corpus/" "$corpus" >"$log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	ok "$name ($runs executions in ${secs}s, no crash or leak)"
else
	fail $name "crash, leak or sanitizer report: $(grep -m1 -E 'ERROR|runtime error|deadly signal' "$log")"
	cat "$log" >&2
fi
finish
