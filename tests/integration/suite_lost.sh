#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# suite_lost.sh: a result that is lost is a FAIL. The verdict on one script's log
# (tests/verdict.sh): no log, no DONE line, fewer results than the plan, no plan, a
# non-zero exit without a FAIL line. The virtual-lab suite with a stand-in vlab command:
# an exit other than 0 and a results folder missing a script. Then a real guest killed
# while its script runs (its QEMU process killed from here): `tests/run.sh --only vlab`,
# which is what `make test` runs last, ends with failures and exit 1.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../verdict.sh"
plan 13

tmp=$(mktemp -d)
defer rm -rf "$tmp"

# 1. verdict_log on hand-made logs
printf 'PLAN 2\nOK a\nOK b\nDONE\n' >"$tmp/good.log"
printf 'PLAN 3\nOK a\nOK b\nDONE\n' >"$tmp/short.log"
printf 'PLAN 2\nOK a\n' >"$tmp/died.log"
printf 'OK a\nDONE\n' >"$tmp/noplan.log"
printf 'PLAN 4\nSKIP a: no GPU\nDONE\n' >"$tmp/skipall.log"
printf 'PLAN 1\nOK a\nDONE\n' >"$tmp/exit1.log"
v() { verdict_log "$1" "$tmp/$1.log" "${2:-0}"; }
expect() { # NAME WANT GOT: GOT's FAIL lines must be WANT (a pattern, or "none")
	local name=$1 want=$2 got fails
	got=$3
	fails=$(echo "$got" | grep '^FAIL ' | sed 's/ (see .*//')
	if [ "$want" = none ] && [ -z "$fails" ]; then ok "$name"
	elif [ "$want" != none ] && [ "$(echo "$fails" | wc -l)" = 1 ] && echo "$fails" | grep -q "$want"; then
		ok "$name"
	else
		fail "$name" "want ${want}, got: $(echo "$got" | tr '\n' '|')"
	fi
}
expect "verdict: plan met, DONE, exit 0: no FAIL" none "$(v good)"
expect "verdict: 2 results for a plan of 3 is a FAIL" "short: 2 results for a plan of 3" "$(v short)"
expect "verdict: no DONE (the script died) is a FAIL" "died: ended before finishing (exit 137" "$(v died 137)"
expect "verdict: no plan is a FAIL" "noplan: declares no plan" "$(v noplan)"
expect "verdict: a script skipped as a whole may stop early" none "$(v skipall)"
expect "verdict: exit 1 without a FAIL line is a FAIL" "exit1: exit 1" "$(v exit1 1)"
expect "verdict: a missing log is a FAIL" "gone: no result came back" "$(verdict_log gone "$tmp/none.log" '')"

# 2. the vlab suite with a stand-in for lab/vlab/vlab: MODE says what it leaves behind
mkdir -p "$tmp/suite"
for t in t_one t_two; do printf '#!/bin/bash\n' >"$tmp/suite/$t.sh"; done
cat >"$tmp/fakevlab" <<'EOF'
#!/bin/bash
# stand-in for `vlab run --out DIR [opts] SCRIPT...`
out=$3
shift 3
while [ "${1#--}" != "$1" ]; do shift 2; done
[ "$MODE" = lost ] && exit 1
for s in "$@"; do
	n=$(basename "$s" .sh)
	[ "$MODE" = missing ] && [ "$n" = t_two ] && continue
	mkdir -p "$out/$n"
	if [ "$MODE" = failed ] && [ "$n" = t_two ]; then
		printf 'PLAN 1\nFAIL %s broke: why\nDONE\n' "$n" >"$out/$n/log.txt"
		echo 1 >"$out/$n/rc"
		continue
	fi
	printf 'PLAN 1\nOK %s works\nDONE\n' "$n" >"$out/$n/log.txt"
	echo 0 >"$out/$n/rc"
done
[ "$MODE" = failed ] && { echo "vlab: booting one VM topology (TCG)" >&2; exit 1; }
exit 0
EOF
chmod +x "$tmp/fakevlab"
suite() { # MODE: run the vlab suite with the stand-in; sets out, rc
	out=$(MODE=$1 VLAB_CMD=$tmp/fakevlab VLAB_SUITE_DIR=$tmp/suite VLAB_SUITE_OUT=$tmp/out-$1 \
		"$PFCLAB_ROOT/tests/vlab/run.sh" 2>&1)
	rc=$?
}
suite ok
if [ $rc -eq 0 ] && [ "$(echo "$out" | grep -c '^OK ')" = 2 ] && ! echo "$out" | grep -q '^FAIL'; then
	ok "vlab suite: both scripts came back, exit 0"
else
	fail "vlab suite: both scripts came back" "rc $rc: $(echo "$out" | tr '\n' '|')"
fi
suite lost
if [ $rc -ne 0 ] && echo "$out" | grep -q '^FAIL vlab boot (one VM): vlab run exit 1' &&
	[ "$(echo "$out" | grep -c '^FAIL t_\(one\|two\): no result came back')" = 2 ]; then
	ok "vlab suite: vlab exit 1 with no results: a FAIL for the boot and for each script"
else
	fail "vlab suite: vlab exit 1 with no results" "rc $rc: $(echo "$out" | tr '\n' '|')"
fi
suite missing
if [ $rc -ne 0 ] && echo "$out" | grep -q '^FAIL t_two: no result came back' &&
	echo "$out" | grep -q '^OK t_one works'; then
	ok "vlab suite: a script missing from the results is a FAIL"
else
	fail "vlab suite: a script missing from the results" "rc $rc: $(echo "$out" | tr '\n' '|')"
fi
suite failed
if [ $rc -ne 0 ] && echo "$out" | grep -q '^FAIL vlab boot (one VM): vlab run exit 1: guest scripts that exited non-zero: t_two (exit 1); ' &&
	echo "$out" | grep -q '^FAIL t_two broke: why' && echo "$out" | grep -q '^OK t_one works'; then
	ok "vlab suite: a guest script that failed is named in the boot's FAIL line, its own FAIL follows"
else
	fail "vlab suite: a failed guest script named" "rc $rc: $(echo "$out" | tr '\n' '|')"
fi

# 3. a real guest killed while its script runs
name="killed guest: make test's vlab layer fails"
if ! command -v qemu-system-x86_64 >/dev/null; then
	skip "$name" "qemu-system-x86_64 not installed (make deps)"
	skip "killed guest: its QEMU process was killed" "qemu-system-x86_64 not installed"
	finish
fi
rm -rf "$tmp/suite" && mkdir -p "$tmp/suite"
cat >"$tmp/suite/t_sleeper.sh" <<'EOF'
#!/usr/bin/env bash
source "$PFCLAB_ROOT/tests/lib.sh"
plan 2
ok "sleeper: first result"
sleep 120
ok "sleeper: second result"
finish
EOF
BUILD=$tmp/build VLAB_SUITE_DIR=$tmp/suite VLAB_SUITE_OUT=$tmp/real "$PFCLAB_ROOT/tests/run.sh" --only vlab \
	>"$tmp/real.out" 2>&1 &
rpid=$!
defer kill $rpid
killed=
for _ in $(seq 600); do
	if grep -q 'VLAB-BEGIN t_sleeper' "$tmp/real/one/console-a.log" 2>/dev/null; then
		qpid=$(cat "$tmp/real/one/qemu-a.pid" 2>/dev/null)
		[ -n "$qpid" ] && kill -9 "$qpid" && killed=$qpid
		break
	fi
	kill -0 $rpid 2>/dev/null || break
	sleep 0.5
done
wait $rpid
rc=$?
if [ -n "$killed" ]; then ok "killed guest: its QEMU process ($killed) was killed during the script"
else fail "killed guest: its QEMU process was killed" "the script never started: $(tail -n 3 "$tmp/real.out" | tr '\n' '|')"; fi
if [ $rc -eq 1 ] && grep -q '^FAIL vlab boot (one VM): vlab run exit' "$tmp/real.out" &&
	grep -q '^FAIL t_sleeper: no result came back' "$tmp/real.out" &&
	grep -q '^0 passed, 2 failed, 0 skipped$' "$tmp/real.out"; then
	ok "$name (exit 1: $(tail -n 1 "$tmp/real.out"))"
else
	fail "$name" "rc $rc: $(grep -E '^(OK|FAIL|SKIP|[0-9]+ passed)' "$tmp/real.out" | tr '\n' '|')"
fi
finish
