#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# traffic_vs_perftest.sh (vlab guest, run by bench/traffic_vs_perftest.sh): pfclab traffic
# and perftest ib_write_bw over the same rxe pair, same sizes, same run length. Each figure
# comes from rxe's sent_pkts counters over the same window in the middle of each run, so
# both tools are measured the same way (perftest's own Gb/s is unreliable under TCG, its
# cycle-counter calibration fails). Writes figures.txt: "<case> <tool> <value>".
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

DUR=${BENCH_DUR:-12}		# each run
SKIP=${BENCH_SKIP:-4}		# seconds after the client starts before the window opens
WIN=${BENCH_WIN:-5}		# measured window
MTU=$(ibv_devinfo -d "$VLAB_DEV_A" | awk '/active_mtu/ { print $2; exit }')
GID_B=$(vlab_gid_index "$VLAB_DEV_B" "$VLAB_IP_B")
fig=$VLAB_OUT/figures.txt
: >"$fig"

hw() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts"; }

# measure CASE TOOL SERVER_CMD... -- CLIENT_CMD...: runs both, samples the counters.
measure() {
	local case=$1 tool=$2 scmd=() ccmd=() a0 b0 a1 b1
	shift 2
	while [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	"${scmd[@]}" >"$VLAB_OUT/$case-$tool-server.txt" 2>&1 &
	local spid=$!
	sleep 1
	"${ccmd[@]}" >"$VLAB_OUT/$case-$tool-client.txt" 2>&1 &
	local cpid=$!
	sleep "$SKIP"
	a0=$(hw "$VLAB_DEV_A") b0=$(hw "$VLAB_DEV_B")
	sleep "$WIN"
	a1=$(hw "$VLAB_DEV_A") b1=$(hw "$VLAB_DEV_B")
	wait $cpid
	wait $spid
	echo "$case $tool $((a1 - a0)) $((b1 - b0))" >>"$VLAB_OUT/raw.txt"
	case $case in
	bidir64k) # data packets both ways (ACKs, ~1 per 64 packets, are counted for both tools)
		awk -v p=$((a1 - a0 + b1 - b0)) -v m="$MTU" -v w="$WIN" \
			'BEGIN { printf "%.4f\n", p * m * 8 / w / 1e9 }' ;;
	oneway64) # one packet per 64-byte message, sent by the client (rxe1)
		awk -v p=$((b1 - b0)) -v w="$WIN" 'BEGIN { printf "%.5f\n", p / w / 1e6 }' ;;
	esac | sed "s/^/$case $tool /" >>"$fig"
}

# 1. bidirectional 64 KiB bandwidth
measure bidir64k perftest \
	ib_write_bw -d "$VLAB_DEV_A" -x "$VLAB_GID" -s 65536 -D "$DUR" -b -F --report_gbits -p 18800 -- \
	ib_write_bw -d "$VLAB_DEV_B" -x "$GID_B" -s 65536 -D "$DUR" -b -F --report_gbits -p 18800 "$VLAB_IP_A"
measure bidir64k pfclab \
	"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -s 65536 -D "$DUR" -b -p 18801 -- \
	"$PFCLAB" traffic -d "$VLAB_DEV_B" -x "$GID_B" -s 65536 -D "$DUR" -b -p 18801 "$VLAB_IP_A"

# 2. one-way 64-byte message rate
measure oneway64 perftest \
	ib_write_bw -d "$VLAB_DEV_A" -x "$VLAB_GID" -s 64 -D "$DUR" -F -p 18802 -- \
	ib_write_bw -d "$VLAB_DEV_B" -x "$GID_B" -s 64 -D "$DUR" -F -p 18802 "$VLAB_IP_A"
measure oneway64 pfclab \
	"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -s 64 -D "$DUR" -p 18803 -- \
	"$PFCLAB" traffic -d "$VLAB_DEV_B" -x "$GID_B" -s 64 -D "$DUR" -p 18803 "$VLAB_IP_A"

cat "$fig"
if [ "$(wc -l <"$fig")" -eq 4 ]; then ok "bench figures collected"; else fail "bench figures collected" "$(cat "$fig")"; fi
finish
