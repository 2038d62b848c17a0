// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor_nvidia.c: the doctor's NVIDIA checks: driver version, open or proprietary kernel
 * modules, nvidia-peermem and its memory_peers registration, then per GPU (found in sysfs)
 * the model and BAR1 against video memory (NVML, loaded with dlopen) and the dma-buf and
 * GPUDirect RDMA attributes (CUDA driver API, loaded with dlopen through traffic/cuda.c).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/doctor/doctor.h"
#include "traffic/cuda.h"

/* The NVML entry points used here, as declared in NVIDIA's nvml.h. */
struct nvml_bar1 {
	unsigned long long total, free, used;
};
struct nvml_mem {
	unsigned long long total, free, used;
};
typedef struct nvml_dev_st *nvml_dev;

struct nvml {
	void *lib;
	int (*init)(void);
	int (*shutdown)(void);
	int (*by_bus_id)(const char *bus_id, nvml_dev *dev);
	int (*name)(nvml_dev dev, char *name, unsigned int len);
	int (*bar1)(nvml_dev dev, struct nvml_bar1 *b);
	int (*mem)(nvml_dev dev, struct nvml_mem *m);
};

static bool nvml_open(struct nvml *n)
{
	memset(n, 0, sizeof(*n));
	n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->lib)
		return false;
	*(void **)&n->init = dlsym(n->lib, "nvmlInit_v2");
	*(void **)&n->shutdown = dlsym(n->lib, "nvmlShutdown");
	*(void **)&n->by_bus_id = dlsym(n->lib, "nvmlDeviceGetHandleByPciBusId_v2");
	*(void **)&n->name = dlsym(n->lib, "nvmlDeviceGetName");
	*(void **)&n->bar1 = dlsym(n->lib, "nvmlDeviceGetBAR1MemoryInfo");
	*(void **)&n->mem = dlsym(n->lib, "nvmlDeviceGetMemoryInfo");
	if (!n->init || !n->shutdown || !n->by_bus_id || !n->name || !n->bar1 || !n->mem ||
	    n->init() != 0) {
		dlclose(n->lib);
		n->lib = NULL;
		return false;
	}
	return true;
}

static void nvml_close(struct nvml *n)
{
	if (n->lib) {
		n->shutdown();
		dlclose(n->lib);
	}
	n->lib = NULL;
}

static void check_driver(struct doctor_report *r)
{
	char v[512], ver[64] = "", peers[64], *first, *tok, *save = NULL, *save2 = NULL;
	bool open_mods;

	if (doctor_read_file("/proc/driver/nvidia/version", v, sizeof(v)) < 0) {
		doctor_add(r, "nvidia", "driver", DOCTOR_FAIL,
			   "install the NVIDIA driver with the open kernel modules (e.g. 570.133.20, "
			   "package nvidia-open or the .run installer's -m=kernel-open)",
			   "no NVIDIA kernel driver loaded (/proc/driver/nvidia/version missing)");
		return;
	}
	open_mods = strstr(v, "Open Kernel Module") != NULL;
	/* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release ..." */
	first = strtok_r(v, "\n", &save);
	for (tok = first ? strtok_r(first, " \t", &save2) : NULL; tok;
	     tok = strtok_r(NULL, " \t", &save2)) {
		if (tok[0] >= '0' && tok[0] <= '9' && strchr(tok, '.')) {
			snprintf(ver, sizeof(ver), "%s", tok);
			break;
		}
	}
	doctor_add(r, "nvidia", "driver", DOCTOR_OK, NULL, "NVIDIA driver %s",
		   ver[0] ? ver : "(version not parsed)");
	if (open_mods)
		doctor_add(r, "nvidia", "kernel modules", DOCTOR_OK, NULL,
			   "open kernel modules loaded (dma-buf export possible; patchable for GeForce)");
	else
		doctor_add(r, "nvidia", "kernel modules", DOCTOR_WARN,
			   "install the open kernel modules (nvidia-open) for dma-buf and the GeForce patches",
			   "proprietary kernel modules loaded: no dma-buf export, no GeForce BAR1 P2P");

	if (doctor_module_loaded("nvidia_peermem"))
		doctor_add(r, "nvidia", "nvidia-peermem", DOCTOR_OK, NULL, "nvidia_peermem loaded");
	else
		doctor_add(r, "nvidia", "nvidia-peermem", DOCTOR_WARN,
			   "modprobe nvidia_peermem (after ib_core/mlx5_ib and nvidia; needs MLNX_OFED "
			   "or a kernel with peer-memory support), or use the dma-buf path",
			   "nvidia_peermem not loaded: ibv_reg_mr on GPU memory fails with EFAULT");
	if (doctor_read_file("/sys/kernel/mm/memory_peers/nv_mem/version", peers,
			     sizeof(peers)) == 0)
		doctor_add(r, "nvidia", "memory_peers", DOCTOR_OK, NULL,
			   "nv_mem peer-memory client registered, version %s", peers);
	else
		doctor_add(r, "nvidia", "memory_peers", DOCTOR_WARN,
			   "load nvidia_peermem on a MLNX_OFED kernel (peer-memory core) to get it",
			   "/sys/kernel/mm/memory_peers/nv_mem/version missing: no peer-memory client");
}

static uint64_t sysfs_bar_size(const char *bdf, int bar)
{
	char path[128], buf[1024], *line, *save = NULL;
	unsigned long long start, end, flags;
	int i = 0;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", bdf);
	if (doctor_read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		if (i != bar)
			continue;
		if (sscanf(line, "%llx %llx %llx", &start, &end, &flags) != 3 || end <= start)
			return 0;
		return end - start + 1;
	}
	return 0;
}

static void fmt_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= (1ull << 30) && b % (1ull << 30) == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(b >> 30));
	else if (b >= (1ull << 30))
		snprintf(buf, len, "%.1f GiB", (double)b / (double)(1ull << 30));
	else
		snprintf(buf, len, "%llu MiB", (unsigned long long)(b >> 20));
}

static void check_gpu(struct doctor_report *r, const char *bdf, struct nvml *nv,
		      const struct cuda_api *cu)
{
	char item[48], name[96] = "", dev[16] = "", bar1s[32], vram[32] = "n/a", why[64];
	struct nvml_bar1 b1 = { 0 };
	struct nvml_mem m = { 0 };
	uint64_t bar1 = sysfs_bar_size(bdf, 1);
	bool have_mem = false;
	nvml_dev h;
	cu_device cd;
	int dmabuf = -1, gdr = -1;
	char path[96];

	snprintf(item, sizeof(item), "GPU %s", bdf);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", bdf);
	doctor_read_file(path, dev, sizeof(dev));
	if (nv->lib && nv->by_bus_id(bdf, &h) == 0) {
		if (nv->name(h, name, sizeof(name)) != 0)
			name[0] = '\0';
		if (nv->bar1(h, &b1) == 0 && b1.total)
			bar1 = b1.total;
		have_mem = nv->mem(h, &m) == 0 && m.total;
	}
	if (!name[0])
		snprintf(name, sizeof(name), "NVIDIA device %s", dev[0] ? dev : "?");
	if (r->ngpus < DOCTOR_MAX_DEVS) {
		snprintf(r->gpus[r->ngpus].bdf, sizeof(r->gpus[0].bdf), "%s", bdf);
		snprintf(r->gpus[r->ngpus].name, sizeof(r->gpus[0].name), "%s", name);
		r->ngpus++;
	}
	fmt_bytes(bar1s, sizeof(bar1s), bar1);
	if (have_mem)
		fmt_bytes(vram, sizeof(vram), m.total);
	if (!bar1)
		doctor_add(r, "gpu", item, DOCTOR_WARN, "run as root, or check lspci -vv -s BDF",
			   "%s: BAR1 size not readable", name);
	else if (have_mem && bar1 < m.total)
		doctor_add(r, "gpu", item, DOCTOR_WARN,
			   "enable Above 4G Decoding and Resizable BAR in the firmware setup; the "
			   "GeForce BAR1 P2P patches need BAR1 >= video memory",
			   "%s: BAR1 %s < video memory %s (small BAR)", name, bar1s, vram);
	else
		doctor_add(r, "gpu", item, DOCTOR_OK, NULL, "%s: BAR1 %s, video memory %s%s", name,
			   bar1s, vram, have_mem ? "" : " (NVML not available)");
	if (strstr(name, "GeForce") || strstr(name, "TITAN"))
		doctor_add(r, "gpu", item, DOCTOR_INFO,
			   "lab/gpudirect all, then pfclab traffic --mem geforce (see lab/README.md)",
			   "GeForce: stock drivers refuse GPUDirect RDMA; pfclab's patches and the "
			   "geforce memory backend make it work");

	if (!cu) {
		doctor_add(r, "gpu", item, DOCTOR_INFO, "install the CUDA driver (libcuda.so.1)",
			   "dma-buf support n/a: libcuda not loadable");
		return;
	}
	if (cu->device_get_by_pci_bus_id(&cd, bdf) != CU_SUCCESS) {
		doctor_add(r, "gpu", item, DOCTOR_WARN, "check nvidia-smi and dmesg (NVRM lines)",
			   "CUDA does not see this GPU");
		return;
	}
	if (cu->device_get_attribute(&dmabuf, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, cd) != CU_SUCCESS)
		dmabuf = -1;
	if (cu->device_get_attribute(&gdr, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, cd) !=
	    CU_SUCCESS)
		gdr = -1;
	snprintf(why, sizeof(why), "GPU_DIRECT_RDMA_SUPPORTED=%s",
		 gdr < 0 ? "n/a" : gdr ? "1" : "0");
	if (dmabuf == 1)
		doctor_add(r, "gpu", item, DOCTOR_OK, NULL,
			   "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED=1 (dma-buf RDMA), %s", why);
	else
		doctor_add(r, "gpu", item, DOCTOR_WARN,
			   "use peermem (nvidia-peermem) or, on GeForce, the geforce backend",
			   "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED=%s: no dma-buf RDMA, %s",
			   dmabuf < 0 ? "n/a" : "0", why);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void doctor_check_nvidia(struct doctor_report *r)
{
	char path[300], vendor[16], cls[16], *bdfs[DOCTOR_MAX_DEVS], why[256];
	const struct cuda_api *cu = NULL;
	struct dirent *e;
	struct nvml nv;
	unsigned int n = 0, i;
	int err = 0;
	DIR *d;

	check_driver(r);
	d = opendir("/sys/bus/pci/devices");
	while (d && (e = readdir(d)) && n < DOCTOR_MAX_DEVS) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", e->d_name);
		if (doctor_read_file(path, vendor, sizeof(vendor)) < 0 || strcmp(vendor, "0x10de"))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class", e->d_name);
		if (doctor_read_file(path, cls, sizeof(cls)) < 0 || strncmp(cls, "0x03", 4))
			continue;
		bdfs[n] = strdup(e->d_name);
		if (bdfs[n])
			n++;
	}
	if (d)
		closedir(d);
	if (n == 0) {
		doctor_add(r, "gpu", "GPUs", DOCTOR_FAIL,
			   "install an NVIDIA GPU, or run pfclab traffic with --mem host",
			   "no NVIDIA GPU on the PCI bus (vendor 0x10de, display class)");
		return;
	}
	qsort(bdfs, n, sizeof(bdfs[0]), cmp_str);
	nvml_open(&nv);
	if (!nv.lib)
		doctor_add(r, "gpu", "NVML", DOCTOR_INFO, "install the NVIDIA driver's libnvidia-ml.so.1",
			   "NVML not loadable: GPU names and video memory size n/a");
	cu = cuda_api_load(&err, why, sizeof(why));
	for (i = 0; i < n; i++) {
		check_gpu(r, bdfs[i], &nv, cu);
		free(bdfs[i]);
	}
	nvml_close(&nv);
}
