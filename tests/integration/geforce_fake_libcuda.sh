#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# geforce_fake_libcuda.sh: the geforce memory backend's ioctl interposer against a stand-in
# libcuda.so.1 (built here) whose entry points call ioctl(): the GOT entry is replaced, the
# calls go through the interposer, and with no RM objects to find the backend fails with a
# reason instead of crashing. Needs a C compiler; the real thing runs in tests/gpu/.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 2

need_cmd geforce_fake_libcuda cc || finish
[ -x "$PFCLAB" ] || { skip geforce_fake_libcuda "no pfclab binary at $PFCLAB"; finish; }
W=$(mktemp -d /tmp/pfclab-fakecuda.XXXXXX)
defer rm -rf "$W"
cat >"$W/fake.c" <<'C'
/* A stand-in for libcuda.so.1: every call makes one ioctl() on /dev/null (ENOTTY). */
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
static char arg[256]; /* the request names a buffer: give it one */
static int poke(void) { int fd = open("/dev/null", O_RDONLY); if (fd >= 0) { ioctl(fd, 0x4600, arg); close(fd); } return 0; }
int cuInit(unsigned f) { (void)f; return poke(); }
int cuDriverGetVersion(int *v) { *v = 12080; return 0; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
int cuDeviceGet(int *d, int i) { *d = i; return 0; }
int cuDeviceGetByPCIBusId(int *d, const char *b) { (void)b; *d = 0; return 0; }
int cuDeviceGetName(char *n, int l, int d) { (void)d; strncpy(n, "Stand-in GeForce", l); return 0; }
int cuDeviceGetPCIBusId(char *b, int l, int d) { (void)d; strncpy(b, "0000:01:00.0", l); return 0; }
int cuDeviceGetAttribute(int *v, int a, int d) { (void)a; (void)d; *v = 0; return 0; }
static int ctx;
int cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = &ctx; return poke(); }
int cuDevicePrimaryCtxRelease_v2(int d) { (void)d; return 0; }
int cuCtxSetCurrent(void *c) { (void)c; return 0; }
int cuMemAlloc_v2(unsigned long long *p, size_t n) { (void)n; *p = 0x7f0000000000ull; return poke(); }
int cuMemFree_v2(unsigned long long p) { (void)p; return 0; }
int cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n) { (void)d; (void)s; (void)n; return 0; }
int cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n) { (void)s; memset(d, 0, n); return 0; }
int cuPointerSetAttribute(const void *v, int a, unsigned long long p) { (void)v; (void)a; (void)p; return 0; }
int cuGetErrorName(int r, const char **s) { (void)r; *s = "CUDA_ERROR_STAND_IN"; return 0; }
int cuGetErrorString(int r, const char **s) { (void)r; *s = "stand-in"; return 0; }
C
if ! cc -shared -fPIC -o "$W/libcuda.so.1" "$W/fake.c" 2>"$W/cc.txt"; then
	skip geforce_fake_libcuda "cannot build the stand-in library: $(head -c 200 "$W/cc.txt")"
	finish
fi
LD_LIBRARY_PATH=$W "$PFCLAB" traffic --check-mem geforce >"$W/out" 2>&1
rc=$?
sed 's/^/# /' "$W/out"
n=$(grep -o 'libcuda made [0-9]* ioctl calls through the interposer' "$W/out" | grep -o '[0-9]*' | head -n 1)
if [ -n "$n" ] && [ "$n" -ge 3 ]; then
	ok "geforce interposer: $n libcuda ioctl calls went through it"
else
	fail "geforce interposer" "calls not seen: $(cat "$W/out")"
fi
if [ "$rc" = 1 ] && grep -q '^  alloc  *FAIL.*no RM memory object found for GPU VA 0x7f0000000000' "$W/out"; then
	ok "geforce backend fails cleanly without RM objects"
else
	fail "geforce backend fails cleanly without RM objects" "exit $rc: $(grep -m1 alloc "$W/out")"
fi
finish
