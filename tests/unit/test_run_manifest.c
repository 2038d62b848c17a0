// SPDX-License-Identifier: GPL-2.0-or-later
/* test_run_manifest.c: what `pfclab run` makes of each host's answers before a run: the
 * manifest probe's sections (hostname, kernel, ethtool -i, carrier changes, the doctor's
 * items; a section missing or empty is null) and the `pfclab version` check (exit codes,
 * launchers, other versions). Regressions of fuzz_manifest: an empty section is null, not
 * the next marker; text from a host that is not UTF-8, or a doctor detail cut inside a
 * character, still gives a manifest that is JSON.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "scripts/run/manifest.h"
#include "scripts/run/run.h"
#include "version.h" /* generated: $(BUILD)/gen */

/* manifest_parse_probe over text; the entry as compact JSON into buf. */
static json_object *probe(const char *text, char *buf, size_t n)
{
	json_object *o = json_object_new_object();
	char *out = strdup(text);

	assert_non_null(out);
	manifest_parse_probe(o, out, NULL, NULL);
	free(out);
	snprintf(buf, n, "%s", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	return o;
}

static const char *str_at(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

/* Both NULL, or equal strings. */
static bool same(const char *got, const char *want)
{
	return got && want ? !strcmp(got, want) : got == want;
}

/* The serialised entry reads back the same under strict UTF-8 validation. */
static void assert_json_utf8(json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	struct json_tokener *tok = json_tokener_new();
	json_object *again;

	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	again = json_tokener_parse_ex(tok, s, (int)strlen(s) + 1);
	assert_non_null(again);
	assert_true(json_object_equal(o, again));
	json_object_put(again);
	json_tokener_free(tok);
}

static void test_probe_sections(void **state)
{
	static const char text[] =
		"@@doctor\n{\n  \"host\":\"h1\",\n  \"items\":[\n"
		"    {\"section\":\"pci\",\"item\":\"link\",\"level\":\"OK\",\"detail\":\"16GT x16\",\"fix\":null},\n"
		"    {\"section\":\"qos\",\"item\":\"pfc\",\"detail\":\"prio 3\"},\n"
		"    {\"section\":\"qos\",\"item\":7,\"level\":\"OK\",\"detail\":\"dropped: not a string\"},\n"
		"    5\n  ]\n}\n\n"
		"@@carrier\n4\n"
		"@@driver\ndriver: mlx5_core\nversion: 6.8\nfirmware-version: 28.39.1002 (MT_0000000838)\n"
		"expansion-rom-version: \nbus-info: 0000:17:00.0\nsupports-statistics: yes\n"
		"@@kernel\n6.8.0-45-generic\n@@hostname\nh1\n";
	json_object *o, *v, *d;
	char buf[4096];

	(void)state;
	o = probe(text, buf, sizeof(buf));
	assert_string_equal(str_at(o, "hostname"), "h1");
	assert_string_equal(str_at(o, "kernel"), "6.8.0-45-generic");
	assert_string_equal(str_at(o, "carrier_changes"), "4");
	assert_true(json_object_object_get_ex(o, "driver", &d));
	assert_string_equal(str_at(d, "driver"), "mlx5_core");
	assert_string_equal(str_at(d, "firmware-version"), "28.39.1002 (MT_0000000838)");
	assert_string_equal(str_at(d, "bus-info"), "0000:17:00.0");
	assert_false(json_object_object_get_ex(d, "expansion-rom-version", &v));
	assert_false(json_object_object_get_ex(d, "supports-statistics", &v));
	assert_true(json_object_object_get_ex(o, "doctor", &d));
	assert_non_null(strstr(buf, "\"pci\":{\"link\":\"OK: 16GT x16\"}"));
	assert_non_null(strstr(buf, "\"qos\":{\"pfc\":\"?: prio 3\"}"));
	assert_null(strstr(buf, "not a string"));
	assert_json_utf8(o);
	json_object_put(o);
}

/* The GPU a host used, as its doctor found it: by index or by PCI address (lspci's short
 * form too), its distance to the host's RDMA device; null where the doctor did not say,
 * never guessed; no GPU given: gpu is null. */
static void test_probe_gpu(void **state)
{
	static const char doc[] =
		"@@doctor\n{\"items\":[],\"gpus\":["
		"{\"index\":0,\"bdf\":\"0000:19:00.0\",\"rdma\":{\"mlx5_0\":\"PIX\",\"mlx5_2\":\"SYS\"}},"
		"{\"index\":1,\"bdf\":\"0000:9a:00.0\",\"rdma\":{\"mlx5_0\":\"SYS\",\"mlx5_2\":\"PIX\"}},"
		"{\"index\":2,\"bdf\":\"0000:9b:00.0\",\"rdma\":{\"mlx5_0\":\"FAR\"}},"
		"{\"index\":3,\"bdf\":\"0000:c0:00.0\",\"rdma\":null}]}\n"
		"@@hostname\nh\n";
	static const struct {
		const char *gpu, *rdma;
		const char *bdf, *distance;	/* NULL: null */
	} t[] = {
		{ "0", "mlx5_0", "0000:19:00.0", "PIX" },
		{ "9a:00.0", "mlx5_0", "0000:9a:00.0", "SYS" },
		{ "0000:9a:00.0", "mlx5_2", "0000:9a:00.0", "PIX" },
		{ "1", "mlx5_9", "0000:9a:00.0", NULL },	/* no such NIC there */
		{ "2", "mlx5_0", "0000:9b:00.0", NULL },	/* not a class: not kept */
		{ "3", "mlx5_0", "0000:c0:00.0", NULL },	/* no PCI RDMA device */
		{ "7", "mlx5_0", NULL, NULL },			/* no such GPU there */
		{ "0", NULL, "0000:19:00.0", NULL },		/* no RDMA device given */
	};
	json_object *o, *g, *v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *out = strdup(doc);

		o = json_object_new_object();
		manifest_parse_probe(o, out, t[i].gpu, t[i].rdma);
		free(out);
		assert_true(json_object_object_get_ex(o, "gpu", &g));
		assert_non_null(g);
		if (!same(str_at(g, "given"), t[i].gpu) || !same(str_at(g, "bdf"), t[i].bdf) ||
		    !same(str_at(g, "rdma"), t[i].rdma) || !same(str_at(g, "distance"), t[i].distance))
			fail_msg("case %zu: %s", i, json_object_to_json_string(g));
		json_object_put(o);
	}
	/* no GPU given, and a doctor without a gpus list (an older pfclab) */
	{
		char *out = strdup("@@doctor\n{\"items\":[]}\n@@hostname\nh\n");

		o = json_object_new_object();
		manifest_parse_probe(o, out, NULL, "mlx5_0");
		assert_true(json_object_object_get_ex(o, "gpu", &v));
		assert_null(v);
		json_object_put(o);
		strcpy(out, "@@doctor\n{\"items\":[]}\n@@hostname\nh\n");
		o = json_object_new_object();
		manifest_parse_probe(o, out, "0", "mlx5_0");
		json_object_object_get_ex(o, "gpu", &g);
		assert_string_equal(str_at(g, "given"), "0");
		assert_null(str_at(g, "bdf"));
		assert_null(str_at(g, "distance"));
		free(out);
		json_object_put(o);
	}
}

static void test_probe_missing(void **state)
{
	/* no doctor report, no carrier file, no ethtool: nulls and the doctor's n/a */
	static const char *const texts[] = {
		"@@doctor\n\n@@carrier\n@@driver\n@@kernel\n6.1.0\n@@hostname\nh2\n",
		"",
		"garbage without sections\n",
		"@@hostname\n",
	};
	json_object *o, *v;
	char buf[4096];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		o = probe(texts[i], buf, sizeof(buf));
		assert_null(str_at(o, "carrier_changes"));
		assert_true(json_object_object_get_ex(o, "driver", &v));
		assert_null(v);
		assert_non_null(strstr(str_at(o, "doctor"), "n/a"));
		assert_json_utf8(o);
		json_object_put(o);
	}
}

/* A section left empty (lo has no `ethtool -i`; a netdev may have no carrier_changes) is
 * null: it once took the next section's marker line as its text, so lo's driver was {}
 * and a missing carrier file read "@@driver" (fuzz_manifest). Markers count only at the
 * start of a line. */
static void test_probe_empty_sections(void **state)
{
	static const struct {
		const char *text, *carrier, *driver, *kernel, *hostname;
	} t[] = {
		{ "@@doctor\n{}\n\n@@carrier\n0\n@@driver\n@@kernel\n6.1\n@@hostname\nlo-host\n",
		  "0", NULL, "6.1", "lo-host" },
		{ "@@doctor\n\n@@carrier\n@@driver\ndriver: veth\n@@kernel\n6.1\n@@hostname\nh\n",
		  NULL, "veth", "6.1", "h" },
		{ "@@doctor\n@@carrier\n@@driver\n@@kernel\n@@hostname\n", NULL, NULL, NULL, NULL },
		{ "@@carrier\nx@@kernel\n@@driver\n@@kernel\n6.1\n@@hostname\n@@x\n",
		  "x@@kernel", NULL, "6.1", NULL },
	};
	json_object *o, *d;
	char buf[4096];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		o = probe(t[i].text, buf, sizeof(buf));
		if (!json_object_object_get_ex(o, "driver", &d))
			fail_msg("probe %zu: no driver key", i);
		if (!same(str_at(o, "carrier_changes"), t[i].carrier) ||
		    (t[i].driver ? !same(str_at(d, "driver"), t[i].driver) : d != NULL) ||
		    !same(str_at(o, "kernel"), t[i].kernel) || !same(str_at(o, "hostname"), t[i].hostname))
			fail_msg("probe %zu: %s", i, buf);
		json_object_put(o);
	}
}

static void test_probe_utf8(void **state)
{
	char text[4096], detail[1300], buf[8192];
	json_object *o, *d, *q;
	const char *v;
	size_t n;

	(void)state;
	/* Bytes that are not UTF-8 become '?'; UTF-8 stays as it came. */
	o = probe("@@carrier\n\xff\xfe" "1\n@@driver\ndriver: x\xc3\n"
		  "firmware-version: v\xe2\x82\xac 1\n@@kernel\n6.1\xed\xa0\x80\n"
		  "@@hostname\nh\xc3\xb4te\n", buf, sizeof(buf));
	assert_string_equal(str_at(o, "carrier_changes"), "??1");
	assert_string_equal(str_at(o, "hostname"), "h\xc3\xb4te");
	assert_string_equal(str_at(o, "kernel"), "6.1???");
	assert_true(json_object_object_get_ex(o, "driver", &d));
	assert_string_equal(str_at(d, "driver"), "x?");
	assert_string_equal(str_at(d, "firmware-version"), "v\xe2\x82\xac 1");
	assert_json_utf8(o);
	json_object_put(o);

	/* A doctor detail (valid UTF-8) longer than the manifest keeps, cut inside its
	 * 2-byte character: the half character becomes '?'. "OK: " + 1194 'a' + e-acute
	 * puts the character on bytes 1198-1199 of the 1199 kept. */
	memset(detail, 'a', 1194);
	memcpy(detail + 1194, "\xc3\xa9 end", 7);
	n = (size_t)snprintf(text, sizeof(text),
			     "@@doctor\n{\"items\":[{\"section\":\"s\xc3\xa9\",\"item\":\"i\xff\","
			     "\"level\":\"OK\",\"detail\":\"%s\"}]}\n\n@@hostname\nh\n", detail);
	assert_true(n < sizeof(text));
	o = probe(text, buf, sizeof(buf));
	assert_true(json_object_object_get_ex(o, "doctor", &d));
	assert_true(json_object_object_get_ex(d, "s\xc3\xa9", &q));
	v = str_at(q, "i?");
	assert_true(v && strlen(v) == 1199 && v[1198] == '?');
	assert_json_utf8(o);
	json_object_put(o);
}

/* The NIC's congestion settings from the doctor's "nic" object: DCQCN (debugfs names,
 * from the inbox mlx5 cc_params; MLNX_OFED with its enable switches), the buffer split and
 * the PFC storm timeout; values of the wrong type are null, never kept or made 0; a
 * doctor that gave no "nic" (veth: every field null; an older pfclab) leaves every field
 * null. */
static void test_probe_nic(void **state)
{
	static const char inbox[] =
		"@@doctor\n{\"host\":\"h1\",\"items\":[],\"nic\":{\"netdev\":\"eth2\","
		"\"dcqcn\":{\"source\":\"debugfs\",\"params\":{\"rp_ai_rate\":5,\"rp_hai_rate\":50,"
		"\"np_cnp_dscp\":48,\"rp_min_rate\":null,\"np_cnp_prio\":\"6\"},\"enable\":null},"
		"\"buffer\":{\"buffer_size\":\"Port buffer size = 262016\",\"prio2buffer\":null,"
		"\"trust\":\"dscp\",\"dscp2prio\":7},\"pfc_storm_timeout_ms\":100,"
		"\"pfc_storm_timeout_auto\":false}}\n"
		"@@kernel\n6.8\n@@hostname\nh1\n";
	static const char ofed[] =
		"@@doctor\n{\"items\":[],\"nic\":{\"dcqcn\":{\"source\":\"mlnx_ofed\",\"params\":"
		"{\"roce_rp.rpg_ai_rate\":5},\"enable\":{\"rp\":[0,0,0,1,0,0,0,0],\"np\":[0,0,0,1]}},"
		"\"pfc_storm_timeout_ms\":\"100\"}}\n@@hostname\nh1\n";
	static const char veth[] =
		"@@doctor\n{\"items\":[],\"nic\":{\"netdev\":\"va\",\"dcqcn\":{\"source\":null,"
		"\"params\":{},\"enable\":null},\"buffer\":{\"buffer_size\":null,\"prio2buffer\":null,"
		"\"trust\":null,\"dscp2prio\":null},\"pfc_storm_timeout_ms\":null,"
		"\"pfc_storm_timeout_auto\":false}}\n@@hostname\nh1\n";
	/* the virtual lab's emulated link, pfclab link --dcqcn (lab/link/dcqcn_io.c) */
	static const char link[] =
		"@@doctor\n{\"items\":[],\"nic\":{\"netdev\":\"va\",\"dcqcn\":{\"source\":"
		"\"pfclab_link\",\"params\":{\"rp_time_reset\":300000,\"rp_ai_rate_bps\":2500},"
		"\"enable\":null}}}\n@@hostname\nh1\n";
	json_object *o;
	char buf[4096];

	(void)state;
	o = probe(link, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"dcqcn\":{\"source\":\"pfclab_link\",\"params\":"
				    "{\"rp_time_reset\":300000,\"rp_ai_rate_bps\":2500},\"enable\":null}"));
	json_object_put(o);
	o = probe(inbox, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"dcqcn\":{\"source\":\"debugfs\",\"params\":{\"rp_ai_rate\":5,"
				    "\"rp_hai_rate\":50,\"np_cnp_dscp\":48,\"rp_min_rate\":null,"
				    "\"np_cnp_prio\":null},\"enable\":null}"));
	assert_non_null(strstr(buf, "\"buffer\":{\"buffer_size\":\"Port buffer size = 262016\","
				    "\"prio2buffer\":null,\"trust\":\"dscp\",\"dscp2prio\":null}"));
	assert_non_null(strstr(buf, "\"pfc_storm_timeout_ms\":100,\"pfc_storm_timeout_auto\":false"));
	json_object_put(o);
	o = probe(ofed, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"dcqcn\":{\"source\":\"mlnx_ofed\",\"params\":{\"roce_rp.rpg_ai_rate\":5},"
				    "\"enable\":{\"rp\":[0,0,0,1,0,0,0,0],\"np\":[0,0,0,1,null,null,null,null]}}"));
	assert_non_null(strstr(buf, "\"pfc_storm_timeout_ms\":null"));	/* a string: not kept */
	assert_non_null(strstr(buf, "\"buffer\":{\"buffer_size\":null,\"prio2buffer\":null,"
				    "\"trust\":null,\"dscp2prio\":null}"));
	json_object_put(o);
	o = probe(veth, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"dcqcn\":{\"source\":null,\"params\":{},\"enable\":null},"
				    "\"buffer\":{\"buffer_size\":null,\"prio2buffer\":null,\"trust\":null,"
				    "\"dscp2prio\":null},\"pfc_storm_timeout_ms\":null"));
	json_object_put(o);
	/* no doctor report at all: the same fields, null */
	o = probe("@@kernel\n6.8\n@@hostname\nh1\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"dcqcn\":{\"source\":null,\"params\":{},\"enable\":null}"));
	assert_non_null(strstr(buf, "\"pfc_storm_timeout_ms\":null,\"pfc_storm_timeout_auto\":null"));
	json_object_put(o);
}

static void test_version_answers(void **state)
{
	static const struct {
		bool ssh;
		int code;
		const char *out, *errs;
		int rc;
		const char *has;
	} t[] = {
		{ false, 0, "pfclab " PFCLAB_VERSION "\n", NULL, 0, NULL },
		{ true, 0, "pfclab " PFCLAB_VERSION, "", 0, NULL },
		{ false, 0, "pfclab 0.0-other\nmore\n", NULL, -EPROTO, "runs pfclab 0.0-other, this host" },
		{ false, 0, "pfclab " PFCLAB_VERSION "-dirty\n", NULL, -EPROTO, "-dirty, this host" },
		{ true, 255, NULL, "ssh: connect to host a port 22: refused\nsecond\n", -EHOSTUNREACH,
		  "unreachable: ssh: connect to host a port 22: refused; check" },
		{ false, 255, NULL, "x", -EIO, "failed (exit 255): x" },
		{ false, 127, NULL, "sh: pfclab: not found", -ENOENT, "cannot run 'pfclab version' (sh: pfclab: not found)" },
		{ false, -1, NULL, NULL, -ENOENT, "(no message)" },
		{ false, 0, "usage: something else\n", NULL, -EIO, "failed (exit 0): no message" },
		{ false, 0, NULL, NULL, -EIO, "failed (exit 0)" },
		{ false, 1, "pfclab " PFCLAB_VERSION "\n", "oops\n", -EIO, "failed (exit 1): oops" },
	};
	struct exp_host eh = { .name = (char *)"a" };
	char out[256], errs[256], err[1024];
	struct run_host rh;
	struct run_ctx c;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&rh, 0, sizeof(rh));
		rh.h = &eh;
		snprintf(rh.pfclab, sizeof(rh.pfclab), "pfclab");
		snprintf(rh.reach, sizeof(rh.reach), "%s", t[i].ssh ? "a" : "");
		c = (struct run_ctx){ .lops = t[i].ssh ? &launch_ssh_ops : &launch_local_ops,
				      .hosts = &rh, .nhosts = 1 };
		snprintf(out, sizeof(out), "%s", t[i].out ? t[i].out : "");
		snprintf(errs, sizeof(errs), "%s", t[i].errs ? t[i].errs : "");
		err[0] = '\0';
		rc = manifest_version_answer(&c, 0, t[i].code, t[i].out ? out : NULL,
					     t[i].errs ? errs : NULL, err, sizeof(err));
		if (rc != t[i].rc || (t[i].has && !strstr(err, t[i].has)))
			fail_msg("answer %zu: rc %d (expected %d), err '%s'", i, rc, t[i].rc, err);
		assert_int_equal(rh.lost, rc == -EHOSTUNREACH);
		if (!rc)
			assert_string_equal(rh.version, PFCLAB_VERSION);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_sections),
		cmocka_unit_test(test_probe_missing),
		cmocka_unit_test(test_probe_gpu),
		cmocka_unit_test(test_probe_empty_sections),
		cmocka_unit_test(test_probe_utf8),
		cmocka_unit_test(test_probe_nic),
		cmocka_unit_test(test_version_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
