#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh: make demo. Boots the virtual RoCE lab (QEMU, Soft-RoCE) and runs the demo
# experiment through `pfclab run` inside it (scripts/experiments/vlab-demo.yaml:
# bidirectional pfclab traffic between rxe0 and rxe1, then the same on the ECN-marking
# link with inject cnp-on-ce and inject pfc-on-backlog standing in for the NIC and the
# switch; monitor and capture on both ends), brings the results folder back, makes the
# summary and plots here with `pfclab run --report`, prints the summary and the path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
PFCLAB=${PFCLAB:-$root/pfclab}
stamp=$(date +%Y%m%d-%H%M%S)
out=results/vlab-demo-$stamp
work=$(mktemp -d "${TMPDIR:-/tmp}/pfclab-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "demo: booting the virtual lab (QEMU, Soft-RoCE) and running pfclab run inside; about a minute"
rc=0
lab/vlab/vlab run --out "$work/vlab" scripts/demo_guest.sh || rc=$?
mkdir -p results
if [ -d "$work/vlab/demo_guest/run" ]; then
	mv "$work/vlab/demo_guest/run" "$out"
	mkdir -p "$out/vlab"
	cp "$work/vlab"/*.log "$work/vlab/demo_guest/log.txt" "$out/vlab/" 2>/dev/null || true
	ln -sfn "$(basename "$out")" results/latest
else
	echo "demo: the guest brought no results back; see $work/vlab/console-a.log" >&2
	cp -r "$work/vlab" "results/vlab-demo-$stamp-failed" 2>/dev/null || true
	exit 1
fi
echo
"$PFCLAB" run --report "$out" || rc=1
echo
echo "demo: plots in $root/$out/plots/ (p000-rep0.png: the phases on one time axis)"
echo "demo: results in $root/$out"
exit $rc
