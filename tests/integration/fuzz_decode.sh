#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_decode.sh: builds the frame decoder's libFuzzer target (ASan+UBSan) and runs it
# for a bounded time (FUZZ_SECONDS, default 20), seeded with the golden captures.
source "$(dirname "$0")/../lib.sh"
plan 1

name=fuzz_decode
need_cmd $name clang make || finish
build=${BUILD:-build}
secs=${FUZZ_SECONDS:-20}
cd "$PFCLAB_ROOT" || exit 1
if ! out=$(make -s BUILD="$build" fuzz 2>&1); then
	fail $name "build failed: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	finish
fi
corpus=$(mktemp -d)
defer rm -rf "$corpus"
for f in tests/golden/*/input.pcap; do [ -f "$f" ] && cp "$f" "$corpus/$(basename "$(dirname "$f")").pcap"; done
log=$(mktemp)
defer rm -f "$log"
if "$build/fuzz/fuzz_decode" -max_total_time="$secs" -print_final_stats=1 \
	-artifact_prefix="$corpus/" "$corpus" >"$log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	ok "$name ($runs executions in ${secs}s, no crash)"
else
	fail $name "crash or sanitizer report: $(grep -m1 -E 'ERROR|runtime error' "$log")"
	cat "$log" >&2
fi
finish
