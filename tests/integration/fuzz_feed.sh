#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_feed.sh: builds the libFuzzer target for what the dashboard reads from a remote
# monitor (ASan+UBSan, leaks checked) and runs it for a bounded time (FUZZ_SECONDS,
# default 15), seeded with real "pfclab monitor --json --all" lines (on lo) and a
# sample that fills the priority, CNP, capture and GPU rows.
source "$(dirname "$0")/../lib.sh"
plan 1

name=fuzz_feed
need_cmd $name clang make || finish
build=${BUILD:-build}
secs=${FUZZ_SECONDS:-15}
cd "$PFCLAB_ROOT" || exit 1
if ! out=$(make -s BUILD="$build" fuzz 2>&1); then
	fail $name "build failed: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	finish
fi
corpus=$(mktemp -d)
defer rm -rf "$corpus"
timeout 10 "$PFCLAB" monitor -i lo --json --all --interval 100ms --duration 350ms \
	>"$corpus/lo.jsonl" 2>/dev/null
c='"delta":1,"rate":2.5'
printf '{"seq":4,"mono_ns":10,"wall_ns":20,"dt_ns":1000000,"overruns":0,"gaps":[],"values":{%s}}\n' \
	"\"link.rx_bytes\":{\"value\":1000,$c,\"unit\":\"B\"},\"pfc.tx.prio3.frames\":{\"value\":5,$c,\"unit\":\"frames\"},\"pfc.rx.prio3.pause_us\":{\"value\":7,$c,\"unit\":\"us\"},\"cnp.sent\":{\"value\":3,$c,\"unit\":\"packets\"},\"capture.pfc.prio5.paused_us\":{\"value\":9,$c,\"unit\":\"us\"},\"pcie.gpu1.rx_Bps\":{\"value\":1e9,\"unit\":\"B/s\"},\"pcie.gpu1.link_gen\":{\"value\":4,\"unit\":\"\"},\"pcie.gpu1.link_width\":{\"value\":16,\"unit\":\"\"},\"discard.rx_phy\":{\"value\":null,\"delta\":null,\"rate\":null,\"unit\":\"packets\"}" \
	>"$corpus/rows.jsonl"
log=$(mktemp)
defer rm -f "$log"
if [ ! -s "$corpus/lo.jsonl" ]; then
	fail $name "no seed: pfclab monitor -i lo --json --all printed nothing"
elif "$build/fuzz/fuzz_feed" -max_total_time="$secs" -max_len=16384 -print_final_stats=1 \
	-artifact_prefix="$corpus/" "$corpus" >"$log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	ok "$name ($runs executions in ${secs}s, no crash or leak)"
else
	fail $name "crash, leak or sanitizer report: $(grep -m1 -E 'ERROR|runtime error|deadly signal' "$log")"
	cat "$log" >&2
fi
finish
