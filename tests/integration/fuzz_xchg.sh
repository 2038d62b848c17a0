#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_xchg.sh: builds the traffic exchange parser's libFuzzer target (ASan+UBSan) and
# runs it for a bounded time (FUZZ_SECONDS, default 15), seeded with one valid message of
# each type.
source "$(dirname "$0")/../lib.sh"
plan 1

name=fuzz_xchg
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
z8='\x00\x00\x00\x00\x00\x00\x00\x00'
z32="$z8$z8$z8$z8"
hdr() { printf "PFCT\x00\x02\\x$1\x00\x00\x00\x00\\x$2"; } # TYPE BODYLEN (hex)
{ hdr 01 5a; printf "\x01$z32$z32\x01\x04\x00\x01\x01\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x14$z8"; } >"$corpus/hello"
{ hdr 06 20; printf "$z32"; } >"$corpus/proof"
{ hdr 07 2f; printf "\x00\x01\x00\x00$z8$z8\x03\x00\x00\x12\x34\x00\x00\x7f\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x11\xab\xcd\xef"; } >"$corpus/endpoint"
{ hdr 02 04; printf "\x00\x00\x00\x01"; } >"$corpus/ready"
{ hdr 03 30; printf "\x00\x00\x00\x01\x00\x00\x00\x00$z8$z8$z8$z8$z8"; } >"$corpus/stats"
{ hdr 04 30; printf "\x00\x00\x00\x01\x00\x00\x00\x01$z8$z8$z8$z8$z8"; } >"$corpus/done"
{ hdr 05 06; printf "\x00\x04oops"; } >"$corpus/abort"
hdr 08 00 >"$corpus/ping"
log=$(mktemp)
defer rm -f "$log"
if "$build/fuzz/fuzz_xchg" -max_total_time="$secs" -print_final_stats=1 \
	-artifact_prefix="$corpus/" "$corpus" >"$log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	ok "$name ($runs executions in ${secs}s, no crash)"
else
	fail $name "crash or sanitizer report: $(grep -m1 -E 'ERROR|runtime error|deadly signal' "$log")"
	cat "$log" >&2
fi
finish
