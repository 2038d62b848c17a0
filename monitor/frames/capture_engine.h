/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture_engine.h: live capture of PAUSE/PFC, CNP and RoCEv2 frames with libpcap on
 * one or more interfaces, counting them as they come and optionally writing them to
 * rotating pcap/pcapng files. Used by `pfclab capture`; prints nothing, so a monitor
 * can run it beside its counters on the same clock.
 */
#ifndef PFCLAB_FRAMES_CAPTURE_ENGINE_H
#define PFCLAB_FRAMES_CAPTURE_ENGINE_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/frames/pcapfile.h"
#include "monitor/frames/stats.h"

#define FRAMES_CAP_MAX_IFS 16

/* Filter parts: MAC control (PAUSE/PFC) and CNPs; CE-marked RoCEv2; all RoCEv2. */
extern const char frames_cap_filter_default[];
extern const char frames_cap_filter_ce[];
extern const char frames_cap_filter_roce[];
/* The full filter for those parts, untagged or behind one VLAN tag. */
int frames_cap_filter_build(char *buf, size_t len, bool ce, bool roce);
/* The same parts untagged only, for links whose filters know no `vlan` (Linux cooked). */
int frames_cap_filter_untagged(char *buf, size_t len, bool ce, bool roce);
/* Whether EXPR compiles as a filter for an Ethernet capture: 0, or -EINVAL with
 * libpcap's reason in why. */
int frames_cap_filter_check(const char *expr, char *why, size_t n);

struct frames_cap_opts {
	const char *ifnames[FRAMES_CAP_MAX_IFS];
	unsigned nifs;
	const char *filter;   /* full BPF expression */
	const char *filter_untagged; /* the built-in one without `vlan`, for links other
				      * than Ethernet; NULL: filter everywhere (-f) */
	uint32_t snaplen;
	uint64_t buffer_bytes;
	bool immediate;
	const char *path;     /* NULL: count only */
	bool pcapng;
	uint64_t rotate_bytes, rotate_ns; /* 0 = no rotation */
	unsigned rotate_files; /* -W: with rotate_bytes a ring of this many files, with
				* rotate_ns alone this many files and then stop; 0 = no limit */
	uint64_t speed_bps;   /* overrides each interface's sysfs speed (pcapng if_speed) */
};

struct frames_cap_if {
	const char *name;
	pcap_t *pc;
	int fd;
	int link;
	const char *filter;   /* the one set here, as recorded in pcapng's if_filter */
	int wr_idx;           /* interface index in the output file */
	uint64_t speed_bps;   /* --speed, else sysfs, else 0 (unknown) */
	/* from pcap_stats at the last frames_cap_stats call */
	bool stats_valid;
	uint64_t recv, drop, ifdrop;
};

struct frames_cap {
	struct frames_cap_opts o;
	struct frames_cap_if ifs[FRAMES_CAP_MAX_IFS];
	struct frames_stats st;
	struct pcapf_writer w;
	bool writing;
	unsigned file_no;
	uint64_t file_t0;
	uint64_t written, files;
	int last_n;           /* frames the previous poll round handled */
	bool full;            /* the -W file count was reached: capture is over */
	int err;              /* first write error, -errno */
	char errmsg[PCAP_ERRBUF_SIZE + 128];
};

/* Opens and activates every interface; on failure cap->errmsg says why. */
int frames_cap_open(struct frames_cap *cap, const struct frames_cap_opts *o);
/* Waits up to timeout_ms for frames and processes what is there; returns frames
 * handled or -errno. */
int frames_cap_poll(struct frames_cap *cap, int timeout_ms);
/* Monotonic time of the next time-based rotation, UINT64_MAX when none is due. */
uint64_t frames_cap_next_rotation_ns(const struct frames_cap *cap);
/* Refreshes the per-interface pcap_stats figures. */
void frames_cap_stats(struct frames_cap *cap);
/* Name of the current output file (rotation appends .N). */
const char *frames_cap_file(const struct frames_cap *cap, char *buf, size_t len);
void frames_cap_close(struct frames_cap *cap);

#endif
