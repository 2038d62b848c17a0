/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inject.h: `pfclab inject`: options shared by the one-shot crafting mode and the two
 * reactive modes (CNP on CE, PFC on qdisc backlog).
 */
#ifndef PFCLAB_FRAMES_INJECT_H
#define PFCLAB_FRAMES_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "monitor/frames/craft.h"

/* KIND, named once on the command line and looked up once in inject.c's one table of
 * names, which every message that lists KINDs is made from */
enum inject_kind {
	INJECT_UNKNOWN, INJECT_PAUSE, INJECT_PFC, INJECT_CNP, INJECT_ROCE,
	INJECT_CNP_ON_CE, INJECT_PFC_ON_BACKLOG,
	INJECT_NKIND	/* not a KIND: how many there are, INJECT_UNKNOWN included */
};

struct inject_opts {
	const char *kind;     /* as given */
	enum inject_kind kind_id;
	const char *ifname;
	const char *write_path;
	bool pcapng, append;
	uint32_t snaplen;     /* --write: bytes kept per frame, 0 = all */
	uint64_t count;
	uint64_t rate;        /* frames/s, 0 = as fast as possible */
	uint64_t duration_ns; /* 0 = no limit */
	uint64_t start_ns;    /* first timestamp with --write */
	bool have_src_mac, have_dst_mac;
	struct frames_l2 l2;
	uint16_t quanta;
	uint8_t prios;        /* PFC class-enable vector */
	struct frames_roce roce;
	uint32_t qp_step;
	uint32_t qp_count;    /* QPs cycled through with --qp-step, 0 = no wrap */
	uint32_t ce_every;
	/* cnp-on-ce */
	uint64_t cnp_gap_ns;
	uint8_t cnp_dscp;
	int64_t peer_qp;      /* -1: learn from the reverse direction */
	/* pfc-on-backlog */
	const char *qdisc_dev;
	uint64_t xoff_bytes, xon_bytes;
	uint64_t poll_ns;
	bool quiet;
	bool via_qdisc;       /* send through the qdisc rather than past it */
};

int inject_main(int argc, char **argv);
int inject_cnp_on_ce_run(const struct inject_opts *o);
int inject_pfc_on_backlog_run(const struct inject_opts *o);

/* Set by SIGINT/SIGTERM: reactive loops end and print their counts. */
extern volatile int inject_stop;

#endif
