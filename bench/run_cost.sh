#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run_cost.sh: the cost of `pfclab run` itself per sweep point, with 2 and with 8 hosts
# (fake hosts of tests/hosts.sh: a network namespace each with sshd, ssh launcher, monitor
# and capture on every host's veth): from the command's start to the phase's start (version
# check, clock offsets, manifest, starting monitor and capture), and from the phase's end to
# the results written (stopping, copying back, review, summary, plots, closing manifest),
# printed beside the phase's own duration. The phase is an idle one of PHASE seconds (the
# fake hosts have no RDMA device); a traffic phase adds its servers' and clients' starts.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
PFCLAB=${PFCLAB:-$root/pfclab}
name=run_cost
PHASE=${PHASE:-3}
[ "$(id -u)" -eq 0 ] || { echo "BENCH $name: skipped (needs root)"; exit 0; }
[ -x "$PFCLAB" ] || { echo "BENCH $name: skipped (no pfclab at $PFCLAB)"; exit 0; }
for c in ssh ssh-keygen nsenter unshare /usr/sbin/sshd jq gnuplot; do
	command -v "$c" >/dev/null || { echo "BENCH $name: skipped ($c not installed)"; exit 0; }
done
# shellcheck source=../tests/lib.sh
source "$root/tests/lib.sh"
# shellcheck source=../tests/hosts.sh
source "$root/tests/hosts.sh"
tmp=$(mktemp -d)
defer rm -rf "$tmp"
fakehosts_up 8 >/dev/null || { echo "BENCH $name: did not complete (fake hosts did not start)"; exit 1; }

cost() { # N -> prints the BENCH line for N hosts
	local n=$1 k exp=$tmp/exp-$1.yaml out=$tmp/res-$1 t_start t_end t0 s e
	{
		echo "name: run-cost-$n"
		echo "launcher: ssh"
		echo "retries: 0"
		echo "hosts:"
		for ((k = 1; k <= n; k++)); do
			echo "  h$k: {addr: ${FAKEHOST_ADDR[h$k]}, netdev: ${FAKEHOST_IF[h$k]}}"
		done
		echo "monitor: {interval: 100ms}"
		echo "capture: {mode: default}"
		echo "phases:"
		echo "  - {name: idle, duration: ${PHASE}s}"
	} >"$exp"
	t_start=$(date +%s%N)
	"$PFCLAB" run -F "$SSH_CONFIG" -o "$out" -q "$exp" >"$tmp/out-$n" 2>&1 ||
		{ echo "BENCH ${name}_${n}_hosts: did not complete ($(tail -n 2 "$tmp/out-$n" | tr '\n' ' '))"; return 1; }
	t_end=$(date +%s%N)
	read -r t0 s e < <(jq -r '"\(.t0_wall_ns) \(.phases[0].start_s) \(.phases[-1].end_s)"' \
		"$out/points/p000/rep0/status.json")
	awk -v n="$n" -v nm="$name" -v a="$t_start" -v z="$t_end" -v t0="$t0" -v s="$s" -v e="$e" 'BEGIN {
		before = (t0 - a) / 1e9 + s; phase = e - s; after = (z - t0) / 1e9 - e
		printf "BENCH %s_%d_hosts: pfclab run %.1f s start to phase start + %.1f s phase end to results written, phase %.1f s, ratio %.2f (overhead / phase; ssh launcher, monitor+capture on each host, plots on)\n",
			nm, n, before, after, phase, (before + after) / phase }'
}
cost 2
cost 8
