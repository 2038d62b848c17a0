#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# golden.sh: decoder/review golden files, tcpdump style. Each tests/golden/<case>/ has
# input.pcap, expected.txt (the output of `pfclab review $(cat args) input.pcap`) and,
# where the capture is synthetic, gen.sh (the pfclab inject calls that make it; the
# input is regenerated and must be identical, which also checks inject).
#   tests/integration/golden.sh [--regen]   (--regen rewrites input.pcap and expected.txt)
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan $(ls -d "$PFCLAB_ROOT"/tests/golden/*/ | wc -l)

regen=0
[ "${1:-}" = --regen ] && regen=1
[ -x "$PFCLAB" ] || { skip golden "no pfclab binary at $PFCLAB"; finish; }
tmp=$(mktemp -d)
defer rm -rf "$tmp"

for dir in "$PFCLAB_ROOT"/tests/golden/*/; do
	case=$(basename "$dir")
	args=$(cat "$dir/args" 2>/dev/null)
	if [ -f "$dir/gen.sh" ]; then
		OUT="$tmp/$case.pcap"
		rm -f "$OUT"
		if ! (OUT=$OUT PFCLAB=$PFCLAB; set -e; source "$dir/gen.sh") >"$tmp/gen.log" 2>&1; then
			fail "golden/$case" "gen.sh failed: $(tail -n 2 "$tmp/gen.log" | tr '\n' ' ')"
			continue
		fi
		if [ $regen = 1 ]; then
			cp "$OUT" "$dir/input.pcap"
		elif ! cmp -s "$OUT" "$dir/input.pcap"; then
			fail "golden/$case" "pfclab inject made a different input.pcap than the stored one"
			continue
		fi
	fi
	[ -f "$dir/input.pcap" ] || { skip "golden/$case" "no input.pcap yet"; continue; }
	# shellcheck disable=SC2086
	(cd "$dir" && "$PFCLAB" review $args input.pcap) >"$tmp/$case.out" 2>"$tmp/$case.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "golden/$case" "review exit $rc: $(head -n 2 "$tmp/$case.err" | tr '\n' ' ')"
		continue
	fi
	if [ $regen = 1 ]; then
		cp "$tmp/$case.out" "$dir/expected.txt"
		ok "golden/$case (regenerated)"
	elif diff -u "$dir/expected.txt" "$tmp/$case.out" >"$tmp/$case.diff"; then
		ok "golden/$case"
	else
		fail "golden/$case" "review output differs from expected.txt"
		cat "$tmp/$case.diff" >&2
	fi
done
finish
