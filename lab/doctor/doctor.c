// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor.c: 'pfclab doctor': runs the host checks and prints the report as text or JSON. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "lab/doctor/doctor.h"
#include "lib/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: pfclab doctor [--json] [--section NAME]\n"
		"\n"
		"Preflight report for this host: what stands between it and a GPUDirect RDMA\n"
		"congestion experiment. One line per item: OK, INFO, WARN or FAIL, with the fix.\n"
		"\n"
		"Sections: kernel (release, IOMMU), nvidia (driver, open or proprietary modules,\n"
		"nvidia-peermem, memory_peers), gpu (model, BAR1 vs video memory, Resizable BAR,\n"
		"dma-buf support), rdma (devices, port state, MTU, RoCEv2 GIDs), qos (PFC priorities,\n"
		"ECN), pci (link speed/width of GPUs and NICs, GPU-NIC path as nvidia-smi topo -m).\n"
		"\n"
		"Options:\n"
		"  -j, --json           print the report as one JSON object\n"
		"  -s, --section NAME   only this section (repeatable)\n"
		"  -h, --help           this text\n"
		"\n"
		"Exit status: 0 no FAIL item, 1 at least one FAIL item, 2 usage error.\n"
		"Missing tools, libraries or devices are reported as items, never as errors.\n");
}

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
static const char *const section_order[] = { "kernel", "nvidia", "gpu", "rdma", "qos", "pci" };

static void print_text(const struct doctor_report *r, const char *const *want, int nwant)
{
	unsigned int i, s, c[4];

	printf("pfclab doctor: host %s, kernel %s\n", r->hostname, r->kernel);
	for (s = 0; s < ARRAY_SIZE(section_order); s++) {
		bool header = false;

		if (!section_wanted(want, nwant, section_order[s]))
			continue;
		for (i = 0; i < r->n; i++) {
			const struct doctor_finding *f = &r->f[i];

			if (strcmp(f->section, section_order[s]))
				continue;
			if (!header) {
				printf("[%s]\n", f->section);
				header = true;
			}
			printf("  %-4s  %-26s %s\n", doctor_level_name(f->level), f->item, f->detail);
			if (f->fix[0] && f->level != DOCTOR_OK)
				printf("        %-26s fix: %s\n", "", f->fix);
		}
	}
	count(r, want, nwant, c);
	printf("summary: %u OK, %u INFO, %u WARN, %u FAIL%s\n", c[DOCTOR_OK], c[DOCTOR_INFO],
	       c[DOCTOR_WARN], c[DOCTOR_FAIL], r->dropped ? " (some items dropped)" : "");
}

static int print_json(const struct doctor_report *r, const char *const *want, int nwant)
{
	struct json_object *root = json_object_new_object(), *items = json_object_new_array();
	struct json_object *sum = json_object_new_object(), *o;
	unsigned int i, c[4];
	const char *s;

	json_object_object_add(root, "host", json_object_new_string(r->hostname));
	json_object_object_add(root, "kernel", json_object_new_string(r->kernel));
	for (i = 0; i < r->n; i++) {
		const struct doctor_finding *f = &r->f[i];

		if (!section_wanted(want, nwant, f->section))
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "section", json_object_new_string(f->section));
		json_object_object_add(o, "item", json_object_new_string(f->item));
		json_object_object_add(o, "level", json_object_new_string(doctor_level_name(f->level)));
		json_object_object_add(o, "detail", json_object_new_string(f->detail));
		json_object_object_add(o, "fix", f->fix[0] ? json_object_new_string(f->fix) : NULL);
		json_object_array_add(items, o);
	}
	json_object_object_add(root, "items", items);
	count(r, want, nwant, c);
	json_object_object_add(sum, "ok", json_object_new_int((int)c[DOCTOR_OK]));
	json_object_object_add(sum, "info", json_object_new_int((int)c[DOCTOR_INFO]));
	json_object_object_add(sum, "warn", json_object_new_int((int)c[DOCTOR_WARN]));
	json_object_object_add(sum, "fail", json_object_new_int((int)c[DOCTOR_FAIL]));
	json_object_object_add(sum, "dropped", json_object_new_int((int)r->dropped));
	json_object_object_add(root, "summary", sum);
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	printf("%s\n", s);
	json_object_put(root);
	return 0;
}

int doctor_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "section", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct doctor_report rep;
	const char *want[8];
	bool json = false, known;
	unsigned int i, c[4];
	int opt, nwant = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "js:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 's':
			known = false;
			for (i = 0; i < ARRAY_SIZE(section_order); i++)
				known |= !strcmp(optarg, section_order[i]);
			if (!known || nwant >= (int)ARRAY_SIZE(want)) {
				pfc_err("--section %s: not a section (kernel, nvidia, gpu, rdma, qos, pci)",
					optarg);
				return 2;
			}
			want[nwant++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		pfc_err("unexpected argument '%s'; see 'pfclab doctor --help'", argv[optind]);
		return 2;
	}
	memset(&rep, 0, sizeof(rep));
	doctor_check_kernel(&rep);
	doctor_check_nvidia(&rep);
	doctor_check_gpumem(&rep);
	doctor_check_rdma(&rep);
	doctor_check_pci(&rep);
	if (json)
		print_json(&rep, want, nwant);
	else
		print_text(&rep, want, nwant);
	count(&rep, want, nwant, c);
	return c[DOCTOR_FAIL] ? 1 : 0;
}
