#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# deps.sh: install the Debian packages pfclab needs to build, test and run the virtual
# lab. Idempotent: installs only what is missing, and touches nothing when all is there.
set -euo pipefail

PKGS=(
	build-essential pkg-config git
	libibverbs-dev rdma-core ibverbs-providers ibverbs-utils
	libmnl-dev libpcap-dev libpci-dev libncurses-dev libjson-c-dev libcmocka-dev
	clang libclang-rt-14-dev
	gnuplot-nox jq
	qemu-system-x86 cpio kmod
	perftest tshark tcpdump iproute2 ethtool pciutils xz-utils
	libyaml-dev libsodium-dev
	openssh-server openssh-client slurmctld slurmd slurm-client munge
	tmux valgrind python3 locales
	btop
)

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PKGS[@]} Debian packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages: ${missing[*]}" >&2
	echo "deps: run as root, or: apt-get install ${missing[*]}" >&2
	exit 1
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
