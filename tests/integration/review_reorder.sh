#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# review_reorder.sh: captures whose time steps back. (1) A pcapng written here byte by
# byte (Python, no pfclab) with PFC frames, CNPs and RoCEv2 packets out of time order
# within the reorder window and one CNP beyond it; the paused time, CNP gaps and the
# counts of frames put back and late are worked out by hand below, for the default
# window, a wider one and --reorder 0 (the file's order, as before the window); the
# timeline's rows go by each frame's time. (2) A real capture from the virtual lab demo
# (tests/golden/vlab_demo_reorder): review's count of frames out of order is tshark's,
# review of it (and of the other out-of-order captures) is review of reordercap's sorted
# copy, and its CNP gap minimum, 0.0 us in file order, comes out as in time order.
# (3) Files given newest first (a ring of capture -W in name order): the later file is
# named, with how far it starts behind the ones before it.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"

name=review_reorder
plan 9
need_cmd $name jq python3 || finish
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary at $PFCLAB"; finish; }
tmp=$(mktemp -d)
defer rm -rf "$tmp"

# ---- 1. the made capture ----------------------------------------------------------
# file order (ms), B = 02:00:00:00:00:0b, priority 3, 25 Gb/s in the interface block:
#   10.5 PFC XON (B)      10.0 PFC XOFF 65535 (B)   back 0.5 ms: put back
#   20.000 CNP A          20.150 CNP A              20.050 CNP A: back 0.1 ms, put back
#   20.450 CNP A          20.400 RoCEv2: back 0.05 ms, put back
#   100 CNP C             200 CNP C                 300 RoCEv2
#   150 CNP C: back 150 ms, beyond the 50 ms window: late
#   250 RoCEv2: back 50 ms, a packet counts by its own time wherever it comes: put back
#   301 PFC XON (B)
# CNP A is 10.0.0.2 -> QP 0x100, C is 10.0.0.3 -> QP 0x10.
python3 - "$tmp/ooo.pcapng" <<'EOF'
import struct, sys
T0 = 1700000000 * 10**9
MS, US = 10**6, 10**3
def mac(s): return bytes(int(x, 16) for x in s.split(':'))
def pfc(src, prio, q):
    f = mac('01:80:c2:00:00:01') + mac(src) + struct.pack('>HHH', 0x8808, 0x0101, 1 << prio)
    f += b''.join(struct.pack('>H', q if p == prio else 0) for p in range(8))
    return f + bytes(60 - len(f))
def csum(h):
    s = sum(struct.unpack('>%dH' % (len(h) // 2), h))
    while s > 0xffff: s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff
def roce(src, dst, opcode, qp, ecn):
    body = struct.pack('>BBHI', opcode, 0, 0xffff, qp) + struct.pack('>I', 1) + bytes(16) + bytes(4)
    udp = struct.pack('>HHHH', 49152, 4791, 8 + len(body), 0) + body
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, ecn, 20 + len(udp), 1, 0x4000, 64, 17, 0,
                     bytes(map(int, src.split('.'))), bytes(map(int, dst.split('.'))))
    ip = ip[:10] + struct.pack('>H', csum(ip)) + ip[12:]
    f = mac('02:00:00:00:00:02') + mac('02:00:00:00:00:01') + b'\x08\x00' + ip + udp
    return f + bytes(max(0, 60 - len(f)))
B = '02:00:00:00:00:0b'
cnp_a = roce('10.0.0.2', '10.0.0.1', 0x81, 0x100, 0)
cnp_c = roce('10.0.0.3', '10.0.0.1', 0x81, 0x10, 0)
data = roce('10.0.0.1', '10.0.0.2', 0x0a, 0x11, 2)
frames = [(10500 * US, pfc(B, 3, 0)), (10000 * US, pfc(B, 3, 0xffff)),
          (20000 * US, cnp_a), (20150 * US, cnp_a), (20050 * US, cnp_a), (20450 * US, cnp_a),
          (20400 * US, data), (100 * MS, cnp_c), (200 * MS, cnp_c), (300 * MS, data),
          (150 * MS, cnp_c), (250 * MS, data), (301 * MS, pfc(B, 3, 0))]
def block(t, body):
    n = 12 + len(body)
    return struct.pack('<II', t, n) + body + struct.pack('<I', n)
def opt(code, v):
    return struct.pack('<HH', code, len(v)) + v + bytes(-len(v) % 4)
out = block(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1))
out += block(1, struct.pack('<HHI', 1, 0, 262144) + opt(9, b'\x09') +
             opt(8, struct.pack('<Q', 25 * 10**9)) + opt(0, b''))
for t, f in frames:
    t += T0
    out += block(6, struct.pack('<IIIII', 0, t >> 32, t & 0xffffffff, len(f), len(f)) +
                 f + bytes(-len(f) % 4))
open(sys.argv[1], 'wb').write(out)
EOF
[ -s "$tmp/ooo.pcapng" ] || { fail "$name: made capture" "python could not write it"; finish; }

# summary of review --json ARGS: the figures the construction fixes
figures() {
	"$PFCLAB" review --json "$@" "$tmp/ooo.pcapng" 2>"$tmp/err" | jq -c '
		(.files[0] | [.reordered, .late_frames, .max_backstep_s, .bad_timestamps]),
		(.pause.priorities[] | [.frames, .xoff, .xon, .pauses, .paused_s]),
		(.cnp | sort_by(.dest_qp)[] | [.dest_qp, .count, .gap_min_s, .gap_median_s, .gap_p99_s])' |
		tr '\n' ' '
}
# default window, 50 ms: the pause is 10.0 to 10.5 ms (XON); A's gaps 50, 100, 300 us;
# C's late CNP comes after 200 ms: gaps 100 ms and 0
want='[4,1,0.15,1] [3,1,2,1,0.0005] [16,3,0,0,0.1] [256,4,5e-05,0.0001,0.0003] '
got=$(figures)
if [ "$got" = "$want" ] && [ "$(grep -c . "$tmp/err")" -eq 1 ] &&
	grep -q "ooo.pcapng: time goes back beyond the reorder window (50ms) at 1 frames, by up to 150ms" "$tmp/err"; then
	ok "$name: made capture: put back within 50 ms (pause 500 us, CNP gaps 50/100/300 us), 1 CNP late, one warning"
else
	fail "$name: default window" "got '$got' want '$want': $(cat "$tmp/err")"
fi
# --reorder 200ms takes the late CNP in: C's gaps 50 and 50 ms, no warning
want='[5,0,0.15,0] [3,1,2,1,0.0005] [16,3,0.05,0.05,0.05] [256,4,5e-05,0.0001,0.0003] '
got=$(figures --reorder 200ms)
if [ "$got" = "$want" ] && [ ! -s "$tmp/err" ]; then
	ok "$name: --reorder 200ms: all 5 put back, C's gaps 50 ms, no warning"
else
	fail "$name: --reorder 200ms" "got '$got' want '$want': $(cat "$tmp/err")"
fi
# --reorder 0, the file's order: the XON first ends nothing, the XOFF runs out (65535
# quanta at 25G, 1342156 ns); A's gaps 150 us, 0 (20.050 after 20.150) and 400 us
want='[0,5,0.15,5] [3,1,2,1,0.001342156] [16,3,0,0,0.1] [256,4,0,0.00015,0.0004] '
got=$(figures --reorder 0)
if [ "$got" = "$want" ] && [ "$(grep -c . "$tmp/err")" -eq 1 ] &&
	grep -q "time goes backwards at 5 frames, by up to 150ms; with --reorder 0" "$tmp/err"; then
	ok "$name: --reorder 0: the file's order, 5 steps back late, one warning"
else
	fail "$name: --reorder 0" "got '$got' want '$want': $(cat "$tmp/err")"
fi
# the text names it on the file's line
line=$("$PFCLAB" review "$tmp/ooo.pcapng" 2>/dev/null | head -n 1)
want="file      $tmp/ooo.pcapng: 13 frames, 4 put back in time order, 1 out of time order beyond the reorder window, steps back up to 150.000 ms"
if [ "$line" = "$want" ]; then
	ok "$name: the report's file line says what was put back, late and how far"
else
	fail "$name: file line" "'$line'"
fi
# timeline rows of 100 us from the earliest frame (10.0 ms, though 10.5 ms came first):
# every frame in a row, the pause's 500 us in rows 0-4
"$PFCLAB" review --timeline 100us "$tmp/ooo.pcapng" >"$tmp/t.csv" 2>"$tmp/err"
got=$(awk -F, 'NR == 2 { first = $1 } NR > 1 { n++; fr += $2; p3 += $14 }
	END { print first, n, fr, p3 }' "$tmp/t.csv")
if [ "$got" = "1700000000.010000000 2911 13 500000" ]; then
	ok "$name: timeline: first row at the earliest frame, 2911 rows, 13 frames, 500 us paused"
else
	fail "$name: timeline" "first row, rows, frames, paused ns: '$got'"
fi

# ---- 2. a real capture ------------------------------------------------------------
src=$PFCLAB_ROOT/tests/golden/vlab_demo_reorder/input.pcap
if need_cmd "$name: real capture" tshark; then
	# tshark: frames stamped before the latest one before them, and the largest step
	# back in ns (whole ns from the first frame's second, exact in a double)
	read -r back step < <(tshark -r "$src" -T fields -e frame.time_epoch 2>/dev/null |
		awk '{ split($1, p, "."); if (NR == 1) s0 = p[1]
			t = (p[1] - s0) * 1e9 + substr(p[2] "000000000", 1, 9)
			if (NR > 1 && t < max) { n++; if (max - t > b) b = max - t }
			if (NR == 1 || t > max) max = t }
			END { printf "%d %d\n", n, b }')
	got=$("$PFCLAB" review --json "$src" 2>/dev/null |
		jq -r '.files[0] | "\(.reordered + .late_frames) \(.late_frames) \(.max_backstep_s * 1e9 | round)"')
	if [ "$got" = "$back 0 $step" ] && [ "$back" -gt 0 ]; then
		ok "$name: real capture: $back frames out of order, as tshark counts them, all put back (up to $step ns, as tshark's times say)"
	else
		fail "$name: real capture counts" "review '$got', tshark $back"
	fi
fi
# Wireshark's reordercap writes a copy sorted by time: review of the capture is review of
# that copy, everything but files[] (the made capture with a window taking in all)
if need_cmd "$name: reordercap" reordercap; then
	bad=
	for f in "$src" "$PFCLAB_ROOT/tests/golden/vlab_rxe_cnp/input.pcap" "$tmp/ooo.pcapng"; do
		reordercap "$f" "$tmp/sorted" >/dev/null 2>&1 || { bad="$bad reordercap($f)"; continue; }
		a=$("$PFCLAB" review --json --reorder 200ms "$f" 2>/dev/null | jq -S -c 'del(.files)')
		b=$("$PFCLAB" review --json "$tmp/sorted" 2>/dev/null | jq -S -c 'del(.files)')
		[ -n "$a" ] && [ "$a" = "$b" ] || bad="$bad $(basename "$(dirname "$f")")/$(basename "$f")"
	done
	if [ -z "$bad" ]; then
		ok "$name: review of 3 out-of-order captures is review of reordercap's sorted copies"
	else
		fail "$name: reordercap" "differ:$bad"
	fi
fi
got=$("$PFCLAB" review --json "$src" 2>/dev/null | jq -c '[.cnp[0].gap_min_s]')
was=$("$PFCLAB" review --json --reorder 0 "$src" 2>/dev/null | jq -c '[.cnp[0].gap_min_s]')
if [ "$got" = "[1.367e-05]" ] && [ "$was" = "[0]" ]; then
	ok "$name: real capture: CNP gap minimum 13.7 us in time order (0 in the file's order)"
else
	fail "$name: real capture gaps" "in order $got, file order $was"
fi

# ---- 3. files out of time order ----------------------------------------------------
# old.pcap: CNPs at 0, 1, 2 ms; new.pcap: 3, 4, 5 ms. new then old: old starts 5 ms
# behind the newest frame before it.
"$PFCLAB" inject -q -w "$tmp/old.pcap" cnp -c 3 -r 1000 --start 1700000000 &&
	"$PFCLAB" inject -q -w "$tmp/new.pcap" cnp -c 3 -r 1000 --start 1700000000.003 ||
	fail "$name: files" "inject -w failed"
ooo=$("$PFCLAB" review --json "$tmp/new.pcap" "$tmp/old.pcap" 2>"$tmp/files.err" |
	jq -c '[.files[].behind_previous_s]')
ino=$("$PFCLAB" review --json "$tmp/old.pcap" "$tmp/new.pcap" 2>"$tmp/files_in.err" |
	jq -c '[.files[].behind_previous_s, .cnp[0].gap_min_s]')
if [ "$ooo" = "[0,0.005]" ] && grep -q "old.pcap: starts 5ms before the newest frame" \
	"$tmp/files.err" && [ "$(wc -l <"$tmp/files.err")" = 1 ] &&
	[ "$ino" = "[0,0,0.001]" ] && [ ! -s "$tmp/files_in.err" ]; then
	ok "$name: files newest first: one warning naming the file and 5 ms; oldest first: none"
else
	fail "$name: files" "newest first $ooo ($(cat "$tmp/files.err")), oldest first $ino \
($(cat "$tmp/files_in.err"))"
fi
finish
