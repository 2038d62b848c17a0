// SPDX-License-Identifier: GPL-2.0-or-later
/* test_monitor_engine.c: the sampler's arithmetic (deltas, 32-bit wraps, resets, epochs),
 * source life cycle (unsupported, gone and back, field set changed), the catalog parser,
 * lib/nl message walking, the recorder's files and the --stats figures made to add up.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <libmnl/libmnl.h>

#include "lib/nl.h"
#include "lib/util.h"
#include "monitor/catalog.h"
#include "monitor/monitor.h"
#include "monitor/recfile.h"
#include "monitor/record.h"
#include "monitor/sampler.h"
#include "monitor/sources/sources.h"

/* --- per-value arithmetic -------------------------------------------------------- */

static void test_val_counter(void **state)
{
	struct mon_col c = { .kind = MON_COUNTER, .width = 64 };
	struct mon_val v;

	(void)state;
	mon_val_update(&c, &v, 1000, 1000000000ULL, 0);
	assert_int_equal(v.flags, MON_V_VALID);		/* first reading: no delta */
	mon_val_update(&c, &v, 1500, 1500000000ULL, 0);
	assert_true(v.flags & MON_V_DELTA);
	assert_int_equal(v.delta, 500);
	assert_true(v.rate > 999.9 && v.rate < 1000.1);	/* 500 over 0.5 s */
	mon_val_update(&c, &v, 1500, 2000000000ULL, 0);
	assert_true(v.flags & MON_V_DELTA);
	assert_false(v.flags & MON_V_CHANGED);
	/* A 64-bit counter going back was reset: no delta, flagged. */
	mon_val_update(&c, &v, 10, 2500000000ULL, 0);
	assert_true(v.flags & MON_V_RESET);
	assert_false(v.flags & MON_V_DELTA);
	mon_val_update(&c, &v, 30, 3000000000ULL, 0);
	assert_int_equal(v.delta, 20);
	/* Epoch change (device re-created): no delta even though it went up. */
	mon_val_update(&c, &v, 5000, 3500000000ULL, 1);
	assert_true(v.flags & MON_V_RESET);
	assert_false(v.flags & MON_V_DELTA);
}

static void test_val_wrap32(void **state)
{
	struct mon_col c = { .kind = MON_COUNTER, .width = 32 };
	struct mon_val v;

	(void)state;
	mon_val_update(&c, &v, 4294967290ULL, 1000, 0);
	mon_val_update(&c, &v, 4, 2000, 0);		/* wrapped: 6 + 4 */
	assert_true(v.flags & MON_V_WRAP);
	assert_true(v.flags & MON_V_DELTA);
	assert_int_equal(v.delta, 10);
	/* Lower half going back: a reset, not a wrap. */
	mon_val_update(&c, &v, 1000000, 3000, 0);
	mon_val_update(&c, &v, 7, 4000, 0);
	assert_true(v.flags & MON_V_RESET);
	assert_false(v.flags & MON_V_WRAP);
}

static void test_val_gauge(void **state)
{
	struct mon_col c = { .kind = MON_GAUGE, .width = 64 };
	struct mon_val v;

	(void)state;
	mon_val_update(&c, &v, 8, 1000, 0);
	mon_val_update(&c, &v, 8, 2000, 0);
	assert_false(v.flags & MON_V_CHANGED);
	mon_val_update(&c, &v, 3, 3000, 0);
	assert_true(v.flags & MON_V_CHANGED);
	assert_false(v.flags & MON_V_DELTA);		/* gauges have no rate */
	assert_false(v.flags & MON_V_RESET);		/* a level that falls was not reset */
	/* a 32-bit gauge falling from its upper half is no wrap either (mlx5's
	 * outbound_pci_stalled_wr, a percentage, is a 32-bit MPCNT field) */
	c.width = 32;
	mon_val_update(&c, &v, 97, 4000, 0);
	mon_val_update(&c, &v, 4, 5000, 0);
	assert_int_equal(v.raw, 4);
	assert_true(v.flags & MON_V_VALID);
	assert_false(v.flags & (MON_V_RESET | MON_V_WRAP | MON_V_DELTA));
}

/* --- a scripted source ------------------------------------------------------------- */

struct fake {
	int init_rc;		/* what init returns */
	int sample_rc;		/* what the next sample returns */
	size_t nfields;
	uint64_t base;
	int inits, samples;
};

static struct fake fk;

static int fake_init(struct mon_src *s)
{
	fk.inits++;
	snprintf(s->driver, sizeof(s->driver), "mlx5_core");
	if (fk.init_rc)
		snprintf(s->err, sizeof(s->err), "scripted");
	return fk.init_rc;
}

static int fake_discover(struct mon_src *s)
{
	static const char *const names[] = { "rx_prio3_pause", "tx_prio3_pause", "extra_one" };
	size_t i;
	int rc = src_fields_reserve(s, fk.nfields);

	if (rc)
		return rc;
	for (i = 0; i < fk.nfields; i++)
		src_field_set(&s->fields[i], names[i], MON_COUNTER, 64, "frames");
	return 0;
}

static int fake_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	size_t i;
	int rc = fk.sample_rc;

	fk.samples++;
	if (rc == -ESTALE)
		fk.sample_rc = 0;	/* one stale answer, then the new layout */
	if (rc)
		return rc;
	for (i = 0; i < s->nfields; i++) {
		vals[i] = fk.base + i;
		valid[i] = 1;
	}
	return 0;
}

static void fake_close(struct mon_src *s)
{
	src_fields_free(s);
}

static const struct mon_src_ops fake_ops = {
	.name = "ethtool", .what = "scripted source",
	.init = fake_init, .discover = fake_discover, .sample = fake_sample, .close = fake_close,
};

struct evlog {
	int n[MON_EV_ERROR + 1];
};

static struct mon_rec *g_rec;	/* events go to the recorder too, when one is open */

static void on_ev(void *arg, const struct mon_event *ev)
{
	((struct evlog *)arg)->n[ev->type]++;
	if (g_rec)
		assert_int_equal(mon_rec_event(g_rec, ev), 0);
}

static void test_engine_lifecycle(void **state)
{
	struct mon_catalog *cat;
	struct evlog log = { { 0 } };
	struct mon_engine_cfg cfg = { .interval_ns = 1000000, .retry_ns = 1, .on_event = on_ev,
				      .arg = &log };
	const struct mon_sample *s;
	const struct mon_col *cols;
	struct mon_engine *e;
	size_t n;
	int failed;

	(void)state;
	assert_int_equal(mon_catalog_builtin(&cat), 0);
	cfg.catalog = cat;
	memset(&fk, 0, sizeof(fk));
	fk.nfields = 2;
	fk.base = 100;
	assert_int_equal(mon_engine_new(&cfg, &e), 0);
	assert_int_equal(mon_engine_add(e, &fake_ops, "eth9", 0, -1), 0);
	assert_int_equal(mon_engine_start(e, &failed), 0);
	cols = mon_engine_cols(e, &n);
	assert_int_equal(n, 2);
	assert_string_equal(cols[0].metric, "pfc.rx.prio3.frames");
	assert_string_equal(cols[0].key, "ethtool:eth9:rx_prio3_pause");

	mon_engine_sample(e, &s);
	assert_true(s->v[0].flags & MON_V_VALID);
	fk.base = 110;
	mon_engine_sample(e, &s);
	assert_int_equal(s->v[0].delta, 10);
	assert_int_equal(s->gap_mask, 0);

	/* The device goes away: a gap, values n/a, one event. */
	fk.sample_rc = -ENODEV;
	mon_engine_sample(e, &s);
	assert_int_equal(s->gap_mask, 1);
	assert_false(s->v[0].flags & MON_V_VALID);
	assert_int_equal(log.n[MON_EV_GAP_BEGIN], 1);
	/* Still gone at the retry. */
	fk.init_rc = -ENODEV;
	usleep(1000);
	mon_engine_sample(e, &s);
	assert_int_equal(s->gap_mask, 1);
	assert_int_equal(log.n[MON_EV_GAP_BEGIN], 1);	/* reported once per gap */
	/* Back, with counters restarted: no delta across the gap. */
	fk.init_rc = 0;
	fk.sample_rc = 0;
	fk.base = 5;
	usleep(1000);
	mon_engine_sample(e, &s);
	assert_int_equal(log.n[MON_EV_GAP_END], 1);
	assert_int_equal(s->gap_mask, 0);
	assert_true(s->v[0].flags & MON_V_VALID);
	assert_false(s->v[0].flags & MON_V_DELTA);
	assert_true(s->reset_mask & 1);
	fk.base = 8;
	mon_engine_sample(e, &s);
	assert_int_equal(s->v[0].delta, 3);

	/* The driver's string set grows: a new column, layout event, old ones kept. */
	{
		unsigned layout = mon_engine_layout(e);

		fk.nfields = 3;
		fk.sample_rc = -ESTALE;
		mon_engine_sample(e, &s);
		assert_int_equal(log.n[MON_EV_LAYOUT], 1);
		assert_true(mon_engine_layout(e) != layout);
		assert_int_equal(s->ncol, 3);
		assert_true(s->v[2].flags & MON_V_VALID);
		assert_true(s->v[0].flags & MON_V_DELTA);	/* same name, still a delta */
	}
	/* It shrinks again: the column stays, invalid. */
	fk.nfields = 2;
	fk.sample_rc = -ESTALE;
	mon_engine_sample(e, &s);
	assert_int_equal(s->ncol, 3);
	assert_false(s->v[2].flags & MON_V_VALID);
	mon_engine_free(e);

	/* Unsupported at start: reported once, columns listed and n/a. */
	memset(&log, 0, sizeof(log));
	memset(&fk, 0, sizeof(fk));
	fk.nfields = 2;
	fk.init_rc = -EOPNOTSUPP;
	assert_int_equal(mon_engine_new(&cfg, &e), 0);
	mon_engine_add(e, &fake_ops, "veth0", 0, -1);
	assert_int_equal(mon_engine_start(e, &failed), 0);
	assert_int_equal(log.n[MON_EV_UNSUPPORTED], 1);
	mon_engine_sample(e, &s);
	mon_engine_sample(e, &s);
	assert_int_equal(s->ncol, 2);
	assert_false(s->v[0].flags & MON_V_VALID);
	assert_int_equal(log.n[MON_EV_UNSUPPORTED], 1);
	assert_int_equal(fk.samples, 0);			/* never asked again */
	assert_int_equal(mon_engine_src_state(e, 0), MON_SRC_UNSUPPORTED);
	mon_engine_free(e);

	/* --stats: an unsupported source costs nothing, not even its accounting; about
	 * one sample in 16 is measured. The choice is random: 1600 samples give 100
	 * measured on average (standard deviation ~9.7), so [40, 200] fails about once in
	 * 10^9 runs.
	 */
	{
		struct mon_engine_cfg scfg = cfg;
		uint64_t samp, thr;
		unsigned i, due = 0;

		memset(&fk, 0, sizeof(fk));
		fk.nfields = 2;
		fk.init_rc = -EOPNOTSUPP;
		scfg.cpu_stats = true;
		assert_int_equal(mon_engine_new(&scfg, &e), 0);
		mon_engine_add(e, &fake_ops, "veth0", 0, -1);
		assert_int_equal(mon_engine_start(e, &failed), 0);
		for (i = 0; i < 1600; i++) {
			due += mon_engine_cpu_due(e);
			mon_engine_sample(e, &s);
		}
		assert_in_range(due, 40, 200);
		mon_engine_src_cpu(e, 0, &samp, &thr);
		assert_int_equal(samp, 0);
		assert_int_equal(thr, 0);
		assert_int_equal(fk.samples, 0);
		/* sums from the measured samples scale to all of them */
		assert_int_equal(mon_engine_cpu_scale(e, due), 1600);
		mon_engine_free(e);
	}

	/* Missing at start: start fails with the source's reason. */
	memset(&fk, 0, sizeof(fk));
	fk.init_rc = -ENODEV;
	assert_int_equal(mon_engine_new(&cfg, &e), 0);
	mon_engine_add(e, &fake_ops, "nope0", 0, -1);
	assert_int_equal(mon_engine_start(e, &failed), -ENODEV);
	assert_int_equal(failed, 0);
	assert_string_equal(mon_engine_src(e, 0)->err, "scripted");
	mon_engine_free(e);
	mon_catalog_free(cat);
}

/* --- the tick schedule: baseline and end ---------------------------------------------- */

#define MS 1000000ULL

/* A started engine over the scripted source, its end set first. */
static struct mon_engine *sched_engine(uint64_t interval_ns, uint64_t end_ns)
{
	struct mon_engine_cfg cfg = { .interval_ns = interval_ns };
	struct mon_engine *e;
	int failed;

	memset(&fk, 0, sizeof(fk));
	fk.nfields = 1;
	assert_int_equal(mon_engine_new(&cfg, &e), 0);
	assert_int_equal(mon_engine_add(e, &fake_ops, "eth9", 0, -1), 0);
	assert_int_equal(mon_engine_set_end(e, end_ns), 0);
	assert_int_equal(mon_engine_start(e, &failed), 0);
	assert_int_equal(mon_engine_set_end(e, end_ns), -EBUSY);	/* too late now */
	return e;
}

/* Waits for the next tick: the sample's time after the baseline's, and the missed ticks. */
static uint64_t sched_next(struct mon_engine *e, uint64_t base_ns, int64_t *missed)
{
	const struct mon_sample *s;

	*missed = mon_engine_wait(e);
	assert_true(*missed >= 0);
	assert_int_equal(mon_engine_sample(e, &s), 0);
	return s->mono_ns - base_ns;
}

/* A timer never fires early, and the sample's time is read after the wake: at or after
 * the tick. Late by up to 80 ms on a loaded host (sanitizers, CI, two CPUs): the
 * intervals below are long enough that a wrong schedule lands outside that.
 */
#define assert_tick(got, want) assert_in_range((got), (want), (want) + 80 * MS)

static void test_engine_schedule(void **state)
{
	const struct mon_sample *s;
	struct mon_engine *e;
	uint64_t base;
	int64_t missed;

	(void)state;
	/* The baseline, 100 ms after the start, and the ticks counted from it (not from the
	 * start: 100, 300 ms): 200, 400 ms, then the end at 500 ms, between two ticks: one
	 * shorter interval (not a tick at 600 ms), and no more.
	 */
	e = sched_engine(200 * MS, 500 * MS);
	usleep(100000);
	assert_int_equal(mon_engine_sample(e, &s), 0);
	assert_int_equal(s->seq, 1);
	assert_int_equal(s->dt_ns, 0);
	assert_false(s->v[0].flags & MON_V_DELTA);
	base = s->mono_ns;
	assert_tick(sched_next(e, base, &missed), 200 * MS);
	assert_false(mon_engine_ended(e));
	assert_tick(sched_next(e, base, &missed), 400 * MS);
	assert_false(mon_engine_ended(e));
	assert_tick(sched_next(e, base, &missed), 500 * MS);
	assert_int_equal(missed, 0);
	assert_true(mon_engine_ended(e));
	assert_int_equal(mon_engine_wait(e), -ETIME);
	mon_engine_free(e);

	/* An end on a tick: that tick is the last. */
	e = sched_engine(100 * MS, 200 * MS);
	mon_engine_sample(e, &s);
	base = s->mono_ns;
	assert_tick(sched_next(e, base, &missed), 100 * MS);
	assert_false(mon_engine_ended(e));
	assert_tick(sched_next(e, base, &missed), 200 * MS);
	assert_true(mon_engine_ended(e));
	mon_engine_free(e);

	/* An end before the first tick: one sample at the end, not at the tick. */
	e = sched_engine(1000 * MS, 50 * MS);
	mon_engine_sample(e, &s);
	base = s->mono_ns;
	assert_tick(sched_next(e, base, &missed), 50 * MS);
	assert_true(mon_engine_ended(e));
	mon_engine_free(e);

	/* A host that stalls past the end: one sample stands for the end, and only the
	 * ticks before it (10, 20, 30 ms of an end at 35 ms) count as missed.
	 */
	e = sched_engine(10 * MS, 35 * MS);
	mon_engine_sample(e, &s);
	base = s->mono_ns;
	usleep(70000);
	assert_in_range(sched_next(e, base, &missed), 70 * MS, 1000 * MS);
	assert_int_equal(missed, 3);
	assert_true(mon_engine_ended(e));
	assert_int_equal(s->overruns_total, 3);
	mon_engine_free(e);

	/* A front end that waits first (pfclab top): the ticks count from the start, and
	 * a sample taken between two does not move them.
	 */
	base = time_mono_ns();	/* before the start */
	e = sched_engine(100 * MS, 0);
	assert_tick(sched_next(e, base, &missed), 100 * MS);
	mon_engine_sample(e, &s);
	assert_int_equal(s->seq, 2);
	assert_tick(sched_next(e, base, &missed), 200 * MS);
	assert_false(mon_engine_ended(e));
	mon_engine_free(e);
}

/* --- catalog syntax ---------------------------------------------------------------- */

/* The names --sources, monitor.sources and the catalog take are the ops tables' own:
 * every table's .name is in MON_SOURCES, and MON_SOURCES names no other, in either of
 * its spellings. */
static void test_source_names(void **state)
{
	static const struct mon_src_ops *const ops[] = {
		&src_ethtool_ioctl_ops, &src_ethtool_nl_ops, &src_dcb_ops, &src_rdma_nl_ops,
		&src_link_ops, &src_nvml_ops, &src_pci_ops, &src_qdisc_ops, &src_lossless_ops,
	};
	char text[sizeof(MON_SOURCES_TEXT)];
	const char *p;
	size_t i, n = 1, k = 0;

	(void)state;
	for (p = MON_SOURCES; *p; p++)
		n += *p == ',';
	assert_int_equal(n, sizeof(ops) / sizeof(ops[0]));
	for (i = 0; i < n; i++)
		assert_true(pfc_list_has(MON_SOURCES, ops[i]->name, strlen(ops[i]->name)));
	for (p = MON_SOURCES; *p; p++) {	/* "a,b" is "a, b" */
		text[k++] = *p;
		if (*p == ',')
			text[k++] = ' ';
	}
	text[k] = '\0';
	assert_string_equal(text, MON_SOURCES_TEXT);
}

static void test_catalog_parse(void **state)
{
	static const char good[] = "# c\n\nethtool\t*\trx_{n}_x\tq.{n}.x\tB\tcounter\n"
				   "nvml\t*\trx\tpcie.gpu{i}.rx\tB/s\tgauge\t64\n";
	static const char bad_kind[] = "ethtool\t*\ta\tb\tB\tcount\n";
	static const char bad_cols[] = "# ok\nethtool\t*\ta\tb\n";
	/* each wrong in one way, each said */
	static const struct { const char *text, *why; } bad[] = {
		{ "link\t*\trx\tm\tB\tcounter\t48\n", "bits '48': expected 32 or 64" },
		{ "lnk\t*\trx\tm\tB\tcounter\n", "source 'lnk': expected one of " },
		{ "link\t*\trx x\tm\tB\tcounter\n", "raw 'rx x' holds white space" },
		{ "link\t\trx\tm\tB\tcounter\n", "the drivers field is empty" },
		{ "link\tveth,\trx\tm\tB\tcounter\n", "drivers 'veth,': an empty name" },
		{ "link\tveth,,mlx5_core\trx\tm\tB\tcounter\n", "drivers 'veth,,mlx5_core': an empty name" },
		{ "link * rx m B counter\n", "1 field, expected 6 or 7 separated by tabs" },
		{ "a\tb\tc\td\te\tf\tg\th\ti\n", "over 7 fields, expected 6 or 7" },
	};
	struct mon_catalog *c;
	struct mon_catalog_hit h;
	struct mon_catalog_err err;
	size_t i;

	(void)state;
	assert_int_equal(mon_catalog_parse(good, sizeof(good) - 1, &c, &err), 0);
	assert_int_equal(mon_catalog_size(c), 2);
	assert_int_equal(mon_catalog_lookup(c, "ethtool", "x", "rx_12_x", -1, &h), 1);
	assert_string_equal(h.metric, "q.12.x");
	assert_int_equal(mon_catalog_lookup(c, "ethtool", "x", "rx__x", -1, &h), 0);
	assert_int_equal(mon_catalog_lookup(c, "nvml", "nvidia", "rx", 3, &h), 1);
	assert_string_equal(h.metric, "pcie.gpu3.rx");
	mon_catalog_free(c);
	assert_int_equal(mon_catalog_parse(bad_kind, sizeof(bad_kind) - 1, &c, &err), -EINVAL);
	assert_int_equal(err.line, 1);
	assert_string_equal(err.why, "kind 'count': expected counter or gauge");
	assert_int_equal(mon_catalog_parse(bad_cols, sizeof(bad_cols) - 1, &c, &err), -EINVAL);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.why, "4 fields, expected 6 or 7"));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(mon_catalog_parse(bad[i].text, strlen(bad[i].text), &c, &err),
				 -EINVAL);
		if (!strstr(err.why, bad[i].why))
			fail_msg("line '%s': '%s', expected '%s'", bad[i].text, err.why, bad[i].why);
	}
	/* a trailing field that starts with '#' is the row's reference, with or without the
	 * bits column; the fields before it are checked as ever */
	{
		static const char refd[] =
			"ethtool\tice\trx_priority_{p}_xoff.nic\tpfc.rx.prio{p}.frames\tframes\t"
			"counter\t# ice_ethtool.c (Linux 6.12)\n"
			"ethtool\tmlx5_core\trx_out_of_buffer\tdiscard.rx_buffer\tpackets\tcounter"
			"\t32\t#\ten_stats.c\tand counters.rst\n"
			"link\t*\trx_bytes\tlink.rx_bytes\tB\tcounter\n";
		static const char bad_ref[] = "link\t*\trx\tm\tB\t# no kind\n";
		struct mon_catalog_info info;

		assert_int_equal(mon_catalog_parse(refd, sizeof(refd) - 1, &c, &err), 0);
		assert_int_equal(mon_catalog_size(c), 3);
		assert_int_equal(mon_catalog_row(c, 0, &info), 0);
		assert_string_equal(info.raw, "rx_priority_{p}_xoff.nic");
		assert_string_equal(info.ref, "ice_ethtool.c (Linux 6.12)");
		assert_int_equal(info.kind, MON_COUNTER);
		assert_int_equal(mon_catalog_row(c, 1, &info), 0);
		assert_int_equal(info.width, 32);
		assert_string_equal(info.ref, "en_stats.c\tand counters.rst");
		assert_int_equal(mon_catalog_row(c, 2, &info), 0);
		assert_null(info.ref);
		assert_int_equal(mon_catalog_row(c, 3, &info), -ENOENT);
		assert_int_equal(mon_catalog_lookup(c, "ethtool", "ice", "rx_priority_3_xoff.nic",
						    -1, &h), 1);
		assert_string_equal(h.metric, "pfc.rx.prio3.frames");
		mon_catalog_free(c);
		assert_int_equal(mon_catalog_parse(bad_ref, sizeof(bad_ref) - 1, &c, &err),
				 -EINVAL);
		assert_non_null(strstr(err.why, "5 fields, expected 6 or 7"));
	}
	/* a folder is said to be one, not an I/O error */
	assert_int_equal(mon_catalog_load("/", &c, &err), -EISDIR);
	/* the built-in table passes its own checks, and every row names the upstream
	 * source it was checked against */
	assert_int_equal(mon_catalog_builtin(&c), 0);
	for (i = 0; i < mon_catalog_size(c); i++) {
		struct mon_catalog_info info;

		assert_int_equal(mon_catalog_row(c, i, &info), 0);
		if (!info.ref)
			fail_msg("built-in row %zu (%s %s %s) names no upstream source", i,
				 info.source, info.drivers, info.raw);
	}
	mon_catalog_free(c);
}

/* --- lib/nl message walking ---------------------------------------------------------- */

static void test_nl_messages(void **state)
{
	static uint8_t b[1024];
	struct nlmsghdr *a, *e;
	struct nlmsgerr *err;
	struct nl_msg m;
	struct rd r;
	size_t total;

	(void)state;
	a = mnl_nlmsg_put_header(b);
	a->nlmsg_type = 100;
	a->nlmsg_seq = 7;
	mnl_attr_put_u32(a, 1, 5);
	e = mnl_nlmsg_put_header(b + a->nlmsg_len);
	e->nlmsg_type = NLMSG_ERROR;
	err = mnl_nlmsg_put_extra_header(e, sizeof(*err));
	err->error = -EOPNOTSUPP;
	total = a->nlmsg_len + e->nlmsg_len;
	r = rd_init(b, total);
	assert_int_equal(nl_msg_next(&r, &m), 1);
	assert_int_equal(m.type, 100);
	assert_int_equal(m.seq, 7);
	assert_int_equal(nl_msg_next(&r, &m), 1);
	assert_int_equal(m.type, NLMSG_ERROR);
	assert_int_equal(nl_msg_error(&m), -EOPNOTSUPP);
	assert_int_equal(nl_msg_next(&r, &m), 0);
	/* Truncated second header; a length running past the buffer. */
	r = rd_init(b, a->nlmsg_len + 8);
	assert_int_equal(nl_msg_next(&r, &m), 1);
	assert_int_equal(nl_msg_next(&r, &m), -EBADMSG);
	a->nlmsg_len = 4000;
	r = rd_init(b, total);
	assert_int_equal(nl_msg_next(&r, &m), -EBADMSG);
	/* An error payload cut short. */
	m.payload = rd_init(err, 2);
	assert_int_equal(nl_msg_error(&m), -EBADMSG);
}

/* --- recorder ------------------------------------------------------------------------ */


/* A fresh folder DIR (a mkdtemp template), the fake source with two fields on an engine
 * made from CFG, and a record of it there. */
static void rec_start(char *dir, const struct mon_engine_cfg *cfg, struct mon_engine **e,
		      struct mon_rec **rec)
{
	int failed;

	assert_non_null(mkdtemp(dir));
	memset(&fk, 0, sizeof(fk));
	fk.nfields = 2;
	assert_int_equal(mon_engine_new(cfg, e), 0);
	mon_engine_add(*e, &fake_ops, "eth9", 0, -1);
	assert_int_equal(mon_engine_start(*e, &failed), 0);
	assert_int_equal(mon_rec_open(dir, *e, 0, NULL, rec), 0);
}
static void test_record_files(void **state)
{
	char dir[] = "/tmp/pfclab-rec-XXXXXX", path[256], line[8192];
	struct rec_cols cols = { 0 };
	struct evlog log = { { 0 } };
	struct mon_engine_cfg cfg = { .interval_ns = 1000000, .on_event = on_ev, .arg = &log };
	const struct mon_sample *s;
	struct mon_engine *e;
	struct mon_rec *rec;
	json_object *o;
	FILE *f;
	int lines = 0;

	(void)state;
	rec_start(dir, &cfg, &e, &rec);
	g_rec = rec;
	mon_engine_sample(e, &s);
	assert_int_equal(mon_rec_sample(rec, s), 0);
	fk.sample_rc = -ENODEV;			/* a gap row: n/a values */
	mon_engine_sample(e, &s);
	assert_int_equal(mon_rec_sample(rec, s), 0);
	g_rec = NULL;
	/* lines are written in batches: everything is in the files once closed */
	assert_int_equal(mon_rec_close(rec), 0);
	mon_engine_free(e);

	snprintf(path, sizeof(path), "%s/samples.csv", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "seq,mono_ns,wall_ns,dt_ns,overruns,gaps,"
				  "ethtool:eth9:rx_prio3_pause,ethtool:eth9:tx_prio3_pause\n");
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(strstr(line, ",0,1\n"));	/* base 0: values 0 and 1 */
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(strstr(line, ",ethtool:eth9,n/a,n/a\n"));
	fclose(f);
	snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		static const char *const want[] = {
			"{\"type\":\"columns\",\"names\":[\"ethtool:eth9:rx_prio3_pause\","
			"\"ethtool:eth9:tx_prio3_pause\"],\"kinds\":[\"counter\",\"counter\"]}\n",
			"\"gaps\":[],\"values\":[0,1],\"rates\":[null,null]}\n",
			"\"event\":\"gap_begin\"",
			"\"gaps\":[\"ethtool:eth9\"],\"values\":[null,null],\"rates\":[null,null]}\n",
		};
		json_object *v, *x;

		assert_in_range(lines, 0, 3);
		assert_non_null(strstr(line, want[lines]));
		o = json_tokener_parse(line);
		assert_non_null(o);
		/* the keyed view readers take (recfile.h) */
		assert_int_equal(rec_line_keyed(&cols, o), lines == 0);
		if (lines == 1) {
			assert_true(json_object_object_get_ex(o, "values", &v));
			assert_true(json_object_object_get_ex(v, "ethtool:eth9:tx_prio3_pause", &x));
			assert_int_equal(json_object_get_int(x), 1);
			assert_true(json_object_object_get_ex(o, "rates", &v));
			assert_true(json_object_object_get_ex(v, "ethtool:eth9:rx_prio3_pause", &x));
			assert_null(x);
		}
		json_object_put(o);
		lines++;
	}
	fclose(f);
	rec_cols_free(&cols);
	assert_int_equal(lines, 4);	/* columns, sample, gap event, sample */
	assert_int_equal(mon_rec_check_dir(dir), -EEXIST); /* a run is there now */
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	o = json_object_from_file(path);
	assert_non_null(o);
	{
		json_object *fin;

		assert_true(json_object_object_get_ex(o, "finished", &fin));
		assert_true(json_object_get_boolean(fin));
	}
	json_object_put(o);
	snprintf(line, sizeof(line), "rm -rf %s", dir);
	assert_int_equal(system(line), 0);
}

/* Numbers as both files write them: one digit, two, three, twelve, 2^64 - 1; a counter
 * that did not move has the rate 0, one that moved a positive rate, the first sample none.
 */
static void test_record_numbers(void **state)
{
	static const uint64_t base[] = { 0, 0, 8, 9, 99, 999999999999ULL, UINT64_MAX - 1 };
	static const char *const want[] = { "0,1", "0,1", "8,9", "9,10", "99,100",
		"999999999999,1000000000000", "18446744073709551614,18446744073709551615" };
	char dir[] = "/tmp/pfclab-recn-XXXXXX", path[256], line[8192], *t;
	struct mon_engine_cfg cfg = { .interval_ns = 1000000 };
	const struct mon_sample *s;
	struct mon_engine *e;
	struct mon_rec *rec;
	size_t i, k = 0;
	FILE *f;

	(void)state;
	rec_start(dir, &cfg, &e, &rec);
	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		fk.base = base[i];
		mon_engine_sample(e, &s);
		assert_int_equal(mon_rec_sample(rec, s), 0);
	}
	assert_int_equal(mon_rec_close(rec), 0);
	mon_engine_free(e);
	snprintf(path, sizeof(path), "%s/samples.csv", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));	/* the header */
	for (i = 0; fgets(line, sizeof(line), f); i++) {
		assert_in_range(i, 0, 6);
		t = strrchr(line, '\n');
		assert_non_null(t);
		*t = '\0';
		t = line + strlen(line) - strlen(want[i]);
		assert_true(t > line && t[-1] == ',');
		assert_string_equal(t, want[i]);
	}
	fclose(f);
	assert_int_equal(i, 7);
	snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		json_object *o = json_tokener_parse(line), *v, *x;
		char vals[128];

		assert_non_null(o);
		if (!strstr(line, "\"type\":\"sample\"")) {
			json_object_put(o);
			continue;
		}
		assert_in_range(k, 0, 6);
		snprintf(vals, sizeof(vals), "\"values\":[%s],", want[k]);
		assert_non_null(strstr(line, vals));
		if (k == 0)
			assert_non_null(strstr(line, "\"rates\":[null,null]}"));
		else if (k == 1)
			assert_non_null(strstr(line, "\"rates\":[0,0]}"));
		else {
			assert_true(json_object_object_get_ex(o, "rates", &v));
			x = json_object_array_get_idx(v, 1);
			assert_true(json_object_is_type(x, json_type_double) ||
				    json_object_is_type(x, json_type_int));
			assert_true(json_object_get_double(x) > 0);
		}
		json_object_put(o);
		k++;
	}
	fclose(f);
	assert_int_equal(k, 7);
	snprintf(line, sizeof(line), "rm -rf %s", dir);
	assert_int_equal(system(line), 0);
}

/* Lines of samples.jsonl as readers take them: format 2's arrays keyed by the names of the
 * "columns" line before them; samples that do not fit them refused; format 1 as it is. */
static int keyed(struct rec_cols *c, const char *text, json_object **out)
{
	json_object *o = json_tokener_parse(text);
	int rc;

	assert_non_null(o);
	rc = rec_line_keyed(c, o);
	if (out)
		*out = o;
	else
		json_object_put(o);
	return rc;
}

static void test_record_keyed_lines(void **state)
{
	struct rec_cols c = { 0 };
	json_object *o, *v, *x;

	(void)state;
	/* a sample before any columns line */
	assert_int_equal(keyed(&c, "{\"type\":\"sample\",\"values\":[1],\"rates\":[2]}", NULL),
			 -EPROTO);
	assert_int_equal(keyed(&c, "{\"type\":\"columns\",\"names\":[\"a\",\"b\",\"c\"],"
				   "\"kinds\":[\"counter\",\"gauge\",\"counter\"]}", NULL), 1);
	assert_int_equal(keyed(&c, "{\"type\":\"sample\",\"values\":[1,7,null],"
				   "\"rates\":[0.5,null,null]}", &o), 0);
	assert_true(json_object_object_get_ex(o, "values", &v));
	assert_int_equal(json_object_object_length(v), 3);
	assert_true(json_object_object_get_ex(v, "b", &x));
	assert_int_equal(json_object_get_int(x), 7);
	assert_true(json_object_object_get_ex(v, "c", &x));
	assert_null(x);
	assert_true(json_object_object_get_ex(o, "rates", &v));
	assert_int_equal(json_object_object_length(v), 2);	/* the counters a and c */
	assert_false(json_object_object_get_ex(v, "b", NULL));
	assert_true(json_object_object_get_ex(v, "a", &x));
	assert_true(json_object_get_double(x) == 0.5);
	json_object_put(o);
	/* another count of values or rates, rates not an array */
	assert_int_equal(keyed(&c, "{\"type\":\"sample\",\"values\":[1,2],\"rates\":[1,2]}",
			       NULL), -EPROTO);
	assert_int_equal(keyed(&c, "{\"type\":\"sample\",\"values\":[1,2,3],\"rates\":[1]}",
			       NULL), -EPROTO);
	assert_int_equal(keyed(&c, "{\"type\":\"sample\",\"values\":[1,2,3],\"rates\":{}}",
			       NULL), -EPROTO);
	/* without rates: values only */
	assert_int_equal(keyed(&c, "{\"type\":\"sample\",\"values\":[1,2,3]}", NULL), 0);
	/* events, format 1 samples and other lines pass as they are */
	assert_int_equal(keyed(&c, "{\"type\":\"event\",\"event\":\"gap_begin\"}", NULL), 0);
	assert_int_equal(keyed(&c, "{\"type\":\"sample\",\"values\":{\"x\":1}}", &o), 0);
	assert_true(json_object_object_get_ex(o, "values", &v));
	assert_true(json_object_object_get_ex(v, "x", NULL));
	json_object_put(o);
	assert_int_equal(keyed(&c, "{\"type\":7}", NULL), 0);
	/* a broken columns line: the samples after it are refused until a good one */
	assert_int_equal(keyed(&c, "{\"type\":\"columns\",\"names\":[\"a\",3]}", NULL), 1);
	assert_int_equal(keyed(&c, "{\"type\":\"sample\",\"values\":[1,2]}", NULL), -EPROTO);
	assert_int_equal(keyed(&c, "{\"type\":\"columns\",\"names\":[\"a\"],\"kinds\":[]}",
			       NULL), 1);
	assert_int_equal(keyed(&c, "{\"type\":\"sample\",\"values\":[1]}", NULL), -EPROTO);
	/* without kinds: a rate where the line has one */
	assert_int_equal(keyed(&c, "{\"type\":\"columns\",\"names\":[\"a\",\"b\"]}", NULL), 1);
	assert_int_equal(keyed(&c, "{\"type\":\"sample\",\"values\":[1,2],\"rates\":[3,null]}",
			       &o), 0);
	assert_true(json_object_object_get_ex(o, "rates", &v));
	assert_int_equal(json_object_object_length(v), 1);
	json_object_put(o);
	rec_cols_free(&c);
	rec_cols_free(&c);	/* twice is harmless */
	assert_true(rec_format_known("pfclab-monitor-1"));
	assert_true(rec_format_known("pfclab-monitor-2"));
	assert_false(rec_format_known("pfclab-monitor-3"));
	assert_false(rec_format_known(NULL));
}

/* The writer meets a file size limit half way through a batch: both files keep the
 * same whole samples, meta.json counts them and says why, close reports the failure.
 */
static int count_lines(const char *dir, const char *name, const char *needle)
{
	char path[256], line[8192];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		assert_non_null(strchr(line, '\n'));	/* no cut line */
		n += !needle || strstr(line, needle);
	}
	fclose(f);
	return n;
}

static void test_record_write_fails(void **state)
{
	char dir[] = "/tmp/pfclab-recf-XXXXXX", path[256];
	struct mon_engine_cfg cfg = { .interval_ns = 1000000 };
	struct rlimit old, lim = { 100000, 100000 };
	const struct mon_sample *s;
	struct mon_engine *e;
	struct mon_rec *rec;
	json_object *o, *v;
	void (*oldsig)(int);
	int i, rows, jrows;

	(void)state;
	rec_start(dir, &cfg, &e, &rec);
	/* 3000 samples of ~0.3 KB: one batch, written at close in 64 KiB pieces, of
	 * which the second crosses the 100 kB limit */
	for (i = 0; i < 3000; i++) {
		fk.base = (uint64_t)i;
		mon_engine_sample(e, &s);
		assert_int_equal(mon_rec_sample(rec, s), 0);
	}
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim.rlim_max = old.rlim_max;	/* the soft limit only: it can be raised back */
	oldsig = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(mon_rec_close(rec), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, oldsig);
	mon_engine_free(e);

	rows = count_lines(dir, "samples.csv", NULL) - 1;
	jrows = count_lines(dir, "samples.jsonl", "\"type\":\"sample\"");
	assert_int_equal(rows, jrows);
	assert_in_range(rows, 1, 2999);
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	o = json_object_from_file(path);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "samples", &v));
	assert_int_equal(json_object_get_int(v), rows);
	assert_true(json_object_object_get_ex(o, "error", &v));
	assert_non_null(strstr(json_object_get_string(v), "File too large"));
	json_object_put(o);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/* --stats: no part above its whole. The parts, the whole and the wait are estimates
 * from the same measured samples; a whole below the parts' sum (clock reads
 * overestimated) is raised to it, a whole and wait above what the thread spent (costly
 * measured samples) brought down to that with the parts in proportion; each said by a
 * flag; the wait stays what was measured (never a remainder: a scaled-down wait is not
 * 0), the rest is the loop around them.
 */
static void test_cpu_fit(void **state)
{
	static const struct {
		uint64_t part[3], whole_est, wait_est, thread;
		uint64_t want_part[3], want_whole, want_wait, want_rest;
		bool raised, scaled_down;
	} t[] = {
		/* consistent: as measured, 20 for the loop */
		{ { 30, 40, 0 }, 100, 130, 250, { 30, 40, 0 }, 100, 130, 20, false, false },
		/* a source's 94 over a whole of 90 (the case seen on a loaded host) */
		{ { 94, 0, 5 }, 90, 300, 400, { 94, 0, 5 }, 99, 300, 1, true, false },
		/* the estimates above the thread's own CPU: down to it, the wait too (the
		 * case where a remainder made the wait 0) */
		{ { 60, 20, 20 }, 200, 100, 150, { 30, 10, 10 }, 100, 50, 0, false, true },
		/* both: raised to 120, then with the wait of 30 down to 75 */
		{ { 90, 30, 0 }, 100, 30, 75, { 45, 15, 0 }, 60, 15, 0, true, true },
		/* nothing measured */
		{ { 0, 0, 0 }, 0, 0, 0, { 0, 0, 0 }, 0, 0, 0, false, false },
		/* rounding down keeps the sums within their wholes */
		{ { 1, 1, 1 }, 3, 3, 4, { 0, 0, 0 }, 2, 2, 0, false, true },
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t part[3], sum = 0;
		struct mon_cpu_fig f;

		memcpy(part, t[i].part, sizeof(part));
		mon_cpu_fit(part, 3, t[i].whole_est, t[i].wait_est, t[i].thread, &f);
		for (k = 0; k < 3; k++) {
			assert_int_equal(part[k], t[i].want_part[k]);
			assert_true(part[k] <= f.whole);
			sum += part[k];
		}
		assert_true(sum <= f.whole);
		assert_int_equal(f.whole, t[i].want_whole);
		assert_int_equal(f.wait, t[i].want_wait);
		assert_int_equal(f.rest, t[i].want_rest);
		assert_int_equal(f.whole + f.wait + f.rest, t[i].thread);
		assert_int_equal(f.raised, t[i].raised);
		assert_int_equal(f.scaled_down, t[i].scaled_down);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_val_counter),
		cmocka_unit_test(test_val_wrap32),
		cmocka_unit_test(test_val_gauge),
		cmocka_unit_test(test_engine_lifecycle),
		cmocka_unit_test(test_engine_schedule),
		cmocka_unit_test(test_cpu_fit),
		cmocka_unit_test(test_source_names),
		cmocka_unit_test(test_catalog_parse),
		cmocka_unit_test(test_nl_messages),
		cmocka_unit_test(test_record_files),
		cmocka_unit_test(test_record_keyed_lines),
		cmocka_unit_test(test_record_numbers),
		cmocka_unit_test(test_record_write_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
