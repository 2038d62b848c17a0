// SPDX-License-Identifier: GPL-2.0-or-later
/* nvml.c: load libnvidia-ml.so.1 once and resolve its entry points from one table. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/hw/nvml.h"

static const struct {
	size_t off;		/* the pointer's place in struct hw_nvml */
	const char *name;	/* the exported symbol */
	bool required;
} syms[] = {
#define SYM(field, name, req) { offsetof(struct hw_nvml, field), name, req }
	SYM(init, "nvmlInit_v2", true),
	SYM(shutdown, "nvmlShutdown", true),
	SYM(error_string, "nvmlErrorString", false),
	SYM(system_driver_version, "nvmlSystemGetDriverVersion", false),
	SYM(by_index, "nvmlDeviceGetHandleByIndex_v2", true),
	SYM(by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2", false),
	SYM(name, "nvmlDeviceGetName", false),
	SYM(pci_info, "nvmlDeviceGetPciInfo_v3", false),
	SYM(bar1, "nvmlDeviceGetBAR1MemoryInfo", false),
	SYM(memory, "nvmlDeviceGetMemoryInfo", false),
	SYM(field_values, "nvmlDeviceGetFieldValues", false),
	SYM(pcie_throughput, "nvmlDeviceGetPcieThroughput", false),
	SYM(pcie_replay, "nvmlDeviceGetPcieReplayCounter", false),
	SYM(pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration", false),
	SYM(pcie_width, "nvmlDeviceGetCurrPcieLinkWidth", false),
#undef SYM
};

static struct hw_nvml api;
static int api_err;
static char api_why[200];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

const char *hw_nvml_strerror(const struct hw_nvml *n, hw_nvml_ret rc, char *buf, size_t len)
{
	if (n && n->error_string)
		return n->error_string(rc);
	snprintf(buf, len, "NVML error %d", rc);
	return buf;
}

static void load(void)
{
	char buf[32];
	void *so = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	hw_nvml_ret rc;
	size_t i;

	if (!so) {
		api_err = -ENOENT;
		snprintf(api_why, sizeof(api_why),
			 "libnvidia-ml.so.1 not found (no NVIDIA driver on this host)");
		return;
	}
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *p = dlsym(so, syms[i].name);

		*(void **)((char *)&api + syms[i].off) = p;
		if (!p && syms[i].required) {
			api_err = -EOPNOTSUPP;
			snprintf(api_why, sizeof(api_why),
				 "libnvidia-ml.so.1 lacks %s (driver too old)", syms[i].name);
			dlclose(so);
			return;
		}
	}
	rc = api.init();
	if (rc != HW_NVML_OK) {
		api_err = -EIO;
		snprintf(api_why, sizeof(api_why), "nvmlInit: %s",
			 hw_nvml_strerror(&api, rc, buf, sizeof(buf)));
		dlclose(so);
		return;
	}
	/* Loaded and initialised for the life of the process, like a linked library. */
}

const struct hw_nvml *hw_nvml_get(int *err, char *why, size_t whylen)
{
	pthread_once(&api_once, load);
	if (!api_err)
		return &api;
	*err = api_err;
	snprintf(why, whylen, "%s", api_why);
	return NULL;
}
