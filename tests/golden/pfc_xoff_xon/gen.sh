# SPDX-License-Identifier: GPL-2.0-or-later
# PFC on priority 3: XOFF bursts refreshed every 10 us, XON, an expiring XOFF, and a
# frame naming priorities 0, 3 and 5 at once. Sourced by golden.sh: $PFCLAB, $OUT.
i="$PFCLAB inject --quiet -w $OUT"
$i pfc --prio 3 --quanta 0xffff -c 20 -r 100000 --src-mac 02:00:00:00:00:0a
$i --append --start 1700000000.0005 pfc --prio 3 --quanta 0 -c 1 --src-mac 02:00:00:00:00:0a
$i --append --start 1700000000.001 pfc --prio 3 --quanta 1000 -c 1 --src-mac 02:00:00:00:00:0a
$i --append --start 1700000000.002 pfc --prio 0,3,5 --quanta 500 -c 4 -r 1000 --src-mac 02:00:00:00:00:0b
