// SPDX-License-Identifier: GPL-2.0-or-later
/* pfclab.c: the pfclab front door: finds the subcommand and hands it argc/argv. */
#include <stdio.h>
#include <string.h>

#include "lib/opt.h"
#include "lib/out.h"
#include "lib/util.h"
#include "lab/doctor/doctor.h"
#include "lab/link/link.h"
#include "traffic/traffic.h"
#include "monitor/frames/capture.h"
#include "monitor/frames/inject.h"
#include "monitor/frames/review.h"
#include "monitor/monitor.h"
#include "scripts/run/run_main.h"
#include "monitor/top/top.h"
#include "version.h" /* generated: $(BUILD)/gen */

struct pfclab_cmd {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);
};

static int version_main(int argc, char **argv);

/* Subcommands appear here as they are implemented, each from its own folder. */
static const struct pfclab_cmd cmds[] = {
	{ "version", "print the pfclab version", version_main },
	{ "monitor", "sample PFC/ECN/CNP/link/GPU PCIe counters (every 100 us to 1 h); record runs", monitor_main },
	{ "top", "live dashboard of PFC/ECN/CNP/PCIe per host, side by side; replay", top_main },
	{ "capture", "capture PAUSE/PFC, CNP and RoCEv2 frames with live counts", capture_main },
	{ "review", "summarise captures: PFC paused time, CNPs per QP, CE share", review_main },
	{ "inject", "send PAUSE/PFC/CNP frames; CNP-on-CE and PFC-on-backlog modes", inject_main },
	{ "traffic", "RDMA WRITE generator: one-way or bidirectional, host or GPU memory", traffic_main },
	{ "run", "scripted experiments across hosts (local, ssh, slurm): results, summary, plots", run_main },
	{ "doctor", "preflight report: driver, GPU/BAR1, RDMA ports, PFC/ECN, PCIe path", doctor_main },
	{ "link", "emulated lossless link: receive buffer, PFC XOFF/XON, pauses obeyed", link_main },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: pfclab [--version] [--help] COMMAND [ARGS]\n"
		"\n"
		"A toolkit for RoCEv2 congestion and PFC experiments.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\n'pfclab help COMMAND' (or 'pfclab COMMAND --help') describes one command;\n"
		   "'man pfclab-COMMAND' once installed.\n"
		   "Exit status: 0 success, 1 run-time failure, 2 usage error.\n");
}

static int version_main(int argc, char **argv)
{
	static const struct opt opts[] = { OPT_END };
	static const struct opt_cmd cmd = {
		.name = "version",
		.usage = "Usage: pfclab version\n"
			 "\n"
			 "Prints the pfclab version (the same as 'pfclab --version').\n"
			 "\n",
		.opts = opts,
	};
	int first = opt_parse(&cmd, argc, argv);

	if (first == OPT_HELP)
		return 0;
	if (first == OPT_USAGE)
		return 2;
	if (first < argc) {
		pfc_err("unexpected argument '%s'; see 'pfclab version --help'", argv[first]);
		return 2;
	}
	printf("pfclab %s\n", PFCLAB_VERSION);
	return 0;
}

/* The front door's own words (usage, version) or the command's; the exit status. */
static int dispatch(int argc, char **argv)
{
	static char prog[64];
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help")) {
		/* pfclab help [help]: this usage; pfclab help CMD: the command's --help */
		static char help[] = "--help";

		if (argc > 3) {
			pfc_err("help takes one command, not '%s'; e.g. 'pfclab help %s'", argv[3],
				argv[2]);
			return 2;
		}
		if (argc == 2 || !strcmp(argv[2], "help")) {
			usage(stdout);
			return 0;
		}
		argv[1] = argv[2];
		argv[2] = help;
		argc = 3;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return version_main(1, argv);
	if (argv[1][0] == '-') {
		pfc_err("unknown option '%s'; see 'pfclab --help'", argv[1]);
		return 2;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		snprintf(prog, sizeof(prog), "pfclab %s", cmds[i].name);
		pfc_set_progname(prog);
		return cmds[i].main(argc - 1, argv + 1);
	}
	pfc_err("'%s' is not a pfclab command; 'pfclab --help' lists them", argv[1]);
	return 2;
}

int main(int argc, char **argv)
{
	int rc = dispatch(argc, argv), err;

	/* Output lost on a full disk or a closed pipe is a failure, said once here. */
	err = out_stdout_check();
	if (err) {
		pfc_errno(-err, "writing standard output");
		return 1;
	}
	return rc;
}
