#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# traffic_vs_perftest.sh (vlab guest, run by bench/traffic_vs_perftest.sh): pfclab traffic
# and perftest ib_write_bw over the same rxe pair, same sizes (64 B to 4 MiB in powers of
# four), one way and both ways, same settings (-q, -t, -l, the QP timeout), same run length (-D). Two
# measures of each run:
#  - packets (the figure): rxe's sent packets, less the requests the receiver counted as
#    repeats or out of order, over a window in the middle of the run, divided by the
#    window's length as read on the guest clock around the counter reads (a bare "sleep 3"
#    is no measure: both ways at 1 MiB ib_write_bw held the CPU in the kernel for seconds
#    and such a window lasted 8-14 s). It still counts as data the packets Soft-RoCE's
#    responder drops without counting after its first NAK for a gap (check_psn), which the
#    sender then sends again, so it favours the side that loses more.
#  - data (a cross-check): bytes a second whose sends completed, each tool's own count,
#    from MARGIN after traffic starts to MARGIN before -D ends (ib_write_bw --margin, its
#    #iterations; pfclab's interval reports), both ways summed. ib_write_bw's count is
#    coarse (its CQ moderation: 100 sends at 8 KiB and below) and counts in its window the
#    completions it polls there; where its process sat in one post call for seconds, those
#    include what completed before the window opened, more than the wire carried.
# The emulated CPU is shared with whatever else runs on the host (unless the host side uses
# instruction counting), so the tools alternate (ABBA) over several rounds and the host side
# takes medians. Writes figures.txt: "<case> <tool> <Mpps>" per round, data.txt:
# "<case> <tool> <MB/s>", raw.txt (every reading), and ends.txt: "<case> <tool> <seconds>
# <phase>", how much longer than -D the client's whole run took (start-up and connection
# included), and for pfclab how much longer than -D its phase took (its summary's time).
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

DUR=${BENCH_DUR:-7}		# each run
SKIP=${BENCH_SKIP:-2}		# seconds after the client starts before the packet window opens
WIN=${BENCH_WIN:-3}		# packet window
MARGIN=${BENCH_MARGIN:-1}	# data: seconds left out at each end of -D
IVL=${BENCH_INTERVAL:-1s}	# pfclab's report interval (its default; 100 ms cost it 0.5-1% here)
ROUNDS=${BENCH_ROUNDS:-2}	# 2 = ABBA
SIZES=${BENCH_SIZES:-64 256 1024 4096 16384 65536 262144 1048576 4194304}
MODES=${BENCH_MODES:-oneway bidir}
read -r -a PARGS <<<"${BENCH_PFCLAB_ARGS:-}"	# more pfclab options, both ends (e.g. --poll spin)
read -r -a QARGS <<<"${BENCH_PERFTEST_ARGS:-}"	# more ib_write_bw options, both ends
# Equal settings for both tools: one QP, tx depth 128, one send per post call.
SET=(-q 1 -t 128 -l 1)
# And the same QP timeout, 4.096 us x 2^QPT (both tools default to 14, 67 ms). On a steady
# stream Soft-RoCE's retransmit timer fires every few dozen of those milliseconds anyway:
# it is armed at a send when not already pending and pushed back only while something
# sent is unacknowledged, so it runs out in a moment when everything was acknowledged
# and a send is then in flight, and that send is resent. At 14 that was 4-8 resends a
# second, 0.2% of the packets at 4 KiB and 1.2% at 16 KiB, at random moments: 0.3% of
# noise between runs of one tool, more than the difference between the tools. At 18
# (1.07 s) one or two a run.
QPT=${BENCH_QP_TIMEOUT:-18}
GID_B=$(vlab_gid_index "$VLAB_DEV_B" "$VLAB_IP_B")
fig=$VLAB_OUT/figures.txt dat=$VLAB_OUT/data.txt ends=$VLAB_OUT/ends.txt
: >"$fig"
: >"$dat"
: >"$ends"

# snap: the counters of both devices with the guest clock read just before and after
# (builtins only: a fork is milliseconds under TCG); prints "t sentA sentB lostA lostB dt",
# t the middle of the reads of the sent counters and dt how long they took, both in
# microseconds. The sent counters are read alone between two clock reads, again (up to 8
# times, keeping the tightest) while the pair took over SNAP_US: the busy tools share the
# CPU with this shell, which loses it for a scheduler slice (about 4.5 ms) at random
# points. Reading all six counters between one pair of clock reads took 4.7 to 23 ms in
# the runs of build 0eca613, and taking the middle as the moment moved a 3 s window by a
# few milliseconds either way (0.1% of the figure); the two sent counters alone take
# 1.1-2.0 ms of guest time there. Lost (read after, when the moment matters little: they
# change a few times a run): requests the device received and threw away and counted,
# repeats of what it had (resends after a timeout) and packets after a gap.
SNAP_US=${BENCH_SNAP_US:-2000}
snap() {
	local t0 t1 a b t=0 sa sb dt=-1 v o out=() d i
	for i in 1 2 3 4 5 6 7 8; do
		t0=${EPOCHREALTIME/./}
		read -r a <"/sys/class/infiniband/$VLAB_DEV_A/ports/1/hw_counters/sent_pkts"
		read -r b <"/sys/class/infiniband/$VLAB_DEV_B/ports/1/hw_counters/sent_pkts"
		t1=${EPOCHREALTIME/./}
		if [ "$dt" -lt 0 ] || [ $((t1 - t0)) -lt "$dt" ]; then
			t=$(((t0 + t1) / 2)) sa=$a sb=$b dt=$((t1 - t0))
		fi
		[ "$dt" -le "$SNAP_US" ] && break
	done
	out=("$sa" "$sb")
	for d in "$VLAB_DEV_A" "$VLAB_DEV_B"; do
		read -r v <"/sys/class/infiniband/$d/ports/1/hw_counters/duplicate_request"
		read -r o <"/sys/class/infiniband/$d/ports/1/hw_counters/out_of_seq_request"
		out+=("$((v + o))")
	done
	echo "$t ${out[*]} $dt"
}

# data_pfclab FILE: bytes a second this side's sends completed from MARGIN to -D less
# MARGIN: its interval reports (JSON) that overlap that span, over the time they cover
# (a little more than the span; all of it where a post call held the loop for seconds)
data_pfclab() {
	grep '^{' "$1" | jq -rs --argjson lo "$MARGIN" --argjson hi "$((DUR - MARGIN))" '
		[.[] | select(.type == "interval" and .tx != null and .t > $lo and (.t - .tx.seconds) < $hi)
		 | { b: .tx.bytes, t0: (.t - .tx.seconds), t1: .t }]
		| if length == 0 then "-" else ((map(.b) | add) / ((map(.t1) | max) - (map(.t0) | min)) | tostring) end' 2>/dev/null
}
# data_perftest FILE SIZE: bytes a second of the sends ib_write_bw counted in its
# measured span (its #iterations there, over -D less both margins)
data_perftest() {
	awk -v s="$2" -v w="$((DUR - 2 * MARGIN))" 'h && NF >= 2 && $1 == s { printf "%.3f\n", $2 * s / w; exit } /#iterations/ { h = 1 }' "$1"
}

# measure CASE TOOL SERVER_CMD... -- CLIENT_CMD...: runs both, samples the counters, and
# appends the run's two figures. Packets (Mpps): packets sent less the requests the
# receiving end threw away as repeats or out of order, for one way the client's (rxe1), for
# both ways the sum; at one size both tools send the same packets per message (MTU-sized
# pieces). Data (MB/s): for one way the client's, for both ways the sum of both sides'.
measure() {
	local case=$1 tool=$2 scmd=() ccmd=() s0 s1 size=${1//[a-z]/}
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
	read -r -a s0 <<<"$(snap)"
	sleep "$WIN"
	read -r -a s1 <<<"$(snap)"
	local a=$((s1[1] - s0[1])) b=$((s1[2] - s0[2])) la=$((s1[3] - s0[3])) lb=$((s1[4] - s0[4]))
	local win=$((s1[0] - s0[0]))	# microseconds
	wait $cpid
	local crc=$? te=$EPOCHREALTIME
	wait $spid
	local src=$?
	# data: each sending side's own count
	local dc ds=0 data
	if [ "$tool" = pfclab ]; then
		dc=$(data_pfclab "$tag-client.txt")
		case $case in bidir*) ds=$(data_pfclab "$tag-server.txt") ;; esac
	else
		dc=$(data_perftest "$tag-client.txt" "$size")
		case $case in bidir*) ds=$(data_perftest "$tag-server.txt" "$size") ;; esac
	fi
	data=$(awk -v c="${dc:--}" -v s="${ds:--}" 'BEGIN { if (c == "-" || c == "" || s == "-" || s == "") print "-"; else printf "%.6f", (c + s) / 1e6 }')
	# the client's whole run (connection, -D, the end), against -D
	echo "$case $tool sent $a $b lost $la $lb window_us $win reads_us ${s0[5]} ${s1[5]} data_MBps $data ($dc + $ds) exit $src/$crc $(basename "$tag") client_s $(awk -v a="$ts" -v b="$te" 'BEGIN { printf "%.2f", b - a }')" >>"$VLAB_OUT/raw.txt"
	# pfclab's own end of the phase: its summary's time since the phase started
	local pe=-
	[ "$tool" = pfclab ] && pe=$(grep '^{' "$tag-client.txt" | jq -r 'select(.type == "summary") | .t' 2>/dev/null | tail -n 1)
	awk -v a="$ts" -v b="$te" -v d="$DUR" -v c="$case" -v t="$tool" -v pe="${pe:--}" 'BEGIN {
		printf "%s %s %.2f %s\n", c, t, b - a - d, pe == "-" ? "-" : sprintf("%.2f", pe - d) }' >>"$ends"
	case $case in
	bidir*) awk -v p=$((a + b - la - lb)) -v w="$win" 'BEGIN { printf "%.6f\n", p / w }' ;;
	*) awk -v p=$((b - la)) -v w="$win" 'BEGIN { printf "%.6f\n", p / w }' ;;
	esac | sed "s/^/$case $tool /" >>"$fig"
	# a run whose count could not be read has none (never a zero)
	[ "$data" != - ] && echo "$case $tool $data" >>"$dat"
}

port=18800
run() { # MODE SIZE TOOL
	local b=() pb=()
	port=$((port + 1))
	[ "$1" = bidir ] && b=(-b) pb=(-b)
	if [ "$3" = perftest ]; then
		measure "$1$2" perftest \
			ib_write_bw -d "$VLAB_DEV_A" -x "$VLAB_GID" -s "$2" -D "$DUR" --margin "$MARGIN" "${pb[@]}" "${SET[@]}" -u "$QPT" "${QARGS[@]}" -F -p $port -- \
			ib_write_bw -d "$VLAB_DEV_B" -x "$GID_B" -s "$2" -D "$DUR" --margin "$MARGIN" "${pb[@]}" "${SET[@]}" -u "$QPT" "${QARGS[@]}" -F -p $port "$VLAB_IP_A"
	else
		measure "$1$2" pfclab \
			"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -s "$2" -D "$DUR" "${b[@]}" "${SET[@]}" --qp-timeout "$QPT" "${PARGS[@]}" -p $port -j --interval "$IVL" -- \
			"$PFCLAB" traffic -d "$VLAB_DEV_B" -x "$GID_B" -s "$2" -D "$DUR" "${b[@]}" "${SET[@]}" --qp-timeout "$QPT" "${PARGS[@]}" -p $port -j --interval "$IVL" "$VLAB_IP_A"
	fi
}

# A warm-up pair, not counted: the first runs after boot are slower (libraries and the
# page cache are cold; up to 7% at 64 B), and ABBA puts perftest first.
wfig=$fig wdat=$dat
fig=$VLAB_OUT/warmup.txt dat=$VLAB_OUT/warmup-data.txt
run "${MODES%% *}" "${SIZES%% *}" perftest
run "${MODES%% *}" "${SIZES%% *}" pfclab
fig=$wfig dat=$wdat
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
