#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# traffic_vs_perftest.sh: pfclab traffic vs perftest ib_write_bw in the virtual lab (rxe
# under QEMU TCG): a sweep of message sizes (BENCH_SIZES, default 64 B to 4 MiB in powers
# of four), one way and both ways (BENCH_MODES), at equal settings (-q 1 -t 128 -l 1 -D 7,
# QP timeout 18 or BENCH_QP_TIMEOUT: why in the guest script),
# in ABBA rounds (BENCH_ROUNDS, default 4); the figures are medians over the rounds. The
# figure: rxe's packets a second less those the receiver counted as repeats or out of
# order, over a window in the middle of each run timed on the guest clock; beside it each
# tool's own count of the data whose sends completed, as a cross-check (how each is taken,
# and where each goes wrong: bench/guest/traffic_vs_perftest.sh). Prints BENCH lines, each
# with how long the client ran beyond -D (median; start-up and connection included).
# Figures are those of an emulated CPU shared with the rest of the host: compare the
# ratio, not the numbers. A warm-up pair (not counted) runs first.
# BENCH_ICOUNT=SHIFT (default 3) runs the guest on instruction-counted time (vlab --icount,
# with one guest CPU: QEMU boots no second one then): guest time no longer follows this
# host's load, and rounds of one tool agree within about 0.5% at small sizes, so
# differences of a percent can be seen; about 10 minutes at the defaults. BENCH_ICOUNT=off
# runs two guest CPUs on this host's clock instead, where the same tool moves up to 2x
# between rounds with the host's load; there the single CPU's sharing of the two ends and
# the kernel's RoCE work is gone, so large messages behave otherwise. BENCH_PFCLAB_ARGS adds
# options to pfclab on both ends (e.g. "--poll spin"), BENCH_PERFTEST_ARGS to ib_write_bw
# (e.g. "--use_old_post_send"). BENCH_SNAP_US (default 2000): the longest the two reads of
# the sent counters may take before they are read again (why: the guest script's snap).
# BENCH_REPORT_ONLY=1 runs nothing: it prints the BENCH lines of the run already in
# BENCH_OUT again (give the settings that run had, for the line that names them).
# The last two lines give the verdicts from the unrounded figures: in how many cases the
# ratio target holds, and pfclab's latest phase end after -D over all runs.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
PFCLAB=${PFCLAB:-$root/pfclab}
out=${BENCH_OUT:-$root/build/bench/traffic_vs_perftest}

if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "BENCH traffic_vs_perftest: skipped: qemu-system-x86_64 not installed (make deps)"
	exit 0
fi
[ -x "$PFCLAB" ] || { echo "BENCH traffic_vs_perftest: no pfclab binary at $PFCLAB (run make)"; exit 1; }
BENCH_ICOUNT=${BENCH_ICOUNT-3}
[[ $BENCH_ICOUNT =~ ^([0-9]|10|off)?$ ]] ||
	{ echo "BENCH traffic_vs_perftest: BENCH_ICOUNT='${BENCH_ICOUNT}': expected a shift of 0 to 10 (default 3), or off for two CPUs on this host's clock"; exit 2; }
[ "$BENCH_ICOUNT" = off ] && BENCH_ICOUNT=
export BENCH_ROUNDS=${BENCH_ROUNDS:-4}
[[ ${BENCH_SNAP_US:-2000} =~ ^[1-9][0-9]*$ ]] ||
	{ echo "BENCH traffic_vs_perftest: BENCH_SNAP_US='${BENCH_SNAP_US}': expected a whole number of microseconds (default 2000)"; exit 2; }
report_only=${BENCH_REPORT_ONLY:-0}
[[ $report_only =~ ^[01]$ ]] ||
	{ echo "BENCH traffic_vs_perftest: BENCH_REPORT_ONLY='${report_only}': expected 1 (print the figures of the run in BENCH_OUT again) or 0"; exit 2; }
if [ "$report_only" = 0 ]; then
	rm -rf "$out"
	mkdir -p "$(dirname "$out")" || exit 1
fi
# The guest sees none of this environment: a wrapper of the same name carries the
# BENCH_* settings given here into it.
wrap=$(mktemp -d)
trap 'rm -rf "$wrap"' EXIT
{
	echo '#!/usr/bin/env bash'
	for v in BENCH_QP_TIMEOUT BENCH_DUR BENCH_SKIP BENCH_WIN BENCH_SNAP_US BENCH_MARGIN BENCH_INTERVAL BENCH_ROUNDS BENCH_SIZES BENCH_MODES BENCH_PFCLAB_ARGS BENCH_PERFTEST_ARGS; do
		[ -n "${!v:-}" ] && printf 'export %s=%q\n' "$v" "${!v}"
	done
	echo 'exec /pfclab/bench/guest/traffic_vs_perftest.sh "$@"'
} >"$wrap/traffic_vs_perftest.sh"
chmod +x "$wrap/traffic_vs_perftest.sh"
if [ -n "$BENCH_ICOUNT" ]; then
	clock="instruction-counted guest time (vlab --icount $BENCH_ICOUNT, one guest CPU), $BENCH_ROUNDS rounds"
else
	clock="two guest CPUs on this host's clock (BENCH_ICOUNT=off; rounds move with the host's load), $BENCH_ROUNDS rounds"
fi
rc=0
[ "$report_only" = 1 ] ||
	PFCLAB=$PFCLAB lab/vlab/vlab run ${BENCH_ICOUNT:+--icount "$BENCH_ICOUNT" --smp 1} --out "$out" --timeout ${BENCH_TIMEOUT:-2400} --script-timeout ${BENCH_TIMEOUT:-2400} "$wrap/traffic_vs_perftest.sh" >"$out.log" 2>&1 ||
	rc=$?
f=$out/traffic_vs_perftest/figures.txt
if [ ! -s "$f" ] && [ "$report_only" = 1 ]; then
	echo "BENCH traffic_vs_perftest: no figures in $out (BENCH_REPORT_ONLY=1 prints those of an earlier run: give its BENCH_OUT)"
	exit 1
elif [ ! -s "$f" ]; then
	echo "BENCH traffic_vs_perftest: no figures (vlab exit $rc; see $out.log and $out/)"
	exit 1
fi
[ "$rc" -eq 0 ] || echo "BENCH traffic_vs_perftest: the lab run did not finish (vlab exit $rc; see $out.log and $out/traffic_vs_perftest/log.txt): the figures below are partial"
e=$out/traffic_vs_perftest/ends.txt
k=$out/traffic_vs_perftest/data.txt
# median of one case/tool over the rounds (the figures, or another file and column)
get() {
	awk -v c="$1" -v t="$2" -v k="${4:-3}" '$1 == c && $2 == t && $k != "-" { print $k }' "${3:-$f}" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
rounds() { awk -v c="$1" -v t="$2" '$1 == c && $2 == t { printf "%s%s", s, $3; s = " " }' "${3:-$f}"; }
# per round, pfclab / ib_write_bw: the two ran next to each other (ABBA), so host drift
# mostly cancels within a pair; also appended to $pairs for the overall line
pairs=$(mktemp)
paired() {
	paste -d ' ' <(awk -v c="$1" '$1 == c && $2 == "pfclab" { print $3 }' "$f") \
		<(awk -v c="$1" '$1 == c && $2 == "perftest" { print $3 }' "$f") |
		awk -v c="$1" -v all="$pairs" '$2 > 0 { r = $1 / $2; printf "%s%.3f", s, r; s = " "; print c, r >>all }'
}
# a ratio, or n/a where either count is missing (a run without rows) or the second is 0;
# four places, so that 0.9997 does not print as 1.000
ratio() { awk -v p="$1" -v q="$2" 'BEGIN { print (p != "" && q != "" && q > 0 ? sprintf("%.4f", p / q) : "n/a") }'; }
verdicts=$(mktemp)
line() { # name case
	local p q dp dq
	p=$(get "$2" pfclab) q=$(get "$2" perftest)
	dp=$(get "$2" pfclab "$k") dq=$(get "$2" perftest "$k")
	if [ -z "$p" ] || [ -z "$q" ]; then
		echo "BENCH $1: incomplete (pfclab '${p}', ib_write_bw '${q}' Mpps)"
	elif awk -v q="$q" 'BEGIN { exit !(q > 0) }'; then
		local r met
		r=$(ratio "$p" "$q")
		met=$(awk -v p="$p" -v q="$q" 'BEGIN { print (p >= q ? "met" : "not met") }')
		echo "BENCH $1: pfclab $p Mpps, ib_write_bw $q Mpps, ratio $r (target >= 1.0: $met)"
		echo "$met $1 $r" >>"$verdicts"
	else
		echo "BENCH $1: pfclab $p Mpps, ib_write_bw $q Mpps: ib_write_bw moved no packet in the window, so no finite ratio ($(awk -v p="$p" 'BEGIN { print (p > 0 ? "pfclab ahead" : "neither moved anything") }'))"
	fi
	echo "  rounds: pfclab [$(rounds "$2" pfclab)] ib_write_bw [$(rounds "$2" perftest)]; paired ratios [$(paired "$2")]"
	echo "  cross-check, each tool's own count of completed data (MB/s): pfclab ${dp:--}, ib_write_bw ${dq:--}, ratio $(ratio "$dp" "$dq"); rounds: pfclab [$(rounds "$2" pfclab "$k")] ib_write_bw [$(rounds "$2" perftest "$k")]"
	echo "  -D end: pfclab's phase ended $(get "$2" pfclab "$e" 4) s after -D (target: within 0.5 s); the client's whole run, start-up included, took -D plus: pfclab $(get "$2" pfclab "$e") s, ib_write_bw $(get "$2" perftest "$e") s"
}
for m in ${BENCH_MODES:-oneway bidir}; do
	for sz in ${BENCH_SIZES:-64 256 1024 4096 16384 65536 262144 1048576 4194304}; do
		line "traffic_${m}_$sz" "$m$sz"
	done
done
# All paired ratios together: parity shows as a median near 1.0 with about half on each side.
sort -k2,2g "$pairs" | awk -v clock="$clock" '{ v[NR] = $2; if ($2 >= 1.0) up++ } END {
	if (!NR) exit
	n = NR
	m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	printf "BENCH traffic_vs_perftest (all cases): %d paired rounds, median pfclab / ib_write_bw %.3f, %d of them >= 1.0, middle half %.3f .. %.3f; %s\n",
		n, m, up, v[int(n / 4) + 1], v[int(3 * n / 4)], clock }'
rm -f "$pairs"
# The targets over the whole run, from the unrounded figures: the ratio of the medians per
# case (a case where ib_write_bw moved nothing has no finite ratio and is left out), and
# pfclab's phase end after -D in every run.
awk '$1 == "met" { m++ } $1 == "not" { n++; l = l sep $3 " " $4; sep = ", " }
	END { if (m + n) printf "BENCH traffic_vs_perftest (target >= 1.0): met in %d of %d cases with a finite ratio%s\n", m, m + n, n ? "; not met: " l : "" }' "$verdicts"
awk '$2 == "pfclab" && $4 != "-" { n++; if ($4 > 0.5) { late++ } if (n == 1 || $4 > max) max = $4 }
	END { if (n) printf "BENCH traffic_vs_perftest (-D, target within 0.5 s): pfclab'"'"'s phase ended %s s after it at most over %d runs%s\n", max, n, late ? sprintf("; %d runs later than 0.5 s", late) : "" }' "$e"
rm -f "$verdicts"
