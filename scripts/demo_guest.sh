#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo_guest.sh (vlab guest): make demo's experiment inside the virtual lab. It builds the
# emulated lossless link between rxe0/va and rxe1/vb (vlab_lossless, pfclab link: a
# receive buffer drained at a set rate, PFC honoured per priority), measures the rate
# bidirectional RDMA WRITEs reach with the buffers draining faster than the wire, sets the
# GPU-BAR drain to a third of it, then runs scripts/experiments/vlab-demo.yaml with
# `pfclab run` (local launcher), one sweep point per part of the story (demo_point.sh).
# The results folder comes back to the host in $VLAB_OUT/run, where demo.sh makes the
# plots and the table (the guest has no gnuplot).
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib.sh"
cd "$PFCLAB_ROOT" || exit 1
O=$VLAB_OUT
WIRE=50000000		# the wire: 50 Mbit/s each way
BUF=196608		# the receive buffer: 192 KiB
FRAME=1082 PAYLOAD=1024	# a full RoCEv2 WRITE frame at rxe's MTU 1024, and its payload
export VLAB_LOSSLESS_BUFFER=$BUF VLAB_LOSSLESS_SPEED=${WIRE}bit
vlab_lossless on 10gbit || { echo "demo_guest: the lossless datapath could not be built" >&2; exit 1; }
trap 'vlab_lossless off' EXIT
"$PFCLAB" link -j --buffer $BUF --speed $WIRE --react 20ms --log "$O/link.jsonl" \
	"$VLAB_IF_A" "$VLAB_IF_B" >"$O/link.json" 2>"$O/link.err" &
lpid=$!
for _ in $(seq 50); do [ -e /run/pfclab/link/"$VLAB_IF_B".stats ] && break; sleep 0.1; done
kill -0 $lpid 2>/dev/null || { echo "demo_guest: pfclab link did not start: $(cat "$O/link.err")" >&2; exit 1; }

# The rate with nothing in the way: 3 s of bidirectional 64 KiB WRITEs on 4 QPs
"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -p 18890 -b -D 3 -s 64K -q 4 --qp-timeout 18 \
	--json >"$O/calib-s.out" 2>"$O/calib-s.err" &
sp=$!
sleep 0.3
"$PFCLAB" traffic -d "$VLAB_DEV_B" -x "$VLAB_GID" -p 18890 -b -D 3 -s 64K -q 4 --qp-timeout 18 \
	--json "$VLAB_IP_A" >"$O/calib-c.out" 2>"$O/calib-c.err"
wait $sp
g=$(jq -rs '[.[] | select(.type == "summary") | .rx.gbps // 0] | if length == 2 then add / 2 * 1e9 | floor else 0 end' \
	"$O/calib-s.out" "$O/calib-c.out")
if [ "${g:-0}" -le 0 ]; then
	echo "demo_guest: the calibration run moved nothing: $(tail -n 2 "$O"/calib-*.err | tr '\n' ' ')" >&2
	kill -INT $lpid; wait $lpid
	exit 1
fi
drain=$(awk -v g="$g" -v f=$FRAME -v p=$PAYLOAD 'BEGIN { printf "%d", g / 3 * f / p }')
echo "demo_guest: unconstrained $g bit/s of payload each way; the GPU-BAR drain: $drain bit/s on the wire (a third)"
printf '{"unconstrained_bps": %s, "drain_bps": %s, "wire_bps": %s, "buffer": %s}\n' "$g" "$drain" $WIRE $BUF >"$O/calibration.json"

export DEMO_LINK_PID=$lpid DEMO_DRAIN=$drain
"$PFCLAB" run --no-plots --out "$O/run" scripts/experiments/vlab-demo.yaml
rc=$?
kill -INT $lpid; wait $lpid
[ -d "$O/run" ] && cp "$O/calibration.json" "$O/link.json" "$O/run/" 2>/dev/null
echo "demo_guest: pfclab run exit $rc"
exit $rc
