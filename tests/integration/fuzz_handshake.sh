#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_handshake.sh: the traffic handshake's libFuzzer target (tests/fuzz.sh) for
# FUZZ_SECONDS (default 15): server and client side over a socketpair, with and without a
# key. Seeds are the target's own (fuzz_handshake.c, PFCLAB_FUZZ_SEEDS): whole handshakes
# of a peer that passes, and of peers with the wrong key, other parameters, an ABORT or no
# proof.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fuzz.sh"
plan 1

fuzz_start fuzz_handshake || finish
if ! PFCLAB_FUZZ_SEEDS=$FUZZ_CORPUS "${BUILD:-build}/fuzz/fuzz_handshake" >/dev/null 2>&1 ||
	[ ! -s "$FUZZ_CORPUS/server" ] || [ ! -s "$FUZZ_CORPUS/client-key" ]; then
	fail fuzz_handshake "no seed: build/fuzz/fuzz_handshake wrote no handshake"
else
	# a message is at most 8204 bytes: room for a few, all in the socket at once
	fuzz_run -max_len=32768
fi
finish
