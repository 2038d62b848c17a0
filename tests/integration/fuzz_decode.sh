#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_decode.sh: the frame decoder's libFuzzer target (tests/fuzz.sh) for FUZZ_SECONDS
# (default 20), seeded with the golden captures.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fuzz.sh"
plan 1

fuzz_start fuzz_decode 20 || finish
for f in tests/golden/*/input.pcap; do
	[ -f "$f" ] && cp "$f" "$FUZZ_CORPUS/$(basename "$(dirname "$f")").pcap"
done
fuzz_run
finish
