// SPDX-License-Identifier: GPL-2.0-or-later
/* cuda.c: run-time loading of libcuda (once per process) and GPU selection. */
#include <dlfcn.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hw/cuda.h"
#include "lib/hw/gpu.h"

static struct cuda_api api;
static int api_state;		/* 0 not tried, 1 loaded, <0 -errno */
static char api_why[256];

const char *cuda_result_str(const struct cuda_api *a, cu_result r, char *buf, size_t len)
{
	const char *name = NULL, *desc = NULL;

	if (a && a->get_error_name)
		a->get_error_name(r, &name);
	if (a && a->get_error_string)
		a->get_error_string(r, &desc);
	snprintf(buf, len, "%s (%s)", name ? name : "CUDA error", desc ? desc : "no description");
	return buf;
}

/* Newest symbol first: libcuda exports versioned names (cuMemAlloc_v2) for ABI changes. */
static void *sym(void *h, const char *a, const char *b)
{
	void *p = dlsym(h, a);

	if (!p && b)
		p = dlsym(h, b);
	return p;
}

#define LOAD(field, a, b)                                                     \
	do {                                                                  \
		*(void **)&api.field = sym(h, a, b);                          \
		if (!api.field && strcmp(a, "cuMemGetHandleForAddressRange")) { \
			snprintf(api_why, sizeof(api_why),                    \
				 "libcuda.so.1 lacks %s: driver too old", a);  \
			return -ENOENT;                                       \
		}                                                             \
	} while (0)

static int load(void)
{
	char buf[160];
	void *h;
	cu_result r;
	int n = 0;

	h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(api_why, sizeof(api_why),
			 "cannot load libcuda.so.1 (%s): no NVIDIA driver on this host", dlerror());
		return -ENOENT;
	}
	LOAD(init, "cuInit", NULL);
	LOAD(driver_get_version, "cuDriverGetVersion", NULL);
	LOAD(device_get_count, "cuDeviceGetCount", NULL);
	LOAD(device_get, "cuDeviceGet", NULL);
	LOAD(device_get_by_pci_bus_id, "cuDeviceGetByPCIBusId", NULL);
	LOAD(device_get_name, "cuDeviceGetName", NULL);
	LOAD(device_get_pci_bus_id, "cuDeviceGetPCIBusId", NULL);
	LOAD(device_get_attribute, "cuDeviceGetAttribute", NULL);
	LOAD(primary_ctx_retain, "cuDevicePrimaryCtxRetain", NULL);
	LOAD(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
	LOAD(ctx_set_current, "cuCtxSetCurrent", NULL);
	LOAD(mem_alloc, "cuMemAlloc_v2", "cuMemAlloc");
	LOAD(mem_free, "cuMemFree_v2", "cuMemFree");
	LOAD(memcpy_htod, "cuMemcpyHtoD_v2", "cuMemcpyHtoD");
	LOAD(memcpy_dtoh, "cuMemcpyDtoH_v2", "cuMemcpyDtoH");
	LOAD(pointer_set_attribute, "cuPointerSetAttribute", NULL);
	LOAD(mem_get_handle_for_address_range, "cuMemGetHandleForAddressRange", NULL);
	/* Optional: the VMM API (--mem geforce-vmm). */
	*(void **)&api.mem_get_granularity = dlsym(h, "cuMemGetAllocationGranularity");
	*(void **)&api.mem_create = dlsym(h, "cuMemCreate");
	*(void **)&api.mem_release = dlsym(h, "cuMemRelease");
	*(void **)&api.mem_address_reserve = dlsym(h, "cuMemAddressReserve");
	*(void **)&api.mem_address_free = dlsym(h, "cuMemAddressFree");
	*(void **)&api.mem_map = dlsym(h, "cuMemMap");
	*(void **)&api.mem_unmap = dlsym(h, "cuMemUnmap");
	*(void **)&api.mem_set_access = dlsym(h, "cuMemSetAccess");
	LOAD(get_error_name, "cuGetErrorName", NULL);
	LOAD(get_error_string, "cuGetErrorString", NULL);

	r = api.init(0);
	if (r != CU_SUCCESS) {
		snprintf(api_why, sizeof(api_why), "cuInit failed: %s%s",
			 cuda_result_str(&api, r, buf, sizeof(buf)),
			 r == CU_ERROR_NO_DEVICE ? "; no NVIDIA GPU visible (check nvidia-smi)" :
			 "; check that the nvidia kernel module is loaded (nvidia-smi)");
		return r == CU_ERROR_NO_DEVICE ? -ENODEV : -EIO;
	}
	api.driver_get_version(&api.driver_version);
	if (api.device_get_count(&n) != CU_SUCCESS || n <= 0) {
		snprintf(api_why, sizeof(api_why), "CUDA sees no GPU (check nvidia-smi)");
		return -ENODEV;
	}
	/* The library stays loaded for the life of the process, like any linked library. */
	return 1;
}

const struct cuda_api *cuda_api_load(int *err, char *why, size_t whylen)
{
	if (!api_state)
		api_state = load();
	if (api_state == 1)
		return &api;
	*err = api_state;
	snprintf(why, whylen, "%s", api_why);
	return NULL;
}

int cuda_gpu_open(const char *sel, struct cuda_gpu *g, char *why, size_t whylen)
{
	const struct cuda_api *a;
	char buf[200], bdf[HW_BDF_LEN];
	cu_result r;
	int err = 0, n = 0, ordinal = -1;
	bool numeric, sysfs_gpus;
	char *end;
	long idx;

	memset(g, 0, sizeof(*g));
	a = cuda_api_load(&err, why, whylen);
	if (!a)
		return err;
	g->api = a;
	a->device_get_count(&n);
	if (!sel || !*sel)
		sel = "0";
	idx = strtol(sel, &end, 10);
	numeric = *end == '\0' && end != sel;
	sysfs_gpus = hw_gpu_list(NULL, 0) > 0;
	if (numeric && sysfs_gpus) {
		/* GPU N as nvidia-smi and the monitor number them (PCI order), not CUDA's
		 * fastest-first order, so that one index names one GPU for every tool */
		ordinal = hw_gpu_find(sel, bdf, sizeof(bdf), buf, sizeof(buf));
		if (ordinal < 0) {
			snprintf(why, whylen, "GPU %s: %s", sel, buf);
			return ordinal;
		}
		r = a->device_get_by_pci_bus_id(&g->dev, bdf);
		if (r != CU_SUCCESS) {
			snprintf(why, whylen, "GPU %s (%s): CUDA does not see it: %s (is "
				 "CUDA_VISIBLE_DEVICES set?)", sel, bdf,
				 cuda_result_str(a, r, buf, sizeof(buf)));
			return -ENODEV;
		}
	} else if (numeric) {
		/* no NVIDIA GPU in sysfs (a container without /sys/bus/pci): CUDA's order */
		if (idx < 0 || idx >= n) {
			snprintf(why, whylen, "GPU %s does not exist: CUDA sees %d GPU%s (0..%d)", sel,
				 n, n == 1 ? "" : "s", n - 1);
			return -ENODEV;
		}
		r = a->device_get(&g->dev, (int)idx);
	} else {
		r = a->device_get_by_pci_bus_id(&g->dev, sel);
	}
	if (r != CU_SUCCESS) {
		snprintf(why, whylen, "no GPU '%s': %s (give an index or a PCI bus id such as 0000:17:00.0)",
			 sel, cuda_result_str(a, r, buf, sizeof(buf)));
		return -ENODEV;
	}
	a->device_get_name(g->name, sizeof(g->name), g->dev);
	a->device_get_pci_bus_id(g->bus_id, sizeof(g->bus_id), g->dev);
	if (ordinal < 0 && sysfs_gpus)
		ordinal = hw_gpu_find(g->bus_id, bdf, sizeof(bdf), buf, sizeof(buf));
	g->ordinal = ordinal >= 0 ? ordinal : (int)g->dev;
	r = a->primary_ctx_retain(&g->ctx, g->dev);
	if (r != CU_SUCCESS) {
		snprintf(why, whylen, "GPU %s (%s): cannot create a CUDA context: %s", sel, g->bus_id,
			 cuda_result_str(a, r, buf, sizeof(buf)));
		return -EIO;
	}
	r = a->ctx_set_current(g->ctx);
	if (r != CU_SUCCESS) {
		a->primary_ctx_release(g->dev);
		g->ctx = NULL;
		snprintf(why, whylen, "GPU %s: cuCtxSetCurrent failed: %s", sel,
			 cuda_result_str(a, r, buf, sizeof(buf)));
		return -EIO;
	}
	return 0;
}

void cuda_gpu_close(struct cuda_gpu *g)
{
	if (g->api && g->ctx)
		g->api->primary_ctx_release(g->dev);
	g->ctx = NULL;
}
