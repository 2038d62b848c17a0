// SPDX-License-Identifier: GPL-2.0-or-later
/* rm.c: NVIDIA RM ioctls (control, alloc, free), NV_STATUS names, and our own RM client
 * of one GPU for its cumulative PCIe byte counters. Layouts: rm_abi.h and below, after
 * NVIDIA/open-gpu-kernel-modules' SDK headers (ctrl0000gpu.h, cl0080.h, cl2080.h,
 * ctrl2080bus.h) and kernel-open/common/inc/nv-ioctl-numbers.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/hw/pci.h"
#include "lib/hw/rm.h"
#include "lib/hw/rm_abi.h"
#include "lib/rd.h"
#include "lib/util.h"

#define RM_ESC_REGISTER_FD 201			/* NV_IOCTL_BASE + 1: int ctl_fd */
#define RM_MAX_GPUS HW_RM_MAX_GPUS		/* NV_MAX_DEVICES */
#define RM_GPU_INVALID_ID 0xffffffffu
#define RM_0000_GET_ID_INFO_V2 0x205u		/* NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2 */
#define RM_0000_GET_PROBED_IDS 0x214u		/* NV0000_CTRL_CMD_GPU_GET_PROBED_IDS */
#define RM_0000_ATTACH_IDS 0x215u		/* NV0000_CTRL_CMD_GPU_ATTACH_IDS */
#define RM_0000_GET_PCI_INFO 0x21bu		/* NV0000_CTRL_CMD_GPU_GET_PCI_INFO */
#define RM_2080_GET_PEX_UTIL_COUNTERS 0x20801819u
#define RM_PEX_UTIL_TX_BYTES 0x1u		/* pexCounters[0] */
#define RM_PEX_UTIL_RX_BYTES 0x2u		/* pexCounters[1] */
/* Handles we pick for our device and subdevice (a range CUDA's own do not use). */
#define RM_HANDLE_DEVICE 0xbf9c0001u
#define RM_HANDLE_SUBDEVICE 0xbf9c0002u

/* Drivers from 580.65.06 on add gpuFlags[] to the two tables of earlier ones (384 bytes
 * for NV_MAX_DEVICES 32, where 570.133.20 has 256: ctrl/ctrl0000/ctrl0000gpu.h at those
 * tags); RM refuses a parameter size other than its own (NV_ERR_INVALID_PARAM_STRUCT), so
 * the older size is asked for when the newer is refused. */
struct rm_probed_ids {
	uint32_t ids[RM_MAX_GPUS], excluded[RM_MAX_GPUS], flags[RM_MAX_GPUS];
};
#define RM_PROBED_IDS_OLD_SIZE (2 * RM_MAX_GPUS * sizeof(uint32_t))
struct rm_attach_ids {
	uint32_t ids[RM_MAX_GPUS];
	uint32_t failed;
};
struct rm_pci_info {
	uint32_t gpu_id, domain;
	uint16_t bus, slot;
};
struct rm_id_info_v2 {
	uint32_t gpu_id, flags, device_instance, subdevice_instance, sli_status, board_id,
		gpu_instance;
	int32_t numa_id;
};
struct rm_device_alloc {			/* NV0080_ALLOC_PARAMETERS */
	uint32_t device_id, client_share, target_client, target_device, flags, pad;
	uint64_t va_space_size, va_start_internal, va_limit_internal;
	uint32_t va_mode, pad2;
};
struct rm_pex_util_counters {
	uint32_t mask;
	uint32_t counters[7];
};
_Static_assert(sizeof(struct rm_pci_info) == 12, "NV0000_CTRL_GPU_GET_PCI_INFO_PARAMS");
_Static_assert(sizeof(struct rm_id_info_v2) == 32, "NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS");
_Static_assert(sizeof(struct rm_device_alloc) == 56, "NV0080_ALLOC_PARAMETERS");
_Static_assert(sizeof(struct rm_pex_util_counters) == 32, "GET_PEX_UTIL_COUNTERS_PARAMS");

uint32_t hw_rm_control(int fd, uint32_t client, uint32_t object, uint32_t cmd, void *params,
		       uint32_t size, int *err)
{
	struct rm_control c = {
		.client = client, .object = object, .cmd = cmd,
		.params = (uint64_t)(uintptr_t)params, .params_size = size,
	};

	if (ioctl(fd, RM_IOWR(RM_ESC_CONTROL, struct rm_control), &c) < 0) {
		*err = errno;
		return RM_STATUS_NOT_REACHED;
	}
	return c.status;
}

uint32_t hw_rm_alloc(int fd, uint32_t client, uint32_t parent, uint32_t *object, uint32_t cls,
		     void *params, uint32_t size, int *err)
{
	struct rm_alloc a = {
		.client = client, .parent = parent, .object = *object, .cls = cls,
		.params = (uint64_t)(uintptr_t)params, .params_size = size,
	};

	if (ioctl(fd, RM_IOWR(RM_ESC_ALLOC, struct rm_alloc), &a) < 0) {
		*err = errno;
		return RM_STATUS_NOT_REACHED;
	}
	*object = a.object;
	return a.status;
}

uint32_t hw_rm_free(int fd, uint32_t client, uint32_t parent, uint32_t object)
{
	struct rm_free f = { .client = client, .parent = parent, .object = object };

	if (ioctl(fd, RM_IOWR(RM_ESC_FREE, struct rm_free), &f) < 0)
		return RM_STATUS_NOT_REACHED;
	return f.status;
}

const char *hw_rm_status_name(uint32_t status)
{
	static const struct {
		uint32_t code;
		const char *name;
	} names[] = {
		{ 0x00, "NV_OK" },
		{ 0x19, "NV_ERR_INSERT_DUPLICATE_NAME" },
		{ 0x1a, "NV_ERR_INSUFFICIENT_RESOURCES" },
		{ 0x1b, "NV_ERR_INSUFFICIENT_PERMISSIONS" },
		{ 0x1e, "NV_ERR_INVALID_ADDRESS" },
		{ 0x1f, "NV_ERR_INVALID_ARGUMENT" },
		{ 0x22, "NV_ERR_INVALID_CLASS" },
		{ 0x23, "NV_ERR_INVALID_CLIENT" },
		{ 0x24, "NV_ERR_INVALID_COMMAND" },
		{ 0x2e, "NV_ERR_INVALID_LIMIT" },
		{ 0x33, "NV_ERR_INVALID_OBJECT_HANDLE" },
		{ 0x36, "NV_ERR_INVALID_OBJECT_PARENT" },
		{ 0x37, "NV_ERR_INVALID_OFFSET" },
		{ 0x3a, "NV_ERR_INVALID_PARAM_STRUCT" },
		{ 0x40, "NV_ERR_INVALID_STATE" },
		{ 0x51, "NV_ERR_NO_MEMORY" },
		{ 0x55, "NV_ERR_NOT_READY" },
		{ 0x56, "NV_ERR_NOT_SUPPORTED" },
		{ 0x57, "NV_ERR_OBJECT_NOT_FOUND" },
		{ 0x59, "NV_ERR_OPERATING_SYSTEM" },
		{ 0x63, "NV_ERR_STATE_IN_USE" },
		{ RM_STATUS_NOT_REACHED, "not reached" },
	};
	static __thread char buf[48];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].code == status)
			return names[i].name;
	snprintf(buf, sizeof(buf), "NV_STATUS 0x%x", status);
	return buf;
}

int hw_rm_parse_minor(const char *text)
{
	const char *p = strstr(text, "Device Minor:");
	char *end;
	long v;

	if (!p)
		return -1;
	p += strlen("Device Minor:");
	v = strtol(p, &end, 10);
	if (end == p || v < 0 || v > 255)
		return -1;
	return (int)v;
}

/* ---- replies: the parameter structs as RM left them, read as outside bytes ---- */

int hw_rm_parse_probed_ids(const void *p, size_t len, uint32_t *ids, size_t *n)
{
	struct rd r = rd_init(p, len);
	size_t i;

	*n = 0;
	if (len < RM_PROBED_IDS_OLD_SIZE)
		return -EBADMSG;
	for (i = 0; i < RM_MAX_GPUS; i++) {
		uint32_t id = rd_h32(&r);

		if (!rd_ok(&r))
			return -EBADMSG;
		if (id == RM_GPU_INVALID_ID)
			break;
		ids[(*n)++] = id;
	}
	return 0;
}

int hw_rm_parse_pci_info(const void *p, size_t len, struct hw_rm_pci_info *pci)
{
	struct rd r = rd_init(p, len);

	memset(pci, 0, sizeof(*pci));
	if (len < sizeof(struct rm_pci_info))
		return -EBADMSG;
	rd_skip(&r, offsetof(struct rm_pci_info, domain));
	pci->domain = rd_h32(&r);
	pci->bus = rd_h16(&r);
	pci->slot = rd_h16(&r);
	return rd_ok(&r) ? 0 : -EBADMSG;
}

int hw_rm_parse_id_info(const void *p, size_t len, uint32_t *inst)
{
	struct rd r = rd_init(p, len);

	*inst = RM_GPU_INVALID_ID;
	if (len < sizeof(struct rm_id_info_v2))
		return -EBADMSG;
	rd_skip(&r, offsetof(struct rm_id_info_v2, device_instance));
	*inst = rd_h32(&r);
	return rd_ok(&r) && *inst < RM_MAX_GPUS ? 0 : -EBADMSG;
}

int hw_rm_parse_pex_bytes(const void *p, size_t len, uint32_t *tx, uint32_t *rx)
{
	struct rd r = rd_init(p, len);

	*tx = *rx = 0;
	if (len < sizeof(struct rm_pex_util_counters))
		return -EBADMSG;
	/* pexCounters[i] answers mask bit i: TX bytes bit 0, RX bytes bit 1 */
	rd_skip(&r, offsetof(struct rm_pex_util_counters, counters));
	*tx = rd_h32(&r);
	*rx = rd_h32(&r);
	return rd_ok(&r) ? 0 : -EBADMSG;
}

/* "what: status" into why; the status as -errno. */
static int step_failed(char *why, size_t whylen, const char *what, uint32_t st, int err)
{
	if (st == RM_STATUS_NOT_REACHED) {
		snprintf(why, whylen, "RM %s: %s", what, strerror(err));
		return -err;
	}
	snprintf(why, whylen, "RM %s: %s", what, hw_rm_status_name(st));
	return -EIO;
}

/* RM's id of the GPU at domain:bus:slot, or RM_GPU_INVALID_ID. */
static uint32_t find_gpu(struct hw_rm_gpu *g, unsigned dom, unsigned bus, unsigned slot,
			 uint32_t *st, int *err)
{
	struct rm_probed_ids reply;
	uint32_t ids[RM_MAX_GPUS];
	size_t i, n = 0, size = sizeof(reply);

	memset(&reply, 0, sizeof(reply));
	*st = hw_rm_control(g->ctl, g->client, g->client, RM_0000_GET_PROBED_IDS, &reply,
			    size, err);
	if (*st == RM_ERR_INVALID_PARAM_STRUCT) {
		size = RM_PROBED_IDS_OLD_SIZE;
		memset(&reply, 0, sizeof(reply));
		*st = hw_rm_control(g->ctl, g->client, g->client, RM_0000_GET_PROBED_IDS,
				    &reply, size, err);
	}
	if (*st == RM_OK)
		hw_rm_parse_probed_ids(&reply, size, ids, &n);
	for (i = 0; i < n; i++) {
		struct rm_pci_info pi = { .gpu_id = ids[i] };
		struct hw_rm_pci_info pci;

		if (hw_rm_control(g->ctl, g->client, g->client, RM_0000_GET_PCI_INFO, &pi,
				  sizeof(pi), err) == RM_OK &&
		    !hw_rm_parse_pci_info(&pi, sizeof(pi), &pci) &&
		    pci.domain == dom && pci.bus == bus && pci.slot == slot)
			return ids[i];
	}
	return RM_GPU_INVALID_ID;
}

/* Opens /dev/nvidiaN of the GPU and registers it with our control fd, as RM wants
 * before it gives a client the GPU's device object.
 */
static int open_dev_node(struct hw_rm_gpu *g, const char *bdf, char *why, size_t whylen)
{
	char path[96], text[4096], node[32];
	int minor, ctl = g->ctl;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", bdf);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	minor = hw_rm_parse_minor(text);
	if (minor < 0) {
		snprintf(why, whylen, "%s: no 'Device Minor' line", path);
		return -EBADMSG;
	}
	snprintf(node, sizeof(node), "/dev/nvidia%d", minor);
	g->dev_fd = open(node, O_RDWR | O_CLOEXEC);
	if (g->dev_fd < 0) {
		snprintf(why, whylen, "%s: %s", node, strerror(errno));
		return -errno;
	}
	if (ioctl(g->dev_fd, _IOC(_IOC_READ | _IOC_WRITE, RM_IOCTL_MAGIC, RM_ESC_REGISTER_FD,
				  sizeof(int)), &ctl) < 0) {
		snprintf(why, whylen, "%s: registering the control fd: %s", node, strerror(errno));
		return -errno;
	}
	return 0;
}

int hw_rm_gpu_open(struct hw_rm_gpu *g, const char *bdf, char *why, size_t whylen)
{
	struct rm_attach_ids att;
	struct rm_id_info_v2 info;
	struct rm_device_alloc da;
	unsigned dom, bus, slot, fn;
	uint32_t st, gpu, inst, sub_params = 0;
	int err = 0, rc;
	size_t i;

	memset(g, 0, sizeof(*g));
	g->ctl = g->dev_fd = -1;
	if (hw_pci_parse_bdf(bdf, &dom, &bus, &slot, &fn)) {
		snprintf(why, whylen, "'%s' is not a PCI address", bdf);
		return -EINVAL;
	}
	g->ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
	if (g->ctl < 0) {
		snprintf(why, whylen, "/dev/nvidiactl: %s", strerror(errno));
		return -errno;
	}
	st = hw_rm_alloc(g->ctl, 0, 0, &g->client, RM_CLASS_ROOT_CLIENT, NULL, 0, &err);
	if (st != RM_OK)
		return step_failed(why, whylen, "client", st, err);
	gpu = find_gpu(g, dom, bus, slot, &st, &err);
	if (st != RM_OK)
		return step_failed(why, whylen, "probed GPUs", st, err);
	if (gpu == RM_GPU_INVALID_ID) {
		snprintf(why, whylen, "RM knows no GPU at %s", bdf);
		return -ENODEV;
	}
	for (i = 0; i < RM_MAX_GPUS; i++)
		att.ids[i] = RM_GPU_INVALID_ID;
	att.ids[0] = gpu;
	att.failed = 0;
	st = hw_rm_control(g->ctl, g->client, g->client, RM_0000_ATTACH_IDS, &att, sizeof(att), &err);
	if (st != RM_OK)
		return step_failed(why, whylen, "attach", st, err);
	memset(&info, 0, sizeof(info));
	info.gpu_id = gpu;
	st = hw_rm_control(g->ctl, g->client, g->client, RM_0000_GET_ID_INFO_V2, &info,
			   sizeof(info), &err);
	if (st != RM_OK)
		return step_failed(why, whylen, "GPU id info", st, err);
	if (hw_rm_parse_id_info(&info, sizeof(info), &inst)) {
		snprintf(why, whylen, "RM GPU id info: device instance %#x for %s, beyond the %d "
			 "devices RM has (is the GPU attached? nvidia-smi -q -i %s)", inst, bdf,
			 RM_MAX_GPUS, bdf);
		return -EIO;
	}
	rc = open_dev_node(g, bdf, why, whylen);
	if (rc)
		return rc;
	memset(&da, 0, sizeof(da));
	da.device_id = inst;
	da.client_share = g->client;
	g->device = RM_HANDLE_DEVICE;
	st = hw_rm_alloc(g->ctl, g->client, g->client, &g->device, RM_CLASS_DEVICE, &da,
			 sizeof(da), &err);
	if (st != RM_OK)
		return step_failed(why, whylen, "device", st, err);
	g->subdevice = RM_HANDLE_SUBDEVICE;
	st = hw_rm_alloc(g->ctl, g->client, g->device, &g->subdevice, RM_CLASS_SUBDEVICE,
			 &sub_params, sizeof(sub_params), &err);
	if (st != RM_OK)
		return step_failed(why, whylen, "subdevice", st, err);
	return 0;
}

uint32_t hw_rm_gpu_pcie_bytes(struct hw_rm_gpu *g, uint32_t *tx, uint32_t *rx, int *err)
{
	struct rm_pex_util_counters c;
	uint32_t st;

	memset(&c, 0, sizeof(c));
	c.mask = RM_PEX_UTIL_TX_BYTES | RM_PEX_UTIL_RX_BYTES;
	st = hw_rm_control(g->ctl, g->client, g->subdevice, RM_2080_GET_PEX_UTIL_COUNTERS, &c,
			   sizeof(c), err);
	if (st == RM_OK)
		hw_rm_parse_pex_bytes(&c, sizeof(c), tx, rx); /* the struct's size: cannot fail */
	return st;
}

void hw_rm_gpu_close(struct hw_rm_gpu *g)
{
	/* Closing the control fd frees the client and every object under it. */
	if (g->dev_fd >= 0)
		close(g->dev_fd);
	if (g->ctl >= 0)
		close(g->ctl);
	g->dev_fd = g->ctl = -1;
}
