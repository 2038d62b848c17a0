#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_busy.sh: the monitor's missed intervals while every CPU is busy (what a traffic
# run that spins on each core does to the host): `pfclab monitor` on a veth made here
# (every source + --frames) at 1 ms with recording, DUR seconds (default 20) each, with
# one CPU-bound process per CPU, alternating normal scheduling and --rt-priority 50
# (ROUNDS pairs, default 2). Prints per run the missed intervals and the monitor's CPU.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
PFCLAB=${PFCLAB:-$root/pfclab}
name=monitor_busy
DUR=${DUR:-20}
ROUNDS=${ROUNDS:-2}
[ "$(id -u)" -eq 0 ] || { echo "BENCH $name: skipped (needs root)"; exit 0; }
[ -x "$PFCLAB" ] || { echo "BENCH $name: skipped (no pfclab at $PFCLAB)"; exit 0; }
command -v ip >/dev/null || { echo "BENCH $name: skipped (needs ip from iproute2)"; exit 0; }
ns=pfc-bench-busy-$$
tmp=$(mktemp -d)
hogs=()
cleanup() {
	[ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$ns" || exit 1
ip -n "$ns" link add bb0 type veth peer name bb1 || exit 1
ip -n "$ns" link set bb0 up && ip -n "$ns" link set bb1 up
ncpu=$(nproc)
for ((i = 0; i < ncpu; i++)); do
	# a busy loop of the shell itself: no I/O, always runnable
	bash -c 'while :; do :; done' &
	hogs+=($!)
done
k=0
for r in $(seq "$ROUNDS"); do
	for mode in normal rt; do
		k=$((k + 1))
		args=(monitor -i bb0 --frames -I 1ms -D "${DUR}s" -q --stats --record "$tmp/rec-$k")
		[ "$mode" = rt ] && args+=(--rt-priority 50)
		ip netns exec "$ns" "$PFCLAB" "${args[@]}" >/dev/null 2>"$tmp/err-$k"
		awk -v name="$name" -v mode="$mode" -v r="$r" -v ncpu="$ncpu" '
			/: error: |--rt-priority/ { why = $0 }
			/samples in/ { for (i = 1; i <= NF; i++) {
				if ($i == "samples" && n == "") n = $(i - 1); if ($i == "overruns,") o = $(i - 1)
				if ($i == "of" && $(i + 1) == "one") pc = $(i - 1) } }
			END {
				if (n == "") { printf "BENCH %s (%s, round %d): did not run: %s\n", name, mode, r, why; exit }
				printf "BENCH %s (%s, round %d): %.3f%% missed intervals (%d of %d) at 1 ms with recording, %d busy processes on %d CPUs; monitor %s of one core\n",
					name, mode == "rt" ? "--rt-priority 50" : "normal scheduling", r,
					100 * o / (n + o), o, n + o, ncpu, ncpu, pc
			}' "$tmp/err-$k"
	done
done
