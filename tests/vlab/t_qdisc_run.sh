#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_qdisc_run.sh (vlab guest): `pfclab run` with a congestion point on a real RED: host b
# (rxe1 on vb) writes to host a (rxe0 on va), ECN-capable; host cp is this same machine
# with vb as its port towards the receiver, where the run's bottleneck: puts htb 100 Mbit/s
# + RED with ECN for the point and takes it away afterwards. The summary's DCQCN line
# shows the RED's CE marks (Soft-RoCE has no CNP counters: n/a), and vb has its own root
# qdisc again. The folder goes back to the host, where `pfclab run --report` draws it.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 3

name=qdisc-run
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary"; finish; }
vlab_impair off
before=$(tc qdisc show dev "$VLAB_IF_B")
cat >"$VLAB_OUT/exp.yaml" <<EXP
name: vlab-cpoint
launcher: local
retries: 0
hosts:
  a: {addr: $VLAB_IP_A, rdma: $VLAB_DEV_A, netdev: $VLAB_IF_A}
  b: {addr: $VLAB_IP_B, rdma: $VLAB_DEV_B, netdev: $VLAB_IF_B}
  cp: {netdev: $VLAB_IF_B}
monitor: {interval: 100ms}
capture: false
bottleneck: {host: cp, qdisc: red, rate: 100mbit, limit: 4000000, min: 30000, max: 90000,
             probability: 0.5, burst: 55, ecn: true}
phases:
  - name: load
    traffic: {from: b, to: a, size: 64K, duration: 3s, tclass: 2, qp_timeout: 18}
EXP
"$PFCLAB" run --no-plots -q --out "$VLAB_OUT/run" "$VLAB_OUT/exp.yaml" >"$VLAB_OUT/run.out" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
	ok "$name: pfclab run with the RED bottleneck exits 0"
else
	fail "$name: pfclab run" "exit $rc: $(tail -n 3 "$VLAB_OUT/run.out" | tr '\n' ' ')"
fi
line=$(grep -A3 '^DCQCN loop (bottleneck cp' "$VLAB_OUT/run/summary.txt" | grep 'p000 rep' | tail -n 1)
echo "$line" >"$VLAB_OUT/dcqcn-line.txt"
ce=$(awk -F'|' '{ sub(/.*: /, "", $1); print $1 + 0 }' <<<"$line")
if [ "${ce:-0}" -gt 0 ] && [[ $line == *"| n/a | n/a | "*" Gb/s" ]]; then
	ok "$name: summary: $line"
else
	fail "$name: summary DCQCN line" "'$line'"
fi
after=$(tc qdisc show dev "$VLAB_IF_B")
if [ "$after" = "$before" ]; then
	ok "$name: $VLAB_IF_B has its own root qdisc again"
else
	fail "$name: restore" "before '$before' after '$after'"
fi
finish
