#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# guest-init.sh: PID 1 of a vlab guest. Mounts the basics, loads the RDMA modules, builds
# the RoCE topology, runs every script in /vlab/scripts, writes results and files to the
# raw results disk (/dev/vda, a tar archive the host unpacks) and powers off.
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb LANG=C
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o size=600m tmpfs /out

poweroff_now() {
	sync
	echo o >/proc/sysrq-trigger
	sleep 5
	exit 1
}

source /vlab/config
source /vlab/guest-env.sh
hostname "vlab-$VLAB_ROLE"
echo 0 >/proc/sys/kernel/printk 2>/dev/null

for m in crc32_generic crc32_pclmul virtio_pci virtio_blk virtio_net veth rdma_rxe ib_uverbs sch_htb sch_red \
	sch_prio sch_plug sch_ingress cls_u32 act_mirred; do
	modprobe -q "$m" 2>/dev/null
done
for k in all default; do
	sysctl -qw net.ipv4.conf.$k.accept_local=1 net.ipv4.conf.$k.rp_filter=0
done
ip link set lo up

setup_one() {
	ip link add va type veth peer name vb || return 1
	ip addr add "$VLAB_IP_A/24" dev va && ip addr add "$VLAB_IP_B/24" dev vb || return 1
	sysctl -qw net.ipv4.conf.va.accept_local=1 net.ipv4.conf.vb.accept_local=1 \
		net.ipv4.conf.va.rp_filter=0 net.ipv4.conf.vb.rp_filter=0
	ip link set va up && ip link set vb up || return 1
	rdma link add rxe0 type rxe netdev va && rdma link add rxe1 type rxe netdev vb
}

# start_sshd: the SSH way in of `vlab up`: the user-networking NIC (found by its MAC) gets
# QEMU's guest address, sshd listens there.
start_sshd() {
	local d n=
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$VLAB_SSH_MAC" ] && n=${d##*/}
	done
	[ -n "$n" ] || return 1
	ip link set "$n" up && ip addr add 10.0.2.15/24 dev "$n" || return 1
	mkdir -p /run/sshd && chmod 755 /run/sshd
	/usr/sbin/sshd -f /vlab/ssh/sshd_config -E /out/sshd.log
}

setup_two() {
	ip link set eth0 up && ip addr add "$VLAB_IP/24" dev eth0 || return 1
	sysctl -qw net.ipv4.conf.eth0.accept_local=1 net.ipv4.conf.eth0.rp_filter=0
	rdma link add rxe0 type rxe netdev eth0
}

status=0
: >/out/results.txt
if [ "$VLAB_TOPO" = one ]; then setup_one; else setup_two; fi
if [ $? -ne 0 ]; then
	echo "FAIL vlab-setup: could not build the $VLAB_TOPO topology" | tee -a /out/results.txt
	status=1
fi
# wait for the IPv4 GIDs to appear (address events reach rxe asynchronously)
for _ in $(seq 50); do
	VLAB_GID=$(vlab_gid_index rxe0 "${VLAB_IP:-$VLAB_IP_A}") && break
	sleep 0.1
done
export VLAB_GID
[ -n "$VLAB_IMPAIR" ] && vlab_impair on "$VLAB_IMPAIR"
if [ "${VLAB_SSH:-0}" = 1 ] && ! start_sshd; then
	echo "FAIL vlab-ssh: sshd did not start: $(tail -n 3 /out/sshd.log 2>/dev/null | tr '\n' ' ')" | tee -a /out/results.txt
	status=1
fi
{ uname -r; rdma link show; ip -br addr; } >/out/setup.txt 2>&1
echo "VLAB-READY role=$VLAB_ROLE topo=$VLAB_TOPO gid=$VLAB_GID"

cd /pfclab || exit 1
for s in /vlab/scripts/*; do
	[ -e "$s" ] || continue
	name=$(basename "$s" .sh)
	name=${name#[0-9][0-9]-}
	export VLAB_OUT=/out/$name
	mkdir -p "$VLAB_OUT"
	echo "VLAB-BEGIN $name"
	timeout -k 5 "$VLAB_SCRIPT_TIMEOUT" bash "$s" >"$VLAB_OUT/log.txt" 2>&1 </dev/null
	rc=$?
	echo $rc >"$VLAB_OUT/rc"
	cat "$VLAB_OUT/log.txt"
	grep -E '^(OK|FAIL|SKIP) ' "$VLAB_OUT/log.txt" >>/out/results.txt
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "FAIL $name: timed out after ${VLAB_SCRIPT_TIMEOUT}s" | tee -a /out/results.txt
	elif [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$VLAB_OUT/log.txt"; then
		echo "FAIL $name: exit status $rc" | tee -a /out/results.txt
	fi
	[ $rc -eq 0 ] || status=1
	echo "VLAB-END $name rc=$rc"
	# leave no test's processes behind for the next one
	pkill -KILL -P $$ 2>/dev/null
	vlab_impair off 2>/dev/null
	[ -n "$VLAB_IMPAIR" ] && vlab_impair on "$VLAB_IMPAIR"
done
if [ "${VLAB_SSH:-0}" = 1 ]; then
	# `vlab up`: stay up for SSH until the host stops QEMU.
	echo "VLAB-UP status=$status"
	while :; do sleep 3600; done
fi
echo $status >/out/status
dmesg >/out/dmesg.txt 2>/dev/null
tar -cf /dev/vda -C /out . 2>/dev/null || echo "vlab: results larger than the results disk"
echo "VLAB-DONE status=$status"
poweroff_now
