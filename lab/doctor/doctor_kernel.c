// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor_kernel.c: the doctor's kernel checks: release (dma-buf RDMA needs >= 5.12) and the
 * IOMMU state (GPUDirect through BAR1 on GeForce needs it off or in passthrough).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lab/doctor/doctor.h"
#include "lib/hw/sysfs.h"

static void check_release(struct doctor_report *r)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) < 0) {
		doctor_add(r, "kernel", "release", DOCTOR_WARN, NULL, "uname() failed");
		return;
	}
	snprintf(r->kernel, sizeof(r->kernel), "%s", u.release);
	if (gethostname(r->hostname, sizeof(r->hostname)) < 0)
		snprintf(r->hostname, sizeof(r->hostname), "?");
	r->hostname[sizeof(r->hostname) - 1] = '\0';
	if (sscanf(u.release, "%d.%d", &major, &minor) != 2) {
		doctor_add(r, "kernel", "release", DOCTOR_INFO, NULL, "%s (%s)", u.release,
			   u.machine);
		return;
	}
	if (major < 5 || (major == 5 && minor < 12))
		doctor_add(r, "kernel", "release", DOCTOR_WARN,
			   "use a kernel >= 5.12 for dma-buf RDMA, or the peermem path",
			   "%s (%s): older than 5.12, ibv_reg_dmabuf_mr is not available",
			   u.release, u.machine);
	else
		doctor_add(r, "kernel", "release", DOCTOR_OK, NULL,
			   "%s (%s): dma-buf RDMA capable (>= 5.12)", u.release, u.machine);
}

static bool cmdline_has(const char *cmdline, const char *word)
{
	size_t len = strlen(word);
	const char *p = cmdline;

	while ((p = strstr(p, word))) {
		if ((p == cmdline || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
			return true;
		p += len;
	}
	return false;
}

static void check_iommu(struct doctor_report *r)
{
	char cmdline[4096] = "";
	struct dirent *e;
	int units = 0;
	DIR *d = opendir("/sys/class/iommu");

	if (d) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				units++;
		closedir(d);
	}
	hw_sysfs_read("/proc/cmdline", cmdline, sizeof(cmdline));
	if (units == 0)
		doctor_add(r, "kernel", "iommu", DOCTOR_OK, NULL,
			   "no IOMMU active (/sys/class/iommu is empty): peer-to-peer DMA is untranslated");
	else if (cmdline_has(cmdline, "iommu=pt") || cmdline_has(cmdline, "intel_iommu=off") ||
		 cmdline_has(cmdline, "amd_iommu=off"))
		doctor_add(r, "kernel", "iommu", DOCTOR_OK, NULL,
			   "%d IOMMU unit%s, passthrough or off on the kernel command line", units,
			   units == 1 ? "" : "s");
	else
		doctor_add(r, "kernel", "iommu", DOCTOR_WARN,
			   "add iommu=pt (or intel_iommu=off / amd_iommu=off) to the kernel command line and reboot",
			   "%d IOMMU unit%s translating DMA: BAR1 peer-to-peer (the GeForce patches) faults "
			   "unless the IOMMU is off or in passthrough", units, units == 1 ? "" : "s");
}

void doctor_check_kernel(struct doctor_report *r)
{
	check_release(r);
	check_iommu(r);
}
