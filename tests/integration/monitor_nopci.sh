#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# monitor_nopci.sh (host): on a host where libpci finds no access method, `pfclab
# monitor` reports the PCI source as not available and goes on sampling (libpci's own
# error handler would exit the process). The host is simulated in a private mount
# namespace: /sys/bus and /proc/bus hidden under empty tmpfs mounts (no linux-sysfs, no
# linux-proc method) and CAP_SYS_RAWIO dropped (no intel-conf1/2 port access).
# Also, on a PCI bus made in a private mount namespace (a tmpfs over
# /sys/bus/pci/devices) with no NVIDIA GPU, then with one: `--gpu 0`, and `--gpu 1` on
# the one-GPU bus, are usage errors (exit 2) of monitor and top alike, saying what the
# host has and how to list its GPUs (as a PCI address that is no GPU here is).
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 2
name="monitor without PCI access: pci source n/a, 3 samples, exit 0"
need_root "$name" || finish
need_cmd "$name" unshare setpriv || finish

# on_bus NGPUS CMD...: CMD with /sys/bus/pci/devices holding NGPUS NVIDIA GPUs (3D
# controllers, no driver bound) and nothing else; standard input not a terminal
on_bus() {
	# shellcheck disable=SC2016
	unshare -m sh -c 'mount -t tmpfs none /sys/bus/pci/devices || exit 99
		i=0; while [ $i -lt "$0" ]; do d=/sys/bus/pci/devices/0000:1$i:00.0
			mkdir "$d" && echo 0x10de >"$d/vendor" && echo 0x030200 >"$d/class"
			i=$((i + 1)); done
		exec "$@"' "$@" </dev/null
}
gmsgs=
for n in 0 1; do
	for c in "monitor -c 1" top; do
		g=$n	# the GPU past the last one
		# shellcheck disable=SC2086 # the words of $c are the arguments
		m=$(on_bus $n "$PFCLAB" $c --gpu $g 2>&1 >/dev/null); rc=$?
		case $n in
		0) want="--gpu '0': there is no NVIDIA GPU on this host's PCI bus (lspci -d 10de: lists" ;;
		1) want="--gpu '1': this host has 1 NVIDIA GPU (0..0, numbered as nvidia-smi -L does)" ;;
		esac
		[ $rc -eq 2 ] && [[ $m == *"$want"* ]] && [ "$(wc -l <<<"$m")" -eq 1 ] ||
			gmsgs+="[$n GPUs, $c --gpu $g: exit $rc: $m] "
	done
done
if [ -z "$gmsgs" ]; then
	ok "monitor/top --gpu N on a host without GPU N (none, or one GPU and N=1): exit 2 saying what the host has"
else
	fail "monitor/top --gpu N without GPU N" "$gmsgs"
fi
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
