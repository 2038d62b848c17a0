#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# doctor_nicqos.sh: 'pfclab doctor --netdev IF' gives IF's DCQCN parameters, buffer split
# and PFC storm-prevention timeout, read from the fixture trees of tests/fixtures/nicqos
# (PFCLAB_SYSFS_ROOT) and from this host: MLNX_OFED's ecn/ params and enable switches
# (source mlnx_ofed, on for priority 3), the inbox mlx5 debugfs cc_params (source
# debugfs, the one file left out null), the qos/ files as text; the storm timeout, an
# ioctl, n/a under a fixture root; on a veth of this host every field null (JSON) and
# n/a (text), never 0. The same object is what a run's manifest keeps before and after.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 5
name=doctor_nicqos
need_cmd $name jq ip || finish
FX=$PFCLAB_ROOT/tests/fixtures/nicqos
[ -e "$FX/mlx5_inbox/sys/class/net/eth3/device" ] || [ -L "$FX/mlx5_inbox/sys/class/net/eth3/device" ] ||
	{ fail "$name: fixture" "no device link in $FX/mlx5_inbox"; finish; }

nic() { PFCLAB_SYSFS_ROOT=$1 "$PFCLAB" doctor --json --section qos --netdev "$2" | jq -c .nic; }

got=$(nic "$FX/mlnx_ofed" eth2)
if jq -e '.dcqcn.source == "mlnx_ofed" and .dcqcn.params["roce_rp.rpg_ai_rate"] == 5 and
	.dcqcn.params["roce_rp.rpg_time_reset"] == 300 and .dcqcn.params["roce_np.cnp_dscp"] == 48 and
	(.dcqcn.params | length) == 15 and .dcqcn.enable.rp == [0,0,0,1,0,0,0,0] and
	.dcqcn.enable.np == [0,0,0,1,0,0,0,0] and .buffer.trust == "dscp" and
	(.buffer.buffer_size | startswith("Port buffer size = 262016\n")) and
	(.buffer.prio2buffer | split("\n")[3]) == "3 1" and .pfc_storm_timeout_ms == null' \
	<<<"$got" >/dev/null; then
	ok "$name: MLNX_OFED tree: DCQCN params and enable, the buffer split as text"
else
	fail "$name: mlnx_ofed" "$got"
fi

got=$(nic "$FX/mlx5_inbox" eth3)
if jq -e '.dcqcn.source == "debugfs" and (.dcqcn.params | keys | length) == 16 and
	.dcqcn.params.rp_ai_rate == 5 and .dcqcn.params.rp_dce_tcp_g == 1019 and
	.dcqcn.params.np_cnp_prio_mode == 1 and .dcqcn.params.np_cnp_prio == null and
	.dcqcn.enable == null and ([.buffer[]] | all(. == null)) and .pfc_storm_timeout_ms == null' \
	<<<"$got" >/dev/null; then
	ok "$name: inbox mlx5 tree: debugfs cc_params by name, a missing one null, no buffer files"
else
	fail "$name: mlx5_inbox" "$got"
fi

txt=$(PFCLAB_SYSFS_ROOT=$FX/mlx5_inbox "$PFCLAB" doctor --section qos --netdev eth3)
if grep -qE '^  INFO  eth3 dcqcn +debugfs, 15 of 16 read: .*rp_ai_rate=5 .*np_cnp_prio=n/a' <<<"$txt" &&
	grep -qE '^    np_cnp_prio +n/a$' <<<"$txt" && grep -qE '^  trust +n/a$' <<<"$txt"; then
	ok "$name: the text form names the source and says n/a where not read"
else
	fail "$name: text" "$(grep -E 'eth3|np_cnp_prio|trust' <<<"$txt" | tr '\n' '|')"
fi

# this host: a veth has none of them, every field null and n/a
if [ "$(id -u)" -eq 0 ] && setup_ns NSA; then
	ip -n "$NSA" link add dq0 type veth peer name dq1
	got=$(ip netns exec "$NSA" "$PFCLAB" doctor --json --section qos --netdev dq0 | jq -c .nic)
	txt=$(ip netns exec "$NSA" "$PFCLAB" doctor --section qos --netdev dq0)
	if jq -e '.dcqcn == {"source": null, "params": {}, "enable": null} and
		([.buffer[]] | length == 4 and all(. == null)) and .pfc_storm_timeout_ms == null' \
		<<<"$got" >/dev/null &&
		grep -q '^  INFO  dq0 pfc storm .*timeout n/a: ETHTOOL_PFC_PREVENTION_TOUT: ' <<<"$txt"; then
		ok "$name: a veth here: every field null, the storm timeout n/a with the ioctl's reason"
	else
		fail "$name: veth" "$got $(grep dq0 <<<"$txt" | tr '\n' '|')"
	fi
else
	skip "$name: veth" "needs root for a namespace"
fi

# --netdev takes an interface name only
"$PFCLAB" doctor --netdev 'a/b' >/dev/null 2>&1
[ $? = 2 ] && ok "$name: --netdev refuses a name no interface can have (exit 2)" ||
	fail "$name: --netdev a/b" "exit not 2"
finish
