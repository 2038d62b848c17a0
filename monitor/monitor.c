// SPDX-License-Identifier: GPL-2.0-or-later
/* monitor.c: "pfclab monitor": options, then the engine loop feeding the text or JSON
 * renderer and the recorder. Exit status: 0 done, 1 run-time failure, 2 usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/hw/gpu.h"
#include "lib/hw/steal.h"
#include "lib/out.h"
#include "lib/opt.h"
#include "lib/util.h"
#include "monitor/catalog.h"
#include "monitor/monitor.h"
#include "monitor/record.h"
#include "monitor/sampler.h"
#include "monitor/sources/setup.h"

struct mon_opts {
	const char *iface;
	const char *rdma;
	unsigned rdma_port;
	int gpus[HW_GPU_MAX];	/* --gpu resolved here: the GPUs' indices */
	size_t ngpus;
	const char *gpu_s;	/* --gpu as given */
	uint64_t interval_ns;
	uint64_t gpu_interval_ns;	/* NVML reader cadence; 0: the source's default */
	uint64_t count;
	uint64_t duration_ns;
	uint64_t rt_priority;	/* SCHED_FIFO priority of the sampling thread; 0: normal */
	const char *record;
	bool force;
	const char *catalog;
	const char *sources;
	const char *frames;	/* capture interface for the "frames" source */
	bool frames_on;
	bool json, raw, quiet, stats;
	bool all;		/* --json: every value each interval, not only changed ones */
};

struct mon_ctx {
	struct mon_opts o;
	struct mon_rec *rec;
	struct mon_engine *e;
	/* Events that happen before the recorder is open (unsupported sources at start). */
	struct {
		struct mon_event ev;
		char msg[512];
	} early[MON_MAX_SRC * 2];
	size_t nearly;
	bool rec_failed;
	uint64_t unshown;	/* text: samples in a row with nothing to show, not yet said */
	uint64_t shown_ns;	/* text: the time of the last sample said */
	uint32_t gap_said;	/* text: the sources whose gap was last said ... */
	uint64_t gap_said_ns;	/* ... at this time */
	uint64_t gap_since[MON_MAX_SRC];	/* text: the first sample of a source's gap */
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static const char monitor_usage[] =
"Usage: pfclab monitor [-i IFACE] [-d RDMADEV[:PORT]] [--gpu G|LIST|all]\n"
"                      [--interval 10ms] [--count N] [--duration 30s] [--record DIR]\n"
"                      [--json] [--raw]\n"
"                      [--frames[=IFACE]] [--all]\n"
"\n"
"Samples NIC, RDMA, PFC/ECN/CNP and GPU PCIe counters in-process, every 100 us to 1 h,\n"
"and prints per interval the metrics that changed, with deltas, rates and units.\n"
"Give at least one of -i, -d and --gpu.\n"
"\n";
static const char monitor_tail[] =
"\n"
"The first sample is the baseline, taken as soon as the sources are open: the next\n"
"one's deltas cover the whole first interval. --duration 3s at 1s samples at 0, 1, 2\n"
"and 3 s and ends; --count N takes N samples, the baseline included (N-1 intervals).\n"
"Text output starts with what is sampled and says when nothing changed.\n"
"A value that could not be read shows as n/a, never 0. A source the device does not\n"
"support is reported once; when no source can be read at all, the run fails.\n"
"Stop with Ctrl-C (or SIGTERM, or SIGHUP: a closed terminal); the record is finished.\n"
"Exit status: 0 done; 1 run-time failure (no source can be read, a device fails, the\n"
"record cannot be written or is refused); 2 usage error (an option or its value, a\n"
"--gpu this host does not have: see nvidia-smi -L).\n";

/* --rdma DEV[:PORT] */
static int parse_rdma(void *dst, const char *v, char *why, size_t len)
{
	static char dev[64];
	struct mon_opts *o = dst;

	if (opt_rdma_dev(v, dev, sizeof(dev), &o->rdma_port, why, len))
		return -1;
	o->rdma = dev;
	return 0;
}

/* --sources: names from known, comma-separated; an empty item (",link", "link,",
 * "link,,pci") is refused, not skipped: it is a name left out or a typing slip.
 */
static int parse_sources(void *dst, const char *v, char *why, size_t len)
{
	const char *p = v, *e;
	size_t l;

	if (!*v) {
		snprintf(why, len, "give at least one source: " MON_SOURCES_TEXT);
		return -1;
	}
	for (;; p = e + 1) {
		e = strchr(p, ',');
		l = e ? (size_t)(e - p) : strlen(p);
		if (!l) {
			snprintf(why, len, "an empty item (a comma %s); give source names "
				 "separated by single commas, from " MON_SOURCES_TEXT,
				 p == v ? "at the start" : !e ? "at the end" : "after another");
			return -1;
		}
		if (!pfc_list_has(MON_SOURCES, p, l)) {
			snprintf(why, len, "unknown source '%.*s'; known: " MON_SOURCES_TEXT, (int)l, p);
			return -1;
		}
		if (!e)
			break;
	}
	*(const char **)dst = v;
	return 0;
}

/* Checks between options, once all are known; 2 usage error, 1 run-time, -1 go on. */
static int check_opts(const struct mon_opts *o)
{
	if (o->force && !o->record) {
		pfc_err("--force needs --record DIR");
		return 2;
	}
	if (o->record && !o->force && mon_rec_check_dir(o->record) == -EEXIST) {
		pfc_err("%s already holds a monitor run (meta.json, samples); give a new "
			"folder, or --force to replace it", o->record);
		return 1;
	}
	if (!o->iface && !o->rdma && !o->ngpus) {
		pfc_err("nothing to monitor: give -i IFACE, -d RDMADEV and/or --gpu G");
		return 2;
	}
	if (o->all && !o->json) {
		pfc_err("--all goes with --json; add --json");
		return 2;
	}
	if (o->frames_on && !o->frames && !o->iface) {
		pfc_err("--frames needs an interface: give --frames=IFACE or -i IFACE");
		return 2;
	}
	return -1;
}

/* 0 after --help, 2 usage error, 1 run-time failure, -1 go on. */
static int parse_opts(int argc, char **argv, struct mon_opts *o)
{
	const struct opt opts[] = {
		{ "iface", 'i', OPT_STR, .dst = &o->iface, .arg = "IFACE",
		  .help = "network interface: ethtool -S (ioctl), PAUSE (ethtool netlink),\n"
			  "DCB PFC (RTM_GETDCB), link statistics (rtnetlink), PCI link",
		  .long_alias = "interface" },
		{ "rdma", 'd', OPT_FN, .dst = o, .fn = parse_rdma, .arg = "DEV[:PORT]",
		  .help = "RDMA device: hw counters (RDMA netlink, sysfs fallback); port 1",
		  .long_alias = "ib-dev" },
		{ "gpu", 0, OPT_FN, .dst = &o->gpu_s, .fn = hw_gpu_set_opt, .arg = "G",
		  .help = "NVIDIA GPU G, an index as nvidia-smi -L numbers them or a\n"
			  "PCI address (0000:17:00.0 or 17:00.0): PCIe rx/tx bytes and\n"
			  "throughput, replays, link (NVML; bytes from its cumulative\n"
			  "counters where supported), as pcie.gpuG.*. A comma list\n"
			  "(0,1 or 17:00.0,65:00.0, up to 16) or all: every GPU, each\n"
			  "read on its own cadence, in one record" },
		{ "gpu-interval", 0, OPT_DUR, 1000000ULL, 60000000ULL, &o->gpu_interval_ns,
		  .arg = "DUR",
		  .help = "how often the NVML reader thread reads, on its own cadence:\n"
			  "1ms..60ms (the counters wrap every ~67 ms at 64 GB/s). Default\n"
			  "10ms, or the sampling interval up to 50ms when that is longer;\n"
			  "then less often, up to 50ms, while one read costs over 0.05 ms\n"
			  "of CPU (the driver spins: ~0.4 ms on an H100), to keep the\n"
			  "reads within 0.5% of a core where 50ms allows (an H100's\n"
			  "come to ~1% at 50ms). A value given here is kept" },
		{ "frames", 0, OPT_STR, .dst = &o->frames, .arg = "IFACE", .flags = OPT_OPTIONAL,
		  .help = "also capture PAUSE/PFC, CNP and CE-marked RoCEv2 frames on\n"
			  "IFACE (default: the -i interface; mlx5_0-style RDMA sniffer\n"
			  "names work) and count them per interval beside the counters" },
		{ "interval", 'I', OPT_DUR, MON_INTERVAL_MIN_NS, MON_INTERVAL_MAX_NS, &o->interval_ns,
		  .arg = "DUR", .help = "sampling interval, 100us to 1h (default 1s): 500us, 10ms,\n"
					"1.5s" },
		{ "count", 'c', OPT_U64, 1, UINT64_MAX, &o->count, .arg = "N",
		  .help = "stop after N samples, the baseline included (1: the baseline\n"
			  "alone, at once)" },
		{ "duration", 'D', OPT_DUR, 1000000ULL, UINT64_MAX, &o->duration_ns, .arg = "DUR",
		  .help = "stop DUR after the baseline, with a last sample then (one\n"
			  "shorter interval where DUR is no multiple of the interval)",
		  .alias = "t" },
		{ "rt-priority", 0, OPT_U64, 1, 99, &o->rt_priority, .arg = "N",
		  .help = "sample at real-time priority N (SCHED_FIFO 1-99) so that busy\n"
			  "CPUs (a traffic run spinning on every core) do not delay the\n"
			  "ticks; the reader and writer threads stay as they are. Needs\n"
			  "root or CAP_SYS_NICE" },
		{ "record", 'r', OPT_STR, .dst = &o->record, .arg = "DIR",
		  .help = "record to DIR: samples.csv, samples.jsonl, meta.json; a DIR\n"
			  "that holds a run already is refused" },
		{ "force", 0, OPT_FLAG, .dst = &o->force, .help = "with --record: replace the run in DIR" },
		{ "json", 'j', OPT_FLAG, .dst = &o->json, .help = "print JSON lines instead of text" },
		{ "all", 0, OPT_FLAG, .dst = &o->all,
		  .help = "with --json: every value each interval under \"values\" (null\n"
			  "when not read), not only those that changed" },
		{ "raw", 0, OPT_FLAG, .dst = &o->raw,
		  .help = "also show counters the catalog does not name, by raw name" },
		{ "quiet", 'q', OPT_FLAG, .dst = &o->quiet,
		  .help = "print nothing on standard output (with --record)" },
		{ "stats", 0, OPT_FLAG, .dst = &o->stats,
		  .help = "at the end, print samples, overruns, the host's steal time\n"
			  "and CPU time per sample (each source's, recording's and\n"
			  "the timer waits' apart)" },
		{ "sources", 0, OPT_FN, .dst = &o->sources, .fn = parse_sources, .arg = "LIST",
		  .help = "only these sources: " MON_SOURCES " (qdisc: "
			  "every qdisc of IFACE, only when named; lossless:\n"
			  "'pfclab link' counters of IFACE, on by itself where it runs)" },
		{ "catalog", 0, OPT_STR, .dst = &o->catalog, .arg = "FILE",
		  .help = "use FILE instead of the built-in counter catalog" },
		OPT_END
	};
	const struct opt_cmd cmd = { "monitor", monitor_usage, monitor_tail, opts, .extra = NULL };
	int first;

	memset(o, 0, sizeof(*o));
	o->rdma_port = 1;
	o->interval_ns = 1000000000ULL;
	first = opt_parse(&cmd, argc, argv);
	if (first < 0)
		return first == OPT_HELP ? 0 : 2;
	if (first < argc) {
		pfc_err("unexpected argument '%s'; see 'pfclab monitor --help'", argv[first]);
		return 2;
	}
	o->frames_on = opt_given(&cmd, "frames");
	if (o->gpu_s) {
		char why[200];

		/* a GPU this host does not have is a usage error, by index or address */
		int n = hw_gpu_set_index(o->gpu_s, o->gpus, HW_GPU_MAX, why, sizeof(why));

		if (n < 0) {
			pfc_err("--gpu '%s': %s", o->gpu_s, why);
			return n == -EINVAL || n == -ENODEV ? 2 : 1;
		}
		o->ngpus = (size_t)n;
	}
	return check_opts(o);
}

static void on_event(void *arg, const struct mon_event *ev)
{
	struct mon_ctx *x = arg;

	if (ev->type != MON_EV_LAYOUT || !x->o.quiet)
		pfc_warn("%s", ev->msg);
	if (x->o.json && !x->o.quiet) {
		/* Machine readers see events in the same stream as the samples; people read
		 * them on standard error above.
		 */
		struct out o;

		out_begin(&o, true);
		out_str(&o, "event", NULL, mon_event_name(ev->type));
		out_uint(&o, "seq", NULL, ev->seq);
		out_uint(&o, "mono_ns", NULL, ev->mono_ns);
		if (ev->src) {
			out_str(&o, "source", NULL, ev->src->ops->name);
			out_str(&o, "device", NULL, ev->src->dev);
		}
		out_str(&o, "message", NULL, ev->msg);
		out_end(&o);
	}
	if (x->rec) {
		if (!x->rec_failed && mon_rec_event(x->rec, ev)) {
			pfc_err("%s", mon_rec_error(x->rec));
			x->rec_failed = true;
		}
	} else if (x->nearly < ARRAY_SIZE(x->early)) {
		x->early[x->nearly].ev = *ev;
		snprintf(x->early[x->nearly].msg, sizeof(x->early[0].msg), "%s", ev->msg);
		x->early[x->nearly].ev.msg = x->early[x->nearly].msg;
		x->nearly++;
	}
}

/* "12.3 k" style: value scaled by 1000s with a suffix. */
static void human(double v, const char *unit, char *buf, size_t n)
{
	static const char *const pfx[] = { "", "k", "M", "G", "T" };
	size_t i = 0;

	while (fabs(v) >= 1000.0 && i + 1 < ARRAY_SIZE(pfx)) {
		v /= 1000.0;
		i++;
	}
	snprintf(buf, n, i ? "%.2f %s%s" : "%.0f %s%s", v, pfx[i], unit);
}

static bool shown(const struct mon_ctx *x, const struct mon_col *c)
{
	return x->o.raw || c->metric[0];
}

/* Listed this sample: changed (JSON --all: every value), and named or --raw. */
static bool listed(const struct mon_ctx *x, const struct mon_col *c, const struct mon_val *v)
{
	return (x->o.all || (v->flags & MON_V_CHANGED)) && shown(x, c);
}

static const char *col_name(const struct mon_ctx *x, const struct mon_col *c)
{
	return c->metric[0] && !x->o.raw ? c->metric : c->key;
}

/* "#12 3.000104s dt 10.021 ms (2 intervals missed: ...)", and the text note ("" when
 * none) before the line's end.
 */
/* The text's " 3.000104s": the sample's time, seconds to the microsecond. */
static void text_time(struct out *o, const struct mon_sample *s)
{
	out_text(o, " %" PRIu64 ".%06" PRIu64 "s", (uint64_t)(s->mono_ns / 1000000000ULL),
		 (uint64_t)((s->mono_ns / 1000) % 1000000));
}

static void sample_head(struct out *o, const struct mon_sample *s, const char *note)
{
	out_uint(o, "seq", "#%" PRIu64, s->seq);
	out_uint(o, "mono_ns", NULL, s->mono_ns);
	text_time(o, s);
	out_uint(o, "wall_ns", NULL, s->wall_ns);
	out_uint(o, "dt_ns", NULL, s->dt_ns);
	out_text(o, " dt %.3f ms", s->dt_ns / 1e6);
	out_uint(o, "overruns", s->overruns > 1 ? " (%" PRIu64 " intervals missed: sampling "
		 "fell behind)" : s->overruns ? " (%" PRIu64 " interval missed: sampling fell "
		 "behind)" : NULL, s->overruns);
	out_text(o, "%s\n", note);
}

/* Sources with no data this sample: JSON "source:dev" strings, text one line each; a
 * gap that goes on says since when.
 */
static void sample_gaps(struct out *o, const struct mon_ctx *x, const struct mon_sample *s)
{
	size_t i;

	out_arr_open(o, "gaps");
	for (i = 0; i < mon_engine_nsrc(x->e); i++)
		if (s->gap_mask & (1u << i)) {
			const struct mon_src *src = mon_engine_src(x->e, i);
			char k[160];

			snprintf(k, sizeof(k), "%s:%s", src->ops->name, src->dev);
			out_str(o, NULL, NULL, k);
			out_text(o, "#%" PRIu64 " gap: %s on %s: n/a", s->seq, src->ops->name,
				 src->dev);
			if (i < MON_MAX_SRC && x->gap_since[i] && x->gap_since[i] < s->seq)
				out_text(o, " since #%" PRIu64 " (%" PRIu64 " samples)",
					 x->gap_since[i], s->seq - x->gap_since[i] + 1);
			out_text(o, "\n");
		}
	out_obj_close(o);
}

/* Text: whether this sample's gaps are said. A gap is said as it begins, or as the set
 * of sources without data changes, then once a second while it goes on: at 1 ms a line
 * a sample for each source would bury everything else.
 */
static bool text_gaps_due(struct mon_ctx *x, const struct mon_sample *s)
{
	size_t i;
	bool due;

	for (i = 0; i < mon_engine_nsrc(x->e) && i < MON_MAX_SRC; i++)
		if (!(s->gap_mask & (1u << i)))
			x->gap_since[i] = 0;
		else if (!x->gap_since[i])
			x->gap_since[i] = s->seq;
	if (!s->gap_mask) {
		x->gap_said = 0;
		return false;
	}
	due = s->gap_mask != x->gap_said || s->mono_ns - x->gap_said_ns >= 1000000000ULL;
	if (due) {
		x->gap_said = s->gap_mask;
		x->gap_said_ns = s->mono_ns;
	}
	return due;
}

/* A counter's text cells: "+1500 B" (or reset / n/a) and its rate ("1.50 kB/s"; pause
 * time as a share of the interval).
 */
static void counter_cells(const struct mon_col *c, const struct mon_val *v, char *d, char *r,
			  size_t n)
{
	char unit[24];

	if (!(v->flags & MON_V_DELTA)) {
		snprintf(d, n, "%s", v->flags & MON_V_RESET ? "reset" : "n/a");
		snprintf(r, n, "n/a");
		return;
	}
	snprintf(unit, sizeof(unit), "%s/s", !strcmp(c->unit, "packets") ? "pkt" : c->unit);
	snprintf(d, n, "+%" PRIu64 "%s%s", v->delta, c->unit[0] ? " " : "", c->unit);
	if (!strcmp(c->unit, "us"))
		snprintf(r, n, "%.1f%% of time", v->rate / 1e4);
	else
		human(v->rate, unit, r, n);
}

/* One value: a JSON object under its name, a text line (gauges show the reading,
 * counters the delta and rate).
 */
static void sample_value(struct out *o, const char *name, const struct mon_col *c,
			 const struct mon_val *v)
{
	bool gauge = c->kind == MON_GAUGE;
	char d[48], r[48];

	out_obj_open(o, name);
	out_text(o, "  %-40s", name);
	out_uint_na(o, "value", gauge ? " %20" PRIu64 : NULL, v->raw, v->flags & MON_V_VALID);
	if (!gauge) {
		counter_cells(c, v, d, r, sizeof(d));
		if (v->flags & MON_V_DELTA) {
			out_uint(o, "delta", NULL, v->delta);
			out_double(o, "rate", NULL, v->rate);
		} else {
			out_na(o, "delta", NULL);
			out_na(o, "rate", NULL);
		}
		out_text(o, " %18s %16s", d, r);
	}
	out_str(o, "unit", gauge ? " %s" : NULL, c->unit);
	if (v->flags & MON_V_RESET)
		out_bool(o, "reset", NULL, true);	/* text: in the delta cell */
	if (v->flags & MON_V_WRAP)
		out_bool(o, "wrapped", gauge ? NULL : " (wrapped)", true);
	out_text(o, "\n");
	out_obj_close(o);
}

/* Text: the shown values the baseline read. */
static size_t baseline_read(const struct mon_ctx *x, const struct mon_sample *s)
{
	const struct mon_col *c;
	size_t i, n, k = 0;

	c = mon_engine_cols(x->e, &n);
	for (i = 0; i < s->ncol && i < n; i++)
		k += shown(x, &c[i]) && (s->v[i].flags & MON_V_VALID);
	return k;
}

/* Text: a sample with nothing to show is said in a line once a second of them (each
 * one at intervals of a second and more), and at the end, so that a quiet link does
 * not look like a hung monitor: "#3 ... dt 1000.034 ms: no change", or "#101 ...: no
 * change in the last 100 samples (1.000 s)".
 */
static void text_quiet(struct mon_ctx *x, struct out *o, const struct mon_sample *s, bool end)
{
	if (!end)
		x->unshown++;
	if (!x->unshown || (!end && x->unshown * mon_engine_interval(x->e) < 1000000000ULL))
		return;
	if (x->unshown == 1)
		sample_head(o, s, ": no change");
	else {
		out_text(o, "#%" PRIu64, s->seq);
		text_time(o, s);
		out_text(o, ": no change in the last %" PRIu64 " samples (%.3f s)\n",
			 x->unshown, (double)(s->mono_ns - x->shown_ns) / 1e9);
	}
	x->unshown = 0;
	x->shown_ns = s->mono_ns;
}

/* A sample: text prints the values that changed (a head line first; the baseline
 * says how many values it read; a run of samples where nothing changed is said once a
 * second), then the gaps; JSON one line with the gaps first, the baseline too (dt_ns 0,
 * nothing changed yet).
 */
static void render_sample(struct mon_ctx *x, const struct mon_sample *s)
{
	const struct mon_col *c;
	struct out o;
	size_t i, n;
	bool any = s->overruns > 0, gaps = false;

	c = mon_engine_cols(x->e, &n);
	for (i = 0; i < s->ncol && !any; i++)
		any = listed(x, &c[i], &s->v[i]);
	out_begin(&o, x->o.json);
	if (!o.json && s->seq == 1) {
		out_text(&o, "#%" PRIu64, s->seq);
		text_time(&o, s);
		out_text(&o, " baseline: %zu values read; each interval lists those that "
			 "change\n", baseline_read(x, s));
	} else if (any || o.json) {
		sample_head(&o, s, "");
	}
	if (!o.json)
		gaps = text_gaps_due(x, s);
	if (!o.json && s->seq != 1 && !any && !s->gap_mask) {
		text_quiet(x, &o, s, false);	/* nothing to list: said once a second */
	} else {	/* this sample has its lines, or a gap said within the second holds it */
		x->unshown = 0;
		x->shown_ns = s->mono_ns;
	}
	if (o.json)
		sample_gaps(&o, x, s);
	out_obj_open(&o, x->o.all ? "values" : "changed");
	for (i = 0; i < s->ncol; i++) {
		const char *name = col_name(x, &c[i]);

		if (!listed(x, &c[i], &s->v[i]))
			continue;
		/* A metric two sources report (dcb and ethtool): a reading beats a null. */
		if (!(s->v[i].flags & MON_V_VALID) && out_has(&o, name))
			continue;
		sample_value(&o, name, &c[i], &s->v[i]);
	}
	out_obj_close(&o);
	if (!o.json && gaps)
		sample_gaps(&o, x, s);
	out_end_lines(&o);
}

static int add_sources(struct mon_ctx *x)
{
	const struct mon_opts *o = &x->o;
	struct mon_sources_want w = {
		.iface = o->iface, .rdma = o->rdma, .rdma_port = o->rdma_port,
		.gpus = o->gpus, .ngpus = o->ngpus,
		.frames = o->frames_on ? (o->frames ? o->frames : o->iface) : NULL,
		.only = o->sources,
		.gpu_cadence_ns = mon_sources_gpu_cadence(o->interval_ns, o->gpu_interval_ns),
		.gpu_cadence_fixed = o->gpu_interval_ns != 0,
	};

	return mon_sources_add(x->e, &w);
}

/* "ethtool, link on vb; rdma on rxe0": the sources in state st, grouped by device. */
static void src_list(const struct mon_ctx *x, enum mon_src_state st, char *buf, size_t len)
{
	size_t i, off = 0, n = mon_engine_nsrc(x->e);
	const char *dev = NULL;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		const struct mon_src *src = mon_engine_src(x->e, i);

		if (mon_engine_src_state(x->e, i) != st)
			continue;
		if (dev && strcmp(dev, src->dev))
			off += (size_t)snprintf(buf + off, len - off, " on %s; ", dev);
		else if (dev)
			off += (size_t)snprintf(buf + off, len - off, ", ");
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s", src->ops->name);
		dev = src->dev;
	}
	if (dev && off < len)
		snprintf(buf + off, len - off, " on %s", dev);
}

/* Once the sources are open: 1 (said why) when none can be read, else 0. Those the
 * devices lack were said one by one as they were found.
 */
static int check_sources(const struct mon_ctx *x)
{
	char no[512];
	size_t i, n = mon_engine_nsrc(x->e);

	if (!n) {
		pfc_err("nothing to sample: --sources '%s' names none of the sources of what was "
			"given (ethtool, pause, dcb, link, pci, qdisc, lossless read -i IFACE; rdma -d; nvml "
			"and pci --gpu)", x->o.sources ? x->o.sources : "");
		return 1;
	}
	for (i = 0; i < n; i++)
		if (mon_engine_src_state(x->e, i) == MON_SRC_OK)
			return 0;
	src_list(x, MON_SRC_UNSUPPORTED, no, sizeof(no));
	pfc_err("nothing to sample: no source can be read (%s: not supported, as said above); "
		"give another device or other --sources", no);
	return 1;
}

/* Text, before the baseline: what is sampled, how often, for how long. */
static void render_start(const struct mon_ctx *x)
{
	char yes[512], no[512], iv[32], d[32];
	struct out o;

	src_list(x, MON_SRC_OK, yes, sizeof(yes));
	src_list(x, MON_SRC_UNSUPPORTED, no, sizeof(no));
	fmt_duration_ns(x->o.interval_ns, iv, sizeof(iv));
	out_begin(&o, false);
	out_text(&o, "sampling %s every %s", yes, iv);
	if (x->o.duration_ns) {
		fmt_duration_ns(x->o.duration_ns, d, sizeof(d));
		out_text(&o, " for %s", d);
	}
	if (x->o.count)
		out_text(&o, "%s%" PRIu64 " sample%s", x->o.duration_ns ? " or " : " for ",
			 x->o.count, x->o.count == 1 ? "" : "s");
	if (!x->o.duration_ns && !x->o.count)
		out_text(&o, " until Ctrl-C");
	if (no[0])
		out_text(&o, "; not supported: %s", no);
	out_text(&o, "\n");
	out_end_lines(&o);
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* This machine's steal time over the run (lib/hw/steal.h): read when sampling starts
 * and again at the end; not valid where /proc/stat has none to give. */
struct run_steal {
	uint64_t ns;
	bool valid;
};

static void steal_begin(struct run_steal *st)
{
	st->valid = hw_steal_read_ns(&st->ns) == 0;
}

static void steal_end(struct run_steal *st)
{
	uint64_t now;

	st->valid = st->valid && hw_steal_read_ns(&now) == 0 && now >= st->ns;
	st->ns = st->valid ? now - st->ns : 0;
}

/* --stats, on standard error: samples, overruns and CPU per sample, then the CPU each
 * source cost in the sampling thread and in its own reader thread, and the recording's.
 * fig and part[] come from mon_cpu_fit (a part never above its whole); part[nsrc] is
 * the recording's share of the sampling thread, writer the writer thread's whole CPU.
 */
static void print_stats(const struct mon_ctx *x, uint64_t n, uint64_t overruns,
			const struct run_steal *st, double cpu, double wall,
			const struct mon_cpu_fig *fig, const uint64_t *part, const uint64_t *thread,
			uint64_t writer)
{
	size_t i, nsrc = mon_engine_nsrc(x->e);
	uint64_t rec = part[nsrc] + writer;
	struct out o;

	out_begin_file(&o, stderr, false);
	out_uint(&o, "samples", "pfclab monitor: %" PRIu64 " samples", n);
	out_double(&o, "seconds", " in %.3f s", wall);
	out_uint(&o, "overruns", ", %" PRIu64 " overruns", overruns);
	/* the hypervisor's share: what makes a sampler on a virtual machine wake late */
	out_ns(&o, "host_steal_s", ", host steal %.1f ms", st->ns, 1e6, st->valid);
	out_double(&o, "cpu_us_per_sample", ", CPU %.1f us per sample", cpu * 1e6 / (double)n);
	out_double(&o, "cpu_core_pct", ", %.2f%% of one core",
		   wall > 0 ? 100.0 * cpu / wall : 0.0);
	out_double(&o, "work_us_per_sample", " (reading, computing and writing: %.1f us per "
		   "sample", (double)(fig->whole + writer) / 1e3 / (double)n);
	/* the whole was adjusted so that no part exceeds it: said, not hidden */
	out_bool(&o, "work_raised", fig->raised ? ", raised to the sum of its parts below "
		 "(the clock reads taken off are an estimate)" : NULL, fig->raised);
	out_bool(&o, "work_scaled_down", fig->scaled_down ? ", scaled down with its parts and "
		 "the timer's waits to what the sampling thread spent (the measured samples cost "
		 "more than the rest)" :
		 NULL, fig->scaled_down);
	/* what the kernel charges the sampling thread for sleeping until each tick and
	 * waking: the floor of any sampler at this interval on this host */
	out_double(&o, "wake_us_per_sample", "; sleeping and waking for the timer: %.1f us",
		   (double)fig->wait / 1e3 / (double)n);
	out_double(&o, "loop_us_per_sample", "; the loop around them: %.1f us;",
		   (double)fig->rest / 1e3 / (double)n);
	out_text(&o, " the rest is the sources' own threads)\n");
	out_arr_open(&o, "sources");
	for (i = 0; i < nsrc; i++) {
		const struct mon_src *src = mon_engine_src(x->e, i);
		uint64_t samp = part[i], thr = thread[i];

		out_obj_open(&o, NULL);
		out_str(&o, "source", "  source %-8s", src->ops->name);
		out_str(&o, "device", " %-14s", src->dev);
		out_double(&o, "us_per_sample", " %7.1f us per sample", (double)samp / 1e3 / (double)n);
		out_double(&o, "core_pct", " (%.2f%% of one core)",
			   wall > 0 ? (double)samp / 1e7 / wall : 0.0);
		if (src->ops->thread_cpu_ns) {
			out_double(&o, "thread_ms", "; reader thread %.1f ms", (double)thr / 1e6);
			out_double(&o, "thread_core_pct", " (%.2f%% of one core)",
				   wall > 0 ? (double)thr / 1e7 / wall : 0.0);
		}
		if (src->ops->thread_reads) {
			uint64_t r = src->ops->thread_reads(src);

			out_uint(&o, "thread_reads", ", %" PRIu64 " reads", r);
			if (r)
				out_double(&o, "thread_read_every_ms", " (every %.1f ms)",
					   wall * 1e3 / (double)r);
		}
		out_text(&o, "\n");
		out_obj_close(&o);
	}
	out_obj_close(&o);
	if (x->rec) {
		out_obj_open(&o, "recording");
		out_double(&o, "us_per_sample", "  recording                %7.1f us per sample",
			   (double)rec / 1e3 / (double)n);
		out_double(&o, "core_pct", " (%.2f%% of one core)\n",
			   wall > 0 ? (double)rec / 1e7 / wall : 0.0);
		out_obj_close(&o);
	}
	out_end_lines(&o);
}

static int run(struct mon_ctx *x, int argc, char **argv)
{
	const struct mon_sample *s = NULL;
	uint64_t t0, thr0 = 0, n = 0, work_ns = 0, rec_ns = 0, nmeas = 0, nrec = 0;
	uint64_t wait_ns = 0, nwait = 0, thr_loop = 0;
	struct run_steal steal;
	bool meas;
	double cpu0;
	int failed, rc;
	size_t i;

	rc = mon_engine_start(x->e, &failed);
	if (rc) {
		const struct mon_src *src = failed >= 0 ? mon_engine_src(x->e, (size_t)failed) : NULL;

		if (src)
			pfc_err("%s on %s: %s", src->ops->what, src->dev, src->err);
		else
			pfc_errno(-rc, "starting the sampling timer");
		return 1;
	}
	if (check_sources(x))
		return 1;
	if (x->o.rt_priority) {
		/* Only this thread: the sources' reader threads already run, and the record's
		 * writer sets its own policy.
		 */
		struct sched_param sp = { .sched_priority = (int)x->o.rt_priority };

		rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		if (rc == EPERM && geteuid() == 0)
			pfc_err("--rt-priority %" PRIu64 ": the kernel refused real-time scheduling "
				"(SCHED_FIFO) to root: the process's cgroup has no real-time CPU time "
				"(RT group scheduling: cpu.rt_runtime_us) or the container drops "
				"CAP_SYS_NICE; run it where real-time is allowed or leave the option out",
				x->o.rt_priority);
		else if (rc)
			pfc_errno(rc, "--rt-priority %" PRIu64 ": real-time scheduling (SCHED_FIFO) "
				  "for the sampling thread; run as root or with CAP_SYS_NICE, or "
				  "leave the option out", x->o.rt_priority);
		if (rc)
			return 1;
	}
	if (x->o.record) {
		rc = mon_rec_open(x->o.record, x->e, argc, argv, &x->rec);
		if (rc) {
			pfc_err("%s", mon_rec_error(x->rec));
			mon_rec_close(x->rec);
			x->rec = NULL;
			return 1;
		}
		for (i = 0; i < x->nearly; i++)
			mon_rec_event(x->rec, &x->early[i].ev);
	}
	if (!x->o.quiet && !x->o.json)
		render_start(x);
	t0 = time_mono_ns();
	cpu0 = cpu_seconds();
	steal_begin(&steal);
	if (x->o.stats)
		thr0 = time_thread_cpu_ns();
	/* The first sample, at once, is the baseline: the engine counts the ticks and the
	 * end of --duration from it.
	 */
	while (!stop_flag) {
		if (n) {
			/* the wait before a measured sample is measured too (the choice is
			 * made at the sample before it): the timer's cost, not a remainder */
			bool wmeas = x->o.stats && mon_engine_cpu_due(x->e);
			int64_t w;

			if (wmeas)
				wait_ns -= time_thread_cpu_ns();
			w = mon_engine_wait(x->e);
			if (wmeas)
				wait_ns += time_thread_cpu_ns();
			if (w == -EINTR)
				continue;	/* measured again with the rest of this wait */
			nwait += wmeas;
			if (w < 0) {
				pfc_errno((int)-w, "waiting for the sampling timer");
				return 1;
			}
		}
		meas = x->o.stats && mon_engine_cpu_due(x->e);
		if (meas) {
			nmeas++;
			work_ns -= time_thread_cpu_ns();
		}
		rc = mon_engine_sample(x->e, &s);
		if (rc) {
			pfc_errno(-rc, "arming the sampling timer");
			return 1;
		}
		n++;
		if (x->rec && !x->rec_failed) {
			if (meas) {
				nrec++;
				rec_ns -= time_thread_cpu_ns();
			}
			if (mon_rec_sample(x->rec, s)) {
				pfc_err("%s; recording stopped", mon_rec_error(x->rec));
				x->rec_failed = true;
			}
			if (meas)
				rec_ns += time_thread_cpu_ns();
		}
		if (!x->o.quiet)
			render_sample(x, s);
		if (meas)
			work_ns += time_thread_cpu_ns();
		if (x->rec_failed)
			break; /* the record is what was asked for: end the run, exit 1 */
		if (!x->o.quiet && out_stdout_check())
			break;	/* output lost: the front door says so and exits 1 */
		if ((x->o.count && n >= x->o.count) || mon_engine_ended(x->e))
			break;
	}
	/* the sampling thread's CPU over the loop, before the reads and printing after it */
	if (x->o.stats)
		thr_loop = time_thread_cpu_ns() - thr0;
	if (s && !x->o.quiet && !x->o.json) {	/* the quiet samples at the end */
		struct out o;

		out_begin(&o, false);
		text_quiet(x, &o, s, true);
		out_end_lines(&o);
	}
	steal_end(&steal);
	if (x->rec)
		mon_rec_host_steal(x->rec, steal.ns, steal.valid);
	if (s && s->overruns_total) {	/* the intervals: the samples after the baseline */
		char why[160] = "";

		if (steal.valid && steal.ns)
			snprintf(why, sizeof(why), "; meanwhile the hypervisor held this machine's "
				 "CPUs for %.1f ms in all (steal time), the usual cause on a virtual "
				 "machine", steal.ns / 1e6);
		pfc_warn("%" PRIu64 " of %" PRIu64 " sampling intervals were missed (the host could "
			 "not keep up with %.3f ms)%s%s", s->overruns_total, s->overruns_total + n - 1,
			 x->o.interval_ns / 1e6, why,
			 x->rec ? "; each is counted in the record's overruns column" :
			 x->o.quiet ? "" : x->o.json ? "; each sample's \"overruns\" counts those "
			 "before it" : "; the sample after them says how many");
	}
	if (x->o.stats && n) {
		/* the engine's sums come from a sample of the ticks; the writer's is whole */
		uint64_t rd = mon_engine_cpu_read_ns(x->e);
		uint64_t writer = x->rec ? mon_rec_cpu_ns(x->rec) : 0;
		/* each measured span holds one clock read; the work's also holds the recording's
		 * two */
		uint64_t probes = mon_engine_cpu_probes(x->e) + (nmeas + 2 * nrec) * rd;
		uint64_t work = mon_engine_cpu_scale(x->e, work_ns > probes ? work_ns - probes : 0);
		/* the waits: n - 1 of them (none before the baseline), nwait measured */
		uint64_t wait = nwait ? (uint64_t)((double)(wait_ns > nwait * rd ?
						       wait_ns - nwait * rd : 0) *
						   (double)(n - 1) / (double)nwait) : 0;
		/* the sampling thread's CPU outside the clock reads: the work, the waits on
		 * the timer and the loop around them, measured whole */
		uint64_t thr = thr_loop;
		uint64_t part[MON_MAX_SRC + 1], thread[MON_MAX_SRC];
		size_t k, nsrc = mon_engine_nsrc(x->e);
		struct mon_cpu_fig fig;

		for (k = 0; k < nsrc; k++)
			mon_engine_src_cpu(x->e, k, &part[k], &thread[k]);
		part[nsrc] = x->rec ? mon_engine_cpu_scale(x->e, rec_ns > nrec * rd ?
							   rec_ns - nrec * rd : 0) : 0;
		/* no part above the whole it belongs to (see mon_cpu_fit) */
		probes += 2 * nwait * rd;	/* the waits' reads, in the thread's whole */
		mon_cpu_fit(part, nsrc + 1, work, wait, thr > probes ? thr - probes : 0, &fig);
		print_stats(x, n, s ? s->overruns_total : 0, &steal, cpu_seconds() - cpu0,
			    (time_mono_ns() - t0) / 1e9, &fig, part, thread, writer);
	}
	return x->rec_failed ? 1 : 0;
}

int monitor_main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct mon_catalog *cat = NULL;
	struct mon_ctx *x = calloc(1, sizeof(*x));
	struct mon_engine_cfg cfg = { 0 };
	struct mon_catalog_err cerr;
	int rc;

	if (!x) {
		pfc_errno(ENOMEM, "starting");
		return 1;
	}
	rc = parse_opts(argc, argv, &x->o);
	if (rc >= 0) {
		free(x);
		return rc;
	}
	if (x->o.catalog) {
		rc = mon_catalog_load(x->o.catalog, &cat, &cerr);
		if (rc) {
			if (rc == -EINVAL)
				pfc_err("--catalog %s line %d: %s", x->o.catalog, cerr.line, cerr.why);
			else
				pfc_errno(-rc, "--catalog %s", x->o.catalog);
			free(x);
			return 1;
		}
	} else if (mon_catalog_builtin(&cat)) {
		pfc_err("the built-in catalog does not parse; rebuild pfclab");
		free(x);
		return 1;
	}
	cfg.interval_ns = x->o.interval_ns;
	cfg.cpu_stats = x->o.stats;
	cfg.catalog = cat;
	cfg.on_event = on_event;
	cfg.arg = x;
	rc = mon_engine_new(&cfg, &x->e);
	if (!rc)
		rc = add_sources(x);
	if (!rc)
		rc = mon_engine_set_end(x->e, x->o.duration_ns);
	if (rc) {
		pfc_errno(-rc, "setting up the sampler");
		rc = 1;
		goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* the terminal or ssh session went away: finish the record as for Ctrl-C */
	sigaction(SIGHUP, &sa, NULL);
	/* output lost to a closed pipe ends the run with one message and exit 1
	 * (out_stdout_check in the loop), as for every command, not death by SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	rc = run(x, argc, argv);
out:
	if (x->rec) {
		int crc = mon_rec_close(x->rec);

		if (crc && !x->rec_failed) /* a failure already reported is not said twice */
			pfc_errno(-crc, "finishing the record in %s", x->o.record);
		if (crc)
			rc = 1;
	}
	mon_engine_free(x->e);
	mon_catalog_free(cat);
	free(x);
	return rc;
}
