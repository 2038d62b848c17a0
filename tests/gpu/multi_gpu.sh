#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# multi_gpu.sh (host with 2+ GPUs): pfclab on every GPU at once. monitor --gpu all
# records every GPU while a known pinned copy (tests/gpu/monitor_nvml_copy.c: host to
# device, then device to host) runs on one GPU after the other, the rest idle: each GPU's
# rx_bytes over its own copy's h2d window and tx_bytes over its d2h window match that
# copy's bandwidth (0.9x .. 1.35x: PCIe counts headers and flow control above the
# payload, as monitor_nvml.sh says), and over those windows every idle GPU moved under 5%
# of what the busy one did (an idle GPU's PCIe traffic is housekeeping: kB/s to MB/s);
# top --gpu all in tmux at 80x24 and 120x40 shows a line per GPU (the screens are kept
# in the results to look at); doctor --json lists every GPU with its index, link, BAR1
# and NUMA node, and distances to the RDMA devices (null where the host has none with
# a PCI function). Skips with fewer than 2 GPUs (MULTI_GPU_MIN=1 runs it on one, to try
# the script where no second GPU is at hand). Figures: build/gpu-results/multi_gpu.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../tmux.sh"
name=multi_gpu
SECS=${SECS:-3}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	plan 1
	skip $name "no NVIDIA GPU visible (nvidia-smi -L)"
	finish
fi
n=$(nvidia-smi -L | grep -c '^GPU ')
if [ "$n" -lt "${MULTI_GPU_MIN:-2}" ]; then
	plan 1
	skip $name "$n GPU here: the multi-GPU checks need ${MULTI_GPU_MIN:-2} or more"
	finish
fi
plan $((2 * n + 5))
need_cmd $name cc jq awk || finish
[ -x "$PFCLAB" ] || { fail $name "no pfclab binary at $PFCLAB"; finish; }
out=${GPU_OUT:-$PFCLAB_ROOT/build/gpu-results/multi_gpu}
rm -rf "$out" && mkdir -p "$out"
cc -O2 -o "$out/copy" "$PFCLAB_ROOT/tests/gpu/monitor_nvml_copy.c" -ldl ||
	{ fail $name "cannot build the copy helper"; finish; }
nvidia-smi -L >"$out/gpus.txt"

"$PFCLAB" monitor --gpu all -I 20ms -q --stats --record "$out/run" 2>"$out/monitor.err" &
mon=$!
defer kill "$mon"
sleep 2
# one GPU after the other; CUDA numbers the GPUs as nvidia-smi does in PCI order
for ((g = 0; g < n; g++)); do
	CUDA_DEVICE_ORDER=PCI_BUS_ID "$out/copy" "$g" "$SECS" >"$out/copy-$g.txt" 2>"$out/copy-$g.err" ||
		{ fail "$name: copy on GPU $g" "$(tr '\n' ' ' <"$out/copy-$g.err")"; finish; }
	sleep 1
done
kill -INT "$mon"
wait "$mon"
cat "$out/monitor.err"

meta=$out/run/meta.json csv=$out/run/samples.csv
states=$(jq -r '[.sources[] | select(.source == "nvml") | .device + " " + .state] | join(", ")' "$meta" 2>/dev/null)
nok=$(jq '[.sources[] | select(.source == "nvml" and .state == "ok")] | length' "$meta" 2>/dev/null)
[ "$nok" = "$n" ] && ok "$name: monitor --gpu all: the $n GPUs' NVML sources read ($states)" ||
	{ fail "$name: NVML sources" "${states:-no meta.json}: $(tr '\n' ' ' <"$out/monitor.err")"; finish; }

col() { head -n 1 "$csv" | tr ',' '\n' | grep -nx -- "$1" | cut -d: -f1; }
# bytes between the first and last sample inside [a + 0.5 s, b - 0.25 s], and their seconds
span() { # COL A B
	awk -F, -v c="$1" -v a="$2" -v b="$3" 'NR > 1 && $2 > a + 5e8 && $2 < b - 2.5e8 && $c != "n/a" {
		if (t0 == "") { t0 = $2; v0 = $c } t1 = $2; v1 = $c }
		END { if (t1 > t0) printf "%.0f %.6f\n", v1 - v0, (t1 - t0) / 1e9; else print "0 0" }' "$csv"
}
idle_worst=0 idle_what=
for ((g = 0; g < n; g++)); do
	read -r _ h0 h1 hbw < <(grep '^h2d' "$out/copy-$g.txt")
	read -r _ d0 d1 dbw < <(grep '^d2h' "$out/copy-$g.txt")
	for dir in rx tx; do
		if [ $dir = rx ]; then a=$h0 b=$h1 bw=$hbw; else a=$d0 b=$d1 bw=$dbw; fi
		read -r bytes secs < <(span "$(col "pcie.gpu$g.${dir}_bytes")" "$a" "$b")
		r=$(awk -v x="$bytes" -v s="$secs" -v w="$bw" 'BEGIN { if (s > 0 && w > 0) printf "%.3f", x / s / w; else print 0 }')
		echo "# GPU $g ${dir}: copy $(awk -v v="$bw" 'BEGIN { printf "%.2f", v / 1e9 }') GB/s, pcie.gpu$g.${dir}_bytes $(awk -v x="$bytes" -v s="$secs" 'BEGIN { if (s > 0) printf "%.2f", x / s / 1e9; else print "n/a" }') GB/s (ratio $r)"
		awk -v r="$r" 'BEGIN { exit !(r > 0.9 && r < 1.35) }' &&
			ok "$name: GPU $g's ${dir}_bytes over its own copy: ratio $r to the copy" ||
			fail "$name: GPU $g ${dir}_bytes" "ratio $r to the copy's $bw B/s ($bytes B in $secs s)"
		# the others, idle meanwhile
		for ((k = 0; k < n; k++)); do
			[ $k = $g ] && continue
			read -r ob _ < <(span "$(col "pcie.gpu$k.${dir}_bytes")" "$a" "$b")
			w=$(awk -v o="$ob" -v x="$bytes" 'BEGIN { printf "%.4f", x > 0 ? o / x : 1 }')
			if awk -v w="$w" -v m="$idle_worst" 'BEGIN { exit !(w > m) }'; then
				idle_worst=$w idle_what="GPU $k ${dir} during GPU $g's copy: $ob B"
			fi
		done
	done
done
awk -v w="$idle_worst" 'BEGIN { exit !(w < 0.05) }' &&
	ok "$name: the idle GPUs each moved under 5% of the busy one's bytes (most: ${idle_what:-none}, $idle_worst)" ||
	fail "$name: idle GPUs" "$idle_what: $idle_worst of the busy GPU's bytes"

# top in a real terminal, all GPUs: a line each at 80x24 and at 120x40 (for n <= 8; with
# more the last line says how many are below).
if command -v tmux >/dev/null && tmux_shell 80 24; then
	type_line "$PFCLAB top --gpu all -I 200ms"
	wait_for "^ GPU$((n - 1)) " 100 || wait_for 'more line' 10
	sleep 1
	screen >"$out/top-80x24.txt"
	g80=$(grep -cE '^ GPU[0-9]+ +(n/a|[0-9.]+%|[0-9.]+[kMG]?) ' "$out/top-80x24.txt")
	resize 120 40
	sleep 1.5
	screen >"$out/top-120x40.txt"
	g120=$(grep -cE '^ GPU[0-9]+ +(n/a|[0-9.]+%|[0-9.]+[kMG]?) ' "$out/top-120x40.txt")
	keys q
	want80=$n
	[ "$n" -gt 8 ] && want80=-1
	if { [ "$g80" = "$want80" ] && ! grep -q 'more line' "$out/top-80x24.txt"; } ||
		{ [ "$want80" = -1 ] && grep -q 'more line' "$out/top-80x24.txt"; }; then
		ok "$name: top 80x24: $g80 GPU lines of $n, nothing cut off unsaid ($out/top-80x24.txt)"
	else
		fail "$name: top 80x24" "$g80 GPU lines of $n: $(cat "$out/top-80x24.txt")"
	fi
	[ "$g120" = "$n" ] || { [ "$n" -gt 16 ] && [ "$g120" -gt 0 ]; } &&
		ok "$name: top 120x40: $g120 GPU lines of $n ($out/top-120x40.txt)" ||
		fail "$name: top 120x40" "$g120 GPU lines of $n: $(cat "$out/top-120x40.txt")"
else
	skip "$name: top 80x24" "no tmux"
	skip "$name: top 120x40" "no tmux"
fi

# doctor --json: every GPU, its link and distances (null without a PCI RDMA device).
"$PFCLAB" doctor --json >"$out/doctor.json" 2>/dev/null
nrdma=$(for d in /sys/class/infiniband/*; do [ -e "$d/device" ] && echo "$d"; done | wc -l)
if jq -e --argjson n "$n" --argjson k "$nrdma" '(.gpus | length) == $n and
	([.gpus[].index] == [range($n)]) and
	([.gpus[] | .link.width != null and .link.max_speed_gts != null and .bar1_mib != null] | all) and
	([.gpus[] | if $k == 0 then .rdma == null and .nearest_distance == null
		else (.rdma | length) == $k and (.nearest_distance | IN("PIX","PXB","PHB","NODE","SYS")) end] | all)' \
	"$out/doctor.json" >/dev/null; then
	ok "$name: doctor --json lists the $n GPUs, links, BAR1 and the distance to each of the $nrdma RDMA device(s)"
else
	fail "$name: doctor --json" "$(jq -c .gpus "$out/doctor.json" 2>&1 | head -c 600)"
fi
jq -c '.gpus[]' "$out/doctor.json" 2>/dev/null | sed 's/^/# /'
finish
