#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_records.sh: builds the libFuzzer target for the readers of what a point leaves on
# a host (a monitor record, capture.json, traffic JSON lines; ASan+UBSan, leaks checked)
# and runs it for a bounded time (FUZZ_SECONDS, default 15), seeded with a real record and
# capture summary taken on lo and a traffic fixture (start, interval, summary lines in
# the format pfclab traffic --json writes; no RDMA device here to write real ones).
source "$(dirname "$0")/../lib.sh"
plan 1

name=fuzz_records
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
cp "$work/mon/samples.jsonl" "$corpus/samples.jsonl" 2>/dev/null
timeout 10 "$PFCLAB" capture -i lo -D 200ms --json -q >"$corpus/capture.json" 2>/dev/null
{
	echo '{"type":"start","role":"client","mode":"bidirectional","qps":1,"mtu":1024}'
	echo '{"type":"interval","phase":0,"size":65536,"t":1.0364,"tx":{"bytes":26738688,"msgs":408,"seconds":1.0364,"gbps":0.206397,"completions":102,"errors":0},"rx":null}'
	echo '{"type":"summary","phase":0,"size":65536,"t":3.048,"interrupted":false,"tx":{"bytes":87818240,"msgs":1340,"seconds":3.04756,"gbps":0.230527,"errors":0},"rx":{"bytes":100139008,"msgs":1528,"seconds":3.0015,"gbps":0.266904,"completions":null,"errors":0},"in_flight":0}'
} >"$corpus/traffic.jsonl"
log=$(mktemp)
defer rm -f "$log"
if [ ! -s "$corpus/samples.jsonl" ] || [ ! -s "$corpus/capture.json" ]; then
	fail $name "no seed: pfclab monitor --record or capture --json on lo wrote nothing"
elif TMPDIR=$work "$build/fuzz/fuzz_records" -max_total_time="$secs" -max_len=16384 -print_final_stats=1 \
	-artifact_prefix="$corpus/" "$corpus" >"$log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	ok "$name ($runs executions in ${secs}s, no crash or leak)"
else
	fail $name "crash, leak or sanitizer report: $(grep -m1 -E 'ERROR|runtime error|deadly signal' "$log")"
	cat "$log" >&2
fi
finish
