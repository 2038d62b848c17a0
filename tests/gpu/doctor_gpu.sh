#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# doctor_gpu.sh (GPU host): 'pfclab doctor' on a host with an NVIDIA GPU reports the driver
# version and whether the open or proprietary modules are loaded, each GPU with its model
# and BAR1 size (compared with nvidia-smi's), and the dma-buf attribute. Skips without a GPU.
source "$(dirname "$0")/../lib.sh"
plan 7

OUT_DIR=${OUT_DIR:-${BUILD:-$PFCLAB_ROOT/build}/test-logs/gpu-doctor}
mkdir -p "$OUT_DIR"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	skip "doctor gpu" "no NVIDIA GPU (nvidia-smi -L fails)"
	finish
fi
[ -x "$PFCLAB" ] || { fail "doctor gpu" "no pfclab binary at $PFCLAB"; finish; }
"$PFCLAB" doctor >"$OUT_DIR/doctor.txt" 2>&1
"$PFCLAB" doctor --json >"$OUT_DIR/doctor.json" 2>&1
nvidia-smi -q -d MEMORY >"$OUT_DIR/nvidia-smi-memory.txt" 2>&1
sed 's/^/    /' "$OUT_DIR/doctor.txt"
t=$OUT_DIR/doctor.txt

drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)
grep -q "^  OK    driver  *NVIDIA driver $drv" "$t" && ok "doctor driver $drv" ||
	fail "doctor driver" "want $drv: $(grep -m1 ' driver ' "$t")"
grep -q "^  \(OK\|WARN\) \+kernel modules  *\(open\|proprietary\) kernel modules loaded" "$t" &&
	ok "doctor module flavour: $(grep -m1 'kernel modules' "$t" | sed 's/.*modules  *//')" ||
	fail "doctor module flavour" "$(grep -m1 'kernel modules' "$t")"

# BAR1 per GPU as nvidia-smi reports it ("BAR1 Memory Usage" / "Total : 131072 MiB").
smi_bar1=$(awk '/BAR1 Memory Usage/ { f = 1 } f && /Total/ { print $3; exit }' "$OUT_DIR/nvidia-smi-memory.txt")
bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -n 1 | sed 's/^0000//; s/^\(....\):/\1:/' | tr 'A-F' 'a-f')
line=$(grep -m1 "GPU ${bus#0000}" "$t" | grep BAR1 || grep -m1 "BAR1 [0-9]" "$t")
if [ -n "$smi_bar1" ] && [ "$smi_bar1" -ge 1024 ]; then
	want="BAR1 $((smi_bar1 / 1024)) GiB"
else
	want="BAR1 ${smi_bar1:-?} MiB"
fi
echo "$line" | grep -q "$want" && ok "doctor GPU model and $want (nvidia-smi: $smi_bar1 MiB)" ||
	fail "doctor BAR1" "want '$want': $line"
grep -q "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED=[01]" "$t" &&
	ok "doctor dma-buf: $(grep -o -m1 'CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED=[01]' "$t")" ||
	fail "doctor dma-buf" "$(grep -m1 -i 'dma' "$t")"
grep -q "^  \(OK\|WARN\|INFO\) \+GPU .* link  *x[0-9]" "$t" && ok "doctor GPU PCIe link read" ||
	fail "doctor GPU PCIe link" "$(grep -m1 ' link ' "$t")"
# The GPU-memory path follows from the dma-buf attribute and the peer-memory core: with
# DMA_BUF_SUPPORTED=1, the open modules and a kernel >= 5.12 it must name dma-buf.
path=$(grep -m1 'GPU memory path' "$t")
if [ -z "$path" ]; then
	fail "doctor GPU memory path" "no 'GPU memory path' line"
elif grep -q "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED=1" "$t" && grep -q 'open kernel modules loaded' "$t" &&
	grep -q 'dma-buf RDMA capable' "$t"; then
	echo "$path" | grep -q '^  OK .*dma-buf (--mem cuda-dmabuf' && ok "doctor GPU memory path: dma-buf" ||
		fail "doctor GPU memory path" "want dma-buf: $path"
else
	ok "doctor GPU memory path: $(echo "$path" | sed 's/  */ /g')"
fi
if ! command -v jq >/dev/null 2>&1; then
	fail "doctor --json" "jq not installed (make deps)"
else
	jq -e '.items | map(select(.section == "gpu")) | length > 0' "$OUT_DIR/doctor.json" >/dev/null &&
		ok "doctor --json gpu items" || fail "doctor --json" "$(head -c 300 "$OUT_DIR/doctor.json")"
fi
finish
