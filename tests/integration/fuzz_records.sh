#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_records.sh: two libFuzzer targets (tests/fuzz.sh) over what a point leaves on a
# host, each for FUZZ_SECONDS (default 15), seeded by fuzz_seed_records: fuzz_records (the
# readers of a monitor record, capture.json, traffic JSON lines) and fuzz_results (the
# summary and plots of a results folder made of them; gnuplot stood in for).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fuzz.sh"
plan 2

fuzz_start fuzz_records || finish
if ! fuzz_seed_records; then
	fail fuzz_records "no seed: pfclab monitor --record, capture or review on lo wrote nothing"
	fail fuzz_results "no seed (as above)"
	finish
fi
fuzz_run -max_len=16384
FUZZ_NAME=fuzz_results fuzz_run -max_len=16384
finish
