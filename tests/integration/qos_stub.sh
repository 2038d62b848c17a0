#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qos_stub.sh: lab/qos against a stub dcb (state kept in files) and a fixture sysfs with the
# mlx5 ECN switches: apply sets PFC on one priority, DSCP trust and map, ECN; a second apply
# changes nothing; restore brings back the previous settings exactly; --dry-run changes
# nothing; an interface without DCB stops with exit 3; an interface that does not exist is
# a usage error (exit 2) that says so. The receive buffer split (a stub 'dcb buffer') and the
# PFC storm-prevention timeout (a stub 'ethtool --get/--set-tunable pfc-prevention-tout'):
# --dry-run shows the commands and changes nothing; apply sets them, show prints them; restore
# puts back the split and timeout exactly, also when a later apply first asked for them;
# values that are no map or no timeout are usage errors.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 15

QOS=$PFCLAB_ROOT/lab/qos
need_cmd qos_stub getopt || finish
W=$(mktemp -d /tmp/pfclab-qos.XXXXXX)
defer rm -rf "$W"
mkdir -p "$W/bin" "$W/dcb" "$W/state"
export QOS_W=$W
mkdir -p "$W/sys/class/net/veth0"	# an interface without DCB (the stub refuses it)
for role in roce_np roce_rp; do
	mkdir -p "$W/sys/class/net/eth9/ecn/$role/enable"
	for p in 0 1 2 3 4 5 6 7; do echo 0 >"$W/sys/class/net/eth9/ecn/$role/enable/$p"; done
done
echo "0:off 1:off 2:off 3:off 4:on 5:off 6:off 7:off" >"$W/dcb/pfc"
echo "pcp" >"$W/dcb/trust"
echo "10:1" >"$W/dcb/app"
echo "0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0" >"$W/dcb/buffer.prio-buffer"
echo "0:262016 1:0 2:0 3:0 4:0 5:0 6:0 7:0" >"$W/dcb/buffer.buffer-size"
echo 100 >"$W/storm"
cat >"$W/bin/dcb" <<'STUB'
#!/bin/bash
# dcb OBJECT show|set|add|del dev IF FIELD ARGS...
obj=$1 verb=$2 ifc=$4 field=$5
shift 5
[ "$verb" = show ] || echo "dcb $obj $verb $ifc $field $*" >>"$QOS_W/calls"
if [ "$ifc" != eth9 ]; then echo "Error: Operation not supported" >&2; exit 1; fi
f=$QOS_W/dcb/$obj
[ "$obj" = apptrust ] && f=$QOS_W/dcb/trust
[ "$obj" = buffer ] && f=$QOS_W/dcb/buffer.$field
case $verb in
show) echo "$field $(cat "$f")" ;;
set) if [ "$obj" = buffer ]; then	# a map updates the entries it names
	v=$(cat "$f"); for e in "$@"; do v=$(echo "$v" | xargs -n1 | sed "s/^${e%%:*}:.*/$e/" | xargs); done
	echo "$v" >"$f"; else echo "$*" >"$f"; fi ;;
add) v=$(echo "$(cat "$f") $*" | xargs -n1 | sort -u | xargs); echo "$v" >"$f" ;;
del) xargs -n1 <"$f" | grep -v -x -F "$1" | xargs >"$f.new"; mv "$f.new" "$f" ;;
esac
STUB
chmod +x "$W/bin/dcb"
cat >"$W/bin/ethtool" <<'STUB'
#!/bin/bash
# ethtool --get-tunable IF pfc-prevention-tout | --set-tunable IF pfc-prevention-tout MS
[ "$1" = --get-tunable ] || echo "ethtool $*" >>"$QOS_W/calls"
if [ "$2" != eth9 ] || [ "$3" != pfc-prevention-tout ]; then echo "Operation not supported" >&2; exit 1; fi
case $1 in
--get-tunable) echo "pfc-prevention-tout: $(cat "$QOS_W/storm")" ;;
--set-tunable) echo "$4" >"$QOS_W/storm" ;;
*) exit 1 ;;
esac
STUB
chmod +x "$W/bin/ethtool"
export PATH=$W/bin:$PATH
q() { "$QOS" --state-dir "$W/state" --sysfs "$W/sys" "$@"; }
snap() { cat "$W/dcb/pfc" "$W/dcb/trust" "$W/dcb/app" "$W"/dcb/buffer.* "$W/storm" \
	"$W"/sys/class/net/eth9/ecn/*/enable/* | sha256sum; }

orig=$(snap)
: >"$W/calls"
q --dry-run apply eth9 --prio 3 --dscp 26 >"$W/out" 2>&1
if [ "$(snap)" = "$orig" ] && [ ! -s "$W/calls" ] && [ ! -e "$W/state/eth9.state" ] &&
	grep -q '^+ dcb pfc set dev eth9 prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off$' "$W/out" &&
	grep -q '^+ dcb apptrust set dev eth9 order dscp$' "$W/out" &&
	grep -q '^+ dcb app add dev eth9 dscp-prio 26:3$' "$W/out" &&
	grep -q "^+ echo 1 > $W/sys/class/net/eth9/ecn/roce_np/enable/3$" "$W/out"; then
	ok qos_dryrun
else
	fail qos_dryrun "$(cat "$W/out" "$W/calls" | tr '\n' ';')"
fi

if q apply eth9 --prio 3 --dscp 26 >"$W/out" 2>&1 &&
	[ "$(cat "$W/dcb/pfc")" = "0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off" ] &&
	[ "$(cat "$W/dcb/trust")" = dscp ] && grep -q '26:3' "$W/dcb/app" &&
	[ "$(cat "$W/sys/class/net/eth9/ecn/roce_np/enable/3")" = 1 ] &&
	[ "$(cat "$W/sys/class/net/eth9/ecn/roce_rp/enable/3")" = 1 ] && [ -f "$W/state/eth9.state" ]; then
	ok qos_apply
else
	fail qos_apply "$(cat "$W/out") pfc=$(cat "$W/dcb/pfc") trust=$(cat "$W/dcb/trust") app=$(cat "$W/dcb/app")"
fi
q show eth9 | grep -q '^prio-pfc  0:off 1:off 2:off 3:on' && ok qos_show || fail qos_show "$(q show eth9)"

: >"$W/calls"
q apply eth9 --prio 3 --dscp 26 >"$W/out" 2>&1
[ ! -s "$W/calls" ] && grep -q 'already set' "$W/out" && ok qos_apply_twice_noop ||
	fail qos_apply_twice_noop "$(cat "$W/calls")"

if q restore eth9 >"$W/out" 2>&1 && [ "$(snap)" = "$orig" ] && [ ! -e "$W/state/eth9.state" ]; then
	ok qos_restore_exact
else
	fail qos_restore_exact "$(cat "$W/out") pfc=$(cat "$W/dcb/pfc") trust=$(cat "$W/dcb/trust") app=$(cat "$W/dcb/app")"
fi
q restore eth9 | grep -q 'nothing to restore' && ok qos_restore_twice_noop || fail qos_restore_twice_noop

# Two applies with different settings (priority 3 / DSCP 26, then 5 / 10, which also
# remaps the DSCP 10 that was on priority 1): restore returns to the state before the first.
q apply eth9 --prio 3 --dscp 26 >"$W/out" 2>&1
q apply eth9 --prio 5 --dscp 10 >>"$W/out" 2>&1
if [ "$(cat "$W/sys/class/net/eth9/ecn/roce_np/enable/5")" = 1 ] && grep -q '10:5' "$W/dcb/app" &&
	q restore eth9 >>"$W/out" 2>&1 && [ "$(snap)" = "$orig" ]; then
	ok qos_restore_after_two_applies
else
	fail qos_restore_after_two_applies "$(tr '\n' ' ' <"$W/out") pfc=$(cat "$W/dcb/pfc") trust=$(cat "$W/dcb/trust") app=$(cat "$W/dcb/app") np5=$(cat "$W/sys/class/net/eth9/ecn/roce_np/enable/5")"
fi

q apply veth0 --prio 3 >"$W/out" 2>&1
rc=$?
[ "$rc" = 3 ] && grep -q 'no DCB support' "$W/out" && [ ! -e "$W/state/veth0.state" ] &&
	ok qos_no_dcb_stops || fail qos_no_dcb_stops "rc=$rc $(cat "$W/out")"
msgs=
for verb in show apply restore; do
	out=$(q $verb nosuch0 2>&1); rc=$?
	[ $rc = 2 ] && [ "$out" = "qos: no such interface nosuch0 (see 'ip link')" ] || msgs+="[$verb: rc $rc: $out] "
done
[ -z "$msgs" ] && [ ! -e "$W/state/nosuch0.state" ] && ok qos_no_such_interface ||
	fail qos_no_such_interface "$msgs"
q apply eth9 --prio 9 >/dev/null 2>&1
[ $? = 2 ] && ok qos_bad_prio || fail qos_bad_prio "--prio 9 accepted"

# the buffer split and the storm timeout
bufargs=(--prio-buffer '3:1' --buffer-size '0:130944 1:131072' --storm-timeout 200)
: >"$W/calls"
q --dry-run apply eth9 --prio 3 "${bufargs[@]}" >"$W/out" 2>&1
if [ "$(snap)" = "$orig" ] && [ ! -s "$W/calls" ] && [ ! -e "$W/state/eth9.state" ] &&
	grep -qx '+ dcb buffer set dev eth9 buffer-size 0:130944 1:131072' "$W/out" &&
	grep -qx '+ dcb buffer set dev eth9 prio-buffer 3:1' "$W/out" &&
	grep -qx '+ ethtool --set-tunable eth9 pfc-prevention-tout 200' "$W/out" &&
	[ "$(grep -n 'buffer-size' "$W/out" | cut -d: -f1)" -lt "$(grep -n 'prio-buffer 3:1' "$W/out" | cut -d: -f1)" ]; then
	ok qos_buffer_dryrun
else
	fail qos_buffer_dryrun "$(cat "$W/out" "$W/calls" | tr '\n' ';')"
fi
if q apply eth9 --prio 3 "${bufargs[@]}" >"$W/out" 2>&1 &&
	[ "$(cat "$W/dcb/buffer.prio-buffer")" = "0:0 1:0 2:0 3:1 4:0 5:0 6:0 7:0" ] &&
	[ "$(cat "$W/dcb/buffer.buffer-size")" = "0:130944 1:131072 2:0 3:0 4:0 5:0 6:0 7:0" ] &&
	[ "$(cat "$W/storm")" = 200 ] &&
	q show eth9 | grep -qx 'prio-buffer 0:0 1:0 2:0 3:1 4:0 5:0 6:0 7:0' &&
	q show eth9 | grep -qx 'pfc-prevention-tout 200'; then
	ok qos_buffer_apply
else
	fail qos_buffer_apply "$(cat "$W/out") pb=$(cat "$W/dcb/buffer.prio-buffer") bs=$(cat "$W/dcb/buffer.buffer-size") storm=$(cat "$W/storm")"
fi
if q restore eth9 >"$W/out" 2>&1 && [ "$(snap)" = "$orig" ]; then
	ok qos_buffer_restore_exact
else
	fail qos_buffer_restore_exact "$(cat "$W/out") pb=$(cat "$W/dcb/buffer.prio-buffer") bs=$(cat "$W/dcb/buffer.buffer-size") storm=$(cat "$W/storm")"
fi
# asked for only by a second apply: saved then, restored all the same; 'auto' is 0xffff
q apply eth9 --prio 3 >"$W/out" 2>&1
q apply eth9 --prio 3 --storm-timeout auto --prio-buffer '3:2' >>"$W/out" 2>&1
if [ "$(cat "$W/storm")" = 65535 ] && grep -q '3:2' "$W/dcb/buffer.prio-buffer" &&
	q restore eth9 >>"$W/out" 2>&1 && [ "$(snap)" = "$orig" ]; then
	ok qos_buffer_restore_after_two_applies
else
	fail qos_buffer_restore_after_two_applies "$(tr '\n' ' ' <"$W/out") storm=$(cat "$W/storm") pb=$(cat "$W/dcb/buffer.prio-buffer")"
fi
msgs=
for a in "--prio-buffer 3:9" "--prio-buffer x" "--buffer-size 9:100" "--storm-timeout 70000" \
	"--storm-timeout soon"; do
	# shellcheck disable=SC2086
	out=$(q apply eth9 $a 2>&1); rc=$?
	[ $rc = 2 ] && [ -n "$out" ] || msgs+="[$a: rc $rc] "
done
out=$(q show eth9 --storm-timeout 100 2>&1); rc=$?
[ $rc = 2 ] || msgs+="[show --storm-timeout: rc $rc] "
[ -z "$msgs" ] && [ "$(snap)" = "$orig" ] && ok qos_buffer_bad_values || fail qos_buffer_bad_values "$msgs"
finish
