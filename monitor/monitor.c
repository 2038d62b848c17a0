// SPDX-License-Identifier: GPL-2.0-or-later
/* monitor.c: "pfclab monitor": options, then the engine loop feeding the text or JSON
 * renderer and the recorder. Exit status: 0 done, 1 run-time failure, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <json-c/json.h>

#include "lib/util.h"
#include "monitor/catalog.h"
#include "monitor/frames/src_frames.h"
#include "monitor/monitor.h"
#include "monitor/record.h"
#include "monitor/sampler.h"
#include "monitor/sources/sources.h"

struct mon_opts {
	const char *iface;
	const char *rdma;
	unsigned rdma_port;
	int gpu;
	uint64_t interval_ns;
	uint64_t gpu_interval_ns;	/* NVML reader cadence; 0: the source's default */
	uint64_t count;
	uint64_t duration_ns;
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
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: pfclab monitor -i IFACE [-d RDMADEV[:PORT]] [--gpu N] [--interval 10ms]\n"
"                      [--count N] [--duration 10s] [--record DIR] [--json] [--raw]\n"
"                      [--frames[=IFACE]] [--all]\n"
"\n"
"Samples NIC, RDMA, PFC/ECN/CNP and GPU PCIe counters in-process, from 1 ms up, and\n"
"prints per interval the metrics that changed, with deltas, rates and units.\n"
"\n"
"  -i, --iface IFACE      network interface: ethtool -S (ioctl), PAUSE (ethtool netlink),\n"
"                         DCB PFC (RTM_GETDCB), link statistics (rtnetlink), PCI link\n"
"  -d, --rdma DEV[:PORT]  RDMA device: hw counters (RDMA netlink, sysfs fallback); port 1\n"
"      --gpu N            NVIDIA GPU N: PCIe rx/tx bytes and throughput, replays, link\n"
"                         (NVML; bytes from its cumulative counters where supported)\n"
"      --gpu-interval DUR how often the NVML reader thread reads, on its own cadence:\n"
"                         1ms..60ms (the counters wrap every ~67 ms at 64 GB/s); default\n"
"                         10ms, or the sampling interval up to 50ms when that is longer.\n"
"                         One read costs ~0.7 ms of CPU on an H100 (the call spins)\n"
"      --frames[=IFACE]   also capture PAUSE/PFC, CNP and CE-marked RoCEv2 frames on\n"
"                         IFACE (default: the -i interface; mlx5_0-style RDMA sniffer\n"
"                         names work) and count them per interval beside the counters\n"
"  -I, --interval DUR     sampling interval, 100us to 1h (default 1s): 500us, 10ms, 1s\n"
"  -c, --count N          stop after N samples\n"
"  -t, --duration DUR     stop after DUR\n"
"  -r, --record DIR       record to DIR: samples.csv, samples.jsonl, meta.json; a DIR\n"
"                         that holds a run already is refused\n"
"      --force            with --record: replace the run in DIR\n"
"  -j, --json             print JSON lines instead of text\n"
"      --all              with --json: every value each interval under \"values\" (null\n"
"                         when not read), not only those that changed\n"
"      --raw              also show counters the catalog does not name, by raw name\n"
"  -q, --quiet            print nothing per interval (with --record)\n"
"      --stats            at the end, print samples, overruns and CPU time per sample,\n"
"                         per source and for recording\n"
"      --sources LIST     only these sources: ethtool,pause,dcb,link,pci,rdma,nvml,\n"
"                         qdisc (qdisc: every qdisc of -i IFACE, only when listed)\n"
"      --catalog FILE     use FILE instead of the built-in counter catalog\n"
"  -h, --help             this help\n"
"\n"
"A value that could not be read shows as n/a, never 0. A source the device does not\n"
"support is reported once. Stop with Ctrl-C; the record stays consistent.\n"
"Exit status: 0 done, 1 run-time failure, 2 usage error.\n");
}

static bool src_wanted(const struct mon_opts *o, const char *name)
{
	const char *p = o->sources;
	size_t n = strlen(name);

	if (!p)
		return true;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == n && !strncmp(p, name, n))
			return true;
		if (!e)
			break;
		p = e + 1;
	}
	return false;
}

static int parse_opts(int argc, char **argv, struct mon_opts *o)
{
	enum { OPT_GPU = 256, OPT_GPU_INTERVAL, OPT_RAW, OPT_CATALOG, OPT_SOURCES, OPT_STATS,
	       OPT_FRAMES, OPT_ALL, OPT_FORCE };
	static const struct option lo[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "rdma", required_argument, NULL, 'd' },
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "gpu-interval", required_argument, NULL, OPT_GPU_INTERVAL },
		{ "interval", required_argument, NULL, 'I' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 't' },
		{ "record", required_argument, NULL, 'r' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "json", no_argument, NULL, 'j' },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "sources", required_argument, NULL, OPT_SOURCES },
		{ "catalog", required_argument, NULL, OPT_CATALOG },
		{ "frames", optional_argument, NULL, OPT_FRAMES },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static const char *const known[] = { "ethtool", "pause", "dcb", "link", "pci", "rdma",
					     "nvml", "qdisc" };
	uint32_t u;
	int c;

	memset(o, 0, sizeof(*o));
	o->gpu = -1;
	o->rdma_port = 1;
	o->interval_ns = 1000000000ULL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:d:I:c:t:r:jqh", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->iface = optarg;
			break;
		case 'd': {
			char *colon = strchr(optarg, ':');

			o->rdma = optarg;
			if (colon) {
				*colon = '\0';
				if (parse_u32(colon + 1, 1, 255, &o->rdma_port)) {
					pfc_err("--rdma %s:%s: the port must be a number 1..255",
						optarg, colon + 1);
					return 2;
				}
			}
			break;
		}
		case OPT_FRAMES:
			o->frames_on = true;
			o->frames = optarg;
			break;
		case OPT_GPU:
			if (parse_u32(optarg, 0, 63, &u)) {
				pfc_err("--gpu '%s': expected a GPU index 0..63 (see nvidia-smi -L)",
					optarg);
				return 2;
			}
			o->gpu = (int)u;
			break;
		case OPT_GPU_INTERVAL:
			if (parse_duration_ns(optarg, 1000000ULL, 60000000ULL, &o->gpu_interval_ns))
				return pfc_bad_arg("--gpu-interval", optarg,
						   "expected a duration from 1ms to 60ms");
			break;
		case 'I':
			if (parse_duration_ns(optarg, 100000ULL, 3600000000000ULL,
					      &o->interval_ns)) {
				pfc_err("--interval '%s': expected a duration from 100us to 1h "
					"(e.g. 500us, 10ms, 1s)", optarg);
				return 2;
			}
			break;
		case 'c':
			if (parse_u64(optarg, 1, UINT64_MAX, &o->count))
				return pfc_bad_arg("--count", optarg, "expected a positive number");
			break;
		case 't':
			if (parse_duration_ns(optarg, 1000000ULL, UINT64_MAX, &o->duration_ns)) {
				pfc_err("--duration '%s': expected a duration (e.g. 30s, 5m)",
					optarg);
				return 2;
			}
			break;
		case 'r':
			o->record = optarg;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case 'j':
			o->json = true;
			break;
		case OPT_RAW:
			o->raw = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_STATS:
			o->stats = true;
			break;
		case OPT_ALL:
			o->all = true;
			break;
		case OPT_SOURCES:
			o->sources = optarg;
			break;
		case OPT_CATALOG:
			o->catalog = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		pfc_err("unexpected argument '%s'; see 'pfclab monitor --help'", argv[optind]);
		return 2;
	}
	if (o->force && !o->record) {
		pfc_err("--force needs --record DIR");
		return 2;
	}
	if (o->record && !o->force && mon_rec_check_dir(o->record) == -EEXIST) {
		pfc_err("%s already holds a monitor run (meta.json, samples); give a new "
			"folder, or --force to replace it", o->record);
		return 1;
	}
	if (!o->iface && !o->rdma && o->gpu < 0) {
		pfc_err("nothing to monitor: give -i IFACE, -d RDMADEV and/or --gpu N");
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
	if (o->sources) {
		const char *p = o->sources;

		while (*p) {
			const char *e = strchr(p, ',');
			size_t l = e ? (size_t)(e - p) : strlen(p), k;
			bool ok = false;

			for (k = 0; k < ARRAY_SIZE(known); k++)
				ok |= strlen(known[k]) == l && !strncmp(known[k], p, l);
			if (!ok) {
				pfc_err("--sources: unknown source '%.*s'; known: ethtool, pause, "
					"dcb, link, pci, rdma, nvml, qdisc", (int)l, p);
				return 2;
			}
			if (!e)
				break;
			p = e + 1;
		}
	}
	return -1;
}

static void on_event(void *arg, const struct mon_event *ev)
{
	struct mon_ctx *x = arg;

	if (ev->type != MON_EV_LAYOUT || !x->o.quiet)
		pfc_warn("%s", ev->msg);
	if (x->o.json && !x->o.quiet) {
		/* Machine readers see events in the same stream as the samples. */
		json_object *o = json_object_new_object();

		json_object_object_add(o, "event", json_object_new_string(mon_event_name(ev->type)));
		json_object_object_add(o, "seq", json_object_new_uint64(ev->seq));
		json_object_object_add(o, "mono_ns", json_object_new_uint64(ev->mono_ns));
		if (ev->src) {
			json_object_object_add(o, "source", json_object_new_string(ev->src->ops->name));
			json_object_object_add(o, "device", json_object_new_string(ev->src->dev));
		}
		json_object_object_add(o, "message", json_object_new_string(ev->msg));
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
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

static void render_text(struct mon_ctx *x, const struct mon_sample *s)
{
	const struct mon_col *c;
	size_t i, n;
	bool head = false;

	c = mon_engine_cols(x->e, &n);
	for (i = 0; i <= s->ncol; i++) {
		const struct mon_val *v = &s->v[i < s->ncol ? i : 0];
		char d[48], r[48], unit[24];

		/* One pass more at the end prints the header of a sample that only overran. */
		if (i == s->ncol && (head || !s->overruns))
			break;
		if (i < s->ncol && (!(v->flags & MON_V_CHANGED) || !shown(x, &c[i])))
			continue;
		if (!head) {
			printf("#%" PRIu64 " %" PRIu64 ".%06" PRIu64 "s dt %.3f ms", s->seq,
			       (uint64_t)(s->mono_ns / 1000000000ULL),
			       (uint64_t)((s->mono_ns / 1000) % 1000000), s->dt_ns / 1e6);
			if (s->overruns)
				printf(" (%" PRIu64 " interval%s missed: sampling fell behind)",
				       s->overruns, s->overruns > 1 ? "s" : "");
			printf("\n");
			head = true;
		}
		if (i == s->ncol)
			break;
		if (c[i].kind == MON_GAUGE) {
			printf("  %-40s %20" PRIu64 " %s\n", c[i].metric[0] && !x->o.raw ?
			       c[i].metric : c[i].key, v->raw, c[i].unit);
			continue;
		}
		if (v->flags & MON_V_DELTA) {
			snprintf(unit, sizeof(unit), "%s/s", !strcmp(c[i].unit, "packets") ? "pkt" :
				 c[i].unit);
			snprintf(d, sizeof(d), "+%" PRIu64 "%s%s", v->delta, c[i].unit[0] ? " " : "",
				 c[i].unit);
			if (!strcmp(c[i].unit, "us"))	/* pause time: share of the interval */
				snprintf(r, sizeof(r), "%.1f%% of time", v->rate / 1e4);
			else
				human(v->rate, unit, r, sizeof(r));
		} else {
			snprintf(d, sizeof(d), "%s", v->flags & MON_V_RESET ? "reset" : "n/a");
			snprintf(r, sizeof(r), "n/a");
		}
		printf("  %-40s %18s %16s%s\n", c[i].metric[0] && !x->o.raw ? c[i].metric : c[i].key,
		       d, r, v->flags & MON_V_WRAP ? " (wrapped)" : "");
	}
	for (i = 0; i < mon_engine_nsrc(x->e); i++)
		if (s->gap_mask & (1u << i)) {
			const struct mon_src *src = mon_engine_src(x->e, i);

			printf("#%" PRIu64 " gap: %s on %s: n/a\n", s->seq, src->ops->name,
			       src->dev);
		}
	fflush(stdout);
}

static void render_json(struct mon_ctx *x, const struct mon_sample *s)
{
	json_object *o = json_object_new_object(), *ch = json_object_new_object();
	json_object *gaps = json_object_new_array();
	const struct mon_col *c;
	size_t i, n;

	c = mon_engine_cols(x->e, &n);
	json_object_object_add(o, "seq", json_object_new_uint64(s->seq));
	json_object_object_add(o, "mono_ns", json_object_new_uint64(s->mono_ns));
	json_object_object_add(o, "wall_ns", json_object_new_uint64(s->wall_ns));
	json_object_object_add(o, "dt_ns", json_object_new_uint64(s->dt_ns));
	json_object_object_add(o, "overruns", json_object_new_uint64(s->overruns));
	for (i = 0; i < mon_engine_nsrc(x->e); i++)
		if (s->gap_mask & (1u << i)) {
			const struct mon_src *src = mon_engine_src(x->e, i);
			char k[160];

			snprintf(k, sizeof(k), "%s:%s", src->ops->name, src->dev);
			json_object_array_add(gaps, json_object_new_string(k));
		}
	json_object_object_add(o, "gaps", gaps);
	for (i = 0; i < s->ncol; i++) {
		const struct mon_val *v = &s->v[i];
		json_object *m;

		if ((!x->o.all && !(v->flags & MON_V_CHANGED)) || !shown(x, &c[i]))
			continue;
		/* A metric two sources report (dcb and ethtool): a reading beats a null. */
		if (x->o.all && !(v->flags & MON_V_VALID) &&
		    json_object_object_get_ex(ch, c[i].metric[0] && !x->o.raw ? c[i].metric :
					      c[i].key, NULL))
			continue;
		m = json_object_new_object();
		json_object_object_add(m, "value", v->flags & MON_V_VALID ?
				       json_object_new_uint64(v->raw) : NULL);
		if (c[i].kind == MON_COUNTER) {
			json_object_object_add(m, "delta", v->flags & MON_V_DELTA ?
					       json_object_new_uint64(v->delta) : NULL);
			json_object_object_add(m, "rate", v->flags & MON_V_DELTA ?
					       json_object_new_double(v->rate) : NULL);
		}
		json_object_object_add(m, "unit", json_object_new_string(c[i].unit));
		if (v->flags & MON_V_RESET)
			json_object_object_add(m, "reset", json_object_new_boolean(1));
		if (v->flags & MON_V_WRAP)
			json_object_object_add(m, "wrapped", json_object_new_boolean(1));
		json_object_object_add(ch, c[i].metric[0] && !x->o.raw ? c[i].metric : c[i].key, m);
	}
	json_object_object_add(o, x->o.all ? "values" : "changed", ch);
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
	fflush(stdout);
	json_object_put(o);
}

/* The NVML reader's cadence: as asked, else 10 ms, or the sampling interval (up to 50 ms,
 * inside one counter wrap) when samples are further apart: reading faster than the
 * samples are taken costs CPU and shows nothing more.
 */
static uint64_t gpu_cadence(const struct mon_opts *o)
{
	const uint64_t ms = 1000000ULL;

	if (o->gpu_interval_ns)
		return o->gpu_interval_ns;
	if (o->interval_ns <= SRC_NVML_CADENCE_NS)
		return SRC_NVML_CADENCE_NS;
	return o->interval_ns < 50 * ms ? o->interval_ns : 50 * ms;
}

static int add_sources(struct mon_ctx *x)
{
	const struct mon_opts *o = &x->o;
	int rc = 0;

	if (o->iface) {
		if (src_wanted(o, "ethtool"))
			rc |= mon_engine_add(x->e, &src_ethtool_ioctl_ops, o->iface, 0, -1) < 0;
		if (src_wanted(o, "pause"))
			rc |= mon_engine_add(x->e, &src_ethtool_nl_ops, o->iface, 0, -1) < 0;
		if (src_wanted(o, "dcb"))
			rc |= mon_engine_add(x->e, &src_dcb_ops, o->iface, 0, -1) < 0;
		if (src_wanted(o, "link"))
			rc |= mon_engine_add(x->e, &src_link_ops, o->iface, 0, -1) < 0;
		if (src_wanted(o, "pci"))
			rc |= mon_engine_add(x->e, &src_pci_ops, o->iface, 0, -1) < 0;
		if (o->sources && src_wanted(o, "qdisc"))
			rc |= mon_engine_add(x->e, &src_qdisc_ops, o->iface, 0, -1) < 0;
	}
	if (o->frames_on)
		rc |= mon_engine_add(x->e, &src_frames_ops, o->frames ? o->frames : o->iface,
				     0, -1) < 0;
	if (o->rdma && src_wanted(o, "rdma"))
		rc |= mon_engine_add(x->e, &src_rdma_nl_ops, o->rdma, o->rdma_port, -1) < 0;
	if (o->gpu >= 0) {
		char dev[16];

		snprintf(dev, sizeof(dev), "gpu%d", o->gpu);
		if (src_wanted(o, "nvml")) {
			int i = mon_engine_add(x->e, &src_nvml_ops, dev, 0, o->gpu);

			rc |= i < 0;
			if (i >= 0)
				mon_engine_set_cadence(x->e, (size_t)i, gpu_cadence(o));
		}
		if (src_wanted(o, "pci"))
			rc |= mon_engine_add(x->e, &src_pci_ops, dev, 0, o->gpu) < 0;
	}
	return rc ? -ENOSPC : 0;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* --stats: the CPU each source cost, in the sampling thread and in its own threads. */
static void print_src_stats(const struct mon_ctx *x, uint64_t n, double wall, uint64_t rec_ns)
{
	size_t i;

	for (i = 0; i < mon_engine_nsrc(x->e); i++) {
		const struct mon_src *src = mon_engine_src(x->e, i);
		uint64_t samp, thr;

		mon_engine_src_cpu(x->e, i, &samp, &thr);
		fprintf(stderr, "  source %-8s %-14s %7.1f us per sample (%.2f%% of one core)",
			src->ops->name, src->dev, (double)samp / 1e3 / (double)n,
			wall > 0 ? (double)samp / 1e7 / wall : 0.0);
		if (src->ops->thread_cpu_ns)
			fprintf(stderr, "; reader thread %.1f ms (%.2f%% of one core)",
				(double)thr / 1e6, wall > 0 ? (double)thr / 1e7 / wall : 0.0);
		fputc('\n', stderr);
	}
	if (x->rec)
		fprintf(stderr, "  recording                %7.1f us per sample (%.2f%% of one core)\n",
			(double)rec_ns / 1e3 / (double)n, wall > 0 ? (double)rec_ns / 1e7 / wall : 0.0);
}

static int run(struct mon_ctx *x, int argc, char **argv)
{
	const struct mon_sample *s = NULL;
	uint64_t t0, n = 0, work_ns = 0, rec_ns = 0;
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
	t0 = time_mono_ns();
	cpu0 = cpu_seconds();
	while (!stop_flag) {
		int64_t w = mon_engine_wait(x->e);

		if (w == -EINTR)
			continue;
		if (w < 0) {
			pfc_errno((int)-w, "waiting for the sampling timer");
			return 1;
		}
		if (x->o.stats)
			work_ns -= thread_cpu_ns();
		mon_engine_sample(x->e, &s);
		n++;
		if (x->rec && !x->rec_failed) {
			if (x->o.stats)
				rec_ns -= thread_cpu_ns();
			if (mon_rec_sample(x->rec, s)) {
				pfc_err("%s; recording stopped", mon_rec_error(x->rec));
				x->rec_failed = true;
			}
			if (x->o.stats)
				rec_ns += thread_cpu_ns();
		}
		if (!x->o.quiet) {
			if (x->o.json)
				render_json(x, s);
			else
				render_text(x, s);
		}
		if (x->o.stats)
			work_ns += thread_cpu_ns();
		if (x->rec_failed)
			break; /* the record is what was asked for: end the run, exit 1 */
		if ((x->o.count && n >= x->o.count) ||
		    (x->o.duration_ns && time_mono_ns() - t0 >= x->o.duration_ns))
			break;
	}
	if (s && s->overruns_total)
		pfc_warn("%" PRIu64 " of %" PRIu64 " sampling intervals were missed (the host could "
			 "not keep up with %.3f ms); each is counted in the record's overruns "
			 "column", s->overruns_total, s->overruns_total + n,
			 x->o.interval_ns / 1e6);
	if (x->o.stats && n) {
		double cpu = cpu_seconds() - cpu0, wall = (time_mono_ns() - t0) / 1e9;

		fprintf(stderr, "pfclab monitor: %" PRIu64 " samples in %.3f s, %" PRIu64
			" overruns, CPU %.1f us per sample, %.2f%% of one core (reading, "
			"computing and writing: %.1f us per sample; the rest is the timer wakeup)\n",
			n, wall, s ? s->overruns_total : 0, cpu * 1e6 / (double)n,
			wall > 0 ? 100.0 * cpu / wall : 0.0, (double)work_ns / 1e3 / (double)n);
		print_src_stats(x, n, wall, rec_ns);
	}
	return x->rec_failed ? 1 : 0;
}

int monitor_main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct mon_catalog *cat = NULL;
	struct mon_ctx *x = calloc(1, sizeof(*x));
	struct mon_engine_cfg cfg = { 0 };
	int rc, line;

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
		rc = mon_catalog_load(x->o.catalog, &cat, &line);
		if (rc) {
			if (rc == -EINVAL)
				pfc_err("catalog %s line %d: expected 6 or 7 tab-separated fields "
					"(source drivers raw metric unit counter|gauge [32|64])",
					x->o.catalog, line);
			else
				pfc_errno(-rc, "catalog %s", x->o.catalog);
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
	if (rc) {
		pfc_errno(-rc, "setting up the sampler");
		rc = 1;
		goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
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
