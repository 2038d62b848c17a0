#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: the virtual-lab suite. Boots one VM once and runs every tests/vlab/t_*.sh inside
# it, then (when there are any) boots the two-VM topology once for tests/vlab/two/t_*.sh.
# A host-side check tests/vlab/h_<name>.sh, if present, then examines what t_<name>.sh
# brought back (VLAB_RESULT=<its folder>). Last, when there are tests/vlab/ssh/*.sh, it
# brings the two-VM lab up with SSH once (vlab up --two-vm --ssh) and runs them on this
# host with VLAB_SSH_CONFIG naming vlab-a and vlab-b. Prints OK/FAIL/SKIP lines.
source "$(dirname "$0")/../lib.sh"

cd "$PFCLAB_ROOT"
out=${VLAB_SUITE_OUT:-$PFCLAB_ROOT/build/vlab-suite}
vlab=lab/vlab/vlab

if ! command -v qemu-system-x86_64 >/dev/null; then
	skip vlab "qemu-system-x86_64 not installed (make deps)"
	exit 0
fi
if [ ! -x "$PFCLAB" ]; then
	fail vlab "no pfclab binary at $PFCLAB (run make)"
	finish
fi

host_checks() { # $1 = results folder of one boot, rest = scripts
	local dir=$1 s name h
	shift
	for s in "$@"; do
		name=$(basename "$s" .sh)
		h=$(dirname "$s")/h_${name#t_}.sh
		[ -x "$h" ] || continue
		VLAB_RESULT=$dir/$name "$h"
	done
}

# one boot for every one-VM test
mapfile -t one < <(ls tests/vlab/t_*.sh 2>/dev/null)
if [ ${#one[@]} -gt 0 ]; then
	rm -rf "$out/one"
	PFCLAB=$PFCLAB $vlab run --out "$out/one" --timeout 1500 "${one[@]}"
	rc=$?
	[ $rc -eq 3 ] && fail "vlab boot (one VM)" "see $out/one/console-a.log"
	host_checks "$out/one" "${one[@]}"
fi

mapfile -t two < <(ls tests/vlab/two/t_*.sh 2>/dev/null)
if [ ${#two[@]} -gt 0 ]; then
	rm -rf "$out/two"
	PFCLAB=$PFCLAB $vlab run --two-vm --out "$out/two" --timeout 900 "${two[@]}"
	rc=$?
	[ $rc -eq 3 ] && fail "vlab boot (two VMs)" "see $out/two/console-*.log"
	host_checks "$out/two/a" "${two[@]}"
fi

mapfile -t viassh < <(ls tests/vlab/ssh/*.sh 2>/dev/null)
if [ ${#viassh[@]} -gt 0 ]; then
	rm -rf "$out/ssh"
	if PFCLAB=$PFCLAB $vlab up --two-vm --ssh --dir "$out/ssh" >/dev/null; then
		defer "$vlab down --dir '$out/ssh'"
		for s in "${viassh[@]}"; do
			VLAB_SSH_CONFIG=$out/ssh/ssh_config "$s"
		done
		$vlab down --dir "$out/ssh" 2>/dev/null
	else
		fail "vlab up (two VMs, SSH)" "see $out/ssh/console-*.log"
	fi
fi
finish
