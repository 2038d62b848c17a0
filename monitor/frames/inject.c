// SPDX-License-Identifier: GPL-2.0-or-later
/* inject.c: `pfclab inject`: crafts PAUSE, PFC, CNP or RoCEv2 frames and sends them on
 * an interface at a given rate and count (or writes them to a capture file), and
 * dispatches the two reactive modes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "lib/hw/sysfs.h"
#include "lib/opt.h"
#include "lib/out.h"
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
		if (*end == ',' && end[1])	/* a comma ends no list */
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

/* The one table of KIND names: parsing and every message that lists KINDs go by it
 * (--help's list is literal text; tests/integration/frames_cli.sh checks it against
 * the list the messages make). */
static const char *const kind_names[] = {
	[INJECT_PAUSE] = "pause", [INJECT_PFC] = "pfc", [INJECT_CNP] = "cnp",
	[INJECT_ROCE] = "roce", [INJECT_CNP_ON_CE] = "cnp-on-ce",
	[INJECT_PFC_ON_BACKLOG] = "pfc-on-backlog",
};
_Static_assert(ARRAY_SIZE(kind_names) == INJECT_NKIND, "a name for every KIND");

static enum inject_kind kind_parse(const char *s)
{
	unsigned i;

	for (i = 1; i < ARRAY_SIZE(kind_names); i++)
		if (!strcmp(s, kind_names[i]))
			return (enum inject_kind)i;
	return INJECT_UNKNOWN;
}

/* How many frames --duration holds at --rate. Frame i is due at i / rate and a frame
 * is sent when it is due before the end: -D 1s -r 10 sends at 0, 0.1, ..., 0.9 s, ten
 * frames, the same with -w (stamps) as on the wire (the first frame at 0 s, none at 1 s).
 */
static uint64_t frames_in(uint64_t duration_ns, uint64_t rate)
{
	unsigned __int128 x = (unsigned __int128)duration_ns * rate + 999999999u;

	x /= 1000000000u;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

/* The frames a paced run sends: --count, --duration's frames at --rate, or the fewer of
 * both; 0 = no limit (no --rate, or neither given). */
static uint64_t frames_due(const struct inject_opts *o, uint64_t rate)
{
	uint64_t d = o->duration_ns && rate ? frames_in(o->duration_ns, rate) : 0;

	if (!o->count)
		return d;
	return d && d < o->count ? d : o->count;
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
	uint64_t rate = o->rate ? o->rate : 1000, i, n = frames_due(o, rate);
	uint8_t buf[FRAME_MAX];
	int rc;

	if (o->append)
		rc = pcapf_writer_append(&w, o->write_path);
	else
		rc = pcapf_writer_open(&w, o->write_path, o->pcapng, FRAMES_LINK_EN10MB, 65535);
	if (!rc && !o->append && o->pcapng)
		rc = pcapf_writer_add_if(&w, FRAMES_LINK_EN10MB, 65535, "inject", 0, NULL) < 0 ? -EIO : 0;
	if (rc) {
		pfc_errno(-rc, "%s: cannot %s the capture file%s", o->write_path,
			  o->append ? "append to" : "create",
			  o->append ? " (only files pfclab wrote, nanosecond pcap or pcapng)" : "");
		return 1;
	}
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
		if (strcmp(o->write_path, "-"))
			pfc_errno(-rc, "%s: write failed", o->write_path);
		else	/* standard output's (a closed pipe): the front door says it */
			out_stdout_failed(rc);
		return 1;
	}
	if (!o->quiet)
		fprintf(stderr, "pfclab inject: wrote %" PRIu64 " %s frame%s to %s\n", n, o->kind,
			n == 1 ? "" : "s", o->write_path);
	return 0;
}

static void sleep_until(uint64_t t)
{
	uint64_t now = time_mono_ns();

	if (t <= now)
		return;
	if (t - now > 100000) {
		struct timespec ts = ns_timespec(t - 50000);

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
	uint64_t t0, i = 0, n = frames_due(o, o->rate), deadline, look = 0;
	size_t flen, hdr;
	unsigned mtu;
	bool gone = false;
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
		/* whoever started inject has gone (a closed pipe): stop sending */
		gone = out_stdout_gone_every(now, &look) != 0;
		if (gone)
			break;
		if (o->rate) {
			uint64_t due = t0 + (uint64_t)((unsigned __int128)i * 1000000000ull / o->rate);

			if (due > now + OUT_STDOUT_LOOK_NS) {	/* a long wait: looked on the way */
				struct timespec ts = ns_timespec(look);

				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
				continue;
			}
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
			pfc_errno(-rc, "%s: send failed after %" PRIu64 " frame%s", o->ifname, i,
				  i == 1 ? "" : "s");
			frames_tx_close(&tx);
			return 1;
		}
		i += (uint64_t)rc; /* frames not taken (queue full) are crafted again */
		if ((unsigned)rc < k) /* queue full: give the receiver the CPU a moment */
			nanosleep(&(struct timespec){ .tv_nsec = 20000 }, NULL);
	}
	rc = frames_tx_drain(&tx, 2000000000ull);
	if (rc < 0) {
		pfc_errno(-rc, "%s: send failed after %" PRIu64 " frame%s", o->ifname, tx.sent,
			  tx.sent == 1 ? "" : "s");
		frames_tx_close(&tx);
		return 1;
	}
	if (rc > 0) {
		pfc_err("%s: %d frame%s still queued 2 s after the last one: the device did "
			"not take them (link down or paused?); %" PRIu64 " went out", o->ifname, rc,
			rc == 1 ? " was" : "s were", tx.sent);
		i = tx.sent;
	}
	/* A paced run that --duration ends lasts the duration: its last frame went out
	 * one period before the end (-D 1s -r 10: at 0.9 s), and the run ends at 1 s. */
	if (!rc && o->rate && o->duration_ns && i == n && !gone &&
	    (!o->count || frames_in(o->duration_ns, o->rate) <= o->count)) {
		uint64_t now;

		while (!inject_stop && (now = time_mono_ns()) < deadline &&
		       !(gone = out_stdout_gone_every(now, &look) != 0)) {
			struct timespec ts = ns_timespec(look < deadline ? look : deadline);

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	if (!o->quiet)
		fprintf(stderr, "pfclab inject: sent %" PRIu64 " %s frame%s on %s in %.3f s"
			" (%" PRIu64 " queue-full retr%s)\n", i, o->kind, i == 1 ? "" : "s",
			o->ifname, (double)(time_mono_ns() - t0) / 1e9, tx.failed,
			tx.failed == 1 ? "y" : "ies");
	frames_tx_close(&tx);
	return rc > 0 || gone ? 1 : 0;
}

static const char inject_usage[] =
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
	"An option of another KIND is refused (exit 2): the message names the KINDs it\n"
	"is for and the options of the KIND given.\n"
	"\n";
static const char inject_tail[] =
	"\n"
	"With --rate, frame i is due at i/PPS and is sent if due before --duration ends:\n"
	"-D 1s -r 10 sends 10 frames, at 0, 0.1, ..., 0.9 s, and ends at 1 s (with -w:\n"
	"10 frames stamped so). With -c and -D, whichever comes first ends the run.\n"
	"When standard output's reader goes (a closed pipe), inject stops sending at\n"
	"once and exits 1.\n"
	"\n"
	"Examples:\n"
	"  pfclab inject -i eth2 pfc --prio 3 --pause-time 1ms -c 1\n"
	"  pfclab inject -i eth2 cnp --src-ip 192.0.2.2 --dst-ip 192.0.2.1 --qp 0x1a4 -r 1000 -c 100\n"
	"  pfclab inject -i vb cnp-on-ce -D 30s\n"
	"\n"
	"Exit status: 0 success, 1 run-time failure, 2 usage error.\n";

/* The command line lands here; fields narrower than the parsers' go through u64s. */
static struct inject_args {
	struct inject_opts o;
	uint64_t quanta, qp, qp_step, psn, dscp, cnp_dscp, sport, len, peer_qp;
	uint64_t pause_ns, speed;
} ia;

#define FN(f, why) static int f##_fn(void *dst, const char *v, char *w, size_t len) \
	{ if (f(v, dst) == 0) return 0; snprintf(w, len, why); return -1; }
FN(parse_start, "give seconds since 1970, e.g. 1700000000.25")
FN(parse_prios, "give priorities 0-7 as 3, 0,3 or 0-7")
FN(parse_ecn, "give not-ect, ect0, ect1 or ce")
FN(frames_speed_parse, "give a link speed such as 25G")
#undef FN

static int mac_fn(void *dst, const char *v, char *why, size_t len)
{
	if (parse_mac(v, dst) == 0)
		return 0;
	snprintf(why, len, "give a MAC such as 02:00:00:00:00:01");
	return -1;
}

static int ip_fn(void *dst, const char *v, char *why, size_t len)
{
	struct in_addr a;

	if (inet_pton(AF_INET, v, &a) == 1) {
		*(uint32_t *)dst = ntohl(a.s_addr);
		return 0;
	}
	snprintf(why, len, "give an IPv4 address");
	return -1;
}

static int vlan_fn(void *dst, const char *v, char *why, size_t len)
{
	struct frames_l2 *l2 = dst;
	unsigned id, pcp = 0;
	char tail;
	int n = sscanf(v, "%u:%u%c", &id, &pcp, &tail);

	if ((n != 1 && n != 2) || id > 4095 || pcp > 7) {
		snprintf(why, len, "give ID or ID:PCP (0-4095, 0-7)");
		return -1;
	}
	l2->vlan = (int)id;
	l2->pcp = (uint8_t)pcp;
	return 0;
}

#define Q24 0xffffff
static const struct opt inject_opts_tab[] = {
	OPT_HEADING("Where:"),
	{ "interface", 'i', OPT_STR, .dst = &ia.o.ifname, .arg = "IF",
	  .help = "send on IF (needs CAP_NET_RAW)", .long_alias = "iface" },
	{ "write", 'w', OPT_STR, .dst = &ia.o.write_path, .arg = "FILE",
	  .help = "write a pcap instead (timestamps from --start and --rate)" },
	{ "pcapng", 0, OPT_FLAG, .dst = &ia.o.pcapng,
	  .help = "write pcapng rather than pcap (both nanosecond)" },
	{ "append", 0, OPT_FLAG, .dst = &ia.o.append,
	  .help = "add to an existing FILE written by pfclab" },
	{ "start", 0, OPT_FN, .dst = &ia.o.start_ns, .fn = parse_start_fn, .arg = "SECONDS",
	  .help = "timestamp of the first written frame (default 1700000000)" },
	{ "snaplen", 0, OPT_U32, 1, 65535, &ia.o.snaplen, .arg = "N",
	  .help = "keep only N bytes of each written frame (truncated records)" },
	OPT_HEADING("How many:"),
	{ "count", 'c', OPT_U64, 0, UINT64_MAX, &ia.o.count, .arg = "N",
	  .help = "frames (default 1, or with -D as many as it allows;\n"
		  "0 = until --duration or Ctrl-C)" },
	{ "rate", 'r', OPT_U64, 1, 1000000000, &ia.o.rate, .arg = "PPS",
	  .help = "frames per second (default: as fast as possible; 1000 with -w)" },
	{ "duration", 'D', OPT_DUR, 1, UINT64_MAX, &ia.o.duration_ns, .arg = "DUR",
	  .help = "stop after DUR (e.g. 10s)", .alias = "d" },
	OPT_HEADING("Frame fields:"),
	{ "src-mac", 0, OPT_FN, .dst = ia.o.l2.src, .fn = mac_fn, .arg = "MAC",
	  .help = "(default: the interface's address)" },
	{ "dst-mac", 0, OPT_FN, .dst = ia.o.l2.dst, .fn = mac_fn, .arg = "MAC",
	  .help = "(default 01:80:c2:00:00:01 for pause/pfc, else broadcast); in\n"
		  "cnp-on-ce: CNPs to MAC instead of the CE packet's source" },
	{ "vlan", 0, OPT_FN, .dst = &ia.o.l2, .fn = vlan_fn, .arg = "ID[:PCP]",
	  .help = "add an 802.1Q tag" },
	{ "quanta", 0, OPT_U64, 0, 0xffff, &ia.quanta, .arg = "Q",
	  .help = "pause time in quanta of 512 bit times (default 65535;\n0 = XON)" },
	{ "pause-time", 0, OPT_DUR, 1, UINT64_MAX, &ia.pause_ns, .arg = "DUR",
	  .help = "the pause time as a time instead of --quanta, at the\n"
		  "link speed of -i IF (/sys/class/net/IF/speed) or --speed" },
	{ "speed", 0, OPT_FN, .dst = &ia.speed, .fn = frames_speed_parse_fn, .arg = "RATE",
	  .help = "link speed for --pause-time, e.g. 25G (needed with -w\n"
		  "and where IF reports none)" },
	{ "prio", 'p', OPT_FN, .dst = &ia.o.prios, .fn = parse_prios_fn, .arg = "LIST",
	  .help = "PFC priorities: 3, 0,3 or 0-7 (default 3)" },
	{ "src-ip", 0, OPT_FN, .dst = &ia.o.roce.src_ip, .fn = ip_fn, .arg = "IP",
	  .help = "IPv4 source (default 10.0.0.1)" },
	{ "dst-ip", 0, OPT_FN, .dst = &ia.o.roce.dst_ip, .fn = ip_fn, .arg = "IP",
	  .help = "IPv4 destination (default 10.0.0.2)" },
	{ "qp", 0, OPT_U64, 0, Q24, &ia.qp, .arg = "QPN", .help = "destination QP (default 0x11)" },
	{ "qp-step", 0, OPT_U64, 0, Q24, &ia.qp_step, .arg = "N",
	  .help = "add N to the QP for each frame (many QPs)" },
	{ "qp-count", 0, OPT_U32, 1, Q24, &ia.o.qp_count, .arg = "N",
	  .help = "cycle through N QPs with --qp-step" },
	{ "psn", 0, OPT_U64, 0, Q24, &ia.psn, .arg = "PSN", .help = "packet sequence number" },
	{ "dscp", 0, OPT_U64, 0, 63, &ia.dscp, .arg = "N",
	  .help = "DSCP of the crafted RoCEv2 frames (cnp, roce)" },
	{ "sport", 0, OPT_U64, 1, 0xffff, &ia.sport, .arg = "PORT", .help = "UDP source port" },
	{ "ecn", 0, OPT_FN, .dst = &ia.o.roce.ecn, .fn = parse_ecn_fn, .arg = "ECN",
	  .help = "not-ect|ect0|ect1|ce: ECN of cnp and roce frames\n(default ect0)" },
	{ "ce-every", 0, OPT_U32, 1, UINT32_MAX, &ia.o.ce_every, .arg = "N",
	  .help = "mark every Nth roce frame CE" },
	{ "len", 0, OPT_U64, 0, 9000, &ia.len, .arg = "BYTES",
	  .help = "roce payload bytes, 0 to 9000 (default 1024); with -i the\n"
		  "frame must fit the interface's MTU" },
	OPT_HEADING("Reactive modes:"),
	{ "cnp-gap", 0, OPT_DUR, 0, UINT64_MAX, &ia.o.cnp_gap_ns, .arg = "DUR",
	  .help = "least time between CNPs to one QP (default 50us)" },
	{ "cnp-dscp", 0, OPT_U64, 0, 63, &ia.cnp_dscp, .arg = "N",
	  .help = "DSCP of the CNPs (default 48)" },
	{ "peer-qp", 0, OPT_U64, 0, Q24, &ia.peer_qp, .arg = "QPN",
	  .help = "QP the CNPs go to (default: learned from the packets\n"
		  "flowing back from the CE packet's receiver)" },
	{ "qdisc-dev", 0, OPT_STR, .dst = &ia.o.qdisc_dev, .arg = "DEV",
	  .help = "device whose root qdisc backlog is watched" },
	{ "xoff-bytes", 0, OPT_SIZE, 0, UINT64_MAX, &ia.o.xoff_bytes, .arg = "N",
	  .help = "backlog that sends XOFF (default 30000)" },
	{ "xon-bytes", 0, OPT_SIZE, 0, UINT64_MAX, &ia.o.xon_bytes, .arg = "N",
	  .help = "backlog below which XON is sent (default 10000)" },
	{ "poll", 0, OPT_DUR, 1000, UINT64_MAX, &ia.o.poll_ns, .arg = "DUR",
	  .help = "backlog poll period (default 1ms)" },
	OPT_HEADING("Other:"),
	{ "via-qdisc", 0, OPT_FLAG, .dst = &ia.o.via_qdisc,
	  .help = "send through the interface's qdisc (default: bypass it,\n"
		  "as a MAC sends PAUSE/PFC ahead of queued traffic)" },
	{ "quiet", 'q', OPT_FLAG, .dst = &ia.o.quiet, .help = "no summary line" },
	OPT_END
};

static const struct opt_cmd inject_cmd = {
	"inject", inject_usage, inject_tail, inject_opts_tab, .extra = NULL
};

/* Which KINDs an option is for, and where (sending or writing). An option not listed
 * is for every KIND (-i, -D, --dst-mac, -q). Giving one to another KIND is a usage
 * error, since it would be dropped unsaid (pause --prio 5, cnp --quanta 3).
 */
#define KB(k)		(1u << (k))
#define K_EVERY		(~0u)	/* every KIND of kind_names (list_kinds) */
_Static_assert(INJECT_NKIND <= 32, "a KIND is a bit of an unsigned mask");
#define K_CRAFT		(KB(INJECT_PAUSE) | KB(INJECT_PFC) | KB(INJECT_CNP) | KB(INJECT_ROCE))
#define K_L2		(K_CRAFT | KB(INJECT_PFC_ON_BACKLOG))	/* cnp-on-ce mirrors the CE packet */
#define K_PAUSE		(KB(INJECT_PAUSE) | KB(INJECT_PFC) | KB(INJECT_PFC_ON_BACKLOG))
#define K_PFC		(KB(INJECT_PFC) | KB(INJECT_PFC_ON_BACKLOG))
#define K_BTH		(KB(INJECT_CNP) | KB(INJECT_ROCE))
#define K_ALL		(K_CRAFT | KB(INJECT_CNP_ON_CE) | KB(INJECT_PFC_ON_BACKLOG))

enum scope_where { ANY, WRITING, SENDING };

static const struct inject_scope {
	const char *name;
	unsigned kinds;
	enum scope_where where;
	bool field;	/* a field of those KINDs: named when another option is refused */
} inject_scopes[] = {
	{ "write", K_CRAFT, ANY, false },
	{ "pcapng", K_CRAFT, WRITING, false },
	{ "append", K_CRAFT, WRITING, false },
	{ "start", K_CRAFT, WRITING, false },
	{ "snaplen", K_CRAFT, WRITING, false },
	{ "count", K_CRAFT, ANY, false },
	{ "rate", K_CRAFT, ANY, false },
	{ "src-mac", K_L2, ANY, false },
	{ "vlan", K_L2, ANY, false },
	{ "quanta", K_PAUSE, ANY, true },
	{ "pause-time", K_PAUSE, ANY, true },
	{ "speed", K_PAUSE, ANY, false },
	{ "prio", K_PFC, ANY, true },
	{ "src-ip", K_BTH, ANY, true },
	{ "dst-ip", K_BTH, ANY, true },
	{ "qp", K_BTH, ANY, true },
	{ "qp-step", K_BTH, ANY, true },
	{ "qp-count", K_BTH, ANY, true },
	{ "psn", K_BTH, ANY, true },
	{ "dscp", K_BTH, ANY, true },
	{ "sport", K_BTH, ANY, true },
	{ "ecn", K_BTH, ANY, true },
	{ "ce-every", KB(INJECT_ROCE), ANY, true },
	{ "len", KB(INJECT_ROCE), ANY, true },
	{ "cnp-gap", KB(INJECT_CNP_ON_CE), ANY, true },
	{ "cnp-dscp", KB(INJECT_CNP_ON_CE), ANY, true },
	{ "peer-qp", KB(INJECT_CNP_ON_CE), ANY, true },
	{ "qdisc-dev", KB(INJECT_PFC_ON_BACKLOG), ANY, true },
	{ "xoff-bytes", KB(INJECT_PFC_ON_BACKLOG), ANY, true },
	{ "xon-bytes", KB(INJECT_PFC_ON_BACKLOG), ANY, true },
	{ "poll", KB(INJECT_PFC_ON_BACKLOG), ANY, true },
	{ "via-qdisc", K_ALL, SENDING, false },
};

static const struct inject_scope *scope_of(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(inject_scopes); i++)
		if (!strcmp(inject_scopes[i].name, name))
			return &inject_scopes[i];
	return NULL;
}

/* Appends the n items to buf, each after prefix, joined by ", " and the last one by
 * last: "a, b and c", "--a, --b or --c". A buf too short keeps what fits. */
static void join_list(char *buf, size_t len, const char *const *items, size_t n,
		      const char *prefix, const char *last)
{
	size_t off = strlen(buf), i;

	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s%s",
					!i ? "" : i + 1 == n ? last : ", ", prefix, items[i]);
}

/* Appends the KINDs in mask, in the table's order, joined by join_list. */
static void list_kinds(char *buf, size_t len, unsigned mask, const char *last)
{
	const char *names[INJECT_NKIND];
	size_t n = 0, i;

	for (i = 1; i < INJECT_NKIND; i++)
		if (mask & KB(i))
			names[n++] = kind_names[i];
	join_list(buf, len, names, n, "", last);
}

/* Appends "--a, --b and --c" to buf: the options that are fields of KIND k, in --help's
 * order. */
static void list_fields(char *buf, size_t len, enum inject_kind k)
{
	const char *names[ARRAY_SIZE(inject_scopes)];
	const struct inject_scope *sc;
	const struct opt *t;
	size_t n = 0;

	for (t = inject_opts_tab; t->name; t++)
		if ((sc = scope_of(t->name)) && sc->field && (sc->kinds & KB(k)))
			names[n++] = t->name;
	join_list(buf, len, names, n, "--", " and ");
}

/* Every option given belongs to KIND k and to sending or writing, as given: 0, or -1
 * after one message. */
static int check_scopes(enum inject_kind k, bool writing)
{
	const struct opt *t;
	char msg[512];

	for (t = inject_opts_tab; t->name; t++) {
		const struct inject_scope *sc;

		if (t->kind == OPT_TEXT || !opt_given(&inject_cmd, t->name) ||
		    !(sc = scope_of(t->name)))
			continue;
		if (!(sc->kinds & KB(k))) {
			snprintf(msg, sizeof(msg), "--%s does not apply to %s (it is for ", t->name,
				 kind_names[k]);
			list_kinds(msg, sizeof(msg), sc->kinds, " and ");
			snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "); %s takes ",
				 kind_names[k]);
			list_fields(msg, sizeof(msg), k);
			pfc_err("%s", msg);
			return -1;
		}
		if (sc->where == WRITING && !writing) {
			pfc_err("--%s is for a written file: give it with -w FILE", t->name);
			return -1;
		}
		if (sc->where == SENDING && writing) {
			pfc_err("--%s is for sending on -i IF, not for -w FILE", t->name);
			return -1;
		}
	}
	return 0;
}

/* -q gave the pause quanta before it was --quiet. Before parsing: "-q5" (before any
 * "--") is such a quanta. Says so and returns true. */
static bool old_quanta_arg(int argc, char **argv)
{
	uint64_t q;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], "-q", 2) && argv[i][2] &&
		    !parse_u64(argv[i] + 2, 0, UINT64_MAX, &q)) {
			pfc_err("%s: -q is --quiet and takes no value; give the pause time as "
				"--quanta %s", argv[i], argv[i] + 2);
			return true;
		}
	return false;
}

/* After parsing, with -q given: a number among the operands (from first on), where the
 * KIND goes after -q, is such a quanta. Says so and returns true. */
static bool old_quanta_operand(int argc, char **argv, int first)
{
	uint64_t q;
	int i;

	if (!ia.o.quiet)
		return false;
	for (i = first; i < argc; i++)
		if (!parse_u64(argv[i], 0, UINT64_MAX, &q)) {
			pfc_err("'%s' is not a KIND: -q is --quiet and takes no value; give the "
				"pause time as --quanta %s", argv[i], argv[i]);
			return true;
		}
	return false;
}

/* Defaults, then the command line; returns the KIND's index, OPT_HELP or OPT_USAGE. */
static int inject_parse(int argc, char **argv)
{
	const struct inject_opts defaults = {
		.count = 1, .start_ns = 1700000000ull * 1000000000ull, .quanta = 0xffff,
		.prios = 1u << 3, .cnp_gap_ns = 50000, .cnp_dscp = 48, .peer_qp = -1,
		.xoff_bytes = 30000, .xon_bytes = 10000, .poll_ns = 1000000,
		.l2 = { .vlan = -1 },
		.roce = { .src_ip = 0x0a000001, .dst_ip = 0x0a000002, .sport = 0xc000,
			  .ecn = 2, .opcode = 0x0a, .pkey = 0xffff, .dqp = 0x11,
			  .payload = 1024, .reth_va = 0x10000, .reth_rkey = 0x1234 },
	};
	const struct inject_opts *d = &defaults;
	char kinds[256] = "";
	int first;

	memset(&ia, 0, sizeof(ia));
	ia.o = defaults;
	ia.quanta = d->quanta;
	ia.qp = d->roce.dqp;
	ia.cnp_dscp = d->cnp_dscp;
	ia.sport = d->roce.sport;
	ia.len = d->roce.payload;
	if (old_quanta_arg(argc, argv))
		return OPT_USAGE;
	first = opt_parse(&inject_cmd, argc, argv);
	if (first < 0)
		return first;
	ia.o.quanta = (uint16_t)ia.quanta;
	ia.o.roce.dqp = (uint32_t)ia.qp;
	ia.o.qp_step = (uint32_t)ia.qp_step;
	ia.o.roce.psn = (uint32_t)ia.psn;
	ia.o.roce.dscp = (uint8_t)ia.dscp;
	ia.o.cnp_dscp = (uint8_t)ia.cnp_dscp;
	ia.o.roce.sport = (uint16_t)ia.sport;
	ia.o.roce.payload = (uint16_t)ia.len;
	if (opt_given(&inject_cmd, "peer-qp"))
		ia.o.peer_qp = (int64_t)ia.peer_qp;
	ia.o.have_src_mac = opt_given(&inject_cmd, "src-mac");
	ia.o.have_dst_mac = opt_given(&inject_cmd, "dst-mac");
	if (old_quanta_operand(argc, argv, first))
		return OPT_USAGE;
	if (first != argc - 1) {
		list_kinds(kinds, sizeof(kinds), K_EVERY, ", ");
		pfc_err("give exactly one KIND (%s); 'pfclab inject --help' explains them", kinds);
		return OPT_USAGE;
	}
	return first;
}

/* --pause-time in quanta at the link speed of --speed, else of -i IF: 0, or the exit
 * status after one message. */
static int pause_quanta(struct inject_opts *o)
{
	uint64_t bps = ia.speed, v;
	char dur[32];
	int rc;

	fmt_duration_ns(ia.pause_ns, dur, sizeof(dur));
	if (opt_given(&inject_cmd, "quanta")) {
		pfc_err("--quanta and --pause-time both set the pause time; give one");
		return 2;
	}
	if (!bps && !o->ifname) {
		pfc_err("--pause-time with -w FILE needs --speed RATE: there is no interface to "
			"read the link speed of");
		return 2;
	}
	if (!bps) {
		rc = hw_netdev_speed_bps(o->ifname, &bps);
		if (rc == -ENODEV) {
			pfc_err("%s: no such network interface to read the link speed of for "
				"--pause-time; see 'ip link'", o->ifname);
			return 1;
		}
		if (rc) {
			pfc_err("--pause-time %s: %s reports no link speed (/sys/class/net/%s/speed:"
				" a virtual or down link); give it with --speed RATE", dur,
				o->ifname, o->ifname);
			return 2;
		}
	}
	v = (uint64_t)((unsigned __int128)ia.pause_ns * bps / (512ull * 1000000000ull));
	if (v > 0xffff) {
		pfc_err("--pause-time %s at %g Gb/s needs %" PRIu64 " quanta; one frame carries "
			"at most 65535 (send it repeatedly with --rate)", dur, (double)bps / 1e9, v);
		return 2;
	}
	o->quanta = (uint16_t)(v ? v : 1);
	if (!ia.speed && !o->quiet)
		fprintf(stderr, "pfclab inject: --pause-time %s at %g Gb/s (the link speed of %s) "
			"is %u quanta\n", dur, (double)bps / 1e9, o->ifname, o->quanta);
	return 0;
}

int inject_main(int argc, char **argv)
{
	struct inject_opts o;
	struct sigaction sa = { .sa_handler = on_signal };
	int first = inject_parse(argc, argv), rc;
	char kinds[256] = "";

	if (first < 0)
		return first == OPT_HELP ? 0 : 2;
	o = ia.o;
	o.kind = argv[first];
	o.kind_id = kind_parse(o.kind);
	if (o.kind_id == INJECT_UNKNOWN) {
		list_kinds(kinds, sizeof(kinds), K_EVERY, " or ");
		pfc_err("'%s' is not a frame kind; give %s", o.kind, kinds);
		return 2;
	}
	if (check_scopes(o.kind_id, o.write_path != NULL))
		return 2;
	if (opt_given(&inject_cmd, "speed") && !opt_given(&inject_cmd, "pause-time")) {
		pfc_err("--speed is the link speed for --pause-time: give it with --pause-time, "
			"or leave it out");
		return 2;
	}
	if (o.kind_id == INJECT_CNP_ON_CE || o.kind_id == INJECT_PFC_ON_BACKLOG) {
		if (!o.ifname) {
			pfc_err("%s needs -i IF", o.kind);
			return 2;
		}
	} else if (!o.ifname == !o.write_path) {
		pfc_err("give either -i IF (send) or -w FILE (write a capture file)");
		return 2;
	}
	if (opt_given(&inject_cmd, "pause-time") && (rc = pause_quanta(&o)) != 0)
		return rc;
	if (!o.have_dst_mac) {
		if (o.kind_id == INJECT_PAUSE || o.kind_id == INJECT_PFC ||
		    o.kind_id == INJECT_PFC_ON_BACKLOG)
			memcpy(o.l2.dst, frames_macctl_dst, 6);
		else
			memset(o.l2.dst, 0xff, 6);
	}
	if (!opt_given(&inject_cmd, "count") && o.duration_ns)
		o.count = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A closed pipe on standard output (-w -, the reactive modes' counts, or whoever
	 * started inject gone) is exit 1 with one message from the front door
	 * (out_stdout_check), not death by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);

	if (o.kind_id == INJECT_CNP_ON_CE)
		return inject_cnp_on_ce_run(&o);
	if (o.kind_id == INJECT_PFC_ON_BACKLOG) {
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
	if (o.write_path && !o.count && !o.duration_ns) {
		pfc_err("--write needs --count or --duration");
		return 2;
	}
	if (o.write_path && !o.have_src_mac)
		memcpy(o.l2.src, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, 0x01 }, 6);
	return o.write_path ? run_write(&o) : run_send(&o);
}
