// SPDX-License-Identifier: GPL-2.0-or-later
/* tx.c: AF_PACKET transmit: a raw socket bound to one interface, frames sent with
 * sendmmsg or, for bulk sending, through a memory-mapped transmit ring (PACKET_TX_RING,
 * TPACKET_V2) and, where the kernel allows, past the qdisc layer (PACKET_QDISC_BYPASS)
 * so MAC control frames leave as crafted.
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "monitor/frames/tx.h"

/* The ring: RING_FRAMES slots in blocks of RING_BLOCK bytes. Each slot is a tpacket2
 * header, then at RING_DATA (the header less the sockaddr_ll that V2 keeps only on
 * receive) a virtio-net header and the frame. A slot belongs to us while its status is
 * "available". The virtio-net header's hdr_len, set to the whole frame, has the kernel
 * copy the frame into the socket buffer: without it only the link header is copied and
 * the rest is attached as pages of the ring, which a veth peer then copies again into
 * a fresh page per frame. */
#define RING_BLOCK  (64u * 1024)
#define RING_FRAMES 2048u
#define RING_DATA   (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))
#define RING_VNET   sizeof(struct virtio_net_hdr)
#define RING_BUSY   (TP_STATUS_SEND_REQUEST | TP_STATUS_SENDING | TP_STATUS_WRONG_FORMAT)

static struct tpacket2_hdr *ring_slot(const struct frames_tx *tx, unsigned i)
{
	return (struct tpacket2_hdr *)(void *)(tx->ring + (size_t)i * tx->frame_size);
}

static bool slot_free(const struct tpacket2_hdr *h)
{
	return !(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & RING_BUSY);
}

int frames_tx_ring(struct frames_tx *tx, size_t max_len)
{
	struct tpacket_req req = { 0 };
	int v = TPACKET_V2, one = 1, zero = 0, err;
	unsigned fs = 256;
	void *m;

	while (fs < RING_DATA + RING_VNET + max_len)
		fs *= 2;
	if (fs > RING_BLOCK)
		return -EMSGSIZE;
	if (setsockopt(tx->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0 ||
	    setsockopt(tx->fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0)
		goto fail;
	req.tp_block_size = RING_BLOCK;
	req.tp_frame_size = fs;
	req.tp_frame_nr = RING_FRAMES;
	req.tp_block_nr = RING_FRAMES / (RING_BLOCK / fs);
	if (setsockopt(tx->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)) < 0)
		goto fail;
	m = mmap(NULL, (size_t)req.tp_block_size * req.tp_block_nr, PROT_READ | PROT_WRITE,
		 MAP_SHARED, tx->fd, 0);
	if (m == MAP_FAILED)
		goto fail_ring;
	tx->ring = m;
	tx->ring_len = (size_t)req.tp_block_size * req.tp_block_nr;
	tx->frame_size = fs;
	tx->head = 0;
	return 0;
fail_ring:
	err = errno;
	req = (struct tpacket_req){ 0 }; /* no blocks: the ring is released */
	setsockopt(tx->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req));
	errno = err;
fail:
	/* sendmmsg must not take the first bytes of each frame for a virtio-net header */
	err = -errno;
	setsockopt(tx->fd, SOL_PACKET, PACKET_VNET_HDR, &zero, sizeof(zero));
	return err;
}

/* Hands the queued slots to the kernel without waiting. A full device queue leaves the
 * rest queued (the next call sends them first) and is counted, not an error. */
static int ring_flush(struct frames_tx *tx)
{
	for (;;) {
		if (send(tx->fd, NULL, 0, MSG_DONTWAIT) >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno == ENOBUFS || errno == EAGAIN) {
			tx->failed++;
			return 0;
		}
		return -errno;
	}
}

static int ring_send(struct frames_tx *tx, const uint8_t *const *frames, const size_t *lens,
		     unsigned n)
{
	size_t cap = tx->frame_size - RING_DATA - RING_VNET;
	unsigned done = 0;
	int rc;

	while (done < n) {
		struct tpacket2_hdr *h = ring_slot(tx, tx->head);
		struct virtio_net_hdr vh;

		if (lens[done] > cap) {
			if (!done)
				return -EMSGSIZE;
			break; /* the caller gets the error with this frame next time */
		}
		if (!slot_free(h)) {
			rc = ring_flush(tx);
			if (rc < 0)
				return rc;
			if (!slot_free(h))
				break;
		}
		/* no offloads; all of the frame in the socket buffer's linear part */
		vh = (struct virtio_net_hdr){ .gso_type = VIRTIO_NET_HDR_GSO_NONE,
					      .hdr_len = (uint16_t)lens[done] };
		memcpy((uint8_t *)h + RING_DATA, &vh, sizeof(vh));
		memcpy((uint8_t *)h + RING_DATA + RING_VNET, frames[done], lens[done]);
		h->tp_len = (uint32_t)(RING_VNET + lens[done]);
		__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
		tx->head = (tx->head + 1) % RING_FRAMES;
		done++;
	}
	tx->sent += done;
	rc = ring_flush(tx);
	return rc < 0 ? rc : (int)done;
}

int frames_tx_drain(struct frames_tx *tx, uint64_t timeout_ns)
{
	uint64_t end = time_mono_ns() + timeout_ns;
	unsigned left, i;
	int rc;

	if (!tx->ring)
		return 0;
	for (;;) {
		rc = ring_flush(tx);
		if (rc < 0)
			return rc;
		for (left = 0, i = 0; i < RING_FRAMES; i++)
			left += !slot_free(ring_slot(tx, i));
		if (!left || time_mono_ns() >= end)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
	}
	tx->sent -= left;
	return (int)left;
}

int frames_tx_open(struct frames_tx *tx, const char *ifname, bool bypass_qdisc)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct ifreq ifr;
	int one = 1, err;

	memset(tx, 0, sizeof(*tx));
	tx->fd = -1;
	if (strlen(ifname) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	tx->ifindex = (int)if_nametoindex(ifname);
	if (!tx->ifindex)
		return -ENODEV;
	/* protocol 0: this socket only sends, it never receives a copy of traffic */
	tx->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (tx->fd < 0)
		return -errno;
	sll.sll_ifindex = tx->ifindex;
	if (bind(tx->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		goto fail;
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	if (ioctl(tx->fd, SIOCGIFHWADDR, &ifr) < 0)
		goto fail;
	memcpy(tx->mac, ifr.ifr_hwaddr.sa_data, 6);
	/* best effort: older kernels lack it and the qdisc path works too */
	if (bypass_qdisc)
		setsockopt(tx->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	return 0;
fail:
	err = -errno;
	close(tx->fd);
	tx->fd = -1;
	return err;
}

int frames_tx_send(struct frames_tx *tx, const uint8_t *const *frames, const size_t *lens,
		   unsigned n)
{
	struct mmsghdr msgs[64];
	struct iovec iov[64];
	unsigned done = 0;

	if (tx->ring)
		return ring_send(tx, frames, lens, n);
	while (done < n) {
		unsigned k = n - done > 64 ? 64 : n - done, i;
		int rc;

		for (i = 0; i < k; i++) {
			iov[i].iov_base = (void *)frames[done + i];
			iov[i].iov_len = lens[done + i];
			memset(&msgs[i], 0, sizeof(msgs[i]));
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		rc = sendmmsg(tx->fd, msgs, k, 0);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS || errno == EAGAIN) {
				/* device queue full: count it and let the pacing retry */
				tx->failed++;
				break;
			}
			return done ? (int)done : -errno;
		}
		done += (unsigned)rc;
		tx->sent += (uint64_t)rc;
	}
	return (int)done;
}

void frames_tx_close(struct frames_tx *tx)
{
	if (tx->ring)
		munmap(tx->ring, tx->ring_len);
	tx->ring = NULL;
	if (tx->fd >= 0)
		close(tx->fd);
	tx->fd = -1;
}
