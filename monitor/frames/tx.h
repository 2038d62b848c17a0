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
	/* PACKET_TX_RING (TPACKET_V2) once frames_tx_ring() succeeded; else sendmmsg */
	uint8_t *ring;
	size_t ring_len;
	unsigned frame_size, head;
};

/* Opens an AF_PACKET socket bound to ifname; fills tx->mac. bypass_qdisc: skip the
 * device's qdisc (frames leave at once, as a MAC would send them); otherwise they queue
 * like any traffic. -errno on failure. */
int frames_tx_open(struct frames_tx *tx, const char *ifname, bool bypass_qdisc);
/* Switches the socket to a memory-mapped transmit ring of frames of up to max_len
 * bytes: frames are copied into shared slots and one send() call hands a whole batch
 * to the kernel, without a message header per frame. 0, or -errno (the socket then
 * keeps using sendmmsg). Frames queued in the ring are handed to the device by the next
 * frames_tx_send() or by frames_tx_drain(). */
int frames_tx_ring(struct frames_tx *tx, size_t max_len);
/* Sends n frames (pointers and lengths); returns how many were taken (sent, or queued
 * in the ring) or -errno. Fewer than n: the device queue is full, try again. */
int frames_tx_send(struct frames_tx *tx, const uint8_t *const *frames, const size_t *lens,
		   unsigned n);
/* Waits up to timeout_ns for the ring's queued frames to leave; returns how many did
 * not (they are taken off tx->sent), or -errno. Without a ring: 0. */
int frames_tx_drain(struct frames_tx *tx, uint64_t timeout_ns);
void frames_tx_close(struct frames_tx *tx);

#endif
