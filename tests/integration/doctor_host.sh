#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# doctor_host.sh: 'pfclab doctor' on this host, whatever it has: every item is one of
# OK/INFO/WARN/FAIL, the text and JSON forms agree, missing devices are findings (exit 0 or
# 1, never a crash), --section filters, bad usage exits 2.
source "$(dirname "$0")/../lib.sh"
plan 8

[ -x "$PFCLAB" ] || { skip doctor_host "no pfclab binary at $PFCLAB"; finish; }

out=$("$PFCLAB" doctor 2>&1)
rc=$?
if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
	ok doctor_runs
else
	fail doctor_runs "exit $rc: $(echo "$out" | tail -n 3)"
fi
echo "$out" | sed 's/^/# /'

bad=$(echo "$out" | grep '^  ' | grep -v -E '^  (OK|INFO|WARN|FAIL)  |^        ' || true)
[ -z "$bad" ] && ok doctor_item_levels || fail doctor_item_levels "$bad"
missing=
for s in kernel nvidia gpu rdma qos pci; do
	echo "$out" | grep -q "^\[$s\]" || missing+=" $s"
done
[ -z "$missing" ] && ok doctor_sections || fail doctor_sections "sections missing:$missing"
nfail=$(echo "$out" | grep -c '^  FAIL  ' || true)
if { [ "$nfail" -gt 0 ] && [ "$rc" = 1 ]; } || { [ "$nfail" = 0 ] && [ "$rc" = 0 ]; }; then
	ok doctor_exit_status
else
	fail doctor_exit_status "exit $rc with $nfail FAIL items"
fi
# Every WARN/FAIL carries a fix line.
nofix=$(echo "$out" | awk '/^  (WARN|FAIL)  /{ w = $0; getline n; if (n !~ /fix: /) print w }')
[ -z "$nofix" ] && ok doctor_fixes || fail doctor_fixes "$nofix"

if need_cmd doctor_json jq; then
	json=$("$PFCLAB" doctor --json 2>&1)
	if echo "$json" | jq -e '.items | length > 0' >/dev/null 2>&1; then
		jf=$(echo "$json" | jq '[.items[] | select(.level == "FAIL")] | length')
		sf=$(echo "$json" | jq '.summary.fail')
		[ "$jf" = "$nfail" ] && [ "$sf" = "$nfail" ] && ok doctor_json ||
			fail doctor_json "FAIL items: text $nfail, json $jf, summary $sf"
	else
		fail doctor_json "not JSON: $(echo "$json" | head -c 300)"
	fi
	ks=$("$PFCLAB" doctor --json --section kernel | jq -r '[.items[].section] | unique | join(",")')
	[ "$ks" = kernel ] && ok doctor_section_filter || fail doctor_section_filter "sections: $ks"
fi

"$PFCLAB" doctor --section nosuch >/dev/null 2>&1
[ $? = 2 ] && ok doctor_usage_error || fail doctor_usage_error "bad --section did not exit 2"

finish
