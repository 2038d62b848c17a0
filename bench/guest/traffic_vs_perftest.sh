#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# traffic_vs_perftest.sh (vlab guest, run by bench/traffic_vs_perftest.sh): pfclab traffic
# and perftest ib_write_bw over the same rxe pair, same sizes (64 B to 4 MiB in powers of
# four), one way and both ways, same settings (-q, -t, -l), same run length (-D). Each figure
# comes from rxe's packet counters (sent, less the requests the receiver threw away as
# repeats or out of order) over the same window in the middle of each run, so
# both tools are measured the same way (perftest's own Gb/s is unreliable under TCG, its
# cycle-counter calibration fails). The emulated CPU is shared with whatever else runs on
# the host, so figures drift by 2x within minutes: the tools alternate (ABBA) over several
# rounds and the host side takes medians. Writes figures.txt: "<case> <tool> <value>" per
# round, and ends.txt: "<case> <tool> <seconds> <phase>", how much longer than -D the client's
# whole run took (start-up and connection included), and for pfclab how much longer than
# -D its phase took (its summary's time; JSON output).
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

DUR=${BENCH_DUR:-7}		# each run
SKIP=${BENCH_SKIP:-2}		# seconds after the client starts before the window opens
WIN=${BENCH_WIN:-3}		# measured window
ROUNDS=${BENCH_ROUNDS:-2}	# 2 = ABBA
SIZES=${BENCH_SIZES:-64 256 1024 4096 16384 65536 262144 1048576 4194304}
MODES=${BENCH_MODES:-oneway bidir}
read -r -a PARGS <<<"${BENCH_PFCLAB_ARGS:-}"	# more pfclab options, both ends (e.g. --poll spin)
read -r -a QARGS <<<"${BENCH_PERFTEST_ARGS:-}"	# more ib_write_bw options, both ends
# Equal settings for both tools: one QP, tx depth 128, one send per post call.
SET=(-q 1 -t 128 -l 1)
MTU=$(ibv_devinfo -d "$VLAB_DEV_A" | awk '/active_mtu/ { print $2; exit }')
GID_B=$(vlab_gid_index "$VLAB_DEV_B" "$VLAB_IP_B")
fig=$VLAB_OUT/figures.txt ends=$VLAB_OUT/ends.txt
: >"$fig"
: >"$ends"

hw() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts"; }
# requests DEV received and threw away: repeats of what it had (retransmissions after a
# timeout) and packets after a gap (dropped until the sender goes back)
lost() {
	local d=/sys/class/infiniband/$1/ports/1/hw_counters
	echo $(($(cat "$d/duplicate_request") + $(cat "$d/out_of_seq_request")))
}

# measure CASE TOOL SERVER_CMD... -- CLIENT_CMD...: runs both, samples the counters.
# The figure is packets per second over the window (Mpps) that carried new data: packets
# sent less the requests the receiving end threw away as repeats or out of order
# (retransmissions would otherwise count as work done); for one way the client's (rxe1),
# for both ways the sum. At one size both tools send the same packets per message
# (MTU-sized pieces), so packets are the common measure of data moved.
measure() {
	local case=$1 tool=$2 scmd=() ccmd=() a0 b0 a1 b1 la0 lb0 la1 lb1
	shift 2
	while [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	local tag=$VLAB_OUT/$port-$case-$tool
	"${scmd[@]}" >"$tag-server.txt" 2>&1 &
	local spid=$!
	sleep 1
	local ts=$EPOCHREALTIME
	"${ccmd[@]}" >"$tag-client.txt" 2>&1 &
	local cpid=$!
	sleep "$SKIP"
	a0=$(hw "$VLAB_DEV_A") b0=$(hw "$VLAB_DEV_B") la0=$(lost "$VLAB_DEV_A") lb0=$(lost "$VLAB_DEV_B")
	sleep "$WIN"
	a1=$(hw "$VLAB_DEV_A") b1=$(hw "$VLAB_DEV_B") la1=$(lost "$VLAB_DEV_A") lb1=$(lost "$VLAB_DEV_B")
	local la=$((la1 - la0)) lb=$((lb1 - lb0))
	wait $cpid
	local crc=$? te=$EPOCHREALTIME
	wait $spid
	local src=$?
	# the client's whole run (connection, -D, the end), against -D
	echo "$case $tool $((a1 - a0)) $((b1 - b0)) lost $la $lb exit $src/$crc $(basename "$tag") client_s $(awk -v a="$ts" -v b="$te" 'BEGIN { printf "%.2f", b - a }')" >>"$VLAB_OUT/raw.txt"
	# pfclab's own end of the phase: its summary's time since the phase started
	local pe=-
	[ "$tool" = pfclab ] && pe=$(grep '^{' "$tag-client.txt" | jq -r 'select(.type == "summary") | .t' 2>/dev/null | tail -n 1)
	awk -v a="$ts" -v b="$te" -v d="$DUR" -v c="$case" -v t="$tool" -v pe="${pe:--}" 'BEGIN {
		printf "%s %s %.2f %s\n", c, t, b - a - d, pe == "-" ? "-" : sprintf("%.2f", pe - d) }' >>"$ends"
	case $case in
	bidir*) awk -v p=$((a1 - a0 + b1 - b0 - la - lb)) -v w="$WIN" 'BEGIN { printf "%.6f\n", p / w / 1e6 }' ;;
	*) awk -v p=$((b1 - b0 - la)) -v w="$WIN" 'BEGIN { printf "%.6f\n", p / w / 1e6 }' ;;
	esac | sed "s/^/$case $tool /" >>"$fig"
}

port=18800
run() { # MODE SIZE TOOL
	local b=() pb=()
	port=$((port + 1))
	[ "$1" = bidir ] && b=(-b) pb=(-b)
	if [ "$3" = perftest ]; then
		measure "$1$2" perftest \
			ib_write_bw -d "$VLAB_DEV_A" -x "$VLAB_GID" -s "$2" -D "$DUR" "${pb[@]}" "${SET[@]}" "${QARGS[@]}" -F -p $port -- \
			ib_write_bw -d "$VLAB_DEV_B" -x "$GID_B" -s "$2" -D "$DUR" "${pb[@]}" "${SET[@]}" "${QARGS[@]}" -F -p $port "$VLAB_IP_A"
	else
		measure "$1$2" pfclab \
			"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -s "$2" -D "$DUR" "${b[@]}" "${SET[@]}" "${PARGS[@]}" -p $port -- \
			"$PFCLAB" traffic -d "$VLAB_DEV_B" -x "$GID_B" -s "$2" -D "$DUR" "${b[@]}" "${SET[@]}" "${PARGS[@]}" -p $port -j "$VLAB_IP_A"
	fi
}

# A warm-up pair, not counted: the first runs after boot are slower (libraries and the
# page cache are cold; up to 7% at 64 B), and ABBA puts perftest first.
wfig=$fig
fig=$VLAB_OUT/warmup.txt
run "${MODES%% *}" "${SIZES%% *}" perftest
run "${MODES%% *}" "${SIZES%% *}" pfclab
fig=$wfig
: >"$ends"
# Rounds alternate the order (perftest first, then pfclab first) so drift hits both.
n=0
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) -eq 1 ]; then a=perftest b=pfclab; else a=pfclab b=perftest; fi
	for m in $MODES; do
		for s in $SIZES; do
			run "$m" "$s" $a; run "$m" "$s" $b
			n=$((n + 2))
		done
	done
done

cat "$fig"
if [ "$(wc -l <"$fig")" -eq "$n" ]; then ok "bench figures collected"; else fail "bench figures collected" "$(cat "$fig")"; fi
finish
