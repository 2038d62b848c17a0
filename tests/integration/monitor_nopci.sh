#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_nopci.sh (host): on a host where libpci finds no access method, `pfclab
# monitor` reports the PCI source as not available and goes on sampling (libpci's own
# error handler would exit the process). The host is simulated in a private mount
# namespace: /sys/bus and /proc/bus hidden under empty tmpfs mounts (no linux-sysfs, no
# linux-proc method) and CAP_SYS_RAWIO dropped (no intel-conf1/2 port access).
source "$(dirname "$0")/../lib.sh"
plan 1
name="monitor without PCI access: pci source n/a, 3 samples, exit 0"
need_root "$name" || finish
need_cmd "$name" unshare setpriv || finish
# An interface with a PCI function, as the pci source needs one to try libpci at all.
iface=
for d in /sys/class/net/*; do
	case $(readlink -f "$d/device" 2>/dev/null) in
	*/[0-9a-f][0-9a-f][0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]:[0-9a-f][0-9a-f].[0-7]|\
	*/[0-9a-f][0-9a-f][0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]:[0-9a-f][0-9a-f].[0-7]/*)
		iface=${d##*/}; break ;;
	esac
done
[ -n "$iface" ] || { skip "$name" "no network interface with a PCI function here"; finish; }

out=$(mktemp) err=$(mktemp)
defer rm -f "$out" "$err"
# shellcheck disable=SC2016
unshare -m sh -c 'mount -t tmpfs none /sys/bus && mount -t tmpfs none /proc/bus &&
	exec setpriv --bounding-set -sys_rawio "$0" monitor -i "$1" -c 3 -I 100ms \
	--sources pci,link --json' "$PFCLAB" "$iface" >"$out" 2>"$err"
rc=$?
samples=$(grep -c '^{"seq":[1-9]' "$out")
if [ $rc -eq 0 ] && [ "$samples" -eq 3 ] &&
	grep -q "PCIe link.*not supported by $iface: no PCI access on this host (libpci: " "$err" &&
	grep -q '"event":"unsupported".*"source":"pci"' "$out"; then
	ok "$name"
else
	fail "$name" "rc $rc, $samples samples: $(head -c 300 "$err" | tr '\n' ' ')"
fi
finish
