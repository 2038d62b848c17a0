#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh: the virtual-lab smoke experiment. Boots the virtual RoCE lab, runs bidirectional
# RDMA WRITE traffic between two Soft-RoCE endpoints, captures it, repeats it on the
# impaired (ECN-marking) link, and leaves everything in results/demo-<time>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=results/demo-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"

echo "demo: booting the virtual lab (QEMU, Soft-RoCE); this takes about a minute"
rc=0
lab/vlab/vlab run --out "$out" tests/vlab/t_perftest_smoke.sh | tee "$out/summary.txt" || rc=$?
VLAB_RESULT=$out/t_perftest_smoke tests/vlab/h_perftest_smoke.sh | tee -a "$out/summary.txt" || rc=1
echo
echo "demo: counters: $(cat "$out/t_perftest_smoke/counters.txt" 2>/dev/null || echo n/a)"
echo "demo: ECN:      $(cat "$out/t_perftest_smoke/ecn.txt" 2>/dev/null || echo n/a)"
echo "demo: output in $root/$out (summary.txt, console-a.log, t_perftest_smoke/*.pcap)"
exit $rc
