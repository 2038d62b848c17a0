#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_rm.sh: the libFuzzer target (tests/fuzz.sh) for the parsers of what NVIDIA RM
# answers our own RM client (lib/hw/rm.c: the probed GPU ids, a GPU's PCI address and
# device instance, its PCIe byte counters, the device minor of /proc/driver/nvidia), for
# FUZZ_SECONDS (default 15), seeded with replies as RM lays them out (host byte order),
# made here: no GPU needed.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fuzz.sh"
plan 1

fuzz_start fuzz_rm || finish
# u32 V...: each V as 4 bytes, host (little-endian) order
u32() {
	local v
	for v in "$@"; do
		printf "\\x$(printf %02x $((v & 255)))\\x$(printf %02x $((v >> 8 & 255)))\\x$(printf %02x $((v >> 16 & 255)))\\x$(printf %02x $((v >> 24 & 255)))"
	done
}
rep() { local i; for ((i = 0; i < $1; i++)); do echo "$2"; done; }
c=$FUZZ_CORPUS
# GET_PROBED_IDS: two GPUs, then invalid ids; 32 excluded ids, all invalid; 32 flags
u32 0x100 0x1700 $(rep 30 0xffffffff) $(rep 32 0xffffffff) $(rep 32 0) >"$c/probed-ids"
# GET_PCI_INFO: gpu 0x1700 at 0000:17:00 (domain u32, bus u16, slot u16)
{ u32 0x1700 0; printf '\x17\x00\x00\x00'; } >"$c/pci-info"
# GET_ID_INFO_V2: gpu, flags, device instance 1, subdevice 0, SLI, board, instance, NUMA -1
u32 0x1700 0 1 0 0 0 0 0xffffffff >"$c/id-info"
# GET_PEX_UTIL_COUNTERS: TX and RX bytes asked (mask 3), their counters, 5 unused
u32 3 123456789 987654321 0 0 0 0 0 >"$c/pex-bytes"
printf 'Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 123\nDevice Minor: \t 1\nBus Location: \t 0000:17:00.0\n' \
	>"$c/information"
fuzz_run -max_len=1024
finish
