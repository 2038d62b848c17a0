#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_exp.sh: the experiment file reader's libFuzzer target (tests/fuzz.sh) for
# FUZZ_SECONDS (default 15), seeded with the shipped experiments and a few small files
# that reach the sweep, the commands and the bottleneck.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fuzz.sh"
plan 1

fuzz_start fuzz_exp || finish
cp scripts/experiments/*.yaml "$FUZZ_CORPUS/"
printf 'name: s\nhosts:\n  a: {addr: 10.0.0.1, rdma: rxe0, netdev: va}\n  b: {rdma: rxe1, netdev: vb}\nsweep:\n  size: [4K, 64K]\n  qp: [1, 2]\nphases:\n  - traffic: {from: b, to: a, size: "${size}", qp: "${qp}", duration: 2s}\n' >"$FUZZ_CORPUS/sweep.yaml"
printf 'name: c\nhosts:\n  a: {netdev: va}\n  b: {netdev: vb}\nphases:\n  - duration: 1s\n    pre:\n      - {host: all, run: "true", essential: true}\n    post:\n      - {host: b, run: "echo x"}\n' >"$FUZZ_CORPUS/cmds.yaml"
printf 'name: q\nhosts:\n  a: {netdev: va}\nbottleneck: {host: a, rate: 1mbit, qdisc: red}\nphases:\n  - duration: 1s\n' >"$FUZZ_CORPUS/bottleneck.yaml"
fuzz_run -max_len=8192
finish
