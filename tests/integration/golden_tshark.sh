#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# golden_tshark.sh: pfclab's decoder agrees with tshark on every golden capture:
# frames per type (PAUSE, PFC, CNP), PFC frames and quanta per priority, PAUSE quanta,
# CNPs per (source, dest QP), and packets and CE marks per RoCEv2 flow. tshark's
# fields are summed with awk, pfclab's come from `pfclab review --json` through jq, and
# the two summaries must be equal. Also: the CNPs pfclab crafts carry BECN in BTH byte 4
# (0x40) as tshark decodes them, and its RoCEv2 data packets do not.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan $(($(ls -d "$PFCLAB_ROOT"/tests/golden/*/ | wc -l) + 1))

need_cmd golden_tshark tshark jq awk || finish
[ -x "$PFCLAB" ] || { skip golden_tshark "no pfclab binary at $PFCLAB"; finish; }
tmp=$(mktemp -d)
defer rm -rf "$tmp"

# tshark -> "key value" lines
tshark_summary() {
	tshark -r "$1" -T fields -E separator=/t -E occurrence=f \
		-e macc.opcode -e macc.cbfc.enbv -e macc.pause_time \
		-e macc.cbfc.pause_time.c0 -e macc.cbfc.pause_time.c1 -e macc.cbfc.pause_time.c2 \
		-e macc.cbfc.pause_time.c3 -e macc.cbfc.pause_time.c4 -e macc.cbfc.pause_time.c5 \
		-e macc.cbfc.pause_time.c6 -e macc.cbfc.pause_time.c7 \
		-e infiniband.bth.opcode -e infiniband.bth.destqp -e ip.src -e ipv6.src \
		-e ip.dst -e ipv6.dst -e ip.dsfield.ecn -e ipv6.tclass.ecn 2>/dev/null |
	awk -F'\t' '
	function hex(s,   i, c, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
		return v }
	{
		op = hex($1)
		if ($1 != "" && op == 1) { pause++; pq += $3 }
		if ($1 != "" && op == 257) {
			pfc++; en = hex($2)
			for (p = 0; p < 8; p++) if (int(en / 2 ^ p) % 2) { pf[p]++; qs[p] += $(4 + p) }
		}
		src = $14 != "" ? $14 : $15; dst = $16 != "" ? $16 : $17; ecn = $18 != "" ? $18 : $19
		if ($12 == "129") { cnp[src " " hex($13)]++; ncnp++ }
		else if ($12 != "") { f = src " " dst " " hex($13); flow[f]++; if (ecn == 3) ce[f]++ }
	}
	END {
		printf "pause %d\npfc %d\ncnp %d\npause_quanta %d\n", pause, pfc, ncnp, pq
		for (p = 0; p < 8; p++) if (pf[p]) printf "pfc_prio %d frames %d quanta %d\n", p, pf[p], qs[p]
		for (k in cnp) printf "cnp_qp %s %d\n", k, cnp[k]
		for (k in flow) printf "flow %s packets %d ce %d\n", k, flow[k], ce[k]
	}' | sort
}

pfclab_summary() {
	"$PFCLAB" review --json "$1" | jq -r '
		"pause \(.kinds.pause)", "pfc \(.kinds.pfc)", "cnp \(.kinds.cnp)",
		"pause_quanta \([.pause.priorities[] | select(.priority == "all") | .quanta] | add // 0)",
		(.pause.priorities[] | select(.priority != "all") |
			"pfc_prio \(.priority) frames \(.frames) quanta \(.quanta)"),
		(.cnp[] | "cnp_qp \(.source) \(.dest_qp) \(.count)"),
		(.ecn_flows[] | "flow \(.source) \(.destination) \(.dest_qp) packets \(.packets) ce \(.ce)")' | sort
}

n=0
for f in "$PFCLAB_ROOT"/tests/golden/*/input.pcap; do
	[ -f "$f" ] || continue
	case=$(basename "$(dirname "$f")")
	n=$((n + 1))
	tshark_summary "$f" >"$tmp/t.txt"
	pfclab_summary "$f" >"$tmp/p.txt"
	if [ ! -s "$tmp/t.txt" ] || [ ! -s "$tmp/p.txt" ]; then
		fail "golden_tshark/$case" "empty summary (tshark or pfclab failed)"
	elif diff -u "$tmp/t.txt" "$tmp/p.txt" >"$tmp/d.txt"; then
		ok "golden_tshark/$case ($(grep -c . "$tmp/t.txt") figures agree)"
	else
		fail "golden_tshark/$case" "pfclab and tshark disagree (- tshark, + pfclab)"
		cat "$tmp/d.txt" >&2
	fi
done
[ $n -gt 0 ] || skip golden_tshark "no golden captures"

# BTH byte 4 of each packet as tshark -V shows it: "becn" or "clear". Wireshark from
# 4.2 on names the bits (FECN, BECN); older releases show the byte as "Reserved: 40".
bth_becn() {
	tshark -r "$1" -V 2>/dev/null | awk '
		/Base Transport Header/ { in_bth = 1; got = "clear"; next }
		in_bth && /BECN/ { if ($0 ~ /(^|[^0-9a-z])1[. ]|True|Set/) got = "becn" }
		in_bth && /^ *Reserved: 40$/ { got = "becn" }
		in_bth && /Destination Queue Pair/ { print got; in_bth = 0 }'
}
"$PFCLAB" inject --quiet -w "$tmp/cnp.pcap" cnp --src-ip 10.0.0.2 --dst-ip 10.0.0.1 --qp 0x100 -c 3 &&
	"$PFCLAB" inject --quiet --append -w "$tmp/cnp.pcap" roce --src-ip 10.0.0.1 \
		--dst-ip 10.0.0.2 --qp 0x55 --len 64 -c 2
got=$(bth_becn "$tmp/cnp.pcap" | tr '\n' ' ')
if [ "$got" = "becn becn becn clear clear " ]; then
	ok "golden_tshark: crafted CNPs carry BECN (BTH byte 4 0x40), data packets do not"
else
	fail "golden_tshark: crafted CNPs carry BECN" "tshark per packet: '${got:-nothing}', expected 'becn' for the 3 CNPs and 'clear' for the 2 WRITEs"
fi
finish
