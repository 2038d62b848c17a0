#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_gpu_pci.sh (GPU host): the monitor's pci source on GPU N keeps the function's
# PCIe capability after its first read and reads three registers a second from then on.
# Checks, over a 3.5 s record: the link width it reads agrees with the kernel's
# (sysfs current_link_width) and with NVML's on every sample; the speed is a PCIe rate no
# higher than the link's maximum (sysfs max_link_speed; a GPU lowers its speed when idle);
# MaxPayload and MaxReadReq are powers of two of 128-4096 bytes; and every sample has
# them, the last ones too (the reads go on after the first). Skips without a GPU.
source "$(dirname "$0")/../lib.sh"
plan 4

GPU=${GPU:-0}
need_cmd monitor_gpu_pci nvidia-smi awk || finish
nvidia-smi -L >/dev/null 2>&1 || { skip monitor_gpu_pci "no NVIDIA GPU visible"; finish; }
[ -x "$PFCLAB" ] || { fail monitor_gpu_pci "no pfclab binary at $PFCLAB"; finish; }
out=${GPU_OUT:-$PFCLAB_ROOT/build/gpu-results/monitor_gpu_pci}
rm -rf "$out" && mkdir -p "$out"

# nvidia-smi's bus id (00000000:00:06.0) as sysfs names the function (0000:00:06.0)
bdf=$(nvidia-smi -i "$GPU" --query-gpu=pci.bus_id --format=csv,noheader | tr 'A-F' 'a-f' |
	sed 's/^0000\(....:\)/\1/')
sys=/sys/bus/pci/devices/$bdf
[ -r "$sys/current_link_width" ] ||
	{ skip monitor_gpu_pci "no sysfs link attributes for GPU $GPU at $sys"; finish; }
"$PFCLAB" monitor --gpu "$GPU" -I 100ms -D 3500ms -q --record "$out/run" 2>"$out/monitor.err"
csv=$out/run/samples.csv
[ -s "$csv" ] || { fail monitor_gpu_pci "no record: $(tr '\n' ' ' <"$out/monitor.err")"; finish; }
col() { head -n 1 "$csv" | tr ',' '\n' | grep -nx -- "$1" | cut -d: -f1; }
cw=$(col "pcie.gpu$GPU.link_width_pci") cs=$(col "pcie.gpu$GPU.link_speed")
cn=$(col "pcie.gpu$GPU.link_width") cp=$(col "pcie.gpu$GPU.max_payload")
cr=$(col "pcie.gpu$GPU.max_read_req")
[ -n "$cw" ] && [ -n "$cs" ] && [ -n "$cp" ] && [ -n "$cr" ] ||
	{ fail monitor_gpu_pci "no pci columns for GPU $GPU in $csv"; finish; }
kw=$(cat "$sys/current_link_width")
kmax=$(awk '{ printf "%d", $1 * 1000 + 0.5 }' "$sys/max_link_speed")
rows=$(awk 'END { print NR - 1 }' "$csv")

# samples whose width is missing or differs from the kernel's (and NVML's where it has one)
bad=$(awk -F, -v w="$cw" -v n="${cn:-0}" -v k="$kw" 'NR > 1 {
	if ($w != k || (n && $n != "n/a" && $n != k)) b++ } END { print b + 0 }' "$csv")
if [ "$rows" -ge 30 ] && [ "$bad" = 0 ]; then
	ok "monitor_gpu_pci_width (x$kw on all $rows samples, as sysfs and NVML say)"
else
	fail monitor_gpu_pci_width "$bad of $rows samples differ from sysfs width $kw"
fi
bad=$(awk -F, -v s="$cs" -v m="$kmax" 'NR > 1 {
	if ($s !~ /^(2500|5000|8000|16000|32000|64000)$/ || $s > m) b++ } END { print b + 0 }' "$csv")
if [ "$bad" = 0 ]; then
	ok "monitor_gpu_pci_speed ($(awk -F, -v s="$cs" 'NR > 1 { v[$s] = 1 } END { for (x in v) printf "%s ", x }' "$csv")MT/s, at most $kmax)"
else
	fail monitor_gpu_pci_speed "$bad samples with a speed that is not a PCIe rate up to $kmax MT/s"
fi
bad=$(awk -F, -v p="$cp" -v r="$cr" 'function pow2(v) {
	return v ~ /^(128|256|512|1024|2048|4096)$/ } NR > 1 { if (!pow2($p) || !pow2($r)) b++ }
	END { print b + 0 }' "$csv")
if [ "$bad" = 0 ]; then
	ok "monitor_gpu_pci_devctl (MaxPayload $(awk -F, -v p="$cp" 'NR == 2 { print $p }' "$csv") B, MaxReadReq $(awk -F, -v r="$cr" 'NR == 2 { print $r }' "$csv") B)"
else
	fail monitor_gpu_pci_devctl "$bad samples without a MaxPayload and MaxReadReq of 128-4096 B"
fi
# the reads went on: the last second's samples have values, as the first ones do
last=$(awk -F, -v w="$cw" 'NR > 1 { v = $w } END { print v }' "$csv")
if [ "$last" = "$kw" ]; then
	ok "monitor_gpu_pci_reads_go_on (last sample x$last)"
else
	fail monitor_gpu_pci_reads_go_on "last sample's width '$last'"
fi
finish
