// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor_gpumem.c: which way a NIC can reach GPU memory on this host (peermem with the
 * MLNX_OFED peer-memory core, dma-buf with the inbox stack, the GeForce path, or none), and
 * why: the facts are gathered from sysfs, procfs and CUDA, the decision is a pure function.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "lab/doctor/doctor.h"
#include "lib/hw/cuda.h"
#include "lib/hw/sysfs.h"

static bool kernel_at_least(const char *release, int maj, int min)
{
	int a = 0, b = 0;

	if (sscanf(release, "%d.%d", &a, &b) != 2)
		return false;
	return a > maj || (a == maj && b >= min);
}

int doctor_gpumem_decide(const struct doctor_gpumem_facts *f, char *why, size_t len)
{
	int paths = 0;
	size_t n;

	why[0] = '\0';
	/* peermem: ibv_reg_mr on a GPU VA -> ib_core peer-memory -> nvidia-peermem. */
	if (f->peer_core && f->nv_mem && !f->geforce) {
		paths |= DOCTOR_GPUMEM_PEERMEM;
	} else {
		n = strlen(why);
		snprintf(why + n, len - n, "peermem: %s; ",
			 !f->peer_core ? "no peer-memory core in ib_core (it comes with MLNX_OFED/DOCA-OFED; "
			 "inbox kernels lack it, and nvidia-peermem built without it registers nothing)" :
			 !f->nv_mem ? "nvidia-peermem not registered (/sys/kernel/mm/memory_peers/nv_mem "
			 "missing: modprobe nvidia_peermem)" :
			 "GeForce GPUs: CUDA makes no ThirdPartyP2P object, so nvidia-peermem finds nothing");
	}
	/* dma-buf: cuMemGetHandleForAddressRange -> ibv_reg_dmabuf_mr (kernel >= 5.12). */
	if (f->kernel_dmabuf && f->open_modules && f->cuda_dmabuf == 1) {
		paths |= DOCTOR_GPUMEM_DMABUF;
	} else {
		n = strlen(why);
		snprintf(why + n, len - n, "dma-buf: %s; ",
			 !f->kernel_dmabuf ? "kernel older than 5.12" :
			 !f->open_modules ? "proprietary kernel modules (dma-buf export needs the open ones)" :
			 f->cuda_dmabuf < 0 ? "DMA_BUF_SUPPORTED not readable (no libcuda or no GPU)" :
			 "the GPU reports DMA_BUF_SUPPORTED=0 (GeForce boards do)");
	}
	/* GeForce: pfclab's own NV503C object, found by the patched nvidia-peermem. */
	if (f->geforce && f->peer_core && f->open_modules)
		paths |= DOCTOR_GPUMEM_GEFORCE;
	else if (f->geforce) {
		n = strlen(why);
		snprintf(why + n, len - n, "geforce: %s; ",
			 !f->open_modules ? "needs the open kernel modules" :
			 "needs the MLNX_OFED peer-memory core for nvidia-peermem");
	}
	n = strlen(why);
	if (n >= 2 && why[n - 2] == ';')
		why[n - 2] = '\0';
	return paths;
}

static void gather(struct doctor_gpumem_facts *f)
{
	const struct cuda_api *cu;
	char v[512], name[96], why[256];
	struct utsname u;
	struct stat st;
	int err = 0, n = 0, i;

	memset(f, 0, sizeof(*f));
	f->cuda_dmabuf = -1;
	f->kernel_dmabuf = uname(&u) == 0 && kernel_at_least(u.release, 5, 12);
	f->open_modules = hw_sysfs_read("/proc/driver/nvidia/version", v, sizeof(v)) == 0 &&
			  strstr(v, "Open Kernel Module");
	f->peer_core = stat("/sys/kernel/mm/memory_peers", &st) == 0;
	f->nv_mem = hw_sysfs_read("/sys/kernel/mm/memory_peers/nv_mem/version", v,
				     sizeof(v)) == 0;
	cu = cuda_api_load(&err, why, sizeof(why));
	if (!cu || cu->device_get_count(&n) != CU_SUCCESS)
		return;
	for (i = 0; i < n; i++) {
		cu_device d;
		int a = -1;

		if (cu->device_get(&d, i) != CU_SUCCESS)
			continue;
		if (cu->device_get_name(name, sizeof(name), d) == CU_SUCCESS &&
		    (strstr(name, "GeForce") || strstr(name, "TITAN")))
			f->geforce = true;
		if (cu->device_get_attribute(&a, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, d) ==
		    CU_SUCCESS && a > f->cuda_dmabuf)
			f->cuda_dmabuf = a;
	}
}

void doctor_check_gpumem(struct doctor_report *r)
{
	struct doctor_gpumem_facts f;
	char why[640];
	int p;

	if (!r->ngpus)
		return;
	gather(&f);
	p = doctor_gpumem_decide(&f, why, sizeof(why));
	if (p & (DOCTOR_GPUMEM_PEERMEM | DOCTOR_GPUMEM_DMABUF))
		doctor_add(r, "nvidia", "GPU memory path", DOCTOR_OK, NULL, "%s%s%s%s%s",
			   p & DOCTOR_GPUMEM_PEERMEM ? "peermem (--mem cuda: nvidia-peermem on the "
			   "MLNX_OFED peer-memory core)" : "",
			   (p & DOCTOR_GPUMEM_PEERMEM) && (p & DOCTOR_GPUMEM_DMABUF) ? " and " : "",
			   p & DOCTOR_GPUMEM_DMABUF ? "dma-buf (--mem cuda-dmabuf: kernel >= 5.12, open "
			   "modules, inbox rdma-core)" : "", why[0] ? "; not: " : "", why);
	else if (p & DOCTOR_GPUMEM_GEFORCE)
		doctor_add(r, "nvidia", "GPU memory path", DOCTOR_WARN,
			   "try 'pfclab traffic --check-mem geforce -d DEV' on the stock modules first, "
			   "then lab/gpudirect (lab/README.md)",
			   "GeForce only (--mem geforce: pfclab's ThirdPartyP2P object and "
			   "nvidia-peermem on the MLNX_OFED core); %s", why);
	else
		doctor_add(r, "nvidia", "GPU memory path", DOCTOR_FAIL,
			   "install MLNX_OFED/DOCA-OFED and load nvidia_peermem, or use a kernel >= "
			   "5.12 with the open modules on a GPU that supports dma-buf; else --mem host",
			   "none: a NIC cannot register GPU memory here (%s)", why);
}
