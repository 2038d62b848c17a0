# SPDX-License-Identifier: GPL-2.0-or-later
# verdict.sh: judges what one test script left behind, so that a lost result is a FAIL.
# Sourced by tests/run.sh and tests/vlab/run.sh.
#
# A script (through tests/lib.sh) prints "PLAN N" before its first result, one OK/FAIL/SKIP
# line per test, and "DONE" when it reaches `finish`. verdict_log prints the script's
# result lines and adds a FAIL line when:
#   - the log is missing (the script never ran, or its results never came back);
#   - there is no DONE line (the script died, was killed or timed out before `finish`);
#   - there is no PLAN line, or the number of results is not the plan (a test vanished or
#     one was added without saying so); a script whose every result is a SKIP may stop
#     early (it skips as a whole);
#   - the exit status is not 0 and no FAIL line says why.

# verdict_log NAME LOG RC [PREFIX]: RC is the script's exit status ("" when unknown);
# PREFIX is put in front of every result line's text (e.g. "[a] ").
verdict_log() {
	local name=$1 log=$2 rc=$3 pre=${4:-} n nfail nskip plan
	if [ ! -f "$log" ]; then
		echo "FAIL ${pre}$name: no result came back (no $log)"
		return
	fi
	sed -n "s/^\(OK\|FAIL\|SKIP\) /\1 $(printf '%s' "$pre" | sed 's/[\/&[]/\\&/g')/p" "$log"
	n=$(grep -cE '^(OK|FAIL|SKIP) ' "$log")
	nfail=$(grep -c '^FAIL ' "$log")
	nskip=$(grep -c '^SKIP ' "$log")
	plan=$(sed -n 's/^PLAN \([0-9][0-9]*\)$/\1/p' "$log" | head -n 1)
	if ! grep -q '^DONE$' "$log"; then
		echo "FAIL ${pre}$name: ended before finishing (exit ${rc:-unknown}, $n results; see $log)"
		return
	fi
	if [ -z "$plan" ]; then
		echo "FAIL ${pre}$name: declares no plan (call 'plan N' after sourcing tests/lib.sh)"
	elif [ "$n" -ne "$plan" ] && ! { [ "$n" -ge 1 ] && [ "$nskip" -eq "$n" ]; }; then
		echo "FAIL ${pre}$name: $n results for a plan of $plan (see $log)"
	fi
	if [ -n "$rc" ] && [ "$rc" -ne 0 ] && [ "$nfail" -eq 0 ]; then
		echo "FAIL ${pre}$name: exit $rc (see $log)"
	fi
}
