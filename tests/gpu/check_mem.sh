#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check_mem.sh (GPU host): 'pfclab traffic --check-mem' on every GPU memory backend: allocate,
# export (dma-buf), register when an RDMA device exists, write and read back a pattern, free.
# Skips when there is no NVIDIA GPU. Set PFCLAB_GPU (index or PCI bus id) to pick a GPU and
# PFCLAB_RDMA_DEV to register with a NIC. Output of each run is kept in $OUT_DIR.
source "$(dirname "$0")/../lib.sh"
plan 6

OUT_DIR=${OUT_DIR:-${BUILD:-$PFCLAB_ROOT/build}/test-logs/gpu-check-mem}
mkdir -p "$OUT_DIR"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	skip "gpu check-mem" "no NVIDIA GPU (nvidia-smi -L fails)"
	finish
fi
[ -x "$PFCLAB" ] || { fail "gpu check-mem" "no pfclab binary at $PFCLAB"; finish; }
nvidia-smi -L >"$OUT_DIR/nvidia-smi.txt" 2>&1
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv >>"$OUT_DIR/nvidia-smi.txt" 2>&1
args=(--check-size 64M)
[ -n "${PFCLAB_GPU:-}" ] && args+=(--gpu "$PFCLAB_GPU")
[ -n "${PFCLAB_RDMA_DEV:-}" ] && args+=(-d "$PFCLAB_RDMA_DEV")

for t in host cuda cuda-dmabuf auto; do
	"$PFCLAB" traffic --check-mem "$t" "${args[@]}" >"$OUT_DIR/$t.txt" 2>&1
	rc=$?
	"$PFCLAB" traffic --check-mem "$t" "${args[@]}" --json >"$OUT_DIR/$t.json" 2>&1
	sed 's/^/    /' "$OUT_DIR/$t.txt"
	case $rc in
	0) ok "check-mem $t: $(grep -m1 '^check-mem' "$OUT_DIR/$t.txt")" ;;
	3) fail "check-mem $t" "backend could not run on a GPU host: $(grep -m1 SKIP "$OUT_DIR/$t.txt")" ;;
	*) fail "check-mem $t" "exit $rc: $(grep -m1 FAIL "$OUT_DIR/$t.txt")" ;;
	esac
done
# The JSON form parses and agrees with the text form.
if ! command -v jq >/dev/null 2>&1; then
	fail "check-mem cuda --json" "jq not installed (make deps)"
elif jq -e '.result == "OK" and (.steps | map(select(.step == "read")) | .[0].result == "OK")' \
	"$OUT_DIR/cuda.json" >/dev/null 2>&1; then
	ok "check-mem cuda --json: parsed, read step OK"
else
	fail "check-mem cuda --json" "$(head -c 300 "$OUT_DIR/cuda.json")"
fi
# The binary must not need libcuda to start: it is loaded at run time.
if ldd "$PFCLAB" | grep -q libcuda; then fail "pfclab does not link libcuda" "$(ldd "$PFCLAB" | grep libcuda)"
else ok "pfclab does not link libcuda (loaded at run time)"; fi
finish
