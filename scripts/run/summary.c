// SPDX-License-Identifier: GPL-2.0-or-later
/* summary.c: summary.json and summary.txt of a results folder, made from the records alone
 * (so a folder recorded elsewhere can be reported here): per point and repetition the
 * throughput per direction, PFC/PAUSE frames and paused share per priority (of the point,
 * and per phase from the capture's timeline), CNPs sent and handled, ECN marks and CE
 * share, GPU PCIe rx/tx, drops and discards, the capture's time order, validity and
 * warnings; per point the spread over valid repetitions.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/hw/gpu.h"
#include "lib/out.h"
#include "lib/util.h"
#include "clock.h"
#include "dcqcn.h"
#include "records.h"
#include "report.h"
#include "util.h"
#include "validity.h"

static json_object *num(double v, bool valid)
{
	return valid && isfinite(v) ? out_json_double(v) : NULL;
}

/* json_object_deep_copy's step for copy_doubles: a finite double made anew, the rest as
 * json-c copies it. */
static int copy_double(json_object *src, json_object *parent, const char *key, size_t index,
		       json_object **dst)
{
	if (!json_object_is_type(src, json_type_double) || !isfinite(json_object_get_double(src)))
		return json_c_shallow_copy_default(src, parent, key, index, dst);
	*dst = out_json_double(json_object_get_double(src));
	return *dst ? 2 : -1;	/* 2: its text is set, not to be copied over */
}

/* A part of a record carried into the summary (a repetition's phases), its doubles
 * written as this pfclab writes them: json-c keeps a parsed number's text, and a folder
 * recorded by an older pfclab holds 17 digits (0.00031678000000000001). o itself where
 * the copy fails; NULL for NULL. */
static json_object *copy_doubles(json_object *o)
{
	json_object *c = NULL;

	if (!o)
		return NULL;
	return json_object_deep_copy(o, &c, copy_double) ? json_object_get(o) : c;
}

static json_object *count(double v, bool valid)
{
	return valid ? json_object_new_int64((int64_t)llround(v)) : NULL;
}

/* sorted names of the entries of DIR matching PREFIX (folders or files) */
static size_t list_dir(const char *dir, const char *prefix, bool want_dir, char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0;

	*out = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char p[PATH_MAX];
		struct stat st;
		char **nv;

		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		run_path(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (stat(p, &st) || (bool)S_ISDIR(st.st_mode) != want_dir)
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[n] = strdup(de->d_name);
		if (v[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), pfc_cmp_str);
	*out = v;
	return n;
}

static void free_list(char **v, size_t n)
{
	while (n--)
		free(v[n]);
	free(v);
}

bool run_is_rep(const char *name)
{
	return !strncmp(name, "rep", 3) && name[3] && strspn(name + 3, "0123456789") == strlen(name + 3);
}

static double point_duration(json_object *st)
{
	json_object *ph, *last, *e;
	double d;
	size_t n;

	if (!json_object_object_get_ex(st, "phases", &ph) || !(n = rec_json_len(ph)))
		return 0;
	last = json_object_array_get_idx(ph, n - 1);
	return json_object_object_get_ex(last, "end_s", &e) && rec_json_num(e, &d) && d > 0 ? d : 0;
}

/* A count a host left (a member of O) as a JSON integer; null for anything but a finite
 * number from 0 to int64's largest. */
static json_object *count_of(json_object *o, const char *key)
{
	json_object *x = NULL;
	double v;

	json_object_object_get_ex(o, key, &x);
	return rec_json_count(x, &v) ? json_object_new_int64((int64_t)v) : NULL;
}

/* Where the point's phases lie for one host: the phases (status.json), the host's clock
 * (its manifest entry) and the point's time zero on the runner's clock (t0 false: not
 * known, so no figure per phase). */
struct rep_time {
	json_object *phases;
	json_object *mh;
	int64_t t0;
	bool have_t0;
};

/* The paused time of timeline column COL within each phase, from the capture's bins put
 * on the runner's clock (T: each bin's start, seconds since the point started). A bin that
 * straddles a phase's edge counts in part, its paused time taken as spread evenly over it,
 * so each figure is good to a bin (10 ms) at each edge. A phase's paused_s is null where
 * the timeline never gives the column (no link speed to time the pauses with). */
static json_object *paused_by_phase(const struct rec_timeline *tl, const double *t, int col,
				    json_object *phases)
{
	json_object *out;
	size_t i, j;
	bool known = false;

	for (j = 0; j < tl->n && !known; j++)
		known = tl->rows[j].have[col];
	out = json_object_new_object();
	for (i = 0; i < rec_json_len(phases); i++) {
		json_object *ph = json_object_array_get_idx(phases, i), *x = NULL, *one;
		const char *name = rec_json_str(rec_json_member(ph, "name", json_type_string));
		double start, end, paused = 0;

		json_object_object_get_ex(ph, "start_s", &x);
		if (!*name || !rec_json_num(x, &start))
			continue;
		x = NULL;
		json_object_object_get_ex(ph, "end_s", &x);
		if (!rec_json_num(x, &end) || !(end > start))
			continue;
		for (j = 0; known && j < tl->n; j++) {
			double lo = fmax(start, t[j]), hi = fmin(end, t[j] + tl->bin_s);

			if (tl->rows[j].have[col] && hi > lo)
				paused += tl->rows[j].v[col] / 1e9 * (hi - lo) / tl->bin_s;
		}
		one = json_object_new_object();
		json_object_object_add(one, "duration_s", out_json_double(end - start));
		json_object_object_add(one, "paused_s", num(paused, known));
		json_object_object_add(one, "paused_share", num(paused / (end - start), known));
		json_object_object_add(out, name, one);
	}
	return out;
}

/* The capture's timeline (review-timeline.csv) with each bin's start on the runner's
 * clock in *T (freed by the caller); false when there is none to place. A timeline that
 * is there but cannot be read whole is not placed in part: NA (LEN bytes) names it as
 * HREL (the host's folder in the results folder) gives it, with the line and why
 * ("points/p000/rep0/a/review-timeline.csv line 17: 14 fields where the header has
 * 19"); empty otherwise. */
static bool timeline_placed(const char *hdir, const char *hrel, const struct rep_time *rt,
			    struct rec_timeline *tl, double **t, char *na, size_t len)
{
	char path[PATH_MAX], why[256], raw[PATH_MAX + 300];
	int rc;

	*t = NULL;
	na[0] = '\0';
	if (!rt->have_t0 || !rec_json_len(rt->phases))
		return false;
	run_path(path, sizeof(path), "%s/review-timeline.csv", hdir);
	rc = rec_timeline_read(path, tl, why, sizeof(why));
	if (rc) {
		if (rc != -ENOENT) {	/* absent: nothing to say, as for a point without capture */
			run_path(raw, sizeof(raw), "%s/review-timeline.csv%s %s", hrel,
				 strncmp(why, "line ", 5) ? ":" : "", why[0] ? why : strerror(-rc));
			rec_text_clean(raw, strlen(raw), na, len);
		}
		return false;
	}
	*t = clock_timeline_s(tl, rt->mh, rt->t0);
	if (!*t) {
		rec_timeline_free(tl);
		return false;
	}
	return true;
}

/* The capture's frames on this host, from its review.json, into cap; what review says of
 * the capture's time order into RR (validity_warn's figures). */
static void review_summary(const char *hdir, const char *hrel, double dur,
			   const struct rep_time *rt, json_object *cap, struct rec_review *rr)
{
	char path[PATH_MAX], na[512];
	struct rec_timeline tl;
	double *t = NULL;
	bool placed;
	json_object *rv, *kinds, *prios, *pfc;
	size_t i;

	run_path(path, sizeof(path), "%s/review.json", hdir);
	rv = json_object_from_file(path);
	rec_review_scan(rv, rr);
	if (!json_object_is_type(rv, json_type_object)) {
		json_object_put(rv);
		json_object_object_add(cap, "review", json_object_new_string("n/a: no review.json"));
		return;
	}
	placed = timeline_placed(hdir, hrel, rt, &tl, &t, na, sizeof(na));
	pfc = json_object_new_object();
	if ((kinds = rec_json_member(rv, "kinds", json_type_object))) {
		json_object_object_add(cap, "pfc_frames", count_of(kinds, "pfc"));
		json_object_object_add(cap, "pause_frames", count_of(kinds, "pause"));
		json_object_object_add(cap, "cnp", count_of(kinds, "cnp"));
		json_object_object_add(cap, "roce", count_of(kinds, "roce"));
	}
	if (rr->has_flows) {
		json_object_object_add(cap, "roce_ce", count(rr->ce, rr->ce_valid));
		json_object_object_add(cap, "ce_share", num(rr->ce_share, rr->share_valid));
		json_object_object_add(cap, "ce_share_na", rr->share_valid || !rr->ce_share_na[0] ? NULL :
				       json_object_new_string(rr->ce_share_na));
	}
	json_object_object_add(cap, "ecn_filter", rr->ecn_filter[0] ?
			       json_object_new_string(rr->ecn_filter) : NULL);
	/* the capture's time order (review's files[]) */
	json_object_object_add(cap, "reordered", count(rr->reordered, rr->reordered_valid));
	json_object_object_add(cap, "late_frames", count(rr->late_frames, rr->late_valid));
	json_object_object_add(cap, "max_backstep_s", num(rr->max_backstep_s, rr->backstep_valid));
	json_object_object_add(cap, "bad_timestamps", count(rr->bad_timestamps, rr->bad_ts_valid));
	json_object_object_add(cap, "frames_without_time", count(rr->untimed, rr->untimed_valid));
	prios = rec_json_member(rec_json_member(rv, "pause", json_type_object), "priorities",
				json_type_array);
	for (i = 0; i < rec_json_len(prios); i++) {
		json_object *e = json_object_array_get_idx(prios, i), *pr = NULL, *ps = NULL;
		json_object *kind = rec_json_member(e, "kind", json_type_string), *one;
		char key[32];
		double prio, paused;
		int col;

		if (!json_object_object_get_ex(e, "priority", &pr) || !kind)
			continue;
		/* PFC per priority 0-7; 802.3x PAUSE ("priority": "all") as one */
		if (!strcmp(json_object_get_string(kind), "pfc")) {
			if (!rec_json_num(pr, &prio) || prio < 0 || prio > 7)
				continue;
			run_path(key, sizeof(key), "prio%d", (int)prio);
			col = REC_TL_PAUSED0 + (int)prio;
		} else {
			run_path(key, sizeof(key), "pause");
			col = REC_TL_PAUSED0 + REC_TL_NPAUSED - 1;
		}
		one = json_object_new_object();
		json_object_object_add(one, "frames", count_of(e, "frames"));
		json_object_object_add(one, "xoff", count_of(e, "xoff"));
		json_object_object_add(one, "xon", count_of(e, "xon"));
		json_object_object_get_ex(e, "paused_s", &ps);
		if (!rec_json_num(ps, &paused) || paused < 0)
			paused = NAN;
		json_object_object_add(one, "paused_s", num(paused, true));
		/* of the whole point (duration_s): all phases together */
		json_object_object_add(one, "paused_share", num(dur > 0 ? paused / dur : NAN, dur > 0));
		json_object_object_add(one, "by_phase", placed ? paused_by_phase(&tl, t, col, rt->phases) : NULL);
		json_object_object_add(pfc, key, one);
	}
	json_object_object_add(cap, "pfc", pfc);
	/* by_phase is null throughout: say why where the timeline is there but unusable */
	if (na[0])
		json_object_object_add(cap, "by_phase_na", json_object_new_string(na));
	if (placed)
		rec_timeline_free(&tl);
	free(t);
	json_object_put(rv);
}

/* Throughput per phase and direction: a client's tx is client -> server; with -b the
 * server's tx goes back. Sends a side left in flight at a size's end (traffic did not
 * wait for them: a paused or lossy path) go to left, by phase and direction, where any.
 */
static void traffic_summary(const char *hdir, const char *host, json_object *tput,
			    json_object *left)
{
	char path[PATH_MAX];
	char **files;
	size_t i, nf;

	nf = list_dir(hdir, "traffic-", false, &files);
	for (i = 0; i < nf; i++) {
		char phase[128], role[8], peer[128], dirn[300];
		struct rec_traffic t;

		if (!rec_traffic_name(files[i], phase, sizeof(phase), role, peer, sizeof(peer)))
			continue;
		run_path(path, sizeof(path), "%s/%s", hdir, files[i]);
		if (rec_traffic_read(path, &t) || !t.tx_valid || (!strcmp(role, "server") && t.tx_bytes == 0))
			continue;
		run_path(dirn, sizeof(dirn), "%s->%s", host, peer);
		json_object_object_add(run_json_child(tput, phase), dirn, out_json_double(t.tx_gbps));
		if (t.in_flight)
			json_object_object_add(run_json_child(left, phase), dirn,
					       json_object_new_int64((int64_t)t.in_flight));
	}
	free_list(files, nf);
}

/* The NIC's side of PCIe over the record (mlx5 counters.rst): the share of time its DMA
 * writes (stalled_wr: receiving, into host or GPU memory) and reads (stalled_rd) waited
 * for PCIe credits, mean and peak of the per-second shares the NIC computes, and the
 * packets it dropped for a full PCIe buffer. Every field null where the NIC does not
 * count it (rxe, veth, other vendors). A record made while the shares were taken for
 * microsecond counters gives them as counters: their mean from the delta, no peak.
 * g: the wr and rd gauges; us: the wr and rd counters; ovf: the overflow counter. */
static json_object *nic_pcie(const struct rec_gauge g[2], const struct rec_counter us[2],
			     const struct rec_counter *ovf, bool ok, double dur)
{
	static const char *const dir[2] = { "stalled_wr", "stalled_rd" };
	json_object *o = json_object_new_object();
	char k[40];
	double v;
	int i;

	for (i = 0; i < 2; i++) {
		json_object *mean = NULL, *max = NULL;

		if (ok && us[i].valid) {
			mean = num(dur > 0 ? us[i].delta / 1e6 / dur : NAN, dur > 0);
		} else if (ok && rec_gauge_mean(&g[i], &v)) {
			mean = num(v / 100, true);
			max = num(g[i].max / 100, true);
		}
		run_path(k, sizeof(k), "%s_share_mean", dir[i]);
		json_object_object_add(o, k, mean);
		run_path(k, sizeof(k), "%s_share_max", dir[i]);
		json_object_object_add(o, k, max);
	}
	json_object_object_add(o, "buffer_overflow", count(ovf->delta, ok && ovf->valid));
	return o;
}

static void host_summary(const char *hdir, const char *hrel, const char *host,
			 const char *gpu, bool monitored, double dur, const struct rep_time *rt,
			 json_object *ho, json_object *tput, json_object *left,
			 struct rec_review *rr)
{
	static const char *const names[] = {
		"pfc.tx.prio0.frames", "pfc.tx.prio1.frames", "pfc.tx.prio2.frames", "pfc.tx.prio3.frames",
		"pfc.tx.prio4.frames", "pfc.tx.prio5.frames", "pfc.tx.prio6.frames", "pfc.tx.prio7.frames",
		"pfc.rx.prio0.frames", "pfc.rx.prio1.frames", "pfc.rx.prio2.frames", "pfc.rx.prio3.frames",
		"pfc.rx.prio4.frames", "pfc.rx.prio5.frames", "pfc.rx.prio6.frames", "pfc.rx.prio7.frames",
		"pfc.rx.prio0.pause_us", "pfc.rx.prio1.pause_us", "pfc.rx.prio2.pause_us", "pfc.rx.prio3.pause_us",
		"pfc.rx.prio4.pause_us", "pfc.rx.prio5.pause_us", "pfc.rx.prio6.pause_us", "pfc.rx.prio7.pause_us",
		"pause.tx.frames", "pause.rx.frames", "cnp.sent", "cnp.handled", "ecn.marked", "discard.*",
		"capture.kernel_drops", "cnp.received", "pcie.nic.buffer_overflow",
		/* counters only in records made before they were gauges (microseconds) */
		"pcie.nic.stalled_wr", "pcie.nic.stalled_rd",
	};
	struct rec_counter rc[ARRAY_SIZE(names)];
	struct rec_monitor m;
	json_object *mon = json_object_new_object(), *o, *cap = json_object_new_object();
	char path[PATH_MAX], why[256], na[PATH_MAX + 400] = "";
	size_t i;
	double v;
	bool ok, refused, gi;
	int p, fmt_rc, rd, gx = -1;
	char mr[64], mt[64];
	/* the NIC's PCIe stall shares (mlx5 percentage gauges), then the GPU's PCIe B/s */
	struct rec_gauge gg[4] = { { .metric = "pcie.nic.stalled_wr" },
				   { .metric = "pcie.nic.stalled_rd" },
				   { .metric = mr }, { .metric = mt } };
	uint32_t u;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		rc[i].metric = names[i];
	run_path(path, sizeof(path), "%s/monitor", hdir);
	fmt_rc = rec_monitor_format(path, why, sizeof(why));
	refused = fmt_rc && fmt_rc != -ENOENT;
	/* the GPU's index (for a PCI address, the one its host's monitor found), so that its
	 * PCIe gauges are averaged in the same pass over the samples as the counters */
	gi = gpu && (!parse_u32(gpu, 0, HW_GPU_INDEX_MAX, &u) ? (gx = (int)u, true) :
		     rec_monitor_gpu_index(path, &gx));
	run_path(mr, sizeof(mr), "pcie.gpu%d.rx_Bps", gx);
	run_path(mt, sizeof(mt), "pcie.gpu%d.tx_Bps", gx);
	rd = rec_monitor_read_gauges(path, &m, rc, ARRAY_SIZE(rc), gg, gi ? ARRAY_SIZE(gg) : 2);
	ok = !rd && m.samples > 0;
	/* every counter n/a: say why, rather than leave it to be guessed */
	if (refused)	/* another format (or no JSON): not read as this one */
		run_path(na, sizeof(na), "%s/monitor/meta.json: %s; remake the summary "
			 "(pfclab run --report) with a pfclab that reads that record", hrel, why);
	else if (rd && !monitored)
		run_path(na, sizeof(na), "not monitored (monitor: false in the experiment)");
	else if (rd)
		run_path(na, sizeof(na), "%s/monitor/samples.jsonl: %s (the host's monitor left no "
			 "record; %s/monitor.err says why)", hrel, strerror(-rd), hrel);
	else if (!m.samples)
		run_path(na, sizeof(na), "%s/monitor/samples.jsonl holds no sample (%s/monitor.err "
			 "may say why)", hrel, hrel);
	if (na[0])
		json_object_object_add(ho, "counters_na", json_object_new_string(na));
	json_object_object_add(mon, "samples", refused || rd ? NULL :
			       json_object_new_int64((int64_t)m.samples));
	json_object_object_add(mon, "counter_resets", na[0] ? NULL : json_object_new_int((int)m.resets));
	/* how well the monitor kept its interval, and the hypervisor's share meanwhile */
	json_object_object_add(mon, "missed_intervals", count((double)m.missed, !na[0] && m.missed_valid));
	json_object_object_add(mon, "host_steal_s", num((double)m.steal_ns / 1e9, !na[0] && m.steal_valid));
	/* PFC frames per priority, sent and received (NIC counters) */
	for (i = 0; i < 2; i++) {
		o = json_object_new_object();
		for (p = 0; p < 8; p++) {
			char k[8];

			run_path(k, sizeof(k), "prio%d", p);
			json_object_object_add(o, k, count(rc[i * 8 + (size_t)p].delta, ok && rc[i * 8 + (size_t)p].valid));
		}
		json_object_object_add(mon, i ? "pfc_rx_frames" : "pfc_tx_frames", o);
	}
	o = json_object_new_object();
	for (p = 0; p < 8; p++) {
		char k[8];
		const struct rec_counter *c = &rc[16 + (size_t)p];

		run_path(k, sizeof(k), "prio%d", p);
		json_object_object_add(o, k, num(dur > 0 ? c->delta / 1e6 / dur : NAN, ok && c->valid && dur > 0));
	}
	json_object_object_add(mon, "paused_share_rx", o);
	json_object_object_add(mon, "pause_tx_frames", count(rc[24].delta, ok && rc[24].valid));
	json_object_object_add(mon, "pause_rx_frames", count(rc[25].delta, ok && rc[25].valid));
	json_object_object_add(mon, "cnp_sent", count(rc[26].delta, ok && rc[26].valid));
	json_object_object_add(mon, "cnp_handled", count(rc[27].delta, ok && rc[27].valid));
	/* CNPs that arrived, handled or not (bnxt_re rx_cnp_pkts): null where not counted */
	json_object_object_add(mon, "cnp_received", count(rc[31].delta, ok && rc[31].valid));
	json_object_object_add(mon, "ecn_marked", count(rc[28].delta, ok && rc[28].valid));
	json_object_object_add(mon, "discards", count(rc[29].delta, ok && rc[29].valid));
	o = json_object_new_object();
	json_object_object_add(o, "rx_Bps_mean", NULL);
	if (gi && !rd && rec_gauge_mean(&gg[2], &v))
		json_object_object_add(o, "rx_Bps_mean", out_json_double(v));
	json_object_object_add(o, "tx_Bps_mean", NULL);
	if (gi && !rd && rec_gauge_mean(&gg[3], &v))
		json_object_object_add(o, "tx_Bps_mean", out_json_double(v));
	json_object_object_add(mon, "gpu_pcie", o);
	json_object_object_add(mon, "nic_pcie", nic_pcie(gg, &rc[33], &rc[32], ok, dur));
	json_object_object_add(ho, "counters", mon);

	review_summary(hdir, hrel, dur, rt, cap, rr);
	{
		uint64_t drops;

		run_path(path, sizeof(path), "%s/capture.json", hdir);
		json_object_object_add(cap, "kernel_drops",
				       rec_capture_drops(path, &drops) ? json_object_new_int64((int64_t)drops) : NULL);
	}
	json_object_object_add(ho, "capture", cap);

	traffic_summary(hdir, host, tput, left);
}

struct spread {
	double sum, min, max;
	size_t n;
};

static void spread_add(json_object *agg, const char *key, double v)
{
	json_object *o, *x;
	double sum = v, mn = v, mx = v;
	int n = 1;

	if (json_object_object_get_ex(agg, key, &o)) {
		json_object_object_get_ex(o, "n", &x);
		n = json_object_get_int(x) + 1;
		json_object_object_get_ex(o, "sum", &x);
		sum = json_object_get_double(x) + v;
		json_object_object_get_ex(o, "min", &x);
		mn = fmin(json_object_get_double(x), v);
		json_object_object_get_ex(o, "max", &x);
		mx = fmax(json_object_get_double(x), v);
	} else {
		o = json_object_new_object();
		json_object_object_add(agg, key, o);
	}
	json_object_object_add(o, "n", json_object_new_int(n));
	json_object_object_add(o, "sum", out_json_double(sum));
	json_object_object_add(o, "mean", out_json_double(sum / n));
	json_object_object_add(o, "min", out_json_double(mn));
	json_object_object_add(o, "max", out_json_double(mx));
}

/* One host's paused share per priority (an object of prioN: share, or prioN: {paused_share})
 * into the spread as "PREFIX prioN HOST", where known. */
static void spread_shares(json_object *agg, json_object *o, const char *prefix, const char *hn)
{
	if (!json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, pk, pv) {
		json_object *x = pv;
		double v;
		char k[300];

		if (json_object_is_type(pv, json_type_object) &&
		    !json_object_object_get_ex(pv, "paused_share", &x))
			continue;
		if (!rec_json_num(x, &v))
			continue;
		run_path(k, sizeof(k), "%s %s %s", prefix, pk, hn);
		spread_add(agg, k, v);
	}
}

/* The captured paused share per priority and phase (pfc.prioN.by_phase.PHASE), where
 * known, as "phase_paused_share prioN PHASE HOST": a phase's own share, not diluted by
 * the point's idle phases. Where the repetition had traffic (tput: throughput_gbps by
 * phase), only the phases with traffic: an idle phase's share says nothing along a
 * sweep. */
static void spread_phase_shares(json_object *agg, json_object *pfc, json_object *tput,
				const char *hn)
{
	bool any_traffic = json_object_is_type(tput, json_type_object) &&
			   json_object_object_length(tput) > 0;

	if (!json_object_is_type(pfc, json_type_object))
		return;
	json_object_object_foreach(pfc, pk, pv) {
		json_object *bp = rec_json_member(pv, "by_phase", json_type_object);

		if (!bp)
			continue;
		json_object_object_foreach(bp, ph, e) {
			json_object *x = NULL;
			double v;
			char k[300];

			if (!json_object_object_get_ex(e, "paused_share", &x) || !rec_json_num(x, &v) ||
			    (any_traffic && !json_object_object_get_ex(tput, ph, NULL)))
				continue;
			run_path(k, sizeof(k), "phase_paused_share %s %s %s", pk, ph, hn);
			spread_add(agg, k, v);
		}
	}
}

/* the figures a point's spread is given for: throughput per phase and direction, and per
 * host the captured PFC/CNP/CE frames and paused share per priority (of the point and
 * per phase), NIC CNP/ECN counters and paused share, NIC and GPU PCIe */
static void aggregate(json_object *agg, json_object *rep)
{
	json_object *tput = NULL, *hosts;

	if (json_object_object_get_ex(rep, "throughput_gbps", &tput)) {
		json_object_object_foreach(tput, phase, dirs) {
			json_object_object_foreach(dirs, d, v) {
				char k[300];

				run_path(k, sizeof(k), "throughput_gbps %s %s", phase, d);
				spread_add(agg, k, json_object_get_double(v));
			}
		}
	}
	if (!json_object_object_get_ex(rep, "hosts", &hosts))
		return;
	json_object_object_foreach(hosts, hn, ho) {
		static const char *const capk[] = { "pfc_frames", "pause_frames", "cnp", "roce_ce" };
		static const char *const monk[] = { "cnp_sent", "cnp_handled", "cnp_received",
						    "ecn_marked", "discards" };
		json_object *cap, *mon, *x, *g;
		size_t i;
		char k[300];

		if (json_object_object_get_ex(ho, "capture", &cap)) {
			for (i = 0; i < ARRAY_SIZE(capk); i++)
				if (json_object_object_get_ex(cap, capk[i], &x) && x) {
					run_path(k, sizeof(k), "captured_%s %s", capk[i], hn);
					spread_add(agg, k, json_object_get_double(x));
				}
			if (json_object_object_get_ex(cap, "pfc", &x)) {
				spread_shares(agg, x, "captured_paused_share", hn);
				spread_phase_shares(agg, x, tput, hn);
			}
		}
		if (json_object_object_get_ex(ho, "counters", &mon)) {
			if (json_object_object_get_ex(mon, "paused_share_rx", &x))
				spread_shares(agg, x, "paused_share_rx", hn);
			for (i = 0; i < ARRAY_SIZE(monk); i++)
				if (json_object_object_get_ex(mon, monk[i], &x) && x) {
					run_path(k, sizeof(k), "%s %s", monk[i], hn);
					spread_add(agg, k, json_object_get_double(x));
				}
			if ((g = rec_json_member(mon, "nic_pcie", json_type_object))) {
				static const char *const nk[] = { "stalled_wr_share_mean",
								   "stalled_rd_share_mean",
								   "buffer_overflow" };

				for (i = 0; i < ARRAY_SIZE(nk); i++)
					if (json_object_object_get_ex(g, nk[i], &x) && x) {
						run_path(k, sizeof(k), "nic_pcie_%s %s", nk[i], hn);
						spread_add(agg, k, json_object_get_double(x));
					}
			}
			if (json_object_object_get_ex(mon, "gpu_pcie", &g)) {
				if (json_object_object_get_ex(g, "rx_Bps_mean", &x) && x) {
					run_path(k, sizeof(k), "gpu_pcie_rx_Bps %s", hn);
					spread_add(agg, k, json_object_get_double(x));
				}
				if (json_object_object_get_ex(g, "tx_Bps_mean", &x) && x) {
					run_path(k, sizeof(k), "gpu_pcie_tx_Bps %s", hn);
					spread_add(agg, k, json_object_get_double(x));
				}
			}
		}
	}
}

static const char *na_int(json_object *o, const char *key, char *buf, size_t len)
{
	json_object *x;

	if (!o || !json_object_object_get_ex(o, key, &x) || !x)
		return "n/a";
	run_path(buf, len, "%lld", (long long)json_object_get_int64(x));
	return buf;
}

static const char *pct(json_object *share, char *buf, size_t len)
{
	if (!share)
		return "n/a";
	run_path(buf, len, "%.2f%%", 100 * json_object_get_double(share));
	return buf;
}

/* "      NIC PCIe       stalled wr 22.33% (peak 85.00%) rd 1.33% (peak 3.00%), PCIe buffer
 * overflow 17 packets", n/a for what the NIC does not count. */
static void text_nic_pcie(FILE *f, json_object *g)
{
	static const char *const dir[2] = { "stalled_wr", "stalled_rd" };
	char k[40], b[32], c[32];
	json_object *x;
	int i;

	fprintf(f, "      NIC PCIe       stalled");
	for (i = 0; i < 2; i++) {
		run_path(k, sizeof(k), "%s_share_mean", dir[i]);
		x = NULL;
		json_object_object_get_ex(g, k, &x);
		fprintf(f, " %s %s", i ? "rd" : "wr", pct(x, b, sizeof(b)));
		run_path(k, sizeof(k), "%s_share_max", dir[i]);
		x = NULL;
		if (json_object_object_get_ex(g, k, &x) && x)
			fprintf(f, " (peak %s)", pct(x, c, sizeof(c)));
	}
	fprintf(f, ", PCIe buffer overflow %s%s\n", na_int(g, "buffer_overflow", b, sizeof(b)),
		json_object_object_get_ex(g, "buffer_overflow", &x) && x ? " packets" : "");
}

/* One priority's paused share per phase (summary.json's by_phase), where any is known:
 * "      paused prio3   bidir 0.00% of 4.4 s, impaired 65.36% of 4.5 s". */
static void text_by_phase(FILE *f, const char *key, json_object *by)
{
	char label[40], b[32];
	bool first = true;

	if (!by)
		return;
	json_object_object_foreach(by, ph, o) {
		json_object *s = NULL, *d = NULL;

		json_object_object_get_ex(o, "paused_share", &s);
		json_object_object_get_ex(o, "duration_s", &d);
		if (!s)
			continue;
		if (first) {
			run_path(label, sizeof(label), "paused %s", strcmp(key, "pause") ? key : "PAUSE");
			fprintf(f, "      %-14s", label);
		}
		fprintf(f, "%s %s %s of %.1f s", first ? "" : ",", ph, pct(s, b, sizeof(b)),
			json_object_get_double(d));
		first = false;
	}
	if (!first)
		fprintf(f, " (by phase)\n");
}

/* The capture's time order, where it stepped back at all: frames review put back and
 * those too far back (their warning is under the repetition). */
static void text_time_order(FILE *f, json_object *cap)
{
	json_object *re = NULL, *late = NULL, *back = NULL;
	int64_t nre, nlate;

	json_object_object_get_ex(cap, "reordered", &re);
	json_object_object_get_ex(cap, "late_frames", &late);
	json_object_object_get_ex(cap, "max_backstep_s", &back);
	nre = re ? json_object_get_int64(re) : 0;
	nlate = late ? json_object_get_int64(late) : 0;
	if (!nre && !nlate)
		return;
	fprintf(f, "      time order     %" PRId64 " frame%s put back in time order", nre,
		nre == 1 ? "" : "s");
	if (nlate)
		fprintf(f, ", %" PRId64 " PAUSE/PFC/CNP frame%s too far back (warning above)", nlate,
			nlate == 1 ? "" : "s");
	if (back)
		fprintf(f, "; steps back up to %.3f ms", json_object_get_double(back) * 1e3);
	fprintf(f, "\n");
}

static void text_error(const char *line, void *arg)
{
	fprintf(arg, "    error  %s\n", line);
}

static void text_rep(FILE *f, json_object *rep)
{
	json_object *x, *tput, *left, *hosts, *reasons;
	char b1[32], b2[32], b3[32];
	double dur;
	size_t i, more;

	json_object_object_get_ex(rep, "repetition", &x);
	fprintf(f, "  repetition %d: ", json_object_get_int(x));
	json_object_object_get_ex(rep, "valid", &x);
	if (json_object_get_boolean(x)) {
		fprintf(f, "valid");
	} else {
		fprintf(f, "INVALID (");
		json_object_object_get_ex(rep, "reasons", &reasons);
		for (i = 0; i < rec_json_len(reasons); i++)
			fprintf(f, "%s%s", i ? "; " : "", rec_json_str(json_object_array_get_idx(reasons, i)));
		fprintf(f, ")");
	}
	json_object_object_get_ex(rep, "duration_s", &x);
	dur = json_object_get_double(x);
	fprintf(f, ", %.1f s\n", dur);
	more = rec_errors_show(rec_json_member(rep, "errors", json_type_array), text_error, f);
	if (more)
		fprintf(f, "    error  and %zu more (summary.json lists them)\n", more);
	x = rec_json_member(rep, "warnings", json_type_array);
	for (i = 0; i < rec_json_len(x); i++)
		fprintf(f, "    warning  %s\n", rec_json_str(json_object_array_get_idx(x, i)));
	if (json_object_object_get_ex(rep, "throughput_gbps", &tput)) {
		json_object_object_foreach(tput, phase, dirs) {
			fprintf(f, "    throughput %-12s", phase);
			json_object_object_foreach(dirs, d, v)
				fprintf(f, "  %s %.3f Gb/s", d, json_object_get_double(v));
			fprintf(f, "\n");
		}
	}
	if (json_object_object_get_ex(rep, "sends_left_in_flight", &left)) {
		json_object_object_foreach(left, phase, dirs) {
			fprintf(f, "    in flight  %-12s", phase);
			json_object_object_foreach(dirs, d, v)
				fprintf(f, "  %s %" PRId64, d, json_object_get_int64(v));
			fprintf(f, " sends at the end, not counted\n");
		}
	}
	if (!json_object_object_get_ex(rep, "hosts", &hosts))
		return;
	json_object_object_foreach(hosts, hn, ho) {
		json_object *mon = NULL, *cap = NULL, *pfc, *txf, *rxf, *share, *g;
		int p;

		json_object_object_get_ex(ho, "counters", &mon);
		json_object_object_get_ex(ho, "capture", &cap);
		fprintf(f, "    host %s\n", hn);
		if ((x = rec_json_member(ho, "counters_na", json_type_string)))
			fprintf(f, "      counters       n/a: %s\n", json_object_get_string(x));
		else if (mon && json_object_object_get_ex(mon, "pfc_tx_frames", &txf) &&
		    json_object_object_get_ex(mon, "pfc_rx_frames", &rxf) &&
		    json_object_object_get_ex(mon, "paused_share_rx", &share)) {
			bool any = false, shares = false;

			fprintf(f, "      PFC counters  ");
			for (p = 0; p < 8; p++) {
				char k[8];
				json_object *a, *b, *s;

				run_path(k, sizeof(k), "prio%d", p);
				json_object_object_get_ex(txf, k, &a);
				json_object_object_get_ex(rxf, k, &b);
				json_object_object_get_ex(share, k, &s);
				if (!a && !b)
					continue;
				any = true;
				shares |= s != NULL;
				fprintf(f, " prio%d tx %s rx %s paused %s", p, na_int(txf, k, b1, sizeof(b1)),
					na_int(rxf, k, b2, sizeof(b2)),
					pct(s, b3, sizeof(b3)));
			}
			/* the shares are of the whole point, every phase together */
			if (shares)
				fprintf(f, " (paused: share of the point's %.1f s)", dur);
			fprintf(f, "%s\n", any ? "" : " n/a (not in the record: not counted by this "
				"NIC, or not among monitor.sources)");
		}
		if (cap && json_object_object_get_ex(cap, "pfc", &pfc)) {
			bool any = false;

			fprintf(f, "      PFC captured  ");
			json_object_object_foreach(pfc, k, e) {
				json_object *s;
				char sb[32];

				any = true;
				json_object_object_get_ex(e, "paused_share", &s);
				fprintf(f, " %s %s frames (%s XOFF, %s XON) paused %s", k, na_int(e, "frames", b1, sizeof(b1)),
					na_int(e, "xoff", b2, sizeof(b2)), na_int(e, "xon", b3, sizeof(b3)),
					pct(s, sb, sizeof(sb)));
				if (s)
					fprintf(f, " of the point's %.1f s", dur);
			}
			fprintf(f, "%s\n", any ? "" : " none");
			json_object_object_foreach(pfc, k2, e2)
				text_by_phase(f, k2, rec_json_member(e2, "by_phase", json_type_object));
		}
		if ((x = rec_json_member(cap, "by_phase_na", json_type_string)))
			fprintf(f, "      paused by phase n/a: %s\n", json_object_get_string(x));
		text_time_order(f, cap);
		fprintf(f, "      CNP            sent %s handled %s",
			na_int(mon, "cnp_sent", b1, sizeof(b1)), na_int(mon, "cnp_handled", b2, sizeof(b2)));
		if (mon && json_object_object_get_ex(mon, "cnp_received", &x) && x)
			fprintf(f, " received %s", na_int(mon, "cnp_received", b1, sizeof(b1)));
		fprintf(f, " (counters), captured %s\n", na_int(cap, "cnp", b3, sizeof(b3)));
		fprintf(f, "      ECN            marked %s (counters), CE captured %s",
			na_int(mon, "ecn_marked", b1, sizeof(b1)), na_int(cap, "roce_ce", b2, sizeof(b2)));
		if (cap && json_object_object_get_ex(cap, "ce_share", &x) && x)
			fprintf(f, " (%s of the RoCEv2 packets)", pct(x, b3, sizeof(b3)));
		else if ((x = rec_json_member(cap, "ce_share_na", json_type_string)))
			fprintf(f, " (CE share n/a: %s)", json_object_get_string(x));
		fprintf(f, "\n");
		if (mon && json_object_object_get_ex(mon, "gpu_pcie", &g)) {
			json_object *rx, *tx;

			json_object_object_get_ex(g, "rx_Bps_mean", &rx);
			json_object_object_get_ex(g, "tx_Bps_mean", &tx);
			if (rx || tx)
				fprintf(f, "      GPU PCIe       rx %.3f GB/s tx %.3f GB/s (mean)\n",
					rx ? json_object_get_double(rx) / 1e9 : NAN, tx ? json_object_get_double(tx) / 1e9 : NAN);
			else
				fprintf(f, "      GPU PCIe       n/a\n");
		}
		if (mon && json_object_object_get_ex(mon, "nic_pcie", &g))
			text_nic_pcie(f, g);
		fprintf(f, "      drops          NIC discards %s, capture kernel drops %s\n",
			na_int(mon, "discards", b1, sizeof(b1)), na_int(cap, "kernel_drops", b2, sizeof(b2)));
		if (mon && !rec_json_member(ho, "counters_na", json_type_string)) {
			double st;
			bool have = json_object_object_get_ex(mon, "host_steal_s", &x) &&
				    rec_json_num(x, &st);

			if (have)
				run_path(b3, sizeof(b3), "%.2f s", st);
			fprintf(f, "      monitor        %s samples, %s missed intervals, host steal %s\n",
				na_int(mon, "samples", b1, sizeof(b1)),
				na_int(mon, "missed_intervals", b2, sizeof(b2)), have ? b3 : "n/a");
		}
	}
}

/* summary.txt: the run's verdict, then per point each repetition and the aggregates. */
static void text_summary(FILE *f, const char *name, const char *status, size_t valid_n,
			 size_t total_n, size_t planned_n, json_object *points)
{
	size_t i, j;

	fprintf(f, "%s: %s, %zu of %zu repetitions valid", name, status, valid_n, total_n);
	/* an interrupted run: how much of the plan the figures cover */
	if (total_n < planned_n)
		fprintf(f, " (%zu of the %zu planned ran)", total_n, planned_n);
	fprintf(f, "\n");
	for (i = 0; i < rec_json_len(points); i++) {
		json_object *pj = json_object_array_get_idx(points, i), *reps, *agg, *lb, *pt;

		json_object_object_get_ex(pj, "point", &pt);
		json_object_object_get_ex(pj, "label", &lb);
		fprintf(f, "point %s%s%s\n", json_object_get_string(pt), *json_object_get_string(lb) ? ": " : "",
			json_object_get_string(lb));
		json_object_object_get_ex(pj, "repetitions", &reps);
		for (j = 0; j < rec_json_len(reps); j++)
			text_rep(f, json_object_array_get_idx(reps, j));
		json_object_object_get_ex(pj, "over_valid_repetitions", &agg);
		if (rec_json_len(reps) > 1) {
			json_object_object_foreach(agg, k, o) {
				json_object *mean, *mn, *mx, *n;

				json_object_object_get_ex(o, "mean", &mean);
				json_object_object_get_ex(o, "min", &mn);
				json_object_object_get_ex(o, "max", &mx);
				json_object_object_get_ex(o, "n", &n);
				fprintf(f, "  over %d valid: %-40s mean %.4g min %.4g max %.4g\n", json_object_get_int(n), k,
					json_object_get_double(mean), json_object_get_double(mn), json_object_get_double(mx));
			}
		}
	}
}

/* status.json's failed processes, each member read as data: a string made fit to show
 * (rec_text_clean) or null; an element that is no object is left out. */
static json_object *errors_of(json_object *st)
{
	static const char *const keys[] = { "host", "process", "file", "failure", "message" };
	json_object *in = rec_json_member(st, "errors", json_type_array), *out;
	size_t i, k;

	out = json_object_new_array();
	for (i = 0; i < rec_json_len(in); i++) {
		json_object *e = json_object_array_get_idx(in, i), *o;

		if (!json_object_is_type(e, json_type_object))
			continue;
		o = json_object_new_object();
		for (k = 0; k < ARRAY_SIZE(keys); k++) {
			json_object *v = rec_json_member(e, keys[k], json_type_string);
			char buf[REC_ERR_LINE];

			if (v)
				rec_text_clean(json_object_get_string(v),
					       (size_t)json_object_get_string_len(v), buf, sizeof(buf));
			json_object_object_add(o, keys[k], v ? json_object_new_string(buf) : NULL);
		}
		json_object_array_add(out, o);
	}
	return out;
}

/* The repetitions of one point (folder ppath, named pname under points/) into reps; the
 * valid ones also into agg. MAN: the run's manifest (the hosts' clocks), or NULL. */
static void point_reps(const struct exp *e, json_object *man, const char *ppath,
		       const char *pname, json_object *reps, json_object *agg, size_t *valid_n,
		       size_t *total_n)
{
	json_object *x;
	char **rl;
	size_t nr, j;

	nr = list_dir(ppath, "rep", true, &rl);
	for (j = 0; j < nr; j++) {
		json_object *rep, *st, *hosts, *tput, *left, *warns;
		struct validity_obs obs;
		struct rep_time rt;
		char rpath[PATH_MAX];
		double dur;
		size_t h;

		if (!run_is_rep(rl[j]))
			continue;
		run_path(rpath, sizeof(rpath), "%s/%s/status.json", ppath, rl[j]);
		st = json_object_from_file(rpath);
		if (!st)
			continue; /* never finished writing: nothing to judge */
		rep = json_object_new_object();
		json_object_object_add(rep, "repetition", json_object_new_int(atoi(rl[j] + 3)));
		json_object_object_add(rep, "attempt", json_object_object_get_ex(st, "attempt", &x) ? json_object_get(x) : NULL);
		/* the runner's own file, but a results folder may come from elsewhere: a member
		 * of the wrong type is not carried into the summary */
		x = rec_json_member(st, "valid", json_type_boolean);
		json_object_object_add(rep, "valid", x ? json_object_get(x) : json_object_new_boolean(0));
		x = rec_json_member(st, "reasons", json_type_array);
		json_object_object_add(rep, "reasons", x ? json_object_get(x) : json_object_new_array());
		json_object_object_add(rep, "errors", errors_of(st));
		json_object_object_add(rep, "phases",
				       copy_doubles(rec_json_member(st, "phases", json_type_array)));
		dur = point_duration(st);
		json_object_object_add(rep, "duration_s", out_json_double(dur));
		hosts = json_object_new_object();
		tput = json_object_new_object();
		left = json_object_new_object();
		rt.phases = rec_json_member(st, "phases", json_type_array);
		x = rec_json_member(st, "t0_wall_ns", json_type_int);
		rt.have_t0 = x != NULL;
		rt.t0 = x ? json_object_get_int64(x) : 0;
		memset(&obs, 0, sizeof(obs));
		for (h = 0; h < e->nhosts; h++) {
			json_object *ho = json_object_new_object();
			char hdir[PATH_MAX], hrel[PATH_MAX];
			struct rec_review rr;

			rt.mh = rec_json_member(rec_json_member(man, "hosts", json_type_object),
						e->hosts[h].name, json_type_object);
			run_path(hdir, sizeof(hdir), "%s/%s/%s", ppath, rl[j], e->hosts[h].name);
			run_path(hrel, sizeof(hrel), "points/%s/%s/%s", pname, rl[j], e->hosts[h].name);
			host_summary(hdir, hrel, e->hosts[h].name, e->hosts[h].gpu, e->monitor, dur,
				     &rt, ho, tput, left, &rr);
			json_object_object_add(hosts, e->hosts[h].name, ho);
			validity_obs_review(&obs, h, &rr);
		}
		/* the caveats, made again from the reviews as the runner made them (validity.c) */
		warns = json_object_new_array();
		validity_warn(&obs, e, warns);
		json_object_object_add(rep, "warnings", warns);
		json_object_object_add(rep, "throughput_gbps", tput);
		json_object_object_add(rep, "sends_left_in_flight", left);
		json_object_object_add(rep, "hosts", hosts);
		(*total_n)++;
		if (json_object_object_get_ex(st, "valid", &x) && json_object_get_boolean(x)) {
			(*valid_n)++;
			aggregate(agg, rep);
		}
		json_object_array_add(reps, rep);
		json_object_put(st);
	}
	free_list(rl, nr);
}

int summary_make(const char *dir, char *err, size_t errlen)
{
	json_object *sum = json_object_new_object(), *points = json_object_new_array(), *man, *x;
	char path[PATH_MAX], pdir[PATH_MAX];
	char **pts = NULL;
	size_t npts, i, j, valid_n = 0, total_n = 0;
	struct exp *e = NULL;
	char *dq_text = NULL;
	size_t dq_len = 0;
	FILE *f, *dq;
	int rc = 0;

	run_path(path, sizeof(path), "%s/experiment.yaml", dir);
	if (exp_load(path, &e, err, errlen)) {
		json_object_put(sum);
		json_object_put(points);
		return -EINVAL;
	}
	run_path(path, sizeof(path), "%s/manifest.json", dir);
	man = json_object_from_file(path);
	json_object_object_add(sum, "format", json_object_new_string("pfclab-run-summary-1"));
	json_object_object_add(sum, "experiment", json_object_new_string(e->name));
	json_object_object_add(sum, "run_id", man && json_object_object_get_ex(man, "run_id", &x) ? json_object_get(x) : NULL);
	json_object_object_add(sum, "status", man && json_object_object_get_ex(man, "status", &x) ? json_object_get(x) : NULL);
	run_path(pdir, sizeof(pdir), "%s/points", dir);
	npts = list_dir(pdir, "p", true, &pts);
	for (i = 0; i < npts; i++) {
		json_object *pj = json_object_new_object(), *reps = json_object_new_array();
		json_object *agg = json_object_new_object();
		char ppath[PATH_MAX];
		size_t pidx;
		struct exp_point ep;
		bool have_point;

		run_path(ppath, sizeof(ppath), "%s/%s", pdir, pts[i]);
		pidx = strtoul(pts[i] + 1, NULL, 10);
		have_point = !exp_point_build(e, pidx, &ep, err, errlen);
		json_object_object_add(pj, "point", json_object_new_string(pts[i]));
		json_object_object_add(pj, "label", json_object_new_string(have_point ? ep.label : ""));
		{
			json_object *vals = json_object_new_object();

			for (j = 0; have_point && j < e->nsweep; j++)
				json_object_object_add(vals, e->sweep[j].name, json_object_new_string(ep.values[j]));
			json_object_object_add(pj, "values", vals);
		}
		point_reps(e, man, ppath, pts[i], reps, agg, &valid_n, &total_n);
		json_object_object_add(pj, "repetitions", reps);
		json_object_object_add(pj, "over_valid_repetitions", agg);
		json_object_array_add(points, pj);
		if (have_point)
			exp_point_free(&ep);
	}
	free_list(pts, npts);
	json_object_object_add(sum, "points", points);
	json_object_object_add(sum, "repetitions_valid", json_object_new_int((int)valid_n));
	json_object_object_add(sum, "repetitions_total", json_object_new_int((int)total_n));
	json_object_object_add(sum, "repetitions_planned",
			       json_object_new_int64((int64_t)(exp_point_count(e) * e->reps)));
	/* the DCQCN figures: their text kept for summary.txt, their JSON into sum */
	dq = open_memstream(&dq_text, &dq_len);
	if (dq) {
		dcqcn_summary(dir, e, dq, sum);
		fclose(dq);
	}
	run_path(path, sizeof(path), "%s/summary.json", dir);
	rc = run_json_write(path, sum);
	if (!rc) {
		run_path(path, sizeof(path), "%s/summary.txt", dir);
		f = fopen(path, "w");
		if (!f)
			rc = -errno;
	}
	if (rc) {
		/* a folder from elsewhere, read-only: say where a summary can be made */
		if (rc == -EROFS || rc == -EACCES || rc == -EPERM)
			run_path(err, errlen, "%s: cannot write: %s; the summary is written into the "
				 "results folder: copy it (cp -a %s NEW) where you can write and give "
				 "--report NEW", path, strerror(-rc), dir);
		else
			run_path(err, errlen, "%s: cannot write: %s", path, strerror(-rc));
		goto out;
	}
	text_summary(f, e->name, man && json_object_object_get_ex(man, "status", &x) ?
		     json_object_get_string(x) : "status n/a", valid_n, total_n,
		     exp_point_count(e) * e->reps, points);
	if (dq_text)
		fputs(dq_text, f);
	if (fclose(f)) {
		rc = -EIO;
		run_path(err, errlen, "%s: write error", path);
	}
out:
	free(dq_text);
	json_object_put(man);
	json_object_put(sum);
	exp_free(e);
	return rc;
}
