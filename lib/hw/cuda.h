/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cuda.h: the few CUDA driver API entry points pfclab uses (GPU memory backends, the
 * doctor), loaded with dlopen("libcuda.so.1") once per process so pfclab builds and runs
 * on hosts without CUDA.
 * The prototypes and constants below follow NVIDIA's cuda.h (CUDA 11.7+ for the dma-buf
 * export); they are declared here on purpose instead of including cuda.h.
 */
#ifndef PFCLAB_LIB_HW_CUDA_H
#define PFCLAB_LIB_HW_CUDA_H

#include <stddef.h>

typedef int cu_result;
typedef int cu_device;
typedef struct cu_ctx_st *cu_context;
typedef unsigned long long cu_deviceptr;

#define CU_SUCCESS 0
#define CU_ERROR_NO_DEVICE 100
#define CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED 116
#define CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED 124
#define CU_POINTER_ATTRIBUTE_SYNC_MEMOPS 6
#define CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD 1
/* The virtual memory management API (CUDA 10.2+; gpuDirectRDMACapable since 11.x). */
#define CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED 110
#define CU_MEM_ALLOCATION_TYPE_PINNED 1
#define CU_MEM_LOCATION_TYPE_DEVICE 1
#define CU_MEM_ACCESS_FLAGS_PROT_READWRITE 3
#define CU_MEM_ALLOC_GRANULARITY_MINIMUM 0

typedef unsigned long long cu_mem_handle;

struct cu_mem_location {
	int type;
	int id;
};

/* CUmemAllocationProp */
struct cu_mem_alloc_prop {
	int type;
	int requested_handle_types;
	struct cu_mem_location location;
	void *win32_handle_meta;
	struct {
		unsigned char compression_type;
		unsigned char gpu_direct_rdma_capable;
		unsigned short usage;
		unsigned char reserved[4];
	} alloc_flags;
};
_Static_assert(sizeof(struct cu_mem_alloc_prop) == 32, "CUmemAllocationProp is 32 bytes");

/* CUmemAccessDesc */
struct cu_mem_access_desc {
	struct cu_mem_location location;
	int flags;
};

struct cuda_api {
	cu_result (*init)(unsigned int flags);
	cu_result (*driver_get_version)(int *v);
	cu_result (*device_get_count)(int *n);
	cu_result (*device_get)(cu_device *d, int ordinal);
	cu_result (*device_get_by_pci_bus_id)(cu_device *d, const char *bus_id);
	cu_result (*device_get_name)(char *name, int len, cu_device d);
	cu_result (*device_get_pci_bus_id)(char *bus_id, int len, cu_device d);
	cu_result (*device_get_attribute)(int *v, int attr, cu_device d);
	cu_result (*primary_ctx_retain)(cu_context *c, cu_device d);
	cu_result (*primary_ctx_release)(cu_device d);
	cu_result (*ctx_set_current)(cu_context c);
	cu_result (*mem_alloc)(cu_deviceptr *p, size_t len);
	cu_result (*mem_free)(cu_deviceptr p);
	cu_result (*memcpy_htod)(cu_deviceptr dst, const void *src, size_t n);
	cu_result (*memcpy_dtoh)(void *dst, cu_deviceptr src, size_t n);
	cu_result (*pointer_set_attribute)(const void *v, int attr, cu_deviceptr p);
	/* NULL when the driver predates CUDA 11.7. */
	cu_result (*mem_get_handle_for_address_range)(void *handle, cu_deviceptr p, size_t len,
						      int type, unsigned long long flags);
	/* The VMM API; NULL when the driver lacks it. */
	cu_result (*mem_get_granularity)(size_t *g, const struct cu_mem_alloc_prop *prop, int opt);
	cu_result (*mem_create)(cu_mem_handle *h, size_t len, const struct cu_mem_alloc_prop *prop,
				unsigned long long flags);
	cu_result (*mem_release)(cu_mem_handle h);
	cu_result (*mem_address_reserve)(cu_deviceptr *p, size_t len, size_t align,
					 cu_deviceptr addr, unsigned long long flags);
	cu_result (*mem_address_free)(cu_deviceptr p, size_t len);
	cu_result (*mem_map)(cu_deviceptr p, size_t len, size_t off, cu_mem_handle h,
			     unsigned long long flags);
	cu_result (*mem_unmap)(cu_deviceptr p, size_t len);
	cu_result (*mem_set_access)(cu_deviceptr p, size_t len,
				    const struct cu_mem_access_desc *desc, size_t count);
	cu_result (*get_error_name)(cu_result r, const char **s);
	cu_result (*get_error_string)(cu_result r, const char **s);
	int driver_version;	/* e.g. 12080 */
};

/* One GPU opened for allocation: its primary context is current on the calling thread. */
struct cuda_gpu {
	const struct cuda_api *api;
	cu_device dev;
	cu_context ctx;
	int ordinal;		/* its index as nvidia-smi -L numbers it (CUDA's where sysfs
				 * lists no NVIDIA GPU) */
	char name[96];
	char bus_id[32];
};

/* Loads libcuda and calls cuInit once. Returns the table, or NULL with why filled
 * (-ENOENT: no libcuda; -ENODEV: no GPU) in *err.
 */
const struct cuda_api *cuda_api_load(int *err, char *why, size_t whylen);

/* Opens GPU `sel`: an index as nvidia-smi -L numbers them (PCI order, hw_gpu_find; CUDA's
 * own order only where sysfs lists no NVIDIA GPU) or a PCI bus id; NULL means 0. -ENODEV
 * when absent. */
int cuda_gpu_open(const char *sel, struct cuda_gpu *g, char *why, size_t whylen);
void cuda_gpu_close(struct cuda_gpu *g);

/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for r, in a static buffer per call site. */
const char *cuda_result_str(const struct cuda_api *api, cu_result r, char *buf, size_t len);

#endif
