// SPDX-License-Identifier: GPL-2.0-or-later
/* exp.c: experiment files read into the model of exp.h and checked, with file:line:key errors. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpoint.h"
#include "exp.h"
#include "expval.h"
#include "lib/hw/gpu.h"
#include "lib/hw/pci.h"
#include "lib/opt.h"
#include "lib/util.h"
#include "monitor/frames/capture_engine.h"
#include "monitor/frames/review.h"
#include "monitor/monitor.h"
#include "traffic/opts.h"

/* pfclab monitor --interval's range (MON_INTERVAL_MIN_NS..MAX_NS), in words. */
#define MON_INTERVAL_WANT "a duration from 100us to 1h (e.g. 500us, 10ms, 30s)"
/* How long a phase may last. */
#define PHASE_MAX_DAYS 7ull
#define PHASE_MAX_NS (PHASE_MAX_DAYS * 24 * 3600ull * 1000000000ull)

struct pctx {
	const struct exp *e;
	const struct exp_point *pt; /* sweep values while resolving phases, else NULL */
	char *err;
	size_t errlen;
	const char *var_note; /* set when the value came from a sweep variable */
};

static int perr(struct pctx *c, int line, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int perr(struct pctx *c, int line, const char *key, const char *fmt, ...)
{
	char why[EXP_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s:%d: %s: %s%s", c->e->file, line, key, why,
		 c->var_note ? c->var_note : "");
	return -EINVAL;
}

/* VAL is refused by the pfclab subcommand it is passed to (CMD: "traffic -s", "monitor
 * --gpu"), for WHY, the subcommand's own reason. It says "expected ..."; here, as in every
 * message of this file, what to do is "give ...".
 */
static int sub_err(struct pctx *c, int line, const char *key, const char *val, const char *cmd,
		   const char *why)
{
	bool expected = !strncmp(why, "expected ", 9);

	return perr(c, line, key, "'%s' is not valid for pfclab %s; %s%s", val, cmd,
		    expected ? "give " : "", expected ? why + 9 : why);
}

const char *exp_launcher_name(enum exp_launcher l)
{
	return l == EXP_LOCAL ? "local" : l == EXP_SSH ? "ssh" : "slurm";
}

static int want_type(struct pctx *c, const struct ynode *n, enum ynode_type t, const char *key)
{
	if (n->type == t)
		return 0;
	return perr(c, n->line, key, "expected %s, found %s", ytree_type_name(t),
		    ytree_type_name(n->type));
}

/* Every key of map M must be in ALLOWED (NULL-terminated). */
static int known_keys(struct pctx *c, const struct ynode *m, const char *key,
		      const char *const *allowed)
{
	size_t i, j;
	char list[400];

	for (i = 0; i < m->n; i++) {
		for (j = 0; allowed[j]; j++)
			if (!strcmp(m->keys[i], allowed[j]))
				break;
		if (allowed[j])
			continue;
		list[0] = 0;
		for (j = 0; allowed[j]; j++) {
			if (j)
				strncat(list, ", ", sizeof(list) - strlen(list) - 1);
			strncat(list, allowed[j], sizeof(list) - strlen(list) - 1);
		}
		return perr(c, m->key_lines[i], key, "unknown key '%.60s'; known keys: %s",
			    m->keys[i], list);
	}
	return 0;
}

/* M must be a map whose keys are all in ALLOWED (NULL-terminated). */
static int want_map(struct pctx *c, const struct ynode *m, const char *key,
		    const char *const *allowed)
{
	int rc = want_type(c, m, YN_MAP, key);

	return rc ? rc : known_keys(c, m, key, allowed);
}

/* ${name} replaced by the point's value of sweep variable NAME (expval.c). */
static int subst(struct pctx *c, const struct ynode *n, const char *key, char **out)
{
	const char *s = n->str, *at = NULL, *end;
	int rc, var;

	c->var_note = NULL;
	rc = exp_subst(c->e, c->pt, s, out, &var, &at);
	if (rc == -EINVAL) {
		size_t kl = strlen(key);
		/* in a shell command ${name} is most likely the shell's own */
		bool sh = kl >= 4 && !strcmp(key + kl - 4, ".run");
		int nl;

		end = strchr(at, '}');
		if (!end)
			return perr(c, n->line, key, "'%s': '${' without '}'", s);
		nl = (int)(end - at - 2);
		return perr(c, n->line, key, "'%s': no sweep variable '%.*s' (sweep: names them)%s%.*s%s",
			    s, nl, at + 2, sh ? "; a shell variable is written $" : "",
			    sh ? nl : 0, at + 2, sh ? " here" : "");
	}
	if (rc || var < 0)
		return rc;
	{
		static char note[160];

		snprintf(note, sizeof(note), " (sweep %s = '%.60s')", c->e->sweep[var].name,
			 c->pt ? c->pt->values[var] : c->e->sweep[var].values[0]);
		c->var_note = note;
	}
	return 0;
}

static int get_str(struct pctx *c, const struct ynode *n, const char *key, char **out)
{
	int rc = want_type(c, n, YN_SCALAR, key);

	if (rc)
		return rc;
	rc = subst(c, n, key, out);
	if (rc)
		return rc;
	if (!**out) {
		free(*out);
		*out = NULL;
		return perr(c, n->line, key, "empty value");
	}
	return 0;
}

static int parse_bool(const char *s, bool *b)
{
	if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on")) {
		*b = true;
		return 0;
	}
	if (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off")) {
		*b = false;
		return 0;
	}
	return -EINVAL;
}

static int get_bool(struct pctx *c, const struct ynode *n, const char *key, bool *b)
{
	char *s;
	int rc = get_str(c, n, key, &s);

	if (rc)
		return rc;
	if (parse_bool(s, b))
		rc = perr(c, n->line, key, "'%s' is not true or false", s);
	free(s);
	return rc;
}

static int get_uint(struct pctx *c, const struct ynode *n, const char *key, uint64_t min,
		    uint64_t max, uint64_t *v)
{
	char *s;
	int rc = get_str(c, n, key, &s);

	if (rc)
		return rc;
	if (parse_u64(s, min, max, v))
		rc = perr(c, n->line, key, "'%s' is not a whole number in %llu..%llu", s,
			  (unsigned long long)min, (unsigned long long)max);
	free(s);
	return rc;
}

static int get_dur(struct pctx *c, const struct ynode *n, const char *key, uint64_t *ns)
{
	char *s;
	int rc = get_str(c, n, key, &s);

	if (rc)
		return rc;
	rc = parse_duration_ns(s, 0, PHASE_MAX_NS, ns);
	if (rc == -ERANGE)
		rc = perr(c, n->line, key, "'%s' is longer than %llu days", s,
			  (unsigned long long)PHASE_MAX_DAYS);
	else if (rc == -EDOM)
		rc = perr(c, n->line, key, "'%s' is not a whole number of nanoseconds", s);
	else if (rc)
		rc = perr(c, n->line, key, "'%s' is not a duration; give e.g. 500ms, 10s or 2m", s);
	free(s);
	return rc;
}

/* A scalar or a list of scalars into a string array. */
static int get_list(struct pctx *c, const struct ynode *n, const char *key, char ***out,
		    size_t *nout)
{
	char k[200], **v;
	size_t i;
	int rc;

	*out = NULL;
	*nout = 0;
	if (n->type == YN_SCALAR) {
		v = calloc(2, sizeof(*v));
		if (!v)
			return -ENOMEM;
		rc = get_str(c, n, key, &v[0]);
		if (rc) {
			free(v);
			return rc;
		}
		*out = v;
		*nout = 1;
		return 0;
	}
	rc = want_type(c, n, YN_SEQ, key);
	if (rc)
		return rc;
	v = calloc(n->n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n->n; i++) {
		snprintf(k, sizeof(k), "%.150s[%zu]", key, i);
		rc = get_str(c, n->v[i], k, &v[i]);
		if (rc) {
			while (i--)
				free(v[i]);
			free(v);
			return rc;
		}
	}
	*out = v;
	*nout = n->n;
	return 0;
}

static void strv_free(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int strv_add(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

static int get_host(struct pctx *c, const struct ynode *n, const char *key, size_t *h)
{
	char *s;
	int rc = get_str(c, n, key, &s), i;

	if (rc)
		return rc;
	i = exp_host_find(c->e, s);
	if (i < 0)
		rc = perr(c, n->line, key, "no host '%s' under hosts:", s);
	else
		*h = (size_t)i;
	free(s);
	return rc;
}

/* ---- hosts: each value as the subcommand it is passed to takes it ----------------- */

static int check_ifname(struct pctx *c, int line, const char *key, const char *s, const char *cmd)
{
	if (pfc_ifname_valid(s))
		return 0;
	return perr(c, line, key, "'%s' is not an interface name for pfclab %s (1..15 characters, "
		    "none of '/', ':' or white space); give the interface as 'ip link' names it", s, cmd);
}

/* What traffic's client connects to (getaddrinfo, either family): an IPv4 address as a
 * dotted quad, an IPv6 address (a zone after '%' allowed), or a host name of labels between
 * dots. NULL when it is one of these, else what it is not. Digits and dots alone are a
 * dotted quad or nothing: getaddrinfo would take "10.1" for 10.0.0.1 and look "999.1.1.1"
 * up as a name.
 */
static const char *addr_problem(const char *s)
{
	unsigned char bin[16];
	const char *p, *label;

	if (strspn(s, "0123456789.") == strlen(s))
		return inet_pton(AF_INET, s, bin) == 1 ? NULL :
		       "not an IPv4 address (four numbers 0..255 joined by dots)";
	if (strchr(s, ':')) {
		char a[INET6_ADDRSTRLEN + 16], *zone;

		if (strlen(s) >= sizeof(a))
			return "not an IPv6 address";
		snprintf(a, sizeof(a), "%s", s);
		zone = strchr(a, '%');
		if (zone)
			*zone++ = 0;
		if (inet_pton(AF_INET6, a, bin) != 1 || (zone && !pfc_ifname_valid(zone)))
			return "not an IPv6 address";
		return NULL;
	}
	if (strlen(s) > 253)
		return "too long for a host name (253 characters at most)";
	for (label = p = s;; p++) {
		if (*p && *p != '.') {
			if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
				break;
			continue;
		}
		/* a label ends: 1..63 characters, no '-' at either end; "name." is a full name */
		if (p == label ? !(*p == 0 && p > s && p[-1] == '.') :
		    p - label > 63 || *label == '-' || p[-1] == '-')
			break;
		if (!*p)
			return NULL;
		label = p + 1;
	}
	return "neither an address nor a host name (labels of 1..63 letters, digits, '-' or '_' "
	       "between dots)";
}

/* An RDMA device as monitor -d (lib/opt's parser) and traffic -d both take it: a name of
 * up to 63 characters, without monitor's ":PORT", which traffic -d does not take.
 */
static int check_rdma(struct pctx *c, int line, const char *key, const char *s)
{
	char dev[64], why[128];
	uint32_t port = 1;

	if (strchr(s, ':'))
		return perr(c, line, key, "'%s': pfclab traffic -d takes a device without :PORT "
			    "(traffic and monitor both use port 1); give the device's name alone", s);
	if (opt_rdma_dev(s, dev, sizeof(dev), &port, why, sizeof(why)) || strchr(s, '/') ||
	    strpbrk(s, " \t\n\r\v\f"))
		return perr(c, line, key, "'%s' is not an RDMA device name (1..63 characters, no '/' "
			    "or white space); give the device as 'rdma link' names it (mlx5_0, rxe0)", s);
	return 0;
}

/* ssh's destination is an argument of ssh itself (before "--"): a leading '-' would make
 * it an option. A Slurm node goes to srun --nodelist, which would take a list.
 */
static int check_reach(struct pctx *c, int line, const char *key, const char *s, bool node)
{
	size_t i;
	bool bad = s[0] == '-' || (node && strpbrk(s, ",["));

	for (i = 0; s[i] && !bad; i++)
		bad = isspace((unsigned char)s[i]) || (unsigned char)s[i] < 0x20;
	if (!bad)
		return 0;
	if (node)
		return perr(c, line, key, "'%s' is not one Slurm node name (no '-' first, no ',', '[' "
			    "or white space); give one node of the allocation, as 'scontrol show "
			    "hostnames' lists them", s);
	return perr(c, line, key, "'%s' is not an ssh destination (no '-' first, no white space); "
		    "give a host, user@host or a Host of the ssh config", s);
}

/* The capture interfaces as pfclab capture -i takes them: names, at most its number, none
 * twice. */
static int check_capture_ifs(struct pctx *c, int line, const char *key, const struct exp_host *h)
{
	size_t i, j;
	int rc;

	if (h->ncapture_ifs > FRAMES_CAP_MAX_IFS)
		return perr(c, line, key, "%zu interfaces; pfclab capture takes at most %d",
			    h->ncapture_ifs, FRAMES_CAP_MAX_IFS);
	for (i = 0; i < h->ncapture_ifs; i++) {
		rc = check_ifname(c, line, key, h->capture_ifs[i], "capture -i");
		if (rc)
			return rc;
		for (j = 0; j < i; j++)
			if (!strcmp(h->capture_ifs[i], h->capture_ifs[j]))
				return perr(c, line, key, "'%s' given twice; every frame would be "
					    "counted and written twice", h->capture_ifs[i]);
	}
	return 0;
}

/* "hosts.NAME.KEY" in k */
static const char *hkey(char *k, size_t len, const struct exp_host *h, const char *key)
{
	snprintf(k, len, "hosts.%.100s.%s", h->name, key);
	return k;
}

/* Host values once every host is read: each as the subcommand it goes to checks it. */
static int check_host(struct pctx *c, const struct exp_host *h, const struct ynode *m)
{
	const struct ynode *v;
	struct traffic_opts to;
	char k[200], why[EXP_ERR_LEN];
	const char *why_not;
	int rc = 0;

	if (h->ssh && (v = ytree_get(m, "ssh")))
		rc = check_reach(c, v->line, hkey(k, sizeof(k), h, "ssh"), h->ssh, false);
	if (!rc && h->node && (v = ytree_get(m, "node")))
		rc = check_reach(c, v->line, hkey(k, sizeof(k), h, "node"), h->node, true);
	if (!rc && h->addr && (v = ytree_get(m, "addr")) && (why_not = addr_problem(h->addr)))
		rc = perr(c, v->line, hkey(k, sizeof(k), h, "addr"), "'%s' is %s; give the address "
			  "traffic clients connect to: an IPv4 or IPv6 address, or a host name",
			  h->addr, why_not);
	if (!rc && h->rdma && (v = ytree_get(m, "rdma")))
		rc = check_rdma(c, v->line, hkey(k, sizeof(k), h, "rdma"), h->rdma);
	if (!rc && h->netdev && (v = ytree_get(m, "netdev")))
		rc = check_ifname(c, v->line, hkey(k, sizeof(k), h, "netdev"), h->netdev,
				  "monitor -i");
	if (!rc && h->gid_index && (v = ytree_get(m, "gid_index")) &&
	    traffic_opts_check("-x", h->gid_index, &to, why, sizeof(why)))
		rc = sub_err(c, v->line, hkey(k, sizeof(k), h, "gid_index"), h->gid_index,
			     "traffic -x", why);
	if (!rc && h->ncapture_ifs && (v = ytree_get(m, "capture")))
		rc = check_capture_ifs(c, v->line, hkey(k, sizeof(k), h, "capture"), h);
	return rc;
}

/* hosts.X.gpu: pfclab monitor --gpu and traffic --gpu both take an index as nvidia-smi -L
 * numbers them or a PCI address, long or short (lib/hw/gpu), found on the host itself.
 */
static int check_gpus(struct pctx *c, const struct exp *e)
{
	const struct ynode *hs = ytree_get(e->root, "hosts");
	char k[200], why[160];
	const char *g;
	size_t i;

	for (i = 0; i < e->nhosts; i++) {
		const struct exp_host *h = &e->hosts[i];
		const struct ynode *v = h->gpu ? ytree_get(ytree_get(hs, h->name), "gpu") : NULL;

		if (!v || !hw_gpu_opt(&g, h->gpu, why, sizeof(why)))
			continue;
		hkey(k, sizeof(k), h, "gpu");
		return perr(c, v->line, k, "'%s' is not valid for pfclab monitor --gpu and traffic "
			    "--gpu; give a GPU index 0..%d (see nvidia-smi -L) or a PCI address such "
			    "as 0000:17:00.0 or 17:00.0", h->gpu, HW_GPU_INDEX_MAX);
	}
	return 0;
}

/* ---- hosts ------------------------------------------------------------------------ */

bool exp_name_chars_ok(const char *s)
{
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == strlen(s);
}

static int parse_hosts(struct pctx *c, struct exp *e, const struct ynode *hs)
{
	static const char *const keys[] = { "ssh", "node", "addr", "rdma", "netdev", "gpu",
					    "gid_index", "pfclab", "workdir", "capture", NULL };
	char k[200];
	size_t i;
	int rc;

	rc = want_type(c, hs, YN_MAP, "hosts");
	if (rc)
		return rc;
	if (hs->n == 0 || hs->n > EXP_MAX_HOSTS)
		return perr(c, hs->line, "hosts", "give 1..%d hosts", EXP_MAX_HOSTS);
	e->hosts = calloc(hs->n, sizeof(*e->hosts));
	if (!e->hosts)
		return -ENOMEM;
	for (i = 0; i < hs->n; i++) {
		struct exp_host *h = &e->hosts[e->nhosts];
		const struct ynode *m = hs->v[i], *v;
		const char *nm = hs->keys[i];

		snprintf(k, sizeof(k), "hosts.%.100s", nm);
		if (!*nm || !exp_name_chars_ok(nm) || !strcmp(nm, "all") || nm[0] == '.')
			return perr(c, hs->key_lines[i], k,
				    "a host name is letters, digits, '-', '_' and '.', not first (and not 'all')");
		if (strlen(nm) > EXP_MAX_HOST_NAME)
			return perr(c, hs->key_lines[i], k, "a host name of %zu characters; at most %d "
				    "(it names the host's files and folders)", strlen(nm), EXP_MAX_HOST_NAME);
		h->name = strdup(nm);
		h->line = hs->key_lines[i];
		e->nhosts++;
		if (!h->name)
			return -ENOMEM;
		if ((rc = want_map(c, m, k, keys)))
			return rc;
#define HOST_STR(field, name)                                              \
	if ((v = ytree_get(m, name))) {                                    \
		snprintf(k, sizeof(k), "hosts.%.100s.%s", nm, name);       \
		rc = get_str(c, v, k, &h->field);                          \
		if (rc)                                                    \
			return rc;                                         \
	}
		HOST_STR(ssh, "ssh");
		HOST_STR(node, "node");
		HOST_STR(addr, "addr");
		HOST_STR(rdma, "rdma");
		HOST_STR(netdev, "netdev");
		HOST_STR(gpu, "gpu");
		HOST_STR(gid_index, "gid_index");
		HOST_STR(pfclab, "pfclab");
		HOST_STR(workdir, "workdir");
#undef HOST_STR
		if (h->workdir && h->workdir[0] != '/')
			return perr(c, ytree_get(m, "workdir")->line, k, "'%s': give an absolute path",
				    h->workdir);
		if ((v = ytree_get(m, "capture"))) {
			snprintf(k, sizeof(k), "hosts.%.100s.capture", nm);
			rc = get_list(c, v, k, &h->capture_ifs, &h->ncapture_ifs);
			if (rc)
				return rc;
			if (!h->ncapture_ifs)
				return perr(c, v->line, k, "an empty list: give at least one interface, or "
					    "leave capture: out to capture on the netdev");
		}
		if (!h->netdev) {
			snprintf(k, sizeof(k), "hosts.%.100s", nm);
			return perr(c, m->line, k, "no netdev: name the host's RDMA network interface "
				    "(netdev: eth2), monitored and captured on");
		}
		rc = check_host(c, h, m);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- traffic ------------------------------------------------------------------------ */

/* YAML key -> pfclab traffic option (see `pfclab traffic --help`). Values are checked by
 * traffic's own option table (traffic_opts_check): one source of ranges and wording.
 */
struct tkey {
	const char *key, *flag;
	bool is_flag;	/* true/false: the option is given or not */
};

static const struct tkey tkeys[] = {
	{ "size", "-s", false },
	{ "all_sizes", "-a", true },
	{ "qp", "-q", false },
	{ "duration", "-D", false },
	{ "iters", "-n", false },
	{ "warmup", "--warmup", false },
	{ "tx_depth", "-t", false },
	{ "rx_depth", "--rx-depth", false },
	{ "post_list", "-l", false },
	{ "cq_mod", "-Q", false },
	{ "inline", "-I", false },
	{ "mtu", "-m", false },
	{ "rate", "--rate", false },
	{ "rate_mode", "--rate-mode", false },
	{ "poll", "--poll", false },
	{ "tclass", "--tclass", false },
	{ "dscp", "--dscp", false },
	{ "sl", "-S", false },
	{ "qp_timeout", "--qp-timeout", false },
	{ "retry", "--retry", false },
	{ "mem", "--mem", false },
	{ "hugepages", "--hugepages", true },
	{ "imm", "--imm", true },
	{ "interval", "--interval", false },
	{ "timeout", "--timeout", false },
};

/* One traffic key: checked as pfclab traffic checks its option, then passed on. o gets
 * the value (the duration and warm-up set the phase's length).
 */
static int traffic_key(struct pctx *c, const struct tkey *t, const struct ynode *v,
		       const char *key, struct exp_traffic *tr, struct traffic_opts *o)
{
	char *s = NULL, why[EXP_ERR_LEN];
	bool b;
	int rc;

	if (t->is_flag) {
		rc = get_bool(c, v, key, &b);
		if (rc || !b)
			return rc;
		return strv_add(&tr->args, &tr->nargs, t->flag);
	}
	rc = get_str(c, v, key, &s);
	if (rc)
		return rc;
	if (traffic_opts_check(t->flag, s, o, why, sizeof(why))) {
		char cmd[40];

		snprintf(cmd, sizeof(cmd), "traffic %s", t->flag);
		rc = sub_err(c, v->line, key, s, cmd, why);
	}
	if (!rc)
		rc = strv_add(&tr->args, &tr->nargs, t->flag);
	if (!rc)
		rc = strv_add(&tr->args, &tr->nargs, s);
	free(s);
	return rc;
}

/* What a traffic block must hold once read: both ends, distinct, with the devices and
 * address they need, and ports that fit.
 */
static int traffic_check(struct pctx *c, const struct ynode *m, const char *key,
			 const struct exp_traffic *tr)
{
	size_t i, j;

	if (!ytree_get(m, "to"))
		return perr(c, m->line, key, "no 'to:' host (the receiver)");
	if (!ytree_get(m, "from"))
		return perr(c, m->line, key, "no 'from:' host or list of hosts (the senders)");
	for (j = 0; j < tr->nfrom; j++) {
		if (tr->from[j] == tr->to)
			return perr(c, ytree_get(m, "from")->line, key,
				    "host '%s' is both sender and receiver", c->e->hosts[tr->to].name);
		for (i = 0; i < j; i++)
			if (tr->from[i] == tr->from[j])
				return perr(c, ytree_get(m, "from")->line, key, "host '%s' is listed twice",
					    c->e->hosts[tr->from[j]].name);
	}
	if (!c->e->hosts[tr->to].addr)
		return perr(c, ytree_get(m, "to")->line, key,
			    "host '%s' has no addr: (the address its traffic clients connect to)",
			    c->e->hosts[tr->to].name);
	for (j = 0; j < tr->nfrom; j++)
		if (!c->e->hosts[tr->from[j]].rdma)
			return perr(c, ytree_get(m, "from")->line, key, "host '%s' has no rdma: device",
				    c->e->hosts[tr->from[j]].name);
	if (!c->e->hosts[tr->to].rdma)
		return perr(c, ytree_get(m, "to")->line, key, "host '%s' has no rdma: device",
			    c->e->hosts[tr->to].name);
	if (ytree_get(m, "duration") && ytree_get(m, "iters"))
		return perr(c, ytree_get(m, "iters")->line, key, "give duration or iters, not both");
	if (tr->port + tr->nfrom > 65535)
		return perr(c, m->line, key, "port %u + %zu senders runs past 65535", tr->port, tr->nfrom);
	return 0;
}

static int parse_traffic(struct pctx *c, const struct ynode *m, const char *key,
			 struct exp_traffic *tr)
{
	const struct ynode *v;
	uint64_t dur = 5000000000ull, iters_dur = 0, warm = 0, u;
	struct traffic_opts to;
	char k[200];
	size_t i, j;
	int rc;

	rc = want_type(c, m, YN_MAP, key);
	if (rc)
		return rc;
	tr->line = m->line;
	tr->port = 18515;
	for (i = 0; i < m->n; i++) {
		const char *name = m->keys[i];

		v = m->v[i];
		snprintf(k, sizeof(k), "%.150s.%.40s", key, name);
		if (!strcmp(name, "from")) {
			char **names;
			size_t n;

			rc = get_list(c, v, k, &names, &n);
			if (rc)
				return rc;
			if (!n) {
				free(names);
				return perr(c, v->line, k, "an empty list: give at least one sender");
			}
			tr->from = calloc(n, sizeof(*tr->from));
			for (j = 0; j < n && tr->from; j++) {
				int h = exp_host_find(c->e, names[j]);

				if (h < 0) {
					rc = perr(c, v->line, k, "no host '%s' under hosts:", names[j]);
					break;
				}
				tr->from[tr->nfrom++] = (size_t)h;
			}
			strv_free(names, n);
			if (!tr->from)
				return -ENOMEM;
			if (rc)
				return rc;
		} else if (!strcmp(name, "to")) {
			rc = get_host(c, v, k, &tr->to);
		} else if (!strcmp(name, "bidirectional")) {
			rc = get_bool(c, v, k, &tr->bidir);
			if (!rc && tr->bidir)
				rc = strv_add(&tr->args, &tr->nargs, "-b");
		} else if (!strcmp(name, "port")) {
			rc = get_uint(c, v, k, 1024, 65000, &u);
			tr->port = (unsigned)u;
		} else if (!strcmp(name, "options")) {
			char **opts;
			size_t n;

			rc = get_list(c, v, k, &opts, &n);
			for (j = 0; !rc && j < n; j++) {
				if (!strcmp(opts[j], "--psk") || !strcmp(opts[j], "-d") ||
				    !strcmp(opts[j], "-p") || !strcmp(opts[j], "--json"))
					rc = perr(c, v->line, k, "'%s' is set by pfclab run itself", opts[j]);
				else
					rc = strv_add(&tr->args, &tr->nargs, opts[j]);
			}
			strv_free(opts, n);
		} else {
			for (j = 0; j < ARRAY_SIZE(tkeys); j++)
				if (!strcmp(tkeys[j].key, name))
					break;
			if (j == ARRAY_SIZE(tkeys)) {
				char list[600] = "from, to, bidirectional, port, options";

				for (j = 0; j < ARRAY_SIZE(tkeys); j++) {
					strncat(list, ", ", sizeof(list) - strlen(list) - 1);
					strncat(list, tkeys[j].key, sizeof(list) - strlen(list) - 1);
				}
				return perr(c, m->key_lines[i], key, "unknown key '%.60s'; known keys: %s",
					    name, list);
			}
			rc = traffic_key(c, &tkeys[j], v, k, tr, &to);
			if (!rc && !strcmp(name, "duration"))
				dur = to.duration_ns;
			if (!rc && !strcmp(name, "warmup"))
				warm = to.warmup_ns;
			if (!rc && !strcmp(name, "iters"))
				iters_dur = 60000000000ull; /* unknown: a generous limit */
			if (!rc && !strcmp(name, "mem")) {
				char *s = NULL;

				rc = get_str(c, v, k, &s);
				tr->gpu_mem = s && strcmp(s, "host");
				free(s);
			}
		}
		c->var_note = NULL;
		if (rc)
			return rc;
	}
	rc = traffic_check(c, m, key, tr);
	if (rc)
		return rc;
	tr->duration_ns = (iters_dur ? iters_dur : dur) + warm;
	return 0;
}

/* ---- phases ------------------------------------------------------------------------- */

static const char *const inject_kinds[] = { "pause", "pfc", "cnp", "roce", "cnp-on-ce",
					    "pfc-on-backlog", NULL };

static int parse_injects(struct pctx *c, const struct ynode *l, const char *key,
			 struct exp_phase *ph)
{
	static const char *const keys[] = { "host", "kind", "iface", "args", NULL };
	struct ynode *one[1], wrap;
	char k[200];
	size_t i, j;
	int rc;

	if (l->type == YN_MAP) { /* one inject without a list */
		ph->inject = calloc(1, sizeof(*ph->inject));
		if (!ph->inject)
			return -ENOMEM;
		one[0] = (struct ynode *)l;
		wrap = (struct ynode){ .type = YN_SEQ, .line = l->line, .n = 1, .v = one };
		l = &wrap;
	} else {
		rc = want_type(c, l, YN_SEQ, key);
		if (rc)
			return rc;
		ph->inject = calloc(l->n ? l->n : 1, sizeof(*ph->inject));
		if (!ph->inject)
			return -ENOMEM;
	}
	for (i = 0; i < l->n; i++) {
		struct exp_inject *in = &ph->inject[ph->ninject++];
		const struct ynode *m = l->v[i], *v;

		snprintf(k, sizeof(k), "%.150s[%zu]", key, i);
		in->line = m->line;
		if ((rc = want_map(c, m, k, keys)))
			return rc;
		if (!(v = ytree_get(m, "host")))
			return perr(c, m->line, k, "no host:");
		snprintf(k, sizeof(k), "%.150s[%zu].host", key, i);
		rc = get_host(c, v, k, &in->host);
		if (rc)
			return rc;
		if (!(v = ytree_get(m, "kind")))
			return perr(c, m->line, k, "no kind: (pause, pfc, cnp, roce, cnp-on-ce, pfc-on-backlog)");
		snprintf(k, sizeof(k), "%.150s[%zu].kind", key, i);
		rc = get_str(c, v, k, &in->kind);
		if (rc)
			return rc;
		for (j = 0; inject_kinds[j]; j++)
			if (!strcmp(inject_kinds[j], in->kind))
				break;
		if (!inject_kinds[j])
			return perr(c, v->line, k, "'%s' is not an inject kind; give pause, pfc, cnp, roce, "
				    "cnp-on-ce or pfc-on-backlog", in->kind);
		if ((v = ytree_get(m, "iface"))) {
			snprintf(k, sizeof(k), "%.150s[%zu].iface", key, i);
			rc = get_str(c, v, k, &in->iface);
			if (!rc)
				rc = check_ifname(c, v->line, k, in->iface, "inject -i");
			if (rc)
				return rc;
		}
		if ((v = ytree_get(m, "args"))) {
			snprintf(k, sizeof(k), "%.150s[%zu].args", key, i);
			rc = get_list(c, v, k, &in->args, &in->nargs);
			if (rc)
				return rc;
			for (j = 0; j < in->nargs; j++)
				if (!strcmp(in->args[j], "-i") || !strcmp(in->args[j], "-w"))
					return perr(c, v->line, k, "'%s' is set by pfclab run (use iface:)",
						    in->args[j]);
		}
	}
	return 0;
}

static int parse_cmds(struct pctx *c, const struct ynode *l, const char *key,
		      struct exp_cmd **out, size_t *nout)
{
	static const char *const keys[] = { "host", "run", "essential", NULL };
	char k[200];
	size_t i, n = 0, h;
	int rc;

	rc = want_type(c, l, YN_SEQ, key);
	if (rc)
		return rc;
	*out = calloc(l->n * c->e->nhosts + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	*nout = 0;	/* kept up to date: a later item's error leaves the earlier ones to free */
	for (i = 0; i < l->n; i++) {
		const struct ynode *m = l->v[i], *v;
		bool essential = false, all = false;
		size_t host = 0;
		char *run = NULL;

		snprintf(k, sizeof(k), "%.150s[%zu]", key, i);
		if ((rc = want_map(c, m, k, keys)))
			return rc;
		if (!(v = ytree_get(m, "host")))
			return perr(c, m->line, k, "no host: (a host's name, or all)");
		snprintf(k, sizeof(k), "%.150s[%zu].host", key, i);
		if (v->type == YN_SCALAR && !strcmp(v->str, "all"))
			all = true;
		else if ((rc = get_host(c, v, k, &host)))
			return rc;
		if (!(v = ytree_get(m, "run"))) {
			snprintf(k, sizeof(k), "%.150s[%zu]", key, i);
			return perr(c, m->line, k, "no run: (a shell command)");
		}
		snprintf(k, sizeof(k), "%.150s[%zu].run", key, i);
		rc = get_str(c, v, k, &run);
		if (rc)
			return rc;
		if ((v = ytree_get(m, "essential"))) {
			snprintf(k, sizeof(k), "%.150s[%zu].essential", key, i);
			rc = get_bool(c, v, k, &essential);
			if (rc) {
				free(run);
				return rc;
			}
		}
		for (h = all ? 0 : host; h < (all ? c->e->nhosts : host + 1); h++) {
			struct exp_cmd *cmd = &(*out)[n++];

			*nout = n;
			cmd->host = h;
			cmd->run = strdup(run);
			cmd->essential = essential;
			cmd->line = m->line;
			if (!cmd->run) {
				free(run);
				return -ENOMEM;
			}
		}
		free(run);
	}
	return 0;
}

static int parse_phase(struct pctx *c, const struct ynode *m, size_t idx, struct exp_phase *ph)
{
	static const char *const keys[] = { "name", "traffic", "duration", "inject", "pre", "post",
					    NULL };
	const struct ynode *v;
	char k[200];
	int rc;

	snprintf(k, sizeof(k), "phases[%zu]", idx);
	ph->line = m->line;
	if ((rc = want_map(c, m, k, keys)))
		return rc;
	if ((v = ytree_get(m, "name"))) {
		snprintf(k, sizeof(k), "phases[%zu].name", idx);
		rc = get_str(c, v, k, &ph->name);
		if (rc)
			return rc;
		if (!exp_name_chars_ok(ph->name))
			return perr(c, v->line, k, "'%s': a phase name is letters, digits, '-', '_', '.'",
				    ph->name);
		if (strlen(ph->name) > EXP_MAX_PHASE_NAME)
			return perr(c, v->line, k, "a phase name of %zu characters; at most %d (it names "
				    "the phase's files, e.g. traffic-<phase>-server-<host>.jsonl)",
				    strlen(ph->name), EXP_MAX_PHASE_NAME);
	} else {
		char nm[32];

		snprintf(nm, sizeof(nm), "phase%zu", idx);
		ph->name = strdup(nm);
		if (!ph->name)
			return -ENOMEM;
	}
	if ((v = ytree_get(m, "traffic"))) {
		snprintf(k, sizeof(k), "phases[%zu].traffic", idx);
		rc = parse_traffic(c, v, k, &ph->traffic);
		if (rc)
			return rc;
		ph->has_traffic = true;
		ph->duration_ns = ph->traffic.duration_ns;
	}
	if ((v = ytree_get(m, "duration"))) {
		snprintf(k, sizeof(k), "phases[%zu].duration", idx);
		if (ph->has_traffic)
			return perr(c, v->line, k, "a traffic phase lasts as long as its traffic; "
				    "set traffic.duration instead");
		rc = get_dur(c, v, k, &ph->duration_ns);
		if (rc)
			return rc;
		if (!ph->duration_ns)
			return perr(c, v->line, k, "an idle or inject phase of no time does nothing; "
				    "give it a duration above 0 (e.g. 2s) or leave the phase out");
	}
	if (!ph->has_traffic && !ytree_get(m, "duration")) {
		snprintf(k, sizeof(k), "phases[%zu]", idx);
		return perr(c, m->line, k, "give traffic: or a duration: (an idle or inject phase)");
	}
	if ((v = ytree_get(m, "inject"))) {
		snprintf(k, sizeof(k), "phases[%zu].inject", idx);
		rc = parse_injects(c, v, k, ph);
		if (rc)
			return rc;
	}
	if ((v = ytree_get(m, "pre"))) {
		snprintf(k, sizeof(k), "phases[%zu].pre", idx);
		rc = parse_cmds(c, v, k, &ph->pre, &ph->npre);
		if (rc)
			return rc;
	}
	if ((v = ytree_get(m, "post"))) {
		snprintf(k, sizeof(k), "phases[%zu].post", idx);
		rc = parse_cmds(c, v, k, &ph->post, &ph->npost);
		if (rc)
			return rc;
	}
	return 0;
}

static void phase_free(struct exp_phase *ph)
{
	size_t i;

	free(ph->name);
	free(ph->traffic.from);
	strv_free(ph->traffic.args, ph->traffic.nargs);
	for (i = 0; i < ph->ninject; i++) {
		free(ph->inject[i].iface);
		free(ph->inject[i].kind);
		strv_free(ph->inject[i].args, ph->inject[i].nargs);
	}
	free(ph->inject);
	for (i = 0; i < ph->npre; i++)
		free(ph->pre[i].run);
	for (i = 0; i < ph->npost; i++)
		free(ph->post[i].run);
	free(ph->pre);
	free(ph->post);
}

void exp_point_free(struct exp_point *p)
{
	size_t i;

	for (i = 0; i < p->nphases; i++)
		phase_free(&p->phases[i]);
	free(p->phases);
	p->phases = NULL;
	p->nphases = 0;
}

size_t exp_point_count(const struct exp *e)
{
	size_t n = 1, i;

	for (i = 0; i < e->nsweep; i++)
		n *= e->sweep[i].n;
	return n;
}

int exp_point_build(const struct exp *e, size_t idx, struct exp_point *p, char *err, size_t errlen)
{
	struct pctx c = { .e = e, .pt = p, .err = err, .errlen = errlen };
	const struct ynode *ph = ytree_get(e->root, "phases");
	size_t i, rest = idx;
	int rc;

	memset(p, 0, sizeof(*p));
	p->index = idx;
	snprintf(p->id, sizeof(p->id), "p%03zu", idx);
	for (i = e->nsweep; i-- > 0;) {
		p->values[i] = e->sweep[i].values[rest % e->sweep[i].n];
		rest /= e->sweep[i].n;
	}
	for (i = 0; i < e->nsweep; i++) {
		size_t l = strlen(p->label);

		snprintf(p->label + l, sizeof(p->label) - l, "%s%s=%s", i ? " " : "", e->sweep[i].name,
			 p->values[i]);
	}
	if (!ph) {
		snprintf(err, errlen, "%s:%d: phases: missing; an experiment needs at least one phase",
			 e->file, e->root->line);
		return -EINVAL;
	}
	rc = want_type(&c, ph, YN_SEQ, "phases");
	if (rc)
		return rc;
	if (ph->n == 0 || ph->n > EXP_MAX_PHASES)
		return perr(&c, ph->line, "phases", "give 1..%d phases", EXP_MAX_PHASES);
	p->phases = calloc(ph->n, sizeof(*p->phases));
	if (!p->phases)
		return -ENOMEM;
	for (i = 0; i < ph->n; i++) {
		size_t j;

		p->nphases++;
		rc = parse_phase(&c, ph->v[i], i, &p->phases[i]);
		if (rc) {
			exp_point_free(p);
			return rc;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(p->phases[j].name, p->phases[i].name)) {
				rc = perr(&c, ph->v[i]->line, "phases", "two phases named '%s'",
					  p->phases[i].name);
				exp_point_free(p);
				return rc;
			}
		p->duration_ns += p->phases[i].duration_ns;
	}
	if (e->cp) {
		char *su, *re, dev[32];

		rc = cpoint_commands(e, p, &su, &re, dev, sizeof(dev), err, errlen);
		if (rc) {
			exp_point_free(p);
			return rc;
		}
		free(su);
		free(re);
	}
	return 0;
}

/* ---- the file ----------------------------------------------------------------------- */

void exp_free(struct exp *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->nhosts; i++) {
		struct exp_host *h = &e->hosts[i];

		free(h->name);
		free(h->ssh);
		free(h->node);
		free(h->addr);
		free(h->rdma);
		free(h->netdev);
		free(h->gpu);
		free(h->gid_index);
		free(h->pfclab);
		free(h->workdir);
		strv_free(h->capture_ifs, h->ncapture_ifs);
	}
	free(e->hosts);
	for (i = 0; i < e->nsweep; i++) {
		free(e->sweep[i].name);
		strv_free(e->sweep[i].values, e->sweep[i].n);
		free(e->sweep[i].lines);
	}
	free(e->mon_interval);
	free(e->mon_sources);
	free(e->capture_mode);
	free(e->capture_speed);
	free(e->name);
	free(e->file);
	free(e->text);
	ytree_free(e->root);
	cpoint_free(e->cp);
	free(e);
}

/* A section that is either on/off or a map of these keys: 1 when it was on/off (*on set,
 * nothing more to read), 0 for a map to read, or the error.
 */
static int section_open(struct pctx *c, const struct ynode *m, const char *name,
			const char *const *keys, bool *on)
{
	int rc;

	*on = true;
	if (m->type == YN_SCALAR) {
		rc = get_bool(c, m, name, on);
		return rc ? rc : 1;
	}
	return want_map(c, m, name, keys);
}

static int parse_monitor(struct pctx *c, struct exp *e, const struct ynode *m)
{
	static const char *const keys[] = { "interval", "sources", "rt_priority", NULL };
	const struct ynode *v;
	int rc = section_open(c, m, "monitor", keys, &e->monitor);

	if (rc)
		return rc > 0 ? 0 : rc;
	if ((v = ytree_get(m, "rt_priority"))) {
		uint64_t u;

		rc = get_uint(c, v, "monitor.rt_priority", 1, 99, &u);
		if (rc)
			return rc;
		e->mon_rt_priority = (unsigned)u;
	}
	if ((v = ytree_get(m, "interval"))) {
		free(e->mon_interval);
		e->mon_interval = NULL;
		rc = get_str(c, v, "monitor.interval", &e->mon_interval);
		if (rc)
			return rc;
		if (parse_duration_ns(e->mon_interval, MON_INTERVAL_MIN_NS, MON_INTERVAL_MAX_NS,
				      &e->mon_interval_ns))
			return sub_err(c, v->line, "monitor.interval", e->mon_interval,
				       "monitor --interval", "expected " MON_INTERVAL_WANT);
	}
	if ((v = ytree_get(m, "sources"))) {
		char **l;
		size_t n, i, len = 1;

		rc = get_list(c, v, "monitor.sources", &l, &n);
		if (rc)
			return rc;
		if (!n) {
			free(l);
			return perr(c, v->line, "monitor.sources", "an empty list: give at least one "
				    "source, or leave sources: out for all of them");
		}
		for (i = 0; i < n; i++) {
			if (!pfc_list_has(MON_SOURCES, l[i], strlen(l[i]))) {
				rc = perr(c, v->line, "monitor.sources", "'%s' is not a source; give one "
					  "of " MON_SOURCES_TEXT, l[i]);
				strv_free(l, n);
				return rc;
			}
			len += strlen(l[i]) + 1;
		}
		e->mon_sources = calloc(1, len);
		for (i = 0; e->mon_sources && i < n; i++) {
			if (i)
				strcat(e->mon_sources, ",");
			strcat(e->mon_sources, l[i]);
		}
		strv_free(l, n);
		if (!e->mon_sources)
			return -ENOMEM;
	}
	return 0;
}

static int parse_capture(struct pctx *c, struct exp *e, const struct ynode *m)
{
	static const char *const keys[] = { "mode", "speed", NULL };
	const struct ynode *v;
	int rc = section_open(c, m, "capture", keys, &e->capture);

	if (rc)
		return rc > 0 ? 0 : rc;
	if ((v = ytree_get(m, "mode"))) {
		free(e->capture_mode);
		e->capture_mode = NULL;
		rc = get_str(c, v, "capture.mode", &e->capture_mode);
		if (rc)
			return rc;
		if (strcmp(e->capture_mode, "default") && strcmp(e->capture_mode, "ce") &&
		    strcmp(e->capture_mode, "roce"))
			return perr(c, v->line, "capture.mode",
				    "'%s': give default (PAUSE/PFC + CNP), ce (also CE-marked RoCEv2) "
				    "or roce (all RoCEv2 headers)", e->capture_mode);
	}
	if ((v = ytree_get(m, "speed"))) {
		uint64_t u;

		rc = get_str(c, v, "capture.speed", &e->capture_speed);
		if (rc)
			return rc;
		/* capture --speed and review --speed: the one parser both use */
		if (frames_speed_parse(e->capture_speed, &u))
			return sub_err(c, v->line, "capture.speed", e->capture_speed,
				       "capture --speed", "give a link speed such as 25G or 100M");
	}
	return 0;
}

/* Whether a value under N (the sweep: itself left out) names ${REF}. */
static bool tree_names(const struct ynode *n, const struct ynode *sweep, const char *ref)
{
	size_t i;

	if (n == sweep)
		return false;
	if (n->type == YN_SCALAR)
		return strstr(n->str, ref) != NULL;
	for (i = 0; i < n->n; i++)
		if (tree_names(n->v[i], sweep, ref))
			return true;
	return false;
}

/* A sweep variable no value names would make every point the same run under different
 * labels (sweep: {size: [...]} does not set traffic's size by itself). */
static int sweep_used(struct pctx *c, const struct exp *e, const struct ynode *root,
		      const struct ynode *sweep)
{
	char *ref, k[200];
	size_t i;
	bool named;

	for (i = 0; i < e->nsweep; i++) {
		if (asprintf(&ref, "${%s}", e->sweep[i].name) < 0)
			return -ENOMEM;
		named = tree_names(root, sweep, ref);
		free(ref);
		if (named)
			continue;
		snprintf(k, sizeof(k), "sweep.%.100s", e->sweep[i].name);
		return perr(c, e->sweep[i].line, k, "no value names ${%s}, so every point would run the "
			    "same; write ${%s} where the value goes (e.g. traffic: {size: \"${%s}\"})",
			    e->sweep[i].name, e->sweep[i].name, e->sweep[i].name);
	}
	return 0;
}

static int parse_sweep(struct pctx *c, struct exp *e, const struct ynode *m)
{
	char k[200];
	size_t i, j, points = 1;
	int rc;

	rc = want_type(c, m, YN_MAP, "sweep");
	if (rc)
		return rc;
	if (m->n > EXP_MAX_SWEEP)
		return perr(c, m->line, "sweep", "at most %d variables", EXP_MAX_SWEEP);
	for (i = 0; i < m->n; i++) {
		struct exp_sweep_var *sv = &e->sweep[e->nsweep];
		const struct ynode *l = m->v[i];

		snprintf(k, sizeof(k), "sweep.%.100s", m->keys[i]);
		if (!*m->keys[i] || strspn(m->keys[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
					    strlen(m->keys[i]))
			return perr(c, m->key_lines[i], k, "a sweep variable is letters, digits and '_'");
		sv->name = strdup(m->keys[i]);
		sv->line = m->key_lines[i];
		e->nsweep++;
		if (!sv->name)
			return -ENOMEM;
		if (l->type == YN_SCALAR) {
			sv->values = calloc(2, sizeof(char *));
			sv->lines = calloc(1, sizeof(int));
			if (!sv->values || !sv->lines)
				return -ENOMEM;
			sv->values[0] = strdup(l->str);
			sv->lines[0] = l->line;
			sv->n = 1;
			if (!sv->values[0])
				return -ENOMEM;
		} else {
			rc = want_type(c, l, YN_SEQ, k);
			if (rc)
				return rc;
			if (l->n == 0)
				return perr(c, l->line, k, "an empty list: give at least one value");
			sv->values = calloc(l->n + 1, sizeof(char *));
			sv->lines = calloc(l->n, sizeof(int));
			if (!sv->values || !sv->lines)
				return -ENOMEM;
			for (j = 0; j < l->n; j++) {
				snprintf(k, sizeof(k), "sweep.%.100s[%zu]", m->keys[i], j);
				rc = want_type(c, l->v[j], YN_SCALAR, k);
				if (rc)
					return rc;
				sv->values[j] = strdup(l->v[j]->str);
				sv->lines[j] = l->v[j]->line;
				sv->n++;
				if (!sv->values[j])
					return -ENOMEM;
			}
		}
		/* checked as it grows: the product of a few long lists would wrap */
		if (sv->n > EXP_MAX_POINTS / points) {
			snprintf(k, sizeof(k), "sweep.%.100s", sv->name);
			return perr(c, sv->line, k, "%zu values make over %d points with the %zu of the "
				    "variables before it; at most %d", sv->n, EXP_MAX_POINTS, points,
				    EXP_MAX_POINTS);
		}
		points *= sv->n;
	}
	return 0;
}

int exp_parse(const char *name, const char *text, size_t len, struct exp **out, char *err,
	      size_t errlen)
{
	static const char *const keys[] = { "name", "description", "launcher", "hosts", "monitor",
					    "capture", "sweep", "repetitions", "retries", "phases",
					    "bottleneck", NULL };
	struct exp *e = calloc(1, sizeof(*e));
	struct pctx c = { .e = e, .err = err, .errlen = errlen };
	const struct ynode *v, *r;
	uint64_t u;
	size_t i;
	int rc;

	*out = NULL;
	if (!e)
		return -ENOMEM;
	e->file = strdup(name);
	e->text = malloc(len + 1);
	if (!e->file || !e->text) {
		exp_free(e);
		return -ENOMEM;
	}
	memcpy(e->text, text, len);
	e->text[len] = 0;
	e->textlen = len;
	rc = ytree_parse(name, text, len, &e->root, err, errlen);
	if (rc)
		goto fail;
	r = e->root;
	if ((rc = want_map(&c, r, "experiment", keys)))
		goto fail;
	e->reps = 1;
	e->retries = 0;
	e->monitor = true;
	e->capture = true;
	e->mon_interval = strdup("100ms");
	e->mon_interval_ns = 100000000;
	e->capture_mode = strdup("default");
	if (!e->mon_interval || !e->capture_mode) {
		rc = -ENOMEM;
		goto fail;
	}
	if (!(v = ytree_get(r, "name"))) {
		rc = perr(&c, r->line, "name", "missing; name the experiment (results/<name>-<time>/)");
		goto fail;
	}
	rc = get_str(&c, v, "name", &e->name);
	if (rc)
		goto fail;
	if (!exp_name_chars_ok(e->name) || e->name[0] == '.') {
		rc = perr(&c, v->line, "name", "'%s': letters, digits, '-', '_' and '.' only", e->name);
		goto fail;
	}
	if (strlen(e->name) > EXP_MAX_NAME) {
		rc = perr(&c, v->line, "name", "a name of %zu characters; at most %d (the results "
			  "folder is <name>-<YYYYmmdd-HHMMSS>)", strlen(e->name), EXP_MAX_NAME);
		goto fail;
	}
	if ((v = ytree_get(r, "launcher"))) {
		char *s;

		rc = get_str(&c, v, "launcher", &s);
		if (rc)
			goto fail;
		if (!strcmp(s, "local"))
			e->launcher = EXP_LOCAL;
		else if (!strcmp(s, "ssh"))
			e->launcher = EXP_SSH;
		else if (!strcmp(s, "slurm"))
			e->launcher = EXP_SLURM;
		else
			rc = perr(&c, v->line, "launcher", "'%s': give local, ssh or slurm", s);
		free(s);
		if (rc)
			goto fail;
	} else {
		e->launcher = EXP_SSH;
	}
	if ((v = ytree_get(r, "repetitions"))) {
		rc = get_uint(&c, v, "repetitions", 1, 1000, &u);
		if (rc)
			goto fail;
		e->reps = (unsigned)u;
	}
	if ((v = ytree_get(r, "retries"))) {
		rc = get_uint(&c, v, "retries", 0, 10, &u);
		if (rc)
			goto fail;
		e->retries = (unsigned)u;
	}
	if (!(v = ytree_get(r, "hosts"))) {
		rc = perr(&c, r->line, "hosts", "missing; name the hosts (hosts: {a: {ssh: ..., netdev: ...}})");
		goto fail;
	}
	rc = parse_hosts(&c, e, v);
	if (rc)
		goto fail;
	if ((v = ytree_get(r, "monitor")) && (rc = parse_monitor(&c, e, v)))
		goto fail;
	rc = check_gpus(&c, e);
	if (rc)
		goto fail;
	if ((v = ytree_get(r, "capture")) && (rc = parse_capture(&c, e, v)))
		goto fail;
	if ((v = ytree_get(r, "sweep")) && ((rc = parse_sweep(&c, e, v)) || (rc = sweep_used(&c, e, r, v))))
		goto fail;
	rc = cpoint_parse(e, &e->cp, err, errlen);
	if (rc)
		goto fail;
	/* every point resolved once: a bad value in any of them is an error now */
	for (i = 0; i < exp_point_count(e); i++) {
		struct exp_point p;

		rc = exp_point_build(e, i, &p, err, errlen);
		if (rc)
			goto fail;
		exp_point_free(&p);
		if (e->nsweep == 0)
			break;
	}
	*out = e;
	return 0;
fail:
	exp_free(e);
	return rc;
}

int exp_load(const char *path, struct exp **out, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/');
	char *text;
	size_t len;
	int rc = ytree_read_file(path, "an experiment file (YAML)", &text, &len, err, errlen);

	*out = NULL;
	if (rc)
		return rc;
	rc = exp_parse(base ? base + 1 : path, text, len, out, err, errlen);
	free(text);
	return rc;
}
