#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo_guest.sh (vlab guest): make demo's experiment inside the virtual lab: `pfclab run`
# with the local launcher on scripts/experiments/vlab-demo.yaml (rxe0/va <-> rxe1/vb).
# The results folder comes back to the host in $VLAB_OUT/run, where demo.sh makes the
# plots (the guest has no gnuplot).
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib.sh"
cd "$PFCLAB_ROOT" || exit 1
"$PFCLAB" run --no-plots --out "$VLAB_OUT/run" scripts/experiments/vlab-demo.yaml
rc=$?
echo "demo_guest: pfclab run exit $rc"
exit $rc
