// SPDX-License-Identifier: GPL-2.0-or-later
/* test_monitor_sources.c: every counter source's reply parser, fed replies built from the
 * kernel uapi structures: good, truncated, malformed and with unknown attributes; and
 * the ethtool string sets of mlx5, ice and bnxt_en (tests/fixtures/monitor, each headed by
 * the driver file its strings come from) sampled through the catalog and the delta code.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>

#include "lib/hw/dcb.h"
#include "lib/util.h"
#include "monitor/catalog.h"
#include "monitor/sampler.h"
#include "monitor/sources/sources.h"

static uint8_t buf[64 * 1024];

/* The payload of a netlink message we built, as the parsers see it. */
static struct rd payload_of(const struct nlmsghdr *nlh)
{
	return rd_init(mnl_nlmsg_get_payload(nlh), mnl_nlmsg_get_payload_len(nlh));
}

/* Fixture lines "name<TAB>value"; returns the count. */
static size_t load_fixture(const char *name, char names[][ETH_GSTRING_LEN + 1],
			   uint64_t *vals, size_t max)
{
	char path[512], line[256];
	const char *root = getenv("PFCLAB_ROOT");
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/tests/fixtures/monitor/%s", root ? root : ".", name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && n < max) {
		char *tab = strchr(line, '\t');

		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		snprintf(names[n], ETH_GSTRING_LEN + 1, "%.32s", line);
		vals[n++] = strtoull(tab + 1, NULL, 10);
	}
	fclose(f);
	return n;
}

/* --- SIOCETHTOOL --------------------------------------------------------------- */

static void test_ethtool_sset(void **state)
{
	struct {
		struct ethtool_sset_info h;
		uint32_t data[1];
	} r = { .h = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_STATS },
		.data = { 42 } };
	uint32_t n = 0;

	(void)state;
	assert_int_equal(src_ethtool_parse_sset(&r, sizeof(r), &n), 0);
	assert_int_equal(n, 42);
	/* Truncated: the count is missing. */
	assert_int_equal(src_ethtool_parse_sset(&r, sizeof(r.h), &n), -EBADMSG);
	assert_int_equal(src_ethtool_parse_sset(&r, 3, &n), -EBADMSG);
	/* The driver has no statistics set: unsupported, not zero counters. */
	r.h.sset_mask = 0;
	assert_int_equal(src_ethtool_parse_sset(&r, sizeof(r), &n), -EOPNOTSUPP);
	/* A reply to another command is malformed. */
	r.h.cmd = ETHTOOL_GSTATS;
	assert_int_equal(src_ethtool_parse_sset(&r, sizeof(r), &n), -EBADMSG);
}

static void test_ethtool_strings_stats_mlx5(void **state)
{
	static char names[64][ETH_GSTRING_LEN + 1];
	static uint64_t vals[64], got[64];
	struct ethtool_gstrings *gs = (void *)buf;
	struct ethtool_stats *st = (void *)buf;
	struct mon_field f[64];
	struct mon_catalog *cat;
	struct mon_catalog_hit hit;
	size_t n, i, slen, vlen;

	(void)state;
	n = load_fixture("mlx5_ethtool_stats.handmade.txt", names, vals, 64);
	assert_true(n > 20);
	memset(buf, 0, sizeof(buf));
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = (uint32_t)n;
	for (i = 0; i < n; i++)	/* a 32-char name fills its slot with no NUL */
		memcpy(gs->data + i * ETH_GSTRING_LEN, names[i],
		       strnlen(names[i], ETH_GSTRING_LEN));
	slen = sizeof(*gs) + n * ETH_GSTRING_LEN;
	assert_int_equal(src_ethtool_parse_strings(buf, slen, (uint32_t)n, f), 0);
	for (i = 0; i < n; i++)
		assert_string_equal(f[i].raw, names[i]);
	assert_int_equal(strlen(f[n - 1].raw), 32);
	/* Size changed since GSSET_INFO: stale, re-read. */
	assert_int_equal(src_ethtool_parse_strings(buf, slen, (uint32_t)n - 1, f), -ESTALE);
	/* Truncated in the middle of a name. */
	assert_int_equal(src_ethtool_parse_strings(buf, slen - 5, (uint32_t)n, f), -EBADMSG);
	assert_int_equal(src_ethtool_parse_strings(buf, 8, (uint32_t)n, f), -EBADMSG);

	/* The catalog names the PFC, ECN and PCIe counters of this mlx5 set. */
	assert_int_equal(mon_catalog_builtin(&cat), 0);
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core", "rx_prio3_pause", -1,
					    &hit), 1);
	assert_string_equal(hit.metric, "pfc.rx.prio3.frames");
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "tx_prio3_pause_duration", -1, &hit), 1);
	assert_string_equal(hit.metric, "pfc.tx.prio3.pause_us");
	assert_string_equal(hit.unit, "us");
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "outbound_pci_stalled_wr", -1, &hit), 1);
	assert_string_equal(hit.metric, "pcie.nic.stalled_wr");
	/* a share of the last second (0..100) the NIC computes: a gauge, never a delta */
	assert_string_equal(hit.unit, "%");
	assert_int_equal(hit.kind, MON_GAUGE);
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "outbound_pci_stalled_wr_events", -1, &hit), 1);
	assert_string_equal(hit.unit, "s");	/* seconds above 30% */
	assert_int_equal(hit.kind, MON_COUNTER);
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "outbound_pci_buffer_overflow", -1, &hit), 1);
	assert_string_equal(hit.unit, "packets");
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core", "rx_prio3_marked", -1,
					    &hit), 1);
	/* what the NIC marked for host congestion, not CE arrivals */
	assert_string_equal(hit.metric, "ecn.host_marked.prio3");
	/* rx_out_of_buffer is a 32-bit counter */
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core", "rx_out_of_buffer", -1,
					    &hit), 1);
	assert_int_equal(hit.width, 32);
	/* the storm warning with and without the trailing space of older kernels */
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "tx_pause_storm_warning_events", -1, &hit), 1);
	assert_string_equal(hit.metric, "pfc.storm.warning");
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "tx_pause_storm_warning_events ", -1, &hit), 1);
	assert_string_equal(hit.metric, "pfc.storm.warning");
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core",
					    "tx_pause_storm_warning_events_x", -1, &hit), 0);
	/* Not mlx5: the mlx5 names do not apply. */
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "veth", "rx_prio3_pause", -1, &hit),
			 0);
	/* {p} is one digit only. */
	assert_int_equal(mon_catalog_lookup(cat, "ethtool", "mlx5_core", "rx_prio33_pause", -1,
					    &hit), 0);
	mon_catalog_free(cat);

	memset(buf, 0, sizeof(buf));
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = (uint32_t)n;
	memcpy(st->data, vals, n * sizeof(uint64_t));
	vlen = sizeof(*st) + n * sizeof(uint64_t);
	assert_int_equal(src_ethtool_parse_stats(buf, vlen, (uint32_t)n, got), 0);
	assert_memory_equal(got, vals, n * sizeof(uint64_t));
	assert_int_equal(src_ethtool_parse_stats(buf, vlen - 1, (uint32_t)n, got), -EBADMSG);
	assert_int_equal(src_ethtool_parse_stats(buf, vlen, (uint32_t)n + 1, got), -ESTALE);
	assert_int_equal(src_ethtool_parse_stats(buf, 4, (uint32_t)n, got), -EBADMSG);
}

/* --- ethtool string sets from the drivers, sampled ----------------------------------- */

#define FX_NAMES 256
#define FX_SAMPLES 8

/* A fixture of several samples: "name<TAB>v0<TAB>v1...", each headed by the upstream file
 * (and release) its strings come from. Read, it goes through the ethtool parsers and the
 * engine's per-column delta code as the monitor would take it: columns from the built-in
 * catalog, one reading a second.
 */
struct fx {
	size_t n, ns;
	char names[FX_NAMES][ETH_GSTRING_LEN + 1];
	uint64_t v[FX_SAMPLES][FX_NAMES];
	struct mon_col col[FX_NAMES];
	struct mon_val val[FX_SAMPLES][FX_NAMES];
	struct mon_catalog *cat;	/* the columns' units point into it */
};

static void fx_load(const char *name, struct fx *x)
{
	char path[512], line[512];
	const char *root = getenv("PFCLAB_ROOT");
	FILE *f;

	x->n = x->ns = 0;
	snprintf(path, sizeof(path), "%s/tests/fixtures/monitor/%s", root ? root : ".", name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(strstr(line, "Strings: Linux drivers/"));	/* headed by its source */
	while (fgets(line, sizeof(line), f) && x->n < FX_NAMES) {
		char *tab = strchr(line, '\t'), *p;
		size_t k = 0;

		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		snprintf(x->names[x->n], sizeof(x->names[0]), "%.32s", line);
		for (p = tab + 1; *p && *p != '\n' && k < FX_SAMPLES; k++) {
			x->v[k][x->n] = strtoull(p, &p, 10);
			if (*p == '\t')
				p++;
		}
		if (!x->n)
			x->ns = k;
		assert_int_equal(k, x->ns);	/* every name has every sample */
		x->n++;
	}
	fclose(f);
	assert_true(x->n > 10 && x->ns >= 2);
}

static void fx_run(struct fx *x, const char *driver)
{
	static struct mon_field f[FX_NAMES];
	static uint64_t got[FX_NAMES];
	struct ethtool_gstrings *gs = (void *)buf;
	struct ethtool_stats *st = (void *)buf;
	struct mon_catalog_hit hit;
	size_t i, k;

	memset(buf, 0, sizeof(buf));
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = (uint32_t)x->n;
	for (i = 0; i < x->n; i++)
		memcpy(gs->data + i * ETH_GSTRING_LEN, x->names[i],
		       strnlen(x->names[i], ETH_GSTRING_LEN));
	assert_int_equal(src_ethtool_parse_strings(buf, sizeof(*gs) + x->n * ETH_GSTRING_LEN,
						   (uint32_t)x->n, f), 0);
	assert_int_equal(mon_catalog_builtin(&x->cat), 0);
	for (i = 0; i < x->n; i++) {	/* as the engine makes its columns */
		struct mon_col *c = &x->col[i];

		memset(c, 0, sizeof(*c));
		assert_string_equal(f[i].raw, x->names[i]);
		c->kind = f[i].kind;
		c->unit = f[i].unit ? f[i].unit : "";
		c->width = f[i].width ? f[i].width : 64;
		if (mon_catalog_lookup(x->cat, "ethtool", driver, f[i].raw, -1, &hit)) {
			snprintf(c->metric, sizeof(c->metric), "%s", hit.metric);
			c->unit = hit.unit;
			c->kind = hit.kind;
			if (hit.width)
				c->width = hit.width;
		}
	}
	for (k = 0; k < x->ns; k++) {
		memset(buf, 0, sizeof(buf));
		st->cmd = ETHTOOL_GSTATS;
		st->n_stats = (uint32_t)x->n;
		memcpy(st->data, x->v[k], x->n * sizeof(uint64_t));
		assert_int_equal(src_ethtool_parse_stats(buf, sizeof(*st) + x->n * 8,
							 (uint32_t)x->n, got), 0);
		for (i = 0; i < x->n; i++)
			mon_val_update(&x->col[i], &x->val[k][i], got[i],
				       (uint64_t)(k + 1) * 1000000000ULL, 0);
	}
}

static void fx_free(struct fx *x)
{
	mon_catalog_free(x->cat);
	x->cat = NULL;
}

static size_t fx_find(const struct fx *x, const char *name)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		if (!strcmp(x->names[i], name))
			return i;
	fail_msg("no '%s' in the fixture", name);
	return 0;
}

/* Sample k's delta of name, and its metric. */
static uint64_t fx_delta(const struct fx *x, const char *name, size_t k, const char *metric)
{
	size_t i = fx_find(x, name);

	assert_string_equal(x->col[i].metric, metric);
	assert_int_equal(x->col[i].kind, MON_COUNTER);
	assert_true(x->val[k][i].flags & MON_V_DELTA);
	return x->val[k][i].delta;
}

/* No column read as reset anywhere: every counter in these sets only grows or wraps. */
static void fx_no_reset(const struct fx *x)
{
	size_t i, k;

	for (k = 0; k < x->ns; k++)
		for (i = 0; i < x->n; i++)
			if (x->val[k][i].flags & MON_V_RESET)
				fail_msg("%s flagged as reset at sample %zu", x->names[i], k);
}

static void test_ethtool_fixture_mlx5(void **state)
{
	static struct fx x;
	const char *stall[] = { "outbound_pci_stalled_wr", "outbound_pci_stalled_rd" };
	size_t i, j, k;
	int falls = 0;

	(void)state;
	fx_load("mlx5_ethtool_stats.en_stats.txt", &x);
	fx_run(&x, "mlx5_core");
	fx_no_reset(&x);
	/* The PCIe stall shares: a percentage gauge, read as it is, up and down, never a
	 * delta, never a reset when it falls. */
	for (j = 0; j < ARRAY_SIZE(stall); j++) {
		i = fx_find(&x, stall[j]);
		assert_int_equal(x.col[i].kind, MON_GAUGE);
		assert_string_equal(x.col[i].unit, "%");
		assert_string_equal(x.col[i].metric, j ? "pcie.nic.stalled_rd" : "pcie.nic.stalled_wr");
		for (k = 0; k < x.ns; k++) {
			const struct mon_val *v = &x.val[k][i];

			assert_true(v->flags & MON_V_VALID);
			assert_int_equal(v->raw, x.v[k][i]);
			assert_true(v->raw <= 100);
			assert_false(v->flags & (MON_V_DELTA | MON_V_RESET | MON_V_WRAP));
			if (k && x.v[k][i] < x.v[k - 1][i]) {
				falls++;
				assert_true(v->flags & MON_V_CHANGED);
			}
		}
	}
	assert_true(falls >= 3);	/* 85 -> 40 -> 0, 3 -> 1 -> 0 */
	i = fx_find(&x, "outbound_pci_stalled_wr");
	assert_int_equal(x.val[1][i].raw, 85);
	/* seconds above 30%: a counter */
	assert_int_equal(fx_delta(&x, "outbound_pci_stalled_wr_events", 1,
				  "pcie.nic.stalled_wr_events"), 1);
	assert_string_equal(x.col[fx_find(&x, "outbound_pci_stalled_wr_events")].unit, "s");
	assert_int_equal(fx_delta(&x, "outbound_pci_buffer_overflow", 2,
				  "pcie.nic.buffer_overflow"), 17);
	/* rx_out_of_buffer wraps at 2^32 between samples 2 and 3 */
	i = fx_find(&x, "rx_out_of_buffer");
	assert_int_equal(x.col[i].width, 32);
	assert_true(x.val[3][i].flags & MON_V_WRAP);
	assert_int_equal(fx_delta(&x, "rx_out_of_buffer", 3, "discard.rx_buffer"), 11);
	/* pause time on priority 3: 100 ms in a second, 10% of the time */
	assert_int_equal(fx_delta(&x, "tx_prio3_pause_duration", 1, "pfc.tx.prio3.pause_us"),
			 100000);
	assert_true(fabs(x.val[1][fx_find(&x, "tx_prio3_pause_duration")].rate - 1e5) < 1e-6);
	assert_int_equal(fx_delta(&x, "tx_prio3_pause", 2, "pfc.tx.prio3.frames"), 4000);
	assert_int_equal(fx_delta(&x, "rx_prio3_marked", 1, "ecn.host_marked.prio3"), 100);
	assert_int_equal(fx_delta(&x, "dev_out_of_buffer", 2, "discard.dev_buffer"), 3);
	assert_int_equal(fx_delta(&x, "pci_bw_inbound_high", 1, "pcie.nic.bw_inbound_high"), 1);
	assert_int_equal(fx_delta(&x, "tx_pci_signal_integrity", 2,
				  "pcie.nic.signal_integrity_tx"), 1);
	assert_int_equal(fx_delta(&x, "rx_buffer_passed_thres_phy", 1,
				  "buffer.rx_over_threshold"), 28);
	assert_int_equal(fx_delta(&x, "link_down_events_phy", 1, "link.down_events"), 0);
	fx_free(&x);
}

static void test_ethtool_fixture_ice(void **state)
{
	static struct fx x;
	char raw[40], metric[40];
	const char *dir[] = { "rx", "tx" };
	size_t d, k;
	unsigned int p;

	(void)state;
	fx_load("ice_ethtool_stats.ice_ethtool.txt", &x);
	fx_run(&x, "ice");
	fx_no_reset(&x);
	/* every priority's four PFC counters, with their ".nic" names, are named */
	for (d = 0; d < 2; d++)
		for (p = 0; p < 8; p++)
			for (k = 1; k < x.ns; k++) {
				size_t on, off;

				snprintf(raw, sizeof(raw), "%s_priority_%u_xon.nic", dir[d], p);
				snprintf(metric, sizeof(metric), "pfc.%s.prio%u.xon", dir[d], p);
				on = fx_find(&x, raw);
				assert_int_equal(fx_delta(&x, raw, k, metric),
						 x.v[k][on] - x.v[k - 1][on]);
				snprintf(raw, sizeof(raw), "%s_priority_%u_xoff.nic", dir[d], p);
				snprintf(metric, sizeof(metric), "pfc.%s.prio%u.frames", dir[d], p);
				off = fx_find(&x, raw);
				assert_int_equal(fx_delta(&x, raw, k, metric),
						 x.v[k][off] - x.v[k - 1][off]);
				if (p != 3)
					assert_int_equal(x.val[k][off].delta, 0);
			}
	/* PFC on priority 3: 200 XOFF frames sent and 1 received in the second second */
	assert_int_equal(fx_delta(&x, "tx_priority_3_xoff.nic", 1, "pfc.tx.prio3.frames"), 200);
	assert_int_equal(fx_delta(&x, "rx_priority_3_xoff.nic", 1, "pfc.rx.prio3.frames"), 1);
	/* the old names without ".nic" name nothing; nor do the other ice counters */
	assert_string_equal(x.col[fx_find(&x, "link_xoff_rx.nic")].metric, "");
	{
		struct mon_catalog *cat;
		struct mon_catalog_hit hit;

		assert_int_equal(mon_catalog_builtin(&cat), 0);
		assert_int_equal(mon_catalog_lookup(cat, "ethtool", "ice", "rx_priority_3_xoff", -1,
						    &hit), 0);
		mon_catalog_free(cat);
	}
	fx_free(&x);
}

static void test_ethtool_fixture_bnxt(void **state)
{
	static struct fx x;

	(void)state;
	fx_load("bnxt_en_ethtool_stats.bnxt_ethtool.txt", &x);
	fx_run(&x, "bnxt_en");
	fx_no_reset(&x);
	assert_int_equal(fx_delta(&x, "rx_pfc_ena_frames_pri3", 1, "pfc.rx.prio3.frames"), 100);
	assert_int_equal(fx_delta(&x, "tx_pfc_ena_frames_pri3", 1, "pfc.tx.prio3.frames"), 5);
	/* pause time per priority in microseconds: 50 ms of the second second */
	assert_int_equal(fx_delta(&x, "pfc_pri3_rx_duration_us", 1, "pfc.rx.prio3.pause_us"),
			 50000);
	assert_string_equal(x.col[fx_find(&x, "pfc_pri3_rx_duration_us")].unit, "us");
	assert_int_equal(fx_delta(&x, "pfc_pri3_tx_duration_us", 2, "pfc.tx.prio3.pause_us"),
			 20000);
	assert_int_equal(fx_delta(&x, "pfc_pri3_rx_transitions", 2, "pfc.rx.prio3.transitions"),
			 30);
	assert_int_equal(fx_delta(&x, "pfc_pri3_tx_transitions", 2, "pfc.tx.prio3.transitions"),
			 4);
	assert_int_equal(fx_delta(&x, "pfc_pri0_rx_duration_us", 1, "pfc.rx.prio0.pause_us"), 0);
	assert_int_equal(fx_delta(&x, "continuous_pause_events", 2, "pause.continuous_events"),
			 1);
	assert_int_equal(fx_delta(&x, "resume_pause_events", 2, "pause.resume_events"), 1);
	assert_int_equal(fx_delta(&x, "rx_buffer_passed_threshold", 1,
				  "buffer.rx_over_threshold"), 4);
	assert_int_equal(fx_delta(&x, "rx_discard_packets_cos3", 2, "discard.rx_cos3"), 9);
	assert_int_equal(fx_delta(&x, "rx_pause_frames", 1, "pause.rx.frames"), 0);
	/* ring counters ("[0]: ...") and bytes per CoS are not in the catalog */
	assert_string_equal(x.col[fx_find(&x, "[0]: rx_ucast_packets")].metric, "");
	assert_string_equal(x.col[fx_find(&x, "rx_discard_bytes_cos3")].metric, "");
	fx_free(&x);
}

/* --- ethtool netlink PAUSE_GET ----------------------------------------------------- */

static struct nlmsghdr *genl_reply(uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	nlh->nlmsg_type = 30;
	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

static void test_pause_reply(void **state)
{
	struct src_pause_reply rep;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct rd r;

	(void)state;
	nlh = genl_reply(ETHTOOL_MSG_PAUSE_GET_REPLY);
	nest = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_HEADER);
	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, 7);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, "eth9");
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_AUTONEG, 0);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_RX, 1);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_TX, 0);
	mnl_attr_put_u32(nlh, 200, 0xdead);	/* unknown attribute: skipped */
	nest = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
	mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 1234);
	mnl_attr_put_u64(nlh, 77, 5);		/* unknown statistic: skipped */
	mnl_attr_nest_end(nlh, nest);
	r = payload_of(nlh);
	assert_int_equal(src_ethtool_nl_parse_pause(&r, &rep), 0);
	assert_true(rep.have_rx && rep.rx == 1);
	assert_true(rep.have_tx && rep.tx == 0);
	assert_true(rep.have_tx_frames);
	assert_int_equal(rep.tx_frames, 1234);
	/* The driver did not report RX frames: absent, so n/a, never 0. */
	assert_false(rep.have_rx_frames);

	/* Truncated: cut the last attribute short. */
	r = rd_init(mnl_nlmsg_get_payload(nlh), mnl_nlmsg_get_payload_len(nlh) - 6);
	assert_int_equal(src_ethtool_nl_parse_pause(&r, &rep), -EBADMSG);
	/* Shorter than the genl header. */
	r = rd_init(mnl_nlmsg_get_payload(nlh), 2);
	assert_int_equal(src_ethtool_nl_parse_pause(&r, &rep), -EBADMSG);

	/* Malformed: a u64 statistic carried in 4 bytes. */
	nlh = genl_reply(ETHTOOL_MSG_PAUSE_GET_REPLY);
	nest = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
	mnl_attr_put_u32(nlh, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 9);
	mnl_attr_nest_end(nlh, nest);
	r = payload_of(nlh);
	assert_int_equal(src_ethtool_nl_parse_pause(&r, &rep), -EBADMSG);

	/* Malformed: an attribute length pointing past the message. */
	nlh = genl_reply(ETHTOOL_MSG_PAUSE_GET_REPLY);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_RX, 1);
	((struct nlattr *)((uint8_t *)mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN))->nla_len = 200;
	r = payload_of(nlh);
	assert_int_equal(src_ethtool_nl_parse_pause(&r, &rep), -EBADMSG);

	/* Malformed: a header that claims less than its own size. */
	((struct nlattr *)((uint8_t *)mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN))->nla_len = 2;
	r = payload_of(nlh);
	assert_int_equal(src_ethtool_nl_parse_pause(&r, &rep), -EBADMSG);
}

/* --- DCB IEEE_GET ------------------------------------------------------------------ */

static struct nlmsghdr *dcb_reply(void)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct dcbmsg *d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));

	nlh->nlmsg_type = RTM_GETDCB;
	d->cmd = DCB_CMD_IEEE_GET;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "eth9");
	return nlh;
}

static void test_dcb_reply(void **state)
{
	struct ieee_pfc pfc = { .pfc_cap = 8, .pfc_en = 1 << 3 };
	struct hw_dcb_pfc out;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct rd r;
	int p;

	(void)state;
	for (p = 0; p < 8; p++) {
		pfc.requests[p] = 100 + (uint64_t)p;
		pfc.indications[p] = 200 + (uint64_t)p;
	}
	nlh = dcb_reply();
	nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, 8, "\0\0\0\0\0\0\0");	/* not ours */
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	mnl_attr_put_u32(nlh, 99, 1);				/* unknown */
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, 4);			/* other top level */
	r = payload_of(nlh);
	assert_int_equal(hw_dcb_parse_ieee(&r, &out), 0);
	assert_true(out.have_pfc);
	assert_int_equal(out.pfc_en, 1 << 3);
	assert_int_equal(out.requests[3], 103);
	assert_int_equal(out.indications[7], 207);

	/* No PFC attribute (CEE-only driver): no data, not zeros. */
	nlh = dcb_reply();
	nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_nest_end(nlh, nest);
	r = payload_of(nlh);
	assert_int_equal(hw_dcb_parse_ieee(&r, &out), 0);
	assert_false(out.have_pfc);

	/* Malformed: struct ieee_pfc cut short. */
	nlh = dcb_reply();
	nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc) - 8, &pfc);
	mnl_attr_nest_end(nlh, nest);
	r = payload_of(nlh);
	assert_int_equal(hw_dcb_parse_ieee(&r, &out), -EBADMSG);
	assert_false(out.have_pfc);

	/* Truncated message: shorter than struct dcbmsg. */
	r = rd_init(mnl_nlmsg_get_payload(nlh), 2);
	assert_int_equal(hw_dcb_parse_ieee(&r, &out), -EBADMSG);

	/* Malformed: interface name without its NUL. */
	nlh = mnl_nlmsg_put_header(buf);
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct dcbmsg));
	mnl_attr_put(nlh, DCB_ATTR_IFNAME, 4, "eth9");
	r = payload_of(nlh);
	assert_int_equal(hw_dcb_parse_ieee(&r, &out), -EBADMSG);
}

/* --- RDMA netlink STAT_GET --------------------------------------------------------- */

static struct nlmsghdr *rdma_stat_reply(char names[][ETH_GSTRING_LEN + 1], uint64_t *vals,
					size_t n, bool junk)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlattr *tab, *ent;
	size_t i;

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	if (junk)
		mnl_attr_put_u64(nlh, 4000, 1);		/* unknown, above every max */
	tab = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	for (i = 0; i < n; i++) {
		ent = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, names[i]);
		mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, vals[i]);
		if (junk)
			mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, 0);
		mnl_attr_nest_end(nlh, ent);
	}
	if (junk)
		mnl_attr_put_u32(nlh, 3999, 7);	/* unknown inside the table */
	mnl_attr_nest_end(nlh, tab);
	return nlh;
}

static void test_rdma_stat_reply(void **state)
{
	static char names[32][ETH_GSTRING_LEN + 1];
	static uint64_t vals[32];
	struct src_rdma_counter out[32];
	struct mon_catalog *cat;
	struct mon_catalog_hit hit;
	struct nlmsghdr *nlh;
	struct rd r;
	size_t n, got, i;

	(void)state;
	n = load_fixture("mlx5_rdma_hw_counters.handmade.txt", names, vals, 32);
	assert_true(n >= 10);
	nlh = rdma_stat_reply(names, vals, n, true);
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_stat(&r, out, 32, &got), 0);
	assert_int_equal(got, n);
	for (i = 0; i < n; i++) {
		assert_string_equal(out[i].name, names[i]);
		assert_int_equal(out[i].value, vals[i]);
	}
	/* More counters than room: counted, not written past the array. */
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_stat(&r, out, 2, &got), 0);
	assert_int_equal(got, n);

	assert_int_equal(mon_catalog_builtin(&cat), 0);
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "mlx5_core", "np_cnp_sent", -1, &hit), 1);
	assert_string_equal(hit.metric, "cnp.sent");
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "mlx5_core", "out_of_buffer", -1, &hit),
			 1);
	assert_int_equal(hit.width, 32);	/* a Q counter: wraps at 2^32 */
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "rxe", "sent_pkts", -1, &hit), 1);
	assert_string_equal(hit.metric, "rdma.tx.packets");
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "irdma", "cnpSent", -1, &hit), 1);
	assert_string_equal(hit.metric, "cnp.sent");
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "bnxt_en", "rx_ecn_marked_pkts", -1,
					    &hit), 1);
	assert_string_equal(hit.metric, "ecn.marked");
	/* bnxt_re counts CNPs received, not handled; rxe's completer counts every retry */
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "bnxt_re", "rx_cnp_pkts", -1, &hit), 1);
	assert_string_equal(hit.metric, "cnp.received");
	assert_int_equal(mon_catalog_lookup(cat, "rdma", "rxe", "completer_retry_err", -1, &hit),
			 1);
	assert_string_equal(hit.metric, "rdma.retries");
	mon_catalog_free(cat);

	/* Truncated anywhere: an error, never a crash or a partial success. */
	for (i = 1; i < mnl_nlmsg_get_payload_len(nlh); i += 7) {
		int rc;

		r = rd_init(mnl_nlmsg_get_payload(nlh), i);
		rc = src_rdma_parse_stat(&r, out, 32, &got);
		assert_true(rc == -EBADMSG || rc == -ENODATA);
	}

	/* No counter table at all (device without hw stats). */
	nlh = rdma_stat_reply(names, vals, 0, false);
	r = rd_init(mnl_nlmsg_get_payload(nlh), 28);	/* index, name, port: no table */
	assert_int_equal(src_rdma_parse_stat(&r, out, 32, &got), -ENODATA);

	/* Malformed: an entry without its value. */
	nlh = mnl_nlmsg_put_header(buf);
	{
		struct nlattr *tab = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
		struct nlattr *ent = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);

		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "x");
		mnl_attr_nest_end(nlh, ent);
		mnl_attr_nest_end(nlh, tab);
	}
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_stat(&r, out, 32, &got), -EBADMSG);
}

static void test_rdma_dev_reply(void **state)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	char name[16];
	uint32_t idx;
	struct rd r;

	(void)state;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 5);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_FW_VERSION, "1.0");
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_dev(&r, &idx, name, sizeof(name)), 0);
	assert_int_equal(idx, 5);
	assert_string_equal(name, "rxe0");
	/* A name longer than the caller's buffer. */
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_dev(&r, &idx, name, 3), -ERANGE);
	/* Missing index. */
	nlh = mnl_nlmsg_put_header(buf);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_dev(&r, &idx, name, sizeof(name)), -EBADMSG);
	/* The index as a u16: too short for its policy. */
	nlh = mnl_nlmsg_put_header(buf);
	mnl_attr_put_u16(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 5);
	r = payload_of(nlh);
	assert_int_equal(src_rdma_parse_dev(&r, &idx, name, sizeof(name)), -EBADMSG);
}

/* --- rtnetlink RTM_GETSTATS -------------------------------------------------------- */

static void test_link_stats_reply(void **state)
{
	struct rtnl_link_stats64 st64 = { .rx_packets = 10, .tx_packets = 20, .rx_bytes = 1500,
					  .tx_bytes = 3000, .rx_dropped = 2 };
	struct src_link_stats out;
	struct if_stats_msg *ifsm;
	struct nlmsghdr *nlh;
	struct rd r;

	(void)state;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWSTATS;
	ifsm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifsm));
	ifsm->ifindex = 9;
	ifsm->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
	mnl_attr_put_u32(nlh, IFLA_STATS_LINK_XSTATS + 40, 1);	/* unknown */
	mnl_attr_put(nlh, IFLA_STATS_LINK_64, sizeof(st64), &st64);
	r = payload_of(nlh);
	assert_int_equal(src_link_parse_stats(&r, &out), 0);
	assert_int_equal(out.ifindex, 9);
	assert_true(out.have64);
	assert_int_equal(out.v[0], 10);
	assert_int_equal(out.v[2], 1500);
	assert_int_equal(out.v[3], 3000);
	assert_int_equal(out.v[6], 2);
	assert_true(out.nv >= 23);

	/* An older, shorter struct: only what is there. */
	nlh = mnl_nlmsg_put_header(buf);
	ifsm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifsm));
	ifsm->ifindex = 9;
	mnl_attr_put(nlh, IFLA_STATS_LINK_64, 8 * 4, &st64);
	r = payload_of(nlh);
	assert_int_equal(src_link_parse_stats(&r, &out), 0);
	assert_int_equal(out.nv, 4);

	/* Truncated inside struct if_stats_msg. */
	r = rd_init(mnl_nlmsg_get_payload(nlh), 6);
	assert_int_equal(src_link_parse_stats(&r, &out), -EBADMSG);
	/* Malformed: stats64 shorter than one counter. */
	nlh = mnl_nlmsg_put_header(buf);
	mnl_nlmsg_put_extra_header(nlh, sizeof(*ifsm));
	mnl_attr_put(nlh, IFLA_STATS_LINK_64, 4, &st64);
	r = payload_of(nlh);
	assert_int_equal(src_link_parse_stats(&r, &out), -EBADMSG);
}

/* --- PCI sysfs text ---------------------------------------------------------------- */

static void test_pci_text(void **state)
{
	static const char aer[] = "RxErr 0\nBadTLP 2\nBadDLLP 1\nTOTAL_ERR_COR 3\n";
	uint64_t v = 0;

	(void)state;
	assert_int_equal(src_pci_parse_aer(aer, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(src_pci_parse_aer("RxErr 0\n", &v), -ENOENT);
	assert_int_equal(src_pci_parse_aer("TOTAL_ERR_FATAL x\n", &v), -EINVAL);
	assert_int_equal(src_pci_parse_aer("", &v), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ethtool_sset),
		cmocka_unit_test(test_ethtool_strings_stats_mlx5),
		cmocka_unit_test(test_ethtool_fixture_mlx5),
		cmocka_unit_test(test_ethtool_fixture_ice),
		cmocka_unit_test(test_ethtool_fixture_bnxt),
		cmocka_unit_test(test_pause_reply),
		cmocka_unit_test(test_dcb_reply),
		cmocka_unit_test(test_rdma_stat_reply),
		cmocka_unit_test(test_rdma_dev_reply),
		cmocka_unit_test(test_link_stats_reply),
		cmocka_unit_test(test_pci_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
