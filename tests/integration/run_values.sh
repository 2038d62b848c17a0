#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run_values.sh: `pfclab run` refuses, when it reads the file, every host and monitor/capture
# value the pfclab subcommand it is passed to would refuse on the host: for each value,
# `pfclab run --dry-run` and `pfclab SUBCOMMAND OPTION VALUE --help` (which checks the value,
# then prints the help) must agree. Also the file:line:key message for gpu -1 and a
# malformed address, which used to pass --dry-run.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 6

name=run-values
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary at $PFCLAB"; finish; }
tmp=$(mktemp -d)
defer rm -rf "$tmp"

# exp HOSTVALS [SECTION]: a one-host experiment with hosts.a {netdev: va, HOSTVALS}
exp() {
	printf 'name: v\nlauncher: local\nhosts:\n  a: {netdev: va%s}\n%sphases:\n  - duration: 1s\n' \
		"${1:+, $1}" "${2:+$2
}" >"$tmp/v.yaml"
}
verdict() { "$@" >/dev/null 2>&1; echo $?; }

# agree LABEL "SUBCOMMAND OPTION" HOSTKEY|SECTION-TEMPLATE VALUE...: for each value, the
# experiment's verdict (0 or 2) is the subcommand's own.
agree() {
	local label=$1 sub=$2 tmpl=$3 v want got bad=
	shift 3
	for v in "$@"; do
		case $tmpl in
		host:*) exp "${tmpl#host:}: '$v'" ;;
		*) exp "" "${tmpl//@/$v}" ;;
		esac
		got=$(verdict "$PFCLAB" run --dry-run "$tmp/v.yaml")
		# shellcheck disable=SC2086 # the subcommand and its option are two words
		want=$(verdict "$PFCLAB" $sub "$v" --help)
		[ "$got" = "$want" ] || bad+=" '$v' (run $got, ${sub%% *} $want)"
	done
	if [ -z "$bad" ]; then
		ok "$name: $label: run and pfclab $sub agree on $*"
	else
		fail "$name: $label" "disagree on$bad"
	fi
}

agree hosts.a.gpu "monitor --gpu" host:gpu -1 0 63 64 1.5 abc 0000:17:00.0
agree monitor.interval "monitor --interval" "monitor: {interval: '@'}" 50us 100us 10ms 1h 61m 2h 10x
agree capture.speed "capture --speed" "capture: {speed: '@'}" 25G 100M 25gbit 400Gbps xxG 0G 2P
agree hosts.a.gid_index "traffic -x" host:gid_index 0 3 65535 65536 -1 x

exp "gpu: -1"
out=$("$PFCLAB" run --dry-run "$tmp/v.yaml" 2>&1)
rc=$?
want="pfclab run: v.yaml:4: hosts.a.gpu: '-1' is not valid for pfclab monitor --gpu and traffic --gpu; give a GPU index 0..63 (see nvidia-smi -L) or a PCI address such as 0000:17:00.0 or 17:00.0"
if [ $rc = 2 ] && [ "$out" = "$want" ]; then
	ok "$name: gpu: -1 is refused when the file is read (exit 2, file:line: key)"
else
	fail "$name: gpu: -1" "exit $rc: $out"
fi
exp "rdma: rxe0, addr: 999.1.1.1"
out=$("$PFCLAB" run --dry-run "$tmp/v.yaml" 2>&1)
rc=$?
want="pfclab run: v.yaml:4: hosts.a.addr: '999.1.1.1' is not an IPv4 address (four numbers 0..255 joined by dots); give the address traffic clients connect to: an IPv4 or IPv6 address, or a host name"
if [ $rc = 2 ] && [ "$out" = "$want" ]; then
	ok "$name: addr: 999.1.1.1 is refused when the file is read (exit 2, file:line: key)"
else
	fail "$name: addr: 999.1.1.1" "exit $rc: $out"
fi
finish
