#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_traffic_opts.sh (vlab guest): pfclab traffic options, each with its effect checked:
# -a (the whole size sweep), --dscp/-S (DSCP in every captured packet, traffic class and
# SL as both devices report them), -d with a device that is not there, -i, --bind, --numa,
# --hugepages (2 MiB pages when the guest has them, plain pages when not), --quiet,
# --rx-depth (the receive CQ's size), --rate-mode, --poll (the CPU the client's loop
# spends), and --retry / --qp-timeout (14 and 19) against a peer whose path vanishes.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 15

need_cmd traffic-opts jq tcpdump rdma || finish
[ -x "$PFCLAB" ] || { fail traffic-opts "no pfclab binary at $PFCLAB"; finish; }

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
start() { jq -r "select(.type == \"start\") | $2" "$1"; }
errs() { cat "$VLAB_OUT/$1"-*.err | tr '\n' ' ' | head -c 300; }

# 1. -a: 23 sizes, 2 B .. 8 MiB, each with exactly its bytes, on both sides; -i 1 named.
#    --retry 7 (Soft-RoCE: without end): in this 2-CPU guest a QP's packets can arrive out
#    of order (see 10. below), each NAK costs one retry of the message in flight, and rxe
#    resets the count only when a message completes; in one CI run the default 6 ran out
#    at 8 MiB and the run ended with "transport retry counter exceeded", the peer fine.
#    What this case checks is the sweep, not the retry count (9. checks that).
pair sweep 19000 -a -n 3 -i 1 --retry 7
want=$(for i in $(seq 1 23); do printf '[%d,%d]' $((1 << i)) $((3 << i)); done)
got=$(sums "$VLAB_OUT/sweep-client.out" | jq -c '[.size, .tx.bytes]' | tr -d '\n')
gotr=$(sums "$VLAB_OUT/sweep-server.out" | jq -c '[.size, .rx.bytes]' | tr -d '\n')
if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$got" = "$want" ] && [ "$gotr" = "$want" ]; then
	ok "-a -n 3: 23 summaries, 2 B .. 8 MiB, 3 messages of each size sent and received"
else
	fail "-a -n 3: the size sweep" "rc $src/$crc got $(echo "$got" | head -c 120) rx $(echo "$gotr" | head -c 120) $(errs sweep)"
fi

# 2. --dscp 26 -S 3: every RoCEv2 packet carries DSCP 26 (tos 0x68), and the QPs on both
#    sides hold traffic class 104 as the device reports it back (ibv_query_qp, IBV_QP_AV,
#    in the start line): an oracle independent of the options. The SL cannot be seen on
#    this lab at all, on the wire or in the device:
#    - rxe keeps no SL: rxe_av (rxe_av.c, rxe_av_from_attr) takes only the GRH fields and
#      the port from the address vector, and rxe_av_to_attr gives back none, so
#      ibv_query_qp answers SL 0 whatever -S was, and pfclab says so on stderr;
#    - rxe never sets skb->priority (rxe_init_packet allocates the skb and rxe_send hands it
#      to ip_local_out; nothing in rxe_net.c gives it a priority), so no VLAN PCP can carry
#      the SL either: over a VLAN on va/vb with egress-qos-map 0:5 3:3, -S 3 (and perftest
#      --sl 3) put PCP 5, priority 0's mapping, on all 1400 packets. (rxe refuses a VLAN
#      device itself, 'rdma link add' answers EPERM; its GID table lists the VLAN's
#      address.) On a NIC that keeps the SL (mlx5) the start line shows -S here.
tcpdump -Z root -i "$VLAB_IF_B" -s 64 --immediate-mode -w "$VLAB_OUT/dscp.pcap" -U 'udp dst port 4791' \
	>"$VLAB_OUT/tcpdump.txt" 2>&1 &
tdpid=$!
sleep 1
pair dscp 19001 -n 50 -s 4K --dscp 26 -S 3
sleep 1
kill -INT $tdpid; wait $tdpid
n68=$(tcpdump -r "$VLAB_OUT/dscp.pcap" -nn -v 2>/dev/null | grep -c 'tos 0x68')
all=$(tcpdump -r "$VLAB_OUT/dscp.pcap" -nn 2>/dev/null | wc -l)
mark="$(start "$VLAB_OUT/dscp-server.out" '"\(.tclass) \(.sl)"') $(start "$VLAB_OUT/dscp-client.out" '"\(.tclass) \(.sl)"')"
nosl=$(cat "$VLAB_OUT"/dscp-*.err | grep -c "reports SL 0 for its QPs, not the 3 asked for")
# 50 x 4 KiB one way is at least 50 packets (more with an MTU under 4096)
if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$all" -ge 50 ] && [ "$n68" = "$all" ] && [ "$mark" = "104 0 104 0" ] &&
	[ "$nosl" = 2 ]; then
	ok "--dscp 26 -S 3: all $all captured RoCEv2 packets carry DSCP 26; both QPs report tclass 104 and (rxe keeps no SL) SL 0, said on both sides"
else
	fail "--dscp 26 -S 3" "rc $src/$crc tos 0x68 in $n68 of $all; reported tclass/sl '$mark' (want '104 0 104 0'); SL warnings $nosl of 2 $(errs dscp)"
fi

# 3. a device or port that is not there: exit 1, one line naming it
out=$("$PFCLAB" traffic -d nosuchdev0 -n 1 2>&1); rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q nosuchdev0 <<<"$out"; then
	ok "-d nosuchdev0 beside rxe0/rxe1: exit 1 naming it: $out"
else
	fail "-d nosuchdev0: exit 1 naming it" "rc $rc: $out"
fi
out=$("$PFCLAB" traffic -d "$VLAB_DEV_A" -i 2 -n 1 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q 'port 2' <<<"$out"; then ok "-i 2 on a one-port device: exit 1 naming port 2"
else fail "-i 2: exit 1 naming the port" "rc $rc: $out"; fi

# 4. --bind: a server bound to 10.77.0.1 serves a client there and is not reachable on lo
"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -p 19002 --bind "$VLAB_IP_A" --wait 30s -n 10 -s 4K \
	>"$VLAB_OUT/bind-server.out" 2>"$VLAB_OUT/bind-server.err" &
spid=$!
sleep 1
"$PFCLAB" traffic -d "$VLAB_DEV_B" -p 19002 -n 10 -s 4K --timeout 2s 127.0.0.1 \
	>"$VLAB_OUT/bind-lo.out" 2>"$VLAB_OUT/bind-lo.err"
lrc=$?
"$PFCLAB" traffic -d "$VLAB_DEV_B" -p 19002 -n 10 -s 4K "$VLAB_IP_A" \
	>"$VLAB_OUT/bind-client.out" 2>"$VLAB_OUT/bind-client.err"
crc=$?
wait $spid; src=$?
if [ $lrc -eq 1 ] && [ $crc -eq 0 ] && [ $src -eq 0 ]; then
	ok "--bind $VLAB_IP_A: a client on 127.0.0.1 is refused, one on $VLAB_IP_A is served"
else
	fail "--bind" "lo client $lrc, client $crc, server $src: $(cat "$VLAB_OUT"/bind-*.err | tr '\n' ' ' | head -c 300)"
fi

# 5. --numa 0 (the guest's one node) and --hugepages with and without 2 MiB pages
pair numa 19003 -n 20 -s 64K --numa 0
d=$(start "$VLAB_OUT/numa-client.out" .mem_desc)
if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$d" = "host, NUMA node 0" ]; then ok "--numa 0: memory bound to node 0 ($d)"
else fail "--numa 0" "rc $src/$crc mem '$d' $(errs numa)"; fi
echo 0 >/proc/sys/vm/nr_hugepages
pair nohuge 19004 -n 20 -s 64K --hugepages
d=$(start "$VLAB_OUT/nohuge-client.out" .mem_desc)
if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$d" = host ]; then ok "--hugepages without 2 MiB pages: plain pages ($d)"
else fail "--hugepages without 2 MiB pages" "rc $src/$crc mem '$d' $(errs nohuge)"; fi
echo 64 >/proc/sys/vm/nr_hugepages
defer 'echo 0 >/proc/sys/vm/nr_hugepages'
have=$(awk '/HugePages_Total/ { print $2 }' /proc/meminfo)
if [ "${have:-0}" -lt 8 ]; then
	skip "--hugepages with 2 MiB pages" "the guest could reserve only ${have:-0} of 64 2 MiB pages"
else
	pair huge 19005 -n 20 -s 64K --hugepages
	d=$(start "$VLAB_OUT/huge-client.out" .mem_desc)
	b=$(sums "$VLAB_OUT/huge-client.out" | jq '.tx.bytes')
	if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$d" = "host, 2 MiB pages" ] && [ "$b" = $((20 * 65536)) ]; then
		ok "--hugepages with $have 2 MiB pages reserved: buffers on them ($d), $b bytes"
	else
		fail "--hugepages with 2 MiB pages" "rc $src/$crc mem '$d' bytes $b $(errs huge)"
	fi
fi

# 6. --quiet: the summary only
pair quiet 19006 -D 3 --interval 500ms -s 4K --quiet
ni=$(jq -s '[.[] | select(.type == "interval")] | length' "$VLAB_OUT/quiet-client.out")
ns=$(jq -s '[.[] | select(.type == "summary")] | length' "$VLAB_OUT/quiet-client.out")
if [ $crc -eq 0 ] && [ "$ni" = 0 ] && [ "$ns" = 1 ]; then ok "--quiet -D 3 --interval 500ms: no interval rows, one summary"
else fail "--quiet" "rc $crc intervals $ni summaries $ns $(errs quiet)"; fi

# 7. --rx-depth: with --imm the receiver's CQ holds QPs x rx-depth entries (rxe rounds a
#    CQ up to 2^k - 1): -q 2 --rx-depth 100 gives 255, the default 512 gives 2047. -t 32
#    keeps the sends in flight under the receives posted (more would draw RNR NAKs).
rxcq() { # TAG PORT RXDEPTH-ARGS...: the CQ sizes of rxe0 while the run goes on
	local tag=$1 port=$2 spid cpid
	shift 2
	"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -p "$port" --wait 60s --json --imm -q 2 -t 32 -s 4K -D 4 "$@" \
		>"$VLAB_OUT/$tag-server.out" 2>"$VLAB_OUT/$tag-server.err" &
	spid=$!
	"$PFCLAB" traffic -d "$VLAB_DEV_B" -p "$port" --json --imm -q 2 -t 32 -s 4K -D 4 "$VLAB_IP_A" \
		>"$VLAB_OUT/$tag-client.out" 2>"$VLAB_OUT/$tag-client.err" &
	cpid=$!
	for _ in $(seq 100); do grep -q '"type":"interval"' "$VLAB_OUT/$tag-server.out" && break; sleep 0.1; done
	rdma resource show cq dev "$VLAB_DEV_A" >"$VLAB_OUT/$tag-cq.txt" 2>&1
	wait $cpid; crc=$?
	wait $spid; src=$?
	cqes=$(grep -o 'cqe [0-9]*' "$VLAB_OUT/$tag-cq.txt" | awk '{ print $2 }' | sort -n | tr '\n' ' ')
}
rxcq rxd 19007 --rx-depth 100
small=$cqes rc1="$src/$crc"
rxcq rxdef 19008
def=$cqes rc2="$src/$crc"
rxs=$(sums "$VLAB_OUT/rxd-server.out" | jq '.rx.completions')
if [ "$rc1" = 0/0 ] && [ "$rc2" = 0/0 ] && echo " $small" | grep -q ' 255 ' && ! echo " $small" | grep -q ' 2047 ' &&
	echo " $def" | grep -q ' 2047 ' && [ "${rxs:-0}" -gt 0 ]; then
	ok "--rx-depth 100 -q 2 --imm: receive CQ of 255 entries (2047 by default), $rxs receive completions"
else
	fail "--rx-depth 100" "rc $rc1 (default $rc2) CQs with --rx-depth 100: '$small', default: '$def', rx completions $rxs: $(errs rxd)"
fi

# 8. --rate-mode: rxe has no hardware rate limiter
pair rsw 19009 -s 4K -n 200 --rate 0.05 --rate-mode sw
how=$(start "$VLAB_OUT/rsw-client.out" .rate_limit)
if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$how" = "software pacing" ]; then ok "--rate-mode sw: software pacing"
else fail "--rate-mode sw" "rc $src/$crc '$how' $(errs rsw)"; fi
pair rhw 19010 -s 4K -n 200 --rate 0.05 --rate-mode hw
if [ $crc -ne 0 ] && grep -qi 'rate' "$VLAB_OUT/rhw-client.err"; then
	ok "--rate-mode hw on rxe: refused ($(head -n 1 "$VLAB_OUT/rhw-client.err"))"
else
	fail "--rate-mode hw on rxe is refused" "rc $src/$crc $(errs rhw)"
fi

# 10. --poll: one way, 1 MiB messages, 4 in flight for 3 s: the window is full most of the
#     time (rxe sends ~1 MiB in 25 ms here), so the client's loop has nothing to do
#     between completions. --poll spin polls the CQ all along (user CPU ~3.6 of 4 s when
#     measured); auto (the default) sleeps on the completion channel instead (0.08-0.10 s
#     of user CPU), and moves as much: the kernel's RoCE work, not the loop, sets the pace.
#     Bounds: spin at least 1.5 s of user CPU, auto at most a quarter of spin's, and at
#     least half its bytes (runs of the same tool differ by up to 1.4x here). The QP
#     timeout is 4 us * 2^18 = 1.07 s: with the default 67 ms, a guest held off its CPU
#     for 7 x 67 ms on a loaded host ended a run with "transport retry counter exceeded".
#     And --retry 7 (rxe retries without end): in a 2-CPU guest rxe's packets leave from
#     whichever CPU runs the sleeping loop's post or the completion work, the veth queues
#     them per CPU, and the responder sees them out of order and NAKs; each NAK costs a
#     retry, and an --poll auto run once used up its 6 in under a second with 0 bytes
#     moved (the --qp-timeout did not come into it).
pollrun() { # TAG PORT MODE: sets crc src user_ms bytes mode_seen
	local tag=$1 port=$2 t
	"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -p "$port" --wait 60s --json -s 1M -t 4 \
		-D 3 --qp-timeout 18 --retry 7 --poll "$3" >"$VLAB_OUT/$tag-server.out" 2>"$VLAB_OUT/$tag-server.err" &
	local spid=$!
	( "$PFCLAB" traffic -d "$VLAB_DEV_B" -p "$port" --json -s 1M -t 4 -D 3 --qp-timeout 18 --retry 7 --poll "$3" \
		"$VLAB_IP_A" >"$VLAB_OUT/$tag-client.out" 2>"$VLAB_OUT/$tag-client.err"
	  echo "rc $?"; times ) >"$VLAB_OUT/$tag-times.txt"
	wait $spid
	src=$?
	t=$VLAB_OUT/$tag-times.txt
	crc=$(awk '$1 == "rc" { print $2 }' "$t")
	# times: the shell's user and system CPU, then its children's ("0m3.636s 0m0.459s")
	user_ms=$(tail -n 1 "$t" | awk '{ n = split($1, a, /[ms]/); if (n >= 2) printf "%d", (a[1] * 60 + a[2]) * 1000 }')
	bytes=$(sums "$VLAB_OUT/$tag-client.out" | jq -r '.tx.bytes')
	mode_seen=$(start "$VLAB_OUT/$tag-client.out" .poll)
}
pollrun pspin 19014 spin
spin_rc=$crc/$src spin_ms=${user_ms:-0} spin_b=${bytes:-0} spin_mode=$mode_seen
pollrun pauto 19015 auto
auto_rc=$crc/$src auto_ms=${user_ms:-0} auto_b=${bytes:-0} auto_mode=$mode_seen
if [ "$spin_rc" = 0/0 ] && [ "$auto_rc" = 0/0 ] && [ "$spin_mode" = spin ] && [ "$auto_mode" = auto ] &&
	[ "$spin_ms" -ge 1500 ] && [ $((auto_ms * 4)) -le "$spin_ms" ] && [ "$spin_b" -gt 0 ] &&
	[ $((auto_b * 2)) -ge "$spin_b" ]; then
	ok "--poll: client user CPU $spin_ms ms spinning, $auto_ms ms with auto; bytes $spin_b / $auto_b"
else
	fail "--poll auto sleeps where spin spins, and moves as much" "rc $spin_rc / $auto_rc, mode '$spin_mode' / '$auto_mode', user CPU $spin_ms / $auto_ms ms, bytes $spin_b / $auto_b $(errs pauto)"
fi

# 9. --qp-timeout / --retry: the path to the peer vanishes (neither veth end accepts
#    packets from a local address any more) while the exchange connection on lo stays up,
#    so only the QP's own timeout and retries can notice.
#    The cut is one write: accept_local is on while either conf/all or the device's own
#    value is on (IN_DEV_ORCONF), so with va/vb at 0 and all at 1, 'all = 0' cuts both
#    directions at once; the retry counter is read just before it (bash builtins, no
#    process in between), so the timeouts counted are the cut's own.
#    How rxe times out (rxe_qp.c, rxe_req.c, rxe_comp.c; measured below):
#    - one timeout lasts qp_timeout_jiffies = nsecs_to_jiffies(4.096 us << N): with this
#      kernel's HZ 250, N 14 = 16 jiffies (64 ms) and N 19 = 536 jiffies (2.144 s); the
#      timer wheel fires a timer of 512 jiffies or more up to 64 jiffies (256 ms) late, so
#      an N 19 timeout lasts 2.144 .. 2.40 s (N 14: 64 .. 68 ms);
#    - the retransmit timer is armed when a packet goes out while it is idle (rxe_req.c)
#      and restarted only when the completer, done with the ACKs at hand, still sees
#      packets unacknowledged (rxe_comp.c, COMPST_EXIT), not by every ACK. So it can run
#      out while traffic flows (harmless: the next ACK gives the QP its retries back, but
#      with --retry 0 such a timeout ended a healthy run before any cut), and after the
#      cut the first timeout comes when the running one ends: with N 19 0.75 .. 2.48 s
#      after the cut (12 runs), not a whole 2.14 s after the last ACK. Only the timeouts
#      after it last a full one from their retransmission, so the QP gives up between
#      retry x T and (retry + 1) x T (+ the wheel's lateness) after the cut, often
#      sooner than the (retry + 1) x T one would expect;
#    - every timeout with packets outstanding counts one completer_retry_err and, while
#      --retry allows, retransmits; the one after that counts retry_exceeded_err and ends
#      the QP with "transport retry counter exceeded": --retry (rarely one more, see the
#      N 14 check) and 1 (with the cut made of three sysctl writes, spurious timeouts in
#      that window gave 2 for --retry 1, 6 and 8 for --retry 5).
#    Measured (cut -> exit of the client, 5 boots, 12 or 13 runs of each): N 14 --retry 1
#    93 .. 491 ms, --retry 5 359 .. 605 ms; N 19 --retry 1 3.11 .. 4.76 s, its first
#    timeout 2.22 .. 2.47 s before the exit.
acc=/proc/sys/net/ipv4/conf
echo 0 >"$acc/$VLAB_IF_A/accept_local"
echo 0 >"$acc/$VLAB_IF_B/accept_local"
echo 1 >"$acc/all/accept_local"
defer "echo 1 >$acc/all/accept_local; echo 1 >$acc/$VLAB_IF_A/accept_local; echo 1 >$acc/$VLAB_IF_B/accept_local"
ctr=/sys/class/infiniband/$VLAB_DEV_B/ports/1/hw_counters
usec() { echo "${EPOCHREALTIME/./}"; }
# cut TAG PORT ARGS...: one-way run, cut the path once it runs, wait up to 8 s for the
# client. Sets crc, exit_ms (cut -> client exit), first_ms (cut -> first timeout seen,
# polled every 20 ms; -1 if none), retries (completer_retry_err), exceeded
# (retry_exceeded_err), alive (1 when the client still ran after 8 s).
cut() {
	local tag=$1 port=$2 spid cpid r0 e0 t0 n tend
	shift 2
	rm -f "$VLAB_OUT/$tag.end" "$VLAB_OUT/$tag.pid"
	"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -p "$port" --wait 60s --json -s 64K -D 60 "$@" \
		>"$VLAB_OUT/$tag-server.out" 2>"$VLAB_OUT/$tag-server.err" &
	spid=$!
	# the client's exit status and the moment it ended, written by the shell waiting on it
	( "$PFCLAB" traffic -d "$VLAB_DEV_B" -p "$port" --json -s 64K -D 60 "$@" "$VLAB_IP_A" \
		>"$VLAB_OUT/$tag-client.out" 2>"$VLAB_OUT/$tag-client.err" &
	  echo $! >"$VLAB_OUT/$tag.pid"; wait $!; echo "$? $(usec)" >"$VLAB_OUT/$tag.end" ) &
	cpid=$!
	for _ in $(seq 100); do grep -q '"type":"interval"' "$VLAB_OUT/$tag-client.out" && break; sleep 0.1; done
	read -r e0 <"$ctr/retry_exceeded_err"
	stall_start	# before the cut: its start waits for the meter to be ready
	read -r r0 <"$ctr/completer_retry_err"; echo 0 >"$acc/all/accept_local"
	t0=$(usec)
	first_ms=-1 alive=1
	# up to 20 s: a hang check; the bounds below are the timing checks
	while [ $(($(usec) - t0)) -lt 20000000 ]; do
		[ -s "$VLAB_OUT/$tag.end" ] && { alive=0; break; }
		if [ $first_ms -lt 0 ]; then
			read -r n <"$ctr/completer_retry_err"
			[ "$n" != "$r0" ] && first_ms=$((($(usec) - t0) / 1000))
		fi
		sleep 0.02
	done
	stall=$(stall_ms)
	[ $alive = 1 ] && kill -INT "$(cat "$VLAB_OUT/$tag.pid")"
	kill -INT $spid 2>/dev/null
	wait $cpid
	wait $spid
	read -r crc tend <"$VLAB_OUT/$tag.end"
	exit_ms=$(((tend - t0) / 1000))
	read -r n <"$ctr/completer_retry_err"; retries=$((n - r0))
	read -r n <"$ctr/retry_exceeded_err"; exceeded=$((n - e0))
	echo "$tag $*: client exit $crc ${exit_ms} ms after the cut, first timeout at ${first_ms} ms, timeouts retried $retries, exceeded $exceeded, the guest stood still ${stall} ms" |
		tee -a "$VLAB_OUT/retry.txt"
	echo 1 >"$acc/all/accept_local"
	sleep 0.5
}
cut qpt1 19011 --qp-timeout 14 --retry 1
a_alive=$alive a_rc=$crc a_ms=$exit_ms a_retries=$retries a_exc=$exceeded a_first=$first_ms a_stall=$stall
cut qpt5 19012 --qp-timeout 14 --retry 5
b_alive=$alive b_rc=$crc b_ms=$exit_ms b_retries=$retries b_exc=$exceeded b_first=$first_ms b_stall=$stall
# N 14: the first timeout at most one timeout (68 ms) after the cut, then --retry more of
# 64 .. 68 ms each from their retransmissions, so the exit comes at least retry x 64 ms
# after the cut (--retry 1: 64 ms, 5: 320 ms) and at most (retry + 1) x 68 ms plus the
# way from the error completion to the process's end (TCG: up to a few hundred ms):
# within 2 s, the moment the N 19 client below must still be running.
# The timeouts retried are --retry, or one more where the first came soon after the cut,
# while ACKs of packets sent before it were still on their way back (a loaded guest can
# hold them that long): the next of those ACKs gives the QP its retries back
# (rxe_comp.c), as after a spurious timeout while traffic flows. Seen once: the first
# timeout seen 26 ms after the cut, --retry 1, 2 retried. (The polling here can lag by
# 100 ms in this guest, so the first timeout's time cannot tell that case apart.) The
# retries still have an end: 1 exceeded. N 19 below, a timeout of 2.1 s, is exact.
# Every upper bound (and the lower bound that rests on the polling) is widened by the time
# the guest stood still during that run (stall_ms, measured beside it): a busy host stops
# a TCG guest for 0.3-0.6 s at a time, and its timers and this polling with it.
retried_ok() { [ "$1" = "$2" ] || [ "$1" = $(($2 + 1)) ]; }	# RETRIES N
if [ $a_alive = 0 ] && [ $b_alive = 0 ] && [ "$a_rc" = 1 ] && [ "$b_rc" = 1 ] &&
	retried_ok "$a_retries" 1 && retried_ok "$b_retries" 5 &&
	[ "$a_exc" = 1 ] && [ "$b_exc" = 1 ] &&
	[ "$a_ms" -ge 64 ] && [ "$a_ms" -le $((2000 + a_stall)) ] && [ "$b_ms" -ge 320 ] && [ "$b_ms" -le $((2000 + b_stall)) ] &&
	grep -q 'retry counter exceeded' "$VLAB_OUT/qpt1-client.err" &&
	grep -q 'retry counter exceeded' "$VLAB_OUT/qpt5-client.err" &&
	grep -q 'on software RoCE with several CPUs, packets arriving out of order' "$VLAB_OUT/qpt1-client.err"; then
	ok "--qp-timeout 14 --retry 1 / 5: the path vanishes, exit 1 'retry counter exceeded' $a_ms / $b_ms ms after the cut, after $a_retries / $b_retries timeouts retried (first $a_first / $b_first ms after the cut) and 1 exceeded; the message names the reordering that can do the same on rxe"
else
	fail "--qp-timeout 14 --retry 1 / 5 against a vanished path" "$(head -n 2 "$VLAB_OUT/retry.txt" | tr '\n' ' ')$(head -n 1 "$VLAB_OUT/qpt1-client.err")"
fi
cut qpt19 19013 --qp-timeout 19 --retry 1
# N 19 (2.144 .. 2.40 s a timeout), --retry 1: the fatal timeout comes a full timeout
# after the retransmission that followed the first one, so the client still runs 2.0 s
# after the cut (where the N 14 client above was gone) and ends within 2 x 2.40 s plus
# 1.2 s for the way to the process's end; between the first timeout seen (polled every
# 20 ms) and the exit lies one whole timeout: at least 2.144 s less the polling's lag
# (2.0 s), at most 2.40 s plus the way out (3.4 s).
gap=$((exit_ms - first_ms))
if [ $alive = 0 ] && [ "$crc" = 1 ] && [ "$retries" = 1 ] && [ "$exceeded" = 1 ] &&
	[ "$exit_ms" -ge 2000 ] && [ "$exit_ms" -le $((6000 + stall)) ] && [ "$first_ms" -ge 0 ] &&
	[ "$gap" -ge $((2000 - stall)) ] && [ "$gap" -le $((3400 + stall)) ] &&
	grep -q 'retry counter exceeded' "$VLAB_OUT/qpt19-client.err"; then
	ok "--qp-timeout 19 --retry 1: still running 2 s after the cut, exit 1 'retry counter exceeded' after $exit_ms ms, $gap ms (one timeout) after the first of exactly 1 timeout retried and 1 exceeded"
else
	fail "--qp-timeout 19 --retry 1 against a vanished path" "$(tail -n 1 "$VLAB_OUT/retry.txt"); first-to-exit $gap ms: $(head -n 1 "$VLAB_OUT/qpt19-client.err")"
fi
finish
