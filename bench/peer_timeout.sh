#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# peer_timeout.sh: how soon `pfclab traffic` notices a stopped peer (SIGSTOP) and exits,
# in the virtual lab: the three stopped-peer cases of tests/vlab/t_traffic_sec.sh (both
# ways, one way with the reader stopped, one way with the writer stopped), the default
# --peer-timeout of 2 s. Target: noticed within 2000 ms of the stop. The test itself checks
# only what holds on any host (the 1.4 s silence limit, the message, the exit status): how
# soon depends on how much the host lets the guest run, so it is measured here.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
name=peer_timeout
command -v qemu-system-x86_64 >/dev/null || { echo "BENCH $name: skipped (no qemu-system-x86_64)"; exit 0; }
[ -x "$root/pfclab" ] || { echo "BENCH $name: skipped (no pfclab at $root/pfclab)"; exit 0; }
out=$root/$build/bench/peer_timeout
rm -rf "$out"
if ! "$root/lab/vlab/vlab" run --out "$out" "$root/tests/vlab/t_traffic_sec.sh" >"$out.log" 2>&1; then
	echo "BENCH $name: did not complete (see $out.log)"
	exit 0
fi
f=$out/t_traffic_sec/stopped-peer-ms.txt
[ -s "$f" ] || { echo "BENCH $name: no figures came back (see $out)"; exit 0; }
# lines: "TAG noticed MS exited MS"
while read -r tag _ noticed _ exited; do
	awk -v t="$tag" -v n="$noticed" -v e="$exited" 'BEGIN {
		printf "BENCH %s/%s: pfclab noticed %d ms, exited %d ms after the stop, ratio %.2f (target noticed <= 2000 ms)\n",
			"peer_timeout", t, n, e, n / 2000 }'
done <"$f"
