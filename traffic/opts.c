// SPDX-License-Identifier: GPL-2.0-or-later
/* opts.c: parses and validates pfclab traffic's options (getopt_long); never prints
 * except for --help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "traffic/mem.h"
#include "traffic/opts.h"

enum {
	OPT_BIND = 256, OPT_IMM, OPT_RX_DEPTH, OPT_WARMUP, OPT_TCLASS, OPT_DSCP, OPT_RATE,
	OPT_RATE_MODE, OPT_QP_TIMEOUT, OPT_RETRY, OPT_TIMEOUT, OPT_WAIT, OPT_INTERVAL, OPT_JSON,
	OPT_MEM, OPT_GPU, OPT_HUGE, OPT_NUMA, OPT_CHECK_MEM, OPT_CHECK_SIZE, OPT_PSK,
	OPT_PEER_TIMEOUT,
};

static const struct option long_opts[] = {
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "gid-index", required_argument, NULL, 'x' },
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "qp", required_argument, NULL, 'q' },
	{ "size", required_argument, NULL, 's' },
	{ "all", no_argument, NULL, 'a' },
	{ "bidirectional", no_argument, NULL, 'b' },
	{ "imm", no_argument, NULL, OPT_IMM },
	{ "tx-depth", required_argument, NULL, 't' },
	{ "rx-depth", required_argument, NULL, OPT_RX_DEPTH },
	{ "post-list", required_argument, NULL, 'l' },
	{ "cq-mod", required_argument, NULL, 'Q' },
	{ "inline-size", required_argument, NULL, 'I' },
	{ "mtu", required_argument, NULL, 'm' },
	{ "duration", required_argument, NULL, 'D' },
	{ "iters", required_argument, NULL, 'n' },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "tclass", required_argument, NULL, OPT_TCLASS },
	{ "dscp", required_argument, NULL, OPT_DSCP },
	{ "sl", required_argument, NULL, 'S' },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "rate-mode", required_argument, NULL, OPT_RATE_MODE },
	{ "qp-timeout", required_argument, NULL, OPT_QP_TIMEOUT },
	{ "retry", required_argument, NULL, OPT_RETRY },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "wait", required_argument, NULL, OPT_WAIT },
	{ "psk", required_argument, NULL, OPT_PSK },
	{ "peer-timeout", required_argument, NULL, OPT_PEER_TIMEOUT },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "quiet", no_argument, NULL, 'Z' },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "gpu", required_argument, NULL, OPT_GPU },
	{ "hugepages", no_argument, NULL, OPT_HUGE },
	{ "numa", required_argument, NULL, OPT_NUMA },
	{ "check-mem", required_argument, NULL, OPT_CHECK_MEM },
	{ "check-size", required_argument, NULL, OPT_CHECK_SIZE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char short_opts[] = ":d:i:x:p:q:s:abt:l:Q:I:m:D:n:S:h";

void traffic_opts_usage(FILE *f)
{
	const struct mem_ops *m;
	size_t i;

	fprintf(f,
"Usage: pfclab traffic -d DEV [OPTIONS]          (server: waits for a client)\n"
"       pfclab traffic -d DEV [OPTIONS] HOST     (client: connects to the server on HOST)\n"
"       pfclab traffic --check-mem TYPE [-d DEV] [--gpu G] [--check-size N]\n"
"\n"
"RDMA WRITE traffic between two hosts over RC queue pairs, one-way (client writes to\n"
"server) or in both directions at once (-b), from host or GPU memory, with a report per\n"
"interval and a summary at the end (Ctrl-C ends early and still prints it).\n"
"Both sides must be given the same -s/-a, -q, -b, --imm, -D/-n and --warmup.\n"
"\n"
"Connection:\n"
"  -d, --ib-dev DEV        RDMA device (e.g. mlx5_0, rxe0)\n"
"  -i, --ib-port N         device port (default 1)\n"
"  -x, --gid-index N       GID index (default: the port's RoCEv2 IPv4 GID)\n"
"  -p, --port N            TCP port of the exchange (default %d)\n"
"      --bind ADDR         local address of the exchange socket (server: listen only\n"
"                          there; default: every address)\n"
"      --psk FILE          pre-shared key (also $PFCLAB_PSK_FILE): both sides prove it\n"
"                          before any memory key is sent; at least 16 bytes, one trailing\n"
"                          newline ignored, the file readable by its owner only\n"
"      --peer-timeout DUR  a silent peer (stopped, unreachable) is declared gone\n"
"                          within DUR (heartbeats; default 2s)\n"
"      --timeout DUR       connect / exchange step timeout (default 10s)\n"
"      --wait DUR          server: give up when no client came within DUR (default: wait)\n"
"Traffic:\n"
"  -q, --qp N              queue pairs (default 1, max %d)\n"
"  -s, --size LIST         message size(s), e.g. 64 or 4K,64K,1M (default 64K)\n"
"  -a, --all               sweep sizes 2 B .. 8 MiB in powers of two\n"
"  -b, --bidirectional     both sides write at the same time\n"
"      --imm               RDMA WRITE with immediate (receiver counts completions)\n"
"  -D, --duration DUR      run time per size (default 5s)\n"
"  -n, --iters N           messages per QP per size instead of a duration\n"
"      --warmup DUR        traffic before measuring starts (default 0)\n"
"  -t, --tx-depth N        outstanding sends per QP (default 128)\n"
"      --rx-depth N        receives posted per QP with --imm (default 512)\n"
"  -l, --post-list N       sends chained per post call (default: 8 for messages up\n"
"                          to 4 KiB, else 1; never above the tx depth)\n"
"  -Q, --cq-mod N          request a completion every N sends at most (default 64,\n"
"                          <= tx depth); fewer for large messages: at least one\n"
"                          every 64 KiB and two per tx depth\n"
"  -I, --inline-size N     send messages up to N bytes inline (default 0)\n"
"  -m, --mtu N             path MTU 256..4096 (default: the port's active MTU)\n"
"      --rate GBPS         per-QP rate limit in Gb/s (default: unlimited)\n"
"      --rate-mode M       auto (hardware, else software pacing), hw or sw\n"
"RoCEv2 marking:\n"
"      --tclass N          IP traffic class byte 0..255 (DSCP << 2 | ECN)\n"
"      --dscp N            DSCP 0..63 (sets --tclass to N << 2)\n"
"  -S, --sl N              service level / priority 0..15 (default 0)\n"
"      --qp-timeout N      ACK timeout 4.096us * 2^N, 1..31 (default 14: 67 ms)\n"
"      --retry N           transport retries 0..7 (default 6; rxe retries forever at 7)\n"
"Memory:\n"
"      --mem TYPE          buffer memory (default host):\n",
		TRAFFIC_DEFAULT_PORT, TRAFFIC_MAX_QPS);
	for (i = 0; (m = mem_ops_at(i)); i++)
		fprintf(f, "                            %-12s %s\n", m->name, m->summary);
	fprintf(f,
"      --gpu G             GPU index or PCI bus id (default 0)\n"
"      --hugepages         host memory from 2 MiB pages when available\n"
"      --numa N            host memory NUMA node (default: the NIC's)\n"
"      --check-mem TYPE    exercise a memory backend (alloc, export, register when -d is\n"
"                          given, write/read a pattern, free) and report each step\n"
"      --check-size N      buffer size for --check-mem (default 4M)\n"
"Output:\n"
"      --interval DUR      report period (default 1s)\n"
"      --json              one JSON object per line instead of the table\n"
"      --quiet             only the summary\n"
"\n"
"Exit status: 0 success, 1 run-time failure (peer lost, completion error, mismatch),\n"
"2 usage error. For --check-mem: 0 all steps passed, 1 a step failed, 3 the backend\n"
"cannot run on this host (no GPU / no libcuda).\n");
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

static const char *range_word(int rc)
{
	return rc == -ERANGE ? "out of range" : "not a number";
}

static int parse_sizes(const char *arg, struct traffic_opts *o, char *err, size_t n)
{
	char buf[512], *tok, *rest;
	uint64_t v;
	int rc;

	if (strlen(arg) >= sizeof(buf))
		return bad(err, n, "-s: list too long");
	strcpy(buf, arg);
	o->nsizes = 0;
	rest = buf;
	while ((tok = strsep(&rest, ","))) {
		if (!*tok)
			return bad(err, n, "-s '%s': empty size in the list", arg);
		if (o->nsizes == TRAFFIC_MAX_SIZES)
			return bad(err, n, "-s: at most %d sizes", TRAFFIC_MAX_SIZES);
		rc = parse_size(tok, 1, TRAFFIC_MAX_MSG, &v);
		if (rc)
			return bad(err, n, "-s '%s': %s (1 byte .. 64M)", tok, range_word(rc));
		o->sizes[o->nsizes++] = (uint32_t)v;
	}
	if (!o->nsizes)
		return bad(err, n, "-s: empty size list");
	return 0;
}

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

struct seen {
	bool s, a, D, n, cq, dscp, tclass, l;	/* options given, for the combination checks */
};

/* Connection, exchange and output options. 0 when handled, 1 when c is not one of them, -EINVAL with err set. */
static int opt_conn(int c, const char *a, struct traffic_opts *o, struct seen *g, char *err, size_t n)
{
	uint32_t u;
	int rc;

	switch (c) {
	case 'd': o->dev = a; break;
	case 'i':
		if ((rc = parse_u32(a, 1, 255, &o->ib_port)))
			return bad(err, n, "-i '%s': %s (1..255)", a, range_word(rc));
		break;
	case 'x':
		if ((rc = parse_u32(a, 0, 65535, &u)))
			return bad(err, n, "-x '%s': %s (0..65535)", a, range_word(rc));
		o->gid_index = (int)u;
		break;
	case 'p':
		if ((rc = parse_u32(a, 1, 65535, &u)))
			return bad(err, n, "-p '%s': %s (1..65535)", a, range_word(rc));
		o->port = (uint16_t)u;
		break;
	case OPT_BIND: o->bind_addr = a; break;
	case OPT_PSK:
		if (!*a)
			return bad(err, n, "--psk '': give the path of a key file");
		o->psk_file = a;
		break;
	case OPT_PEER_TIMEOUT:
		if ((rc = parse_duration_ns(a, 100000000ULL, 3600ULL * 1000000000ULL, &o->peer_timeout_ns)))
			return bad(err, n, "--peer-timeout '%s': %s (100ms .. 1h)", a,
				   rc == -ERANGE ? "out of range" : "not a duration");
		break;
	case OPT_TIMEOUT:
		if ((rc = parse_duration_ns(a, 10000000ULL, 3600ULL * 1000000000ULL, &o->timeout_ns)))
			return bad(err, n, "--timeout '%s': %s (10ms .. 1h)", a,
				   rc == -ERANGE ? "out of range" : "not a duration");
		break;
	case OPT_WAIT:
		if ((rc = parse_duration_ns(a, 10000000ULL, 30ULL * 86400 * 1000000000ULL, &o->wait_ns)))
			return bad(err, n, "--wait '%s': %s (10ms .. 30 days)", a,
				   rc == -ERANGE ? "out of range" : "not a duration");
		break;
	case OPT_INTERVAL:
		if ((rc = parse_duration_ns(a, 10000000ULL, 3600ULL * 1000000000ULL, &o->interval_ns)))
			return bad(err, n, "--interval '%s': %s (10ms .. 1h)", a,
				   rc == -ERANGE ? "out of range" : "not a duration");
		break;
	case OPT_JSON: o->json = true; break;
	case 'Z': o->quiet = true; break;
	default:
		return 1;
	}
	return 0;
}

/* What is sent: sizes, QPs, depths, run length. 0 when handled, 1 when c is not one of them, -EINVAL with err set. */
static int opt_traffic(int c, const char *a, struct traffic_opts *o, struct seen *g, char *err, size_t n)
{
	uint32_t u;
	int rc;

	switch (c) {
	case 'q':
		if ((rc = parse_u32(a, 1, TRAFFIC_MAX_QPS, &o->qps)))
			return bad(err, n, "-q '%s': %s (1..%d)", a, range_word(rc), TRAFFIC_MAX_QPS);
		break;
	case 's':
		g->s = true;
		if ((rc = parse_sizes(a, o, err, n)))
			return rc;
		break;
	case 'a':
		g->a = true;
		o->nsizes = 0;
		for (u = 2; u <= (8u << 20); u <<= 1)
			o->sizes[o->nsizes++] = u;
		break;
	case 'b': o->bidir = true; break;
	case OPT_IMM: o->imm = true; break;
	case 't':
		if ((rc = parse_u32(a, 1, 16384, &o->tx_depth)))
			return bad(err, n, "-t '%s': %s (1..16384)", a, range_word(rc));
		break;
	case OPT_RX_DEPTH:
		if ((rc = parse_u32(a, 1, 16384, &o->rx_depth)))
			return bad(err, n, "--rx-depth '%s': %s (1..16384)", a, range_word(rc));
		break;
	case 'l':
		g->l = true;
		o->post_list_auto = false;
		if ((rc = parse_u32(a, 1, 64, &o->post_list)))
			return bad(err, n, "-l '%s': %s (1..64)", a, range_word(rc));
		break;
	case 'Q':
		g->cq = true;
		if ((rc = parse_u32(a, 1, 16384, &o->cq_mod)))
			return bad(err, n, "-Q '%s': %s (1..16384)", a, range_word(rc));
		break;
	case 'I':
		if ((rc = parse_u32(a, 0, 4096, &o->inline_size)))
			return bad(err, n, "-I '%s': %s (0..4096)", a, range_word(rc));
		break;
	case 'm':
		if ((rc = parse_u32(a, 256, 4096, &o->mtu)) || (o->mtu & (o->mtu - 1)))
			return bad(err, n, "-m '%s': the MTU is one of 256, 512, 1024, 2048, 4096", a);
		break;
	case 'D':
		g->D = true;
		if ((rc = parse_duration_ns(a, 1000000ULL, 30ULL * 86400 * 1000000000ULL, &o->duration_ns)))
			return bad(err, n, "-D '%s': %s (e.g. 10, 500ms, 2m; 1ms .. 30 days)", a,
				   rc == -ERANGE ? "out of range" : "not a duration");
		break;
	case 'n':
		g->n = true;
		if ((rc = parse_u64(a, 1, 1ULL << 40, &o->iters)))
			return bad(err, n, "-n '%s': %s (1 .. 2^40)", a, range_word(rc));
		break;
	case OPT_WARMUP:
		if ((rc = parse_duration_ns(a, 0, 3600ULL * 1000000000ULL, &o->warmup_ns)))
			return bad(err, n, "--warmup '%s': %s (0 .. 1h)", a,
				   rc == -ERANGE ? "out of range" : "not a duration");
		break;
	default:
		return 1;
	}
	return 0;
}

/* Marking, transport, rate and memory options. 0 when handled, 1 when c is not one of them, -EINVAL with err set. */
static int opt_other(int c, const char *a, struct traffic_opts *o, struct seen *g, char *err, size_t n)
{
	uint32_t u;
	char *end;
	int rc;

	switch (c) {
	case OPT_TCLASS:
		g->tclass = true;
		if ((rc = parse_u32(a, 0, 255, &u)))
			return bad(err, n, "--tclass '%s': %s (0..255)", a, range_word(rc));
		o->tclass = (int)u;
		break;
	case OPT_DSCP:
		g->dscp = true;
		if ((rc = parse_u32(a, 0, 63, &u)))
			return bad(err, n, "--dscp '%s': %s (0..63)", a, range_word(rc));
		o->tclass = (int)(u << 2);
		break;
	case 'S':
		if ((rc = parse_u32(a, 0, 15, &o->sl)))
			return bad(err, n, "-S '%s': %s (0..15)", a, range_word(rc));
		break;
	case OPT_RATE:
		errno = 0;
		o->rate_gbps = strtod(a, &end);
		if (end == a || *end || errno || !(o->rate_gbps > 0) || o->rate_gbps > 1000)
			return bad(err, n, "--rate '%s': a rate in Gb/s above 0 and up to 1000", a);
		break;
	case OPT_RATE_MODE:
		if (!strcmp(a, "auto"))
			o->rate_mode = TRAFFIC_RATE_AUTO;
		else if (!strcmp(a, "hw"))
			o->rate_mode = TRAFFIC_RATE_HW;
		else if (!strcmp(a, "sw"))
			o->rate_mode = TRAFFIC_RATE_SW;
		else
			return bad(err, n, "--rate-mode '%s': one of auto, hw, sw", a);
		break;
	case OPT_QP_TIMEOUT:
		if ((rc = parse_u32(a, 1, 31, &o->qp_timeout)))
			return bad(err, n, "--qp-timeout '%s': %s (1..31)", a, range_word(rc));
		break;
	case OPT_RETRY:
		if ((rc = parse_u32(a, 0, 7, &o->retry)))
			return bad(err, n, "--retry '%s': %s (0..7)", a, range_word(rc));
		break;
	case OPT_MEM:
	case OPT_CHECK_MEM:
		if (!mem_ops_find(a))
			return bad(err, n, "%s '%s': unknown memory type; 'pfclab traffic --help' lists them",
				   c == OPT_MEM ? "--mem" : "--check-mem", a);
		if (c == OPT_MEM)
			o->mem = a;
		else
			o->check_mem = a;
		break;
	case OPT_GPU: o->gpu = a; break;
	case OPT_HUGE: o->hugepages = true; break;
	case OPT_NUMA:
		if ((rc = parse_u32(a, 0, 63, &u)))
			return bad(err, n, "--numa '%s': %s (0..63)", a, range_word(rc));
		o->numa_node = (int)u;
		break;
	case OPT_CHECK_SIZE:
		if ((rc = parse_size(a, 4096, 16ULL << 30, &o->check_size)))
			return bad(err, n, "--check-size '%s': %s (4K .. 16G)", a, range_word(rc));
		break;
	default:
		return 1;
	}
	return 0;
}

int traffic_opts_parse(int argc, char **argv, struct traffic_opts *o, char *err, size_t n)
{
	struct seen g = { 0 };
	int c, rc;

	defaults(o);
	err[0] = '\0';
	opterr = 0;
	optind = 0;	/* glibc: full re-initialisation, so parsing can run more than once */
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		const char *a = optarg;

		if ((rc = opt_conn(c, a, o, &g, err, n)) != 1 ||
		    (rc = opt_traffic(c, a, o, &g, err, n)) != 1 ||
		    (rc = opt_other(c, a, o, &g, err, n)) != 1) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			return 1;
		case ':':
			return bad(err, n, "option '%s' needs a value", argv[optind - 1]);
		default:
			return bad(err, n, "unknown option '%s'; see 'pfclab traffic --help'",
				   argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->host = argv[optind++];
	if (optind < argc)
		return bad(err, n, "unexpected argument '%s': only one HOST may be given", argv[optind]);

	/* Combinations. */
	if (g.s && g.a)
		return bad(err, n, "-s and -a both given: pick a size list or the sweep");
	if (g.D && g.n)
		return bad(err, n, "-D and -n both given: run for a duration or a message count");
	if (g.tclass && g.dscp)
		return bad(err, n, "--tclass and --dscp both given: --dscp N is --tclass N<<2");
	if (!g.D && !g.n)
		o->duration_ns = 5ULL * 1000000000ULL;
	if (!o->psk_file) {
		const char *env = getenv("PFCLAB_PSK_FILE");

		if (env && *env)
			o->psk_file = env;
	}
	if (o->check_mem)
		return 0;
	if (!o->dev)
		return bad(err, n, "no RDMA device: give -d DEV (see 'rdma link' or 'ibv_devices')");
	if (!g.cq && o->cq_mod > o->tx_depth)
		o->cq_mod = o->tx_depth;
	if (o->cq_mod > o->tx_depth)
		return bad(err, n, "-Q %u is larger than the tx depth -t %u: completions would never come",
			   o->cq_mod, o->tx_depth);
	if (!g.l && o->post_list > o->tx_depth)
		o->post_list = o->tx_depth;
	if (o->post_list > o->tx_depth)
		return bad(err, n, "-l %u is larger than the tx depth -t %u", o->post_list, o->tx_depth);
	if (o->rate_mode != TRAFFIC_RATE_AUTO && o->rate_gbps == 0)
		return bad(err, n, "--rate-mode given without --rate");
	return 0;
}
