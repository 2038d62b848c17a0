// SPDX-License-Identifier: GPL-2.0-or-later
/* review.c: `pfclab review FILE...`: reads pcap/pcapng captures, decodes every frame
 * and prints the PFC/PAUSE, CNP and ECN summary as a short report, JSON or a CSV
 * timeline.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pcap/pcap.h>

#include "lib/out.h"
#include "lib/opt.h"
#include "lib/util.h"
#include "monitor/frames/decode.h"
#include "monitor/frames/pcapfile.h"
#include "monitor/frames/review.h"
#include "monitor/frames/stats.h"

struct review_opts {
	uint64_t speed_bps;
	uint64_t storm_ns;
	uint64_t bin_ns;
	bool json;
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
	int bad_link;      /* a link type the decoder does not know (first seen), or -1 */
	uint64_t bad_link_frames;
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

static int review_file_run(struct frames_stats *st, struct review_file *rf)
{
	struct pcapf_reader pr;
	struct pcapf_rec rec;
	struct frames_pkt pk;
	bool is_stdin = !strcmp(rf->path, "-");
	int fd, rc, link = -1;

	rf->bad_link = -1;
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
	while ((rc = pcapf_reader_next(&pr, &rec)) > 0) {
		if (rec.ifc->link != link) {
			link = rec.ifc->link;
			if (!link_known(link) && rf->bad_link < 0)
				rf->bad_link = link;
		}
		if (rf->bad_link >= 0 && !link_known(link))
			rf->bad_link_frames++;
		frames_decode(link, rec.data, rec.caplen, rec.wirelen, &pk);
		frames_stats_add(st, rec.ts_ns, &pk, rec.ifc->speed_bps);
		rf->frames++;
	}
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
	if (pr.backwards)
		pfc_warn("%s: time goes backwards at %" PRIu64 " records; gaps and pause times "
			 "around them are unreliable", rf->path, pr.backwards);
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
	rf->bad_ts = pr.bad_frac + pr.backwards + pr.ts_overflow;
	rc = rf->unread ? -EINVAL : 0;
out:
	pcapf_reader_free(&pr);
	if (!is_stdin)
		close(fd);
	return rc;
}

static void fmt_ms(char *buf, size_t n, uint64_t ns, bool valid)
{
	if (!valid)
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.3f", (double)ns / 1e6);
}

static void fmt_us(char *buf, size_t n, uint64_t ns, bool valid)
{
	if (!valid)
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.1f", (double)ns / 1e3);
}

static const char *prio_name(int p, char *buf, size_t n)
{
	if (p == FRAMES_PRIO_PAUSE)
		return "all(802.3x)";
	snprintf(buf, n, "%d", p);
	return buf;
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

static void **table_sorted(const struct frames_table *t, int (*cmp)(const void *, const void *))
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

static void print_text(const struct frames_stats *st, const struct review_file *files,
		       int nfiles, const struct review_opts *o)
{
	char a[64], b[64], c[64], d[64];
	double span = st->frames ? (double)(st->last_ns - st->first_ns) / 1e9 : 0;
	unsigned shown;
	void **v;
	size_t i;
	int p, f;
	bool any = false;

	for (f = 0; f < nfiles; f++) {
		const char *base = strrchr(files[f].path, '/');

		if (files[f].unread)
			printf("file      %s: not read\n", base ? base + 1 : files[f].path);
		else
			printf("file      %s: %" PRIu64 " frames%s%s\n", base ? base + 1 : files[f].path,
			       files[f].frames, files[f].error ? ", corrupt after that: " : "",
			       files[f].error ? files[f].error : "");
	}
	printf("span      %.6f s, %" PRIu64 " frames, %" PRIu64 " bytes\n", span, st->frames,
	       st->bytes);
	printf("kinds     pause %" PRIu64 "  pfc %" PRIu64 "  cnp %" PRIu64 "  roce %" PRIu64
	       "  macctl %" PRIu64 "  other %" PRIu64 "  truncated %" PRIu64 "  invalid %" PRIu64
	       "\n", st->kind[FRAMES_KIND_PAUSE], st->kind[FRAMES_KIND_PFC],
	       st->kind[FRAMES_KIND_CNP], st->kind[FRAMES_KIND_ROCE], st->kind[FRAMES_KIND_MACCTL],
	       st->kind[FRAMES_KIND_OTHER], st->status[FRAMES_TRUNCATED],
	       st->status[FRAMES_INVALID]);

	for (p = 0; p < FRAMES_NPRIO; p++)
		any |= st->prio[p].frames > 0;
	if (any) {
		if (st->speed_seen)
			printf("pause     link %.0f Gb/s (%s)%s, storm >= %.3f ms\n",
			       (double)st->speed_seen / 1e9, o->speed_bps ? "--speed" : "capture",
			       st->speed_mixed ? ", mixed speeds" : "", (double)st->storm_ns / 1e6);
		else
			printf("pause     link speed unknown: times n/a (give --speed)\n");
		printf("  %-11s %9s %9s %9s %11s %7s %11s %11s %6s\n", "prio", "frames", "xoff",
		       "xon", "quanta", "pauses", "paused_ms", "longest_ms", "storms");
		for (p = 0; p < FRAMES_NPRIO; p++) {
			const struct frames_prio_stats *ps = &st->prio[p];

			if (!ps->frames)
				continue;
			char pn[16], np_[24], ns_[24];

			fmt_ms(a, sizeof(a), ps->paused_ns, ps->time_valid);
			fmt_ms(b, sizeof(b), ps->longest_ns, ps->time_valid);
			if (ps->time_valid) {
				snprintf(np_, sizeof(np_), "%" PRIu64, ps->pauses);
				snprintf(ns_, sizeof(ns_), "%" PRIu64, ps->storms);
			} else {
				snprintf(np_, sizeof(np_), "n/a");
				snprintf(ns_, sizeof(ns_), "n/a");
			}
			printf("  %-11s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %11" PRIu64 " %7s %11s "
			       "%11s %6s\n", prio_name(p, pn, sizeof(pn)), ps->frames, ps->xoff,
			       ps->xon, ps->quanta_sum, np_, a, b, ns_);
		}
	}

	if (st->cnps.n && (v = table_sorted(&st->cnps, cmp_cnp))) {
		printf("cnp       %zu (source, dest QP) pairs\n", st->cnps.n);
		printf("  %-26s %8s %9s %10s %10s %10s %10s\n", "source", "dest_qp", "count",
		       "rate/s", "gap_min_us", "gap_med_us", "gap_p99_us");
		for (i = 0, shown = 0; v[i] && shown < o->top; i++, shown++) {
			const struct frames_cnp_stats *cs = v[i];
			bool rv;
			double rate = cnp_rate(cs, &rv);
			char r[32];

			ip_str(cs->key.ipver, cs->key.src, a, sizeof(a));
			if (rv)
				snprintf(r, sizeof(r), "%.1f", rate);
			else
				snprintf(r, sizeof(r), "n/a");
			fmt_us(b, sizeof(b), cs->gap_min, cs->ngaps > 0);
			fmt_us(c, sizeof(c), cs->gap_med, cs->ngaps > 0);
			fmt_us(d, sizeof(d), cs->gap_p99, cs->ngaps > 0);
			printf("  %-26s %#8x %9" PRIu64 " %10s %10s %10s %10s\n", a, cs->key.dqp,
			       cs->count, r, b, c, d);
		}
		if (st->cnps.n > shown)
			printf("  (+%zu more; --json lists all)\n", st->cnps.n - shown);
		free(v);
	}

	if (st->flows.n && (v = table_sorted(&st->flows, cmp_flow))) {
		printf("ecn       %zu RoCEv2 flows (source > destination, dest QP)\n", st->flows.n);
		printf("  %-40s %8s %10s %10s %10s %8s\n", "flow", "dest_qp", "packets", "ect", "ce",
		       "ce_share");
		for (i = 0, shown = 0; v[i] && shown < o->top; i++, shown++) {
			const struct frames_flow_stats *fs = v[i];
			char flow[160];

			ip_str(fs->key.ipver, fs->key.src, a, sizeof(a));
			ip_str(fs->key.ipver, fs->key.dst, b, sizeof(b));
			snprintf(flow, sizeof(flow), "%s > %s", a, b);
			printf("  %-40s %#8x %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %7.2f%%\n", flow,
			       fs->key.dqp, fs->packets, fs->ect, fs->ce,
			       100.0 * (double)fs->ce / (double)fs->packets);
		}
		if (st->flows.n > shown)
			printf("  (+%zu more; --json lists all)\n", st->flows.n - shown);
		free(v);
	}
	if (st->pausers_dropped)
		printf("note      %" PRIu64 " pause frames from more than %d senders were not timed\n",
		       st->pausers_dropped, FRAMES_MAX_PAUSERS);
}

static void print_timeline(const struct frames_stats *st)
{
	size_t i;

	printf("time_s,frames,pause,pfc,cnp,roce,roce_ce,other,truncated,invalid\n");
	for (i = 0; i < st->bins_used; i++) {
		const struct frames_bin *b = &st->bins[i];
		uint64_t n = b->truncated + b->invalid, k;

		for (k = 0; k < FRAMES_KIND_MAX; k++)
			n += b->kind[k];
		uint64_t t = st->bin_t0 + i * st->bin_ns;

		printf("%" PRIu64 ".%09" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
		       t / UINT64_C(1000000000), t % UINT64_C(1000000000), n, b->kind[FRAMES_KIND_PAUSE],
		       b->kind[FRAMES_KIND_PFC], b->kind[FRAMES_KIND_CNP], b->kind[FRAMES_KIND_ROCE],
		       b->ce, b->kind[FRAMES_KIND_OTHER] + b->kind[FRAMES_KIND_MACCTL], b->truncated,
		       b->invalid);
	}
}

static json_object *ju64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static json_object *jns(uint64_t ns, bool valid)
{
	return valid ? json_object_new_double((double)ns / 1e9) : NULL;
}

static void print_json(const struct frames_stats *st, const struct review_file *files,
		       int nfiles, const struct review_opts *o)
{
	json_object *root = json_object_new_object(), *arr, *obj;
	char a[64], b[64];
	size_t i;
	int p, k;

	arr = json_object_new_array();
	for (k = 0; k < nfiles; k++) {
		obj = json_object_new_object();
		json_object_object_add(obj, "path", json_object_new_string(files[k].path));
		json_object_object_add(obj, "frames", files[k].unread ? NULL : ju64(files[k].frames));
		json_object_object_add(obj, "read", json_object_new_boolean(!files[k].unread));
		json_object_object_add(obj, "error", files[k].error ?
				       json_object_new_string(files[k].error) : NULL);
		json_object_object_add(obj, "damaged", json_object_new_boolean(
			files[k].error != NULL));
		json_object_object_add(obj, "cut_short", json_object_new_boolean(
			files[k].cut_short));
		json_object_object_add(obj, "bad_timestamps", files[k].unread ? NULL :
				       ju64(files[k].bad_ts));
		json_object_object_add(obj, "unsupported_link_type", files[k].bad_link >= 0 ?
				       json_object_new_int(files[k].bad_link) : NULL);
		json_object_array_add(arr, obj);
	}
	json_object_object_add(root, "files", arr);
	json_object_object_add(root, "frames", ju64(st->frames));
	json_object_object_add(root, "bytes", ju64(st->bytes));
	json_object_object_add(root, "first_s", jns(st->first_ns, st->frames > 0));
	json_object_object_add(root, "last_s", jns(st->last_ns, st->frames > 0));
	obj = json_object_new_object();
	for (k = 0; k < FRAMES_KIND_MAX; k++)
		json_object_object_add(obj, frames_kind_name(k), ju64(st->kind[k]));
	json_object_object_add(obj, "truncated", ju64(st->status[FRAMES_TRUNCATED]));
	json_object_object_add(obj, "invalid", ju64(st->status[FRAMES_INVALID]));
	json_object_object_add(root, "kinds", obj);

	obj = json_object_new_object();
	json_object_object_add(obj, "link_bps", st->speed_seen ? ju64(st->speed_seen) : NULL);
	json_object_object_add(obj, "speed_from", json_object_new_string(
		o->speed_bps ? "option" : st->speed_seen ? "capture" : "unknown"));
	json_object_object_add(obj, "storm_threshold_s", jns(st->storm_ns, true));
	arr = json_object_new_array();
	for (p = 0; p < FRAMES_NPRIO; p++) {
		const struct frames_prio_stats *ps = &st->prio[p];
		json_object *po;

		if (!ps->frames)
			continue;
		po = json_object_new_object();
		json_object_object_add(po, "priority", p == FRAMES_PRIO_PAUSE ?
				       json_object_new_string("all") : json_object_new_int(p));
		json_object_object_add(po, "kind", json_object_new_string(
			p == FRAMES_PRIO_PAUSE ? "pause" : "pfc"));
		json_object_object_add(po, "frames", ju64(ps->frames));
		json_object_object_add(po, "xoff", ju64(ps->xoff));
		json_object_object_add(po, "xon", ju64(ps->xon));
		json_object_object_add(po, "quanta", ju64(ps->quanta_sum));
		json_object_object_add(po, "pauses", ps->time_valid ? ju64(ps->pauses) : NULL);
		json_object_object_add(po, "paused_s", jns(ps->paused_ns, ps->time_valid));
		json_object_object_add(po, "longest_s", jns(ps->longest_ns, ps->time_valid));
		json_object_object_add(po, "storms", ps->time_valid ? ju64(ps->storms) : NULL);
		json_object_array_add(arr, po);
	}
	json_object_object_add(obj, "priorities", arr);
	json_object_object_add(root, "pause", obj);

	arr = json_object_new_array();
	for (i = 0; i < st->cnps.cap; i++) {
		const struct frames_cnp_stats *c = frames_table_slot(&st->cnps, i);
		json_object *co;
		bool rv;
		double rate;

		if (!c)
			continue;
		rate = cnp_rate(c, &rv);
		co = json_object_new_object();
		ip_str(c->key.ipver, c->key.src, a, sizeof(a));
		json_object_object_add(co, "source", json_object_new_string(a));
		json_object_object_add(co, "dest_qp", ju64(c->key.dqp));
		json_object_object_add(co, "count", ju64(c->count));
		json_object_object_add(co, "rate_per_s", rv ? json_object_new_double(rate) : NULL);
		json_object_object_add(co, "gap_min_s", jns(c->gap_min, c->ngaps > 0));
		json_object_object_add(co, "gap_median_s", jns(c->gap_med, c->ngaps > 0));
		json_object_object_add(co, "gap_p99_s", jns(c->gap_p99, c->ngaps > 0));
		/* median and p99 from a uniform sample of the gaps (memory bound reached) */
		json_object_object_add(co, "gaps_sampled",
				       json_object_new_boolean(c->gaps_seen > c->ngaps));
		json_object_array_add(arr, co);
	}
	json_object_object_add(root, "cnp", arr);

	arr = json_object_new_array();
	for (i = 0; i < st->flows.cap; i++) {
		const struct frames_flow_stats *f = frames_table_slot(&st->flows, i);
		json_object *fo;

		if (!f)
			continue;
		fo = json_object_new_object();
		ip_str(f->key.ipver, f->key.src, a, sizeof(a));
		ip_str(f->key.ipver, f->key.dst, b, sizeof(b));
		json_object_object_add(fo, "source", json_object_new_string(a));
		json_object_object_add(fo, "destination", json_object_new_string(b));
		json_object_object_add(fo, "dest_qp", ju64(f->key.dqp));
		json_object_object_add(fo, "packets", ju64(f->packets));
		json_object_object_add(fo, "ect", ju64(f->ect));
		json_object_object_add(fo, "ce", ju64(f->ce));
		json_object_object_add(fo, "ce_share",
				       json_object_new_double((double)f->ce / (double)f->packets));
		json_object_array_add(arr, fo);
	}
	json_object_object_add(root, "ecn_flows", arr);
	out_json_print(stdout, root, true);
	json_object_put(root);
}

static const char review_usage[] =
	"Usage: pfclab review [OPTIONS] FILE...   (FILE - : standard input)\n"
	"\n"
	"Summarises pcap/pcapng captures (pfclab capture, tcpdump, Wireshark):\n"
	"frames per kind; PFC/PAUSE per priority with XOFF->XON transitions, paused time\n"
	"and storms; CNPs per (source, dest QP) with rate and inter-arrival gaps; share\n"
	"of CE-marked packets per RoCEv2 flow.\n"
	"\n"
	"Options:\n";
static const char review_tail[] =
	"\n"
	"Files are read as a stream (pipes and FIFOs too) in fixed memory.\n"
	"\n"
	"Exit status: 0 success, 1 a file could not be read, 2 usage error, 3 a file\n"
	"is damaged: cut short or corrupt part way (the report covers the frames before\n"
	"the damage; --json says which file: files[].damaged, .cut_short, .error).\n";

static int parse_speed(void *dst, const char *v, char *why, size_t len)
{
	if (frames_speed_parse(v, dst) == 0)
		return 0;
	snprintf(why, len, "give a link speed such as 25G or 100G");
	return -1;
}

int review_main(int argc, char **argv)
{
	struct review_opts o = { .storm_ns = 100000000ull, .top = 10 };
	uint32_t top = 10;
	const struct opt opts[] = {
		{ "speed", 's', OPT_FN, .dst = &o.speed_bps, .fn = parse_speed, .arg = "RATE",
		  .help = "link speed for pause quanta, e.g. 25G, 100G (default: the\n"
			  "pcapng interface speed; without either, times are n/a)" },
		{ "storm", 0, OPT_DUR, 1, UINT64_MAX, &o.storm_ns, .arg = "DUR",
		  .help = "a pause this long or longer is a storm (default 100ms)" },
		{ "timeline", 't', OPT_DUR, 1, UINT64_MAX, &o.bin_ns, .arg = "BIN",
		  .help = "print a CSV timeline with BIN-wide rows (e.g. 1ms)" },
		{ "json", 'j', OPT_FLAG, .dst = &o.json, .help = "print everything as JSON" },
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
	files = calloc((size_t)nfiles, sizeof(*files));
	if (!files) {
		pfc_errno(ENOMEM, "cannot allocate the file list");
		return 1;
	}
	frames_stats_init(&st, o.speed_bps, o.storm_ns, o.bin_ns);
	for (i = 0; i < nfiles; i++) {
		files[i].path = argv[first + i];
		if (review_file_run(&st, &files[i]))
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
	if (st.bins_clamped)
		pfc_warn("the timeline is limited to %u bins; later frames are in the last row "
			 "(give a wider --timeline bin)", FRAMES_MAX_BINS);
	if (st.oom)
		pfc_warn("out of memory: some per-QP or timeline figures are incomplete");
	if (o.json)
		print_json(&st, files, nfiles, &o);
	else if (o.bin_ns)
		print_timeline(&st);
	else
		print_text(&st, files, nfiles, &o);
	frames_stats_free(&st);
	free(files);
	return rc;
}
