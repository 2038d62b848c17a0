#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# review_oracle.sh: what `pfclab review` computes, checked against expected values that
# pfclab did not make. (1) A capture written here byte by byte (Python, no pfclab) whose
# figures follow from its construction: PAUSE that expires before the next frame, PAUSE
# refreshed before it expires and ended by an XON, a 150 ms storm, PFC on two priorities
# from two sources, CNPs with chosen gaps, CE-marked RoCEv2, truncated and invalid
# frames; the expected figures and timeline rows are written out below by hand.
# (2) The same figures recomputed from tshark's fields by a small Python program for
# that capture and every golden capture (in time order, as review's reorder window
# feeds them), at each one's link speed and storm threshold:
# XOFF/XON per priority, pauses, paused and longest time, storms, CNP rate and gap
# percentiles (nearest rank), frames per kind, truncated and invalid counts, timeline,
# and the timeline's PFC frames per priority summed over its rows.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
ngold=$(ls -d "$PFCLAB_ROOT"/tests/golden/*/ | wc -l)
plan $((4 + ngold))

need_cmd review_oracle tshark python3 || finish
[ -x "$PFCLAB" ] || { skip review_oracle "no pfclab binary at $PFCLAB"; finish; }
tmp=$(mktemp -d)
defer rm -rf "$tmp"

# ---- 1. the constructed capture ------------------------------------------------------
python3 - "$tmp/built.pcap" <<'EOF'
import struct, sys
T0 = 1700000000 * 10**9                     # ns
MS, US = 10**6, 10**3
frames = []                                  # (t_ns, bytes, caplen)

def mac(s): return bytes(int(x, 16) for x in s.split(':'))
def macctl(src, opcode, body):
    f = mac('01:80:c2:00:00:01') + mac(src) + struct.pack('>HH', 0x8808, opcode) + body
    return f + bytes(60 - len(f))
def pause(src, q): return macctl(src, 0x0001, struct.pack('>H', q))
def pfc(src, times):                         # times: {prio: quanta}
    en = sum(1 << p for p in times)
    return macctl(src, 0x0101, struct.pack('>H', en) + b''.join(
        struct.pack('>H', times.get(p, 0)) for p in range(8)))
def csum(h):
    s = sum(struct.unpack('>%dH' % (len(h) // 2), h))
    while s > 0xffff: s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff
def roce(src, dst, opcode, qp, payload, ecn, iplen=None):
    bth = struct.pack('>BBHI', opcode, 0, 0xffff, qp & 0xffffff) + struct.pack('>I', 1)
    body = bth + payload + bytes(4)           # ICRC not checked by either tool
    udp = struct.pack('>HHHH', 49152, 4791, 8 + len(body), 0) + body
    tl = iplen if iplen is not None else 20 + len(udp)
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, ecn, tl, 1, 0x4000, 64, 17, 0,
                     bytes(map(int, src.split('.'))), bytes(map(int, dst.split('.'))))
    ip = ip[:10] + struct.pack('>H', csum(ip)) + ip[12:]
    f = mac('02:00:00:00:00:02') + mac('02:00:00:00:00:01') + b'\x08\x00' + ip + udp
    return f + bytes(max(0, 60 - len(f)))
def add(t, f, cap=None): frames.append((T0 + t, f, cap if cap else len(f)))

A, B, C = '02:00:00:00:00:0a', '02:00:00:00:00:0b', '02:00:00:00:00:0c'
# PAUSE from A. At 25 Gb/s one quantum is 512 bit times = 20.48 ns.
add(0, pause(A, 0xffff))                     # expires after 1342.1568 us: pause 1
for i in range(5): add(10 * MS + i * 10 * US, pause(A, 1000))   # 20.48 us each, refreshed
add(10 * MS + 50 * US, pause(A, 0))          # XON at 10.05 ms: pause 2 = 50 us
for i in range(150): add(20 * MS + i * MS, pause(A, 0xffff))     # storm: pause 3
# PFC: B on priorities 3 and 5, C on priority 3
add(200 * MS, pfc(B, {3: 100, 5: 200}))      # 2.048 us and 4.096 us
add(200 * MS + 500 * US, pfc(C, {3: 50}))    # C's own pause: 1.024 us, to the end
add(200 * MS + 1 * US, pfc(B, {3: 100, 5: 0}))  # refresh 3, XON 5 after 1 us
add(210 * MS, pfc(B, {3: 0}))                # 3 expired at 200.003048 ms; XON ends nothing
# CNPs: 10.0.0.2 -> QP 0x100 with gaps 50, 100, 300, 1000 us; 10.0.0.3 -> QP 0x10 once
for t in (300000, 300050, 300150, 300450, 301450):
    add(t * US, roce('10.0.0.2', '10.0.0.1', 0x81, 0x100, bytes(16), 0))
add(302 * MS, roce('10.0.0.3', '10.0.0.1', 0x81, 0x10, bytes(16), 0))
# RoCEv2 RDMA WRITE ONLY to QP 0x11: 4 CE, 6 ECT(0)
for i in range(10):
    add(303 * MS + i * US, roce('10.0.0.1', '10.0.0.2', 0x0a, 0x11, bytes(16) + bytes(64),
                                3 if i < 4 else 2))
# 3 RoCEv2 frames cut by a 40-byte snaplen (truncated), 2 whose IPv4 length exceeds the
# frame (invalid)
for i in range(3): add(304 * MS + i * US, roce('10.0.0.1', '10.0.0.2', 0x0a, 0x11, bytes(80), 2), 40)
for i in range(2): add(305 * MS + i * US, roce('10.0.0.1', '10.0.0.2', 0x0a, 0x11, bytes(8), 2, 900))

frames.sort(key=lambda f: f[0])
with open(sys.argv[1], 'wb') as o:
    o.write(struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))   # ns pcap
    for t, f, cap in frames:
        o.write(struct.pack('<IIII', t // 10**9, t % 10**9, cap, len(f)) + f[:cap])
EOF
"$PFCLAB" review --json --speed 25G --storm 100ms "$tmp/built.pcap" >"$tmp/built.json" 2>"$tmp/built.err"
python3 - "$tmp/built.json" >"$tmp/built.diff" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
q = 512 / 25e9                               # one quantum at 25 Gb/s, seconds
p1, p2, p3 = 0xffff * q, 50e-6, 149e-3 + 0xffff * q   # storm: 20 ms to 169 ms + 1 XOFF
want = {
 'kinds': dict(pause=157, pfc=4, cnp=6, roce=10, truncated=3, invalid=2, other=0, macctl=0),
 'all': dict(frames=157, xoff=156, xon=1, quanta=0xffff * 151 + 5000, pauses=3,
             paused_s=p1 + p2 + p3, longest_s=p3, storms=1),
 3: dict(frames=4, xoff=3, xon=1, quanta=250, pauses=2,
         paused_s=1e-6 + 100 * q + 50 * q, longest_s=1e-6 + 100 * q, storms=0),
 5: dict(frames=2, xoff=1, xon=1, quanta=200, pauses=1, paused_s=1e-6, longest_s=1e-6, storms=0),
 'cnp': {('10.0.0.2', 0x100): dict(count=5, rate_per_s=4 / 1.45e-3, gap_min_s=50e-6,
                                    gap_median_s=100e-6, gap_p99_s=1000e-6),
         ('10.0.0.3', 0x10): dict(count=1, rate_per_s=None, gap_min_s=None,
                                  gap_median_s=None, gap_p99_s=None)},
 'ce': {('10.0.0.1', '10.0.0.2', 0x11): dict(packets=10, ce=4)},
}
bad = []
# review keeps time in whole ns and cuts each pause's end to a ns: 10 ns covers that
def cmp(where, w, g):
    if w is None or g is None:
        if w is not g: bad.append('%s: want %r got %r' % (where, w, g))
    elif abs(w - g) > (1e-8 if where.endswith('_s') and 'rate' not in where else 1e-9 * max(1, abs(w))):
        bad.append('%s: want %r got %r' % (where, w, g))
for k, v in want['kinds'].items(): cmp('kinds.' + k, v, r['kinds'].get(k))
prios = {p['priority']: p for p in r['pause']['priorities']}
for p in ('all', 3, 5):
    if p not in prios: bad.append('no priority %s' % p); continue
    for k, v in want[p].items(): cmp('prio %s %s' % (p, k), v, prios[p].get(k))
if set(prios) != {'all', 3, 5}: bad.append('priorities %s' % sorted(map(str, prios)))
cnps = {(c['source'], c['dest_qp']): c for c in r['cnp']}
if set(cnps) != set(want['cnp']): bad.append('cnp keys %s' % sorted(cnps))
for key, w in want['cnp'].items():
    for k, v in w.items(): cmp('cnp %s %s' % (key, k), v, cnps.get(key, {}).get(k))
fl = {(f['source'], f['destination'], f['dest_qp']): f for f in r['ecn_flows']}
for key, w in want['ce'].items():
    for k, v in w.items(): cmp('flow %s %s' % (key, k), v, fl.get(key, {}).get(k))
if bad: print('\n'.join(bad))
EOF
if [ -s "$tmp/built.json" ] && [ ! -s "$tmp/built.diff" ]; then
	ok "review_oracle: constructed capture: kinds, XOFF/XON, pauses, paused/longest time, storms, CNP rate and gaps, CE"
else
	fail "review_oracle: constructed capture" "$(head -n 8 "$tmp/built.diff" "$tmp/built.err" | tr '\n' '|')"
fi

# the timeline in 100 ms rows, by construction: frames, pause, pfc, cnp, roce, roce_ce,
# other, truncated, invalid, the paused ns of priorities 0..7 and of 802.3x PAUSE, then
# the PFC frames that name each priority 0..7 (B's two frames name 3 and 5, C's one and
# B's XON name 3):
# 0-100 ms: pause 1 (1342156 ns: 65535 quanta, cut to a ns), pause 2 (50 us) and the storm
# from 20 ms; 100-200 ms: the storm until 169 ms + 1342156 ns; 200-300 ms: priority 3
# 3048 ns (B, refreshed after 1 us) + 1024 ns (C), priority 5 1 us (B, then XON).
"$PFCLAB" review --speed 25G --timeline 100ms "$tmp/built.pcap" 2>&1 |
	grep '^[0-9]' >"$tmp/timeline.csv"
cat >"$tmp/timeline.want" <<'EOF'
1700000000.000000000,87,87,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,81392156,0,0,0,0,0,0,0,0
1700000000.100000000,70,70,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,70342156,0,0,0,0,0,0,0,0
1700000000.200000000,4,0,4,0,0,0,0,0,0,0,0,0,4072,0,1000,0,0,0,0,0,0,4,0,2,0,0
1700000000.300000000,21,0,0,6,10,4,0,3,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
EOF
if diff "$tmp/timeline.want" "$tmp/timeline.csv" >"$tmp/timeline.diff"; then
	ok "review_oracle: constructed capture: timeline rows of 100 ms"
else
	fail "review_oracle: timeline" "$(tr '\n' '|' <"$tmp/timeline.diff")"
fi
# without a link speed (a pcap carries none) no paused time can be worked out: the fields
# of the priorities that had pause frames (3, 5, 802.3x) stay empty, the others are 0
got=$("$PFCLAB" review --timeline 100ms "$tmp/built.pcap" 2>/dev/null | grep '^[0-9]' | cut -d, -f11-19 | sort -u)
if [ "$got" = "0,0,0,,0,,0,0," ]; then
	ok "review_oracle: constructed capture: no link speed, paused fields empty where pause frames came"
else
	fail "review_oracle: timeline without a speed" "$(echo "$got" | tr '\n' '|')"
fi

# ---- 2. tshark's fields, recomputed ---------------------------------------------------
# oracle FILE SPEED_BPS STORM_S: the review summary from tshark's fields, as JSON
oracle() {
	tshark -r "$1" -T fields -E separator=/t -E occurrence=f \
		-e frame.time_epoch -e frame.len -e frame.cap_len -e eth.src \
		-e macc.opcode -e macc.cbfc.enbv -e macc.pause_time \
		-e macc.cbfc.pause_time.c0 -e macc.cbfc.pause_time.c1 -e macc.cbfc.pause_time.c2 \
		-e macc.cbfc.pause_time.c3 -e macc.cbfc.pause_time.c4 -e macc.cbfc.pause_time.c5 \
		-e macc.cbfc.pause_time.c6 -e macc.cbfc.pause_time.c7 \
		-e infiniband.bth.opcode -e infiniband.bth.destqp -e ip.src -e ipv6.src \
		-e ip.dsfield.ecn -e ipv6.tclass.ecn -e ip.len -e vlan.id 2>/dev/null |
	python3 -c '
import json, sys
speed, storm = float(sys.argv[1]), float(sys.argv[2])
def num(s): return int(s, 16) if s.lower().startswith("0x") else int(s)
def ns(s):
    a, _, b = s.partition("."); return int(a) * 10**9 + int((b + "000000000")[:9])
kinds = dict(pause=0, pfc=0, cnp=0, roce=0, truncated=0, invalid=0)
prio, state, cnp, first = {}, {}, {}, None
def close(p, d):
    s = prio[p]; s["pauses"] += 1; s["paused"] += d; s["longest"] = max(s["longest"], d)
    if d >= storm * 1e9: s["storms"] += 1
def frame(t, src, p, q):
    s = prio.setdefault(p, dict(frames=0, xoff=0, xon=0, quanta=0, pauses=0, paused=0,
                                longest=0, storms=0))
    s["frames"] += 1
    if q: s["xoff"] += 1; s["quanta"] += q
    else: s["xon"] += 1
    if not speed: return
    st = state.pop((src, p), None)          # (start, until) of a pause going on
    if st and t >= st[1]: close(p, st[1] - st[0]); st = None
    if q: state[(src, p)] = (st[0] if st else t, t + q * 512 * 10**9 // int(speed))
    elif st: close(p, t - st[0])
# review feeds PAUSE/PFC and CNP frames to its summary in time order where the file
# steps back (its reorder window, --reorder, 50 ms; every golden capture steps back by
# less, the virtual lab ones by up to 5.3 ms), equal times in file order: a stable sort
rows = [line.rstrip("\n").split("\t") for line in sys.stdin]
# the sort stands for the reorder window of review only where no step back reaches it
back, top = 0, None
for f in rows:
    top = ns(f[0]) if top is None else max(top, ns(f[0]))
    back = max(back, top - ns(f[0]))
if back >= 50 * 10**6:
    sys.exit("oracle: the file steps back by %d ns, past the 50 ms reorder window of review" % back)
rows.sort(key=lambda f: ns(f[0]))
for f in rows:
    t, wl, cl = ns(f[0]), int(f[1]), int(f[2])
    op, bth = f[4], f[15]
    if op and num(op) == 1:
        kinds["pause"] += 1; frame(t, f[3], "all", num(f[6]))
    elif op and num(op) == 0x101:
        kinds["pfc"] += 1; en = num(f[5])
        for p in range(8):
            if en >> p & 1: frame(t, f[3], p, num(f[7 + p]))
    elif cl == wl and f[21] and num(f[21]) > wl - 14 - (4 if f[22] else 0):
        kinds["invalid"] += 1                # IPv4 longer than the frame
    elif bth and num(bth) == 129:
        kinds["cnp"] += 1; c = cnp.setdefault((f[17] or f[18], num(f[16])), [])
        c.append(t)
    elif bth:
        kinds["roce"] += 1
    elif cl < wl:
        kinds["truncated"] += 1
for (src, p), st in state.items(): close(p, st[1] - st[0])
out = {"kinds": kinds, "prio": {}, "cnp": {}}
for p, s in prio.items():
    out["prio"][str(p)] = dict(frames=s["frames"], xoff=s["xoff"], xon=s["xon"],
        quanta=s["quanta"], pauses=s["pauses"] if speed else None,
        paused_s=s["paused"] / 1e9 if speed else None,
        longest_s=s["longest"] / 1e9 if speed else None, storms=s["storms"] if speed else None)
for (src, qp), ts in cnp.items():
    g = sorted(b - a for a, b in zip(ts, ts[1:]))
    n = len(g)
    out["cnp"]["%s %d" % (src, qp)] = dict(count=len(ts),
        rate_per_s=(len(ts) - 1) * 1e9 / (ts[-1] - ts[0]) if n and ts[-1] > ts[0] else None,
        gap_min_s=g[0] / 1e9 if n else None, gap_median_s=g[(n - 1) // 2] / 1e9 if n else None,
        gap_p99_s=g[-(-n * 99 // 100) - 1] / 1e9 if n else None)
print(json.dumps(out))
' "$2" "$3"
}
# pfclab's review --json in the oracle's shape
shape() {
	python3 -c '
import json, sys
r = json.load(sys.stdin)
out = {"kinds": {k: r["kinds"][k] for k in ("pause", "pfc", "cnp", "roce", "truncated", "invalid")},
       "prio": {str(p.pop("priority")): {k: p[k] for k in ("frames", "xoff", "xon", "quanta",
                "pauses", "paused_s", "longest_s", "storms")} for p in r["pause"]["priorities"]},
       "cnp": {"%s %d" % (c["source"], c["dest_qp"]): {k: c[k] for k in ("count", "rate_per_s",
                "gap_min_s", "gap_median_s", "gap_p99_s")} for c in r["cnp"]}}
print(json.dumps(out))'
}
compare() { # ORACLE_JSON PFCLAB_JSON: differences, one per line (the oracle computes in
	# whole ns as review does, so times agree exactly; rates to a relative 1e-9)
	python3 -c '
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
def walk(x, y, path):
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)): walk(x.get(k), y.get(k), path + "." + k)
    elif isinstance(x, (int, float)) and isinstance(y, (int, float)):
        if abs(x - y) > 1e-9 * max(1, abs(x)): print("%s: tshark %r pfclab %r" % (path, x, y))
    elif x != y: print("%s: tshark %r pfclab %r" % (path, x, y))
walk(a, b, "")' "$1" "$2"
}
speed_of() { # ARGS: the --speed value in bit/s (0 when absent)
	echo "$1" | sed -n 's/.*--speed \([0-9]*\)\([KMG]\?\).*/\1 \2/p' |
		awk '{ m = $2 == "G" ? 1e9 : $2 == "M" ? 1e6 : $2 == "K" ? 1e3 : 1; printf "%.0f", $1 * m }'
}
storm_of() { echo "$1" | sed -n 's/.*--storm \([0-9]*\)ms.*/\1/p' | awk '{ print $1 / 1000 }'; }

for f in "$tmp/built.pcap" "$PFCLAB_ROOT"/tests/golden/*/input.pcap; do
	if [ "$f" = "$tmp/built.pcap" ]; then case=built args="--speed 25G --storm 100ms"
	else case=$(basename "$(dirname "$f")") args=$(cat "$(dirname "$f")/args" 2>/dev/null); fi
	sp=$(speed_of "$args")
	st=$(storm_of "$args")
	o=$(oracle "$f" "${sp:-0}" "${st:-0.1}")
	# shellcheck disable=SC2086 # (the report: a --timeline in args would replace it)
	p=$("$PFCLAB" review --json $(sed 's/--timeline [^ ]*//' <<<"$args") "$f" | shape)
	d=$(compare "$o" "$p" 2>&1)
	# the timeline's PFC frames per priority (pfc_prioN), summed over its rows
	t=$("$PFCLAB" review --timeline 1s "$f" 2>/dev/null | python3 -c '
import csv, json, sys
s = [0] * 8
for row in csv.DictReader(sys.stdin):
    for p in range(8): s[p] += int(row["pfc_prio%d" % p])
print(json.dumps(s))')
	d+=$(python3 -c '
import json, sys
o, t = json.loads(sys.argv[1])["prio"], json.loads(sys.argv[2])
for p in range(8):
    w = o.get(str(p), {}).get("frames", 0)
    if t[p] != w: print("timeline pfc_prio%d: tshark %d pfclab %d" % (p, w, t[p]))' "$o" "$t" 2>&1)
	if [ -n "$o" ] && [ -n "$p" ] && [ -z "$d" ]; then
		ok "review_oracle/$case: tshark fields recomputed agree with review and its timeline's pfc_prioN ($(echo "$o" | head -c 120)...)"
	else
		fail "review_oracle/$case" "$(echo "$d" | head -n 6 | tr '\n' '|')"
	fi
done
finish
