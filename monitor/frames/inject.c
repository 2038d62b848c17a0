// SPDX-License-Identifier: GPL-2.0-or-later
/* inject.c: `pfclab inject`: crafts PAUSE, PFC, CNP or RoCEv2 frames and sends them on
 * an interface at a given rate and count (or writes them to a capture file), and
 * dispatches the two reactive modes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "lib/util.h"
#include "monitor/frames/decode.h"
#include "monitor/frames/inject.h"
#include "monitor/frames/pcapfile.h"
#include "monitor/frames/review.h"
#include "monitor/frames/tx.h"

#define FRAME_MAX 9216 /* --len 9000 and every header, VLAN tag included */

volatile int inject_stop;

static void on_signal(int sig)
{
	(void)sig;
	inject_stop = 1;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &tail) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 0xff)
			return -EINVAL;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

/* "3", "0,3", "0-7" -> class-enable vector */
static int parse_prios(const char *s, uint8_t *vec)
{
	const char *p = s;
	uint8_t v = 0;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0 || a > 7)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 7)
				return -EINVAL;
		}
		for (long i = a; i <= b; i++)
			v |= (uint8_t)(1u << i);
		if (*end == ',')
			end++;
		else if (*end)
			return -EINVAL;
		p = end;
	}
	if (!v)
		return -EINVAL;
	*vec = v;
	return 0;
}

static int parse_ecn(const char *s, uint8_t *ecn)
{
	static const char *const names[] = { "not-ect", "ect1", "ect0", "ce" };

	for (uint8_t i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*ecn = i;
			return 0;
		}
	return -EINVAL;
}

/* "SEC[.FRACTION]" to ns, exactly (no floating point) */
static int parse_start(const char *s, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ull;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		sec = sec * 10 + (uint64_t)(*p - '0');
		if (sec > 10000000000ull)
			return -ERANGE;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
		}
	}
	if (*p)
		return -EINVAL;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

static enum inject_kind kind_parse(const char *s)
{
	static const char *const names[] = {
		[INJECT_PAUSE] = "pause", [INJECT_PFC] = "pfc", [INJECT_CNP] = "cnp",
		[INJECT_ROCE] = "roce", [INJECT_CNP_ON_CE] = "cnp-on-ce",
		[INJECT_PFC_ON_BACKLOG] = "pfc-on-backlog",
	};
	unsigned i;

	for (i = 1; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i]))
			return (enum inject_kind)i;
	return INJECT_UNKNOWN;
}

static size_t craft_one(const struct inject_opts *o, uint64_t i, uint8_t *buf, size_t cap)
{
	uint16_t q[8];
	struct frames_roce ro;

	if (o->kind_id == INJECT_PAUSE)
		return frames_craft_pause(buf, cap, &o->l2, o->quanta);
	if (o->kind_id == INJECT_PFC) {
		for (int p = 0; p < 8; p++)
			q[p] = o->quanta;
		return frames_craft_pfc(buf, cap, &o->l2, o->prios, q);
	}
	ro = o->roce;
	ro.dqp = (ro.dqp + (uint32_t)((o->qp_count ? i % o->qp_count : i) * o->qp_step)) &
		 0xffffff;
	ro.psn = (ro.psn + (uint32_t)i) & 0xffffff;
	if (o->kind_id == INJECT_CNP) {
		ro.opcode = FRAMES_BTH_OP_CNP;
		ro.payload = 0;
	} else if (o->ce_every && (i + 1) % o->ce_every == 0) {
		ro.ecn = FRAMES_ECN_CE;
	}
	return frames_craft_roce(buf, cap, &o->l2, &ro);
}

static int run_write(const struct inject_opts *o)
{
	struct pcapf_writer w;
	uint64_t rate = o->rate ? o->rate : 1000, i, n = o->count;
	uint8_t buf[FRAME_MAX];
	int rc;

	if (o->append)
		rc = pcapf_writer_append(&w, o->write_path);
	else
		rc = pcapf_writer_open(&w, o->write_path, o->pcapng, FRAMES_LINK_EN10MB, 65535);
	if (!rc && !o->append && o->pcapng)
		rc = pcapf_writer_add_if(&w, FRAMES_LINK_EN10MB, 65535, "inject", 0) < 0 ? -EIO : 0;
	if (rc) {
		pfc_errno(-rc, "%s: cannot %s the capture file%s", o->write_path,
			  o->append ? "append to" : "create",
			  o->append ? " (only files pfclab wrote, nanosecond pcap or pcapng)" : "");
		return 1;
	}
	if (!n && o->duration_ns)
		n = (uint64_t)((unsigned __int128)o->duration_ns * rate / 1000000000ull);
	for (i = 0; i < n; i++) {
		size_t len = craft_one(o, i, buf, sizeof(buf));
		uint64_t ts = o->start_ns + (uint64_t)((unsigned __int128)i * 1000000000ull / rate);

		if (!len) {
			pfc_err("frame does not fit in %zu bytes; lower --len", sizeof(buf));
			pcapf_writer_close(&w);
			return 1;
		}
		rc = pcapf_writer_write(&w, 0, ts, buf, o->snaplen && o->snaplen < len ?
					o->snaplen : (uint32_t)len, (uint32_t)len);
		if (rc)
			break;
	}
	if (!rc)
		rc = pcapf_writer_close(&w);
	else
		pcapf_writer_close(&w);
	if (rc) {
		pfc_errno(-rc, "%s: write failed", o->write_path);
		return 1;
	}
	if (!o->quiet)
		fprintf(stderr, "pfclab inject: wrote %" PRIu64 " %s frames to %s\n", n, o->kind,
			o->write_path);
	return 0;
}

static void sleep_until(uint64_t t)
{
	uint64_t now = time_mono_ns();

	if (t <= now)
		return;
	if (t - now > 100000) {
		struct timespec ts = { .tv_sec = (time_t)((t - 50000) / 1000000000ull),
				       .tv_nsec = (long)((t - 50000) % 1000000000ull) };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	while (time_mono_ns() < t)
		;
}

#define BATCH 64

/* The interface's MTU (IP packet bytes), 0 when it cannot be read. */
static unsigned if_mtu(int fd, const char *ifname)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	return ioctl(fd, SIOCGIFMTU, &ifr) < 0 ? 0 : (unsigned)ifr.ifr_mtu;
}

static int run_send(const struct inject_opts *o)
{
	static uint8_t bufs[BATCH][FRAME_MAX];
	const uint8_t *ptrs[BATCH];
	size_t lens[BATCH];
	struct frames_tx tx;
	struct inject_opts oo = *o;
	uint64_t t0, i = 0, n = o->count, deadline;
	size_t flen, hdr;
	unsigned mtu;
	int rc;

	rc = frames_tx_open(&tx, o->ifname, !o->via_qdisc);
	if (rc) {
		pfc_errno(-rc, "%s: cannot open an AF_PACKET socket%s", o->ifname,
			  rc == -EPERM ? " (needs root or CAP_NET_RAW)" :
			  rc == -ENODEV ? " (no such interface; see 'ip link')" : "");
		return 1;
	}
	if (!oo.have_src_mac)
		memcpy(oo.l2.src, tx.mac, 6);
	/* Every frame of a run has the length of the first: check it against the MTU once,
	 * before anything is sent (the kernel refuses a longer one with EMSGSIZE). */
	flen = craft_one(&oo, 0, bufs[0], sizeof(bufs[0]));
	mtu = if_mtu(tx.fd, o->ifname);
	hdr = 14 + (oo.l2.vlan >= 0 ? 4 : 0);
	if (!flen || (mtu && flen > mtu + hdr)) {
		pfc_err("%s: a %zu-byte frame does not fit the interface's MTU of %u; lower --len "
			"by %zu or raise the MTU (ip link set %s mtu N)", o->ifname, flen, mtu,
			flen - mtu - hdr, o->ifname);
		frames_tx_close(&tx);
		return 1;
	}
	/* bulk sending goes through the mapped ring; sendmmsg where the kernel refuses it */
	(void)frames_tx_ring(&tx, flen);
	t0 = time_mono_ns();
	deadline = o->duration_ns ? t0 + o->duration_ns : UINT64_MAX;
	while (!inject_stop && (n == 0 || i < n)) {
		unsigned k = 0;
		uint64_t now = time_mono_ns();

		if (now >= deadline)
			break;
		if (o->rate) {
			uint64_t due = t0 + (uint64_t)((unsigned __int128)i * 1000000000ull / o->rate);

			if (due > now) {
				sleep_until(due);
				now = time_mono_ns();
			}
		}
		while (k < BATCH && (n == 0 || i + k < n)) {
			if (o->rate && t0 + (uint64_t)((unsigned __int128)(i + k) * 1000000000ull /
							o->rate) > now && k)
				break;
			lens[k] = craft_one(&oo, i + k, bufs[k], sizeof(bufs[k]));
			if (!lens[k]) {
				pfc_err("frame does not fit in %zu bytes; lower --len", sizeof(bufs[k]));
				frames_tx_close(&tx);
				return 1;
			}
			ptrs[k] = bufs[k];
			k++;
		}
		rc = frames_tx_send(&tx, ptrs, lens, k);
		if (rc < 0) {
			pfc_errno(-rc, "%s: send failed after %" PRIu64 " frames", o->ifname, i);
			frames_tx_close(&tx);
			return 1;
		}
		i += (uint64_t)rc; /* frames not taken (queue full) are crafted again */
		if ((unsigned)rc < k) /* queue full: give the receiver the CPU a moment */
			nanosleep(&(struct timespec){ .tv_nsec = 20000 }, NULL);
	}
	rc = frames_tx_drain(&tx, 2000000000ull);
	if (rc < 0) {
		pfc_errno(-rc, "%s: send failed after %" PRIu64 " frames", o->ifname, tx.sent);
		frames_tx_close(&tx);
		return 1;
	}
	if (rc > 0) {
		pfc_err("%s: %d frames were still queued 2 s after the last one: the device did "
			"not take them (link down or paused?); %" PRIu64 " went out", o->ifname, rc,
			tx.sent);
		i = tx.sent;
	}
	if (!o->quiet)
		fprintf(stderr, "pfclab inject: sent %" PRIu64 " %s frames on %s in %.3f s"
			" (%" PRIu64 " queue-full retries)\n", i, o->kind, o->ifname,
			(double)(time_mono_ns() - t0) / 1e9, tx.failed);
	frames_tx_close(&tx);
	return rc > 0 ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: pfclab inject [OPTIONS] KIND\n"
		"\n"
		"Crafts frames and sends them on an interface (AF_PACKET) or writes them to a\n"
		"capture file. KIND is one of:\n"
		"  pause           802.3x PAUSE (dst 01:80:c2:00:00:01, one time in quanta)\n"
		"  pfc             802.1Qbb PFC for the priorities of --prio\n"
		"  cnp             RoCEv2 CNP (BTH opcode 0x81) to --dst-ip and --qp\n"
		"  roce            RoCEv2 RDMA WRITE-only packet (for tests and benchmarks)\n"
		"  cnp-on-ce       reactive: answer every CE-marked RoCEv2 packet received on\n"
		"                  -i with a CNP to its sender, at most one per --cnp-gap per QP\n"
		"  pfc-on-backlog  reactive: send PFC XOFF on -i when the backlog of the root\n"
		"                  qdisc of --qdisc-dev reaches --xoff-bytes, XON below --xon-bytes\n"
		"\n"
		"Where:\n"
		"  -i, --interface IF   send on IF (needs CAP_NET_RAW)\n"
		"  -w, --write FILE     write a pcap instead (timestamps from --start and --rate)\n"
		"      --pcapng         write pcapng rather than pcap (both nanosecond)\n"
		"      --append         add to an existing FILE written by pfclab\n"
		"      --start SECONDS  timestamp of the first written frame (default 1700000000)\n"
		"      --snaplen N      keep only N bytes of each written frame (truncated records)\n"
		"How many:\n"
		"  -c, --count N        frames (default 1; 0 = until --duration or Ctrl-C)\n"
		"  -r, --rate PPS       frames per second (default: as fast as possible; 1000 with -w)\n"
		"  -d, --duration DUR   stop after DUR (e.g. 10s)\n"
		"Frame fields:\n"
		"      --src-mac MAC    (default: the interface's address)\n"
		"      --dst-mac MAC    (default 01:80:c2:00:00:01 for pause/pfc, else broadcast)\n"
		"      --vlan ID[:PCP]  add an 802.1Q tag\n"
		"  -q, --quanta Q       pause time in quanta of 512 bit times (default 65535;\n"
		"                       0 = XON)\n"
		"      --pause-time DUR --speed RATE  the same given as a time at a link speed\n"
		"  -p, --prio LIST      PFC priorities: 3, 0,3 or 0-7 (default 3)\n"
		"      --src-ip IP, --dst-ip IP   IPv4 addresses (default 10.0.0.1 > 10.0.0.2)\n"
		"      --qp QPN         destination QP (default 0x11)\n"
		"      --qp-step N      add N to the QP for each frame (many QPs)\n"
		"      --qp-count N     cycle through N QPs with --qp-step\n"
		"      --psn PSN, --dscp N, --sport PORT\n"
		"      --ecn not-ect|ect0|ect1|ce   ECN of roce frames (default ect0)\n"
		"      --ce-every N     mark every Nth roce frame CE\n"
		"      --len BYTES      roce payload bytes, 0 to 9000 (default 1024); with -i the\n"
		"                       frame must fit the interface's MTU\n"
		"Reactive modes:\n"
		"      --cnp-gap DUR    least time between CNPs to one QP (default 50us)\n"
		"      --cnp-dscp N     DSCP of the CNPs (default 48)\n"
		"      --peer-qp QPN    QP the CNPs go to (default: learned from the packets\n"
		"                       flowing back from the CE packet's receiver)\n"
		"      --dst-mac MAC    CNPs to MAC instead of the CE packet's source (seen on the\n"
		"                       wire, not taken in by the sender's stack)\n"
		"      --qdisc-dev DEV  device whose root qdisc backlog is watched\n"
		"      --xoff-bytes N, --xon-bytes N   thresholds (default 30000 / 10000)\n"
		"      --poll DUR       backlog poll period (default 1ms)\n"
		"Other:\n"
		"      --via-qdisc      send through the interface's qdisc (default: bypass it,\n"
		"                       as a MAC sends PAUSE/PFC ahead of queued traffic)\n"
		"      --quiet          no summary line\n"
		"  -h, --help           this text\n"
		"\n"
		"Examples:\n"
		"  pfclab inject -i eth2 pfc --prio 3 --pause-time 1ms --speed 25G -c 1\n"
		"  pfclab inject -i eth2 cnp --src-ip 192.0.2.2 --dst-ip 192.0.2.1 --qp 0x1a4 -r 1000 -c 100\n"
		"  pfclab inject -i vb cnp-on-ce -d 30s\n"
		"\n"
		"Exit status: 0 success, 1 run-time failure, 2 usage error.\n");
}

enum {
	O_PCAPNG = 256, O_APPEND, O_START, O_SRC_MAC, O_DST_MAC, O_VLAN, O_PAUSE_TIME, O_SPEED,
	O_SRC_IP, O_DST_IP, O_QP, O_QP_STEP, O_PSN, O_DSCP, O_SPORT, O_ECN, O_CE_EVERY, O_LEN,
	O_CNP_GAP, O_CNP_DSCP, O_SNAPLEN, O_QP_COUNT, O_VIA_QDISC, O_PEER_QP, O_QDISC_DEV, O_XOFF, O_XON, O_POLL, O_QUIET,
};

int inject_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "interface", required_argument, NULL, 'i' },
		{ "write", required_argument, NULL, 'w' },
		{ "pcapng", no_argument, NULL, O_PCAPNG },
		{ "append", no_argument, NULL, O_APPEND },
		{ "start", required_argument, NULL, O_START },
		{ "snaplen", required_argument, NULL, O_SNAPLEN },
		{ "count", required_argument, NULL, 'c' },
		{ "rate", required_argument, NULL, 'r' },
		{ "duration", required_argument, NULL, 'd' },
		{ "src-mac", required_argument, NULL, O_SRC_MAC },
		{ "dst-mac", required_argument, NULL, O_DST_MAC },
		{ "vlan", required_argument, NULL, O_VLAN },
		{ "quanta", required_argument, NULL, 'q' },
		{ "pause-time", required_argument, NULL, O_PAUSE_TIME },
		{ "speed", required_argument, NULL, O_SPEED },
		{ "prio", required_argument, NULL, 'p' },
		{ "src-ip", required_argument, NULL, O_SRC_IP },
		{ "dst-ip", required_argument, NULL, O_DST_IP },
		{ "qp", required_argument, NULL, O_QP },
		{ "qp-step", required_argument, NULL, O_QP_STEP },
		{ "qp-count", required_argument, NULL, O_QP_COUNT },
		{ "psn", required_argument, NULL, O_PSN },
		{ "dscp", required_argument, NULL, O_DSCP },
		{ "sport", required_argument, NULL, O_SPORT },
		{ "ecn", required_argument, NULL, O_ECN },
		{ "ce-every", required_argument, NULL, O_CE_EVERY },
		{ "len", required_argument, NULL, O_LEN },
		{ "cnp-gap", required_argument, NULL, O_CNP_GAP },
		{ "cnp-dscp", required_argument, NULL, O_CNP_DSCP },
		{ "peer-qp", required_argument, NULL, O_PEER_QP },
		{ "qdisc-dev", required_argument, NULL, O_QDISC_DEV },
		{ "xoff-bytes", required_argument, NULL, O_XOFF },
		{ "xon-bytes", required_argument, NULL, O_XON },
		{ "poll", required_argument, NULL, O_POLL },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "via-qdisc", no_argument, NULL, O_VIA_QDISC },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct inject_opts o = {
		.count = 1, .start_ns = 1700000000ull * 1000000000ull, .quanta = 0xffff,
		.prios = 1u << 3, .cnp_gap_ns = 50000, .cnp_dscp = 48, .peer_qp = -1,
		.xoff_bytes = 30000, .xon_bytes = 10000, .poll_ns = 1000000,
		.l2 = { .vlan = -1 },
		.roce = { .src_ip = 0x0a000001, .dst_ip = 0x0a000002, .sport = 0xc000,
			  .ecn = 2, .opcode = 0x0a, .pkey = 0xffff, .dqp = 0x11,
			  .payload = 1024, .reth_va = 0x10000, .reth_rkey = 0x1234 },
	};
	uint64_t pause_ns = 0, speed = 0, v;
	const char *pause_arg = NULL;
	struct in_addr ia;
	struct sigaction sa = { .sa_handler = on_signal };
	bool count_given = false;
	int c;

	while ((c = getopt_long(argc, argv, "i:w:c:r:d:q:p:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'i': o.ifname = optarg; break;
		case 'w': o.write_path = optarg; break;
		case O_PCAPNG: o.pcapng = true; break;
		case O_APPEND: o.append = true; break;
		case O_QUIET: o.quiet = true; break;
		case O_VIA_QDISC: o.via_qdisc = true; break;
		case O_START:
			if (parse_start(optarg, &o.start_ns))
				return pfc_bad_arg("--start", optarg, "give seconds since 1970, e.g. 1700000000.25");
			break;
		case O_SNAPLEN:
			if (parse_u32(optarg, 1, 65535, &o.snaplen))
				return pfc_bad_arg("--snaplen", optarg, "give 1 to 65535 bytes");
			break;
		case 'c':
			if (parse_u64(optarg, 0, UINT64_MAX, &o.count))
				return pfc_bad_arg("--count", optarg, "give a frame count");
			count_given = true;
			break;
		case 'r':
			if (parse_u64(optarg, 1, 1000000000, &o.rate))
				return pfc_bad_arg("--rate", optarg, "give frames per second (1 or more)");
			break;
		case 'd':
			if (parse_duration_ns(optarg, 1, UINT64_MAX, &o.duration_ns))
				return pfc_bad_arg("--duration", optarg, "give a duration such as 10s");
			break;
		case O_SRC_MAC:
			if (parse_mac(optarg, o.l2.src))
				return pfc_bad_arg("--src-mac", optarg, "give a MAC such as 02:00:00:00:00:01");
			o.have_src_mac = true;
			break;
		case O_DST_MAC:
			if (parse_mac(optarg, o.l2.dst))
				return pfc_bad_arg("--dst-mac", optarg, "give a MAC such as 02:00:00:00:00:01");
			o.have_dst_mac = true;
			break;
		case O_VLAN: {
			unsigned id, pcp = 0;
			int n = sscanf(optarg, "%u:%u", &id, &pcp);

			if (n < 1 || id > 4095 || pcp > 7)
				return pfc_bad_arg("--vlan", optarg, "give ID or ID:PCP (0-4095, 0-7)");
			o.l2.vlan = (int)id;
			o.l2.pcp = (uint8_t)pcp;
			break;
		}
		case 'q':
			if (parse_u64(optarg, 0, 0xffff, &v))
				return pfc_bad_arg("--quanta", optarg, "give 0 to 65535");
			o.quanta = (uint16_t)v;
			break;
		case O_PAUSE_TIME:
			if (parse_duration_ns(optarg, 1, UINT64_MAX, &pause_ns))
				return pfc_bad_arg("--pause-time", optarg, "give a duration such as 1ms");
			pause_arg = optarg;
			break;
		case O_SPEED:
			if (frames_speed_parse(optarg, &speed))
				return pfc_bad_arg("--speed", optarg, "give a link speed such as 25G");
			break;
		case 'p':
			if (parse_prios(optarg, &o.prios))
				return pfc_bad_arg("--prio", optarg, "give priorities 0-7 as 3, 0,3 or 0-7");
			break;
		case O_SRC_IP:
		case O_DST_IP:
			if (inet_pton(AF_INET, optarg, &ia) != 1)
				return pfc_bad_arg(c == O_SRC_IP ? "--src-ip" : "--dst-ip", optarg,
					   "give an IPv4 address");
			if (c == O_SRC_IP)
				o.roce.src_ip = ntohl(ia.s_addr);
			else
				o.roce.dst_ip = ntohl(ia.s_addr);
			break;
		case O_QP:
			if (parse_u64(optarg, 0, 0xffffff, &v))
				return pfc_bad_arg("--qp", optarg, "give a QP number below 2^24");
			o.roce.dqp = (uint32_t)v;
			break;
		case O_QP_STEP:
			if (parse_u64(optarg, 0, 0xffffff, &v))
				return pfc_bad_arg("--qp-step", optarg, "give a step below 2^24");
			o.qp_step = (uint32_t)v;
			break;
		case O_QP_COUNT:
			if (parse_u32(optarg, 1, 0xffffff, &o.qp_count))
				return pfc_bad_arg("--qp-count", optarg, "give a QP count of 1 or more");
			break;
		case O_PSN:
			if (parse_u64(optarg, 0, 0xffffff, &v))
				return pfc_bad_arg("--psn", optarg, "give a PSN below 2^24");
			o.roce.psn = (uint32_t)v;
			break;
		case O_DSCP:
		case O_CNP_DSCP:
			if (parse_u64(optarg, 0, 63, &v))
				return pfc_bad_arg(c == O_DSCP ? "--dscp" : "--cnp-dscp", optarg, "give 0-63");
			if (c == O_DSCP)
				o.roce.dscp = (uint8_t)v;
			else
				o.cnp_dscp = (uint8_t)v;
			break;
		case O_SPORT:
			if (parse_u64(optarg, 1, 0xffff, &v))
				return pfc_bad_arg("--sport", optarg, "give a UDP port");
			o.roce.sport = (uint16_t)v;
			break;
		case O_ECN:
			if (parse_ecn(optarg, &o.roce.ecn))
				return pfc_bad_arg("--ecn", optarg, "give not-ect, ect0, ect1 or ce");
			break;
		case O_CE_EVERY:
			if (parse_u32(optarg, 1, UINT32_MAX, &o.ce_every))
				return pfc_bad_arg("--ce-every", optarg, "give N >= 1");
			break;
		case O_LEN:
			if (parse_u64(optarg, 0, 9000, &v))
				return pfc_bad_arg("--len", optarg, "give 0 to 9000 bytes");
			o.roce.payload = (uint16_t)v;
			break;
		case O_CNP_GAP:
			if (parse_duration_ns(optarg, 0, UINT64_MAX, &o.cnp_gap_ns))
				return pfc_bad_arg("--cnp-gap", optarg, "give a duration such as 50us");
			break;
		case O_PEER_QP:
			if (parse_u64(optarg, 0, 0xffffff, &v))
				return pfc_bad_arg("--peer-qp", optarg, "give a QP number below 2^24");
			o.peer_qp = (int64_t)v;
			break;
		case O_QDISC_DEV: o.qdisc_dev = optarg; break;
		case O_XOFF:
		case O_XON:
			if (parse_size(optarg, 0, UINT64_MAX, &v))
				return pfc_bad_arg(c == O_XOFF ? "--xoff-bytes" : "--xon-bytes", optarg,
					   "give bytes such as 30000 or 64K");
			if (c == O_XOFF)
				o.xoff_bytes = v;
			else
				o.xon_bytes = v;
			break;
		case O_POLL:
			if (parse_duration_ns(optarg, 1000, UINT64_MAX, &o.poll_ns))
				return pfc_bad_arg("--poll", optarg, "give a period of 1us or more");
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		pfc_err("give exactly one KIND (pause, pfc, cnp, roce, cnp-on-ce, pfc-on-backlog);"
			" 'pfclab inject --help' explains them");
		return 2;
	}
	o.kind = argv[optind];
	o.kind_id = kind_parse(o.kind);
	if (pause_ns) {
		if (!speed) {
			pfc_err("--pause-time needs --speed to turn time into quanta");
			return 2;
		}
		v = (uint64_t)((unsigned __int128)pause_ns * speed / (512ull * 1000000000ull));
		if (v > 0xffff) {
			pfc_err("--pause-time %s at this speed needs %" PRIu64 " quanta; one frame "
				"carries at most 65535 (send it repeatedly with --rate)",
				pause_arg, v);
			return 2;
		}
		o.quanta = (uint16_t)(v ? v : 1);
	}
	if (!o.have_dst_mac) {
		if (o.kind_id == INJECT_PAUSE || o.kind_id == INJECT_PFC ||
		    o.kind_id == INJECT_PFC_ON_BACKLOG)
			memcpy(o.l2.dst, frames_macctl_dst, 6);
		else
			memset(o.l2.dst, 0xff, 6);
	}
	if (!count_given && o.duration_ns)
		o.count = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (o.kind_id == INJECT_CNP_ON_CE || o.kind_id == INJECT_PFC_ON_BACKLOG) {
		if (!o.ifname) {
			pfc_err("%s needs -i IF", o.kind);
			return 2;
		}
		if (o.kind_id == INJECT_CNP_ON_CE)
			return inject_cnp_on_ce_run(&o);
		if (!o.qdisc_dev) {
			pfc_err("pfc-on-backlog needs --qdisc-dev DEV (the queue to watch)");
			return 2;
		}
		if (o.xon_bytes >= o.xoff_bytes) {
			pfc_err("--xon-bytes must be below --xoff-bytes");
			return 2;
		}
		return inject_pfc_on_backlog_run(&o);
	}
	if (o.kind_id == INJECT_UNKNOWN) {
		pfc_err("'%s' is not a frame kind; give pause, pfc, cnp, roce, cnp-on-ce or "
			"pfc-on-backlog", o.kind);
		return 2;
	}
	if (!o.ifname == !o.write_path) {
		pfc_err("give either -i IF (send) or -w FILE (write a capture file)");
		return 2;
	}
	if (o.write_path && !o.count && !o.duration_ns) {
		pfc_err("--write needs --count or --duration");
		return 2;
	}
	if (o.write_path && !o.have_src_mac)
		memcpy(o.l2.src, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, 0x01 }, 6);
	return o.write_path ? run_write(&o) : run_send(&o);
}
