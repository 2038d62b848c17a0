#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_gpus.sh (host with several GPUs): the CPU cost of `pfclab monitor --gpu all`
# (every GPU's NVML source on its own reader thread, and its PCI source) at 1 ms with
# recording on, for DUR (60 s). Prints the share of one core in all and per 4 GPUs, the
# missed intervals (with the host's steal time meanwhile: a virtual machine's usual cause
# of them), each GPU's reader thread (CPU and how often it read) and the recording's CPU
# from --stats. Targets (issue 55): < 5% of one core per 4 GPUs and < 0.1% missed
# intervals. GPUS picks the set (default all: --gpu takes a list too); MON_ARGS adds
# monitor options (e.g. "--rt-priority 50" or "-i eth2 --frames" for a NIC beside them).
# Needs no root. One GPU runs it too (the figure per 4 GPUs is then scaled from one);
# bench/monitor_gpu.sh is the one-GPU run with a NIC's sources beside it.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
PFCLAB=${PFCLAB:-$root/pfclab}
name=monitor_gpus
DUR=${DUR:-60}
GPUS=${GPUS:-all}
[ -x "$PFCLAB" ] || { echo "BENCH $name: skipped (no pfclab at $PFCLAB)"; exit 0; }
command -v jq >/dev/null || { echo "BENCH $name: skipped (needs jq)"; exit 0; }
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$n" -ge 1 ] || { echo "BENCH $name: skipped (no NVIDIA GPU)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
read -r -a extra <<<"${MON_ARGS:-}"
host=$(uname -n)
gpu_names=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c |
	awk '{ c = $1; $1 = ""; sub(/^ /, ""); printf "%s%d x %s", (NR > 1 ? ", " : ""), c, $0 }')
"$PFCLAB" monitor --gpu "$GPUS" -I 1ms -D "${DUR}s" -q --stats --record "$tmp/rec" "${extra[@]}" \
	>/dev/null 2>"$tmp/err"
rc=$?
sed 's/^/# /' "$tmp/err"
ngpu=$(jq '[.sources[] | select(.source == "nvml")] | length' "$tmp/rec/meta.json" 2>/dev/null)
modes=$(jq -r '[.sources[] | select(.source == "nvml") | .state + " " + ((.info.pcie_bytes // "") |
	split(",")[0] | split(" (")[0])] | group_by(.) | map("\(length) x \(.[0])") | join("; ")' \
	"$tmp/rec/meta.json" 2>/dev/null)
awk -v name="$name" -v rc="$rc" -v ng="${ngpu:-0}" -v modes="$modes" -v host="$host" \
	-v gn="$gpu_names" -v set="$GPUS${MON_ARGS:+, $MON_ARGS}" '
	/samples in/ { for (i = 1; i <= NF; i++) {
		if ($i == "samples" && n == "") n = $(i - 1); if ($i == "overruns,") o = $(i - 1)
		if ($i == "of" && $(i + 1) == "one") pc = $(i - 1)
		if ($i == "steal") { sl = $(i + 1); if (sl != "n/a" && $(i + 2) == "ms,") sl = sl " ms" } }
		sub(/%/, "", pc) }
	/^  source nvml/ { for (i = 1; i <= NF; i++) {
		if ($i == "thread") { t = $(i + 3); gsub(/[(%]/, "", t); thr += t; if (t > tmax) tmax = t }
		if ($i == "(every") { e = $(i + 1); if (emax == "" || e > emax) emax = e; if (emin == "" || e < emin) emin = e } } }
	/^  recording/ { rec = $2 }
	END {
		if (n == "" || !ng) { printf "BENCH %s (%s): did not run (exit %s)\n", name, set, rc; exit }
		printf "BENCH %s (--gpu %s on %s, %s: %d GPU%s watched): %.2f%% of one core in all, %.2f%% per 4 GPUs; %.3f%% missed intervals (%d of %d; host steal meanwhile %s) at 1 ms for %d samples with recording (%s us per sample); the GPU reader threads %.2f%% of one core together (at most %.2f%% one), reading every %s..%s ms; NVML: %s (target < 5%% per 4 GPUs and < 0.1%%)\n",
			name, set, host, gn, ng, (ng == 1 ? "" : "s"), pc, pc * 4 / ng, 100 * o / (n + o), o, n + o,
			sl == "" ? "n/a" : sl, n, rec, thr, tmax, emin, emax, modes
	}' "$tmp/err"
