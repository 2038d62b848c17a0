// SPDX-License-Identifier: GPL-2.0-or-later
/* src_qdisc.c: the counters of every qdisc on one interface (root and children) through an
 * rtnetlink RTM_GETQDISC dump: TCA_STATS2 basic and queue statistics (backlog as gauges) and
 * the qdisc's own xstats (RED marked/early/pdrop/other, codel and fq_codel ecn_mark and
 * drop_overlimit), with the ECN switch and thresholds of its options.
 */
#include <errno.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "lib/nl.h"
#include "lib/util.h"
#include "monitor/sources/sources.h"

#define QD_MAX 32

struct qdisc_priv {
	struct nl_sock nl;	/* first: src_nl_open/src_nl_close own it */
	uint32_t ifindex;
	uint64_t ifindex_ns;	/* when the name was last checked to still name ifindex */
	struct src_qdisc_stats q[QD_MAX];
	size_t nq;		/* qdiscs of this dump (capped at QD_MAX) */
	char sig[QD_MAX][48];	/* name/kind of each qdisc the field list was built from */
	size_t nsig;
};

static int parse_red_opts(struct rd *opts, struct src_qdisc_stats *out)
{
	static const struct nl_policy pol[TCA_RED_PARMS + 1] = {
		[TCA_RED_PARMS] = { NL_T_BIN, sizeof(struct tc_red_qopt) },
	};
	struct nl_attr tb[TCA_RED_PARMS + 1];
	struct rd r;
	int rc = nl_attr_parse(opts, pol, TCA_RED_PARMS, tb);

	if (rc < 0)
		return rc;
	if (!tb[TCA_RED_PARMS].present)
		return 0;
	r = tb[TCA_RED_PARMS].val;
	out->limit = rd_h32(&r);
	out->qth_min = rd_h32(&r);
	out->qth_max = rd_h32(&r);
	rd_skip(&r, offsetof(struct tc_red_qopt, flags) - 3 * sizeof(uint32_t));
	out->red_flags = rd_u8(&r);
	out->ecn = (out->red_flags & TC_RED_ECN) ? 1 : 0;
	if (!rd_ok(&r))
		return -EBADMSG;
	out->have_red_parms = true;
	return 0;
}

static int parse_codel_opts(struct rd *opts, uint16_t ecn_attr, struct src_qdisc_stats *out)
{
	struct nl_policy pol[TCA_FQ_CODEL_MAX + 1];
	struct nl_attr tb[TCA_FQ_CODEL_MAX + 1];
	int rc;

	memset(pol, 0, sizeof(pol));
	pol[ecn_attr] = (struct nl_policy){ NL_T_U32, 0 };
	rc = nl_attr_parse(opts, pol, ecn_attr, tb);
	if (rc < 0)
		return rc;
	if (tb[ecn_attr].present) {
		out->ecn = nl_attr_u32(&tb[ecn_attr]) ? 1 : 0;
		out->have_ecn = true;
	}
	return 0;
}

static int parse_htb_opts(struct rd *opts, struct src_qdisc_stats *out)
{
	static const struct nl_policy pol[TCA_HTB_INIT + 1] = {
		[TCA_HTB_INIT] = { NL_T_BIN, sizeof(struct tc_htb_glob) },
	};
	struct nl_attr tb[TCA_HTB_INIT + 1];
	struct rd r;
	int rc = nl_attr_parse(opts, pol, TCA_HTB_INIT, tb);

	if (rc < 0)
		return rc;
	if (!tb[TCA_HTB_INIT].present)
		return 0;
	r = tb[TCA_HTB_INIT].val;
	rd_skip(&r, offsetof(struct tc_htb_glob, direct_pkts));
	out->direct_packets = rd_h32(&r);
	if (!rd_ok(&r))
		return -EBADMSG;
	out->have_htb = true;
	return 0;
}

/* The qdisc-specific statistics (TCA_STATS_APP, the same bytes as TCA_XSTATS). */
static int parse_app(struct rd *app, struct src_qdisc_stats *out)
{
	struct rd r = *app;

	if (!strcmp(out->kind, "red")) {
		out->early = rd_h32(&r);
		out->pdrop = rd_h32(&r);
		out->other = rd_h32(&r);
		out->marked = rd_h32(&r);
		if (!rd_ok(&r))
			return -EBADMSG;
		out->have_red = true;
	} else if (!strcmp(out->kind, "fq_codel")) {
		if (rd_h32(&r) != TCA_FQ_CODEL_XSTATS_QDISC)
			return rd_ok(&r) ? 0 : -EBADMSG;	/* class statistics */
		r = *app;
		rd_skip(&r, offsetof(struct tc_fq_codel_xstats, qdisc_stats.drop_overlimit));
		out->drop_overlimit = rd_h32(&r);
		out->marked = rd_h32(&r);	/* ecn_mark */
		r = *app;
		rd_skip(&r, offsetof(struct tc_fq_codel_xstats, qdisc_stats.ce_mark));
		out->ce_mark = rd_h32(&r);
		if (!rd_ok(&r))
			return -EBADMSG;
		out->have_codel = true;
	} else if (!strcmp(out->kind, "codel")) {
		rd_skip(&r, offsetof(struct tc_codel_xstats, drop_overlimit));
		out->drop_overlimit = rd_h32(&r);
		out->marked = rd_h32(&r);	/* ecn_mark */
		r = *app;
		rd_skip(&r, offsetof(struct tc_codel_xstats, ce_mark));
		out->ce_mark = rd_h32(&r);
		if (!rd_ok(&r))
			return -EBADMSG;
		out->have_codel = true;
	}
	return 0;
}

static int parse_stats2(struct rd *st, struct src_qdisc_stats *out)
{
	static const struct nl_policy pol[TCA_STATS_PKT64 + 1] = {
		[TCA_STATS_BASIC] = { NL_T_BIN, offsetof(struct gnet_stats_basic, packets) + 4 },
		[TCA_STATS_QUEUE] = { NL_T_BIN, sizeof(struct gnet_stats_queue) },
		[TCA_STATS_APP] = { NL_T_ANY, 0 },
		[TCA_STATS_PKT64] = { NL_T_U64, 0 },
	};
	struct nl_attr tb[TCA_STATS_PKT64 + 1];
	struct rd r;
	int rc = nl_attr_parse(st, pol, TCA_STATS_PKT64, tb);

	if (rc < 0)
		return rc;
	if (tb[TCA_STATS_BASIC].present) {
		r = tb[TCA_STATS_BASIC].val;
		out->bytes = rd_h64(&r);
		out->packets = rd_h32(&r);
		out->have_basic = rd_ok(&r);
	}
	if (tb[TCA_STATS_PKT64].present) {
		out->packets = nl_attr_u64(&tb[TCA_STATS_PKT64]);
		out->have_pkt64 = true;
	}
	if (tb[TCA_STATS_QUEUE].present) {
		r = tb[TCA_STATS_QUEUE].val;
		out->qlen = rd_h32(&r);
		out->backlog = rd_h32(&r);
		out->drops = rd_h32(&r);
		out->requeues = rd_h32(&r);
		out->overlimits = rd_h32(&r);
		out->have_queue = rd_ok(&r);
	}
	if (tb[TCA_STATS_APP].present) {
		r = tb[TCA_STATS_APP].val;
		rc = parse_app(&r, out);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int src_qdisc_parse(struct rd *payload, struct src_qdisc_stats *out)
{
	static const struct nl_policy pol[TCA_STATS2 + 1] = {
		[TCA_KIND] = { NL_T_STR, 0 },
		[TCA_OPTIONS] = { NL_T_ANY, 0 },
		[TCA_STATS2] = { NL_T_NEST, 0 },
	};
	struct nl_attr tb[TCA_STATS2 + 1];
	struct rd r;
	int rc;

	memset(out, 0, sizeof(*out));
	/* struct tcmsg: family, pad1, pad2 (u16), ifindex, handle, parent, info */
	rd_skip(payload, 4);
	out->ifindex = rd_h32(payload);
	out->handle = rd_h32(payload);
	out->parent = rd_h32(payload);
	rd_skip(payload, 4);
	if (!rd_ok(payload))
		return -EBADMSG;
	rc = nl_attr_parse(payload, pol, TCA_STATS2, tb);
	if (rc < 0)
		return rc;
	if (!tb[TCA_KIND].present)
		return -EBADMSG;
	rc = nl_attr_str(&tb[TCA_KIND], out->kind, sizeof(out->kind));
	if (rc < 0)
		return rc == -ERANGE ? -EBADMSG : rc;
	if (tb[TCA_OPTIONS].present) {
		r = tb[TCA_OPTIONS].val;
		if (!strcmp(out->kind, "red"))
			rc = parse_red_opts(&r, out);
		else if (!strcmp(out->kind, "fq_codel"))
			rc = parse_codel_opts(&r, TCA_FQ_CODEL_ECN, out);
		else if (!strcmp(out->kind, "codel"))
			rc = parse_codel_opts(&r, TCA_CODEL_ECN, out);
		else if (!strcmp(out->kind, "htb"))
			rc = parse_htb_opts(&r, out);
		if (rc < 0)
			return rc;
		if (out->have_red_parms)
			out->have_ecn = true;
	}
	if (tb[TCA_STATS2].present) {
		r = tb[TCA_STATS2].val;
		rc = parse_stats2(&r, out);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void src_qdisc_name(const struct src_qdisc_stats *q, char *buf, size_t size)
{
	if (q->handle)
		snprintf(buf, size, "%x", q->handle >> 16);
	else if (q->parent == TC_H_ROOT)
		snprintf(buf, size, "root");
	else
		snprintf(buf, size, "p%x-%x", q->parent >> 16, q->parent & 0xffff);
}

/* Append one value; NULL out just counts. */
static void put(struct src_qdisc_val *out, size_t max, size_t *n, const char *name,
		enum mon_kind kind, uint8_t width, const char *unit, bool valid, uint64_t v)
{
	if (out && *n < max)
		out[*n] = (struct src_qdisc_val){ .name = name, .kind = kind, .width = width,
						  .unit = unit, .valid = valid, .v = v };
	(*n)++;
}

size_t src_qdisc_values(const struct src_qdisc_stats *q, struct src_qdisc_val *out, size_t max)
{
	size_t n = 0;

	put(out, max, &n, "bytes", MON_COUNTER, 64, "B", q->have_basic, q->bytes);
	put(out, max, &n, "packets", MON_COUNTER, q->have_pkt64 ? 64 : 32, "packets",
	    q->have_basic || q->have_pkt64, q->packets);
	put(out, max, &n, "drops", MON_COUNTER, 32, "packets", q->have_queue, q->drops);
	put(out, max, &n, "overlimits", MON_COUNTER, 32, "events", q->have_queue, q->overlimits);
	put(out, max, &n, "requeues", MON_COUNTER, 32, "packets", q->have_queue, q->requeues);
	put(out, max, &n, "backlog_bytes", MON_GAUGE, 64, "B", q->have_queue, q->backlog);
	put(out, max, &n, "backlog_packets", MON_GAUGE, 64, "packets", q->have_queue, q->qlen);
	if (!strcmp(q->kind, "red")) {
		put(out, max, &n, "ecn_marked", MON_COUNTER, 32, "packets", q->have_red, q->marked);
		put(out, max, &n, "early_drops", MON_COUNTER, 32, "packets", q->have_red, q->early);
		put(out, max, &n, "pdrops", MON_COUNTER, 32, "packets", q->have_red, q->pdrop);
		put(out, max, &n, "other_drops", MON_COUNTER, 32, "packets", q->have_red,
		    q->other);
		put(out, max, &n, "min_bytes", MON_GAUGE, 64, "B", q->have_red_parms, q->qth_min);
		put(out, max, &n, "max_bytes", MON_GAUGE, 64, "B", q->have_red_parms, q->qth_max);
		put(out, max, &n, "limit_bytes", MON_GAUGE, 64, "B", q->have_red_parms, q->limit);
	} else if (!strcmp(q->kind, "fq_codel") || !strcmp(q->kind, "codel")) {
		put(out, max, &n, "ecn_marked", MON_COUNTER, 32, "packets", q->have_codel,
		    q->marked);
		put(out, max, &n, "drop_overlimit", MON_COUNTER, 32, "packets", q->have_codel,
		    q->drop_overlimit);
		put(out, max, &n, "ce_marked", MON_COUNTER, 32, "packets", q->have_codel,
		    q->ce_mark);
	} else if (!strcmp(q->kind, "htb")) {
		put(out, max, &n, "direct_packets", MON_COUNTER, 32, "packets", q->have_htb,
		    q->direct_packets);
	}
	if (!strcmp(q->kind, "red") || !strcmp(q->kind, "fq_codel") || !strcmp(q->kind, "codel"))
		put(out, max, &n, "ecn", MON_GAUGE, 64, "", q->have_ecn, q->ecn);
	return n;
}

struct dump_ctx {
	struct qdisc_priv *p;
	int err;
};

static int qdisc_cb(const struct nl_msg *m, void *arg)
{
	struct dump_ctx *c = arg;
	struct qdisc_priv *p = c->p;
	struct src_qdisc_stats q;
	struct rd r = m->payload;
	int rc;

	if (m->type != RTM_NEWQDISC)
		return 0;
	rc = src_qdisc_parse(&r, &q);
	if (rc < 0) {
		c->err = rc;	/* one bad reply: keep walking so the dump is drained */
		return 0;
	}
	if (q.ifindex != p->ifindex || p->nq >= QD_MAX)
		return 0;	/* the kernel dumps every interface's qdiscs */
	p->q[p->nq++] = q;
	return 0;
}

static int qdisc_dump(struct mon_src *s)
{
	struct qdisc_priv *p = s->priv;
	struct nlmsghdr *nlh = nl_sock_req(&p->nl, RTM_GETQDISC, NLM_F_DUMP);
	struct tcmsg *t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
	struct dump_ctx c = { .p = p };
	int rc;

	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = (int)p->ifindex;
	p->nq = 0;
	rc = nl_sock_talk(&p->nl, nlh, qdisc_cb, &c);
	if (!rc)
		rc = c.err;
	if (!rc && !p->nq && !if_indextoname(p->ifindex, (char[IF_NAMESIZE]){ 0 }))
		rc = -ENODEV;
	if (rc)
		snprintf(s->err, sizeof(s->err), "%s: RTM_GETQDISC dump: %s", s->dev,
			 rc == -ENODEV ? "interface gone" :
			 rc == -EBADMSG ? "malformed reply" : strerror(-rc));
	return rc;
}

static void qdisc_sig(const struct src_qdisc_stats *q, char *buf, size_t size)
{
	char name[24];

	src_qdisc_name(q, name, sizeof(name));
	snprintf(buf, size, "%s/%s", name, q->kind);
}

static int qdisc_init(struct mon_src *s)
{
	struct qdisc_priv *p;
	int rc = src_nl_open(s, sizeof(*p), NETLINK_ROUTE, "rtnetlink");

	if (rc)
		return rc;
	p = s->priv;
	snprintf(s->driver, sizeof(s->driver), "qdisc");
	p->ifindex = if_nametoindex(s->dev);
	if (!p->ifindex) {
		snprintf(s->err, sizeof(s->err), "interface %s: no such interface", s->dev);
		return -ENODEV;
	}
	return qdisc_dump(s);
}

static int qdisc_discover(struct mon_src *s)
{
	struct qdisc_priv *p = s->priv;
	struct src_qdisc_val v[24];
	char name[24], raw[MON_NAME_MAX], info[96];
	size_t i, k, nv, total = 0;
	int rc = qdisc_dump(s);

	if (rc)
		return rc;
	for (i = 0; i < p->nq; i++)
		total += src_qdisc_values(&p->q[i], NULL, 0);
	rc = src_fields_reserve(s, total);
	if (rc)
		return rc;
	total = 0;
	s->ninfo = 0;
	for (i = 0; i < p->nq; i++) {
		src_qdisc_name(&p->q[i], name, sizeof(name));
		nv = src_qdisc_values(&p->q[i], v, ARRAY_SIZE(v));
		for (k = 0; k < nv && k < ARRAY_SIZE(v); k++) {
			snprintf(raw, sizeof(raw), "%s.%s", name, v[k].name);
			src_field_set(&s->fields[total++], raw, v[k].kind, v[k].width, v[k].unit);
		}
		qdisc_sig(&p->q[i], p->sig[i], sizeof(p->sig[i]));
		snprintf(raw, sizeof(raw), "qdisc %s", name);
		if (p->q[i].parent == TC_H_ROOT)
			snprintf(info, sizeof(info), "%s root", p->q[i].kind);
		else
			snprintf(info, sizeof(info), "%s parent %x:%x", p->q[i].kind,
				 p->q[i].parent >> 16, p->q[i].parent & 0xffff);
		src_info_add(s, raw, info);
	}
	s->nfields = total;
	p->nsig = p->nq;
	return 0;
}

static int qdisc_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	struct qdisc_priv *p = s->priv;
	struct src_qdisc_val v[24];
	char sig[48];
	size_t i, k, nv, f = 0;
	int rc = src_ifindex_check(s, p->ifindex, &p->ifindex_ns);

	if (!rc)
		rc = qdisc_dump(s);
	if (rc)
		return rc;
	if (p->nq != p->nsig)
		return -ESTALE;
	for (i = 0; i < p->nq; i++) {
		qdisc_sig(&p->q[i], sig, sizeof(sig));
		if (strcmp(sig, p->sig[i]))
			return -ESTALE;
	}
	for (i = 0; i < p->nq; i++) {
		nv = src_qdisc_values(&p->q[i], v, ARRAY_SIZE(v));
		for (k = 0; k < nv && k < ARRAY_SIZE(v) && f < s->nfields; k++, f++) {
			vals[f] = v[k].v;
			valid[f] = v[k].valid;
		}
	}
	return 0;
}

const struct mon_src_ops src_qdisc_ops = {
	.name = "qdisc",
	.what = "qdisc statistics (rtnetlink RTM_GETQDISC)",
	.init = qdisc_init,
	.discover = qdisc_discover,
	.sample = qdisc_sample,
	.close = src_nl_close,
	.last_error = src_last_error,
};
