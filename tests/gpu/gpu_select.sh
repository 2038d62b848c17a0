#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gpu_select.sh (GPU host): one GPU selector names one GPU for every tool. `--gpu N` is
# GPU N as nvidia-smi -L numbers them, for the monitor and for traffic's CUDA memory alike
# (not CUDA's own fastest-first order), and the monitor's NVML and PCI sources read the
# same function; a PCI address, long or as lspci prints it, picks
# the same GPU; a number past the last GPU is refused with how many there are (by the
# monitor with exit 2, a usage error).
source "$(dirname "$0")/../lib.sh"
plan 4

GPU=${GPU:-0}
need_cmd gpu_select nvidia-smi jq || finish
nvidia-smi -L >/dev/null 2>&1 || { skip gpu_select "no NVIDIA GPU visible"; finish; }
[ -x "$PFCLAB" ] || { fail gpu_select "no pfclab binary at $PFCLAB"; finish; }
out=${GPU_OUT:-$PFCLAB_ROOT/build/gpu-results/gpu_select}
rm -rf "$out" && mkdir -p "$out"
# nvidia-smi's bus id (00000000:17:00.0) as sysfs names it, and lspci's short form
bdf=$(nvidia-smi -i "$GPU" --query-gpu=pci.bus_id --format=csv,noheader | tr 'A-F' 'a-f' |
	sed 's/^0000\(....:\)/\1/')
short=${bdf#*:}
n=$(nvidia-smi -L | grep -c '^GPU ')

# traffic: the index and both address forms open the GPU nvidia-smi calls GPU $GPU
bad=
for sel in "$GPU" "$bdf" "$short"; do
	"$PFCLAB" traffic --check-mem cuda --gpu "$sel" --check-size 2M >"$out/mem-$sel.txt" 2>&1
	line=$(grep -m1 -i "GPU $GPU .*($bdf)" "$out/mem-$sel.txt")
	[ -n "$line" ] || bad="$bad --gpu $sel: $(head -c 300 "$out/mem-$sel.txt" | tr '\n' ' ');"
done
if [ -z "$bad" ]; then
	ok "gpu_select_traffic (--gpu $GPU, $bdf and $short: GPU $GPU at $bdf)"
else
	fail gpu_select_traffic "$bad"
fi
# the monitor: the short address is GPU $GPU's columns, its PCI function the same
"$PFCLAB" monitor --gpu "$short" -I 100ms -c 4 -q --record "$out/mon" 2>"$out/mon.err"
if head -n 1 "$out/mon/samples.csv" 2>/dev/null | tr ',' '\n' | grep -qx "pcie.gpu$GPU.link_width_pci" &&
	jq -e --arg b "$bdf" '[.sources[] | select(.source == "pci" or .source == "nvml") |
		select(.device | startswith("gpu")) | .info.pci_address == $b] | length == 2 and all' \
		"$out/mon/meta.json" >/dev/null 2>&1; then
	ok "gpu_select_monitor (--gpu $short recorded as gpu$GPU; the pci and NVML sources both at $bdf)"
else
	fail gpu_select_monitor "$(head -c 300 "$out/mon.err") sources: $(jq -c '[.sources[] | [.source, .device, .info.pci_address]]' "$out/mon/meta.json" 2>&1 | head -c 400)"
fi
# a number past the last GPU: refused, saying how many there are; by the monitor as a
# usage error (exit 2), before anything opens, as an address that is no GPU here
"$PFCLAB" traffic --check-mem cuda --gpu "$n" >"$out/past.txt" 2>&1
"$PFCLAB" monitor --gpu "$n" -c 1 -q >/dev/null 2>"$out/past-mon.err"
mrc=$?
if grep -q "this host has $n NVIDIA GPU" "$out/past.txt" && [ "$mrc" = 2 ] &&
	grep -q "^pfclab monitor: --gpu '$n': this host has $n NVIDIA GPU" "$out/past-mon.err"; then
	ok "gpu_select_past_last (--gpu $n: $(grep -m1 -o "this host has.*" "$out/past.txt"); monitor exit 2)"
else
	fail gpu_select_past_last "$(head -c 300 "$out/past.txt" | tr '\n' ' '); monitor exit $mrc: $(head -c 300 "$out/past-mon.err")"
fi
# an address that is no NVIDIA GPU (the host bridge): refused when the monitor starts
"$PFCLAB" monitor --gpu 0000:00:00.0 -c 1 -q >/dev/null 2>"$out/bridge.err"
rc=$?
if [ "$rc" = 2 ] && grep -q "is not an NVIDIA GPU here" "$out/bridge.err"; then
	ok "gpu_select_not_gpu (exit 2: $(head -n 1 "$out/bridge.err"))"
else
	fail gpu_select_not_gpu "exit $rc: $(head -c 300 "$out/bridge.err")"
fi
finish
