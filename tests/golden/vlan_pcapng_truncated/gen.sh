# SPDX-License-Identifier: GPL-2.0-or-later
# pcapng: VLAN-tagged PFC and CNPs, and RoCEv2 records cut by a 40-byte snaplen
# (truncated, not invalid). Sourced by golden.sh: $PFCLAB, $OUT.
i="$PFCLAB inject --quiet -w $OUT"
$i --pcapng pfc --vlan 100:3 --prio 3 --quanta 2000 -c 5 -r 10000
$i --append --start 1700000000.001 cnp --vlan 100:3 --src-ip 192.168.1.2 --dst-ip 192.168.1.1 --qp 0xabcdef -c 3 -r 10000
$i --append --start 1700000000.002 --snaplen 40 roce -c 7
