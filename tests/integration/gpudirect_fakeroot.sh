#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gpudirect_fakeroot.sh: lab/gpudirect against a fake root (fixture /sys, /proc/modules,
# /lib/modules with module files) and stub modprobe/rmmod/depmod/modinfo/make/uname on PATH.
# Checks: a wrong version stops before anything changes; --dry-run prints the exact commands
# in order and changes nothing; a real run installs with backups; a second run does nothing;
# rollback restores the original modules byte for byte. The module options per driver
# series (570 and 595, with and without --gpu-p2p); refusals: a BAR1 smaller than video
# memory, a non-GeForce GPU, no peer-memory symbols, no GSP firmware, a conftest without
# the peer-memory macro; a module that does not load is rolled back by reload itself;
# --jobs is checked; --dry-run quotes paths with spaces; reload without a driver exits 3.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 31

GD=$PFCLAB_ROOT/lab/gpudirect
need_cmd gpudirect_fakeroot git sha256sum getopt xz || finish

W=$(mktemp -d /tmp/pfclab-gd.XXXXXX)
defer rm -rf "$W"
FR=$W/root
KV=6.1.0-test
VER=570.133.20
MODS=(nvidia nvidia-uvm nvidia-modeset nvidia-drm nvidia-peermem)

# ---- fixture root -----------------------------------------------------------------------
mkdir -p "$FR/proc" "$FR/sys/module/nvidia/parameters" "$FR/sys/class/iommu" \
	"$FR/sys/kernel/mm/memory_peers/nv_mem" "$FR/lib/modules/$KV/build" \
	"$FR/lib/modules/$KV/kernel/drivers/video" "$FR/sys/bus/pci/devices/0000:01:00.0" \
	"$FR/usr/src/ofa_kernel/default" "$FR/lib/firmware/nvidia/$VER" "$FR/lib/firmware/nvidia/595.45.04"
echo "$VER" >"$FR/sys/module/nvidia/version"
echo 0 >"$FR/sys/module/nvidia/parameters/NVreg_OpenRmEnableUnsupportedGpus"
echo "1.2" >"$FR/sys/kernel/mm/memory_peers/nv_mem/version"
echo "BOOT_IMAGE=/vmlinuz root=/dev/sda1 iommu=pt" >"$FR/proc/cmdline"
P=$FR/sys/bus/pci/devices/0000:01:00.0
echo 0x10de >"$P/vendor"; echo 0x2684 >"$P/device"; echo 0x030000 >"$P/class"
printf '0x00000000fb000000 0x00000000fbffffff 0x0000000000040200\n0x0000006000000000 0x00000067ffffffff 0x000000000014220c\n' >"$P/resource"
# What nvidia-smi says about it (the stub below prints this file): a 24 GiB RTX 4090.
echo "00000000:01:00.0, 24564, NVIDIA GeForce RTX 4090" >"$W/smi.csv"
# MLNX_OFED's symbols (what nvidia-peermem's conftest looks for) and the GSP firmware.
printf '0x12345678\tib_register_peer_memory_client\tdrivers/infiniband/core/ib_core\tEXPORT_SYMBOL\t\n' \
	>"$FR/usr/src/ofa_kernel/default/Module.symvers"
: >"$FR/lib/firmware/nvidia/$VER/gsp_ga10x.bin"
: >"$FR/lib/firmware/nvidia/595.45.04/gsp_ga10x.bin"
: >"$FR/lib/modules/$KV/modules.dep"
# nvidia-drm is installed compressed, as distributions do: the replacement must be too.
ext() { [ "$1" = nvidia-drm ] && echo .ko.xz || echo .ko; }
for m in "${MODS[@]}"; do
	f=$FR/lib/modules/$KV/kernel/drivers/video/$m$(ext "$m")
	if [ "$(ext "$m")" = .ko.xz ]; then
		printf 'original %s module\nsrcversion=ORIG-%s\nvermagic=%s SMP mod_unload\n' "$m" "$m" "$KV" |
			xz -c --check=crc32 >"$f"
	else
		printf 'original %s module\nsrcversion=ORIG-%s\nvermagic=%s SMP mod_unload\n' "$m" "$m" "$KV" >"$f"
	fi
	echo "kernel/drivers/video/$m$(ext "$m"):" >>"$FR/lib/modules/$KV/modules.dep"
	mkdir -p "$FR/sys/module/${m//-/_}"
	echo "ORIG-$m" >"$FR/sys/module/${m//-/_}/srcversion"
done
rm -rf "$FR/sys/module/nvidia_drm"
cat >"$FR/proc/modules" <<EOF
nvidia_peermem 16384 0 - Live 0x0000000000000000
nvidia_uvm 1790000 0 - Live 0x0000000000000000
nvidia_modeset 1310000 0 - Live 0x0000000000000000
nvidia 60000000 3 nvidia_peermem,nvidia_uvm,nvidia_modeset, Live 0x0000000000000000
ib_core 450000 1 nvidia_peermem, Live 0x0000000000000000
EOF
mkdir -p "$W/orig"
cp -a "$FR/lib/modules/$KV/kernel/drivers/video/." "$W/orig/"

# ---- fixture upstream tree and series ---------------------------------------------------
T=$W/tree
S=$W/series
mkdir -p "$T/kernel-open" "$S"
printf 'modules:\n\ttrue\n' >"$T/kernel-open/Makefile"
printf 'int p2p_mode = 0;\n' >"$T/kernel-open/p2p.c"
cp -a "$T" "$W/tree.empty"
(cd "$W" && cp -a tree tree.new && printf 'int p2p_mode = 1; /* BAR1 */\n' >tree.new/kernel-open/p2p.c &&
	{ printf 'fixture patch: switch p2p_mode\n\n'; git diff --no-index --src-prefix=a/ \
		--dst-prefix=b/ tree/kernel-open/p2p.c tree.new/kernel-open/p2p.c |
		sed 's,\(a\|b\)/tree\(\.new\)\?/,\1/,g'; } >"$S/0001-fixture.patch"; rm -rf tree.new) || true
printf '# fixture series\n0001-fixture.patch\n' >"$S/series"

# ---- stubs ------------------------------------------------------------------------------
B=$W/bin
mkdir -p "$B"
export GD_FR=$FR GD_LOG=$W/calls.log GD_KV=$KV GD_SMI=$W/smi.csv
cat >"$B/nvidia-smi" <<'EOF'
#!/bin/sh
cat "$GD_SMI"
EOF
cat >"$B/uname" <<'EOF'
#!/bin/sh
[ "$1" = -r ] && { echo "$GD_KV"; exit 0; }
exec /bin/uname "$@"
EOF
cat >"$B/make" <<'EOF'
#!/bin/bash
echo "make $*" >>"$GD_LOG"
[ "$1" = -C ] || exit 1
for m in nvidia nvidia-uvm nvidia-modeset nvidia-drm nvidia-peermem; do
	printf 'patched %s module\nsrcversion=NEW-%s\nvermagic=%s SMP mod_unload\n' "$m" "$m" "$GD_KV" \
		>"$2/kernel-open/$m.ko"
done
# what kernel-open/conftest.sh writes (GD_NO_PEER_MACRO: as without MLNX_OFED)
mkdir -p "$2/kernel-open/conftest"
if [ -n "$GD_NO_PEER_MACRO" ]; then
	echo "#undef NV_MLNX_IB_PEER_MEM_SYMBOLS_PRESENT" >"$2/kernel-open/conftest/symbols.h"
else
	echo "#define NV_MLNX_IB_PEER_MEM_SYMBOLS_PRESENT" >"$2/kernel-open/conftest/symbols.h"
fi
EOF
cat >"$B/depmod" <<'EOF'
#!/bin/sh
echo "depmod $*" >>"$GD_LOG"
EOF
# modinfo [-b ROOT -k KVER] -F FIELD NAME|FILE
cat >"$B/modinfo" <<'EOF'
#!/bin/bash
field= target=
while [ $# -gt 0 ]; do
	case "$1" in -b|-k) shift ;; -F) field=$2; shift ;; -n) field=filename ;; *) target=$1 ;; esac
	shift
done
if [ "$field" = filename ]; then
	rel=$(awk -F: -v f="${target//_/-}" '$1 ~ "/"f"\\.ko" { print $1 }' "$GD_FR/lib/modules/$GD_KV/modules.dep")
	[ -n "$rel" ] && { echo "$GD_FR/lib/modules/$GD_KV/$rel"; exit 0; }
	exit 1
fi
if [ -f "$target" ]; then
	sed -n "s/^$field=//p" "$target"
	exit 0
fi
[ "$field" = version ] && [ "$target" = nvidia ] && { cat "$GD_FR/sys/module/nvidia/version"; exit 0; }
exit 1
EOF
cat >"$B/modprobe" <<'EOF'
#!/bin/bash
echo "modprobe $*" >>"$GD_LOG"
n=$1 f=${1//_/-}
rel=$(awk -F: -v f="$f" '$1 ~ "/"f"\\.ko" { print $1 }' "$GD_FR/lib/modules/$GD_KV/modules.dep")
# GD_FAIL_MODPROBE=NAME: the patched NAME does not load (as a module built wrong would not)
if [ "$n" = "$GD_FAIL_MODPROBE" ] && grep -aq 'srcversion=NEW' "$GD_FR/lib/modules/$GD_KV/$rel"; then
	exit 1
fi
mkdir -p "$GD_FR/sys/module/$n"
sed -n 's/^srcversion=//p' "$GD_FR/lib/modules/$GD_KV/$rel" >"$GD_FR/sys/module/$n/srcversion"
case "$n" in
nvidia)
	echo "nvidia 60000000 0 - Live 0x0" >>"$GD_FR/proc/modules"
	mkdir -p "$GD_FR/sys/module/nvidia/parameters"
	sed -n 's/.*NVreg_RegistryDwords="\([^"]*\)".*/\1/p' "$GD_FR"/etc/modprobe.d/*.conf \
		>"$GD_FR/sys/module/nvidia/parameters/NVreg_RegistryDwords" 2>/dev/null || true
	;;
*)
	echo "$n 100000 0 - Live 0x0" >>"$GD_FR/proc/modules"
	awk -v n="$n" '$1 == "nvidia" { $3++; $4 = ($4 == "-" ? "" : $4) n "," } { print }' \
		"$GD_FR/proc/modules" >"$GD_FR/proc/modules.new" && mv "$GD_FR/proc/modules.new" "$GD_FR/proc/modules"
	;;
esac
EOF
cat >"$B/rmmod" <<'EOF'
#!/bin/bash
echo "rmmod $*" >>"$GD_LOG"
grep -q "^$1 " "$GD_FR/proc/modules" || exit 1
grep -v "^$1 " "$GD_FR/proc/modules" >"$GD_FR/proc/modules.new"
mv "$GD_FR/proc/modules.new" "$GD_FR/proc/modules"
rm -f "$GD_FR/sys/module/$1/srcversion"
EOF
chmod +x "$B"/*
export PATH=$B:$PATH

gd() { "$GD" --root "$FR" --tree "$T" --patches "$S" -j 2 "$@"; }
# Fingerprint of everything under the root and the tree (names and contents).
fp() { (cd "$W" && find root tree -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum; }

# ---- 1. prerequisites -------------------------------------------------------------------
if out=$(gd check 2>&1); then
	ok gpudirect_check
else
	fail gpudirect_check "$out"
fi
echo "$out" | grep -q 'BAR1 32 GiB' && ok gpudirect_check_bar1 ||
	fail gpudirect_check_bar1 "BAR1 size not reported: $out"

# ---- 2. wrong version stops early -------------------------------------------------------
before=$(fp)
: >"$W/calls.log"
"$GD" --root "$FR" --tree "$T" --version 595.45.04 all >"$W/out" 2>&1
rc=$?
if [ "$rc" = 3 ] && grep -q 'driver 570.133.20 is installed' "$W/out" && [ ! -s "$W/calls.log" ] &&
	[ "$(fp)" = "$before" ]; then
	ok gpudirect_wrong_version_stops
else
	fail gpudirect_wrong_version_stops "rc=$rc, calls: $(cat "$W/calls.log"), $(cat "$W/out")"
fi
echo 999.1 >"$FR/sys/module/nvidia/version"
"$GD" --root "$FR" --tree "$T" all >"$W/out" 2>&1
rc=$?
echo "$VER" >"$FR/sys/module/nvidia/version"
if [ "$rc" = 3 ] && grep -q 'no pfclab patch series for driver 999.1' "$W/out" &&
	[ ! -s "$W/calls.log" ]; then
	ok gpudirect_no_series_stops
else
	fail gpudirect_no_series_stops "rc=$rc: $(cat "$W/out")"
fi
mv "$FR/lib/modules/$KV/build" "$FR/lib/modules/$KV/build.off"
gd all >"$W/out" 2>&1
rc=$?
mv "$FR/lib/modules/$KV/build.off" "$FR/lib/modules/$KV/build"
if [ "$rc" = 3 ] && grep -q 'FAIL  headers' "$W/out" && [ ! -s "$W/calls.log" ] &&
	[ "$(fp)" = "$before" ]; then
	ok gpudirect_no_headers_stops
else
	fail gpudirect_no_headers_stops "rc=$rc: $(cat "$W/out")"
fi

# ---- 3. dry run: exact commands, no change ----------------------------------------------
stamp=$( (cd "$S" && cat series 0001-fixture.patch) | sha256sum | cut -d' ' -f1)
ST=$FR/var/lib/pfclab/gpudirect
MD=$FR/lib/modules/$KV
{
	echo "+ git -C $T apply $S/0001-fixture.patch"
	echo "+ make -C $T -j 2 modules KERNEL_UNAME=$KV"
	echo "+ echo $stamp > $T/.pfclab-built"
	echo "+ mkdir -p $ST/backup"
	for m in "${MODS[@]}"; do
		e=$(ext "$m")
		echo "+ mkdir -p $ST/backup/kernel/drivers/video"
		echo "+ cp -p $MD/kernel/drivers/video/$m$e $ST/backup/kernel/drivers/video/$m$e"
		echo "+ mkdir -p $MD/kernel/drivers/video"
		if [ "$e" = .ko.xz ]; then
			echo "+ xz -c --check=crc32 $T/kernel-open/$m.ko > $MD/kernel/drivers/video/$m$e"
		else
			echo "+ install -m 0644 $T/kernel-open/$m.ko $MD/kernel/drivers/video/$m$e"
		fi
		echo "+ record kernel/drivers/video/$m$e in $ST/manifest"
	done
	echo "+ mkdir -p $FR/etc/modprobe.d"
	echo "+ printf '%s\n%s\n' '# written by pfclab lab/gpudirect; '\\''lab/gpudirect rollback'\\'' removes it' 'options nvidia NVreg_EnableResizableBar=1 NVreg_RegistryDwords=\"RMForceStaticBar1=1\"' > $FR/etc/modprobe.d/pfclab-gpudirect.conf"
	echo "+ depmod -b $FR $KV"
	echo "+ rmmod nvidia_peermem"
	echo "+ rmmod nvidia_uvm"
	echo "+ rmmod nvidia_modeset"
	echo "+ rmmod nvidia"
	echo "+ modprobe nvidia"
	echo "+ modprobe nvidia_uvm"
	echo "+ modprobe nvidia_peermem"
} >"$W/expected"
: >"$W/calls.log"
before=$(fp)
if gd --dry-run all >"$W/out" 2>&1; then
	grep '^+ ' "$W/out" >"$W/got" || true
	if diff -u "$W/expected" "$W/got" >"$W/diff"; then
		ok gpudirect_dryrun_commands
	else
		fail gpudirect_dryrun_commands "$(head -c 1500 "$W/diff")"
	fi
else
	fail gpudirect_dryrun_commands "exit $?: $(tail -n 5 "$W/out")"
fi
if [ ! -s "$W/calls.log" ] && [ "$(fp)" = "$before" ]; then
	ok gpudirect_dryrun_changes_nothing
else
	fail gpudirect_dryrun_changes_nothing "calls: $(cat "$W/calls.log")"
fi

# ---- 4. real run ------------------------------------------------------------------------
: >"$W/calls.log"
if gd all >"$W/out" 2>&1; then
	ok gpudirect_install_run
else
	fail gpudirect_install_run "$(tail -n 8 "$W/out")"
fi
bad=
for m in "${MODS[@]}"; do
	e=$(ext "$m")
	cmp -s "$W/orig/$m$e" "$ST/backup/kernel/drivers/video/$m$e" || bad+=" backup:$m"
	if [ "$e" = .ko.xz ]; then
		xz -dc "$MD/kernel/drivers/video/$m$e" | cmp -s "$T/kernel-open/$m.ko" - || bad+=" installed:$m"
	else
		cmp -s "$T/kernel-open/$m.ko" "$MD/kernel/drivers/video/$m$e" || bad+=" installed:$m"
	fi
done
grep -q 'p2p_mode = 1' "$T/kernel-open/p2p.c" || bad+=" patch-not-applied"
grep -qx 'options nvidia NVreg_EnableResizableBar=1 NVreg_RegistryDwords="RMForceStaticBar1=1"' \
	"$FR/etc/modprobe.d/pfclab-gpudirect.conf" 2>/dev/null || bad+=" modprobe.conf"
[ -z "$bad" ] && ok gpudirect_install_backups || fail gpudirect_install_backups "$bad"
order=$(grep -E '^(rmmod|modprobe) ' "$W/calls.log" | tr '\n' ',')
want="rmmod nvidia_peermem,rmmod nvidia_uvm,rmmod nvidia_modeset,rmmod nvidia,modprobe nvidia,modprobe nvidia_uvm,modprobe nvidia_peermem,"
[ "$order" = "$want" ] && ok gpudirect_reload_order || fail gpudirect_reload_order "$order"
grep -q '^OK    memory_peers nv_mem version 1.2' "$W/out" && grep -q '^OK    nvidia_peermem depends on nvidia' "$W/out" &&
	grep -q '^OK    NVreg_RegistryDwords="RMForceStaticBar1=1"' "$W/out" &&
	grep -q 'conftest defined NV_MLNX_IB_PEER_MEM_SYMBOLS_PRESENT' "$W/out" &&
	grep -q '^OK    nvidia loaded from /lib/modules/6.1.0-test/kernel/drivers/video/nvidia.ko (modinfo filename' "$W/out" &&
	ok gpudirect_verify || fail gpudirect_verify "$(grep -E '^(OK|FAIL|WARN) ' "$W/out" | tr '\n' ' ')"

# ---- 5. second run: no-op ---------------------------------------------------------------
: >"$W/calls.log"
before=$(fp)
if gd all >"$W/out" 2>&1 && [ ! -s "$W/calls.log" ] && [ "$(fp)" = "$before" ] &&
	! grep -q '^+ ' "$W/out"; then
	ok gpudirect_second_run_noop
else
	fail gpudirect_second_run_noop "calls: $(tr '\n' ';' <"$W/calls.log") out: $(tail -n 5 "$W/out")"
fi

# ---- 6. rollback ------------------------------------------------------------------------
: >"$W/calls.log"
if gd rollback >"$W/out" 2>&1; then
	bad=
	for m in "${MODS[@]}"; do
		cmp -s "$W/orig/$m$(ext "$m")" "$MD/kernel/drivers/video/$m$(ext "$m")" || bad+=" $m"
	done
	[ -e "$FR/etc/modprobe.d/pfclab-gpudirect.conf" ] && bad+=" modprobe.conf-left"
	[ -e "$ST/manifest" ] && bad+=" manifest-left"
	grep -q '^depmod' "$W/calls.log" || bad+=" no-depmod"
	grep -q '^modprobe nvidia_peermem' "$W/calls.log" || bad+=" no-reload"
	[ "$(cat "$FR/sys/module/nvidia/srcversion")" = ORIG-nvidia ] || bad+=" loaded-not-original"
	[ -z "$bad" ] && ok gpudirect_rollback_identical || fail gpudirect_rollback_identical "$bad"
else
	fail gpudirect_rollback_identical "$(tail -n 5 "$W/out")"
fi
: >"$W/calls.log"
gd rollback >"$W/out" 2>&1 && grep -q 'nothing installed' "$W/out" && [ ! -s "$W/calls.log" ] &&
	ok gpudirect_rollback_twice_noop || fail gpudirect_rollback_twice_noop "$(cat "$W/out")"

# ---- 7. module options per driver series ------------------------------------------------
optline() { grep -o "^+ printf .* 'options nvidia [^']*'" "$W/out" | sed "s/.*'options nvidia \([^']*\)'/\1/"; }
gd --dry-run install >"$W/out" 2>&1
o570=$(optline)
gd --dry-run --gpu-p2p install >"$W/out" 2>&1
o570p=$(optline)
if [ "$o570" = 'NVreg_EnableResizableBar=1 NVreg_RegistryDwords="RMForceStaticBar1=1"' ] &&
	[ "$o570p" = 'NVreg_EnableResizableBar=1 NVreg_RegistryDwords="RMForceStaticBar1=1;RMForceP2PType=2;ForceP2P=0x11"' ]; then
	ok "gpudirect_options_570 (NIC: $o570; --gpu-p2p: $o570p)"
else
	fail gpudirect_options_570 "NIC: '$o570', --gpu-p2p: '$o570p'"
fi
echo 595.45.04 >"$FR/sys/module/nvidia/version"
gd --dry-run install >"$W/out" 2>&1
o595=$(optline)
gd --dry-run --gpu-p2p install >"$W/out" 2>&1
o595p=$(optline)
gd check >"$W/out.check" 2>&1
rc=$?
echo "$VER" >"$FR/sys/module/nvidia/version"
# 595: RMForceP2PType=2 would mean NVLINK; PCIe BAR1 P2P is PCIEP2P (1) + RMPcieP2PType=1
if [ "$o595" = 'NVreg_EnableResizableBar=1 NVreg_RegistryDwords="RMForceStaticBar1=1"' ] &&
	[ "$o595p" = 'NVreg_EnableResizableBar=1 NVreg_RegistryDwords="RMForceStaticBar1=1;RMForceP2PType=1;RMPcieP2PType=1;ForceP2P=0x11"' ] &&
	[ "$rc" = 0 ] && grep -q 'firmware .*/lib/firmware/nvidia/595.45.04/gsp_ga10x.bin' "$W/out.check"; then
	ok "gpudirect_options_595 (NIC: $o595; --gpu-p2p: $o595p)"
else
	fail gpudirect_options_595 "NIC: '$o595', --gpu-p2p: '$o595p', check rc=$rc"
fi

# ---- 8. refusals: each stops before anything changes (exit 3) ---------------------------
refused() { # $1 name, $2 pattern the output must hold; runs 'check' and 'all'
	local rc1 rc2
	: >"$W/calls.log"
	before=$(fp)
	gd check >"$W/out" 2>&1; rc1=$?
	gd all >"$W/out.all" 2>&1; rc2=$?
	if [ "$rc1" = 3 ] && [ "$rc2" = 3 ] && grep -q "$2" "$W/out" && [ ! -s "$W/calls.log" ] &&
		[ "$(fp)" = "$before" ]; then
		ok "$1"
	else
		fail "$1" "check rc=$rc1, all rc=$rc2, calls: $(cat "$W/calls.log"): $(grep FAIL "$W/out")"
	fi
}
cp "$W/smi.csv" "$W/smi.orig"
echo "00000000:01:00.0, 49140, NVIDIA GeForce RTX 6000 Ada" >"$W/smi.csv"
refused gpudirect_small_bar1_refused 'FAIL  bar1 .*BAR1 32768 MiB < video memory 49140 MiB: refusing RMForceStaticBar1=1.*Resizable BAR'
echo "00000000:01:00.0, 46068, NVIDIA A40" >"$W/smi.csv"
refused gpudirect_non_geforce_refused 'FAIL  gpu .*NVIDIA A40: not a GeForce GPU.*--allow-non-geforce'
echo "00000000:01:00.0, 24564, NVIDIA A40" >"$W/smi.csv"
gd --allow-non-geforce check >"$W/out" 2>&1 && grep -q 'WARN  gpu .*patching anyway' "$W/out" &&
	ok gpudirect_non_geforce_override || fail gpudirect_non_geforce_override "$(grep -E 'FAIL|WARN' "$W/out")"
cp "$W/smi.orig" "$W/smi.csv"
mv "$FR/usr/src/ofa_kernel" "$FR/usr/src/ofa_kernel.off"
refused gpudirect_no_peermem_symbols_fails 'FAIL  peer-memory .*would build empty.*--mem cuda-dmabuf'
mv "$FR/usr/src/ofa_kernel.off" "$FR/usr/src/ofa_kernel"
mv "$FR/lib/firmware/nvidia/$VER/gsp_ga10x.bin" "$W/fw.off"
refused gpudirect_no_gsp_firmware_fails "FAIL  firmware .*no /lib/firmware/nvidia/$VER/gsp_ga10x.bin"
mv "$W/fw.off" "$FR/lib/firmware/nvidia/$VER/gsp_ga10x.bin"

# ---- 9. a build whose conftest lacks the peer-memory macro installs nothing --------------
rm -rf "$W/tree2" && cp -a "$W/tree.empty" "$W/tree2"
: >"$W/calls.log"
before_mods=$( (cd "$MD" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum)
GD_NO_PEER_MACRO=1 "$GD" --root "$FR" --tree "$W/tree2" --patches "$S" -j 2 all >"$W/out" 2>&1
rc=$?
after_mods=$( (cd "$MD" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum)
if [ "$rc" = 1 ] && grep -q 'conftest did not define NV_MLNX_IB_PEER_MEM_SYMBOLS_PRESENT' "$W/out" &&
	[ "$before_mods" = "$after_mods" ] && [ ! -e "$ST/manifest" ] && ! grep -q '^rmmod' "$W/calls.log"; then
	ok gpudirect_conftest_macro_checked
else
	fail gpudirect_conftest_macro_checked "rc=$rc: $(tail -n 3 "$W/out")"
fi

# ---- 10. a module that does not load: reload rolls back by itself ------------------------
: >"$W/calls.log"
GD_FAIL_MODPROBE=nvidia_peermem gd all >"$W/out" 2>&1
rc=$?
bad=
for m in "${MODS[@]}"; do
	cmp -s "$W/orig/$m$(ext "$m")" "$MD/kernel/drivers/video/$m$(ext "$m")" || bad+=" $m"
done
[ -e "$ST/manifest" ] && bad+=" manifest-left"
[ -e "$FR/etc/modprobe.d/pfclab-gpudirect.conf" ] && bad+=" modprobe.conf-left"
for m in nvidia nvidia_uvm nvidia_peermem; do
	grep -q "^$m " "$FR/proc/modules" || bad+=" $m-not-loaded"
	[ "$(cat "$FR/sys/module/$m/srcversion" 2>/dev/null)" = "ORIG-${m//_/-}" ] || bad+=" $m-not-original"
done
if [ "$rc" = 1 ] && grep -q 'original modules were restored and loaded' "$W/out" && [ -z "$bad" ]; then
	ok gpudirect_reload_rolls_back
else
	fail gpudirect_reload_rolls_back "rc=$rc$bad: $(tail -n 3 "$W/out")"
fi

# ---- 11. options and dry-run output -------------------------------------------------------
: >"$W/calls.log"
gd --jobs abc check >"$W/out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "jobs 'abc'" "$W/out" && [ ! -s "$W/calls.log" ] &&
	ok gpudirect_jobs_checked || fail gpudirect_jobs_checked "rc=$rc: $(cat "$W/out")"
rm -rf "$W/my tree" && cp -a "$W/tree.empty" "$W/my tree"
"$GD" --root "$FR" --tree "$W/my tree" --patches "$S" -j 2 --dry-run build >"$W/out" 2>&1
got=$(grep '^+ make' "$W/out")
[ "$got" = "+ make -C '$W/my tree' -j 2 modules KERNEL_UNAME=$KV" ] && ok gpudirect_dryrun_quotes_spaces ||
	fail gpudirect_dryrun_quotes_spaces "$got"
E=$W/nodriver
mkdir -p "$E/proc" "$E/sys/module" "$E/lib/modules/$KV"
GD_FR=$E "$GD" --root "$E" --dry-run reload >"$W/out" 2>&1
rc1=$?
GD_FR=$E "$GD" --root "$E" --dry-run all >"$W/out.all" 2>&1
rc2=$?
[ "$rc1" = 3 ] && [ "$rc2" = 3 ] && grep -q 'no NVIDIA driver found' "$W/out" &&
	ok gpudirect_dryrun_reload_no_driver || fail gpudirect_dryrun_reload_no_driver "reload rc=$rc1, all rc=$rc2"

# ---- 12. fetch into --cache from a local mirror; status for another --kver -----------------
R=$W/upstream
mkdir -p "$R/kernel-open" && printf 'modules:\n\ttrue\n' >"$R/kernel-open/Makefile" &&
	git -C "$R" init -q && git -C "$R" add -A &&
	git -C "$R" -c user.name=t -c user.email=t@example.org commit -qm upstream &&
	git -C "$R" tag "$VER" || fail gpudirect_fetch_cache "cannot make the local mirror"
C=$W/cache
out=$(PFCLAB_OGKM_URL=file://$R "$GD" --root "$FR" --cache "$C" fetch 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -f "$C/open-gpu-kernel-modules-$VER/kernel-open/Makefile" ] &&
	[ "$(git -C "$C/open-gpu-kernel-modules-$VER" describe --tags)" = "$VER" ]; then
	ok gpudirect_fetch_cache
else
	fail gpudirect_fetch_cache "rc=$rc: $out"
fi
out=$(PFCLAB_OGKM_URL=file:///nonexistent "$GD" --root "$FR" --cache "$C" fetch 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q 'already there' <<<"$out"; then ok gpudirect_fetch_again_noop
else fail gpudirect_fetch_again_noop "rc=$rc: $out"; fi
out=$("$GD" --root "$FR" --kver 9.9.9-other status 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q "driver $VER, kernel 9.9.9-other" <<<"$out" && grep -q 'nothing installed by pfclab' <<<"$out"; then
	ok gpudirect_status_kver
else
	fail gpudirect_status_kver "rc=$rc: $out"
fi

# ---- 13. the real series on the real upstream trees (when present) -----------------------
# PFCLAB_OGKM_DIR holds pristine trees named <version> or orig-<version> (no network in CI).
for v in $(cd "$PFCLAB_ROOT/patches" && ls -d [0-9]*); do
	t=
	for c in "${PFCLAB_OGKM_DIR:-/nonexistent}/$v" "${PFCLAB_OGKM_DIR:-/nonexistent}/orig-$v"; do
		[ -f "$c/kernel-open/Makefile" ] && t=$c
	done
	if [ -z "$t" ]; then
		skip "patches_apply_$v" "no upstream $v tree; to run it: mkdir -p DIR/$v; git -C open-gpu-kernel-modules archive $v | tar -x -C DIR/$v; PFCLAB_OGKM_DIR=DIR $0"
		continue
	fi
	rm -rf "$W/ogkm" && cp -a "$t" "$W/ogkm"
	echo "$v" >"$FR/sys/module/nvidia/version"
	if out=$("$GD" --root "$FR" --tree "$W/ogkm" --version "$v" --patches "$PFCLAB_ROOT/patches/$v" \
		apply 2>&1); then
		"$GD" --root "$FR" --tree "$W/ogkm" --patches "$PFCLAB_ROOT/patches/$v" apply 2>&1 |
			grep -q 'already applied' && ok "patches_apply_$v" ||
			fail "patches_apply_$v" "second apply was not a no-op"
	else
		fail "patches_apply_$v" "$out"
	fi
	echo "$VER" >"$FR/sys/module/nvidia/version"
done

finish
