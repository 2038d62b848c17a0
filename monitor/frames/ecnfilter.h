/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ecnfilter.h: which ECN codepoints a capture filter let through. A share of CE-marked
 * packets is only a share when the filter kept packets whatever their ECN field;
 * `pfclab capture --ce` keeps only CE-marked RoCEv2 packets, so review must not divide
 * by what such a filter kept. Prints nothing.
 */
#ifndef PFCLAB_FRAMES_ECNFILTER_H
#define PFCLAB_FRAMES_ECNFILTER_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/frames/decode.h"

/* Masks of ECN codepoints, bit e for the value e of the IP header's ECN field
 * (RFC 3168: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE). */
#define FRAMES_ECN_ALL     0xfu
#define FRAMES_ECN_CE_ONLY (1u << FRAMES_ECN_CE)

/* The ECN codepoints that `filter` (a libpcap expression, compiled for link type
 * `link`) keeps of one captured packet: the packet p (caplen of wirelen bytes, decoded
 * in pk, an IPv4 or IPv6 packet) run through the filter with its ECN field set to each
 * value in turn. Returns the mask (FRAMES_ECN_ALL: the filter did not choose this
 * packet by its ECN), or
 *   -EINVAL   the filter does not compile, or pk has no IP header (why says which);
 *   -ENODATA  the filter drops the packet as stored (it reads bytes the snaplen cut
 *             off): nothing can be told from it;
 *   -ENOMEM.
 * The verdict holds for packets like p: a filter that chooses by ECN only for some
 * addresses is seen only on a packet of those. */
int frames_filter_ecn_kept(int link, const char *filter, const uint8_t *p, uint32_t caplen,
			   uint32_t wirelen, const struct frames_pkt *pk, char *why, size_t whylen);

#endif
