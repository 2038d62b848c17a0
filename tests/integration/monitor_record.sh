#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_record.sh: a record is never lost silently. --record into a folder that holds
# a run is refused (exit 1) unless --force (which removes all of the old run's CSV
# segments); --interval 500us works; on a full disk (a 512 KiB tmpfs in a private mount
# namespace) recording stops at once, says so once, meta.json is finished with the
# reason and the sample count the files hold, no temporary file is left, exit 1; SIGINT,
# SIGTERM and SIGHUP (a closed terminal or ssh session) mid-record leave a finished
# record, exit 0. Monitors the loopback of a namespace made here; about 5 s.
source "$(dirname "$0")/../lib.sh"

name=monitor_record
plan 7
need_root $name || finish
need_cmd $name ip jq unshare mount || finish
[ -x "$PFCLAB" ] || { skip $name "no pfclab binary at $PFCLAB"; finish; }
setup_ns NS || { fail $name "cannot create a namespace"; finish; }
tmp=$(mktemp -d)
defer rm -rf "$tmp"
mon() { ip netns exec "$NS" "$PFCLAB" monitor -i lo -q "$@"; }

# 500us: 5 samples, 5 rows, recorded interval 500000 ns
if mon -I 500us -c 5 --record "$tmp/run" 2>"$tmp/err" &&
	[ "$(($(wc -l <"$tmp/run/samples.csv") - 1))" -eq 5 ] &&
	[ "$(jq '.interval_ns, .samples, .finished' "$tmp/run/meta.json" | tr '\n' ' ')" = \
		"500000 5 true " ]; then
	ok "$name: --interval 500us records 5 samples at 500000 ns"
else
	fail "$name: --interval 500us" "$(cat "$tmp/err")"
fi

# the same folder again: refused, nothing touched
sum=$(md5sum "$tmp/run/samples.csv" "$tmp/run/meta.json")
mon -I 1ms -c 3 --record "$tmp/run" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "$tmp/run already holds a monitor run" "$tmp/err" &&
	[ "$(md5sum "$tmp/run/samples.csv" "$tmp/run/meta.json")" = "$sum" ]; then
	ok "$name: --record into a folder holding a run is refused, files untouched"
else
	fail "$name: overwrite refused" "exit $rc: $(cat "$tmp/err")"
fi
# the run replaced had a second and third CSV segment (columns added during it): they go
# too, or readers (top --replay) would take their rows for the new run's
cp "$tmp/run/samples.csv" "$tmp/run/samples-2.csv"
cp "$tmp/run/samples.csv" "$tmp/run/samples-3.csv"
if mon -I 1ms -c 3 --record "$tmp/run" --force 2>"$tmp/err" &&
	[ "$(jq .samples "$tmp/run/meta.json")" = 3 ] &&
	[ "$(($(wc -l <"$tmp/run/samples.csv") - 1))" -eq 3 ] &&
	[ ! -e "$tmp/run/samples-2.csv" ] && [ ! -e "$tmp/run/samples-3.csv" ]; then
	ok "$name: --force replaces the run (3 samples now, the old run's segments gone)"
else
	fail "$name: --force" "$(cat "$tmp/err")"
fi

# stopped by a signal mid-record: finished, every sample in both files, no .reserve left
for sig in INT TERM HUP; do
	ip netns exec "$NS" "$PFCLAB" monitor -i lo -q -I 1ms --record "$tmp/sig$sig" 2>"$tmp/err" &
	pid=$!
	defer kill -9 "$pid"
	sleep 0.6
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	rows=$(($(wc -l <"$tmp/sig$sig/samples.csv") - 1))
	jrows=$(grep -c '"type":"sample"' "$tmp/sig$sig/samples.jsonl")
	meta=$(jq -r '"\(.finished) \(.samples) \(.error)"' "$tmp/sig$sig/meta.json")
	if [ "$rc" -eq 0 ] && [ "$rows" -gt 10 ] && [ "$rows" -eq "$jrows" ] &&
		[ "$meta" = "true $rows null" ] && [ ! -e "$tmp/sig$sig/.reserve" ]; then
		ok "$name: SIG$sig mid-record: exit 0, record finished with its $rows samples"
	else
		fail "$name: SIG$sig mid-record" "exit $rc, rows $rows/$jrows, meta '$meta', files: $(ls -A "$tmp/sig$sig" | tr '\n' ' '): $(cat "$tmp/err")"
	fi
done

# full disk: 512 KiB fill within a second at 1 ms (about 1.5 KiB a sample on lo)
cat >"$tmp/full.sh" <<EOF
mount -t tmpfs -o size=512k pfclab-full "$tmp/mnt" || exit 99
ip netns exec "$NS" "$PFCLAB" monitor -i lo -q -I 1ms -D 20s --record "$tmp/mnt/run" \
	2>"$tmp/full.err"
echo \$? >"$tmp/full.rc"
cp -a "$tmp/mnt/run" "$tmp/fullrun"
EOF
mkdir "$tmp/mnt"
unshare -m bash "$tmp/full.sh"
rc=$(cat "$tmp/full.rc" 2>/dev/null)
rows=$(($(wc -l <"$tmp/fullrun/samples.csv") - 1))
jrows=$(grep -c '"type":"sample"' "$tmp/fullrun/samples.jsonl")
meta=$(jq -r '"\(.finished) \(.samples) \(.error)"' "$tmp/fullrun/meta.json")
said=$(grep -c "recording stopped" "$tmp/full.err")
left=$(ls -A "$tmp/fullrun" | grep -c '^\.')
if [ "$rc" = 1 ] && [ "$said" -eq 1 ] && [ "$left" -eq 0 ] && [ "$rows" -gt 0 ] &&
	[ "$rows" -eq "$jrows" ] &&
	{ [ "$meta" = "true $rows $tmp/mnt/run: writing samples.jsonl: No space left on device" ] ||
	  [ "$meta" = "true $rows $tmp/mnt/run: writing samples.csv: No space left on device" ]; }; then
	ok "$name: disk full: exit 1, said once, meta.json finished with $rows samples and the reason, no temp file"
else
	fail "$name: disk full" "exit $rc, said $said times, hidden files $left, rows $rows/$jrows, meta '$meta': $(head -3 "$tmp/full.err")"
fi
finish
