#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_gpus_fake.sh: monitor, top and doctor on every GPU of an 8-GPU host, on this
# host without one: the handmade sysfs tree tests/fixtures/topo/h8gpu_4nic.handmade
# (PFCLAB_SYSFS_ROOT) and a stand-in NVML built here (tests/fixtures/nvml/fake_nvml.c)
# whose byte counters grow at known rates. monitor --gpu all reads every GPU's rate in
# one record; one GPU busy and the others idle: the busy one's bytes match the stand-in's
# rate over the run (its bound: a reader's cadence and the stall this run measured either
# way), the idle ones count 0 bytes; a list by index and address picks those GPUs and one
# GPU keeps its pcie.gpuN names; a GPU the host lacks, or one named twice, is exit 2; top
# in tmux at 80x24 shows all eight GPU lines with the idle priorities on one line, at
# 120x40 every priority on its own; doctor names the stand-in GPUs. The real GPUs'
# version of this is tests/gpu/multi_gpu.sh.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../tmux.sh"
plan 8
name=monitor_gpus_fake
need_cmd $name cc jq tmux || finish
FX=$PFCLAB_ROOT/tests/fixtures/topo/h8gpu_4nic.handmade
W=$(mktemp -d /tmp/pfclab-fakenvml.XXXXXX)
defer rm -rf "$W"
cc -shared -fPIC -o "$W/libnvidia-ml.so.1" "$PFCLAB_ROOT/tests/fixtures/nvml/fake_nvml.c" ||
	{ fail "$name: build the stand-in NVML"; finish; }
export PFCLAB_SYSFS_ROOT=$FX LD_LIBRARY_PATH=$W PFCLAB_GPU_PCIE=fields

# Every GPU at its own rate (g+1 GB/s in, a quarter out), in the same samples. A rate
# is n/a for a reading that came a counter wrap after the one before (a stalled reader:
# no delta across it), so each GPU must show its rate in some sample and never another.
all=$("$PFCLAB" monitor --gpu all --sources nvml -I 100ms -c 8 --json --all 2>"$W/err" |
	jq -s -c '[.[] | select(.seq > 1) | .values]')
if jq -e '[range(8) as $g | ([.[] | .["pcie.gpu\($g).rx_Bps"].value | select(. != null)] |
	length > 0 and all(. == ($g + 1) * 1000000000)) and
	([.[] | .["pcie.gpu\($g).tx_Bps"].value | select(. != null)] |
	length > 0 and all(. == ($g + 1) * 250000000))] | all' <<<"$all" >/dev/null; then
	ok "$name: --gpu all: eight GPUs in each sample, each at its own rate"
else
	fail "$name: --gpu all" "$(jq -c '[.[-1] | to_entries[] | select(.key | test("Bps")) | [.key, .value.value]]' <<<"$all" 2>&1 | head -c 500) $(head -3 "$W/err")"
fi

# GPU 3 busy at 2 GB/s, the others idle, recorded for 2 s.
stall_start
FAKE_NVML_GBPS=0,0,0,2,0,0,0,0 "$PFCLAB" monitor --gpu all --sources nvml -I 10ms -D 2s \
	--record "$W/rec" --quiet 2>"$W/err"
rc=$? st=$(stall_ms)
hdr=$(head -1 "$W/rec/samples.csv" 2>/dev/null)
cols=$(tr ',' '\n' <<<"$hdr" | grep -c '^pcie\.gpu[0-7]\.rx_bytes$')
# totals from the CSV: first and last row of each GPU's rx_bytes
tot=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^pcie\.gpu[0-7]\.rx_bytes$/) c[$i] = i; next }
	{ for (k in c) { if (!(k in f) && $c[k] != "") f[k] = $c[k]; if ($c[k] != "") l[k] = $c[k] } }
	END { for (g = 0; g < 8; g++) { k = "pcie.gpu" g ".rx_bytes"; printf "%.0f ", l[k] - f[k] } }' "$W/rec/samples.csv" 2>/dev/null)
read -r -a t <<<"$tot"
span=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "mono_ns") m = i; next }
	NR == 2 { a = $m } { b = $m } END { print (b - a) / 1e9 }' "$W/rec/samples.csv" 2>/dev/null)
# the first and last readings lie within a reader's longest cadence (50 ms) and the stall
# measured of their samples
if [ $rc = 0 ] && [ "$cols" = 8 ] && awk -v b="${t[3]}" -v s="$span" -v st="$st" 'BEGIN {
	slack = 2e9 * (0.05 + st / 1000); exit !(b > 0 && b >= 2e9 * s - slack && b <= 2e9 * s + slack) }' &&
	[ "${t[0]}${t[1]}${t[2]}${t[4]}${t[5]}${t[6]}${t[7]}" = 0000000 ]; then
	ok "$name: GPU3 busy: ${t[3]} B in $span s at 2 GB/s (stall ${st} ms), the 7 idle GPUs 0 B, all 8 in one record"
else
	fail "$name: one busy GPU" "exit $rc, $cols rx_bytes columns, totals ${tot}over $span s (stall $st ms); $(head -2 "$W/err")"
fi

# A list by index and address; one GPU keeps its number in the names.
got=$("$PFCLAB" monitor --gpu 0,c0:00.0 --sources nvml -c 2 -I 100ms --json --all 2>/dev/null | tail -1 |
	jq -r '[.values | keys[] | select(test("rx_Bps"))] | join(" ")')
one=$("$PFCLAB" monitor --gpu 0000:9a:00.0 --sources nvml -c 2 -I 100ms --json --all 2>/dev/null | tail -1 |
	jq -r '[.values | keys[] | select(test("^pcie"))] | join(" ")')
[ "$got" = "pcie.gpu0.rx_Bps pcie.gpu7.rx_Bps" ] && [[ $one == *pcie.gpu4.rx_bytes* ]] && [[ $one != *gpu0* ]] &&
	ok "$name: --gpu 0,c0:00.0 gives GPU 0 and 7; --gpu 0000:9a:00.0 alone gives pcie.gpu4.*" ||
	fail "$name: lists" "list: '$got'; one: '$one'"

# Usage errors: exit 2 with the reason.
e1=$("$PFCLAB" monitor --gpu 0,8 -c 1 2>&1 >/dev/null); r1=$?
e2=$("$PFCLAB" monitor --gpu 1,1a:00.0 -c 1 2>&1 >/dev/null); r2=$?
e3=$("$PFCLAB" monitor --gpu 0,,1 -c 1 2>&1 >/dev/null); r3=$?
[ $r1 = 2 ] && [[ $e1 == *"8 NVIDIA GPUs"* ]] && [ $r2 = 2 ] && [[ $e2 == *twice* ]] && [ $r3 = 2 ] &&
	ok "$name: a GPU past the last, one named twice, an empty item: exit 2, said why" ||
	fail "$name: usage errors" "$r1 '$e1' / $r2 '$e2' / $r3 '$e3'"

# top at 80x24: the eight GPU lines, the idle priorities on one line, nothing cut off.
tmux_shell 80 24 PFCLAB_SYSFS_ROOT="$FX" LD_LIBRARY_PATH="$W" PFCLAB_GPU_PCIE=fields ||
	{ fail "$name: tmux"; finish; }
type_line "$PFCLAB top --gpu all -I 200ms"
# a GPU's cell is n/a for a reading a whole wrap after the one before (a stalled reader),
# so its value is awaited; its line is there regardless
wait_for '^ GPU3 *12.7%' 100
s80=$(screen)
gpus=$(grep -cE '^ GPU[0-7] +([0-9.]+%|n/a) ' <<<"$s80")
g3=$(awk '$1 == "GPU3" { print $2 }' <<<"$s80")
[ "$gpus" = 8 ] && [ "$g3" = 12.7% ] && grep -q '^ prio0-7 ' <<<"$s80" && ! grep -q 'more line' <<<"$s80" &&
	[ "$(wc -l <<<"$s80")" -le 24 ] &&
	ok "$name: top 80x24: eight GPU lines (GPU3 4 GB/s of its x8 link: $g3), the idle priorities on one line" ||
	fail "$name: top 80x24" "$(cat <<<"$s80")"
resize 120 40
sleep 1
wait_for '^ prio7 ' 50
s120=$(screen)
prios=$(grep -cE '^ prio[0-7] ' <<<"$s120")
gpus=$(grep -cE '^ GPU[0-7] +([0-9.]+%|n/a) ' <<<"$s120")
[ "$prios" = 8 ] && [ "$gpus" = 8 ] &&
	ok "$name: top 120x40: every priority on its own line and the eight GPU lines" ||
	fail "$name: top 120x40" "$prios priority lines, $gpus GPU lines: $(head -30 <<<"$s120")"
keys q
sleep 0.5
for _ in $(seq 50); do
	[ "$(alternate_on)" = 0 ] && [ "$(screen | grep . | tail -1)" = 'PROMPT$' ] && break
	sleep 0.1
done
[ "$(alternate_on)" = 0 ] && [ "$(screen | grep . | tail -1)" = 'PROMPT$' ] &&
	ok "$name: q ends top, the terminal back at the prompt" || fail "$name: q" "$(screen | grep . | tail -3)"

# doctor: the stand-in's names and BAR1, the tree's links and distances.
d=$("$PFCLAB" doctor --json --section gpu 2>/dev/null)
jq -e '(.gpus | length) == 8 and .gpus[5].name == "Stand-in H100 5" and .gpus[5].bar1_mib == 131072 and
	.gpus[5].rdma.mlx5_2 == "PIX"' <<<"$d" >/dev/null &&
	ok "$name: doctor lists the eight GPUs with NVML's names and BAR1" ||
	fail "$name: doctor" "$(jq -c '.gpus[5]' <<<"$d" 2>&1 | head -c 300)"
finish
