#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run_slurm.sh: `salloc -N3 pfclab run` with the slurm launcher on a local Slurm
# (tests/hosts.sh: munged, slurmctld, one slurmd per namespace node n1 n2 n3): monitor
# and capture run as job steps on every node, on that node's own veth; frames n1 and n2
# inject at n3 are all in n3's capture; the records of the three nodes come back; a
# fourth host more than the allocation has is refused before anything starts.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../hosts.sh"
plan 11

need_root run_slurm || finish
need_cmd run_slurm slurmctld slurmd munged srun salloc scontrol nsenter unshare jq || finish
[ -x "$PFCLAB" ] || { fail run_slurm "no pfclab binary at $PFCLAB (run make)"; finish; }

expect() { # NAME GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

tmp=$(mktemp -d)
defer rm -rf "$tmp"
if ! slurm_up 3; then
	fail run_slurm_up "could not start a 3-node Slurm"
	finish
fi
real=$(readlink -f "$PFCLAB")
mac3=$(ip -n "${SLURM_NODE_NS[n3]}" -br link show eth0 | awk '{ print $3 }')
N=25 # RoCEv2 frames each of n1 and n2 injects at n3

exp_yaml() { # NAME NODE...
	local name=$1 n
	shift
	echo "name: $name"
	echo "launcher: slurm"
	echo "retries: 0"
	echo "hosts:"
	for n in "$@"; do
		echo "  $n: {node: $n, addr: ${SLURM_NODE_ADDR[$n]:-10.0.0.1}, netdev: eth0, pfclab: $real}"
	done
	echo "monitor: {interval: 100ms}"
	echo "capture: {mode: roce}"
	echo "phases:"
	echo "  - name: frames"
	echo "    inject:"
	for n in n1 n2; do
		echo "      - {host: $n, kind: roce, args: [--dst-mac, \"$mac3\", --count, \"$N\", --rate, \"200\"]}"
	done
	echo "    duration: 1s"
}
exp_yaml sl-three n1 n2 n3 >"$tmp/three.yaml"
timeout 120 salloc -N3 "$PFCLAB" run -o "$tmp/three" --no-plots -q "$tmp/three.yaml" >"$tmp/three.out" 2>&1
rc=$?
expect run_slurm_exit "$rc" 0
[ $rc -eq 0 ] || tail -n 20 "$tmp/three.out" >&2
expect run_slurm_launcher "$(jq -r '.launcher // empty' "$tmp/three/manifest.json" 2>/dev/null)" slurm
expect run_slurm_reach "$(jq -r '[.hosts.n1.reach, .hosts.n2.reach, .hosts.n3.reach] | join(" ")' "$tmp/three/manifest.json" 2>/dev/null)" "n1 n2 n3"
# Each host's probes ran on its own node (its own hostname).
expect run_slurm_hostnames "$(jq -r '[.hosts.n1.before.hostname, .hosts.n2.before.hostname, .hosts.n3.before.hostname] | join(" ")' "$tmp/three/manifest.json" 2>/dev/null)" "n1 n2 n3"
rep=$tmp/three/points/p000/rep0
expect run_slurm_valid "$(jq -r .valid "$rep/status.json" 2>/dev/null)" true
# Each capture ran in its node's namespace: n3's veth got every frame n1 and n2 sent it.
expect run_slurm_receiver_frames "$(jq -r .kinds.roce "$rep/n3/review.json" 2>/dev/null)" $((2 * N))
missing=
for n in n1 n2 n3; do
	for f in capture.pcapng review.json monitor/samples.csv; do
		[ -s "$rep/$n/$f" ] || missing+=" $n/$f"
	done
done
expect run_slurm_records "$missing" ""
# Every job step of the run is over.
expect run_slurm_no_steps_left "$(squeue -h -s 2>/dev/null | grep -c .)" 0

exp_yaml sl-four n1 n2 n3 n4 >"$tmp/four.yaml"
timeout 60 salloc -N3 "$PFCLAB" run -o "$tmp/four" --no-plots -q "$tmp/four.yaml" >"$tmp/four.out" 2>&1
rc=$?
expect run_slurm_too_few_exit "$rc" 1
check run_slurm_too_few_message grep -q 'n4 .*not in the allocation' "$tmp/four.out"
check run_slurm_too_few_nothing_started test ! -e "$tmp/four/points"
finish
