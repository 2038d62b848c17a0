# SPDX-License-Identifier: GPL-2.0-or-later
# hosts.sh: a multi-host lab on one machine for the tests: fake hosts (a network namespace
# each, with its own hostname and sshd, on one bridge) and a local Slurm cluster (munge,
# slurmctld, one slurmd per namespace node). Source it after tests/lib.sh; every resource
# is released by the cleanups registered with defer.
#
#   fakehosts_up N          hosts h1..hN; sets FAKEHOSTS=(h1 .. hN), FAKEHOST_ADDR[hK],
#                           FAKEHOST_NS[hK], FAKEHOST_SSHD_PID[hK], FAKEHOST_IF[hK] (the
#                           host's veth inside its namespace), FAKEHOST_BIN[hK] (a folder
#                           first in PATH of that host's ssh sessions, holding `pfclab`, a
#                           script running $PFCLAB, which a test may replace) and SSH_CONFIG
#                           (an ssh_config with a Host entry per name); exports
#                           XDG_RUNTIME_DIR as a private folder, so ssh control sockets
#                           made under it (pfclab's own) go with the lab
#   fakehost_exec NAME CMD  run CMD in NAME's namespaces (network, hostname, mounts)
#   fakehost_pfclab_reset NAME   NAME's `pfclab` runs $PFCLAB again
#   fakehost_kill NAME      the host dies silently: its link goes down, then every process
#                           in its namespace is killed
#   slurm_up N              nodes n1..nN (a namespace each, own hostname and address),
#                           slurmctld in a namespace of its own, munged on a private
#                           socket; exports SLURM_CONF; sets SLURM_NODES=(n1 .. nN),
#                           SLURM_NODE_ADDR[nK], SLURM_NODE_NS[nK] (the node's veth is
#                           eth0 there)
#
# Every host shares this filesystem, so $PFCLAB is the same binary everywhere. The lab's
# /24 is 10.213.K.0/24 with K free on this machine when it was chosen (under a lock), so
# two test runs at once get two different subnets and bridges; the bridge's address
# (.254) is on this machine, so ssh, salloc and srun reach every node from here.

HOSTS_SSHD=/usr/sbin/sshd
declare -ga FAKEHOSTS=() SLURM_NODES=()
declare -gA FAKEHOST_ADDR=() FAKEHOST_NS=() FAKEHOST_SSHD_PID=() FAKEHOST_IF=() FAKEHOST_BIN=()
declare -gA SLURM_NODE_ADDR=() SLURM_NODE_NS=()
_LAB_DIR='' _LAB_NET='' _LAB_BR='' _LAB_NEXT=1
declare -gA _LAB_NODE_NS=() _LAB_NODE_PORT=()

# _lab_dir: the lab's private folder (keys, configs, logs, sockets).
_lab_dir() {
	[ -n "$_LAB_DIR" ] && return 0
	_LAB_DIR=$(mktemp -d /tmp/pfclab-lab.XXXXXX) || return 1
	defer rm -rf "$_LAB_DIR"
	# sshd and munged refuse keys and sockets in folders others could write to.
	chmod 755 "$_LAB_DIR"
}

# _lab_net_up: the bridge on a free /24; sets _LAB_NET (three octets) and _LAB_BR.
_lab_net_up() {
	[ -n "$_LAB_NET" ] && return 0
	_lab_dir || return 1
	local fd k start used=''
	exec {fd}>/tmp/pfclab-lab-net.lock || return 1
	flock "$fd"
	used=$(ip -4 -o addr show 2>/dev/null | awk '{ print $4 }')
	start=$((RANDOM % 256))
	for ((i = 0; i < 256; i++)); do
		k=$(((start + i) % 256))
		if ! grep -q "^10\.213\.$k\." <<<"$used" && ! ip link show "pfbr$k" >/dev/null 2>&1; then
			_LAB_NET=10.213.$k
			_LAB_BR=pfbr$k
			break
		fi
	done
	if [ -z "$_LAB_NET" ]; then
		exec {fd}>&-
		echo "hosts.sh: no free 10.213.K.0/24 on this machine" >&2
		return 1
	fi
	# The address is claimed before the lock is released.
	ip link add "$_LAB_BR" type bridge || { exec {fd}>&-; return 1; }
	defer ip link del "$_LAB_BR"
	sysctl -qw "net.ipv6.conf.$_LAB_BR.disable_ipv6=1" 2>/dev/null
	ip addr add "$_LAB_NET.254/24" dev "$_LAB_BR"
	ip link set "$_LAB_BR" up
	exec {fd}>&-
}

# _lab_node_add NAME: a namespace with a veth (eth0) on the bridge and the next address;
# sets _LAB_NODE_NS[NAME] and _LAB_NODE_ADDR.
_lab_node_add() {
	local name=$1 ns addr peer
	_lab_net_up || return 1
	setup_ns lab || return 1
	ns=$lab
	addr=$_LAB_NET.$_LAB_NEXT
	peer=${_LAB_BR#pfbr}
	peer=pfh$peer-$_LAB_NEXT
	_LAB_NEXT=$((_LAB_NEXT + 1))
	ip link add "$peer" type veth peer name eth0 netns "$ns" || return 1
	defer ip link del "$peer"
	sysctl -qw "net.ipv6.conf.$peer.disable_ipv6=1" 2>/dev/null
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1 2>/dev/null
	ip link set "$peer" master "$_LAB_BR" up || return 1
	ip -n "$ns" addr add "$addr/24" dev eth0
	ip -n "$ns" link set eth0 up
	_LAB_NODE_NS[$name]=$ns
	_LAB_NODE_ADDR=$addr
}

# _lab_ns_killall NS: SIGKILL every process in a namespace (all of them were started
# by this lab).
_lab_ns_killall() {
	local p
	for p in $(ip netns pids "$1" 2>/dev/null); do
		kill -9 "$p" 2>/dev/null
	done
}

# _lab_wait_banner ADDR PORT: wait (up to 10 s) until an SSH banner can be read there.
_lab_wait_banner() {
	local i b
	for ((i = 0; i < 100; i++)); do
		b=$(timeout 1 bash -c "exec 3<>/dev/tcp/$1/$2 && head -c 4 <&3" 2>/dev/null)
		[ "$b" = "SSH-" ] && return 0
		sleep 0.1
	done
	return 1
}

# fakehosts_up N: see the header.
fakehosts_up() {
	local n=$1 k name dir addr ns pid
	_lab_net_up || return 1
	mkdir -p /run/sshd
	ssh-keygen -q -t ed25519 -N '' -C pfclab-lab -f "$_LAB_DIR/id" || return 1
	cp "$_LAB_DIR/id.pub" "$_LAB_DIR/authorized_keys"
	: >"$_LAB_DIR/known_hosts"
	: >"$_LAB_DIR/empty"
	SSH_CONFIG=$_LAB_DIR/ssh_config
	mkdir -m 700 -p "$_LAB_DIR/xdg"
	export XDG_RUNTIME_DIR=$_LAB_DIR/xdg
	: >"$SSH_CONFIG"
	for ((k = 1; k <= n; k++)); do
		name=h$k
		dir=$_LAB_DIR/$name
		mkdir -p "$dir/bin"
		FAKEHOST_BIN[$name]=$dir/bin
		fakehost_pfclab_reset "$name"
		_lab_node_add "$name" || return 1
		ns=${_LAB_NODE_NS[$name]}
		addr=$_LAB_NODE_ADDR
		ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$dir/host_key" || return 1
		cat >"$dir/sshd_config" <<-EOF
			ListenAddress $addr:22
			HostKey $dir/host_key
			PidFile none
			AuthorizedKeysFile $_LAB_DIR/authorized_keys
			StrictModes no
			UsePAM no
			PasswordAuthentication no
			KbdInteractiveAuthentication no
			PermitRootLogin prohibit-password
			MaxSessions 100
			MaxStartups 100
			SetEnv PATH=$dir/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
		EOF
		# A root ~/.bashrc doing slow work would run for every command: an empty one is
		# mounted over it in the host's own mount namespace.
		nsenter --net="/run/netns/$ns" unshare --uts --mount --propagation private sh -c "
			[ -f \"\$HOME/.bashrc\" ] && mount --bind '$_LAB_DIR/empty' \"\$HOME/.bashrc\"
			hostname $name && exec $HOSTS_SSHD -D -e -f '$dir/sshd_config'" \
			>"$dir/sshd.log" 2>&1 &
		pid=$!
		disown "$pid"
		defer _lab_ns_killall "$ns"
		FAKEHOSTS+=("$name")
		FAKEHOST_ADDR[$name]=$addr
		FAKEHOST_NS[$name]=$ns
		FAKEHOST_SSHD_PID[$name]=$pid
		FAKEHOST_IF[$name]=eth0
		cat >>"$SSH_CONFIG" <<-EOF
			Host $name
			  HostName $addr
		EOF
	done
	cat >>"$SSH_CONFIG" <<-EOF
		Host *
		  User root
		  Port 22
		  IdentityFile $_LAB_DIR/id
		  IdentitiesOnly yes
		  BatchMode yes
		  StrictHostKeyChecking accept-new
		  UserKnownHostsFile $_LAB_DIR/known_hosts
		  GlobalKnownHostsFile /dev/null
		  ControlMaster auto
		  ControlPath $_LAB_DIR/cm-%C
		  ControlPersist 60
		  ConnectTimeout 3
		  ServerAliveInterval 1
		  ServerAliveCountMax 3
		  LogLevel ERROR
	EOF
	# Multiplexing masters are stopped before the namespaces go.
	defer _fakehosts_masters_exit
	for name in "${FAKEHOSTS[@]}"; do
		_lab_wait_banner "${FAKEHOST_ADDR[$name]}" 22 || {
			echo "hosts.sh: sshd of $name not answering (see $_LAB_DIR/$name/sshd.log)" >&2
			cat "$_LAB_DIR/$name/sshd.log" >&2
			return 1
		}
	done
}

_fakehosts_masters_exit() {
	local s
	while IFS= read -r s; do
		ssh -o ControlPath="$s" -O exit lab >/dev/null 2>&1
	done < <(find "$_LAB_DIR" -type s -name 'cm-*' 2>/dev/null)
}

# fakehost_pfclab_reset NAME: see the header. A script, not a link: a test writing its
# own `pfclab` there must never write through to the real binary.
fakehost_pfclab_reset() {
	local f=${FAKEHOST_BIN[$1]}/pfclab
	rm -f "$f"
	printf '#!/bin/sh\nexec %s "$@"\n' "$(readlink -f "$PFCLAB")" >"$f"
	chmod +x "$f"
}

# fakehost_exec NAME CMD...: see the header.
fakehost_exec() {
	local name=$1
	shift
	nsenter -t "${FAKEHOST_SSHD_PID[$name]}" --net --uts --mount "$@"
}

# fakehost_kill NAME: see the header.
fakehost_kill() {
	local name=$1 ns=${FAKEHOST_NS[$1]}
	[ -n "$ns" ] || return 1
	ip -n "$ns" link set eth0 down
	_lab_ns_killall "$ns"
}

# slurm_up N: see the header.
slurm_up() {
	local n=$1 k name dir addr ns ctl_ns ctl_addr i
	_lab_net_up || return 1
	dir=$_LAB_DIR/slurm
	mkdir -p "$dir/munge" "$dir/state" "$dir/log" "$dir/spool"
	chmod 755 "$dir/munge"
	head -c 1024 /dev/urandom >"$dir/munge/key"
	chmod 400 "$dir/munge/key"
	/usr/sbin/munged -F --socket="$dir/munge/sock" --key-file="$dir/munge/key" \
		--pid-file="$dir/munge/pid" --log-file="$dir/log/munged.log" \
		--seed-file="$dir/munge/seed" --force >/dev/null 2>&1 &
	defer kill $!
	disown $!
	_lab_node_add ctl || return 1
	ctl_ns=${_LAB_NODE_NS[ctl]}
	ctl_addr=$_LAB_NODE_ADDR
	local nodes_first=$_LAB_NEXT
	for ((k = 1; k <= n; k++)); do
		_lab_node_add "n$k" || return 1
		SLURM_NODES+=("n$k")
		SLURM_NODE_ADDR[n$k]=$_LAB_NODE_ADDR
		SLURM_NODE_NS[n$k]=${_LAB_NODE_NS[n$k]}
	done
	export SLURM_CONF=$dir/slurm.conf
	{
		echo "ClusterName=pfclab"
		echo "SlurmctldHost=ctl($ctl_addr)"
		echo "SlurmUser=root"
		echo "SlurmdUser=root"
		echo "AuthType=auth/munge"
		echo "CredType=cred/munge"
		echo "AuthInfo=socket=$dir/munge/sock"
		echo "StateSaveLocation=$dir/state"
		echo "SlurmdSpoolDir=$dir/spool/%n"
		echo "SlurmctldPidFile=$dir/slurmctld.pid"
		echo "SlurmdPidFile=$dir/slurmd-%n.pid"
		echo "SlurmctldLogFile=$dir/log/slurmctld.log"
		echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
		echo "ProctrackType=proctrack/linuxproc"
		echo "TaskPlugin=task/none"
		echo "JobAcctGatherType=jobacct_gather/none"
		echo "AccountingStorageType=accounting_storage/none"
		echo "MpiDefault=none"
		echo "SelectType=select/cons_tres"
		echo "ReturnToService=2"
		echo "MailProg=/bin/true"
		for ((k = 1; k <= n; k++)); do
			echo "NodeName=n$k NodeAddr=$_LAB_NET.$((nodes_first + k - 1)) CPUs=2 RealMemory=1000"
		done
		echo "PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
	} >"$SLURM_CONF"
	nsenter --net="/run/netns/$ctl_ns" unshare --uts sh -c \
		"hostname ctl && exec slurmctld -D -i -f '$SLURM_CONF'" >"$dir/log/slurmctld.out" 2>&1 &
	disown $!
	defer _lab_ns_killall "$ctl_ns"
	for name in "${SLURM_NODES[@]}"; do
		ns=${_LAB_NODE_NS[$name]}
		mkdir -p "$dir/spool/$name"
		nsenter --net="/run/netns/$ns" unshare --uts sh -c \
			"hostname $name && exec slurmd -D -f '$SLURM_CONF'" >"$dir/log/slurmd-$name.out" 2>&1 &
		disown $!
		defer _lab_ns_killall "$ns"
	done
	# Ready when every node is idle (up to 20 s).
	for ((i = 0; i < 200; i++)); do
		[ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -eq "$n" ] && return 0
		sleep 0.1
	done
	echo "hosts.sh: the Slurm nodes did not come up (logs in $dir/log)" >&2
	tail -n 5 "$dir"/log/*.log >&2
	return 1
}
