#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: the virtual-lab suite. Boots one VM once and runs every tests/vlab/t_*.sh inside
# it, then (when there are any) boots the two-VM topology once for tests/vlab/two/t_*.sh.
# A host-side check tests/vlab/h_<name>.sh, if present, then examines what t_<name>.sh
# brought back (VLAB_RESULT=<its folder>). Last, when there are tests/vlab/ssh/*.sh, it
# brings the two-VM lab up with SSH once (vlab up --two-vm --ssh) and runs them on this
# host with VLAB_SSH_CONFIG naming vlab-a and vlab-b. Prints OK/FAIL/SKIP lines.
# Every script sent into a guest must come back with its log, its plan fulfilled and its
# DONE line (tests/verdict.sh); a vlab exit other than 0 is a FAIL of its own.
#   VLAB_SUITE_DIR  folder holding the t_*.sh (default tests/vlab)
#   VLAB_CMD        the vlab command (default lab/vlab/vlab)
#   VLAB_SUITE_ONLY scripts to run instead of all (tests/run.sh NAME sets it): paths under
#                   the suite folder, e.g. "tests/vlab/t_traffic_sec.sh tests/vlab/two/t_two_vm.sh";
#                   a topology none of them needs is not booted
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../verdict.sh"

cd "$PFCLAB_ROOT"
out=${VLAB_SUITE_OUT:-$PFCLAB_ROOT/build/vlab-suite}
mkdir -p "$out"
vlab=${VLAB_CMD:-lab/vlab/vlab}
dir=${VLAB_SUITE_DIR:-tests/vlab}

# Every result line of this script is a guest script's or a host check's, judged against
# that script's own plan; this script's plan is the number of lines it passed on.
nres=0
result() {
	local line
	while IFS= read -r line; do
		echo "$line"
		nres=$((nres + 1))
		[ "${line#FAIL }" != "$line" ] && TEST_FAILED=1
	done
	return 0
}

if [ -z "${VLAB_CMD:-}" ] && ! command -v qemu-system-x86_64 >/dev/null; then
	plan 1
	skip vlab "qemu-system-x86_64 not installed (make deps)"
	finish
fi
if [ ! -x "$PFCLAB" ]; then
	plan 1
	fail vlab "no pfclab binary at $PFCLAB (run make)"
	finish
fi

# guest_results DIR PREFIX SCRIPT...: the verdict on each script's log from one VM
guest_results() {
	local d=$1 pre=$2 s name rc
	shift 2
	for s in "$@"; do
		name=$(basename "$s" .sh)
		rc=$(cat "$d/$name/rc" 2>/dev/null)
		result < <(verdict_log "$name" "$d/$name/log.txt" "$rc" "$pre")
	done
}

host_checks() { # $1 = results folder of one boot, rest = scripts
	local d=$1 s name h log rc
	shift
	for s in "$@"; do
		name=$(basename "$s" .sh)
		h=$(dirname "$s")/h_${name#t_}.sh
		[ -e "$h" ] || continue
		log=$d/h_${name#t_}.log
		VLAB_RESULT=$d/$name "$h" >"$log" 2>&1
		rc=$?
		result < <(verdict_log "$(basename "$h" .sh)" "$log" "$rc")
	done
}

# boot LABEL OUTDIR VLAB-ARGS...: one boot; its exit status must be 0
boot() {
	boot_start "$1" "$2" "${@:3}"
	boot_wait
}
# boot_start LABEL OUTDIR VLAB-ARGS...: the same in the background; boot_wait judges the
# oldest one started (a FAIL line when its exit status is not 0)
boot_pids=() boot_labels=() boot_outs=()
boot_start() {
	local label=$1 o=$2
	shift 2
	rm -rf "$o"
	mkdir -p "$o"
	PFCLAB=$PFCLAB $vlab run --out "$o" "$@" >"$o/vlab.out" 2>"$o/vlab.err" &
	boot_pids+=($!) boot_labels+=("$label") boot_outs+=("$o")
}
boot_wait() {
	local label=${boot_labels[0]} o=${boot_outs[0]} rc
	wait "${boot_pids[0]}"
	rc=$?
	boot_pids=("${boot_pids[@]:1}") boot_labels=("${boot_labels[@]:1}") boot_outs=("${boot_outs[@]:1}")
	if [ $rc -ne 0 ]; then
		# name the guest scripts that ended badly (their own lines follow), or what vlab said
		local f why=
		for f in "$o"/t_*/rc "$o"/[ab]/t_*/rc; do
			[ -f "$f" ] && [ "$(cat "$f")" != 0 ] && { f=${f#"$o"/}; why+="${f%/rc} (exit $(cat "$o/$f")); "; }
		done
		[ -n "$why" ] && why="guest scripts that exited non-zero: $why"
		result <<<"FAIL vlab boot ($label): vlab run exit $rc: ${why:-$(tail -n 2 "$o/vlab.err" | tr '\n' ' ')}(see $o)"
	fi
}

# suite GLOB: the scripts of one topology, those of VLAB_SUITE_ONLY alone when it is set
suite() {
	local f o
	for f in $1; do
		[ -e "$f" ] || continue
		if [ -n "${VLAB_SUITE_ONLY:-}" ]; then
			for o in $VLAB_SUITE_ONLY; do [ "$o" -ef "$f" ] && echo "$f"; done
		else
			echo "$f"
		fi
	done
}

mapfile -t one < <(suite "$dir/t_*.sh")
# The one-VM scripts in VMS labs at once (VLAB_SUITE_VMS; default 2 where there are two
# CPUs and at least four scripts, else 1). One such guest keeps 0.75 of a CPU busy on
# average (measured over the whole one-VM suite under TCG: it waits on timeouts, peers
# and sleeps much of the time), so a second beside it uses the CPU the first leaves idle.
# The scripts are dealt out largest first (a script's size stands for its length), so the
# labs end at about the same time; each lab's results are in one-N/.
vms=${VLAB_SUITE_VMS:-1}
[ -z "${VLAB_SUITE_VMS:-}" ] && [ "$(nproc 2>/dev/null || echo 1)" -ge 2 ] && [ ${#one[@]} -ge 4 ] && vms=2
[ ${#one[@]} -lt "$vms" ] && vms=${#one[@]}
if [ "$vms" -le 1 ] && [ ${#one[@]} -gt 0 ]; then
	boot "one VM" "$out/one" --timeout 1500 "${one[@]}"
	guest_results "$out/one" "" "${one[@]}"
	host_checks "$out/one" "${one[@]}"
elif [ ${#one[@]} -gt 0 ]; then
	declare -A part=() load=()
	for ((k = 1; k <= vms; k++)); do part[$k]= load[$k]=0; done
	while read -r size s; do	# each script to the lab with the least so far
		best=1
		for ((k = 2; k <= vms; k++)); do [ "${load[$k]}" -lt "${load[$best]}" ] && best=$k; done
		part[$best]+="$s " load[$best]=$((load[$best] + size))
	done < <(for s in "${one[@]}"; do echo "$(stat -c %s "$s") $s"; done | sort -rn)
	# the kernel and base initramfs once, before the labs that share the cache
	[ -n "${VLAB_CMD:-}" ] || $vlab build >"$out/build.log" 2>&1 ||
		result <<<"FAIL vlab build: $(tail -n 2 "$out/build.log" | tr '\n' ' ')"
	for ((k = 1; k <= vms; k++)); do
		read -r -a these <<<"${part[$k]}"
		mapfile -t these < <(printf '%s\n' "${these[@]}" | sort)
		boot_start "one VM, $k of $vms" "$out/one-$k" --timeout 1500 "${these[@]}"
	done
	for ((k = 1; k <= vms; k++)); do boot_wait; done
	for ((k = 1; k <= vms; k++)); do
		read -r -a these <<<"${part[$k]}"
		guest_results "$out/one-$k" "" "${these[@]}"
		host_checks "$out/one-$k" "${these[@]}"
	done
fi

# The two-VM scripts boot their lab in the background while the SSH lab's come up and
# run (each lab takes one port of 127.0.0.1 at a time and starts again on another when it
# was taken meanwhile); their results are judged after.
mapfile -t two < <(suite "$dir/two/t_*.sh")
[ ${#two[@]} -gt 0 ] && boot_start "two VMs" "$out/two" --two-vm --timeout 900 "${two[@]}"

mapfile -t viassh < <(suite "$dir/ssh/*.sh")
if [ ${#viassh[@]} -gt 0 ]; then
	rm -rf "$out/ssh"
	mkdir -p "$out/ssh"
	if PFCLAB=$PFCLAB $vlab up --two-vm --ssh --dir "$out/ssh" >"$out/ssh/vlab.out" 2>"$out/ssh/vlab.err"; then
		defer "$vlab down --dir '$out/ssh'"
		again=$(grep -c 'starting the lab again' "$out/ssh/vlab.err")
		result <<<"OK vlab up (two VMs, SSH): $(grep -o 'up in [0-9]*s' "$out/ssh/vlab.err" | tail -n 1)$([ "$again" -gt 0 ] &&
			echo ", after $again failed boot(s): $(grep 'starting the lab again' "$out/ssh/vlab.err" | tr '\n' ' ')")"
		for s in "${viassh[@]}"; do
			name=$(basename "$s" .sh)
			VLAB_SSH_CONFIG=$out/ssh/ssh_config "$s" >"$out/ssh/$name.log" 2>&1
			rc=$?
			result < <(verdict_log "$name" "$out/ssh/$name.log" "$rc")
		done
		$vlab down --dir "$out/ssh" 2>/dev/null
	else
		result <<<"FAIL vlab up (two VMs, SSH): $(grep '^vlab' "$out/ssh/vlab.err" | tail -n 3 | tr '\n' ' ')(see $out/ssh)"
	fi
fi
if [ ${#two[@]} -gt 0 ]; then
	boot_wait
	guest_results "$out/two/a" "[a] " "${two[@]}"
	guest_results "$out/two/b" "[b] " "${two[@]}"
	host_checks "$out/two/a" "${two[@]}"
fi
plan $nres
finish
