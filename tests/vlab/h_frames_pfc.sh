#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# h_frames_pfc.sh (host): checks the capture t_frames_pfc.sh brought back from the vlab
# with tshark, which the guest lacks: the PFC frames for priority 3 with a pause time
# (XOFF) and with time 0 (XON) must agree with pfclab review.
source "$(dirname "$0")/../lib.sh"
plan 1

name=frames_pfc_tshark
f=${VLAB_RESULT:-}/pfc.pcap
[ -f "$f" ] || { skip $name "no capture at $f"; finish; }
need_cmd $name tshark jq || finish
t=$(tshark -r "$f" -Y 'macc.opcode == 0x0101' -T fields -e macc.cbfc.pause_time.c3 2>/dev/null |
	awk '$1 > 0 { x++ } $1 == 0 { n++ } END { printf "%d %d", x, n }')
p=$("$PFCLAB" review --json "$f" | jq -r '.pause.priorities[] | select(.priority == 3) | "\(.xoff) \(.xon)"')
if [ -n "$p" ] && [ "$t" = "$p" ]; then
	ok "$name: tshark and pfclab agree (priority 3: XOFF XON = $t)"
else
	fail "$name" "tshark XOFF XON '$t'; pfclab '$p'"
fi
finish
