/* SPDX-License-Identifier: GPL-2.0-or-later */
/* review.h: entry point of `pfclab review` (offline summary of pcap/pcapng files). */
#ifndef PFCLAB_FRAMES_REVIEW_H
#define PFCLAB_FRAMES_REVIEW_H

#include <stdint.h>

int review_main(int argc, char **argv);

/* Parses a link speed such as 25G, 100g, 25000M, 100gbit into bits per second. */
int frames_speed_parse(const char *s, uint64_t *bps);

#endif
