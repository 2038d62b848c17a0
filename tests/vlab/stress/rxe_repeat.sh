#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rxe_repeat.sh (vlab guest, not part of the suite): how often a perftest run over rxe
# fails under the conditions of t_frames_cnp.sh, and why. Runs the same bidirectional
# 64 KiB ib_write_bw on the impaired link N times per case (CASES="case:N ...", default
# "u18:50 np:20") and records, per run, the
# exit status, perftest's error lines and the change of every rxe hw counter:
#   np     the notification point (pfclab inject cnp-on-ce) running, as in the test
#   nonp   the same without it
#   u18    with it, and a QP timeout of 4 us * 2^18 (1.07 s) instead of 2^14 (67 ms)
#   t8     with it, 8 outstanding WRITEs instead of 128 (a shallow queue on the link)
# Run: lab/vlab/vlab run --timeout 1800 --script-timeout 1700 tests/vlab/stress/rxe_repeat.sh
source "${PFCLAB_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}/tests/lib.sh"

CASES=${CASES:-"u18:50 np:20"}
plan "$(echo $CASES | wc -w)"
cnt() { # DEV: every hw counter as name=value on one line
	local f
	for f in /sys/class/infiniband/"$1"/ports/1/hw_counters/*; do
		printf '%s=%s ' "${f##*/}" "$(cat "$f")"
	done
}
delta() { # BEFORE AFTER: the counters that changed, as name+N
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) { split(x[i], p, "="); split(y[i], q, "=")
			if (q[2] != p[2]) printf "%s+%d ", p[1], q[2] - p[2] } }'
}
vlab_impair on 100mbit || { fail rxe_repeat "impaired link set up"; finish; }
for cn in $CASES; do
	c=${cn%:*} REPEAT=${cn#*:}
	extra=()
	case $c in u18) extra=(-u 18) ;; t8) extra=(-t 8) ;; esac
	npid=
	if [ "$c" != nonp ]; then
		"$PFCLAB" inject -i "$VLAB_IF_B" cnp-on-ce --dst-mac 02:00:00:00:00:99 -D 3000s \
			>"$VLAB_OUT/np-$c.txt" 2>&1 &
		npid=$!
		sleep 1
	fi
	nfail=0
	for i in $(seq "$REPEAT"); do
		a0=$(cnt rxe0) b0=$(cnt rxe1)
		t0=$(date +%s%3N)
		vlab_write_bw "$VLAB_OUT/run" a -s 65536 -n 100 -b -F --tclass=2 "${extra[@]}"
		rc=$?
		t1=$(date +%s%3N)
		ok=1
		[ -n "$(sed -n '/BW average/{n;p}' "$VLAB_OUT/run-client.txt")" ] || ok=0
		[ $rc -eq 0 ] || ok=0
		[ $ok -eq 1 ] || nfail=$((nfail + 1))
		printf '%s %d ok=%d rc=%d ms=%d rxe0: %s| rxe1: %s| %s\n' "$c" "$i" $ok $rc $((t1 - t0)) \
			"$(delta "$a0" "$(cnt rxe0)")" "$(delta "$b0" "$(cnt rxe1)")" \
			"$(grep -h -i 'status\|error\|fail' "$VLAB_OUT"/run-*.txt | head -n 3 | tr '\n' ' ')" \
			>>"$VLAB_OUT/runs.txt"
		if [ $ok -eq 0 ]; then
			cp "$VLAB_OUT/run-client.txt" "$VLAB_OUT/fail-$c-$i-client.txt"
			cp "$VLAB_OUT/run-server.txt" "$VLAB_OUT/fail-$c-$i-server.txt"
		fi
	done
	[ -n "$npid" ] && { kill -INT $npid; wait $npid; }
	echo "case $c: $nfail of $REPEAT runs failed" | tee -a "$VLAB_OUT/summary.txt"
	skip "rxe_repeat $c" "$nfail of $REPEAT runs failed (measurement, not a test)"
done
tc -s qdisc show >"$VLAB_OUT/qdisc.txt" 2>&1
dmesg >"$VLAB_OUT/dmesg-end.txt" 2>&1
finish
