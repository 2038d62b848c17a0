// SPDX-License-Identifier: GPL-2.0-or-later
/* exec.c: one repetition of one sweep point, carried out on every host: monitor and capture
 * for the whole point, then each phase (pre commands, injectors, traffic servers and
 * clients or an idle wait, post commands), everything stopped cleanly, the host folders
 * brought back, captures reviewed, and the point judged valid or not (status.json).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "lib/out.h"
#include "lib/util.h"
#include "monitor/frames/timeline.h"
#include "records.h"
#include "run.h"
#include "util.h"
#include "validity.h"

#define STOP_WAIT_MS 10000
/* A step stopped because the other end of its traffic pair failed: the signal again this
 * often while it runs (its pid file may not have been written yet), this many times. */
#define PAIR_RESEND_NS 500000000ull
#define PAIR_RESEND_MAX 10

struct bg {
	const struct plan_step *s;	/* set once started in the background */
	struct remote_proc p;
	bool running, stopped;
	bool host_checked;		/* monitor, capture: ended, and its host looked at */
	bool want_int;			/* to get kill -INT in the next interrupt_marked */
	bool pair_done;			/* its failure was passed on to the other end */
	bool peer_failed;		/* stopped because the other end failed */
	unsigned int_tries;
	uint64_t int_ns;		/* when kill -INT was last sent */
	int code;
	bool no_summary;		/* traffic: no summary in its output */
	bool fg_ran;			/* a pre/post command run in the foreground */
	int fg_code;			/* its exit status, or -errno when it did not run */
};

struct point_run {
	struct run_ctx *c;
	const struct exp_point *p;
	struct plan pl;
	struct bg *bg; /* one per plan step, used for the steps started in the background */
	char (*hostdir)[1024];
	bool lost[EXP_MAX_HOSTS];
	bool mon_failed[EXP_MAX_HOSTS], cap_failed[EXP_MAX_HOSTS];
	bool mon_format[EXP_MAX_HOSTS];	/* its record is of another format */
	struct validity_obs obs;
	uint64_t t0;   /* runner wall clock at the point's time zero */
	json_object *phases;
};

static void msleep(unsigned ms)
{
	nanosleep(&(struct timespec){ ms / 1000, (long)(ms % 1000) * 1000000L }, NULL);
}

/* ---- host preparation: scratch folders and the run's pre-shared key ----------------- */

int exec_prepare_hosts(struct run_ctx *c)
{
	unsigned char key[32];
	char hex[65], line[66];
	size_t h;
	int rc;

	if (sodium_init() < 0)
		return -EIO;
	randombytes_buf(key, sizeof(key));
	sodium_bin2hex(hex, sizeof(hex), key, sizeof(key));
	sodium_memzero(key, sizeof(key));
	snprintf(line, sizeof(line), "%s\n", hex);
	sodium_memzero(hex, sizeof(hex));
	if (c->lops->writes_results) {
		char tmpl[] = "/tmp/pfclab-run-XXXXXX";

		if (!mkdtemp(tmpl))
			return -errno;
		for (h = 0; h < c->nhosts; h++)
			snprintf(c->hosts[h].scratch, sizeof(c->hosts[h].scratch), "%s", tmpl);
	}
	for (h = 0; h < c->nhosts; h++) {
		struct run_host *rh = &c->hosts[h];

		if (!c->lops->writes_results)
			snprintf(rh->scratch, sizeof(rh->scratch), "%s/pfclab-run-%s-%s",
				 rh->h->workdir ? rh->h->workdir : "/tmp", c->id, rh->h->name);
		snprintf(rh->psk_path, sizeof(rh->psk_path), "%s/psk", rh->scratch);
		if (c->lops->writes_results && h > 0)
			continue; /* one folder, one key file for every local host */
		rc = remote_put(&rh->t, rh->psk_path, line, 65, 0600, 20000);
		if (rc) {
			run_log(c, "host %s: writing the pre-shared key to %s failed: %s", rh->h->name,
				rh->psk_path, strerror(-rc));
			sodium_memzero(line, sizeof(line));
			return rc;
		}
	}
	sodium_memzero(line, sizeof(line));
	return 0;
}

void exec_cleanup_hosts(struct run_ctx *c)
{
	size_t h;

	for (h = 0; h < c->nhosts; h++) {
		struct run_host *rh = &c->hosts[h];
		const char *argv[] = { "rm", "-rf", rh->scratch, NULL };

		if (!rh->scratch[0] || strncmp(rh->scratch, "/", 1))
			continue;
		if (c->lops->writes_results && h > 0)
			continue;
		if (rh->lost)
			continue;
		remote_run(&rh->t, argv, NULL, 20000, NULL, NULL, NULL, 0);
	}
}

/* ---- starting and stopping ---------------------------------------------------------- */

static int start_bg(struct point_run *r, size_t i)
{
	const struct plan_step *s = &r->pl.s[i];
	char **av = plan_wrap(s, r->hostdir[s->host]);
	int rc;

	if (!av)
		return -ENOMEM;
	rc = remote_spawn(&r->c->hosts[s->host].t, (const char *const *)av, NULL, &r->bg[i].p);
	remote_argv_free(av);
	if (rc) {
		run_log(r->c, "host %s: starting %s failed: %s", r->c->hosts[s->host].h->name, s->name,
			strerror(-rc));
		return rc;
	}
	r->bg[i].s = s;
	r->bg[i].running = true;
	return 0;
}

/* Reap finished background steps; returns how many of the MATCHing ones still run. */
static size_t reap(struct point_run *r, bool (*match)(const struct plan_step *s, int phase),
		   int phase)
{
	size_t i, n = 0;

	for (i = 0; i < r->pl.n; i++) {
		struct bg *b = &r->bg[i];

		if (!b->running)
			continue;
		if (remote_wait(&b->p, 0) == 0) {
			b->running = false;
			b->code = remote_exit_code(&b->p);
			if (b->code)
				run_log(r->c, "host %s: %s ended with status %d%s",
					r->c->hosts[b->s->host].h->name, b->s->name, b->code,
					b->stopped ? " (stopped)" : "");
			continue;
		}
		if (match(b->s, phase))
			n++;
	}
	return n;
}

static bool is_traffic(const struct plan_step *s, int phase)
{
	return s->phase == phase && (s->role == PR_CLIENT || s->role == PR_SERVER);
}

static bool is_phase(const struct plan_step *s, int phase)
{
	return s->phase == phase;
}

static bool is_any(const struct plan_step *s, int phase)
{
	return true;
}

/* kill -INT, through their pid files, host by host, the running steps marked want_int. */
static void interrupt_marked(struct point_run *r)
{
	struct run_ctx *c = r->c;
	uint64_t now = time_mono_ns();
	size_t h, i;

	for (h = 0; h < c->nhosts; h++) {
		const char *argv[64] = { "sh", "-c",
			"cd \"$1\" || exit 0; shift; for n; do [ -f \".$n.pid\" ] && "
			"kill -INT \"$(cat \".$n.pid\")\" 2>/dev/null; done; exit 0", "sh",
			r->hostdir[h] };
		size_t n = 5;

		if (r->lost[h])
			continue;
		for (i = 0; i < r->pl.n && n < 63; i++) {
			struct bg *b = &r->bg[i];

			if (!b->running || !b->want_int || b->s->host != h)
				continue;
			argv[n++] = b->s->name;
			b->stopped = true;
			b->int_ns = now;
			b->int_tries++;
		}
		argv[n] = NULL;
		if (n == 5)
			continue;
		remote_run(&c->hosts[h].t, argv, NULL, 10000, NULL, NULL, NULL, 0);
	}
	for (i = 0; i < r->pl.n; i++)
		r->bg[i].want_int = false;
}

/* kill -INT the MATCHing background steps, then wait for them; what is still there after
 * the wait is killed. */
static void stop_bg(struct point_run *r, bool (*match)(const struct plan_step *s, int phase), int phase)
{
	struct run_ctx *c = r->c;
	uint64_t end;
	size_t i;

	for (i = 0; i < r->pl.n; i++)
		r->bg[i].want_int = r->bg[i].running && match(r->bg[i].s, phase);
	interrupt_marked(r);
	end = time_mono_ns() + STOP_WAIT_MS * 1000000ull;
	while (reap(r, match, phase) && time_mono_ns() < end)
		msleep(20);
	for (i = 0; i < r->pl.n; i++) {
		struct bg *b = &r->bg[i];

		if (!b->running || !match(b->s, phase))
			continue;
		run_log(c, "host %s: %s did not stop within %d s; killed", c->hosts[b->s->host].h->name,
			b->s->name, STOP_WAIT_MS / 1000);
		remote_kill(&b->p, SIGKILL);
		remote_wait(&b->p, 2000);
		b->running = false;
		b->code = remote_exit_code(&b->p);
	}
}

/* One end of a traffic pair ended with an error (a server that could not start, a client
 * that could not connect): the other end would only wait for it, a client up to its
 * --timeout and a server up to its --wait, so it is stopped now. A signal sent before the
 * process wrote its pid file (it had just started) is sent again while it runs.
 */
static void stop_pairs(struct point_run *r, int phase)
{
	struct run_ctx *c = r->c;
	uint64_t now = time_mono_ns();
	bool any = false;
	size_t i, j;

	for (i = 0; i < r->pl.n; i++) {
		struct bg *b = &r->bg[i];

		if (!b->s || b->running || !b->code || b->stopped || b->pair_done ||
		    !is_traffic(b->s, phase))
			continue;
		b->pair_done = true;
		for (j = 0; j < r->pl.n; j++) {
			struct bg *o = &r->bg[j];

			if (!o->running || o->stopped || !is_traffic(o->s, phase) ||
			    o->s->role == b->s->role || o->s->host != b->s->peer ||
			    o->s->peer != b->s->host)
				continue;
			run_log(c, "  phase %s: %s on host %s ended with status %d; %s on host %s is "
				"stopped", r->p->phases[phase].name, b->s->name,
				c->hosts[b->s->host].h->name, b->code, o->s->name,
				c->hosts[o->s->host].h->name);
			o->want_int = o->peer_failed = any = true;
		}
	}
	for (i = 0; i < r->pl.n; i++) {
		struct bg *b = &r->bg[i];

		if (b->running && b->peer_failed && b->int_tries < PAIR_RESEND_MAX &&
		    now - b->int_ns >= PAIR_RESEND_NS)
			b->want_int = any = true;
	}
	if (any)
		interrupt_marked(r);
}

static bool host_alive(struct run_ctx *c, size_t h)
{
	const char *argv[] = { "true", NULL };
	int code = -1;

	return !remote_run(&c->hosts[h].t, argv, NULL, 5000, &code, NULL, NULL, 0) && code == 0;
}

/* A monitor or capture that ended by itself over ssh/srun: is its host still there? */
static bool check_hosts(struct point_run *r)
{
	struct run_ctx *c = r->c;
	bool lost = false;
	size_t i;

	for (i = 0; i < r->pl.n; i++) {
		struct bg *b = &r->bg[i];
		size_t h;

		if (!b->s || b->running || b->stopped || b->host_checked || b->s->phase >= 0)
			continue;
		h = b->s->host;
		b->host_checked = true; /* looked at once */
		if (r->lost[h])
			continue;
		if (c->lops->kind != REMOTE_LOCAL && !host_alive(c, h)) {
			run_log(c, "host %s (%s) is unreachable: %s ended and the host does not answer",
				c->hosts[h].h->name, c->hosts[h].reach, b->s->name);
			r->lost[h] = true;
			r->obs.host_unreachable[h] = true;
			c->hosts[h].lost = true;
			lost = true;
		}
	}
	return lost;
}

/* Wait while WHILE says so, at most LIMIT_NS; false when stopped early (Ctrl-C, host lost). */
static bool wait_phase(struct point_run *r, int phase, uint64_t limit_ns, bool traffic)
{
	uint64_t end = time_mono_ns() + limit_ns;

	for (;;) {
		if (run_stop_requested) {
			r->obs.interrupted = true;
			return false;
		}
		if (traffic) {
			if (!reap(r, is_traffic, phase))
				return true;
			stop_pairs(r, phase);
		} else {
			reap(r, is_any, 0);
		}
		if (check_hosts(r))
			return false;
		if (time_mono_ns() >= end)
			return !traffic;
		msleep(traffic ? 20 : 10);
	}
}

/* kill -INT a pre/post command through its pid file. Its sh -c acts on a signal only once
 * the command it waits for has ended, so the process group is signalled where the wrapper
 * leads one (its own group locally, its own session over ssh), else the one process. */
static void interrupt_fg(struct point_run *r, const struct plan_step *s)
{
	const char *argv[] = { "sh", "-c",
		"cd \"$1\" || exit 0; [ -f \".$2.pid\" ] || exit 0; p=$(cat \".$2.pid\"); "
		"kill -INT \"-$p\" 2>/dev/null || kill -INT \"$p\" 2>/dev/null; exit 0",
		"sh", r->hostdir[s->host], s->name, NULL };

	remote_run(&r->c->hosts[s->host].t, argv, NULL, 10000, NULL, NULL, NULL, 0);
}

/* Run step I (a pre/post command) and wait for it: its exit code, or -errno when it could
 * not start or ran past its limit. Ctrl-C (when STOPPABLE) or the limit interrupts it as
 * interrupt_fg says; what is still there STOP_WAIT_MS later is killed. A command stopped
 * for Ctrl-C is marked stopped. */
static int run_fg(struct point_run *r, size_t i, bool stoppable)
{
	const struct plan_step *s = &r->pl.s[i];
	struct bg *b = &r->bg[i];
	uint64_t end = time_mono_ns() + s->limit_ns, kill_at = 0;
	bool over = false;
	int rc = start_bg(r, i);

	if (rc)
		return rc;
	while (remote_wait(&b->p, 0) != 0) {
		uint64_t now = time_mono_ns();

		if (!kill_at && ((stoppable && run_stop_requested) || now >= end)) {
			over = now >= end;
			b->stopped = !over;
			interrupt_fg(r, s);
			kill_at = time_mono_ns() + STOP_WAIT_MS * 1000000ull;
		} else if (kill_at && now >= kill_at) {
			run_log(r->c, "host %s: %s did not stop within %d s; killed",
				r->c->hosts[s->host].h->name, s->name, STOP_WAIT_MS / 1000);
			remote_kill(&b->p, SIGKILL);
			remote_wait(&b->p, 2000);
			break;
		}
		msleep(20);
	}
	b->running = false;
	b->code = remote_exit_code(&b->p);
	return over ? -ETIMEDOUT : b->code;
}

/* ---- after the point: bring back, review, judge -------------------------------------- */

static void carrier(struct point_run *r, size_t h, long *out)
{
	char path[300], *o = NULL;
	const char *argv[] = { "cat", path, NULL };
	int code = -1;

	*out = -1;
	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_changes", r->c->hosts[h].h->netdev);
	if (!remote_run(&r->c->hosts[h].t, argv, NULL, 10000, &code, &o, NULL, 64) && !code && o)
		*out = strtol(o, NULL, 10);
	free(o);
}

static void traffic_merge_line(json_object *o, void *arg)
{
	FILE *f = ((void **)arg)[0];
	const struct plan_step *s = ((void **)arg)[1];
	const struct exp_point *p = ((void **)arg)[2];

	json_object_object_add(o, "run_phase", json_object_new_string(p->phases[s->phase].name));
	json_object_object_add(o, "run_role", json_object_new_string(plan_role_name(s->role)));
	json_object_object_add(o, "run_file", json_object_new_string(s->out));
	fprintf(f, "%s\n", out_json_text(o, false));
}

static void review_capture(struct run_ctx *c, const char *hdir)
{
	static const struct remote_target here = { .kind = REMOTE_LOCAL };
	char pcap[1300], out[1300], err[1300];
	struct stat st;

	snprintf(pcap, sizeof(pcap), "%s/capture.pcapng", hdir);
	if (stat(pcap, &st))
		return;
	{
		const char *argv[] = { c->self, "review", "--json", pcap, NULL };
		const char *argv_s[] = { c->self, "review", "--json", "--speed",
					 c->e->capture_speed ? c->e->capture_speed : "", pcap, NULL };
		struct remote_io io = { .out_path = out, .err_path = err };
		struct remote_proc p;

		snprintf(out, sizeof(out), "%s/review.json", hdir);
		snprintf(err, sizeof(err), "%s/review.err", hdir);
		if (!remote_spawn(&here, c->e->capture_speed ? argv_s : argv, &io, &p))
			remote_wait(&p, 120000);
	}
	{
		char bin[32];
		const char *argv[] = { c->self, "review", "--timeline", bin, pcap, NULL };
		struct remote_io io = { .out_path = out, .err_path = err, .append = false };
		struct remote_proc p;

		fmt_duration_ns(FRAMES_TL_RUN_BIN_NS, bin, sizeof(bin));
		snprintf(out, sizeof(out), "%s/review-timeline.csv", hdir);
		snprintf(err, sizeof(err), "%s/review-timeline.err", hdir);
		if (!remote_spawn(&here, argv, &io, &p))
			remote_wait(&p, 120000);
	}
}

static void collect(struct point_run *r, const char *repdir, long *car0, long *car1)
{
	struct run_ctx *c = r->c;
	size_t h, i;

	for (h = 0; h < c->nhosts; h++) {
		const char *hn = c->hosts[h].h->name;
		char hdir[1200], path[1400];
		struct rec_monitor m;
		uint64_t drops;
		FILE *f;

		snprintf(hdir, sizeof(hdir), "%s/%s", repdir, hn);
		if (!c->lops->writes_results && !r->lost[h]) {
			char got[1400];
			const char *base = strrchr(r->hostdir[h], '/') + 1;
			const char *rm[] = { "rm", "-rf", r->hostdir[h], NULL };
			int rc = remote_fetch(&c->hosts[h].t, r->hostdir[h], repdir, 300000);

			if (rc)
				run_log(c, "host %s: copying %s back failed: %s", hn, r->hostdir[h], strerror(-rc));
			snprintf(got, sizeof(got), "%s/%s", repdir, base);
			if (rename(got, hdir) && errno != ENOENT)
				run_log(c, "%s: %s", hdir, strerror(errno));
			remote_run(&c->hosts[h].t, rm, NULL, 20000, NULL, NULL, NULL, 0);
		}
		pfc_mkdir_p(hdir);
		/* pid files are of no use once the point ended */
		for (i = 0; i < r->pl.n; i++) {
			if (r->pl.s[i].host != h)
				continue;
			snprintf(path, sizeof(path), "%s/.%s.pid", hdir, r->pl.s[i].name);
			unlink(path);
		}
		if (c->e->capture) {
			struct rec_review rv;

			review_capture(c, hdir);
			snprintf(path, sizeof(path), "%s/review.json", hdir);
			rec_review_read(path, &rv);	/* rv gives nothing where it fails */
			validity_obs_review(&r->obs, h, &rv);
			snprintf(path, sizeof(path), "%s/capture.json", hdir);
			if (rec_capture_drops(path, &drops))
				r->obs.capture_drops += drops;
			else if (!r->lost[h])
				r->obs.capture_failed = r->cap_failed[h] = true;
		}
		if (c->e->monitor) {
			snprintf(path, sizeof(path), "%s/monitor", hdir);
			if (rec_monitor_read(path, &m, NULL, 0) || m.failed)
				r->obs.monitor_failed = r->mon_failed[h] = !r->lost[h];
			r->mon_format[h] = rec_monitor_format(path, NULL, 0) == -EPROTO;
			r->obs.counter_resets += m.resets;
		}
		/* traffic.jsonl: every traffic process's lines, with the phase and role */
		snprintf(path, sizeof(path), "%s/traffic.jsonl", hdir);
		f = NULL;
		for (i = 0; i < r->pl.n; i++) {
			const struct plan_step *s = &r->pl.s[i];
			struct rec_traffic t;
			char tp[1400];
			void *arg[3];

			if (s->host != h || (s->role != PR_CLIENT && s->role != PR_SERVER))
				continue;
			snprintf(tp, sizeof(tp), "%s/%s", hdir, s->out);
			if (!r->bg[i].s)
				continue; /* never started (the point stopped before) */
			rec_traffic_read(tp, &t);
			if (!t.has_summary && !r->obs.interrupted)
				r->obs.traffic_missing = r->bg[i].no_summary = true;
			r->obs.traffic_errors += t.errors;
			if (!f)
				f = fopen(path, "w");
			if (!f)
				continue;
			arg[0] = f;
			arg[1] = (void *)s;
			arg[2] = (void *)r->p;
			rec_jsonl_each(tp, traffic_merge_line, arg);
		}
		if (f)
			fclose(f);
		if (car0[h] >= 0 && car1[h] >= 0 && car1[h] != car0[h])
			r->obs.link_flaps += (unsigned)(car1[h] - car0[h]);
	}
}

/* How step I failed, into HOW ("exit status 1"); false when it did not, or ran on a host
 * that was lost (said apart). A step the runner stopped is judged by its record alone.
 */
static bool step_failed(const struct point_run *r, size_t i, char *how, size_t len)
{
	const struct plan_step *s = &r->pl.s[i];
	const struct bg *b = &r->bg[i];

	if (r->lost[s->host])
		return false;
	if (b->fg_ran) {
		if (b->stopped)
			return false; /* stopped for Ctrl-C: no failure of its own */
		if (b->fg_code < 0)
			snprintf(how, len, "did not run: %s", strerror(-b->fg_code));
		else
			snprintf(how, len, "exit status %d", b->fg_code);
		return b->fg_code != 0;
	}
	if (!b->s)
		return false;
	if (!b->stopped && b->code)
		snprintf(how, len, "exit status %d", b->code);
	else if (s->role == PR_MONITOR && r->mon_format[s->host])
		snprintf(how, len, "its record is of another format than this pfclab reads (the "
			 "summary says which)");
	else if (s->role == PR_MONITOR && r->mon_failed[s->host])
		snprintf(how, len, "its record says it failed");
	else if (s->role == PR_CAPTURE && r->cap_failed[s->host])
		snprintf(how, len, "no capture summary");
	else if (b->no_summary && !b->stopped)
		snprintf(how, len, "no traffic summary");
	else
		return false;
	return true;
}

/* The point's failed processes, each with the line of its standard error that says why
 * (records.c): status.json's "errors", also said in the log. */
static json_object *errors_gather(struct point_run *r, const char *repdir)
{
	json_object *errs = json_object_new_array();
	size_t i;

	for (i = 0; i < r->pl.n; i++) {
		const struct plan_step *s = &r->pl.s[i];
		const char *hn = r->c->hosts[s->host].h->name;
		char how[96], file[176], path[1400], msg[REC_ERR_LINE];
		json_object *o;

		if (!step_failed(r, i, how, sizeof(how)))
			continue;
		snprintf(file, sizeof(file), "%s.err", s->name);
		snprintf(path, sizeof(path), "%s/%s/%s", repdir, hn, file);
		o = json_object_new_object();
		json_object_object_add(o, "host", json_object_new_string(hn));
		json_object_object_add(o, "process", json_object_new_string(s->name));
		json_object_object_add(o, "file", json_object_new_string(file));
		json_object_object_add(o, "failure", json_object_new_string(how));
		json_object_object_add(o, "message", rec_err_line(path, msg, sizeof(msg)) ? NULL :
				       json_object_new_string(msg));
		json_object_array_add(errs, o);
	}
	return errs;
}

static void error_logged(const char *line, void *arg)
{
	run_log(arg, "  %s", line);
}

static void errors_log(struct run_ctx *c, json_object *errs)
{
	size_t more = rec_errors_show(errs, error_logged, c);

	if (more)
		run_log(c, "  and %zu more failed processes (status.json lists them)", more);
}

static int write_status(struct point_run *r, const char *repdir, unsigned rep, unsigned attempt,
			bool *valid, json_object *errs, json_object *warnings)
{
	json_object *st = json_object_new_object(), *reasons = json_object_new_array(), *vals;
	const struct exp_point *p = r->p;
	char path[1200];
	bool lost = false;
	size_t i;

	*valid = validity_judge(&r->obs, r->c->e, reasons);
	validity_warn(&r->obs, r->c->e, warnings);
	json_object_object_add(st, "point", json_object_new_string(p->id));
	json_object_object_add(st, "label", json_object_new_string(p->label));
	vals = json_object_new_object();
	for (i = 0; i < r->c->e->nsweep; i++)
		json_object_object_add(vals, r->c->e->sweep[i].name, json_object_new_string(p->values[i]));
	json_object_object_add(st, "values", vals);
	json_object_object_add(st, "repetition", json_object_new_int((int)rep));
	json_object_object_add(st, "attempt", json_object_new_int((int)attempt));
	for (i = 0; i < r->c->nhosts; i++)
		lost |= r->lost[i];
	/* a repetition cut short (Ctrl-C, a host lost) is not finished: --resume runs it again */
	json_object_object_add(st, "finished", json_object_new_boolean(!r->obs.interrupted && !lost));
	json_object_object_add(st, "valid", json_object_new_boolean(*valid));
	json_object_object_add(st, "reasons", reasons);
	json_object_object_add(st, "warnings", json_object_get(warnings));
	json_object_object_add(st, "errors", json_object_get(errs));
	json_object_object_add(st, "t0_wall_ns", json_object_new_int64((int64_t)r->t0));
	json_object_object_add(st, "phases", json_object_get(r->phases));
	snprintf(path, sizeof(path), "%s/status.json", repdir);
	i = (size_t)run_json_write(path, st);
	json_object_put(st);
	return (int)i;
}

/* The pre or post commands of phase k, in the foreground; true when an essential one
 * failed (the point stops).
 */
static bool fg_steps(struct point_run *r, int k, enum plan_role role)
{
	struct run_ctx *c = r->c;
	size_t i;
	int rc;

	for (i = 0; i < r->pl.n; i++) {
		const struct plan_step *s = &r->pl.s[i];

		if (s->phase != k || s->role != role)
			continue;
		if (run_stop_requested)
			return true; /* nothing new starts after Ctrl-C */
		rc = run_fg(r, i, true);
		r->bg[i].fg_ran = true;
		r->bg[i].fg_code = rc;
		if (!rc || r->bg[i].stopped)
			continue;
		if (role == PR_PRE)
			run_log(c, "host %s: %s (%s) failed: %s%s", c->hosts[s->host].h->name, s->name,
				s->argv[2], rc < 0 ? strerror(-rc) : "exit status",
				s->essential ? "; essential, the point stops" : "");
		else
			run_log(c, "host %s: %s (%s) failed%s", c->hosts[s->host].h->name, s->name,
				s->argv[2], s->essential ? "; essential, the point stops" : "");
		if (s->essential) {
			r->obs.essential_failed = true;
			return true;
		}
	}
	return false;
}

/* Phase k of the point: pre commands, injects, traffic (or waiting out its length), post
 * commands. Returns true when the point stops here.
 */
static bool run_phase(struct point_run *r, size_t k)
{
	struct run_ctx *c = r->c;
	const struct exp_phase *ph = &r->p->phases[k];
	json_object *pj = json_object_new_object();
	bool stopped, injects = false;
	size_t h, i;

	json_object_object_add(pj, "name", json_object_new_string(ph->name));
	json_object_object_add(pj, "start_s", out_json_double((double)(time_real_ns() - r->t0) / 1e9));
	json_object_array_add(r->phases, pj);
	run_log(c, "  phase %s", ph->name);
	stopped = fg_steps(r, (int)k, PR_PRE) || run_stop_requested;
	for (i = 0; i < r->pl.n && !stopped; i++) {
		if (r->pl.s[i].phase != (int)k || r->pl.s[i].role != PR_INJECT)
			continue;
		if (start_bg(r, i))
			stopped = true;
		injects = true;
	}
	if (injects)
		msleep(300);
	if (ph->has_traffic && !stopped) {
		for (i = 0; i < r->pl.n && !stopped; i++)
			if (r->pl.s[i].phase == (int)k && r->pl.s[i].role == PR_SERVER && start_bg(r, i))
				stopped = true;
		msleep(100);
		for (i = 0; i < r->pl.n && !stopped; i++)
			if (r->pl.s[i].phase == (int)k && r->pl.s[i].role == PR_CLIENT && start_bg(r, i))
				stopped = true;
		if (!stopped)
			run_log(c, "  phase %s: traffic started (%zu sender%s)", ph->name,
				ph->traffic.nfrom, ph->traffic.nfrom == 1 ? "" : "s");
		bool done = !stopped && wait_phase(r, (int)k, ph->duration_ns + 60000000000ull, true);

		if (done)
			run_log(c, "  phase %s: traffic ended", ph->name);

		/* when the traffic ended: its reports count time from its start (plots) */
		json_object_object_add(pj, "traffic_end_s",
				       out_json_double((double)(time_real_ns() - r->t0) / 1e9));
		if (!stopped && !done) {
			if (!run_stop_requested && !r->obs.interrupted) {
				bool any_lost = false;

				for (h = 0; h < c->nhosts; h++)
					any_lost |= r->lost[h];
				if (!any_lost)
					run_log(c, "  phase %s: traffic still running after its time limit; "
						"stopped", ph->name);
			}
			stopped = run_stop_requested || r->obs.interrupted;
			for (h = 0; h < c->nhosts; h++)
				stopped |= r->lost[h];
		}
	} else if (!stopped) {
		stopped = !wait_phase(r, (int)k, ph->duration_ns, false);
	}
	stop_bg(r, is_phase, (int)k);
	for (i = 0; i < r->pl.n; i++) {
		const struct plan_step *s = &r->pl.s[i];

		int *worst = s->role == PR_INJECT ? &r->obs.inject_exit : &r->obs.traffic_exit;

		if (s->phase != (int)k || (s->role != PR_CLIENT && s->role != PR_SERVER &&
					   s->role != PR_INJECT) || !r->bg[i].s)
			continue;
		/* an injector that failed before its phase ended left the phase without it */
		if (r->bg[i].code && !r->bg[i].stopped && *worst < r->bg[i].code)
			*worst = r->bg[i].code;
	}
	if (!stopped)
		stopped = fg_steps(r, (int)k, PR_POST);
	json_object_object_add(pj, "end_s", out_json_double((double)(time_real_ns() - r->t0) / 1e9));
	if (run_stop_requested)
		r->obs.interrupted = stopped = true;
	return stopped;
}

int exec_point(struct run_ctx *c, const struct exp_point *p, unsigned rep, unsigned attempt,
	       bool *valid)
{
	struct point_run r = { .c = c, .p = p };
	long car0[EXP_MAX_HOSTS], car1[EXP_MAX_HOSTS];
	json_object *errs, *warns;
	char repdir[1100];
	bool stopped = false;
	size_t h, i, k;
	int rc;

	*valid = false;
	rc = plan_point(c, p, &r.pl);
	if (rc)
		return rc;
	r.bg = calloc(r.pl.n + 1, sizeof(*r.bg));
	r.hostdir = calloc(c->nhosts, sizeof(*r.hostdir));
	r.phases = json_object_new_array();
	if (!r.bg || !r.hostdir) {
		rc = -ENOMEM;
		goto out;
	}
	snprintf(repdir, sizeof(repdir), "%s/points/%s/rep%u", c->dir, p->id, rep);
	rc = pfc_mkdir_p(repdir);
	if (rc)
		goto out;
	for (h = 0; h < c->nhosts; h++) {
		const char *argv[] = { "mkdir", "-p", r.hostdir[h], NULL };
		int code = -1;

		plan_host_dir(c, h, p, rep, r.hostdir[h], sizeof(r.hostdir[h]));
		rc = remote_run(&c->hosts[h].t, argv, NULL, 20000, &code, NULL, NULL, 0);
		if (rc || code) {
			run_log(c, "host %s: mkdir %s failed (%s)", c->hosts[h].h->name, r.hostdir[h],
				rc ? strerror(-rc) : code == 255 ? "unreachable" : "exit status");
			r.obs.host_unreachable[h] = code == 255 || rc;
			r.lost[h] = r.obs.host_unreachable[h] && !host_alive(c, h);
			c->hosts[h].lost = r.lost[h];
			stopped = true;
		}
		car0[h] = car1[h] = -1;
		if (!stopped)
			carrier(&r, h, &car0[h]);
	}
	rc = 0;
	run_log(c, "point %s%s%s repetition %u attempt %u", p->id, p->label[0] ? " " : "", p->label,
		rep, attempt);
	/* monitor and capture for the whole point */
	for (i = 0; i < r.pl.n && !stopped; i++)
		if (r.pl.s[i].phase < 0 && start_bg(&r, i))
			stopped = true;
	if (c->e->capture && !stopped) {
		for (h = 0; h < c->nhosts; h++) {
			const char *argv[] = { "sh", "-c",
				"cd \"$1\" && for i in $(seq 100); do grep -q listening capture.err 2>/dev/null "
				"&& exit 0; sleep 0.05; done; exit 1", "sh", r.hostdir[h], NULL };
			int code = -1;

			remote_run(&c->hosts[h].t, argv, NULL, 15000, &code, NULL, NULL, 0);
			if (code)
				run_log(c, "host %s: capture did not say it listens within 5 s (see %s/capture.err)",
					c->hosts[h].h->name, r.hostdir[h]);
		}
	}
	msleep(c->e->monitor ? 200 : 0);
	r.t0 = time_real_ns();
	for (k = 0; k < p->nphases && !stopped; k++)
		stopped = run_phase(&r, k);
	if (!r.t0)
		r.t0 = time_real_ns();
	/* a moment for the last counters and frames, then stop monitor and capture */
	msleep(stopped ? 0 : 200);
	/* The congestion point's restore runs however the point ended (cpoint.h). */
	for (i = 0; i < r.pl.n; i++) {
		const struct plan_step *s = &r.pl.s[i];

		if (s->role != PR_POST || s->phase != (int)p->nphases || r.lost[s->host])
			continue;
		r.bg[i].fg_ran = true;
		r.bg[i].fg_code = run_fg(&r, i, false);
		if (r.bg[i].fg_code) {
			run_log(c, "host %s: %s failed: the bottleneck was not put back (see its "
				"%s.err)", c->hosts[s->host].h->name, s->name, s->name);
			r.obs.essential_failed = true;
		}
	}
	stop_bg(&r, is_any, 0);
	for (h = 0; h < c->nhosts; h++) {
		if (r.lost[h])
			continue;
		if (c->lops->kind != REMOTE_LOCAL && !host_alive(c, h)) {
			r.lost[h] = r.obs.host_unreachable[h] = c->hosts[h].lost = true;
			run_log(c, "host %s is unreachable", c->hosts[h].h->name);
			continue;
		}
		carrier(&r, h, &car1[h]);
	}
	collect(&r, repdir, car0, car1);
	if (run_stop_requested)
		r.obs.interrupted = true;
	errs = errors_gather(&r, repdir);
	warns = json_object_new_array();
	rc = write_status(&r, repdir, rep, attempt, valid, errs, warns);
	run_log(c, "point %s repetition %u: results written (%s)", p->id, rep, *valid ? "valid" : "invalid");
	errors_log(c, errs);
	for (i = 0; i < json_object_array_length(warns); i++)
		run_log(c, "  warning: %s", json_object_get_string(json_object_array_get_idx(warns, i)));
	json_object_put(errs);
	json_object_put(warns);
	if (!rc && r.obs.interrupted)
		rc = -EINTR;
	for (h = 0; !rc && h < c->nhosts; h++)
		if (r.lost[h])
			rc = -EHOSTDOWN;
out:
	/* only what was started: a zeroed entry's fds read 0, and closing them would close
	 * this process's stdin (the next pipe would then get fd 0) */
	for (i = 0; r.bg && i < r.pl.n; i++)
		if (r.bg[i].s)
			remote_proc_close(&r.bg[i].p);
	json_object_put(r.phases);
	free(r.bg);
	free(r.hostdir);
	plan_free(&r.pl);
	return rc;
}
