# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh: helpers for pfclab's shell tests, in the manner of the kernel's
# tools/testing/selftests/net/lib.sh. Each test prints one line: OK, FAIL or SKIP.
# Source it, declare the number of tests with `plan N`, register cleanups as resources
# are created (the EXIT trap runs them) and end with `finish`. The runner checks the plan
# and the DONE line `finish` prints (tests/verdict.sh): a script that dies, or prints
# fewer results than planned, fails.

PFCLAB_ROOT=${PFCLAB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
PFCLAB=${PFCLAB:-$PFCLAB_ROOT/pfclab}
TEST_FAILED=0
_CLEANUPS=()

ok()   { echo "OK $1"; }
fail() { echo "FAIL $1${2:+: $2}"; TEST_FAILED=1; }
skip() { echo "SKIP $1${2:+: $2}"; }

# check NAME CMD...: run CMD, print OK or FAIL with its output on failure.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		fail "$name" "$(echo "$out" | tail -n 5 | tr '\n' ' ')"
	fi
}

defer() { _CLEANUPS+=("$*"); }

cleanup() {
	local i
	for ((i = ${#_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${_CLEANUPS[$i]}" >/dev/null 2>&1 || true
	done
	_CLEANUPS=()
}
trap cleanup EXIT

# setup_ns VAR...: create uniquely named network namespaces, set VAR to each name.
setup_ns() {
	local var name
	for var in "$@"; do
		name="pfc-$var-$$-$RANDOM"
		ip netns add "$name" || return 1
		defer ip netns del "$name"
		ip -n "$name" link set lo up
		printf -v "$var" '%s' "$name"
	done
}

# freeze_for PID SECONDS: hold every thread of process PID still for SECONDS through the
# cgroup freezer (v2's cgroup.freeze, else v1's freezer.state), then put it back in its
# own cgroup. Unlike SIGSTOP, a shell's foreground job frozen so stays in the foreground.
# 1 when this host has neither freezer.
freeze_for() {
	local pid=$1 secs=$2 root hier file on off own g
	if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
		root=/sys/fs/cgroup hier='' file=cgroup.freeze on=1 off=0
	elif [ -d /sys/fs/cgroup/freezer ]; then
		root=/sys/fs/cgroup/freezer hier=freezer file=freezer.state on=FROZEN off=THAWED
	else
		return 1
	fi
	# /proc/PID/cgroup: "0::PATH" (v2), "N:freezer:PATH" (v1)
	own=$root$(awk -F: -v h="$hier" '$2 == h && (h != "" || $1 == "0") { print $3 }' \
		"/proc/$pid/cgroup")
	g=$root/pfclab-freeze-$$
	mkdir "$g" && echo "$pid" >"$g/cgroup.procs" || { rmdir "$g" 2>/dev/null; return 1; }
	echo "$on" >"$g/$file"
	sleep "$secs"
	echo "$off" >"$g/$file"
	echo "$pid" >"$own/cgroup.procs"
	rmdir "$g"
}

need_root() {
	[ "$(id -u)" -eq 0 ] || { skip "$1" "needs root"; return 1; }
}

need_cmd() {
	local name=$1 c
	shift
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || { skip "$name" "$c not installed"; return 1; }
	done
}

# stall_start / stall_ms: how long this machine stood still meanwhile, for a timing
# check's allowance. stall_start starts a meter in the background: a wait of 20 ms in a
# loop (bash's own read -t and $EPOCHREALTIME, no process started per turn); each wait
# that ends more than 20 ms late adds its lateness. stall_ms stops the meter and prints
# the milliseconds added since stall_start. A host that stops a guest (a busy CI machine
# under TCG), or a process that takes this CPU away, shows here as it shows in the
# process under test, so "within 2 s" becomes "within 2 s plus what the machine took".
_STALL_PID= _STALL_FILE=
stall_start() {
	local i
	_STALL_FILE=$(mktemp)
	(
		exec 2>/dev/null
		fifo=$(mktemp -u)
		mkfifo "$fifo" && exec 3<>"$fifo" && rm -f "$fifo"
		late=0 t0=${EPOCHREALTIME/./}
		trap 'echo $((late / 1000)) >"$_STALL_FILE"; exit 0' TERM
		: >"$_STALL_FILE.ready"
		while :; do
			read -r -t 0.02 -u 3 _
			t1=${EPOCHREALTIME/./}
			d=$((t1 - t0 - 20000))
			[ $d -gt 20000 ] && late=$((late + d))
			t0=$t1
		done
	) &
	_STALL_PID=$!
	defer kill $_STALL_PID
	# ready once its TERM trap is set: a stall_ms right after must find its figure
	for i in $(seq 250); do [ -e "$_STALL_FILE.ready" ] && break; sleep 0.02; done
	rm -f "$_STALL_FILE.ready"
}
stall_ms() {
	local i
	[ -n "$_STALL_PID" ] || { echo 0; return; }
	kill -TERM $_STALL_PID 2>/dev/null
	for i in $(seq 100); do [ -s "$_STALL_FILE" ] && break; sleep 0.02; done
	# no figure (the meter died): none measured, so no allowance
	[ -s "$_STALL_FILE" ] && cat "$_STALL_FILE" || echo 0
	rm -f "$_STALL_FILE"
	_STALL_PID=
}

# plan N: this script prints N results (a script that skips as a whole may print fewer,
# all SKIP). Call it before the first result.
plan() { echo "PLAN $1"; }

# A monitor record's samples.jsonl (FILE) with each sample's values and rates keyed by
# column name, through the jq program the README gives users (monitor/samples-keyed.jq).
rec_keyed() { jq -c -n -f "$PFCLAB_ROOT/monitor/samples-keyed.jq" "$1"; }
# Whether the record in DIR is of format pfclab-monitor-2 with a "columns" line, and its
# last sample, named through rec_keyed, holds the last CSV row's values under the CSV's
# header (n/a where JSON has null): 0 if so; else 1, with what differs on standard output.
rec_keyed_matches_csv() {
	local seg fromcsv fromjq
	seg=$(ls "$1"/samples*.csv | sort -V | tail -n 1)
	fromcsv=$(awk -F, 'NR == 1 { for (i = 7; i <= NF; i++) h[i] = $i; next } { r = $0 }
		END { n = split(r, f, ","); for (i = 7; i <= n; i++) print h[i] "=" f[i] }' "$seg" | sort)
	fromjq=$(rec_keyed "$1/samples.jsonl" | jq -c 'select(.type == "sample")' | tail -n 1 |
		jq -r '.values | to_entries[] | "\(.key)=\(.value // "n/a")"' | sort)
	if [ "$(jq -r .format "$1/meta.json")" = pfclab-monitor-2 ] &&
	   grep -q '"type":"columns"' "$1/samples.jsonl" && [ -n "$fromcsv" ] &&
	   [ "$fromcsv" = "$fromjq" ]; then
		return 0
	fi
	echo "format $(jq -r .format "$1/meta.json"); $(diff <(echo "$fromcsv") <(echo "$fromjq") | head -c 300)"
	return 1
}

# exit status for a test script: non-zero when any check failed; DONE says it got here.
finish() { echo DONE; exit "$TEST_FAILED"; }

# Inside a vlab guest: the topology variables and vlab_impair.
if [ "${VLAB:-}" = 1 ] && [ -f /vlab/guest-env.sh ]; then
	# shellcheck source=/dev/null
	source /vlab/guest-env.sh
fi
