#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: pfclab's test runner. Runs unit tests (plain and under ASan+UBSan), host
# integration tests, the virtual-lab suite and GPU tests; prints one OK/FAIL/SKIP line
# per test and ends with "N passed, N failed, N skipped". Exit 1 on any failure.
#   tests/run.sh [--only unit|host|vlab|gpu]...
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD:-build}
logs=$build/test-logs
mkdir -p "$logs"

only=()
while [ $# -gt 0 ]; do
	case $1 in
	--only) only+=("$2"); shift 2 ;;
	-h|--help) sed -n '3,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
want() { [ ${#only[@]} -eq 0 ] && return 0; local o; for o in "${only[@]}"; do [ "$o" = "$1" ] && return 0; done; return 1; }

pass=0 failn=0 skipn=0
tally() { # reads OK/FAIL/SKIP lines from stdin, echoes them, counts them
	local line
	while IFS= read -r line; do
		case $line in
		"OK "*) pass=$((pass + 1)); echo "$line" ;;
		"FAIL "*) failn=$((failn + 1)); echo "$line" ;;
		"SKIP "*) skipn=$((skipn + 1)); echo "$line" ;;
		esac
	done
}

# Unit tests speak TAP through cmocka; one result line per test case.
run_unit() { # $1 = binary, $2 = label prefix
	local bin=$1 tag=$2 name out rc
	name=$(basename "$bin")
	out=$(CMOCKA_MESSAGE_OUTPUT=TAP "$bin" 2>"$logs/$tag-$name.err")
	rc=$?
	echo "$out" >"$logs/$tag-$name.tap"
	local n=0
	tally < <(echo "$out" | awk -v p="$tag/$name" '
		/^not ok/ { sub(/^not ok [0-9]+ - /, ""); print "FAIL " p "/" $0; n++; next }
		/^ok .*# SKIP/ { sub(/^ok [0-9]+ - /, ""); print "SKIP " p "/" $0; n++; next }
		/^ok / { sub(/^ok [0-9]+ - /, ""); print "OK " p "/" $0; n++; next }
		END { if (n == 0) print "FAIL " p ": no test ran" }')
	if [ $rc -ne 0 ] && ! echo "$out" | grep -q '^not ok'; then
		tally <<<"FAIL $tag/$name: exit $rc (see $logs/$tag-$name.err)"
		tail -n 20 "$logs/$tag-$name.err" >&2
	fi
}

run_script() { # $1 = script; its OK/FAIL/SKIP lines are counted
	local s=$1 name log rc
	name=$(basename "$s" .sh)
	log="$logs/$(basename "$(dirname "$s")")-$name.log"
	"$s" >"$log" 2>&1
	rc=$?
	tally <"$log"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$log"; then
		tally <<<"FAIL $name: exit $rc (see $log)"
		tail -n 20 "$log" >&2
	fi
}

if want unit; then
	for b in "$build"/tests/test_*; do [ -x "$b" ] && run_unit "$b" unit; done
	for b in "$build"/asan/tests/test_*; do [ -x "$b" ] && run_unit "$b" asan; done
fi
if want host; then
	for s in tests/integration/*.sh; do [ -x "$s" ] && run_script "$s"; done
fi
if want vlab; then
	run_script tests/vlab/run.sh
fi
if want gpu; then
	for s in tests/gpu/*.sh; do [ -x "$s" ] && run_script "$s"; done
fi

echo "logs: $logs"
echo "$pass passed, $failn failed, $skipn skipped"
[ "$failn" -eq 0 ]
