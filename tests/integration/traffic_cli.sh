#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# traffic_cli.sh (host): pfclab traffic's command line without an RDMA device: --help,
# usage errors (exit 2 with the option named), --check-mem on host memory (every step
# reported, exit 0), GPU backends skipping cleanly (exit 3) where there is no GPU, and a
# missing RDMA device reported as a run-time error (exit 1) that names it.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
# 18 checks, and 2 more on a kernel without uverbs
if [ -d /sys/class/infiniband_verbs ]; then plan 18; else plan 20; fi

[ -x "$PFCLAB" ] || { fail traffic-cli "no pfclab binary at $PFCLAB (run make)"; finish; }

out=$("$PFCLAB" traffic --help 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q -- '--check-mem' <<<"$out" && grep -q 'cuda-dmabuf' <<<"$out"; then
	ok "traffic --help lists options and memory backends"
else
	fail "traffic --help" "rc $rc"
fi

# usage errors: exit 2, one line naming the option
while IFS='|' read -r args want; do
	out=$("$PFCLAB" traffic $args 2>&1); rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$want" <<<"$out" && [ "$(wc -l <<<"$out")" -eq 1 ]; then
		ok "traffic $args: exit 2, '$want'"
	else
		fail "traffic $args: exit 2, '$want'" "rc $rc: $out"
	fi
done <<'EOF2'
-d rxe0 -q 0|--qp '0'
-d rxe0 -D 1 -n 1|-D and -n
-d rxe0 --tclass 300|--tclass
-d rxe0 --mem vram|unknown memory type
-q 2|no RDMA device
-d rxe0 a b|only one HOST
EOF2

# expect NAME RC WANT_RC PATTERN OUTPUT
expect() {
	if [ "$2" -eq "$3" ] && grep -q -- "$4" <<<"$5"; then ok "$1"
	else fail "$1" "rc $2, want $3 and '$4': $(tr '\n' ' ' <<<"$5")"; fi
}
# --psk: the key file's rules are checked before anything else (exit 1, the file named)
keydir=$(mktemp -d)
defer rm -rf "$keydir"
printf '%064x\n' 1 >"$keydir/key"
chmod 644 "$keydir/key"
out=$("$PFCLAB" traffic -d pfclab-no-such-dev --psk "$keydir/key" 2>&1); rc=$?
expect "--psk refuses a key file others may read" $rc 1 "chmod 600" "$out"
out=$(PFCLAB_PSK_FILE=$keydir/key "$PFCLAB" traffic -d pfclab-no-such-dev 2>&1); rc=$?
expect "PFCLAB_PSK_FILE is read like --psk" $rc 1 "chmod 600" "$out"
printf 'short\n' >"$keydir/short"
chmod 600 "$keydir/short"
out=$("$PFCLAB" traffic -d pfclab-no-such-dev --psk "$keydir/short" 2>&1); rc=$?
expect "--psk refuses a key under 16 bytes" $rc 1 "at least 16" "$out"
out=$("$PFCLAB" traffic -d pfclab-no-such-dev --psk "$keydir/none" 2>&1); rc=$?
expect "--psk names a missing file" $rc 1 "$keydir/none: No such file" "$out"
out=$("$PFCLAB" traffic -d rxe0 --peer-timeout 1ms 2>&1); rc=$?
expect "--peer-timeout below 100ms: exit 2" $rc 2 "--peer-timeout '1ms'" "$out"

out=$("$PFCLAB" traffic --check-mem host --check-size 8M 2>&1); rc=$?
steps=$(grep -cE '^  (alloc|export|register|write|read|free) ' <<<"$out")
if [ $rc -eq 0 ] && [ "$steps" -eq 6 ] && grep -q '^result: OK' <<<"$out"; then
	ok "--check-mem host: 6 steps reported, result OK"
else
	fail "--check-mem host" "rc $rc: $(tr '\n' ' ' <<<"$out")"
fi
if ! command -v jq >/dev/null; then
	fail "--check-mem host --json parses (jq)" "jq not installed (make deps)"
elif "$PFCLAB" traffic --check-mem host --json | jq -e '.result == "OK" and (.steps | length) == 6' >/dev/null; then
	ok "--check-mem host --json parses (jq)"
else
	fail "--check-mem host --json parses (jq)"
fi

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
	for t in cuda cuda-dmabuf auto; do
		skip "--check-mem $t without a GPU" "this host has a GPU (tests/gpu/check_mem.sh covers it)"
	done
else
	for t in cuda cuda-dmabuf auto; do
		out=$("$PFCLAB" traffic --check-mem "$t" 2>&1); rc=$?
		if [ $rc -eq 3 ] && grep -q '^result: SKIP' <<<"$out" && grep -q 'alloc     SKIP' <<<"$out"; then
			ok "--check-mem $t without a GPU: SKIP with a reason, exit 3"
		else
			fail "--check-mem $t without a GPU" "rc $rc: $(tr '\n' ' ' <<<"$out")"
		fi
	done
fi

# A named device that is missing among present ones is tested in the virtual lab
# (t_traffic_opts.sh); here, with or without RDMA devices, the message must say which.
out=$("$PFCLAB" traffic -d nosuchdev0 -n 1 2>&1); rc=$?
if [ ! -d /sys/class/infiniband_verbs ]; then
	# A kernel without uverbs (ibv_get_device_list fails with ENOSYS): no driver or
	# Soft-RoCE can help, the virtual lab can.
	expect "kernel without RDMA: traffic says so and points to the virtual lab" $rc 1 \
		"this kernel has no RDMA support.*lab/vlab/vlab" "$out"
	d=$("$PFCLAB" doctor 2>&1)
	if grep -q 'FAIL  devices .*this kernel has no RDMA support' <<<"$d" &&
		grep -q 'fix: try pfclab on this machine in the virtual lab: lab/vlab/vlab' <<<"$d" &&
		! grep -q 'rdma link add' <<<"$d"; then
		ok "kernel without RDMA: the doctor says so and points to the virtual lab"
	else
		fail "kernel without RDMA: doctor" "$(grep -A1 'devices' <<<"$d" | tr '\n' ' ')"
	fi
fi
if [ -d /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband)" ]; then
	want=nosuchdev0
else
	want='cannot list RDMA devices\|no RDMA device\|no RDMA support'
fi
if [ $rc -eq 1 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "$want" <<<"$out"; then
	ok "missing RDMA device: exit 1, one line: $out"
else
	fail "missing RDMA device: exit 1 with '$want'" "rc $rc: $out"
fi
finish
