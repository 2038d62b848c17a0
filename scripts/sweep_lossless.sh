#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sweep_lossless.sh: make sweep-lossless. Boots the virtual RoCE lab (QEMU, Soft-RoCE) and
# sweeps the drain rate of the emulated lossless link's receive buffers (the GPU BAR
# drain) through `pfclab run` inside it (scripts/experiments/vlab-lossless-sweep.yaml,
# run by scripts/sweep_lossless_guest.sh), brings the results folder back (with the
# link's ground-truth log, link.jsonl), makes the summary and plots here with
# `pfclab run --report`: plots/sweep-paused-goodput.png is goodput and paused share
# against the drain.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
PFCLAB=${PFCLAB:-$root/pfclab}
stamp=$(date +%Y%m%d-%H%M%S)
out=results/vlab-lossless-sweep-$stamp
work=$(mktemp -d "${TMPDIR:-/tmp}/pfclab-sweep-XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "sweep-lossless: booting the virtual lab and sweeping the drain through pfclab run; about two minutes"
rc=0
lab/vlab/vlab run --out "$work/vlab" scripts/sweep_lossless_guest.sh || rc=$?
mkdir -p results
if [ -d "$work/vlab/sweep_lossless_guest/run" ]; then
	mv "$work/vlab/sweep_lossless_guest/run" "$out"
	mkdir -p "$out/vlab"
	cp "$work/vlab"/*.log "$work/vlab/sweep_lossless_guest/log.txt" "$out/vlab/" 2>/dev/null || true
	ln -sfn "$(basename "$out")" results/latest
else
	echo "sweep-lossless: the guest brought no results back; see $work/vlab" >&2
	cp -r "$work/vlab" "results/vlab-lossless-sweep-$stamp-failed" 2>/dev/null || true
	exit 1
fi
echo
"$PFCLAB" run --report "$out" || rc=1
echo
echo "sweep-lossless: plots in $root/$out/plots/ (sweep-paused-goodput.png: goodput and paused share against the drain)"
exit $rc
