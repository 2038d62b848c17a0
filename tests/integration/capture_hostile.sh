#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# capture_hostile.sh: pfclab capture on a wire carrying damaged frames. The frames of the
# golden captures, with 1..8 bytes overwritten each (seeded, the same every run), are
# sent raw (AF_PACKET, from perl) on one end of a veth pair made here; capture on the
# other end, with no filter, must see every one of them, end at its -c count with exit 0
# and valid JSON, and write a pcap that review reads back with the same frame count.
# About 3 s.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"

name=capture_hostile
plan 1
need_root $name || finish
need_cmd $name ip jq perl || finish
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary at $PFCLAB"; finish; }
tmp=$(mktemp -d)
defer rm -rf "$tmp"
setup_ns NSA NSB || { fail $name "cannot create namespaces"; finish; }
ip link add pfcha type veth peer name pfchb || { fail $name "cannot create a veth pair"; finish; }
defer ip link del pfcha
ip link set pfcha netns "$NSA" && ip link set pfchb netns "$NSB"
# no IPv6 on the pair: its neighbour discovery would add frames of its own
ip netns exec "$NSA" sysctl -qw net.ipv6.conf.pfcha.disable_ipv6=1
ip netns exec "$NSB" sysctl -qw net.ipv6.conf.pfchb.disable_ipv6=1
ip -n "$NSA" link set pfcha up && ip -n "$NSB" link set pfchb up

# the frames: every Ethernet record of the golden pcaps of 60..1514 bytes, mutated
N=300
PFCLAB_GOLDEN=$PFCLAB_ROOT/tests/golden perl -e '
	srand(802);
	my @f;
	for my $p (glob("$ENV{PFCLAB_GOLDEN}/*/input.pcap")) {
		open(my $h, "<:raw", $p) or next; local $/; my $d = <$h>; close $h;
		next if length($d) < 24;
		my ($m) = unpack("V", $d);
		next unless $m == 0xa1b23c4d || $m == 0xa1b2c3d4;       # little-endian pcap
		next unless unpack("V", substr($d, 20, 4)) == 1;         # Ethernet
		my $o = 24;
		while ($o + 16 <= length($d)) {
			my $cl = unpack("V", substr($d, $o + 8, 4));
			last if $o + 16 + $cl > length($d);
			push @f, substr($d, $o + 16, $cl) if $cl >= 60 && $cl <= 1514;
			$o += 16 + $cl;
		}
	}
	die "no frames\n" unless @f;
	open(my $o, ">:raw", "'"$tmp"'/frames") or die;
	for my $i (1 .. '"$N"') {
		my $x = $f[int(rand(@f))];
		for (1 .. 1 + int(rand(8))) {
			substr($x, 12 + int(rand(length($x) - 12)), 1) = chr(int(rand(256))); # after the MACs
		}
		print $o pack("n", length($x)), $x;
	}' || { fail $name "cannot make the frames"; finish; }

ip netns exec "$NSB" "$PFCLAB" capture -i pfchb -f "" -q --json -c $N -D 20s -w "$tmp/cap.pcap" \
	>"$tmp/cap.json" 2>"$tmp/cap.err" &
cap=$!
defer kill "$cap"
for _ in $(seq 100); do grep -q listening "$tmp/cap.err" && break; sleep 0.1; done
# send them raw: AF_PACKET (17), SOCK_RAW (3), bound to the interface
ip netns exec "$NSA" perl -e '
	use Socket;
	my $if = "pfcha";
	socket(my $s, 17, 3, 0) or die "socket: $!";
	my $idx = do { open(my $h, "<", "/sys/class/net/$if/ifindex") or die; <$h> + 0 };
	my $sll = pack("S n i S C C a8", 17, 0x0003, $idx, 0, 0, 6, "");
	open(my $f, "<:raw", $ARGV[0]) or die; local $/; my $d = <$f>; close $f;
	my $o = 0;
	while ($o < length($d)) {
		my $n = unpack("n", substr($d, $o, 2));
		send($s, substr($d, $o + 2, $n), 0, $sll) or die "send: $!";
		$o += 2 + $n;
		select(undef, undef, undef, 0.001);
	}' "$tmp/frames" 2>"$tmp/send.err"
wait "$cap"
rc=$?
got=$(jq -r '"\(.frames) \(.written) \(.interfaces[0].kernel_drops)"' "$tmp/cap.json" 2>/dev/null)
rev=$("$PFCLAB" review --json "$tmp/cap.pcap" 2>/dev/null | jq .frames)
if [ $rc -eq 0 ] && [ "$got" = "$N $N 0" ] && [ "$rev" = "$N" ]; then
	ok "$name: $N mutated frames on the wire: all captured, written and read back, exit 0"
else
	fail "$name" "exit $rc, frames/written/drops '$got', review '$rev': $(cat "$tmp/cap.err" "$tmp/send.err" | tail -3)"
fi
finish
