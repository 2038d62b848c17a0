#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# review_hostile.sh: pfclab review on damaged captures, the way a careless or hostile
# user hands them over. 120 mutants of the golden captures (bytes overwritten, records
# cut off, seeded so every run makes the same ones), read from a file and from a pipe:
# each ends within 10 s with exit 0 (read), 1 (not a capture) or 3 (damaged part way),
# never a signal, and whatever JSON it prints parses. Then the exact contract on made
# cases: a file cut short exits 3 with cut_short true; standard input and a FIFO are
# read; impossible timestamps and an unknown link type are warned about once with the
# count; frames without a timestamp (pcapng simple packet blocks) are counted but kept
# out of every figure of time; a pcap header's thiszone is named, not applied; the
# modified pcap format (magic 0xa1b2cd34) is read in both byte orders. About 5 s.
source "$(dirname "$0")/../lib.sh"

name=review_hostile
plan 9
need_cmd $name jq od || finish
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary at $PFCLAB"; finish; }
tmp=$(mktemp -d)
defer rm -rf "$tmp"
g=$PFCLAB_ROOT/tests/golden
inputs=("$g"/*/input.pcap)

# the mutants, made in one perl process (perl-base is part of every Debian system);
# srand fixed: the same mutants every run
need_cmd $name perl || finish
OUTDIR=$tmp perl -e '
	srand(4791);
	my @in = @ARGV[1..$#ARGV];
	for my $i (1..$ARGV[0]) {
		open(my $f, "<:raw", $in[int(rand(@in))]) or die; local $/; my $d = <$f>; close $f;
		my $n = length $d;
		if ($i % 4 == 0) {                      # cut anywhere
			$d = substr($d, 0, int(rand($n)));
		} else {                                # overwrite 1..8 bytes, headers more often
			for (1 .. 1 + int(rand(8))) {
				my $off = rand(3) < 1 ? int(rand(64)) : int(rand($n));
				substr($d, $off % $n, 1) = chr(int(rand(256)));
			}
		}
		open(my $o, ">:raw", sprintf("%s/m%03d.pcap", $ENV{OUTDIR}, $i)) or die;
		print $o $d; close $o;
	}' 120 "${inputs[@]}" || { fail $name "cannot make the mutants"; finish; }
bad=0
declare -A seen
for i in $(seq 120); do
	m=$tmp/m$(printf %03d "$i").pcap
	if [ $((i % 2)) = 0 ]; then
		timeout 10 "$PFCLAB" review --json "$m" >"$tmp/out.json" 2>"$tmp/err"
	else
		timeout 10 "$PFCLAB" review --json - <"$m" >"$tmp/out.json" 2>"$tmp/err"
	fi
	rc=$?
	seen[$rc]=1
	case $rc in
	0 | 3) jq -e . "$tmp/out.json" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "# mutant $i: exit $rc, invalid JSON" >&2; cp "$m" "$tmp/bad-$i.pcap"; } ;;
	1) ;;
	*) bad=$((bad + 1)); echo "# mutant $i: exit $rc: $(head -c 300 "$tmp/err")" >&2 ;;
	esac
done
if [ $bad -eq 0 ]; then
	ok "$name: 120 mutated captures (file and pipe): exits ${!seen[*]}, no signal, no hang, JSON valid"
else
	fail "$name: mutants" "$bad of 120 crashed, hung or printed invalid JSON"
fi

# cut short: exit 3, the frames before the cut counted, cut_short in the JSON
src=$g/vlab_rxe_cnp/input.pcap
head -c $(($(stat -c %s "$src") - 100)) "$src" >"$tmp/cut.pcap"
out=$("$PFCLAB" review --json "$tmp/cut.pcap" 2>"$tmp/err")
rc=$?
got=$(jq -r '.files[0] | "\(.damaged) \(.cut_short) \(.frames)"' <<<"$out")
if [ $rc -eq 3 ] && [ "$got" = "true true 1199" ] && [ "$(grep -c 'cut short' "$tmp/err")" -eq 1 ]; then
	ok "$name: a capture cut short exits 3, JSON damaged/cut_short true, 1199 of 1200 frames"
else
	fail "$name: cut short" "exit $rc, '$got': $(cat "$tmp/err")"
fi

# standard input and a FIFO give what the file gives
want=$("$PFCLAB" review --json "$src" 2>/dev/null | jq -c '.kinds, .frames')
mkfifo "$tmp/fifo"
cat "$src" >"$tmp/fifo" &
a=$(timeout 10 "$PFCLAB" review --json "$tmp/fifo" 2>/dev/null | jq -c '.kinds, .frames')
b=$(cat "$src" | timeout 10 "$PFCLAB" review --json - 2>/dev/null | jq -c '.kinds, .frames')
if [ -n "$want" ] && [ "$a" = "$want" ] && [ "$b" = "$want" ]; then
	ok "$name: a FIFO and standard input (-) read like the file"
else
	fail "$name: fifo/stdin" "file '$want', fifo '$a', stdin '$b'"
fi

# impossible timestamps: in a nanosecond pcap, set record 3's fraction to 1e9 (1 s
# later, so every record after it is more than the reorder window behind it) and record
# 5's seconds to 0: 1 fraction, 23 of the 26 records late (4..26), the largest step back
# record 5's. pfc_xoff_xon: 60-byte records.
src=$g/pfc_xoff_xon/input.pcap
cp "$src" "$tmp/ts.pcap"
hdr=24 rec=$((16 + 60))
le32() { printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $(($1 >> 8 & 255)))\\x$(printf %02x $(($1 >> 16 & 255)))\\x$(printf %02x $(($1 >> 24 & 255)))"; }
magic=$(od -An -tx4 -N4 "$src" | tr -d ' ')
caplen=$(od -An -tu4 -j $((hdr + 8)) -N4 "$src" | tr -d ' ')
if [ "$magic" = a1b23c4d ] && [ "$caplen" = 60 ]; then
	le32 1000000000 | dd of="$tmp/ts.pcap" bs=1 seek=$((hdr + 2 * rec + 4)) conv=notrunc status=none
	le32 0 | dd of="$tmp/ts.pcap" bs=1 seek=$((hdr + 4 * rec)) conv=notrunc status=none
	"$PFCLAB" review --json "$tmp/ts.pcap" >"$tmp/ts.json" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q "ts.pcap: 1 records with a sub-second field of 1 s or more" "$tmp/err" &&
		grep -q "ts.pcap: time goes back beyond the reorder window (50ms) at 23 frames, by up to 1700000000.99996s" "$tmp/err" &&
		[ "$(wc -l <"$tmp/err")" -eq 2 ] && [ "$(jq '.files[0].bad_timestamps' "$tmp/ts.json")" = 24 ]; then
		ok "$name: a fraction of 1e9 ns and time going backwards: one warning each with the count"
	else
		fail "$name: timestamps" "exit $rc: $(cat "$tmp/err")"
	fi
else
	skip "$name: timestamps" "pfc_xoff_xon/input.pcap is not nanosecond pcap with 60-byte records"
fi

# a link type the decoder does not know (105, IEEE 802.11) is named once with the count
cp "$src" "$tmp/dlt.pcap"
le32 105 | dd of="$tmp/dlt.pcap" bs=1 seek=20 conv=notrunc status=none
n=$("$PFCLAB" review --json "$src" 2>/dev/null | jq .frames)
"$PFCLAB" review --json "$tmp/dlt.pcap" >"$tmp/dlt.json" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "link type 105 (IEEE802_11) is not supported.*its $n frames are counted as invalid" "$tmp/err" &&
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && [ "$(jq '.files[0].unsupported_link_type, .kinds.invalid' "$tmp/dlt.json" | tr '\n' ' ')" = "105 $n " ]; then
	ok "$name: link type 105 (IEEE802_11) named once with its $n frames"
else
	fail "$name: link type" "exit $rc: $(cat "$tmp/err")"
fi
# a pcapng of two interfaces at 25G and 100G, one PFC frame of 1000 quanta on each: the
# text and the JSON say the speeds are mixed, and each frame's paused time is taken at its
# own interface's speed (1000 x 512 bits: 20.48 us at 25G, 5.12 us at 100G)
python3 - "$tmp/mixed.pcapng" <<'PY'
import struct, sys
def blk(t, body):
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", t, n) + body + struct.pack("<I", n)
def opt(code, v):
    return struct.pack("<HH", code, len(v)) + v + b"\0" * (-len(v) % 4)
shb = blk(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
idb = lambda bps: blk(1, struct.pack("<HHI", 1, 0, 256) + opt(8, struct.pack("<Q", bps)) + opt(0, b""))
pfc = bytes.fromhex("0180c2000001" "020000000001" "8808" "0101" "0008") + struct.pack(">8H", 0, 0, 0, 1000, 0, 0, 0, 0)
pfc += b"\0" * (60 - len(pfc))
epb = lambda i, us: blk(6, struct.pack("<IIIII", i, 0, us, len(pfc), len(pfc)) + pfc)
open(sys.argv[1], "wb").write(shb + idb(25 * 10**9) + idb(100 * 10**9) + epb(0, 1000000) + epb(1, 2000000))
PY
"$PFCLAB" review --json "$tmp/mixed.pcapng" >"$tmp/mixed.json" 2>"$tmp/err"
rc=$?
got=$(jq -c '[.pause.speeds_mixed, .pause.link_bps, (.pause.priorities[0].paused_s * 1e9 | round)]' "$tmp/mixed.json" 2>/dev/null)
txt=$("$PFCLAB" review "$tmp/mixed.pcapng" 2>/dev/null | grep '^pause ')
if [ $rc -eq 0 ] && [ "$got" = '[true,100000000000,25600]' ] && grep -q 'mixed speeds' <<<"$txt"; then
	ok "$name: 25G and 100G interfaces in one pcapng: speeds_mixed true, 20.48 + 5.12 us paused"
else
	fail "$name: mixed speeds" "exit $rc, [speeds_mixed, link_bps, paused ns] $got; '$txt'; $(cat "$tmp/err")"
fi
# Frames made by hand in perl, for the captures below: blk/opt/epb/spb build pcapng
# blocks (little-endian), pfc/cnp the frames (a PFC XOFF of 1000 quanta on priority 3
# from 02:00:00:00:00:01; a CNP from 10.0.0.2 to QP 0x100).
mkframes='
sub blk { my ($t, $b) = @_; $b .= "\0" x (-length($b) % 4); my $n = length($b) + 12;
	pack("VV", $t, $n) . $b . pack("V", $n) }
sub opt { my ($c, $v) = @_; pack("vv", $c, length $v) . $v . "\0" x (-length($v) % 4) }
sub shb { blk(0x0A0D0D0A, pack("VvvVV", 0x1A2B3C4D, 1, 0, 0xffffffff, 0xffffffff)) }
sub idb { blk(1, pack("vvV", 1, 0, 0) . opt(8, pack("Q<", $_[0])) . opt(0, "")) }
sub epb { my ($us, $f) = @_; blk(6, pack("VVVVV", 0, $us >> 32, $us & 0xffffffff,
	length $f, length $f) . $f) }
sub spb { my ($f) = @_; blk(3, pack("V", length $f) . $f) }
sub pad60 { my $f = shift; $f . "\0" x (60 - length $f) }
sub pfc { pad60(pack("H*", "0180c2000001" . "020000000001" . "8808" . "0101" . "0008") .
	pack("n8", 0, 0, 0, 1000, 0, 0, 0, 0)) }
sub csum { my $s = 0; $s += $_ for unpack("n*", $_[0]);
	$s = ($s & 0xffff) + ($s >> 16) while $s > 0xffff; ~$s & 0xffff }
sub cnp { my $body = pack("CCnNN", 0x81, 0, 0xffff, 0x100, 1) . "\0" x 20;
	my $udp = pack("nnnn", 49152, 4791, 8 + length $body, 0) . $body;
	my $ip = pack("CCnnnCCnC4C4", 0x45, 0, 20 + length $udp, 1, 0x4000, 64, 17, 0,
		10, 0, 0, 2, 10, 0, 0, 1);
	substr($ip, 10, 2) = pack("n", csum($ip));
	pad60(pack("H*", "020000000001" . "020000000002" . "0800") . $ip . $udp) }
'

# simple packet blocks carry no timestamp: a PFC frame and a CNP in SPBs among timed
# ones (PFC at 1 s, CNPs at 1.0001 and 1.0003 s, 25G) are counted (frames, kinds) but
# placed at no time: span from 1 s, the CNP pair's 2 timed CNPs 200 us apart, 20.48 us
# paused, 4 timeline rows of 100 us; one warning, frames_without_time in the JSON
perl -e "$mkframes"'
	open(my $o, ">:raw", $ARGV[0]) or die;
	print $o shb(), idb(25e9), epb(1000000, pfc()), spb(pfc()), epb(1000100, cnp()),
		spb(cnp()), epb(1000300, cnp());' "$tmp/spb.pcapng"
"$PFCLAB" review --json "$tmp/spb.pcapng" >"$tmp/spb.json" 2>"$tmp/err"
rc=$?
got=$(jq -c '[.frames, .frames_without_time, .files[0].frames_without_time, .first_s, .last_s,
	.kinds.pfc, .kinds.cnp, .pause.priorities[0].frames,
	(.pause.priorities[0].paused_s * 1e9 | round), .cnp[0].count, (.cnp[0].gap_min_s * 1e9 | round),
	(.cnp[0].rate_per_s | round)]' "$tmp/spb.json" 2>/dev/null)
rows=$("$PFCLAB" review --timeline 100us "$tmp/spb.pcapng" 2>/dev/null | tail -n +2 |
	awk -F, '{ n++; f += $2 } END { print n, f }')
txt=$("$PFCLAB" review "$tmp/spb.pcapng" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$got" = '[5,2,2,1,1.0003,2,3,1,20480,2,200000,5000]' ] && [ "$rows" = "4 3" ] &&
	[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q "spb.pcapng: 2 frames without a timestamp (pcapng simple packet blocks)" "$tmp/err" &&
	grep -q '^file .*5 frames, 2 without a timestamp' <<<"$txt" &&
	grep -q '^span      0.000300 s, 5 frames, 2 without a timestamp' <<<"$txt"; then
	ok "$name: 2 simple packet blocks among 3 timed frames: counted, in no time-based figure, said so"
else
	fail "$name: simple packet blocks" "exit $rc, $got, timeline rows/frames '$rows': $(cat "$tmp/err"); $(head -n 2 <<<"$txt")"
fi
# thiszone -3600 in a classic pcap header (pfc_xoff_xon, little-endian): read as written,
# as tshark reads it (the same first_s), with one warning naming the value
cp "$g/pfc_xoff_xon/input.pcap" "$tmp/zone.pcap"
le32 $((0x100000000 - 3600)) | dd of="$tmp/zone.pcap" bs=1 seek=8 conv=notrunc status=none
want=$("$PFCLAB" review --json "$g/pfc_xoff_xon/input.pcap" 2>/dev/null | jq -c '[.first_s, .last_s, .frames]')
got=$("$PFCLAB" review --json "$tmp/zone.pcap" 2>"$tmp/err" | jq -c '[.first_s, .last_s, .frames]')
rc=$?
if [ $rc -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q "zone.pcap: its pcap header gives a time zone correction (thiszone) of -3600 s; timestamps are read as written" "$tmp/err"; then
	ok "$name: thiszone -3600: times read as written ($got), one warning naming it"
else
	fail "$name: thiszone" "exit $rc, want $want got $got: $(cat "$tmp/err")"
fi
# the modified pcap format (magic 0xa1b2cd34, 24-byte record headers with ifindex,
# protocol and packet type), little- and big-endian: a PFC XOFF at 1 s and CNPs at
# 1.0001 and 1.0003 s read as from any pcap (20.48 us paused at 25G, a 200 us CNP gap)
for end in le be; do
	perl -e "$mkframes"'
		my ($out, $be) = @ARGV; my ($l, $s) = $be ? ("N", "n") : ("V", "v");
		open(my $o, ">:raw", $out) or die;
		print $o pack("${l}${s}${s}${l}${l}${l}${l}", 0xa1b2cd34, 2, 4, 0, 0, 65535, 1);
		for ([0, pfc()], [100, cnp()], [300, cnp()]) {
			my ($us, $f) = @$_;
			print $o pack("${l}4${l}${s}CC", 1, $us, length $f, length $f, 3, 0x0800, 4, 0), $f;
		}' "$tmp/mod-$end.pcap" "$([ $end = be ] && echo 1 || echo 0)"
done
for end in le be; do
	"$PFCLAB" review --json --speed 25G "$tmp/mod-$end.pcap" 2>"$tmp/err-$end" | jq -c '[.frames, .first_s,
		.last_s, .kinds.pfc, .kinds.cnp, .kinds.invalid, (.pause.priorities[0].paused_s * 1e9 | round),
		(.cnp[0].gap_min_s * 1e9 | round), .files[0].damaged]' >"$tmp/mod-$end.got"
	echo "rc $?" >>"$tmp/mod-$end.got"
done
want='[3,1,1.0003,1,2,0,20480,200000,false]'
if [ "$(head -n 1 "$tmp/mod-le.got")" = "$want" ] && [ "$(head -n 1 "$tmp/mod-be.got")" = "$want" ] &&
	[ ! -s "$tmp/err-le" ] && [ ! -s "$tmp/err-be" ]; then
	ok "$name: modified pcap (0xa1b2cd34), little- and big-endian: 3 frames read as from pcap"
else
	fail "$name: modified pcap" "le $(cat "$tmp/mod-le.got" "$tmp/err-le" | tr '\n' ' '); be $(cat "$tmp/mod-be.got" "$tmp/err-be" | tr '\n' ' ')"
fi
finish
