#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run_local.sh: `pfclab run` with the local launcher on a veth pair in a network namespace
# (host a = va, host b = vb; no RDMA needed). Inject phases send known numbers of PFC and
# CNP frames from a; the summary must report exactly those on b. Also: the results layout,
# plots (gnuplot exit status, each data file holding its series), --dry-run, --report,
# --resume, retries after a failing essential command, Ctrl-C, a version mismatch.
source "$(dirname "$0")/../lib.sh"
plan 15

name=run-local
need_root $name || finish
need_cmd $name jq gnuplot sha256sum || finish
[ -x "$PFCLAB" ] || { fail $name "no pfclab binary at $PFCLAB"; finish; }

setup_ns NS || { fail $name "netns"; finish; }
ip -n "$NS" link add va type veth peer name vb &&
	ip -n "$NS" link set va up && ip -n "$NS" link set vb up ||
	{ fail $name "veth in $NS"; finish; }
work=$(mktemp -d /tmp/pfclab-run-local-XXXXXX)
defer rm -rf "$work"
cd "$work" || exit 1
run() { ip netns exec "$NS" "$PFCLAB" run "$@"; }

NPFC=37 NCNP=23
cat >inject.yaml <<EOF
name: veth-inject
launcher: local
hosts:
  a: {netdev: va}
  b: {netdev: vb}
monitor: {interval: 50ms, sources: [link]}
capture: {speed: 10G}
sweep:
  rate: [500, 1000]
phases:
  - name: quiet
    duration: 200ms
  - name: pfc
    duration: 300ms
    inject:
      - {host: a, kind: pfc, args: [--prio, "3", -c, "$NPFC", -r, "\${rate}"]}
  - name: cnp
    duration: 300ms
    inject:
      - {host: a, kind: cnp, args: [--src-ip, 10.9.0.1, --dst-ip, 10.9.0.2, -c, "$NCNP", -r, "\${rate}"]}
EOF

# --dry-run: the whole plan, nothing created
out=$(run --dry-run -r "$work/dry" inject.yaml)
if [ $? -eq 0 ] && [ ! -e "$work/dry" ] &&
	echo "$out" | grep -q "inject  a\$ $PFCLAB inject -i va --prio 3 -c $NPFC -r 1000 -D 60300ms pfc" &&
	[ "$(echo "$out" | grep -c 'capture b\$')" = 2 ] && echo "$out" | grep -q '^point p001: rate=1000'; then
	ok "$name: --dry-run prints every command of both points and creates nothing"
else
	fail "$name: --dry-run" "$(echo "$out" | head -c 300)"
fi

run -q inject.yaml >run.out 2>run.err
rc=$?
dir=results/$(readlink results/latest)
if [ $rc -eq 0 ] && [ -d "$dir" ] && [[ $(readlink results/latest) == veth-inject-2* ]]; then
	ok "$name: run exits 0; results/latest -> $(readlink results/latest)"
else
	fail "$name: run" "exit $rc: $(tail -n 3 run.err | tr '\n' ' ')"
	finish
fi
missing=
for f in experiment.yaml manifest.json summary.json summary.txt run.log \
	points/p000/rep0/status.json points/p001/rep0/status.json plots/p000-rep0.png plots/p001-rep0.png \
	plots/sweep-pfc.png plots/sweep-cnp-ecn.png; do
	[ -s "$dir/$f" ] || missing+=" $f"
done
for h in a b; do
	for f in monitor/samples.jsonl monitor/meta.json capture.pcapng capture.json review.json review-timeline.csv; do
		[ -s "$dir/points/p000/rep0/$h/$f" ] || missing+=" p000/rep0/$h/$f"
	done
done
if [ -z "$missing" ] && cmp -s inject.yaml "$dir/experiment.yaml" && ! ls -A "$dir"/points/*/rep0/*/.*.pid 2>/dev/null | grep -q .; then
	ok "$name: results layout (experiment as run, manifest, summary, plots, per host monitor/capture/review)"
else
	fail "$name: results layout" "missing:${missing:- none}; leftover pid files or experiment differs"
fi
sha=$(sha256sum inject.yaml | cut -d' ' -f1)
if [ "$(jq -r .experiment_sha256 "$dir/manifest.json")" = "$sha" ] &&
	[ "$(jq -r .status "$dir/manifest.json")" = complete ] &&
	[ "$(jq -r '.hosts.a.before.pfclab_version' "$dir/manifest.json")" = "$("$PFCLAB" version | cut -d' ' -f2)" ] &&
	jq -e '.hosts.b.after.kernel and .hosts.b.before.doctor and (.hosts.a.clock.offset_start_ns | type == "number")' \
		"$dir/manifest.json" >/dev/null; then
	ok "$name: manifest: experiment hash, version, kernel, doctor report, clock offsets before and after"
else
	fail "$name: manifest" "$(jq -c '{experiment_sha256, status}' "$dir/manifest.json")"
fi
if find "$dir" -name psk | grep -q . || grep -rqE '^[0-9a-f]{64}$' "$dir" 2>/dev/null; then
	fail "$name: the pre-shared key was left in the results"
else
	ok "$name: no pre-shared key file in the results"
fi

# summary: exactly what was injected, seen by b's capture, for both points
for p in 0 1; do
	got=$(jq -r ".points[$p].repetitions[0] | [.valid, .hosts.b.capture.pfc.prio3.frames,
		.hosts.b.capture.pfc.prio3.xoff, .hosts.b.capture.cnp, .hosts.b.capture.kernel_drops] | @tsv" "$dir/summary.json")
	if [ "$got" = "$(printf 'true\t%s\t%s\t%s\t0' $NPFC $NPFC $NCNP)" ]; then
		ok "$name: p00$p summary: b captured $NPFC PFC prio 3 XOFF and $NCNP CNPs, 0 drops, valid"
	else
		fail "$name: p00$p summary" "valid/pfc/xoff/cnp/drops = $got, want $NPFC $NPFC $NCNP 0"
	fi
done
# paused share: 37 x 65535 quanta at 10G (3.355 ms each, 1 or 2 ms apart) is at most
# 37 x 3.355 ms = 124 ms of a point of about 0.8 s or more; bounded both ways
share=$(jq '.points[0].repetitions[0].hosts.b.capture.pfc.prio3.paused_share' "$dir/summary.json")
if awk -v s="$share" 'BEGIN { exit !(s > 0.005 && s < 0.2) }'; then
	ok "$name: paused share on priority 3 $share (0.005..0.2)"
else
	fail "$name: paused share" "$share"
fi
if grep -q "PFC captured   prio3 $NPFC frames ($NPFC XOFF, 0 XON)" "$dir/summary.txt"; then
	ok "$name: summary.txt names the captured PFC frames"
else
	fail "$name: summary.txt" "$(grep -m2 'PFC captured' "$dir/summary.txt")"
fi

# plots: each gnuplot script runs cleanly again; each data file holds its series
pok=1 why=
for gp in "$dir"/plots/*.gp; do
	gnuplot "$gp" 2>>gnuplot.err || { pok=0; why+=" $(basename "$gp")"; }
done
d=$dir/plots/data
sum=$(awk '/^# series b PFC captured/ { on = 1; next } /^# series/ { on = 0 } on && NF == 2 { s += $2 * 0.01 } END { printf "%.0f", s }' "$d/p000-rep0-pfc.dat")
[ "$sum" = "$NPFC" ] || { pok=0; why+=" pfc series sums to $sum"; }
sum=$(awk '/^# series b CNP captured/ { on = 1; next } /^# series/ { on = 0 } on && NF == 2 { s += $2 * 0.01 } END { printf "%.0f", s }' "$d/p001-rep0-cnp-ecn.dat")
[ "$sum" = "$NCNP" ] || { pok=0; why+=" cnp series sums to $sum"; }
# the paused share per 10 ms bin from b's captured frames adds up to the summary's paused
# time, less at most the end of the last pause (3.355 ms) past the last frame's bin
ps=$(jq '.points[0].repetitions[0].hosts.b.capture.pfc.prio3.paused_s' "$dir/summary.json")
tot=$(awk 'index($0, "# series b paused prio3 (captured frames)") == 1 { on = 1; next } /^# series/ { on = 0 }
	on && NF == 2 { s += $2 * 0.01 } END { printf "%.6f", s }' "$d/p000-rep0-paused-share.dat")
awk -v a="$tot" -v b="$ps" 'BEGIN { exit !(a > 0 && a <= b + 1e-6 && a >= b - 0.0034) }' ||
	{ pok=0; why+=" paused share series $tot s, summary $ps s"; }
grep -q '^# series captured_pfc_frames b' "$d/sweep-pfc.dat" || { pok=0; why+=" no sweep series"; }
[ "$(grep -c '^[01] "rate=' "$d/sweep-pfc.dat")" -ge 2 ] || { pok=0; why+=" sweep rows"; }
for f in "$dir"/plots/*.png; do
	[ "$(head -c 8 "$f" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] || { pok=0; why+=" $(basename "$f") not a PNG"; }
done
if [ $pok = 1 ]; then
	ok "$name: plots: gnuplot exits 0 for every script; data series sum to $NPFC PFC and $NCNP CNP frames and $tot s paused (summary $ps s); sweep figures"
else
	fail "$name: plots" "$why $(tail -n 2 gnuplot.err)"
fi

# --report remakes summary and plots from the folder alone
rm -rf "$dir/plots" "$dir/summary.json"
if "$PFCLAB" run --report "$dir" >report.out 2>&1 && [ -s "$dir/plots/p000-rep0.png" ] &&
	grep -q "veth-inject: complete, 2 of 2 repetitions valid" report.out; then
	ok "$name: --report remakes summary and plots"
else
	fail "$name: --report" "$(head -c 300 report.out)"
fi

# --resume: p001 did not finish (no status); p000 is skipped, p001 run again
rm "$dir/points/p001/rep0/status.json"
if run -q --resume "$dir" >resume.out 2>&1 && grep -q "point p000 repetition 0: finished before; skipped" "$dir/run.log" &&
	[ -s "$dir/points/p001/rep0/status.json" ] && [ -d "$dir/points/p001/rep0.interrupted1" ] &&
	[ "$(jq -r '.points[1].repetitions[0].hosts.b.capture.cnp' "$dir/summary.json")" = $NCNP ]; then
	ok "$name: --resume skips the finished point and runs the other again (the partial one kept aside)"
else
	fail "$name: --resume" "$(tail -n 3 resume.out | tr '\n' ' ')"
fi

# a failing essential command: the point is invalid, retried once, the failed try kept
cat >essential.yaml <<EOF
name: essential
launcher: local
retries: 1
hosts:
  a: {netdev: va}
monitor: false
capture: false
phases:
  - name: p
    duration: 100ms
    pre:
      - {host: a, run: "echo no; exit 3", essential: true}
EOF
run -q -r "$work/r2" essential.yaml >ess.out 2>&1
rc=$?
d2=$work/r2/$(readlink "$work/r2/latest")
if [ $rc -eq 1 ] && [ -d "$d2/points/p000/rep0.failed1" ] &&
	[ "$(jq -r '.reasons[0]' "$d2/points/p000/rep0/status.json")" = "an essential pre/post command failed" ] &&
	grep -q "retry 1 of 1" "$d2/run.log" && grep -q INVALID "$d2/summary.txt"; then
	ok "$name: a failing essential command makes the point invalid; retried once; exit 1"
else
	fail "$name: essential" "exit $rc $(tail -n 2 ess.out | tr '\n' ' ')"
fi

# Ctrl-C: every process stopped, what was recorded kept, the run marked
cat >long.yaml <<EOF
name: long
launcher: local
hosts:
  a: {netdev: va}
  b: {netdev: vb}
monitor: {interval: 50ms, sources: [link]}
phases:
  - name: wait
    duration: 60s
    inject:
      - {host: a, kind: pfc, args: [-c, "0", -r, "100"]}
EOF
ip netns exec "$NS" "$PFCLAB" run -q -r "$work/r3" long.yaml >long.out 2>&1 &
rpid=$!
defer kill $rpid
for _ in $(seq 100); do grep -q "phase wait" "$work"/r3/long-*/run.log 2>/dev/null && break; sleep 0.1; done
sleep 1
kill -INT $rpid
t0=$(date +%s)
wait $rpid
rc=$?
t1=$(date +%s)
d3=$(ls -d "$work"/r3/long-*)
left=$(pgrep -f "$d3" | wc -l)
if [ $rc -eq 1 ] && [ "$(jq -r .status "$d3/manifest.json")" = interrupted ] &&
	[ "$(jq -r .finished "$d3/points/p000/rep0/status.json")" = false ] &&
	[ "$(jq '.reasons | index("interrupted") != null' "$d3/points/p000/rep0/status.json")" = true ] &&
	[ "$(grep -c '"type":"sample"' "$d3/points/p000/rep0/a/monitor/samples.jsonl")" -ge 10 ] &&
	[ "$(jq '.kinds.pfc' "$d3/points/p000/rep0/b/review.json")" -ge 50 ] && [ "$left" = 0 ]; then
	ok "$name: Ctrl-C stops every host within $((t1 - t0)) s, keeps the records, marks the run interrupted"
else
	fail "$name: Ctrl-C" "exit $rc, $left processes left, $(tail -n 2 long.out | tr '\n' ' ')"
fi

# a host that runs another pfclab version: a clear error before anything runs
cat >fake-pfclab <<'EOF'
#!/bin/sh
[ "$1" = version ] && echo "pfclab 0.0-other" && exit 0
exit 1
EOF
chmod +x fake-pfclab
sed "s|  b: {netdev: vb}|  b: {netdev: vb, pfclab: $work/fake-pfclab}|" inject.yaml >mismatch.yaml
out=$(run -q -r "$work/r4" mismatch.yaml 2>&1)
rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -q "host b runs pfclab 0.0-other, this host runs pfclab $("$PFCLAB" version | cut -d' ' -f2); every host must run the same version" &&
	! ls "$work"/r4/*/points >/dev/null 2>&1; then
	ok "$name: a version mismatch stops the run before anything runs, naming both versions"
else
	fail "$name: version mismatch" "exit $rc: $out"
fi
finish
