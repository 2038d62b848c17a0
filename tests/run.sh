#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: pfclab's test runner. Runs unit tests (plain and under ASan+UBSan), host
# integration tests, the virtual-lab suite and GPU tests; prints one OK/FAIL/SKIP line
# per test and ends with "N passed, N failed, N skipped" (before it, the five slowest
# scripts, every script's seconds in build/test-logs/durations.tsv, and each failure's
# line again). Exit 1 on any failure.
# The fuzz scripts run two at a time where there are two CPUs; PFCLAB_TEST_SERIAL=1
# runs every script alone. Given NAMEs, it runs only those tests: a unit test (test_numfmt:
# its binary plain and under ASan), a host script (monitor_veth, fuzz_rm), a GPU script,
# or a virtual-lab script (t_traffic_sec, two/t_two_vm, ssh/run_ssh_guests: the lab boots
# for just those). tests/README.md says more.
#   tests/run.sh [--only unit|host|vlab|gpu]... [NAME...]
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD:-build}
logs=$build/test-logs
mkdir -p "$logs"
: >"$logs/durations.tsv"	# seconds and script, one line per script run

only=() names=()
while [ $# -gt 0 ]; do
	case $1 in
	--only)
		case ${2:-} in
		unit|host|vlab|gpu) only+=("$2"); shift 2 ;;
		*) echo "run.sh: --only takes unit, host, vlab or gpu, not '${2:-}'" >&2; exit 2 ;;
		esac ;;
	-h|--help) sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown option '$1' (see tests/run.sh --help)" >&2; exit 2 ;;
	*) names+=("${1%.sh}"); shift ;;
	esac
done

# Named tests: each NAME is looked up in every layer; one that names nothing is an error
# (a typo must not pass as "0 failed").
sel_unit=() sel_host=() sel_vlab=() sel_gpu=()
for n in "${names[@]}"; do
	found=false
	[ -e "tests/unit/$n.c" ] && { sel_unit+=("$n"); found=true; }
	[ -e "tests/integration/$n.sh" ] && { sel_host+=("tests/integration/$n.sh"); found=true; }
	[ -e "tests/gpu/$n.sh" ] && { sel_gpu+=("tests/gpu/$n.sh"); found=true; }
	case $n in
	t_*|two/t_*|ssh/*) [ -e "tests/vlab/$n.sh" ] && { sel_vlab+=("tests/vlab/$n.sh"); found=true; } ;;
	esac
	$found || { echo "run.sh: no test named '$n' (a tests/unit/NAME.c, tests/integration/NAME.sh, tests/gpu/NAME.sh or tests/vlab/NAME.sh)" >&2; exit 2; }
done
want() { # LAYER: run this layer (with names: only when a name is in it)
	local o
	if [ ${#names[@]} -gt 0 ]; then
		case $1 in
		unit) [ ${#sel_unit[@]} -gt 0 ] ;; host) [ ${#sel_host[@]} -gt 0 ] ;;
		vlab) [ ${#sel_vlab[@]} -gt 0 ] ;; gpu) [ ${#sel_gpu[@]} -gt 0 ] ;;
		esac || return 1
	fi
	[ ${#only[@]} -eq 0 ] && return 0
	for o in "${only[@]}"; do [ "$o" = "$1" ] && return 0; done
	return 1
}

pass=0 skipn=0 failed=()	# failed: each FAIL line, its count the failures
tally() { # reads OK/FAIL/SKIP lines from stdin, echoes them, counts them
	local line
	while IFS= read -r line; do
		case $line in
		"OK "*) pass=$((pass + 1)); echo "$line" ;;
		"FAIL "*) failed+=("${line#FAIL }"); echo "$line" ;;
		"SKIP "*) skipn=$((skipn + 1)); echo "$line" ;;
		esac
	done
}

source "$root/tests/verdict.sh"

# Unit tests speak TAP through cmocka; one result line per test case. cmocka prints a
# skip as "not ok N # SKIP name". The TAP plan ("1..N") must match the cases reported.
unit_exec() { # $1 = binary, $2 = label prefix: runs it, its TAP, stderr and status to $logs
	local name
	name=$(basename "$1")
	CMOCKA_MESSAGE_OUTPUT=TAP "$1" >"$logs/$2-$name.tap" 2>"$logs/$2-$name.err"
	echo $? >"$logs/$2-$name.rc"
}
run_unit() { # $1 = binary, $2 = label prefix; $3 = "ran": unit_exec has run it
	local bin=$1 tag=$2 name out rc plan n
	name=$(basename "$bin")
	[ "${3:-}" = ran ] || unit_exec "$bin" "$tag"
	out=$(cat "$logs/$tag-$name.tap")
	rc=$(cat "$logs/$tag-$name.rc")
	tally < <(echo "$out" | awk -v p="$tag/$name" '
		/^not ok [0-9]+ # SKIP/ { sub(/^not ok [0-9]+ # SKIP */, ""); print "SKIP " p "/" $0 ": skipped by the test"; next }
		/^ok [0-9]+ .*# SKIP/ { sub(/^ok [0-9]+ - /, ""); print "SKIP " p "/" $0; next }
		/^not ok/ { sub(/^not ok [0-9]+ - /, ""); print "FAIL " p "/" $0; next }
		/^ok / { sub(/^ok [0-9]+ - /, ""); print "OK " p "/" $0; next }')
	plan=$(echo "$out" | sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' | head -n 1)
	n=$(echo "$out" | grep -cE '^(not )?ok [0-9]+')
	if [ -z "$plan" ] || [ "$plan" -eq 0 ] || [ "$n" -ne "$plan" ]; then
		tally <<<"FAIL $tag/$name: $n results for a TAP plan of ${plan:-none} (see $logs/$tag-$name.tap)"
	fi
	if [ $rc -ne 0 ] && ! echo "$out" | grep -q '^not ok [0-9]* - '; then
		tally <<<"FAIL $tag/$name: exit $rc (see $logs/$tag-$name.err)"
		tail -n 20 "$logs/$tag-$name.err" >&2
	fi
}

script_log() { echo "$logs/$(basename "$(dirname "$1")")-$(basename "$1" .sh).log"; }

# judge SCRIPT RC SECONDS: the verdict on a script that has ended
judge() {
	local s=$1 rc=$2 log
	log=$(script_log "$s")
	printf '%d\t%s\n' "$3" "$s" >>"$logs/durations.tsv"
	tally < <(verdict_log "$(basename "$s" .sh)" "$log" "$rc")
	[ "$rc" -eq 0 ] || tail -n 20 "$log" >&2
}

# runnable SCRIPT: true, or its FAIL line counted
runnable() {
	[ -x "$1" ] && return 0
	tally <<<"FAIL $(basename "$1" .sh): $1 is not executable"
	return 1
}

run_script() { # $1 = script; its results are judged by verdict_log
	local s=$1 rc t
	runnable "$s" || return
	t=$SECONDS
	${RUN_NICE:+nice -n "$RUN_NICE"} "$s" >"$(script_log "$s")" 2>&1
	rc=$?
	judge "$s" $rc $((SECONDS - t))
}

# A script in the background, judged when bg_finish waits for it.
bg_script= bg_pid= bg_t=
bg_start() {
	bg_script= bg_t=$SECONDS
	runnable "$1" || return
	bg_script=$1
	"$1" >"$(script_log "$1")" 2>&1 &
	bg_pid=$!
}
bg_finish() {
	local rc
	[ -n "$bg_script" ] || return 0
	wait "$bg_pid"
	rc=$?
	judge "$bg_script" $rc $((SECONDS - bg_t))
	bg_script=
}

# every unit test source has its binary, plain and sanitized
unit_list() { # the unit test sources to run
	local list=(tests/unit/test_*.c)
	[ ${#sel_unit[@]} -gt 0 ] && list=("${sel_unit[@]/#/tests/unit/}") && list=("${list[@]/%/.c}")
	printf '%s\n' "${list[@]}"
}
run_units() { # $1 = folder of the binaries, $2 = label prefix, $3 = "ran": already run
	local c b
	for c in $(unit_list); do
		b=$1/$(basename "$c" .c)
		if [ -x "$b" ]; then run_unit "$b" "$2" "${3:-}"
		else tally <<<"FAIL $2/$(basename "$b"): $b not built (make unit)"; fi
	done
}

if want unit; then
	# A comma-decimal locale for the checks that numbers are written with '.' whatever
	# the locale (test_out_double): built from the locales package's sources into the
	# build folder, which the test reaches through LOCPATH; the system's are not touched.
	if command -v localedef >/dev/null && [ -e /usr/share/i18n/locales/de_DE ] &&
		{ [ -e "$build/locale/de_DE.UTF-8/LC_NUMERIC" ] ||
		  { mkdir -p "$build/locale" &&
		    localedef -i de_DE -f UTF-8 "$build/locale/de_DE.UTF-8" >"$logs/localedef.log" 2>&1; }; }; then
		PFCLAB_TEST_LOCPATH=$(cd "$build/locale" && pwd) && export PFCLAB_TEST_LOCPATH
	fi
	# The sanitized binaries run in the background beside the plain ones where there are
	# two CPUs (no unit test times anything); their results are judged after.
	if [ "${PFCLAB_TEST_SERIAL:-0}" != 1 ] && [ "$(nproc 2>/dev/null || echo 1)" -ge 2 ]; then
		( for c in $(unit_list); do
			b=$build/asan/tests/$(basename "$c" .c)
			[ -x "$b" ] && unit_exec "$b" asan
		  done ) &
		asan_pid=$!
		run_units "$build/tests" unit
		wait $asan_pid
		run_units "$build/asan/tests" asan ran
	else
		run_units "$build/tests" unit
		run_units "$build/asan/tests" asan
	fi
fi

# The fuzz scripts are bound by their time alone and time nothing: after the first,
# which builds every target, two run at once where there are two CPUs, and no other
# script runs beside them (the rest check timing: the virtual-lab suite's guests, the
# monitor's intervals, the dashboard's keys). PFCLAB_TEST_SERIAL=1: one at a time.
run_fuzz() {
	local f=(tests/integration/fuzz_*.sh) i pair=true
	[ "${PFCLAB_TEST_SERIAL:-0}" = 1 ] || [ "$(nproc 2>/dev/null || echo 1)" -lt 2 ] && pair=false
	[ -e "${f[0]}" ] || return 0
	run_script "${f[0]}"
	for ((i = 1; i < ${#f[@]}; i++)); do
		if $pair && [ $((i + 1)) -lt ${#f[@]} ]; then
			bg_start "${f[i + 1]}"
			run_script "${f[i]}"
			bg_finish
			i=$((i + 1))
		else
			run_script "${f[i]}"
		fi
	done
}

# A host script that times nothing and starts no guest says so in a line of its own,
# "# runs beside the virtual lab", and runs at nice 10 while the virtual-lab suite runs
# (in the background): it fills the CPU the guests leave idle and takes none they need.
# The others (fuzzing, the scripts that time, the ones that boot QEMU) run first, alone.
beside=()
if want host; then
	if [ ${#sel_host[@]} -gt 0 ]; then
		for s in "${sel_host[@]}"; do run_script "$s"; done
	else
		run_fuzz
		for s in tests/integration/*.sh; do
			[[ $(basename "$s") == fuzz_* ]] && continue
			if want vlab && [ ${#names[@]} -eq 0 ] && grep -q '^# runs beside the virtual lab' "$s"; then
				beside+=("$s")
				continue
			fi
			run_script "$s"
		done
	fi
fi
if want vlab; then
	# named: the suite runner boots the lab for those scripts alone
	if [ ${#beside[@]} -gt 0 ]; then
		VLAB_SUITE_ONLY="${sel_vlab[*]}" bg_start tests/vlab/run.sh
		for s in "${beside[@]}"; do RUN_NICE=10 run_script "$s"; done
		bg_finish
	else
		VLAB_SUITE_ONLY="${sel_vlab[*]}" run_script tests/vlab/run.sh
	fi
fi
if want gpu; then
	[ ${#sel_gpu[@]} -gt 0 ] || sel_gpu=(tests/gpu/*.sh)
	for s in "${sel_gpu[@]}"; do run_script "$s"; done
fi

echo "logs: $logs"
if [ -s "$logs/durations.tsv" ]; then	# where the time went: the five slowest scripts
	echo "slowest: $(sort -rn "$logs/durations.tsv" | head -n 5 |
		awk -F '\t' '{ printf "%s%s %d s", (NR > 1 ? ", " : ""), $2, $1 }') (all: $logs/durations.tsv)"
fi
# the failures again, next to the count: a run's last lines are what a CI page keeps
for f in "${failed[@]}"; do echo "failed: ${f:0:800}"; done
echo "$pass passed, ${#failed[@]} failed, $skipn skipped"
[ ${#failed[@]} -eq 0 ]
