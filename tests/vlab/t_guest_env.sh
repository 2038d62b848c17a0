#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_guest_env.sh (vlab guest): what every script run by 'vlab run' is promised: pfclab in
# PATH (the same binary as $PFCLAB), the working folder $PFCLAB_ROOT, and $VLAB_OUT.
inpath=$(command -v pfclab)	# before tests/lib.sh, as a script that does not source it
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plan 2

if [ -n "$inpath" ] && [ "$(readlink -f "$inpath")" = "$(readlink -f "$PFCLAB")" ] &&
	[ "$(pfclab version)" = "$("$PFCLAB" version)" ]; then
	ok "pfclab in PATH ($inpath) is \$PFCLAB ($PFCLAB): $(pfclab version)"
else
	fail "pfclab in PATH is \$PFCLAB" "command -v pfclab: '${inpath:-none}', PATH=$PATH, PFCLAB=$PFCLAB"
fi
if [ "$PWD" = "$PFCLAB_ROOT" ] && [ -f "$PFCLAB_ROOT/tests/lib.sh" ] && [ -d "$VLAB_OUT" ] &&
	[ -w "$VLAB_OUT" ]; then
	ok "working folder \$PFCLAB_ROOT ($PFCLAB_ROOT) with tests/, \$VLAB_OUT ($VLAB_OUT) writable"
else
	fail "working folder and \$VLAB_OUT" "PWD=$PWD PFCLAB_ROOT=$PFCLAB_ROOT VLAB_OUT=$VLAB_OUT"
fi
finish
