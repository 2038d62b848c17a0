// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_results.c: libFuzzer target for the summary and the plots of a results folder
 * (pfclab run --report reads one from elsewhere too): the host folders hold what the hosts
 * left, copied back, and the repetition's status.json and the manifest what the runner
 * wrote; none is trusted. The input's first byte picks where the rest goes: bit 0 host a's
 * monitor record, review.json, review timeline, capture.json and traffic lines and host b's
 * review.json and traffic lines,
 * bit 1 status.json, bit 2 manifest.json; the files it does not pick are written valid.
 * Then summary_make and plots_make run over the folder. gnuplot is a stand-in that does
 * nothing (PATH), so only pfclab's reading and writing is exercised.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "lib/fuzz/fuzzdir.h"
#include "lib/util.h"
#include "scripts/run/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[256];

static const char status[] =
	"{\"finished\":true,\"valid\":true,\"reasons\":[],\"attempt\":0,\"t0_wall_ns\":1000000000,"
	"\"phases\":[{\"name\":\"x\",\"start_s\":0,\"end_s\":2.0,\"traffic_end_s\":2.0}]}\n";
static const char manifest[] =
	"{\"status\":\"complete\",\"hosts\":{\"a\":{\"clock\":{\"offset_start_ns\":5,\"offset_end_ns\":9,"
	"\"start_wall_ns\":1000000000,\"end_wall_ns\":4000000000}},\"b\":{}}}\n";

static int setup(void)
{
	static const char exp[] =
		"name: f\nhosts:\n  a: {netdev: va, rdma: r, addr: 10.0.0.1}\n  b: {netdev: vb, rdma: s, addr: 10.0.0.2}\n"
		"phases:\n  - {name: x, traffic: {from: b, to: a, bidirectional: true}}\n";
	static const char gp[] = "#!/bin/sh\nexit 0\n";
	char path[512];

	if (fuzz_dir(root, sizeof(root), "results"))
		return -1;
	snprintf(path, sizeof(path), "%s/points/p000/rep0/a/monitor", root);
	if (pfc_mkdir_p(path))
		return -1;
	snprintf(path, sizeof(path), "%s/points/p000/rep0/b", root);
	if (pfc_mkdir_p(path))
		return -1;
	snprintf(path, sizeof(path), "%s/bin", root);
	if (pfc_mkdir_p(path) || fuzz_put(root, "experiment.yaml", exp, sizeof(exp) - 1) ||
	    fuzz_put(root, "bin/gnuplot", gp, sizeof(gp) - 1))
		return -1;
	snprintf(path, sizeof(path), "%s/bin/gnuplot", root);
	if (chmod(path, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/bin", root);
	return setenv("PATH", path, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const files[] = {
		"points/p000/rep0/a/monitor/samples.jsonl", "points/p000/rep0/a/review.json",
		"points/p000/rep0/a/review-timeline.csv", "points/p000/rep0/a/capture.json",
		"points/p000/rep0/a/traffic-x-server-b.jsonl", "points/p000/rep0/b/review.json",
		"points/p000/rep0/b/traffic-x-client-a.jsonl",
	};
	static const char st_path[] = "points/p000/rep0/status.json";
	char err[1024];
	uint8_t pick;
	size_t i;

	if (!root[0] && setup())
		__builtin_trap();	/* no folder to work in */
	if (!size)
		return 0;
	pick = data[0];
	data++;
	size--;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (fuzz_put(root, files[i], pick & 1 ? data : (const uint8_t *)"", pick & 1 ? size : 0))
			return 0;
	if (fuzz_put(root, st_path, pick & 2 ? data : (const uint8_t *)status,
		     pick & 2 ? size : sizeof(status) - 1) ||
	    fuzz_put(root, "manifest.json", pick & 4 ? data : (const uint8_t *)manifest,
		     pick & 4 ? size : sizeof(manifest) - 1))
		return 0;
	if (summary_make(root, err, sizeof(err)))
		return 0;
	(void)plots_make(root, err, sizeof(err));
	return 0;
}
