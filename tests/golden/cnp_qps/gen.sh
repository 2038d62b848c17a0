# SPDX-License-Identifier: GPL-2.0-or-later
# CNPs from two notification points to several QPs at different rates, and RoCEv2
# WRITEs with every third packet CE-marked. Sourced by golden.sh: $PFCLAB, $OUT.
i="$PFCLAB inject --quiet -w $OUT"
$i cnp --src-ip 10.0.0.2 --dst-ip 10.0.0.1 --qp 0x100 -c 50 -r 20000
$i --append --start 1700000000.01 cnp --src-ip 10.0.0.2 --dst-ip 10.0.0.1 --qp 0x101 -c 10 -r 1000
$i --append --start 1700000000.02 cnp --src-ip 10.0.0.3 --dst-ip 10.0.0.1 --qp 0x200 --qp-step 1 -c 4 -r 1000
$i --append --start 1700000000.03 roce --src-ip 10.0.0.1 --dst-ip 10.0.0.2 --qp 0x55 --ce-every 3 --len 256 -c 30 -r 100000
$i --append --start 1700000000.04 roce --src-ip 10.0.0.1 --dst-ip 10.0.0.3 --qp 0x66 --ecn not-ect --len 64 -c 5
