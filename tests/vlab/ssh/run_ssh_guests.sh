#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run_ssh_guests.sh (this host, two VMs up with SSH): pfclab run with the ssh launcher
# drives real rxe traffic between the two guests (vlab-a and vlab-b, reached through
# their forwarded SSH ports, VLAB_SSH_CONFIG): bidirectional RDMA WRITE from a to b with
# monitor and capture on both; the point is valid, both directions moved bytes, both
# captures hold RoCEv2 frames, both guests ran this pfclab's version, and no guest is left
# running anything of the run.
source "$(dirname "$0")/../../lib.sh"
plan 8

need_cmd run_ssh_guests jq ssh || finish
[ -f "${VLAB_SSH_CONFIG:-}" ] || { fail run_ssh_guests "no VLAB_SSH_CONFIG (run through tests/vlab/run.sh)"; finish; }
expect() { # NAME GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

tmp=$(mktemp -d)
defer rm -rf "$tmp"
# Control masters under a private folder, stopped at the end.
mkdir -m 700 "$tmp/xdg"
export XDG_RUNTIME_DIR=$tmp/xdg
defer 'for s in "$tmp"/xdg/pfclab-ssh/cm-*; do ssh -o ControlPath="$s" -O exit x; done'

# qp_timeout 18 (1.07 s per try): two emulated guests on a busy host can leave a
# request unacknowledged longer than the default 67 ms times the retries (seen under load:
# the client's QP in error, 'Work Request Flushed': the symptom rxe shows when its ACK
# timeout is shorter than the path's delay, measured by tests/vlab/stress/rxe_repeat.sh)
cat >"$tmp/guests.yaml" <<EOF
name: vlab-ssh
launcher: ssh
retries: 0
hosts:
  a: {ssh: vlab-a, addr: 10.77.1.1, rdma: rxe0, netdev: eth0}
  b: {ssh: vlab-b, addr: 10.77.1.2, rdma: rxe0, netdev: eth0}
monitor: {interval: 200ms}
capture: {mode: roce}
phases:
  - name: bidir
    traffic: {from: a, to: b, bidirectional: true, size: 64K, duration: 1s, qp_timeout: 18}
EOF
start=$(date +%s)
"$PFCLAB" run -F "$VLAB_SSH_CONFIG" -o "$tmp/res" --no-plots -q "$tmp/guests.yaml" >"$tmp/run.out" 2>&1
rc=$?
echo "run_ssh_guests: pfclab run took $(($(date +%s) - start)) s" >&2
expect run_ssh_guests_exit "$rc" 0
rep=$tmp/res/points/p000/rep0
if [ $rc -ne 0 ]; then # what the run and each traffic process said (the folder goes away)
	tail -n 20 "$tmp/run.out" >&2
	for f in "$rep"/*/traffic-*.err "$rep"/*/traffic-*.jsonl; do
		[ -f "$f" ] && { echo "== $f"; tail -n 8 "$f"; } >&2
	done
fi
expect run_ssh_guests_valid "$(jq -r .valid "$rep/status.json" 2>/dev/null)" true
v=$("$PFCLAB" version | cut -d' ' -f2)
expect run_ssh_guests_versions "$(jq -r '[.hosts.a.before.pfclab_version // .hosts.a.pfclab_version, .hosts.b.before.pfclab_version // .hosts.b.pfclab_version] | join(" ")' "$tmp/res/manifest.json" 2>/dev/null)" "$v $v"
# The client's summary: bytes both ways. Bounded: above zero, and below what 10 Gb/s
# could carry in the phase (rxe under TCG moves ~0.15 Gb/s).
sum=$(cat "$rep"/a/traffic-bidir-client-*.jsonl 2>/dev/null | jq -r 'select(.type == "summary") | "\(.tx.bytes) \(.rx.bytes)"' | head -n 1)
read -r tx rx <<<"$sum"
if [ "${tx:-0}" -gt 0 ] && [ "${rx:-0}" -gt 0 ] && [ "$tx" -lt 2000000000 ] && [ "$rx" -lt 2000000000 ]; then
	ok run_ssh_guests_traffic_both_ways
else
	fail run_ssh_guests_traffic_both_ways "client summary tx/rx '$sum'"
fi
for h in a b; do
	n=$(jq -r .kinds.roce "$rep/$h/review.json" 2>/dev/null)
	if [ "${n:-0}" -gt 0 ] 2>/dev/null; then ok "run_ssh_guests_capture_$h"
	else fail "run_ssh_guests_capture_$h" "RoCEv2 frames in $h's capture: '$n'"; fi
done
for h in a b; do
	left=$(ssh -F "$VLAB_SSH_CONFIG" "vlab-$h" 'pgrep -x pfclab' 2>/dev/null | tr '\n' ' ')
	expect "run_ssh_guests_nothing_left_$h" "$left" ""
done
finish
