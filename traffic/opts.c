// SPDX-License-Identifier: GPL-2.0-or-later
/* opts.c: pfclab traffic's options as a lib/opt table, and the checks between them;
 * never prints except for --help. Letters are perftest's (ib_write_bw) where they mean
 * what perftest means: -d -i -x -p -q -s -a -b -t -l -Q -I -m -D -n -S.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opt.h"
#include "lib/util.h"
#include "traffic/mem.h"
#include "traffic/opts.h"

static const char traffic_usage[] =
"Usage: pfclab traffic -d DEV [OPTIONS]          (server: waits for a client)\n"
"       pfclab traffic -d DEV [OPTIONS] HOST     (client: connects to the server on HOST)\n"
"       pfclab traffic --check-mem TYPE [-d DEV] [--gpu G] [--check-size N]\n"
"\n"
"RDMA WRITE traffic between two hosts over RC queue pairs, one-way (client writes to\n"
"server) or in both directions at once (-b), from host or GPU memory, with a report per\n"
"interval and a summary at the end (Ctrl-C ends early and still prints it).\n"
"Both sides must be given the same -s/-a, -q, -b, --imm, -D/-n and --warmup.\n"
"\n";

static const char traffic_tail[] =
"\n"
"Exit status: 0 success, 1 run-time failure (peer lost, completion error, mismatch),\n"
"2 usage error. For --check-mem: 0 all steps passed, 1 a step failed, 3 the backend\n"
"cannot run on this host (no GPU / no libcuda).\n";

/* --help: the memory types, from the backend registry. */
static void mem_list(FILE *f)
{
	const struct mem_ops *m;
	size_t i;

	fprintf(f, "Memory types (--mem, --check-mem):\n");
	for (i = 0; (m = mem_ops_at(i)); i++)
		fprintf(f, "  %-12s %s\n", m->name, m->summary);
}

/* The command line lands here (the table points into it), then is copied out. */
static struct traffic_opts P;

static int sizes_fn(void *dst, const char *arg, char *why, size_t n)
{
	struct traffic_opts *o = dst;
	char buf[512], *tok, *rest;
	uint64_t v;

	if (strlen(arg) >= sizeof(buf))
		return snprintf(why, n, "list too long"), -1;
	strcpy(buf, arg);
	o->nsizes = 0;
	rest = buf;
	while ((tok = strsep(&rest, ","))) {
		if (!*tok)
			return snprintf(why, n, "empty size in the list"), -1;
		if (o->nsizes == TRAFFIC_MAX_SIZES)
			return snprintf(why, n, "at most %d sizes", TRAFFIC_MAX_SIZES), -1;
		if (parse_size(tok, 1, TRAFFIC_MAX_MSG, &v) && !strcmp(tok, arg))
			return snprintf(why, n, "expected a size from 1 byte to 64M"), -1;
		if (parse_size(tok, 1, TRAFFIC_MAX_MSG, &v))
			return snprintf(why, n, "'%s' is not a size from 1 byte to 64M", tok), -1;
		o->sizes[o->nsizes++] = (uint32_t)v;
	}
	if (!o->nsizes)
		return snprintf(why, n, "empty size list"), -1;
	return 0;
}

static int int_fn(int *dst, const char *a, uint32_t max, char *why, size_t n)
{
	uint32_t u;

	if (parse_u32(a, 0, max, &u))
		return snprintf(why, n, "expected a whole number from 0 to %u", max), -1;
	*dst = (int)u;
	return 0;
}

static int gid_fn(void *dst, const char *a, char *why, size_t n)
{
	return int_fn(dst, a, 65535, why, n);
}

static int numa_fn(void *dst, const char *a, char *why, size_t n)
{
	return int_fn(dst, a, 63, why, n);
}

static int tclass_fn(void *dst, const char *a, char *why, size_t n)
{
	return int_fn(dst, a, 255, why, n);
}

static int dscp_fn(void *dst, const char *a, char *why, size_t n)
{
	int rc = int_fn(dst, a, 63, why, n);

	if (!rc)
		*(int *)dst <<= 2;	/* --dscp N is --tclass N << 2 */
	return rc;
}

static int port_fn(void *dst, const char *a, char *why, size_t n)
{
	uint32_t u;

	if (parse_u32(a, 1, 65535, &u))
		return snprintf(why, n, "expected a whole number from 1 to 65535"), -1;
	*(uint16_t *)dst = (uint16_t)u;
	return 0;
}

static int mtu_fn(void *dst, const char *a, char *why, size_t n)
{
	uint32_t *mtu = dst;

	if (parse_u32(a, 256, 4096, mtu) || (*mtu & (*mtu - 1)))
		return snprintf(why, n, "the MTU is one of 256, 512, 1024, 2048, 4096"), -1;
	return 0;
}

static int rate_fn(void *dst, const char *a, char *why, size_t n)
{
	double *g = dst;
	char *end;

	errno = 0;
	*g = strtod(a, &end);
	if (end == a || *end || errno || !(*g > 0) || *g > 1000)
		return snprintf(why, n, "a rate in Gb/s above 0 and up to 1000"), -1;
	return 0;
}

static int rate_mode_fn(void *dst, const char *a, char *why, size_t n)
{
	static const char *const names[] = { "auto", "hw", "sw" };
	static const enum traffic_rate_mode modes[] = {
		TRAFFIC_RATE_AUTO, TRAFFIC_RATE_HW, TRAFFIC_RATE_SW,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(a, names[i])) {
			*(enum traffic_rate_mode *)dst = modes[i];
			return 0;
		}
	return snprintf(why, n, "one of auto, hw, sw"), -1;
}

static int poll_fn(void *dst, const char *a, char *why, size_t n)
{
	if (!strcmp(a, "auto"))
		*(enum traffic_poll_mode *)dst = TRAFFIC_POLL_AUTO;
	else if (!strcmp(a, "spin"))
		*(enum traffic_poll_mode *)dst = TRAFFIC_POLL_SPIN;
	else
		return snprintf(why, n, "auto or spin"), -1;
	return 0;
}

static int mem_fn(void *dst, const char *a, char *why, size_t n)
{
	if (!mem_ops_find(a))
		return snprintf(why, n, "unknown memory type; 'pfclab traffic --help' lists them"), -1;
	*(const char **)dst = a;
	return 0;
}

static int psk_fn(void *dst, const char *a, char *why, size_t n)
{
	if (!*a)
		return snprintf(why, n, "give the path of a key file"), -1;
	*(const char **)dst = a;
	return 0;
}

#define S(x) (x * 1000000000ULL)
static const struct opt traffic_opts_tab[] = {
	OPT_HEADING("Connection:"),
	{ "ib-dev", 'd', OPT_STR, .dst = &P.dev, .arg = "DEV",
	  .help = "RDMA device (e.g. mlx5_0, rxe0)", .long_alias = "rdma" },
	{ "ib-port", 'i', OPT_U32, 1, 255, &P.ib_port, .arg = "N", .help = "device port (default 1)" },
	{ "gid-index", 'x', OPT_FN, .dst = &P.gid_index, .fn = gid_fn, .arg = "N",
	  .help = "GID index (default: the port's RoCEv2 IPv4 GID)" },
	{ "port", 'p', OPT_FN, .dst = &P.port, .fn = port_fn, .arg = "N",
	  .help = "TCP port of the exchange (default 18515)" },
	{ "bind", 0, OPT_STR, .dst = &P.bind_addr, .arg = "ADDR",
	  .help = "local address of the exchange socket (server: listen only\n"
		  "there; default: every address)" },
	{ "psk", 0, OPT_FN, .dst = &P.psk_file, .fn = psk_fn, .arg = "FILE",
	  .help = "pre-shared key (also $PFCLAB_PSK_FILE): both sides prove it\n"
		  "before any memory key is sent; at least 16 bytes, one trailing\n"
		  "newline ignored, the file readable by its owner only" },
	{ "peer-timeout", 0, OPT_DUR, S(1) / 10, S(3600), &P.peer_timeout_ns, .arg = "DUR",
	  .help = "a silent peer (stopped, unreachable) is declared gone\n"
		  "within DUR (heartbeats; default 2s)" },
	{ "timeout", 0, OPT_DUR, S(1) / 100, S(3600), &P.timeout_ns, .arg = "DUR",
	  .help = "connect / exchange step timeout (default 10s)" },
	{ "wait", 0, OPT_DUR, S(1) / 100, S(30 * 86400ULL), &P.wait_ns, .arg = "DUR",
	  .help = "server: give up when no client came within DUR (default: wait)" },
	OPT_HEADING("Traffic:"),
	{ "qp", 'q', OPT_U32, 1, TRAFFIC_MAX_QPS, &P.qps, .arg = "N",
	  .help = "queue pairs (default 1, max 256)" },
	{ "size", 's', OPT_FN, .dst = &P, .fn = sizes_fn, .arg = "LIST",
	  .help = "message size(s), e.g. 64 or 4K,64K,1M (default 64K)" },
	{ "all", 'a', OPT_FLAG, .dst = &P.all_sizes,
	  .help = "sweep sizes 2 B .. 8 MiB in powers of two" },
	{ "bidirectional", 'b', OPT_FLAG, .dst = &P.bidir,
	  .help = "both sides write at the same time" },
	{ "imm", 0, OPT_FLAG, .dst = &P.imm,
	  .help = "RDMA WRITE with immediate (receiver counts completions)" },
	{ "duration", 'D', OPT_DUR, S(1) / 1000, S(30 * 86400ULL), &P.duration_ns, .arg = "DUR",
	  .help = "run time per size (default 5s); the last sends are\n"
		  "posted so that they complete near its end; sends\n"
		  "still in flight 0.3s after it are not waited for" },
	{ "iters", 'n', OPT_U64, 1, 1ULL << 40, &P.iters, .arg = "N",
	  .help = "messages per QP per size instead of a duration" },
	{ "warmup", 0, OPT_DUR, 0, S(3600), &P.warmup_ns, .arg = "DUR",
	  .help = "traffic before measuring starts (default 0)" },
	{ "tx-depth", 't', OPT_U32, 1, 16384, &P.tx_depth, .arg = "N",
	  .help = "outstanding sends per QP (default 128; fewer for large\n"
		  "messages or a slow link: at most 8 MiB and about 100 ms\n"
		  "of data in flight per QP, but 2 MiB at least)" },
	{ "rx-depth", 0, OPT_U32, 1, 16384, &P.rx_depth, .arg = "N",
	  .help = "receives posted per QP with --imm (default 512)" },
	{ "post-list", 'l', OPT_U32, 1, 64, &P.post_list, .arg = "N",
	  .help = "sends chained per post call (default: 8 for messages up\n"
		  "to 4 KiB, else 1; never above the tx depth)" },
	{ "cq-mod", 'Q', OPT_U32, 1, 16384, &P.cq_mod, .arg = "N",
	  .help = "request a completion every N sends at most (default 64,\n"
		  "<= tx depth); fewer for large messages: at least one\n"
		  "every 256 KiB and two per tx depth" },
	{ "poll", 0, OPT_FN, .dst = &P.poll_mode, .fn = poll_fn, .arg = "M",
	  .help = "auto: poll the completion queue while work is in flight,\n"
		  "sleep on its completion channel after 50 us with\n"
		  "nothing to post or complete (default); spin: never sleep" },
	{ "inline-size", 'I', OPT_U32, 0, 4096, &P.inline_size, .arg = "N",
	  .help = "send messages up to N bytes inline: the CPU copies them\n"
		  "into the send request, so the NIC does not read them from\n"
		  "memory (default 220, as perftest's latency tests; 0 with\n"
		  "GPU memory, or where the device takes no inline data)" },
	{ "mtu", 'm', OPT_FN, .dst = &P.mtu, .fn = mtu_fn, .arg = "N",
	  .help = "path MTU 256..4096 (default: the port's active MTU)" },
	{ "rate", 0, OPT_FN, .dst = &P.rate_gbps, .fn = rate_fn, .arg = "GBPS",
	  .help = "per-QP rate limit in Gb/s (default: unlimited)" },
	{ "rate-mode", 0, OPT_FN, .dst = &P.rate_mode, .fn = rate_mode_fn, .arg = "M",
	  .help = "auto (hardware, else software pacing), hw or sw" },
	OPT_HEADING("RoCEv2 marking:"),
	{ "tclass", 0, OPT_FN, .dst = &P.tclass, .fn = tclass_fn, .arg = "N",
	  .help = "IP traffic class byte 0..255 (DSCP << 2 | ECN)" },
	{ "dscp", 0, OPT_FN, .dst = &P.tclass, .fn = dscp_fn, .arg = "N",
	  .help = "DSCP 0..63 (sets --tclass to N << 2)" },
	{ "sl", 'S', OPT_U32, 0, 15, &P.sl, .arg = "N",
	  .help = "service level / priority 0..15 (default 0)" },
	{ "qp-timeout", 0, OPT_U32, 1, 31, &P.qp_timeout, .arg = "N",
	  .help = "ACK timeout 4.096us * 2^N, 1..31 (default 14: 67 ms)" },
	{ "retry", 0, OPT_U32, 0, 7, &P.retry, .arg = "N",
	  .help = "transport retries 0..7 (default 6; rxe retries forever at 7)" },
	OPT_HEADING("Memory:"),
	{ "mem", 0, OPT_FN, .dst = &P.mem, .fn = mem_fn, .arg = "TYPE",
	  .help = "buffer memory (default host; the types are listed below)" },
	{ "gpu", 0, OPT_STR, .dst = &P.gpu, .arg = "G",
	  .help = "GPU: an index as nvidia-smi -L numbers them, or a PCI\n"
		  "address (0000:17:00.0 or 17:00.0); default 0" },
	{ "hugepages", 0, OPT_FLAG, .dst = &P.hugepages,
	  .help = "host memory from 2 MiB pages when available" },
	{ "numa", 0, OPT_FN, .dst = &P.numa_node, .fn = numa_fn, .arg = "N",
	  .help = "host memory NUMA node (default: the NIC's)" },
	{ "check-mem", 0, OPT_FN, .dst = &P.check_mem, .fn = mem_fn, .arg = "TYPE",
	  .help = "exercise a memory backend (alloc, export, register when -d is\n"
		  "given, write/read a pattern, free) and report each step" },
	{ "check-size", 0, OPT_SIZE, 4096, 16ULL << 30, &P.check_size, .arg = "N",
	  .help = "buffer size for --check-mem (default 4M)" },
	OPT_HEADING("Output:"),
	{ "interval", 0, OPT_DUR, S(1) / 100, S(3600), &P.interval_ns, .arg = "DUR",
	  .help = "report period (default 1s)" },
	{ "json", 'j', OPT_FLAG, .dst = &P.json,
	  .help = "one JSON object per line instead of the table" },
	{ "quiet", 0, OPT_FLAG, .dst = &P.quiet, .help = "only the summary" },
	OPT_END
};
#undef S

static void defaults(struct traffic_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ib_port = 1;
	o->gid_index = -1;
	o->port = TRAFFIC_DEFAULT_PORT;
	o->qps = 1;
	o->sizes[0] = 65536;
	o->nsizes = 1;
	o->tx_depth = 128;
	o->rx_depth = 512;
	/* Small messages go in chains of 8 (one doorbell per 8 sends: the message rate
	 * is bound by doorbells); large ones one by one.
	 */
	o->post_list = 8;
	o->post_list_auto = true;
	o->cq_mod = 64;
	/* Small messages inline: one read of host memory by the NIC saved per message
	 * (a PCIe round trip on a NIC, a page walk and copy on Soft-RoCE: +1-2% of the
	 * message rate at 64 B there). 220 is the size perftest picks for RDMA WRITE.
	 */
	o->inline_size = TRAFFIC_INLINE_DEFAULT;
	o->tclass = -1;
	o->qp_timeout = 14;
	/* 7 is what perftest uses, but Soft-RoCE treats 7 as "retry forever": with 6 a
	 * dead path ends the run after 7 x 4.096 us x 2^14 = 0.47 s everywhere.
	 */
	o->retry = 6;
	o->timeout_ns = 10ULL * 1000000000ULL;
	o->interval_ns = 1000000000ULL;
	o->peer_timeout_ns = 2000000000ULL;
	o->mem = "host";
	o->numa_node = -1;
	o->check_size = 4u << 20;
}

uint32_t traffic_opts_max_size(const struct traffic_opts *o)
{
	uint32_t i, m = 0;

	for (i = 0; i < o->nsizes; i++)
		if (o->sizes[i] > m)
			m = o->sizes[i];
	return m;
}

static int bad(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int bad(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The checks between options, and what follows from them. */
static int combine(const struct opt_cmd *c, struct traffic_opts *o, char *err, size_t n)
{
	bool D = opt_given(c, "duration"), N = opt_given(c, "iters");
	uint32_t u;

	if (opt_given(c, "size") && o->all_sizes)
		return bad(err, n, "-s and -a both given: pick a size list or the sweep");
	if (D && N)
		return bad(err, n, "-D and -n both given: run for a duration or a message count");
	if (opt_given(c, "tclass") && opt_given(c, "dscp"))
		return bad(err, n, "--tclass and --dscp both given: --dscp N is --tclass N<<2");
	if (o->all_sizes)
		for (o->nsizes = 0, u = 2; u <= (8u << 20); u <<= 1)
			o->sizes[o->nsizes++] = u;
	if (!D && !N)
		o->duration_ns = 5ULL * 1000000000ULL;
	o->post_list_auto = !opt_given(c, "post-list");
	o->inline_auto = !opt_given(c, "inline-size");
	if (!o->psk_file) {
		const char *env = getenv("PFCLAB_PSK_FILE");

		if (env && *env)
			o->psk_file = env;
	}
	if (o->check_mem)
		return 0;
	if (!o->dev)
		return bad(err, n, "no RDMA device: give -d DEV (see 'rdma link' or 'ibv_devices')");
	if (!opt_given(c, "cq-mod") && o->cq_mod > o->tx_depth)
		o->cq_mod = o->tx_depth;
	if (o->cq_mod > o->tx_depth)
		return bad(err, n, "-Q %u is larger than the tx depth -t %u: completions would never come",
			   o->cq_mod, o->tx_depth);
	if (o->post_list_auto && o->post_list > o->tx_depth)
		o->post_list = o->tx_depth;
	if (o->post_list > o->tx_depth)
		return bad(err, n, "-l %u is larger than the tx depth -t %u", o->post_list, o->tx_depth);
	if (o->rate_mode != TRAFFIC_RATE_AUTO && o->rate_gbps == 0)
		return bad(err, n, "--rate-mode given without --rate");
	return 0;
}

int traffic_opts_parse(int argc, char **argv, struct traffic_opts *o, char *err, size_t n)
{
	const struct opt_cmd cmd = { "traffic", traffic_usage, traffic_tail, traffic_opts_tab,
				     .extra = mem_list, .err = err, .errlen = n };
	int first, rc;

	defaults(&P);
	err[0] = '\0';
	first = opt_parse(&cmd, argc, argv);
	if (first == OPT_HELP)
		return 1;
	if (first < 0)
		return -EINVAL;
	if (first < argc)
		P.host = argv[first++];
	if (first < argc)
		return bad(err, n, "unexpected argument '%s': only one HOST may be given", argv[first]);
	rc = combine(&cmd, &P, err, n);
	*o = P;
	return rc;
}

int traffic_opts_check(const char *flag, const char *value, struct traffic_opts *o, char *why,
		       size_t n)
{
	char *argv[] = { (char *)"traffic", (char *)flag, (char *)value, NULL };
	char msg[512], pre[300];
	const struct opt_cmd cmd = { "traffic", traffic_usage, traffic_tail, traffic_opts_tab,
				     .extra = mem_list, .err = msg, .errlen = sizeof(msg) };
	const char *p;
	int first;

	defaults(&P);
	first = opt_parse(&cmd, value ? 3 : 2, argv);
	*o = P;
	if (first == (value ? 3 : 2))
		return 0;
	if (first >= 0)	/* a value left over: the option takes none */
		return bad(why, n, "%s takes no value", flag);
	if (first == OPT_HELP)
		return bad(why, n, "%s is not an option of pfclab traffic", flag);
	/* lib/opt says "--name 'value': why"; the caller names the option itself. */
	snprintf(pre, sizeof(pre), " '%s': ", value ? value : "");
	p = strstr(msg, pre);
	return bad(why, n, "%s", p && !strncmp(msg, "--", 2) ? p + strlen(pre) : msg);
}
