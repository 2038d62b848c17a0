#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# stdout_full.sh (host): output lost to a full disk is a failure. Every command that
# prints results, with its standard output on /dev/full, exits 1 with one line naming
# the cause (the front door checks standard output once after each command, and after
# its own usage and version). Output lost to a closed pipe is the same (exit 1, "Broken
# pipe"), not death by SIGPIPE: checked for monitor, which prints until its end, and for
# run's plan and summary (capture and inject: frames_pipe.sh).
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 14
[ -w /dev/full ] || { skip "stdout on /dev/full" "no /dev/full"; finish; }
pcap=$PFCLAB_ROOT/tests/golden/cnp_qps/input.pcap
want="writing standard output: No space left on device"
ns=
if [ "$(id -u)" -eq 0 ]; then setup_ns ns; fi
# a results folder for run --report: the experiment and a manifest, no points yet
tmp=$(mktemp -d)
defer rm -rf "$tmp"
mkdir "$tmp/run" && cp "$PFCLAB_ROOT/scripts/experiments/incast.yaml" "$tmp/run/experiment.yaml" &&
	echo '{"format": "pfclab-run-1", "run_id": "incast-20260101-000000", "status": "complete"}' >"$tmp/run/manifest.json"
# each row: name|who (the message's prefix: the front door's own output says "pfclab",
# a command's "pfclab COMMAND")|command
while IFS='|' read -r name who cmd; do
	[[ $cmd == *'$ns'* && -z $ns ]] && { skip "$name > /dev/full" "needs root for a namespace"; continue; }
	err=$(eval "$cmd" 2>&1 >/dev/full); rc=$?
	if [ $rc -eq 1 ] && [ "$(grep -cxF "$who: $want" <<<"$err")" -eq 1 ]; then
		ok "$name > /dev/full: exit 1, '$want'"
	else
		fail "$name > /dev/full: exit 1, '$want'" "rc $rc: $(tail -n 2 <<<"$err" | tr '\n' ' ')"
	fi
done <<'EOF2'
--help|pfclab|"$PFCLAB" --help
--version|pfclab|"$PFCLAB" --version
help help|pfclab|"$PFCLAB" help help
version|pfclab version|"$PFCLAB" version
review|pfclab review|"$PFCLAB" review "$pcap"
review --json|pfclab review|"$PFCLAB" review --json "$pcap"
doctor --json|pfclab doctor|"$PFCLAB" doctor --json
monitor --json|pfclab monitor|ip netns exec "$ns" "$PFCLAB" monitor -i lo -c 3 -I 10ms --sources link --json
capture -j|pfclab capture|ip netns exec "$ns" "$PFCLAB" capture -i lo -c 1 -D 100ms -j
traffic --json|pfclab traffic|"$PFCLAB" traffic --check-mem host --json
run --dry-run|pfclab run|"$PFCLAB" run --dry-run -r "$tmp/results" "$PFCLAB_ROOT/scripts/experiments/incast.yaml"
run --report|pfclab run|"$PFCLAB" run --report "$tmp/run" --no-plots
EOF2
# monitor into a pipe closed after its first line: it stops at once, exit 1, one line
if [ -n "$ns" ]; then
	err=$( { ip netns exec "$ns" "$PFCLAB" monitor -i lo -I 10ms -D 20s --sources link 2>&3 |
		head -n 1 >/dev/null; echo "rc ${PIPESTATUS[0]}" >&3; } 3>&1 )
	if grep -q '^rc 1$' <<<"$err" &&
		[ "$(grep -cE '^pfclab monitor: writing standard output: Broken pipe$' <<<"$err")" -eq 1 ]; then
		ok "monitor | head -n 1: exit 1, 'writing standard output: Broken pipe'"
	else
		fail "monitor | head -n 1: exit 1, 'writing standard output: Broken pipe'" "$(tr '\n' ' ' <<<"$err")"
	fi
else
	skip "monitor | head -n 1" "needs root for a namespace"
fi
# run's plan and its summary into a pipe whose reader is gone: the same, exit 1, one line
r_msgs=""
for a in "--dry-run -r $tmp/results $PFCLAB_ROOT/scripts/experiments/incast.yaml" "--report $tmp/run --no-plots"; do
	# shellcheck disable=SC2086 # the words of $a are the arguments
	# the reader (true) is gone before run starts: its first write meets a closed pipe
	err=$( { (sleep 0.5; exec "$PFCLAB" run $a) 2>&3 | true; echo "rc ${PIPESTATUS[0]}" >&3; } 3>&1 )
	grep -q '^rc 1$' <<<"$err" && [ "$(grep -cxF 'pfclab run: writing standard output: Broken pipe' <<<"$err")" -eq 1 ] &&
		[ "$(wc -l <<<"$err")" -eq 2 ] || r_msgs+="[run ${a%% *}: $(tr '\n' ' ' <<<"$err")] "
done
if [ -z "$r_msgs" ]; then ok "run --dry-run | and run --report | a closed pipe: exit 1, 'writing standard output: Broken pipe'"
else fail "run into a closed pipe" "$r_msgs"; fi
finish
