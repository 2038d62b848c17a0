// SPDX-License-Identifier: GPL-2.0-or-later
/* src_nvml.c: GPU PCIe bytes, throughput, replay counter and link generation/width from
 * NVML (lib/hw/nvml: loaded with dlopen, so one binary runs with or without a GPU).
 *
 * A reader thread does the driver calls on its own cadence and sleeps in between; a sample
 * takes its latest reading. The cadence is 10 ms (or the sampling interval when longer)
 * unless a read costs more CPU than SRC_NVML_READ_BUDGET allows at that pace: then the
 * reader reads less often, up to the counters' wrap-safe bound (src_nvml_cadence_max).
 * A cadence the user gives (--gpu-interval) is kept as it is. PCIe bytes come from the GPU's cumulative
 * counters, read in the cheapest way that works, in this order:
 *   rm          our own RM client (lib/hw/rm): TX and RX in one control call;
 *   fields      NVML's fields 197/198 (nvmlDeviceGetFieldValues): the same counters, but
 *               one driver round trip per field, so twice the CPU (the driver spins on
 *               each round trip: ~0.13 ms back to back, ~0.3-0.4 ms after a pause, H100);
 *   throughput  nvmlDeviceGetPcieThroughput (KB/s over a ~20 ms window; no byte totals).
 * The counters are 32 bits wide and wrap every ~4 GiB, so the thread sums deltas modulo
 * the counter's width into 64-bit totals (exact bytes between any two readings, as long
 * as they are less than one wrap apart: 68 ms at a gen 5 x16 link's 63 GB/s; a reading
 * that comes later than that, the host having stalled the reader, starts a new epoch: no
 * delta is taken across it). PFCLAB_GPU_PCIE=rm|fields|
 * throughput picks one (PFCLAB_NVML_FIELDS=0, older, means throughput). Link facts and
 * the replay counter change slowly and are read once a second.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/hw/gpu.h"
#include "lib/hw/nvml.h"
#include "lib/hw/rm.h"
#include "lib/util.h"
#include "monitor/sources/sources.h"

/* NVML field ids of the cumulative PCIe byte counters (nvml.h). */
#define NVML_FI_DEV_PCIE_COUNT_TX_BYTES 197
#define NVML_FI_DEV_PCIE_COUNT_RX_BYTES 198
/* NVML reports PCIe throughput in KB/s; nvidia-smi dmon divides by 1000 for MB/s. */
#define NVML_KB 1000ULL
#define SLOW_PERIOD_NS 1000000000ULL

/* Column order is stable: the byte totals were added after the first five. */
enum { F_RX, F_TX, F_REPLAY, F_GEN, F_WIDTH, F_RX_BYTES, F_TX_BYTES, F_N };

/* One cumulative counter as the thread tracks it. */
struct nvml_ctr {
	uint64_t last_raw, total;
	int value_type;
	bool have;
};

struct nvml_priv {
	const struct hw_nvml *api;
	hw_nvml_dev dev;
	pthread_t thr;
	bool thr_started;
	uint64_t first_read_ns;	/* the reading made before the thread starts */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	enum { PCIE_RM, PCIE_FIELDS, PCIE_THROUGHPUT } mode;
	struct hw_rm_gpu rm;
	bool rm_open;
	uint64_t cadence_ns;	/* now; the reader's own (adapted when adaptive) */
	uint64_t base_ns;	/* the default or the user's */
	bool adaptive;
	uint64_t read_cost_ns;	/* running mean of the CPU one PCIe read costs */
	uint64_t v[F_N];
	bool ok[F_N];
	uint64_t readings;
	uint64_t cpu_ns;	/* the reader thread's CPU time so far */
	struct nvml_ctr rx, tx;
	int64_t last_ts_us;
	uint64_t last_read_ns;
	uint64_t late;		/* readings too far apart to take a delta across */
	uint64_t late_seen;	/* the sampling side's copy: a change bumps the epoch */
};

uint64_t src_nvml_counter_delta(int value_type, uint64_t prev, uint64_t cur)
{
	switch (value_type) {
	case SRC_NVML_VT_UINT:
	case SRC_NVML_VT_INT:
		return (uint32_t)((uint32_t)cur - (uint32_t)prev);
	case SRC_NVML_VT_USHORT:
		return (uint16_t)((uint16_t)cur - (uint16_t)prev);
	default:
		/* 64-bit: a counter going back was reset, not wrapped. */
		return cur >= prev ? cur - prev : 0;
	}
}

int src_nvml_field_raw(int value_type, const void *value8, uint64_t *out)
{
	uint64_t u64;
	uint32_t u32;
	uint16_t u16;

	switch (value_type) {
	case SRC_NVML_VT_UINT:
	case SRC_NVML_VT_INT:
		memcpy(&u32, value8, sizeof(u32));
		*out = u32;
		return 0;
	case SRC_NVML_VT_ULONG:
	case SRC_NVML_VT_ULONGLONG:
	case SRC_NVML_VT_LONGLONG:
		memcpy(&u64, value8, sizeof(u64));
		*out = u64;
		return 0;
	case SRC_NVML_VT_USHORT:
		memcpy(&u16, value8, sizeof(u16));
		*out = u16;
		return 0;
	default:
		return -EINVAL;	/* a double is no byte counter */
	}
}

/* PCIe per-lane rates in bytes per second by generation (the raw signalling rate less
 * the line code: 8b/10b up to gen 2, 128b/130b from gen 3; gen 6 and 7 taken at their
 * full raw rate, which errs on the short side).
 */
static const double lane_Bps[] = { 0, 250e6, 500e6, 984.6e6, 1969e6, 3938e6, 8e9, 16e9 };

uint64_t src_nvml_wrap_ns(int value_type, unsigned gen)
{
	if (value_type != SRC_NVML_VT_UINT && value_type != SRC_NVML_VT_INT &&
	    value_type != SRC_NVML_VT_USHORT)
		return 0;
	if (gen < 5)
		gen = 5;
	if (gen >= sizeof(lane_Bps) / sizeof(lane_Bps[0]))
		gen = sizeof(lane_Bps) / sizeof(lane_Bps[0]) - 1;
	return (uint64_t)((value_type == SRC_NVML_VT_USHORT ? 65536.0 : 4294967296.0) /
			  (lane_Bps[gen] * 16) * 1e9);
}

bool src_nvml_read_late(int value_type, unsigned gen, uint64_t gap_ns)
{
	uint64_t wrap = src_nvml_wrap_ns(value_type, gen);

	return wrap && gap_ns >= wrap;
}

uint64_t src_nvml_cadence_max(int value_type, unsigned gen)
{
	const uint64_t cap = 50000000ULL;
	uint64_t ns = src_nvml_wrap_ns(value_type, gen) / 4 * 3;

	return ns && ns < cap ? ns : cap;
}

uint64_t src_nvml_cadence_adapt(uint64_t cost_ns, uint64_t base_ns, uint64_t max_ns)
{
	uint64_t want = (uint64_t)((double)cost_ns / SRC_NVML_READ_BUDGET);

	if (max_ns < base_ns)
		max_ns = base_ns;
	if (want < base_ns)
		return base_ns;
	return want < max_ns ? want : max_ns;
}

/* The link generation last read (0: not known yet), for the wrap bounds. */
static unsigned link_gen(const struct nvml_priv *p)
{
	return p->ok[F_GEN] ? (unsigned)p->v[F_GEN] : 0;
}

static uint64_t thread_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Read fields 197/198 once. 0 with both values, or the NVML status that stopped it. */
static hw_nvml_ret read_fields(const struct hw_nvml *a, hw_nvml_dev dev, struct hw_nvml_field_value fv[2])
{
	hw_nvml_ret rc;
	int i;

	memset(fv, 0, 2 * sizeof(*fv));
	fv[0].field_id = NVML_FI_DEV_PCIE_COUNT_RX_BYTES;
	fv[1].field_id = NVML_FI_DEV_PCIE_COUNT_TX_BYTES;
	rc = a->field_values(dev, 2, fv);
	if (rc != HW_NVML_OK)
		return rc;
	for (i = 0; i < 2; i++) {
		uint64_t raw;

		if (fv[i].ret != HW_NVML_OK)
			return fv[i].ret;
		if (src_nvml_field_raw(fv[i].value_type, &fv[i].value, &raw))
			return -1;
	}
	return HW_NVML_OK;
}

/* The two counters, RX then TX, in fv (value type and value; NVML also stamps them). */
static hw_nvml_ret read_pcie(struct nvml_priv *p, struct hw_nvml_field_value fv[2])
{
	uint32_t tx = 0, rx = 0;
	int err = 0;

	if (p->mode != PCIE_RM)
		return read_fields(p->api, p->dev, fv);
	memset(fv, 0, 2 * sizeof(*fv));
	if (hw_rm_gpu_pcie_bytes(&p->rm, &tx, &rx, &err) != RM_OK)
		return -1;
	fv[0].value_type = fv[1].value_type = SRC_NVML_VT_UINT;
	fv[0].value.ui = rx;
	fv[1].value.ui = tx;
	return HW_NVML_OK;
}

static void ctr_update(struct nvml_ctr *c, const struct hw_nvml_field_value *fv, uint64_t *delta)
{
	uint64_t raw = 0;

	src_nvml_field_raw(fv->value_type, &fv->value, &raw);
	*delta = 0;
	if (c->have && c->value_type == fv->value_type)
		*delta = src_nvml_counter_delta(fv->value_type, c->last_raw, raw);
	c->total += *delta;
	c->last_raw = raw;
	c->value_type = fv->value_type;
	c->have = true;
}

/* One cumulative reading: totals and the rate over the time since the previous one. */
static void tick_fields(struct nvml_priv *p)
{
	struct hw_nvml_field_value fv[2];
	hw_nvml_ret rc = read_pcie(p, fv);
	uint64_t now = time_mono_ns(), drx, dtx, dt_ns;
	bool had = p->rx.have;

	pthread_mutex_lock(&p->lock);
	if (rc != HW_NVML_OK) {
		p->ok[F_RX] = p->ok[F_TX] = false;
		pthread_mutex_unlock(&p->lock);
		return;
	}
	/* Further apart than one wrap at the link's full rate (the host stalled the reader):
	 * a wrap may hide in the deltas, so no rate now and no delta across (a new epoch). */
	if (had && src_nvml_read_late(fv[0].value_type, link_gen(p), now - p->last_read_ns)) {
		p->late++;
		had = false;
		p->ok[F_RX] = p->ok[F_TX] = false;
	}
	ctr_update(&p->rx, &fv[0], &drx);
	ctr_update(&p->tx, &fv[1], &dtx);
	/* NVML stamps each value (us); fall back to our clock if the stamps do not move. */
	dt_ns = fv[0].timestamp_us > p->last_ts_us ?
		(uint64_t)(fv[0].timestamp_us - p->last_ts_us) * 1000ULL : now - p->last_read_ns;
	p->v[F_RX_BYTES] = p->rx.total;
	p->v[F_TX_BYTES] = p->tx.total;
	p->ok[F_RX_BYTES] = p->ok[F_TX_BYTES] = true;
	if (had && dt_ns) {
		p->v[F_RX] = (uint64_t)((double)drx * 1e9 / (double)dt_ns);
		p->v[F_TX] = (uint64_t)((double)dtx * 1e9 / (double)dt_ns);
		p->ok[F_RX] = p->ok[F_TX] = true;
	}
	p->last_ts_us = fv[0].timestamp_us;
	p->last_read_ns = now;
	p->readings++;
	pthread_mutex_unlock(&p->lock);
}

static void tick_throughput(struct nvml_priv *p)
{
	const struct hw_nvml *a = p->api;
	unsigned rx = 0, tx = 0;
	hw_nvml_ret rrx = -1, rtx = -1;

	if (a->pcie_throughput) {
		rrx = a->pcie_throughput(p->dev, HW_NVML_PCIE_UTIL_RX_BYTES, &rx);
		rtx = a->pcie_throughput(p->dev, HW_NVML_PCIE_UTIL_TX_BYTES, &tx);
	}
	pthread_mutex_lock(&p->lock);
	p->v[F_RX] = rx * NVML_KB;
	p->ok[F_RX] = rrx == HW_NVML_OK;
	p->v[F_TX] = tx * NVML_KB;
	p->ok[F_TX] = rtx == HW_NVML_OK;
	p->readings++;
	pthread_mutex_unlock(&p->lock);
}

static void tick_slow(struct nvml_priv *p)
{
	const struct hw_nvml *a = p->api;
	unsigned rep = 0, gen = 0, width = 0;
	hw_nvml_ret rrep = -1, rgen = -1, rwid = -1;

	if (a->pcie_replay)
		rrep = a->pcie_replay(p->dev, &rep);
	if (a->pcie_gen)
		rgen = a->pcie_gen(p->dev, &gen);
	if (a->pcie_width)
		rwid = a->pcie_width(p->dev, &width);
	pthread_mutex_lock(&p->lock);
	p->v[F_REPLAY] = rep;
	p->ok[F_REPLAY] = rrep == HW_NVML_OK;
	p->v[F_GEN] = gen;
	p->ok[F_GEN] = rgen == HW_NVML_OK;
	p->v[F_WIDTH] = width;
	p->ok[F_WIDTH] = rwid == HW_NVML_OK;
	pthread_mutex_unlock(&p->lock);
}

/* One round of the byte counters; with ADAPT, the cadence follows what a read costs. */
static void tick_fast(struct nvml_priv *p, bool adapt)
{
	uint64_t c0, cost;

	if (p->mode == PCIE_THROUGHPUT) {
		tick_throughput(p);
		return;
	}
	c0 = thread_cpu_now();
	tick_fields(p);
	cost = thread_cpu_now() - c0;
	if (adapt && p->adaptive && p->rx.have) {
		p->read_cost_ns = p->read_cost_ns ? (p->read_cost_ns * 7 + cost) / 8 : cost;
		p->cadence_ns = src_nvml_cadence_adapt(p->read_cost_ns, p->base_ns,
			src_nvml_cadence_max(p->rx.value_type, link_gen(p)));
	}
}

/* The first round was read in nvml_init: each pass sleeps to the next round first. */
static void *reader(void *arg)
{
	struct nvml_priv *p = arg;
	uint64_t next = p->first_read_ns, last_slow = p->first_read_ns;

	for (;;) {
		struct timespec ts;
		uint64_t now;
		bool stop;

		/* Fixed cadence; after a late round, start again from now (no catch-up burst). */
		next += p->cadence_ns;
		now = time_mono_ns();
		if (next <= now)
			next = now + p->cadence_ns;
		ts = ns_timespec(next);
		pthread_mutex_lock(&p->lock);
		p->cpu_ns = thread_cpu_now();
		while (!p->stop && pthread_cond_timedwait(&p->wake, &p->lock, &ts) != ETIMEDOUT)
			;
		stop = p->stop;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
		tick_fast(p, true);
		now = time_mono_ns();
		if (now - last_slow >= SLOW_PERIOD_NS) {
			tick_slow(p);
			last_slow = now;
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
			pthread_cond_signal(&p->wake);
			pthread_mutex_unlock(&p->lock);
			pthread_join(p->thr, NULL);
		}
		if (p->rm_open)
			hw_rm_gpu_close(&p->rm);
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->lock);
		/* NVML stays loaded and initialised for the process (lib/hw/nvml). */
		free(p);
	}
	s->priv = NULL;
	src_fields_free(s);
}

/* The GPU's PCI address as NVML gives it ("0000:17:00.0"): 0, or -1 where it gives none. */
static int nvml_bdf(const struct nvml_priv *p, char *bdf, size_t len)
{
	struct hw_nvml_pci pci;

	if (!p->api->pci_info || p->api->pci_info(p->dev, &pci) != HW_NVML_OK)
		return -1;
	snprintf(bdf, len, "%04x:%02x:%02x.0", pci.domain & 0xffff, pci.bus & 0xff,
		 pci.device & 0x1f);
	return 0;
}

/* Our RM client for this GPU, checked with one reading: 0, or -errno with why. */
static int try_rm(struct nvml_priv *p, char *why, size_t whylen)
{
	uint32_t tx, rx, st;
	char bdf[HW_RM_BDF_LEN];
	int rc, err = 0;

	if (nvml_bdf(p, bdf, sizeof(bdf))) {
		snprintf(why, whylen, "no PCI address from NVML");
		return -EOPNOTSUPP;
	}
	rc = hw_rm_gpu_open(&p->rm, bdf, why, whylen);
	p->rm_open = true;
	if (rc)
		return rc;
	st = hw_rm_gpu_pcie_bytes(&p->rm, &tx, &rx, &err);
	if (st != RM_OK) {
		snprintf(why, whylen, "RM bus counters: %s",
			 st == RM_STATUS_NOT_REACHED ? strerror(err) : hw_rm_status_name(st));
		return -EIO;
	}
	return 0;
}

/* "every 10 ms", or for an adaptive cadence "every 10 ms, up to every 50 ms while one
 * read costs over 0.05 ms of CPU" */
static void cadence_text(const struct nvml_priv *p, int value_type, char *buf, size_t n)
{
	uint64_t max = src_nvml_cadence_max(value_type, 0);

	if (!p->adaptive || max <= p->base_ns)
		snprintf(buf, n, "every %.3g ms", (double)p->base_ns / 1e6);
	else
		snprintf(buf, n, "every %.3g ms, up to every %.3g ms while one read costs over "
			 "%.3g ms of CPU", (double)p->base_ns / 1e6, (double)max / 1e6,
			 (double)p->base_ns * SRC_NVML_READ_BUDGET / 1e6);
}

/* Decide how PCIe bytes are read (see the top of this file); say which, and why not the
 * cheaper ways, in info.
 */
static int pick_mode(struct mon_src *s, struct nvml_priv *p)
{
	const char *want = getenv("PFCLAB_GPU_PCIE"), *legacy = getenv("PFCLAB_NVML_FIELDS");
	struct hw_nvml_field_value fv[2];
	char buf[320], rm_why[120] = "", err[32], every[96];
	hw_nvml_ret rc = -1;

	if (!want && legacy && !strcmp(legacy, "0"))
		want = "throughput";
	if (want && strcmp(want, "rm") && strcmp(want, "fields") && strcmp(want, "throughput")) {
		snprintf(s->err, sizeof(s->err), "PFCLAB_GPU_PCIE='%s': give rm, fields or throughput",
			 want);
		return -EINVAL;
	}
	p->mode = PCIE_THROUGHPUT;
	if (!want || !strcmp(want, "rm")) {
		if (!try_rm(p, rm_why, sizeof(rm_why))) {
			p->mode = PCIE_RM;
			cadence_text(p, SRC_NVML_VT_UINT, every, sizeof(every));
			snprintf(buf, sizeof(buf), "RM bus counters TX+RX in one control call "
				 "(cumulative, 32-bit), read %s", every);
			src_info_add(s, "pcie_bytes", buf);
			return 0;
		}
	} else {
		snprintf(rm_why, sizeof(rm_why), "off, PFCLAB_GPU_PCIE=%s", want);
	}
	if (p->api->field_values && (!want || !strcmp(want, "rm") || !strcmp(want, "fields")))
		rc = read_fields(p->api, p->dev, fv);
	if (rc == HW_NVML_OK) {
		p->mode = PCIE_FIELDS;
		cadence_text(p, fv[0].value_type, every, sizeof(every));
		snprintf(buf, sizeof(buf), "NVML fields 197/198 (cumulative, %d-bit), read %s "
			 "(RM: %s)", fv[0].value_type == SRC_NVML_VT_UINT ? 32 : 64, every, rm_why);
	} else {
		snprintf(buf, sizeof(buf), "NVML throughput KB/s x 1000, ~20 ms window (fields "
			 "197/198: %s; RM: %s)", want && strcmp(want, "fields") && strcmp(want, "rm") ?
			 "off" : !p->api->field_values ? "no nvmlDeviceGetFieldValues" :
			 rc == -1 ? "not an integer" : hw_nvml_strerror(p->api, rc, err, sizeof(err)),
			 rm_why);
	}
	src_info_add(s, "pcie_bytes", buf);
	return 0;
}

static int nvml_init(struct mon_src *s)
{
	struct nvml_priv *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;
	char buf[96], why[200], bdf[HW_BDF_LEN];
	hw_nvml_ret rc;
	int err = 0;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	p->cadence_ns = p->base_ns = s->cadence_ns ? s->cadence_ns : SRC_NVML_CADENCE_NS;
	p->adaptive = !s->cadence_ns || s->cadence_floor;
	p->api = hw_nvml_get(&err, why, sizeof(why));
	if (!p->api) {
		snprintf(s->err, sizeof(s->err), "%s", why);
		return -EOPNOTSUPP;
	}
	/* GPU N of the PCI bus, as the pci source and traffic take it: by its address where
	 * sysfs lists it, so that NVML's own order cannot make it another GPU */
	snprintf(buf, sizeof(buf), "%d", s->index);
	rc = -1;
	if (p->api->by_bus_id && hw_gpu_find(buf, bdf, sizeof(bdf), why, sizeof(why)) >= 0)
		rc = p->api->by_bus_id(bdf, &p->dev);
	if (rc != HW_NVML_OK)
		rc = p->api->by_index((unsigned)s->index, &p->dev);
	if (rc != HW_NVML_OK) {
		snprintf(s->err, sizeof(s->err), "GPU %d: %s (see nvidia-smi -L)", s->index,
			 hw_nvml_strerror(p->api, rc, buf, sizeof(buf)));
		return -ENODEV;
	}
	snprintf(s->driver, sizeof(s->driver), "nvidia");
	if (p->api->name && p->api->name(p->dev, buf, sizeof(buf)) == HW_NVML_OK)
		src_info_add(s, "name", buf);
	if (!nvml_bdf(p, buf, sizeof(buf)))
		src_info_add(s, "pci_address", buf);
	if (p->api->system_driver_version &&
	    p->api->system_driver_version(buf, sizeof(buf)) == HW_NVML_OK)
		src_info_add(s, "driver_version", buf);
	rc = pick_mode(s, p);
	if (rc)
		return rc;
	/* A first round here, before the thread: the monitor's baseline sample, taken as soon
	 * as the sources are open, has the GPU's values too. */
	p->first_read_ns = time_mono_ns();
	tick_fast(p, false);
	tick_slow(p);
	if (pthread_create(&p->thr, NULL, reader, p)) {
		snprintf(s->err, sizeof(s->err), "starting the NVML reader thread");
		return -EAGAIN;
	}
	p->thr_started = true;
	snprintf(buf, sizeof(buf), "pfc-gpu%d", s->index);
	pthread_setname_np(p->thr, buf);	/* for ps -L, top -H: one per GPU */
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
	src_field_set(&s->fields[F_RX_BYTES], "pcie_rx_bytes", MON_COUNTER, 64, "B");
	src_field_set(&s->fields[F_TX_BYTES], "pcie_tx_bytes", MON_COUNTER, 64, "B");
	return 0;
}

static int nvml_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	struct nvml_priv *p = s->priv;
	int i;

	pthread_mutex_lock(&p->lock);
	if (p->late != p->late_seen) {
		p->late_seen = p->late;
		s->epoch++;	/* the byte totals moved by an unknown number of wraps */
	}
	for (i = 0; i < F_N && p->readings; i++) {
		vals[i] = p->v[i];
		valid[i] = p->ok[i];
	}
	pthread_mutex_unlock(&p->lock);
	return 0;
}

/* One of the reader thread's own figures (at OFF in nvml_priv), read under its lock; 0
 * while no thread runs. */
static uint64_t reader_figure(const struct mon_src *s, size_t off)
{
	struct nvml_priv *p = s->priv;
	uint64_t v;

	if (!p || !p->thr_started)
		return 0;
	pthread_mutex_lock(&p->lock);
	memcpy(&v, (const char *)p + off, sizeof(v));
	pthread_mutex_unlock(&p->lock);
	return v;
}

static uint64_t nvml_thread_cpu(const struct mon_src *s)
{
	return reader_figure(s, offsetof(struct nvml_priv, cpu_ns));
}

static uint64_t nvml_thread_reads(const struct mon_src *s)
{
	return reader_figure(s, offsetof(struct nvml_priv, readings));
}

const struct mon_src_ops src_nvml_ops = {
	.name = "nvml",
	.what = "GPU PCIe counters (NVML)",
	.init = nvml_init,
	.discover = nvml_discover,
	.sample = nvml_sample,
	.close = nvml_close,
	.last_error = src_last_error,
	.thread_cpu_ns = nvml_thread_cpu,
	.thread_reads = nvml_thread_reads,
};
