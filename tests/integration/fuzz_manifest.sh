#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_manifest.sh: the libFuzzer target (tests/fuzz.sh) for what a host answers the
# manifest probe and `pfclab version` before a run, for FUZZ_SECONDS (default 15). Seeds:
# this machine's answers to the probe script of manifest_probe (pfclab doctor --json, the
# carrier changes and ethtool -i of lo, which has no driver information, and of a veth in a
# namespace of its own, uname -r and -n) and pfclab --version, each after the pick byte
# (fuzz_manifest.c): exit code 0 from a local host, and 255 from an ssh host.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fuzz.sh"
plan 1

fuzz_start fuzz_manifest || finish
need_cmd fuzz_manifest python3 || finish
# The probe script as manifest_probe runs it ($1 netdev, $2 pfclab), read from its source.
PROBE=$(python3 - <<'PY'
import re
src = open("scripts/run/manifest.c").read()
m = re.search(r'static const char script\[\] =(.*?);\n', src, re.S)
if m:
    print("".join(s.encode().decode("unicode_escape")
                  for s in re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))))
PY
)
w=$FUZZ_WORK
sh -c "$PROBE" sh lo "$PFCLAB" >"$w/probe-lo" 2>/dev/null
# (sysfs mounted again in the namespace, for the veth's carrier_changes)
unshare -rnm sh -c 'mount -t sysfs sysfs /sys 2>/dev/null
	ip link add fzm0 type veth peer name fzm1 2>/dev/null && sh -c "$1" sh fzm0 "$2"' \
	sh "$PROBE" "$PFCLAB" >"$w/probe-veth" 2>/dev/null || rm -f "$w/probe-veth"
"$PFCLAB" --version >"$w/version" 2>/dev/null
for f in "$w"/probe-* "$w/version"; do
	{ printf '\000'; cat "$f"; } >"$FUZZ_CORPUS/${f##*/}"
	{ printf '\013'; cat "$f"; } >"$FUZZ_CORPUS/${f##*/}-ssh-255"
done
if [ -z "$PROBE" ]; then
	fail fuzz_manifest "no seed: the probe script was not found in scripts/run/manifest.c"
elif grep -q '"items"' "$w/probe-lo" && grep -q '^pfclab ' "$w/version"; then
	fuzz_run -max_len=16384
else
	fail fuzz_manifest "no seed: pfclab doctor --json or pfclab --version printed nothing"
fi
finish
