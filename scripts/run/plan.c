// SPDX-License-Identifier: GPL-2.0-or-later
/* plan.c: the commands of one sweep point on each host (monitor, capture, pre/post, inject,
 * traffic servers and clients), the wrapper that runs them in the host's point folder, and
 * the --dry-run listing of the whole plan.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpoint.h"
#include "lib/util.h"
#include "monitor/frames/timeline.h"
#include "run.h"

const char *plan_role_name(enum plan_role r)
{
	static const char *const names[] = { "monitor", "capture", "pre", "inject", "server",
					     "client", "post" };

	return names[r];
}

void plan_host_dir(const struct run_ctx *c, size_t host, const struct exp_point *p, unsigned rep,
		   char *buf, size_t len)
{
	if (c->lops->writes_results)
		snprintf(buf, len, "%s/points/%s/rep%u/%s", c->dir, p->id, rep, c->hosts[host].h->name);
	else
		snprintf(buf, len, "%s/%s-rep%u", c->hosts[host].scratch, p->id, rep);
}

struct av {
	char **v;
	size_t n;
	int err;
};

static void add(struct av *a, const char *s)
{
	char **nv;

	if (a->err)
		return;
	nv = realloc(a->v, (a->n + 2) * sizeof(*nv));
	if (!nv) {
		a->err = -ENOMEM;
		return;
	}
	a->v = nv;
	nv[a->n] = strdup(s);
	if (!nv[a->n]) {
		a->err = -ENOMEM;
		return;
	}
	nv[++a->n] = NULL;
}

static void addf(struct av *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct av *a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	add(a, buf);
}

static void dur_str(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 "ms", (ns + 999999) / 1000000);
}

static struct plan_step *new_step(struct plan *pl, enum plan_role role, int phase, size_t host)
{
	struct plan_step *ns = realloc(pl->s, (pl->n + 1) * sizeof(*ns)), *s;

	if (!ns)
		return NULL;
	pl->s = ns;
	s = &ns[pl->n++];
	memset(s, 0, sizeof(*s));
	s->role = role;
	s->phase = phase;
	s->host = host;
	return s;
}

void plan_free(struct plan *pl)
{
	size_t i, j;

	for (i = 0; i < pl->n; i++) {
		for (j = 0; pl->s[i].argv && pl->s[i].argv[j]; j++)
			free(pl->s[i].argv[j]);
		free(pl->s[i].argv);
	}
	free(pl->s);
	pl->s = NULL;
	pl->n = 0;
}

static void traffic_common(const struct run_ctx *c, struct av *a, size_t h,
			   const struct exp_traffic *t, unsigned port)
{
	const struct exp_host *eh = c->hosts[h].h;
	size_t i;

	add(a, c->hosts[h].pfclab);
	add(a, "traffic");
	add(a, "-d");
	add(a, eh->rdma);
	if (eh->gid_index) {
		add(a, "-x");
		add(a, eh->gid_index);
	}
	add(a, "-p");
	addf(a, "%u", port);
	add(a, "--json");
	if (c->o.psk) {
		add(a, "--psk");
		add(a, c->hosts[h].psk_path);
	}
	if (t->gpu_mem && eh->gpu) {
		add(a, "--gpu");
		add(a, eh->gpu);
	}
	for (i = 0; i < t->nargs; i++)
		add(a, t->args[i]);
}

/* pfclab monitor on host h for the point's whole length (lim). */
static void monitor_args(struct av *a, const struct run_ctx *c, size_t h, const char *lim)
{
	const struct exp_host *eh = c->hosts[h].h;
	const struct exp *e = c->e;

	add(a, c->hosts[h].pfclab);
	add(a, "monitor");
	add(a, "-i");
	add(a, eh->netdev);
	if (eh->rdma) {
		add(a, "-d");
		add(a, eh->rdma);
	}
	if (eh->gpu) {
		add(a, "--gpu");
		add(a, eh->gpu);
	}
	add(a, "--interval");
	add(a, e->mon_interval);
	if (e->cp && e->cp->host == h) {
		char srcs[128];

		cpoint_mon_sources(e, srcs, sizeof(srcs));
		add(a, "--sources");
		add(a, srcs);
	} else if (e->mon_sources) {
		add(a, "--sources");
		add(a, e->mon_sources);
	}
	if (e->mon_rt_priority) {
		add(a, "--rt-priority");
		addf(a, "%u", e->mon_rt_priority);
	}
	add(a, "--duration");
	add(a, lim);
	add(a, "-q");
	add(a, "--record");
	add(a, "monitor");
}

/* pfclab capture on host h for the point's whole length (lim). */
static void capture_args(struct av *a, const struct run_ctx *c, size_t h, const char *lim)
{
	const struct exp_host *eh = c->hosts[h].h;
	const struct exp *e = c->e;
	size_t i;

	add(a, c->hosts[h].pfclab);
	add(a, "capture");
	if (eh->ncapture_ifs) {
		for (i = 0; i < eh->ncapture_ifs; i++) {
			add(a, "-i");
			add(a, eh->capture_ifs[i]);
		}
	} else {
		add(a, "-i");
		add(a, eh->netdev);
	}
	if (!strcmp(e->capture_mode, "ce"))
		add(a, "--ce");
	else if (!strcmp(e->capture_mode, "roce"))
		add(a, "--roce");
	if (e->capture_speed) {
		add(a, "--speed");
		add(a, e->capture_speed);
	}
	add(a, "--pcapng");
	add(a, "-w");
	add(a, "capture.pcapng");
	add(a, "-q");
	add(a, "--json");
	add(a, "-D");
	add(a, lim);
}

/* pfclab inject for one phase; its length (plim) unless the experiment gave one. */
static void inject_args(struct av *a, const struct run_ctx *c, const struct exp_inject *in,
			uint64_t plim)
{
	bool has_d = false;
	char d[32];
	size_t j;

	add(a, c->hosts[in->host].pfclab);
	add(a, "inject");
	add(a, "-i");
	add(a, in->iface ? in->iface : c->hosts[in->host].h->netdev);
	for (j = 0; j < in->nargs; j++) {
		if (!strcmp(in->args[j], "-D") || !strcmp(in->args[j], "-d") ||
		    !strcmp(in->args[j], "--duration"))
			has_d = true;
		add(a, in->args[j]);
	}
	if (!has_d) {
		dur_str(plim, d, sizeof(d));
		add(a, "-D");
		add(a, d);
	}
	add(a, in->kind);
}

/* The phase's pre or post commands, each "sh -c RUN" on its host. -ENOMEM or 0. */
static int cmd_steps(struct plan *pl, enum plan_role role, int k, const struct exp_phase *ph,
		     const char *what, const struct exp_cmd *cmd, size_t n)
{
	struct plan_step *s;
	struct av a;
	size_t i, j;

	for (i = 0; i < n; i++) {
		s = new_step(pl, role, k, cmd[i].host);
		if (!s)
			return -ENOMEM;
		memset(&a, 0, sizeof(a));
		snprintf(s->name, sizeof(s->name), "%s-%s-%zu", what, ph->name, i);
		snprintf(s->out, sizeof(s->out), "%s.out", s->name);
		s->essential = cmd[i].essential;
		s->limit_ns = 120000000000ull;
		add(&a, "sh");
		add(&a, "-c");
		add(&a, cmd[i].run);
		if (a.err) {
			for (j = 0; a.v && a.v[j]; j++)
				free(a.v[j]);
			free(a.v);
			return -ENOMEM;
		}
		s->argv = a.v;
	}
	return 0;
}

/* The congestion point's set-up (first of phase 0, essential) and restore (phase
 * nphases: run after the point however it ended, see exec.c). */
static int cpoint_steps(const struct run_ctx *c, const struct exp_point *p, struct plan *pl,
			int unused)
{
	char *cmd[2], dev[32], err[EXP_ERR_LEN];
	size_t i, j;
	int rc = cpoint_commands(c->e, p, &cmd[0], &cmd[1], dev, sizeof(dev), err, sizeof(err));

	(void)unused;
	if (rc)
		return rc;
	for (i = 0; i < 2 && !rc; i++) {
		struct plan_step *s = new_step(pl, i ? PR_POST : PR_PRE, i ? (int)p->nphases : 0,
					       c->e->cp->host);
		struct av a = { 0 };

		if (!s) {
			rc = -ENOMEM;
			break;
		}
		snprintf(s->name, sizeof(s->name), "%s", i ? CPOINT_RESTORE : CPOINT_SETUP);
		snprintf(s->out, sizeof(s->out), "%s.out", s->name);
		s->essential = true;
		s->limit_ns = 60000000000ull;
		add(&a, "sh");
		add(&a, "-c");
		add(&a, cmd[i]);
		if (a.err) {
			for (j = 0; a.v && a.v[j]; j++)
				free(a.v[j]);
			free(a.v);
			rc = a.err;
			break;
		}
		s->argv = a.v;
	}
	free(cmd[0]);
	free(cmd[1]);
	return rc;
}

int plan_point(const struct run_ctx *c, const struct exp_point *p, struct plan *pl)
{
	const struct exp *e = c->e;
	uint64_t limit = p->duration_ns + 120000000000ull;
	char lim[32];
	struct plan_step *s;
	struct av a;
	size_t h, k, i, j;

	memset(pl, 0, sizeof(*pl));
	dur_str(limit, lim, sizeof(lim));
#define STEP(role, phase, host)                                 \
	do {                                                    \
		s = new_step(pl, role, phase, host);            \
		if (!s)                                         \
			goto nomem;                             \
		memset(&a, 0, sizeof(a));                       \
	} while (0)
#define DONE()                                                  \
	do {                                                    \
		if (a.err) {                                    \
			for (j = 0; a.v && a.v[j]; j++)         \
				free(a.v[j]);                   \
			free(a.v);                              \
			goto nomem;                             \
		}                                               \
		s->argv = a.v;                                  \
	} while (0)

	for (h = 0; h < c->nhosts; h++) {
		if (e->monitor) {
			STEP(PR_MONITOR, -1, h);
			snprintf(s->name, sizeof(s->name), "monitor");
			snprintf(s->out, sizeof(s->out), "monitor.out");
			s->limit_ns = limit;
			monitor_args(&a, c, h, lim);
			DONE();
		}
		if (e->capture) {
			STEP(PR_CAPTURE, -1, h);
			snprintf(s->name, sizeof(s->name), "capture");
			snprintf(s->out, sizeof(s->out), "capture.json");
			s->limit_ns = limit;
			capture_args(&a, c, h, lim);
			DONE();
		}
	}
	if (e->cp && cpoint_steps(c, p, pl, 0))
		goto nomem;
	for (k = 0; k < p->nphases; k++) {
		const struct exp_phase *ph = &p->phases[k];
		uint64_t plim = ph->duration_ns + 60000000000ull;

		if (cmd_steps(pl, PR_PRE, (int)k, ph, "pre", ph->pre, ph->npre))
			goto nomem;
		for (i = 0; i < ph->ninject; i++) {
			const struct exp_inject *in = &ph->inject[i];

			STEP(PR_INJECT, (int)k, in->host);
			snprintf(s->name, sizeof(s->name), "inject-%s-%zu", ph->name, i);
			snprintf(s->out, sizeof(s->out), "%s.out", s->name);
			s->limit_ns = plim;
			inject_args(&a, c, in, plim);
			DONE();
		}
		if (ph->has_traffic) {
			const struct exp_traffic *t = &ph->traffic;

			for (i = 0; i < t->nfrom; i++) {
				size_t from = t->from[i];
				char w[32];

				STEP(PR_SERVER, (int)k, t->to);
				s->peer = from;
				snprintf(s->name, sizeof(s->name), "traffic-%s-server-%s", ph->name,
					 c->hosts[from].h->name);
				snprintf(s->out, sizeof(s->out), "%s.jsonl", s->name);
				s->limit_ns = plim;
				traffic_common(c, &a, t->to, t, t->port + (unsigned)i);
				dur_str(60000000000ull, w, sizeof(w));
				add(&a, "--wait");
				add(&a, w);
				DONE();
			}
			for (i = 0; i < t->nfrom; i++) {
				size_t from = t->from[i];

				STEP(PR_CLIENT, (int)k, from);
				s->peer = t->to;
				snprintf(s->name, sizeof(s->name), "traffic-%s-client-%s", ph->name,
					 c->hosts[t->to].h->name);
				snprintf(s->out, sizeof(s->out), "%s.jsonl", s->name);
				s->limit_ns = plim;
				traffic_common(c, &a, from, t, t->port + (unsigned)i);
				add(&a, c->hosts[t->to].h->addr);
				DONE();
			}
		}
		if (cmd_steps(pl, PR_POST, (int)k, ph, "post", ph->post, ph->npost))
			goto nomem;
	}
#undef STEP
#undef DONE
	return 0;
nomem:
	plan_free(pl);
	return -ENOMEM;
}

/* sh -c 'cd DIR; echo $$ >.NAME.pid; exec CMD >OUT 2>NAME.err' */
char **plan_wrap(const struct plan_step *s, const char *dir)
{
	static const char script[] =
		"cd \"$1\" || exit 97; echo $$ >\".$2.pid\"; n=$2; o=$3; shift 3; "
		"exec \"$@\" >\"$o\" 2>\"$n.err\"";
	struct av a = { 0 };
	size_t i;

	add(&a, "sh");
	add(&a, "-c");
	add(&a, script);
	add(&a, "sh");
	add(&a, dir);
	add(&a, s->name);
	add(&a, s->out);
	for (i = 0; s->argv[i]; i++)
		add(&a, s->argv[i]);
	if (a.err) {
		for (i = 0; a.v && a.v[i]; i++)
			free(a.v[i]);
		free(a.v);
		return NULL;
	}
	return a.v;
}

static void print_transport(struct run_ctx *c, FILE *f, size_t h)
{
	const char *argv[] = { "COMMAND", NULL };
	char **av = NULL, *line;

	if (c->lops->kind == REMOTE_LOCAL) {
		fprintf(f, "# host %s: this machine (launcher local)\n", c->hosts[h].h->name);
		return;
	}
	if (remote_argv_build(&c->hosts[h].t, argv, &av)) {
		fprintf(f, "# host %s: %s (could not build the command line)\n", c->hosts[h].h->name,
			c->hosts[h].reach);
		return;
	}
	line = remote_argv_join((const char *const *)av);
	fprintf(f, "# host %s: %s\n", c->hosts[h].h->name, line ? line : "?");
	free(line);
	remote_argv_free(av);
}

/* Host H's pfclab as its commands name it, and where it comes from: the host's pfclab:
 * key, this binary (launcher local) or the PATH a command gets there, which only the host
 * knows. */
static void print_pfclab(const struct run_ctx *c, FILE *f, size_t h)
{
	const struct run_host *rh = &c->hosts[h];

	if (rh->h->pfclab)
		fprintf(f, "# pfclab on host %s: %s (hosts.%s.pfclab)\n", rh->h->name, rh->pfclab,
			rh->h->name);
	else if (c->lops->kind == REMOTE_LOCAL)
		fprintf(f, "# pfclab on host %s: %s (this binary: launcher local, no hosts.%s.pfclab)\n",
			rh->h->name, rh->pfclab, rh->h->name);
	else
		fprintf(f, "# pfclab on host %s: %s (the first on the PATH a command run by %s gets on %s; "
			"hosts.%s.pfclab gives a path)\n", rh->h->name, rh->pfclab,
			c->lops->name, rh->reach[0] ? rh->reach : rh->h->name, rh->h->name);
}

static void print_step(FILE *f, const struct run_ctx *c, const struct plan_step *s)
{
	char *line = remote_argv_join((const char *const *)s->argv);

	fprintf(f, "    %-7s %s$ %s > %s%s\n", plan_role_name(s->role), c->hosts[s->host].h->name,
		line ? line : "?", s->out, s->essential ? "   (essential)" : "");
	free(line);
}

int plan_print(struct run_ctx *c, FILE *f)
{
	const struct exp *e = c->e;
	size_t np = exp_point_count(e), i, h, k, j;
	char err[EXP_ERR_LEN], dir[1024], bin[32];

	fmt_duration_ns(FRAMES_TL_RUN_BIN_NS, bin, sizeof(bin));
	fprintf(f, "# pfclab run --dry-run: %s, launcher %s, %zu point%s x %u repetition%s, retries %u\n",
		e->name, c->lops->name, np, np == 1 ? "" : "s", e->reps, e->reps == 1 ? "" : "s",
		e->retries);
	fprintf(f, "# results: %s\n", c->dir);
	for (h = 0; h < c->nhosts; h++)
		print_transport(c, f, h);
	fprintf(f, "# first, on every host: its pfclab (below) version (must print the same version "
		"as here), clock offset (date +%%s%%N, 3 round trips), manifest (uname -r, ethtool -i, "
		"its pfclab doctor --json)\n");
	for (h = 0; h < c->nhosts; h++)
		print_pfclab(c, f, h);
	if (c->o.psk && c->lops->writes_results)
		fprintf(f, "# a fresh pre-shared key is written to %s (mode 0600; XXXXXX: a new private "
			"folder made as the run starts, one key for every host of launcher %s) and "
			"removed at the end\n", c->hosts[0].psk_path, c->lops->name);
	else if (c->o.psk) {
		fprintf(f, "# a fresh pre-shared key is written to each host's run folder (mode 0600) "
			"and removed at the end:");
		for (h = 0; h < c->nhosts; h++)
			fprintf(f, " %s %s%s", c->hosts[h].h->name, c->hosts[h].psk_path,
				h + 1 < c->nhosts ? "," : "\n");
	}
	for (i = 0; i < np; i++) {
		struct exp_point p;
		struct plan pl;
		int rc = exp_point_build(e, i, &p, err, sizeof(err));

		if (rc) {
			fprintf(stderr, "%s\n", err);
			return rc;
		}
		rc = plan_point(c, &p, &pl);
		if (rc) {
			exp_point_free(&p);
			return rc;
		}
		fprintf(f, "point %s%s%s (%u repetition%s; repetition N runs in repN)\n", p.id,
			p.label[0] ? ": " : "", p.label, e->reps, e->reps == 1 ? "" : "s");
		for (h = 0; h < c->nhosts; h++) {
			plan_host_dir(c, h, &p, 0, dir, sizeof(dir));
			fprintf(f, "  folder %s: %s\n", c->hosts[h].h->name, dir);
		}
		fprintf(f, "  start, in the background on every host:\n");
		for (j = 0; j < pl.n; j++)
			if (pl.s[j].phase < 0)
				print_step(f, c, &pl.s[j]);
		for (k = 0; k < p.nphases; k++) {
			const struct exp_phase *ph = &p.phases[k];
			char d[32];

			dur_str(ph->duration_ns, d, sizeof(d));
			fprintf(f, "  phase %s (%s%s):\n", ph->name, ph->has_traffic ? "traffic, about " : "idle ", d);
			for (j = 0; j < pl.n; j++)
				if (pl.s[j].phase == (int)k && pl.s[j].role != PR_POST)
					print_step(f, c, &pl.s[j]);
			if (ph->ninject)
				fprintf(f, "    then: kill -INT the injectors\n");
			for (j = 0; j < pl.n; j++)
				if (pl.s[j].phase == (int)k && pl.s[j].role == PR_POST)
					print_step(f, c, &pl.s[j]);
		}
		fprintf(f, "  stop: kill -INT monitor and capture on every host\n");
		for (j = 0; j < pl.n; j++)
			if (pl.s[j].phase == (int)p.nphases)
				print_step(f, c, &pl.s[j]);
		if (!c->lops->writes_results)
			fprintf(f, "  copy each host's folder back (tar over the launcher)\n");
		fprintf(f, "  review, on this host: %s review --json capture.pcapng > review.json; "
			"%s review --timeline %s capture.pcapng > review-timeline.csv\n", c->self, c->self,
			bin);
		plan_free(&pl);
		exp_point_free(&p);
	}
	fprintf(f, "# at the end: summary.json, summary.txt, plots/ (gnuplot)\n");
	return 0;
}
