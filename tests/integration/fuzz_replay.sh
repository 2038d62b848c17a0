#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_replay.sh: builds the libFuzzer target for a monitor record as "pfclab top
# --replay" loads it (meta.json, a line "%%", then samples.csv; ASan+UBSan, leaks checked)
# and runs it for a bounded time (FUZZ_SECONDS, default 15), seeded with a real record
# taken on lo.
source "$(dirname "$0")/../lib.sh"
plan 1

name=fuzz_replay
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
if [ -s "$work/mon/meta.json" ] && [ -s "$work/mon/samples.csv" ]; then
	{ cat "$work/mon/meta.json"; printf '\n%%%%\n'; cat "$work/mon/samples.csv"; } >"$corpus/lo"
fi
log=$(mktemp)
defer rm -f "$log"
if [ ! -s "$corpus/lo" ]; then
	fail $name "no seed: pfclab monitor --record on lo wrote no meta.json and samples.csv"
elif TMPDIR=$work "$build/fuzz/fuzz_replay" -max_total_time="$secs" -max_len=32768 \
	-print_final_stats=1 -artifact_prefix="$corpus/" "$corpus" >"$log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	ok "$name ($runs executions in ${secs}s, no crash or leak)"
else
	fail $name "crash, leak or sanitizer report: $(grep -m1 -E 'ERROR|runtime error|deadly signal' "$log")"
	cat "$log" >&2
fi
finish
