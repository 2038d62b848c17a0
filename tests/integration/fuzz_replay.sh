#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_replay.sh: the libFuzzer target (tests/fuzz.sh) for a monitor record as "pfclab top
# --replay" loads it (meta.json, a line "%%", then samples.csv), for FUZZ_SECONDS (default
# 15), seeded with a real record taken on lo.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fuzz.sh"
plan 1

fuzz_start fuzz_replay || finish
mon=$FUZZ_WORK/mon
timeout 10 "$PFCLAB" monitor -i lo --record "$mon" --interval 100ms --duration 350ms -q \
	>/dev/null 2>&1
if [ -s "$mon/meta.json" ] && [ -s "$mon/samples.csv" ]; then
	{ cat "$mon/meta.json"; printf '\n%%%%\n'; cat "$mon/samples.csv"; } >"$FUZZ_CORPUS/lo"
	fuzz_run -max_len=32768
else
	fail fuzz_replay "no seed: pfclab monitor --record on lo wrote no meta.json and samples.csv"
fi
finish
