// SPDX-License-Identifier: GPL-2.0-or-later
/* model.c: the screen model of "pfclab top": which rows exist, what each cell shows
 * (rates, totals since the baseline, paused share, PCIe link share), history for the
 * sparklines, host staleness, and the pairing check between peer hosts.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "monitor/top/model.h"

struct top_hist {
	char name[MON_NAME_MAX];
	float v[TOP_HIST];	/* oldest first; NaN where no rate was known */
	bool seen;		/* updated by the latest sample */
	/* A counter that went back (re-created, reset, a 32-bit one wrapped): what it had
	 * counted since the baseline before, kept in the total.
	 */
	uint64_t last_raw;	/* its reading at the last sample taken */
	bool last_ok;
	uint64_t carry;		/* counted before it went back */
	bool restarted;		/* counts from 0 since: the baseline no longer applies */
};

/* ---- snapshots ---------------------------------------------------------------- */

int top_snap_reserve(struct top_snap *s, size_t n)
{
	struct top_metric *m;

	if (n <= s->cap)
		return 0;
	m = realloc(s->m, n * sizeof(*m));
	if (!m)
		return -ENOMEM;
	s->m = m;
	s->cap = n;
	return 0;
}

const struct top_metric *top_snap_get(const struct top_snap *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->m[i].name, name))
			return &s->m[i];
	return NULL;
}

struct top_metric *top_snap_put(struct top_snap *s, const char *name, const char *unit,
				uint8_t flags, uint64_t raw, double rate)
{
	struct top_metric *m = (struct top_metric *)top_snap_get(s, name);

	if (m && (m->flags & TOP_M_VALID) && !(flags & TOP_M_VALID))
		return m;	/* keep the valid reading of a metric reported twice */
	if (!m) {
		if (s->n == s->cap && top_snap_reserve(s, s->cap ? s->cap * 2 : 64))
			return NULL;
		m = &s->m[s->n++];
		snprintf(m->name, sizeof(m->name), "%s", name);
	}
	snprintf(m->unit, sizeof(m->unit), "%s", unit ? unit : "");
	m->flags = flags;
	m->raw = raw;
	m->rate = rate;
	return m;
}

int top_snap_copy(struct top_snap *dst, const struct top_snap *src)
{
	struct top_metric *keep = dst->m;
	size_t cap = dst->cap;

	if (src->n > cap) {
		keep = realloc(dst->m, src->n * sizeof(*keep));
		if (!keep)
			return -ENOMEM;
		cap = src->n;
	}
	*dst = *src;
	dst->m = keep;
	dst->cap = cap;
	if (src->n)
		memcpy(dst->m, src->m, src->n * sizeof(*keep));
	return 0;
}

void top_snap_free(struct top_snap *s)
{
	free(s->m);
	memset(s, 0, sizeof(*s));
}

/* ---- hosts, history, baseline --------------------------------------------------- */

void top_model_init(struct top_model *m)
{
	memset(m, 0, sizeof(*m));
	m->tolerance = 0.10;
	m->tol_abs = 1.0;
}

int top_model_add_host(struct top_model *m, const char *name)
{
	struct top_host *h;

	if (m->nhost >= TOP_MAX_HOSTS)
		return -ENOSPC;
	h = &m->host[m->nhost];
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	return (int)m->nhost++;
}

static struct top_hist *hist_get(struct top_host *h, const char *name, bool add)
{
	struct top_hist *p;
	size_t i;

	for (i = 0; i < h->nhist; i++)
		if (!strcmp(h->hist[i].name, name))
			return &h->hist[i];
	if (!add)
		return NULL;
	if (h->nhist == h->caphist) {
		size_t ncap = h->caphist ? h->caphist * 2 : 64;

		p = realloc(h->hist, ncap * sizeof(*p));
		if (!p)
			return NULL;
		h->hist = p;
		h->caphist = ncap;
	}
	p = &h->hist[h->nhist++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->seen = false;
	p->last_ok = p->restarted = false;
	p->last_raw = p->carry = 0;
	for (i = 0; i < TOP_HIST; i++)
		p->v[i] = NAN;
	return p;
}

static const struct top_hist *hist_find(const struct top_host *h, const char *name)
{
	return hist_get((struct top_host *)h, name, false);
}

/* Counter x at a new sample (next: the one right after the last taken). Read lower than
 * at the last sample, it went back: a 32-bit counter that wrapped (the source still gave a
 * rate for the step, which only it can tell, and the step was one sample) adds 2^32; else
 * it was reset or its device re-created and counts from 0: what it counted since the
 * baseline is kept, and the total goes on from there.
 */
static void counter_step(const struct top_host *h, struct top_hist *p,
			 const struct top_metric *x, bool next)
{
	if (p->last_ok && x->raw < p->last_raw) {
		const struct top_metric *b = h->have_base ? top_snap_get(&h->base, x->name) : NULL;

		if (next && (x->flags & TOP_M_RATE) && p->last_raw <= UINT32_MAX) {
			p->carry += 1ULL << 32;
		} else {
			uint64_t from = !p->restarted && b && (b->flags & TOP_M_VALID) &&
						b->raw <= p->last_raw ? b->raw : 0;

			p->carry += p->last_raw - from;
			p->restarted = true;
		}
	}
	p->last_raw = x->raw;
	p->last_ok = true;
}

static void counters_rebase(struct top_host *h)
{
	size_t i;

	for (i = 0; i < h->nhist; i++) {
		h->hist[i].carry = 0;
		h->hist[i].restarted = false;
	}
}

int top_model_update(struct top_model *m, size_t hi, const struct top_snap *s)
{
	struct top_host *h = &m->host[hi];
	uint64_t prev_seq;
	bool fresh;
	size_t i;
	int rc;

	if (m->frozen || hi >= m->nhost)
		return 0;
	fresh = s->seq && s->seq != h->last_seq;
	rc = top_snap_copy(&h->snap, s);
	if (rc)
		return rc;
	if (!fresh)
		return 0;
	prev_seq = h->last_seq;
	h->last_seq = s->seq;
	if (!h->have_base) {
		/* Totals count from the first sample seen; 'z' moves the baseline. */
		rc = top_snap_copy(&h->base, s);
		if (rc)
			return rc;
		h->have_base = true;
	}
	for (i = 0; i < h->nhist; i++)
		h->hist[i].seen = false;
	for (i = 0; i < s->n; i++) {
		const struct top_metric *x = &s->m[i];
		struct top_hist *p;
		float v = NAN;

		if ((x->flags & TOP_M_RATE) && (x->flags & TOP_M_VALID))
			v = (float)x->rate;
		else if (!(x->flags & TOP_M_COUNTER) && (x->flags & TOP_M_VALID))
			v = (float)x->raw;
		p = hist_get(h, x->name, true);
		if (!p)
			return -ENOMEM;
		if (p->seen)
			continue;	/* a metric reported twice: the first wins */
		memmove(p->v, p->v + 1, (TOP_HIST - 1) * sizeof(p->v[0]));
		p->v[TOP_HIST - 1] = v;
		p->seen = true;
		if ((x->flags & TOP_M_COUNTER) && (x->flags & TOP_M_VALID))
			counter_step(h, p, x, s->seq == prev_seq + 1);
	}
	for (i = 0; i < h->nhist; i++)
		if (!h->hist[i].seen) {
			memmove(h->hist[i].v, h->hist[i].v + 1, (TOP_HIST - 1) * sizeof(float));
			h->hist[i].v[TOP_HIST - 1] = NAN;
		}
	return 1;
}

void top_model_baseline(struct top_model *m)
{
	size_t i;

	for (i = 0; i < m->nhost; i++)
		if (m->host[i].snap.seq && !top_snap_copy(&m->host[i].base, &m->host[i].snap)) {
			m->host[i].have_base = true;
			counters_rebase(&m->host[i]);
		}
}

void top_model_baseline_clear(struct top_model *m)
{
	size_t i;

	for (i = 0; i < m->nhost; i++) {
		m->host[i].base.n = 0;
		m->host[i].have_base = m->host[i].snap.seq != 0;
		counters_rebase(&m->host[i]);
	}
}

int top_model_base_set(struct top_model *m, size_t hi, const struct top_snap *s)
{
	int rc;

	if (m->frozen || hi >= m->nhost || !s->seq)
		return 0;
	rc = top_snap_copy(&m->host[hi].base, s);
	if (rc)
		return rc;
	m->host[hi].have_base = true;
	counters_rebase(&m->host[hi]);
	return 0;
}

static bool is_capture(const char *metric)
{
	return !strncmp(metric, TOP_CAPTURE_PREFIX, strlen(TOP_CAPTURE_PREFIX));
}

bool top_model_host_captures(const struct top_model *m, size_t hi)
{
	const struct top_snap *s = &m->host[hi].snap;
	size_t i;

	for (i = 0; i < s->n; i++)
		if ((s->m[i].flags & TOP_M_VALID) && !(s->m[i].flags & TOP_M_BESIDE) &&
		    is_capture(s->m[i].name))
			return true;
	return false;
}

enum top_host_state top_model_host_state(const struct top_model *m, size_t hi, uint64_t now,
					 uint64_t *age_ns)
{
	const struct top_host *h = &m->host[hi];
	uint64_t lim = m->stale_ns;

	*age_ns = h->snap.got_ns && now > h->snap.got_ns ? now - h->snap.got_ns : 0;
	if (!lim) {
		lim = h->snap.interval_ns ? 3 * h->snap.interval_ns : 3000000000ULL;
		if (lim < 1000000000ULL)
			lim = 1000000000ULL;
	}
	if (h->snap.down)
		return TOP_HOST_DOWN;
	if (!h->snap.seq)
		return TOP_HOST_WAIT;
	if (*age_ns > lim && !m->frozen)
		return TOP_HOST_STALE;
	return TOP_HOST_OK;
}

int top_model_peer(const struct top_model *m, size_t h)
{
	size_t q = h ^ 1;

	return q < m->nhost ? (int)q : -1;
}

/* ---- rows --------------------------------------------------------------------- */

/* One cell's recipe: metric name (with {p} or {i} put in), how to show it, and the
 * metric of the peer host it must agree with (802.1Qbb: what one side sends on a
 * priority the other receives; IBTA A17: the notification point's CNPs sent are the
 * reaction point's CNPs handled).
 */
struct cell_spec {
	const char *metric;
	enum top_how how;
	const char *peer;
};

/* Cells read another metric where a host has no valid one of their own: the share of time
 * paused from the captured frames' pause timers where the NIC counts no pause duration. */
static const struct { const char *metric, *alt; } cell_alts[] = {
	{ "pfc.rx.prio{p}.pause_us", "capture.pfc.prio{p}.paused_us" },
};

static const char *cell_alt(const char *metric)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cell_alts); i++)
		if (!strcmp(cell_alts[i].metric, metric))
			return cell_alts[i].alt;
	return NULL;
}

struct row_spec {
	enum top_section sec;
	const char *label;
	struct cell_spec c[TOP_CELLS];
	bool always;		/* shown even when no host reports it */
	char each;		/* 'p': one row per priority 0..7; 'i': per GPU 0..15 */
};

static const struct row_spec rows_fixed[] = {
	{ TOP_SEC_TRAFFIC, "link", { { "link.rx_bytes", TOP_BITS, NULL },
				     { "link.tx_bytes", TOP_BITS, NULL } }, true, 0 },
	{ TOP_SEC_TRAFFIC, "port", { { "port.rx.bytes", TOP_BITS, NULL },
				     { "port.tx.bytes", TOP_BITS, NULL } }, false, 0 },
	{ TOP_SEC_TRAFFIC, "RDMA", { { "rdma.rx.bytes", TOP_BITS, NULL },
				     { "rdma.tx.bytes", TOP_BITS, NULL } }, false, 0 },
	{ TOP_SEC_TRAFFIC, "RDMA pkts", { { "rdma.rx.packets", TOP_RATE, NULL },
					  { "rdma.tx.packets", TOP_RATE, NULL } }, false, 0 },
	{ TOP_SEC_PFC, "prio{p}", {
		{ "pfc.rx.prio{p}.frames", TOP_RATE, "pfc.tx.prio{p}.frames" },
		{ "pfc.tx.prio{p}.frames", TOP_RATE, "pfc.rx.prio{p}.frames" },
		{ "pfc.rx.prio{p}.pause_us", TOP_SHARE_US, NULL },
		{ "capture.pfc.prio{p}.frames", TOP_RATE, NULL } }, true, 'p' },
	{ TOP_SEC_PFC, "PAUSE", { { "pause.rx.frames", TOP_RATE, "pause.tx.frames" },
				  { "pause.tx.frames", TOP_RATE, "pause.rx.frames" },
				  { "capture.pause.paused_us", TOP_SHARE_US, NULL },
				  { "capture.pause.frames", TOP_RATE, NULL } }, true, 0 },
	{ TOP_SEC_CONG, "ECN marked", { { "ecn.marked", TOP_RATE, NULL },
					{ NULL, TOP_RATE, NULL },
					{ NULL, TOP_RATE, NULL },
					{ "capture.roce.ce_frames", TOP_RATE, NULL } }, true, 0 },
	{ TOP_SEC_CONG, "CNP", { { "cnp.handled", TOP_RATE, "cnp.sent" },
				 { "cnp.sent", TOP_RATE, "cnp.handled" },
				 { NULL, TOP_RATE, NULL },
				 { "capture.cnp.frames", TOP_RATE, NULL } }, true, 0 },
	{ TOP_SEC_CONG, "CNP ignored", { { "cnp.ignored", TOP_RATE, NULL } }, false, 0 },
	/* CNPs received whether handled or not (bnxt_re rx_cnp_pkts, mlx5 cc_rx_cnp_pkts) */
	{ TOP_SEC_CONG, "CNP received", { { "cnp.received", TOP_RATE, "cnp.sent" } }, false, 0 },
	{ TOP_SEC_DISCARD, "capture drops", { { "capture.kernel_drops", TOP_RATE, NULL } },
	  false, 0 },
	/* The NIC's side of the GPU's PCIe link, on one line: the share of the last second
	 * its DMA writes (receive: into host or GPU memory) and reads (send) waited for PCIe
	 * credits, and the packets it dropped for a full PCIe buffer (mlx5 counters.rst:
	 * outbound_pci_stalled_wr/_rd, outbound_pci_buffer_overflow). Always shown, n/a
	 * where the NIC does not count them (rxe, veth, other vendors), so that PFC caused by
	 * writes into GPU memory that stall reads off the same screen as the GPU's rows. */
	{ TOP_SEC_PCIE, "NIC PCIe", { { "pcie.nic.stalled_wr", TOP_SHARE_PCT, NULL },
				      { "pcie.nic.stalled_rd", TOP_SHARE_PCT, NULL },
				      { NULL, TOP_RATE, NULL },
				      { "pcie.nic.buffer_overflow", TOP_RATE, NULL } }, true, 0 },
	{ TOP_SEC_PCIE, "GPU{i}", { { "pcie.gpu{i}.rx_Bps", TOP_LINK_SHARE, NULL },
				    { "pcie.gpu{i}.tx_Bps", TOP_LINK_SHARE, NULL } }, false, 'i' },
};

/* Families: every metric under the prefix gets a row (other sources may add some). */
static const struct {
	enum top_section sec;
	const char *prefix;
} families[] = {
	{ TOP_SEC_DISCARD, "discard." },
	{ TOP_SEC_DISCARD, "buffer." },
	{ TOP_SEC_QDISC, "qdisc." },
};

const char *top_section_name(enum top_section s)
{
	static const char *const n[TOP_SEC_N] = {
		[TOP_SEC_TRAFFIC] = "Traffic", [TOP_SEC_PFC] = "PFC",
		[TOP_SEC_CONG] = "ECN / CNP", [TOP_SEC_DISCARD] = "Discards",
		[TOP_SEC_PCIE] = "PCIe", [TOP_SEC_QDISC] = "Qdisc",
	};
	return s < TOP_SEC_N ? n[s] : "?";
}

const char *top_section_col(enum top_section s, int col)
{
	static const char *const c[TOP_SEC_N][TOP_CELLS] = {
		[TOP_SEC_TRAFFIC] = { "rx b/s", "tx b/s", "", "" },
		[TOP_SEC_PFC] = { "rx/s", "tx/s", "paused", "seen/s" },
		[TOP_SEC_CONG] = { "rx/s", "tx/s", "", "seen/s" },
		[TOP_SEC_DISCARD] = { "/s", "", "", "" },
		[TOP_SEC_PCIE] = { "rx", "tx", "", "drop/s" },
		[TOP_SEC_QDISC] = { "/s", "", "", "" },
	};
	return s < TOP_SEC_N && col >= 0 && col < TOP_CELLS ? c[s][col] : "";
}

/* Replace {p} / {i} in pat by digit d. */
static void subst(const char *pat, int d, char *out, size_t n)
{
	const char *b = strchr(pat, '{');

	if (!b || d < 0 || (strncmp(b, "{p}", 3) && strncmp(b, "{i}", 3))) {
		snprintf(out, n, "%s", pat);
		return;
	}
	snprintf(out, n, "%.*s%d%s", (int)(b - pat), pat, d, b + 3);
}

double top_pcie_link_Bps(unsigned gen, unsigned width)
{
	/* Per lane payload bandwidth after line coding (PCI Express Base spec: 8b/10b
	 * for gen 1-2, 128b/130b for gen 3-5, 1b/1b FLIT for gen 6).
	 */
	static const double lane[] = { 0, 250e6, 500e6, 984.6e6, 1969.2e6, 3938.5e6,
				       7563e6 };

	if (!gen || gen >= ARRAY_SIZE(lane) || !width)
		return 0;
	return lane[gen] * width;
}

static double gen_from_mts(uint64_t mts)
{
	if (mts >= 64000)
		return 6;
	if (mts >= 32000)
		return 5;
	if (mts >= 16000)
		return 4;
	if (mts >= 8000)
		return 3;
	if (mts >= 5000)
		return 2;
	return mts ? 1 : 0;
}

static bool valid_raw(const struct top_snap *s, const char *name, uint64_t *v)
{
	const struct top_metric *x = top_snap_get(s, name);

	if (!x || !(x->flags & TOP_M_VALID))
		return false;
	*v = x->raw;
	return true;
}

/* The link maximum for GPU i from NVML's gen/width, else from config space. */
static double gpu_link_max(const struct top_snap *s, int gi)
{
	char a[MON_NAME_MAX], b[MON_NAME_MAX];
	uint64_t gen, width;

	subst("pcie.gpu{i}.link_gen", gi, a, sizeof(a));
	subst("pcie.gpu{i}.link_width", gi, b, sizeof(b));
	if (valid_raw(s, a, &gen) && valid_raw(s, b, &width))
		return top_pcie_link_Bps((unsigned)gen, (unsigned)width);
	subst("pcie.gpu{i}.link_speed", gi, a, sizeof(a));
	subst("pcie.gpu{i}.link_width_pci", gi, b, sizeof(b));
	if (valid_raw(s, a, &gen) && valid_raw(s, b, &width))
		return top_pcie_link_Bps((unsigned)gen_from_mts(gen), (unsigned)width);
	return 0;
}

static enum top_how how_for_unit(const struct top_metric *x)
{
	if (!(x->flags & TOP_M_COUNTER))
		return strcmp(x->unit, "%") ? TOP_GAUGE : TOP_SHARE_PCT;
	if (!strcmp(x->unit, "us"))
		return TOP_SHARE_US;
	if (!strcmp(x->unit, "B"))
		return TOP_BITS;
	return TOP_RATE;
}

static const char *how_unit(enum top_how how, const struct top_metric *x)
{
	switch (how) {
	case TOP_BITS:
		return "b/s";
	case TOP_RATE:
		return "/s";
	case TOP_SHARE_US:
	case TOP_SHARE_PCT:
	case TOP_LINK_SHARE:
		return "%";
	case TOP_GAUGE:
		return x ? x->unit : "";
	}
	return "";
}

static void cell_fill(const struct top_model *m, size_t hi, struct top_cell *c,
		      const char *metric, enum top_how how, const char *peer, int idx)
{
	const struct top_host *h = &m->host[hi];
	const struct top_metric *x = top_snap_get(&h->snap, metric);

	memset(c, 0, sizeof(*c));
	if (how == TOP_SHARE_PCT && x && (x->flags & TOP_M_COUNTER))
		how = TOP_SHARE_US;	/* a record from before the stall share was a gauge */
	c->how = how;
	c->state = TOP_CELL_NA;
	c->unit = how_unit(how, x);
	if (x && !(x->flags & TOP_M_VALID) && (x->flags & TOP_M_ELSEWHERE)) {
		/* no reading at this moment, no rate: only the whole run's count */
		c->state = TOP_CELL_ELSEWHERE;
		c->has_total = true;
		c->total = x->raw;
		return;
	}
	if (!x || !(x->flags & TOP_M_VALID))
		return;
	c->capture = (x->flags & TOP_M_BESIDE) || is_capture(metric);
	if (how == TOP_GAUGE || how == TOP_LINK_SHARE || how == TOP_SHARE_PCT) {
		c->value = (double)x->raw;
		if (how == TOP_SHARE_PCT)
			c->value /= 100;	/* percent -> share (0..1) */
		if (how == TOP_LINK_SHARE) {
			double max = gpu_link_max(&h->snap, idx);

			if (max > 0) {
				c->value /= max;
			} else {	/* link unknown: the bandwidth itself */
				c->how = TOP_GAUGE;
				c->unit = x->unit;
			}
		}
		c->state = TOP_CELL_OK;
		c->nonzero = x->raw != 0;
		return;
	}
	if (x->flags & TOP_M_COUNTER) {
		const struct top_metric *b = h->have_base ? top_snap_get(&h->base, metric) : NULL;
		const struct top_hist *p = hist_find(h, metric);
		uint64_t counted = x->raw + (p ? p->carry : 0), from = 0;

		if (b && (b->flags & TOP_M_VALID) && !(p && p->restarted))
			from = b->raw;	/* else it counts from 0 since it went back */
		c->has_total = true;
		c->total = counted >= from ? counted - from : x->raw;
	}
	if (!(x->flags & TOP_M_RATE)) {
		/* Read, but no rate yet (first sample, or just after a reset). */
		c->state = c->has_total ? TOP_CELL_OK : TOP_CELL_NA;
		c->value = NAN;
		return;
	}
	c->state = TOP_CELL_OK;
	c->value = x->rate;
	if (how == TOP_BITS)
		c->value *= 8;
	else if (how == TOP_SHARE_US)
		c->value /= 1e6;	/* us per second -> share of time */
	c->nonzero = x->rate > 0;
	if (peer) {
		int q = top_model_peer(m, hi);
		uint64_t age;

		if (q >= 0 && top_model_host_state(m, (size_t)q, h->snap.got_ns, &age) ==
			      TOP_HOST_OK) {
			const struct top_metric *y = top_snap_get(&m->host[q].snap, peer);

			if (y && (y->flags & TOP_M_VALID) && (y->flags & TOP_M_RATE)) {
				double a = x->rate, bb = y->rate, d = fabs(a - bb);
				double big = a > bb ? a : bb;

				c->mismatch = d > m->tol_abs && d > m->tolerance * big;
			}
		}
	}
}

static bool any_host_has(const struct top_model *m, const char *metric)
{
	size_t i;

	for (i = 0; i < m->nhost; i++)
		if (top_snap_get(&m->host[i].snap, metric))
			return true;
	return false;
}

static void row_hist(const struct top_model *m, struct top_row *r, const char *names[TOP_CELLS])
{
	/* The sparkline follows the first column with a reading: received first, then
	 * what the capture saw, then sent.
	 */
	static const int order[] = { 0, 3, 1, 2 };
	size_t h, k;

	r->hist_col = -1;
	for (h = 0; h < m->nhost; h++) {
		r->hist[h] = NULL;
		for (k = 0; k < ARRAY_SIZE(order); k++) {
			int c = order[k];
			const struct top_hist *p;

			if (!names[c] || r->cell[h][c].state != TOP_CELL_OK)
				continue;
			p = hist_find(&m->host[h], names[c]);
			if (p) {
				r->hist[h] = p->v;
				if (r->hist_col < 0)
					r->hist_col = c;
				break;
			}
		}
	}
}

static size_t row_from_spec(const struct top_model *m, const struct row_spec *rs, int d,
			    struct top_row *r)
{
	char names[TOP_CELLS][MON_NAME_MAX], peers[TOP_CELLS][MON_NAME_MAX];
	char alts[TOP_CELLS][MON_NAME_MAX];
	const char *np[TOP_CELLS] = { 0 }, *alt[TOP_CELLS] = { 0 }, *a;
	bool any = false;
	size_t h;
	int k;

	memset(r, 0, sizeof(*r));
	r->sec = rs->sec;
	r->prio = rs->each == 'p' ? d : -1;
	subst(rs->label, d, r->label, sizeof(r->label));
	for (k = 0; k < TOP_CELLS; k++) {
		if (!rs->c[k].metric)
			continue;
		subst(rs->c[k].metric, d, names[k], sizeof(names[k]));
		if (rs->c[k].peer)
			subst(rs->c[k].peer, d, peers[k], sizeof(peers[k]));
		if ((a = cell_alt(rs->c[k].metric))) {
			subst(a, d, alts[k], sizeof(alts[k]));
			alt[k] = alts[k];
			any |= any_host_has(m, alts[k]);
		}
		np[k] = names[k];
		any |= any_host_has(m, names[k]);
	}
	if (!any && !rs->always)
		return 0;
	for (h = 0; h < m->nhost; h++)
		for (k = 0; k < TOP_CELLS; k++) {
			const struct top_metric *x;

			if (!np[k])
				continue;
			x = top_snap_get(&m->host[h].snap, names[k]);
			cell_fill(m, h, &r->cell[h][k],
				  alt[k] && !(x && (x->flags & TOP_M_VALID)) ? alt[k] : names[k],
				  rs->c[k].how, rs->c[k].peer ? peers[k] : NULL, d);
		}
	row_hist(m, r, np);
	return 1;
}

static bool listed(const struct top_row *rows, size_t n, const char *label, enum top_section s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].sec == s && !strcmp(rows[i].label, label))
			return true;
	return false;
}

/* Rows for every metric of a family, in the order the first host reporting it lists
 * them; a metric already shown by a fixed row is not repeated.
 */
static size_t rows_family(const struct top_model *m, enum top_section sec, const char *prefix,
			  struct top_row *rows, size_t n, size_t max)
{
	size_t h, i, k, start = n;

	for (h = 0; h < m->nhost; h++) {
		const struct top_snap *s = &m->host[h].snap;

		for (i = 0; i < s->n && n < max; i++) {
			const struct top_metric *x = &s->m[i];
			const char *np[TOP_CELLS] = { x->name };
			struct top_row *r = &rows[n];
			bool dup = false;

			if (strncmp(x->name, prefix, strlen(prefix)))
				continue;
			for (k = 0; k < ARRAY_SIZE(rows_fixed); k++)
				dup |= rows_fixed[k].c[0].metric &&
				       !strcmp(rows_fixed[k].c[0].metric, x->name);
			if (dup || listed(rows + start, n - start, x->name + strlen(prefix), sec))
				continue;
			memset(r, 0, sizeof(*r));
			r->sec = sec;
			r->prio = -1;
			snprintf(r->label, sizeof(r->label), "%s", x->name + strlen(prefix));
			for (k = 0; k < m->nhost; k++) {
				const struct top_metric *y = top_snap_get(&m->host[k].snap, x->name);

				cell_fill(m, k, &r->cell[k][0], x->name,
					  y ? how_for_unit(y) : how_for_unit(x), NULL, -1);
			}
			row_hist(m, r, np);
			n++;
		}
	}
	return n;
}

size_t top_model_rows(const struct top_model *m, struct top_row *rows, size_t max)
{
	size_t n = 0, i, f;
	enum top_section sec;
	int d;

	for (sec = 0; sec < TOP_SEC_N; sec++) {
		for (i = 0; i < ARRAY_SIZE(rows_fixed); i++) {
			const struct row_spec *rs = &rows_fixed[i];

			if (rs->sec != sec)
				continue;
			int last = rs->each == 'i' ? TOP_MAX_GPUS : rs->each ? 8 : 0;

			for (d = rs->each ? 0 : -1; d < last; d++) {
				if (n >= max)
					return n;
				n += row_from_spec(m, rs, d, &rows[n]);
			}
		}
		for (f = 0; f < ARRAY_SIZE(families); f++)
			if (families[f].sec == sec)
				n = rows_family(m, sec, families[f].prefix, rows, n, max);
	}
	return n;
}

int top_model_lines(const struct top_row *rows, size_t n, int panel)
{
	int lines = 0, sec = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		if ((int)rows[i].sec < panel)
			continue;
		lines += 1 + ((int)rows[i].sec != sec);
		sec = (int)rows[i].sec;
	}
	return lines;
}

/* A priority row that no host counts: every cell n/a or blank (mlx5 has no pause
 * counters for a priority without PFC, a GPU-only screen none at all). A row that reads
 * 0 is not one: whether it is counted does not change with the traffic, so a fold of
 * such rows stays put while the screen runs (no line comes and goes as frames arrive). */
static bool prio_uncounted(const struct top_row *r, size_t nhost)
{
	size_t h;
	int k;

	for (h = 0; h < nhost; h++)
		for (k = 0; k < TOP_CELLS; k++)
			if (r->cell[h][k].state != TOP_CELL_NONE && r->cell[h][k].state != TOP_CELL_NA)
				return false;
	return true;
}

/* "prio0-2,4-7" for the priorities in mask. */
static void prio_label(unsigned mask, char *buf, size_t n)
{
	size_t o = (size_t)snprintf(buf, n, "prio");
	int p = 0, q;

	while (p < 8 && o < n) {
		if (!(mask & (1u << p))) {
			p++;
			continue;
		}
		for (q = p; q + 1 < 8 && (mask & (1u << (q + 1))); q++)
			;
		o += (size_t)snprintf(buf + o, n - o, q > p ? "%s%d-%d" : "%s%d",
				      o > 4 ? "," : "", p, q);
		p = q + 1;
	}
}

size_t top_model_fit(struct top_row *rows, size_t n, int panel, int focus, int nlines)
{
	/* cells of hosts past the model's are zeroed by top_model_rows: TOP_CELL_NONE */
	unsigned mask = 0;
	size_t i, k, first = n, nhost = TOP_MAX_HOSTS, out;
	struct top_row fold;

	if (top_model_lines(rows, n, panel) <= nlines)
		return n;
	memset(&fold, 0, sizeof(fold));
	for (i = 0; i < n; i++) {
		const struct top_row *r = &rows[i];

		if (r->sec != TOP_SEC_PFC || r->prio < 0 || r->prio == focus ||
		    (int)r->sec < panel || !prio_uncounted(r, nhost))
			continue;
		if (first == n) {
			first = i;
			fold = *r;
		}
		for (size_t h = 0; h < nhost; h++)
			for (k = 0; k < TOP_CELLS; k++)
				if (r->cell[h][k].state == TOP_CELL_NA)
					fold.cell[h][k].state = TOP_CELL_NA;	/* n/a beats blank */
		mask |= 1u << r->prio;
	}
	if (__builtin_popcount(mask) < 2)
		return n;	/* folding one row into one saves nothing */
	fold.prio = -1;
	fold.hist_col = -1;
	memset(fold.hist, 0, sizeof(fold.hist));
	prio_label(mask, fold.label, sizeof(fold.label));
	for (i = 0, out = 0; i < n; i++) {
		if (i == first)
			rows[out++] = fold;
		else if (!(rows[i].sec == TOP_SEC_PFC && rows[i].prio >= 0 &&
			   (mask & (1u << rows[i].prio))))
			rows[out++] = rows[i];
	}
	return out;
}

void top_fmt_num(double v, char *buf, size_t n)
{
	static const char sfx[] = " kMGTPE";
	size_t i = 0;

	if (isnan(v)) {
		snprintf(buf, n, "-");
		return;
	}
	if (v == 0) {
		snprintf(buf, n, "0");
		return;
	}
	if (fabs(v) < 10 && v != floor(v)) {
		snprintf(buf, n, "%.2f", v);
		return;
	}
	while (fabs(v) >= 999.5 && i + 1 < sizeof(sfx) - 1) {
		v /= 1000;
		i++;
	}
	if (!i)
		snprintf(buf, n, "%.0f", v);
	else if (fabs(v) < 9.995)
		snprintf(buf, n, "%.2f%c", v, sfx[i]);
	else if (fabs(v) < 99.95)
		snprintf(buf, n, "%.1f%c", v, sfx[i]);
	else
		snprintf(buf, n, "%.0f%c", v, sfx[i]);
}

void top_model_free(struct top_model *m)
{
	size_t i;

	for (i = 0; i < m->nhost; i++) {
		top_snap_free(&m->host[i].snap);
		top_snap_free(&m->host[i].base);
		free(m->host[i].hist);
	}
	m->nhost = 0;
}
