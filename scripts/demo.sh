#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh: make demo. Boots the virtual RoCE lab (QEMU, Soft-RoCE) and runs the demo
# experiment through `pfclab run` inside it (scripts/demo_guest.sh: the emulated lossless
# link between rxe0 and rxe1, the rate measured first, then the points of
# scripts/experiments/vlab-demo.yaml: host memory, the GPU-BAR drain with PFC, the same
# with PFC off), brings the results folder back, makes the summary and plots here with
# `pfclab run --report`, and lays the points side by side (scripts/demo_story.sh), which
# fails the demo where the story did not show. Prints the table and the paths.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
PFCLAB=${PFCLAB:-$root/pfclab}
stamp=$(date +%Y%m%d-%H%M%S)
out=results/vlab-demo-$stamp
work=$(mktemp -d "${TMPDIR:-/tmp}/pfclab-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "demo: booting the virtual lab (QEMU, Soft-RoCE) and running pfclab run inside; about two minutes"
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
scripts/demo_story.sh "$out" || rc=1
echo
echo "demo: plots in $root/$out/plots/ (story.png: the points side by side; p000-rep0.png: a point on one time axis)"
echo "demo: results in $root/$out"
exit $rc
