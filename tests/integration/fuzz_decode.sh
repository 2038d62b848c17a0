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
# the formats no golden file has: the modified pcap (magic 0xa1b2cd34) and a pcapng
# simple packet block
hexfile() { printf "$(sed 's/../\\x&/g' <<<"$1")" >"$2"; }
hexfile 34cdb2a102000400100e000000000000ffff00000100000000f1536507000000040000003c0000000200000000080000aabbccdd "$FUZZ_CORPUS/modified.pcap"
hexfile 0a0d0d0a1c0000004d3c2b1a01000000ffffffffffffffff1c000000010000001400000001000000000000001400000003000000140000003c0000000102030414000000 "$FUZZ_CORPUS/spb.pcapng"
fuzz_run
finish
