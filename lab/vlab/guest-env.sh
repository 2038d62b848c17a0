# SPDX-License-Identifier: GPL-2.0-or-later
# guest-env.sh: the environment every vlab guest script sees, vlab_impair and
# vlab_lossless.
# Sourced by the guest init and by tests/lib.sh when VLAB=1.
#
# One VM:   VLAB_DEV_A=rxe0 on VLAB_IF_A=va (VLAB_IP_A), VLAB_DEV_B=rxe1 on
#           VLAB_IF_B=vb (VLAB_IP_B), a veth pair in the init namespace.
# Two VMs:  each VM has VLAB_DEV=rxe0 on eth0; VLAB_ROLE=a|b, VLAB_IP, VLAB_PEER_IP.
# Both:     VLAB_GID (RoCEv2 IPv4 GID index of rxe0), VLAB_OUT (files to bring back);
#           PFCLAB=/pfclab/pfclab, also in PATH as /usr/local/bin/pfclab (the guest init
#           sets PATH); PFCLAB_ROOT=/pfclab, the repository's tests, lab, scripts, bench.

export VLAB=1 VLAB_TOPO=${VLAB_TOPO:-one} VLAB_ROLE=${VLAB_ROLE:-a}
export PFCLAB_ROOT=/pfclab PFCLAB=/pfclab/pfclab
if [ "${VLAB_TOPO:-one}" = one ]; then
	export VLAB_DEV_A=rxe0 VLAB_DEV_B=rxe1 VLAB_IF_A=va VLAB_IF_B=vb
	export VLAB_IP_A=10.77.0.1 VLAB_IP_B=10.77.0.2
	VLAB_LINKS="va vb"
else
	export VLAB_DEV=rxe0 VLAB_DEV_A=rxe0 VLAB_IF_A=eth0 VLAB_IF=eth0
	export VLAB_IP_A=10.77.1.1 VLAB_IP_B=10.77.1.2
	if [ "${VLAB_ROLE:-a}" = a ]; then
		export VLAB_IP=$VLAB_IP_A VLAB_PEER_IP=$VLAB_IP_B
	else
		export VLAB_IP=$VLAB_IP_B VLAB_PEER_IP=$VLAB_IP_A
	fi
	VLAB_LINKS="eth0"
fi

# vlab_gid_index DEV IPV4: index of the RoCEv2 GID that maps IPV4 (or nothing).
vlab_gid_index() {
	local dev=$1 ip=$2 g idx want a b c d
	IFS=. read -r a b c d <<<"$ip"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	for g in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
		idx=${g##*/}
		[ "$(cat "$g" 2>/dev/null)" = "$want" ] || continue
		[ "$(cat /sys/class/infiniband/"$dev"/ports/1/gid_attrs/types/"$idx" 2>/dev/null)" = "RoCE v2" ] || continue
		echo "$idx"
		return 0
	done
	return 1
}

# vlab_write_bw PREFIX TO [ib_write_bw options...]: perftest between the two rxe devices
# of the one-VM topology, the server on side TO (a: rxe0, b: rxe1) and the client on the
# other side writing into it, both with the options given. The client is started again
# while the server is not listening yet (only then). Output in PREFIX-server.txt and
# PREFIX-client.txt; the status is 0 when both sides exited 0.
vlab_write_bw() {
	local out=$1 to=$2 sdev sip cdev cip i spid crc=1 src
	shift 2
	if [ "$to" = a ]; then
		sdev=$VLAB_DEV_A sip=$VLAB_IP_A cdev=$VLAB_DEV_B cip=$VLAB_IP_B
	else
		sdev=$VLAB_DEV_B sip=$VLAB_IP_B cdev=$VLAB_DEV_A cip=$VLAB_IP_A
	fi
	ib_write_bw -d "$sdev" -x "$(vlab_gid_index "$sdev" "$sip")" "$@" >"$out-server.txt" 2>&1 &
	spid=$!
	for i in $(seq 20); do
		sleep 0.5
		ib_write_bw -d "$cdev" -x "$(vlab_gid_index "$cdev" "$cip")" "$@" "$sip" \
			>"$out-client.txt" 2>&1
		crc=$?
		[ $crc -eq 0 ] && break
		grep -q 'Unable to init the socket\|Couldn.t connect' "$out-client.txt" || break
	done
	wait $spid
	src=$?
	[ $src -eq 0 ] && [ $crc -eq 0 ]
}

# vlab_impair on [RATE] | off: htb rate limit with RED+ECN under it on each test link's
# egress, so RoCEv2 sent with ECT (traffic class 2) collects CE marks as the queue builds.
vlab_impair() {
	local mode=${1:-on} rate=${2:-100mbit} l
	for l in $VLAB_LINKS; do
		tc qdisc del dev "$l" root 2>/dev/null
		[ "$mode" = off ] && continue
		tc qdisc add dev "$l" root handle 1: htb default 1 &&
		tc class add dev "$l" parent 1: classid 1:1 htb rate "$rate" ceil "$rate" &&
		tc qdisc add dev "$l" parent 1:1 handle 10: red limit 4000000 min 30000 \
			max 90000 avpkt 1000 burst 55 probability 0.5 bandwidth "$rate" ecn ||
			return 1
	done
}

# vlab_lossless on [RATE] | drain RATE | off: the datapath of the emulated lossless link
# (`pfclab link`, lab/link/) on both ends of the one-VM veth pair. Per end L (va, vb):
#   L root:    htb 9: whose class 9:1 is the wire at $VLAB_LOSSLESS_SPEED (100mbit; give
#              pfclab link the same --speed), under it prio 1: with 8 bands (skb priority
#              p -> band 1:(p+1)), a plug (1p): under each band (released: the link flows
#              until pfclab link pauses it), RoCEv2 (UDP 4791) to the other end's
#              address sent to the band of priority $VLAB_LOSSLESS_PRIO (3); other
#              frames go by their skb priority (0: band 1:1, priority 0)
#   L ingress: RoCEv2 to L's own address redirected to the ifb lbL, whose htb 1:1
#              drains at RATE (default 10gbit: unconstrained) into bfifo 2: of
#              $VLAB_LOSSLESS_BUFFER bytes (256K)
# Other traffic on the link is priority 0 and never enters the buffer: e.g.
# `pfclab inject -i va --via-qdisc roce --dst-ip 10.77.0.99 -r 500` (an address of no end)
# keeps flowing while priority 3 is paused.
# `drain RATE` changes the drain rate (0: stopped, a pause storm); `off` removes it all.
# Both htb classes get a 16 KB burst: under QEMU TCG their timers fire late, and a
# smaller bucket loses the tokens of the late time (the drain fell ~12% short of RATE).
# For DCQCN (pfclab link --dcqcn):
#   VLAB_LOSSLESS_ECN=K   the buffer is RED 2: instead of bfifo 2: (same limit), marking
#              ECN-capable packets CE once the fill passes K bytes (min K, max K + 3000,
#              probability 1, an average that follows the fill within a few packets)
#   VLAB_LOSSLESS_DCQCN=1 the wire 9:1 is an inner class and the bands' prio 1: sits
#              under its leaf 9:2, so that pfclab link can add a class per QP beside it
# Then: pfclab link [options] va vb (see pfclab link --help).
# vlab_settle: wait (up to 5 s) until no packet is left in the one-VM lab's qdiscs and
# lossless buffers (the next run's QPs get the same numbers, and a stale packet of a
# destroyed QP arriving at its namesake breaks it); says so and fails when some stay.
vlab_settle() {
	local d n
	for _ in $(seq 50); do
		n=0
		for d in "$VLAB_IF_A" "$VLAB_IF_B" "lb$VLAB_IF_A" "lb$VLAB_IF_B"; do
			n=$((n + $(tc -s qdisc show dev "$d" | awk '/backlog/ { s += $3 + 0 } END { print s + 0 }')))
		done
		[ "$n" = 0 ] && return 0
		sleep 0.1
	done
	echo "# $n packets still queued after 5 s"
	return 1
}

vlab_lossless() {
	local mode=${1:-on} rate=${2:-10gbit} l p
	local prio=${VLAB_LOSSLESS_PRIO:-3} buf=${VLAB_LOSSLESS_BUFFER:-262144}
	local speed=${VLAB_LOSSLESS_SPEED:-100mbit} ecn=${VLAB_LOSSLESS_ECN:-} bands=9:1
	local u32='u32 match ip protocol 17 0xff match ip dport 4791 0xffff' own peer
	[ "$rate" = 0 ] && rate=8bit
	for l in $VLAB_IF_A $VLAB_IF_B; do
		if [ "$l" = "$VLAB_IF_A" ]; then own=$VLAB_IP_A peer=$VLAB_IP_B
		else own=$VLAB_IP_B peer=$VLAB_IP_A; fi
		case $mode in
		drain)
			tc class change dev "lb$l" parent 1: classid 1:1 htb rate "$rate" \
				ceil "$rate" burst 16k cburst 16k || return 1
			continue ;;
		on|off) ;;
		*) echo "vlab_lossless: on [RATE] | drain RATE | off" >&2; return 2 ;;
		esac
		tc qdisc del dev "$l" root 2>/dev/null
		tc qdisc del dev "$l" ingress 2>/dev/null
		ip link del "lb$l" 2>/dev/null
		[ "$mode" = off ] && continue
		ip link add "lb$l" type ifb && ip link set "lb$l" up &&
		tc qdisc add dev "lb$l" root handle 1: htb default 1 &&
		tc class add dev "lb$l" parent 1: classid 1:1 htb rate "$rate" ceil "$rate" \
			burst 16k cburst 16k &&
		if [ -n "$ecn" ]; then
			tc qdisc add dev "lb$l" parent 1:1 handle 2: red limit "$buf" min "$ecn" \
				max $((ecn + 3000)) avpkt 1000 burst $((ecn / 1000 + 1)) \
				probability 1.0 bandwidth "$speed" ecn || return 1
		else
			tc qdisc add dev "lb$l" parent 1:1 handle 2: bfifo limit "$buf" || return 1
		fi
		if [ "${VLAB_LOSSLESS_DCQCN:-0}" = 1 ]; then
			tc qdisc add dev "$l" root handle 9: htb default 2 &&
			tc class add dev "$l" parent 9: classid 9:1 htb rate "$speed" \
				ceil "$speed" burst 16k cburst 16k &&
			tc class add dev "$l" parent 9:1 classid 9:2 htb rate "$speed" \
				ceil "$speed" burst 16k cburst 16k || return 1
			bands=9:2
		else
			tc qdisc add dev "$l" root handle 9: htb default 1 &&
			tc class add dev "$l" parent 9: classid 9:1 htb rate "$speed" \
				ceil "$speed" burst 16k cburst 16k || return 1
		fi
		tc qdisc add dev "$l" parent $bands handle 1: prio bands 8 \
			priomap 0 1 2 3 4 5 6 7 0 0 0 0 0 0 0 0 || return 1
		for p in 0 1 2 3 4 5 6 7; do
			tc qdisc add dev "$l" parent "1:$((p + 1))" handle "1$p:" plug limit 16000000 &&
			tc qdisc change dev "$l" parent "1:$((p + 1))" handle "1$p:" plug \
				release_indefinite || return 1
		done
		tc filter add dev "$l" parent 1: protocol ip prio 1 $u32 match ip dst "$peer/32" \
			flowid "1:$((prio + 1))" &&
		tc qdisc add dev "$l" handle ffff: ingress &&
		tc filter add dev "$l" parent ffff: protocol ip prio 1 $u32 match ip dst "$own/32" \
			action mirred egress redirect dev "lb$l" || return 1
	done
}
