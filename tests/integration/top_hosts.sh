#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# top_hosts.sh: "pfclab top HOST HOST" over SSH against two fake hosts (tests/hosts.sh):
# both are shown side by side with their own counters; when one host dies mid-run it is
# marked STALE within 2 s (3 intervals of 200 ms, at least 1 s, plus a redraw) and keeps
# its last values, while the other keeps updating. A host whose monitor was held still
# says in its header how many intervals it missed.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../tmux.sh"
plan 11
name=top_hosts
need_root $name || finish
need_cmd $name tmux ip ssh /usr/sbin/sshd || finish
hosts_sh=$(dirname "$0")/../hosts.sh
[ -f "$hosts_sh" ] || { skip $name "tests/hosts.sh (fake hosts) is not in this tree"; finish; }
# shellcheck source=../hosts.sh
source "$hosts_sh"
fakehosts_up 2 || { fail $name "fakehosts_up 2"; finish; }
# ssh's connection masters (ControlPersist) go to a folder of this test, and are told to
# exit at the end.
tmp=$(mktemp -d)
defer rm -rf "$tmp"
export XDG_RUNTIME_DIR=$tmp
for h in h1 h2; do
	defer ssh -F "$SSH_CONFIG" -o ControlPath="$tmp/pfclab-ssh/cm-%C" -O exit "$h"
done
tmux_shell 160 30 "XDG_RUNTIME_DIR=$tmp" || { fail $name "tmux"; finish; }
# link_vals HOST: the rx, tx and total of HOST's block in the "link" row (the block
# starts where the host's name is in the second line and ends at the next host's).
link_vals() {
	screen | awk -v h="$1" '
		NR == 2 { s = index($0, " " h " ") + 1; rest = substr($0, s + 1)
			  e = match(rest, / h[0-9]+ /); len = e ? e : 200 }
		$1 == "link" { split(substr($0, s, len), f, " "); print f[1], f[2], f[3]; exit }'
}
link_total() { link_vals "$1" | awk '{ print $3 }'; }

# LANG=C: ASCII sparklines, so awk's character positions are the screen's columns.
type_line "LANG=C $PFCLAB top --ssh-config $SSH_CONFIG --remote-pfclab $PFCLAB -I 200ms --record-dir $tmp/rec h1:${FAKEHOST_IF[h1]} h2:${FAKEHOST_IF[h2]}; echo TOP_EXIT=\$?"
if wait_for 'h1 ok' 150 && wait_for 'h2 ok' 150; then
	head=$(screen | sed -n 2p)
	[[ $head =~ h1\ ok.*h2\ ok ]] && ok "$name: two hosts side by side over ssh" ||
		fail "$name: side by side" "$head"
else
	keys Tab
	sleep 0.5
	fail "$name: both hosts up" "$(screen | head -2) h2: $(screen | tail -1)"
	finish
fi
# At 80x24 both still fit, with fewer columns each.
resize 80 24
sleep 0.6
head80=$(screen | sed -n 2p)
# tab: the selected host is drawn first; tab again wraps to h1.
keys Tab
sleep 0.4
tab1=$(screen | sed -n 2p)
keys Tab
sleep 0.4
tab2=$(screen | sed -n 2p)
resize 160 30
sleep 0.6
[[ $head80 =~ h1\ ok.*h2\ ok ]] && ok "$name: both hosts side by side at 80x24" ||
	fail "$name: 80x24" "$head80"
[[ $tab1 =~ ^1/2\ hosts\ +h2\ ok ]] && [[ $tab2 =~ h1\ ok.*h2\ ok ]] &&
	ok "$name: tab selects the host drawn first, and wraps" ||
	fail "$name: tab" "'$tab1' then '$tab2'"
a=$(link_total h2)
sleep 0.6
b=$(link_total h2)
[ -n "$a" ] && [ "$a" != "$b" ] && ok "$name: h2's link counters move ($a -> $b)" ||
	fail "$name: h2 updates" "link totals '$a' '$b'; $(screen | grep link)"

# r: both hosts recorded, each in its own record folder, in the monitor's format. The
# --record-dir holds a record of another host already (h9, an earlier session's): it is
# kept, and the hosts record into rec-2, so that a replay of either shows one session.
mkdir -p "$tmp/rec/h9"
printf '{}\n' >"$tmp/rec/h9/meta.json"
keys r
sleep 1.2
msg=$(screen | grep -o 'r: recording to [^ ]*' | head -n 1)
keys r
sleep 0.5
recs=''
for h in h1 h2; do
	rows=$(($(wc -l <"$tmp/rec-2/$h/samples.csv" 2>/dev/null || echo 1) - 1))
	grep -q '"finished": *true' "$tmp/rec-2/$h/meta.json" 2>/dev/null || rows="$rows, unfinished"
	recs+="$h: $rows rows; "
done
# 1.2 s at 200 ms: 6 samples, give or take one at each end (key presses vs samples).
# each as the monitor's own record has it: format 2, its values named by a columns line
kw=
for h in h1 h2; do
	w=$(rec_keyed_matches_csv "$tmp/rec-2/$h") || kw+="$h: $w; "
done
[[ $recs =~ ^h1:\ [4-8]\ rows\;\ h2:\ [4-8]\ rows\;\ $ ]] && [ ! -e "$tmp/rec/h1" ] &&
	[ "$msg" = "r: recording to $tmp/rec-2" ] && [ -z "$kw" ] &&
	ok "$name: r records each host into its own record folder, beside no other host's ($recs)" ||
	fail "$name: r records the hosts" "$recs; '$msg'; $(ls "$tmp/rec"); $kw"

# h2's monitor held still for 1 s (SIGSTOP: it is no terminal's job there): the intervals
# it missed, as its samples say, in h2's header once it goes on; none in h1's.
mpid=''
for p in $(ip netns pids "${FAKEHOST_NS[h2]}"); do
	tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- ' monitor --json' && mpid=$p
done
if [ -n "$mpid" ] && kill -STOP "$mpid"; then
	defer kill -CONT "$mpid"
	sleep 1
	kill -CONT "$mpid"
	wait_for 'h2 ok [0-9.]*s, [0-9]* missed' 30
	head=$(screen | sed -n 2p)
	m2=$(grep -o 'h2 ok [0-9.]*s, [0-9]* missed' <<<"$head" | grep -o '[0-9]* missed' | cut -d' ' -f1)
	[ "${m2:-0}" -ge 3 ] && [ "$m2" -le 8 ] && ! grep -q 'h1 [^ ]* [0-9.]*s, [0-9]* missed' <<<"$head" &&
		ok "$name: h2's monitor stopped for 1 s at 200 ms: $m2 missed intervals in its header, none in h1's" ||
		fail "$name: a remote host's missed intervals" "want 3-8 for h2 only: $head"
else
	fail "$name: a remote host's missed intervals" "no monitor process found in h2's namespace"
fi

fakehost_kill h1
# The requirement: STALE within 2 s of the host's death.
if wait_for 'h1 STALE' 20; then
	ok "$name: h1 killed: STALE within 2 s"
else
	fail "$name: h1 STALE within 2 s" "$(screen | sed -n 2p)"
fi
h1_before=$(link_vals h1)
c=$(link_total h2)
sleep 0.6
d=$(link_total h2)
h1_after=$(link_vals h1)
screen | sed -n 2p | grep -q 'h2 ok' && [ "$c" != "$d" ] &&
	ok "$name: h2 keeps updating while h1 is stale ($c -> $d)" ||
	fail "$name: h2 keeps updating" "$(screen | sed -n 2p); totals '$c' '$d'"
[ "$h1_before" = "$h1_after" ] && [ -n "$h1_after" ] && [[ $h1_after != n/a* ]] &&
	ok "$name: h1 keeps its last values ($h1_after)" ||
	fail "$name: h1 last values" "before '$h1_before' after '$h1_after'"
keys q
wait_for 'TOP_EXIT=0' 50 && ok "$name: q exits 0 with a host dead" ||
	fail "$name: q with a dead host" "$(screen | tail -3)"

# The hosts of a "pfclab run" experiment file (launcher ssh), h1 still dead.
cat >"$tmp/exp.yaml" <<EOT
name: top-hosts
launcher: ssh
hosts:
  h1: { netdev: ${FAKEHOST_IF[h1]}, pfclab: $PFCLAB }
  h2: { netdev: ${FAKEHOST_IF[h2]}, pfclab: $PFCLAB }
monitor: { interval: 200ms }
phases:
  - { name: idle, duration: 1s }
EOT
type_line clear
type_line "LANG=C $PFCLAB top --ssh-config $SSH_CONFIG -e $tmp/exp.yaml; echo TOP_EXIT=\$?"
if wait_for 'h2 ok' 150 && screen | sed -n 2p | grep -q 'h1 .*h2 ok'; then
	ok "$name: -e: the experiment file's hosts, side by side ($(screen | sed -n 2p | tr -s ' '))"
else
	fail "$name: -e experiment hosts" "$(screen | sed -n 2p)"
fi
keys q
finish
