// SPDX-License-Identifier: GPL-2.0-or-later
/* cpoint.c: the bottleneck: block of an experiment (the congestion-point host) checked, and
 * the tc commands that set it up before a point and put the interface back after it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpoint.h"
#include "expval.h"

struct cp_vals {
	char dev[32], qdisc[16], rate[32], ecn[8];
	unsigned long long limit, min, max, avpkt, burst;
	char prob[16];
};

/* Value of KEY in M with ${var} replaced by the point's (or the first) sweep value. */
static int value(const struct exp *e, const struct exp_point *p, const struct ynode *m,
		 const char *key, char *out, size_t len, char *err, size_t errlen)
{
	const struct ynode *n = ytree_get(m, key);
	const char *at;
	char *v;
	int rc, var;

	out[0] = 0;
	if (!n)
		return 0;
	if (n->type != YN_SCALAR) {
		snprintf(err, errlen, "%s:%d: bottleneck.%s: give one value", e->file, n->line, key);
		return -EINVAL;
	}
	rc = exp_subst(e, p, n->str, &v, &var, &at);
	if (rc == -EINVAL) {
		snprintf(err, errlen, "%s:%d: bottleneck.%s: '%s' names no sweep variable",
			 e->file, n->line, key, n->str);
		return rc;
	}
	if (rc)
		return rc;
	if (strlen(v) >= len) {
		snprintf(err, errlen, "%s:%d: bottleneck.%s: '%.40s' is too long", e->file,
			 n->line, key, n->str);
		free(v);
		return -EINVAL;
	}
	memcpy(out, v, strlen(v) + 1);
	free(v);
	return 0;
}

static int bad(const struct exp *e, const struct ynode *m, const char *key, const char *v,
	       const char *why, char *err, size_t errlen)
{
	const struct ynode *n = ytree_get(m, key);

	snprintf(err, errlen, "%s:%d: bottleneck.%s: '%s' %s", e->file, n ? n->line : m->line,
		 key, v, why);
	return -EINVAL;
}

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s) && strlen(s) < 12;
}

/* A byte count: digits; absent: DEF. */
static int bytes(const struct exp *e, const struct exp_point *p, const struct ynode *m,
		 const char *key, unsigned long long def, unsigned long long *out, char *err,
		 size_t errlen)
{
	char v[32];
	int rc = value(e, p, m, key, v, sizeof(v), err, errlen);

	if (rc)
		return rc;
	if (!*v) {
		*out = def;
		return 0;
	}
	if (!all_digits(v) || !strtoull(v, NULL, 10))
		return bad(e, m, key, v, "is not a byte count; give e.g. 30000", err, errlen);
	*out = strtoull(v, NULL, 10);
	return 0;
}

static bool rate_ok(const char *s)
{
	size_t n = strspn(s, "0123456789");
	const char *u = s + n;

	return n > 0 && n < 10 && (!strcmp(u, "bit") || !strcmp(u, "kbit") ||
				   !strcmp(u, "mbit") || !strcmp(u, "gbit"));
}

static bool prob_ok(const char *s)
{
	char *end;
	double d;

	if (!*s || strspn(s, "0123456789.") != strlen(s))
		return false;
	d = strtod(s, &end);
	return !*end && d > 0 && d <= 1;
}

/* The netdev goes unquoted into the set-up's shell commands: besides being an interface
 * name, only letters, digits and "-_.@". */
static bool ifname_shell_safe(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 15)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.@", s[i]))
			return false;
	return true;
}

static int resolve(const struct exp *e, const struct exp_point *p, struct cp_vals *v,
		   char *err, size_t errlen)
{
	static const char *const keys[] = { "host", "qdisc", "rate", "limit", "min", "max",
					    "probability", "burst", "avpkt", "ecn", NULL };
	const struct ynode *m = ytree_get(e->root, "bottleneck");
	const struct exp_host *h = &e->hosts[e->cp->host];
	size_t i, k;
	int rc;

	for (i = 0; i < m->n; i++) {
		for (k = 0; keys[k] && strcmp(keys[k], m->keys[i]); k++)
			;
		if (!keys[k]) {
			snprintf(err, errlen, "%s:%d: bottleneck.%s: unknown key; known: host, "
				 "qdisc, rate, limit, min, max, probability, burst, avpkt, ecn",
				 e->file, m->key_lines[i], m->keys[i]);
			return -EINVAL;
		}
	}
	memset(v, 0, sizeof(*v));
	/* The bottleneck sits on the host's netdev: the port towards the receiver. */
	snprintf(v->dev, sizeof(v->dev), "%s", h->netdev ? h->netdev : "");
	if (!ifname_shell_safe(v->dev)) {
		snprintf(err, errlen, "%s:%d: bottleneck.host: its netdev '%s' is not an interface "
			 "name the bottleneck can be set on (letters, digits and '-_.@'); give "
			 "the port towards the receiver", e->file, m->line, v->dev);
		return -EINVAL;
	}
	rc = value(e, p, m, "qdisc", v->qdisc, sizeof(v->qdisc), err, errlen);
	if (!rc && !*v->qdisc)
		snprintf(v->qdisc, sizeof(v->qdisc), "red");
	if (!rc && strcmp(v->qdisc, "red") && strcmp(v->qdisc, "tail-drop"))
		return bad(e, m, "qdisc", v->qdisc, "is not a bottleneck; give red or tail-drop",
			   err, errlen);
	if (!rc)
		rc = value(e, p, m, "rate", v->rate, sizeof(v->rate), err, errlen);
	if (!rc && !*v->rate) {
		snprintf(err, errlen, "%s:%d: bottleneck.rate: missing; give the bottleneck's rate "
			 "(e.g. 100mbit)", e->file, m->line);
		return -EINVAL;
	}
	if (!rc && !rate_ok(v->rate))
		return bad(e, m, "rate", v->rate, "is not a rate; give e.g. 100mbit or 1gbit",
			   err, errlen);
	if (!rc)
		rc = bytes(e, p, m, "limit", !strcmp(v->qdisc, "red") ? 400000 : 200000, &v->limit,
			   err, errlen);
	if (!rc)
		rc = bytes(e, p, m, "min", 30000, &v->min, err, errlen);
	if (!rc)
		rc = bytes(e, p, m, "max", 90000, &v->max, err, errlen);
	if (!rc)
		rc = bytes(e, p, m, "avpkt", 1000, &v->avpkt, err, errlen);
	if (!rc)
		rc = bytes(e, p, m, "burst", (2 * v->min + v->max) / (3 * v->avpkt) + 1, &v->burst,
			   err, errlen);
	if (rc)
		return rc;
	if (!strcmp(v->qdisc, "red") && (v->min >= v->max || v->max > v->limit)) {
		char s[64];

		snprintf(s, sizeof(s), "%llu", v->max);
		return bad(e, m, "max", s, "must lie above min and not above limit", err, errlen);
	}
	rc = value(e, p, m, "probability", v->prob, sizeof(v->prob), err, errlen);
	if (!rc && !*v->prob)
		snprintf(v->prob, sizeof(v->prob), "0.1");
	if (!rc && !prob_ok(v->prob))
		return bad(e, m, "probability", v->prob, "is not a probability; give 0 < p <= 1",
			   err, errlen);
	if (!rc)
		rc = value(e, p, m, "ecn", v->ecn, sizeof(v->ecn), err, errlen);
	if (!rc && !*v->ecn)
		snprintf(v->ecn, sizeof(v->ecn), "true");
	if (!rc && strcmp(v->ecn, "true") && strcmp(v->ecn, "false"))
		return bad(e, m, "ecn", v->ecn, "give true or false", err, errlen);
	return rc;
}

int cpoint_parse(const struct exp *e, struct exp_cpoint **out, char *err, size_t errlen)
{
	const struct ynode *m = ytree_get(e->root, "bottleneck"), *h;
	struct exp_cpoint *cp;
	int i;

	*out = NULL;
	if (!m)
		return 0;
	if (m->type != YN_MAP) {
		snprintf(err, errlen, "%s:%d: bottleneck: give a map (host:, rate:, ...)", e->file,
			 m->line);
		return -EINVAL;
	}
	h = ytree_get(m, "host");
	if (!h || h->type != YN_SCALAR) {
		snprintf(err, errlen, "%s:%d: bottleneck.host: missing; name the host of hosts: "
			 "that bridges or routes the RoCE hosts", e->file, m->line);
		return -EINVAL;
	}
	i = exp_host_find(e, h->str);
	if (i < 0) {
		snprintf(err, errlen, "%s:%d: bottleneck.host: '%s' is not in hosts:", e->file,
			 h->line, h->str);
		return -EINVAL;
	}
	cp = calloc(1, sizeof(*cp));
	if (!cp)
		return -ENOMEM;
	cp->host = (size_t)i;
	cp->line = m->line;
	cp->node = m;
	*out = cp;
	return 0;
}

void cpoint_free(struct exp_cpoint *cp)
{
	free(cp);
}

int cpoint_commands(const struct exp *e, const struct exp_point *p, char **setup,
		    char **restore, char *dev, size_t devlen, char *err, size_t errlen)
{
	struct cp_vals v;
	char child[256];
	int rc = resolve(e, p, &v, err, errlen);

	*setup = *restore = NULL;
	if (rc)
		return rc;
	snprintf(dev, devlen, "%s", v.dev);
	if (!strcmp(v.qdisc, "red"))
		snprintf(child, sizeof(child), "red limit %llu min %llu max %llu avpkt %llu burst "
			 "%llu probability %s bandwidth %s%s", v.limit, v.min, v.max, v.avpkt,
			 v.burst, v.prob, v.rate, strcmp(v.ecn, "true") ? "" : " ecn");
	else
		snprintf(child, sizeof(child), "bfifo limit %llu", v.limit);
	/* The interface must have its kernel-default root qdisc (handle 0:): deleting ours
	 * afterwards brings exactly that back. The marker says the set-up got this far. */
	if (asprintf(setup,
		     "d=%s; tc qdisc show dev $d >bottleneck-before.txt || exit 1; "
		     "if ! head -n 1 bottleneck-before.txt | grep -q ' 0: root'; then "
		     "echo \"bottleneck: $d on $(hostname) has a configured root qdisc "
		     "($(head -n 1 bottleneck-before.txt)); remove it (tc qdisc del dev $d root) so "
		     "that it can be put back exactly\" >&2; exit 1; fi; "
		     ": >bottleneck-ours; "
		     "{ tc qdisc add dev $d root handle 1: htb default 1 && "
		     "tc class add dev $d parent 1: classid 1:1 htb rate %s ceil %s && "
		     "tc qdisc add dev $d parent 1:1 handle 10: %s; } || "
		     "{ tc qdisc del dev $d root; exit 1; }; "
		     "tc qdisc show dev $d >bottleneck-set.txt",
		     v.dev, v.rate, v.rate, child) < 0) {
		*setup = NULL;
		return -ENOMEM;
	}
	if (asprintf(restore,
		     "d=%s; [ -e bottleneck-ours ] || exit 0; "
		     "tc qdisc del dev $d root; tc qdisc show dev $d >bottleneck-after.txt; "
		     "cmp -s bottleneck-before.txt bottleneck-after.txt || "
		     "{ echo \"bottleneck: $d on $(hostname) not put back: before '$(head -n 1 "
		     "bottleneck-before.txt)', now '$(head -n 1 bottleneck-after.txt)'\" >&2; "
		     "exit 1; }",
		     v.dev) < 0) {
		free(*setup);
		*setup = *restore = NULL;
		return -ENOMEM;
	}
	return 0;
}

void cpoint_mon_sources(const struct exp *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s,qdisc",
		 e->mon_sources ? e->mon_sources : "ethtool,pause,dcb,link,pci,rdma,nvml");
}
