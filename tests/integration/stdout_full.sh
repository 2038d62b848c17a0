#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# stdout_full.sh (host): output lost to a full disk is a failure. Every command that
# prints results, with its standard output on /dev/full, exits 1 with one line naming
# the cause (the front door checks standard output once after each command, and after
# its own usage and version). Output lost to a closed pipe is the same (exit 1, "Broken
# pipe"), not death by SIGPIPE: checked for monitor, which prints until its end (capture
# and inject: frames_pipe.sh).
source "$(dirname "$0")/../lib.sh"
plan 11
[ -w /dev/full ] || { skip "stdout on /dev/full" "no /dev/full"; finish; }
pcap=$PFCLAB_ROOT/tests/golden/cnp_qps/input.pcap
want="writing standard output: No space left on device"
ns=
if [ "$(id -u)" -eq 0 ]; then setup_ns ns; fi
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
finish
