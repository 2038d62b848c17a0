#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_record_wide.sh: what recording costs as the columns grow, the way a NIC with many
# queues grows them (ethtool -S lists each queue's counters): `pfclab monitor -i IFACE -I 1ms
# --record` for DUR seconds (default 10) on a veth made here with 1 queue and with QUEUES
# (default 64: 9 ethtool counters a queue), ROUNDS times (default 2) alternating. Prints
# per run recording's CPU per sample (--stats: the sampling thread's copy plus the writer
# thread) and the bytes a sample takes in samples.jsonl and in samples.csv (the same values
# without names). PFCLAB_OLD=PATH runs an older pfclab alongside, for a before/after. Each
# record is removed and synced away before the next run, so that no run pays for the
# writeback of the one before it.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
PFCLAB=${PFCLAB:-$root/pfclab}
name=monitor_record_wide
DUR=${DUR:-10}
QUEUES=${QUEUES:-64}
ROUNDS=${ROUNDS:-2}
[ "$(id -u)" -eq 0 ] || { echo "BENCH $name: skipped (needs root)"; exit 0; }
[ -x "$PFCLAB" ] || { echo "BENCH $name: skipped (no pfclab at $PFCLAB)"; exit 0; }
command -v ip >/dev/null || { echo "BENCH $name: skipped (needs ip from iproute2)"; exit 0; }
ns=pfc-bench-wide-$$
tmp=$(mktemp -d)
cleanup() {
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$ns" || exit 1
ip -n "$ns" link add rw0 type veth peer name rw1 || exit 1
ip -n "$ns" link add rq0 numtxqueues "$QUEUES" numrxqueues "$QUEUES" type veth peer name rq1 \
	numtxqueues "$QUEUES" numrxqueues "$QUEUES" || exit 1
for l in rw0 rw1 rq0 rq1; do ip -n "$ns" link set "$l" up; done
bins=(pfclab:"$PFCLAB")
[ -n "${PFCLAB_OLD:-}" ] && bins+=(old:"$PFCLAB_OLD")
k=0
for r in $(seq "$ROUNDS"); do
	for b in "${bins[@]}"; do
		for ifc in rw0 rq0; do
			k=$((k + 1))
			d=$tmp/rec-$k
			ip netns exec "$ns" "${b#*:}" monitor -i "$ifc" -I 1ms -D "${DUR}s" -q --stats \
				--record "$d" 2>"$tmp/err-$k"
			awk -v name="$name" -v who="${b%%:*}" -v ifc="$ifc" \
				-v nq="$([ "$ifc" = rq0 ] && echo "$QUEUES" || echo 1)" \
				-v jb="$(stat -c %s "$d/samples.jsonl" 2>/dev/null || echo 0)" \
				-v cb="$(cat "$d"/samples*.csv 2>/dev/null | wc -c)" \
				-v cols="$(jq '.columns | length' "$d/meta.json" 2>/dev/null)" '
				/ samples in / { n = $3; cpu = $0; sub(/.*CPU /, "", cpu); sub(/ us per sample.*/, "", cpu) }
				/^  recording/ { rec = $2 }
				END {
					if (!n) { printf "BENCH %s (%s, %s): no figures\n", name, who, ifc; exit }
					printf "BENCH %s (%s, veth of %d queue(s), %s columns): recording %s us per sample, %.0f bytes per sample in samples.jsonl, %.0f in samples.csv; monitor CPU %s us per sample (%d samples at 1 ms)\n",
						name, who, nq, cols, rec, jb / n, cb / n, cpu, n
				}' "$tmp/err-$k"
			# the next run starts with no dirty pages of this one to write back
			rm -rf "$d"
			sync
		done
	done
done
