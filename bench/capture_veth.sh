#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# capture_veth.sh: the highest rate at which `pfclab capture` (writing a pcap) sees every
# frame with zero kernel drops, on a veth pair between two namespaces made here.
# pfclab inject offers 60-byte PAUSE frames and 78-byte CNPs at rising rates, SECS
# seconds each; the rate reported is the one the frames actually arrived at.
#
# The veth is set up the way a NIC receives: GRO on the receiving end (with TSO off on
# the sending end) gives each of its receive queues a NAPI poller of its own, run as a
# kernel thread (threaded NAPI), so receiving runs beside the senders rather than inside
# their system calls. With enough CPUs the pair gets QUEUES queues (default 2 from 8
# CPUs, else 1), one sender per queue (XPS maps each sender's CPU to its queue), and the
# senders, the receive threads and the capture each get CPUs of their own. veth holds a
# sender back when its receive thread falls behind, so frames arriving slower than
# offered mean the receive side (veth plus capture) is saturated; drops would mean the
# capture is.
#
# pfclab is measured in its default (immediate: every frame handed over at once) and
# with --no-immediate (the kernel fills blocks of frames; at most 10 ms later); tcpdump
# with the same buffer, filter and immediate mode is the peer. Target: 1 Mpps. Beside each
# rate, the capture's CPU time (user + system) per million frames captured: pfclab's own
# getrusage (capture --json cpu_seconds), tcpdump's through GNU time.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
PFCLAB=${PFCLAB:-$root/pfclab}
name=capture_veth
RATES=${RATES:-"250000 500000 1000000 1500000 2000000"}
KINDS=${KINDS:-"pause cnp"}
SECS=${SECS:-2}
TRIES=${TRIES:-2}
[ "$(id -u)" -eq 0 ] || { echo "BENCH $name: skipped (needs root)"; exit 0; }
[ -x "$PFCLAB" ] || { echo "BENCH $name: skipped (no pfclab at $PFCLAB)"; exit 0; }
command -v ethtool >/dev/null || { echo "BENCH $name: skipped (no ethtool)"; exit 0; }
dir=$root/$build/bench
mkdir -p "$dir"
nsa=pfc-bench-a-$$ nsb=pfc-bench-b-$$
cleanup() { ip netns del "$nsa" 2>/dev/null; ip netns del "$nsb" 2>/dev/null; rm -f "$dir"/cap-bench.*; }
trap cleanup EXIT
ip netns add "$nsa" && ip netns add "$nsb" || exit 1
ncpu=$(nproc)
QUEUES=${QUEUES:-$([ "$ncpu" -ge 8 ] && echo 2 || echo 1)}
ip -n "$nsa" link add pfca numtxqueues "$QUEUES" numrxqueues "$QUEUES" type veth \
	peer name pfcb numtxqueues "$QUEUES" numrxqueues "$QUEUES" netns "$nsb" || exit 1
ip netns exec "$nsa" ethtool -K pfca tso off >/dev/null 2>&1
ip netns exec "$nsb" ethtool -K pfcb gro on >/dev/null 2>&1
ip -n "$nsa" link set pfca up && ip -n "$nsb" link set pfcb up
ip netns exec "$nsb" sh -c 'echo 1 > /sys/class/net/pfcb/threaded' 2>/dev/null
# CPUs: senders from 1, then the receive threads, then the capture (CPU 0 left to the
# rest of the system); on a small host the sender takes CPU 0 and the capture the last
if [ "$ncpu" -ge $((2 * QUEUES + 2)) ]; then
	CPU_SEND=${CPU_SEND:-$(seq -s, 1 "$QUEUES")}
	CPU_NAPI=${CPU_NAPI:-$(seq -s, $((QUEUES + 1)) $((2 * QUEUES)))}
	CPU_CAP=${CPU_CAP:-$((2 * QUEUES + 1))}
else
	CPU_SEND=${CPU_SEND:-0} CPU_NAPI=${CPU_NAPI:-} CPU_CAP=${CPU_CAP:-$((ncpu - 1))}
fi
IFS=, read -ra send_cpus <<<"$CPU_SEND"
IFS=, read -ra napi_cpus <<<"$CPU_NAPI"
for q in $(seq 0 $((QUEUES - 1))); do # XPS: the sender on send_cpus[q] uses queue q
	[ -n "${send_cpus[$q]:-}" ] && [ "$QUEUES" -gt 1 ] &&
		ip netns exec "$nsa" sh -c "printf %x $((1 << ${send_cpus[$q]})) > /sys/class/net/pfca/queues/tx-$q/xps_cpus"
done
napis=$(ps -eo pid=,comm= | awk '$2 ~ /^napi\/pfcb-/ { print $1 }' | tr '\n' ' ')
i=0
for pid in $napis; do
	[ -n "${napi_cpus[$i]:-}" ] && taskset -pc "${napi_cpus[$i]}" "$pid" >/dev/null
	i=$((i + 1))
done
echo "  $ncpu CPUs, $QUEUES queue(s); senders on CPU $CPU_SEND, receive threads (${napis% }) on CPU ${CPU_NAPI:-any}, capture on CPU $CPU_CAP"
filter="ether proto 0x8808 or (udp dst port 4791 and udp[8] = 0x81)"

offer() { # $1 = kind, $2 = rate, $3 = frames; prints the rate they arrived at
	local args=(pause) q pids=()
	# a CNP for another host, as on a mirror port: the receiver drops it below IP
	[ "$1" = cnp ] && args=(cnp --dst-mac 02:00:00:00:00:99)
	for q in $(seq 0 $((QUEUES - 1))); do
		ip netns exec "$nsa" taskset -c "${send_cpus[$q]:-${send_cpus[0]}}" "$PFCLAB" inject \
			-i pfca "${args[@]}" -r $(($2 / QUEUES)) -c $(($3 / QUEUES)) >"$dir/cap-bench.tx$q" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	# frames over the longest sender's time
	cat "$dir"/cap-bench.tx* | awk '/ sent / { for (i = 1; i <= NF; i++) if ($i == "in") {
		n += $4; if ($(i + 1) > t) t = $(i + 1) } } END { if (t > 0) printf "%.0f\n", n / t }'
	rm -f "$dir"/cap-bench.tx*
}

run_pfclab() { # $1 = kind, $2 = rate, $3 = extra option -> "achieved captured drops"
	local n=$(($2 / QUEUES * QUEUES * SECS)) got a
	ip netns exec "$nsb" taskset -c "$CPU_CAP" "$PFCLAB" capture -i pfcb $3 -q --json -c "$n" \
		-d $((SECS * 20 + 20))s -w "$dir/cap-bench.pcap" >"$dir/cap-bench.json" 2>"$dir/cap-bench.err" &
	local cpid=$!
	for _ in $(seq 50); do grep -q listening "$dir/cap-bench.err" && break; sleep 0.1; done
	a=$(offer "$1" "$2" "$n")
	sleep 1
	kill -INT $cpid 2>/dev/null # normally it has stopped at -c already
	wait $cpid
	got=$(jq -r "\"\(.kinds.$1) \(.interfaces[0].kernel_drops) \(.cpu_seconds)\"" "$dir/cap-bench.json")
	echo "$a $got"
}

run_tcpdump() { # $1 = kind, $2 = rate -> "achieved captured drops"
	local n=$(($2 / QUEUES * QUEUES * SECS)) a
	# GNU time reports tcpdump's CPU (user + system); SIGINT goes to tcpdump itself
	ip netns exec "$nsb" taskset -c "$CPU_CAP" /usr/bin/time -f "%U %S" -o "$dir/cap-bench.tdtime" \
		tcpdump -Z root --immediate-mode -i pfcb -B 65536 -s 256 \
		-w "$dir/cap-bench.tcpdump" "$filter" >"$dir/cap-bench.td" 2>&1 &
	local tpid=$! td
	for _ in $(seq 50); do grep -q listening "$dir/cap-bench.td" 2>/dev/null && break; sleep 0.1; done
	a=$(offer "$1" "$2" "$n")
	sleep 1
	td=$(pgrep -P $tpid | head -n 1) # ip netns exec and taskset exec time, time forks tcpdump
	kill -INT "${td:-$tpid}"
	wait $tpid
	echo "$a $(awk '/packets captured/ { c = $1 } /dropped by kernel/ { d = $1 } END { print c, d }' "$dir/cap-bench.td") $(awk '{ print $1 + $2 }' "$dir/cap-bench.tdtime")"
}

# best achieved rate with every frame captured and no drops, over rising offered rates
# (each tried up to TRIES times); stops at the first rate that loses frames
measure() { # $1 = label, $2 = kind, $3... = command -> sets best, best_cpu (s per Mframe)
	local label=$1 kind=$2 r t a got drops n ok cpu
	shift 2
	best=0 best_cpu=0
	for r in $RATES; do
		n=$((r / QUEUES * QUEUES * SECS)) ok=0
		for t in $(seq "$TRIES"); do
			read -r a got drops cpu < <("$@" "$kind" "$r")
			cpu=$(awk -v c="${cpu:-0}" -v n="$n" 'BEGIN { printf "%.3f", c / n * 1e6 }')
			echo "  $label $kind offered $r/s arrived ${a:-?}/s captured ${got:-?}/$n drops ${drops:-?} CPU ${cpu} s per million frames"
			if [ "${got:-0}" = "$n" ] && [ "${drops:-1}" = 0 ]; then
				ok=1
				[ "${a:-0}" -gt "$best" ] && best=$a best_cpu=$cpu
			else
				ok=0
				break
			fi
		done
		[ $ok = 1 ] || break
		# the offered rate was not reached: higher offers only saturate the same path
		[ "${a:-0}" -lt $((r * 9 / 10)) ] && break
	done
}

pf_imm() { run_pfclab "$1" "$2" ""; }
pf_batch() { run_pfclab "$1" "$2" --no-immediate; }
top=${RATES##* }
for kind in $KINDS; do
	# the same path with no capture at all: what the veth and senders reach alone
	echo "  no capture $kind offered $top/s arrived $(offer "$kind" "$top" $((top / QUEUES * QUEUES * SECS)))/s"
	measure pfclab "$kind" pf_imm
	p=$best pc=$best_cpu
	measure "pfclab --no-immediate" "$kind" pf_batch
	b=$best bc=$best_cpu
	t=0 tc=0
	if command -v tcpdump >/dev/null; then
		measure tcpdump "$kind" run_tcpdump
		t=$best tc=$best_cpu
	fi
	awk -v n="$name" -v k="$kind" -v p="$p" -v b="$b" -v t="$t" -v pc="$pc" -v bc="$bc" -v tc="$tc" 'BEGIN {
		printf "BENCH %s (%s): pfclab %.2f Mpps (--no-immediate %.2f), tcpdump %.2f Mpps, ratio %s (target pfclab >= 1 Mpps with zero drops); CPU per million frames at those rates: pfclab %.2f s (--no-immediate %.2f), tcpdump %.2f s\n",
			n, k, p / 1e6, b / 1e6, t / 1e6, (t > 0 ? sprintf("%.2f", p / t) : "n/a"), pc, bc, tc }'
done
