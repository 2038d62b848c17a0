#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_traffic_modes.sh (vlab guest): pfclab traffic options over rxe: a size sweep (one
# summary per size), WRITE_WITH_IMM (receiver counts its own completions), post lists with
# inline and completion moderation, software rate limiting with the achieved rate reported,
# warm-up, a long one-way run without false timeouts, and a broken path ending the run
# on both sides within 2 s.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 8

need_cmd traffic-modes jq || finish
[ -x "$PFCLAB" ] || { fail traffic-modes "no pfclab binary at $PFCLAB"; finish; }

# pair TAG PORT ARGS...: same ARGS on both sides; server rxe0, client rxe1; JSON output.
pair() {
	local tag=$1 port=$2
	shift 2
	"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -p "$port" --wait 60s --json "$@" \
		>"$VLAB_OUT/$tag-server.out" 2>"$VLAB_OUT/$tag-server.err" &
	local spid=$!
	"$PFCLAB" traffic -d "$VLAB_DEV_B" -p "$port" --json "$@" "$VLAB_IP_A" \
		>"$VLAB_OUT/$tag-client.out" 2>"$VLAB_OUT/$tag-client.err"
	crc=$?
	wait $spid
	src=$?
}
sums() { jq -c 'select(.type == "summary")' "$1"; }
errs() { cat "$VLAB_OUT/$1"-*.err | tr '\n' ' '; }
now_ms() { date +%s%3N; }

# 1. size sweep: one summary per size, exact bytes
pair sweep 18900 -s 64,4K,64K -n 50
got=$(sums "$VLAB_OUT/sweep-client.out" | jq -s -c 'map([.size, .tx.bytes])')
if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$got" = '[[64,3200],[4096,204800],[65536,3276800]]' ]; then
	ok "size sweep 64,4K,64K: one summary per size with exact bytes"
else
	fail "size sweep: one summary per size" "rc $src/$crc got $got $(errs sweep)"
fi

# 2. RDMA WRITE with immediate, both ways: each side counts the peer's writes itself
pair imm 18901 --imm -b -q 2 -s 4K -n 100
rx=$(sums "$VLAB_OUT/imm-server.out" | jq -c '[.rx.completions, .rx.bytes]')
if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$rx" = '[200,819200]' ]; then
	ok "--imm -b: receiver counts 200 receive completions, 819200 bytes"
else
	fail "--imm -b: receive completions" "rc $src/$crc got $rx $(errs imm)"
fi

# 3. post lists, inline, completion moderation, small tx depth: every message accounted for
pair plist 18902 -s 64 -I 64 -l 8 -Q 16 -t 32 -q 3 -n 1000
tx=$(sums "$VLAB_OUT/plist-client.out" | jq -c '[.tx.msgs, .tx.bytes, .tx.completions]')
if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$tx" = '[3000,192000,189]' ]; then
	ok "-l 8 -I 64 -Q 16 -t 32 -q 3 -n 1000: 3000 messages, 189 signalled completions"
else
	fail "post list / inline / cq moderation" "rc $src/$crc got $tx $(errs plist)"
fi

# 4. software rate limit (rxe has no hardware limiter): achieved rate near the limit.
#    Pacing holds sends back and never sends ahead, so the upper bound is tight (the
#    limit + 7.5 % for the run's first and last intervals); the guest runs under full
#    emulation on a shared machine, where a paced sender can fall behind: 60 % below.
pair rate 18903 -s 4K -D 4 --rate 0.02
how=$(jq -r 'select(.type == "start") | .rate_limit' "$VLAB_OUT/rate-client.out")
g=$(sums "$VLAB_OUT/rate-client.out" | jq '.tx.gbps')
if [ $crc -eq 0 ] && [ "$how" = "software pacing" ] &&
	awk -v g="$g" 'BEGIN { exit !(g > 0.012 && g <= 0.0215) }'; then
	ok "--rate 0.02: software pacing, achieved $g Gb/s"
else
	fail "--rate 0.02 by software pacing" "rc $crc how '$how' achieved '$g' $(errs rate)"
fi

# 5. warm-up is not counted: same byte count as without it
pair warm 18904 -s 4K -n 100 --warmup 1s
b=$(sums "$VLAB_OUT/warm-client.out" | jq '.tx.bytes')
if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$b" = 409600 ]; then ok "--warmup 1s: measured bytes exclude the warm-up"
else fail "--warmup 1s" "rc $src/$crc bytes $b $(errs warm)"; fi

# 5b. path MTU: -m 512 on one side is the MTU of the path (the smaller one wins), and rxe
#     cuts each 4 KiB message into 8 packets
hwp() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts"; }
p0=$(hwp "$VLAB_DEV_B")
"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -p 18907 --wait 60s --json -s 4K -n 50 \
	>"$VLAB_OUT/mtu-server.out" 2>"$VLAB_OUT/mtu-server.err" &
spid=$!
"$PFCLAB" traffic -d "$VLAB_DEV_B" -p 18907 --json -s 4K -n 50 -m 512 "$VLAB_IP_A" \
	>"$VLAB_OUT/mtu-client.out" 2>"$VLAB_OUT/mtu-client.err"
crc=$?
wait $spid; src=$?
dp=$(( $(hwp "$VLAB_DEV_B") - p0 ))
ms=$(jq 'select(.type == "start") | .mtu' "$VLAB_OUT/mtu-server.out")
mc=$(jq 'select(.type == "start") | .mtu' "$VLAB_OUT/mtu-client.out")
if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$ms" = 512 ] && [ "$mc" = 512 ] && [ $dp -ge 400 ] && [ $dp -le 450 ]; then
	ok "-m 512 on one side: both use MTU 512, $dp packets for 50 x 4 KiB"
else
	fail "-m 512: path MTU" "rc $src/$crc mtu $ms/$mc packets $dp $(errs mtu)"
fi

# 6. a long one-way run with a short exchange timeout: the receiving side's heartbeats keep
#    the sender's watchdog (3 intervals + --timeout) quiet
pair quiet 18906 -s 4K -D 5 --interval 250ms --timeout 1s
if [ $crc -eq 0 ] && [ $src -eq 0 ]; then ok "one-way -D 5 with --timeout 1s: no false peer timeout"
else fail "one-way -D 5 with --timeout 1s" "rc $src/$crc $(errs quiet)"; fi

# 7. the path breaks: both ends start dropping each other's RoCE packets on arrival (the
#    veth ends stop accepting packets from a local source address); the exchange
#    connection (over lo) stays up, so only the QPs' timeout/retry can notice. Both sides
#    must stop within 2 s naming the cause (defaults: 4.096 us * 2^14 x 8 tries = 0.54 s).
"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -p 18905 -b -D 60 -s 64K --json \
	>"$VLAB_OUT/cut-server.out" 2>"$VLAB_OUT/cut-server.err" &
spid=$!
defer kill -9 $spid
"$PFCLAB" traffic -d "$VLAB_DEV_B" -p 18905 -b -D 60 -s 64K --json "$VLAB_IP_A" \
	>"$VLAB_OUT/cut-client.out" 2>"$VLAB_OUT/cut-client.err" &
cpid=$!
defer kill -9 $cpid
for _ in $(seq 100); do grep -q '"type":"interval"' "$VLAB_OUT/cut-client.out" && break; sleep 0.2; done
accept_local() { sysctl -qw net.ipv4.conf.all.accept_local=$1 "net.ipv4.conf.$VLAB_IF_A.accept_local=$1" "net.ipv4.conf.$VLAB_IF_B.accept_local=$1"; }
defer accept_local 1
stall_start
t0=$(now_ms)
accept_local 0
sx='' cx=''
for _ in $(seq 200); do
	[ -z "$sx" ] && ! kill -0 $spid 2>/dev/null && sx=$(( $(now_ms) - t0 ))
	[ -z "$cx" ] && ! kill -0 $cpid 2>/dev/null && cx=$(( $(now_ms) - t0 ))
	[ -n "$sx" ] && [ -n "$cx" ] && break
	sleep 0.05
done
stall=$(stall_ms)
wait $cpid; crc=$?
wait $spid; src=$?
accept_local 1
echo "server exit at ${sx} ms, client exit at ${cx} ms, the guest stood still ${stall} ms" | tee "$VLAB_OUT/cut-times.txt"
sx=${sx:-99999} cx=${cx:-99999}
last=$(( sx > cx ? sx : cx ))
# 2 s, plus the time the guest stood still meanwhile (measured beside it: a busy host
# stops a TCG guest for 0.3-0.6 s at a time, the QPs' retry timers with it)
if [ $crc -ne 0 ] && [ $src -ne 0 ] && [ $last -le $((2000 + stall)) ] &&
	grep -q 'retry counter exceeded\|gave up\|exited or was killed' "$VLAB_OUT/cut-client.err" &&
	grep -q 'retry counter exceeded\|gave up\|exited or was killed' "$VLAB_OUT/cut-server.err"; then
	ok "path cut: both sides exit non-zero within $last ms (limit 2 s + ${stall} ms stood still): $(tail -n 1 "$VLAB_OUT/cut-server.err")"
else
	fail "path cut: both sides exit within 2 s" "rc $src/$crc; $(cat "$VLAB_OUT/cut-times.txt"); $(errs cut)"
fi
finish
