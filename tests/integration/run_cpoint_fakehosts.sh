#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run_cpoint_fakehosts.sh: pfclab run with a congestion point among fake hosts
# (tests/hosts.sh): h1 sends, h2 receives, h3 bridges them (a bridge in h3's namespace
# with a veth to each, apart from the hosts' ssh network). The experiment's bottleneck:
# (tail-drop at 1 mbit/s; this kernel has no RED) is swept over its limit. Checked: the
# bottleneck set up on h3's port towards h2 with each point's limit; h3's record holds the
# qdisc counters, and what they say adds up exactly with the frames h1 injected and h2
# captured; the DCQCN-loop plot data and summary line; the port's own root qdisc back
# after the run. The fake hosts have no RDMA device: traffic is a stand-in that sleeps,
# the load is `pfclab inject roce` (ECT(0)) from h1 to h2 through the bridge.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../hosts.sh"
plan 9

need_root run_cpoint || exit 0
need_cmd run_cpoint ssh ssh-keygen nsenter unshare /usr/sbin/sshd jq tc || exit 0
[ -x "$PFCLAB" ] || { fail run_cpoint "no pfclab binary at $PFCLAB (run make)"; finish; }

tmp=$(mktemp -d)
defer rm -rf "$tmp"
if ! fakehosts_up 3; then
	fail run_cpoint_fakehosts_up "could not start 3 fake hosts"
	finish
fi
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got '$2', want '$3'"; fi
}
real=$(readlink -f "$PFCLAB")
n1=${FAKEHOST_NS[h1]} n2=${FAKEHOST_NS[h2]} n3=${FAKEHOST_NS[h3]}

# The data path h1:da -- [h3: cpa - cpbr - cpb] -- h2:db, on its own subnet.
# The bridge snoops no multicast: with snooping on it joins 224.0.0.106 itself and sends
# IGMP reports through cpb, which the bottleneck counts alongside the injected frames.
net=10.231.$(($$ % 200))
ip -n "$n3" link add cpbr type bridge mcast_snooping 0 &&
	ip -n "$n3" link add cpa type veth peer name da netns "$n1" &&
	ip -n "$n3" link add cpb type veth peer name db netns "$n2" || {
	fail run_cpoint_bridge "could not build the bridge in h3"
	finish
}
for x in "$n1 da" "$n2 db" "$n3 cpa" "$n3 cpb" "$n3 cpbr"; do
	set -- $x
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
done
ip -n "$n3" link set cpa master cpbr
ip -n "$n3" link set cpb master cpbr
for x in "$n1 da" "$n2 db" "$n3 cpa" "$n3 cpb" "$n3 cpbr"; do
	set -- $x
	ip -n "$1" link set "$2" up
done
ip -n "$n1" addr add "$net.1/24" dev da
ip -n "$n2" addr add "$net.2/24" dev db
before=$(ip netns exec "$n3" tc qdisc show dev cpb)
mac2=$(ip -n "$n2" -br link show db | awk '{ print $3 }')

# h1 and h2: `pfclab traffic` is a stand-in (no RDMA device) that sleeps for -D and prints
# a summary; monitor runs without -d fake0; everything else is the real pfclab.
standin() {
	rm -f "${FAKEHOST_BIN[$1]}/pfclab"
	cat >"${FAKEHOST_BIN[$1]}/pfclab" <<-EOF
		#!/bin/bash
		if [ "\$1" = monitor ]; then
			a=()
			while [ \$# -gt 0 ]; do
				[ "\$1" = -d ] && [ "\$2" = fake0 ] && { shift 2; continue; }
				a+=("\$1")
				shift
			done
			exec $real "\${a[@]}"
		fi
		[ "\$1" = traffic ] || exec $real "\$@"
		dur=1
		while [ \$# -gt 0 ]; do [ "\$1" = -D ] && dur=\${2%s}; shift; done
		echo '{"type":"start","role":"client","device":"fake0","mode":"unidirectional"}'
		sleep "\$dur"
		echo '{"type":"summary","phase":0,"size":1024,"t":'\$dur',"interrupted":false,"tx":{"bytes":1,"msgs":1,"seconds":'\$dur',"gbps":0,"mpps":0,"completions":1,"errors":0},"rx":{"bytes":0,"msgs":0,"seconds":'\$dur',"gbps":0,"mpps":0,"completions":null,"errors":0}}'
	EOF
	chmod +x "${FAKEHOST_BIN[$1]}/pfclab"
}
standin h1
standin h2
defer fakehost_pfclab_reset h1
defer fakehost_pfclab_reset h2

N=200 # RoCEv2 frames of 1024 B payload h1 injects at 2000/s: 2.2 Mbit/s into 1 Mbit/s
cat >"$tmp/cp.yaml" <<EOF
name: fh-cpoint
launcher: ssh
hosts:
  h1: {ssh: h1, addr: $net.1, netdev: da, rdma: fake0}
  h2: {ssh: h2, addr: $net.2, netdev: db, rdma: fake0}
  h3: {ssh: h3, netdev: cpb}
monitor: {interval: 50ms, sources: [link]}
capture: {mode: roce}
bottleneck: {host: h3, qdisc: tail-drop, rate: 1mbit, limit: "\${limit}"}
sweep:
  limit: [15000, 30000]
phases:
  - name: load
    traffic: {from: h1, to: h2, size: 1K, duration: 1s}
    inject:
      - {host: h1, kind: roce, args: [--dst-mac, "$mac2", --count, "$N", --rate, "2000"]}
  - name: drain
    duration: 1s
EOF
"$PFCLAB" run -F "$SSH_CONFIG" -o "$tmp/run" -q "$tmp/cp.yaml" >"$tmp/run.out" 2>&1
rc=$?
check run_cpoint_exit test "$rc" -eq 0
[ $rc -eq 0 ] || cat "$tmp/run.out" "$tmp/run/run.log" >&2

# Set up with each point's limit, as an htb at the rate with the FIFO under it.
set0=$(cat "$tmp/run/points/p000/rep0/h3/bottleneck-set.txt" 2>/dev/null)
set1=$(cat "$tmp/run/points/p001/rep0/h3/bottleneck-set.txt" 2>/dev/null)
if grep -q '^qdisc htb 1: root' <<<"$set0" && grep -q '^qdisc bfifo 10: parent 1:1 limit 15000b' <<<"$set0" &&
   grep -q '^qdisc bfifo 10: parent 1:1 limit 30000b' <<<"$set1"; then
	ok run_cpoint_setup_swept
else
	fail run_cpoint_setup_swept "p000 '$(tr '\n' ' ' <<<"$set0")' p001 '$(tr '\n' ' ' <<<"$set1")'"
fi

# h3's record: the bottleneck's counters; every injected frame was either sent on to h2
# (and captured there) or dropped at the tail, none left queued after the drain phase.
last() { # MONITOR-DIR METRIC: its last valid value in the record
	rec_keyed "$1/samples.jsonl" 2>/dev/null |
		jq -r --arg m "$2" 'select(.type == "sample") | .values[$m] // empty' | tail -n 1
}
acct=
for p in p000 p001; do
	r=$tmp/run/points/$p/rep0
	sent=$(last "$r/h3/monitor" qdisc.cpb.10.packets)
	drops=$(last "$r/h3/monitor" qdisc.cpb.10.drops)
	backlog=$(last "$r/h3/monitor" qdisc.cpb.10.backlog_packets)
	got=$(jq -r .kinds.roce "$r/h2/review.json" 2>/dev/null)
	acct+="$p sent=$sent drops=$drops backlog=$backlog captured=$got; "
	[ -n "$sent" ] && [ "$sent" = "$got" ] && [ $((sent + drops)) -eq $N ] && [ "$backlog" = 0 ] &&
		[ "$drops" -gt 0 ] || acct+="MISMATCH "
done
if [ -n "$acct" ] && ! grep -q MISMATCH <<<"$acct"; then
	ok run_cpoint_qdisc_counters
else
	fail run_cpoint_qdisc_counters "$acct"
fi
# A smaller queue drops more of the same burst.
d0=$(last "$tmp/run/points/p000/rep0/h3/monitor" qdisc.cpb.10.drops)
d1=$(last "$tmp/run/points/p001/rep0/h3/monitor" qdisc.cpb.10.drops)
check run_cpoint_sweep_drops test -n "$d1" -a "${d0:-0}" -gt "${d1:-0}"

# The DCQCN-loop plot: its data has the bottleneck's backlog over time (it rose above 0),
# the CE and CNP series are n/a here (tail drop, no RDMA NIC), the PNG was drawn.
dat=$tmp/run/plots/data/p000-rep0-dcqcn.dat
blmax=$(awk '/^# series 1:/ { on = 1; next } /^# series/ { on = 0 } on && NF == 2 && $2 != "NaN" && $2 > m { m = $2 } END { print m + 0 }' "$dat" 2>/dev/null)
if [ -s "$dat" ] && awk "BEGIN { exit !($blmax > 0) }" && grep -q '^# series 2: CNPs sent' "$dat" &&
   [ "$(head -c 4 "$tmp/run/plots/p000-rep0-dcqcn.png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] &&
   ! grep -q 'dcqcn.gp failed' "$tmp/run.out"; then
	ok run_cpoint_dcqcn_plot
else
	fail run_cpoint_dcqcn_plot "data $(head -c 300 "$dat" 2>/dev/null | tr '\n' ' ') backlog max $blmax"
fi
line=$(grep -A2 '^DCQCN loop (bottleneck h3 cpb)' "$tmp/run/summary.txt" | grep 'p000 rep0:')
if [[ $line == *"p000 rep0: n/a | n/a | n/a | "*" Gb/s" ]]; then
	ok run_cpoint_summary_line
else
	fail run_cpoint_summary_line "'$line'"
fi
# summary.json carries the same figures: null where the text says n/a, the throughput
# the text shows (to its 6 significant digits)
dj=$(jq -c '.dcqcn | [.bottleneck.host, .bottleneck.netdev, .repetitions[0].point, .repetitions[0].rep,
	.repetitions[0].ce_marks, .repetitions[0].cnps_sent, .repetitions[0].cnps_handled]' "$tmp/run/summary.json" 2>&1)
tg=$(sed -n 's/.*| \([0-9.e+-]*\) Gb\/s$/\1/p' <<<"$line")
jg=$(jq -r '.dcqcn.repetitions[0].sender_gbps' "$tmp/run/summary.json" 2>/dev/null)
if [ "$dj" = '["h3","cpb","p000",0,null,null,null]' ] && [ -n "$tg" ] &&
	awk -v a="$tg" -v b="$jg" 'BEGIN { exit !(b != "" && (a - b) ^ 2 <= (a * 1e-5) ^ 2) }'; then
	ok "run_cpoint_summary_json: dcqcn $dj, sender $jg Gb/s (text $tg)"
else
	fail run_cpoint_summary_json "dcqcn $dj, sender json '$jg' text '$tg'"
fi

# The port has its own root qdisc again, and the run's record says so.
after=$(ip netns exec "$n3" tc qdisc show dev cpb)
expect run_cpoint_restored "$after" "$before"
expect run_cpoint_restore_record "$(cat "$tmp/run/points/p001/rep0/h3/bottleneck-after.txt" 2>/dev/null)" "$before"
finish
