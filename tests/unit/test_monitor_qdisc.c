// SPDX-License-Identifier: GPL-2.0-or-later
/* test_monitor_qdisc.c: the qdisc source's RTM_NEWQDISC parser and value list, fed replies
 * built from the uapi structures (RED, fq_codel, codel, htb, tbf; truncated and malformed),
 * and the catalog names the values get.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "lib/util.h"
#include "monitor/catalog.h"
#include "monitor/sources/sources.h"

static uint8_t buf[16 * 1024];

struct reply {
	const char *kind;		/* NULL: no TCA_KIND */
	uint32_t handle, parent;
	const void *opts_attr;		/* one attribute inside TCA_OPTIONS */
	uint16_t opts_type;
	size_t opts_len;
	const void *app;		/* TCA_STATS_APP bytes */
	size_t app_len;
	size_t basic_len;		/* 0: sizeof(struct gnet_stats_basic) */
	size_t queue_len;		/* 0: sizeof(struct gnet_stats_queue) */
	bool pkt64;
};

static const struct gnet_stats_basic basic = { .bytes = 123456789012ULL, .packets = 4242 };
static const struct gnet_stats_queue queue = {
	.qlen = 7, .backlog = 10500, .drops = 11, .requeues = 2, .overlimits = 300,
};

static struct rd build(const struct reply *r)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *t;
	struct nlattr *n;

	nlh->nlmsg_type = RTM_NEWQDISC;
	t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = 5;
	t->tcm_handle = r->handle;
	t->tcm_parent = r->parent;
	if (r->kind)
		mnl_attr_put_strz(nlh, TCA_KIND, r->kind);
	if (r->opts_attr) {
		n = mnl_attr_nest_start(nlh, TCA_OPTIONS);
		mnl_attr_put(nlh, r->opts_type, r->opts_len, r->opts_attr);
		mnl_attr_nest_end(nlh, n);
	}
	n = mnl_attr_nest_start(nlh, TCA_STATS2);
	mnl_attr_put(nlh, TCA_STATS_BASIC, r->basic_len ? r->basic_len : sizeof(basic), &basic);
	mnl_attr_put(nlh, TCA_STATS_QUEUE, r->queue_len ? r->queue_len : sizeof(queue), &queue);
	if (r->app)
		mnl_attr_put(nlh, TCA_STATS_APP, r->app_len, r->app);
	if (r->pkt64)
		mnl_attr_put_u64(nlh, TCA_STATS_PKT64, 5000000000ULL);
	mnl_attr_nest_end(nlh, n);
	return rd_init(mnl_nlmsg_get_payload(nlh), mnl_nlmsg_get_payload_len(nlh));
}

/* The value named name of q's list; fails the test when absent. */
static struct src_qdisc_val val_of(const struct src_qdisc_stats *q, const char *name)
{
	struct src_qdisc_val v[24];
	size_t i, n = src_qdisc_values(q, v, ARRAY_SIZE(v));

	assert_true(n <= ARRAY_SIZE(v));
	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i];
	fail_msg("no value %s", name);
	return v[0];
}

static bool has_val(const struct src_qdisc_stats *q, const char *name)
{
	struct src_qdisc_val v[24];
	size_t i, n = src_qdisc_values(q, v, ARRAY_SIZE(v));

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return true;
	return false;
}

static void test_red(void **state)
{
	struct tc_red_xstats x = { .early = 3, .pdrop = 4, .other = 5, .marked = 987 };
	struct tc_red_qopt o = { .limit = 400000, .qth_min = 30000, .qth_max = 90000,
				 .Wlog = 9, .Plog = 19, .flags = TC_RED_ECN };
	struct reply r = { .kind = "red", .handle = 0x20000, .parent = 0x10010,
			   .opts_attr = &o, .opts_type = TCA_RED_PARMS, .opts_len = sizeof(o),
			   .app = &x, .app_len = sizeof(x) };
	struct src_qdisc_stats q;
	struct rd p = build(&r);
	char name[24];

	(void)state;
	assert_int_equal(src_qdisc_parse(&p, &q), 0);
	assert_int_equal(q.ifindex, 5);
	assert_string_equal(q.kind, "red");
	src_qdisc_name(&q, name, sizeof(name));
	assert_string_equal(name, "2");
	assert_true(val_of(&q, "ecn_marked").valid);
	assert_int_equal(val_of(&q, "ecn_marked").v, 987);
	assert_int_equal(val_of(&q, "ecn_marked").kind, MON_COUNTER);
	assert_int_equal(val_of(&q, "ecn_marked").width, 32);
	assert_int_equal(val_of(&q, "early_drops").v, 3);
	assert_int_equal(val_of(&q, "pdrops").v, 4);
	assert_int_equal(val_of(&q, "other_drops").v, 5);
	assert_int_equal(val_of(&q, "ecn").v, 1);
	assert_int_equal(val_of(&q, "min_bytes").v, 30000);
	assert_int_equal(val_of(&q, "max_bytes").v, 90000);
	assert_int_equal(val_of(&q, "limit_bytes").v, 400000);
	assert_int_equal(val_of(&q, "bytes").v, 123456789012ULL);
	assert_int_equal(val_of(&q, "packets").v, 4242);
	assert_int_equal(val_of(&q, "packets").width, 32);
	assert_int_equal(val_of(&q, "backlog_bytes").v, 10500);
	assert_int_equal(val_of(&q, "backlog_bytes").kind, MON_GAUGE);
	assert_int_equal(val_of(&q, "backlog_packets").v, 7);
	assert_int_equal(val_of(&q, "drops").v, 11);
	assert_int_equal(val_of(&q, "overlimits").v, 300);
	assert_int_equal(val_of(&q, "requeues").v, 2);

	/* ECN off: the flag reads 0, still valid */
	o.flags = 0;
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), 0);
	assert_true(val_of(&q, "ecn").valid);
	assert_int_equal(val_of(&q, "ecn").v, 0);

	/* no xstats: RED values are n/a, never 0 */
	r.app = NULL;
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), 0);
	assert_false(val_of(&q, "ecn_marked").valid);

	/* xstats shorter than struct tc_red_xstats */
	r.app = &x;
	r.app_len = sizeof(x) - 1;
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), -EBADMSG);

	/* RED options shorter than struct tc_red_qopt */
	r.app_len = sizeof(x);
	r.opts_len = offsetof(struct tc_red_qopt, flags);
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), -EBADMSG);
}

static void test_fq_codel(void **state)
{
	struct tc_fq_codel_xstats x = { .type = TCA_FQ_CODEL_XSTATS_QDISC };
	uint32_t ecn = 1;
	struct reply r = { .kind = "fq_codel", .handle = 0, .parent = TC_H_ROOT,
			   .opts_attr = &ecn, .opts_type = TCA_FQ_CODEL_ECN,
			   .opts_len = sizeof(ecn), .app = &x, .app_len = sizeof(x),
			   .pkt64 = true };
	struct src_qdisc_stats q;
	struct rd p;
	char name[24];

	(void)state;
	x.qdisc_stats.ecn_mark = 55;
	x.qdisc_stats.drop_overlimit = 66;
	x.qdisc_stats.ce_mark = 77;
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), 0);
	src_qdisc_name(&q, name, sizeof(name));
	assert_string_equal(name, "root");
	assert_int_equal(val_of(&q, "ecn_marked").v, 55);
	assert_int_equal(val_of(&q, "drop_overlimit").v, 66);
	assert_int_equal(val_of(&q, "ce_marked").v, 77);
	assert_int_equal(val_of(&q, "ecn").v, 1);
	assert_int_equal(val_of(&q, "packets").v, 5000000000ULL);
	assert_int_equal(val_of(&q, "packets").width, 64);

	/* class statistics (type 1) carry no qdisc counters: n/a */
	x.type = TCA_FQ_CODEL_XSTATS_CLASS;
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), 0);
	assert_false(val_of(&q, "ecn_marked").valid);

	/* truncated before ce_mark */
	x.type = TCA_FQ_CODEL_XSTATS_QDISC;
	r.app_len = offsetof(struct tc_fq_codel_xstats, qdisc_stats.ce_mark);
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), -EBADMSG);
}

static void test_codel(void **state)
{
	struct tc_codel_xstats x = { .drop_overlimit = 8, .ecn_mark = 9, .ce_mark = 10 };
	struct reply r = { .kind = "codel", .handle = 0x80010000, .parent = TC_H_ROOT,
			   .app = &x, .app_len = sizeof(x) };
	struct src_qdisc_stats q;
	struct rd p = build(&r);
	char name[24];

	(void)state;
	assert_int_equal(src_qdisc_parse(&p, &q), 0);
	src_qdisc_name(&q, name, sizeof(name));
	assert_string_equal(name, "8001");
	assert_int_equal(val_of(&q, "ecn_marked").v, 9);
	assert_int_equal(val_of(&q, "drop_overlimit").v, 8);
	assert_false(val_of(&q, "ecn").valid);	/* no options: not known */
}

static void test_htb_tbf(void **state)
{
	struct tc_htb_glob g = { .version = 3, .rate2quantum = 10, .defcls = 0x10,
				 .direct_pkts = 12 };
	struct tc_tbf_qopt t = { .limit = 10000 };
	struct reply r = { .kind = "htb", .handle = 0x10000, .parent = TC_H_ROOT,
			   .opts_attr = &g, .opts_type = TCA_HTB_INIT, .opts_len = sizeof(g) };
	struct src_qdisc_stats q;
	struct rd p = build(&r);

	(void)state;
	assert_int_equal(src_qdisc_parse(&p, &q), 0);
	assert_int_equal(val_of(&q, "direct_packets").v, 12);
	assert_int_equal(val_of(&q, "overlimits").v, 300);
	assert_false(has_val(&q, "ecn_marked"));
	assert_false(has_val(&q, "ecn"));

	r = (struct reply){ .kind = "tbf", .handle = 0x30000, .parent = 0x10001,
			    .opts_attr = &t, .opts_type = TCA_TBF_PARMS, .opts_len = sizeof(t) };
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), 0);
	assert_int_equal(val_of(&q, "overlimits").v, 300);
	assert_int_equal(val_of(&q, "drops").v, 11);
	assert_int_equal(val_of(&q, "backlog_bytes").v, 10500);
	assert_int_equal(src_qdisc_values(&q, NULL, 0), 7);

	/* htb options shorter than struct tc_htb_glob */
	r = (struct reply){ .kind = "htb", .handle = 0x10000, .parent = TC_H_ROOT,
			    .opts_attr = &g, .opts_type = TCA_HTB_INIT, .opts_len = 8 };
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), -EBADMSG);
}

static void test_malformed(void **state)
{
	struct reply r = { .kind = "pfifo", .handle = 0x10000, .parent = TC_H_ROOT };
	struct src_qdisc_stats q;
	struct rd p;
	char name[24];
	size_t full, cut;
	uint8_t junk[3] = { 1, 2, 3 };

	(void)state;
	/* handle 0 under a parent class */
	r.handle = 0;
	r.parent = 0x10002;
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), 0);
	src_qdisc_name(&q, name, sizeof(name));
	assert_string_equal(name, "p1-2");

	/* short basic and queue statistics are dropped by the policy */
	r.basic_len = 8;
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), -EBADMSG);
	r.basic_len = 0;
	r.queue_len = 16;
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), -EBADMSG);
	r.queue_len = 0;

	/* no kind */
	r.kind = NULL;
	p = build(&r);
	assert_int_equal(src_qdisc_parse(&p, &q), -EBADMSG);
	r.kind = "pfifo";

	/* every truncation of a good reply: an error or fewer values, never a read past */
	p = build(&r);
	full = rd_left(&p);
	for (cut = 0; cut < full; cut++) {
		struct rd t = rd_init(p.p, cut);
		int rc = src_qdisc_parse(&t, &q);

		assert_true(rc == 0 || rc == -EBADMSG);
		if (cut < sizeof(struct tcmsg))
			assert_int_equal(rc, -EBADMSG);
	}

	/* header shorter than struct tcmsg */
	p = rd_init(junk, sizeof(junk));
	assert_int_equal(src_qdisc_parse(&p, &q), -EBADMSG);
}

static void test_catalog(void **state)
{
	struct mon_catalog *cat;
	struct mon_catalog_hit hit;

	(void)state;
	assert_int_equal(mon_catalog_builtin(&cat), 0);
	assert_int_equal(mon_catalog_lookup_dev(cat, "qdisc", "qdisc", "veth1", "2.ecn_marked",
						-1, &hit), 1);
	assert_string_equal(hit.metric, "qdisc.veth1.2.ecn_marked");
	assert_int_equal(hit.kind, MON_COUNTER);
	assert_int_equal(mon_catalog_lookup_dev(cat, "qdisc", "qdisc", "br0p2",
						"root.backlog_bytes", -1, &hit), 1);
	assert_string_equal(hit.metric, "qdisc.br0p2.root.backlog_bytes");
	assert_int_equal(hit.kind, MON_GAUGE);
	assert_int_equal(mon_catalog_lookup_dev(cat, "qdisc", "qdisc", "v", "p1-2.drops", -1,
						&hit), 1);
	assert_string_equal(hit.metric, "qdisc.v.p1-2.drops");
	assert_int_equal(mon_catalog_lookup_dev(cat, "qdisc", "qdisc", "v", "a.b.drops", -1,
						&hit), 0);
	mon_catalog_free(cat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_red),
		cmocka_unit_test(test_fq_codel),
		cmocka_unit_test(test_codel),
		cmocka_unit_test(test_htb_tbf),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_catalog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
