#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_records.sh: two libFuzzer targets (tests/fuzz.sh) over what a point leaves on a
# host, each for FUZZ_SECONDS (default 15), seeded by fuzz_seed_records: fuzz_records (the
# readers of a monitor record, capture.json, traffic JSON lines) and fuzz_results (the
# summary and plots of a results folder made of them, its status.json and manifest;
# gnuplot stood in for). fuzz_results's first byte picks the files the rest goes to (1:
# the host files, 2: status.json, 4: the manifest), so its seeds are those with a pick.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fuzz.sh"
plan 2

fuzz_start fuzz_records || finish
if ! fuzz_seed_records; then
	fail fuzz_records "no seed: pfclab monitor --record, capture or review on lo wrote nothing"
	fail fuzz_results "no seed (as above)"
	finish
fi
res=$FUZZ_WORK/results-corpus
mkdir -p "$res"
for f in "$FUZZ_CORPUS"/*; do { printf '\001'; cat "$f"; } >"$res/host-${f##*/}"; done
{ printf '\002'; echo '{"finished":true,"valid":true,"reasons":[],"attempt":0,"t0_wall_ns":1000000000,"phases":[{"name":"x","start_s":0,"end_s":2.0,"traffic_end_s":2.0}]}'; } >"$res/status"
{ printf '\004'; echo '{"status":"complete","hosts":{"a":{"clock":{"offset_start_ns":5,"offset_end_ns":9,"start_wall_ns":1000000000,"end_wall_ns":4000000000}},"b":{}}}'; } >"$res/manifest"
fuzz_run -max_len=16384
FUZZ_NAME=fuzz_results FUZZ_CORPUS=$res fuzz_run -max_len=16384
finish
