// SPDX-License-Identifier: GPL-2.0-or-later
/* src_nvml.c: GPU PCIe rx/tx throughput, replay counter and link generation/width from
 * NVML, loaded with dlopen (one binary runs with or without a GPU). A reader thread does
 * the NVML calls because nvmlDeviceGetPcieThroughput blocks for its ~20 ms window; a
 * sample takes the latest reading.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"
#include "monitor/sources/sources.h"

/* Our own declarations of the few NVML entry points used (nvml.h, NVML API reference). */
typedef int nvml_ret;
typedef struct nvml_dev *nvml_dev;
#define NVML_OK 0
#define NVML_PCIE_UTIL_TX_BYTES 0
#define NVML_PCIE_UTIL_RX_BYTES 1
/* NVML reports PCIe throughput in KB/s; nvidia-smi dmon divides by 1000 for MB/s. */
#define NVML_KB 1000ULL

struct nvml_api {
	void *so;
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	const char *(*error_string)(nvml_ret);
	nvml_ret (*by_index)(unsigned, nvml_dev *);
	nvml_ret (*throughput)(nvml_dev, int, unsigned *);
	nvml_ret (*replay)(nvml_dev, unsigned *);
	nvml_ret (*gen)(nvml_dev, unsigned *);
	nvml_ret (*width)(nvml_dev, unsigned *);
	nvml_ret (*name)(nvml_dev, char *, unsigned);
	nvml_ret (*driver)(char *, unsigned);
};

enum { F_RX, F_TX, F_REPLAY, F_GEN, F_WIDTH, F_N };

struct nvml_priv {
	struct nvml_api api;
	nvml_dev dev;
	pthread_t thr;
	bool thr_started;
	pthread_mutex_t lock;
	bool stop;
	uint64_t v[F_N];
	bool ok[F_N];
	uint64_t readings;
	nvml_ret last_rc;
};

static const char *nv_err(const struct nvml_api *a, nvml_ret rc)
{
	static char buf[32];

	if (a->error_string)
		return a->error_string(rc);
	snprintf(buf, sizeof(buf), "NVML error %d", rc);
	return buf;
}

static int nvml_load(struct mon_src *s, struct nvml_api *a)
{
	a->so = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!a->so) {
		snprintf(s->err, sizeof(s->err), "libnvidia-ml.so.1 not found (no NVIDIA driver "
			 "on this host)");
		return -EOPNOTSUPP;
	}
#define SYM(field, name) (*(void **)&a->field = dlsym(a->so, name))
	SYM(init, "nvmlInit_v2");
	SYM(shutdown, "nvmlShutdown");
	SYM(error_string, "nvmlErrorString");
	SYM(by_index, "nvmlDeviceGetHandleByIndex_v2");
	SYM(throughput, "nvmlDeviceGetPcieThroughput");
	SYM(replay, "nvmlDeviceGetPcieReplayCounter");
	SYM(gen, "nvmlDeviceGetCurrPcieLinkGeneration");
	SYM(width, "nvmlDeviceGetCurrPcieLinkWidth");
	SYM(name, "nvmlDeviceGetName");
	SYM(driver, "nvmlSystemGetDriverVersion");
#undef SYM
	if (!a->init || !a->shutdown || !a->by_index) {
		snprintf(s->err, sizeof(s->err), "libnvidia-ml.so.1 lacks nvmlInit_v2 or "
			 "nvmlDeviceGetHandleByIndex_v2 (driver too old)");
		return -EOPNOTSUPP;
	}
	return 0;
}

static void *reader(void *arg)
{
	struct nvml_priv *p = arg;
	const struct nvml_api *a = &p->api;

	for (;;) {
		unsigned rx = 0, tx = 0, rep = 0, gen = 0, width = 0;
		nvml_ret rrx = -1, rtx = -1, rrep = -1, rgen = -1, rwid = -1;
		bool stop;

		if (a->throughput) {
			rrx = a->throughput(p->dev, NVML_PCIE_UTIL_RX_BYTES, &rx);
			rtx = a->throughput(p->dev, NVML_PCIE_UTIL_TX_BYTES, &tx);
		}
		if (a->replay)
			rrep = a->replay(p->dev, &rep);
		if (a->gen)
			rgen = a->gen(p->dev, &gen);
		if (a->width)
			rwid = a->width(p->dev, &width);
		pthread_mutex_lock(&p->lock);
		p->v[F_RX] = rx * NVML_KB;
		p->ok[F_RX] = rrx == NVML_OK;
		p->v[F_TX] = tx * NVML_KB;
		p->ok[F_TX] = rtx == NVML_OK;
		p->v[F_REPLAY] = rep;
		p->ok[F_REPLAY] = rrep == NVML_OK;
		p->v[F_GEN] = gen;
		p->ok[F_GEN] = rgen == NVML_OK;
		p->v[F_WIDTH] = width;
		p->ok[F_WIDTH] = rwid == NVML_OK;
		p->last_rc = rrx;
		p->readings++;
		stop = p->stop;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
		if (!a->throughput) {
			struct timespec ts = { 0, 20 * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static void nvml_close(struct mon_src *s)
{
	struct nvml_priv *p = s->priv;

	if (p) {
		if (p->thr_started) {
			pthread_mutex_lock(&p->lock);
			p->stop = true;
			pthread_mutex_unlock(&p->lock);
			pthread_join(p->thr, NULL);
		}
		pthread_mutex_destroy(&p->lock);
		if (p->api.so) {
			if (p->dev || p->thr_started)
				p->api.shutdown();
			dlclose(p->api.so);
		}
		free(p);
	}
	s->priv = NULL;
	src_fields_free(s);
}

static int nvml_init(struct mon_src *s)
{
	struct nvml_priv *p = calloc(1, sizeof(*p));
	char buf[96];
	nvml_ret rc;
	int err;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	pthread_mutex_init(&p->lock, NULL);
	err = nvml_load(s, &p->api);
	if (err)
		return err;
	rc = p->api.init();
	if (rc != NVML_OK) {
		snprintf(s->err, sizeof(s->err), "nvmlInit: %s", nv_err(&p->api, rc));
		dlclose(p->api.so);
		p->api.so = NULL;
		return -EOPNOTSUPP;
	}
	rc = p->api.by_index((unsigned)s->index, &p->dev);
	if (rc != NVML_OK) {
		snprintf(s->err, sizeof(s->err), "GPU %d: %s (see nvidia-smi -L)", s->index,
			 nv_err(&p->api, rc));
		p->api.shutdown();
		dlclose(p->api.so);
		p->api.so = NULL;
		return -ENODEV;
	}
	snprintf(s->driver, sizeof(s->driver), "nvidia");
	if (p->api.name && p->api.name(p->dev, buf, sizeof(buf)) == NVML_OK)
		src_info_add(s, "name", buf);
	if (p->api.driver && p->api.driver(buf, sizeof(buf)) == NVML_OK)
		src_info_add(s, "driver_version", buf);
	src_info_add(s, "pcie_throughput", "NVML KB/s x 1000, ~20 ms window");
	if (pthread_create(&p->thr, NULL, reader, p)) {
		snprintf(s->err, sizeof(s->err), "starting the NVML reader thread");
		return -EAGAIN;
	}
	p->thr_started = true;
	return 0;
}

static int nvml_discover(struct mon_src *s)
{
	int rc = src_fields_reserve(s, F_N);

	if (rc)
		return rc;
	src_field_set(&s->fields[F_RX], "pcie_rx_Bps", MON_GAUGE, 64, "B/s");
	src_field_set(&s->fields[F_TX], "pcie_tx_Bps", MON_GAUGE, 64, "B/s");
	src_field_set(&s->fields[F_REPLAY], "pcie_replay", MON_COUNTER, 32, "events");
	src_field_set(&s->fields[F_GEN], "pcie_link_gen", MON_GAUGE, 64, "");
	src_field_set(&s->fields[F_WIDTH], "pcie_link_width", MON_GAUGE, 64, "lanes");
	return 0;
}

static int nvml_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	struct nvml_priv *p = s->priv;
	int i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < F_N && p->readings; i++) {
		vals[i] = p->v[i];
		valid[i] = p->ok[i];
	}
	pthread_mutex_unlock(&p->lock);
	return 0;
}

const struct mon_src_ops src_nvml_ops = {
	.name = "nvml",
	.what = "GPU PCIe counters (NVML)",
	.init = nvml_init,
	.discover = nvml_discover,
	.sample = nvml_sample,
	.close = nvml_close,
	.last_error = src_last_error,
};
