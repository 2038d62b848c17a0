# SPDX-License-Identifier: GPL-2.0-or-later
# 802.3x PAUSE refreshed every 1 ms for 150 ms (a storm at 100 ms), then XON, then
# one short pause. Sourced by golden.sh: $PFCLAB, $OUT.
i="$PFCLAB inject --quiet -w $OUT"
$i pause --quanta 0xffff -c 150 -r 1000 --src-mac 02:00:00:00:00:0c
$i --append --start 1700000000.1505 pause --quanta 0 -c 1 --src-mac 02:00:00:00:00:0c
$i --append --start 1700000000.2 pause --quanta 100 -c 1 --src-mac 02:00:00:00:00:0c
