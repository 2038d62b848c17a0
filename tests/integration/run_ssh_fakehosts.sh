#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run_ssh_fakehosts.sh: pfclab run with the ssh launcher on fake hosts (tests/hosts.sh: a
# network namespace each with its own sshd, on one bridge), monitor and capture on their
# veths:
#  - incast: three senders towards one receiver; the receiver runs one traffic server per
#    sender on its own port, each sender's client connects to the receiver's address on
#    its port, and the RoCEv2 frames the three senders inject at the receiver are all in
#    the receiver's capture. The fake hosts have no RDMA device, so `pfclab traffic`
#    there is a stand-in that records how it was started and prints a summary line;
#  - a version mismatch: one host's pfclab reports another version; clear error, nothing
#    started;
#  - a host that dies mid-run: the run stops every host, keeps what was recorded, marks
#    the point and the run;
#  - an unreachable host: clear error, nothing started.
source "$(dirname "$0")/../lib.sh"
plan 25
source "$(dirname "$0")/../hosts.sh"

need_root run_ssh || finish
need_cmd run_ssh ssh ssh-keygen nsenter unshare /usr/sbin/sshd jq || finish
[ -x "$PFCLAB" ] || { fail run_ssh "no pfclab binary at $PFCLAB (run make)"; finish; }

tmp=$(mktemp -d)
defer rm -rf "$tmp"
if ! fakehosts_up 4; then
	fail run_ssh_fakehosts_up "could not start 4 fake hosts"
	finish
fi
# expect NAME GOT WANT: OK when GOT equals WANT, else FAIL saying both.
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got '$2', want '$3'"; fi
}
mac() { ip -n "${FAKEHOST_NS[$1]}" -br link show "${FAKEHOST_IF[$1]}" | awk '{ print $3 }'; }
real=$(readlink -f "$PFCLAB")

# host_yaml NAME...: the hosts: block; with RDMA=1 each names the device fake0.
host_yaml() {
	local h
	echo "hosts:"
	for h in "$@"; do
		echo "  $h: {addr: ${FAKEHOST_ADDR[$h]}, netdev: ${FAKEHOST_IF[$h]}${RDMA:+, rdma: fake0}}"
	done
}

# standin HOST: HOST has no RDMA device, so there `pfclab traffic` is a stand-in that
# records its host, peer, port and whether it was given the run's key in
# $tmp/traffic.log, sleeps for -D and prints a start and a summary line in pfclab's JSON;
# `pfclab monitor` runs without the device (-d fake0); everything else is the real pfclab.
standin() {
	rm -f "${FAKEHOST_BIN[$1]}/pfclab"
	cat >"${FAKEHOST_BIN[$1]}/pfclab" <<-EOF
		#!/bin/bash
		if [ "\$1" = monitor ]; then
			a=()
			while [ \$# -gt 0 ]; do
				[ "\$1" = -d ] && [ "\$2" = fake0 ] && { shift 2; continue; }
				a+=("\$1")
				shift
			done
			exec $real "\${a[@]}"
		fi
		[ "\$1" = traffic ] || exec $real "\$@"
		shift
		dur=1 psk=\${PFCLAB_PSK_FILE:-} peer=server port=18515 args="\$*"
		while [ \$# -gt 0 ]; do
			case \$1 in
			-D) dur=\${2%s}; shift ;;
			-p) port=\$2; shift ;;
			-p*) port=\${1#-p} ;;
			--psk) psk=\$2; shift ;;
			[0-9]*.*.*.*[0-9]) peer=\$1 ;;
			esac
			shift
		done
		keyok=no
		[ -n "\$psk" ] && [ "\$(stat -c %a "\$psk")" = 600 ] &&
			grep -qxE '[0-9a-f]{64}' "\$psk" && keyok=yes
		echo "\$(hostname) \$peer \$port key=\$keyok" >>$tmp/traffic.log
		echo '{"type":"start","role":"'\$([ \$peer = server ] && echo server || echo client)'","device":"fake0","mode":"unidirectional"}'
		sleep "\$dur"
		b=\$((dur * 1000000))
		echo '{"type":"summary","phase":0,"size":65536,"t":'\$dur',"interrupted":false,"tx":{"bytes":'\$b',"msgs":'\$((b / 65536))',"seconds":'\$dur',"gbps":0.008,"mpps":0,"completions":1,"errors":0},"rx":{"bytes":0,"msgs":0,"seconds":'\$dur',"gbps":0,"mpps":0,"completions":null,"errors":0}}'
	EOF
	chmod +x "${FAKEHOST_BIN[$1]}/pfclab"
}

# ---- incast: h1 h2 h3 -> h4 ------------------------------------------------------------
for h in h1 h2 h3 h4; do standin "$h"; done
N=30 # RoCEv2 frames each sender injects at the receiver's MAC
{
	echo "name: fh-incast"
	echo "launcher: ssh"
	echo "retries: 0"
	RDMA=1 host_yaml h1 h2 h3 h4
	echo "monitor: {interval: 100ms}"
	echo "capture: {mode: roce}"
	echo "phases:"
	echo "  - name: incast"
	echo "    traffic: {from: [h1, h2, h3], to: h4, size: 64K, duration: 1s}"
	echo "    inject:"
	for h in h1 h2 h3; do
		echo "      - {host: $h, kind: roce, args: [--dst-mac, \"$(mac h4)\", --count, \"$N\", --rate, \"200\"]}"
	done
	echo "  - name: rest"
	echo "    duration: 500ms"
} >"$tmp/incast.yaml"
# The run's pre-shared key is asked for (PFCLAB_RUN_PSK=1): each side must be given it.
PFCLAB_RUN_PSK=1 "$PFCLAB" run -F "$SSH_CONFIG" -o "$tmp/incast" --no-plots -q "$tmp/incast.yaml" >"$tmp/incast.out" 2>&1
rc=$?
check run_ssh_incast_exit test "$rc" -eq 0
[ $rc -eq 0 ] || cat "$tmp/incast.out" >&2
a4=${FAKEHOST_ADDR[h4]}
# One server per sender on h4, on three distinct ports; each sender's client goes to h4
# on one of those ports, and every port has exactly one client.
servers=$(awk '$1 == "h4" && $2 == "server" { print $3 }' "$tmp/traffic.log" 2>/dev/null | sort | tr '\n' ' ')
clients=$(awk -v a="$a4" '$2 == a { print $3 }' "$tmp/traffic.log" 2>/dev/null | sort | tr '\n' ' ')
senders=$(awk -v a="$a4" '$2 == a { print $1 }' "$tmp/traffic.log" 2>/dev/null | sort | tr '\n' ' ')
check run_ssh_incast_three_servers test "$(wc -w <<<"$servers")" -eq 3 -a "$(tr ' ' '\n' <<<"$servers" | sort -u | grep -c .)" -eq 3
expect run_ssh_incast_clients_match "$clients" "$servers"
expect run_ssh_incast_senders "$senders" "h1 h2 h3 "
expect run_ssh_incast_key_given "$(grep -c 'key=yes$' "$tmp/traffic.log")" 6
# The run's key is not left in the results.
key_left=$(grep -rlE '^[0-9a-f]{64}$' "$tmp/incast" 2>/dev/null)
check run_ssh_incast_key_not_kept test -z "$key_left"
expect run_ssh_incast_hostnames "$(jq -r '[.hosts[].before.hostname] | join(" ")' "$tmp/incast/manifest.json" 2>/dev/null)" "h1 h2 h3 h4"
rep=$tmp/incast/points/p000/rep0
expect run_ssh_incast_valid "$(jq -r .valid "$rep/status.json" 2>/dev/null)" true
# Every frame the three senders injected reached the receiver's veth and its capture.
expect run_ssh_incast_receiver_frames "$(jq -r .kinds.roce "$rep/h4/review.json" 2>/dev/null)" $((3 * N))
missing=
for h in h1 h2 h3 h4; do
	for f in capture.pcapng review.json monitor/samples.csv; do
		[ -s "$rep/$h/$f" ] || missing+=" $h/$f"
	done
done
for h in h1 h2 h3; do ls "$rep/h4/"traffic-incast-server-"$h"*.jsonl >/dev/null 2>&1 || missing+=" h4/server-$h"; done
expect run_ssh_incast_records "$missing" ""
for h in h1 h2 h3 h4; do fakehost_pfclab_reset "$h"; done

# ---- version mismatch: h4's pfclab is another version ----------------------------------
rm -f "${FAKEHOST_BIN[h4]}/pfclab"
cat >"${FAKEHOST_BIN[h4]}/pfclab" <<EOF
#!/bin/bash
[ "\$1" = version ] && { echo "pfclab 0.0-other"; exit 0; }
echo "\$(hostname) \$*" >>$tmp/mismatch-started.log
exec $real "\$@"
EOF
chmod +x "${FAKEHOST_BIN[h4]}/pfclab"
{
	echo "name: fh-mismatch"
	echo "launcher: ssh"
	host_yaml h3 h4
	echo "monitor: {interval: 100ms}"
	echo "phases:"
	echo "  - {name: quiet, duration: 500ms}"
} >"$tmp/mismatch.yaml"
"$PFCLAB" run -F "$SSH_CONFIG" -o "$tmp/mismatch" --no-plots -q "$tmp/mismatch.yaml" >"$tmp/mismatch.out" 2>&1
rc=$?
check run_ssh_mismatch_exit test "$rc" -eq 1
check run_ssh_mismatch_message grep -q "h4.*0.0-other.*$("$PFCLAB" version | cut -d' ' -f2)" "$tmp/mismatch.out"
check run_ssh_mismatch_nothing_started test ! -e "$tmp/mismatch-started.log" -a ! -e "$tmp/mismatch/points"
fakehost_pfclab_reset h4

# ---- a host dies mid-run: h2 of h1 h2 -----------------------------------------------------
{
	echo "name: fh-dies"
	echo "launcher: ssh"
	echo "retries: 0"
	# the dead host keeps its scratch folder (nobody can remove it there): in $tmp
	host_yaml h1 h2 | sed "s|}\$|, workdir: $tmp}|"
	echo "monitor: {interval: 100ms}"
	echo "capture: {mode: default}"
	echo "phases:"
	echo "  - {name: long, duration: 20s}"
} >"$tmp/dies.yaml"
"$PFCLAB" run -F "$SSH_CONFIG" -o "$tmp/dies" --no-plots -q "$tmp/dies.yaml" >"$tmp/dies.out" 2>&1 &
run_pid=$!
defer kill "$run_pid"
# h2 dies once the phase has begun (run.log says so), the monitor's first samples written.
for ((i = 0; i < 300; i++)); do
	grep -q 'phase long' "$tmp/dies/run.log" 2>/dev/null && break
	sleep 0.1
done
sleep 1
fakehost_kill h2
wait "$run_pid"
rc=$?
check run_ssh_dies_exit test "$rc" -eq 1
check run_ssh_dies_message grep -q 'host h2 .*lost' "$tmp/dies.out"
expect run_ssh_dies_run_marked "$(jq -r .status "$tmp/dies/manifest.json" 2>/dev/null)" host-lost
expect run_ssh_dies_host_marked "$(jq -r .hosts.h2.lost "$tmp/dies/manifest.json" 2>/dev/null)" true
st=$tmp/dies/points/p000/rep0/status.json
expect run_ssh_dies_point_marked "$(jq -r '.valid, (.reasons | join(","))' "$st" 2>/dev/null | tr '\n' ' ')" "false host h2 unreachable "
# What h1 recorded until the stop came back; h1 runs nothing of the run any more.
lines=$(grep -c . "$tmp/dies/points/p000/rep0/h1/monitor/samples.csv" 2>/dev/null)
# at least a header and one sample; the phase was stopped early, so far fewer than the
# 20 s x 10/s of a full phase
check run_ssh_dies_h1_kept test "${lines:-0}" -ge 2 -a "${lines:-0}" -lt 200
check run_ssh_dies_h1_pcap test -s "$tmp/dies/points/p000/rep0/h1/capture.pcapng"
check run_ssh_dies_h2_scratch_left compgen -G "$tmp/pfclab-run-fh-dies-*-h2"
# (sshd itself stays: its listener and the sessions of ssh's multiplexing masters)
left=$(for p in $(ip netns pids "${FAKEHOST_NS[h1]}"); do ps -o comm= -p "$p"; done | grep -vx sshd | tr '\n' ' ')
expect run_ssh_dies_h1_stopped "$left" ""

# ---- an unreachable host: h2 is dead now --------------------------------------------------
{
	echo "name: fh-unreachable"
	echo "launcher: ssh"
	host_yaml h3 h2
	echo "phases:"
	echo "  - {name: quiet, duration: 500ms}"
} >"$tmp/unreach.yaml"
"$PFCLAB" run -F "$SSH_CONFIG" -o "$tmp/unreach" --no-plots -q "$tmp/unreach.yaml" >"$tmp/unreach.out" 2>&1
rc=$?
check run_ssh_unreachable_exit test "$rc" -eq 1
check run_ssh_unreachable_message grep -q 'host h2' "$tmp/unreach.out"
check run_ssh_unreachable_nothing_started test ! -e "$tmp/unreach/points"
finish
