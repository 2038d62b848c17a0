#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_replay.sh: the libFuzzer target (tests/fuzz.sh) for a results folder's host as
# "pfclab top --replay" loads it (meta.json, a line "%%", samples.csv, then optionally
# "%%", review-timeline.csv, "%%", capture.json), for FUZZ_SECONDS (default 15), seeded
# with a real record taken on lo, alone and with a capture timeline on its wall clock
# (with and without the pfc_prioN columns, and with a damaged line) and a capture.json.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fuzz.sh"
plan 1

fuzz_start fuzz_replay || finish
mon=$FUZZ_WORK/mon
timeout 10 "$PFCLAB" monitor -i lo --record "$mon" --interval 100ms --duration 350ms -q \
	>/dev/null 2>&1
if [ -s "$mon/meta.json" ] && [ -s "$mon/samples.csv" ]; then
	{ cat "$mon/meta.json"; printf '\n%%%%\n'; cat "$mon/samples.csv"; } >"$FUZZ_CORPUS/lo"
	# tl PRIO: 40 bins of 10 ms from the record's first wall_ns, 2 PFC frames on priority
	# 3 in each with 5 ms of pause, a CNP and 3 CE marks (PRIO 1: the pfc_prioN columns)
	tl() {
		awk -F, -v prio="$1" 'NR == 2 { w = $3 } END {
			printf "time_s,frames,pause,pfc,cnp,roce,roce_ce,other,truncated,invalid"
			for (q = 0; q < 8; q++) printf ",paused_ns_prio%d", q
			printf ",paused_ns_pause"
			if (prio) for (q = 0; q < 8; q++) printf ",pfc_prio%d", q
			printf "\n"
			s = int(w / 1e9); ns = int((w - s * 1e9) / 1e7) * 1e7
			for (i = 0; i < 40; i++) {
				t = ns + i * 1e7
				printf "%d.%09d,6,0,2,1,3,3,0,0,0,0,0,0,5000000,0,0,0,0,0", s + int(t / 1e9), t % 1e9
				if (prio) printf ",0,0,0,2,0,0,0,0"
				printf "\n"
			} }' "$mon/samples.csv"
	}
	cj='{"kinds":{"pause":0,"pfc":80,"cnp":40,"roce_ce":120},"pfc_frames_per_priority":[0,0,0,80,0,0,0,0]}'
	for v in 0 1; do
		{ cat "$FUZZ_CORPUS/lo"; printf '\n%%%%\n'; tl $v; printf '%%%%\n%s\n' "$cj"; } \
			>"$FUZZ_CORPUS/lo-timeline$v"
	done
	{ cat "$FUZZ_CORPUS/lo"; printf '\n%%%%\n'; tl 1 | sed '7s/,1,3,3,/,x,3,/'; } \
		>"$FUZZ_CORPUS/lo-timeline-bad"
	fuzz_run -max_len=65536
else
	fail fuzz_replay "no seed: pfclab monitor --record on lo wrote no meta.json and samples.csv"
fi
finish
