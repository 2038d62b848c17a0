// SPDX-License-Identifier: GPL-2.0-or-later
/* test_run_exp.c: experiment files: every error names file, line and key; host values
 * checked as the subcommands they go to check them; sweep expansion (cross product, last
 * variable fastest, ${var} substituted); the plan of a point; a path that is a directory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/util.h"
#include "scripts/run/exp.h"
#include "scripts/run/run.h"

struct err_case {
	const char *text;
	const char *want; /* expected error message (exact) */
};

#define X16 "xxxxxxxxxxxxxxxx"
#define X64 X16 X16 X16 X16
#define X65 X64 "x"
#define X101 X64 X16 X16 "xxxxx"

static void test_errors(void **state)
{
	static const struct err_case cases[] = {
		{ "name: t\nhosts:\n  a: {addr: 10.0.0.1, rdma: rxe0, netdev: va}\n  b: {rdma: rxe1, netdev: vb}\n"
		  "phases:\n  - traffic:\n      from: b\n      to: a\n      size: 64Q\n",
		  "exp.yaml:9: phases[0].traffic.size: '64Q' is not valid for pfclab traffic -s; give a size from 1 "
		  "byte to 64M" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nphases:\n  - duration: 10 s\n",
		  "exp.yaml:5: phases[0].duration: '10 s' is not a duration; give e.g. 500ms, 10s or 2m" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nphases:\n  - duration: 169h\n",
		  "exp.yaml:5: phases[0].duration: '169h' is longer than 7 days" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nphases:\n  - duration: 0s\n",
		  "exp.yaml:5: phases[0].duration: an idle or inject phase of no time does nothing; give it a "
		  "duration above 0 (e.g. 2s) or leave the phase out" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nphases:\n  - duration: 1.5ns\n",
		  "exp.yaml:5: phases[0].duration: '1.5ns' is not a whole number of nanoseconds" },
		{ "name: t\nhost:\n  a: {netdev: va}\n",
		  "exp.yaml:2: experiment: unknown key 'host'; known keys: name, description, launcher, hosts, "
		  "monitor, capture, sweep, repetitions, retries, phases, bottleneck" },
		{ "name: t\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4}\nphases:\n  - traffic: {from: a, to: c}\n",
		  "exp.yaml:5: phases[0].traffic.to: no host 'c' under hosts:" },
		{ "hosts:\n  a: {netdev: va}\n",
		  "exp.yaml:1: name: missing; name the experiment (results/<name>-<time>/)" },
		{ "name: t\nhosts:\n  a: {netdev: va\n",
		  NULL /* a YAML syntax error: checked by prefix below */ },
		{ "name: t\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4}\n  b: {netdev: vb, rdma: s}\n"
		  "sweep:\n  s: [4K]\nphases:\n  - traffic: {from: b, note: \"x\", to: a, size: ${s}}\n",
		  "exp.yaml:8: not valid YAML: did not find expected ',' or '}' while parsing a flow mapping; "
		  "a value that starts with ${ inside { } or [ ] is quoted: {size: \"${s}\"}" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nphases:\n  - duration: ${d}\n",
		  "exp.yaml:5: phases[0].duration: '${d}': no sweep variable 'd' (sweep: names them)" },
		{ "name: t\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4}\n  b: {netdev: vb, rdma: s}\n"
		  "sweep:\n  sz: [4K, 1X]\nphases:\n  - traffic: {from: b, to: a, size: \"${sz}\"}\n",
		  "exp.yaml:8: phases[0].traffic.size: '1X' is not valid for pfclab traffic -s; give a size from 1 "
		  "byte to 64M (sweep sz = '1X')" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nphases:\n  - duration: 1s\n    inject:\n      - {host: a, kind: pfx}\n",
		  "exp.yaml:7: phases[0].inject[0].kind: 'pfx' is not an inject kind; give pause, pfc, cnp, roce, "
		  "cnp-on-ce or pfc-on-backlog" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nrepetitions: 0\n",
		  "exp.yaml:4: repetitions: '0' is not a whole number in 1..1000" },
		{ "name: t\nlauncher: pbs\n",
		  "exp.yaml:2: launcher: 'pbs': give local, ssh or slurm" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nphases:\n  - duration: 1s\n    pre:\n      - {host: a, run: x, essential: maybe}\n",
		  "exp.yaml:7: phases[0].pre[0].essential: 'maybe' is not true or false" },
		{ "name: t\nhosts:\n  a: {rdma: x}\n",
		  "exp.yaml:3: hosts.a: no netdev: name the host's RDMA network interface (netdev: eth2), monitored and captured on" },
		{ "name: t\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4}\n  b: {netdev: vb, rdma: s}\n"
		  "phases:\n  - traffic: {from: b, to: a, qp: 300}\n",
		  "exp.yaml:6: phases[0].traffic.qp: '300' is not valid for pfclab traffic -q; give a whole number "
		  "from 1 to 256" },
		/* Ranges are traffic's own (pfclab traffic -t, -I, -m), not a copy. */
		{ "name: t\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4}\n  b: {netdev: vb, rdma: s}\n"
		  "phases:\n  - traffic: {from: b, to: a, tx_depth: 20000}\n",
		  "exp.yaml:6: phases[0].traffic.tx_depth: '20000' is not valid for pfclab traffic -t; give a "
		  "whole number from 1 to 16384" },
		{ "name: t\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4}\n  b: {netdev: vb, rdma: s}\n"
		  "phases:\n  - traffic: {from: b, to: a, inline: 1K}\n",
		  "exp.yaml:6: phases[0].traffic.inline: '1K' is not valid for pfclab traffic -I; give a whole "
		  "number from 0 to 4096" },
		{ "name: t\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4}\n  b: {netdev: vb, rdma: s}\n"
		  "phases:\n  - traffic: {from: b, to: a, poll: busy}\n",
		  "exp.yaml:6: phases[0].traffic.poll: 'busy' is not valid for pfclab traffic --poll; auto or spin" },
		{ "name: t\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4}\n  b: {netdev: vb, rdma: s}\n"
		  "phases:\n  - traffic: {from: b, to: a, mtu: 1000}\n",
		  "exp.yaml:6: phases[0].traffic.mtu: '1000' is not valid for pfclab traffic -m; the MTU is one "
		  "of 256, 512, 1024, 2048, 4096" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nmonitor: {interval: 10ms, sources: [ethtool, foo]}\n",
		  "exp.yaml:4: monitor.sources: 'foo' is not a source; give one of ethtool, pause, dcb, link, pci, rdma, nvml, qdisc, lossless" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nmonitor: {rt_priority: 100}\n",
		  "exp.yaml:4: monitor.rt_priority: '100' is not a whole number in 1..99" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nbottleneck: {host: z, rate: 1mbit}\nphases:\n  - duration: 1s\n",
		  "exp.yaml:4: bottleneck.host: 'z' is not in hosts:" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nbottleneck: {host: a, rate: fast}\nphases:\n  - duration: 1s\n",
		  "exp.yaml:4: bottleneck.rate: 'fast' is not a rate; give e.g. 100mbit or 1gbit" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nbottleneck: {host: a, rate: 1mbit, min: \"${m}\"}\n"
		  "sweep:\n  m: [30000, 95000]\nphases:\n  - duration: 1s\n",
		  "exp.yaml:4: bottleneck.max: '90000' must lie above min and not above limit" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nbottleneck: {host: a, rate: 1mbit, qdisc: codel}\nphases:\n  - duration: 1s\n",
		  "exp.yaml:4: bottleneck.qdisc: 'codel' is not a bottleneck; give red or tail-drop" },
		/* the first command was kept when the second failed: freed (ASan) */
		{ "name: t\nhosts:\n  a: {netdev: va}\nphases:\n  - duration: 1s\n    pre:\n"
		  "      - {host: a, run: x}\n      - {host: a, kin: y}\n",
		  "exp.yaml:8: phases[0].pre[1]: unknown key 'kin'; known keys: host, run, essential" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nsweep:\n  x: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
		  "  y: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n  z: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
		  "  w: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\nphases:\n  - duration: 1s\n",
		  "exp.yaml:8: sweep.w: 11 values make over 10000 points with the 1000 of the variables before "
		  "it; at most 10000" },
		/* Host values: checked as the subcommand they are passed to checks them. */
		{ "name: t\nhosts:\n  a: {netdev: va, gpu: -1}\n",
		  "exp.yaml:3: hosts.a.gpu: '-1' is not valid for pfclab monitor --gpu and traffic --gpu; "
		  "give a GPU index 0..63 (see nvidia-smi -L) or a PCI address such as 0000:17:00.0 or 17:00.0" },
		{ "name: t\nhosts:\n  a: {netdev: va, gpu: 64}\n",
		  "exp.yaml:3: hosts.a.gpu: '64' is not valid for pfclab monitor --gpu and traffic --gpu; "
		  "give a GPU index 0..63 (see nvidia-smi -L) or a PCI address such as 0000:17:00.0 or 17:00.0" },
		{ "name: t\nhosts:\n  a: {netdev: va, gpu: \"0000:17:00\"}\n",
		  "exp.yaml:3: hosts.a.gpu: '0000:17:00' is not valid for pfclab monitor --gpu and traffic --gpu; "
		  "give a GPU index 0..63 (see nvidia-smi -L) or a PCI address such as 0000:17:00.0 or 17:00.0" },
		{ "name: t\nhosts:\n  a: {netdev: va, gpu: \"17:20.0\"}\n",
		  "exp.yaml:3: hosts.a.gpu: '17:20.0' is not valid for pfclab monitor --gpu and traffic --gpu; "
		  "give a GPU index 0..63 (see nvidia-smi -L) or a PCI address such as 0000:17:00.0 or 17:00.0" },
		{ "name: t\nhosts:\n  a: {netdev: va, gpu: first}\nmonitor: false\n",
		  "exp.yaml:3: hosts.a.gpu: 'first' is not valid for pfclab monitor --gpu and traffic --gpu; "
		  "give a GPU index 0..63 (see nvidia-smi -L) or a PCI address such as 0000:17:00.0 or 17:00.0" },
		{ "name: t\nhosts:\n  a: {netdev: va, rdma: r, addr: 999.1.1.1}\n",
		  "exp.yaml:3: hosts.a.addr: '999.1.1.1' is not an IPv4 address (four numbers 0..255 joined by "
		  "dots); give the address traffic clients connect to: an IPv4 or IPv6 address, or a host name" },
		{ "name: t\nhosts:\n  a: {netdev: va, addr: 10.1}\n",
		  "exp.yaml:3: hosts.a.addr: '10.1' is not an IPv4 address (four numbers 0..255 joined by "
		  "dots); give the address traffic clients connect to: an IPv4 or IPv6 address, or a host name" },
		{ "name: t\nhosts:\n  a: {netdev: va, addr: \"1.2.3.4.\"}\n",
		  "exp.yaml:3: hosts.a.addr: '1.2.3.4.' is not an IPv4 address (four numbers 0..255 joined by "
		  "dots); give the address traffic clients connect to: an IPv4 or IPv6 address, or a host name" },
		{ "name: t\nhosts:\n  a: {netdev: va, addr: \"2001:db8::1::2\"}\n",
		  "exp.yaml:3: hosts.a.addr: '2001:db8::1::2' is not an IPv6 address; give the address traffic "
		  "clients connect to: an IPv4 or IPv6 address, or a host name" },
		{ "name: t\nhosts:\n  a: {netdev: va, addr: a..b}\n",
		  "exp.yaml:3: hosts.a.addr: 'a..b' is neither an address nor a host name (labels of 1..63 "
		  "letters, digits, '-' or '_' between dots); give the address traffic clients connect to: an "
		  "IPv4 or IPv6 address, or a host name" },
		{ "name: t\nhosts:\n  a: {netdev: va, addr: \"-h.example\"}\n",
		  "exp.yaml:3: hosts.a.addr: '-h.example' is neither an address nor a host name (labels of "
		  "1..63 letters, digits, '-' or '_' between dots); give the address traffic clients connect "
		  "to: an IPv4 or IPv6 address, or a host name" },
		{ "name: t\nhosts:\n  a: {netdev: va, rdma: \"mlx5_0:2\"}\n",
		  "exp.yaml:3: hosts.a.rdma: 'mlx5_0:2': pfclab traffic -d takes a device without :PORT "
		  "(traffic and monitor both use port 1); give the device's name alone" },
		{ "name: t\nhosts:\n  a: {netdev: va, rdma: \"m/0\"}\n",
		  "exp.yaml:3: hosts.a.rdma: 'm/0' is not an RDMA device name (1..63 characters, no '/' or white "
		  "space); give the device as 'rdma link' names it (mlx5_0, rxe0)" },
		{ "name: t\nhosts:\n  a: {netdev: abcdefghijklmnop}\n",
		  "exp.yaml:3: hosts.a.netdev: 'abcdefghijklmnop' is not an interface name for pfclab monitor -i "
		  "(1..15 characters, none of '/', ':' or white space); give the interface as 'ip link' names it" },
		{ "name: t\nhosts:\n  a: {netdev: \"eth0:1\"}\n",
		  "exp.yaml:3: hosts.a.netdev: 'eth0:1' is not an interface name for pfclab monitor -i "
		  "(1..15 characters, none of '/', ':' or white space); give the interface as 'ip link' names it" },
		{ "name: t\nhosts:\n  a: {netdev: va, gid_index: 70000}\n",
		  "exp.yaml:3: hosts.a.gid_index: '70000' is not valid for pfclab traffic -x; give a whole number "
		  "from 0 to 65535" },
		{ "name: t\nhosts:\n  a: {netdev: va, capture: [va, mlx5_0, va]}\n",
		  "exp.yaml:3: hosts.a.capture: 'va' given twice; every frame would be counted and written twice" },
		{ "name: t\nhosts:\n  a: {netdev: va, capture: [va, \"v b\"]}\n",
		  "exp.yaml:3: hosts.a.capture: 'v b' is not an interface name for pfclab capture -i (1..15 "
		  "characters, none of '/', ':' or white space); give the interface as 'ip link' names it" },
		{ "name: t\nhosts:\n  a: {netdev: va, ssh: -oProxyCommand=x}\n",
		  "exp.yaml:3: hosts.a.ssh: '-oProxyCommand=x' is not an ssh destination (no '-' first, no white "
		  "space); give a host, user@host or a Host of the ssh config" },
		{ "name: t\nhosts:\n  a: {netdev: va, node: \"n[1-2]\"}\n",
		  "exp.yaml:3: hosts.a.node: 'n[1-2]' is not one Slurm node name (no '-' first, no ',', '[' or "
		  "white space); give one node of the allocation, as 'scontrol show hostnames' lists them" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nmonitor: {interval: 2h}\n",
		  "exp.yaml:4: monitor.interval: '2h' is not valid for pfclab monitor --interval; give a duration "
		  "from 100us to 1h (e.g. 500us, 10ms, 30s)" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nmonitor: {interval: 50us}\n",
		  "exp.yaml:4: monitor.interval: '50us' is not valid for pfclab monitor --interval; give a "
		  "duration from 100us to 1h (e.g. 500us, 10ms, 30s)" },
		{ "name: t\nhosts:\n  a: {netdev: va}\ncapture: {speed: xxG}\n",
		  "exp.yaml:4: capture.speed: 'xxG' is not valid for pfclab capture --speed; give a link speed "
		  "such as 25G or 100M" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nphases:\n  - duration: 1s\n"
		  "    pre: [{host: a, run: 'for d in a b; do echo ${d}; done'}]\n",
		  "exp.yaml:6: phases[0].pre[0].run: 'for d in a b; do echo ${d}; done': no sweep variable 'd' "
		  "(sweep: names them); a shell variable is written $d here" },
		/* an empty list where one value at least is needed */
		{ "name: t\nhosts:\n  a: {netdev: va}\nmonitor: {sources: []}\n",
		  "exp.yaml:4: monitor.sources: an empty list: give at least one source, or leave sources: "
		  "out for all of them" },
		{ "name: t\nhosts:\n  a: {netdev: va, capture: []}\n",
		  "exp.yaml:3: hosts.a.capture: an empty list: give at least one interface, or leave "
		  "capture: out to capture on the netdev" },
		{ "name: t\nhosts:\n  a: {netdev: va, rdma: r, addr: 1.2.3.4}\nphases:\n"
		  "  - traffic: {from: [], to: a}\n",
		  "exp.yaml:5: phases[0].traffic.from: an empty list: give at least one sender" },
		/* a sweep variable nothing names: every point the same run, labelled apart */
		{ "name: t\nhosts:\n  a: {netdev: va}\nsweep:\n  size: [64K, 1M]\n  d: [1s, 2s]\n"
		  "phases:\n  - duration: ${d}\n    pre: [{host: a, run: echo size}]  # ${size}\n",
		  "exp.yaml:5: sweep.size: no value names ${size}, so every point would run the same; write "
		  "${size} where the value goes (e.g. traffic: {size: \"${size}\"})" },
		/* names go into file names whole: refused where they would not fit */
		{ "name: " X101 "\nhosts:\n  a: {netdev: va}\n",
		  "exp.yaml:1: name: a name of 101 characters; at most 100 (the results folder is "
		  "<name>-<YYYYmmdd-HHMMSS>)" },
		{ "name: t\nhosts:\n  " X65 ": {netdev: va}\n",
		  "exp.yaml:3: hosts." X65 ": a host name of 65 characters; at most 64 (it names the "
		  "host's files and folders)" },
		{ "name: t\nhosts:\n  ..: {netdev: va}\n",
		  "exp.yaml:3: hosts...: a host name is letters, digits, '-', '_' and '.', not first (and "
		  "not 'all')" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nphases:\n  - name: " X65 "\n    duration: 1s\n",
		  "exp.yaml:5: phases[0].name: a phase name of 65 characters; at most 64 (it names the "
		  "phase's files, e.g. traffic-<phase>-server-<host>.jsonl)" },
		{ "name: t\nhosts:\n  a: {netdev: va}\nsweep:\n  i: [va, \"v/a\"]\nphases:\n  - duration: 1s\n"
		  "    inject: {host: a, kind: pfc, iface: \"${i}\"}\n",
		  "exp.yaml:8: phases[0].inject[0].iface: 'v/a' is not an interface name for pfclab inject -i "
		  "(1..15 characters, none of '/', ':' or white space); give the interface as 'ip link' names "
		  "it (sweep i = 'v/a')" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char err[EXP_ERR_LEN] = "";
		struct exp *e = NULL;
		int rc = exp_parse("exp.yaml", cases[i].text, strlen(cases[i].text), &e, err, sizeof(err));

		if (rc != -EINVAL)
			fail_msg("case %zu: rc %d, want -EINVAL (err '%s')", i, rc, err);
		if (cases[i].want && strcmp(err, cases[i].want))
			fail_msg("case %zu:\n got '%s'\nwant '%s'", i, err, cases[i].want);
		if (!cases[i].want && strncmp(err, "exp.yaml:", 9))
			fail_msg("case %zu: '%s' does not name the file and line", i, err);
		assert_null(e);
	}
}

static void test_sweep(void **state)
{
	static const char text[] =
		"name: s\nhosts:\n  a: {addr: 10.0.0.1, rdma: rxe0, netdev: va}\n  b: {rdma: rxe1, netdev: vb}\n"
		"sweep:\n  size: [4K, 64K]\n  qp: [1, 2, 4]\n"
		"phases:\n  - traffic: {from: b, to: a, size: \"${size}\", qp: \"${qp}\", duration: 2s}\n"
		"  - {name: rest, duration: 500ms}\n";
	static const char *const labels[] = { "size=4K qp=1", "size=4K qp=2", "size=4K qp=4",
					      "size=64K qp=1", "size=64K qp=2", "size=64K qp=4" };
	char err[EXP_ERR_LEN] = "";
	struct exp *e = NULL;
	size_t i;

	(void)state;
	assert_int_equal(exp_parse("s.yaml", text, strlen(text), &e, err, sizeof(err)), 0);
	assert_int_equal(exp_point_count(e), 6);
	for (i = 0; i < 6; i++) {
		struct exp_point p;
		const struct exp_traffic *t;
		char want[64];

		assert_int_equal(exp_point_build(e, i, &p, err, sizeof(err)), 0);
		assert_string_equal(p.label, labels[i]);
		snprintf(want, sizeof(want), "p%03zu", i);
		assert_string_equal(p.id, want);
		assert_int_equal(p.nphases, 2);
		t = &p.phases[0].traffic;
		assert_true(p.phases[0].has_traffic);
		/* -s SIZE -q QP -D 2s, in the file's order */
		assert_int_equal(t->nargs, 6);
		assert_string_equal(t->args[0], "-s");
		assert_string_equal(t->args[1], i < 3 ? "4K" : "64K");
		assert_string_equal(t->args[3], i % 3 == 0 ? "1" : i % 3 == 1 ? "2" : "4");
		assert_int_equal(p.duration_ns, 2500000000ull);
		assert_string_equal(p.phases[1].name, "rest");
		assert_string_equal(p.phases[0].name, "phase0");
		exp_point_free(&p);
	}
	exp_free(e);
}

/* Eight variables of 256 values: 2^64 points, which wrapped to 0 in a plain product and
 * passed the limit as an experiment with no point at all. */
static void test_sweep_wrap(void **state)
{
	static const char head[] = "name: w\nhosts:\n  a: {netdev: va}\nsweep:\n";
	size_t cap = sizeof(head) + 8 * (8 + 256 * 5) + 64, len, v, j;
	char *text = malloc(cap), err[EXP_ERR_LEN] = "";
	struct exp *e = NULL;

	(void)state;
	assert_non_null(text);
	len = (size_t)snprintf(text, cap, "%s", head);
	for (v = 0; v < 8; v++) {
		len += (size_t)snprintf(text + len, cap - len, "  v%zu: [", v);
		for (j = 0; j < 256; j++)
			len += (size_t)snprintf(text + len, cap - len, "%zu%s", j, j < 255 ? ", " : "]\n");
	}
	len += (size_t)snprintf(text + len, cap - len, "phases:\n  - duration: 1s\n");
	assert_true(len < cap);
	assert_int_equal(exp_parse("w.yaml", text, len, &e, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "w.yaml:6: sweep.v1: 256 values make over 10000 points with the 256 of "
				 "the variables before it; at most 10000");
	assert_null(e);
	free(text);
}

/* What the subcommands take is taken: host names and IPv6 for addr, a GPU's PCI address
 * (long or short), the ends of monitor's interval range, capture's speed forms. */
static void test_host_values_ok(void **state)
{
	static const char *const texts[] = {
		"name: t\nhosts:\n  a: {netdev: va, addr: host-a.example.com, gpu: 63}\n",
		"name: t\nhosts:\n  a: {netdev: va, addr: node1., ssh: user@h1, node: n001}\n",
		"name: t\nhosts:\n  a: {netdev: va, addr: lab_host2}\n",
		"name: t\nhosts:\n  a: {netdev: va, addr: \"2001:db8::1\"}\n",
		"name: t\nhosts:\n  a: {netdev: va, addr: \"fe80::1%va\"}\n",
		"name: t\nhosts:\n  a: {netdev: va, addr: 192.0.2.255, rdma: mlx5_0, gid_index: 65535}\n",
		"name: t\nhosts:\n  a: {netdev: va, gpu: \"0000:17:00.0\"}\nmonitor: false\n",
		"name: t\nhosts:\n  a: {netdev: va, gpu: \"0000:17:00.0\"}\n",
		"name: t\nhosts:\n  a: {netdev: va, gpu: \"b3:00.1\"}\n",
		"name: t\nhosts:\n  a: {netdev: eth0.100, capture: [eth0.100, mlx5_0]}\n"
		"monitor: {interval: 100us}\ncapture: {speed: 25gbit}\n",
		"name: t\nhosts:\n  a: {netdev: va}\nmonitor: {interval: 1h}\ncapture: {speed: 100M}\n",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(texts); i++) {
		char err[EXP_ERR_LEN] = "", text[512];
		struct exp *e = NULL;

		snprintf(text, sizeof(text), "%sphases:\n  - duration: 1s\n", texts[i]);
		if (exp_parse("ok.yaml", text, strlen(text), &e, err, sizeof(err)))
			fail_msg("case %zu: %s", i, err);
		exp_free(e);
	}
}

static void plan_ctx(struct run_ctx *c, struct run_host *hosts, struct exp *e, bool psk)
{
	size_t h;

	memset(c, 0, sizeof(*c));
	c->e = e;
	c->lops = &launch_local_ops;
	c->nhosts = e->nhosts;
	c->hosts = hosts;
	c->o.psk = psk;
	snprintf(c->dir, sizeof(c->dir), "/r/x");
	snprintf(c->self, sizeof(c->self), "/bin/pfclab");
	for (h = 0; h < e->nhosts; h++) {
		memset(&hosts[h], 0, sizeof(hosts[h]));
		hosts[h].h = &e->hosts[h];
		snprintf(hosts[h].pfclab, sizeof(hosts[h].pfclab), "pfclab");
		snprintf(hosts[h].psk_path, sizeof(hosts[h].psk_path), "/tmp/k/psk");
	}
}

static char *joined(char **argv)
{
	return remote_argv_join((const char *const *)argv);
}

static void test_plan_incast(void **state)
{
	static const char text[] =
		"name: incast\nlauncher: local\nhosts:\n"
		"  r: {addr: 10.0.0.9, rdma: mlx5_0, netdev: eth2, gpu: 0}\n"
		"  s1: {rdma: mlx5_0, netdev: eth2}\n  s2: {rdma: mlx5_1, netdev: eth3}\n  s3: {rdma: mlx5_0, netdev: eth2, gid_index: 3}\n"
		"capture: {mode: ce}\nmonitor: {interval: 10ms, rt_priority: 40}\n"
		"phases:\n  - name: in\n    traffic: {from: [s1, s2, s3], to: r, size: 1M, duration: 10s, port: 20000, mem: cuda}\n"
		"    inject: {host: r, kind: pfc, args: [-c, \"5\"]}\n";
	struct run_host hosts[4];
	struct run_ctx c;
	char err[EXP_ERR_LEN] = "", dir[256];
	struct exp *e = NULL;
	struct exp_point p;
	struct plan pl;
	size_t i, nserver = 0, nclient = 0;
	char *l;

	(void)state;
	assert_int_equal(exp_parse("i.yaml", text, strlen(text), &e, err, sizeof(err)), 0);
	plan_ctx(&c, hosts, e, true);
	assert_int_equal(exp_point_build(e, 0, &p, err, sizeof(err)), 0);
	assert_int_equal(plan_point(&c, &p, &pl), 0);
	/* monitor + capture per host, one inject, three servers on r, three clients */
	assert_int_equal(pl.n, 4 * 2 + 1 + 3 + 3);
	for (i = 0; i < pl.n; i++) {
		char want[512];

		l = joined(pl.s[i].argv);
		if (pl.s[i].role == PR_SERVER) {
			snprintf(want, sizeof(want), "pfclab traffic -d mlx5_0 -p %zu --json --psk /tmp/k/psk "
				 "--gpu 0 -s 1M -D 10s --mem cuda --wait 60000ms", 20000 + nserver);
			assert_string_equal(l, want);
			assert_int_equal(pl.s[i].host, 0);
			assert_int_equal(pl.s[i].peer, 1 + nserver); /* its client's host */
			nserver++;
		} else if (pl.s[i].role == PR_CLIENT) {
			snprintf(want, sizeof(want), "pfclab traffic -d %s%s -p %zu --json --psk /tmp/k/psk "
				 "-s 1M -D 10s --mem cuda 10.0.0.9", nclient == 1 ? "mlx5_1" : "mlx5_0",
				 nclient == 2 ? " -x 3" : "", 20000 + nclient);
			assert_string_equal(l, want);
			assert_int_equal(pl.s[i].host, 1 + nclient);
			assert_int_equal(pl.s[i].peer, 0); /* its server's host */
			nclient++;
		} else if (pl.s[i].role == PR_INJECT) {
			assert_string_equal(l, "pfclab inject -i eth2 -c 5 -D 70000ms pfc");
		} else if (pl.s[i].role == PR_MONITOR) {
			assert_non_null(strstr(l, " --interval 10ms "));
			assert_non_null(strstr(l, " --rt-priority 40 "));
		} else if (pl.s[i].role == PR_CAPTURE && pl.s[i].host == 2) {
			assert_string_equal(l, "pfclab capture -i eth3 --ce --pcapng -w capture.pcapng -q --json -D 130000ms");
		}
		free(l);
	}
	assert_int_equal(nserver, 3);
	assert_int_equal(nclient, 3);
	plan_host_dir(&c, 1, &p, 2, dir, sizeof(dir));
	assert_string_equal(dir, "/r/x/points/p000/rep2/s1");
	/* the wrapper: pid file and output in the host's point folder */
	{
		char **w = plan_wrap(&pl.s[0], "/d");

		l = joined(w);
		assert_non_null(strstr(l, "sh -c 'cd \"$1\" || exit 97; echo $$ >\".$2.pid\""));
		assert_non_null(strstr(l, " sh /d monitor monitor.out pfclab monitor -i eth2 -d mlx5_0 --gpu 0"));
		free(l);
		remote_argv_free(w);
	}
	plan_free(&pl);
	/* without the key: no --psk */
	c.o.psk = false;
	assert_int_equal(plan_point(&c, &p, &pl), 0);
	for (i = 0; i < pl.n; i++) {
		l = joined(pl.s[i].argv);
		assert_null(strstr(l, "--psk"));
		free(l);
	}
	plan_free(&pl);
	exp_point_free(&p);
	exp_free(e);
}

/* Names as long as allowed, alike but for their last character: every process of a point
 * keeps its own file (two servers on one host, two phases' pre commands), named whole. */
static void test_plan_long_names(void **state)
{
#define H63 "node-" X16 X16 "xxxxxxxxxxxxxx-rack12-slot"
#define P63 "phase-" X16 X16 "xxxxxxxxxxxxxx-bidir-step"
	static const char text[] =
		"name: " X64 X16 X16 "long\nlauncher: local\nhosts:\n"
		"  " H63 "1: {addr: 10.0.0.9, rdma: mlx5_0, netdev: eth2}\n"
		"  " H63 "2: {rdma: mlx5_0, netdev: eth2}\n"
		"  " H63 "3: {rdma: mlx5_0, netdev: eth2}\n"
		"phases:\n"
		"  - name: " P63 "1\n    pre: [{host: " H63 "1, run: 'echo 1'}]\n"
		"    traffic: {from: [" H63 "2, " H63 "3], to: " H63 "1, duration: 1s}\n"
		"  - name: " P63 "2\n    pre: [{host: " H63 "1, run: 'echo 2'}]\n"
		"    traffic: {from: [" H63 "2, " H63 "3], to: " H63 "1, duration: 1s}\n";
	struct run_host hosts[3];
	struct run_ctx c;
	char err[EXP_ERR_LEN] = "";
	struct exp *e = NULL;
	struct exp_point p;
	struct plan pl;
	size_t i, j;

	(void)state;
	assert_int_equal(exp_parse("l.yaml", text, strlen(text), &e, err, sizeof(err)), 0);
	plan_ctx(&c, hosts, e, false);
	assert_int_equal(exp_point_build(e, 0, &p, err, sizeof(err)), 0);
	assert_int_equal(plan_point(&c, &p, &pl), 0);
	for (i = 0; i < pl.n; i++)
		for (j = i + 1; j < pl.n; j++)
			if (pl.s[i].host == pl.s[j].host && !strcmp(pl.s[i].out, pl.s[j].out))
				fail_msg("steps %zu and %zu both write %s", i, j, pl.s[i].out);
	for (i = 0; i < pl.n; i++)
		if (pl.s[i].role == PR_SERVER && pl.s[i].phase == 1 && pl.s[i].peer == 2)
			assert_string_equal(pl.s[i].out, "traffic-" P63 "2-server-" H63 "3.jsonl");
	plan_free(&pl);
	exp_point_free(&p);
	exp_free(e);
#undef H63
#undef P63
}

/* A path that is no experiment file: a directory is said to be one, with what is expected
 * (fopen takes a directory; only reading it fails); a missing file names the errno. */
static void test_load_not_a_file(void **state)
{
	char dir[] = "/tmp/run-exp-load-XXXXXX", err[EXP_ERR_LEN], want[700], path[600];
	struct exp *e = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(exp_load(dir, &e, err, sizeof(err)), -EISDIR);
	assert_null(e);
	snprintf(want, sizeof(want), "%s is a directory; an experiment file (YAML) is expected", dir);
	assert_string_equal(err, want);
	snprintf(path, sizeof(path), "%s/none.yaml", dir);
	assert_int_equal(exp_load(path, &e, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(err, want);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_load_not_a_file),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_sweep_wrap),
		cmocka_unit_test(test_host_values_ok),
		cmocka_unit_test(test_plan_incast),
		cmocka_unit_test(test_plan_long_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
