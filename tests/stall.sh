#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# stall.sh: runs a command under the host stalls a busy CI machine inflicts, to find the
# checks that such stalls break: every QEMU process the command starts is stopped
# (SIGSTOP) for a random 0.3-0.6 s at random moments 1-4 s apart, and a CPU hog runs
# beside it at nice 19. Each stop is logged. Exits with the command's status.
#   tests/stall.sh [--log FILE] [--no-hog] [--min S] [--max S] -- CMD [ARG...]
# Example: tests/stall.sh -- tests/run.sh --only vlab
set -uo pipefail

log=/dev/stderr hog=true min=0.3 max=0.6
while [ $# -gt 0 ]; do
	case $1 in
	--log) log=$2; shift 2 ;;
	--no-hog) hog=false; shift ;;
	--min) min=$2; shift 2 ;;
	--max) max=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "stall.sh: unknown argument '$1' (give the command after --)" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "stall.sh: no command given (tests/stall.sh -- CMD...)" >&2; exit 2; }

"$@" &
cmd=$!
hogpid=
if $hog; then
	nice -n 19 bash -c 'while :; do :; done' &
	hogpid=$!
fi
stopped=
cleanup() {
	[ -n "$stopped" ] && kill -CONT $stopped 2>/dev/null
	[ -n "$hogpid" ] && kill "$hogpid" 2>/dev/null
}
trap cleanup EXIT
trap 'kill -TERM $cmd 2>/dev/null' INT TERM

# qemus: the QEMU processes among the command's descendants
qemus() {
	ps -e -o pid=,ppid=,comm= | awk -v root="$cmd" '
		{ parent[$1] = $2; name[$1] = $3 }
		END {
			for (p in parent) {
				if (name[p] !~ /^qemu-system/) continue
				for (q = parent[p]; q > 1; q = parent[q]) if (q == root) { print p; break }
			}
		}'
}

n=0 total=0
while kill -0 "$cmd" 2>/dev/null; do
	sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 1 + 3 * r / 32767 }')"
	stopped=$(qemus | tr '\n' ' ')
	[ -n "$stopped" ] || continue
	d=$(awk -v r=$RANDOM -v a="$min" -v b="$max" 'BEGIN { printf "%.2f", a + (b - a) * r / 32767 }')
	kill -STOP $stopped 2>/dev/null
	sleep "$d"
	kill -CONT $stopped 2>/dev/null
	n=$((n + 1)) total=$(awk -v t="$total" -v d="$d" 'BEGIN { print t + d }')
	echo "stall.sh: $(date +%T.%3N) stopped QEMU $stopped for $d s" >>"$log"
	stopped=
done
wait "$cmd"
rc=$?
echo "stall.sh: $n stops, $total s in all; the command exited $rc" >>"$log"
exit $rc
