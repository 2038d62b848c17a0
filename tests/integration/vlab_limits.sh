#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# vlab_limits.sh: the virtual lab never hangs: a boot that cannot reach userspace in time
# and a script that runs too long both end with a clear message; bad arguments are refused.
# The second boot also takes --mem, --smp, --impair and --icount (instruction-counted
# time), which a guest script checks;
# `vlab clean` removes the cache it is pointed at.
source "$(dirname "$0")/../lib.sh"
plan 8
need_cmd vlab-limits qemu-system-x86_64 || finish
vlab=$PFCLAB_ROOT/lab/vlab/vlab
tmp=$(mktemp -d)
defer rm -rf "$tmp"

printf 'echo "OK never-reached"\n' >"$tmp/t_quick.sh"
printf 'echo "OK before-sleep"; sleep 600\n' >"$tmp/t_sleepy.sh"
cat >"$tmp/t_env.sh" <<'EOF'
n=$(nproc) m=$(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) q=$(tc class show dev va)
echo "env: nproc $n, MemTotal $m MB, va: $q"
# --mem 768: the kernel keeps some for itself, so MemTotal is a little under it
if [ "$n" = 1 ] && [ "$m" -gt 600 ] && [ "$m" -le 768 ] && echo "$q" | grep -q 'htb 1:1 .*rate 50Mbit'; then
	echo "OK env-options"
else
	echo "FAIL env-options: nproc $n, MemTotal $m MB, qdisc class '$q'"
fi
EOF

# 1. boot limit: 1 s is far too short under TCG
start=$(date +%s)
out=$("$vlab" run --boot-timeout 1 --out "$tmp/boot" "$tmp/t_quick.sh" 2>&1)
rc=$? el=$(( $(date +%s) - start ))
if [ $rc -eq 3 ] && echo "$out" | grep -q 'did not reach userspace within 1s' && [ $el -lt 60 ]; then
	ok "vlab: boot timeout ends the run (exit 3 after ${el}s)"
else
	fail "vlab: boot timeout ends the run" "rc=$rc after ${el}s: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
fi

# 2. script limit: the script is stopped, named, and the VM still reports and powers off
start=$(date +%s)
out=$("$vlab" run --script-timeout 5 --mem 768 --smp 1 --impair 50mbit --icount 3 --out "$tmp/script" \
	"$tmp/t_sleepy.sh" "$tmp/t_quick.sh" "$tmp/t_env.sh" 2>&1)
rc=$? el=$(( $(date +%s) - start ))
if [ $rc -eq 1 ] && echo "$out" | grep -q '^FAIL t_sleepy: timed out after 5s' &&
	echo "$out" | grep -q '^OK never-reached'; then
	ok "vlab: script timeout named, later scripts still run (${el}s)"
else
	fail "vlab: script timeout named, later scripts still run" "rc=$rc: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
fi

if echo "$out" | grep -q '^OK env-options'; then
	ok "vlab: --mem 768 --smp 1 --impair 50mbit --icount 3 at boot: 1 CPU, 768 MB, htb 50 Mbit on va"
else
	fail "vlab: --mem --smp --impair at boot" "$(echo "$out" | grep 'env' | tr '\n' ' ')"
fi

# 3. usage errors
"$vlab" run --impair fast "$tmp/t_quick.sh" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "not a tc rate" "$tmp/err"; then ok "vlab: bad --impair refused"
else fail "vlab: bad --impair refused" "rc=$rc $(cat "$tmp/err")"; fi
"$vlab" run --icount 11 --smp 1 "$tmp/t_quick.sh" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "not a shift from 0 to 10" "$tmp/err"; then ok "vlab: bad --icount refused"
else fail "vlab: bad --icount refused" "rc=$rc $(cat "$tmp/err")"; fi
"$vlab" run --icount 3 "$tmp/t_quick.sh" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q -- "--icount needs --smp 1" "$tmp/err"; then ok "vlab: --icount with 2 guest CPUs refused"
else fail "vlab: --icount with 2 guest CPUs refused" "rc=$rc $(cat "$tmp/err")"; fi
"$vlab" run "$tmp/missing.sh" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "not found" "$tmp/err"; then ok "vlab: missing script refused"
else fail "vlab: missing script refused" "rc=$rc $(cat "$tmp/err")"; fi
# 4. clean removes the cache it is given
mkdir -p "$tmp/cache/kernel" && echo x >"$tmp/cache/kernel/kver"
out=$(VLAB_CACHE=$tmp/cache "$vlab" clean 2>&1); rc=$?
if [ $rc -eq 0 ] && [ ! -e "$tmp/cache" ] && echo "$out" | grep -q "removed $tmp/cache"; then ok "vlab clean: removes its cache"
else fail "vlab clean" "rc $rc: $out"; fi
finish
