#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run_local.sh: `pfclab run` with the local launcher on a veth pair in a network namespace
# (host a = va, host b = vb; no RDMA needed). Inject phases send known numbers of PFC and
# CNP frames from a; the summary must report exactly those on b. Also: the results layout,
# plots (gnuplot exit status, each data file holding its series), --dry-run, --report,
# --resume, retries after a failing essential command, an injector that fails, Ctrl-C
# (also during a pre command), a version mismatch; a results folder that holds a run
# refused (-o, -r) or replaced (--force), no folders made above the results folder; a
# traffic pair whose server fails: the client stopped at once and the server's own error
# line in the terminal, status.json and the summary. The paused share labelled as the
# point's and given per phase; review's time-order caveats (late frames, bad timestamps) as
# warnings that leave the point valid; the wording of an experiment argument that is a
# directory and of --resume with --report.
source "$(dirname "$0")/../lib.sh"
plan 29

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

# --dry-run names each host's own pfclab: a host's pfclab: key, else this binary (local)
# or the PATH's on that host (ssh), and each host's own key file
sed 's|^  b: {netdev: vb}|  b: {netdev: vb, pfclab: /opt/b/pfclab}|' inject.yaml >own.yaml
out=$(run --dry-run -r "$work/dry" own.yaml)
out_ssh=$(run --dry-run -l ssh -r "$work/dry" own.yaml)
if echo "$out" | grep -qx "# pfclab on host a: $PFCLAB (this binary: launcher local, no hosts.a.pfclab)" &&
	echo "$out" | grep -qx '# pfclab on host b: /opt/b/pfclab (hosts.b.pfclab)' &&
	echo "$out" | grep -q "inject  a\$ $PFCLAB inject" && echo "$out" | grep -q 'capture b\$ /opt/b/pfclab capture' &&
	echo "$out_ssh" | grep -qx "# pfclab on host a: pfclab (the first on the PATH a command run by ssh gets on a; hosts.a.pfclab gives a path)" &&
	echo "$out_ssh" | grep -qx '# pfclab on host b: /opt/b/pfclab (hosts.b.pfclab)' &&
	echo "$out_ssh" | grep -qE '^# a fresh pre-shared key .*: a /tmp/pfclab-run-veth-inject-[0-9-]+-a/psk, b /tmp/pfclab-run-veth-inject-[0-9-]+-b/psk$' &&
	echo "$out" | grep -qE '^# a fresh pre-shared key is written to /tmp/pfclab-run-XXXXXX/psk \(mode 0600; XXXXXX: a new private folder made as the run starts, one key for every host of launcher local\) and removed at the end$' &&
	[ ! -e "$work/dry" ]; then
	ok "$name: --dry-run names each host's pfclab (its pfclab: key, this binary, the PATH's) and key file"
else
	fail "$name: --dry-run per host pfclab" "$(echo "$out" "$out_ssh" | grep -E '^# (pfclab|a fresh)')"
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
	plots/sweep-pfc.png plots/sweep-cnp-ecn.png plots/sweep-paused-goodput.png; do
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
# the NIC's DCQCN, buffer split and PFC storm timeout, before and after, per host: a veth
# has none, so every field is there and null (the doctor answered: source null, no params)
if jq -e '[.hosts.a.before, .hosts.a.after, .hosts.b.before, .hosts.b.after] |
	map(.dcqcn == {"source": null, "params": {}, "enable": null} and
	    (.buffer | keys) == ["buffer_size", "dscp2prio", "prio2buffer", "trust"] and
	    ([.buffer[]] | all(. == null)) and has("pfc_storm_timeout_ms") and
	    .pfc_storm_timeout_ms == null and .pfc_storm_timeout_auto == false) | all' \
	"$dir/manifest.json" >/dev/null; then
	ok "$name: manifest: DCQCN, buffer split and PFC storm timeout per host before and after, null on veth"
else
	fail "$name: manifest NIC settings" "$(jq -c '.hosts.a.before | {dcqcn, buffer, pfc_storm_timeout_ms, pfc_storm_timeout_auto}' "$dir/manifest.json")"
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
# the same share per phase from b's capture timeline: all of it in phase pfc, none in
# quiet (nothing paused before the inject); the text says what each share is of
bp=$(jq -r '.points[0].repetitions[0].hosts.b.capture.pfc.prio3 |
	"\(.paused_s) \(.by_phase.quiet.paused_s) \(.by_phase.pfc.paused_s) \(.by_phase.cnp.paused_s)"' "$dir/summary.json")
read -r ps_all ps_quiet ps_pfc ps_cnp <<<"$bp"
if awk -v a="$ps_all" -v q="$ps_quiet" -v p="$ps_pfc" -v c="$ps_cnp" \
	'BEGIN { exit !(q == 0 && p >= 0.9 * a && p + c <= a + 1e-6) }' &&
	grep -qE "^      PFC captured   prio3 $NPFC frames \($NPFC XOFF, 0 XON\) paused [0-9.]+% of the point's [0-9.]+ s\$" "$dir/summary.txt" &&
	grep -qE '^      paused prio3   quiet 0\.00% of 0\.[0-9] s, pfc [0-9.]+% of 0\.[0-9] s, cnp [0-9.]+% of 0\.[0-9] s \(by phase\)$' "$dir/summary.txt"; then
	ok "$name: paused time per phase (quiet $ps_quiet s, pfc $ps_pfc s, cnp $ps_cnp s of $ps_all s); summary.txt says the share is of the point"
else
	fail "$name: paused per phase" "$bp; $(grep -A1 'PFC captured   prio3' "$dir/summary.txt" | head -n 2 | tr '\n' '|')"
fi
if grep -q "PFC captured   prio3 $NPFC frames ($NPFC XOFF, 0 XON)" "$dir/summary.txt"; then
	ok "$name: summary.txt names the captured PFC frames"
else
	fail "$name: summary.txt" "$(grep -m2 'PFC captured' "$dir/summary.txt")"
fi
# veth counts no NIC PCIe stalls or drops: n/a on its line and null in summary.json, not 0
if [ "$(grep -cxF '      NIC PCIe       stalled wr n/a rd n/a, PCIe buffer overflow n/a' "$dir/summary.txt")" -ge 2 ] &&
	jq -e '.points[0].repetitions[0].hosts | [.a, .b] | map(.counters.nic_pcie | to_entries |
		length == 5 and all(.value == null)) | all' "$dir/summary.json" >/dev/null; then
	ok "$name: the NIC PCIe line is n/a on veth (summary.txt and summary.json)"
else
	fail "$name: NIC PCIe" "$(grep -m2 'NIC PCIe' "$dir/summary.txt" | tr '\n' '|') $(jq -c '.points[0].repetitions[0].hosts.a.counters.nic_pcie' "$dir/summary.json")"
fi

# plots: each gnuplot script runs cleanly again; each data file holds its series
pok=1 why=
for gp in "$dir"/plots/*.gp; do
	gnuplot "$gp" 2>>gnuplot.err || { pok=0; why+=" $(basename "$gp")"; }
done
# the right margin holds the widest key: its name and 8 characters for the sample line
kw=$(grep -o 'title "[^"]*"' "$dir/plots/p000-rep0.gp" | awk '{ n = length($0) - 8; if (n > m) m = n } END { print m + 8 }')
rmg=$(awk '$1 == "set" && $2 == "rmargin" { print $3 }' "$dir/plots/p000-rep0.gp")
[ -n "$rmg" ] && [ "$rmg" -ge 40 ] && [ "$rmg" -ge "$kw" ] || { pok=0; why+=" rmargin '$rmg' for keys needing $kw"; }
d=$dir/plots/data
# a series of captured frames is a rate per bin; its data names the bin ("# bin_s")
series_sum() { # FILE PREFIX FORMAT: the sum of rate x bin over the series named PREFIX...
	awk -v p="# series $2" -v fmt="$3" 'index($0, p) == 1 { on = 1; bin = 0.01; next }
		/^# series/ { on = 0 } on && $1 == "#" && $2 == "bin_s" { bin = $3; next }
		on && NF == 2 { s += $2 * bin } END { printf fmt, s }' "$1"
}
sum=$(series_sum "$d/p000-rep0-pfc.dat" "b PFC captured" %.0f)
[ "$sum" = "$NPFC" ] || { pok=0; why+=" pfc series sums to $sum"; }
sum=$(series_sum "$d/p001-rep0-cnp-ecn.dat" "b CNP captured" %.0f)
[ "$sum" = "$NCNP" ] || { pok=0; why+=" cnp series sums to $sum"; }
# the paused share per bin from b's captured frames adds up to the summary's paused
# time, less at most the end of the last pause (3.355 ms) past the last frame's bin
ps=$(jq '.points[0].repetitions[0].hosts.b.capture.pfc.prio3.paused_s' "$dir/summary.json")
tot=$(series_sum "$d/p000-rep0-paused-share.dat" "b paused prio3 (captured frames" %.6f)
awk -v a="$tot" -v b="$ps" 'BEGIN { exit !(a > 0 && a <= b + 1e-6 && a >= b - 0.0034) }' ||
	{ pok=0; why+=" paused share series $tot s, summary $ps s"; }
grep -q '^# series captured_pfc_frames b' "$d/sweep-pfc.dat" || { pok=0; why+=" no sweep series"; }
# the paused share of the pfc phase along the sweep, on the goodput figure's right axis,
# as the summary has it
awk -v want="$(jq '.points[0].repetitions[0].hosts.b.capture.pfc.prio3.by_phase.pfc.paused_share' "$dir/summary.json")" \
	'/^# series phase_paused_share prio3 pfc b$/ { on = 1; next } /^# series/ { on = 0 }
	on && $1 == 0 { d = $3 - want; ok = want > 0 && d < 1e-9 && d > -1e-9 } END { exit !ok }' "$d/sweep-paused-goodput.dat" &&
	grep -q 'axes x1y2' "$dir/plots/sweep-paused-goodput.gp" ||
	{ pok=0; why+=" no paused share along the sweep"; }
[ "$(grep -c '^[01] "rate=' "$d/sweep-pfc.dat")" -ge 2 ] || { pok=0; why+=" sweep rows"; }
for f in "$dir"/plots/*.png; do
	[ "$(head -c 8 "$f" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] || { pok=0; why+=" $(basename "$f") not a PNG"; }
done
if [ $pok = 1 ]; then
	ok "$name: plots: gnuplot exits 0 for every script; data series sum to $NPFC PFC and $NCNP CNP frames and $tot s paused (summary $ps s); sweep figures; right margin $rmg for keys up to $kw"
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

# a read-only place: -r and -o refused before anything runs (--dry-run too), --resume and
# --report of a run there say why and what to do (a resume used to go on and exit 0 with
# nothing written; --report said "Input/output error")
cp -r "$dir" "$work/ro-run"
mkdir -p "$work/ro"
rm "$work/ro-run/points/p001/rep0/status.json"
unshare -m bash -c 'mount --bind "$1/ro" "$1/ro" && mount -o remount,bind,ro "$1/ro" &&
	mount --bind "$1/ro-run" "$1/ro-run" && mount -o remount,bind,ro "$1/ro-run" || exit 99
	cd "$1" && P=$2
	$P run -n -r ro/results inject.yaml; echo "rc=$?"
	$P run -o ro/mine inject.yaml; echo "rc=$?"
	$P run --resume ro-run; echo "rc=$?"
	$P run --report ro-run; echo "rc=$?"' sh "$work" "$PFCLAB" >ro.out 2>&1
want="pfclab run: -r ro/results: cannot write in ro: Read-only file system; give -r a folder where you can write
rc=1
pfclab run: -o ro/mine: cannot write in ro: Read-only file system; give -o a folder where you can write
rc=1
pfclab run: --resume ro-run: cannot write in ro-run: Read-only file system; a resumed run writes into its folder: copy it (cp -a ro-run NEW) where you can write and give --resume NEW
rc=1
pfclab run: ro-run/summary.json: cannot write: Read-only file system; the summary is written into the results folder: copy it (cp -a ro-run NEW) where you can write and give --report NEW
rc=1"
if [ "$(cat ro.out)" = "$want" ] && [ ! -e "$work/ro/results" ]; then
	ok "$name: a read-only results folder: -r, -o (--dry-run too), --resume and --report say so and what to do; exit 1"
else
	fail "$name: read-only results folder" "$(head -c 600 ro.out)"
fi

# a monitor record of another format (b, p000) or whose meta.json is no JSON (a, p001):
# named with the file and the pfclab that wrote it, its counters n/a, not read as this one
w=$work/fmt
cp -r "$dir" "$w"
jq '.format = "pfclab-monitor-3" | .pfclab_version = "9.9"' "$dir/points/p000/rep0/b/monitor/meta.json" \
	>"$w/points/p000/rep0/b/monitor/meta.json"
head -c 40 "$dir/points/p001/rep0/a/monitor/meta.json" >"$w/points/p001/rep0/a/monitor/meta.json"
"$PFCLAB" run --report "$w" >fmt.out 2>&1
rc=$?
na_b="points/p000/rep0/b/monitor/meta.json: format 'pfclab-monitor-3', not the pfclab-monitor-2 or pfclab-monitor-1 this pfclab reads (written by pfclab 9.9); remake the summary (pfclab run --report) with a pfclab that reads that record"
na_a="points/p001/rep0/a/monitor/meta.json: not a JSON object (cut short, or not a pfclab monitor record?); remake the summary (pfclab run --report) with a pfclab that reads that record"
fj=$(jq -c '[.points[0].repetitions[0].hosts.b | .counters_na, .counters.samples, .counters.counter_resets, .counters.gpu_pcie.rx_Bps_mean],
	[.points[0].repetitions[0].hosts.a | .counters_na, (.counters.samples > 0)], .points[1].repetitions[0].hosts.a.counters_na' "$w/summary.json" | tr '\n' ' ')
if [ $rc -eq 0 ] && [ "$fj" = "$(jq -nc --arg b "$na_b" --arg a "$na_a" '[$b,null,null,null], [null,true], $a' | tr '\n' ' ')" ] &&
	grep -qxF "      counters       n/a: $na_b" "$w/summary.txt" &&
	grep -qxF "      counters       n/a: $na_a" "$w/summary.txt" && grep -qxF "      counters       n/a: $na_b" fmt.out &&
	[ "$(grep -c 'counters       n/a' "$w/summary.txt")" = 2 ] && [ -s "$w/plots/p000-rep0.png" ] &&
	! grep -q counters_na "$dir/summary.json"; then
	ok "$name: --report: a monitor record of another format, or a meta.json cut short, is named (host folder, file, format, writer) and its counters are n/a"
else
	fail "$name: record format" "exit $rc, $fj; $(grep 'counters ' "$w/summary.txt" | head -n 2 | tr '\n' '|')"
fi

# review's time-order caveats: late frames and bad timestamps are warnings with the count
# (summary.txt, summary.json), the repetition stays valid; a review without them, none
w=$work/warn
cp -r "$dir" "$w"
jq '.files[0].late_frames = 3 | .files[0].bad_timestamps = 4 | .files[0].max_backstep_s = 0.07 |
	.files[0].reordered = 12' "$dir/points/p000/rep0/b/review.json" >"$w/points/p000/rep0/b/review.json"
"$PFCLAB" run --report "$w" --no-plots >warn.out 2>&1
rc=$?
wj=$(jq -c '.points[0].repetitions[0] | [.valid, (.warnings | length), .hosts.b.capture.late_frames,
	.hosts.b.capture.bad_timestamps, .hosts.b.capture.reordered, .hosts.b.capture.max_backstep_s]' "$w/summary.json")
if [ $rc -eq 0 ] && [ "$wj" = "[true,2,3,4,12,0.07]" ] &&
	grep -qx "    warning  host b: 3 PAUSE/PFC/CNP frames further out of time order than review's reorder window, counted where they came (the capture steps back up to 70.000 ms): paused time and CNP gaps are less reliable" "$w/summary.txt" &&
	grep -qx "    warning  host b: 1 captured frame with a timestamp out of range, counted but at a wrong time: paused time and CNP gaps are less reliable" "$w/summary.txt" &&
	grep -qx "      time order     12 frames put back in time order, 3 PAUSE/PFC/CNP frames too far back (warning above); steps back up to 70.000 ms" "$w/summary.txt" &&
	[ "$(jq -c '[.points[].repetitions[].warnings | length] | add' "$dir/summary.json")" = 0 ] &&
	[ "$(jq -c '.warnings' "$dir/points/p000/rep0/status.json")" = "[]" ] &&
	jq -e '.points[0].repetitions[0].hosts.b.capture | (.late_frames | type) == "number" and (.reordered | type) == "number"' "$dir/summary.json" >/dev/null; then
	ok "$name: late frames and bad timestamps: warnings with the counts, the repetition still valid; none in the real run"
else
	fail "$name: time-order warnings" "exit $rc, $wj; $(grep warning "$w/summary.txt" | head -n 2 | tr '\n' '|')"
fi

# an experiment argument that is a folder; --resume with --report
out1=$("$PFCLAB" run "$work" 2>&1)
rc1=$?
out2=$("$PFCLAB" run "$dir" 2>&1)
rc2=$?
out3=$("$PFCLAB" run --resume "$dir" --report "$dir" 2>&1)
rc3=$?
if [ $rc1 = 2 ] && [ "$out1" = "pfclab run: $work is a directory; an experiment file (YAML) is expected (e.g. scripts/experiments/vlab-demo.yaml)" ] &&
	[ $rc2 = 2 ] && [[ $out2 == "pfclab run: $dir is a directory; an experiment file (YAML) is expected; it holds the run veth-inject-"*": --resume $dir goes on with it, --report $dir makes its summary and plots again" ]] &&
	[ $rc3 = 2 ] && [ "$out3" = "pfclab run: --resume DIR and --report DIR each go alone: give one of them (and no experiment file; DIR/experiment.yaml is read)" ]; then
	ok "$name: a folder for the experiment file, and --resume with --report, are usage errors that say what is expected"
else
	fail "$name: wording" "exit $rc1/$rc2/$rc3: $out1 / $out2 / $out3"
fi

# --resume: p001 did not finish (no status); p000 is skipped, p001 run again. Given as
# results/latest/, the run keeps its id (the manifest's run_id, the hosts' scratch folders)
rm "$dir/points/p001/rep0/status.json"
id=${dir#results/}
scratch=$("$PFCLAB" run -n --launcher ssh --resume results/latest/ 2>&1 | grep -m 1 '^  folder a: ')
if run -q --resume results/latest/ >resume.out 2>&1 && grep -q "point p000 repetition 0: finished before; skipped" "$dir/run.log" &&
	[ -s "$dir/points/p001/rep0/status.json" ] && [ -d "$dir/points/p001/rep0.interrupted1" ] &&
	[ "$(jq -r '.points[1].repetitions[0].hosts.b.capture.cnp' "$dir/summary.json")" = $NCNP ] &&
	[ "$(jq -r .run_id "$dir/manifest.json")" = "$id" ] && [ "$(jq -r .run_id "$dir/summary.json")" = "$id" ] &&
	[ "$scratch" = "  folder a: /tmp/pfclab-run-$id-a/p000-rep0" ]; then
	ok "$name: --resume results/latest/ skips the finished point and runs the other again (the partial one kept aside), keeping the run's id"
else
	fail "$name: --resume" "run_id $(jq -r .run_id "$dir/manifest.json"), ssh scratch '$scratch': $(tail -n 3 resume.out | tr '\n' ' ')"
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

# A folder that holds a run: -o refuses it and leaves it as it was; -r refuses to make runs
# inside a run's folder; --force replaces it; no folder is made above the results folder.
log_lines=$(wc -l <"$dir/run.log")
st0=$(cat "$dir/points/p000/rep0/status.json")
out=$(run -q -o "$dir" inject.yaml 2>&1)
rc=$?
run -n -o "$dir" inject.yaml >/dev/null 2>&1
rcn=$?
if [ $rc -eq 1 ] && [ $rcn -eq 1 ] &&
	echo "$out" | grep -q "^pfclab run: $dir already holds the run veth-inject-.* (status complete; 2 of 2 repetitions finished); give a new folder, --resume $dir to run what did not finish there, or --force to replace it\$" &&
	[ "$(wc -l <"$dir/run.log")" = "$log_lines" ] && [ "$(cat "$dir/points/p000/rep0/status.json")" = "$st0" ] &&
	! ls -d "$dir"/points/p000/rep0.* >/dev/null 2>&1; then
	ok "$name: -o DIR that holds a finished run is refused (--dry-run too), naming the run and what to do; nothing in it changed"
else
	fail "$name: -o DIR holding a run" "exit $rc/$rcn: $out"
fi
out=$(run -q -r "$dir" inject.yaml 2>&1)
rc1=$?
out2=$(run -q -r "$work/nope/results" inject.yaml 2>&1)
rc2=$?
run -n -r "$work/nope/results" inject.yaml >/dev/null 2>&1
rc3=$?
if [ $rc1 -eq 1 ] && echo "$out" | grep -q "holds the run veth-inject-.* itself, but runs are made in folders under it" &&
	[ $rc2 -eq 1 ] && [ $rc3 -eq 1 ] && [ ! -e "$work/nope" ] &&
	echo "$out2" | grep -q "^pfclab run: $work/nope: No such file or directory; pfclab run makes the results folder $work/nope/results but not the folders above it"; then
	ok "$name: -r DIR that is a run's folder is refused; -r under a missing folder is refused and makes nothing"
else
	fail "$name: -r checks" "exit $rc1/$rc2/$rc3: $out / $out2"
fi
cat >idle.yaml <<EOF
name: idle
launcher: local
hosts:
  a: {netdev: va}
monitor: false
capture: false
phases:
  - {name: p, duration: 100ms}
EOF
run -q -o "$work/o1" idle.yaml >/dev/null 2>&1 && id1=$(jq -r .run_id "$work/o1/manifest.json") && sleep 1 &&
	touch "$work/o1/mine.txt" && run -q -o "$work/o1" --force idle.yaml >force.out 2>&1
rc=$?
if [ $rc -eq 0 ] && [ "$(jq -r .run_id "$work/o1/manifest.json")" != "$id1" ] && [ -e "$work/o1/mine.txt" ] &&
	[ "$(ls "$work/o1/points/p000")" = rep0 ] && [ "$(grep -c 'attempt 0' "$work/o1/run.log")" = 1 ] &&
	grep -q -- "--force: the run $id1 (status complete; 1 of 1 repetition finished) removed from $work/o1" "$work/o1/run.log"; then
	ok "$name: --force replaces the run in -o DIR (its files only; the log says which run went)"
else
	fail "$name: --force" "exit $rc: $(cat force.out)"
fi

# A server that cannot start (no such RDMA device, or no RDMA at all here): its client is
# stopped at once instead of retrying for its 10 s --timeout, and the server's own error
# line is shown with its host and file: on the terminal, in status.json and the summary.
cat >tfail.yaml <<EOF
name: tfail
launcher: local
hosts:
  a: {netdev: va, rdma: nodev9, addr: 127.0.0.1}
  b: {netdev: vb, rdma: nodev9, addr: 127.0.0.1}
monitor: false
capture: false
phases:
  - name: t
    traffic: {from: a, to: b, duration: 1s}
EOF
t0=$(date +%s%N)
run --no-plots -o "$work/tf" tfail.yaml >tfail.out 2>tfail.err
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
st=$work/tf/points/p000/rep0/status.json
first=$(grep -m1 -v '^ *$' "$work/tf/points/p000/rep0/b/traffic-t-server-a.err" 2>/dev/null)
msg=$(jq -r '.errors[0].message' "$st" 2>/dev/null)
if [ $rc -eq 1 ] && [ $ms -lt 6000 ] && [ -n "$first" ] && [ "${msg:0:100}" = "${first:0:100}" ] &&
	[ "$(jq -r '.errors[0] | [.host, .file, .failure] | join(",")' "$st")" = "b,traffic-t-server-a.err,exit status 1" ] &&
	grep -qF "pfclab run:   host b, traffic-t-server-a.err (exit status 1): ${first:0:60}" tfail.err &&
	grep -qF "    error  host b, traffic-t-server-a.err (exit status 1): ${first:0:60}" "$work/tf/summary.txt" &&
	grep -qF "    error  host b, traffic-t-server-a.err (exit status 1): ${first:0:60}" tfail.out &&
	[ "$(jq -r '.points[0].repetitions[0].errors[0].message' "$work/tf/summary.json")" = "$msg" ] &&
	grep -q "traffic-t-server-a on host b ended with status 1; traffic-t-client-b on host a is stopped" "$work/tf/run.log"; then
	ok "$name: a failed traffic server: client stopped, run over in $ms ms; its error line shown ('${first:0:50}...')"
else
	fail "$name: failed traffic server" "exit $rc in $ms ms; first '$first'; status $(jq -c .errors "$st" 2>&1 | head -c 300)"
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

# SIGTERM during a pre command: the command (a shell waiting for its child) stopped at
# once, nothing of the phase started after it, the command not called a failure
cat >pre.yaml <<EOF
name: pre
launcher: local
hosts:
  a: {netdev: va}
  b: {netdev: vb}
monitor: {interval: 50ms, sources: [link]}
phases:
  - name: setup
    duration: 5s
    pre:
      - {host: a, run: "sleep 67.25; echo done", essential: true}
      - {host: b, run: "echo second"}
    inject:
      - {host: a, kind: pfc, args: [-c, "0", -r, "100"]}
EOF
ip netns exec "$NS" "$PFCLAB" run -q -o "$work/r5" pre.yaml >pre.out 2>&1 &
rpid=$!
defer kill $rpid
for _ in $(seq 100); do pgrep -f "sleep 67.25" >/dev/null && break; sleep 0.1; done
kill -TERM $rpid
t0=$(date +%s%N)
wait $rpid
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
st=$work/r5/points/p000/rep0/status.json
if [ $rc -eq 1 ] && [ $ms -lt 8000 ] && ! pgrep -f "sleep 67.25" >/dev/null &&
	[ "$(jq -r .status "$work/r5/manifest.json")" = interrupted ] &&
	[ "$(jq -c '[.finished, .reasons, .errors]' "$st")" = '[false,["interrupted"],[]]' ] &&
	! ls "$work"/r5/points/p000/rep0/*/inject-* "$work"/r5/points/p000/rep0/b/pre-* >/dev/null 2>&1; then
	ok "$name: SIGTERM in a pre command: stopped in $ms ms, nothing started after it, no error of its own"
else
	fail "$name: SIGTERM in a pre command" "exit $rc in $ms ms; $(jq -c '[.finished, .reasons, .errors]' "$st" 2>&1 | head -c 300); $(ls "$work"/r5/points/p000/rep0/*/ 2>&1 | tr '\n' ' ')"
fi

# an injector that fails (here: its arguments given as one string) leaves its phase without
# what it should inject: the repetition is invalid, saying so, and the run exits 1
cat >injfail.yaml <<EOF
name: injfail
launcher: local
hosts:
  a: {netdev: va}
  b: {netdev: vb}
monitor: false
phases:
  - name: pfc
    duration: 500ms
    inject:
      - {host: a, kind: pfc, args: --prio 3 -c 5}
EOF
run -q -o "$work/r6" injfail.yaml >injfail.out 2>&1
rc=$?
st=$work/r6/points/p000/rep0/status.json
if [ $rc -eq 1 ] && [ "$(jq -c '[.valid, .reasons, .errors[0].process]' "$st")" = \
	'[false,["an injector exited with status 2"],"inject-pfc-0"]' ] &&
	grep -q "INVALID (an injector exited with status 2)" injfail.out; then
	ok "$name: a failing injector makes the repetition invalid; exit 1"
else
	fail "$name: failing injector" "exit $rc; $(jq -c '[.valid, .reasons, .errors]' "$st" 2>&1 | head -c 300)"
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
