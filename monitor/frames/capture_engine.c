// SPDX-License-Identifier: GPL-2.0-or-later
/* capture_engine.c: libpcap capture engine: activation with a large buffer, immediate
 * mode and nanosecond timestamps, a BPF filter, poll() across interfaces, decoding and
 * counting of each frame, and pcap/pcapng output with rotation by size or time.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/hw/sysfs.h"
#include "lib/util.h"
#include "monitor/frames/capture_engine.h"
#include "monitor/frames/decode.h"

/* MAC control frames and RoCEv2 CNPs (BTH opcode 0x81 = first byte of the UDP
 * payload). */
const char frames_cap_filter_default[] =
	"ether proto 0x8808 or (udp dst port 4791 and udp[8] = 0x81)";
/* RoCEv2 with ECN = CE (IPv4 TOS low bits; IPv6 traffic class low bits) */
const char frames_cap_filter_ce[] =
	"udp dst port 4791 and ((ip and ip[1] & 3 = 3) or (ip6 and ip6[1] & 0x30 = 0x30))";
const char frames_cap_filter_roce[] = "udp dst port 4791";

int frames_cap_filter_untagged(char *buf, size_t len, bool ce, bool roce)
{
	int n;

	if (roce)
		n = snprintf(buf, len, "%s", frames_cap_filter_roce);
	else if (ce)
		n = snprintf(buf, len, "(%s) or (%s)", frames_cap_filter_default,
			     frames_cap_filter_ce);
	else
		n = snprintf(buf, len, "%s", frames_cap_filter_default);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int frames_cap_filter_check(const char *expr, char *why, size_t n)
{
	struct bpf_program prog;
	pcap_t *pc = pcap_open_dead(DLT_EN10MB, 65535);
	int rc = 0;

	if (!pc)
		return 0;	/* no handle to try it on: the capture's open will say */
	if (pcap_compile(pc, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(why, n, "%s", pcap_geterr(pc));
		rc = -EINVAL;
	} else {
		pcap_freecode(&prog);
	}
	pcap_close(pc);
	return rc;
}

/* The chosen parts, untagged and then behind one VLAN tag. The `vlan` primitive
 * shifts the offsets of everything after it, so it must come last. */
int frames_cap_filter_build(char *buf, size_t len, bool ce, bool roce)
{
	char x[512];
	int n;

	if (frames_cap_filter_untagged(x, sizeof(x), ce, roce))
		return -ENOSPC;
	n = snprintf(buf, len, "(%s) or (vlan and (%s))", x, x);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

const char *frames_cap_file(const struct frames_cap *cap, char *buf, size_t len)
{
	if (cap->o.rotate_bytes || cap->o.rotate_ns)
		snprintf(buf, len, "%s.%u", cap->o.path, cap->file_no);
	else
		snprintf(buf, len, "%s", cap->o.path);
	return buf;
}

/* The speed for pcapng's if_speed and paused time, 0 when unknown. */
static uint64_t if_speed_bps(const char *name)
{
	uint64_t bps = 0;

	return hw_netdev_speed_bps(name, &bps) ? 0 : bps;
}

static int file_open(struct frames_cap *cap)
{
	char path[4096];
	unsigned i;
	int rc;

	frames_cap_file(cap, path, sizeof(path));
	rc = pcapf_writer_open(&cap->w, path, cap->o.pcapng, cap->ifs[0].link, cap->o.snaplen);
	if (rc) {
		snprintf(cap->errmsg, sizeof(cap->errmsg), "%.200s: cannot create: %s", path,
			 strerror(-rc));
		return rc;
	}
	/* pcapng records the filter in each interface block (if_filter), so that review
	 * knows what the file can hold: with --ce only CE-marked RoCEv2 packets. */
	for (i = 0; i < cap->o.nifs; i++) {
		rc = pcapf_writer_add_if(&cap->w, cap->ifs[i].link, cap->o.snaplen,
					 cap->ifs[i].name, cap->ifs[i].speed_bps, cap->ifs[i].filter);
		if (rc < 0) {
			if (rc == -EINVAL)
				snprintf(cap->errmsg, sizeof(cap->errmsg),
					 "%s and %s have different link types; use --pcapng",
					 cap->ifs[0].name, cap->ifs[i].name);
			else if (rc == -E2BIG)
				snprintf(cap->errmsg, sizeof(cap->errmsg),
					 "%.200s: the filter is too long to record in pcapng "
					 "(65000 bytes at most)", path);
			else
				snprintf(cap->errmsg, sizeof(cap->errmsg), "%.200s: cannot write: %s",
					 path, strerror(-rc));
			pcapf_writer_close(&cap->w);
			return rc;
		}
		cap->ifs[i].wr_idx = rc;
	}
	/* The header goes out now, so that a full or unwritable target is named at the
	 * start and not after the run. */
	rc = pcapf_writer_flush(&cap->w);
	if (rc) {
		snprintf(cap->errmsg, sizeof(cap->errmsg), "%.200s: cannot write: %s", path,
			 strerror(-rc));
		pcapf_writer_close(&cap->w);
		return rc;
	}
	cap->writing = true;
	if (!cap->files++)
		cap->file_t0 = time_mono_ns();
	return 0;
}

static int if_open(struct frames_cap *cap, struct frames_cap_if *ci)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct bpf_program prog;
	int rc;

	ci->pc = pcap_create(ci->name, errbuf);
	if (!ci->pc) {
		snprintf(cap->errmsg, sizeof(cap->errmsg), "%s: %s", ci->name, errbuf);
		return -ENODEV;
	}
	pcap_set_snaplen(ci->pc, (int)cap->o.snaplen);
	pcap_set_promisc(ci->pc, 1);
	pcap_set_buffer_size(ci->pc, (int)(cap->o.buffer_bytes > 0x7fffffff ? 0x7fffffff :
					   cap->o.buffer_bytes));
	pcap_set_immediate_mode(ci->pc, cap->o.immediate);
	pcap_set_timeout(ci->pc, 10);
	pcap_set_tstamp_precision(ci->pc, PCAP_TSTAMP_PRECISION_NANO);
	rc = pcap_activate(ci->pc);
	if (rc < 0) {
		snprintf(cap->errmsg, sizeof(cap->errmsg), "%s: cannot capture: %s%s", ci->name,
			 pcap_geterr(ci->pc), rc == PCAP_ERROR_PERM_DENIED ?
			 " (needs root or CAP_NET_RAW)" : rc == PCAP_ERROR_NO_SUCH_DEVICE ?
			 " (see 'pfclab capture --list')" : "");
		return -EIO;
	}
	ci->link = pcap_datalink(ci->pc);
	ci->filter = cap->o.filter;
	if (ci->link != DLT_EN10MB && cap->o.filter_untagged) {
		/* Linux cooked (-i any): libpcap has no `vlan` for it, and the kernel filters
		 * a tagged frame by what is behind the tag anyway. v2, as tcpdump picks, stores
		 * the frame as filtered: libpcap puts the tag back in v1 only, where the
		 * recorded filter (review's ECN check) would no longer match it. */
#ifdef DLT_LINUX_SLL2
		if (ci->link == DLT_LINUX_SLL && pcap_set_datalink(ci->pc, DLT_LINUX_SLL2) == 0)
			ci->link = DLT_LINUX_SLL2;
#endif
		ci->filter = cap->o.filter_untagged;
	}
	ci->speed_bps = cap->o.speed_bps ? cap->o.speed_bps : if_speed_bps(ci->name);
	if (pcap_compile(ci->pc, &prog, ci->filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(cap->errmsg, sizeof(cap->errmsg), "%s: filter '%s': %s", ci->name,
			 ci->filter, pcap_geterr(ci->pc));
		return -EINVAL;
	}
	rc = pcap_setfilter(ci->pc, &prog);
	pcap_freecode(&prog);
	if (rc < 0) {
		snprintf(cap->errmsg, sizeof(cap->errmsg), "%s: cannot set the filter: %s",
			 ci->name, pcap_geterr(ci->pc));
		return -EINVAL;
	}
	if (pcap_setnonblock(ci->pc, 1, errbuf) < 0) {
		snprintf(cap->errmsg, sizeof(cap->errmsg), "%s: %s", ci->name, errbuf);
		return -EIO;
	}
	ci->fd = pcap_get_selectable_fd(ci->pc);
	return 0;
}

int frames_cap_open(struct frames_cap *cap, const struct frames_cap_opts *o)
{
	unsigned i;
	int rc;

	memset(cap, 0, sizeof(*cap));
	cap->o = *o;
	frames_stats_init(&cap->st, o->speed_bps, 100000000ull, 0);
	cap->st.counts_only = true; /* live counts only: memory stays fixed however long */
	for (i = 0; i < o->nifs; i++) {
		cap->ifs[i].name = o->ifnames[i];
		cap->ifs[i].fd = -1;
		rc = if_open(cap, &cap->ifs[i]);
		if (rc) {
			frames_cap_close(cap);
			return rc;
		}
	}
	if (o->path) {
		rc = file_open(cap);
		if (rc) {
			frames_cap_close(cap);
			return rc;
		}
	}
	return 0;
}

struct cb_ctx {
	struct frames_cap *cap;
	struct frames_cap_if *ci;
	int n;
};

static void write_failed(struct frames_cap *cap, int rc)
{
	char path[4096];

	if (cap->err)
		return;
	cap->err = rc;
	snprintf(cap->errmsg, sizeof(cap->errmsg), "%.200s: write failed: %s",
		 frames_cap_file(cap, path, sizeof(path)), strerror(-rc));
}

static void rotate_check(struct frames_cap *cap)
{
	bool by_size = cap->o.rotate_bytes && cap->w.bytes >= cap->o.rotate_bytes;
	bool by_time = cap->o.rotate_ns && time_mono_ns() - cap->file_t0 >= cap->o.rotate_ns;
	int rc;

	if (!by_size && !by_time)
		return;
	rc = pcapf_writer_close(&cap->w);
	cap->writing = false;
	if (rc) {
		write_failed(cap, rc);
		return;
	}
	if (cap->o.rotate_files && cap->files >= cap->o.rotate_files && !cap->o.rotate_bytes) {
		cap->full = true; /* -W with -G alone: that many files, then stop */
		return;
	}
	cap->file_no++;
	if (cap->o.rotate_files && cap->file_no >= cap->o.rotate_files)
		cap->file_no = 0; /* -W with -C: a ring of that many files */
	if (cap->o.rotate_ns) /* on the period's grid, not from the last frame */
		cap->file_t0 += (time_mono_ns() - cap->file_t0) / cap->o.rotate_ns *
				cap->o.rotate_ns;
	rc = file_open(cap);
	if (rc && !cap->err)
		cap->err = rc;
}

uint64_t frames_cap_next_rotation_ns(const struct frames_cap *cap)
{
	if (!cap->writing || !cap->o.rotate_ns)
		return UINT64_MAX;
	return cap->file_t0 + cap->o.rotate_ns;
}

static void on_frame(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct cb_ctx *cx = (struct cb_ctx *)user;
	struct frames_cap *cap = cx->cap;
	struct frames_pkt pk;
	/* PCAP_TSTAMP_PRECISION_NANO: tv_usec holds nanoseconds */
	uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
	int rc;

	frames_decode(cx->ci->link, bytes, h->caplen, h->len, &pk);
	frames_stats_add(&cap->st, ts, &pk, cx->ci->speed_bps);
	cx->n++;
	if (!cap->writing)
		return;
	rc = pcapf_writer_write(&cap->w, (unsigned)cx->ci->wr_idx, ts, bytes, h->caplen, h->len);
	if (rc) {
		write_failed(cap, rc);
		return;
	}
	cap->written++;
	if (cap->o.rotate_bytes || cap->o.rotate_ns)
		rotate_check(cap);
}

#define COALESCE_MIN 16
#define COALESCE_NS  200000

int frames_cap_poll(struct frames_cap *cap, int timeout_ms)
{
	struct pollfd pfd[FRAMES_CAP_MAX_IFS];
	unsigned i;
	int total = 0, rc;

	/* Under a flood, waking for every frame costs more than the frame: after a busy
	 * round, let frames gather for COALESCE_NS first. At low rates every frame is
	 * still handled as soon as it arrives. */
	if (cap->last_n >= COALESCE_MIN && timeout_ms > 0)
		nanosleep(&(struct timespec){ .tv_nsec = COALESCE_NS }, NULL);
	for (i = 0; i < cap->o.nifs; i++)
		pfd[i] = (struct pollfd){ .fd = cap->ifs[i].fd, .events = POLLIN };
	rc = poll(pfd, cap->o.nifs, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	/* dispatch each interface even without POLLIN: libpcap may hold frames already */
	for (i = 0; i < cap->o.nifs; i++) {
		struct cb_ctx cx = { cap, &cap->ifs[i], 0 };

		do {
			rc = pcap_dispatch(cap->ifs[i].pc, 4096, on_frame, (u_char *)&cx);
		} while (rc > 0 && cx.n < 65536);
		if (rc == PCAP_ERROR) {
			snprintf(cap->errmsg, sizeof(cap->errmsg), "%s: capture failed: %s",
				 cap->ifs[i].name, pcap_geterr(cap->ifs[i].pc));
			return -EIO;
		}
		total += cx.n;
	}
	cap->last_n = total;
	if (cap->writing && cap->o.rotate_ns)
		rotate_check(cap);
	return cap->err ? cap->err : total;
}

void frames_cap_stats(struct frames_cap *cap)
{
	unsigned i;

	for (i = 0; i < cap->o.nifs; i++) {
		struct pcap_stat ps;

		cap->ifs[i].stats_valid = cap->ifs[i].pc && pcap_stats(cap->ifs[i].pc, &ps) == 0;
		if (!cap->ifs[i].stats_valid)
			continue;
		cap->ifs[i].recv = ps.ps_recv;
		cap->ifs[i].drop = ps.ps_drop;
		cap->ifs[i].ifdrop = ps.ps_ifdrop;
	}
}

void frames_cap_close(struct frames_cap *cap)
{
	unsigned i;

	for (i = 0; i < FRAMES_CAP_MAX_IFS; i++) {
		if (cap->ifs[i].pc)
			pcap_close(cap->ifs[i].pc);
		cap->ifs[i].pc = NULL;
	}
	if (cap->writing) {
		int rc = pcapf_writer_close(&cap->w);

		if (rc)
			write_failed(cap, rc);
	}
	cap->writing = false;
	frames_stats_free(&cap->st);
}
