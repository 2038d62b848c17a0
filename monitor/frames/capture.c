// SPDX-License-Identifier: GPL-2.0-or-later
/* capture.c: `pfclab capture`: runs the capture engine on the given interfaces, shows
 * live counts per frame kind and PFC priority, and ends with the kernel's drop counts
 * (pcap_stats) stated plainly.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out.h"
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

static void line_counts(const struct frames_cap *cap, FILE *f, double t)
{
	const struct frames_stats *st = &cap->st;
	int p;

	fprintf(f, "%8.1fs frames %" PRIu64 "  pause %" PRIu64 "  pfc %" PRIu64,
		t, st->frames, st->kind[FRAMES_KIND_PAUSE], st->kind[FRAMES_KIND_PFC]);
	for (p = 0; p < 8; p++)
		if (st->prio[p].frames)
			fprintf(f, " p%d:%" PRIu64, p, st->prio[p].frames);
	fprintf(f, "  cnp %" PRIu64 "  roce %" PRIu64 " (ce %" PRIu64 ")  truncated %" PRIu64
		"  invalid %" PRIu64 "\n", st->kind[FRAMES_KIND_CNP], st->kind[FRAMES_KIND_ROCE],
		st->roce_ce, st->status[FRAMES_TRUNCATED], st->status[FRAMES_INVALID]);
}

static void summary_text(const struct frames_cap *cap, double secs)
{
	unsigned i;

	line_counts(cap, stdout, secs);
	if (cap->o.path)
		printf("written   %" PRIu64 " frames to %u file%s\n", cap->written,
		       (unsigned)cap->files, cap->files == 1 ? "" : "s");
	for (i = 0; i < cap->o.nifs; i++) {
		const struct frames_cap_if *ci = &cap->ifs[i];

		if (!ci->stats_valid)
			printf("drops     %s: n/a (pcap_stats failed)\n", ci->name);
		else
			printf("drops     %s: %" PRIu64 " dropped by the kernel (buffer full), %"
			       PRIu64 " by the interface; %" PRIu64 " passed the filter\n",
			       ci->name, ci->drop, ci->ifdrop, ci->recv);
	}
}

static void summary_json(const struct frames_cap *cap, double secs)
{
	const struct frames_stats *st = &cap->st;
	json_object *root = json_object_new_object(), *k = json_object_new_object(), *a, *o;
	unsigned i;
	int p;

	json_object_object_add(root, "seconds", json_object_new_double(secs));
	json_object_object_add(root, "frames", json_object_new_uint64(st->frames));
	for (i = 0; i < FRAMES_KIND_MAX; i++)
		json_object_object_add(k, frames_kind_name(i), json_object_new_uint64(st->kind[i]));
	json_object_object_add(k, "truncated", json_object_new_uint64(st->status[FRAMES_TRUNCATED]));
	json_object_object_add(k, "invalid", json_object_new_uint64(st->status[FRAMES_INVALID]));
	json_object_object_add(k, "roce_ce", json_object_new_uint64(st->roce_ce));
	json_object_object_add(root, "kinds", k);
	a = json_object_new_array();
	for (p = 0; p < 8; p++)
		json_object_array_add(a, json_object_new_uint64(st->prio[p].frames));
	json_object_object_add(root, "pfc_frames_per_priority", a);
	json_object_object_add(root, "written", cap->o.path ?
			       json_object_new_uint64(cap->written) : NULL);
	a = json_object_new_array();
	for (i = 0; i < cap->o.nifs; i++) {
		const struct frames_cap_if *ci = &cap->ifs[i];

		o = json_object_new_object();
		json_object_object_add(o, "interface", json_object_new_string(ci->name));
		json_object_object_add(o, "passed_filter",
				       ci->stats_valid ? json_object_new_uint64(ci->recv) : NULL);
		json_object_object_add(o, "kernel_drops",
				       ci->stats_valid ? json_object_new_uint64(ci->drop) : NULL);
		json_object_object_add(o, "interface_drops",
				       ci->stats_valid ? json_object_new_uint64(ci->ifdrop) : NULL);
		json_object_array_add(a, o);
	}
	json_object_object_add(root, "interfaces", a);
	out_json_print(stdout, root, true);
	json_object_put(root);
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

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: pfclab capture -i IF [-i IF...] [OPTIONS]\n"
		"\n"
		"Captures PAUSE/PFC frames and RoCEv2 CNPs (and optionally CE-marked or all\n"
		"RoCEv2 headers) with libpcap, counts them live and reports kernel drops.\n"
		"A host never sees PAUSE frames sent to its own MAC: capture them on a mirror\n"
		"port, a tap, or a NIC mode that passes MAC control frames. NIC-made CNPs show\n"
		"on libpcap's RDMA sniffer devices (-i mlx5_0).\n"
		"\n"
		"Options:\n"
		"  -i, --interface IF     capture on IF (up to 16; --list shows them)\n"
		"  -w, --write FILE       write frames to FILE (pcap, nanosecond timestamps)\n"
		"      --pcapng           write pcapng (interface names and speed recorded)\n"
		"      --ce               also CE-marked RoCEv2 packets\n"
		"      --roce             all RoCEv2 packets, headers only (snaplen 128)\n"
		"  -f, --filter EXPR      BPF filter instead of the above\n"
		"  -s, --snaplen N        bytes kept per frame (default 256)\n"
		"  -B, --buffer SIZE      kernel buffer per interface (default 64M)\n"
		"      --no-immediate     let the kernel batch frames (fewer wakeups)\n"
		"  -C, --rotate-size SIZE start FILE.N+1 after SIZE bytes\n"
		"  -G, --rotate-time DUR  start FILE.N+1 every DUR (1ms or more)\n"
		"  -W, --file-count N     with -C: reuse FILE.0 after FILE.N-1 (a ring of N\n"
		"                         files); with -G alone: stop after N files\n"
		"  -c, --count N          stop after N frames\n"
		"  -d, --duration DUR     stop after DUR\n"
		"      --speed RATE       link speed for pause time and pcapng if_speed\n"
		"                         (default: /sys/class/net/IF/speed where known)\n"
		"      --interval DUR     live count period on stderr (default 1s)\n"
		"  -q, --quiet            no live counts\n"
		"  -j, --json             final summary as JSON\n"
		"      --list             list capture devices and exit\n"
		"  -h, --help             this text\n"
		"\n"
		"A line 'capture: listening on ...' on stderr says capture has started.\n"
		"Exit status: 0 success (drops are reported, not an error), 1 run-time\n"
		"failure, 2 usage error.\n");
}

enum { O_PCAPNG = 256, O_CE, O_ROCE, O_NOIMM, O_SPEED, O_INTERVAL, O_LIST };

int capture_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "interface", required_argument, NULL, 'i' },
		{ "write", required_argument, NULL, 'w' },
		{ "pcapng", no_argument, NULL, O_PCAPNG },
		{ "ce", no_argument, NULL, O_CE },
		{ "roce", no_argument, NULL, O_ROCE },
		{ "filter", required_argument, NULL, 'f' },
		{ "snaplen", required_argument, NULL, 's' },
		{ "buffer", required_argument, NULL, 'B' },
		{ "no-immediate", no_argument, NULL, O_NOIMM },
		{ "rotate-size", required_argument, NULL, 'C' },
		{ "rotate-time", required_argument, NULL, 'G' },
		{ "file-count", required_argument, NULL, 'W' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "speed", required_argument, NULL, O_SPEED },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "list", no_argument, NULL, O_LIST },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct frames_cap_opts o = { .snaplen = 0, .buffer_bytes = 64ull << 20, .immediate = true };
	static struct frames_cap cap;
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t count = 0, duration = 0, interval = 1000000000ull, t0, next, v;
	bool ce = false, roce = false, quiet = false, json = false;
	const char *filter = NULL;
	static char fbuf[2048];
	int c, rc;

	while ((c = getopt_long(argc, argv, "i:w:f:s:B:C:G:W:c:d:qjh", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (o.nifs == FRAMES_CAP_MAX_IFS) {
				pfc_err("at most %d interfaces", FRAMES_CAP_MAX_IFS);
				return 2;
			}
			for (unsigned k = 0; k < o.nifs; k++)
				if (!strcmp(o.ifnames[k], optarg)) {
					pfc_err("-i %s given twice; every frame would be counted "
						"and written twice", optarg);
					return 2;
				}
			o.ifnames[o.nifs++] = optarg;
			break;
		case 'w': o.path = optarg; break;
		case O_PCAPNG: o.pcapng = true; break;
		case O_CE: ce = true; break;
		case O_ROCE: roce = true; break;
		case 'f': filter = optarg; break;
		case 's':
			if (parse_u64(optarg, 64, 262144, &v))
				return pfc_bad_arg("--snaplen", optarg, "give 64 to 262144 bytes");
			o.snaplen = (uint32_t)v;
			break;
		case 'B':
			if (parse_size(optarg, 1 << 16, 1ull << 31, &o.buffer_bytes))
				return pfc_bad_arg("--buffer", optarg, "give a size from 64K to 2G");
			break;
		case O_NOIMM: o.immediate = false; break;
		case 'C':
			if (parse_size(optarg, 4096, UINT64_MAX, &o.rotate_bytes))
				return pfc_bad_arg("--rotate-size", optarg, "give a size such as 100M");
			break;
		case 'G':
			if (parse_duration_ns(optarg, 1000000, UINT64_MAX, &o.rotate_ns))
				return pfc_bad_arg("--rotate-time", optarg,
						   "give a duration of 1ms or more, such as 60s");
			break;
		case 'W':
			if (parse_u32(optarg, 1, 1000000, &o.rotate_files))
				return pfc_bad_arg("--file-count", optarg, "give 1 or more files");
			break;
		case 'c':
			if (parse_u64(optarg, 1, UINT64_MAX, &count))
				return pfc_bad_arg("--count", optarg, "give a frame count");
			break;
		case 'd':
			if (parse_duration_ns(optarg, 1, UINT64_MAX, &duration))
				return pfc_bad_arg("--duration", optarg, "give a duration such as 10s");
			break;
		case O_SPEED:
			if (frames_speed_parse(optarg, &o.speed_bps))
				return pfc_bad_arg("--speed", optarg, "give a link speed such as 25G");
			break;
		case O_INTERVAL:
			if (parse_duration_ns(optarg, 10000000, UINT64_MAX, &interval))
				return pfc_bad_arg("--interval", optarg, "give 10ms or more");
			break;
		case 'q': quiet = true; break;
		case 'j': json = true; break;
		case O_LIST: return list_devices();
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		pfc_err("unexpected argument '%s'; 'pfclab capture --help' shows the usage",
			argv[optind]);
		return 2;
	}
	if (!o.nifs) {
		pfc_err("give an interface with -i (pfclab capture --list shows them)");
		return 2;
	}
	if ((o.rotate_bytes || o.rotate_ns) && !o.path) {
		pfc_err("rotation needs -w FILE");
		return 2;
	}
	if (o.rotate_files && !o.rotate_bytes && !o.rotate_ns) {
		pfc_err("--file-count needs rotation (-C SIZE or -G DUR)");
		return 2;
	}
	if (filter) {
		o.filter = filter;
	} else {
		frames_cap_filter_build(fbuf, sizeof(fbuf), ce, roce);
		o.filter = fbuf;
	}
	if (!o.snaplen)
		o.snaplen = roce ? 128 : 256;
	if (o.nifs > 1 && o.path && !o.pcapng)
		o.pcapng = true; /* one file, several interfaces: pcapng keeps them apart */

	rc = frames_cap_open(&cap, &o);
	if (rc) {
		pfc_err("%s", cap.errmsg);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(stderr, "pfclab capture: listening on %s%s (snaplen %u, buffer %" PRIu64
		" MiB)\n", o.ifnames[0], o.nifs > 1 ? " and more" : "", o.snaplen,
		o.buffer_bytes >> 20);
	t0 = time_mono_ns();
	next = t0 + interval;
	while (!stop) {
		uint64_t now = time_mono_ns();

		if (duration && now - t0 >= duration)
			break;
		if (count && cap.st.frames >= count)
			break;
		if (cap.full)
			break;
		rc = frames_cap_poll(&cap, poll_ms(&cap, now));
		if (rc < 0) {
			pfc_err("%s", cap.errmsg[0] ? cap.errmsg : strerror(-rc));
			frames_cap_close(&cap);
			return 1;
		}
		now = time_mono_ns();
		if (!quiet && now >= next) {
			line_counts(&cap, stderr, (double)(now - t0) / 1e9);
			next += interval;
		}
	}
	/* last frames already queued in the kernel */
	frames_cap_poll(&cap, 0);
	frames_cap_stats(&cap);
	if (json)
		summary_json(&cap, (double)(time_mono_ns() - t0) / 1e9);
	else
		summary_text(&cap, (double)(time_mono_ns() - t0) / 1e9);
	fflush(stdout);
	rc = cap.err;
	frames_cap_close(&cap);
	if (rc || cap.err) {
		pfc_err("%s", cap.errmsg[0] ? cap.errmsg : "writing the capture file failed");
		return 1;
	}
	return 0;
}
