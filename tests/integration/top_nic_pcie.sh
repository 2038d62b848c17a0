#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# top_nic_pcie.sh: the NIC's PCIe line of "pfclab top", in a replay in tmux of two records
# made from the ethtool fixtures (tests/fixture_record.sh): an mlx5 host whose
# outbound_pci_stalled_wr/_rd gauges move (12 -> 85 -> 40 %, 0 -> 3 -> 1 %) and whose
# outbound_pci_buffer_overflow steps by 17, beside a bnxt_en host that counts none of them.
# At the record's end the mlx5 host's line shows the last second's shares (40.0 % of
# writes, 1.0 % of reads stalled) and 17 drops/s with a total of 17; the bnxt_en host's
# line is there, every cell n/a, not 0. On the GPU's PCIe line's section, with its drop/s
# column. Live, on a veth of this host (root: a namespace), the line is there and n/a.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../tmux.sh"
source "$(dirname "$0")/../fixture_record.sh"
plan 4
name=top_nic_pcie
need_cmd $name tmux awk || finish
tmp=$(mktemp -d)
defer rm -rf "$tmp"
fixture_record mlx5_ethtool_stats.en_stats.txt mlx5_core "$tmp/rec/h1" mlx5 3 &&
	fixture_record bnxt_en_ethtool_stats.bnxt_ethtool.txt bnxt_en "$tmp/rec/h2" bnxt ||
	{ fail "$name: records from the fixtures"; finish; }

tmux_shell 160 80 || { fail $name "tmux"; finish; }
# the words of the line 'NIC PCIe' (two words) after its label, sparklines left out
nic() { screen | awk '$1 == "NIC" && $2 == "PCIe" {
	for (i = 3; i <= NF; i++) if ($i ~ /^[-0-9a-z.\/%!*]+$/) printf "%s ", $i; exit }'; }
screen_at_end() { screen | head -1 | grep -qE ' ([0-9.]+) s / \1 s'; }

type_line "$PFCLAB top --replay $tmp/rec --paused; echo TOP_EXIT=\$?"
wait_for PAUSED || { fail "$name: replay starts" "$(screen | head -3)"; finish; }
keys G
for ((i = 0; i < 50; i++)); do screen_at_end && break; sleep 0.1; done
sleep 0.3
got=$(nic)
# h1: stalled wr, stalled rd, drop/s, total; h2: three n/a and no total
[ "$got" = "40.0% 1.0% 17 17 n/a n/a n/a " ] &&
	ok "$name: mlx5 stall shares and PCIe buffer drops on one line, n/a on bnxt_en" ||
	fail "$name: NIC PCIe line" "got '$got' want '40.0% 1.0% 17 17 n/a n/a n/a '; $(screen | grep -A1 '^PCIe')"
screen | grep -qE '^PCIe +rx +tx +drop/s +total' &&
	ok "$name: the PCIe section names the drop/s column" ||
	fail "$name: PCIe heading" "$(screen | grep '^PCIe')"
keys g
sleep 0.5
got=$(nic)
[ "$got" = "12.0% 0.0% - 0 n/a n/a n/a " ] &&
	ok "$name: at the first sample the gauges read, the drops have no rate yet" ||
	fail "$name: first sample" "got '$got'"
keys q
wait_for 'TOP_EXIT=0' >/dev/null

if [ "$(id -u)" -eq 0 ] && command -v ip >/dev/null && setup_ns NSA; then
	ip -n "$NSA" link add tna type veth peer name tnb && ip -n "$NSA" link set tna up &&
		ip -n "$NSA" link set tnb up
	type_line clear
	type_line "ip netns exec $NSA $PFCLAB top -i tna -I 200ms; echo TOP_EXIT=\$?"
	wait_for 'ok [0-9]' >/dev/null
	sleep 0.6
	got=$(nic)
	[ "$got" = "n/a n/a n/a " ] && ok "$name: live on a veth: the line is there, n/a" ||
		fail "$name: live veth" "got '$got'; $(screen | grep -A1 '^PCIe')"
	keys q
	wait_for 'TOP_EXIT=0' >/dev/null
else
	skip "$name: live veth" "needs root and ip for a namespace"
fi
finish
