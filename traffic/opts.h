/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opts.h: pfclab traffic's command-line options and their validation. */
#ifndef PFCLAB_TRAFFIC_OPTS_H
#define PFCLAB_TRAFFIC_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRAFFIC_MAX_QPS 256
#define TRAFFIC_MAX_SIZES 32
#define TRAFFIC_MAX_MSG (64u << 20)
#define TRAFFIC_DEFAULT_PORT 18515
#define TRAFFIC_INLINE_DEFAULT 220	/* -I without the option: bytes */

enum traffic_rate_mode { TRAFFIC_RATE_AUTO, TRAFFIC_RATE_HW, TRAFFIC_RATE_SW };
/* --poll: how the loop waits for completions when nothing can be posted */
enum traffic_poll_mode { TRAFFIC_POLL_AUTO, TRAFFIC_POLL_SPIN };

struct traffic_opts {
	const char *dev;		/* -d */
	uint32_t ib_port;		/* -i */
	int gid_index;			/* -x, -1 = automatic RoCEv2 choice */
	const char *host;		/* positional: client mode when set */
	const char *bind_addr;		/* --bind */
	uint16_t port;			/* -p */
	uint32_t qps;			/* -q */
	uint32_t sizes[TRAFFIC_MAX_SIZES]; /* -s LIST or -a */
	uint32_t nsizes;
	bool all_sizes;			/* -a: the sweep 2 B .. 8 MiB */
	bool bidir;			/* -b */
	bool imm;			/* --imm: RDMA WRITE with immediate */
	uint32_t tx_depth;		/* -t */
	uint32_t rx_depth;		/* --rx-depth (receives posted for --imm) */
	uint32_t post_list;		/* -l: longest chain of sends per post call */
	bool post_list_auto;		/* no -l: chain small messages only (<= 4 KiB) */
	bool inline_auto;		/* no -I: the default, dropped where QPs refuse it */
	uint32_t cq_mod;		/* -Q: one signalled completion every N sends */
	uint32_t inline_size;		/* -I */
	uint32_t mtu;			/* -m, 0 = port's active MTU */
	uint64_t duration_ns;		/* -D, 0 = use iters */
	uint64_t iters;			/* -n */
	uint64_t warmup_ns;		/* --warmup */
	int tclass;			/* --tclass / --dscp, -1 = 0 (unset) */
	uint32_t sl;			/* -S */
	double rate_gbps;		/* --rate per QP, 0 = unlimited */
	enum traffic_rate_mode rate_mode;
	enum traffic_poll_mode poll_mode;	/* --poll */
	uint32_t qp_timeout;		/* --qp-timeout (4.096 us * 2^N) */
	uint32_t retry;			/* --retry */
	uint64_t timeout_ns;		/* --timeout: connect and each exchange step */
	uint64_t wait_ns;		/* --wait: server waits this long for a client, 0 = forever */
	uint64_t interval_ns;		/* --interval */
	const char *psk_file;		/* --psk, else $PFCLAB_PSK_FILE; NULL: no key */
	uint64_t peer_timeout_ns;	/* --peer-timeout: a silent peer is gone */
	bool json;			/* -j, --json */
	bool quiet;			/* --quiet: summary only */
	const char *mem;		/* --mem */
	const char *gpu;		/* --gpu */
	bool hugepages;			/* --hugepages */
	int numa_node;			/* --numa, -1 = the NIC's node */
	const char *check_mem;		/* --check-mem TYPE */
	uint64_t check_size;		/* --check-size */
};

/* Parses argv into o (defaults first). Returns 0, 1 when --help was asked (the help is
 * printed then), or -EINVAL with one line in err saying which option is wrong and why.
 */
int traffic_opts_parse(int argc, char **argv, struct traffic_opts *o, char *err, size_t errlen);
/* Checks one option's value as "pfclab traffic FLAG VALUE" would (FLAG as typed: "-q",
 * "--warmup"; VALUE NULL for a flag), with the same table, ranges and wording; the
 * checks between options are not made. Returns 0 with the value stored in o over the
 * defaults, or -EINVAL with why saying what is wrong and what to give, without naming
 * the option ("expected a whole number from 1 to 256").
 */
int traffic_opts_check(const char *flag, const char *value, struct traffic_opts *o, char *why,
		       size_t n);
/* Largest message size of the run. */
uint32_t traffic_opts_max_size(const struct traffic_opts *o);

#endif
