#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_feed.sh: the libFuzzer target (tests/fuzz.sh) for what the dashboard reads from a
# remote monitor, for FUZZ_SECONDS (default 15), seeded with real "pfclab monitor --json
# --all" lines (on lo) and a sample that fills the priority, CNP, capture and GPU rows.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fuzz.sh"
plan 1

fuzz_start fuzz_feed || finish
timeout 10 "$PFCLAB" monitor -i lo --json --all --interval 100ms --duration 350ms \
	>"$FUZZ_CORPUS/lo.jsonl" 2>/dev/null
c='"delta":1,"rate":2.5'
printf '{"seq":4,"mono_ns":10,"wall_ns":20,"dt_ns":1000000,"overruns":0,"gaps":[],"values":{%s}}\n' \
	"\"link.rx_bytes\":{\"value\":1000,$c,\"unit\":\"B\"},\"pfc.tx.prio3.frames\":{\"value\":5,$c,\"unit\":\"frames\"},\"pfc.rx.prio3.pause_us\":{\"value\":7,$c,\"unit\":\"us\"},\"cnp.sent\":{\"value\":3,$c,\"unit\":\"packets\"},\"capture.pfc.prio5.paused_us\":{\"value\":9,$c,\"unit\":\"us\"},\"pcie.gpu1.rx_Bps\":{\"value\":1e9,\"unit\":\"B/s\"},\"pcie.gpu1.link_gen\":{\"value\":4,\"unit\":\"\"},\"pcie.gpu1.link_width\":{\"value\":16,\"unit\":\"\"},\"discard.rx_phy\":{\"value\":null,\"delta\":null,\"rate\":null,\"unit\":\"packets\"}" \
	>"$FUZZ_CORPUS/rows.jsonl"
if [ -s "$FUZZ_CORPUS/lo.jsonl" ]; then
	fuzz_run -max_len=16384
else
	fail fuzz_feed "no seed: pfclab monitor -i lo --json --all printed nothing"
fi
finish
