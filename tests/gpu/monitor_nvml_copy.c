// SPDX-License-Identifier: GPL-2.0-or-later
/* monitor_nvml_copy.c: test helper for monitor_nvml.sh: a known pinned host<->device copy
 * through the CUDA driver API (dlopen'ed libcuda.so.1), one phase per direction, printing
 * each phase's start/end (CLOCK_MONOTONIC ns, the clock pfclab monitor stamps samples
 * with) and its measured bandwidth.
 *   monitor_nvml_copy GPU SECONDS_PER_PHASE
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int (*fn_init)(unsigned);
typedef int (*fn_dev_get)(int *, int);
typedef int (*fn_ctx_create)(void **, unsigned, int);
typedef int (*fn_alloc_host)(void **, size_t);
typedef int (*fn_alloc)(unsigned long long *, size_t);
typedef int (*fn_htod)(unsigned long long, const void *, size_t);
typedef int (*fn_dtoh)(void *, unsigned long long, size_t);
typedef int (*fn_sync)(void);

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const size_t chunk = 256u << 20;	/* 256 MiB per copy */
	void *so = dlopen("libcuda.so.1", RTLD_NOW);
	fn_init init;
	fn_dev_get dev_get;
	fn_ctx_create ctx_create;
	fn_alloc_host alloc_host;
	fn_alloc alloc;
	fn_htod htod;
	fn_dtoh dtoh;
	fn_sync sync;
	unsigned long long dptr;
	void *ctx, *host;
	int dev, gpu, phase;
	double secs;

	if (argc != 3 || !so) {
		fprintf(stderr, "usage: monitor_nvml_copy GPU SECONDS (needs libcuda.so.1)\n");
		return 2;
	}
	gpu = atoi(argv[1]);
	secs = atof(argv[2]);
	*(void **)&init = dlsym(so, "cuInit");
	*(void **)&dev_get = dlsym(so, "cuDeviceGet");
	*(void **)&ctx_create = dlsym(so, "cuCtxCreate_v2");
	*(void **)&alloc_host = dlsym(so, "cuMemAllocHost_v2");
	*(void **)&alloc = dlsym(so, "cuMemAlloc_v2");
	*(void **)&htod = dlsym(so, "cuMemcpyHtoD_v2");
	*(void **)&dtoh = dlsym(so, "cuMemcpyDtoH_v2");
	*(void **)&sync = dlsym(so, "cuCtxSynchronize");
	if (!init || !dev_get || !ctx_create || !alloc_host || !alloc || !htod || !dtoh || !sync)
		return 1;
	if (init(0) || dev_get(&dev, gpu) || ctx_create(&ctx, 0, dev) ||
	    alloc_host(&host, chunk) || alloc(&dptr, chunk)) {
		fprintf(stderr, "CUDA setup failed on GPU %d\n", gpu);
		return 1;
	}
	for (phase = 0; phase < 2; phase++) {
		uint64_t t0 = mono_ns(), t1, bytes = 0;

		do {
			if (phase == 0 ? htod(dptr, host, chunk) : dtoh(host, dptr, chunk))
				return 1;
			bytes += chunk;
			t1 = mono_ns();
		} while ((double)(t1 - t0) / 1e9 < secs);
		sync();
		t1 = mono_ns();
		printf("%s %llu %llu %.0f\n", phase == 0 ? "h2d" : "d2h", (unsigned long long)t0,
		       (unsigned long long)t1, (double)bytes * 1e9 / (double)(t1 - t0));
		fflush(stdout);
	}
	return 0;
}
