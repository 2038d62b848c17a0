#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_xchg.sh: the traffic exchange parser's libFuzzer target (tests/fuzz.sh) for
# FUZZ_SECONDS (default 15), seeded with one valid message of each type.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fuzz.sh"
plan 1

fuzz_start fuzz_xchg || finish
z8='\x00\x00\x00\x00\x00\x00\x00\x00'
z32="$z8$z8$z8$z8"
hdr() { printf "PFCT\x00\x02\\x$1\x00\x00\x00\x00\\x$2"; } # TYPE BODYLEN (hex)
{ hdr 01 5a; printf "\x01$z32$z32\x01\x04\x00\x01\x01\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x14$z8"; } >"$FUZZ_CORPUS/hello"
{ hdr 06 20; printf "$z32"; } >"$FUZZ_CORPUS/proof"
{ hdr 07 2f; printf "\x00\x01\x00\x00$z8$z8\x03\x00\x00\x12\x34\x00\x00\x7f\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x11\xab\xcd\xef"; } >"$FUZZ_CORPUS/endpoint"
{ hdr 02 04; printf "\x00\x00\x00\x01"; } >"$FUZZ_CORPUS/ready"
{ hdr 03 30; printf "\x00\x00\x00\x01\x00\x00\x00\x00$z8$z8$z8$z8$z8"; } >"$FUZZ_CORPUS/stats"
{ hdr 04 30; printf "\x00\x00\x00\x01\x00\x00\x00\x01$z8$z8$z8$z8$z8"; } >"$FUZZ_CORPUS/done"
{ hdr 05 06; printf "\x00\x04oops"; } >"$FUZZ_CORPUS/abort"
hdr 08 00 >"$FUZZ_CORPUS/ping"
fuzz_run
finish
