#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check_mem_geforce.sh (GPU host): 'pfclab traffic --check-mem geforce' (cuMemAlloc) and
# 'geforce-vmm' (cuMemCreate with gpuDirectRDMACapable): the RM handles CUDA allocates are
# captured through the ioctl interposer, and the NV503C (ThirdPartyP2P) allocation,
# REGISTER_VA_SPACE and REGISTER_VIDMEM each report an RM status. On a datacenter GPU
# (H100) CUDA makes its own NV503C object, so RM may refuse ours and the controls then go
# to CUDA's. Each RM step must succeed (NV_OK), except the two outcomes of that datacenter
# case, which the backend reports as such: our NV503C alloc refused with
# NV_ERR_STATE_IN_USE where CUDA made its own object, and REGISTER_VIDMEM answered
# NV_ERR_INSERT_DUPLICATE_NAME where CUDA's object holds the memory already; the export
# step must be OK. With PFCLAB_RDMA_DEV set (and the patched nvidia-peermem loaded)
# registration is tried too. Skips without a GPU.
source "$(dirname "$0")/../lib.sh"
plan 16

OUT_DIR=${OUT_DIR:-${BUILD:-$PFCLAB_ROOT/build}/test-logs/gpu-check-mem-geforce}
mkdir -p "$OUT_DIR"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	skip "check-mem geforce" "no NVIDIA GPU (nvidia-smi -L fails)"
	finish
fi
[ -x "$PFCLAB" ] || { fail "check-mem geforce" "no pfclab binary at $PFCLAB"; finish; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv >"$OUT_DIR/nvidia-smi.txt" 2>&1
args=(--check-size 64M)
[ -n "${PFCLAB_GPU:-}" ] && args+=(--gpu "$PFCLAB_GPU")
[ -n "${PFCLAB_RDMA_DEV:-}" ] && args+=(-d "$PFCLAB_RDMA_DEV")

for be in geforce geforce-vmm; do
	"$PFCLAB" traffic --check-mem "$be" "${args[@]}" >"$OUT_DIR/$be.txt" 2>&1
	rc=$?
	"$PFCLAB" traffic --check-mem "$be" "${args[@]}" --json >"$OUT_DIR/$be.json" 2>&1
	sed 's/^/    /' "$OUT_DIR/nvidia-smi.txt" "$OUT_DIR/$be.txt"
	t=$OUT_DIR/$be.txt
	if grep -q '^  alloc  *OK' "$t"; then
		ok "check-mem $be: buffer matched to CUDA's RM handles"
	else
		fail "check-mem $be: handle capture" "$(grep -m1 '^  alloc' "$t")"
	fi
	exp=$(grep -m1 '^  export' "$t")
	if echo "$exp" | grep -q 'captured client 0x[0-9a-f]* device 0x[0-9a-f]* subdevice 0x[0-9a-f]* VA space 0x[0-9a-f]* memory 0x'; then
		ok "check-mem $be: client, device, subdevice, VA space, memory captured"
	else
		fail "check-mem $be: captured handles" "$exp"
	fi
	for step in "NV503C alloc: " "REGISTER_VA_SPACE on 0x" "REGISTER_VIDMEM 0x"; do
		st=$(echo "$exp" | grep -o "${step}[^;]*" | head -n 1)
		# NV_OK, or the datacenter outcome the backend names (see above)
		if [ -n "$st" ] && { echo "$st" | grep -q ': NV_OK' ||
			echo "$st" | grep -q ": NV_ERR_STATE_IN_USE (CUDA made its own" ||
			echo "$st" | grep -q ": NV_ERR_INSERT_DUPLICATE_NAME (CUDA's own object holds"; }; then
			ok "check-mem $be: $st"
		elif [ -n "$st" ]; then
			fail "check-mem $be: $step" "$st"
		else
			fail "check-mem $be: $step" "step missing from the report: $exp"
		fi
	done
	grep -q '^  export  *OK' "$t" && ok "check-mem $be: export OK" ||
		fail "check-mem $be: export" "$exp"
	# The buffer itself still works as GPU memory (write, read back, compare).
	grep -q '^  read  *OK' "$t" && ok "check-mem $be: pattern read back" ||
		fail "check-mem $be: pattern read back" "$(grep -m1 '^  \(write\|read\)' "$t")"
	if [ -n "${PFCLAB_RDMA_DEV:-}" ]; then
		grep -q '^  register  *OK' "$t" && ok "check-mem $be: ibv_reg_mr through the NV503C object" ||
			fail "check-mem $be: register" "$(grep -m1 '^  register' "$t")"
	else
		skip "check-mem $be: register" "PFCLAB_RDMA_DEV not set (no NIC named)"
	fi
	echo "# $be exit status $rc (0: all steps OK, 1: a step failed, 3: backend could not run)"
done
finish
