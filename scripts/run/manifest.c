// SPDX-License-Identifier: GPL-2.0-or-later
/* manifest.c: what each host was when the run started and ended (pfclab version, kernel,
 * NIC driver and firmware, PCIe links, PFC/trust/ECN state, the GPU used and its distance
 * to the NIC, from `pfclab doctor --json`),
 * the version check that must pass before anything runs, and manifest.json.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hw/gpu.h"
#include "lib/hw/pci.h"
#include "lib/hw/topo.h"
#include "lib/util.h"
#include "records.h"
#include "manifest.h"
#include "run.h"
#include "util.h"
#include "version.h" /* generated: $(BUILD)/gen */

#define PROBE_MS 30000

/* Run ARGV on host H; stdout as a string (NULL on failure), *code its exit code. */
static char *host_out(struct run_ctx *c, size_t h, const char *const *argv, int *code, char **errs)
{
	char *out = NULL;
	int rc;

	*code = -1;
	rc = remote_run(&c->hosts[h].t, argv, NULL, PROBE_MS, code, &out, errs, 1 << 20);
	if (rc) {
		free(out);
		*code = -1;
		return NULL;
	}
	return out;
}

static const char *first_line(char *s)
{
	char *nl;

	if (!s || !*s)
		return "no message";
	nl = strchr(s, '\n');
	if (nl)
		*nl = 0;
	return s;
}

int manifest_version_answer(struct run_ctx *c, size_t h, int code, char *out, char *errs,
			   char *err, size_t errlen)
{
	struct run_host *rh = &c->hosts[h];

	if (code == 255 && c->lops->kind == REMOTE_SSH) {
		snprintf(err, errlen, "host %s (ssh %s) is unreachable: %s; check that "
			 "'ssh -o BatchMode=yes %s true' works (keys, known_hosts%s)",
			 rh->h->name, rh->reach, first_line(errs), rh->reach,
			 c->o.ssh_config ? ", the --ssh-config file" : ", ~/.ssh/config");
		rh->lost = true;
		return -EHOSTUNREACH;
	}
	if (code == 127 || code < 0) {
		snprintf(err, errlen, "host %s%s%s: cannot run '%s version' (%s); install pfclab "
			 "there or set hosts.%s.pfclab to its path", rh->h->name,
			 rh->reach[0] ? " on " : "", rh->reach, rh->pfclab, first_line(errs),
			 rh->h->name);
		return -ENOENT;
	}
	if (code != 0 || !out || strncmp(out, "pfclab ", 7)) {
		snprintf(err, errlen, "host %s: '%s version' failed (exit %d): %s", rh->h->name,
			 rh->pfclab, code, first_line(errs));
		return -EIO;
	}
	snprintf(rh->version, sizeof(rh->version), "%s", first_line(out) + 7);
	if (strcmp(rh->version, PFCLAB_VERSION)) {
		snprintf(err, errlen, "host %s runs pfclab %s, this host runs pfclab %s; "
			 "every host must run the same version: install this one there "
			 "(make install) or run from the matching checkout", rh->h->name,
			 rh->version, PFCLAB_VERSION);
		return -EPROTO;
	}
	return 0;
}

/* One host's `pfclab version`: 0, or a negative errno with the reason in ERR. */
static int version_one(struct run_ctx *c, size_t h, char *err, size_t errlen)
{
	struct run_host *rh = &c->hosts[h];
	const char *argv[] = { rh->pfclab, "version", NULL };
	char *errs = NULL, *out;
	int code, rc;

	out = host_out(c, h, argv, &code, &errs);
	rc = manifest_version_answer(c, h, code, out, errs, err, errlen);
	free(out);
	free(errs);
	return rc;
}

/* The hosts are asked at once, a thread each (a remote command costs a connection each);
 * the first host in the experiment's order that fails is the one reported. */
struct version_job {
	struct run_ctx *c;
	size_t h;
	int rc;
	char err[1024];
	pthread_t thr;
	bool started;
};

static void *version_thread(void *arg)
{
	struct version_job *j = arg;

	j->rc = version_one(j->c, j->h, j->err, sizeof(j->err));
	return NULL;
}

int manifest_check_versions(struct run_ctx *c, char *err, size_t errlen)
{
	struct version_job *jobs = calloc(c->nhosts, sizeof(*jobs));
	size_t h;
	int rc = 0;

	if (!jobs) {	/* one after another */
		for (h = 0; h < c->nhosts && !rc; h++)
			rc = version_one(c, h, err, errlen);
		return rc;
	}
	for (h = 0; h < c->nhosts; h++) {
		jobs[h] = (struct version_job){ .c = c, .h = h };
		jobs[h].started = !pthread_create(&jobs[h].thr, NULL, version_thread, &jobs[h]);
	}
	for (h = 0; h < c->nhosts; h++) {
		if (jobs[h].started)
			pthread_join(jobs[h].thr, NULL);
		else
			version_thread(&jobs[h]);
		if (jobs[h].rc && !rc) {
			rc = jobs[h].rc;
			snprintf(err, errlen, "%s", jobs[h].err);
		}
	}
	free(jobs);
	return rc;
}

/* The host's text made UTF-8 in place: every byte that starts no whole sequence (a stray
 * byte, or a character cut short by a truncation) becomes '?'. manifest.json must stay
 * JSON, which is UTF-8 (RFC 8259, section 8.1), whatever a host prints. */
static char *utf8_clean(char *s)
{
	unsigned char *p = (unsigned char *)s, *end = p + strlen(s);
	size_t n;

	while (*p) {
		n = rec_utf8_len(p, (size_t)(end - p));
		if (!n) {
			*p = '?';
			n = 1;
		}
		p += n;
	}
	return s;
}

/* ethtool -i NETDEV output: driver, version, firmware-version, bus-info */
static json_object *driver_info(char *text)
{
	json_object *o;
	char *line, *save = NULL;

	if (!text || !*text)
		return NULL;
	o = json_object_new_object();
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = 0;
		colon++;
		while (*colon == ' ')
			colon++;
		if (!strcmp(line, "driver") || !strcmp(line, "version") ||
		    !strcmp(line, "firmware-version") || !strcmp(line, "bus-info"))
			json_object_object_add(o, line, *colon ? json_object_new_string(utf8_clean(colon)) : NULL);
	}
	return o;
}

/* The section NAME: the lines after the line "@@NAME", up to the next line that starts
 * with "@@" (a marker; it may follow at once: an empty section). Cut out of OUT in place
 * (NUL-terminated), or NULL without that marker. */
static char *section(char *out, const char *name)
{
	char mark[64], *p = out, *end;

	snprintf(mark, sizeof(mark), "@@%s\n", name);
	while ((p = strstr(p, mark)) && p != out && p[-1] != '\n')
		p++;	/* not at the start of a line */
	if (!p)
		return NULL;
	p += strlen(mark);
	if (!strncmp(p, "@@", 2)) {
		*p = 0;
		return p;
	}
	end = strstr(p, "\n@@");
	if (end)
		end[1] = 0; /* keeps the newline, ends before the next marker */
	return p;
}

static json_object *line_or_null(char *s)
{
	char *nl;

	if (!s || !*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl)
		*nl = 0;
	return *s ? json_object_new_string(utf8_clean(s)) : NULL;
}

/* The NIC's congestion settings the doctor read (its "nic" object, lib/hw/nicqos.h), in
 * the fields a virtual lab's emulated link fills too: dcqcn {source "mlnx_ofed" |
 * "debugfs" | "pfclab_link" (pfclab link --dcqcn) | null, params {name: integer | null},
 * enable {rp, np: 8 x 0/1/null} | null}, buffer {buffer_size, prio2buffer, trust, dscp2prio: text | null}, pfc_storm_timeout_ms
 * (integer | null). Only values of the right type are kept; all null where the doctor
 * gave none (an older pfclab, no answer). */
static void nic_settings(json_object *o, json_object *nic)
{
	static const char *const bufk[] = { "buffer_size", "prio2buffer", "trust", "dscp2prio" };
	json_object *dc = json_object_new_object(), *params = json_object_new_object();
	json_object *buf = json_object_new_object(), *x, *en, *src;
	const char *sv;
	size_t i;
	int k;

	src = rec_json_member(nic, "dcqcn", json_type_object);
	sv = rec_json_str(rec_json_member(src, "source", json_type_string));
	json_object_object_add(dc, "source", !strcmp(sv, "mlnx_ofed") || !strcmp(sv, "debugfs") ||
			       !strcmp(sv, "pfclab_link") ?
			       json_object_new_string(sv) : NULL);
	if ((x = rec_json_member(src, "params", json_type_object))) {
		json_object_object_foreach(x, name, v) {
			char key[80];

			snprintf(key, sizeof(key), "%s", name);
			json_object_object_add(params, utf8_clean(key),
					       json_object_is_type(v, json_type_int) ?
					       json_object_new_int64(json_object_get_int64(v)) : NULL);
		}
	}
	json_object_object_add(dc, "params", params);
	if ((x = rec_json_member(src, "enable", json_type_object))) {
		static const char *const pt[] = { "rp", "np" };

		en = json_object_new_object();
		for (k = 0; k < 2; k++) {
			json_object *a = rec_json_member(x, pt[k], json_type_array), *b;

			b = json_object_new_array();
			for (i = 0; i < 8; i++) {
				json_object *v = a ? json_object_array_get_idx(a, i) : NULL;

				json_object_array_add(b, json_object_is_type(v, json_type_int) ?
						      json_object_new_int(json_object_get_int(v)) : NULL);
			}
			json_object_object_add(en, pt[k], b);
		}
		json_object_object_add(dc, "enable", en);
	} else {
		json_object_object_add(dc, "enable", NULL);
	}
	json_object_object_add(o, "dcqcn", dc);
	x = rec_json_member(nic, "buffer", json_type_object);
	for (i = 0; i < sizeof(bufk) / sizeof(bufk[0]); i++) {
		json_object *v = rec_json_member(x, bufk[i], json_type_string);
		char t[1100];

		snprintf(t, sizeof(t), "%s", rec_json_str(v));
		json_object_object_add(buf, bufk[i], v ? json_object_new_string(utf8_clean(t)) : NULL);
	}
	json_object_object_add(o, "buffer", buf);
	x = rec_json_member(nic, "pfc_storm_timeout_ms", json_type_int);
	json_object_object_add(o, "pfc_storm_timeout_ms",
			       x ? json_object_new_int64(json_object_get_int64(x)) : NULL);
	x = rec_json_member(nic, "pfc_storm_timeout_auto", json_type_boolean);
	json_object_object_add(o, "pfc_storm_timeout_auto",
			       x ? json_object_new_boolean(json_object_get_boolean(x)) : NULL);
}

/* The GPU host's experiment names (GIVEN: an index or a PCI address, as traffic and
 * monitor --gpu take it) as the doctor found it there: {given, bdf, rdma, distance}, bdf
 * from the doctor's "gpus" list (matched by index, or by address in its long form),
 * distance its entry for the host's RDMA device (PIX .. SYS as nvidia-smi topo -m names
 * them); each null where the doctor did not say (an older pfclab, no such GPU there, no
 * PCI RDMA device). NULL without a GPU. */
static json_object *gpu_used(json_object *doctor, const char *given, const char *rdma)
{
	json_object *o, *gpus, *g = NULL, *v;
	char canon[HW_BDF_LEN] = "";
	uint32_t idx = 0;
	bool by_index;
	size_t i;

	if (!given)
		return NULL;
	by_index = !parse_u32(given, 0, HW_GPU_INDEX_MAX, &idx);
	if (!by_index && hw_pci_addr_canon(given, canon, sizeof(canon)))
		canon[0] = '\0';
	gpus = rec_json_member(doctor, "gpus", json_type_array);
	for (i = 0; gpus && i < json_object_array_length(gpus) && !g; i++) {
		json_object *e = json_object_array_get_idx(gpus, i);

		if (by_index ? (v = rec_json_member(e, "index", json_type_int)) &&
			       json_object_get_int64(v) == (int64_t)idx :
			       canon[0] && !strcmp(rec_json_str(rec_json_member(e, "bdf", json_type_string)),
						   canon))
			g = e;
	}
	o = json_object_new_object();
	json_object_object_add(o, "given", json_object_new_string(given));
	v = rec_json_member(g, "bdf", json_type_string);
	json_object_object_add(o, "bdf", v && !hw_pci_addr_canon(rec_json_str(v), canon, sizeof(canon)) ?
			       json_object_new_string(canon) : NULL);
	json_object_object_add(o, "rdma", rdma ? json_object_new_string(rdma) : NULL);
	v = rdma ? rec_json_member(rec_json_member(g, "rdma", json_type_object), rdma,
				   json_type_string) : NULL;
	json_object_object_add(o, "distance", v && hw_topo_parse(rec_json_str(v)) >= 0 ?
			       json_object_new_string(rec_json_str(v)) : NULL);
	return o;
}

void manifest_parse_probe(json_object *o, char *out, const char *gpu, const char *rdma)
{
	json_object *d, *items, *sel;
	char *doc;
	size_t i;

	/* cut from the end: each section() ends the one before it */
	json_object_object_add(o, "hostname", line_or_null(section(out, "hostname")));
	json_object_object_add(o, "kernel", line_or_null(section(out, "kernel")));
	json_object_object_add(o, "driver", driver_info(section(out, "driver")));
	json_object_object_add(o, "carrier_changes", line_or_null(section(out, "carrier")));
	doc = section(out, "doctor");
	d = doc ? json_tokener_parse(doc) : NULL;
	/* PCIe links (section pci), PFC/trust/ECN (section qos), RDMA ports, GPU and driver:
	 * the doctor's items as it reported them; n/a where it could not tell */
	sel = json_object_new_object();
	if ((items = rec_json_member(d, "items", json_type_array))) {
		for (i = 0; i < json_object_array_length(items); i++) {
			json_object *it = json_object_array_get_idx(items, i), *sec, *arr, *nm, *det, *lv;
			char key[200];

			/* the host's words: strings, or the item is left out */
			if (!json_object_object_get_ex(it, "section", &sec) || !*rec_json_str(sec) ||
			    !json_object_object_get_ex(it, "item", &nm) || !*rec_json_str(nm) ||
			    !json_object_object_get_ex(it, "detail", &det))
				continue;
			json_object_object_get_ex(it, "level", &lv);
			snprintf(key, sizeof(key), "%s", rec_json_str(sec));
			arr = run_json_child(sel, utf8_clean(key));
			snprintf(key, sizeof(key), "%s", rec_json_str(nm));
			{
				char v[1200];

				snprintf(v, sizeof(v), "%s: %s", *rec_json_str(lv) ? rec_json_str(lv) : "?",
					 rec_json_str(det));
				json_object_object_add(arr, utf8_clean(key), json_object_new_string(utf8_clean(v)));
			}
		}
		json_object_object_add(o, "doctor", sel);
	} else {
		json_object_put(sel);
		json_object_object_add(o, "doctor", json_object_new_string("n/a: pfclab doctor --json gave no report"));
	}
	nic_settings(o, rec_json_member(d, "nic", json_type_object));
	json_object_object_add(o, "gpu", gpu_used(d, gpu, rdma));
	json_object_put(d);
}

json_object *manifest_probe(struct run_ctx *c, size_t h)
{
	/* one command per host: every answer in its own section */
	static const char script[] =
		"echo @@doctor; \"$2\" doctor --json --netdev \"$1\" 2>/dev/null; echo; "
		"echo @@carrier; cat \"/sys/class/net/$1/carrier_changes\" 2>/dev/null; "
		"echo @@driver; ethtool -i \"$1\" 2>/dev/null; "
		"echo @@kernel; uname -r; echo @@hostname; uname -n";
	struct run_host *rh = &c->hosts[h];
	const char *argv[] = { "sh", "-c", script, "sh", rh->h->netdev, rh->pfclab, NULL };
	json_object *o = json_object_new_object();
	char *out;
	int code;

	out = host_out(c, h, argv, &code, NULL);
	json_object_object_add(o, "pfclab_version", rh->version[0] ? json_object_new_string(rh->version) : NULL);
	if (!out) {
		json_object_object_add(o, "error", json_object_new_string("the host did not answer"));
		return o;
	}
	json_object_object_add(o, "netdev", json_object_new_string(rh->h->netdev));
	json_object_object_add(o, "rdma", rh->h->rdma ? json_object_new_string(rh->h->rdma) : NULL);
	manifest_parse_probe(o, out, rh->h->gpu, rh->h->rdma);
	free(out);
	return o;
}
