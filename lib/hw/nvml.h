/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nvml.h: NVIDIA's management library (libnvidia-ml.so.1), loaded with dlopen and
 * initialised once per process, so one binary runs on hosts with and without a GPU.
 * The few types and entry points pfclab uses are declared here after NVIDIA's nvml.h
 * (NVML API reference) instead of including it.
 *
 * To use another entry point: add its pointer to struct hw_nvml and one line to the
 * symbol table in nvml.c. Every pointer other than init and by_index may be NULL (an
 * older driver lacks it); callers check before calling.
 */
#ifndef PFCLAB_LIB_HW_NVML_H
#define PFCLAB_LIB_HW_NVML_H

#include <stddef.h>
#include <stdint.h>

typedef int hw_nvml_ret;
typedef struct hw_nvml_dev_st *hw_nvml_dev;

#define HW_NVML_OK 0
#define HW_NVML_PCIE_UTIL_TX_BYTES 0
#define HW_NVML_PCIE_UTIL_RX_BYTES 1

/* nvmlFieldValue_t: fieldId, scopeId, timestamp (us), latencyUsec, valueType, nvmlReturn,
 * and an 8-byte value union.
 */
struct hw_nvml_field_value {
	uint32_t field_id;
	uint32_t scope_id;
	int64_t timestamp_us;
	int64_t latency_us;
	int32_t value_type;
	hw_nvml_ret ret;
	union {
		double d;
		uint32_t ui;
		unsigned long ul;
		unsigned long long ull;
		long long sll;
		int32_t si;
		uint16_t us;
	} value;
};
_Static_assert(sizeof(struct hw_nvml_field_value) == 40, "nvmlFieldValue_t is 40 bytes");

struct hw_nvml_memory {		/* nvmlMemory_t and nvmlBAR1Memory_t share this layout */
	unsigned long long total, free, used;
};

/* nvmlPciInfo_t (nvmlDeviceGetPciInfo_v3). */
struct hw_nvml_pci {
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};
_Static_assert(sizeof(struct hw_nvml_pci) == 68, "nvmlPciInfo_t is 68 bytes");

struct hw_nvml {
	hw_nvml_ret (*init)(void);
	hw_nvml_ret (*shutdown)(void);
	const char *(*error_string)(hw_nvml_ret rc);
	hw_nvml_ret (*system_driver_version)(char *buf, unsigned int len);
	hw_nvml_ret (*by_index)(unsigned int index, hw_nvml_dev *dev);
	hw_nvml_ret (*by_bus_id)(const char *bus_id, hw_nvml_dev *dev);
	hw_nvml_ret (*name)(hw_nvml_dev dev, char *buf, unsigned int len);
	hw_nvml_ret (*pci_info)(hw_nvml_dev dev, struct hw_nvml_pci *pci);
	hw_nvml_ret (*bar1)(hw_nvml_dev dev, struct hw_nvml_memory *m);
	hw_nvml_ret (*memory)(hw_nvml_dev dev, struct hw_nvml_memory *m);
	hw_nvml_ret (*field_values)(hw_nvml_dev dev, int count, struct hw_nvml_field_value *v);
	/* KB/s over a ~20 ms window; blocks for that window. */
	hw_nvml_ret (*pcie_throughput)(hw_nvml_dev dev, int counter, unsigned int *kbps);
	hw_nvml_ret (*pcie_replay)(hw_nvml_dev dev, unsigned int *count);
	hw_nvml_ret (*pcie_gen)(hw_nvml_dev dev, unsigned int *gen);
	hw_nvml_ret (*pcie_width)(hw_nvml_dev dev, unsigned int *width);
};

/* The loaded and initialised library, or NULL with *err (-ENOENT: no libnvidia-ml;
 * -EOPNOTSUPP: too old, lacks nvmlInit_v2/nvmlDeviceGetHandleByIndex_v2; -EIO: nvmlInit
 * failed) and why filled. Tried once; the answer is the same for every later call.
 */
const struct hw_nvml *hw_nvml_get(int *err, char *why, size_t whylen);

/* nvmlErrorString(rc), or "NVML error N" when the library lacks it; buf holds the text
 * in the second case.
 */
const char *hw_nvml_strerror(const struct hw_nvml *n, hw_nvml_ret rc, char *buf, size_t len);

#endif
