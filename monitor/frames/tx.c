// SPDX-License-Identifier: GPL-2.0-or-later
/* tx.c: AF_PACKET transmit: a raw socket bound to one interface, frames sent with
 * sendmmsg and, where the kernel allows, past the qdisc layer (PACKET_QDISC_BYPASS) so
 * MAC control frames leave as crafted.
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "monitor/frames/tx.h"

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
	if (tx->fd >= 0)
		close(tx->fd);
	tx->fd = -1;
}
