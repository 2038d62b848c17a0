#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# top_cpu.sh: CPU of the "pfclab top" process redrawing at 10 Hz in a real terminal
# (tmux, 80x24; 160x30 for two hosts): one local host (the monitor engine in the process,
# sampling a veth every 100 ms) and two remote fake hosts over ssh (their monitors run
# there; the ssh clients' CPU is given apart). btop (Debian package) redrawing every
# 100 ms in the same terminal is measured the same way, when installed. Figures: utime +
# stime of the process from /proc over SECS seconds after a warm-up. Target: < 2% of one
# core.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
PFCLAB=${PFCLAB:-$root/pfclab}
name=top_cpu
SECS=${SECS:-10}
[ "$(id -u)" -eq 0 ] || { echo "BENCH $name: skipped (needs root)"; exit 0; }
command -v tmux >/dev/null || { echo "BENCH $name: skipped (needs tmux)"; exit 0; }
# tests/lib.sh gives defer/cleanup (and tests/hosts.sh the fake hosts).
source "$root/tests/lib.sh"
tmp=$(mktemp -d)
defer rm -rf "$tmp"
ns=pfc-bench-top-$$
ip netns add "$ns" || exit 1
defer ip netns del "$ns"
ip -n "$ns" link add bt0 type veth peer name bt1 && ip -n "$ns" link set bt0 up &&
	ip -n "$ns" link set bt1 up || exit 1
S=pfcbtop$$
tmux -L "$S" -f /dev/null new-session -d -s "$S" -x 80 -y 24 \
	"env -i PATH=$PATH HOME=$tmp TERM=screen-256color LANG=C.UTF-8 XDG_RUNTIME_DIR=$tmp bash --norc --noprofile" || exit 1
defer tmux -L "$S" kill-server
T() { tmux -L "$S" "$@"; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }
hz=$(getconf CLK_TCK)
# measure CMD...: start it in the terminal, wait 3 s, CPU % of one core over SECS; also
# the CPU of the ssh processes it started (clients and the connection masters that
# ControlPersist leaves in the background: their command line names the control folder
# of this run). Prints "pct ssh_pct".
measure() {
	local pid a b kids ka=0 kb=0 k
	rm -f "$tmp/pid"
	T send-keys -t "$S" "sh -c 'echo \$\$ >$tmp/pid; exec $*'" Enter
	sleep 3
	pid=$(cat "$tmp/pid" 2>/dev/null) || return 1
	kids=$(pgrep -f "$tmp/pfclab-ssh" | tr '\n' ' ')
	a=$(ticks "$pid")
	for k in $kids; do ka=$((ka + $(ticks "$k"))); done
	sleep "$SECS"
	b=$(ticks "$pid")
	for k in $kids; do kb=$((kb + $(ticks "$k"))); done
	[ -n "$a" ] && [ -n "$b" ] || return 1
	kill -TERM "$pid"
	sleep 1
	awk -v a="$a" -v b="$b" -v ka="$ka" -v kb="$kb" -v hz="$hz" -v s="$SECS" \
		'BEGIN { printf "%.2f %.2f\n", (b - a) / hz / s * 100, (kb - ka) / hz / s * 100 }'
}

read -r local_pct _ < <(measure ip netns exec "$ns" "$PFCLAB" top -i bt0 -I 100ms --refresh 100ms)
[ -n "${local_pct:-}" ] || { echo "BENCH $name: did not complete (local)"; exit 1; }
peer="btop not installed" ratio="n/a"
if command -v btop >/dev/null; then
	mkdir -p "$tmp/btop"
	printf 'update_ms = 100\nshown_boxes = "cpu mem net proc"\n' >"$tmp/btop/btop.conf"
	read -r btop_pct _ < <(measure env XDG_CONFIG_HOME=$tmp btop)
	if [ -n "${btop_pct:-}" ]; then
		peer="btop ${btop_pct}% of one core"
		ratio=$(awk -v a="$local_pct" -v b="$btop_pct" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
	fi
fi
echo "BENCH $name: pfclab top (1 local host, 10 Hz redraw, 100 ms sampling) ${local_pct}% of one core, $peer, ratio $ratio (target < 2%)"

if [ -f "$root/tests/hosts.sh" ]; then
	source "$root/tests/hosts.sh"
	if fakehosts_up 2; then
		for h in h1 h2; do
			defer ssh -F "$SSH_CONFIG" -o ControlPath="$tmp/pfclab-ssh/cm-%C" -O exit "$h"
		done
		T resize-window -t "$S" -x 160 -y 30
		read -r rpct spct < <(measure "$PFCLAB" top --ssh-config "$SSH_CONFIG" \
			--remote-pfclab "$PFCLAB" -I 100ms --refresh 100ms h1:eth0 h2:eth0)
		[ -n "${rpct:-}" ] &&
			echo "BENCH ${name}_remote: pfclab top (2 remote hosts over ssh, 10 Hz redraw and sampling) ${rpct}% of one core (its ssh clients ${spct}%) (target < 2%)" ||
			echo "BENCH ${name}_remote: did not complete"
	else
		echo "BENCH ${name}_remote: did not complete (fake hosts)"
	fi
else
	echo "BENCH ${name}_remote: skipped (tests/hosts.sh, the fake hosts, is not in this tree)"
fi
