#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_traffic_opts.sh (vlab guest): pfclab traffic options, each with its effect checked:
# -a (the whole size sweep), --dscp/-S (DSCP in every captured packet, SL on both sides),
# -d with a device that is not there, -i, --bind, --numa, --hugepages (2 MiB pages when
# the guest has them, plain pages when not), --quiet, --rx-depth (the receive CQ's size),
# --rate-mode, and --retry (with --qp-timeout 14) against a peer whose path vanishes.
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 13

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
hw() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

# 1. -a: 23 sizes, 2 B .. 8 MiB, each with exactly its bytes, on both sides; -i 1 named
pair sweep 19000 -a -n 3 -i 1
want=$(for i in $(seq 1 23); do printf '[%d,%d]' $((1 << i)) $((3 << i)); done)
got=$(sums "$VLAB_OUT/sweep-client.out" | jq -c '[.size, .tx.bytes]' | tr -d '\n')
gotr=$(sums "$VLAB_OUT/sweep-server.out" | jq -c '[.size, .rx.bytes]' | tr -d '\n')
if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$got" = "$want" ] && [ "$gotr" = "$want" ]; then
	ok "-a -n 3: 23 summaries, 2 B .. 8 MiB, 3 messages of each size sent and received"
else
	fail "-a -n 3: the size sweep" "rc $src/$crc got $(echo "$got" | head -c 120) rx $(echo "$gotr" | head -c 120) $(errs sweep)"
fi

# 2. --dscp 26 -S 3: every RoCEv2 packet carries DSCP 26 (tos 0x68) and both sides run
#    at SL 3 (rxe has no VLAN priority to carry the SL onto this untagged link)
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
# 50 x 4 KiB one way is at least 50 packets (more with an MTU under 4096)
if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$all" -ge 50 ] && [ "$n68" = "$all" ] && [ "$mark" = "104 3 104 3" ]; then
	ok "--dscp 26 -S 3: all $all captured RoCEv2 packets carry DSCP 26; tclass 104, SL 3 on both sides"
else
	fail "--dscp 26 -S 3" "rc $src/$crc tos 0x68 in $n68 of $all; tclass/sl '$mark' $(errs dscp)"
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
#    CQ up to 2^k - 1): -q 2 --rx-depth 100 gives 255, the default 512 gives 2047
rxcq() { # TAG PORT RXDEPTH-ARGS...: the CQ sizes of rxe0 while the run goes on
	local tag=$1 port=$2 spid cpid
	shift 2
	"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -p "$port" --wait 60s --json --imm -q 2 -s 4K -D 4 "$@" \
		>"$VLAB_OUT/$tag-server.out" 2>"$VLAB_OUT/$tag-server.err" &
	spid=$!
	"$PFCLAB" traffic -d "$VLAB_DEV_B" -p "$port" --json --imm -q 2 -s 4K -D 4 "$VLAB_IP_A" \
		>"$VLAB_OUT/$tag-client.out" 2>"$VLAB_OUT/$tag-client.err" &
	cpid=$!
	for _ in $(seq 100); do grep -q '"type":"interval"' "$VLAB_OUT/$tag-server.out" && break; sleep 0.1; done
	rdma resource show cq dev "$VLAB_DEV_A" >"$VLAB_OUT/$tag-cq.txt" 2>&1
	wait $cpid; crc=$?
	wait $spid; src=$?
	cqes=$(grep -o 'cqe [0-9]*' "$VLAB_OUT/$tag-cq.txt" | awk '{ print $2 }' | sort -n | tr '\n' ' ')
}
rxcq rxd 19007 --rx-depth 100
small=$cqes
rxcq rxdef 19008
def=$cqes
rxs=$(sums "$VLAB_OUT/rxd-server.out" | jq '.rx.completions')
if [ $crc -eq 0 ] && [ $src -eq 0 ] && echo " $small" | grep -q ' 255 ' && ! echo " $small" | grep -q ' 2047 ' &&
	echo " $def" | grep -q ' 2047 ' && [ "${rxs:-0}" -gt 0 ]; then
	ok "--rx-depth 100 -q 2 --imm: receive CQ of 255 entries (2047 by default), $rxs receive completions"
else
	fail "--rx-depth 100" "rc $src/$crc CQs with --rx-depth 100: '$small', default: '$def', rx completions $rxs"
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

# 9. --qp-timeout / --retry: the path to the peer vanishes (both veth ends stop accepting
#    packets from a local address) while the exchange connection on lo stays up, so only
#    the QP's own timeout and retries can notice
accept_local() { sysctl -qw net.ipv4.conf.all.accept_local=$1 "net.ipv4.conf.$VLAB_IF_A.accept_local=$1" "net.ipv4.conf.$VLAB_IF_B.accept_local=$1"; }
defer accept_local 1
# cut TAG PORT ARGS...: one-way run, cut the path once it runs, wait up to 3 s for the
# client; sets alive (1 when the client still runs), crc, and retries (rxe1's timeouts)
cut() {
	local tag=$1 port=$2 spid cpid r0
	shift 2
	"$PFCLAB" traffic -d "$VLAB_DEV_A" -x "$VLAB_GID" -p "$port" --wait 60s --json -s 64K -D 60 "$@" \
		>"$VLAB_OUT/$tag-server.out" 2>"$VLAB_OUT/$tag-server.err" &
	spid=$!
	"$PFCLAB" traffic -d "$VLAB_DEV_B" -p "$port" --json -s 64K -D 60 "$@" "$VLAB_IP_A" \
		>"$VLAB_OUT/$tag-client.out" 2>"$VLAB_OUT/$tag-client.err" &
	cpid=$!
	for _ in $(seq 100); do grep -q '"type":"interval"' "$VLAB_OUT/$tag-client.out" && break; sleep 0.1; done
	r0=$(hw "$VLAB_DEV_B" completer_retry_err)
	accept_local 0
	alive=1
	for _ in $(seq 30); do kill -0 $cpid 2>/dev/null || { alive=0; break; }; sleep 0.1; done
	retries=$(( $(hw "$VLAB_DEV_B" completer_retry_err) - r0 ))
	kill -INT $cpid $spid 2>/dev/null
	wait $cpid; crc=$?
	wait $spid
	accept_local 1
	sleep 0.5
}
cut qpt1 19011 --qp-timeout 14 --retry 1
a_alive=$alive a_rc=$crc a_retries=$retries
cut qpt5 19012 --qp-timeout 14 --retry 5
b_alive=$alive b_rc=$crc b_retries=$retries
echo "retry 1: alive $a_alive rc $a_rc timeouts $a_retries; retry 5: alive $b_alive rc $b_rc timeouts $b_retries" |
	tee "$VLAB_OUT/retry.txt"
# 4.096 us * 2^14 = 67 ms per try: both give up well within the 3 s, after exactly as
# many timeouts (rxe's completer_retry_err) as --retry allows
if [ $a_alive = 0 ] && [ $b_alive = 0 ] && [ $a_rc -eq 1 ] && [ $b_rc -eq 1 ] &&
	[ "$a_retries" = 1 ] && [ "$b_retries" = 5 ] && grep -q 'retry counter exceeded' "$VLAB_OUT/qpt1-client.err"; then
	ok "--retry 1 / 5: the path vanishes, exit 1 'retry counter exceeded' after 1 / 5 timeouts"
else
	fail "--retry 1 / 5 against a vanished path" "$(cat "$VLAB_OUT/retry.txt"): $(head -n 1 "$VLAB_OUT/qpt1-client.err")"
fi
finish
