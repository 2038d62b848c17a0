#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_exp.sh: builds the experiment file reader's libFuzzer target (ASan+UBSan, leaks
# checked) and runs it for a bounded time (FUZZ_SECONDS, default 15), seeded with the
# shipped experiments and a few small files that reach the sweep, the commands and the
# bottleneck.
source "$(dirname "$0")/../lib.sh"
plan 1

name=fuzz_exp
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
cp scripts/experiments/*.yaml "$corpus/"
printf 'name: s\nhosts:\n  a: {addr: 10.0.0.1, rdma: rxe0, netdev: va}\n  b: {rdma: rxe1, netdev: vb}\nsweep:\n  size: [4K, 64K]\n  qp: [1, 2]\nphases:\n  - traffic: {from: b, to: a, size: "${size}", qp: "${qp}", duration: 2s}\n' >"$corpus/sweep.yaml"
printf 'name: c\nhosts:\n  a: {netdev: va}\n  b: {netdev: vb}\nphases:\n  - duration: 1s\n    pre:\n      - {host: all, run: "true", essential: true}\n    post:\n      - {host: b, run: "echo x"}\n' >"$corpus/cmds.yaml"
printf 'name: q\nhosts:\n  a: {netdev: va}\nbottleneck: {host: a, rate: 1mbit, qdisc: red}\nphases:\n  - duration: 1s\n' >"$corpus/bottleneck.yaml"
log=$(mktemp)
defer rm -f "$log"
if "$build/fuzz/fuzz_exp" -max_total_time="$secs" -max_len=8192 -print_final_stats=1 \
	-artifact_prefix="$corpus/" "$corpus" >"$log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	ok "$name ($runs executions in ${secs}s, no crash or leak)"
else
	fail $name "crash, leak or sanitizer report: $(grep -m1 -E 'ERROR|runtime error|deadly signal' "$log")"
	cat "$log" >&2
fi
finish
