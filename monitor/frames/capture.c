// SPDX-License-Identifier: GPL-2.0-or-later
/* capture.c: `pfclab capture`: runs the capture engine on the given interfaces, shows
 * live counts per frame kind and PFC priority, and ends with the kernel's drop counts
 * (pcap_stats) stated plainly.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "lib/out.h"
#include "lib/opt.h"
#include "lib/util.h"
#include "monitor/frames/capture.h"
#include "monitor/frames/capture_engine.h"
#include "monitor/frames/review.h"

static volatile int stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* This process's CPU time so far (user + system), for the cost per frame. */
static double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The live line (stderr) and the summary's first line: counts so far. The summary's JSON
 * also has the CPU time, every kind, and the PFC frames of each priority as an array (the
 * text lists the priorities seen inline, between pfc and cnp).
 */
static void render_counts(struct out *o, const struct frames_cap *cap, double t, double cpu)
{
	const struct frames_stats *st = &cap->st;
	int p;

	out_double(o, "seconds", "%8.1fs", t);
	out_double(o, "cpu_seconds", NULL, cpu);
	out_uint(o, "frames", " frames %" PRIu64, st->frames);
	out_obj_open(o, "kinds");
	out_uint(o, "other", NULL, st->kind[FRAMES_KIND_OTHER]);
	out_uint_kv(o, "  ", "pause", st->kind[FRAMES_KIND_PAUSE]);
	out_uint_kv(o, "  ", "pfc", st->kind[FRAMES_KIND_PFC]);
	out_uint(o, "macctl", NULL, st->kind[FRAMES_KIND_MACCTL]);
	for (p = 0; p < 8; p++)
		if (st->prio[p].frames)
			out_text(o, " p%d:%" PRIu64, p, st->prio[p].frames);
	out_uint_kv(o, "  ", "cnp", st->kind[FRAMES_KIND_CNP]);
	out_uint_kv(o, "  ", "roce", st->kind[FRAMES_KIND_ROCE]);
	out_uint(o, "roce_ce", " (ce %" PRIu64 ")", st->roce_ce);
	out_uint_kv(o, "  ", "truncated", st->status[FRAMES_TRUNCATED]);
	out_uint_kv(o, "  ", "invalid", st->status[FRAMES_INVALID]);
	out_text(o, "\n");
	out_obj_close(o);
	out_arr_open(o, "pfc_frames_per_priority");
	for (p = 0; p < 8; p++)
		out_uint(o, NULL, NULL, st->prio[p].frames);
	out_obj_close(o);
}

static void live_line(const struct frames_cap *cap, double t)
{
	struct out o;

	out_begin(&o, false);
	o.f = stderr;
	render_counts(&o, cap, t, 0);
	out_end_report(&o);
}

static void render_iface(struct out *o, const struct frames_cap_if *ci)
{
	bool v = ci->stats_valid;

	out_obj_open(o, NULL);
	out_str(o, "interface", "drops     %s: ", ci->name);
	if (!v)
		out_text(o, "n/a (pcap_stats failed)\n");
	out_uint_na(o, "kernel_drops", v ? "%" PRIu64 " dropped by the kernel (buffer full), " :
		    NULL, ci->drop, v);
	out_uint_na(o, "interface_drops", v ? "%" PRIu64 " by the interface; " : NULL,
		    ci->ifdrop, v);
	out_uint_na(o, "passed_filter", v ? "%" PRIu64 " passed the filter\n" : NULL, ci->recv, v);
	out_obj_close(o);
}

/* The final summary, text or --json, each field named once (lib/out.h), on f. */
static int render_summary(FILE *f, const struct frames_cap *cap, bool json, double secs)
{
	struct out o;
	unsigned i;

	out_begin_file(&o, f, json);
	render_counts(&o, cap, secs, cpu_seconds());
	if (cap->o.path) {
		out_uint(&o, "written", "written   %" PRIu64 " frame", cap->written);
		out_text(&o, "%s to %u file%s\n", cap->written == 1 ? "" : "s",
			 (unsigned)cap->files, cap->files == 1 ? "" : "s");
	} else {
		out_na(&o, "written", NULL);
	}
	out_arr_open(&o, "interfaces");
	for (i = 0; i < cap->o.nifs; i++)
		render_iface(&o, &cap->ifs[i]);
	out_obj_close(&o);
	return out_end_report(&o);
}

/* Wake at least every 50 ms, and in time for the next time-based rotation. */
static int poll_ms(const struct frames_cap *cap, uint64_t now)
{
	uint64_t due = frames_cap_next_rotation_ns(cap);

	if (due == UINT64_MAX || due >= now + 50000000ull)
		return 50;
	return due <= now ? 0 : (int)((due - now + 999999) / 1000000);
}

static int list_devices(void)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_if_t *all, *d;

	if (pcap_findalldevs(&all, errbuf) < 0) {
		pfc_err("cannot list capture devices: %s", errbuf);
		return 1;
	}
	for (d = all; d; d = d->next)
		printf("%-16s %s\n", d->name, d->description ? d->description : "");
	pcap_freealldevs(all);
	return 0;
}

static const char capture_usage[] =
	"Usage: pfclab capture -i IF [-i IF...] [OPTIONS]\n"
	"\n"
	"Captures PAUSE/PFC frames and RoCEv2 CNPs (and optionally CE-marked or all\n"
	"RoCEv2 headers) with libpcap, counts them live and reports kernel drops.\n"
	"A host never sees PAUSE frames sent to its own MAC: capture them on a mirror\n"
	"port, a tap, or a NIC mode that passes MAC control frames. NIC-made CNPs show\n"
	"on libpcap's RDMA sniffer devices (-i mlx5_0).\n"
	"\n"
	"Options:\n";
static const char capture_tail[] =
	"\n"
	"A line 'capture: listening on ...' on stderr says capture has started.\n"
	"With -w - the capture goes to standard output and the summary to stderr.\n"
	"When standard output's reader goes (a closed pipe), capture stops, finishes\n"
	"the file, prints its last counts on stderr and exits 1.\n"
	"Exit status: 0 success (drops are reported, not an error), 1 run-time\n"
	"failure, 2 usage error.\n";

static int add_iface(void *dst, const char *v, char *why, size_t len)
{
	struct frames_cap_opts *o = dst;
	unsigned k;

	if (o->nifs == FRAMES_CAP_MAX_IFS) {
		snprintf(why, len, "at most %d interfaces", FRAMES_CAP_MAX_IFS);
		return -1;
	}
	for (k = 0; k < o->nifs; k++)
		if (!strcmp(o->ifnames[k], v)) {
			snprintf(why, len, "given twice; every frame would be counted and "
				 "written twice");
			return -1;
		}
	o->ifnames[o->nifs++] = v;
	return 0;
}

static int parse_speed(void *dst, const char *v, char *why, size_t len)
{
	if (frames_speed_parse(v, dst) == 0)
		return 0;
	snprintf(why, len, "give a link speed such as 25G");
	return -1;
}

struct capture_args {
	struct frames_cap_opts o;
	uint64_t count, duration, interval;
	bool ce, roce, quiet, json, no_imm, list;
	const char *filter;
};

/* The command line into a; 0, OPT_HELP or OPT_USAGE. */
static int capture_opts(int argc, char **argv, struct capture_args *a)
{
	struct frames_cap_opts *o = &a->o;
	const struct opt opts[] = {
		{ "interface", 'i', OPT_FN, .dst = o, .fn = add_iface, .arg = "IF",
		  .help = "capture on IF (up to 16; --list shows them)",
		  .long_alias = "iface" },
		{ "write", 'w', OPT_STR, .dst = &o->path, .arg = "FILE",
		  .help = "write frames to FILE (pcap, nanosecond timestamps)" },
		{ "pcapng", 0, OPT_FLAG, .dst = &o->pcapng,
		  .help = "write pcapng (interface names, speed and filter\n"
			  "recorded)" },
		{ "ce", 0, OPT_FLAG, .dst = &a->ce,
		  .help = "also CE-marked RoCEv2 packets; unmarked ones stay out,\n"
			  "so review gives no CE share for such a capture" },
		{ "roce", 0, OPT_FLAG, .dst = &a->roce,
		  .help = "all RoCEv2 packets (CNPs too), headers only (snaplen\n"
			  "128), and no PAUSE/PFC" },
		{ "filter", 'f', OPT_STR, .dst = &a->filter, .arg = "EXPR",
		  .help = "BPF filter instead of the built-in ones (not with\n"
			  "--ce or --roce)" },
		{ "snaplen", 's', OPT_U32, 64, 262144, &o->snaplen, .arg = "N",
		  .help = "bytes kept per frame (default 256)" },
		{ "buffer", 'B', OPT_SIZE, 1 << 16, 1ull << 31, &o->buffer_bytes, .arg = "SIZE",
		  .help = "kernel buffer per interface (default 64M)" },
		{ "no-immediate", 0, OPT_FLAG, .dst = &a->no_imm,
		  .help = "let the kernel batch frames (fewer wakeups)" },
		{ "rotate-size", 'C', OPT_SIZE, 4096, UINT64_MAX, &o->rotate_bytes, .arg = "SIZE",
		  .help = "start FILE.N+1 after SIZE bytes" },
		{ "rotate-time", 'G', OPT_DUR, 1000000, UINT64_MAX, &o->rotate_ns, .arg = "DUR",
		  .help = "start FILE.N+1 every DUR (1ms or more)" },
		{ "file-count", 'W', OPT_U32, 1, 1000000, &o->rotate_files, .arg = "N",
		  .help = "with -C: reuse FILE.0 after FILE.N-1 (a ring of N\n"
			  "files); with -G alone: stop after N files" },
		{ "count", 'c', OPT_U64, 1, UINT64_MAX, &a->count, .arg = "N",
		  .help = "stop after N frames" },
		{ "duration", 'D', OPT_DUR, 1, UINT64_MAX, &a->duration, .arg = "DUR",
		  .help = "stop after DUR", .alias = "d" },
		{ "speed", 0, OPT_FN, .dst = &o->speed_bps, .fn = parse_speed, .arg = "RATE",
		  .help = "link speed for pause time and pcapng if_speed\n"
			  "(default: /sys/class/net/IF/speed where known)" },
		{ "interval", 'I', OPT_DUR, 10000000, UINT64_MAX, &a->interval, .arg = "DUR",
		  .help = "live count period on stderr (default 1s)" },
		{ "quiet", 'q', OPT_FLAG, .dst = &a->quiet, .help = "no live counts" },
		{ "json", 'j', OPT_FLAG, .dst = &a->json, .help = "final summary as JSON" },
		{ "list", 0, OPT_FLAG, .dst = &a->list, .help = "list capture devices and exit" },
		OPT_END
	};
	const struct opt_cmd cmd = { "capture", capture_usage, capture_tail, opts, .extra = NULL };
	int first = opt_parse(&cmd, argc, argv);

	if (first < 0)
		return first;
	if (a->list)
		return 0;
	if (first != argc) {
		pfc_err("unexpected argument '%s'; 'pfclab capture --help' shows the usage",
			argv[first]);
		return OPT_USAGE;
	}
	if (!o->nifs) {
		pfc_err("give an interface with -i (pfclab capture --list shows them)");
		return OPT_USAGE;
	}
	if ((o->rotate_bytes || o->rotate_ns) && !o->path) {
		pfc_err("rotation needs -w FILE");
		return OPT_USAGE;
	}
	if (o->rotate_files && !o->rotate_bytes && !o->rotate_ns) {
		pfc_err("--file-count needs rotation (-C SIZE or -G DUR)");
		return OPT_USAGE;
	}
	/* Each of these picks the whole filter: together, one would be ignored. */
	if (a->filter && (a->ce || a->roce)) {
		pfc_err("-f replaces the built-in filter that %s picks: give -f EXPR alone, or "
			"%s without -f", a->ce ? "--ce" : "--roce", a->ce ? "--ce" : "--roce");
		return OPT_USAGE;
	}
	if (a->ce && a->roce) {
		pfc_err("--ce and --roce pick different filters: --ce keeps PAUSE/PFC, CNPs and "
			"CE-marked RoCEv2 packets, --roce every RoCEv2 packet (CE-marked or not) "
			"and no PAUSE/PFC; give one");
		return OPT_USAGE;
	}
	if (a->filter) {
		char why[PCAP_ERRBUF_SIZE + 64];

		if (frames_cap_filter_check(a->filter, why, sizeof(why))) {
			pfc_err("-f '%s': %s: give a libpcap filter expression (pcap-filter(7)), "
				"e.g. -f 'ether proto 0x8808 or udp dst port 4791'", a->filter, why);
			return OPT_USAGE;
		}
	}
	o->immediate = !a->no_imm;
	return 0;
}

int capture_main(int argc, char **argv)
{
	static struct capture_args a = { 0 };
	struct frames_cap_opts o;
	static struct frames_cap cap;
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t count, duration, interval, t0, next, look = 0;
	bool ce, roce, quiet, json, to_stdout, gone = false;
	const char *filter;
	static char fbuf[2048], ubuf[1024];
	double secs;
	int rc;

	memset(&a, 0, sizeof(a));
	a.o.buffer_bytes = 64ull << 20;
	a.interval = 1000000000ull;
	rc = capture_opts(argc, argv, &a);
	if (rc < 0)
		return rc == OPT_HELP ? 0 : 2;
	/* Output lost to a closed pipe is exit 1 with one message from the front door
	 * (out_stdout_check), not death by SIGPIPE: that would leave the frames buffered
	 * for the file unwritten. */
	signal(SIGPIPE, SIG_IGN);
	if (a.list)
		return list_devices();
	o = a.o;
	count = a.count;
	duration = a.duration;
	interval = a.interval;
	ce = a.ce;
	roce = a.roce;
	quiet = a.quiet;
	json = a.json;
	filter = a.filter;
	if (filter) {
		o.filter = filter;
	} else {
		frames_cap_filter_build(fbuf, sizeof(fbuf), ce, roce);
		frames_cap_filter_untagged(ubuf, sizeof(ubuf), ce, roce);
		o.filter = fbuf;
		o.filter_untagged = ubuf;
	}
	if (!o.snaplen)
		o.snaplen = roce ? 128 : 256;
	if (o.nifs > 1 && o.path && !o.pcapng)
		o.pcapng = true; /* one file, several interfaces: pcapng keeps them apart */
	/* -w -: standard output is the capture (no rotation: "-.N" are files) */
	to_stdout = o.path && !strcmp(o.path, "-") && !o.rotate_bytes && !o.rotate_ns;
	if (ce && o.path && !o.pcapng)
		pfc_warn("%s: classic pcap records no filter, so pfclab review cannot tell that "
			 "this capture keeps only CE-marked RoCEv2 packets: review it with "
			 "--ce-only, or capture with --pcapng (its if_filter says so)", o.path);

	rc = frames_cap_open(&cap, &o);
	if (rc) {
		pfc_err("%s", cap.errmsg);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(stderr, "pfclab capture: listening on %s%s (snaplen %u, buffer %" PRIu64
		" %s)\n", o.ifnames[0], o.nifs > 1 ? " and more" : "", o.snaplen,
		o.buffer_bytes >> (o.buffer_bytes >= 1 << 20 ? 20 : 10),
		o.buffer_bytes >= 1 << 20 ? "MiB" : "KiB");
	t0 = time_mono_ns();
	next = t0 + interval;
	for (;;) {
		uint64_t now = time_mono_ns();

		/* Whoever reads standard output has gone (a closed pipe, a dropped session):
		 * nothing written there later would arrive, so stop as on Ctrl-C, which
		 * finishes the file. Looked at without writing: the summary comes last. */
		gone = out_stdout_gone_every(now, &look) != 0;
		/* Checked before a live line is due too: when the run ends now, the summary's
		 * first line is that line (-D 1s printed the 1.0 s counts twice). */
		if (stop || gone || cap.full || (duration && now - t0 >= duration) ||
		    (count && cap.st.frames >= count))
			break;
		if (!quiet && now >= next) {
			live_line(&cap, (double)(now - t0) / 1e9);
			next += interval;
		}
		rc = frames_cap_poll(&cap, poll_ms(&cap, now));
		if (rc < 0) {
			/* With -w - a failed write is standard output's: the front door says it,
			 * once. The run still ends as promised: the kernel's queue drained and
			 * counted, the final counts on stderr, exit 1 (rc = cap.err below). */
			if (to_stdout && cap.err) {
				out_stdout_failed(cap.err);
				break;
			}
			pfc_err("%s", cap.errmsg[0] ? cap.errmsg : strerror(-rc));
			frames_cap_close(&cap);
			return 1;
		}
	}
	/* Frames already queued in the kernel. Without immediate mode they may sit in a
	 * block the kernel hands over only when its 10 ms timer runs out: wait until a
	 * 20 ms poll brings nothing (at most 1 s), or they would be lost uncounted. */
	if (o.immediate) {
		frames_cap_poll(&cap, 0);
	} else {
		uint64_t until = time_mono_ns() + 1000000000ull;

		while (frames_cap_poll(&cap, 20) > 0 && time_mono_ns() < until)
			;
	}
	frames_cap_stats(&cap);
	secs = (double)(time_mono_ns() - t0) / 1e9;
	render_summary(to_stdout ? stderr : stdout, &cap, json, secs);
	/* The summary lost (a closed pipe, a full disk): its first line, the final counts,
	 * goes to stderr as the last live line (with -w, every frame counted is in the
	 * file once it is closed below). */
	if (!to_stdout && out_stdout_check() && !quiet)
		live_line(&cap, secs);
	rc = cap.err;
	frames_cap_close(&cap);	/* flushes and closes the file, even with stdout gone */
	if (rc || cap.err) {
		if (to_stdout)
			out_stdout_failed(rc ? rc : cap.err);
		else
			pfc_err("%s", cap.errmsg[0] ? cap.errmsg : "writing the capture file failed");
		return 1;
	}
	/* output lost: the front door says so once, and the exit status is 1 */
	return out_stdout_check() ? 1 : 0;
}
