#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_nvml.sh (GPU host): pfclab monitor --gpu samples NVML PCIe throughput while a
# known pinned host->device then device->host copy runs. Checks: the NVML source works,
# the monitor's rx/tx B/s agree with NVML read directly (nvidia-smi dmon -s t), and both
# agree with the copy's own measured bandwidth within a margin (PCIe counters include TLP
# headers and flow control, so they read above the payload rate). The cumulative byte
# counters read through our own RM client (one control call for TX and RX, the default)
# and through NVML's fields 197/198 (a second monitor, PFCLAB_GPU_PCIE=fields) give the
# same rates. Prints the figures. Skips without an NVIDIA GPU.
source "$(dirname "$0")/../lib.sh"
plan 12

GPU=${GPU:-0}
SECS=${SECS:-6}
need_cmd monitor_nvml nvidia-smi cc jq awk || finish
nvidia-smi -L >/dev/null 2>&1 || { skip monitor_nvml "no NVIDIA GPU visible"; finish; }
[ -x "$PFCLAB" ] || { fail monitor_nvml "no pfclab binary at $PFCLAB"; finish; }
out=${GPU_OUT:-$PFCLAB_ROOT/build/gpu-results/monitor_nvml}
rm -rf "$out" && mkdir -p "$out"
cc -O2 -o "$out/copy" "$PFCLAB_ROOT/tests/gpu/monitor_nvml_copy.c" -ldl ||
	{ fail monitor_nvml_helper "cannot build the copy helper"; finish; }

"$PFCLAB" monitor --gpu "$GPU" -I 20ms -q --stats --record "$out/run" 2>"$out/monitor.err" &
mon=$!
defer kill "$mon"
PFCLAB_GPU_PCIE=fields "$PFCLAB" monitor --gpu "$GPU" -I 20ms -q --record "$out/fields" 2>"$out/fields.err" &
monf=$!
defer kill "$monf"
nvidia-smi dmon -i "$GPU" -s t -d 1 >"$out/dmon.txt" 2>&1 &
dmon=$!
defer kill "$dmon"
sleep 2
"$out/copy" "$GPU" "$SECS" >"$out/copy.txt" 2>"$out/copy.err"
crc=$?
sleep 2
kill -INT "$mon" "$monf"; wait "$mon"; wait "$monf"
kill "$dmon"; wait "$dmon" 2>/dev/null
cat "$out/monitor.err"
[ $crc -eq 0 ] || { fail monitor_nvml_copy "copy helper failed: $(tr '\n' ' ' <"$out/copy.err")"; finish; }

# The fallback where the cumulative fields are not supported: the throughput call, read
# in the reader thread; forced here with PFCLAB_NVML_FIELDS=0.
PFCLAB_NVML_FIELDS=0 "$PFCLAB" monitor --gpu "$GPU" -I 100ms -c 15 -q --record "$out/fallback" \
	2>"$out/fallback.err"
fb=$(jq -r '.sources[] | select(.source == "nvml") | .info.pcie_bytes // ""' "$out/fallback/meta.json" 2>/dev/null)
fcol=$(head -n 1 "$out/fallback/samples.csv" 2>/dev/null | tr ',' '\n' | grep -nx -- "pcie.gpu$GPU.rx_Bps" | cut -d: -f1)
fval=$(awk -F, -v c="${fcol:-0}" 'NR > 1 && c && $c != "n/a" { n++ } END { print n + 0 }' "$out/fallback/samples.csv" 2>/dev/null)
if [[ "$fb" == "NVML throughput"* ]] && [ "${fval:-0}" -ge 10 ]; then
	ok "monitor_nvml_fallback_throughput ($fval of 15 samples with rx_Bps; $fb)"
else
	fail monitor_nvml_fallback_throughput "pcie_bytes '$fb', $fval samples with rx_Bps: $(tr '\n' ' ' <"$out/fallback.err")"
fi

meta=$out/run/meta.json
state=$(jq -r '.sources[] | select(.source == "nvml") | .state' "$meta")
if [ "$state" = ok ]; then ok monitor_nvml_source
else fail monitor_nvml_source "NVML source state '$state': $(tr '\n' ' ' <"$out/monitor.err")"; finish; fi

csv=$out/run/samples.csv
col() { head -n 1 "${2:-$csv}" | tr ',' '\n' | grep -nx -- "$1" | cut -d: -f1; } # NAME [CSV]
crx=$(col "pcie.gpu$GPU.rx_Bps") ctx=$(col "pcie.gpu$GPU.tx_Bps")
# median of a column over samples whose mono_ns lies in [t0 + 1 s, t1 - 0.5 s]
median() { # $1 col, $2 t0, $3 t1
	awk -F, -v c="$1" -v a="$2" -v b="$3" 'NR > 1 && $2 > a + 1e9 && $2 < b - 5e8 && $c != "n/a" { print $c }' "$csv" |
		sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'
}
# dmon prints "# gpu rxpci txpci" then rows "0 <rx MB/s> <tx MB/s>"; the rows of the copy
# phase are those above half the busiest one (a row straddling a phase edge reads about
# half: one such row made a fixed percentile of all rows read 0.5x once)
dmon_peak() { # $1 = field (2 rx, 3 tx): median of the rows above half the maximum
	awk -v f="$1" '$1 !~ /^#/ && NF >= 3 { print $f }' "$out/dmon.txt" | sort -n |
		awk '{ v[NR] = $1 } END { if (!NR) { print 0; exit }
			for (i = 1; i <= NR && v[i] < v[NR] / 2; i++) ; k = i
			print v[k + int((NR - k) / 2)] }'
}
read -r _ h0 h1 hbw < <(grep '^h2d' "$out/copy.txt")
read -r _ d0 d1 dbw < <(grep '^d2h' "$out/copy.txt")
mrx=$(median "$crx" "$h0" "$h1")
mtx=$(median "$ctx" "$d0" "$d1")
drx=$(dmon_peak 2) dtx=$(dmon_peak 3)
report() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "inf" }'; }
echo "# h2d copy $(awk -v v="$hbw" 'BEGIN { printf "%.2f", v / 1e9 }') GB/s; monitor pcie.gpu$GPU.rx_Bps median $(awk -v v="$mrx" 'BEGIN { printf "%.2f", v / 1e9 }') GB/s (ratio to copy $(report "$mrx" "$hbw")); nvidia-smi dmon rxpci $drx MB/s"
echo "# d2h copy $(awk -v v="$dbw" 'BEGIN { printf "%.2f", v / 1e9 }') GB/s; monitor pcie.gpu$GPU.tx_Bps median $(awk -v v="$mtx" 'BEGIN { printf "%.2f", v / 1e9 }') GB/s (ratio to copy $(report "$mtx" "$dbw")); nvidia-smi dmon txpci $dtx MB/s"
echo "# samples at 20 ms: $(jq .samples "$meta"), overruns $(jq .overruns_total "$meta")"

# monitor vs NVML read directly (dmon shows MB/s = NVML KB/s / 1000). dmon reads one
# ~20 ms NVML window per second, so a few of its rows can straddle a phase edge (one run
# of three read 1.6 here): this check guards the units (a x1000 slip), the tight check
# is the one against the copy below.
r=$(report "$mrx" "$(awk -v v="$drx" 'BEGIN { print v * 1e6 }')")
if awk -v r="$r" 'BEGIN { exit !(r > 0.5 && r < 2) }'; then ok "monitor_nvml_rx_matches_dmon (ratio $r)"
else fail monitor_nvml_rx_matches_dmon "monitor/dmon ratio $r"; fi
r=$(report "$mtx" "$(awk -v v="$dtx" 'BEGIN { print v * 1e6 }')")
if awk -v r="$r" 'BEGIN { exit !(r > 0.5 && r < 2) }'; then ok "monitor_nvml_tx_matches_dmon (ratio $r)"
else fail monitor_nvml_tx_matches_dmon "monitor/dmon ratio $r"; fi
# monitor vs the copy's payload rate: PCIe overhead puts the counter above the payload;
# accept 0.9x .. 1.35x (the lab's H100 note: ~59 GB/s NVML for a ~51 GB/s copy, 1.16x)
r=$(report "$mrx" "$hbw")
if awk -v r="$r" 'BEGIN { exit !(r > 0.9 && r < 1.35) }'; then ok "monitor_nvml_rx_vs_copy (ratio $r)"
else fail monitor_nvml_rx_vs_copy "monitor rx / copy bandwidth = $r"; fi
r=$(report "$mtx" "$dbw")
if awk -v r="$r" 'BEGIN { exit !(r > 0.9 && r < 1.35) }'; then ok "monitor_nvml_tx_vs_copy (ratio $r)"
else fail monitor_nvml_tx_vs_copy "monitor tx / copy bandwidth = $r"; fi
# The cumulative byte counters (32-bit, summed wrap-safe by the reader thread): where
# supported, the bytes between two samples over the copy's window give the
# same rate as the copy, and the totals never go back (a wrap mishandled would).
bytes_mode=$(jq -r '.sources[] | select(.source == "nvml") | .info.pcie_bytes // ""' "$meta")
brx=$(col "pcie.gpu$GPU.rx_bytes") btx=$(col "pcie.gpu$GPU.tx_bytes")
if [[ "$bytes_mode" == "RM bus counters"* ]]; then ok "monitor_nvml_rm_mode ($bytes_mode)"
else skip monitor_nvml_rm_mode "our RM client is not used here: ${bytes_mode:-no pcie_bytes info}"; fi
if [[ "$bytes_mode" != "RM bus counters"* && "$bytes_mode" != "NVML fields"* ]] || [ -z "$brx" ]; then
	for n in monotonic rx_bytes_vs_copy tx_bytes_vs_copy rm_vs_fields; do
		skip "monitor_nvml_$n" "cumulative counters not used here: ${bytes_mode:-no pcie_bytes info}"
	done
	finish
fi
span_rate() { # $1 col, $2 t0, $3 t1 [$4 csv]: (last - first) bytes / seconds between those samples
	awk -F, -v c="$1" -v a="$2" -v b="$3" 'NR > 1 && $2 > a + 1e9 && $2 < b - 5e8 && $c != "n/a" {
		if (t0 == "") { t0 = $2; v0 = $c } t1 = $2; v1 = $c }
		END { if (t1 > t0) printf "%.0f", (v1 - v0) / ((t1 - t0) / 1e9); else print 0 }' "${4:-$csv}"
}
backwards() { awk -F, -v c="$1" 'NR > 1 && $c != "n/a" { if (p != "" && $c + 0 < p + 0) n++; p = $c } END { print n + 0 }' "$csv"; }
brate=$(span_rate "$brx" "$h0" "$h1") trate=$(span_rate "$btx" "$d0" "$d1")
echo "# rx_bytes over the h2d window $(awk -v v="$brate" 'BEGIN { printf "%.2f", v / 1e9 }') GB/s, tx_bytes over the d2h window $(awk -v v="$trate" 'BEGIN { printf "%.2f", v / 1e9 }') GB/s ($bytes_mode)"
# the baseline sample (the first row, taken as the sources open) has the GPU's byte totals
first=$(awk -F, -v c="$brx" 'NR == 2 { print $c }' "$csv")
if [ -n "$first" ] && [ "$first" != n/a ]; then ok "monitor_nvml_baseline (first sample rx_bytes $first)"
else fail monitor_nvml_baseline "first sample's rx_bytes '$first'"; fi
nb=$(( $(backwards "$brx") + $(backwards "$btx") ))
if [ "$nb" = 0 ]; then ok "monitor_nvml_bytes_monotonic (totals never go back over $(jq .samples "$meta") samples)"
else fail monitor_nvml_bytes_monotonic "$nb samples where a byte total went back"; fi
# same margin and reason as the rate checks above
r=$(report "$brate" "$hbw")
if awk -v r="$r" 'BEGIN { exit !(r > 0.9 && r < 1.35) }'; then ok "monitor_nvml_rx_bytes_vs_copy (ratio $r)"
else fail monitor_nvml_rx_bytes_vs_copy "rx_bytes rate / copy bandwidth = $r"; fi
r=$(report "$trate" "$dbw")
if awk -v r="$r" 'BEGIN { exit !(r > 0.9 && r < 1.35) }'; then ok "monitor_nvml_tx_bytes_vs_copy (ratio $r)"
else fail monitor_nvml_tx_bytes_vs_copy "tx_bytes rate / copy bandwidth = $r"; fi
# RM client vs NVML fields: the same counters read by two monitors at different instants;
# each window edge can differ by up to one 10 ms reading (~0.6 GB at 55 GB/s over a
# window of >= 1.5 s, i.e. < 1% per edge): accept 0.97x .. 1.03x
fmode=$(jq -r '.sources[] | select(.source == "nvml") | .info.pcie_bytes // ""' "$out/fields/meta.json" 2>/dev/null)
fcsv=$out/fields/samples.csv
frate=$(span_rate "$(col "pcie.gpu$GPU.rx_bytes" "$fcsv")" "$h0" "$h1" "$fcsv")
ftrate=$(span_rate "$(col "pcie.gpu$GPU.tx_bytes" "$fcsv")" "$d0" "$d1" "$fcsv")
echo "# NVML fields monitor: rx_bytes $(awk -v v="$frate" 'BEGIN { printf "%.2f", v / 1e9 }') GB/s, tx_bytes $(awk -v v="$ftrate" 'BEGIN { printf "%.2f", v / 1e9 }') GB/s ($fmode)"
if [[ "$bytes_mode" != "RM bus counters"* ]]; then
	skip monitor_nvml_rm_vs_fields "the default monitor did not use the RM client"
elif [[ "$fmode" != "NVML fields"* ]]; then
	fail monitor_nvml_rm_vs_fields "the PFCLAB_GPU_PCIE=fields monitor reads '$fmode': $(tr '\n' ' ' <"$out/fields.err")"
else
	r1=$(report "$brate" "$frate") r2=$(report "$trate" "$ftrate")
	if awk -v a="$r1" -v b="$r2" 'BEGIN { exit !(a > 0.97 && a < 1.03 && b > 0.97 && b < 1.03) }'; then
		ok "monitor_nvml_rm_vs_fields (rx ratio $r1, tx ratio $r2)"
	else fail monitor_nvml_rm_vs_fields "RM/fields rate ratio rx $r1 tx $r2"; fi
fi
finish
