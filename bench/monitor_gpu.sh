#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_gpu.sh (GPU host): the CPU cost of `pfclab monitor` with every source of one
# NIC-like netdev (a veth in a namespace made here: ethtool, PAUSE, DCB, link, PCI, frames)
# and one GPU (NVML on its reader thread, PCI) at 1 ms with recording on, for DUR (60 s).
# Prints the share of one core, the missed intervals (with the host's steal time meanwhile:
# a virtual machine's usual cause of them), and the CPU of each source and of
# recording from --stats. Targets: < 5% of one core and < 0.1% missed intervals.
# GPU_INTERVALS lists GPU reader cadences to try: "default" is the built-in one (10 ms, less
# often while a read costs over 0.05 ms of CPU), a duration fixes it (default list:
# "default 10ms"). MON_ARGS adds monitor options to every run (e.g. "--rt-priority 50").
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
PFCLAB=${PFCLAB:-$root/pfclab}
name=monitor_gpu
DUR=${DUR:-60}
GPU=${GPU:-0}
GPU_INTERVALS=${GPU_INTERVALS:-default 10ms}
[ "$(id -u)" -eq 0 ] || { echo "BENCH $name: skipped (needs root)"; exit 0; }
[ -x "$PFCLAB" ] || { echo "BENCH $name: skipped (no pfclab at $PFCLAB)"; exit 0; }
command -v ip >/dev/null || { echo "BENCH $name: skipped (needs ip from iproute2)"; exit 0; }
nvidia-smi -L >/dev/null 2>&1 || { echo "BENCH $name: skipped (no NVIDIA GPU)"; exit 0; }
ns=pfc-bench-gpu-$$
tmp=$(mktemp -d)
cleanup() { ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
ip netns add "$ns" || exit 1
ip -n "$ns" link add bg0 type veth peer name bg1 || exit 1
ip -n "$ns" link set bg0 up && ip -n "$ns" link set bg1 up

read -r -a extra <<<"${MON_ARGS:-}"
k=0
for gi in $GPU_INTERVALS; do
	k=$((k + 1))	# a cadence may be listed twice (repeats): one record each
	args=(monitor -i bg0 --frames --gpu "$GPU" -I 1ms -D "${DUR}s" -q --stats
		--record "$tmp/rec-$k")
	[ "$gi" = default ] || args+=(--gpu-interval "$gi")
	args+=("${extra[@]}")
	ip netns exec "$ns" "$PFCLAB" "${args[@]}" >/dev/null 2>"$tmp/err-$k"
	rc=$?
	sed 's/^/# /' "$tmp/err-$k"
	state=$(jq -r '.sources[] | select(.source == "nvml") | .state + " " + (.info.pcie_bytes // "")' \
		"$tmp/rec-$k/meta.json" 2>/dev/null)
	awk -v name="$name" -v gi="$gi${MON_ARGS:+, $MON_ARGS}" -v rc="$rc" -v st="$state" '
		/samples in/ { for (i = 1; i <= NF; i++) {
			if ($i == "samples" && n == "") n = $(i - 1); if ($i == "overruns,") o = $(i - 1)
			if ($i == "of" && $(i + 1) == "one") pc = $(i - 1)
			if ($i == "timer:") wk = $(i + 1)
			if ($i == "steal") { sl = $(i + 1); if (sl != "n/a" && $(i + 2) == "ms,") sl = sl " ms" } }
			sub(/%/, "", pc) }
		/^  source nvml/ { nv = $0; sub(/^  source nvml +[^ ]+ +/, "", nv) }
		/^  recording/ { rec = $2 }
		END {
			if (n == "") { printf "BENCH %s (gpu-interval %s): did not run (exit %s)\n", name, gi, rc; exit }
			printf "BENCH %s (gpu-interval %s): %.2f%% of one core, %.3f%% missed intervals (%d of %d; host steal meanwhile %s) at 1 ms for %d samples with recording (%s us per sample); sleeping and waking for the timer %s us per sample; nvml: %s; NVML mode: %s (target < 5%% and < 0.1%%)\n",
				name, gi, pc, 100 * o / (n + o), o, n + o, sl == "" ? "n/a" : sl, n, rec, wk == "" ? "n/a" : wk, nv, st
		}' "$tmp/err-$k"
done
