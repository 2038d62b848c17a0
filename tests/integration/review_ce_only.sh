#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# review_ce_only.sh: a capture that kept only CE-marked RoCEv2 packets gives no CE share.
# On a veth pair between two namespaces made here, pfclab inject sends N RoCEv2 packets
# of one flow, every 10th CE-marked, while four captures run at once: --ce and --roce,
# each as pcapng and as classic pcap. Review must give the --roce share (10%) and, for
# --ce pcapng, n/a with the reason (its if_filter says what it kept), also when read
# with the --roce file; classic pcap records no filter: capture warns, review warns on
# a 100% share and takes --ce-only. A dumpcap capture with a CE filter is read the same
# way. Capture refuses --ce with -f or --roce. `pfclab run` with capture mode ce: the
# review.json it keeps has a null share and the summary counts the CE marks, its share
# n/a with review's reason.
source "$(dirname "$0")/../lib.sh"
plan 9

name=review_ce_only
N=100
need_root $name || finish
need_cmd $name ip jq || finish
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary at $PFCLAB"; finish; }
setup_ns NSA NSB || { fail $name "cannot create namespaces"; finish; }
ip link add pfcea type veth peer name pfceb || { fail $name "cannot create a veth pair"; finish; }
defer ip link del pfcea
ip link set pfcea netns "$NSA" && ip link set pfceb netns "$NSB"
ip -n "$NSA" link set pfcea up && ip -n "$NSB" link set pfceb up
tmp=$(mktemp -d)
defer rm -rf "$tmp"
inb() { ip netns exec "$NSB" "$PFCLAB" "$@"; }

# four captures of the same traffic: ce.pcapng ce.pcap roce.pcapng roce.pcap
pids=()
for mode in ce roce; do
	for fmt in pcapng pcap; do
		n=$N
		[ $mode = ce ] && n=$((N / 10))
		args=(-i pfceb "--$mode" -q -c $n -D 30s -w "$tmp/$mode.$fmt")
		[ $fmt = pcapng ] && args+=(--pcapng)
		inb capture "${args[@]}" >/dev/null 2>"$tmp/$mode.$fmt.err" &
		pids+=($!)
		defer kill $!
	done
done
for f in ce.pcapng ce.pcap roce.pcapng roce.pcap; do
	for _ in $(seq 100); do grep -q listening "$tmp/$f.err" && break; sleep 0.1; done
	grep -q listening "$tmp/$f.err" ||
		{ fail $name "capture to $f did not start: $(cat "$tmp/$f.err")"; finish; }
done
ip netns exec "$NSA" "$PFCLAB" inject --quiet -i pfcea -c $N -r 10000 roce --ce-every 10 ||
	{ fail $name "inject failed"; finish; }
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=$?; done
[ $rc -eq 0 ] || { fail $name "a capture exited $rc: $(cat "$tmp"/*.err)"; finish; }

# the flow's row (packets ect ce ce_share) and, in JSON, share, reason and file verdict
row() { "$PFCLAB" review "$@" 2>/dev/null | awk '$2 == ">" { print $5, $6, $7, $8 }'; }
js() {
	"$PFCLAB" review --json "$@" 2>/dev/null |
		jq -r '"\(.ecn_flows[0].ce_share) | \(.ecn_flows[0].ce_share_na) | \([.files[].ecn_filter] | join(","))"'
}

got="$(row "$tmp/roce.pcapng") | $(js "$tmp/roce.pcapng")"
want="100 100 10 10.00% | 0.1 | null | keeps_all"
if [ "$got" = "$want" ]; then
	ok "$name: --roce pcapng: 10 of 100 CE-marked, 10.00%, its filter kept every ECN"
else
	fail "$name: --roce pcapng" "got '$got', want '$want'"
fi

got="$(row "$tmp/ce.pcapng") | $(js "$tmp/ce.pcapng")"
want="10 10 10 n/a | null | capture kept only CE-marked packets | ce_only"
"$PFCLAB" review "$tmp/ce.pcapng" >"$tmp/ce.txt" 2>"$tmp/ce.rev.err"
if [ "$got" = "$want" ] &&
	grep -qx "file      $tmp/ce.pcapng: 10 frames, its capture filter kept only CE-marked RoCEv2 packets" "$tmp/ce.txt" &&
	grep -q "^note      ce_share n/a: the capture kept only CE-marked packets" "$tmp/ce.txt" &&
	! grep -q "%" "$tmp/ce.txt" && [ ! -s "$tmp/ce.rev.err" ]; then
	ok "$name: --ce pcapng: ce_share n/a (JSON null) with the reason, from its if_filter"
else
	fail "$name: --ce pcapng" "got '$got', want '$want'; $(cat "$tmp/ce.txt" "$tmp/ce.rev.err")"
fi

# the same flow in both files: part of it came through the CE-only filter
got="$(row "$tmp/roce.pcapng" "$tmp/ce.pcapng") | $(js "$tmp/roce.pcapng" "$tmp/ce.pcapng")"
want="110 110 20 n/a | null | capture kept only CE-marked packets | keeps_all,ce_only"
if [ "$got" = "$want" ]; then
	ok "$name: --roce and --ce pcapng read together: the merged flow's share is n/a"
else
	fail "$name: both pcapng" "got '$got', want '$want'"
fi

# classic pcap: no filter recorded. Capture says so; review gives the share, warns that
# it reads 100%, and takes --ce-only
if grep -q "ce.pcap: classic pcap records no filter" "$tmp/ce.pcap.err" &&
	! grep -q "records no filter" "$tmp/roce.pcap.err" "$tmp/ce.pcapng.err"; then
	ok "$name: capture --ce to classic pcap warns that the filter is not recorded"
else
	fail "$name: capture warning" "$(cat "$tmp/ce.pcap.err" "$tmp/roce.pcap.err")"
fi
"$PFCLAB" review "$tmp/ce.pcap" >/dev/null 2>"$tmp/ce.pcap.rev.err"
got="$(row "$tmp/ce.pcap") | $(row --ce-only "$tmp/ce.pcap") | $(js --ce-only "$tmp/ce.pcap")"
want="10 10 10 100.00% | 10 10 10 n/a | null | capture kept only CE-marked packets | ce_only"
if [ "$got" = "$want" ] && grep -q "every RoCEv2 packet read is CE-marked.*give --ce-only" "$tmp/ce.pcap.rev.err" &&
	"$PFCLAB" review --ce-only "$tmp/ce.pcap" | grep -q "(--ce-only)"; then
	ok "$name: classic pcap --ce: 100% with a warning naming --ce-only; with --ce-only n/a"
else
	fail "$name: classic --ce" "got '$got', want '$want'; $(cat "$tmp/ce.pcap.rev.err")"
fi
"$PFCLAB" review "$tmp/roce.pcap" >/dev/null 2>"$tmp/roce.pcap.rev.err"
got="$(row "$tmp/roce.pcap") | $(js "$tmp/roce.pcap")"
want="100 100 10 10.00% | 0.1 | null | unknown"
if [ "$got" = "$want" ] && [ ! -s "$tmp/roce.pcap.rev.err" ]; then
	ok "$name: classic pcap --roce: 10.00%, no warning, filter unknown"
else
	fail "$name: classic --roce" "got '$got', want '$want'; $(cat "$tmp/roce.pcap.rev.err")"
fi

# another tool's pcapng: dumpcap records its -f filter the same way
if command -v dumpcap >/dev/null; then
	ip netns exec "$NSB" dumpcap -q -i pfceb -f "udp dst port 4791 and ip[1] & 3 = 3" -c $((N / 10)) \
		-a duration:30 -w "$tmp/dc.pcapng" 2>"$tmp/dc.err" &
	dc=$!
	defer kill $dc
	for _ in $(seq 100); do grep -q "Capturing on" "$tmp/dc.err" && break; sleep 0.1; done
	sleep 0.2
	ip netns exec "$NSA" "$PFCLAB" inject --quiet -i pfcea -c $N -r 10000 roce --ce-every 10
	wait $dc
	got="$(row "$tmp/dc.pcapng") | $(js "$tmp/dc.pcapng")"
	want="10 10 10 n/a | null | capture kept only CE-marked packets | ce_only"
	if [ "$got" = "$want" ]; then
		ok "$name: dumpcap -f 'ip[1] & 3 = 3' pcapng: ce_share n/a from its if_filter"
	else
		fail "$name: dumpcap" "got '$got', want '$want'; $(cat "$tmp/dc.err")"
	fi
else
	skip "$name: dumpcap" "dumpcap not installed"
fi

# --ce with -f or --roce: refused, naming what each keeps
e1=$(inb capture -i pfceb --ce -f udp -D 1s 2>&1 >/dev/null); r1=$?
e2=$(inb capture -i pfceb --ce --roce -D 1s 2>&1 >/dev/null); r2=$?
e3=$(inb capture -i pfceb --roce -f udp -D 1s 2>&1 >/dev/null); r3=$?
if [ $r1 = 2 ] && [[ $e1 == *"-f replaces the built-in filter that --ce picks"* ]] &&
	[ $r2 = 2 ] && [[ $e2 == *"--ce and --roce pick different filters"* ]] &&
	[ $r3 = 2 ] && [[ $e3 == *"that --roce picks"* ]]; then
	ok "$name: capture --ce with -f or --roce, and --roce with -f, are usage errors"
else
	fail "$name: option clash" "exit $r1/$r2/$r3: $e1 / $e2 / $e3"
fi

# the runner: capture mode ce, a phase of RoCEv2 with every 10th packet CE-marked
if command -v gnuplot >/dev/null; then
	ip -n "$NSB" link add pfcra type veth peer name pfcrb &&
		ip -n "$NSB" link set pfcra up && ip -n "$NSB" link set pfcrb up ||
		{ fail $name "veth for the run"; finish; }
	cat >"$tmp/ce.yaml" <<EOF
name: ce-share
launcher: local
hosts:
  a: {netdev: pfcra}
  b: {netdev: pfcrb}
monitor: {interval: 50ms, sources: [link]}
capture: {mode: ce, speed: 10G}
phases:
  - name: quiet
    duration: 200ms
  - name: marked
    duration: 400ms
    inject:
      - {host: a, kind: roce, args: [--ce-every, "10", -c, "$N", -r, "10000"]}
EOF
	(cd "$tmp" && ip netns exec "$NSB" "$PFCLAB" run -q ce.yaml >run.out 2>run.err)
	rc=$?
	d="$tmp/results/$(readlink "$tmp/results/latest" 2>/dev/null)"
	got="$(jq -r '.ecn_flows[0] | "\(.packets) \(.ce) \(.ce_share) \(.ce_share_na)"' \
		"$d/points/p000/rep0/b/review.json" 2>/dev/null)"
	want="$((N / 10)) $((N / 10)) null capture kept only CE-marked packets"
	if [ $rc -eq 0 ] && [ "$got" = "$want" ] &&
		grep -q "ECN .*CE captured $((N / 10)) (CE share n/a: capture kept only CE-marked packets)\$" "$d/summary.txt" &&
		! grep -q "100\.00%" "$d/summary.txt" &&
		[ "$(jq -r '.points[0].repetitions[0].hosts.b.capture | "\(.roce_ce) \(.ce_share) \(.ce_share_na) \(.ecn_filter)"' \
			"$d/summary.json")" = "$((N / 10)) null capture kept only CE-marked packets ce_only" ]; then
		ok "$name: pfclab run, capture mode ce: review.json share null with the reason, summary counts $((N / 10)) CE marks, its share n/a with the reason"
	else
		fail "$name: run" "exit $rc, review.json '$got' (want '$want'); $(grep -h ECN "$d/summary.txt" 2>/dev/null) $(tail -n 3 "$tmp/run.err")"
	fi
else
	skip "$name: run" "gnuplot not installed (the runner draws plots)"
fi
finish
