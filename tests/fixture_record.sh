# SPDX-License-Identifier: GPL-2.0-or-later
# fixture_record.sh: a monitor record (meta.json + samples.csv, as 'pfclab monitor
# --record' lays them out and 'pfclab top --replay' reads them) made from an ethtool
# fixture of tests/fixtures/monitor (name<TAB>value<TAB>value..., one column per sample,
# 1 s apart), its names mapped to metrics through monitor/catalog.tsv the way the
# monitor maps them: the first row of the source 'ethtool' whose drivers hold DRIVER (or
# '*') and whose raw name matches ({p}: one digit). Names the catalog does not map are
# left out. Source it after tests/lib.sh.
#
#   fixture_record FIXTURE DRIVER DIR [HOST] [SAMPLES]
#                           write DIR/meta.json and DIR/samples.csv of the fixture's
#                           first SAMPLES samples (all unless given); 1 when the fixture
#                           or the catalog cannot be read

fixture_record() {
	local fx=$PFCLAB_ROOT/tests/fixtures/monitor/$1 drv=$2 dir=$3 host=${4:-fixture} max=${5:-0}
	[ -r "$fx" ] && [ -r "$PFCLAB_ROOT/monitor/catalog.tsv" ] || return 1
	mkdir -p "$dir" || return 1
	awk -F'\t' -v drv="$drv" -v dir="$dir" -v host="$host" -v max="$max" '
	function held(list,   n, a, i) {
		if (list == "*")
			return 1
		n = split(list, a, ",")
		for (i = 1; i <= n; i++)
			if (a[i] == drv)
				return 1
		return 0
	}
	# the metric raw name r maps to by catalog row k, or "" when it does not match
	function map(r, k,   pat, b, pre, suf, mid) {
		pat = craw[k]
		b = index(pat, "{p}")
		if (!b)
			return r == pat ? cmet[k] : ""
		pre = substr(pat, 1, b - 1)
		suf = substr(pat, b + 3)
		if (length(r) != length(pre) + length(suf) + 1 ||
		    substr(r, 1, length(pre)) != pre || substr(r, length(pre) + 2) != suf)
			return ""
		mid = substr(r, length(pre) + 1, 1)
		if (mid !~ /^[0-9]$/)
			return ""
		pat = cmet[k]
		b = index(pat, "{p}")
		return b ? substr(pat, 1, b - 1) mid substr(pat, b + 3) : pat
	}
	FNR == NR {
		if ($0 ~ /^#/ || $1 != "ethtool" || !held($2))
			next
		nc++
		craw[nc] = $3; cmet[nc] = $4; cunit[nc] = $5; ckind[nc] = $6
		cbits[nc] = ($7 == "32") ? 32 : 64
		next
	}
	$0 ~ /^#/ || NF < 2 { next }
	{
		for (k = 1; k <= nc; k++)
			if ((m = map($1, k)) != "")
				break
		if (m == "" || seen[m]++)
			next
		n++
		name[n] = m; raw[n] = $1; unit[n] = cunit[k]; kind[n] = ckind[k]; bits[n] = cbits[k]
		ns = NF - 1
		if (max > 0 && ns > max)
			ns = max
		for (s = 1; s <= ns; s++)
			v[n, s] = $(s + 1)
	}
	END {
		meta = dir "/meta.json"
		printf "{\"format\":\"pfclab-monitor-2\",\"pfclab_version\":\"fixture\"," \
		       "\"host\":\"%s\",\"interval_ns\":1000000000,\"finished\":true," \
		       "\"csv_segments\":[\"samples.csv\"],\"samples\":%d,\"columns\":[", host, ns > meta
		for (i = 1; i <= n; i++)
			printf "%s{\"name\":\"%s\",\"key\":\"ethtool:fx0:%s\",\"metric\":\"%s\"," \
			       "\"raw\":\"%s\",\"unit\":\"%s\",\"kind\":\"%s\",\"bits\":%d}",
			       (i > 1 ? "," : ""), name[i], raw[i], name[i], raw[i], unit[i], kind[i],
			       bits[i] > meta
		printf "]}\n" > meta
		csv = dir "/samples.csv"
		printf "seq,mono_ns,wall_ns,dt_ns,overruns,gaps" > csv
		for (i = 1; i <= n; i++)
			printf ",%s", name[i] > csv
		printf "\n" > csv
		for (s = 1; s <= ns; s++) {
			printf "%d,%d000000000,%d000000000,%s,0,", s, s, 1796000000 + s,
			       (s > 1 ? "1000000000" : "0") > csv
			for (i = 1; i <= n; i++)
				printf ",%s", v[i, s] > csv
			printf "\n" > csv
		}
	}' "$PFCLAB_ROOT/monitor/catalog.tsv" "$fx"
}
