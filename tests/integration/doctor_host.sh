#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# doctor_host.sh: 'pfclab doctor' on this host, whatever it has: every item is one of
# OK/INFO/WARN/FAIL, the text and JSON forms agree, missing devices are findings (the exit
# status pinned: 1 where this host lacks the NVIDIA driver, else from the FAIL items; never
# a crash), --section filters, bad usage exits 2 (--section cpoint without
# --congestion-point too).
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 9

[ -x "$PFCLAB" ] || { skip doctor_host "no pfclab binary at $PFCLAB"; finish; }

out=$("$PFCLAB" doctor 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
nfail=$(echo "$out" | grep -c '^  FAIL  ' || true)
# The exit status is pinned (--help: 0 no FAIL item, 1 at least one). Where this host's
# state decides it independently of the report it is taken from there: without an NVIDIA
# kernel driver (/proc/driver/nvidia/version absent) the nvidia/driver item is a FAIL
# (lab/doctor/doctor_nvidia.c), so exactly 1. On a host with the driver, the run's own
# FAIL items decide (doctor_exit_status below checks the same rule from the text).
if [ ! -e /proc/driver/nvidia/version ]; then
	want=1 why="no NVIDIA driver on this host, so nvidia/driver is a FAIL item"
elif [ "$nfail" -gt 0 ]; then
	want=1 why="$nfail FAIL items in this run"
else
	want=0 why="no FAIL item in this run"
fi
if [ "$rc" = "$want" ]; then
	ok "doctor_runs: exit $rc ($why)"
else
	fail doctor_runs "exit $rc, expected $want ($why): $(echo "$out" | tail -n 3)"
fi

bad=$(echo "$out" | grep '^  ' | grep -v -E '^  (OK|INFO|WARN|FAIL)  |^        ' || true)
[ -z "$bad" ] && ok doctor_item_levels || fail doctor_item_levels "$bad"
missing=
for s in kernel nvidia gpu rdma qos pci; do
	echo "$out" | grep -q "^\[$s\]" || missing+=" $s"
done
[ -z "$missing" ] && ok doctor_sections || fail doctor_sections "sections missing:$missing"
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
	jrc=$?
	if echo "$json" | jq -e '.items | length > 0' >/dev/null 2>&1; then
		jf=$(echo "$json" | jq '[.items[] | select(.level == "FAIL")] | length')
		sf=$(echo "$json" | jq '.summary.fail')
		nv=$(echo "$json" | jq -r '[.items[] | select(.section == "nvidia" and .item == "driver") | .level] | join(",")')
		nvok=1
		[ -e /proc/driver/nvidia/version ] || [ "$nv" = FAIL ] || nvok=0
		# the same exit status as the text run, from the same items
		[ "$jf" = "$nfail" ] && [ "$sf" = "$nfail" ] && [ "$jrc" = "$want" ] && [ $nvok = 1 ] &&
			ok doctor_json ||
			fail doctor_json "FAIL items: text $nfail, json $jf, summary $sf; exit $jrc (text $rc); nvidia/driver $nv"
	else
		fail doctor_json "not JSON: $(echo "$json" | head -c 300)"
	fi
	ks=$("$PFCLAB" doctor --json --section kernel | jq -r '[.items[].section] | unique | join(",")')
	[ "$ks" = kernel ] && ok doctor_section_filter || fail doctor_section_filter "sections: $ks"
fi

"$PFCLAB" doctor --section nosuch >/dev/null 2>&1
[ $? = 2 ] && ok doctor_usage_error || fail doctor_usage_error "bad --section did not exit 2"
# the cpoint section without its DEV would be an empty report that passes: a usage error
# naming the option it needs
out=$("$PFCLAB" doctor --section cpoint 2>&1)
rc=$?
if [ $rc = 2 ] && grep -q -- "--congestion-point DEV" <<<"$out"; then
	ok doctor_cpoint_section_needs_dev
else
	fail doctor_cpoint_section_needs_dev "exit $rc: $out"
fi

finish
