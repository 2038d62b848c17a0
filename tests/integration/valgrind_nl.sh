#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# valgrind_nl.sh: the monitor's netlink requests (RTM_GETDCB with its interface-name
# attribute, link statistics) carry no uninitialised byte to the kernel: valgrind reports
# no error for two samples on loopback.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 1

name=valgrind_nl
need_cmd $name valgrind || finish
[ -x "$PFCLAB" ] || { fail $name "no pfclab binary at $PFCLAB (run make)"; finish; }
log=$(mktemp)
defer rm -f "$log"
valgrind -q --error-exitcode=9 "$PFCLAB" monitor -i lo --sources dcb,link -c 2 -I 100ms \
	>/dev/null 2>"$log"
rc=$?
if [ $rc -eq 0 ] && ! grep -q '^==[0-9]*==' "$log"; then
	ok "$name: RTM_GETDCB and link requests, 0 valgrind errors"
else
	fail $name "rc $rc: $(grep -m2 '^==[0-9]*== [A-Z]' "$log" | tr '\n' ' ')"
fi
finish
