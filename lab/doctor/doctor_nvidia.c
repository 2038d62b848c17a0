// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor_nvidia.c: the doctor's NVIDIA checks: driver version, open or proprietary kernel
 * modules, nvidia-peermem and its memory_peers registration, then per GPU (lib/hw/gpu) the
 * model and BAR1 against video memory (lib/hw/nvml) and the dma-buf and GPUDirect RDMA
 * attributes (lib/hw/cuda).
 */
#include <stdio.h>
#include <string.h>

#include "lab/doctor/doctor.h"
#include "lib/hw/cuda.h"
#include "lib/hw/gpu.h"
#include "lib/hw/nvml.h"
#include "lib/hw/sysfs.h"

static void check_driver(struct doctor_report *r)
{
	char v[512], ver[64] = "", peers[64], *first, *tok, *save = NULL, *save2 = NULL;
	bool open_mods;

	if (hw_sysfs_read("/proc/driver/nvidia/version", v, sizeof(v)) < 0) {
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
	if (hw_sysfs_read("/sys/kernel/mm/memory_peers/nv_mem/version", peers,
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
	char buf[1024], *line, *save = NULL;
	unsigned long long start, end, flags;
	int i = 0;

	if (hw_sysfs_readf(buf, sizeof(buf), "%s/sys/bus/pci/devices/%s/resource", hw_sysfs_root(),
			   bdf) < 0)
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

static void check_gpu(struct doctor_report *r, const char *bdf, const struct hw_nvml *nv,
		      const struct cuda_api *cu)
{
	char item[48], name[96] = "", dev[16] = "", bar1s[32], vram[32] = "n/a", why[200];
	char canon[HW_BDF_LEN];
	struct hw_nvml_memory b1 = { 0 }, m = { 0 };
	uint64_t bar1 = sysfs_bar_size(bdf, 1);
	bool have_mem = false;
	hw_nvml_dev h;
	cu_device cd;
	int dmabuf = -1, gdr = -1;

	snprintf(item, sizeof(item), "GPU %.15s", bdf);
	hw_sysfs_readf(dev, sizeof(dev), "%s/sys/bus/pci/devices/%s/device", hw_sysfs_root(), bdf);
	if (nv && nv->by_bus_id && nv->by_bus_id(bdf, &h) == HW_NVML_OK) {
		if (!nv->name || nv->name(h, name, sizeof(name)) != HW_NVML_OK)
			name[0] = '\0';
		if (nv->bar1 && nv->bar1(h, &b1) == HW_NVML_OK && b1.total)
			bar1 = b1.total;
		have_mem = nv->memory && nv->memory(h, &m) == HW_NVML_OK && m.total;
	}
	if (!name[0])
		snprintf(name, sizeof(name), "NVIDIA device %s", dev[0] ? dev : "?");
	if (r->ngpus < DOCTOR_MAX_DEVS) {
		struct doctor_gpu *g = &r->gpus[r->ngpus++];

		snprintf(g->id.bdf, sizeof(g->id.bdf), "%.15s", bdf);
		snprintf(g->id.name, sizeof(g->id.name), "%s", name);
		/* the number --gpu takes for it here (nvidia-smi's): none for a GPU the
		 * driver does not hold */
		g->index = hw_gpu_find(bdf, canon, sizeof(canon), why, sizeof(why));
		if (g->index < 0)
			g->index = -1;
		g->bar1 = bar1;
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

void doctor_check_nvidia(struct doctor_report *r)
{
	char bdfs[DOCTOR_MAX_DEVS][HW_BDF_LEN], why[256];
	const struct cuda_api *cu;
	const struct hw_nvml *nv;
	int n, i, err = 0;

	check_driver(r);
	n = hw_gpu_list(bdfs, DOCTOR_MAX_DEVS);
	if (n > DOCTOR_MAX_DEVS)
		n = DOCTOR_MAX_DEVS;
	if (n <= 0) {
		doctor_add(r, "gpu", "GPUs", DOCTOR_FAIL,
			   "install an NVIDIA GPU, or run pfclab traffic with --mem host",
			   "no NVIDIA GPU on the PCI bus (vendor 0x10de, display class)");
		return;
	}
	nv = hw_nvml_get(&err, why, sizeof(why));
	if (!nv)
		doctor_add(r, "gpu", "NVML", DOCTOR_INFO, "install the NVIDIA driver's libnvidia-ml.so.1",
			   "NVML not loadable: GPU names and video memory size n/a");
	cu = cuda_api_load(&err, why, sizeof(why));
	for (i = 0; i < n; i++)
		check_gpu(r, bdfs[i], nv, cu);
}
