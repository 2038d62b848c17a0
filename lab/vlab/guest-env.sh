# SPDX-License-Identifier: GPL-2.0-or-later
# guest-env.sh: the environment every vlab guest script sees, and vlab_impair.
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
