# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz.sh: for tests/integration/fuzz_*.sh, sourced after tests/lib.sh. Each of those
# scripts seeds a corpus and runs one libFuzzer target (ASan+UBSan, leaks checked) for a
# bounded time:
#   fuzz_start NAME [SECONDS]   needs clang, builds every target (make fuzz), makes the
#                               corpus folder $FUZZ_CORPUS and a work folder $FUZZ_WORK
#                               (the target's TMPDIR); returns 1 after printing SKIP or
#                               FAIL (the script then finishes)
#   fuzz_run [LIBFUZZER_OPTION...]
#                               runs build/fuzz/NAME over the corpus for FUZZ_SECONDS
#                               (default SECONDS, else 15) and prints OK or FAIL; the
#                               input that failed stays in build/fuzz/crash-NAME-* to
#                               run again (build/fuzz/NAME FILE)
FUZZ_NAME= FUZZ_CORPUS= FUZZ_WORK= FUZZ_SECS=

fuzz_start() {
	local out
	FUZZ_NAME=$1
	FUZZ_SECS=${FUZZ_SECONDS:-${2:-15}}
	need_cmd "$FUZZ_NAME" clang make || return 1
	cd "$PFCLAB_ROOT" || return 1
	if ! out=$(make -s -j"$(nproc 2>/dev/null || echo 1)" BUILD="${BUILD:-build}" fuzz 2>&1); then
		fail "$FUZZ_NAME" "build failed: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	FUZZ_CORPUS=$(mktemp -d) FUZZ_WORK=$(mktemp -d)
	defer rm -rf "$FUZZ_CORPUS" "$FUZZ_WORK"
}

fuzz_run() {
	local log runs
	log=$(mktemp)
	defer rm -f "$log"
	if TMPDIR=$FUZZ_WORK "${BUILD:-build}/fuzz/$FUZZ_NAME" -max_total_time="$FUZZ_SECS" \
		-print_final_stats=1 -artifact_prefix="${BUILD:-build}/fuzz/crash-$FUZZ_NAME-" "$@" \
		"$FUZZ_CORPUS" >"$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		ok "$FUZZ_NAME ($runs executions in ${FUZZ_SECS}s, no crash or leak)"
	else
		fail "$FUZZ_NAME" "crash, leak or sanitizer report: $(grep -m1 -E 'ERROR|runtime error|deadly signal' "$log")"
		cat "$log" >&2
	fi
}

# fuzz_seed_records: seeds for the readers of what a point leaves on a host: a real
# monitor record, capture summary, review and review timeline taken on lo; fixtures for
# traffic lines (no RDMA device here to write real ones), a review with PFC priorities
# (nothing here sends PFC), with time-order figures (late frames, bad timestamps) and CE
# shares both given and n/a, and a timeline with paused time per priority; and lines of
# the wrong types that once crashed the readers (kept as regressions). Returns 1 when
# pfclab wrote no record or review on lo.
fuzz_seed_records() {
	local c=$FUZZ_CORPUS w=$FUZZ_WORK
	timeout 10 "$PFCLAB" monitor -i lo --record "$w/mon" --interval 100ms --duration 350ms -q \
		>/dev/null 2>&1
	head -c 12000 "$w/mon/samples.jsonl" >"$c/samples.jsonl" 2>/dev/null
	timeout 10 "$PFCLAB" capture -i lo -D 200ms --pcapng -w "$w/c.pcapng" --json -q \
		>"$c/capture.json" 2>/dev/null
	"$PFCLAB" review --json "$w/c.pcapng" >"$c/review.json" 2>/dev/null
	"$PFCLAB" review --timeline 10ms "$w/c.pcapng" >"$c/review-timeline.csv" 2>/dev/null
	{
		echo '{"type":"start","role":"client","mode":"bidirectional","qps":1,"mtu":1024}'
		echo '{"type":"interval","phase":0,"size":65536,"t":1.0364,"tx":{"bytes":26738688,"msgs":408,"seconds":1.0364,"gbps":0.206397,"completions":102,"errors":0},"rx":null,"run_phase":"x","run_role":"client","run_file":"traffic-x-client-a.jsonl"}'
		echo '{"type":"summary","phase":0,"size":65536,"t":3.048,"interrupted":false,"tx":{"bytes":87818240,"msgs":1340,"seconds":3.04756,"gbps":0.230527,"errors":0},"rx":{"bytes":100139008,"msgs":1528,"seconds":3.0015,"gbps":0.266904,"completions":null,"errors":0},"in_flight":0,"run_phase":"x","run_role":"client","run_file":"traffic-x-client-a.jsonl"}'
	} >"$c/traffic.jsonl"
	echo '{"kinds":{"pfc":12,"pause":1,"cnp":4,"roce":0},"ecn_flows":[{"ce":3},{"ce":5}],"pause":{"priorities":[{"priority":3,"kind":"pfc","frames":12,"xoff":10,"xon":2,"paused_s":0.5},{"priority":"all","kind":"pause","frames":1,"xoff":1,"xon":0,"paused_s":0.01}]}}' \
		>"$c/review-pfc.json"
	echo '{"files":[{"path":"capture.pcapng","frames":4321,"read":true,"reordered":452,"late_frames":3,"max_backstep_s":0.062,"ecn_filter":"ce_only","error":null,"damaged":false,"cut_short":false,"bad_timestamps":5,"unsupported_link_type":null},{"path":"b.pcap","frames":1,"read":false,"reordered":null,"late_frames":null,"max_backstep_s":null,"ecn_filter":"keeps_all","bad_timestamps":null}],"kinds":{"pfc":1439,"pause":0,"cnp":1049,"roce":1833},"pause":{"priorities":[{"priority":3,"kind":"pfc","frames":1439,"xoff":1428,"xon":11,"paused_s":2.935}]},"ecn_flows":[{"source":"10.77.0.2","destination":"10.77.0.1","dest_qp":18,"packets":715,"ect":715,"ce":715,"ce_share":null,"ce_share_na":"capture kept only CE-marked packets"},{"packets":1118,"ect":1118,"ce":11,"ce_share":0.0098}]}' \
		>"$c/review-time-order.json"
	{
		echo 'time_s,frames,pause,pfc,cnp,roce,roce_ce,other,truncated,invalid,paused_ns_prio0,paused_ns_prio1,paused_ns_prio2,paused_ns_prio3,paused_ns_prio4,paused_ns_prio5,paused_ns_prio6,paused_ns_prio7,paused_ns_pause'
		echo '0.990000000,1,0,1,0,0,0,0,0,0,0,0,0,84460,0,0,0,0,0'
		echo '1.000000000,15,0,7,0,8,8,0,0,0,0,0,0,10000000,0,0,0,0,0'
		echo '1.010000000,3,1,1,1,0,0,0,0,0,0,0,0,10000000,0,0,0,0,2500000'
		echo '1.020000000,2,0,1,1,0,0,0,0,0,,,,5000000,,,,,'
	} >"$c/review-timeline-paused.csv"
	echo '{"files":[{"reordered":"5","late_frames":-1,"bad_timestamps":1e999,"max_backstep_s":null,"ecn_filter":5},7,{"reordered":9e18,"late_frames":9e18}],"ecn_flows":[{"ce_share":"x","ce_share_na":3,"packets":null},{"ce_share":1,"packets":1,"ce":2}]}' \
		>"$c/review-wrong-types.json"
	{
		echo '{"type":null,"event":null}'
		echo '{"type":"sample","wall_ns":1,"values":5,"rates":[1]}'
		echo '{"type":"interval","run_file":null,"run_phase":null,"t":null,"tx":{"gbps":"1"}}'
		echo '{"run_file":"x-client-","t":1}'
		echo '{"kinds":5,"ecn_flows":null,"pause":{"priorities":[{"priority":null,"kind":null},{"priority":1e999,"kind":"pfc"}]}}'
	} >"$c/wrong-types.jsonl"
	[ -s "$c/samples.jsonl" ] && [ -s "$c/capture.json" ] && [ -s "$c/review.json" ]
}
