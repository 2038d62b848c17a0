// SPDX-License-Identifier: GPL-2.0-or-later
/* src_nvml.c: GPU PCIe rx/tx throughput, replay counter and link generation/width from
 * NVML (lib/hw/nvml: loaded with dlopen, so one binary runs with or without a GPU). A reader thread does
 * the NVML calls because nvmlDeviceGetPcieThroughput blocks for its ~20 ms window; a
 * sample takes the latest reading.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/hw/nvml.h"
#include "lib/util.h"
#include "monitor/sources/sources.h"

/* NVML reports PCIe throughput in KB/s; nvidia-smi dmon divides by 1000 for MB/s. */
#define NVML_KB 1000ULL

enum { F_RX, F_TX, F_REPLAY, F_GEN, F_WIDTH, F_N };

struct nvml_priv {
	const struct hw_nvml *api;
	hw_nvml_dev dev;
	pthread_t thr;
	bool thr_started;
	pthread_mutex_t lock;
	bool stop;
	uint64_t v[F_N];
	bool ok[F_N];
	uint64_t readings;
	hw_nvml_ret last_rc;
};

static void *reader(void *arg)
{
	struct nvml_priv *p = arg;
	const struct hw_nvml *a = p->api;

	for (;;) {
		unsigned rx = 0, tx = 0, rep = 0, gen = 0, width = 0;
		hw_nvml_ret rrx = -1, rtx = -1, rrep = -1, rgen = -1, rwid = -1;
		bool stop;

		if (a->pcie_throughput) {
			rrx = a->pcie_throughput(p->dev, HW_NVML_PCIE_UTIL_RX_BYTES, &rx);
			rtx = a->pcie_throughput(p->dev, HW_NVML_PCIE_UTIL_TX_BYTES, &tx);
		}
		if (a->pcie_replay)
			rrep = a->pcie_replay(p->dev, &rep);
		if (a->pcie_gen)
			rgen = a->pcie_gen(p->dev, &gen);
		if (a->pcie_width)
			rwid = a->pcie_width(p->dev, &width);
		pthread_mutex_lock(&p->lock);
		p->v[F_RX] = rx * NVML_KB;
		p->ok[F_RX] = rrx == HW_NVML_OK;
		p->v[F_TX] = tx * NVML_KB;
		p->ok[F_TX] = rtx == HW_NVML_OK;
		p->v[F_REPLAY] = rep;
		p->ok[F_REPLAY] = rrep == HW_NVML_OK;
		p->v[F_GEN] = gen;
		p->ok[F_GEN] = rgen == HW_NVML_OK;
		p->v[F_WIDTH] = width;
		p->ok[F_WIDTH] = rwid == HW_NVML_OK;
		p->last_rc = rrx;
		p->readings++;
		stop = p->stop;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
		if (!a->pcie_throughput) {
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
		/* NVML stays loaded and initialised for the process (lib/hw/nvml). */
		pthread_mutex_destroy(&p->lock);
		free(p);
	}
	s->priv = NULL;
	src_fields_free(s);
}

static int nvml_init(struct mon_src *s)
{
	struct nvml_priv *p = calloc(1, sizeof(*p));
	char buf[96], why[200];
	hw_nvml_ret rc;
	int err = 0;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	pthread_mutex_init(&p->lock, NULL);
	p->api = hw_nvml_get(&err, why, sizeof(why));
	if (!p->api) {
		snprintf(s->err, sizeof(s->err), "%s", why);
		return -EOPNOTSUPP;
	}
	rc = p->api->by_index((unsigned)s->index, &p->dev);
	if (rc != HW_NVML_OK) {
		snprintf(s->err, sizeof(s->err), "GPU %d: %s (see nvidia-smi -L)", s->index,
			 hw_nvml_strerror(p->api, rc, buf, sizeof(buf)));
		return -ENODEV;
	}
	snprintf(s->driver, sizeof(s->driver), "nvidia");
	if (p->api->name && p->api->name(p->dev, buf, sizeof(buf)) == HW_NVML_OK)
		src_info_add(s, "name", buf);
	if (p->api->system_driver_version &&
	    p->api->system_driver_version(buf, sizeof(buf)) == HW_NVML_OK)
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
