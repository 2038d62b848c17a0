#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# h_perftest_smoke.sh (host): the captures t_perftest_smoke.sh brought back, read by an
# independent decoder (tshark): RoCEv2 RDMA WRITEs on UDP 4791, and CE marks on the
# impaired link.
source "$(dirname "$0")/../lib.sh"
plan 3
r=${VLAB_RESULT:?}
need_cmd "host: tshark decode of the vlab capture" tshark || finish

if [ ! -s "$r/roce.pcap" ]; then
	fail "host: RoCEv2 capture came back" "no $r/roce.pcap"
	finish
fi
ok "host: RoCEv2 capture came back ($(stat -c %s "$r/roce.pcap") bytes)"
n=$(tshark -r "$r/roce.pcap" -Y 'udp.dstport == 4791 && infiniband.bth.opcode >= 6 && infiniband.bth.opcode <= 11' 2>/dev/null | wc -l)
if [ "$n" -gt 0 ]; then ok "host: tshark finds $n RoCEv2 RDMA WRITE packets"
else fail "host: tshark finds RoCEv2 RDMA WRITE packets" "none"; fi
ce=$(tshark -r "$r/ecn.pcap" -Y 'ip.dsfield.ecn == 3 && infiniband' 2>/dev/null | wc -l)
if [ "$ce" -gt 0 ]; then ok "host: tshark finds $ce CE-marked RoCEv2 packets"
else fail "host: tshark finds CE-marked RoCEv2 packets" "none"; fi
finish
