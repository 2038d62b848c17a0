#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo_point.sh POINT (vlab guest; the pre command of scripts/experiments/vlab-demo.yaml):
# sets the emulated lossless link (pfclab link, lab/README.md) for one point of make
# demo's story, after the last point's packets have left the queues:
#   host     the receivers drain faster than the wire (host memory: PCIe keeps up with
#            line rate): no PFC, no drops
#   gpu-bar  they drain at DEMO_DRAIN bit/s (the GPU BAR1 stand-in: a third of the rate
#            measured first): the buffers fill, PFC pauses the senders, nothing is lost
#   pfc-off  the same drain with PFC off: the buffers overflow, Soft-RoCE goes back N
# One link runs across all points (its pid in DEMO_LINK_PID, started by demo_guest.sh);
# SIGUSR1 and SIGUSR2 turn its PFC off and on.
set -u
[ -f /vlab/guest-env.sh ] && source /vlab/guest-env.sh
: "${DEMO_LINK_PID:?demo_point.sh: DEMO_LINK_PID not set (run by demo_guest.sh)}"
: "${DEMO_DRAIN:?demo_point.sh: DEMO_DRAIN not set (run by demo_guest.sh)}"

vlab_settle	# the last point's packets out of the queues first
case ${1:-} in
host) rate=10000000000 sig=USR2 ;;
gpu-bar) rate=$DEMO_DRAIN sig=USR2 ;;
pfc-off) rate=$DEMO_DRAIN sig=USR1 ;;
*) echo "demo_point.sh: no point '${1:-}' (host, gpu-bar or pfc-off)" >&2; exit 2 ;;
esac
vlab_lossless drain "${rate}bit" || exit 1
kill -"$sig" "$DEMO_LINK_PID" || { echo "demo_point.sh: pfclab link (pid $DEMO_LINK_PID) is gone" >&2; exit 1; }
echo "demo point $1: drain $rate bit/s, PFC $([ $sig = USR2 ] && echo on || echo off)"
