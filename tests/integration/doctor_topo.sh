#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# doctor_topo.sh: 'pfclab doctor' on the handmade sysfs tree of an 8-GPU, 4-NIC host
# (tests/fixtures/topo, PFCLAB_SYSFS_ROOT): the gpus list holds the eight GPUs by index
# with their links (GPU3 at x8 of x16, GPU1 idle at 2.5 GT/s), BAR1 (131072 MiB) and NUMA
# node, and their distances to mlx5_0..3 as nvidia-smi topo -m names them, every class
# among them and rxe0 (no PCI function) left out; each GPU-NIC pair across the sockets is
# a WARN that cites the halved bandwidth; the text form says the same. On this host, the
# gpus list is what it finds: no GPU gives an empty list, a host without a PCI RDMA
# device null distances, never a made-up one.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 5
name=doctor_topo
need_cmd $name jq || finish
FX=$PFCLAB_ROOT/tests/fixtures/topo/h8gpu_4nic.handmade
[ -L "$FX/sys/bus/pci/devices/0000:19:00.0" ] || { fail "$name: fixture" "no device links in $FX"; finish; }

json=$(PFCLAB_SYSFS_ROOT=$FX "$PFCLAB" doctor --json --section gpu --section pci)
want='[["PIX","NODE","SYS","SYS"],["PIX","NODE","SYS","SYS"],["NODE","PXB","SYS","SYS"],
	["NODE","PHB","SYS","SYS"],["SYS","SYS","PIX","NODE"],["SYS","SYS","PIX","NODE"],
	["SYS","SYS","NODE","PXB"],["SYS","SYS","NODE","PHB"]]'
if jq -e --argjson want "$want" '(.gpus | length) == 8 and
	([.gpus[].index] == [0,1,2,3,4,5,6,7]) and
	([.gpus[] | [.rdma.mlx5_0, .rdma.mlx5_1, .rdma.mlx5_2, .rdma.mlx5_3]] == $want) and
	([.gpus[].rdma | keys] | unique) == [["mlx5_0","mlx5_1","mlx5_2","mlx5_3"]] and
	([.gpus[].nearest_rdma] == ["mlx5_0","mlx5_0","mlx5_1","mlx5_1","mlx5_2","mlx5_2","mlx5_3","mlx5_3"])' \
	<<<"$json" >/dev/null; then
	ok "$name: eight GPUs by index, each one's distance to mlx5_0..3 as nvidia-smi topo -m names it, rxe0 left out"
else
	fail "$name: distances" "$(jq -c '[.gpus[] | [.index, .bdf, .rdma]]' <<<"$json" 2>&1 | head -c 600)"
fi
if jq -e '[.gpus[].numa_node] == [0,0,0,0,1,1,1,1] and ([.gpus[].bar1_mib] | unique) == [131072] and
	.gpus[3].link == {width: 8, speed_gts: 32, max_width: 16, max_speed_gts: 32} and
	.gpus[1].link.speed_gts == 2.5 and .gpus[0].bdf == "0000:19:00.0" and .gpus[7].bdf == "0000:c0:00.0"' \
	<<<"$json" >/dev/null; then
	ok "$name: each GPU's link (current and maximum), BAR1 in MiB and NUMA node"
else
	fail "$name: links" "$(jq -c '[.gpus[] | [.index, .link, .bar1_mib, .numa_node]]' <<<"$json" 2>&1 | head -c 600)"
fi
sys=$(jq '[.items[] | select(.section == "pci" and (.item | test(" - mlx5_")) and .level == "WARN" and
	(.detail | startswith("SYS")) and (.fix | test("perftest issue #241")))] | length' <<<"$json")
pix=$(jq '[.items[] | select(.section == "pci" and (.item | test(" - mlx5_")) and .level == "OK")] | length' <<<"$json")
[ "$sys" = 16 ] && [ "$pix" = 6 ] &&
	ok "$name: the 16 GPU-NIC pairs across the sockets are each a WARN citing perftest #241; the 6 PIX/PXB pairs OK" ||
	fail "$name: SYS warnings" "SYS WARN items $sys (want 16), OK pairs $pix (want 6)"
txt=$(PFCLAB_SYSFS_ROOT=$FX "$PFCLAB" doctor --section gpu)
grep -q '^GPU 3 0000:40:00.0 .*: x8 32 GT/s (max x16 32 GT/s), BAR1 131072 MiB, NUMA 0$' <<<"$txt" &&
	grep -q '^        to mlx5_0 NODE, mlx5_1 PHB, mlx5_2 SYS, mlx5_3 SYS; nearest mlx5_1 (PHB)$' <<<"$txt" &&
	ok "$name: the text form gives the same per GPU" ||
	fail "$name: text" "$(sed -n '/^\[gpus\]/,$p' <<<"$txt" | head -6)"

# This host: what is there, n/a for what is not.
here=$("$PFCLAB" doctor --json --section gpu --section pci)
n=$(jq '.gpus | length' <<<"$here")
nrdma=$(ls /sys/class/infiniband 2>/dev/null | while read -r d; do [ -e "/sys/class/infiniband/$d/device" ] && echo "$d"; done | wc -l)
nv=0
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor" 2>/dev/null)" = 0x10de ] && [[ $(cat "$d/class" 2>/dev/null) == 0x03* ]] && nv=$((nv + 1))
done
if [ "$n" = 0 ] && [ "$nv" = 0 ]; then
	ok "$name: this host: no NVIDIA function, an empty gpus list"
elif [ "$nrdma" = 0 ] && jq -e '[.gpus[] | .rdma == null and .nearest_rdma == null] | all' <<<"$here" >/dev/null; then
	ok "$name: this host: $n GPU(s), no PCI RDMA device: distances null"
elif [ "$nrdma" -gt 0 ] && jq -e --argjson k "$nrdma" '[.gpus[] | (.rdma | length) == $k] | all' <<<"$here" >/dev/null; then
	ok "$name: this host: $n GPU(s), each with its distance to the $nrdma RDMA device(s)"
else
	fail "$name: this host" "$(jq -c .gpus <<<"$here" | head -c 400)"
fi
finish
