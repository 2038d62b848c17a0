// SPDX-License-Identifier: GPL-2.0-or-later
/* top.c: "pfclab top": options, the feeds (local engine, remote hosts over SSH, or a
 * replay), and the drawing loop: redraw on a drift-free period, keys in between.
 * Exit status: 0 done, 1 run-time failure, 2 usage error.
 */
#include <curses.h>
#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/exphosts.h"
#include "lib/hw/gpu.h"
#include "lib/opt.h"
#include "lib/remote.h"
#include "lib/util.h"
#include "monitor/monitor.h"
#include "monitor/record.h"
#include "monitor/top/feed.h"
#include "monitor/top/keys.h"
#include "monitor/top/model.h"
#include "monitor/top/replay.h"
#include "monitor/top/top.h"
#include "monitor/top/view.h"

#define MAX_ROWS 256

struct top_opts {
	const char *iface, *rdma, *gpu_s, *frames, *catalog, *ssh_config, *remote_pfclab;
	const char *replay, *record_dir, *interval_s, *experiment;
	unsigned rdma_port;
	bool frames_on, paused, qdisc;
	uint64_t interval_ns, refresh_ns, stale_ns, start_ns;
	double tolerance;
	const char *hosts[TOP_MAX_HOSTS];
	size_t nhosts;
};

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

static const char top_usage[] =
"Usage: pfclab top [-i IFACE] [-d RDMADEV[:PORT]] [--gpu G|LIST|all]\n"
"                  [--frames[=IFACE]] [-I DUR] [--refresh DUR] [--record-dir DIR]\n"
"                  [--tolerance PCT] [--stale DUR] [--catalog FILE]\n"
"       pfclab top [options] [--ssh-config FILE] [--remote-pfclab CMD] HOST...\n"
"       pfclab top [options] -e EXPERIMENT.yaml\n"
"       pfclab top --replay DIR [--start DUR] [--paused] [--refresh DUR]\n"
"\n"
"A live terminal dashboard of the PFC story, per host and direction: link and RDMA\n"
"throughput; PFC frames per priority each way with the share of time paused (the\n"
"NIC's pause-duration counter, else, with --frames, the captured frames' pause times\n"
"at the link speed) and a sparkline; 802.3x PAUSE; ECN-marked packets; CNPs handled\n"
"and sent; discards and out-of-buffer; NIC PCIe stalls; GPU PCIe rx/tx as a share\n"
"of the link's maximum, a line per GPU; frames the capture saw (--frames). Where the\n"
"rows do not fit the terminal, the PFC priorities no host counts (all n/a) share one\n"
"line, so that 8 GPUs still fit 80x24. What comes from the captured frames is marked\n"
"'*' (the paused share and totals where the NIC counts none included); a value that\n"
"cannot be read shows n/a.\n"
"\n"
"Without HOST the counters are read here, in this process (the monitor engine on a\n"
"thread of its own). With HOSTs each runs 'pfclab monitor --json --all' over SSH\n"
"with the same -i/-d/--gpu/--frames/-I options (HOST:IFACE gives one host its own\n"
"interface; the name 'local' is this machine) and the hosts are shown side by side.\n"
"Hosts are paired (1st with 2nd, 3rd with 4th): a host's PFC received beside its\n"
"peer's PFC sent, CNPs handled beside CNPs sent; a '!' marks a disagreement beyond\n"
"the tolerance. A host that sends nothing keeps its last values, marked STALE with\n"
"their age; the screen never waits for it. A host whose sampler fell behind\n"
"says how many intervals it missed in its header ('h1 ok 0.1s, 12 missed').\n"
"\n";
static const char top_tail[] =
"\n"
"Keys: q quit; space freeze (replay: pause); + - refresh faster/slower; z totals from\n"
"now (they start from the first sample; in a replay, the record's first), Z the\n"
"counters as read; r start/stop recording every host (the monitor's record format;\n"
"--replay plays it back); 0-7 focus a PFC priority; tab or left/right select the\n"
"host shown first; up/down scroll by panel; ? help. Replay: < > speed; [ ] seek\n"
"10 s; { } 60 s; g G start/end.\n"
"\n"
"NO_COLOR set: no colours. When standard output is not a terminal, or TERM names none\n"
"that can move the cursor (dumb, unknown, unset), the local host's counters are\n"
"printed as 'pfclab monitor' prints them; HOSTs, -e and --replay need a terminal (exit\n"
"2 without one).\n"
"Exit status: 0 done, 1 run-time failure, 2 usage error (an option or its value, a\n"
"--gpu this host does not have: see nvidia-smi -L).\n";

/* Words sent to the remote shell: refuse what it would interpret. */
static bool shell_safe(const char *s)
{
	return s && *s && !s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "0123456789_-.:/=@+,")];
}

static struct top_opts T;	/* the option table below writes here */

static int rdma_fn(void *dst, const char *v, char *why, size_t len)
{
	static char dev[64];

	if (opt_rdma_dev(v, dev, sizeof(dev), &T.rdma_port, why, len))
		return -1;
	T.rdma = dev;
	return 0;
}

/* The interval is passed on to remote monitors as typed. */
static int interval_fn(void *dst, const char *v, char *why, size_t len)
{
	if (parse_duration_ns(v, 1000000ULL, 3600000000000ULL, &T.interval_ns)) {
		snprintf(why, len, "expected a duration from 1ms to 1h (e.g. 200ms)");
		return -1;
	}
	T.interval_s = v;
	return 0;
}

static int tolerance_fn(void *dst, const char *v, char *why, size_t len)
{
	char *end;
	double t = strtod(v, &end);

	if (*end || end == v || !(t >= 0 && t <= 1000)) {
		snprintf(why, len, "expected a percentage 0..1000");
		return -1;
	}
	T.tolerance = t / 100;
	return 0;
}

static const struct opt top_opts_tab[] = {
	{ "iface", 'i', OPT_STR, .dst = &T.iface, .arg = "IFACE",
	  .help = "network interface (ethtool -S, PAUSE, DCB PFC, link, PCI)",
	  .long_alias = "interface" },
	{ "rdma", 'd', OPT_FN, .fn = rdma_fn, .arg = "DEV[:PORT]",
	  .help = "RDMA device hw counters; port 1 by default", .long_alias = "ib-dev" },
	{ "gpu", 0, OPT_FN, .dst = &T.gpu_s, .fn = hw_gpu_set_opt, .arg = "G",
	  .help = "NVIDIA GPU G (index as nvidia-smi -L numbers them, or PCI\n"
		  "address): PCIe rx/tx throughput and link (NVML); a comma\n"
		  "list (0,1 or 17:00.0,65:00.0) or all: a line per GPU" },
	{ "frames", 0, OPT_STR, .dst = &T.frames, .arg = "IFACE", .flags = OPT_OPTIONAL,
	  .help = "also count captured PAUSE/PFC, CNP and CE-marked frames" },
	{ "qdisc", 0, OPT_FLAG, .dst = &T.qdisc,
	  .help = "also the qdiscs of IFACE (backlog, drops, ECN marks): a Qdisc row each" },
	{ "interval", 'I', OPT_FN, .fn = interval_fn, .arg = "DUR",
	  .help = "sampling interval, >= 1ms (default 1s)" },
	{ "refresh", 0, OPT_DUR, TOP_REFRESH_MIN_NS, TOP_REFRESH_MAX_NS, &T.refresh_ns,
	  .arg = "DUR", .help = "redraw period, 50ms..10s (default: the interval, at most 1s)" },
	{ "record-dir", 0, OPT_STR, .dst = &T.record_dir, .arg = "DIR",
	  .help = "where 'r' records (default top-YYYYmmdd-HHMMSS); with\n"
		  "several hosts, one record per host in DIR/HOST; a DIR that\n"
		  "holds a record is kept, DIR-2, DIR-3 ... taken instead" },
	{ "tolerance", 0, OPT_FN, .fn = tolerance_fn, .arg = "PCT",
	  .help = "disagreement allowed between paired hosts (default 10)" },
	{ "stale", 0, OPT_DUR, 1000000ULL, 3600000000000ULL, &T.stale_ns, .arg = "DUR",
	  .help = "a host is STALE after DUR without a sample (default: 3\n"
		  "intervals, at least 1s)" },
	{ "catalog", 0, OPT_STR, .dst = &T.catalog, .arg = "FILE",
	  .help = "counter catalog instead of the built-in one" },
	{ "experiment", 'e', OPT_STR, .dst = &T.experiment, .arg = "FILE",
	  .help = "the hosts of a 'pfclab run' experiment file, each with its\n"
		  "netdev, rdma, gpu and pfclab, reached as its launcher does\n"
		  "(local: here; ssh; slurm: srun inside the allocation);\n"
		  "-i/-d/--gpu given here replace the file's" },
	{ "ssh-config", 'F', OPT_STR, .dst = &T.ssh_config, .arg = "FILE",
	  .help = "ssh -F FILE (default: your own ssh configuration); ssh runs\n"
		  "with BatchMode=yes and connection sharing (ControlMaster)" },
	{ "remote-pfclab", 0, OPT_STR, .dst = &T.remote_pfclab, .arg = "CMD",
	  .help = "the pfclab command on the hosts (default: pfclab)" },
	{ "replay", 0, OPT_STR, .dst = &T.replay, .arg = "DIR",
	  .help = "play back a monitor record, or a 'pfclab run' results folder\n"
		  "(every record below DIR is a host, side by side, at most\n"
		  "16: give DIR/points/p003/rep0 for one point; a host whose\n"
		  "frames were captured apart, not in its record, shows the\n"
		  "capture's seen/s and paused share from the review timeline\n"
		  "beside it, else the whole capture's counts as totals; values\n"
		  "from the capture are marked *)" },
	{ "start", 0, OPT_DUR, 0, UINT64_MAX, &T.start_ns, .arg = "DUR",
	  .help = "replay: begin DUR into the record" },
	{ "paused", 0, OPT_FLAG, .dst = &T.paused, .help = "replay: begin paused" },
	OPT_END
};

static const struct opt_cmd top_cmd = {
	"top", top_usage, top_tail, top_opts_tab, .extra = NULL
};

/* A file (or, dir, a folder) named on the command line is there and readable: -1, or
 * the usage status after one message.
 */
static int check_input(const char *opt, const char *path, bool dir)
{
	struct stat st;

	if (!path)
		return -1;
	if (stat(path, &st))
		return pfc_bad_arg(opt, path, strerror(errno));
	if (dir != !!S_ISDIR(st.st_mode))
		return pfc_bad_arg(opt, path, dir ? "not a folder: give the record or results "
				   "folder" : "is a folder: give a file");
	if (access(path, R_OK | (dir ? X_OK : 0)))
		return pfc_bad_arg(opt, path, strerror(errno));
	return -1;
}

/* 0 after --help, 2 usage error, -1 go on. */
static int parse_opts(int argc, char **argv, struct top_opts *o)
{
	int first;

	memset(&T, 0, sizeof(T));
	T.rdma_port = 1;
	T.interval_ns = 1000000000ULL;
	T.tolerance = 0.10;
	first = opt_parse(&top_cmd, argc, argv);
	*o = T;
	if (first < 0)
		return first == OPT_HELP ? 0 : 2;
	o->frames_on = opt_given(&top_cmd, "frames");
	for (; first < argc; first++) {
		if (o->nhosts >= TOP_MAX_HOSTS) {
			pfc_err("more than %d hosts; show fewer at once", TOP_MAX_HOSTS);
			return 2;
		}
		if (argv[first][0] == '-' || !shell_safe(argv[first]))
			return pfc_bad_arg("HOST", argv[first],
					   "expected an ssh destination (name, user@name, "
					   "name:IFACE)");
		/* HOST:IFACE with one side empty: a name left out, refused here rather
		 * than passed on as an empty ssh destination or --iface= */
		{
			const char *colon = strrchr(argv[first], ':');

			if (colon == argv[first] || (colon && !colon[1]))
				return pfc_bad_arg("HOST", argv[first], colon == argv[first] ?
						   "no host before ':'; give HOST:IFACE (or HOST "
						   "with -i IFACE)" :
						   "no interface after ':'; give HOST:IFACE, or "
						   "HOST alone with -i IFACE");
		}
		o->hosts[o->nhosts++] = argv[first];
	}
	if (o->experiment && (o->nhosts || o->replay)) {
		pfc_err("-e takes the hosts from the experiment file: give no HOST or --replay");
		return 2;
	}
	if (o->replay && (o->nhosts || o->iface || o->rdma || o->gpu_s)) {
		pfc_err("--replay plays a record: give no HOST, -i, -d or --gpu with it");
		return 2;
	}
	for (size_t i = 0; i < o->nhosts; i++)
		if (!strchr(o->hosts[i], ':') && !o->iface && !o->rdma && !o->gpu_s) {
			pfc_err("%s: nothing to show there: give -i IFACE (or HOST:IFACE), "
				"-d RDMADEV and/or --gpu G", o->hosts[i]);
			return 2;
		}
	if (!o->replay && !o->nhosts && !o->experiment && !o->iface && !o->rdma && !o->gpu_s) {
		pfc_err("nothing to show: give -i IFACE, -d RDMADEV and/or --gpu G (and HOSTs "
			"for remote hosts), or --replay DIR");
		return 2;
	}
	if (o->frames_on && !o->frames && !o->iface) {
		pfc_err("--frames needs an interface: give --frames=IFACE or -i IFACE");
		return 2;
	}
	if (o->nhosts && ((o->iface && !shell_safe(o->iface)) || (o->rdma && !shell_safe(o->rdma)) ||
			  (o->frames && !shell_safe(o->frames)) ||
			  (o->remote_pfclab && !shell_safe(o->remote_pfclab)))) {
		pfc_err("an interface, device or command name for a remote host holds characters "
			"a shell would interpret; use plain names");
		return 2;
	}
	/* before the terminal is checked or taken: a wrong path is a usage error anywhere */
	if (check_input("--replay", o->replay, true) >= 0 ||
	    check_input("-e", o->experiment, false) >= 0 ||
	    check_input("--ssh-config", o->ssh_config, false) >= 0)
		return 2;
	if (o->ssh_config) {
		const char *bad = remote_ssh_config_problem(o->ssh_config);

		if (bad)
			return pfc_bad_arg("--ssh-config", o->ssh_config, bad), 2;
	}
	if (!o->refresh_ns)
		o->refresh_ns = o->interval_ns < 1000000000ULL ?
			(o->interval_ns < TOP_REFRESH_MIN_NS ? TOP_REFRESH_MIN_NS : o->interval_ns) :
			1000000000ULL;
	return -1;
}

/* Not a terminal that can hold the screen (why says how): the local counters as
 * "pfclab monitor" prints them.
 */
static int fallback_text(const struct top_opts *o, const char *why)
{
	char *av[16], port[16], fr[300];
	int n = 0;

	if (o->replay) {
		pfc_err("%s: the replay needs a terminal; the record's numbers are in its "
			"samples.csv (a results folder's in summary.txt)", why);
		return 2;
	}
	if (o->nhosts || o->experiment) {
		pfc_err("%s: the dashboard needs a terminal; for text, run 'pfclab monitor' "
			"(on each host)", why);
		return 2;
	}
	av[n++] = (char *)"monitor";
	if (o->iface) {
		av[n++] = (char *)"-i";
		av[n++] = (char *)o->iface;
	}
	if (o->rdma) {
		snprintf(port, sizeof(port), "%u", o->rdma_port);
		av[n++] = (char *)"-d";
		snprintf(fr, sizeof(fr), "%s:%s", o->rdma, port);
		av[n++] = strdup(fr);
	}
	if (o->gpu_s) {
		av[n++] = (char *)"--gpu";
		av[n++] = (char *)o->gpu_s;
	}
	if (o->frames_on) {
		snprintf(fr, sizeof(fr), "--frames%s%s", o->frames ? "=" : "",
			 o->frames ? o->frames : "");
		av[n++] = strdup(fr);
	}
	if (o->interval_s) {
		av[n++] = (char *)"-I";
		av[n++] = (char *)o->interval_s;
	}
	if (o->catalog) {
		av[n++] = (char *)"--catalog";
		av[n++] = (char *)o->catalog;
	}
	av[n] = NULL;
	return monitor_main(n, av);
}

/* One host to show: where its counters come from. */
struct top_host_spec {
	char name[64];		/* shown */
	char reach[256];	/* ssh destination or Slurm node */
	bool local;		/* the engine in this process */
	enum remote_kind kind;
	const char *iface, *rdma, *gpu_s, *pfclab;
};

struct top_run {
	struct top_opts o;
	bool bad_input; /* the error is the user's input (exit 2), as in 'pfclab run' */
	struct top_host_spec spec[TOP_MAX_HOSTS];
	size_t nspec;
	struct exphosts *exp;
	struct top_feed feed[TOP_MAX_HOSTS];
	bool is_local[TOP_MAX_HOSTS];
	size_t nfeed;
	struct top_replay *rp;
	struct top_model m;
	struct top_ui ui;
	struct top_snap tmp, first;	/* a host's snapshot; a replay's first sample */
	struct top_row *rows;
	char control_dir[4096];
	/* replay clock */
	uint64_t play_t, play_last;
};

/* The private folder of ssh's connection sockets (lib/remote), found once here before
 * the reader threads start.
 */
static int control_dir(struct top_run *t, char *err, size_t n)
{
	int rc = 0;
	const char *d = remote_control_dir(&rc);

	if (!d) {
		snprintf(err, n, "the private folder for ssh connection sockets: %s; set "
			 "XDG_RUNTIME_DIR to a folder of your own", strerror(-rc));
		return rc ? rc : -EPERM;
	}
	snprintf(t->control_dir, sizeof(t->control_dir), "%s", d);
	return 0;
}

/* The hosts of a "pfclab run" experiment file, reached as its launcher does. */
static int hosts_from_experiment(struct top_run *t, char *err, size_t errlen)
{
	const struct top_opts *o = &t->o;
	size_t i;
	uint64_t ns;
	int rc = exphosts_load(o->experiment, &t->exp, err, errlen);

	if (rc) {
		t->bad_input = true; /* a missing, unreadable or bad experiment file */
		return rc;
	}
	if (t->exp->interval && parse_duration_ns(t->exp->interval, MON_INTERVAL_MIN_NS,
						  MON_INTERVAL_MAX_NS, &ns)) {
		const char *b = strrchr(o->experiment, '/');

		snprintf(err, errlen, "%s:%d: monitor.interval: '%s' is not valid for pfclab "
			 "monitor --interval; give a duration from 100us to 1h (e.g. 500us, 10ms, "
			 "30s)", b ? b + 1 : o->experiment, t->exp->interval_line, t->exp->interval);
		t->bad_input = true;
		return -EINVAL;
	}
	if (!o->interval_s && t->exp->interval)
		t->o.interval_ns = ns;
	if (t->exp->n > TOP_MAX_HOSTS) {
		snprintf(err, errlen, "%s: %zu hosts; the screen shows at most %d", o->experiment,
			 t->exp->n, TOP_MAX_HOSTS);
		return -E2BIG;
	}
	for (i = 0; i < t->exp->n; i++) {
		const struct exphost *e = &t->exp->h[i];
		struct top_host_spec *h = &t->spec[i];

		memset(h, 0, sizeof(*h));
		snprintf(h->name, sizeof(h->name), "%s", e->name);
		const char *reach = t->exp->launcher == EXPHOSTS_SLURM ? e->node : e->ssh;

		snprintf(h->reach, sizeof(h->reach), "%s", reach ? reach : e->name);
		h->local = t->exp->launcher == EXPHOSTS_LOCAL;
		h->kind = t->exp->launcher == EXPHOSTS_SLURM ? REMOTE_SRUN : REMOTE_SSH;
		/* The command line wins over the file for what it names. */
		h->iface = o->iface ? o->iface : e->netdev;
		h->rdma = o->rdma ? o->rdma : e->rdma;
		h->gpu_s = o->gpu_s ? o->gpu_s : e->gpu;
		h->pfclab = o->remote_pfclab ? o->remote_pfclab : e->pfclab;
	}
	t->nspec = t->exp->n;
	return 0;
}

static int start_feeds(struct top_run *t, int argc, char **argv, char *err, size_t errlen)
{
	const struct top_opts *o = &t->o;
	size_t i, na;
	int rc;

	if (o->replay) {
		rc = top_replay_open(o->replay, &t->rp, err, errlen);
		if (rc)
			return rc;
		for (i = 0; i < top_replay_nrec(t->rp); i++)
			top_model_add_host(&t->m, top_replay_name(t->rp, i));
		return 0;
	}
	if (!o->nhosts && !o->experiment) {
		struct top_host_spec *h = &t->spec[0];

		memset(h, 0, sizeof(*h));
		gethostname(h->name, sizeof(h->name) - 1);
		h->local = true;
		h->iface = o->iface;
		h->rdma = o->rdma;
		h->gpu_s = o->gpu_s;
		t->nspec = 1;
	} else if (!o->experiment) {
		for (i = 0; i < o->nhosts; i++) {
			struct top_host_spec *h = &t->spec[i];
			const char *colon = strrchr(o->hosts[i], ':');

			memset(h, 0, sizeof(*h));
			snprintf(h->name, sizeof(h->name), "%.*s",
				 colon ? (int)(colon - o->hosts[i]) : (int)strlen(o->hosts[i]),
				 o->hosts[i]);
			snprintf(h->reach, sizeof(h->reach), "%s", h->name);
			h->local = !strcmp(h->name, "local");
			h->kind = REMOTE_SSH;
			h->iface = colon ? colon + 1 : o->iface;
			h->rdma = o->rdma;
			h->gpu_s = o->gpu_s;
			h->pfclab = o->remote_pfclab;
		}
		t->nspec = o->nhosts;
	} else {
		rc = hosts_from_experiment(t, err, errlen);
		if (rc)
			return rc;
	}
	for (i = 0; i < t->nspec; i++)
		if (!t->spec[i].local && !t->control_dir[0] &&
		    (rc = control_dir(t, err, errlen)))
			return rc;
	for (i = 0; i < t->nspec; i++) {
		const struct top_host_spec *h = &t->spec[i];
		const char *frames = o->frames_on ? (o->frames ? o->frames : h->iface) : NULL;
		char a_rdma[300], a_gpu[80], a_int[40], a_fr[300], a_if[300];
		const char *args[8];
		int gpus[HW_GPU_MAX], ngpus = 0;

		rc = top_feed_init(&t->feed[i], h->name);
		if (rc) {
			snprintf(err, errlen, "eventfd: %s", strerror(-rc));
			return rc;
		}
		t->nfeed = i + 1;
		top_model_add_host(&t->m, h->name);
		if (h->local) {
			char why[200];

			/* this host's GPUs: indices as given, PCI addresses found here */
			if (h->gpu_s) {
				ngpus = hw_gpu_set_index(h->gpu_s, gpus, HW_GPU_MAX, why,
							 sizeof(why));
				if (ngpus < 0) {
					snprintf(err, errlen, "--gpu '%s': %s", h->gpu_s, why);
					/* as pfclab monitor: a GPU this host lacks, exit 2 */
					t->bad_input = ngpus == -EINVAL || ngpus == -ENODEV;
					return ngpus;
				}
			}
			struct top_local_cfg lc = {
				.iface = h->iface, .rdma = h->rdma, .rdma_port = o->rdma_port,
				.gpus = gpus, .ngpus = (size_t)ngpus,
				.frames = frames, .interval_ns = o->interval_ns,
				.catalog = o->catalog, .argc = argc, .argv = argv,
				.qdisc = o->qdisc,
			};

			t->is_local[i] = true;
			rc = top_local_start(&t->feed[i], &lc, err, errlen);
			if (rc)
				return rc;
			continue;
		}
		/* The remote monitor's options: this host's devices, our interval. */
		na = 0;
		if (h->rdma) {
			snprintf(a_rdma, sizeof(a_rdma), "--rdma=%s:%u", h->rdma, o->rdma_port);
			args[na++] = a_rdma;
		}
		if (h->gpu_s) {
			snprintf(a_gpu, sizeof(a_gpu), "--gpu=%s", h->gpu_s);
			args[na++] = a_gpu;
		}
		snprintf(a_int, sizeof(a_int), "-I%lluus",
			 (unsigned long long)(o->interval_ns / 1000ULL));
		args[na++] = a_int;
		if (frames) {
			snprintf(a_fr, sizeof(a_fr), "--frames=%s", frames);
			args[na++] = a_fr;
		}
		if (h->iface) {
			snprintf(a_if, sizeof(a_if), "--iface=%s", h->iface);
			args[na++] = a_if;
		}
		args[na] = NULL;
		{
			struct top_remote_cfg rc2 = {
				.host = h->reach, .kind = h->kind, .ssh_config = o->ssh_config,
				.pfclab = h->pfclab, .control_dir = t->control_dir,
				.monitor_args = args, .interval_ns = o->interval_ns,
			};

			rc = top_remote_start(&t->feed[i], &rc2);
		}
		if (rc) {
			snprintf(err, errlen, "%s: starting %s: %s", h->name,
				 h->kind == REMOTE_SRUN ? "srun" : "ssh", strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static void default_record_dir(char *buf, size_t n)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(buf, n, "top-%Y%m%d-%H%M%S", &tm);
}

static bool feed_recording(struct top_run *t, size_t i)
{
	return t->is_local[i] ? top_local_recording(&t->feed[i]) :
				top_remote_recording(&t->feed[i]);
}

static bool any_recording(struct top_run *t)
{
	size_t i;

	for (i = 0; i < t->nfeed; i++)
		if (feed_recording(t, i))
			return true;
	return false;
}

/* The folder host i records into under base: base itself for one host, else base/HOST. */
static void record_host_dir(const struct top_run *t, size_t i, const char *base, char *dir,
			    size_t n)
{
	if (t->nfeed == 1)
		snprintf(dir, n, "%s", base);
	else
		snprintf(dir, n, "%s/%s", base, t->feed[i].name);
}

/* Whether a record is at dir or in a folder below it, as deep as replay looks for one
 * (top_replay_open). */
static bool holds_record(const char *dir, int depth)
{
	struct dirent *d;
	bool found = false;
	DIR *D;

	if (mon_rec_check_dir(dir) == -EEXIST)
		return true;
	if (depth >= 5 || !(D = opendir(dir)))
		return false;
	while (!found && (d = readdir(D))) {
		char sub[4200];

		if (d->d_name[0] == '.' || (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, d->d_name) < sizeof(sub))
			found = holds_record(sub, depth + 1);
	}
	closedir(D);
	return found;
}

/* One host records into base itself, which a replay of base reads alone when it holds a
 * record; several into base/HOST, where a replay of base reads every record below. */
static bool record_taken(const struct top_run *t, const char *base)
{
	return t->nfeed == 1 ? mon_rec_check_dir(base) == -EEXIST : holds_record(base, 0);
}

/* r: every host records; one host into DIR, several into DIR/HOST (replay finds them).
 * A DIR that holds a record already (r pressed again, a --record-dir used before; with
 * several hosts, a record of any host in a folder below, which a replay of DIR would
 * show with ours) is kept: the next free DIR-2, DIR-3 ... is taken.
 */
static void toggle_record(struct top_run *t, char *msg, size_t n)
{
	char first[4000], base[4096], dir[4200];
	bool on = any_recording(t);
	unsigned k;
	size_t i;

	if (t->o.record_dir)
		snprintf(first, sizeof(first), "%s", t->o.record_dir);
	else
		default_record_dir(first, sizeof(first));
	snprintf(base, sizeof(base), "%s", first);
	for (k = 2; !on && record_taken(t, base) && k < 10000; k++)
		snprintf(base, sizeof(base), "%s-%u", first, k);
	for (i = 0; i < t->nfeed; i++) {
		record_host_dir(t, i, base, dir, sizeof(dir));
		if (t->is_local[i])
			top_local_record(&t->feed[i], on ? NULL : dir);
		else
			top_remote_record(&t->feed[i], on ? NULL : dir);
	}
	if (on)
		snprintf(msg, n, "r: recording stopped");
	else if (strcmp(base, first))
		snprintf(msg, n, "r: recording to %.75s (%.75s holds a record, kept)", base, first);
	else
		snprintf(msg, n, "r: recording to %.180s", base);
}

static void replay_step(struct top_run *t, uint64_t now, char *where, size_t n)
{
	uint64_t len = top_replay_length(t->rp);
	struct top_ui *u = &t->ui;

	if (!u->paused && t->play_last)
		t->play_t += (uint64_t)((double)(now - t->play_last) * u->speed);
	t->play_last = now;
	if (u->seek_start)
		t->play_t = 0;
	if (u->seek_end)
		t->play_t = len;
	if (u->seek_ns < 0 && (uint64_t)-u->seek_ns > t->play_t)
		t->play_t = 0;
	else
		t->play_t += (uint64_t)u->seek_ns;
	if (u->seek_ns < 0 || u->seek_start) {
		/* Going back: history restarts from there; totals from the record's start
		 * again (top_replay_feed), as a baseline from 'z' may lie ahead.
		 */
		size_t i;

		for (i = 0; i < t->m.nhost; i++) {
			t->m.host[i].nhist = 0;
			t->m.host[i].last_seq = 0;
			t->m.host[i].have_base = false;
		}
	}
	u->seek_ns = 0;
	u->seek_start = u->seek_end = false;
	if (t->play_t >= len) {
		t->play_t = len;
	}
	snprintf(where, n, "%.1f s / %.1f s  x%g%s", t->play_t / 1e9, len / 1e9, u->speed,
		 u->paused ? "  PAUSED" : t->play_t >= len ? "  END" : "");
}

static void gather(struct top_run *t, uint64_t now)
{
	size_t i;

	for (i = 0; i < t->m.nhost; i++) {
		if (t->rp) {
			top_replay_feed(t->rp, i, t->play_t, now, &t->m, &t->tmp, &t->first);
			continue;
		}
		top_feed_latest(&t->feed[i], &t->tmp);
		top_model_update(&t->m, i, &t->tmp);
	}
}

/* The bottom line: a host that is down or stale first (why), else the selected host's
 * last message.
 */
static const char *status_line(struct top_run *t, size_t sel, uint64_t now, char *buf,
			       size_t n)
{
	size_t i;

	for (i = 0; i < t->m.nhost; i++) {
		uint64_t age;
		enum top_host_state st = top_model_host_state(&t->m, i, now, &age);

		if (st == TOP_HOST_STALE) {
			snprintf(buf, n, "%s: no sample for %.1f s; its last values stay",
				 t->m.host[i].name, age / 1e9);
			return buf;
		}
		if (st == TOP_HOST_DOWN && t->m.host[i].snap.status[0]) {
			snprintf(buf, n, "%s: %s", t->m.host[i].name, t->m.host[i].snap.status);
			return buf;
		}
	}
	return t->m.host[sel].snap.status;
}

/* What the "*" marks mean where a host's own frames source (--frames, live, remote or
 * recorded) gives figures, put before the status: the paused share and the totals mix
 * the NIC's counters and the capture's. The capture beside a record says so in its host's
 * status.
 */
#define CAPTURE_LEGEND "*: captured frames, not NIC counters"

static const char *legend_status(const struct top_run *t, const char *status, char *buf,
				 size_t n)
{
	size_t i;

	for (i = 0; i < t->m.nhost; i++)
		if (top_model_host_captures(&t->m, i)) {
			snprintf(buf, n, "%s%s%s", CAPTURE_LEGEND, status && status[0] ? "; " : "",
				 status ? status : "");
			return buf;
		}
	return status;
}

/* The note line: the selected host's note, else the first host's that has one; how many
 * other hosts have one besides.
 */
static const char *note_line(const struct top_run *t, size_t sel, char *buf, size_t n)
{
	size_t i, more = 0;
	const char *first = t->m.host[sel].snap.note[0] ? t->m.host[sel].snap.note : NULL;

	for (i = 0; i < t->m.nhost; i++) {
		const char *nt = t->m.host[i].snap.note;

		if (!nt[0] || nt == first)
			continue;
		if (!first)
			first = nt;
		else
			more++;
	}
	if (!first)
		return NULL;
	if (!more)
		return first;
	snprintf(buf, n, "%s (%zu more host%s with a note: select it)", first, more,
		 more == 1 ? "" : "s");
	return buf;
}

static int loop(struct top_run *t)
{
	struct top_view_info vi = { 0 };
	uint64_t next = time_mono_ns();
	char msg[200] = "", sline[400], nline[320], lline[480];
	bool color = !(getenv("NO_COLOR") && *getenv("NO_COLOR"));

	if (top_view_open(color)) {
		pfc_err("cannot set up the terminal (TERM=%s)", getenv("TERM") ? getenv("TERM") :
			"unset");
		return 1;
	}
	top_ui_init(&t->ui, t->o.refresh_ns, t->m.nhost, TOP_SEC_N, t->rp != NULL);
	t->ui.paused = t->o.paused;
	t->play_t = t->o.start_ns;
	vi.mode = t->rp ? "replay" : t->o.nhosts || t->o.experiment ? "hosts" : "live";
	while (!stop_sig && !t->ui.quit) {
		uint64_t now = time_mono_ns();
		struct pollfd p = { .fd = 0, .events = POLLIN };
		int ch, timeout;
		bool draw = false;

		if (now >= next) {
			if (t->rp)
				replay_step(t, now, vi.where, sizeof(vi.where));
			gather(t, now);
			draw = true;
			next += t->ui.refresh_ns;
			if (next <= now)	/* fell behind (suspended): no burst of redraws */
				next = now + t->ui.refresh_ns;
		}
		while ((ch = getch()) != ERR) {
			enum top_action a = top_keys_apply(&t->ui, ch);

			draw = true;
			switch (a) {
			case TOP_ACT_FREEZE:
				t->m.frozen = t->ui.frozen;
				break;
			case TOP_ACT_BASELINE:
				top_model_baseline(&t->m);
				snprintf(msg, sizeof(msg), "z: totals count from now");
				break;
			case TOP_ACT_BASELINE_CLEAR:
				top_model_baseline_clear(&t->m);
				snprintf(msg, sizeof(msg), "Z: totals are the counters as read");
				break;
			case TOP_ACT_RECORD:
				msg[0] = '\0';
				toggle_record(t, msg, sizeof(msg));
				break;
			case TOP_ACT_DRAW:
				if (t->rp && (t->ui.seek_ns || t->ui.seek_start || t->ui.seek_end)) {
					replay_step(t, time_mono_ns(), vi.where, sizeof(vi.where));
					gather(t, time_mono_ns());
				}
				break;
			default:
				break;
			}
		}
		if (t->ui.quit)
			break;
		if (draw) {
			size_t n = top_model_rows(&t->m, t->rows, MAX_ROWS);
			size_t sel = t->ui.host < t->m.nhost ? t->ui.host : 0;

			vi.now = time_mono_ns();
			vi.recording = any_recording(t);
			vi.status = legend_status(t, msg[0] ? msg :
						  status_line(t, sel, vi.now, sline, sizeof(sline)),
						  lline, sizeof(lline));
			vi.note = note_line(t, sel, nline, sizeof(nline));
			top_view_draw(&t->m, t->rows, n, &t->ui, &vi);
		}
		now = time_mono_ns();
		timeout = next > now ? (int)((next - now + 999999) / 1000000) : 0;
		if (poll(&p, 1, timeout) < 0 && errno != EINTR)
			break;
	}
	top_view_close();
	return 0;
}

int top_main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct top_run *t = calloc(1, sizeof(*t));
	char err[512] = "";
	size_t i;
	int rc;

	if (!t) {
		pfc_errno(ENOMEM, "starting");
		return 1;
	}
	rc = parse_opts(argc, argv, &t->o);
	if (rc >= 0) {
		free(t);
		return rc;
	}
	if (!isatty(STDOUT_FILENO)) {
		rc = fallback_text(&t->o, "standard output is not a terminal");
		free(t);
		return rc;
	}
	if (top_view_usable(err, sizeof(err))) {
		/* TERM=dumb, unknown or unset: ncurses would draw nothing, or exit */
		if (!t->o.replay && !t->o.nhosts && !t->o.experiment)
			pfc_warn("%s: printing the counters as text (set TERM, e.g. "
				 "TERM=xterm-256color, for the dashboard)", err);
		rc = fallback_text(&t->o, err);
		free(t);
		return rc;
	}
	err[0] = 0;
	setlocale(LC_ALL, "");
	top_model_init(&t->m);
	t->m.tolerance = t->o.tolerance;
	t->m.stale_ns = t->o.stale_ns;
	t->rows = calloc(MAX_ROWS, sizeof(*t->rows));
	if (!t->rows) {
		pfc_errno(ENOMEM, "starting");
		free(t);
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = start_feeds(t, argc, argv, err, sizeof(err));
	if (rc) {
		pfc_err("%s", err[0] ? err : strerror(-rc));
		rc = t->bad_input ? 2 : 1;
	} else {
		rc = loop(t);
	}
	for (i = 0; i < t->nfeed; i++)
		top_feed_stop(&t->feed[i]);
	top_replay_free(t->rp);
	exphosts_free(t->exp);
	top_model_free(&t->m);
	top_snap_free(&t->tmp);
	top_snap_free(&t->first);
	free(t->rows);
	free(t);
	return rc;
}
