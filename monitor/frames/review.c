// SPDX-License-Identifier: GPL-2.0-or-later
/* review.c: `pfclab review FILE...`: reads pcap/pcapng captures, decodes every frame
 * and prints the PFC/PAUSE, CNP and ECN summary as a short report, JSON or a CSV
 * timeline.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pcap/pcap.h>

#include "lib/out.h"
#include "lib/opt.h"
#include "lib/util.h"
#include "monitor/frames/decode.h"
#include "monitor/frames/ecnfilter.h"
#include "monitor/frames/pcapfile.h"
#include "monitor/frames/reorder.h"
#include "monitor/frames/review.h"
#include "monitor/frames/stats.h"
#include "monitor/frames/timeline.h"

struct review_opts {
	uint64_t speed_bps;
	uint64_t storm_ns;
	uint64_t bin_ns;
	uint64_t reorder_ns; /* the reorder window (reorder.h), 0 = off */
	bool json;
	bool ce_only;      /* --ce-only: the captures kept only CE-marked RoCEv2 packets */
	unsigned top;
};

/* Per-file outcome, for the report's first lines. */
struct review_file {
	const char *path;
	uint64_t frames;
	const char *error; /* corrupt record: the rest of the file was skipped */
	bool cut_short;    /* the file ends inside a record (a capture still being written,
			    * or a copy cut off) */
	bool unread;       /* could not be opened or is not a capture */
	uint64_t bad_ts;   /* records with impossible timestamps, all kinds together */
	uint64_t untimed;  /* frames without a timestamp (pcapng simple packet blocks) */
	/* frames stamped before one that came earlier in the file, put back in time order
	 * or late (beyond the reorder window), as the window counted them (reorder.h) */
	struct frames_reorder_counts reorder;
	/* how far its earliest frame is stamped before the newest frame of the files given
	 * before it (0: after them): the summary reads files one after another */
	uint64_t behind_ns;
	int bad_link;      /* a link type the decoder does not know (first seen), or -1 */
	uint64_t bad_link_frames;
	/* What the capture filters kept of RoCEv2 packets by their ECN field, known from
	 * the pcapng if_filter of each interface (checked on its first RoCEv2 packet) or
	 * from --ce-only: */
	bool roce;         /* RoCEv2 packets were read, so the filters were checked */
	uint8_t ecn_kept;  /* the ECN codepoints every filter kept (FRAMES_ECN_*) */
	bool ecn_unknown;  /* some came through no recorded filter (classic pcap, an
			    * interface block without if_filter) or one that cannot be run */
	bool filter_warned;
};

/* The verdict on one interface's capture filter, from its first RoCEv2 packet. */
struct review_if_ecn {
	bool checked;
	bool known;        /* kept is what the recorded filter (or --ce-only) keeps */
	uint8_t kept;
};

static bool link_known(int link)
{
	return link == FRAMES_LINK_EN10MB || link == FRAMES_LINK_LINUX_SLL ||
	       link == FRAMES_LINK_LINUX_SLL2;
}

int frames_speed_parse(const char *s, uint64_t *bps)
{
	char *end;
	double v;
	uint64_t mul = 1;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v <= 0)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mul = 1000ull; end++; break;
	case 'm': case 'M': mul = 1000000ull; end++; break;
	case 'g': case 'G': mul = 1000000000ull; end++; break;
	case 't': case 'T': mul = 1000000000000ull; end++; break;
	default: break;
	}
	if (*end && strcasecmp(end, "bit") && strcasecmp(end, "b") && strcasecmp(end, "bps") &&
	    strcasecmp(end, "bit/s") && strcasecmp(end, "b/s"))
		return -EINVAL;
	if (v * (double)mul > 1e15 || v * (double)mul < 1e3)
		return -ERANGE;
	*bps = (uint64_t)(v * (double)mul + 0.5);
	return 0;
}

/* Works out which ECN codepoints the filter of rec's interface keeps, on its first
 * RoCEv2 packet (pk), into ie. A filter that cannot be run is taken to keep every
 * codepoint, with one warning per file, since the share is then as good as that
 * assumption. */
static void ecn_check(struct review_file *rf, const struct review_opts *ro,
		      struct review_if_ecn *ie, const struct pcapf_rec *rec,
		      const struct frames_pkt *pk)
{
	const struct pcapf_if *ifc = rec->ifc;
	char why[PCAP_ERRBUF_SIZE + 64] = "";

	ie->checked = true;
	ie->kept = FRAMES_ECN_ALL;
	ie->known = true;
	if (ro->ce_only) {
		ie->kept = FRAMES_ECN_CE_ONLY;
	} else if (!ifc->has_filter) {
		ie->known = false;
	} else if (ifc->filter_unusable) {
		snprintf(why, sizeof(why), "not a libpcap expression of fewer than %d bytes",
			 PCAPF_FILTER_MAX);
	} else if (ifc->filter[0]) { /* an empty one kept everything */
		int rc = frames_filter_ecn_kept(ifc->link, ifc->filter, rec->data, rec->caplen,
						rec->wirelen, pk, why, sizeof(why));

		if (rc >= 0)
			ie->kept = (uint8_t)rc;
		else if (!why[0])
			snprintf(why, sizeof(why), "%s", strerror(-rc));
	}
	if (why[0]) {
		ie->known = false;
		if (!rf->filter_warned)
			pfc_warn("%s: the capture filter of interface %u%s%s%s cannot be run (%s); CE "
				 "shares assume it kept RoCEv2 packets whatever their ECN", rf->path,
				 rec->ifidx, ifc->name[0] ? " (" : "", ifc->name,
				 ifc->name[0] ? ")" : "", why);
		rf->filter_warned = true;
	}
}

/* The ECN codepoints the filter of rec's interface kept (FRAMES_ECN_*), for a RoCEv2
 * packet pk; the file's verdict gathers them (called again for an interface, it
 * changes nothing). */
static uint8_t ecn_kept(struct review_file *rf, const struct review_opts *ro,
			struct review_if_ecn *ie, const struct pcapf_rec *rec,
			const struct frames_pkt *pk)
{
	if (!ie->checked)
		ecn_check(rf, ro, ie, rec, pk);
	rf->roce = true;
	rf->ecn_kept &= ie->kept;
	rf->ecn_unknown |= !ie->known;
	return ie->kept;
}

/* Frames the reorder window could not put back in time order: one warning per file with
 * the count and the largest step back. */
static void late_warn(const struct review_file *rf, const struct review_opts *opt)
{
	char win[32], back[32];

	fmt_duration_ns(opt->reorder_ns, win, sizeof(win));
	fmt_duration_ns(rf->reorder.max_late_ns, back, sizeof(back));
	if (!opt->reorder_ns) {
		pfc_warn("%s: time goes backwards at %" PRIu64 " frames, by up to %s; with "
			 "--reorder 0 they are counted out of time order, so gaps and pause times "
			 "around them are unreliable", rf->path, rf->reorder.late, back);
		return;
	}
	if (rf->reorder.forced)
		pfc_warn("%s: time goes back beyond the reorder window at %" PRIu64 " frames, by "
			 "up to %s (the window, %s, was full with %u PAUSE/PFC/CNP frames %" PRIu64
			 " times); they are counted out of time order, so gaps and pause times "
			 "around them are unreliable", rf->path, rf->reorder.late, back, win,
			 FRAMES_REORDER_CAP, rf->reorder.forced);
	else
		pfc_warn("%s: time goes back beyond the reorder window (%s) at %" PRIu64 " frames, "
			 "by up to %s; they are counted out of time order, so gaps and pause times "
			 "around them are unreliable (a wider --reorder takes them in)", rf->path,
			 win, rf->reorder.late, back);
}

static int review_file_run(struct frames_stats *st, struct review_file *rf,
			   const struct review_opts *opt)
{
	struct review_if_ecn ecn[PCAPF_MAX_IFS];
	unsigned cur = UINT_MAX, rsec;
	struct frames_reorder ro;
	struct pcapf_reader pr;
	struct pcapf_rec rec;
	struct frames_pkt pk;
	bool is_stdin = !strcmp(rf->path, "-"), after = st->frames > st->untimed;
	uint64_t newest = st->last_ns, earliest = UINT64_MAX;
	int fd, rc, link = -1;

	rf->bad_link = -1;
	rf->ecn_kept = FRAMES_ECN_ALL;
	memset(ecn, 0, sizeof(ecn));
	fd = is_stdin ? STDIN_FILENO : open(rf->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pfc_errno(errno, "%s: cannot read the capture file", rf->path);
		rf->unread = true;
		return -errno;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL); /* a pipe says ESPIPE: no matter */
	rc = pcapf_reader_open_fd(&pr, fd, 0);
	if (rc) {
		if (pr.read_err || rc != -EINVAL)
			pfc_errno(-rc, "%s: cannot read the capture file", rf->path);
		else
			pfc_err("%s: %s; give a pcap or pcapng file (tcpdump -w, pfclab capture)",
				rf->path, pr.why);
		rf->unread = true;
		goto out;
	}
	if (pr.thiszone)
		pfc_warn("%s: its pcap header gives a time zone correction (thiszone) of %+" PRId32
			 " s; timestamps are read as written, as UTC, as libpcap, tcpdump and "
			 "Wireshark read them (the pcap specification says readers ignore the field); "
			 "if they are local time, first_s, last_s and the timeline's times are off by "
			 "that much (gaps, rates and paused time are not)", rf->path, pr.thiszone);
	frames_reorder_init(&ro, opt->reorder_ns, FRAMES_REORDER_CAP);
	rsec = pr.sections;
	while ((rc = pcapf_reader_next(&pr, &rec)) > 0) {
		if (pr.sections != rsec) { /* a new section: new interfaces, new clocks */
			frames_reorder_flush(&ro, st);
			rsec = pr.sections;
			memset(ecn, 0, sizeof(ecn));	/* interfaces described afresh */
			cur = UINT_MAX;
		}
		if (rec.ifc->link != link) {
			link = rec.ifc->link;
			if (!link_known(link) && rf->bad_link < 0)
				rf->bad_link = link;
		}
		if (rf->bad_link >= 0 && !link_known(link))
			rf->bad_link_frames++;
		frames_decode(link, rec.data, rec.caplen, rec.wirelen, &pk);
		/* what the filter of this packet's interface dropped, for its flow; worked
		 * out again only when the interface changes */
		if (pk.status == FRAMES_OK && pk.kind == FRAMES_KIND_ROCE && rec.ifidx != cur) {
			cur = rec.ifidx;
			st->ecn_filtered = (uint8_t)(~ecn_kept(rf, opt, &ecn[cur], &rec, &pk) &
						     FRAMES_ECN_ALL);
		}
		rf->frames++;
		if (!rec.has_ts) { /* no time to place it at: counted, not timed */
			frames_stats_add_untimed(st, &pk);
			rf->untimed++;
			continue;
		}
		frames_reorder_add(&ro, st, rec.ts_ns, &pk, rec.ifc->speed_bps);
		if (rec.ts_ns < earliest)
			earliest = rec.ts_ns;
	}
	frames_reorder_flush(&ro, st);
	frames_reorder_free(&ro);
	rf->reorder = ro.cnt;
	if (rc < 0) {
		rf->error = pr.why;
		rf->cut_short = pr.cut_short;
		if (pr.cut_short)
			pfc_warn("%s: cut short after %" PRIu64 " frames (%s); the report covers "
				 "them, exit status 3", rf->path, rf->frames, pr.why);
		else if (pr.read_err)
			pfc_errno(-pr.read_err, "%s: reading failed after %" PRIu64 " frames",
				  rf->path, rf->frames);
		else
			pfc_warn("%s: frame %" PRIu64 ": %s; the rest of the file is skipped "
				 "(exit status 3)", rf->path, rf->frames + 1, pr.why);
	}
	/* one warning per kind per file, with the count */
	if (pr.bad_frac)
		pfc_warn("%s: %" PRIu64 " records with a sub-second field of 1 s or more "
			 "(microseconds >= 1e6 or nanoseconds >= 1e9); their times are wrong",
			 rf->path, pr.bad_frac);
	if (rf->untimed)
		pfc_warn("%s: %" PRIu64 " frames without a timestamp (pcapng simple packet "
			 "blocks); they are counted in frames, kinds and ECN flows but left out of "
			 "the span, the timeline, pause times and the CNP table (rates, gaps)",
			 rf->path, rf->untimed);
	if (rf->reorder.late)
		late_warn(rf, opt);
	if (after && earliest < newest) {
		char back[32];

		rf->behind_ns = newest - earliest;
		fmt_duration_ns(rf->behind_ns, back, sizeof(back));
		pfc_warn("%s: starts %s before the newest frame of the files given before it; "
			 "they are summed one after another, so CNP gaps and pause times across "
			 "them are unreliable: give a capture's files oldest first (a ring of "
			 "capture -W in time order, e.g. ls -tr)", rf->path, back);
	}
	if (pr.bad_tsresol || pr.ts_overflow)
		pfc_warn("%s: %" PRIu64 " interfaces with an if_tsresol finer than pfclab's "
			 "64-bit nanoseconds can use, %" PRIu64 " timestamps beyond its range",
			 rf->path, pr.bad_tsresol, pr.ts_overflow);
	if (rf->bad_link >= 0)
		pfc_warn("%s: link type %d (%s) is not supported (Ethernet, Linux cooked v1/v2 "
			 "are); its %" PRIu64 " frames are counted as invalid", rf->path,
			 rf->bad_link, pcap_datalink_val_to_name(rf->bad_link) ?
			 pcap_datalink_val_to_name(rf->bad_link) : "unknown",
			 rf->bad_link_frames);
	rf->bad_ts = pr.bad_frac + rf->reorder.late + pr.ts_overflow;
	rc = rf->unread ? -EINVAL : 0;
out:
	pcapf_reader_free(&pr);
	if (!is_stdin)
		close(fd);
	return rc;
}

/* Records of a table, biggest count first, for the text report. */
static int cmp_cnp(const void *a, const void *b)
{
	const struct frames_cnp_stats *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

static int cmp_flow(const void *a, const void *b)
{
	const struct frames_flow_stats *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->packets != y->packets)
		return x->packets < y->packets ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

/* The used records of a table, NULL-terminated: sorted by cmp, or in table order. */
static void **table_list(const struct frames_table *t, int (*cmp)(const void *, const void *))
{
	void **v = calloc(t->n + 1, sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return NULL;
	for (i = 0; i < t->cap; i++) {
		void *rec = frames_table_slot(t, i);

		if (rec)
			v[n++] = rec;
	}
	if (cmp)
		qsort(v, n, sizeof(*v), cmp);
	return v;
}

static void ip_str(uint8_t ver, const uint8_t *a, char *buf, size_t n)
{
	struct frames_pkt pk = { .ipver = ver };

	memcpy(pk.ip_src, a, 16);
	frames_ip_str(&pk, false, buf, n);
}

static double cnp_rate(const struct frames_cnp_stats *c, bool *valid)
{
	*valid = c->count > 1 && c->last_ns > c->first_ns;
	return *valid ? (double)(c->count - 1) * 1e9 / (double)(c->last_ns - c->first_ns) : 0;
}

/* What a file's capture filters kept of RoCEv2 packets by ECN, for files[].ecn_filter;
 * NULL when it had none to check them on. */
static const char *ecn_filter_name(const struct review_file *f)
{
	if (!f->roce)
		return NULL;
	if (f->ecn_kept == FRAMES_ECN_CE_ONLY)
		return "ce_only";
	if (f->ecn_kept != FRAMES_ECN_ALL)
		return "by_ecn";
	return f->ecn_unknown ? "unknown" : "keeps_all";
}

/* The report and --json come from one renderer, each field named once (lib/out.h). The
 * text shows the --top rows of each table, biggest first; JSON lists every record. Where
 * the forms differ (the text's headings, JSON's flags), a NULL format or key leaves a
 * field to one form.
 */
static void render_files(struct out *o, const struct review_file *files, int nfiles,
			 const struct review_opts *ro)
{
	int k;

	out_arr_open(o, "files");
	for (k = 0; k < nfiles; k++) {
		const struct review_file *f = &files[k];
		const struct frames_reorder_counts *rc = &f->reorder;
		bool steps = rc->reordered || rc->late, ok = !f->unread;

		out_obj_open(o, NULL);
		out_text(o, "file      %s: ", f->path); /* as given, directories and all */
		out_str(o, "path", NULL, f->path);
		if (f->unread)
			out_na(o, "frames", "not read");
		else
			out_uint(o, "frames", "%" PRIu64 " frames", f->frames);
		out_bool(o, "read", NULL, ok);
		/* time stepping back: the text only where it did */
		out_uint_na(o, "reordered", rc->reordered ? ", %" PRIu64 " put back in time order" :
			    NULL, rc->reordered, ok);
		out_uint_na(o, "late_frames", !rc->late ? NULL : ro->reorder_ns ?
			    ", %" PRIu64 " out of time order beyond the reorder window" :
			    ", %" PRIu64 " out of time order (--reorder 0)", rc->late, ok);
		out_ns(o, "max_backstep_s", steps ? ", steps back up to %.3f ms" : NULL,
		       rc->max_back_ns, 1e6, ok);
		out_uint_na(o, "frames_without_time", f->untimed ?
			    ", %" PRIu64 " without a timestamp (not in time-based figures)" : NULL,
			    f->untimed, ok);
		out_ns(o, "behind_previous_s", f->behind_ns ?
		       ", starts %.3f ms before the files before it end" : NULL, f->behind_ns,
		       1e6, ok);
		if (ecn_filter_name(f))
			out_str(o, "ecn_filter", NULL, ecn_filter_name(f));
		else
			out_na(o, "ecn_filter", NULL);
		if (f->roce && f->ecn_kept == FRAMES_ECN_CE_ONLY)
			out_text(o, ", %s", ro->ce_only ? "only CE-marked RoCEv2 packets (--ce-only)" :
				 "its capture filter kept only CE-marked RoCEv2 packets");
		else if (f->roce && f->ecn_kept != FRAMES_ECN_ALL)
			out_text(o, ", its capture filter kept RoCEv2 packets by their ECN field");
		if (f->error)
			out_str(o, "error", ", corrupt after that: %s", f->error);
		else
			out_na(o, "error", NULL);
		out_bool(o, "damaged", NULL, f->error != NULL);
		out_bool(o, "cut_short", NULL, f->cut_short);
		out_uint_na(o, "bad_timestamps", NULL, f->bad_ts, !f->unread);
		if (f->bad_link >= 0)
			out_int(o, "unsupported_link_type", NULL, f->bad_link);
		else
			out_na(o, "unsupported_link_type", NULL);
		out_text(o, "\n");
		out_obj_close(o);
	}
	out_obj_close(o);
}

static void render_totals(struct out *o, const struct frames_stats *st)
{
	static const enum frames_kind order[] = {
		FRAMES_KIND_PAUSE, FRAMES_KIND_PFC, FRAMES_KIND_CNP, FRAMES_KIND_ROCE,
		FRAMES_KIND_MACCTL, FRAMES_KIND_OTHER,
	};
	bool any = st->frames > st->untimed; /* a frame with a time */
	size_t i;

	if (any || !st->frames)
		out_ns(o, NULL, "span      %.6f s, ", any ? st->last_ns - st->first_ns : 0, 1e9,
		       true);
	else
		out_text(o, "span      n/a (no frame has a timestamp), ");
	out_uint(o, "frames", "%" PRIu64 " frames, ", st->frames);
	out_uint(o, "frames_without_time", st->untimed ?
		 "%" PRIu64 " without a timestamp, " : NULL, st->untimed);
	out_uint(o, "bytes", "%" PRIu64 " bytes\n", st->bytes);
	out_ns(o, "first_s", NULL, st->first_ns, 1e9, any);
	out_ns(o, "last_s", NULL, st->last_ns, 1e9, any);
	out_obj_open(o, "kinds");
	out_text(o, "kinds     ");
	for (i = 0; i < ARRAY_SIZE(order); i++)
		out_uint_kv(o, i ? "  " : "", frames_kind_name(order[i]), st->kind[order[i]]);
	out_uint_kv(o, "  ", "truncated", st->status[FRAMES_TRUNCATED]);
	out_uint_kv(o, "  ", "invalid", st->status[FRAMES_INVALID]);
	out_text(o, "\n");
	out_obj_close(o);
}

static void render_prio(struct out *o, const struct frames_prio_stats *ps, int p)
{
	bool tv = ps->time_valid;	/* false: a pause frame came without a link speed */

	out_obj_open(o, NULL);
	if (p == FRAMES_PRIO_PAUSE) {
		out_str(o, "priority", NULL, "all");
		out_text(o, "  %-11s", "all(802.3x)");
	} else {
		out_int(o, "priority", "  %-11" PRId64, p);
	}
	out_str(o, "kind", NULL, p == FRAMES_PRIO_PAUSE ? "pause" : "pfc");
	out_uint(o, "frames", " %9" PRIu64, ps->frames);
	out_uint(o, "xoff", " %9" PRIu64, ps->xoff);
	out_uint(o, "xon", " %9" PRIu64, ps->xon);
	out_uint(o, "quanta", " %11" PRIu64, ps->quanta_sum);
	out_uint_na(o, "pauses", " %7" PRIu64, ps->pauses, tv);
	out_ns(o, "paused_s", " %11.3f", ps->paused_ns, 1e6, tv);
	out_ns(o, "longest_s", " %11.3f", ps->longest_ns, 1e6, tv);
	out_uint_na(o, "storms", " %6" PRIu64 "\n", ps->storms, tv);
	out_obj_close(o);
}

static void render_pause(struct out *o, const struct frames_stats *st,
			 const struct review_opts *ro)
{
	bool known = st->speed_seen != 0;
	int p;

	out_obj_open(o, "pause");
	if (known) {
		/* %g: 100 Mb/s is 0.1 Gb/s (a virtual lab link), not 0 */
		out_uint_scaled(o, "link_bps", "pause     link %g Gb/s", st->speed_seen, 1e9);
		out_text(o, " (%s)%s", ro->speed_bps ? "--speed" : "capture",
			 st->speed_mixed ? ", mixed speeds" : "");
	} else {
		out_na(o, "link_bps", "pause     link speed unknown: times n/a (give --speed)\n");
	}
	out_str(o, "speed_from", NULL, ro->speed_bps ? "option" : known ? "capture" : "unknown");
	/* link_bps is then the last interface's: each frame's paused time is still taken at
	 * its own interface's speed */
	out_bool(o, "speeds_mixed", NULL, st->speed_mixed);
	out_ns(o, "storm_threshold_s", known ? ", storm >= %.3f ms\n" : NULL, st->storm_ns, 1e6,
	       true);
	out_text(o, "  %-11s %9s %9s %9s %11s %7s %11s %11s %6s\n", "prio", "frames", "xoff",
		 "xon", "quanta", "pauses", "paused_ms", "longest_ms", "storms");
	out_arr_open(o, "priorities");
	for (p = 0; p < FRAMES_NPRIO; p++)
		if (st->prio[p].frames)
			render_prio(o, &st->prio[p], p);
	out_obj_close(o);
	out_obj_close(o);
}

static void render_cnp(struct out *o, const void *rec)
{
	const struct frames_cnp_stats *c = rec;
	bool rv, gv = c->ngaps > 0;
	double rate = cnp_rate(c, &rv);
	char src[64];

	ip_str(c->key.ipver, c->key.src, src, sizeof(src));
	out_obj_open(o, NULL);
	out_str(o, "source", "  %-26s", src);
	out_uint(o, "dest_qp", " %#8" PRIx64, c->key.dqp);
	out_uint(o, "count", " %9" PRIu64, c->count);
	out_double_na(o, "rate_per_s", " %10.1f", rate, rv);
	out_ns(o, "gap_min_s", " %10.1f", c->gap_min, 1e3, gv);
	out_ns(o, "gap_median_s", " %10.1f", c->gap_med, 1e3, gv);
	out_ns(o, "gap_p99_s", " %10.1f\n", c->gap_p99, 1e3, gv);
	/* median and p99 from a uniform sample of the gaps (memory bound reached) */
	out_bool(o, "gaps_sampled", NULL, c->gaps_seen > c->ngaps);
	out_obj_close(o);
}

/* Why a flow's CE share is n/a, from the ECN codepoints a capture filter dropped. */
static const char *share_na_reason(uint8_t dropped)
{
	return dropped == (FRAMES_ECN_ALL & ~FRAMES_ECN_CE_ONLY) ?
	       "capture kept only CE-marked packets" :
	       "capture filter kept packets by their ECN field";
}

static void render_flow(struct out *o, const void *rec)
{
	const struct frames_flow_stats *f = rec;
	char a[64], b[64], flow[160];

	ip_str(f->key.ipver, f->key.src, a, sizeof(a));
	ip_str(f->key.ipver, f->key.dst, b, sizeof(b));
	snprintf(flow, sizeof(flow), "%s > %s", a, b);
	out_obj_open(o, NULL);
	out_text(o, "  %-40s", flow);	/* the text shows the pair as one column */
	out_str(o, "source", NULL, a);
	out_str(o, "destination", NULL, b);
	out_uint(o, "dest_qp", " %#8" PRIx64, f->key.dqp);
	out_uint(o, "packets", " %10" PRIu64, f->packets);
	out_uint(o, "ect", " %10" PRIu64, f->ect);
	out_uint(o, "ce", " %10" PRIu64, f->ce);
	/* a share of what a filter chose by ECN is no share: the packets it left out
	 * were never counted (pfclab capture --ce keeps only the CE-marked ones) */
	if (f->ecn_filtered) {
		out_na_fmt(o, "ce_share", " %8s\n");
		out_str(o, "ce_share_na", NULL, share_na_reason(f->ecn_filtered));
	} else {
		out_share(o, "ce_share", " %7.2f%%\n", f->ce, f->packets);
		out_na(o, "ce_share_na", NULL);
	}
	out_obj_close(o);
}

typedef int (*rec_cmp_fn)(const void *, const void *);
typedef void (*rec_row_fn)(struct out *, const void *);

/* One table of records (CNP pairs or flows): the text's top rows, biggest first; JSON
 * every record, in table order.
 */
static void render_table(struct out *o, const char *key, const struct frames_table *t,
			 rec_cmp_fn cmp, rec_row_fn row, unsigned top)
{
	void **v = table_list(t, o->json ? NULL : cmp);
	size_t i;

	if (!v && !o->json)
		return;
	out_arr_open(o, key);
	for (i = 0; v && v[i] && (o->json || i < top); i++)
		row(o, v[i]);
	out_obj_close(o);
	if (i < t->n)
		out_text(o, "  (+%zu more; --json lists all)\n", t->n - i);
	free(v);
}

/* Flows with a CE share n/a (ecn_filtered) and, of those, the ones whose filter kept
 * only CE-marked packets; and the packets and CE marks of the others. */
struct share_count {
	size_t na, na_ce_only;
	uint64_t packets, ce;
};

static struct share_count share_count(const struct frames_table *t)
{
	struct share_count c = { 0 };
	size_t i;

	for (i = 0; i < t->cap; i++) {
		const struct frames_flow_stats *f = frames_table_slot(t, i);

		if (!f)
			continue;
		if (f->ecn_filtered) {
			c.na++;
			c.na_ce_only += f->ecn_filtered == (FRAMES_ECN_ALL & ~FRAMES_ECN_CE_ONLY);
		} else {
			c.packets += f->packets;
			c.ce += f->ce;
		}
	}
	return c;
}

static int render(const struct frames_stats *st, const struct review_file *files, int nfiles,
		  const struct review_opts *ro)
{
	struct share_count sc = share_count(&st->flows);
	bool json = ro->json, paused = false;
	struct out o;
	int p;

	out_begin(&o, json);
	render_files(&o, files, nfiles, ro);
	render_totals(&o, st);
	for (p = 0; p < FRAMES_NPRIO; p++)
		paused |= st->prio[p].frames > 0;
	if (json || paused)
		render_pause(&o, st, ro);
	if (json || st->cnps.n) {
		out_text(&o, "cnp       %zu (source, dest QP) pairs\n", st->cnps.n);
		out_text(&o, "  %-26s %8s %9s %10s %10s %10s %10s\n", "source", "dest_qp", "count",
			 "rate/s", "gap_min_us", "gap_med_us", "gap_p99_us");
		render_table(&o, "cnp", &st->cnps, cmp_cnp, render_cnp, ro->top);
	}
	if (json || st->flows.n) {
		out_text(&o, "ecn       %zu RoCEv2 flows (source > destination, dest QP)\n",
			 st->flows.n);
		out_text(&o, "  %-40s %8s %10s %10s %10s %8s\n", "flow", "dest_qp", "packets",
			 "ect", "ce", "ce_share");
		render_table(&o, "ecn_flows", &st->flows, cmp_flow, render_flow, ro->top);
		if (sc.na && sc.na == sc.na_ce_only)
			out_text(&o, "note      ce_share n/a: the capture kept only CE-marked packets "
				 "(%s); those it left out were never counted\n",
				 ro->ce_only ? "--ce-only" : "its pcapng filter");
		else if (sc.na)
			out_text(&o, "note      ce_share n/a: the capture filter kept packets by their "
				 "ECN field; those it left out were never counted\n");
	}
	if (st->pausers_dropped)
		out_text(&o, "note      %" PRIu64 " pause frames from more than %d senders were "
			 "not timed\n", st->pausers_dropped, FRAMES_MAX_PAUSERS);
	return out_end_report(&o);
}

static const char review_usage[] =
	"Usage: pfclab review [OPTIONS] FILE...   (FILE - : standard input)\n"
	"\n"
	"Summarises pcap/pcapng captures (pfclab capture, tcpdump, Wireshark):\n"
	"frames per kind; PFC/PAUSE per priority with XOFF->XON transitions, paused time\n"
	"and storms; CNPs per (source, dest QP) with rate and inter-arrival gaps; share\n"
	"of CE-marked packets per RoCEv2 flow.\n"
	"\n"
	"ECN per flow: packets; ect, those sent ECN-capable (ECN field ECT(0), ECT(1) or\n"
	"CE: a CE mark is set on an ECN-capable packet, RFC 3168); ce, those marked CE;\n"
	"ce_share = ce / packets. Where the capture filter chose packets by ECN (pcapng\n"
	"if_filter, as pfclab capture --ce writes: only CE-marked RoCEv2 packets) the\n"
	"share is n/a (JSON null, ce_share_na says why) and the counts cover only what\n"
	"the filter kept; files[].ecn_filter says what each file's filter kept.\n"
	"\n"
	"Time order: where a capture's time steps back (libpcap on Linux stamps a received\n"
	"frame before a frame sent meanwhile reaches the file), PAUSE/PFC and CNP frames\n"
	"are put back in time order within --reorder of capture time (at most 65536 of\n"
	"them held), so paused time and CNP gaps are right; other frames count by their\n"
	"own timestamps wherever they come. PAUSE/PFC and CNP frames further back are\n"
	"counted where they came, with a warning. files[].reordered, .late_frames and\n"
	".max_backstep_s say how many and how far. Files are summed one after another:\n"
	"give a capture's files oldest first (a file that starts before the newest frame\n"
	"of those before it is warned about; files[].behind_previous_s says by how much).\n"
	"Frames without a timestamp (pcapng simple packet blocks) count in frames, kinds\n"
	"and ECN flows but in no figure of time (span, timeline, pause and CNP tables),\n"
	"with a warning; frames_without_time and files[].frames_without_time say how many.\n"
	"\n"
	"Options:\n";
static const char review_tail[] =
	"\n"
	"Files are read as a stream (pipes and FIFOs too) in fixed memory.\n"
	"\n"
	"Exit status: 0 success, 1 a file could not be read or output was lost (a full\n"
	"disk, a closed pipe), 2 usage error (also a --timeline BIN that gives more than\n"
	"1048576 rows over the captures' span: no CSV, the message names a bin that fits),\n"
	"3 a file is damaged: cut short or corrupt part way (the report covers the frames\n"
	"before the damage; --json says which file: files[].damaged, .cut_short, .error).\n";

static int parse_speed(void *dst, const char *v, char *why, size_t len)
{
	if (frames_speed_parse(v, dst) == 0)
		return 0;
	snprintf(why, len, "give a link speed such as 25G or 100G");
	return -1;
}

/* A capture that kept only CE-marked packets without a filter review can run (classic
 * pcap records none) looks like traffic that was all marked: say so, since the shares
 * read 100%. */
static void ce_only_hint(const struct frames_stats *st, const struct review_file *files,
			 int nfiles, const struct review_opts *ro)
{
	struct share_count sc = share_count(&st->flows);
	bool unknown = false;
	int i;

	for (i = 0; i < nfiles; i++)
		unknown |= files[i].roce && files[i].ecn_unknown;
	if (!ro->ce_only && unknown && sc.packets && sc.ce == sc.packets)
		pfc_warn("every RoCEv2 packet read is CE-marked, so every CE share is 100%%; a "
			 "capture that kept only CE-marked packets reads the same where its file "
			 "does not say so (classic pcap, as pfclab capture --ce -w FILE.pcap "
			 "writes): give --ce-only for such a capture");
}

/* A --timeline bin that needs more than FRAMES_MAX_BINS rows for the captures' span
 * (known only once they are read): how many it would need, and a bin that fits,
 * rounded up to 1, 2 or 5 times a power of ten. */
static void bin_refuse(const struct frames_stats *st, uint64_t bin_ns)
{
	uint64_t span = st->last_ns - st->first_ns, min, dec, nice = 0;
	uint64_t rows = st->last_ns / bin_ns - st->first_ns / bin_ns + 1;
	char bin[32], fit[32], sp[32];
	static const unsigned m[] = { 1, 2, 5 };
	size_t i;

	/* rows with bin b: at most floor(span / b) + 2, under the limit with this b */
	min = span / (FRAMES_MAX_BINS - 2) + 1;
	for (dec = 1; !nice; dec *= 10)
		for (i = 0; i < ARRAY_SIZE(m) && !nice; i++)
			if (m[i] * dec >= min)
				nice = m[i] * dec;
	fmt_duration_ns(bin_ns, bin, sizeof(bin));
	fmt_duration_ns(nice, fit, sizeof(fit));
	fmt_duration_ns(span, sp, sizeof(sp));
	pfc_err("--timeline %s gives %" PRIu64 " rows over the frames' span of %s; a timeline "
		"has at most %u: give --timeline %s or wider", bin, rows, sp, FRAMES_MAX_BINS,
		fit);
}

int review_main(int argc, char **argv)
{
	struct review_opts o = { .storm_ns = 100000000ull, .top = 10,
				 .reorder_ns = FRAMES_REORDER_WINDOW_NS };
	uint32_t top = 10;
	const struct opt opts[] = {
		{ "speed", 's', OPT_FN, .dst = &o.speed_bps, .fn = parse_speed, .arg = "RATE",
		  .help = "link speed for pause quanta, e.g. 25G, 100G (default: the\n"
			  "pcapng interface speed; without either, times are n/a)" },
		{ "storm", 0, OPT_DUR, 1, UINT64_MAX, &o.storm_ns, .arg = "DUR",
		  .help = "a pause this long or longer is a storm (default 100ms)" },
		{ "timeline", 't', OPT_DUR, 1, UINT64_MAX, &o.bin_ns, .arg = "BIN",
		  .help = "print a CSV timeline with BIN-wide rows (e.g. 1ms) instead of\n"
			  "the report: frames per kind, CE marks, paused ns per priority,\n"
			  "then PFC frames per priority (pfc_prio0..7, the last columns;\n"
			  "at most 1048576 rows; not with --json)" },
		{ "reorder", 0, OPT_DUR, 0, UINT64_MAX, &o.reorder_ns, .arg = "DUR",
		  .help = "put PAUSE/PFC and CNP frames back in time order where the\n"
			  "capture's time steps back by up to DUR (default 50ms; 0: keep\n"
			  "the file's order)" },
		{ "json", 'j', OPT_FLAG, .dst = &o.json, .help = "print the report as JSON" },
		{ "ce-only", 0, OPT_FLAG, .dst = &o.ce_only,
		  .help = "the captures kept only CE-marked RoCEv2 packets (pfclab\n"
			  "capture --ce to classic pcap, which records no filter):\n"
			  "CE shares are n/a (pcapng says so in its if_filter)" },
		{ "top", 'n', OPT_U32, 1, 1000000, &top, .arg = "N",
		  .help = "rows per table in the report (default 10)" },
		OPT_END
	};
	const struct opt_cmd cmd = { "review", review_usage, review_tail, opts, .extra = NULL };
	struct review_file *files;
	struct frames_stats st;
	int i, nfiles, nread = 0, rc = 0, first = opt_parse(&cmd, argc, argv);

	if (first < 0)
		return first == OPT_HELP ? 0 : 2;
	o.top = top;
	nfiles = argc - first;
	if (nfiles < 1) {
		pfc_err("no capture file given; 'pfclab review --help' shows the usage");
		return 2;
	}
	if (o.json && o.bin_ns) {
		/* two forms of output on one stream: each is whole only alone */
		pfc_err("--timeline prints a CSV timeline instead of the report, --json the report "
			"as JSON: give one (run review twice for both)");
		return 2;
	}
	/* Output lost to a closed pipe is exit 1 with one message from the front door
	 * (out_stdout_check), as for every command, not death by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	files = calloc((size_t)nfiles, sizeof(*files));
	if (!files) {
		pfc_errno(ENOMEM, "cannot allocate the file list");
		return 1;
	}
	frames_stats_init(&st, o.speed_bps, o.storm_ns, o.bin_ns);
	for (i = 0; i < nfiles; i++) {
		files[i].path = argv[first + i];
		if (review_file_run(&st, &files[i], &o))
			rc = 1;
		else
			nread++;
		if (files[i].error && !rc)
			rc = 3;
	}
	if (!nread) { /* nothing to report: no fake zeros */
		frames_stats_free(&st);
		free(files);
		return 1;
	}
	frames_stats_finish(&st);
	if (st.bins_over) { /* a partial timeline would mislead: none at all */
		bin_refuse(&st, o.bin_ns);
		frames_stats_free(&st);
		free(files);
		return 2;
	}
	ce_only_hint(&st, files, nfiles, &o);
	if (st.oom)
		pfc_warn("out of memory: some per-QP or timeline figures are incomplete");
	if (o.bin_ns)
		frames_tl_write(stdout, &st);	/* a failed stdout: the front door says so */
	else
		render(&st, files, nfiles, &o);
	frames_stats_free(&st);
	free(files);
	return rc;
}
