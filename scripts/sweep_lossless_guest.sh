#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sweep_lossless_guest.sh (vlab guest): the drain sweep of
# scripts/experiments/vlab-lossless-sweep.yaml inside the virtual lab: builds the emulated
# lossless link's datapath on va/vb (vlab_lossless), runs `pfclab link` on both ends for
# the whole sweep (its ground-truth log beside the results), then `pfclab run` with the
# local launcher. The results folder comes back in $VLAB_OUT/run, where
# sweep_lossless.sh makes the summary and plots (the guest has no gnuplot).
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib.sh"
cd "$PFCLAB_ROOT" || exit 1
# what the experiment file says: a 192 KiB buffer, the wire at 50 Mbit/s, priority 3;
# 20 ms of reaction headroom as tests/vlab/t_lossless.sh has it
export VLAB_LOSSLESS_BUFFER=196608 VLAB_LOSSLESS_SPEED=50mbit
vlab_lossless on || { echo "sweep_lossless_guest: datapath set up failed" >&2; exit 1; }
"$PFCLAB" link -j --buffer 196608 --speed 50M --react 20ms --log "$VLAB_OUT/link.jsonl" \
	"$VLAB_IF_A" "$VLAB_IF_B" >"$VLAB_OUT/link.json" 2>"$VLAB_OUT/link.err" &
lpid=$!
for _ in $(seq 50); do [ -e /run/pfclab/link/"$VLAB_IF_B".stats ] && break; sleep 0.1; done
"$PFCLAB" run --no-plots --out "$VLAB_OUT/run" scripts/experiments/vlab-lossless-sweep.yaml
rc=$?
kill -INT $lpid
wait $lpid
cp "$VLAB_OUT"/link.json "$VLAB_OUT"/link.jsonl "$VLAB_OUT"/link.err "$VLAB_OUT/run/" 2>/dev/null
vlab_lossless off
echo "sweep_lossless_guest: pfclab run exit $rc; link: $(tr '\n' ' ' <"$VLAB_OUT/link.json")"
exit $rc
