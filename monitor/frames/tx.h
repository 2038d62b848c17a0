/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tx.h: sends crafted frames on one interface through an AF_PACKET socket, in batches,
 * at a paced rate; or writes them to a capture file with synthetic timestamps.
 */
#ifndef PFCLAB_FRAMES_TX_H
#define PFCLAB_FRAMES_TX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct frames_tx {
	int fd;
	int ifindex;
	uint8_t mac[6];
	uint64_t sent, failed;
};

/* Opens an AF_PACKET socket bound to ifname; fills tx->mac. bypass_qdisc: skip the
 * device's qdisc (frames leave at once, as a MAC would send them); otherwise they queue
 * like any traffic. -errno on failure. */
int frames_tx_open(struct frames_tx *tx, const char *ifname, bool bypass_qdisc);
/* Sends n frames (pointers and lengths); returns how many went out or -errno. */
int frames_tx_send(struct frames_tx *tx, const uint8_t *const *frames, const size_t *lens,
		   unsigned n);
void frames_tx_close(struct frames_tx *tx);

#endif
