// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor.c: 'pfclab doctor': runs the host checks and prints the report as text or JSON. */
#include <ctype.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lab/doctor/doctor.h"
#include "lib/opt.h"
#include "lib/out.h"
#include "lib/util.h"

static const char doctor_usage[] =
	"Usage: pfclab doctor [--json] [--section NAME] [--congestion-point DEV] [--netdev IF]\n"
	"\n"
	"Preflight report for this host: what stands between it and a GPUDirect RDMA\n"
	"congestion experiment. One line per item: OK, INFO, WARN or FAIL, with the fix.\n"
	"\n"
	"Sections: kernel (release, IOMMU), nvidia (driver, open or proprietary modules,\n"
	"nvidia-peermem, memory_peers), gpu (model, BAR1 vs video memory, Resizable BAR,\n"
	"dma-buf support), rdma (devices, port state, MTU, RoCEv2 GIDs), qos (PFC priorities,\n"
	"ECN), pci (link speed/width of GPUs and NICs, GPU-NIC path as nvidia-smi topo -m),\n"
	"cpoint (with --congestion-point DEV: DEV forwards, an ECN-marking qdisc on it).\n"
	"With gpu or pci, a \"gpus\" list: every GPU's index, link, BAR1 size, NUMA node\n"
	"and distance to each RDMA device (PIX, PXB, PHB, NODE, SYS as nvidia-smi topo -m;\n"
	"null where there is none); a GPU and a NIC SYS apart (across sockets) is a WARN.\n"
	"qos also gives each RDMA netdev's DCQCN parameters (MLNX_OFED sysfs or mlx5\n"
	"debugfs cc_params), buffer split (qos/buffer_size, prio2buffer, trust, dscp2prio)\n"
	"and PFC storm-prevention timeout; --netdev IF adds them as one \"nic\" object.\n"
	"PFCLAB_SYSFS_ROOT=DIR reads those files, and the PCI bus's GPUs, links and paths,\n"
	"under DIR instead of / (fixture trees: tests/fixtures/topo, tests/fixtures/nicqos).\n"
	"\n"
	"Options:\n";
static const char doctor_tail[] =
	"\n"
	"Exit status: 0 no FAIL item, 1 at least one FAIL item, 2 usage error.\n"
	"Missing tools, libraries or devices are reported as items, never as errors.\n";

static bool section_wanted(const char *const *want, int nwant, const char *s)
{
	int i;

	if (nwant == 0)
		return true;
	for (i = 0; i < nwant; i++)
		if (!strcmp(want[i], s))
			return true;
	return false;
}

static void count(const struct doctor_report *r, const char *const *want, int nwant,
		  unsigned int c[4])
{
	unsigned int i;

	memset(c, 0, 4 * sizeof(c[0]));
	for (i = 0; i < r->n; i++)
		if (section_wanted(want, nwant, r->f[i].section))
			c[r->f[i].level]++;
}

/* Findings in section order (kernel, nvidia, gpu, rdma, qos, pci), in check order within. */
static const char *const section_order[] = { "kernel", "nvidia", "gpu", "rdma", "qos", "pci",
					     "cpoint" };

struct sections {
	const char *want[8];
	int n;
};

static int parse_section(void *dst, const char *v, char *why, size_t len)
{
	struct sections *s = dst;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(section_order); i++)
		if (!strcmp(v, section_order[i]) && s->n < (int)ARRAY_SIZE(s->want)) {
			s->want[s->n++] = section_order[i];
			return 0;
		}
	snprintf(why, len, "not a section (kernel, nvidia, gpu, rdma, qos, pci, cpoint)");
	return -1;
}

/* --congestion-point: an interface name as the kernel takes one (pfc_ifname_valid).
 * Refused here rather than reported
 * as an interface missing from the host.
 */
static int parse_ifname(void *dst, const char *v, char *why, size_t len)
{
	if (!pfc_ifname_valid(v)) {
		snprintf(why, len, "expected an interface name (1..%d characters, none of '/', "
			 "':' or white space): the port towards the receiver, as 'ip link' "
			 "names it", IFNAMSIZ - 1);
		return -1;
	}
	*(const char **)dst = v;
	return 0;
}

/* One renderer for both forms: each field named once (lib/out.h). */
static int render(const struct doctor_report *r, const char *const *want, int nwant, bool json,
		  const char *netdev)
{
	unsigned int i, s, c[4];
	struct out o;

	out_begin(&o, json);
	out_str(&o, "host", "pfclab doctor: host %s", r->hostname);
	out_str(&o, "kernel", ", kernel %s\n", r->kernel);
	out_arr_open(&o, "items");
	for (s = 0; s < ARRAY_SIZE(section_order); s++) {
		bool header = false;

		if (!section_wanted(want, nwant, section_order[s]))
			continue;
		for (i = 0; i < r->n; i++) {
			const struct doctor_finding *f = &r->f[i];

			if (strcmp(f->section, section_order[s]))
				continue;
			if (!header)
				out_text(&o, "[%s]\n", f->section);
			header = true;
			out_obj_open(&o, NULL);
			out_str(&o, "section", NULL, f->section);
			out_str(&o, "item", NULL, f->item);
			out_str(&o, "level", "  %-4s", doctor_level_name(f->level));
			out_text(&o, "  %-26s", f->item);
			out_str(&o, "detail", " %s\n", f->detail);
			if (f->fix[0])
				out_str(&o, "fix", f->level != DOCTOR_OK ?
					"                                   fix: %s\n" : NULL, f->fix);
			else
				out_na(&o, "fix", NULL);
			out_obj_close(&o);
		}
	}
	out_obj_close(&o);
	if (section_wanted(want, nwant, "gpu") || section_wanted(want, nwant, "pci"))
		doctor_gpus_render(&o, r);
	if (netdev && section_wanted(want, nwant, "qos"))
		doctor_nicqos_render(&o, r->sysroot, netdev);
	count(r, want, nwant, c);
	out_obj_open(&o, "summary");
	out_uint(&o, "ok", "summary: %" PRIu64 " OK", c[DOCTOR_OK]);
	out_uint(&o, "info", ", %" PRIu64 " INFO", c[DOCTOR_INFO]);
	out_uint(&o, "warn", ", %" PRIu64 " WARN", c[DOCTOR_WARN]);
	out_uint(&o, "fail", ", %" PRIu64 " FAIL", c[DOCTOR_FAIL]);
	out_uint(&o, "dropped", r->dropped ? " (some items dropped)" : NULL, r->dropped);
	out_obj_close(&o);
	return json ? out_end_pretty(&o) : out_end(&o);
}

int doctor_main(int argc, char **argv)
{
	static struct doctor_report rep;
	struct sections sec = { .n = 0 };
	bool json = false;
	const char *cpoint = NULL, *netdev = NULL, *root = getenv("PFCLAB_SYSFS_ROOT");
	const struct opt opts[] = {
		{ "json", 'j', OPT_FLAG, .dst = &json, .help = "print the report as one JSON object" },
		{ "section", 's', OPT_FN, .dst = &sec, .fn = parse_section, .arg = "NAME",
		  .help = "only this section (repeatable)" },
		{ "congestion-point", 0, OPT_FN, .dst = &cpoint, .fn = parse_ifname, .arg = "DEV",
		  .help = "this host is the software congestion point; DEV its port towards the "
			  "receiver" },
		{ "netdev", 0, OPT_FN, .dst = &netdev, .fn = parse_ifname, .arg = "IF",
		  .help = "also give IF's DCQCN, buffer and PFC storm settings as one object" },
		OPT_END
	};
	const struct opt_cmd cmd = { "doctor", doctor_usage, doctor_tail, opts, .extra = NULL };
	const char *const *want = sec.want;
	unsigned int c[4];
	int first = opt_parse(&cmd, argc, argv), nwant;

	if (first < 0)
		return first == OPT_HELP ? 0 : 2;
	if (first < argc) {
		pfc_err("unexpected argument '%s'; see 'pfclab doctor --help'", argv[first]);
		return 2;
	}
	nwant = sec.n;
	if (!cpoint && nwant && section_wanted(want, nwant, "cpoint")) {
		/* without DEV the section has nothing to check: an empty report would read as
		 * a host that passed */
		pfc_err("--section cpoint checks the port given with --congestion-point DEV; "
			"add it (the port towards the receiver, as 'ip link' names it)");
		return 2;
	}
	memset(&rep, 0, sizeof(rep));
	rep.sysroot = root && *root ? root : NULL;
	doctor_check_kernel(&rep);
	doctor_check_nvidia(&rep);
	doctor_check_gpumem(&rep);
	doctor_check_rdma(&rep);
	doctor_check_pci(&rep);
	if (cpoint)
		doctor_check_cpoint(&rep, cpoint);
	if (netdev && !doctor_netdev_checked(&rep, netdev))
		doctor_check_nicqos(&rep, netdev);
	render(&rep, want, nwant, json, netdev);
	count(&rep, want, nwant, c);
	return c[DOCTOR_FAIL] ? 1 : 0;
}
