#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# hosts_selftest.sh: the multi-host lab of tests/hosts.sh works: each fake host answers ssh
# with its own hostname, h2 reaches h1's sshd over the bridge, a killed host is
# unreachable while the others stay up, and a local Slurm runs one task on each of n1 n2 n3.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 11
source "$(dirname "$0")/../hosts.sh"

need_root hosts_selftest || finish
need_cmd hosts_selftest ssh ssh-keygen nsenter unshare /usr/sbin/sshd || finish

if ! fakehosts_up 3; then
	fail hosts_fakehosts_up "could not start 3 fake hosts"
	finish
fi

out=$(ssh -F "$SSH_CONFIG" h1 hostname 2>&1)
check hosts_ssh_h1_hostname test "$out" = h1
out=$(ssh -F "$SSH_CONFIG" h3 hostname 2>&1)
check hosts_ssh_h3_hostname test "$out" = h3

# The session's PATH starts with the host's own bin folder.
out=$(ssh -F "$SSH_CONFIG" h2 'echo $PATH' 2>&1)
check hosts_ssh_path test "${out%%:*}" = "${FAKEHOST_BIN[h2]}"

# h2 reads h1's SSH banner over the bridge, from its own address.
out=$(ssh -F "$SSH_CONFIG" h2 "timeout 3 bash -c 'exec 3<>/dev/tcp/${FAKEHOST_ADDR[h1]}/22 && head -c 8 <&3'" 2>&1)
check hosts_h2_reaches_h1 test "$out" = SSH-2.0-
out=$(ssh -F "$SSH_CONFIG" h2 "ip -4 -o addr show dev ${FAKEHOST_IF[h2]}" 2>&1)
check hosts_h2_own_address grep -q " ${FAKEHOST_ADDR[h2]}/24 " <<<"$out"

# The veth named by FAKEHOST_IF is inside the host's namespace.
check hosts_if_in_ns ip -n "${FAKEHOST_NS[h1]}" link show "${FAKEHOST_IF[h1]}"

fakehost_kill h2
# Exit 255 is ssh's own failure (no connection); ConnectTimeout bounds the wait.
ssh -F "$SSH_CONFIG" -o ControlPath=none h2 true >/dev/null 2>&1
rc=$?
check hosts_killed_unreachable test "$rc" -eq 255
check hosts_killed_no_process test -z "$(ip netns pids "${FAKEHOST_NS[h2]}")"
out=$(ssh -F "$SSH_CONFIG" h3 hostname 2>&1)
check hosts_others_stay_up test "$out" = h3

if ! need_cmd hosts_srun_n3 slurmctld slurmd munged srun salloc sinfo; then
	skip hosts_salloc_n3 "Slurm not installed"
	finish
fi
if ! slurm_up 3; then
	fail hosts_slurm_up "could not start a 3-node Slurm"
	finish
fi
out=$(timeout 30 srun -N3 hostname 2>&1 | sort | tr '\n' ' ')
check hosts_srun_n3 test "$out" = "n1 n2 n3 "
out=$(timeout 30 salloc -N3 sh -c 'scontrol show hostnames "$SLURM_JOB_NODELIST"' 2>/dev/null | tr '\n' ' ')
check hosts_salloc_n3 test "$out" = "n1 n2 n3 "
finish
